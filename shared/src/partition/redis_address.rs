//! [`RedisAddress`]: where a crawl's Redis is, as `--redis` names it: one server
//! (`redis://HOST:PORT/DB`, `unix:///PATH`), or the Sentinels that know which server is the
//! master now (`redis+sentinel://HOST:PORT,HOST:PORT/MASTER`), so a worker, `crawler status`
//! and `indexer build` follow a replica promoted when the master fails.
//!
//! A Sentinel address is one URL, not a flag beside `--redis`, so every command that takes a
//! Redis takes either, and a script or unit file changes one value to move to Sentinel. The
//! form is the one other clients read (`redis+sentinel://`, as in Celery and Kombu):
//! `redis+sentinel://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT...]/MASTER[/DB]`, the user and
//! password the master's (the Sentinels are asked without).
//!
//! ```
//! use shared::partition::redis_address::RedisAddress;
//! let address: RedisAddress = "redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/crawl/2"
//!     .parse()
//!     .unwrap();
//! let RedisAddress::Sentinel(sentinel) = &address else { panic!() };
//! assert_eq!(sentinel.sentinels, [("10.0.0.1".to_string(), 26379), ("10.0.0.2".to_string(), 26379)]);
//! assert_eq!((sentinel.master.as_str(), sentinel.db), ("crawl", 2));
//! assert!(matches!("redis://127.0.0.1:6379/0".parse(), Ok(RedisAddress::Server(_))));
//! ```

use std::fmt;
use std::str::FromStr;

/// The scheme of a Sentinel address.
pub const SENTINEL_SCHEME: &str = "redis+sentinel";

/// Where a crawl's Redis is.
#[derive(Clone, PartialEq, Eq)]
pub enum RedisAddress {
    /// One server: the URL as given (`redis://`, `rediss://`, `unix://`), which the client
    /// reads itself.
    Server(String),
    /// The master the Sentinels name.
    Sentinel(SentinelAddress),
}

/// Sentinels and the master they watch.
#[derive(Clone, PartialEq, Eq)]
pub struct SentinelAddress {
    /// Each Sentinel's host and port, asked in this order.
    pub sentinels: Vec<(String, u16)>,
    /// The master's name in the Sentinels' configuration (`sentinel monitor NAME ...`).
    pub master: String,
    /// The database on the master.
    pub db: i64,
    /// The master's user (an ACL user), if any.
    pub username: Option<String>,
    /// The master's password, if any.
    pub password: Option<String>,
}

/// A client of the one server at `url`. A `rediss://` URL (Redis over TLS) may name the CA
/// that signed the server's certificate with `?ca=PATH`, a PEM file; without it the
/// system's roots are trusted.
#[cfg(feature = "redis")]
pub fn server_client(url: &str) -> redis::RedisResult<redis::Client> {
    // The process's TLS provider, as the crawler's fetcher sets it (one of the two that
    // rustls may find is enough; a second call changes nothing).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (url, ca) = without_ca(url);
    match ca {
        None => redis::Client::open(url.as_str()),
        Some(path) => {
            let root_cert = std::fs::read(&path).map_err(|e| {
                redis::RedisError::from((
                    redis::ErrorKind::InvalidClientConfig,
                    "cannot read the CA file of ?ca=",
                    format!("{path}: {e}"),
                ))
            })?;
            let certificates = redis::TlsCertificates {
                client_tls: None,
                root_cert: Some(root_cert),
            };
            redis::Client::build_with_tls(url.as_str(), certificates)
        }
    }
}

/// `url` without its `ca=PATH` query pair, and that path.
#[cfg(feature = "redis")]
fn without_ca(url: &str) -> (String, Option<String>) {
    let Some((address, query)) = url.split_once('?') else {
        return (url.to_string(), None);
    };
    let mut ca = None;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.strip_prefix("ca=") {
            Some(path) => {
                ca = Some(path.to_string());
                false
            }
            None => true,
        })
        .collect();
    if kept.is_empty() {
        (address.to_string(), ca)
    } else {
        (format!("{address}?{}", kept.join("&")), ca)
    }
}

