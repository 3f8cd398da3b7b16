//! The WARC writer: each record its own gzip member (so a reader can start at any record's
//! offset, and a damaged member costs one record), its `Content-Length` and
//! `WARC-Block-Digest` computed from the block it is given.

use std::io::{self, Write};

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::record::{WarcHeader, sha1_digest};

/// Writes records to `out`, counting the bytes written.
pub struct WarcWriter<W: Write> {
    out: Counted<W>,
}

impl<W: Write> WarcWriter<W> {
    /// A writer at the start of `out`.
    pub fn new(out: W) -> Self {
        Self {
            out: Counted {
                inner: out,
                bytes: 0,
            },
        }
    }

    /// Writes one record: `header` (without `Content-Length` and `WARC-Block-Digest`, added
    /// here) and its block, given in parts that are written one after the other. Returns the
    /// record's offset in the file.
    pub fn write_record(&mut self, header: &WarcHeader, block: &[&[u8]]) -> io::Result<u64> {
        let offset = self.out.bytes;
        let length: usize = block.iter().map(|part| part.len()).sum();
        let mut header = header.clone();
        header
            .add("WARC-Block-Digest", sha1_digest(block.iter().copied()))
            .add("Content-Length", length.to_string());
        let mut member = GzEncoder::new(&mut self.out, Compression::default());
        header.write_to(&mut member)?;
        for part in block {
            member.write_all(part)?;
        }
        member.write_all(b"\r\n\r\n")?;
        member.finish()?;
        Ok(offset)
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.out.bytes
    }

    /// Flushes and hands back the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out.inner)
    }
}

/// A writer that counts what goes through it.
struct Counted<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn each_record_is_a_gzip_member_of_its_own_with_length_and_digest() {
        let mut writer = WarcWriter::new(Vec::new());
        let mut header = WarcHeader::default();
        header.add("WARC-Type", "resource");
        let first = writer
            .write_record(&header, &[b"ab", b"c"])
            .expect("written");
        let second = writer.write_record(&header, &[]).expect("written");
        let file = writer.finish().expect("finished");
        assert_eq!(first, 0);
        let second = usize::try_from(second).expect("small");
        assert!(second > 0 && second < file.len());
        let member = |bytes: &[u8]| {
            let mut text = String::new();
            flate2::read::GzDecoder::new(bytes)
                .read_to_string(&mut text)
                .expect("one whole member");
            text
        };
        assert_eq!(
            member(&file[..second]),
            "WARC/1.1\r\nWARC-Type: resource\r\n\
             WARC-Block-Digest: sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5\r\n\
             Content-Length: 3\r\n\r\nabc\r\n\r\n"
        );
        assert!(member(&file[second..]).contains("Content-Length: 0\r\n\r\n\r\n\r\n"));
    }
}
