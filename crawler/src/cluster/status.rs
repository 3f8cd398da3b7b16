//! `crawler status --redis URL`: the whole distributed crawl at a glance, from Redis alone,
//! while it runs and after: every partition's last figures (pages stored and frontier,
//! summed: the keys of `crawler status --json`), the live workers and their figures (the
//! hosts their frontiers hold), every partition's lease, and each stream's backlog.

use std::collections::HashMap;
use std::io::Write;

use anyhow::{Context, Result};
use redis::streams::StreamInfoGroupsReply;
use serde_json::{Value, json};
use shared::partition::PartitionId;

use super::connection::Redis;
use super::lease::{LeaseTimes, Leases};
use super::members::Members;
use super::progress::CrawlProgressBoard;
use super::settings;
use shared::partition::redis_address::shown;
use shared::partition::redis_keys::crawl as keys;

/// Prints the crawl's status: text, or one JSON object.
pub async fn status(url: &str, json_out: bool, out: &mut impl Write) -> Result<()> {
    let redis = Redis::new(url).with_context(|| format!("Redis URL {}", shown(url)))?;
    let value = gather(&redis)
        .await
        .with_context(|| format!("cannot read the crawl from Redis at {}", redis.url()))?;
    if json_out {
        writeln!(out, "{value}")?;
        return Ok(());
    }
    let get = |key: &str| value.get(key).cloned().unwrap_or(Value::Null);
    writeln!(
        out,
        "partitions:   {}\nworkers:      {}\npages stored: {} (in every partition, as its holder last said)\nfrontier:     {}\nhosts:        {} (in live workers' frontiers)\ndone:         {}",
        get("partitions"),
        value["workers"].as_array().map_or(0, Vec::len),
        get("pages_stored"),
        get("frontier"),
        get("hosts"),
        get("done"),
    )?;
    for worker in value["workers"].as_array().into_iter().flatten() {
        let name = worker["worker"].as_str().unwrap_or("?");
        if worker["pages_per_sec"].is_null() {
            // A worker's first figures come with its first monitoring line.
            writeln!(out, "worker {name}: no figures yet (they come every 5 s)")?;
            continue;
        }
        writeln!(
            out,
            "worker {}: {} partitions, {} pages/s, {} stored, {} fetched, {} errors",
            name,
            worker["partitions"].as_array().map_or(0, Vec::len),
            worker["pages_per_sec"],
            worker["stored"],
            worker["fetched"],
            worker["errors"],
        )?;
    }
    let unleased = value["unleased"].as_array().map_or(0, Vec::len);
    if unleased > 0 {
        writeln!(out, "partitions without a lease: {unleased}")?;
    }
    for stream in value["streams"].as_array().into_iter().flatten() {
        if stream["lag"].as_u64().unwrap_or(0) > 0 || stream["pending"].as_u64().unwrap_or(0) > 0 {
            writeln!(
                out,
                "stream {}: {} unread, {} read and not yet applied",
                stream["partition"].as_str().unwrap_or("?"),
                stream["lag"],
                stream["pending"]
            )?;
        }
    }
    if let Some(backups) = value["backups"].as_array().filter(|b| !b.is_empty()) {
        let oldest = backups.iter().filter_map(|b| b["age_s"].as_u64()).max();
        writeln!(
            out,
            "backups:      {} of {} partitions, the oldest {} s old",
            backups.len(),
            get("partitions"),
            oldest.unwrap_or(0)
        )?;
    }
    for host in value["halted_hosts"].as_array().into_iter().flatten() {
        writeln!(out, "halted {host}")?;
    }
    Ok(())
}

