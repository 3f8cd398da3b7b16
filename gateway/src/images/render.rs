//! The images page (`/images`) as a maud template: a search form with the filters, the Web
//! and Images tabs, and a grid of thumbnails, each with its size, format and bytes, a link to
//! the page it appears on and one to the image itself.
//!
//! The same invariant as `crate::render`: every string from the web or the user (alt texts,
//! titles, URLs, the query) goes through maud's escaping and [`shown`]. Thumbnails come from
//! this server (`/thumb/HASH`, the only image source the pages' policy allows).

use maud::{Markup, html};

use super::query::ImageRequest;
use super::search::{ImageHit, ImageResults};
use crate::display::{TITLE_CHARS, URL_CHARS, VALUE_CHARS, shown};
use crate::render::{Tab, count, layout, tabs, urlencode};

/// Longest side of a stored thumbnail, in pixels.
const THUMBNAIL_SIDE: u64 = 256;

/// Formats offered in the filter (any other can be typed into the URL).
const FORMATS: [&str; 5] = ["png", "jpeg", "gif", "webp", "svg"];

fn number(value: Option<u64>) -> String {
    value.map(|n| n.to_string()).unwrap_or_default()
}

fn form(request: &ImageRequest, query: &str) -> Markup {
    let format = request.format.as_deref().unwrap_or("");
    html! {
        form.search action="/images" method="get" role="search" {
            input type="search" name="q" value=(query) placeholder="Search the crawl's images"
                aria-label="Search images" maxlength="2048";
            button type="submit" { "Search" }
        }
        form.filters action="/images" method="get" {
            input type="hidden" name="q" value=(query);
            label { "min width " input type="number" name="min_width" min="1" value=(number(request.min_width)); }
            label { "min height " input type="number" name="min_height" min="1" value=(number(request.min_height)); }
            label {
                "format "
                select name="format" {
                    option value="" selected[format.is_empty()] { "any" }
                    @for name in FORMATS { option value=(name) selected[format == name] { (name) } }
                }
            }
            button type="submit" { "Filter" }
        }
    }
}

/// The size a thumbnail of a `width` x `height` image is shown at (its stored size: the
/// image scaled to fit [`THUMBNAIL_SIDE`]), or `None` when the size is not known.
fn thumbnail_size(width: u64, height: u64) -> Option<(u64, u64)> {
    let longest = width.max(height);
    if width == 0 || height == 0 {
        return None;
    }
    if longest <= THUMBNAIL_SIDE {
        return Some((width, height));
    }
    let scale = |side: u64| (side * THUMBNAIL_SIDE / longest).max(1);
    Some((scale(width), scale(height)))
}

fn size(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.0} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}

fn cell(hit: &ImageHit) -> Markup {
    let label = if hit.alt.trim().is_empty() {
        &hit.title
    } else {
        &hit.alt
    };
    let page_name = if hit.title.trim().is_empty() {
        &hit.page_url
    } else {
        &hit.title
    };
    let dimensions = if hit.width > 0 && hit.height > 0 {
        format!("{} × {}", hit.width, hit.height)
    } else {
        "size unknown".into()
    };
    html! {
        figure.image {
            a.frame href=(hit.url) {
                @match (&hit.thumbnail, thumbnail_size(hit.width, hit.height)) {
                    (Some(src), Some((width, height))) => img src=(src) width=(width) height=(height) alt=(shown(&hit.alt, TITLE_CHARS)) loading="lazy";,
                    (Some(src), None) => img src=(src) alt=(shown(&hit.alt, TITLE_CHARS)) loading="lazy";,
                    (None, _) => span.nothumb { "no preview" },
                }
            }
            figcaption {
                @if !label.trim().is_empty() { div.alt { bdi { (shown(label, TITLE_CHARS)) } } }
                div.facts { (dimensions) " · " (hit.format.to_uppercase()) " · " (size(hit.bytes)) }
                div.links {
                    "on " a.page href=(hit.page_url) { bdi { (shown(page_name, TITLE_CHARS)) } }
                    " · " a.image href=(hit.url) { "image" }
                }
                div.url { bdi { (shown(&hit.url, URL_CHARS)) } }
            }
        }
    }
}

fn page_link(request: &ImageRequest, query: &str, page: usize) -> String {
    let mut link = format!("/images?q={}&page={page}", urlencode(query));
    for (name, value) in [
        ("min_width", number(request.min_width)),
        ("min_height", number(request.min_height)),
        ("format", request.format.clone().unwrap_or_default()),
    ] {
        if !value.is_empty() {
            link += &format!("&{name}={}", urlencode(&value));
        }
    }
    link
}

fn pagination(results: &ImageResults, request: &ImageRequest) -> Markup {
    let last_page = results.last_page();
    let first = results.page.saturating_sub(4).max(1);
    let last = (first + 9).min(last_page);
    html! {
        @if last_page > 1 {
            nav.pages aria-label="Result pages" {
                @if results.page > 1 {
                    a rel="prev" href=(page_link(request, &results.query, results.page - 1)) { "‹ Previous" }
                }
                @for p in first..=last {
                    @if p == results.page { span.current aria-current="page" { (p) } }
                    @else { a href=(page_link(request, &results.query, p)) { (p) } }
                }
                @if results.page < last_page {
                    a rel="next" href=(page_link(request, &results.query, results.page + 1)) { "Next ›" }
                }
            }
        }
    }
}

/// The images page for `results` of `request`.
pub fn images(results: &ImageResults, request: &ImageRequest) -> Markup {
    let title = if results.nothing_to_search {
        "Images - sift".to_string()
    } else {
        format!("{} - sift images", shown(&results.query, VALUE_CHARS))
    };
    layout(
        &title,
        html! {
            header { a.logo href="/" { "sift" } (form(request, &results.query)) }
            (tabs(&results.query, Tab::Images))
            main.wide {
                @if results.nothing_to_search {
                    div.notice { strong { "Type something to search the images for." } }
                } @else {
                    p.meta {
                        (count(results.total)) " in " (format!("{:.1}", results.took_ms)) " ms"
                        @if results.page > 1 { " · page " (results.page) }
                    }
                    @if results.hits.is_empty() {
                        div.notice {
                            @if results.total == 0 { "No images match " strong { (shown(&results.query, VALUE_CHARS)) } "." }
                            @else { "No more results." }
                        }
                    } @else {
                        div.grid { @for hit in &results.hits { (cell(hit)) } }
                    }
                    (pagination(results, request))
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thumbnail_is_shown_at_its_stored_size() {
        assert_eq!(thumbnail_size(1024, 512), Some((256, 128)));
        assert_eq!(thumbnail_size(300, 3000), Some((25, 256)));
        assert_eq!(thumbnail_size(64, 32), Some((64, 32)));
        assert_eq!(thumbnail_size(0, 32), None);
        assert_eq!(thumbnail_size(100_000, 1), Some((256, 1)));
    }

    #[test]
    fn sizes_read_in_bytes_kilobytes_and_megabytes() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(20 * 1024), "20 KB");
        assert_eq!(size(3 * 1_048_576 / 2), "1.5 MB");
    }

    #[test]
    fn page_links_keep_the_query_and_the_filters() {
        let request = ImageRequest {
            min_width: Some(640),
            format: Some("png".into()),
            ..ImageRequest::default()
        };
        assert_eq!(
            page_link(&request, "a&b", 2),
            "/images?q=a%26b&page=2&min_width=640&format=png"
        );
    }
}
