//! Name resolution with an address policy: loopback, private and link-local addresses are
//! refused unless the operator allows loopback, checked on the resolved address of every
//! connection (so of every redirect hop, and a name that changes its answer between two
//! lookups cannot rebind to a refused address); fixed answers for names the config pins; a
//! cache with short lookups for the rest. The scheduler resolves each origin once before its
//! first request, to know which origins share an IP address.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hickory_resolver::TokioResolver;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Which addresses the crawler may connect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddressPolicy {
    /// Public addresses only (the default for the open web).
    PublicOnly,
    /// Public addresses and loopback (`127.0.0.0/8`, `::1`), for sites on this machine.
    AllowLoopback,
}

/// Why an address is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RefusedAddress {
    /// Loopback without `--allow-loopback`.
    Loopback,
    /// Private, link-local, unspecified, multicast, broadcast or documentation ranges.
    NonPublic,
}

impl std::fmt::Display for RefusedAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RefusedAddress::Loopback => "loopback address refused (use --allow-loopback)",
            RefusedAddress::NonPublic => "private, link-local or reserved address refused",
        })
    }
}

impl AddressPolicy {
    /// Checks one address.
    pub(crate) fn check(self, ip: IpAddr) -> Result<(), RefusedAddress> {
        if ip.is_loopback() {
            return match self {
                AddressPolicy::AllowLoopback => Ok(()),
                AddressPolicy::PublicOnly => Err(RefusedAddress::Loopback),
            };
        }
        let non_public = match ip {
            IpAddr::V4(v4) => {
                v4.is_private()
                    || v4.is_link_local()
                    || v4.is_unspecified()
                    || v4.is_broadcast()
                    || v4.is_multicast()
                    || v4.is_documentation()
                    || v4.octets()[0] == 0
                    || (v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64) // CGNAT
            }
            IpAddr::V6(v6) => {
                let first = v6.segments()[0];
                v6.is_unspecified()
                    || v6.is_multicast()
                    || (first & 0xfe00) == 0xfc00 // unique local
                    || (first & 0xffc0) == 0xfe80 // link-local
                    || v6.to_ipv4_mapped().is_some_and(|v4| self.check(IpAddr::V4(v4)).is_err())
            }
        };
        if non_public {
            Err(RefusedAddress::NonPublic)
        } else {
            Ok(())
        }
    }
}

/// How long a lookup may take, per attempt.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(3);
/// An answer is kept at least this long, whatever its TTL: a host keeps one address for its
/// politeness while it is crawled.
const MIN_TTL: Duration = Duration::from_secs(300);
/// Names whose answers are kept.
const CACHE_NAMES: u64 = 10_000;

/// Name resolution for the crawler: config pins first, then a caching DNS resolver
/// (hickory, reading the system's `resolv.conf` and hosts file); every answer is filtered
/// through the [`AddressPolicy`]. Cheap to clone: clones share the cache.
#[derive(Clone)]
pub(crate) struct Dns {
    policy: AddressPolicy,
    pinned: Arc<BTreeMap<String, IpAddr>>,
    /// `None` when the system configuration could not be read: the operating system's
    /// resolver (`getaddrinfo`, uncached) answers instead. Never a public resolver this
    /// machine was not configured with.
    cached: Option<TokioResolver>,
}

impl std::fmt::Debug for Dns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dns")
            .field("policy", &self.policy)
            .field("pinned", &self.pinned)
            .field("cached", &self.cached.is_some())
            .finish()
    }
}

impl Dns {
    /// A resolver with the given policy and pinned names.
    pub(crate) fn new(policy: AddressPolicy, pinned: BTreeMap<String, IpAddr>) -> Self {
        let pinned = pinned
            .into_iter()
            .map(|(name, ip)| (name.to_ascii_lowercase(), ip))
            .collect();
        let cached = match TokioResolver::builder_tokio() {
            Ok(mut builder) => {
                let options = builder.options_mut();
                options.timeout = LOOKUP_TIMEOUT;
                options.attempts = 2;
                options.cache_size = CACHE_NAMES;
                options.positive_min_ttl = Some(MIN_TTL);
                builder.build().ok()
            }
            Err(error) => {
                tracing::warn!(%error, "no DNS configuration read: names go to the system resolver, uncached");
                None
            }
        };
        Self {
            policy,
            pinned: Arc::new(pinned),
            cached,
        }
    }

