//! [`UrlPatterns`]: the `deny_urls` and `allow_urls` regular expressions, compiled once.

use regex::{Regex, RegexSet};

use super::BadValue;

/// A list of regular expressions searched anywhere in a canonical URL, compiled into one
/// set. Empty when the config gives none.
#[derive(Clone, Debug, Default)]
pub struct UrlPatterns(Option<RegexSet>);

impl UrlPatterns {
    /// Compiles the patterns of config key `key`; an error names the pattern by its index
    /// (`crawler.deny_urls[2]`) and says why it does not compile.
    pub fn compile(key: &str, patterns: &[String]) -> Result<Self, BadValue> {
        if patterns.is_empty() {
            return Ok(Self(None));
        }
        for (i, pattern) in patterns.iter().enumerate() {
            Regex::new(pattern).map_err(|error| {
                BadValue::new(
                    format!("{key}[{i}]"),
                    format!("invalid regex {pattern:?}: {}", regex_problem(&error)),
                )
            })?;
        }
        RegexSet::new(patterns)
            .map(|set| Self(Some(set)))
            .map_err(|error| BadValue::new(key, regex_problem(&error)))
    }

    /// Whether there are no patterns.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Whether any pattern matches `url`.
    pub fn any_match(&self, url: &str) -> bool {
        self.0.as_ref().is_some_and(|set| set.is_match(url))
    }
}

/// What is wrong with a pattern, on one line: a syntax error's own words ("unclosed
/// group") without the pattern and caret the regex crate draws above them.
fn regex_problem(error: &regex::Error) -> String {
    let text = error.to_string();
    text.lines()
        .rev()
        .find_map(|line| line.trim().strip_prefix("error: "))
        .map_or_else(
            || text.split_whitespace().collect::<Vec<_>>().join(" "),
            str::to_string,
        )
}
