//! The HTTP answer a `response` record holds, read as the crawler's client reads one off the
//! wire: the status line and headers (httparse, hyper's own parser; an `HTTP/2` or `HTTP/3`
//! status line, as browser-based archivers write, is read as HTTP/1.1), `Transfer-Encoding:
//! chunked` undone, then `Content-Encoding` (gzip, deflate, br, stacked in any order)
//! undone with the body cut at `max_body` bytes, as a fetch's is: a bomb costs no more than
//! the limit. Headers are kept as the store keeps them (the first 200, lowercase names),
//! without the `Transfer-Encoding`, `Content-Encoding` and `Content-Length` of what was
//! undone, as the crawler's client drops them.

use std::io::Read;

use crate::fetch::{MAX_HEADERS, stored_header};

/// The most headers an archived answer may have.
const MAX_ARCHIVED_HEADERS: usize = 256;

/// Why an archived answer cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The status line or headers are malformed.
    #[error("HTTP head unreadable: {0}")]
    Head(String),
    /// The block ends inside the head.
    #[error("HTTP head cut off")]
    HeadCut,
    /// A chunk size line that is not hexadecimal.
    #[error("chunked body unreadable")]
    Chunked,
    /// A `Content-Encoding` the crawler does not know.
    #[error("unknown Content-Encoding {0:?}")]
    UnknownEncoding(String),
    /// A compressed body that does not decompress.
    #[error("{encoding} body does not decompress: {message}")]
    Decoding {
        /// The encoding.
        encoding: String,
        /// What the decoder said.
        message: String,
    },
}

/// An archived answer, its body as the crawler's client would hand it on.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Answer {
    /// Status code.
    pub status: u16,
    /// Headers, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body, transfer and content codings undone, at most `max_body` bytes.
    pub body: Vec<u8>,
    /// The body was cut at `max_body` bytes.
    pub truncated: bool,
}

impl Answer {
    /// A header's value, by lowercase name.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the HTTP answer in `block`, its body cut at `max_body` bytes.
pub(super) fn read_answer(block: &[u8], max_body: usize) -> Result<Answer, HttpError> {
    let upgraded;
    let block = match newer_version(block) {
        Some(rest) => {
            upgraded = [&b"HTTP/1.1 "[..], rest].concat();
            &upgraded[..]
        }
        None => block,
    };
    let mut slots = [httparse::EMPTY_HEADER; MAX_ARCHIVED_HEADERS];
    let mut response = httparse::Response::new(&mut slots);
    let parsed = httparse::ParserConfig::default()
        .allow_obsolete_multiline_headers_in_responses(true)
        .allow_spaces_after_header_name_in_responses(true)
        .parse_response(&mut response, block)
        .map_err(|e| HttpError::Head(e.to_string()))?;
    let httparse::Status::Complete(head_len) = parsed else {
        return Err(HttpError::HeadCut);
    };
    let status = response.code.ok_or(HttpError::HeadCut)?;
    let mut headers: Vec<(String, String)> = response
        .headers
        .iter()
        .take(MAX_HEADERS)
        .map(|h| stored_header(&h.name.to_ascii_lowercase(), h.value))
        .collect();
    let mut body = block.get(head_len..).unwrap_or_default().to_vec();
    let has = |headers: &[(String, String)], name: &str, token: &str| {
        headers
            .iter()
            .any(|(n, v)| n == name && v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    };
    if has(&headers, "transfer-encoding", "chunked") {
        body = dechunk(&body)?;
        headers.retain(|(n, _)| n != "transfer-encoding");
    }
    let codings: Vec<String> = headers
        .iter()
        .filter(|(n, _)| n == "content-encoding")
        .flat_map(|(_, v)| v.split(','))
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty() && t != "identity")
        .collect();
    let mut truncated = false;
    for coding in codings.iter().rev() {
        (body, truncated) = decode(coding, &body, max_body)?;
    }
    if !codings.is_empty() {
        headers.retain(|(n, _)| n != "content-encoding" && n != "content-length");
    }
    if body.len() > max_body {
        body.truncate(max_body);
        truncated = true;
    }
    Ok(Answer {
        status,
        headers,
        body,
        truncated,
    })
}

/// The rest of a status line that names HTTP/2 or HTTP/3, after its version.
fn newer_version(block: &[u8]) -> Option<&[u8]> {
    ["HTTP/2 ", "HTTP/2.0 ", "HTTP/3 ", "HTTP/3.0 "]
        .iter()
        .find_map(|version| block.strip_prefix(version.as_bytes()))
}

/// A chunked body's data. A body cut off inside a chunk keeps what came, as browsers do.
fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, HttpError> {
    let mut out = Vec::new();
    while !rest.is_empty() {
        let Some(line_end) = rest.iter().position(|&b| b == b'\n') else {
            break;
        };
        let line = rest.get(..line_end).unwrap_or_default();
        let size = line.split(|&b| b == b';').next().unwrap_or_default();
        let size = std::str::from_utf8(size)
            .map_err(|_| HttpError::Chunked)?
            .trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| HttpError::Chunked)?;
        rest = rest.get(line_end + 1..).unwrap_or_default();
        if size == 0 {
            break;
        }
        let data = rest.get(..size).unwrap_or(rest);
        out.extend_from_slice(data);
        rest = rest.get(data.len()..).unwrap_or_default();
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
            .unwrap_or(rest);
    }
    Ok(out)
}

/// `body` with one content coding undone, at most `max_body` bytes of it (and whether it
/// was cut).
fn decode(coding: &str, body: &[u8], max_body: usize) -> Result<(Vec<u8>, bool), HttpError> {
    let bounded = |reader: &mut dyn Read| -> std::io::Result<(Vec<u8>, bool)> {
        let mut out = Vec::new();
        reader.take(max_body as u64 + 1).read_to_end(&mut out)?;
        let cut = out.len() > max_body;
        out.truncate(max_body);
        Ok((out, cut))
    };
    let decoded = match coding {
        "gzip" | "x-gzip" => bounded(&mut flate2::read::MultiGzDecoder::new(body)),
        // "deflate" is zlib-wrapped by the standard, raw by some servers: both are read.
        "deflate" => bounded(&mut flate2::read::ZlibDecoder::new(body))
            .or_else(|_| bounded(&mut flate2::read::DeflateDecoder::new(body))),
        "br" => bounded(&mut brotli_decompressor::Decompressor::new(body, 4096)),
        other => return Err(HttpError::UnknownEncoding(other.chars().take(40).collect())),
    };
    decoded.map_err(|e| HttpError::Decoding {
        encoding: coding.to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
