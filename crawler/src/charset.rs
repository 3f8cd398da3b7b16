//! Bytes to UTF-8 text as browsers do it: the HTML standard's encoding sniffing, simplified
//! for a crawler that holds the whole (bounded) body.
//!
//! 1. A byte order mark (UTF-8, UTF-16LE, UTF-16BE) wins over everything.
//! 2. The `charset` parameter of `Content-Type` (quoted or not, any case).
//! 3. A prescan of the first 1024 bytes for `<meta charset=...>` or
//!    `<meta http-equiv="Content-Type" content="...; charset=...">`, reading tags and
//!    attributes the way the standard does (comments skipped, any attribute order and
//!    quoting), so `charset=` in ordinary text does not count. A meta that says UTF-16 means
//!    UTF-8: the prescan could not have read it otherwise.
//! 4. Nothing declared: bytes that are valid UTF-8 stay UTF-8; anything else is guessed by
//!    [`chardetng`] (Firefox's detector) with no top-level-domain hint, whose answer when the
//!    bytes say little is windows-1252.
//!
//! A label that encoding_rs does not know is ignored and the next source is asked. So is a
//! label meaning the `replacement` encoding (`iso-2022-kr`, `hz-gb-2312`, ...): browsers
//! show such pages as a single U+FFFD, which tells a search index nothing. Bytes that are
//! invalid in the chosen encoding become U+FFFD; nothing here panics.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

/// How much of the body the `<meta>` prescan reads (the HTML standard's number).
const PRESCAN_BYTES: usize = 1024;

/// Where the encoding of a body came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharsetSource {
    /// A byte order mark at the start of the body.
    Bom,
    /// The `charset` parameter of the `Content-Type` header.
    Header,
    /// A `<meta>` tag in the first 1024 bytes.
    Meta,
    /// Nothing declared and not UTF-8: guessed from the bytes by chardetng.
    Sniffed,
    /// Nothing declared and the bytes are valid UTF-8 (or empty): UTF-8.
    Default,
}

/// A body decoded to UTF-8, with the encoding used and why it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text; undecodable bytes are U+FFFD, a byte order mark is dropped.
    pub text: String,
    /// The encoding the bytes were read in.
    pub encoding: &'static Encoding,
    /// Which source named (or guessed) that encoding.
    pub source: CharsetSource,
}

/// Decodes a body to UTF-8 text; see the [module](self) for how the encoding is chosen.
/// `content_type` is the `Content-Type` header's value, or `""` when there is none.
pub fn decode(body: &[u8], content_type: &str) -> String {
    decode_body(body, content_type).text
}

/// Decodes a body like [`decode`] and also says which encoding was used and why.
pub fn decode_body(body: &[u8], content_type: &str) -> Decoded {
    let (encoding, source, bom_len) = choose(body, content_type);
    let (text, _) = encoding.decode_without_bom_handling(&body[bom_len..]);
    Decoded {
        text: text.into_owned(),
        encoding,
        source,
    }
}

/// The encoding, its source and the length of the BOM to skip.
fn choose(body: &[u8], content_type: &str) -> (&'static Encoding, CharsetSource, usize) {
    if let Some((encoding, bom_len)) = Encoding::for_bom(body) {
        return (encoding, CharsetSource::Bom, bom_len);
    }
    if let Some(encoding) = header_charset(content_type) {
        return (encoding, CharsetSource::Header, 0);
    }
    if let Some(encoding) = meta_charset(&body[..body.len().min(PRESCAN_BYTES)]) {
        return (encoding, CharsetSource::Meta, 0);
    }
    if is_utf8(body) {
        return (UTF_8, CharsetSource::Default, 0);
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(body, true);
    (
        detector.guess(None, Utf8Detection::Deny),
        CharsetSource::Sniffed,
        0,
    )
}

/// Valid UTF-8. A body cut at the size limit often ends inside a character: an incomplete
/// character at the very end is allowed when the bytes before it already hold non-ASCII
/// UTF-8 (after plain ASCII it could as well be a legacy encoding's last letter).
fn is_utf8(body: &[u8]) -> bool {
    match std::str::from_utf8(body) {
        Ok(_) => true,
        Err(error) => error.error_len().is_none() && !body[..error.valid_up_to()].is_ascii(),
    }
}

/// An encoding for a label, if it is one a crawler can use.
fn usable(label: &[u8]) -> Option<&'static Encoding> {
    Encoding::for_label(label).filter(|encoding| *encoding != REPLACEMENT)
}

