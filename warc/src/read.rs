//! The WARC record reader: records one at a time from a stream of WARC bytes (a plain file,
//! or what a gzip member decompresses to), bounded, and resynchronized after a damaged one.
//!
//! A record is a `WARC/1.x` line, header lines up to an empty line (at most
//! [`MAX_HEADER_BYTES`]), a block of `Content-Length` bytes and an empty line (`CRLF CRLF`).
//! A block up to the limit is read into memory; a longer one is read past unseen and
//! reported. A record that does not hold together (no version line, a header line that is
//! none, a `Content-Length` that is no number, or whose block is not followed by the empty
//! line, or is cut off by the end) is reported, and reading goes on at the next line that
//! starts with `WARC/1.`, looked for from the start of the damaged block: the bytes read as
//! its block are put back (they are at most the limit), so a record that an overlong length
//! swallowed is still found. (A length over the limit that lies is read past: what it covered
//! is lost, and its record reported.)

use std::io::{self, BufRead, Read};

use crate::record::WarcHeader;

/// The most bytes of a record's header (version line and fields).
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// What marks the start of a record.
const VERSION_PREFIX: &[u8] = b"WARC/1.";

/// A whole record.
#[derive(Debug)]
pub struct Record {
    /// Its fields.
    pub header: WarcHeader,
    /// Its block (`Content-Length` bytes).
    pub block: Vec<u8>,
}

/// What is wrong with a record (or the bytes where one should be), which is then skipped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Damage {
    /// No `WARC/1.x` line where a record starts.
    #[error("no WARC/1.x line where a record starts (found {found:?})")]
    NoVersionLine {
        /// The start of what was found.
        found: String,
    },
    /// A header longer than `MAX_HEADER_BYTES`, or cut off by the end of the data.
    #[error("record header over {MAX_HEADER_BYTES} bytes or cut off")]
    HeaderTooLong,
    /// A header line that is neither `Name: value` nor a continuation.
    #[error("header line {line:?} is no field")]
    BadHeaderLine {
        /// The start of the line.
        line: String,
    },
    /// No `Content-Length` field.
    #[error("no Content-Length")]
    MissingLength,
    /// A `Content-Length` that is not a number.
    #[error("Content-Length {value:?} is not a number")]
    BadLength {
        /// The field's value.
        value: String,
    },
    /// A record whose block is longer than the limit.
    #[error("record of {length} bytes is over the limit of {limit} bytes")]
    OverLimit {
        /// Its `Content-Length`.
        length: u64,
        /// The limit.
        limit: u64,
    },
    /// The data ends before the block does: a `Content-Length` too long, or a cut file.
    #[error("Content-Length {length} but the data ends after {got} bytes")]
    Truncated {
        /// Its `Content-Length`.
        length: u64,
        /// The bytes there were.
        got: u64,
    },
    /// The block is not followed by the empty line: a `Content-Length` that is wrong.
    #[error("Content-Length {length} does not end where the record does")]
    LengthMismatch {
        /// Its `Content-Length`.
        length: u64,
    },
    /// A gzip member that cannot be decompressed (truncated, corrupt).
    #[error("gzip member unreadable: {message}")]
    Gzip {
        /// What the decompressor said.
        message: String,
    },
    /// Bytes between gzip members that start none.
    #[error("{bytes} bytes that start no gzip member")]
    Garbage {
        /// How many.
        bytes: u64,
    },
}

/// The next thing in the stream.
#[derive(Debug)]
pub enum Next {
    /// A record.
    Record(Record),
    /// A damaged record, skipped.
    Damaged(Damage),
    /// The end of the stream.
    End,
}

/// Reads records from a stream, with blocks of at most `limit` bytes held in memory.
pub struct RecordReader<R> {
    src: Source<R>,
    limit: u64,
}

impl<R: BufRead> RecordReader<R> {
    /// A reader at the start of `inner`.
    pub fn new(inner: R, limit: u64) -> Self {
        let src = Source {
            inner,
            pending: Vec::new(),
            at: 0,
            offset: 0,
        };
        Self { src, limit }
    }

    /// The next record and its offset in the stream. An `Err` is the stream's own failure
    /// (a read error, or a gzip member that cannot be decompressed).
    pub fn read_next(&mut self) -> io::Result<(u64, Next)> {
        let src = &mut self.src;
        loop {
            match src.fill_buf()?.first() {
                Some(b'\r' | b'\n') => src.consume(1),
                Some(_) => break,
                None => return Ok((src.offset, Next::End)),
            }
        }
        let start = src.offset;
        let mut line = Vec::new();
        read_line(src, &mut line, 64)?;
        if !line.starts_with(VERSION_PREFIX) {
            let found = String::from_utf8_lossy(&line).trim_end().to_string();
            skip_line(src, &line)?;
            resync(src)?;
            return Ok((start, Next::Damaged(Damage::NoVersionLine { found })));
        }
        let header = match read_fields(src)? {
            Ok(header) => header,
            Err(damage) => {
                resync(src)?;
                return Ok((start, Next::Damaged(damage)));
            }
        };
        let length = match header.get("Content-Length") {
            None => {
                resync(src)?;
                return Ok((start, Next::Damaged(Damage::MissingLength)));
            }
            Some(value) => match value.trim().parse::<u64>() {
                Ok(length) => length,
                Err(_) => {
                    let value = value.chars().take(40).collect();
                    resync(src)?;
                    return Ok((start, Next::Damaged(Damage::BadLength { value })));
                }
            },
        };
        if length > self.limit {
            let got = io::copy(&mut (&mut *src).take(length), &mut io::sink())?;
            if got == length
                && let Some(end) = record_end(src)?
            {
                src.unread(end);
                resync(src)?;
            }
            let limit = self.limit;
            return Ok((start, Next::Damaged(Damage::OverLimit { length, limit })));
        }
        let mut block = Vec::new();
        let got = (&mut *src).take(length).read_to_end(&mut block)? as u64;
        if got < length {
            src.unread(block);
            resync(src)?;
            return Ok((start, Next::Damaged(Damage::Truncated { length, got })));
        }
        if let Some(end) = record_end(src)? {
            block.extend_from_slice(&end);
            src.unread(block);
            resync(src)?;
            return Ok((start, Next::Damaged(Damage::LengthMismatch { length })));
        }
        Ok((start, Next::Record(Record { header, block })))
    }
}

