//! How a body's kind is settled from its headers and bytes, and what `Accept` asks for.

use shared::config::RawCrawlerConfig;

use super::*;

fn kinds() -> Kinds {
    let config = RawCrawlerConfig {
        max_body_bytes: 4096,
        ..RawCrawlerConfig::default()
    };
    Kinds::new(&config.validate().expect("valid"), None)
}

fn body(bytes: &[u8], content_type: &str) -> Body {
    Body {
        bytes: bytes.to_vec(),
        content_type: content_type.into(),
        truncated: false,
    }
}

const HTML: KindSet = KindSet::NONE;

fn html() -> KindSet {
    KindSet::of(&[ContentKind::Html])
}

#[test]
fn content_types_hint_and_generic_ones_leave_it_to_the_bytes() {
    let kinds = kinds();
    assert_eq!(
        kinds.hint("text/html; charset=utf-8"),
        Hint::Kind(ContentKind::Html)
    );
    assert_eq!(
        kinds.hint("application/xhtml+xml"),
        Hint::Kind(ContentKind::Html)
    );
    assert_eq!(kinds.hint(""), Hint::Unknown);
    assert_eq!(kinds.hint("application/octet-stream"), Hint::Unknown);
    assert_eq!(kinds.hint("text/plain"), Hint::Other);
    assert_eq!(
        kinds.plan(Hint::Kind(ContentKind::Html), html()),
        ReadPlan::Read(4096)
    );
    assert_eq!(kinds.plan(Hint::Unknown, html()), ReadPlan::Read(4096));
    assert_eq!(kinds.plan(Hint::Other, html()), ReadPlan::Skip);
    assert_eq!(
        kinds.plan(Hint::Kind(ContentKind::Html), HTML),
        ReadPlan::Skip,
        "html not read"
    );
}

#[test]
fn the_bytes_win_over_the_content_type() {
    let kinds = kinds();
    // An HTML page served as an octet stream is a page.
    let mut page = body(
        b"<!doctype html><title>t</title>",
        "application/octet-stream",
    );
    assert_eq!(
        kinds.settle(Hint::Unknown, html(), &mut page),
        Some(ContentKind::Html)
    );
    // No media type and no telling bytes: read as HTML, as browsers do.
    let mut bare = body(b"just words", "");
    assert_eq!(
        kinds.settle(Hint::Unknown, html(), &mut bare),
        Some(ContentKind::Html)
    );
    // A PNG served as text/html is an image, and images are not read here.
    let mut png = body(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "text/html");
    assert_eq!(
        kinds.settle(Hint::Kind(ContentKind::Html), html(), &mut png),
        None
    );
    // A generic type and no telling bytes: nothing to read.
    let mut blob = body(b"\x00\x01\x02", "application/octet-stream");
    assert_eq!(kinds.settle(Hint::Unknown, html(), &mut blob), None);
}

#[test]
fn a_body_over_its_kinds_limit_is_cut_and_marked() {
    let kinds = kinds();
    let mut long = body(&[b'a'; 5000], "text/html");
    assert_eq!(
        kinds.settle(Hint::Kind(ContentKind::Html), html(), &mut long),
        Some(ContentKind::Html)
    );
    assert_eq!((long.bytes.len(), long.truncated), (4096, true));
}

#[test]
fn accept_asks_for_the_kinds_read_and_anything_else_last() {
    let kinds = kinds();
    assert_eq!(
        kinds.accept(html()),
        "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
    );
    assert!(
        kinds
            .accept(KindSet::of(&[ContentKind::Image]))
            .to_str()
            .unwrap()
            .starts_with("image/avif,image/webp"),
    );
    assert_eq!(kinds.accept(KindSet::NONE), "*/*;q=0.1");
}
