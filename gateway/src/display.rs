//! Text from the web made fit to show: no characters that reorder or hide what is around
//! them, and no more of it than a page has room for.
//!
//! maud escapes markup; this is the other half. A title can carry U+202E RIGHT-TO-LEFT
//! OVERRIDE so that `evil\u{202e}moc.elgoog` reads as `evil` + a reversed name, or a run of
//! zero-width and control characters, or 100 KB of text. [`shown`] drops the bidirectional
//! controls (embeddings, overrides, isolates and marks), the C0/C1 controls other than
//! whitespace, and cuts the text at a character budget with an ellipsis. Right-to-left
//! scripts themselves (Arabic, Hebrew) are kept: the pages put web text in `<bdi>` so their
//! direction stays inside their own element.

use std::borrow::Cow;

/// Characters shown of a result's title.
pub const TITLE_CHARS: usize = 200;
/// Characters shown of a URL (the link itself keeps the whole URL).
pub const URL_CHARS: usize = 300;
/// Characters shown of any other value from the web (a host, a fact of `/explain`).
pub const VALUE_CHARS: usize = 2_000;

/// Whether `c` may change how the text around it is ordered or seen.
fn is_hidden_control(c: char) -> bool {
    matches!(c,
        '\u{061c}' // ARABIC LETTER MARK
        | '\u{200e}' | '\u{200f}' // LEFT-TO-RIGHT / RIGHT-TO-LEFT MARK
        | '\u{202a}'..='\u{202e}' // embeddings, pop, overrides
        | '\u{2066}'..='\u{2069}' // isolates
    ) || (c.is_control() && !c.is_whitespace())
}

/// `text` without hidden controls (see the module docs), cut to `max_chars` characters with
/// a trailing `…` when longer. Borrows when there is nothing to change.
pub fn shown(text: &str, max_chars: usize) -> Cow<'_, str> {
    let clean = !text.chars().any(is_hidden_control);
    let short = text.len() <= max_chars || text.chars().nth(max_chars).is_none();
    if clean && short {
        return Cow::Borrowed(text);
    }
    let mut out: String = text
        .chars()
        .filter(|&c| !is_hidden_control(c))
        .take(max_chars)
        .collect();
    if text
        .chars()
        .filter(|&c| !is_hidden_control(c))
        .nth(max_chars)
        .is_some()
    {
        out.push('…');
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidirectional_overrides_and_controls_are_dropped() {
        assert_eq!(shown("evil\u{202e}gpj.exe", 100), "evilgpj.exe");
        assert_eq!(shown("a\u{2066}b\u{2069}c\u{200f}d\u{061c}", 100), "abcd");
        assert_eq!(shown("bell\u{7}\u{0}\u{9b}!", 100), "bell!");
        assert_eq!(shown("tabs\tand\nlines", 100), "tabs\tand\nlines");
    }

    #[test]
    fn scripts_written_right_to_left_are_kept() {
        assert_eq!(shown("שלום עולם", 100), "שלום עולם");
        assert_eq!(shown("مرحبا", 100), "مرحبا");
        assert!(matches!(shown("plain title", 100), Cow::Borrowed(_)));
    }

    #[test]
    fn long_text_is_cut_at_a_character_budget() {
        assert_eq!(shown("héllo wörld", 5), "héllo…");
        assert_eq!(shown("héllo", 5), "héllo");
        let huge = "a".repeat(100_000);
        assert_eq!(shown(&huge, TITLE_CHARS).chars().count(), TITLE_CHARS + 1);
        // Dropped controls do not count against the budget.
        assert_eq!(shown("\u{202e}\u{202e}abc", 3), "abc");
    }
}
