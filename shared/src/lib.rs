//! What the crawler, the indexer and searchd share.
//!
//! - [`url`]: [`CanonicalUrl`], the one spelling of a URL the seen-set, store and index use.
//! - [`kind`]: the kinds of content (HTML, images, PDF) and sets of them.
//! - [`record`]: the records of the content store and their versioned encoding.
//! - [`store`]: the store's column families and keys, and [`StoreReader`], the read-only view.
//! - [`config`]: the TOML configuration: the file's shape with its defaults, and the checked,
//!   typed settings the programs use.
//! - [`dates`]: a page's published and modified dates, each with where it was read (JSON-LD,
//!   article meta tags, `<time>`, the URL's path, `Last-Modified`), in that order of trust.
//! - [`docplan`]: which stored pages become which index documents (copies folded into one).
//! - [`html`]: one streaming pass of a WHATWG tokenizer over a page, and the tree-builder
//!   rules the crawler and the indexer both read pages by.
//! - [`extract`]: what the crawler reads out of a page (links, title, robots META, a text
//!   fingerprint); `crawler explain` and searchd's `/explain` read a page and its render by
//!   it too ([`extract::Reading`]).
//! - [`partition`]: the partitions of a crawl run by several workers, and their directories.
//! - [`logging`]: `--log-format` (human or JSON logs) and the one-line error of a failed run.
//! - [`report_out`]: a command's report on standard output, ended quietly when its reader
//!   goes (`crawler explain URL | head`).
//!
//! ```
//! use shared::CanonicalUrl;
//! let url = CanonicalUrl::parse("HTTP://Example.com:80/a/../b#top").unwrap();
//! assert_eq!(url.as_str(), "http://example.com/b");
//! assert_eq!(url.origin(), "http://example.com");
//! ```

#![deny(missing_docs)]

/// A failpoint of the fault-injection tests (`tests/e2e/faults.rs`): `fail::fail_point!` when
/// the crate that calls it is built with its `failpoints` feature (which turns on this
/// crate's, and only the tests package turns on), and nothing at all otherwise. The `cfg` is
/// the caller's, so a crate's failpoints and what they use come and go together.
#[macro_export]
macro_rules! fail_point {
    ($($arg:tt)*) => {
        #[cfg(feature = "failpoints")]
        $crate::fail::fail_point!($($arg)*);
    };
}
#[cfg(feature = "failpoints")]
#[doc(hidden)]
pub use fail;

pub mod config;
pub mod dates;
pub mod docplan;
pub mod extract;
pub mod html;
pub mod kind;
pub mod logging;
pub mod partition;
pub mod record;
pub mod report_out;
pub mod simhash;
pub mod store;
pub mod url;

pub use config::{Config, ConfigError};
pub use kind::{ContentKind, KindSet};
pub use logging::{LogFormat, one_line_error};
pub use record::{PageRecord, Record, RecordError};
pub use store::{StoreError, StoreReader};
pub use url::{CanonicalUrl, UrlError};

/// The project's version, sent in `User-Agent`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A time given in ms since the Unix epoch, as RFC 3339 (UTC, seconds): how every program
/// shows a fetch or decision time.
pub fn format_time_ms(ms: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_seconds(at).to_string()
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
