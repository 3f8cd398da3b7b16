//! Tests of `read.rs`: records in a row, and each kind of damage reported at its record's
//! offset with the records after it still read.

use super::*;

/// A plain record of type `kind` with `block`, its `Content-Length` as given (`None`: the
/// block's true length).
fn record(kind: &str, block: &str, length: Option<&str>) -> Vec<u8> {
    let length = length.map_or_else(|| block.len().to_string(), str::to_string);
    format!("WARC/1.1\r\nWARC-Type: {kind}\r\nContent-Length: {length}\r\n\r\n{block}\r\n\r\n")
        .into_bytes()
}

/// What reading `bytes` gives: each record's offset and type, or its damage.
fn read_all(bytes: &[u8], limit: u64) -> Vec<(u64, Result<String, Damage>)> {
    let mut reader = RecordReader::new(bytes, limit);
    let mut out = Vec::new();
    loop {
        let (offset, next) = reader.read_next().expect("reading memory does not fail");
        match next {
            Next::Record(record) => out.push((
                offset,
                Ok(format!(
                    "{} {}",
                    record.header.get("WARC-Type").unwrap_or_default(),
                    String::from_utf8_lossy(&record.block)
                )),
            )),
            Next::Damaged(damage) => out.push((offset, Err(damage))),
            Next::End => return out,
        }
    }
}

#[test]
fn records_in_a_row_are_read_with_their_offsets() {
    let a = record("request", "GET / HTTP/1.1\r\n\r\n", None);
    let b = record("response", "", None);
    let bytes = [a.clone(), b].concat();
    assert_eq!(
        read_all(&bytes, 1000),
        [
            (0, Ok("request GET / HTTP/1.1\r\n\r\n".to_string())),
            (a.len() as u64, Ok("response ".to_string())),
        ]
    );
}

#[test]
fn a_content_length_that_is_no_number_is_reported_and_the_next_record_read() {
    let bad = record("response", "lost", Some("12abc"));
    let bytes = [bad.clone(), record("resource", "kept", None)].concat();
    assert_eq!(
        read_all(&bytes, 1000),
        [
            (
                0,
                Err(Damage::BadLength {
                    value: "12abc".into()
                })
            ),
            (bad.len() as u64, Ok("resource kept".to_string())),
        ]
    );
}

#[test]
fn a_content_length_too_long_swallows_no_record_after_it() {
    // 40 bytes claimed, 4 there: the claimed block runs into the next record.
    let bad = record("response", "lost", Some("40"));
    let next = record("resource", "kept", None);
    let bytes = [bad.clone(), next.clone(), record("metadata", "too", None)].concat();
    assert_eq!(
        read_all(&bytes, 1000),
        [
            (0, Err(Damage::LengthMismatch { length: 40 })),
            (bad.len() as u64, Ok("resource kept".to_string())),
            ((bad.len() + next.len()) as u64, Ok("metadata too".into())),
        ]
    );
    // Claimed past the end of the data: cut off, and the record inside it is still found.
    let bad = record("response", "lost", Some("400"));
    let bytes = [bad.clone(), next].concat();
    let header_len = bad.len() - "lost\r\n\r\n".len();
    assert_eq!(
        read_all(&bytes, 1000),
        [
            (
                0,
                Err(Damage::Truncated {
                    length: 400,
                    got: (bytes.len() - header_len) as u64
                })
            ),
            (bad.len() as u64, Ok("resource kept".to_string())),
        ]
    );
}

#[test]
fn a_content_length_too_short_is_reported_and_the_next_record_read() {
    let bad = record("response", "a longer block", Some("3"));
    let bytes = [bad.clone(), record("resource", "kept", None)].concat();
    assert_eq!(
        read_all(&bytes, 1000),
        [
            (0, Err(Damage::LengthMismatch { length: 3 })),
            (bad.len() as u64, Ok("resource kept".to_string())),
        ]
    );
}

#[test]
fn a_record_over_the_limit_is_read_past_without_holding_it() {
    let big = record("response", &"x".repeat(5000), None);
    let bytes = [big.clone(), record("resource", "kept", None)].concat();
    assert_eq!(
        read_all(&bytes, 4096),
        [
            (
                0,
                Err(Damage::OverLimit {
                    length: 5000,
                    limit: 4096
                })
            ),
            (big.len() as u64, Ok("resource kept".to_string())),
        ]
    );
}

#[test]
fn bytes_that_start_no_record_are_skipped_to_the_next_warc_line() {
    let junk = b"hello\r\nnot a WARC line\r\n".to_vec();
    let bytes = [junk.clone(), record("resource", "kept", None)].concat();
    assert_eq!(
        read_all(&bytes, 1000),
        [
            (
                0,
                Err(Damage::NoVersionLine {
                    found: "hello".into()
                })
            ),
            (junk.len() as u64, Ok("resource kept".to_string())),
        ]
    );
}

#[test]
fn a_header_without_end_or_with_a_line_that_is_no_field_is_reported() {
    let endless = format!("WARC/1.1\r\nX: {}", "y".repeat(MAX_HEADER_BYTES));
    assert_eq!(
        read_all(endless.as_bytes(), 1000),
        [(0, Err(Damage::HeaderTooLong))]
    );
    let bad = b"WARC/1.1\r\nno field\r\nContent-Length: 0\r\n\r\n\r\n\r\n".to_vec();
    let bytes = [bad.clone(), record("resource", "kept", None)].concat();
    let read = read_all(&bytes, 1000);
    assert_eq!(
        read[0],
        (
            0,
            Err(Damage::BadHeaderLine {
                line: "no field".into()
            })
        )
    );
    assert_eq!(read[1], (bad.len() as u64, Ok("resource kept".to_string())));
    assert_eq!(
        read_all(b"WARC/1.1\r\nWARC-Type: x\r\n\r\n", 1000),
        [(0, Err(Damage::MissingLength))]
    );
}

#[test]
fn every_cut_of_a_record_is_a_damage_or_nothing_never_a_panic() {
    let bytes = [
        record("request", "GET / HTTP/1.1\r\n\r\n", None),
        record("response", "HTTP/1.1 200 OK\r\n\r\nbody", None),
    ]
    .concat();
    for cut in 0..bytes.len() {
        let read = read_all(&bytes[..cut], 1000);
        assert!(read.len() <= 2, "cut at {cut}: {read:?}");
    }
}
