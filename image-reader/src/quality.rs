//! A JPEG's quality (1-100) estimated from its quantization tables: the IJG quality whose
//! scaling of the standard tables (ITU T.81 Annex K, K.1 luminance and K.2 chrominance)
//! comes closest to the file's own, as ImageMagick's and others' estimators compare a file's
//! tables with libjpeg's. libjpeg, libjpeg-turbo, the `image` crate and most cameras and
//! editors scale those tables by `jpeg_quality_scaling` (`5000 / q` under 50, `200 - 2q`
//! from 50), so for their files the estimate is the quality they were saved at; for tables
//! of another family (mozjpeg's, Photoshop's) it is the IJG quality of like coarseness.
//!
//! The marker walk reads segment lengths from untrusted bytes: every read is a checked
//! `get`, every step moves forward, and it stops at the first scan (`SOS`), at the end
//! (`EOI`), or at anything that is not a marker.

/// Annex K, table K.1: the luminance quantization table, in natural (row-major) order.
#[rustfmt::skip]
const LUMINANCE: [u16; 64] = [
    16, 11, 10, 16,  24,  40,  51,  61,
    12, 12, 14, 19,  26,  58,  60,  55,
    14, 13, 16, 24,  40,  57,  69,  56,
    14, 17, 22, 29,  51,  87,  80,  62,
    18, 22, 37, 56,  68, 109, 103,  77,
    24, 35, 55, 64,  81, 104, 113,  92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103,  99,
];

/// Annex K, table K.2: the chrominance quantization table, in natural order.
#[rustfmt::skip]
const CHROMINANCE: [u16; 64] = [
    17, 18, 24, 47, 99, 99, 99, 99,
    18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
];

/// The natural-order position of each coefficient as a DQT segment stores them (zigzag).
#[rustfmt::skip]
const ZIGZAG_TO_NATURAL: [usize; 64] = [
     0,  1,  8, 16,  9,  2,  3, 10, 17, 24, 32, 25, 18, 11,  4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,  6,  7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/// One quantization table read from a DQT segment, in natural order.
#[derive(Clone, Copy)]
struct Table {
    values: [u16; 64],
    /// Whether the file stored it with 16-bit precision (libjpeg then does not clamp at 255).
    wide: bool,
}

/// The estimated IJG quality (1-100) of a JPEG, or `None` when no quantization table comes
/// before its first scan (not a JPEG, truncated early, or malformed).
pub fn jpeg_quality(bytes: &[u8]) -> Option<u8> {
    let tables = read_tables(bytes);
    let luminance = tables[0].or_else(|| tables.iter().flatten().next().copied())?;
    let chrominance = tables[1];
    (1..=100u8).min_by_key(|&quality| {
        let mut total = distance(&luminance, &LUMINANCE, quality);
        if let Some(chrominance) = &chrominance {
            total += distance(chrominance, &CHROMINANCE, quality);
        }
        total
    })
}

/// How far a file's table is from the standard one scaled to `quality` as libjpeg scales
/// it (sum of absolute differences).
fn distance(table: &Table, standard: &[u16; 64], quality: u8) -> u32 {
    let quality = u32::from(quality.clamp(1, 100));
    let scale = if quality < 50 {
        5000 / quality
    } else {
        200 - 2 * quality
    };
    let ceiling = if table.wide { 32767 } else { 255 };
    table
        .values
        .iter()
        .zip(standard)
        .map(|(&value, &base)| {
            let scaled = ((u32::from(base) * scale + 50) / 100).clamp(1, ceiling);
            scaled.abs_diff(u32::from(value))
        })
        .sum()
}

/// The quantization tables (slots 0-3) defined before the first scan.
fn read_tables(bytes: &[u8]) -> [Option<Table>; 4] {
    let mut tables = [None; 4];
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return tables;
    }
    let mut at = 2;
    loop {
        // Markers may be preceded by any number of 0xFF fill bytes.
        if bytes.get(at) != Some(&0xFF) {
            return tables;
        }
        while bytes.get(at) == Some(&0xFF) {
            at += 1;
        }
        let Some(&marker) = bytes.get(at) else {
            return tables;
        };
        at += 1;
        match marker {
            // Standalone markers: TEM, RSTn, SOI.
            0x01 | 0xD0..=0xD8 => continue,
            // The first scan or the end: every table that counts has been seen.
            0xDA | 0xD9 | 0x00 => return tables,
            _ => {}
        }
        let Some(length) = bytes.get(at..at + 2) else {
            return tables;
        };
        let length = usize::from(u16::from_be_bytes([length[0], length[1]]));
        if length < 2 {
            return tables;
        }
        let Some(segment) = bytes.get(at + 2..at + length) else {
            return tables;
        };
        if marker == 0xDB {
            read_dqt(segment, &mut tables);
        }
        at += length;
    }
}