async fn gather(redis: &Redis) -> redis::RedisResult<Value> {
    let Some(settings) = settings::peek(redis).await? else {
        return Ok(json!({"partitions": 0, "workers": [], "done": false}));
    };
    let partitions = settings.partitions;
    let live = Members::new(redis.clone()).live().await?;
    let mut figures: Vec<Value> = Vec::new();
    for worker in &live {
        let mut cmd = redis::cmd("GET");
        cmd.arg(keys::figures(worker));
        let line: Option<String> = redis.query(&cmd).await?;
        let line = line
            .and_then(|l| serde_json::from_str::<Value>(&l).ok())
            .unwrap_or_else(|| json!({"worker": worker}));
        figures.push(line);
    }
    let sum = |key: &str| -> u64 { figures.iter().filter_map(|f| f.get(key)?.as_u64()).sum() };
    let mut own_cmd = redis::cmd("HVALS");
    own_cmd.arg(keys::PARTITION_FIGURES);
    let own: Vec<Value> = redis
        .query::<Vec<String>>(&own_cmd)
        .await?
        .iter()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let sum_own = |key: &str| -> u64 { own.iter().filter_map(|f| f.get(key)?.as_u64()).sum() };
    let halted: Vec<Value> = figures
        .iter()
        .filter_map(|f| f.get("halted_hosts")?.as_array().cloned())
        .flatten()
        .collect();
    // Any holder will do for the list: the lease key's value says who holds it.
    let leases = Leases::new(
        redis.clone(),
        "",
        LeaseTimes {
            ttl: std::time::Duration::ZERO,
        },
    );
    let holders = leases.holders(partitions.all()).await?;
    let mut held = Vec::new();
    let mut unleased = Vec::new();
    for (p, holder) in &holders {
        match holder.as_deref().and_then(|h| h.rsplit_once(' ')) {
            Some((worker, epoch)) => held.push(json!({
                "partition": p.dir_name(),
                "worker": worker,
                "epoch": epoch.parse::<u64>().unwrap_or(0),
            })),
            None => unleased.push(p.dir_name()),
        }
    }
    let mut idle_cmd = redis::cmd("HGETALL");
    idle_cmd.arg(keys::IDLE);
    let idle: HashMap<String, String> = redis.query(&idle_cmd).await?;
    let mut streams = Vec::new();
    for p in partitions.all() {
        if let Some(stream) = stream_backlog(redis, p).await? {
            streams.push(stream);
        }
    }
    let done = CrawlProgressBoard::new(redis.clone())
        .done(partitions)
        .await?;
    let mut backups_cmd = redis::cmd("HGETALL");
    backups_cmd.arg(keys::BACKUPS);
    let backups: HashMap<String, String> = redis.query(&backups_cmd).await?;
    let now = shared::now_ms();
    let mut backups: Vec<Value> = backups
        .into_iter()
        .filter_map(|(partition, record)| {
            let record: Value = serde_json::from_str(&record).ok()?;
            let at = record["at_ms"].as_u64()?;
            Some(json!({
                "partition": partition,
                "epoch": record["epoch"],
                "age_s": now.saturating_sub(at) / 1000,
            }))
        })
        .collect();
    backups.sort_by(|a, b| a["partition"].as_str().cmp(&b["partition"].as_str()));
    Ok(json!({
        "pages_stored": sum_own("pages_stored"),
        "frontier": sum_own("frontier"),
        "hosts": sum("host_count"),
        "errors": {"failed fetches": sum("errors")},
        "duplicates": sum("duplicates"),
        "halted_hosts": halted,
        "partitions": partitions.count(),
        "scope": settings.scope,
        "workers": figures,
        "leases": held,
        "unleased": unleased,
        "idle": idle.values().filter(|v| v.starts_with('1')).count(),
        "streams": streams,
        "backups": backups,
        "done": done,
    }))
}

/// A partition's stream: its length, what its owner has not read (lag) and what it read
/// without applying yet (pending); `None` when it has none.
pub(super) async fn stream_backlog(
    redis: &Redis,
    p: PartitionId,
) -> redis::RedisResult<Option<Value>> {
    let key = keys::links(p);
    let mut len = redis::cmd("XLEN");
    len.arg(&key);
    let length: u64 = redis.query(&len).await?;
    let mut info = redis::cmd("XINFO");
    info.arg("GROUPS").arg(&key);
    let groups: StreamInfoGroupsReply = match redis.query(&info).await {
        Ok(groups) => groups,
        // No stream (nothing was ever sent to the partition).
        Err(error) if error.code() == Some("ERR") => return Ok(None),
        Err(error) => return Err(error),
    };
    let group = groups.groups.iter().find(|g| g.name == keys::GROUP);
    Ok(Some(json!({
        "partition": p.dir_name(),
        "length": length,
        "lag": group.map_or(length, |g| g.lag.unwrap_or(0) as u64),
        "pending": group.map_or(0, |g| g.pending as u64),
    })))
}
