//! [`SearchdConfig`]: the search server's settings as searchd uses them, made from
//! `[searchd]` by [`RawSearchdConfig::validate`].

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::time::Duration;

use super::check::{at_least_one, positive_millis};
use super::{BadValue, RawSearchdConfig};

/// The search server's settings, checked and typed. Each field is the `[searchd]` key of the
/// same name (durations without their `_ms`).
#[derive(Clone, Debug)]
pub struct SearchdConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Results per page in the HTML pages.
    pub per_page: NonZeroUsize,
    /// Longest query accepted, in bytes.
    pub max_query_len: NonZeroUsize,
    /// Connections open at once.
    pub max_connections: NonZeroUsize,
    /// Time a client has to send a request's headers (`header_timeout_ms`).
    pub header_timeout: Duration,
    /// Time to read a request and answer it (`request_timeout_ms`).
    pub request_timeout: Duration,
    /// Searches (and other index or store reads) running at once.
    pub max_searches: NonZeroUsize,
    /// Time a remote leaf has to answer each call of a root (`leaf_timeout_ms`).
    pub leaf_timeout: Duration,
    /// Answers of recent searches kept (0: none).
    pub answer_cache: usize,
    /// The synonyms file, if any.
    pub synonyms: Option<std::path::PathBuf>,
    /// The file of the token a root and its leaves share, if any.
    pub leaf_token_file: Option<std::path::PathBuf>,
    /// The certificate and key files this server answers HTTPS with, if any.
    pub tls: Option<TlsFiles>,
    /// The certificate authorities a root trusts for its `https://` leaves, if not the
    /// system's.
    pub leaf_ca_file: Option<std::path::PathBuf>,
}

/// A server's certificate chain and its private key, PEM files (`[searchd] tls_cert_file`
/// and `tls_key_file`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, the server's own first.
    pub cert: std::path::PathBuf,
    /// The private key of the first certificate.
    pub key: std::path::PathBuf,
}

impl RawSearchdConfig {
    /// Checks every value and gives the typed settings; the first bad value is the error,
    /// named by its full key (`searchd.listen`).
    pub fn validate(&self) -> Result<SearchdConfig, BadValue> {
        let key = |name: &str| format!("searchd.{name}");
        let s = self;
        Ok(SearchdConfig {
            listen: s.listen.trim().parse().map_err(|_| {
                BadValue::new(
                    key("listen"),
                    format!(
                        "{:?} is not an address and port such as 127.0.0.1:8080",
                        s.listen
                    ),
                )
            })?,
            per_page: at_least_one(&key("per_page"), s.per_page)?,
            max_query_len: at_least_one(&key("max_query_len"), s.max_query_len)?,
            max_connections: at_least_one(&key("max_connections"), s.max_connections)?,
            header_timeout: positive_millis(&key("header_timeout_ms"), s.header_timeout_ms)?,
            request_timeout: positive_millis(&key("request_timeout_ms"), s.request_timeout_ms)?,
            max_searches: at_least_one(&key("max_searches"), s.max_searches)?,
            leaf_timeout: positive_millis(&key("leaf_timeout_ms"), s.leaf_timeout_ms)?,
            answer_cache: s.answer_cache,
            synonyms: s.synonyms.clone(),
            leaf_token_file: s.leaf_token_file.clone(),
            tls: match (&s.tls_cert_file, &s.tls_key_file) {
                (Some(cert), Some(key)) => Some(TlsFiles {
                    cert: cert.clone(),
                    key: key.clone(),
                }),
                (None, None) => None,
                (Some(_), None) => {
                    return Err(BadValue::new(
                        key("tls_key_file"),
                        "missing: tls_cert_file needs the key of its certificate",
                    ));
                }
                (None, Some(_)) => {
                    return Err(BadValue::new(
                        key("tls_cert_file"),
                        "missing: tls_key_file needs the certificate it is the key of",
                    ));
                }
            },
            leaf_ca_file: s.leaf_ca_file.clone(),
        })
    }
}
