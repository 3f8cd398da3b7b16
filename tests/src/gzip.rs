//! A minimal gzip writer (RFC 1952) using stored deflate blocks (RFC 1951, `BTYPE=00`).
//!
//! Stored blocks do not shrink anything, but they make a valid gzip member that every
//! decoder reads, without a compression library in the test web's dependencies.

/// Most bytes in one stored block.
const MAX_STORED: usize = 65_535;

/// `data` as one gzip member.
pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    let blocks = data.len().div_ceil(MAX_STORED).max(1);
    let mut out = Vec::with_capacity(data.len() + 18 + 5 * blocks);
    // ID1 ID2, CM = deflate, FLG = 0, MTIME = 0, XFL = 0, OS = unknown.
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    let mut chunks = data.chunks(MAX_STORED).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let len = chunk.len() as u16;
        out.push(u8::from(last)); // BFINAL, BTYPE = 00, then padding to the byte boundary.
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// CRC-32 (IEEE 802.3, reflected, polynomial `0xEDB88320`), bit by bit: the pages are small.
pub(crate) fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads back a gzip member made of stored blocks.
    fn gunzip_stored(gz: &[u8]) -> Vec<u8> {
        assert_eq!(&gz[..3], &[0x1f, 0x8b, 8]);
        let mut at = 10;
        let mut out = Vec::new();
        loop {
            let header = gz[at];
            assert_eq!(header & 0b110, 0, "stored block");
            let len = u16::from_le_bytes([gz[at + 1], gz[at + 2]]) as usize;
            let nlen = u16::from_le_bytes([gz[at + 3], gz[at + 4]]);
            assert_eq!(!nlen as usize, len);
            out.extend_from_slice(&gz[at + 5..at + 5 + len]);
            at += 5 + len;
            if header & 1 == 1 {
                break;
            }
        }
        let crc = u32::from_le_bytes(gz[at..at + 4].try_into().expect("4 bytes"));
        let size = u32::from_le_bytes(gz[at + 4..at + 8].try_into().expect("4 bytes"));
        assert_eq!(
            (crc, size as usize, at + 8),
            (crc32(&out), out.len(), gz.len())
        );
        out
    }

    #[test]
    fn crc_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn round_trips() {
        for len in [0, 1, 100, MAX_STORED, MAX_STORED + 1, 3 * MAX_STORED + 7] {
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            assert_eq!(gunzip_stored(&gzip(&data)), data, "length {len}");
        }
    }
}
