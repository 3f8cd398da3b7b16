//! Name resolution with an address policy: loopback, private and link-local addresses are
//! refused unless the operator allows loopback, checked on the resolved address of every
//! connection (so of every redirect hop), and fixed answers for names the config pins.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Which addresses the crawler may connect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressPolicy {
    /// Public addresses only (the default for the open web).
    PublicOnly,
    /// Public addresses and loopback (`127.0.0.0/8`, `::1`), for sites on this machine.
    AllowLoopback,
}

/// Why an address is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusedAddress {
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
    pub fn check(self, ip: IpAddr) -> Result<(), RefusedAddress> {
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

/// The crawler's resolver: config pins first, then the system resolver; every answer is
/// filtered through the [`AddressPolicy`].
#[derive(Clone, Debug)]
pub struct PolicyResolver {
    policy: AddressPolicy,
    pinned: Arc<BTreeMap<String, IpAddr>>,
}

impl PolicyResolver {
    /// A resolver with the given policy and pinned names.
    pub fn new(policy: AddressPolicy, pinned: BTreeMap<String, IpAddr>) -> Self {
        let pinned = pinned
            .into_iter()
            .map(|(name, ip)| (name.to_ascii_lowercase(), ip))
            .collect();
        Self {
            policy,
            pinned: Arc::new(pinned),
        }
    }
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        let host = name.as_str().to_ascii_lowercase();
        Box::pin(async move {
            let candidates: Vec<SocketAddr> = match this.pinned.get(&host) {
                Some(ip) => vec![SocketAddr::new(*ip, 0)],
                None => tokio::net::lookup_host((host.as_str(), 0)).await?.collect(),
            };
            let mut refusal = None;
            let allowed: Vec<SocketAddr> = candidates
                .into_iter()
                .filter(|addr| match this.policy.check(addr.ip()) {
                    Ok(()) => true,
                    Err(why) => {
                        refusal = Some(why);
                        false
                    }
                })
                .collect();
            if allowed.is_empty() {
                let why = refusal.map_or_else(|| "no address".to_string(), |r| r.to_string());
                return Err(format!("{host}: {why}").into());
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
