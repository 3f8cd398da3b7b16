//! Which URLs a crawl may queue: under one of the `--scope` prefixes, by default the seeds'
//! origins.

use shared::CanonicalUrl;

/// URL prefixes a crawl stays under.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    prefixes: Vec<String>,
}

impl Scope {
    /// Explicit prefixes (canonicalized), or the seeds' origins when there are none.
    pub(crate) fn new(prefixes: &[CanonicalUrl], seeds: &[CanonicalUrl]) -> Self {
        let prefixes = if prefixes.is_empty() {
            let mut origins: Vec<String> =
                seeds.iter().map(|s| format!("{}/", s.origin())).collect();
            origins.sort();
            origins.dedup();
            origins
        } else {
            prefixes.iter().map(|p| p.as_str().to_string()).collect()
        };
        Self { prefixes }
    }

    /// Every http and https URL: the scope of an import, which queues nothing.
    pub(crate) fn everything() -> Self {
        Self {
            prefixes: vec!["http://".into(), "https://".into()],
        }
    }

    /// Whether a URL may be queued.
    pub(crate) fn contains(&self, url: &CanonicalUrl) -> bool {
        self.prefixes
            .iter()
            .any(|p| url.as_str().starts_with(p.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> CanonicalUrl {
        CanonicalUrl::parse(s).unwrap()
    }

    #[test]
    fn default_scope_is_the_seed_origins() {
        let scope = Scope::new(&[], &[url("http://a.test:8080/start/page.html")]);
        assert!(scope.contains(&url("http://a.test:8080/other")));
        assert!(
            !scope.contains(&url("http://a.test/other")),
            "another port is another origin"
        );
        assert!(!scope.contains(&url("http://a.test:8081/x")));
        assert!(!scope.contains(&url("http://b.test:8080/")));
    }

    #[test]
    fn explicit_prefixes() {
        let scope = Scope::new(&[url("http://a.test/docs/")], &[url("http://a.test/")]);
        assert!(scope.contains(&url("http://a.test/docs/x")));
        assert!(!scope.contains(&url("http://a.test/blog/x")));
    }
}
