//! Accents made optional: [`fold`] takes the marks off Latin and Greek letters (Unicode's
//! compatibility decomposition, combining marks dropped: `café` is `cafe`, `ﬁ` is `fi`,
//! `άλφα` is `αλφα`) and spells the letters that have no decomposition as people type them
//! without their keyboard's accents (`ß` as `ss`, `æ` as `ae`, `ø` as `o`, `ł` as `l`).
//! Other scripts are left as written: in Cyrillic a breve makes another letter (`й` is not
//! `и`), so only `ё` becomes `е`, as Russian writes it; Devanagari's and Arabic's marks are
//! vowels.
//!
//! The stemmed fields hold folded words (folded before they are stemmed, so a word typed
//! without its accents meets the same stem); the `*_exact` fields hold them as written, so
//! the exact spelling still ranks first.

use std::borrow::Cow;

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// `word` (lowercase) with the accents of its Latin and Greek letters taken off; borrowed
/// when there is nothing to fold (every ASCII word).
pub fn fold(word: &str) -> Cow<'_, str> {
    if !word.chars().any(folds) {
        return Cow::Borrowed(word);
    }
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        push_folded(&mut out, c);
    }
    Cow::Owned(out)
}

/// Whether `c` is written otherwise when folded.
fn folds(c: char) -> bool {
    !c.is_ascii() && (is_latin_or_greek(c) || c == 'ё')
}

fn push_folded(out: &mut String, c: char) {
    if !folds(c) {
        out.push(c);
        return;
    }
    match c {
        'ß' => out.push_str("ss"),
        'æ' => out.push_str("ae"),
        'œ' => out.push_str("oe"),
        'ø' => out.push('o'),
        'ł' => out.push('l'),
        'đ' => out.push('d'),
        'ð' => out.push('d'),
        'þ' => out.push_str("th"),
        'ı' => out.push('i'),
        'ё' => out.push('е'),
        _ => decompose_compatible(c, |part| {
            if !is_combining_mark(part) {
                out.push(part);
            }
        }),
    }
}

/// Latin-1 letters, Latin Extended-A and -B, IPA extensions, Latin Extended Additional,
/// Greek and Coptic, Greek Extended, and the Latin ligatures.
fn is_latin_or_greek(c: char) -> bool {
    matches!(c as u32,
        0x00C0..=0x02AF
        | 0x0370..=0x03FF
        | 0x1E00..=0x1FFF
        | 0xFB00..=0xFB06
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_come_off_latin_and_greek_letters_only() {
        for (word, folded) in [
            ("cafe", "cafe"),
            ("café", "cafe"),
            ("über", "uber"),
            ("schön", "schon"),
            ("straße", "strasse"),
            ("niño", "nino"),
            ("canción", "cancion"),
            ("œuvre", "oeuvre"),
            ("ﬁle", "file"),
            ("łódź", "lodz"),
            ("søren", "soren"),
            ("άλφα", "αλφα"),
            ("λόγος", "λογος"),
            ("ёлка", "елка"),
            ("йод", "йод"),
            ("東京", "東京"),
            ("नमस्ते", "नमस्ते"),
            ("mañana123", "manana123"),
        ] {
            assert_eq!(fold(word), folded, "{word}");
        }
        assert!(matches!(fold("plain"), Cow::Borrowed(_)));
    }
}
