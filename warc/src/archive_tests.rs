//! Tests of `archive.rs`: a file's layout, and damaged gzip members skipped with the members
//! after them read.

use std::io::Write;

use super::*;

fn record(kind: &str, block: &str) -> Vec<u8> {
    format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
        block.len()
    )
    .into_bytes()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("compressed");
    encoder.finish().expect("compressed")
}

/// Every item of a file holding `bytes`: where, and the record's block or the damage.
fn items(bytes: &[u8]) -> Vec<(Position, Result<String, Damage>)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("x.warc");
    std::fs::write(&path, bytes).expect("written");
    let layout = layout(&path).expect("a WARC");
    let mut out = Vec::new();
    read_records::<Error>(&path, layout, 1000, &mut |at, item| {
        out.push((
            at,
            item.map(|record| String::from_utf8_lossy(&record.block).into_owned()),
        ));
        Ok(())
    })
    .expect("read");
    out
}

fn at(offset: usize) -> Position {
    Position {
        offset: offset as u64,
        within: None,
    }
}

#[test]
fn a_truncated_member_is_reported_and_the_members_after_it_read() {
    let first = gzip(&record("resource", "first"));
    let whole = gzip(&record("resource", &"cut ".repeat(50)));
    let cut = &whole[..whole.len() / 2];
    let last = gzip(&record("resource", "last"));
    let file = [&first[..], cut, &last, &first].concat();
    let read = items(&file);
    assert_eq!(read.len(), 4, "{read:?}");
    assert_eq!(read[0], (at(0), Ok("first".into())));
    assert_eq!(read[1].0, at(first.len()));
    assert!(matches!(read[1].1, Err(Damage::Gzip { .. })), "{read:?}");
    assert_eq!(read[2], (at(first.len() + cut.len()), Ok("last".into())));
    assert_eq!(
        read[3],
        (at(first.len() + cut.len() + last.len()), Ok("first".into()))
    );
}

#[test]
fn bytes_between_members_are_reported_and_skipped() {
    let member = gzip(&record("resource", "kept"));
    let file = [&member[..], b"junk\x1f\x8bjunk", &member].concat();
    assert_eq!(
        items(&file),
        [
            (at(0), Ok("kept".into())),
            (at(member.len()), Err(Damage::Garbage { bytes: 10 })),
            (at(member.len() + 10), Ok("kept".into())),
        ]
    );
}

#[test]
fn a_whole_file_gzipped_gives_each_record_its_place_in_the_member() {
    let first = record("resource", "one");
    let file = gzip(&[first.clone(), record("resource", "two")].concat());
    assert_eq!(
        items(&file),
        [
            (at(0), Ok("one".into())),
            (
                Position {
                    offset: 0,
                    within: Some(first.len() as u64)
                },
                Ok("two".into())
            ),
        ]
    );
}

#[test]
fn a_record_over_the_limit_in_its_member_is_skipped() {
    let big = gzip(&record("resource", &"x".repeat(2000)));
    let next = gzip(&record("resource", "next"));
    assert_eq!(
        items(&[&big[..], &next].concat()),
        [
            (
                at(0),
                Err(Damage::OverLimit {
                    length: 2000,
                    limit: 1000
                })
            ),
            (at(big.len()), Ok("next".into())),
        ]
    );
}

#[test]
fn files_that_are_no_warc_are_refused_before_reading() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, bytes, why) in [
        ("empty", Vec::new(), "it is empty".to_string()),
        (
            "page.html",
            b"<!doctype html><p>hi".to_vec(),
            "it starts with \"<!doctype html><\"".to_string(),
        ),
        (
            "text.gz",
            gzip(b"just text"),
            "a gzip file whose content starts with \"just te\"".to_string(),
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).expect("written");
        match layout(&path) {
            Err(Error::NotWarc { why: said, .. }) => assert_eq!(said, why, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    let path = dir.path().join("plain.warc");
    std::fs::write(&path, record("warcinfo", "")).expect("written");
    assert_eq!(layout(&path).expect("a WARC"), Layout::Plain);
}
