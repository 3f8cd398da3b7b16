//! The document information dictionary (`/Info` in the trailer): title, author, subject,
//! keywords and the creation date, each decoded from a PDF text string (PDFDocEncoding,
//! UTF-16BE or UTF-8 by its byte-order mark) and bounded.

use pdf_extract::{Dictionary, Document, Object};

use super::outcome::PdfDocument;

/// The most characters kept of one metadata entry.
const MAX_ENTRY_CHARS: usize = 2_048;

/// Fills `document`'s metadata from `doc`'s information dictionary; entries that are missing,
/// not strings or empty stay `None`.
pub(crate) fn read_info(doc: &Document, document: &mut PdfDocument) {
    let Some(info) = info_dictionary(doc) else {
        return;
    };
    let entry = |key: &[u8]| text_entry(doc, info, key);
    document.title = entry(b"Title");
    document.author = entry(b"Author");
    document.subject = entry(b"Subject");
    document.keywords = entry(b"Keywords");
    document.created = entry(b"CreationDate").and_then(|date| rfc3339(&date));
}

/// The trailer's `/Info`, followed if it is a reference.
fn info_dictionary(doc: &Document) -> Option<&Dictionary> {
    match doc.trailer.get(b"Info").ok()? {
        Object::Reference(id) => doc.get_dictionary(*id).ok(),
        Object::Dictionary(dictionary) => Some(dictionary),
        _ => None,
    }
}

/// `key`'s text string, followed one reference deep, without control characters, trimmed,
/// at most [`MAX_ENTRY_CHARS`]; `None` when absent or empty.
fn text_entry(doc: &Document, info: &Dictionary, key: &[u8]) -> Option<String> {
    let value = match info.get(key).ok()? {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        value => value,
    };
    let text = pdf_extract::decode_text_string(value).ok()?;
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_ENTRY_CHARS)
        .collect();
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// A PDF date (`D:YYYYMMDDHHmmSSOHH'mm`, every part after the year optional) as RFC 3339;
/// `None` when it does not read as one.
pub(crate) fn rfc3339(date: &str) -> Option<String> {
    let date = date.trim();
    let date = date.strip_prefix("D:").unwrap_or(date);
    let digits = date.bytes().take_while(u8::is_ascii_digit).count();
    if digits < 4 || digits % 2 != 0 || digits > 14 {
        return None;
    }
    let part = |at: usize, default: u32| -> u32 {
        date.get(at..at + 2)
            .filter(|_| at + 2 <= digits)
            .and_then(|text| text.parse().ok())
            .unwrap_or(default)
    };
    let year: u32 = date.get(..4)?.parse().ok()?;
    let (month, day) = (part(4, 1), part(6, 1));
    let (hour, minute, second) = (part(8, 0), part(10, 0), part(12, 0));
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    let zone = zone(date.get(digits..).unwrap_or(""))?;
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{:02}{zone}",
        second.min(59)
    ))
}

/// The zone after a PDF date's digits (`Z`, `+01'00'`, `-0530`, or nothing) as RFC 3339's.
fn zone(rest: &str) -> Option<String> {
    let mut chars = rest.chars();
    let sign = match chars.next() {
        None | Some('Z') => return Some("Z".into()),
        Some(sign @ ('+' | '-')) => sign,
        Some(_) => return None,
    };
    let digits: String = chars.filter(char::is_ascii_digit).take(4).collect();
    let hours: u32 = digits.get(..2)?.parse().ok()?;
    let minutes: u32 = digits.get(2..4).and_then(|m| m.parse().ok()).unwrap_or(0);
    (hours <= 23 && minutes <= 59).then(|| format!("{sign}{hours:02}:{minutes:02}"))
}

#[cfg(test)]
mod date_tests {
    use super::rfc3339;

    #[test]
    fn pdf_dates_read_as_rfc3339_with_their_zone_or_z() {
        let cases = [
            ("D:20240301102030+01'00'", Some("2024-03-01T10:20:30+01:00")),
            ("D:19991231235959Z", Some("1999-12-31T23:59:59Z")),
            ("D:2023", Some("2023-01-01T00:00:00Z")),
            ("D:202307-05'30", Some("2023-07-01T00:00:00-05:30")),
            ("20240229", Some("2024-02-29T00:00:00Z")),
            ("D:20241301", None),
            ("D:202", None),
            ("yesterday", None),
            ("D:20240101+99'00'", None),
            ("", None),
        ];
        for (date, expected) in cases {
            assert_eq!(rfc3339(date).as_deref(), expected, "{date}");
        }
    }
}
