//! A stored page's HTML made fit to show as a cached copy: its links absolute and opening a
//! new tab, or inert; nothing left that runs, loads a frame or plugin, submits, refreshes or
//! moves the copy's frame away.
//!
//! [`rewrite`] runs the stored HTML through lol_html, a streaming rewriter (a tokenizer that
//! simulates the tree builder where tokenizing depends on it), twice: once to find the page's
//! `<base href>`, once to rewrite. Its strict mode makes markup it cannot tokenize as a
//! browser would (a `<script>` inside `<select>`, anything after `<frameset>`) an error
//! instead of a guess, and its memory is bounded; on any error the caller shows the copy as
//! text.
//!
//! What changes, element by element:
//!
//! | markup | becomes |
//! |---|---|
//! | `<a href>`, `<area href>` (and SVG `xlink:href`) | the address resolved against the base (the page's own `<base href>` when that is http(s), else the page's URL) as a browser would (character references, tabs and newlines, case): an absolute `http(s)` URL with `target="_blank" rel="noopener noreferrer"`; any other scheme or an unparsable address: no `href` (inert) |
//! | `<frame>` (a void element; lol_html does not know it as one) | removed |
//! | `<script>`, `<noscript>`, `<iframe>`, `<frameset>`, `<object>`, `<embed>`, `<applet>`, `<portal>`, `<fencedframe>`, the page's `<base>`, SVG `<animate>`/`<set>` (they can rewrite an `href`) | removed with their content |
//! | `<meta http-equiv>` (refresh, set-cookie, ...), `<meta name="referrer">` | removed |
//! | `<link>` | kept only as a stylesheet |
//! | `<form action>` | no `action`: nowhere to submit |
//! | `on*`, `formaction`, `formtarget`, `srcdoc`, `ping`, `referrerpolicy`, `autofocus` attributes | removed |
//!
//! `<noscript>` goes because lol_html reads its content as text (as a browser with scripting
//! on does) while the copy's frame, where scripting is off, would read it as markup that no
//! handler saw. Images, stylesheets and fonts still load from the original site through the
//! `<base href>` put first, as a search engine's cache does; the page's own referrer settings
//! are removed, so the cached page's `no-referrer` policy holds. The frame's sandbox and the
//! page's Content-Security-Policy (see [`crate::handlers::CACHE_CSP`]) remain the locks: this
//! rewrite is what makes the copy usable and inert even in a browser that ignored them.

use std::borrow::Cow;

use lol_html::html_content::Element;
use lol_html::{
    ElementContentHandlers, HandlerResult, HtmlRewriter, MemorySettings, Selector, Settings,
};
use url::Url;

/// Most memory lol_html may use for one page (its buffers, not the output).
const MAX_REWRITER_MEMORY: usize = 16 * 1024 * 1024;

/// Elements removed with everything inside them.
const REMOVED_ELEMENTS: [&str; 10] = [
    "script",
    "noscript",
    "iframe",
    "frameset",
    "object",
    "embed",
    "applet",
    "portal",
    "fencedframe",
    "base",
];

/// SVG elements removed with their content: animations can set an `href` after the rewrite.
const REMOVED_SVG_ELEMENTS: [&str; 2] = ["animate", "set"];

/// The namespace of SVG elements.
const SVG: &str = "http://www.w3.org/2000/svg";

/// Attributes removed from every element (besides every `on*` event handler).
const REMOVED_ATTRIBUTES: [&str; 6] = [
    "formaction",
    "formtarget",
    "srcdoc",
    "ping",
    "referrerpolicy",
    "autofocus",
];

/// Why a stored page could not be rewritten; the copy is then shown as text.
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    /// The page's own address is not an absolute http(s) URL, so nothing can be resolved.
    #[error("its address {0:?} is not an http(s) URL")]
    PageUrl(String),
    /// lol_html refused the markup (ambiguous for a tokenizer without a tree, or over the
    /// memory limit).
    #[error("its markup could not be rewritten safely: {0}")]
    Markup(String),
}

/// The document to show for the stored `html` of `page_url`: our own
/// `<base href target=_blank>` first, then the page rewritten as the module docs say.
pub fn rewrite(html: &str, page_url: &str) -> Result<String, RewriteError> {
    let page = Url::parse(page_url)
        .ok()
        .filter(is_web)
        .ok_or_else(|| RewriteError::PageUrl(page_url.to_string()))?;
    let base = page_base(html, &page)?;
    let mut document = maud::html! { base href=(base.as_str()) target="_blank"; }.into_string();
    document.push_str(&run(html, "*", |el: &mut Element<'_, '_>| {
        clean(el, &base);
        Ok(())
    })?);
    Ok(document)
}

/// The base URL links of the page resolve against: its first `<base href>`, when that
/// resolves to an http(s) URL, else the page's own URL.
fn page_base(html: &str, page: &Url) -> Result<Url, RewriteError> {
    let mut first = None;
    run(html, "base[href]", |el: &mut Element<'_, '_>| {
        if first.is_none() {
            first = el.get_attribute("href").map(|raw| decoded(&raw));
        }
        Ok(())
    })?;
    Ok(first
        .and_then(|href| page.join(&href).ok())
        .filter(is_web)
        .unwrap_or_else(|| page.clone()))
}

