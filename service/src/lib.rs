//! What a program needs to run as a service, shared by `searchd` and `crawler`:
//!
//! - [`server`]: the bounded accept loop serving warp filters (connections, header and
//!   request timeouts), so slow or many clients cannot exhaust a listener;
//! - [`metrics`]: a registry's metrics in Prometheus's text format (0.0.4), as `/metrics`
//!   answers them, and the HTTP metrics of a server; the metric types themselves are
//!   `prometheus-client`'s (each program registers its own, with the workspace's version);
//! - [`health`]: `/healthz` (the process answers) and `/readyz` (it can take work, or the
//!   one-line reason it cannot), plain 200 or 503;
//! - [`tls`]: HTTPS on a listener, from PEM files, renewed certificates taken as they come;
//! - [`shutdown`]: SIGINT or SIGTERM, either one the orderly stop Ctrl-C starts;
//! - [`listen`]: the `--metrics-listen` address (a port alone is loopback) and its listener,
//!   serving `/metrics`, `/healthz` and `/readyz` for a program with no HTTP of its own.
//!
//! Label values are the programs' own words (a route's name, a status class, a shard's
//! directory name, a configured leaf), never a URL, a query or a host name from the web: every
//! family's cardinality is bounded by the program, not by what it reads.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod health;
pub mod listen;
pub mod metrics;
pub mod server;
pub mod shutdown;
pub mod tls;
#[cfg(test)]
mod tls_tests;

pub use server::{Limits, Listener};
pub use tls::ServerTls;
