//! One worker's line to Redis: a multiplexed connection made again after a failure, every
//! answer awaited within a deadline, and every command counted (the figure behind "Redis
//! commands per page"). Behind a Sentinel address each new connection goes to the master
//! the Sentinels name then, so a worker follows a replica promoted in a failover.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::sentinel::SentinelClient;
use redis::{
    AsyncConnectionConfig, Client, ErrorKind, FromRedisValue, RedisError, RedisResult,
    ServerErrorKind,
};
use shared::partition::redis_address::{RedisAddress, server_client};
use tokio::sync::Mutex;
use tokio::time::Instant;

/// How long an answer (or a connection) may take before the call fails. A blocking read
/// waits longer: its block time plus this.
const ANSWER_DEADLINE: Duration = Duration::from_secs(3);

/// A shared handle on the crawl's Redis (cloning shares the connection and the count).
#[derive(Clone)]
pub(crate) struct Redis {
    target: Target,
    url: Arc<str>,
    /// The connection, when it was made, and its number.
    connection: Arc<Mutex<Option<(MultiplexedConnection, Instant, u64)>>>,
    /// Connections made so far (the next one's number).
    made: Arc<AtomicU64>,
    commands: Arc<AtomicU64>,
}

/// The server a connection is made to.
#[derive(Clone)]
enum Target {
    /// Always this one (boxed: a TLS client is large).
    Server(Box<Client>),
    /// The master the Sentinels name at each connection.
    Sentinel(Arc<Mutex<SentinelClient>>),
}

impl Target {
    fn new(address: &RedisAddress) -> RedisResult<Self> {
        Ok(match address {
            RedisAddress::Server(url) => Target::Server(Box::new(server_client(url)?)),
            RedisAddress::Sentinel(sentinel) => {
                let client = sentinel.client()?;
                Target::Sentinel(Arc::new(Mutex::new(client)))
            }
        })
    }

    /// A client of the server to talk to now.
    async fn client(&self) -> RedisResult<Client> {
        match self {
            Target::Server(client) => Ok(Client::clone(client)),
            Target::Sentinel(sentinels) => {
                let mut sentinels = sentinels.lock().await;
                // Boxed: the Sentinel client's future is deep, and so are its callers'.
                tokio::time::timeout(ANSWER_DEADLINE, Box::pin(sentinels.async_get_client()))
                    .await
                    .unwrap_or_else(|_| {
                        Err(RedisError::from((
                            ErrorKind::Io,
                            "no Sentinel named the master in time",
                        )))
                    })
            }
        }
    }
}

impl Redis {
    /// A handle on the Redis at `url` (`redis://HOST:PORT/DB`, `unix:///PATH` or
    /// `redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB]`); connects at the first call.
    pub(crate) fn new(url: &str) -> RedisResult<Self> {
        let address: RedisAddress = url.parse().map_err(|why: String| {
            RedisError::from((ErrorKind::InvalidClientConfig, "bad Redis address", why))
        })?;
        Ok(Self {
            target: Target::new(&address)?,
            url: address.to_string().into(),
            connection: Arc::default(),
            made: Arc::default(),
            commands: Arc::default(),
        })
    }

    /// The URL, for messages.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Commands sent so far, by every clone.
    pub(crate) fn commands(&self) -> u64 {
        self.commands.load(Ordering::Relaxed)
    }

    async fn connection(&self) -> RedisResult<MultiplexedConnection> {
        Ok(self.connection_made().await?.0)
    }

    /// The connection, when it was made and its number (made now when there is none).
    async fn connection_made(&self) -> RedisResult<(MultiplexedConnection, Instant, u64)> {
        let mut held = self.connection.lock().await;
        if let Some((connection, made, number)) = held.as_ref() {
            return Ok((connection.clone(), *made, *number));
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(ANSWER_DEADLINE))
            .set_response_timeout(Some(ANSWER_DEADLINE));
        let connection = self
            .target
            .client()
            .await?
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        let made = Instant::now();
        let number = self.made.fetch_add(1, Ordering::Relaxed);
        *held = Some((connection.clone(), made, number));
        Ok((connection, made, number))
    }

    /// A call's answer; after one that left the connection unusable, the next call makes a
    /// new connection.
    async fn settled<T>(&self, answer: RedisResult<T>) -> RedisResult<T> {
        if answer.as_ref().is_err_and(broken) {
            *self.connection.lock().await = None;
        }
        answer
    }

