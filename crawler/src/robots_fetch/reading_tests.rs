//! Parsing and matching as the crawler reads a fetched robots.txt, case by case: the
//! decision table, the quoted refusals, and linear time on hostile patterns.

use std::time::{Duration, Instant};

use robots::{Refusal, RobotsRules, RuleSource};
use shared::CanonicalUrl;

use super::cases::{self, Origin, Verdict};
use super::*;

#[test]
fn a_refusal_quotes_the_deciding_line() {
    let body = "# rules\r\nUser-agent: *\r\nDisallow: /a/\r\n\r\nUser-agent: siftbot\r\n\
                Disallow: /private/\r\nAllow: /private/open\r\n  Disallow:   /private/deep/  \r\n";
    let policy = policy_of_body(body.as_bytes(), "siftbot");
    let rule = |line: u32, text: &str| {
        Some(Refusal::Rule(RuleSource {
            line,
            text: text.into(),
        }))
    };
    assert_eq!(
        policy.refusal("/private/x.html"),
        rule(6, "Disallow: /private/")
    );
    assert_eq!(
        policy.refusal("/private/deep/x.html"),
        rule(8, "Disallow:   /private/deep/"),
        "the most specific rule, trimmed"
    );
    assert_eq!(policy.refusal("/private/open.html"), None, "Allow wins");
    assert_eq!(policy.refusal("/a/x"), None, "not our group");
    assert_eq!(
        RobotsPolicy::Forbidden.refusal("/"),
        Some(Refusal::Forbidden)
    );
    assert_eq!(RobotsPolicy::NoRules.refusal("/"), None);
}

/// The crawler's decision for `url` under `robots`: the same path a fetched robots.txt
/// and a queued URL take.
fn decide(robots: &[u8], agent: &str, url: &str) -> Verdict {
    let policy = policy_of_body(robots, agent);
    let url = CanonicalUrl::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
    if policy.allows(url.path_and_query()) {
        Verdict::Allowed
    } else {
        Verdict::Disallowed
    }
}