/// The header fields after the version line, through the empty line that ends them.
fn read_fields(src: &mut impl BufRead) -> io::Result<Result<WarcHeader, Damage>> {
    let mut header = WarcHeader::default();
    let mut budget = MAX_HEADER_BYTES;
    let mut line = Vec::new();
    loop {
        line.clear();
        read_line(src, &mut line, budget)?;
        budget -= line.len();
        if !line.ends_with(b"\n") {
            return Ok(Err(Damage::HeaderTooLong));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            return Ok(Ok(header));
        }
        if !header.read_line(text) {
            let line = text.chars().take(40).collect();
            return Ok(Err(Damage::BadHeaderLine { line }));
        }
    }
}

/// Reads the empty line that ends a record: `None` when it follows (or the data ends
/// there), else the bytes read in its place, to be put back and searched.
fn record_end(src: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut end = Vec::new();
    (&mut *src).take(4).read_to_end(&mut end)?;
    let ended = end == b"\r\n\r\n" || (b"\r\n\r\n".starts_with(&end) && src.fill_buf()?.is_empty());
    Ok((!ended).then_some(end))
}

/// Appends to `line` up to and including the next `\n`, at most `max` bytes in all.
fn read_line(src: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<()> {
    loop {
        let room = max.saturating_sub(line.len());
        let buf = src.fill_buf()?;
        if buf.is_empty() || room == 0 {
            return Ok(());
        }
        let window = buf.get(..room).unwrap_or(buf);
        match window.iter().position(|&b| b == b'\n') {
            Some(newline) => {
                line.extend_from_slice(window.get(..=newline).unwrap_or(window));
                src.consume(newline + 1);
                return Ok(());
            }
            None => {
                let taken = window.len();
                line.extend_from_slice(window);
                src.consume(taken);
            }
        }
    }
}

/// Reads past the rest of a line of which `read` was read.
fn skip_line(src: &mut impl BufRead, read: &[u8]) -> io::Result<()> {
    let mut line = read.to_vec();
    while !line.ends_with(b"\n") {
        line.clear();
        read_line(src, &mut line, 4096)?;
        if line.is_empty() {
            break;
        }
    }
    Ok(())
}

/// Reads on to the next line that starts with `WARC/1.` (or the end), taking the position
/// it starts from as a line's start.
fn resync<R: BufRead>(src: &mut Source<R>) -> io::Result<()> {
    loop {
        if src.starts_with(VERSION_PREFIX)? {
            return Ok(());
        }
        let mut line = Vec::new();
        read_line(src, &mut line, 4096)?;
        if line.is_empty() {
            return Ok(());
        }
        skip_line(src, &line)?;
    }
}

/// A stream with bytes put back in front of it, and its offset.
struct Source<R> {
    inner: R,
    /// Bytes put back, read before `inner` from `at` on.
    pending: Vec<u8>,
    at: usize,
    /// Stream offset of the next byte.
    offset: u64,
}

impl<R: BufRead> Source<R> {
    /// Puts `bytes` back in front of what is still to be read.
    fn unread(&mut self, mut bytes: Vec<u8>) {
        self.offset -= bytes.len() as u64;
        bytes.extend_from_slice(self.pending.get(self.at..).unwrap_or_default());
        self.pending = bytes;
        self.at = 0;
    }

    /// Whether the next bytes are `prefix` (nothing is consumed).
    fn starts_with(&mut self, prefix: &[u8]) -> io::Result<bool> {
        let buf = self.fill_buf()?;
        if buf.len() >= prefix.len() || buf.is_empty() {
            return Ok(buf.starts_with(prefix));
        }
        let mut head = Vec::new();
        (&mut *self)
            .take(prefix.len() as u64)
            .read_to_end(&mut head)?;
        let found = head == prefix;
        self.unread(head);
        Ok(found)
    }
}

impl<R: BufRead> Read for Source<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        if let (Some(to), Some(from)) = (out.get_mut(..n), buf.get(..n)) {
            to.copy_from_slice(from);
        }
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Source<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at < self.pending.len() {
            return Ok(self.pending.get(self.at..).unwrap_or_default());
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.offset += n as u64;
        if self.at < self.pending.len() {
            self.at = (self.at + n).min(self.pending.len());
            if self.at == self.pending.len() {
                self.pending = Vec::new();
                self.at = 0;
            }
        } else {
            self.inner.consume(n);
        }
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
