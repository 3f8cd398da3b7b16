//! `Redis`: the build's one connection to the crawl's Redis, every answer awaited within a
//! deadline and every command counted (the build logs the count). A build has no use for a
//! reconnection: a failed call fails the build, which can simply be run again.

use std::time::Duration;

use redis::{Cmd, Connection, FromRedisValue, Pipeline, ScriptInvocation};

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
    /// Connects to `url` (`redis://HOST:PORT/DB` or `unix:///PATH`).
    pub(crate) fn open(url: &str) -> Result<Self, Error> {
        let failed = |source| Error::Redis {
            url: url.to_string(),
            source,
        };
        let client = redis::Client::open(url).map_err(failed)?;
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
            url: url.to_string(),
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