/// Runs one lol_html pass over `html` with `handler` on the elements `selector` matches;
/// returns the output.
fn run(
    html: &str,
    selector: &str,
    handler: impl FnMut(&mut Element<'_, '_>) -> HandlerResult,
) -> Result<String, RewriteError> {
    let markup = |e: &dyn std::fmt::Display| RewriteError::Markup(e.to_string());
    let selector: Selector = selector.parse().map_err(|e| markup(&e))?;
    let settings = Settings::new()
        .append_element_content_handler((
            Cow::Owned(selector),
            ElementContentHandlers::default().element(handler),
        ))
        .with_strict(true)
        .with_memory_settings(
            MemorySettings::new().with_max_allowed_memory_usage(MAX_REWRITER_MEMORY),
        );
    let mut out = Vec::with_capacity(html.len() + 1024);
    let mut rewriter = HtmlRewriter::new(settings, |chunk: &[u8]| out.extend_from_slice(chunk));
    rewriter.write(html.as_bytes()).map_err(|e| markup(&e))?;
    rewriter.end().map_err(|e| markup(&e))?;
    // UTF-8 in, UTF-8 out: lol_html only splices whole tokens and our own strings.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// What one element of the copy becomes (see the module docs' table).
fn clean(el: &mut Element<'_, '_>, base: &Url) {
    let tag = el.tag_name();
    let tag = tag.as_str();
    if REMOVED_ELEMENTS.contains(&tag)
        || (tag == "meta" && is_active_meta(el))
        || (REMOVED_SVG_ELEMENTS.contains(&tag) && el.namespace_uri() == SVG)
    {
        el.remove();
        return;
    }
    if tag == "frame" {
        // Void, but not to lol_html: removing its "content" would take the rest of the page.
        el.remove_and_keep_content();
        return;
    }
    if tag == "link" && !is_stylesheet(el) {
        el.remove();
        return;
    }
    let dropped: Vec<String> = el
        .attributes()
        .iter()
        .map(|attribute| attribute.name())
        .filter(|name| name.starts_with("on") || REMOVED_ATTRIBUTES.contains(&name.as_str()))
        .collect();
    for name in dropped {
        el.remove_attribute(&name);
    }
    match tag {
        "a" | "area" => link(el, base),
        "form" => {
            el.remove_attribute("action");
            el.remove_attribute("target");
        }
        _ => {}
    }
}

/// A `<meta>` that acts instead of describing: any `http-equiv` (refresh, set-cookie,
/// content-security-policy ...) and a referrer policy.
fn is_active_meta(el: &Element<'_, '_>) -> bool {
    el.has_attribute("http-equiv")
        || el
            .get_attribute("name")
            .is_some_and(|name| name.trim().eq_ignore_ascii_case("referrer"))
}

/// Whether a `<link>` is a stylesheet (`rel` has the token, in any case).
fn is_stylesheet(el: &Element<'_, '_>) -> bool {
    el.get_attribute("rel").is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|token| token.eq_ignore_ascii_case("stylesheet"))
    })
}

/// A link of the copy: an absolute http(s) address opening a new tab, or none at all.
fn link(el: &mut Element<'_, '_>, base: &Url) {
    let Some(raw) = el
        .get_attribute("href")
        .or_else(|| el.get_attribute("xlink:href"))
    else {
        return;
    };
    // Every copy of the attribute goes (a browser obeys the first, but only one is set back).
    for name in ["href", "xlink:href", "target", "rel"] {
        el.remove_attribute(name);
    }
    let Some(target) = absolute(base, &decoded(&raw)) else {
        return;
    };
    // `set_attribute` escapes quotes only; `&` must be written as a reference to survive.
    for (name, value) in [
        ("href", target.as_str().replace('&', "&amp;")),
        ("target", "_blank".to_string()),
        ("rel", "noopener noreferrer".to_string()),
    ] {
        // The names are constants lol_html accepts.
        let _ = el.set_attribute(name, &value);
    }
}

/// `href` (decoded) resolved against `base` as a browser resolves it (the WHATWG URL parser
/// strips surrounding spaces and drops tabs and newlines), kept only when it is http(s).
fn absolute(base: &Url, href: &str) -> Option<Url> {
    base.join(href).ok().filter(is_web)
}

/// Whether a URL is one a link of the copy may lead to.
fn is_web(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https")
}

/// An attribute value as written in the source (lol_html gives it raw) with its character
/// references decoded the way a browser's tokenizer decodes them in an attribute (named
/// ones without `;`, numeric ones of any length ...): html5ever's tokenizer reads it.
fn decoded(raw: &str) -> String {
    if !raw.contains('&') {
        return raw.to_string();
    }
    let fragment =
        scraper::Html::parse_fragment(&format!("<a href=\"{}\">", raw.replace('"', "&quot;")));
    fragment
        .tree
        .nodes()
        .filter_map(|node| node.value().as_element())
        .find(|element| element.name() == "a")
        .and_then(|a| a.attr("href"))
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
#[path = "cached_html_tests.rs"]
mod tests;