/// The `charset` parameter of a `Content-Type` value.
fn header_charset(content_type: &str) -> Option<&'static Encoding> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        usable(value.trim().trim_matches(['"', '\'']).as_bytes())
    })
}

/// The HTML standard's prescan of a byte stream (`head` is its first 1024 bytes): the first
/// `<meta>` that declares a usable encoding.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let mut at = 0;
    while at < head.len() {
        let rest = &head[at..];
        if rest.starts_with(b"<!--") {
            // To the `>` of the first `-->`; its dashes may be those of `<!--`.
            at += 2 + find(&rest[2..], b"-->")? + 2;
        } else if rest.len() > 5
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && (is_space(rest[5]) || rest[5] == b'/')
        {
            at += 5;
            if let Some(encoding) = meta_tag(head, &mut at) {
                return Some(encoding);
            }
        } else if starts_tag(rest) {
            // Any other tag: skip its name and attributes (a `>` may be inside a quoted value).
            at += rest.iter().position(|&b| is_space(b) || b == b'>')?;
            while next_attribute(head, &mut at).is_some() {}
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            at += rest.iter().position(|&b| b == b'>')?;
        }
        at += 1;
    }
    None
}

/// `<a` or `</a`: the start of a tag whose name begins with a letter.
fn starts_tag(rest: &[u8]) -> bool {
    let name = match rest {
        [b'<', b'/', name, ..] | [b'<', name, ..] => name,
        _ => return false,
    };
    name.is_ascii_alphabetic()
}

