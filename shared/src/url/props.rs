//! Canonicalization is idempotent (proptest): the canonical form of a canonical URL is
//! itself, whether it is parsed, joined as a link or stripped of parameters. Generated URLs
//! mix what the rules touch: scheme and host case, default and other ports, IDN hosts, dot
//! segments, good, bad and lowercase escapes, `;jsessionid=`, tracking parameters, empty
//! and repeated parameters, fragments.
//!
//! Cases: 256 a run, `PROPTEST_CASES=100000 cargo test -p shared props` for more.

use proptest::prelude::*;

use super::CanonicalUrl;

/// Case count: `PROPTEST_CASES` when set, else a CI-sized default.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// One path segment or query piece: letters, escapes (of unreserved characters and not,
/// any case, broken), dots and the characters the rules look at.
fn piece() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-zA-Z0-9]{1,3}",
            "%[0-9a-fA-F]{2}",
            Just("%".to_string()),
            Just("%2".to_string()),
            Just("%2e".to_string()),
            Just("%2E%2e".to_string()),
            Just("..".to_string()),
            Just(".".to_string()),
            Just(";jsessionid=AB12".to_string()),
            Just(";JSESSIONID=x".to_string()),
            "[-._~!$'()*+,;=:@ \"<>\\[\\]^`{|}]",
            "[éツ\u{0}\t\u{7f}]",
        ],
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

/// A query parameter, tracking and session ones among them.
fn param() -> impl Strategy<Value = String> {
    prop_oneof![
        (piece(), piece()).prop_map(|(k, v)| format!("{k}={v}")),
        piece(),
        Just(String::new()),
        Just("utm_source=x".to_string()),
        Just("UTM_Medium=y".to_string()),
        Just("gclid=1".to_string()),
        Just("PHPSESSID=2".to_string()),
        Just("a=1".to_string()),
    ]
}

/// An absolute URL (or a near miss).
fn absolute() -> impl Strategy<Value = String> {
    let scheme = prop_oneof!["https?", "HTTPS?", "Http", "ftp", "mailto"];
    let host = prop_oneof![
        "[a-zA-Z0-9-]{1,8}(\\.[a-zA-Z]{1,5}){0,2}",
        Just("bücher.example".to_string()),
        Just("ツ.test".to_string()),
        Just("127.0.0.1".to_string()),
        Just("[::1]".to_string()),
        Just("xn--bcher-kva.example".to_string()),
        Just("EXAMPLE.COM.".to_string()),
    ];
    let port = prop_oneof![
        Just(String::new()),
        Just(":80".to_string()),
        Just(":443".to_string()),
        Just(":8080".to_string()),
        Just(":".to_string()),
    ];
    (
        scheme,
        host,
        port,
        prop::collection::vec(piece(), 0..5),
        prop::option::of(prop::collection::vec(param(), 0..5)),
        prop::option::of(piece()),
    )
        .prop_map(|(scheme, host, port, path, query, fragment)| {
            let mut url = format!("{scheme}://{host}{port}");
            for segment in path {
                url.push('/');
                url.push_str(&segment);
            }
            if let Some(query) = query {
                url.push('?');
                url.push_str(&query.join("&"));
            }
            if let Some(fragment) = fragment {
                url.push('#');
                url.push_str(&fragment);
            }
            url
        })
}

/// A link as written on a page: relative, absolute, or anything.
fn href() -> impl Strategy<Value = String> {
    prop_oneof![
        absolute(),
        prop::collection::vec(piece(), 0..4).prop_map(|p| p.join("/")),
        prop::collection::vec(piece(), 0..4).prop_map(|p| format!("/{}", p.join("/"))),
        (piece(), param()).prop_map(|(p, q)| format!("{p}?{q}")),
        piece().prop_map(|p| format!("//{p}")),
        ".*",
    ]
}

/// Asserts that `url` canonicalizes to itself.
fn assert_fixed_point(url: &CanonicalUrl) -> Result<(), TestCaseError> {
    let again = CanonicalUrl::parse(url.as_str());
    prop_assert_eq!(again.as_ref(), Ok(url), "{}", url.as_str());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn parse_is_idempotent(input in absolute()) {
        if let Ok(url) = CanonicalUrl::parse(&input) {
            assert_fixed_point(&url)?;
            assert_fixed_point(&url.without_params(|key| key.starts_with('a')))?;
        }
    }

    #[test]
    fn join_is_idempotent(base in absolute(), link in href()) {
        let Ok(base) = CanonicalUrl::parse(&base) else {
            return Ok(());
        };
        if let Ok(url) = CanonicalUrl::join(base.as_url(), &link) {
            assert_fixed_point(&url)?;
            prop_assert_eq!(CanonicalUrl::join(base.as_url(), url.as_str()), Ok(url));
        }
    }
}
