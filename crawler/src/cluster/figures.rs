//! A worker's figures: every 5 s one monitoring line for all the partitions it holds (the
//! single-machine crawl's line, summed), logged and published to Redis for `crawler status
//! --redis`, and each partition's own, which outlive the worker.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::crawl::PartitionState;

/// Hosts listed in a line, the busiest first.
const HOSTS_LISTED: usize = 20;

/// One line for a worker from its partitions' last states.
pub(crate) fn worker_line<'a>(
    worker: &str,
    states: impl Iterator<Item = &'a PartitionState>,
    partitions: Vec<String>,
    redis_commands: u64,
) -> Value {
    let mut sums: BTreeMap<&str, f64> = BTreeMap::new();
    let mut halted: Vec<Value> = Vec::new();
    let mut hosts: Vec<Value> = Vec::new();
    let mut stored = 0u64;
    let mut frontier = 0u64;
    let mut fetched = 0u64;
    let mut errors = 0u64;
    let mut host_count = 0u64;
    for state in states {
        stored += state.progress.pages_stored;
        frontier += state.progress.frontier;
        fetched += state.progress.fetched;
        errors += state.progress.errors;
        host_count += state.hosts;
        let Some(line) = &state.monitor else { continue };
        for key in ["pages_per_sec", "errors_per_sec", "duplicates"] {
            *sums.entry(key).or_default() += line.get(key).and_then(Value::as_f64).unwrap_or(0.0);
        }
        if let Some(list) = line.get("halted_hosts").and_then(Value::as_array) {
            halted.extend(list.iter().cloned());
        }
        if let Some(list) = line.get("hosts").and_then(Value::as_array) {
            hosts.extend(list.iter().cloned());
        }
    }
    let busy = |host: &Value| {
        host.get("successes").and_then(Value::as_u64).unwrap_or(0)
            + host.get("errors").and_then(Value::as_u64).unwrap_or(0)
    };
    hosts.sort_by_key(|h| std::cmp::Reverse(busy(h)));
    hosts.truncate(HOSTS_LISTED);
    let round = |x: f64| (x * 10.0).round() / 10.0;
    json!({
        "worker": worker,
        "partitions": partitions,
        "pages_per_sec": round(sums.get("pages_per_sec").copied().unwrap_or(0.0)),
        "errors_per_sec": round(sums.get("errors_per_sec").copied().unwrap_or(0.0)),
        "fetched": fetched,
        "errors": errors,
        "stored": stored,
        "duplicates": sums.get("duplicates").copied().unwrap_or(0.0) as u64,
        "frontier": frontier,
        "host_count": host_count,
        "halted_hosts": halted,
        "hosts": hosts,
        "redis_commands": redis_commands,
    })
}

/// A partition's own figures, which `crawler status --redis` sums over every partition,
/// held or not: the pages in its store (all runs) and its frontier. (Not its hosts: those a
/// frontier holds in memory, which lets idle ones go, say nothing once it has stopped.)
pub(crate) fn partition_line(pages_stored: u64, frontier: u64) -> Value {
    json!({"pages_stored": pages_stored, "frontier": frontier})
}
