//! The crawl's settings in Redis, set once by the first worker with seeds: the number of
//! partitions and the scope. Every later worker reads them, so all agree; running workers
//! write them again should Redis lose them. A worker with seeds sends them here too.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use redis::{RedisResult, Script};
use shared::CanonicalUrl;
use shared::partition::redis_keys::crawl as keys;
use shared::partition::{PartitionId, Partitions};
use shared::record::{FrontierEntry, LinkParcel};
use tracing::{info, warn};

use super::connection::{Redis, refused};
use super::links;
use crate::error::Error;

/// The partitions of a crawl that names none.
pub(crate) const DEFAULT_PARTITIONS: u32 = 64;

/// What every worker of a crawl shares.
#[derive(Clone, Debug)]
pub(crate) struct CrawlSettings {
    pub(crate) partitions: Partitions,
    /// URL prefixes links must be under (the first worker's `--scope`, or its seeds'
    /// origins).
    pub(crate) scope: Vec<String>,
}

/// Creates the crawl (a worker with seeds, when none exists) or joins it; a worker without
/// seeds waits for a crawl to join. Waits for Redis meanwhile, and says so once.
pub(crate) async fn join(
    redis: &Redis,
    partitions: Option<u32>,
    scope: Option<Vec<String>>,
) -> Result<CrawlSettings, Error> {
    let mut said = false;
    loop {
        match try_join(redis, partitions, scope.as_deref()).await {
            Ok(Some(settings)) => {
                if let Some(asked) = partitions
                    && asked != settings.partitions.count()
                {
                    return Err(Error::Cluster(format!(
                        "the crawl in Redis has {} partitions, not {asked}: a crawl's partitions are fixed for its life",
                        settings.partitions.count()
                    )));
                }
                return Ok(settings);
            }
            Ok(None) if !said => {
                info!(
                    redis = redis.url(),
                    "no crawl in Redis yet: waiting for a worker with seeds to create it"
                );
                said = true;
            }
            Ok(None) => {}
            // Connected, then dropped before any answer: a server speaking TLS only,
            // asked in clear (a Redis that is down refuses the connection instead).
            Err(error)
                if redis.url().starts_with("redis://")
                    && error.is_connection_dropped()
                    && !error.is_connection_refusal() =>
            {
                return Err(Error::Cluster(format!(
                    "Redis at {} dropped the connection without answering ({error}): if it speaks TLS only, write rediss://HOST:PORT (with ?ca=CA.pem for a private CA)",
                    redis.url()
                )));
            }
            Err(error) if refused(&error) => {
                return Err(Error::Cluster(format!(
                    "Redis at {} refused this worker ({error}): check the user and password in --redis",
                    redis.url()
                )));
            }
            Err(error) if !said => {
                warn!(redis = redis.url(), %error, "no Redis, no crawl: waiting for it");
                said = true;
            }
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Creates the crawl's settings if there are none: the partition count and the scope.
const CREATE: &str = r"
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSETNX', KEYS[1], ARGV[3], ARGV[4])
";

/// Writes the crawl's settings again where Redis has none (it lost its data): as the
/// workers have them, so every later one agrees.
pub(crate) async fn restore(redis: &Redis, settings: &CrawlSettings) -> RedisResult<()> {
    create(redis, settings.partitions.count(), &settings.scope).await
}

/// Creates the crawl's settings if there are none.
async fn create(redis: &Redis, partitions: u32, scope: &[String]) -> RedisResult<()> {
    // A script, not a MULTI: both fields at once, and a refusal (a user without the right)
    // is one command's error (the redis crate panics on a MULTI refused first).
    let create = Script::new(CREATE);
    let mut call = create.prepare_invoke();
    call.key(keys::CRAWL)
        .arg(keys::CRAWL_PARTITIONS)
        .arg(partitions)
        .arg(keys::CRAWL_SCOPE)
        .arg(scope.join("\n"));
    redis.script::<()>(&call).await
}

/// The crawl's settings, if a crawl exists.
pub(crate) async fn peek(redis: &Redis) -> RedisResult<Option<CrawlSettings>> {
    try_join(redis, None, None).await
}

async fn try_join(
    redis: &Redis,
    partitions: Option<u32>,
    scope: Option<&[String]>,
) -> RedisResult<Option<CrawlSettings>> {
    if let Some(scope) = scope {
        create(redis, partitions.unwrap_or(DEFAULT_PARTITIONS), scope).await?;
    }
    let mut cmd = redis::cmd("HGETALL");
    cmd.arg(keys::CRAWL);
    let fields: HashMap<String, String> = redis.query(&cmd).await?;
    let Some(partitions) = fields
        .get(keys::CRAWL_PARTITIONS)
        .and_then(|p| p.parse().ok())
        .and_then(Partitions::new)
    else {
        return Ok(None);
    };
    let scope = fields
        .get(keys::CRAWL_SCOPE)
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default();
    Ok(Some(CrawlSettings { partitions, scope }))
}

/// The crawl's scope as this worker's flags give it: `--scope` prefixes, else its seeds'
/// origins; `None` without either (the worker joins a crawl made by another).
pub(crate) fn crawl_scope(
    scope: &[String],
    seeds: &[CanonicalUrl],
) -> Result<Option<Vec<String>>, Error> {
    if !scope.is_empty() {
        let prefixes = scope
            .iter()
            .map(|s| {
                CanonicalUrl::parse(s)
                    .map(|url| url.as_str().to_string())
                    .map_err(|source| Error::BadUrl {
                        what: "scope",
                        input: s.clone(),
                        source,
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Some(prefixes));
    }
    if seeds.is_empty() {
        return Ok(None);
    }
    let mut origins: Vec<String> = seeds.iter().map(|s| format!("{}/", s.origin())).collect();
    origins.sort();
    origins.dedup();
    Ok(Some(origins))
}

/// Sends the seeds to their partitions' streams (waiting for Redis if it is away).
pub(crate) async fn seed(redis: &Redis, partitions: Partitions, seeds: &[CanonicalUrl]) {
    if seeds.is_empty() {
        return;
    }
    let mut by_partition: BTreeMap<PartitionId, LinkParcel> = BTreeMap::new();
    for url in seeds {
        by_partition
            .entry(partitions.of_host(url.host()))
            .or_default()
            .links
            .push(FrontierEntry::page(url.as_str(), 0));
    }
    let parcels: Vec<_> = by_partition.into_iter().collect();
    let mut said = false;
    while let Err(error) = links::send_seeds(redis, &parcels).await {
        if !said {
            warn!(%error, "cannot send the seeds to Redis: waiting for it");
            said = true;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    info!(seeds = seeds.len(), "seeds sent to their partitions");
}