    /// The addresses `host` (a name or an IP literal, IPv6 in brackets or not) may be
    /// reached at, in the resolver's order; an error says why there are none.
    pub(crate) async fn lookup(&self, host: &str) -> Result<Vec<IpAddr>, String> {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let candidates: Vec<IpAddr> = if let Ok(ip) = host.parse::<IpAddr>() {
            vec![ip]
        } else if let Some(ip) = self.pinned.get(&host) {
            vec![*ip]
        } else if let Some(resolver) = &self.cached {
            resolver
                .lookup_ip(host.as_str())
                .await
                .map_err(|error| format!("{host}: {error}"))?
                .iter()
                .collect()
        } else {
            tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|error| format!("{host}: {error}"))?
                .map(|addr| addr.ip())
                .collect()
        };
        let mut refusal = None;
        let allowed: Vec<IpAddr> = candidates
            .into_iter()
            .filter(|ip| match self.policy.check(*ip) {
                Ok(()) => true,
                Err(why) => {
                    refusal = Some(why);
                    false
                }
            })
            .collect();
        if allowed.is_empty() {
            let why = refusal.map_or_else(|| "no address".to_string(), |r| r.to_string());
            return Err(format!("{host}: {why}"));
        }
        Ok(allowed)
    }
}

/// The HTTP client's view of [`Dns`]: every connection, so every redirect hop, resolves
/// through it and gets only allowed addresses.
#[derive(Clone, Debug)]
pub(crate) struct PolicyResolver(pub Dns);

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let dns = self.0.clone();
        Box::pin(async move {
            let addrs = dns.lookup(name.as_str()).await?;
            let addrs: Addrs = Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lookups_answer_pins_and_literals_through_the_policy() {
        let pins = BTreeMap::from([("Pinned.test".to_string(), "127.0.0.7".parse().unwrap())]);
        let local = Dns::new(AddressPolicy::AllowLoopback, pins.clone());
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(local.lookup("pinned.TEST").await, Ok(vec![ip("127.0.0.7")]));
        assert_eq!(local.lookup("127.0.0.9").await, Ok(vec![ip("127.0.0.9")]));
        assert_eq!(local.lookup("[::1]").await, Ok(vec![ip("::1")]));
        let error = local.lookup("10.1.2.3").await.unwrap_err();
        assert!(error.contains("reserved"), "{error}");
        let public = Dns::new(AddressPolicy::PublicOnly, pins);
        let error = public.lookup("pinned.test").await.unwrap_err();
        assert!(error.contains("loopback address refused"), "{error}");
    }

    #[test]
    fn address_policy() {
        let public = AddressPolicy::PublicOnly;
        let local = AddressPolicy::AllowLoopback;
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(public.check(ip("127.0.0.1")), Err(RefusedAddress::Loopback));
        assert_eq!(local.check(ip("127.0.0.5")), Ok(()));
        assert_eq!(local.check(ip("::1")), Ok(()));
        for private in [
            "10.0.0.1",
            "192.168.1.1",
            "172.16.0.1",
            "169.254.1.1",
            "0.0.0.0",
            "fe80::1",
            "fd00::1",
            "::ffff:10.0.0.1",
        ] {
            assert_eq!(
                local.check(ip(private)),
                Err(RefusedAddress::NonPublic),
                "{private}"
            );
        }
        assert_eq!(public.check(ip("93.184.216.34")), Ok(()));
        assert_eq!(public.check(ip("2606:2800:220:1::1")), Ok(()));
    }
}
