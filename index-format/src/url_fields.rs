//! The values of the fields read from a page's URL alone, in the contract because the
//! indexer writes them and the gateway folds results by them: `page_name` (mirrors and
//! versions of one page share it) and `url_depth`.

/// The name a page goes by: its last path segment with the query (`trait.Unpin.html`,
/// `item?id=4`), or for an index page the folder it is the index of (`/std/pin/index.html`
/// and `/core/pin/` are both `pin`). Empty for a site's root. Mirrors and versions of one
/// page (`/v1/guide.html`, `/latest/guide.html`) share a name.
pub fn page_name(url: &url::Url) -> String {
    let mut segments = url.path().split('/').filter(|s| !s.is_empty()).rev();
    let mut name = segments.next().unwrap_or_default();
    if is_index_page(name) {
        name = segments.next().unwrap_or_default();
    }
    match url.query() {
        Some(query) => format!("{name}?{query}"),
        None => name.to_string(),
    }
}

/// `index.html`, `index.php`, `default.aspx`...: a folder's own page.
fn is_index_page(segment: &str) -> bool {
    let stem = segment.split_once('.').map_or(segment, |(stem, _)| stem);
    stem.eq_ignore_ascii_case("index") || stem.eq_ignore_ascii_case("default")
}

/// The `page_name` field ([`crate::fields::PAGE_NAME`]): an xxh3 hash of [`page_name`], 0 when the page has no name.
pub fn page_name_key(url: &url::Url) -> u64 {
    let name = page_name(url);
    if name.is_empty() {
        0
    } else {
        xxhash_rust::xxh3::xxh3_64(name.as_bytes()).max(1)
    }
}

/// Path segments of a URL path: `/` is 0, `/a/` is 1, `/a/b.html` is 2.
pub fn url_depth(path: &str) -> u64 {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_named_by_their_last_segment_or_folder() {
        let name = |url: &str| page_name(&url::Url::parse(url).expect("url"));
        assert_eq!(
            name("http://a.test/std/marker/trait.Unpin.html"),
            "trait.Unpin.html"
        );
        assert_eq!(name("http://a.test/core/pin/index.html"), "pin");
        assert_eq!(name("http://a.test/core/pin/"), "pin");
        assert_eq!(name("http://a.test/docs/Default.aspx"), "docs");
        assert_eq!(name("http://a.test/item?id=4"), "item?id=4");
        assert_eq!(name("http://a.test/indexing.html"), "indexing.html");
        assert_eq!(name("http://a.test/"), "");
        let key = |url: &str| page_name_key(&url::Url::parse(url).expect("url"));
        assert_eq!(key("http://a.test/"), 0);
        assert_eq!(
            key("http://a.test/std/pin/index.html"),
            key("http://b.test/core/pin/")
        );
        assert_ne!(
            key("http://a.test/std/pin/"),
            key("http://a.test/std/time/")
        );
    }
}
