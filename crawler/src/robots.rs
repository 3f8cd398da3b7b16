//! robots.txt: parsing (RFC 9309) and the allow/disallow decision for one product token.
//!
//! Groups start with one or more `User-agent` lines; `Allow` and `Disallow` rules follow.
//! Our token matches a group case-insensitively (the group's token compared up to its first
//! space or `/`); groups naming it are merged; without one the `*` groups apply. The longest
//! matching rule wins and `Allow` wins a tie; `*` matches any run of characters and a final
//! `$` anchors the end. `/robots.txt` itself is always allowed. Only the first
//! [`MAX_ROBOTS_BYTES`] are read.

use shared::record::RobotsFetch;

/// How much of a robots.txt is parsed; the rest is ignored.
pub const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// The rules of one robots.txt that apply to our token.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RobotsRules {
    rules: Vec<Rule>,
    /// `Crawl-delay` of our group, in seconds.
    pub crawl_delay: Option<f64>,
    /// `Sitemap` lines (they apply to every agent).
    pub sitemaps: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
struct Rule {
    allow: bool,
    pattern: String,
}

/// What robots.txt says about a host, as the crawler acts on it: each variant carries the
/// policy.
#[derive(Clone, Debug, PartialEq)]
pub enum RobotsPolicy {
    /// A robots.txt was read: obey its rules.
    Rules(RobotsRules),
    /// No robots.txt (404, 410, other 4xx): crawl freely.
    NoRules,
    /// 401 or 403 on robots.txt: the whole site is off limits.
    Forbidden,
}

impl RobotsPolicy {
    /// The policy a cached fetch outcome stands for.
    pub fn from_fetch(fetch: &RobotsFetch, agent: &str) -> Self {
        match fetch {
            RobotsFetch::Rules(text) => RobotsPolicy::Rules(RobotsRules::parse(text, agent)),
            RobotsFetch::NoRules => RobotsPolicy::NoRules,
            RobotsFetch::Forbidden => RobotsPolicy::Forbidden,
        }
    }

    /// Whether `path_and_query` may be fetched.
    pub fn allows(&self, path_and_query: &str) -> bool {
        match self {
            RobotsPolicy::Rules(rules) => rules.allows(path_and_query),
            RobotsPolicy::NoRules => true,
            RobotsPolicy::Forbidden => false,
        }
    }

    /// The `Crawl-delay` asked for, if any.
    pub fn crawl_delay(&self) -> Option<f64> {
        match self {
            RobotsPolicy::Rules(rules) => rules.crawl_delay,
            _ => None,
        }
    }
}

