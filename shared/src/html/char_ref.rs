//! Character references (`&amp;`, `&#233;`, `&#x20AC;`, legacy `&copy` without its
//! semicolon), decoded as the WHATWG tokenizer decodes them. The table of named references is
//! html5ever's (`NAMED_ENTITIES`, every prefix of every name included, so the longest match is
//! found one character at a time).

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

/// The longest name of a named reference (`CounterClockwiseContourIntegral;`).
const LONGEST_NAME: usize = 32;

/// Where a reference is read: in an attribute value, a legacy reference without its
/// semicolon is left as written when a letter, digit or `=` follows it (`?a=1&copy=2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Context {
    /// Text.
    Text,
    /// An attribute value.
    Attribute,
}

/// A decoded reference: what it stands for and how many bytes after the `&` it took.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Decoded {
    /// One or two characters (a few named references stand for two).
    pub chars: (char, Option<char>),
    /// Bytes read after the `&`.
    pub len: usize,
}

impl Decoded {
    /// Appends the characters to `out`.
    pub fn push_to(&self, out: &mut String) {
        out.push(self.chars.0);
        out.extend(self.chars.1);
    }
}

/// Decodes the reference that `after` (the input just after an `&`) starts, if it is one;
/// `None` leaves the `&` as text.
pub(super) fn decode(after: &[u8], context: Context) -> Option<Decoded> {
    match after.first()? {
        b'#' => numeric(&after[1..]).map(|(c, len)| Decoded {
            chars: (c, None),
            len: len + 1,
        }),
        c if c.is_ascii_alphanumeric() => named(after, context),
        _ => None,
    }
}

/// `&#…`: `after` starts after the `#`.
fn numeric(after: &[u8]) -> Option<(char, usize)> {
    let (radix, skip) = match after.first() {
        Some(b'x' | b'X') => (16, 1),
        _ => (10, 0),
    };
    let digits = after[skip..]
        .iter()
        .take_while(|b| (**b as char).is_digit(radix))
        .count();
    if digits == 0 {
        return None;
    }
    // Past U+10FFFF the value only has to stay out of range: it saturates.
    let value = after[skip..skip + digits].iter().fold(0u32, |value, b| {
        let digit = (*b as char).to_digit(radix).unwrap_or(0);
        value.saturating_mul(radix).saturating_add(digit)
    });
    let mut len = skip + digits;
    if after.get(len) == Some(&b';') {
        len += 1;
    }
    Some((code_point(value), len))
}

/// What a numeric reference to `value` stands for.
fn code_point(value: u32) -> char {
    match value {
        0 | 0xD800..=0xDFFF | 0x11_0000.. => char::REPLACEMENT_CHARACTER,
        // The C1 controls are read as windows-1252, as browsers read them.
        0x80..=0x9F => C1_REPLACEMENTS[(value - 0x80) as usize]
            .or_else(|| char::from_u32(value))
            .unwrap_or(char::REPLACEMENT_CHARACTER),
        _ => char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER),
    }
}

/// `&name;`: the longest name in the table that `after` starts with.
fn named(after: &[u8], context: Context) -> Option<Decoded> {
    let mut found = None;
    for len in 1..=after.len().min(LONGEST_NAME) {
        if !(after[len - 1].is_ascii_alphanumeric() || after[len - 1] == b';') {
            break;
        }
        // ASCII, so a valid str.
        let name = std::str::from_utf8(&after[..len]).ok()?;
        match NAMED_ENTITIES.get(name) {
            // A prefix of a longer name only.
            Some((0, _)) => {}
            Some(&(first, second)) => found = Some((first, second, len)),
            None => break,
        }
        if after[len - 1] == b';' {
            break;
        }
    }
    let (first, second, len) = found?;
    let terminated = after[len - 1] == b';';
    let next = after.get(len).copied();
    if !terminated
        && context == Context::Attribute
        && next.is_some_and(|b| b == b'=' || b.is_ascii_alphanumeric())
    {
        return None;
    }
    Some(Decoded {
        chars: (
            char::from_u32(first)?,
            (second != 0).then(|| char::from_u32(second)).flatten(),
        ),
        len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(input: &str) -> Option<(String, usize)> {
        decode(input.as_bytes(), Context::Text).map(|d| {
            let mut s = String::new();
            d.push_to(&mut s);
            (s, d.len)
        })
    }

    #[test]
    fn named_references_take_the_longest_name() {
        assert_eq!(text("amp; x"), Some(("&".into(), 4)));
        assert_eq!(text("notin; x"), Some(("∉".into(), 6)));
        // `&not` is a legacy name; `&noti` is only the start of `&notin;`.
        assert_eq!(text("notit;"), Some(("¬".into(), 3)));
        assert_eq!(text("copy2024"), Some(("©".into(), 4)));
        assert_eq!(text("NotEqualTilde;"), Some(("≂\u{338}".into(), 14)));
        assert_eq!(text("nosuch;"), None);
        assert_eq!(text(" amp;"), None);
        assert_eq!(text(""), None);
    }

    #[test]
    fn legacy_names_in_attributes_stay_as_written_before_letters_and_equals() {
        let attr = |s: &str| decode(s.as_bytes(), Context::Attribute).map(|d| d.len);
        assert_eq!(attr("copy=2"), None);
        assert_eq!(attr("copyx"), None);
        assert_eq!(attr("copy;x"), Some(5));
        assert_eq!(attr("copy x"), Some(4));
        assert_eq!(attr("copy"), Some(4));
    }

    #[test]
    fn numeric_references_are_mapped_as_browsers_map_them() {
        assert_eq!(text("#233;"), Some(("é".into(), 5)));
        assert_eq!(text("#x20AC"), Some(("€".into(), 6)));
        assert_eq!(text("#X41;"), Some(("A".into(), 5)));
        assert_eq!(text("#x80;"), Some(("€".into(), 5)));
        assert_eq!(text("#x81;"), Some(("\u{81}".into(), 5)));
        assert_eq!(text("#0;"), Some(("\u{FFFD}".into(), 3)));
        assert_eq!(text("#xD800;"), Some(("\u{FFFD}".into(), 7)));
        assert_eq!(
            text("#99999999999999999999;"),
            Some(("\u{FFFD}".into(), 22))
        );
        assert_eq!(text("#;"), None);
        assert_eq!(text("#x;"), None);
    }
}