/// The attributes of one `<meta>` tag, from just after `<meta`; the encoding it declares.
/// Leaves `at` on the tag's `>` (or at the end of `head`).
fn meta_tag(head: &[u8], at: &mut usize) -> Option<&'static Encoding> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    // `None`: no charset named yet; `Some(true)`: named by `content`, which needs
    // `http-equiv="content-type"`; `Some(false)`: named by a `charset` attribute.
    let mut need_pragma = None;
    let mut charset = None;
    while let Some((name, value)) = next_attribute(head, at) {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value == b"content-type",
            b"content" if need_pragma.is_none() => {
                if let Some(encoding) = content_charset(&value).and_then(usable) {
                    charset = Some(encoding);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = usable(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    if *at >= head.len() {
        // The tag was cut off by the end of the prescanned bytes: it does not count.
        return None;
    }
    if need_pragma? && !got_pragma {
        return None;
    }
    match charset? {
        encoding if encoding == UTF_16BE || encoding == UTF_16LE => Some(UTF_8),
        encoding if encoding == X_USER_DEFINED => Some(WINDOWS_1252),
        encoding => Some(encoding),
    }
}

/// The HTML standard's "get an attribute": the next attribute of a tag as (name, value),
/// lowercased. `None` at the tag's `>` (where `at` is left) or when the bytes run out
/// (`at` is then `s.len()`).
fn next_attribute(s: &[u8], at: &mut usize) -> Option<(Vec<u8>, Vec<u8>)> {
    while is_space(*s.get(*at)?) || s[*at] == b'/' {
        *at += 1;
    }
    if s[*at] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    loop {
        let byte = *s.get(*at)?;
        if byte == b'=' && !name.is_empty() {
            *at += 1;
            break;
        }
        if is_space(byte) {
            while is_space(*s.get(*at)?) {
                *at += 1;
            }
            if s[*at] != b'=' {
                return Some((name, Vec::new()));
            }
            *at += 1;
            break;
        }
        if byte == b'/' || byte == b'>' {
            return Some((name, Vec::new()));
        }
        name.push(byte.to_ascii_lowercase());
        *at += 1;
    }
    while is_space(*s.get(*at)?) {
        *at += 1;
    }
    let mut value = Vec::new();
    let quote = s[*at];
    if quote == b'"' || quote == b'\'' {
        *at += 1;
        loop {
            let byte = *s.get(*at)?;
            *at += 1;
            if byte == quote {
                return Some((name, value));
            }
            value.push(byte.to_ascii_lowercase());
        }
    }
    loop {
        let byte = *s.get(*at)?;
        if is_space(byte) || byte == b'>' {
            return Some((name, value));
        }
        value.push(byte.to_ascii_lowercase());
        *at += 1;
    }
}

/// The HTML standard's "extract a character encoding from a meta element": the label after
/// `charset=` in a lowercased `content` value.
fn content_charset(content: &[u8]) -> Option<&[u8]> {
    let mut at = 0;
    loop {
        at += find(&content[at..], b"charset")? + b"charset".len();
        while content.get(at).is_some_and(|&b| is_space(b)) {
            at += 1;
        }
        if content.get(at) != Some(&b'=') {
            continue;
        }
        at += 1;
        while content.get(at).is_some_and(|&b| is_space(b)) {
            at += 1;
        }
        let rest = &content[at..];
        return match rest.first()? {
            &quote @ (b'"' | b'\'') => {
                let len = rest[1..].iter().position(|&b| b == quote)?;
                Some(&rest[1..1 + len])
            }
            _ => {
                let len = rest
                    .iter()
                    .position(|&b| is_space(b) || b == b';')
                    .unwrap_or(rest.len());
                Some(&rest[..len])
            }
        };
    }
}

/// ASCII whitespace as the HTML standard counts it.
fn is_space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::SHIFT_JIS;

    /// Decodes `body` under `content_type` and checks the text, encoding and source.
    fn check(
        body: &[u8],
        content_type: &str,
        text: &str,
        encoding: &'static Encoding,
        source: CharsetSource,
    ) {
        let decoded = decode_body(body, content_type);
        assert_eq!(
            decoded.text, text,
            "text of {body:?} under {content_type:?}"
        );
        assert_eq!(
            (decoded.encoding, decoded.source),
            (encoding, source),
            "encoding of {body:?} under {content_type:?}"
        );
    }

    fn shift_jis(text: &str) -> Vec<u8> {
        let (bytes, _, unmappable) = SHIFT_JIS.encode(text);
        assert!(!unmappable, "{text} fits Shift_JIS");
        bytes.into_owned()
    }

    /// Windows-1252 (here: Latin-1) bytes of French text.
    fn latin1(text: &str) -> Vec<u8> {
        let (bytes, _, unmappable) = WINDOWS_1252.encode(text);
        assert!(!unmappable, "{text} fits windows-1252");
        bytes.into_owned()
    }

    #[test]
    fn shift_jis_by_header() {
        let page = "<html><body><h1>日本語のページ</h1></body></html>";
        check(
            &shift_jis(page),
            "text/html; charset=Shift_JIS",
            page,
            SHIFT_JIS,
            CharsetSource::Header,
        );
        check(
            &shift_jis("日本語のページ"),
            "text/html;charset=\"shift_jis\"",
            "日本語のページ",
            SHIFT_JIS,
            CharsetSource::Header,
        );
    }

    #[test]
    fn shift_jis_by_meta_http_equiv() {
        let page = "<html><head>\
            <meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\">\
            <title>日本語のページ</title></head></html>";
        check(
            &shift_jis(page),
            "text/html",
            page,
            SHIFT_JIS,
            CharsetSource::Meta,
        );
        // Any attribute order, quoting and case.
        let page = "<META content='text/html;charset = sjis' HTTP-EQUIV=Content-Type>日本語";
        check(&shift_jis(page), "", page, SHIFT_JIS, CharsetSource::Meta);
    }

    #[test]
    fn shift_jis_undeclared_is_sniffed() {
        let page = "<html><body><p>吾輩は猫である。名前はまだ無い。\
            どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で\
            ニャーニャー泣いていた事だけは記憶している。吾輩はここで始めて人間というものを見た。\
            </p></body></html>";
        check(
            &shift_jis(page),
            "text/html",
            page,
            SHIFT_JIS,
            CharsetSource::Sniffed,
        );
    }

    #[test]
    fn latin1_by_header_meta_or_sniffing() {
        check(
            b"caf\xe9",
            "text/html; charset=ISO-8859-1",
            "café",
            WINDOWS_1252,
            CharsetSource::Header,
        );
        check(
            b"<meta charset=\"latin1\">caf\xe9",
            "text/html",
            "<meta charset=\"latin1\">café",
            WINDOWS_1252,
            CharsetSource::Meta,
        );
        let page = "<p>Le café est très bon près de l'église, déjà à midi.</p>";
        check(
            &latin1(page),
            "text/html",
            page,
            WINDOWS_1252,
            CharsetSource::Sniffed,
        );
        check(b"caf\xe9", "", "café", WINDOWS_1252, CharsetSource::Sniffed);
    }

    #[test]
    fn bom_wins() {
        check(
            b"\xef\xbb\xbfcaf\xc3\xa9",
            "text/html; charset=latin1",
            "café",
            UTF_8,
            CharsetSource::Bom,
        );
        check(
            b"\xff\xfec\x00a\x00f\x00\xe9\x00",
            "text/html; charset=utf-8",
            "café",
            UTF_16LE,
            CharsetSource::Bom,
        );
        check(
            b"\xfe\xff\x00c\x00a\x00f\x00\xe9",
            "",
            "café",
            UTF_16BE,
            CharsetSource::Bom,
        );
    }

    #[test]
    fn undeclared_utf8_stays_utf8() {
        check(
            "café".as_bytes(),
            "text/html",
            "café",
            UTF_8,
            CharsetSource::Default,
        );
        check(b"", "", "", UTF_8, CharsetSource::Default);
        // Cut at the size limit inside "é": still UTF-8.
        check(
            b"na\xc3\xafve caf\xc3",
            "text/html",
            "naïve caf\u{FFFD}",
            UTF_8,
            CharsetSource::Default,
        );
    }

    #[test]
    fn charset_outside_meta_is_ignored() {
        let page = "<p>Send it with charset=koi8-r please.</p><p>café</p>";
        check(
            page.as_bytes(),
            "text/html",
            page,
            UTF_8,
            CharsetSource::Default,
        );
        let page = "<!-- <meta charset=\"koi8-r\"> --><meta charset=\"latin1\">caf\u{e9}";
        check(
            &latin1(page),
            "text/html",
            page,
            WINDOWS_1252,
            CharsetSource::Meta,
        );
        let page = "<a title='<meta charset=koi8-r>'>x</a>café";
        check(page.as_bytes(), "", page, UTF_8, CharsetSource::Default);
        // `content` with a charset but no http-equiv declares nothing.
        let page = "<meta content=\"text/html; charset=koi8-r\">café";
        check(page.as_bytes(), "", page, UTF_8, CharsetSource::Default);
    }

    #[test]
    fn meta_after_1024_bytes_is_not_read() {
        let mut page = format!("<!doctype html>{}", " ".repeat(PRESCAN_BYTES));
        page.push_str("<meta charset=koi8-r><p>café</p>");
        check(page.as_bytes(), "", &page, UTF_8, CharsetSource::Default);
    }

    #[test]
    fn meta_utf16_means_utf8() {
        let page = "<meta charset=\"utf-16\">café";
        check(page.as_bytes(), "", page, UTF_8, CharsetSource::Meta);
    }

    #[test]
    fn unknown_labels_fall_through() {
        check(
            "café".as_bytes(),
            "text/html; charset=no-such-thing",
            "café",
            UTF_8,
            CharsetSource::Default,
        );
        check(
            b"<meta charset=bogus><meta charset=windows-1252>caf\xe9",
            "text/html; charset=",
            "<meta charset=bogus><meta charset=windows-1252>café",
            WINDOWS_1252,
            CharsetSource::Meta,
        );
        // `replacement` would show the page as one U+FFFD: not used.
        check(
            "café".as_bytes(),
            "text/html; charset=iso-2022-kr",
            "café",
            UTF_8,
            CharsetSource::Default,
        );
    }

    #[test]
    fn invalid_bytes_become_replacement_characters() {
        check(
            b"caf\xff!",
            "text/html; charset=utf-8",
            "caf\u{FFFD}!",
            UTF_8,
            CharsetSource::Header,
        );
        check(
            b"<meta charset=utf-8>caf\xe9",
            "",
            "<meta charset=utf-8>caf\u{FFFD}",
            UTF_8,
            CharsetSource::Meta,
        );
    }

    #[test]
    fn decode_returns_the_text() {
        assert_eq!(decode(b"caf\xe9", "text/html; charset=latin1"), "café");
    }

    #[test]
    fn prescan_never_panics_on_cut_tags() {
        for page in [
            "<meta",
            "<meta ",
            "<meta charset",
            "<meta charset=",
            "<meta charset='utf-8",
            "<meta charset=utf-8",
            "<!--",
            "<!-->",
            "<a href='>",
            "</",
            "<?",
            "<meta content=\"charset=\"",
            "<meta http-equiv=content-type content='charset=\"latin1'>",
        ] {
            assert_eq!(meta_charset(page.as_bytes()), None, "{page}");
        }
    }
}
