//! Tests of `http.rs`: archived answers read as the crawler's client reads them.

use std::io::Write;

use super::*;

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("compressed");
    encoder.finish().expect("compressed")
}

#[test]
fn a_chunked_gzip_body_is_undone_and_its_codings_are_dropped() {
    let body = gzip(b"<p>chunked and zipped</p>");
    let (first, second) = body.split_at(7);
    let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\
        Transfer-Encoding: chunked\r\nContent-Length: 99\r\nETag: \"e\"\r\n\r\n"
        .to_vec();
    block.extend_from_slice(format!("{:x};ext=1\r\n", first.len()).as_bytes());
    block.extend_from_slice(first);
    block.extend_from_slice(format!("\r\n{:X}\r\n", second.len()).as_bytes());
    block.extend_from_slice(second);
    block.extend_from_slice(b"\r\n0\r\n\r\n");
    let answer = read_answer(&block, 1000).expect("readable");
    assert_eq!(
        answer,
        Answer {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/html".into()),
                ("etag".into(), "\"e\"".into()),
            ],
            body: b"<p>chunked and zipped</p>".to_vec(),
            truncated: false,
        }
    );
}

#[test]
fn a_brotli_body_is_undone() {
    // Python's brotli.compress(b'<p>brotli words</p>').
    let body = [
        0x0b, 0x09, 0x80, 0x3c, 0x70, 0x3e, 0x62, 0x72, 0x6f, 0x74, 0x6c, 0x69, 0x20, 0x77, 0x6f,
        0x72, 0x64, 0x73, 0x3c, 0x2f, 0x70, 0x3e, 0x03,
    ];
    let block = [
        &b"HTTP/1.1 200 OK\r\ncontent-encoding: br\r\n\r\n"[..],
        &body,
    ]
    .concat();
    let answer = read_answer(&block, 1000).expect("readable");
    assert_eq!(answer.body, b"<p>brotli words</p>");
    assert!(answer.headers.is_empty());
}

#[test]
fn a_decompression_bomb_is_cut_at_the_body_limit() {
    let bomb = gzip(&vec![b'a'; 8 << 20]);
    assert!(bomb.len() < 64 * 1024, "{} bytes", bomb.len());
    let block = [
        &b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n"[..],
        &bomb,
    ]
    .concat();
    let answer = read_answer(&block, 4096).expect("readable");
    assert_eq!(answer.body.len(), 4096);
    assert!(answer.truncated);
    let plain = [&b"HTTP/1.1 200 OK\r\n\r\n"[..], &[b'b'; 5000]].concat();
    let answer = read_answer(&plain, 4096).expect("readable");
    assert_eq!((answer.body.len(), answer.truncated), (4096, true));
}

#[test]
fn newer_status_lines_and_raw_deflate_are_read() {
    let answer = read_answer(b"HTTP/2 404\r\nserver: x\r\n\r\ngone", 100).expect("readable");
    assert_eq!((answer.status, &answer.body[..]), (404, &b"gone"[..]));
    let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    raw.write_all(b"deflated").expect("compressed");
    let block = [
        &b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\r\n"[..],
        &raw.finish().expect("compressed"),
    ]
    .concat();
    assert_eq!(
        read_answer(&block, 100).expect("readable").body,
        b"deflated"
    );
}

#[test]
fn unreadable_answers_say_why() {
    assert_eq!(
        read_answer(b"HTTP/1.1 200 OK\r\nServer: x\r\n", 100),
        Err(HttpError::HeadCut)
    );
    assert!(matches!(
        read_answer(b"not http at all\r\n\r\n", 100),
        Err(HttpError::Head(_))
    ));
    assert_eq!(
        read_answer(b"HTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\n\r\nxx", 100),
        Err(HttpError::UnknownEncoding("zstd".into()))
    );
    assert!(matches!(
        read_answer(
            b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\nnot gzip",
            100
        ),
        Err(HttpError::Decoding { .. })
    ));
    assert_eq!(
        read_answer(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            100
        ),
        Err(HttpError::Chunked)
    );
}