#[cfg(feature = "redis")]
impl SentinelAddress {
    /// A client that asks the Sentinels (in order) which server is the master now, and
    /// connects to it with the address's database, user and password.
    pub fn client(&self) -> redis::RedisResult<redis::sentinel::SentinelClient> {
        use redis::sentinel::{SentinelClient, SentinelNodeConnectionInfo, SentinelServerType};
        let mut master = redis::RedisConnectionInfo::default().set_db(self.db);
        if let Some(user) = &self.username {
            master = master.set_username(user);
        }
        if let Some(password) = &self.password {
            master = master.set_password(password);
        }
        let sentinels: Vec<String> = self
            .sentinels
            .iter()
            .map(|(host, port)| format!("redis://{host}:{port}"))
            .collect();
        SentinelClient::build(
            sentinels,
            self.master.clone(),
            Some(SentinelNodeConnectionInfo::default().set_redis_connection_info(master)),
            SentinelServerType::Master,
        )
    }
}

impl FromStr for RedisAddress {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let Some(rest) = text
            .strip_prefix(SENTINEL_SCHEME)
            .and_then(|rest| rest.strip_prefix("://"))
        else {
            return Ok(RedisAddress::Server(text.to_string()));
        };
        let form = "write redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB]";
        let (credentials, rest) = match rest.rsplit_once('@') {
            Some((credentials, rest)) => (Some(credentials), rest),
            None => (None, rest),
        };
        let (hosts, path) = rest
            .split_once('/')
            .ok_or_else(|| format!("{} names no master: {form}", shown(text)))?;
        let sentinels = hosts
            .split(',')
            .map(|host| {
                let (name, port) = host
                    .rsplit_once(':')
                    .ok_or_else(|| format!("Sentinel {host:?} has no port: {form}"))?;
                let port = port
                    .parse::<u16>()
                    .map_err(|_| format!("Sentinel {host:?} has no port: {form}"))?;
                let name = name.trim_start_matches('[').trim_end_matches(']');
                if name.is_empty() {
                    return Err(format!("Sentinel {host:?} has no host: {form}"));
                }
                Ok((name.to_string(), port))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let (master, db) = match path.split_once('/') {
            Some((master, db)) => {
                let db = db
                    .parse::<i64>()
                    .map_err(|_| format!("database {db:?} is not a number: {form}"))?;
                (master, db)
            }
            None => (path, 0),
        };
        if master.is_empty() {
            return Err(format!("{} names no master: {form}", shown(text)));
        }
        let (username, password) = match credentials {
            None => (None, None),
            Some(credentials) => match credentials.split_once(':') {
                Some((user, password)) => (
                    Some(user.to_string()).filter(|u| !u.is_empty()),
                    Some(password.to_string()),
                ),
                None => (Some(credentials.to_string()), None),
            },
        };
        Ok(RedisAddress::Sentinel(SentinelAddress {
            sentinels,
            master: master.to_string(),
            db,
            username,
            password,
        }))
    }
}

/// The address with its password hidden, in the user part (`:PASSWORD@`) or the query
/// (`?pass=PASSWORD`, as `unix://` addresses give it): what messages and logs say, even of
/// an address that does not parse.
pub fn shown(text: &str) -> String {
    let (address, query) = match text.split_once('?') {
        Some((address, query)) => (address, Some(query)),
        None => (text, None),
    };
    let mut shown = match address.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((credentials, rest)) => {
                let user = credentials.split_once(':').map_or(credentials, |(u, _)| u);
                format!("{scheme}://{user}:***@{rest}")
            }
            None => address.to_string(),
        },
        None => address.to_string(),
    };
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key @ ("pass" | "password"), _)) => format!("{key}=***"),
                _ => pair.to_string(),
            })
            .collect();
        shown.push('?');
        shown.push_str(&pairs.join("&"));
    }
    shown
}