#[test]
fn decision_table() {
    let mut failed = Vec::new();
    let all = cases::decisions();
    for case in &all {
        let got = decide(&case.robots, case.agent, &case.url);
        if got != case.expect {
            failed.push(format!(
                "{} ({}): {} for {:?} is {got:?}, expected {:?}",
                case.name, case.origin, case.url, case.agent, case.expect
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} rows failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
    // Every behaviour Google's tests check is in the table.
    for test in cases::GOOGLE_TESTS {
        assert!(
            all.iter().any(|c| matches!(c.origin,
                Origin::Test(t) | Origin::Differs(t, _) if t == *test)),
            "no row for {test}"
        );
    }
}

#[test]
fn directive_table() {
    for case in cases::directives() {
        let RobotsPolicy::Rules(rules) = policy_of_body(case.robots.as_bytes(), case.agent) else {
            unreachable!("a body always gives rules")
        };
        assert_eq!(rules.crawl_delay, case.crawl_delay, "{}", case.name);
        assert_eq!(rules.sitemaps, case.sitemaps, "{}", case.name);
    }
}

#[test]
fn agent_tokens() {
    for (token, valid) in cases::AGENT_TOKENS {
        assert_eq!(shared::config::is_product_token(token), *valid, "{token:?}");
    }
}

/// Google's `GoogleOnly_LineTooLong` to the octet. Its URLs are 16 KiB long, which
/// `CanonicalUrl` refuses (over 1024 bytes) before robots.txt is asked, so the paths are
/// given to `allows` directly here; the table has the same cut with short URLs.
#[test]
fn google_line_too_long_exact() {
    // Google's figures: kMaxLineLen = 2083 * 8, and the line "\n" counted once.
    let max_line_len = 2083 * 8;
    let (allow, disallow) = ("allow: ", "disallow: ");

    let mut longline = String::from("/x/");
    let max_length = max_line_len - longline.len() - disallow.len() + 1;
    while longline.len() < max_length {
        longline.push('a');
    }
    let robots = format!("user-agent: FooBot\n{disallow}{longline}/qux\n");
    let rules = RobotsRules::parse(&robots, "FooBot");
    assert!(rules.allows("/fux"));
    assert!(!rules.allows(&format!("{longline}/fux")));

    let (mut longline_a, mut longline_b) = (String::from("/x/"), String::from("/x/"));
    let max_length = max_line_len - longline_a.len() - allow.len() + 1;
    while longline_a.len() < max_length {
        longline_a.push('a');
        longline_b.push('b');
    }
    let robots = format!(
        "user-agent: FooBot\ndisallow: /\n{allow}{longline_a}/qux\n{allow}{longline_b}/qux\n"
    );
    let rules = RobotsRules::parse(&robots, "FooBot");
    assert!(!rules.allows("/"));
    assert!(rules.allows(&format!("{longline_a}/qux")));
    assert!(rules.allows(&format!("{longline_b}/fux")));
}

#[test]
fn policies() {
    assert!(!RobotsPolicy::Forbidden.allows("/"));
    assert!(!RobotsPolicy::Forbidden.allows("/robots.txt"));
    assert!(RobotsPolicy::NoRules.allows("/anything"));
    assert_eq!(RobotsPolicy::NoRules.crawl_delay(), None);
    let rules = policy_of_body(b"User-agent: *\nCrawl-delay: 3\n", "siftbot");
    assert_eq!(rules.crawl_delay(), Some(3.0));
}

/// A tiny deterministic PRNG (xorshift64*), so the fuzz inputs are the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Random and hostile bodies and paths: nothing panics, and the work is bounded (parsing
/// is linear in the body and matching linear in pattern plus path, so the whole run takes
/// well under a second in an optimized build; the bound is loose for debug builds).
#[test]
fn random_and_hostile_inputs() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let pieces = [
        "user-agent",
        "User-Agent: ",
        "allow",
        "disallow: ",
        "Disallow:",
        ":",
        " ",
        "\t",
        "\n",
        "\r",
        "\r\n",
        "*",
        "$",
        "#",
        "/",
        "%",
        "%2",
        "%aa",
        "%C3%A9",
        "ツ",
        "\u{feff}",
        "\u{fffd}",
        "ï",
        "index.html",
        "siftbot",
        "crawl-delay: ",
        "1e999",
        "-1",
        "NaN",
        "sitemap: ",
        "\0",
        "a",
        "?",
    ];
    let start = Instant::now();
    for round in 0..3000 {
        let body = match round % 3 {
            // Random bytes, read as the fetcher would.
            0 => (0..rng.below(400))
                .map(|_| rng.next() as u8)
                .collect::<Vec<u8>>(),
            // Random pieces of robots.txt syntax.
            1 => (0..rng.below(200))
                .map(|_| rng.pick(&pieces))
                .collect::<String>()
                .into_bytes(),
            // Rules with deep wildcard patterns.
            _ => format!(
                "User-agent: *\nDisallow: /{}$\nAllow: /{}\n",
                "*a".repeat(rng.below(300)),
                (0..rng.below(100))
                    .map(|_| rng.pick(&["*", "a", "$", "/"]))
                    .collect::<String>()
            )
            .into_bytes(),
        };
        let agent = rng.pick(&["siftbot", "*", "", "Foo Bar", "ツ"]);
        let policy = policy_of_body(&body, agent);
        let path: String = (0..rng.below(1000))
            .map(|_| rng.pick(&["a", "/", "%", "*", "$", "b"]))
            .collect();
        policy.allows(&format!("/{path}"));
        policy.allows("/");
        let _ = policy.crawl_delay();
    }

    // Huge inputs: the whole 500 KiB of one line, of stars, of short rules.
    let a_path = format!("/{}", "a".repeat(1023));
    let bodies = [
        format!(
            "User-agent: *\nDisallow: /{}",
            "x".repeat(2 * MAX_ROBOTS_BYTES)
        ),
        format!(
            "User-agent: *\nDisallow: /{}\n",
            "*".repeat(2 * MAX_ROBOTS_BYTES)
        ),
        format!(
            "User-agent: *\n{}",
            "Disallow: /*a*a*a*a*a*a*a*a*$\n".repeat(20_000)
        ),
        format!(
            "User-agent: *\n{}",
            format!("Disallow: /{}b\n", "*a".repeat(8000)).repeat(30)
        ),
        "User-agent: siftbot\n".repeat(50_000),
    ];
    for body in &bodies {
        let policy = policy_of_body(body.as_bytes(), "siftbot");
        for _ in 0..10 {
            policy.allows(&a_path);
        }
    }
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "took {:?}",
        start.elapsed()
    );
}
