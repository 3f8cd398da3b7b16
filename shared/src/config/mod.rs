//! Configuration: one TOML file with a section per program, read in two stages.
//!
//! 1. [`RawConfig`] (`raw.rs`) is the file's shape: serde structs, every key defaulted,
//!    unknown keys refused. Durations are `*_ms` integers and URLs, patterns and addresses
//!    strings, as an operator writes them. `data/example.toml` lists every key with its
//!    default.
//! 2. [`RawConfig::validate`] makes the [`Config`] the programs use: durations are
//!    [`Duration`](std::time::Duration)s, `info_url` a [`url::Url`], URL patterns compiled
//!    [`UrlPatterns`], host names normalized, `searchd.listen` a
//!    [`SocketAddr`](std::net::SocketAddr), limits that must be positive `NonZero`
//!    integers (`crawler.rs`, `searchd.rs`, `ranking.rs`). It is the one place values are
//!    checked; a [`BadValue`] names the full key (`crawler.hosts."docs.test".deny_urls[2]`).
//!
//! [`Config::load`] does both for a file (or for the defaults) and names the file in every
//! error ([`ConfigError`]): a missing or unreadable file, a TOML syntax error, an unknown key
//! (with the known key it most likely misspells), a value of the wrong type, a bad value.
//! Command-line flags change the raw config before it is validated, so they pass the same
//! checks.
//!
//! ```
//! use shared::config::{Config, RawConfig};
//! let mut raw = RawConfig::default();
//! raw.crawler.delay_ms = 250;
//! let config: Config = raw.validate().unwrap();
//! assert_eq!(config.crawler.delay, std::time::Duration::from_millis(250));
//!
//! raw.crawler.deny_urls = vec!["/print/".into(), "/(unclosed".into()];
//! let error = raw.validate().unwrap_err();
//! assert_eq!(error.key, "crawler.deny_urls[1]");
//! ```

mod check;
mod crawler;
mod error;
mod parse;
mod patterns;
mod ranking;
mod raw;
mod render;
mod searchd;
#[cfg(test)]
mod tests;

use std::path::Path;

pub use crawler::{CrawlerConfig, HostOverride};
pub use error::{BadValue, ConfigError};
pub use patterns::UrlPatterns;
pub use ranking::RankingConfig;
pub use raw::{RawConfig, RawCrawlerConfig, RawHostOverride, RawSearchdConfig};
pub use render::{RenderMode, RenderSettings, Resource, ResourceSet};
pub use searchd::{SearchdConfig, TlsFiles};

/// The whole configuration, checked and typed: what the programs use.
#[derive(Clone, Debug)]
pub struct Config {
    /// The crawler.
    pub crawler: CrawlerConfig,
    /// Query-time ranking, used by searchd.
    pub ranking: RankingConfig,
    /// The search server.
    pub searchd: SearchdConfig,
}

impl Config {
    /// Reads and checks a TOML file, or gives the defaults when `path` is `None`. Every error
    /// names the file, and the key when there is one.
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
        let raw = RawConfig::load(path)?;
        raw.validate().map_err(|source| match path {
            Some(path) => ConfigError::Invalid {
                path: path.to_path_buf(),
                source,
            },
            None => ConfigError::Value(source),
        })
    }
}

impl RawConfig {
    /// Reads a TOML file as it is written, or gives the defaults when `path` is `None`;
    /// nothing is checked beyond the file's shape (see [`RawConfig::validate`]).
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
        match path {
            Some(path) => parse::read(path),
            None => Ok(Self::default()),
        }
    }

    /// Reads `text` as the contents of the config file `path` (named in errors); nothing is
    /// checked beyond the file's shape, as [`RawConfig::load`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        parse::parse(text, path)
    }

    /// Checks every value and gives the typed config; the first bad value is the error.
    pub fn validate(&self) -> Result<Config, BadValue> {
        Ok(Config {
            crawler: self.crawler.validate()?,
            ranking: self.ranking.validate()?,
            searchd: self.searchd.validate()?,
        })
    }
}

/// Whether `token` can be a robots.txt product token (RFC 9309 2.2.1): a non-empty run of
/// `A-Z`, `a-z`, `_` and `-`. A crawler whose token is anything else matches no group.
pub fn is_product_token(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(is_product_token_byte)
}

/// A byte a product token may hold: `A-Z`, `a-z`, `_`, `-`.
pub fn is_product_token_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'-'
}