impl fmt::Display for RedisAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisAddress::Server(url) => f.write_str(&shown(url)),
            RedisAddress::Sentinel(sentinel) => {
                write!(f, "{SENTINEL_SCHEME}://")?;
                if let Some(user) = &sentinel.username {
                    write!(f, "{user}")?;
                }
                if sentinel.password.is_some() {
                    write!(f, ":***")?;
                }
                if sentinel.username.is_some() || sentinel.password.is_some() {
                    write!(f, "@")?;
                }
                let hosts: Vec<String> = sentinel
                    .sentinels
                    .iter()
                    .map(|(host, port)| format!("{host}:{port}"))
                    .collect();
                write!(f, "{}/{}/{}", hosts.join(","), sentinel.master, sentinel.db)
            }
        }
    }
}

impl fmt::Debug for RedisAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentinel(text: &str) -> SentinelAddress {
        match text.parse::<RedisAddress>() {
            Ok(RedisAddress::Sentinel(sentinel)) => sentinel,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn sentinel_addresses_are_read_and_shown_without_their_password() {
        let one = sentinel("redis+sentinel://127.0.0.1:26379/crawl");
        assert_eq!(one.sentinels, [("127.0.0.1".to_string(), 26379)]);
        assert_eq!((one.master.as_str(), one.db), ("crawl", 0));
        assert_eq!((one.username, one.password), (None, None));
        let full = sentinel("redis+sentinel://worker:s3cr@t@a.test:1,b.test:2,[::1]:3/main/4");
        assert_eq!(full.sentinels.len(), 3);
        assert_eq!(full.sentinels[2], ("::1".to_string(), 3));
        assert_eq!(full.username.as_deref(), Some("worker"));
        assert_eq!(full.password.as_deref(), Some("s3cr@t"));
        assert_eq!(full.db, 4);
        let shown = RedisAddress::Sentinel(full).to_string();
        assert_eq!(
            shown,
            "redis+sentinel://worker:***@a.test:1,b.test:2,::1:3/main/4"
        );
        assert_eq!(
            "redis://:pw@127.0.0.1:6379/0"
                .parse::<RedisAddress>()
                .map(|a| a.to_string()),
            Ok("redis://:***@127.0.0.1:6379/0".to_string())
        );
        assert_eq!(
            "unix:///run/redis.sock?user=w&pass=pw&db=2"
                .parse::<RedisAddress>()
                .map(|a| a.to_string()),
            Ok("unix:///run/redis.sock?user=w&pass=***&db=2".to_string())
        );
    }

    #[cfg(feature = "redis")]
    #[test]
    fn a_ca_file_is_taken_out_of_the_address() {
        assert_eq!(
            without_ca("rediss://10.0.0.5:6380/0?ca=/etc/sift/ca.pem"),
            (
                "rediss://10.0.0.5:6380/0".to_string(),
                Some("/etc/sift/ca.pem".to_string())
            )
        );
        assert_eq!(
            without_ca("rediss://h:1/0?user=w&ca=/ca.pem&pass=p"),
            (
                "rediss://h:1/0?user=w&pass=p".to_string(),
                Some("/ca.pem".to_string())
            )
        );
        assert_eq!(
            without_ca("redis://h:1/0"),
            ("redis://h:1/0".to_string(), None)
        );
    }

    #[test]
    fn a_sentinel_address_missing_a_part_is_refused_saying_what_to_write() {
        for bad in [
            "redis+sentinel://127.0.0.1:26379",
            "redis+sentinel://127.0.0.1:26379/",
            "redis+sentinel://127.0.0.1/crawl",
            "redis+sentinel://127.0.0.1:port/crawl",
            "redis+sentinel://:26379/crawl",
            "redis+sentinel://127.0.0.1:26379/crawl/db",
        ] {
            let error = bad.parse::<RedisAddress>().expect_err(bad);
            assert!(
                error.contains("redis+sentinel://HOST:PORT"),
                "{bad}: {error}"
            );
        }
    }
}
