//! One worker's line to Redis: a multiplexed connection made again after a failure, every
//! answer awaited within a deadline, and every command counted (the figure behind "Redis
//! commands per page").

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client, FromRedisValue, RedisResult};
use tokio::sync::Mutex;

/// How long an answer (or a connection) may take before the call fails. A blocking read
/// waits longer: its block time plus this.
const ANSWER_DEADLINE: Duration = Duration::from_secs(3);

/// A shared handle on the crawl's Redis (cloning shares the connection and the count).
#[derive(Clone)]
pub(crate) struct Redis {
    client: Client,
    url: Arc<str>,
    connection: Arc<Mutex<Option<MultiplexedConnection>>>,
    commands: Arc<AtomicU64>,
}

impl Redis {
    /// A handle on the Redis at `url` (`redis://HOST:PORT/DB` or `unix:///PATH`); connects
    /// at the first call.
    pub(crate) fn new(url: &str) -> RedisResult<Self> {
        Ok(Self {
            client: Client::open(url)?,
            url: url.into(),
            connection: Arc::default(),
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
        let mut held = self.connection.lock().await;
        if let Some(connection) = held.as_ref() {
            return Ok(connection.clone());
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(ANSWER_DEADLINE))
            .set_response_timeout(Some(ANSWER_DEADLINE));
        let connection = self
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        *held = Some(connection.clone());
        Ok(connection)
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

    /// A connection of its own for blocking reads (`XREADGROUP ... BLOCK`), which would hold
    /// up every other command on a shared one; its answers may take `block` longer.
    pub(crate) async fn blocking(&self, block: Duration) -> RedisResult<BlockingRedis> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(ANSWER_DEADLINE))
            .set_response_timeout(Some(ANSWER_DEADLINE + block));
        let connection = self
            .client
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

/// Whether an error leaves the connection unusable (rather than a command Redis refused).
fn broken(error: &redis::RedisError) -> bool {
    error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || error.is_unrecoverable_error()
}