/// Reads each table of one DQT segment into its slot; a table cut short ends the segment.
fn read_dqt(mut segment: &[u8], tables: &mut [Option<Table>; 4]) {
    while let Some((&info, rest)) = segment.split_first() {
        let wide = info >> 4 == 1;
        let slot = usize::from(info & 0x0F);
        let width = if wide { 2 } else { 1 };
        let Some(body) = rest.get(..64 * width) else {
            return;
        };
        let mut values = [0u16; 64];
        for (index, &natural) in ZIGZAG_TO_NATURAL.iter().enumerate() {
            let value = if wide {
                body.get(2 * index..2 * index + 2)
                    .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]))
            } else {
                body.get(index).map_or(0, |&b| u16::from(b))
            };
            if let Some(cell) = values.get_mut(natural) {
                *cell = value;
            }
        }
        if let Some(cell) = tables.get_mut(slot) {
            *cell = Some(Table { values, wide });
        }
        segment = rest.get(64 * width..).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::jpeg_quality;

    #[test]
    fn jpegs_encoded_at_known_qualities_are_estimated_within_two() {
        let image = fixtures::gradient(64, 48);
        for quality in [30, 50, 75, 90, 95] {
            let jpeg = fixtures::jpeg_at(&image, quality);
            let estimate = jpeg_quality(&jpeg).expect("a JPEG with tables");
            assert!(
                estimate.abs_diff(quality) <= 2,
                "{quality} read as {estimate}"
            );
        }
    }

    #[test]
    fn a_progressive_jpeg_from_libjpeg_turbo_at_80_is_estimated_at_80() {
        let jpeg = fixtures::file("progressive_libjpeg_q80_48x32.jpg");
        let estimate = jpeg_quality(&jpeg).expect("a JPEG with tables");
        assert!(estimate.abs_diff(80) <= 2, "read as {estimate}");
    }

    #[test]
    fn a_greyscale_jpeg_with_one_table_is_estimated_from_it() {
        let grey = ::image::DynamicImage::ImageLuma8(fixtures::gradient(32, 32).to_luma8());
        let estimate = jpeg_quality(&fixtures::jpeg_at(&grey, 60));
        assert!(
            estimate.is_some_and(|q| q.abs_diff(60) <= 2),
            "{estimate:?}"
        );
    }

    #[test]
    fn bytes_without_tables_have_no_quality() {
        let cases: [&[u8]; 6] = [
            b"",
            b"\xFF\xD8",
            b"\xFF\xD8\xFF\xDB\x00",
            // A DQT whose length runs past the end.
            b"\xFF\xD8\xFF\xDB\xFF\xFF\x00\x01\x02",
            // A segment length under two.
            b"\xFF\xD8\xFF\xE0\x00\x01\xFF\xDB",
            b"GIF89a",
        ];
        for bytes in cases {
            assert_eq!(jpeg_quality(bytes), None, "{bytes:?}");
        }
    }
}
