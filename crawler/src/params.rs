//! The operator's extra query parameters to strip (`strip_params`): session ids and tracking
//! parameters of the sites at hand, on top of the built-in list that
//! [`CanonicalUrl`] always removes.
//!
//! Applied where URLs enter the crawl (seeds, links, refresh and `Location` targets, sitemap
//! entries), so the stored page, its in-links and the seen-set all use the stripped URL.

use shared::CanonicalUrl;
use shared::config::CrawlerConfig;

/// One configured parameter name.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ParamName {
    /// The whole key, lowercase.
    Exact(String),
    /// A key prefix, lowercase (`ref_*`).
    Prefix(String),
}

/// Query parameters removed from every URL.
#[derive(Clone, Debug, Default)]
pub(crate) struct ParamStrip {
    names: Vec<ParamName>,
}

impl ParamStrip {
    /// From `strip_params`.
    pub(crate) fn new(config: &CrawlerConfig) -> Self {
        let names = config
            .strip_params
            .iter()
            .map(|name| name.trim().to_ascii_lowercase())
            .filter(|name| !name.trim_end_matches('*').is_empty())
            .map(|name| match name.strip_suffix('*') {
                Some(prefix) => ParamName::Prefix(prefix.to_string()),
                None => ParamName::Exact(name),
            })
            .collect();
        Self { names }
    }

    /// `url` without the configured parameters.
    pub(crate) fn apply(&self, url: CanonicalUrl) -> CanonicalUrl {
        if self.names.is_empty() || url.as_url().query().is_none() {
            return url;
        }
        url.without_params(|key| {
            let key = key.to_ascii_lowercase();
            self.names.iter().any(|name| match name {
                ParamName::Exact(name) => key == *name,
                ParamName::Prefix(prefix) => key.starts_with(prefix.as_str()),
            })
        })
    }

    /// The same for a URL already canonical as text; text that does not parse is returned
    /// as it is.
    pub(crate) fn apply_str(&self, url: String) -> String {
        if self.names.is_empty() || !url.contains('?') {
            return url;
        }
        match CanonicalUrl::parse(&url) {
            Ok(parsed) => self.apply(parsed).into(),
            Err(_) => url,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::config::RawCrawlerConfig;

    #[test]
    fn exact_names_and_prefixes_case_insensitive() {
        let strip = ParamStrip::new(
            &RawCrawlerConfig {
                strip_params: vec!["sid".into(), "Ref_*".into()],
                ..RawCrawlerConfig::default()
            }
            .validate()
            .unwrap(),
        );
        for (input, expected) in [
            ("http://a.test/p?SID=1&q=x", "http://a.test/p?q=x"),
            (
                "http://a.test/p?ref_src=tw&ref_=1&q=x",
                "http://a.test/p?q=x",
            ),
            (
                "http://a.test/p?sidebar=1&ref=2",
                "http://a.test/p?sidebar=1&ref=2",
            ),
            ("http://a.test/p?sid=1", "http://a.test/p"),
            ("http://a.test/p", "http://a.test/p"),
        ] {
            let url = CanonicalUrl::parse(input).unwrap();
            assert_eq!(strip.apply(url).as_str(), expected, "{input}");
            assert_eq!(strip.apply_str(input.to_string()), expected, "{input}");
        }
    }
}
