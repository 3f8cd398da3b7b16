//! `Redis`: the build's one connection to the crawl's Redis, every answer awaited within a
//! deadline and every command counted (the build logs the count). A build has no use for a
//! reconnection: a failed call fails the build, which can simply be run again (behind
//! Sentinels, against the master they name then).

use std::time::Duration;

use redis::{
    Client, Cmd, Connection, ErrorKind, FromRedisValue, Pipeline, RedisError, RedisResult,
    ScriptInvocation,
};
use shared::partition::redis_address::{RedisAddress, server_client};

use crate::Error;

/// How long an answer (or the connection) may take before the call fails.
const ANSWER_DEADLINE: Duration = Duration::from_secs(3);

/// A connection to the Redis at one URL.
pub(crate) struct Redis {
    connection: Connection,
    url: String,
    commands: u64,
}

impl Redis {
    /// Connects to `url` (`redis://HOST:PORT/DB`, `unix:///PATH`, or the master the
    /// Sentinels of `redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB]` name now).
    pub(crate) fn open(url: &str) -> Result<Self, Error> {
        let address: RedisAddress = url.parse().map_err(|why: String| Error::Redis {
            url: url.to_string(),
            source: RedisError::from((ErrorKind::InvalidClientConfig, "bad Redis address", why)),
        })?;
        let url = address.to_string();
        let failed = |source| Error::Redis {
            url: url.clone(),
            source,
        };
        let client = client(&address).map_err(failed)?;
        let connection = client
            .get_connection_with_timeout(ANSWER_DEADLINE)
            .map_err(failed)?;
        connection
            .set_read_timeout(Some(ANSWER_DEADLINE))
            .map_err(failed)?;
        connection
            .set_write_timeout(Some(ANSWER_DEADLINE))
            .map_err(failed)?;
        Ok(Self {
            connection,
            url,
            commands: 0,
        })
    }

    /// Commands sent so far.
    pub(crate) fn commands(&self) -> u64 {
        self.commands
    }

    fn failed(&self, source: redis::RedisError) -> Error {
        Error::Redis {
            url: self.url.clone(),
            source,
        }
    }

    /// Sends one command.
    pub(crate) fn query<T: FromRedisValue>(&mut self, cmd: &Cmd) -> Result<T, Error> {
        self.commands += 1;
        cmd.query(&mut self.connection)
            .map_err(|error| self.failed(error))
    }

    /// Sends a pipeline of `count` commands.
    pub(crate) fn pipe<T: FromRedisValue>(
        &mut self,
        pipe: &Pipeline,
        count: usize,
    ) -> Result<T, Error> {
        self.commands += count as u64;
        pipe.query(&mut self.connection)
            .map_err(|error| self.failed(error))
    }

    /// Runs a Lua script (`EVALSHA`, loading it first when Redis does not know it).
    pub(crate) fn script<T: FromRedisValue>(
        &mut self,
        invocation: &ScriptInvocation<'_>,
    ) -> Result<T, Error> {
        self.commands += 1;
        invocation
            .invoke(&mut self.connection)
            .map_err(|error| self.failed(error))
    }
}

/// A client of the server at `address`: behind Sentinels, the master they name now.
fn client(address: &RedisAddress) -> RedisResult<Client> {
    match address {
        RedisAddress::Server(url) => server_client(url),
        RedisAddress::Sentinel(sentinel) => sentinel.client()?.get_client(),
    }
}
