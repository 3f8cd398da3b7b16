//! Text extraction: what a reader sees on a page, split into title, headings and body, with
//! scripts, styles and navigation boilerplate left out. Broken HTML is read as far as it goes.

use scraper::{ElementRef, Html, Node};

/// Longest body text indexed, in bytes; the rest of a huge page is left out.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// The text of one page.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PageText {
    /// `<title>`.
    pub title: String,
    /// `h1`-`h3`, one per line.
    pub headings: String,
    /// Visible body text, whitespace collapsed.
    pub body: String,
}

/// Elements whose text is not page content.
fn is_boilerplate(element: &scraper::node::Element) -> bool {
    matches!(
        element.name(),
        "script" | "style" | "noscript" | "template" | "nav" | "header" | "footer" | "aside" | "head" | "svg" | "button" | "select"
    ) || element.attr("role").is_some_and(|r| r.eq_ignore_ascii_case("navigation"))
        || element.attr("hidden").is_some()
}

/// Extracts the text of an HTML page.
pub fn extract(html: &str) -> PageText {
    let document = Html::parse_document(html);
    let mut text = PageText::default();
    walk(document.root_element(), &mut text, false);
    if let Some(title) = document.root_element().descendants().filter_map(ElementRef::wrap).find(|e| e.value().name() == "title") {
        text.title = collapse(&title.text().collect::<String>());
    }
    text
}

fn walk(element: ElementRef<'_>, out: &mut PageText, in_heading: bool) {
    for child in element.children() {
        match child.value() {
            Node::Text(t) => {
                if out.body.len() < MAX_BODY_BYTES {
                    push_words(&mut out.body, t);
                }
                if in_heading {
                    push_words(&mut out.headings, t);
                }
            }
            Node::Element(e) if !is_boilerplate(e) => {
                let Some(child) = ElementRef::wrap(child) else { continue };
                let heading = matches!(e.name(), "h1" | "h2" | "h3");
                if heading && !out.headings.is_empty() {
                    out.headings.push('\n');
                }
                // Block elements separate words.
                if !out.body.ends_with(' ') && !out.body.is_empty() && is_block(e.name()) {
                    out.body.push(' ');
                }
                walk(child, out, in_heading || heading);
            }
            _ => {}
        }
    }
}

fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div" | "br" | "li" | "td" | "th" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "section" | "article" | "pre" | "dt" | "dd" | "main" | "table" | "ul" | "ol" | "blockquote"
    )
}

fn push_words(out: &mut String, text: &str) {
    let starts_with_space = text.starts_with(char::is_whitespace);
    for (i, word) in text.split_whitespace().enumerate() {
        if !out.is_empty() && !out.ends_with([' ', '\n']) && (i > 0 || starts_with_space) {
            out.push(' ');
        }
        out.push_str(word);
    }
    if text.ends_with(char::is_whitespace) && !out.is_empty() && !out.ends_with([' ', '\n']) {
        out.push(' ');
    }
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boilerplate_is_left_out() {
        let got = extract(
            "<html><head><title> The  Page </title><style>p{}</style></head><body>\
             <nav><a href=/>Home</a> <a href=/x>Menu item</a></nav>\
             <div role=navigation>crumbs</div>\
             <h1>Big <em>heading</em></h1><p>First para<b>graph</b> text.</p><p>Second.</p>\
             <script>var hidden = 1;</script><footer>Copyright</footer></body></html>",
        );
        assert_eq!(got.title, "The Page");
        assert_eq!(got.headings, "Big heading");
        assert_eq!(got.body.trim(), "Big heading First paragraph text. Second.");
    }

    #[test]
    fn broken_html_still_gives_text() {
        let got = extract("<p>unclosed <b>bold <i>italic</p> tail\u{0}");
        assert!(got.body.contains("unclosed bold italic"), "{got:?}");
        assert!(got.body.contains("tail"));
    }
}
