//! A body's kind by its first bytes: HTML as the WHATWG MIME Sniffing standard tells it, and
//! PDF as PDF readers find it (`%PDF-` anywhere in the first 1024 bytes, after any junk a
//! server put before it). Images are told by [`image_reader::ImageFormat::sniff`].

/// Bytes a reader looks at: `%PDF-` may come this late.
pub(super) const HEAD: usize = 1024;

/// `%PDF-` in the first bytes.
pub(super) fn is_pdf(head: &[u8]) -> bool {
    find(head, b"%PDF-").is_some()
}

/// The standard's HTML patterns: after white space, one of these tags, then a space or `>`.
pub(super) fn is_html(head: &[u8]) -> bool {
    const TAGS: [&[u8]; 17] = [
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<script",
        b"<iframe",
        b"<h1",
        b"<div",
        b"<font",
        b"<table",
        b"<a",
        b"<style",
        b"<title",
        b"<b",
        b"<body",
        b"<br",
        b"<p",
        b"<!--",
    ];
    let rest = skip_white(strip_bom(head));
    TAGS.iter().any(|tag| {
        starts_with_ignore_case(rest, tag)
            && (tag == b"<!--"
                || rest
                    .get(tag.len())
                    .is_some_and(|&b| b == b' ' || b == b'>' || b.is_ascii_whitespace()))
    })
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

fn skip_white(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use shared::ContentKind;

    use super::*;

    /// The kind whose signature the bytes carry, most telling first, as the registry asks.
    fn sniff(body: &[u8]) -> Option<ContentKind> {
        let head = &body[..body.len().min(HEAD)];
        [
            (
                (|head| image_reader::ImageFormat::sniff(head).is_some()) as fn(&[u8]) -> bool,
                ContentKind::Image,
            ),
            (is_pdf, ContentKind::Pdf),
            (is_html, ContentKind::Html),
        ]
        .into_iter()
        .find(|(is, _)| is(head))
        .map(|(_, kind)| kind)
    }

    #[test]
    fn bodies_are_told_by_their_first_bytes() {
        let cases: [(&[u8], Option<ContentKind>); 16] = [
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some(ContentKind::Image)),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", Some(ContentKind::Image)),
            (b"GIF89a\x01\x00", Some(ContentKind::Image)),
            (b"RIFF\x10\0\0\0WEBPVP8 ", Some(ContentKind::Image)),
            (b"\0\0\0\x1cftypavif\0\0", Some(ContentKind::Image)),
            (
                b"<?xml version=\"1.0\"?>\n<!-- drawn -->\n<svg xmlns=\"http://www.w3.org/2000/svg\">",
                Some(ContentKind::Image),
            ),
            (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", Some(ContentKind::Pdf)),
            (b"\r\n\r\n%PDF-1.4", Some(ContentKind::Pdf)),
            (b"<!DOCTYPE html><html>", Some(ContentKind::Html)),
            (b"\xef\xbb\xbf  <HTML lang=en>", Some(ContentKind::Html)),
            (b"\n<p>Just a paragraph", Some(ContentKind::Html)),
            (b"<!-- a comment first -->", Some(ContentKind::Html)),
            (b"<pre>not a listed tag", None),
            (b"Plain text, no markup.", None),
            (b"PK\x03\x04 a zip", None),
            (b"", None),
        ];
        for (body, kind) in cases {
            assert_eq!(sniff(body), kind, "{:?}", String::from_utf8_lossy(body));
        }
    }
}
