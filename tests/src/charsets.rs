//! `charsets.test`: pages in legacy encodings, each declared a different way. A crawler must
//! store every one as correct UTF-8 text.
//!
//! | path | bytes | declared by |
//! |---|---|---|
//! | `/` | UTF-8 | header; links to every page below |
//! | `/sjis-header.html` | Shift_JIS | `Content-Type: text/html; charset=Shift_JIS` |
//! | `/sjis-meta.html` | Shift_JIS | only `<meta http-equiv="Content-Type" content="...; charset=Shift_JIS">` |
//! | `/latin1-meta.html` | ISO-8859-1 | only `<meta charset="iso-8859-1">` |

use warp::reply::Response;

use crate::reply::{bytes, html, not_found, page, text};

/// The title of `/sjis-header.html` and a sentence of its text, as they read decoded.
pub const SJIS_HEADER_TEXT: (&str, &str) = (
    "港の朝市",
    "毎週土曜日の朝、漁港で新鮮な魚と野菜の市場が開かれます。",
);
/// The title of `/sjis-meta.html` and a sentence of its text, as they read decoded.
pub const SJIS_META_TEXT: (&str, &str) = (
    "山の温泉宿",
    "雪の季節には露天風呂から山々の景色を楽しめます。",
);
/// The title of `/latin1-meta.html` and a sentence of its text, as they read decoded.
pub const LATIN1_META_TEXT: (&str, &str) = ("Crème brûlée", "Déjà vu à la façon du chef.");
/// Every page of `charsets.test`.
pub const CHARSET_PATHS: &[&str] = &[
    "/",
    "/sjis-header.html",
    "/sjis-meta.html",
    "/latin1-meta.html",
];

/// `/sjis-header.html`, encoded in Shift_JIS.
const SJIS_HEADER: &[u8] = b"<!DOCTYPE html><html><head><title>\x8d`\x82\xcc\x92\xa9\x8es</title></head><body><h1>\x8d`\x82\xcc\x92\xa9\x8es</h1><p>\x96\x88\x8fT\x93y\x97j\x93\xfa\x82\xcc\x92\xa9\x81A\x8b\x99\x8d`\x82\xc5\x90V\x91N\x82\xc8\x8b\x9b\x82\xc6\x96\xec\x8d\xd8\x82\xcc\x8es\x8f\xea\x82\xaa\x8aJ\x82\xa9\x82\xea\x82\xdc\x82\xb7\x81B</p><p><a href=\"/\">\x96\xdf\x82\xe9</a></p></body></html>";

/// `/sjis-meta.html`, encoded in Shift_JIS.
const SJIS_META: &[u8] = b"<!DOCTYPE html><html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"><title>\x8eR\x82\xcc\x89\xb7\x90\xf2\x8fh</title></head><body><h1>\x8eR\x82\xcc\x89\xb7\x90\xf2\x8fh</h1><p>\x90\xe1\x82\xcc\x8bG\x90\xdf\x82\xc9\x82\xcd\x98I\x93V\x95\x97\x98C\x82\xa9\x82\xe7\x8eR\x81X\x82\xcc\x8ci\x90F\x82\xf0\x8ay\x82\xb5\x82\xdf\x82\xdc\x82\xb7\x81B</p></body></html>";

/// Answers one request to `charsets.test`.
pub(crate) fn respond(path: &str) -> Response {
    match path {
        "/robots.txt" => text(200, "User-agent: *\nAllow: /\n"),
        "/" => html(
            200,
            page(
                "Pages in other encodings",
                "<ul><li><a href=\"/sjis-header.html\">Shift_JIS by header</a></li>\
                 <li><a href=\"/sjis-meta.html\">Shift_JIS by meta</a></li>\
                 <li><a href=\"/latin1-meta.html\">Latin-1 by meta</a></li></ul>",
            ),
        ),
        "/sjis-header.html" => bytes(200, "text/html; charset=Shift_JIS", SJIS_HEADER),
        "/sjis-meta.html" => bytes(200, "text/html", SJIS_META),
        "/latin1-meta.html" => bytes(200, "text/html", latin1_meta()),
        _ => not_found(),
    }
}

/// `/latin1-meta.html`: every character of its text is in ISO-8859-1, one byte each.
fn latin1_meta() -> Vec<u8> {
    let (title, sentence) = LATIN1_META_TEXT;
    let html = format!(
        "<!DOCTYPE html><html><head><meta charset=\"iso-8859-1\"><title>{title}</title></head>\
         <body><h1>{title}</h1><p>{sentence}</p></body></html>"
    );
    html.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_not_utf8() {
        // Not UTF-8: a crawler that assumes UTF-8 gets U+FFFD.
        assert!(String::from_utf8(SJIS_HEADER.to_vec()).is_err());
        assert!(String::from_utf8(SJIS_META.to_vec()).is_err());
        assert!(std::str::from_utf8(&latin1_meta()).is_err());
        // 港 is 0x8D 0x60 in Shift_JIS.
        assert!(SJIS_HEADER.windows(2).any(|w| w == [0x8d, 0x60]));
        for path in CHARSET_PATHS {
            assert_eq!(respond(path).status(), 200, "{path}");
        }
    }
}
