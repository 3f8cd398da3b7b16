//! A WARC file as stored: plain, a gzip member per record, or one gzip member for the whole
//! file (any mix of members works: each is read to its end, then the next begins). Every
//! record, and every damaged one, is handed on with where it is in the file.
//!
//! A gzip member that cannot be decompressed (cut short, corrupt, a wrong checksum) is
//! reported at its offset; reading goes on at the next gzip header (`1f 8b 08`) after the
//! member's first byte, so the members behind it are read as if it were not there. A
//! record's offset is that of its member; when a member holds several records (a whole file
//! gzipped), a record's position in the member's decompressed bytes is given too.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use flate2::bufread::GzDecoder;

use crate::Error;
use crate::read::{Damage, Next, Record, RecordReader};

/// The first bytes of a gzip member (magic and the deflate method).
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Where a record is in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The byte offset of the record, or of the gzip member holding it.
    pub offset: u64,
    /// For a gzip member holding more than one record: the record's offset in the member's
    /// decompressed bytes (`None` for the member's first record).
    pub within: Option<u64>,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.within {
            None => write!(f, "offset {}", self.offset),
            Some(within) => write!(
                f,
                "offset {} (byte {within} of its gzip member's content)",
                self.offset
            ),
        }
    }
}

/// How a file is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// WARC records as they are.
    Plain,
    /// gzip members (one per record, or any other split).
    Gzip,
}

/// How `path` is stored, or why it is no WARC file (its first record does not start with a
/// `WARC/1.` line, plain or gzipped).
pub fn layout(path: &Path) -> Result<Layout, Error> {
    let file = File::open(path).map_err(Error::io(path))?;
    let mut file = BufReader::new(file);
    let head = file.fill_buf().map_err(Error::io(path))?;
    let not_warc = |why: String| Error::NotWarc {
        path: path.to_path_buf(),
        why,
    };
    let shown =
        |bytes: &[u8]| String::from_utf8_lossy(bytes.get(..16).unwrap_or(bytes)).into_owned();
    if head.starts_with(b"WARC/1.") {
        return Ok(Layout::Plain);
    }
    if !head.starts_with(&GZIP_MAGIC) {
        return Err(not_warc(if head.is_empty() {
            "it is empty".into()
        } else {
            format!("it starts with {:?}", shown(head))
        }));
    }
    let mut start = Vec::new();
    GzDecoder::new(file)
        .take(7)
        .read_to_end(&mut start)
        .map_err(|e| not_warc(format!("a gzip file that cannot be read ({e})")))?;
    if start.starts_with(b"WARC/1.") {
        Ok(Layout::Gzip)
    } else {
        Err(not_warc(format!(
            "a gzip file whose content starts with {:?}",
            shown(&start)
        )))
    }
}

/// Reads every record of `path` (stored as `layout` says), blocks up to `limit` bytes,
/// handing each record or damage to `on_item`, which may stop the reading with an error of
/// its own; a file that cannot be read stops it with that error made from an [`Error`].
pub fn read_records<E: From<Error>>(
    path: &Path,
    layout: Layout,
    limit: u64,
    on_item: &mut dyn FnMut(Position, Result<Record, Damage>) -> Result<(), E>,
) -> Result<(), E> {
    let file = File::open(path).map_err(Error::io(path))?;
    let mut raw = BufReader::with_capacity(256 * 1024, file);
    if layout == Layout::Plain {
        let mut records = RecordReader::new(raw, limit);
        loop {
            let (offset, next) = records.read_next().map_err(Error::io(path))?;
            let at = Position {
                offset,
                within: None,
            };
            match next {
                Next::Record(record) => on_item(at, Ok(record))?,
                Next::Damaged(damage) => on_item(at, Err(damage))?,
                Next::End => return Ok(()),
            }
        }
    }
    loop {
        let offset = raw.stream_position().map_err(Error::io(path))?;
        let head = raw.fill_buf().map_err(Error::io(path))?;
        if head.is_empty() {
            return Ok(());
        }
        if !head.starts_with(&GZIP_MAGIC) {
            let bytes = skip_to_member(&mut raw).map_err(Error::io(path))?;
            let at = Position {
                offset,
                within: None,
            };
            on_item(at, Err(Damage::Garbage { bytes }))?;
            continue;
        }
        let read = {
            let member = BufReader::with_capacity(64 * 1024, GzDecoder::new(&mut raw));
            read_member(RecordReader::new(member, limit), offset, on_item)?
        };
        if let Err(error) = read {
            let at = Position {
                offset,
                within: None,
            };
            let message = error.to_string();
            on_item(at, Err(Damage::Gzip { message }))?;
            raw.seek(SeekFrom::Start(offset + 1))
                .map_err(Error::io(path))?;
            skip_to_member(&mut raw).map_err(Error::io(path))?;
        }
    }
}

/// The records of one gzip member at `offset`; `Err` inside when it cannot be decompressed.
fn read_member<R: BufRead, E>(
    mut records: RecordReader<R>,
    offset: u64,
    on_item: &mut dyn FnMut(Position, Result<Record, Damage>) -> Result<(), E>,
) -> Result<io::Result<()>, E> {
    loop {
        let (within, next) = match records.read_next() {
            Ok(next) => next,
            Err(error) => return Ok(Err(error)),
        };
        let at = Position {
            offset,
            within: (within > 0).then_some(within),
        };
        match next {
            Next::Record(record) => on_item(at, Ok(record))?,
            Next::Damaged(damage) => on_item(at, Err(damage))?,
            Next::End => return Ok(Ok(())),
        }
    }
}

/// Reads on to the next gzip header (or the end); returns the bytes skipped.
fn skip_to_member<R: Read + Seek>(raw: &mut BufReader<R>) -> io::Result<u64> {
    let mut skipped = 0u64;
    loop {
        let buf = raw.fill_buf()?;
        if buf.is_empty() {
            return Ok(skipped);
        }
        if buf.len() >= GZIP_MAGIC.len() {
            if let Some(found) = buf.windows(GZIP_MAGIC.len()).position(|w| w == GZIP_MAGIC) {
                raw.consume(found);
                return Ok(skipped + found as u64);
            }
            // The last bytes may start a header that the next read completes.
            let passed = buf.len() + 1 - GZIP_MAGIC.len();
            raw.consume(passed);
            skipped += passed as u64;
            continue;
        }
        // Fewer bytes buffered than a header has: look across the buffer's end.
        let here = raw.stream_position()?;
        let mut next = Vec::new();
        (&mut *raw)
            .take(GZIP_MAGIC.len() as u64)
            .read_to_end(&mut next)?;
        raw.seek(SeekFrom::Start(here))?;
        raw.fill_buf()?;
        if next == GZIP_MAGIC {
            return Ok(skipped);
        }
        if next.len() < GZIP_MAGIC.len() {
            raw.consume(next.len());
            return Ok(skipped + next.len() as u64);
        }
        raw.consume(1);
        skipped += 1;
    }
}

#[cfg(test)]
#[path = "archive_tests.rs"]
mod tests;