    /// Sends one command.
    pub(crate) async fn query<T: FromRedisValue>(&self, cmd: &redis::Cmd) -> RedisResult<T> {
        self.commands.fetch_add(1, Ordering::Relaxed);
        let mut connection = self.connection().await?;
        self.settled(cmd.query_async(&mut connection).await).await
    }

    /// Sends a pipeline (a `MULTI` one when it was made atomic) of `count` commands.
    pub(crate) async fn pipe<T: FromRedisValue>(
        &self,
        pipe: &redis::Pipeline,
        count: usize,
    ) -> RedisResult<T> {
        self.commands.fetch_add(count as u64, Ordering::Relaxed);
        let mut connection = self.connection().await?;
        self.settled(pipe.query_async(&mut connection).await).await
    }

    /// Sends a pipeline as [`Redis::pipe`] does, and says which connection it went on: a
    /// number that changes with every new connection (after any failure, perhaps to a server
    /// that lost what the old one accepted).
    pub(crate) async fn pipe_on<T: FromRedisValue>(
        &self,
        pipe: &redis::Pipeline,
        count: usize,
    ) -> RedisResult<(T, u64)> {
        self.commands.fetch_add(count as u64, Ordering::Relaxed);
        let (mut connection, _, number) = self.connection_made().await?;
        let answer = self
            .settled(pipe.query_async(&mut connection).await)
            .await?;
        Ok((answer, number))
    }

    /// Runs a Lua script (`EVALSHA`, loading it first when Redis does not know it).
    pub(crate) async fn script<T: FromRedisValue>(
        &self,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> RedisResult<T> {
        self.commands.fetch_add(1, Ordering::Relaxed);
        let mut connection = self.connection().await?;
        self.settled(invocation.invoke_async(&mut connection).await)
            .await
    }

    /// Runs a Lua script on a connection made at least `settle` ago: on one made since (the
    /// first, or one made again after a failure, perhaps to a replica just promoted, which
    /// may not have the last writes of the master before it) the script waits out the rest.
    pub(crate) async fn script_settled<T: FromRedisValue>(
        &self,
        invocation: &redis::ScriptInvocation<'_>,
        settle: Duration,
    ) -> RedisResult<T> {
        self.commands.fetch_add(1, Ordering::Relaxed);
        let (mut connection, made, _) = self.connection_made().await?;
        tokio::time::sleep_until(made + settle).await;
        self.settled(invocation.invoke_async(&mut connection).await)
            .await
    }

    /// A connection of its own for blocking reads (`XREADGROUP ... BLOCK`), which would hold
    /// up every other command on a shared one; its answers may take `block` longer.
    pub(crate) async fn blocking(&self, block: Duration) -> RedisResult<BlockingRedis> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(ANSWER_DEADLINE))
            .set_response_timeout(Some(ANSWER_DEADLINE + block));
        let connection = self
            .target
            .client()
            .await?
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        Ok(BlockingRedis {
            connection,
            commands: self.commands.clone(),
        })
    }
}

/// A connection for blocking reads, counted with its [`Redis`].
pub(crate) struct BlockingRedis {
    connection: MultiplexedConnection,
    commands: Arc<AtomicU64>,
}

impl BlockingRedis {
    /// Sends one command.
    pub(crate) async fn query<T: FromRedisValue>(&mut self, cmd: &redis::Cmd) -> RedisResult<T> {
        self.commands.fetch_add(1, Ordering::Relaxed);
        cmd.query_async(&mut self.connection).await
    }
}

/// Whether Redis refused this worker itself, not a command: no password or a wrong one, or
/// a user without the permissions a worker needs. Waiting does not help; the worker stops.
pub(crate) fn refused(error: &redis::RedisError) -> bool {
    matches!(
        error.kind(),
        ErrorKind::AuthenticationFailed | ErrorKind::Server(ServerErrorKind::NoPerm)
    ) || matches!(error.code(), Some("NOAUTH" | "WRONGPASS" | "NOPERM"))
}

/// Whether an error leaves the connection unusable (rather than a command Redis refused).
/// A server that became a replica (a master demoted after a failover) refuses writes: the
/// next connection goes to the master the Sentinels name.
fn broken(error: &redis::RedisError) -> bool {
    error.kind() == ErrorKind::Server(ServerErrorKind::ReadOnly)
        || error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || error.is_unrecoverable_error()
}
