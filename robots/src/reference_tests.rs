//! The matcher held to a slow reference (proptest): rules and paths are generated, and
//! [`RobotsRules::refusal`] must agree with a matcher that is obviously RFC 9309 because it
//! is written straight from the text: `*` matches any run of octets (tried at every length,
//! by backtracking), a final `$` anchors the end, any other octet matches itself; the
//! longest matching pattern wins, `Allow` wins a tie, nothing matching allows, an empty
//! value decides nothing, `/robots.txt` is always allowed.
//!
//! The alphabet leaves out what the reference does not model on purpose: `%` (escapes are
//! normalized before matching; the decision table covers them), white space and `#` (the line
//! reader trims and strips them), and `index.html` (Google's directory rule).
//!
//! Cases: 256 a run, `PROPTEST_CASES=100000 cargo test -p crawler reference` for more.

use proptest::prelude::*;

use super::RobotsRules;

/// Whether `pattern` matches `path` from its first octet: backtracking, exponential at
/// worst, and plainly what the RFC says.
fn reference_matches(pattern: &[u8], path: &[u8]) -> bool {
    match pattern {
        [] => true,
        [b'$'] => path.is_empty(),
        [b'*', rest @ ..] => (0..=path.len()).any(|skip| reference_matches(rest, &path[skip..])),
        [octet, rest @ ..] => path.first() == Some(octet) && reference_matches(rest, &path[1..]),
    }
}

/// The reference's decision: whether `path` may be fetched under `rules` (allow, pattern).
fn reference_allows(rules: &[(bool, String)], path: &str) -> bool {
    if path == "/robots.txt" {
        return true;
    }
    let longest = |allow: bool| {
        rules
            .iter()
            .filter(|(a, pattern)| *a == allow && !pattern.is_empty())
            .filter(|(_, pattern)| reference_matches(pattern.as_bytes(), path.as_bytes()))
            .map(|(_, pattern)| pattern.len())
            .max()
    };
    match (longest(false), longest(true)) {
        (Some(disallow), Some(allow)) => allow >= disallow,
        (Some(_), None) => false,
        (None, _) => true,
    }
}

/// Case count: `PROPTEST_CASES` when set, else a CI-sized default.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// A pattern as a site owner might write one: starts with `/` or `*`, then path octets and
/// wildcards.
fn pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[/*][/ab.?=*$]{0,9}",
        1 => Just(String::new()),
        1 => "/[ab]{0,3}\\$",
    ]
}

/// A path: `/`, then octets from the patterns' alphabet (a `*` or `$` in a path is an
/// ordinary octet).
fn path() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "/[/ab.?=*$]{0,12}",
        1 => Just("/robots.txt".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn matcher_agrees_with_reference(
        rules in prop::collection::vec((any::<bool>(), pattern()), 0..6),
        paths in prop::collection::vec(path(), 1..8),
    ) {
        let mut body = String::from("User-agent: *\n");
        for (allow, pattern) in &rules {
            body.push_str(if *allow { "Allow: " } else { "Disallow: " });
            body.push_str(pattern);
            body.push('\n');
        }
        let parsed = RobotsRules::parse(&body, "siftbot");
        for path in &paths {
            prop_assert_eq!(
                parsed.allows(path),
                reference_allows(&rules, path),
                "robots.txt:\n{}path: {}", body, path
            );
        }
    }
}

#[test]
fn reference_reads_the_rfc_examples() {
    // RFC 9309 2.2.3's table, and the precedence of 2.2.2.
    assert!(reference_matches(b"/*.php$", b"/filename.php"));
    assert!(!reference_matches(b"/*.php$", b"/filename.php?parameters"));
    assert!(reference_matches(b"/fish*.php", b"/fish.php"));
    assert!(!reference_matches(b"/fish*.php", b"/Fish.PHP"));
    let rules = |r: &[(bool, &str)]| -> Vec<(bool, String)> {
        r.iter().map(|(a, p)| (*a, p.to_string())).collect()
    };
    assert!(reference_allows(
        &rules(&[(false, "/a"), (true, "/a")]),
        "/a"
    ));
    assert!(!reference_allows(
        &rules(&[(false, "/ab"), (true, "/a")]),
        "/ab"
    ));
    assert!(reference_allows(&rules(&[(false, "")]), "/x"));
}