/// A parsed line.
enum Line<'a> {
    UserAgent(&'a str),
    Allow(&'a str),
    Disallow(&'a str),
    CrawlDelay(&'a str),
    Sitemap(&'a str),
    Other,
}

fn parse_line(line: &str) -> Line<'_> {
    let line = line.split('#').next().unwrap_or_default().trim();
    let Some((key, value)) = line.split_once(':') else {
        return Line::Other;
    };
    let value = value.trim();
    match key.trim().to_ascii_lowercase().as_str() {
        "user-agent" | "useragent" | "user agent" => Line::UserAgent(value),
        "allow" => Line::Allow(value),
        "disallow" | "dissallow" | "dissalow" | "disalow" | "diasllow" | "disallaw" => {
            Line::Disallow(value)
        }
        "crawl-delay" | "crawldelay" => Line::CrawlDelay(value),
        "sitemap" | "site-map" => Line::Sitemap(value),
        _ => Line::Other,
    }
}

/// Whether a group's `User-agent` value names our token.
fn names_agent(value: &str, agent: &str) -> bool {
    let token = value.split([' ', '/']).next().unwrap_or_default();
    !token.is_empty() && token.eq_ignore_ascii_case(agent)
}

impl RobotsRules {
    /// Parses a robots.txt body for the product token `agent`.
    pub fn parse(text: &str, agent: &str) -> Self {
        let text = truncate_at_char(text, MAX_ROBOTS_BYTES);
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);

        let mut ours = RobotsRules::default();
        let mut star = RobotsRules::default();
        let mut found_ours = false;
        // The agents of the group being read, and whether its rules have started (a
        // `User-agent` line after a rule starts a new group).
        let (mut group_ours, mut group_star, mut in_rules) = (false, false, false);
        let mut sitemaps = Vec::new();

        for line in text.split(['\n', '\r']) {
            match parse_line(line) {
                Line::UserAgent(value) => {
                    if in_rules {
                        (group_ours, group_star, in_rules) = (false, false, false);
                    }
                    if names_agent(value, agent) {
                        group_ours = true;
                        found_ours = true;
                    } else if value.starts_with('*') {
                        group_star = true;
                    }
                }
                Line::Allow(pattern) | Line::Disallow(pattern) => {
                    in_rules = true;
                    let allow = matches!(parse_line(line), Line::Allow(_));
                    // An empty `Disallow:` allows everything: it is no rule.
                    if pattern.is_empty() {
                        continue;
                    }
                    let rule = Rule {
                        allow,
                        pattern: normalize_pattern(pattern),
                    };
                    if group_ours {
                        ours.rules.push(rule.clone());
                    }
                    if group_star {
                        star.rules.push(rule);
                    }
                }
                Line::CrawlDelay(value) => {
                    in_rules = true;
                    if let Ok(seconds) = value.parse::<f64>()
                        && seconds.is_finite()
                        && seconds >= 0.0
                    {
                        if group_ours {
                            ours.crawl_delay = Some(seconds);
                        }
                        if group_star {
                            star.crawl_delay = Some(seconds);
                        }
                    }
                }
                Line::Sitemap(value) => sitemaps.push(value.to_string()),
                Line::Other => {}
            }
        }
        let mut rules = if found_ours { ours } else { star };
        rules.sitemaps = sitemaps;
        rules
    }

    /// Whether `path_and_query` (starting with `/`) may be fetched.
    pub fn allows(&self, path_and_query: &str) -> bool {
        if path_and_query == "/robots.txt" {
            return true;
        }
        let path = normalize_pattern(path_and_query);
        let mut best: Option<(usize, bool)> = None;
        for rule in &self.rules {
            if pattern_matches(&rule.pattern, &path) {
                let len = rule.pattern.len();
                best = match best {
                    Some((best_len, best_allow))
                        if best_len > len || (best_len == len && best_allow) =>
                    {
                        Some((best_len, best_allow))
                    }
                    _ => Some((len, rule.allow)),
                };
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

fn truncate_at_char(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Brings a path or pattern to the form rules are compared in: non-ASCII bytes
/// percent-encoded, then escapes normalized as canonical URLs have them.
fn normalize_pattern(input: &str) -> String {
    let mut ascii = String::with_capacity(input.len());
    for b in input.bytes() {
        if b.is_ascii() {
            ascii.push(b as char);
        } else {
            ascii.push_str(&format!("%{b:02X}"));
        }
    }
    shared::url::normalize_percent(&ascii)
}

/// Matches a robots pattern (`*` wildcards, optional final `$`) against the start of `path`.
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let p = pattern.as_bytes();
    let s = path.as_bytes();
    // Iterative glob match with backtracking to the last `*`.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if pi == p.len() {
            if !anchored || si == s.len() {
                return true;
            }
        } else if p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
            continue;
        } else if si < s.len() && p[pi] == s[si] {
            pi += 1;
            si += 1;
            continue;
        }
        match star {
            Some((star_pi, star_si)) if star_si < s.len() => {
                pi = star_pi + 1;
                si = star_si + 1;
                star = Some((star_pi, star_si + 1));
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(robots: &str, agent: &str, path: &str, allowed: bool) {
        let rules = RobotsRules::parse(robots, agent);
        assert_eq!(
            rules.allows(path),
            allowed,
            "{agent} {path} under:\n{robots}"
        );
    }

    #[test]
    fn decisions() {
        let basic = "User-agent: *\nDisallow: /private/\n";
        check(basic, "siftbot", "/private/x", false);
        check(basic, "siftbot", "/public", true);
        check(basic, "siftbot", "/robots.txt", true);

        let ours = "User-agent: *\nDisallow: /\n\nUser-agent: SiftBot\nDisallow: /drafts/\n";
        check(ours, "siftbot", "/drafts/a", false);
        check(ours, "siftbot", "/page", true);
        check(ours, "otherbot", "/page", false);

        let longest = "User-agent: *\nDisallow: /a\nAllow: /a/b\n";
        check(longest, "x", "/a/c", false);
        check(longest, "x", "/a/b/c", true);
        let tie = "User-agent: *\nDisallow: /a\nAllow: /a\n";
        check(tie, "x", "/a", true);

        let wild = "User-agent: *\nDisallow: /*.pdf$\nDisallow: /tmp*/x\n";
        check(wild, "x", "/doc.pdf", false);
        check(wild, "x", "/doc.pdf?x", true);
        check(wild, "x", "/tmp123/x/y", false);

        let merged =
            "User-agent: a\nUser-agent: b\nDisallow: /one\n\nuser-agent: b\ndisalow: /two\n";
        check(merged, "b", "/one", false);
        check(merged, "b", "/two", false);
        check(merged, "a", "/two", true);

        check(
            "\u{feff}User-agent: *\r\nDisallow: /x # no\r\n",
            "x",
            "/x",
            false,
        );
        check(
            "User-agent: *\nDisallow: /%7Euser\n",
            "x",
            "/~user/a",
            false,
        );
        check("User-agent: *\nDisallow: /caf%C3%A9\n", "x", "/café", false);
        check("User-agent: *\nDisallow:\n", "x", "/anything", true);
        check("garbage\n\0\u{1}:::\nDisallow: /x\n", "x", "/x", true);
    }

    #[test]
    fn crawl_delay_and_sitemaps() {
        let rules = RobotsRules::parse(
            "Sitemap: http://a.test/s.xml\nUser-agent: *\nCrawl-delay: 2.5\n",
            "siftbot",
        );
        assert_eq!(rules.crawl_delay, Some(2.5));
        assert_eq!(rules.sitemaps, vec!["http://a.test/s.xml".to_string()]);
    }

    #[test]
    fn policies() {
        assert!(!RobotsPolicy::Forbidden.allows("/"));
        assert!(RobotsPolicy::NoRules.allows("/anything"));
    }
}
