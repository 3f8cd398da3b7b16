//! Where a raw-text element ends: `</name` followed by a character that ends a tag name, and
//! the script data states (escaped and double-escaped) that decide which `</script` ends a
//! script.

use memchr::memchr;

/// Whether `rest` (from a `<`) is the end tag of the raw-text element `name`: `</name`
/// followed by white space, `/` or `>`.
pub(super) fn ends_raw_text(rest: &[u8], name: &str) -> bool {
    let after = 2 + name.len();
    rest.len() > after
        && rest[1] == b'/'
        && rest[2..after].eq_ignore_ascii_case(name.as_bytes())
        && matches!(
            rest[after],
            b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>'
        )
}

/// Where a script's text (`script`, from just after its start tag) ends: the offset of the
/// `<` of its end tag, or `None` if it runs to the end of the page. Inside `<!--` a
/// `<script>` opens a block where `</script>` does not end the script (the standard's
/// escaped and double-escaped states).
pub(super) fn script_end(script: &[u8]) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum State {
        Data,
        Escaped,
        EscapedDash,
        EscapedDashDash,
        Double,
        DoubleDash,
        DoubleDashDash,
    }
    let mut state = State::Data;
    let mut i = 0;
    while i < script.len() {
        let b = script[i];
        match state {
            State::Data => {
                i += memchr(b'<', &script[i..])?;
                if ends_raw_text(&script[i..], "script") {
                    return Some(i);
                }
                if script[i + 1..].starts_with(b"!--") {
                    state = State::EscapedDashDash;
                    i += 4;
                    continue;
                }
            }
            State::Escaped | State::EscapedDash | State::EscapedDashDash => match b {
                b'-' if state == State::Escaped => state = State::EscapedDash,
                b'-' => state = State::EscapedDashDash,
                b'>' if state == State::EscapedDashDash => state = State::Data,
                b'<' => {
                    if ends_raw_text(&script[i..], "script") {
                        return Some(i);
                    }
                    state = State::Escaped;
                    if script.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
                        let (letters, opens) = script_word(&script[i + 1..]);
                        if opens {
                            state = State::Double;
                        }
                        i += 1 + letters;
                        continue;
                    }
                }
                _ => state = State::Escaped,
            },
            State::Double | State::DoubleDash | State::DoubleDashDash => match b {
                b'-' if state == State::Double => state = State::DoubleDash,
                b'-' => state = State::DoubleDashDash,
                b'>' if state == State::DoubleDashDash => state = State::Data,
                b'<' => {
                    state = State::Double;
                    if script.get(i + 1) == Some(&b'/') {
                        let (letters, closes) = script_word(&script[i + 2..]);
                        if closes {
                            state = State::Escaped;
                        }
                        i += 2 + letters;
                        continue;
                    }
                }
                _ => state = State::Double,
            },
        }
        i += 1;
    }
    None
}

/// The letters `rest` starts with, and whether they are `script` followed by white space,
/// `/` or `>`.
fn script_word(rest: &[u8]) -> (usize, bool) {
    let letters = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let is_script = rest[..letters].eq_ignore_ascii_case(b"script")
        && rest
            .get(letters)
            .is_some_and(|b| matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>'));
    (letters, is_script)
}
