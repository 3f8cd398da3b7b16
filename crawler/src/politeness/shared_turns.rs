//! An address's turn booked across every crawler that shares it. Each crawler's own
//! [`SendGate`](super::SendGate) keeps the gaps between its own requests only; when hosts on
//! one address are crawled by several workers, something they all reach must book the turns.
//! The distributed crawl's gate on Redis's clock is that (`cluster/ip_gate.rs`); the fetcher
//! names only this trait, so politeness does not depend on the cluster.

use std::net::IpAddr;
use std::time::Duration;

use futures_util::future::BoxFuture;

/// Books turns at addresses for every crawler sharing them.
pub(crate) trait SharedTurns: Send + Sync {
    /// Waits until a request to `address` may go, `gap` after the last one any crawler sent,
    /// and books it. Returns the turn's moment on the booking clock (µs since the Unix epoch),
    /// for logs that compare turns across crawlers.
    fn book(&self, address: IpAddr, gap: Duration) -> BoxFuture<'_, u64>;
}
