//! Path patterns of `Allow` and `Disallow` rules, and the one place paths and patterns are
//! brought to the form they are compared in.
//!
//! Both sides are percent-encoded the same way before comparison (RFC 9309 2.2.2): octets
//! outside ASCII are escaped, escapes of unreserved characters are decoded and the hex digits
//! of the others uppercased (as canonical URLs have them). A `*` or `$` meant verbatim is
//! written `%2A` or `%24` in a pattern (2.2.3), so in a path those two characters are compared
//! as their escapes. In a pattern `*` matches any run of octets and a final `$` anchors the
//! end; a `$` anywhere else is an ordinary character.
//!
//! Matching runs in O(len(pattern) + len(path)): the runs of literal octets between wildcards
//! are found one after the other at their leftmost place, which is enough for patterns whose
//! only operator is `*`. No input can make it backtrack.

/// A rule's path pattern, ready to match.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Pattern {
    /// The pattern in comparison form, without a final `$`; runs of `*` collapsed into one.
    glob: String,
    /// Whether the pattern ended in `$`: the path must end where the pattern does.
    anchored: bool,
    /// How specific the pattern is: its length in octets as written (after percent-encoding
    /// is normalized), every `*` and the final `$` counted. The longest match wins.
    specificity: usize,
}

impl Pattern {
    /// Reads a rule's value (the raw octets after the colon). `None` for an empty value,
    /// which matches everything with no specificity and so never decides anything.
    pub(super) fn new(value: &[u8]) -> Option<Self> {
        if value.is_empty() {
            return None;
        }
        Some(Self::from_normalized(&normalize(value)))
    }

    /// A pattern from text already in comparison form.
    fn from_normalized(written: &str) -> Self {
        let (body, anchored) = match written.strip_suffix('$') {
            Some(body) => (body, true),
            None => (written, false),
        };
        let mut glob = String::with_capacity(body.len());
        for ch in body.chars() {
            match ch {
                '*' if glob.ends_with('*') => {}
                // Not at the end, `$` is a character like any other: compare it escaped, as
                // paths have it.
                '$' => glob.push_str("%24"),
                _ => glob.push(ch),
            }
        }
        Pattern {
            glob,
            anchored,
            specificity: written.len(),
        }
    }

    /// Google's reading of `Allow: .../index.html` (any value whose last `/` is followed by
    /// `index.htm`): the directory itself, `.../$`, is allowed too.
    pub(super) fn index_html_directory(value: &[u8]) -> Option<Self> {
        let written = normalize(value);
        let slash = written.rfind('/')?;
        written[slash..]
            .starts_with("/index.htm")
            .then(|| Self::from_normalized(&format!("{}$", &written[..=slash])))
    }

    /// How specific the pattern is; see the field.
    pub(super) fn specificity(&self) -> usize {
        self.specificity
    }

    /// Whether the pattern matches `path`, a path in comparison form (see [`compared_path`]),
    /// from its first octet.
    pub(super) fn matches(&self, path: &str) -> bool {
        let mut runs = self.glob.split('*');
        let first = runs.next().unwrap_or_default();
        let Some(mut rest) = path.strip_prefix(first) else {
            return false;
        };
        let Some(mut run) = runs.next() else {
            // No wildcard: a prefix, or the whole path when anchored.
            return !self.anchored || rest.is_empty();
        };
        // `rest` may start anywhere after the previous run; each run is taken at its
        // leftmost place, which leaves the most room for the runs after it.
        for next in runs {
            match rest.find(run) {
                Some(at) => rest = &rest[at + run.len()..],
                None => return false,
            }
            run = next;
        }
        if self.anchored {
            rest.ends_with(run)
        } else {
            rest.contains(run)
        }
    }
}

/// Brings a rule's value to comparison form: octets outside ASCII percent-encoded, then
/// escapes normalized as canonical URLs have them.
fn normalize(value: &[u8]) -> String {
    let mut ascii = String::with_capacity(value.len());
    for &b in value {
        if b.is_ascii() {
            ascii.push(char::from(b));
        } else {
            ascii.push_str(&format!("%{b:02X}"));
        }
    }
    shared::url::normalize_percent(&ascii)
}

/// Brings a path (and query) to comparison form: as a pattern, and `*` and `$` escaped, so
/// that they match the `%2A` and `%24` a pattern names them with.
pub(super) fn compared_path(path: &str) -> String {
    let normalized = normalize(path.as_bytes());
    if !normalized.contains(['*', '$']) {
        return normalized;
    }
    normalized.replace('*', "%2A").replace('$', "%24")
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn matches(pattern: &str, path: &str) -> bool {
        Pattern::new(pattern.as_bytes())
            .unwrap()
            .matches(&compared_path(path))
    }

    #[test]
    fn wildcards_and_anchors() {
        let cases = [
            ("/", "/anything", true),
            ("/a", "/abc", true),
            ("/abc", "/a", false),
            ("/a$", "/a", true),
            ("/a$", "/ab", false),
            ("/*.php", "/x/y.php?z", true),
            ("/*.php$", "/x/y.php?z", false),
            ("/*.php$", "/x/y.php", true),
            ("/a*b*c$", "/abcbc", true),
            ("/a*b*c$", "/abcb", false),
            ("/a*bc", "/abbbc", true),
            ("/**", "/", true),
            ("*", "/", true),
            ("/a*$", "/a", true),
            ("/a$b", "/a$b", true),
            ("/a$b", "/a%24b", true),
            ("/a$b", "/a", false),
            ("/x-%2A", "/x-*", true),
            ("/x-*", "/x-*", true),
            ("/x-%24", "/x-$", true),
            ("/%7Ea", "/~a", true),
            ("/ü", "/%C3%BC", true),
            ("/%c3%bc", "/%C3%BC", true),
            ("$", "/", false),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(matches(pattern, path), expected, "{pattern} on {path}");
        }
    }

    #[test]
    fn specificity_counts_octets_as_written() {
        let p = |s: &str| Pattern::new(s.as_bytes()).unwrap().specificity();
        assert_eq!(p("/*.html"), 7);
        assert_eq!(p("/a**$"), 5);
        assert_eq!(p("/ツ"), "/%E3%83%84".len());
        assert_eq!(Pattern::new(b""), None);
    }

    #[test]
    fn index_html_is_its_directory() {
        let directory = |value: &str| {
            Pattern::index_html_directory(value.as_bytes()).map(|p| (p.glob, p.anchored))
        };
        assert_eq!(directory("/a/index.html"), Some(("/a/".into(), true)));
        assert_eq!(directory("/index.htm"), Some(("/".into(), true)));
        assert_eq!(directory("/a/index.php"), None);
        assert_eq!(directory("/a/myindex.html"), None);
    }

    /// Hostile patterns against long paths: the time is linear by construction, so these
    /// finish in microseconds; the bound here only catches a regression to backtracking.
    #[test]
    fn no_exponential_backtracking() {
        let deep = format!("/{}$", "*a".repeat(2000));
        let path = format!("/{}b", "a".repeat(5000));
        let stars = format!("/{}x", "*".repeat(100_000));
        let start = Instant::now();
        assert!(!matches(&deep, &path));
        assert!(matches(&deep, &path[..path.len() - 1]));
        assert!(!matches(&stars, &path));
        assert!(matches("/*a*a*a*a*a*a*a*a*$", &path));
        assert!(start.elapsed() < Duration::from_secs(2));
    }
}
