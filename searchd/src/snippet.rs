//! Snippets: the passage of a page shown under its title, with the query terms marked.
//!
//! The passage comes from tantivy's [`SnippetGenerator`] over the `body` field; when the body
//! has none of the terms (the page matched on its title or anchors) it is the page's
//! description, else the start of its body. A page that asked for `nosnippet` shows none.
//! A [`Snippet`] is plain text plus byte ranges: the HTML templates escape the text and wrap
//! the ranges in `<mark>` themselves, so no HTML from the web ever reaches a page unescaped.

use std::ops::Range;

use tantivy::TantivyDocument;
use tantivy::schema::{Field, Value};
use tantivy::snippet::SnippetGenerator;

/// Longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 200;

/// How much of a body is searched for a passage, in bytes. Each result's scan is tokenized
/// and stemmed again, which was most of a query's time: at 256 KiB a Rust docs query took
/// 12.8 ms at p50, at 32 KiB 7.3 ms. The start of a page is its summary, where a passage is
/// best taken from anyway.
const SCAN_BYTES: usize = 32 * 1024;

/// A passage: plain text and the byte ranges of the query terms in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snippet {
    /// The text.
    pub text: String,
    /// Byte ranges of `text` to highlight, in order, not overlapping.
    pub highlights: Vec<Range<usize>>,
}

impl Snippet {
    /// A snippet without highlights.
    pub fn plain(text: String) -> Self {
        Self {
            text,
            highlights: Vec::new(),
        }
    }

    /// The text cut into runs, each flagged `true` when it is highlighted. Ranges that are
    /// out of order, out of bounds or not on character boundaries are ignored.
    pub fn runs(&self) -> Vec<(bool, &str)> {
        let text = self.text.as_str();
        let mut runs = Vec::new();
        let mut at = 0;
        for range in &self.highlights {
            if range.start < at
                || range.start >= range.end
                || range.end > text.len()
                || !text.is_char_boundary(range.start)
                || !text.is_char_boundary(range.end)
            {
                continue;
            }
            if range.start > at {
                runs.push((false, &text[at..range.start]));
            }
            runs.push((true, &text[range.start..range.end]));
            at = range.end;
        }
        if at < text.len() {
            runs.push((false, &text[at..]));
        }
        runs
    }
}

/// The fields a snippet is made from.
#[derive(Clone, Copy, Debug)]
pub struct SnippetFields {
    /// Where passages are searched.
    pub body: Field,
    /// The fallback.
    pub description: Field,
    /// 1 when no snippet may be shown.
    pub nosnippet: Field,
}

/// The snippet of one stored document.
pub fn snippet_for(
    generator: &SnippetGenerator,
    doc: &TantivyDocument,
    fields: SnippetFields,
) -> Snippet {
    let nosnippet = doc.get_first(fields.nosnippet).and_then(|v| v.as_u64()) == Some(1);
    if nosnippet {
        return Snippet::default();
    }
    let text = |field| {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
    };
    // Passages are looked for in the first SCAN_BYTES of the body: a huge page costs no more
    // than a big one.
    let body = text(fields.body).trim();
    let mut scan_end = body.len().min(SCAN_BYTES);
    while !body.is_char_boundary(scan_end) {
        scan_end -= 1;
    }
    let found = generator.snippet(&body[..scan_end]);
    if !found.is_empty() && !found.fragment().trim().is_empty() {
        let range = found.fragment_range();
        return ellipsized(
            found.fragment(),
            found.highlighted(),
            range.start > 0,
            range.end < body.len(),
        );
    }
    let fallback = match text(fields.description).trim() {
        "" => text(fields.body),
        description => description,
    };
    Snippet::plain(shorten(fallback, SNIPPET_CHARS))
}

/// A fragment with `…` where it was cut from a longer text; highlights shifted to match.
fn ellipsized(fragment: &str, highlights: &[Range<usize>], before: bool, after: bool) -> Snippet {
    let prefix = if before { "… " } else { "" };
    let mut text = format!("{prefix}{fragment}");
    if after {
        text.push_str(" …");
    }
    let shift = prefix.len();
    Snippet {
        text,
        highlights: highlights
            .iter()
            .map(|r| r.start + shift..r.end + shift)
            .collect(),
    }
}

/// Whitespace collapsed, cut to at most `max_chars` characters at a word boundary when there
/// is one, with an ellipsis when cut.
pub fn shorten(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        let gap = usize::from(!out.is_empty());
        if chars + gap + len > max_chars {
            if out.is_empty() {
                out.extend(word.chars().take(max_chars));
            }
            out.push('…');
            return out;
        }
        if gap == 1 {
            out.push(' ');
        }
        out.push_str(word);
        chars += gap + len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_skip_bad_ranges() {
        let snippet = Snippet {
            text: "héllo world".into(),
            highlights: vec![0..2, 7..12, 7..99, Range { start: 3, end: 1 }],
        };
        assert_eq!(snippet.runs(), vec![(false, "héllo "), (true, "world")]);
        let snippet = Snippet {
            text: "a heron here".into(),
            highlights: vec![2..7, 8..12],
        };
        assert_eq!(
            snippet.runs(),
            vec![(false, "a "), (true, "heron"), (false, " "), (true, "here")]
        );
    }

    #[test]
    fn cut_fragments_get_ellipses_and_keep_their_marks() {
        let snippet = ellipsized("the heron waits", &[Range { start: 4, end: 9 }], true, true);
        assert_eq!(snippet.text, "… the heron waits …");
        assert_eq!(
            snippet.runs(),
            vec![(false, "… the "), (true, "heron"), (false, " waits …")]
        );
        assert_eq!(
            ellipsized("heron", &[Range { start: 0, end: 5 }], false, false).text,
            "heron"
        );
    }

    #[test]
    fn shorten_cuts_at_words() {
        assert_eq!(shorten("  a  b\n c ", 10), "a b c");
        assert_eq!(shorten("one two three", 8), "one two…");
        assert_eq!(shorten("abcdefghij", 4), "abcd…");
    }
}
