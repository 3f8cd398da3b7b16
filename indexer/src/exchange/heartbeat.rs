//! `Heartbeat`: a machine's sign of life in an exchange round, `sift:index:N:alive:MACHINE`,
//! written every [`BEAT`] with an expiry of [`ALIVE`] from a thread and a connection of its
//! own, so it goes on while the build computes. A machine killed stops beating, and the
//! others waiting for it name it within [`ALIVE`] instead of at the round's deadline. A
//! build that ends deletes its key.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tracing::debug;

use super::connection::Redis;
use crate::Error;

/// How often the key is written.
const BEAT: Duration = Duration::from_secs(1);
/// How long the key lives unwritten: a machine silent this long is taken for dead.
pub(crate) const ALIVE: Duration = Duration::from_secs(3);

/// The thread beats while `RUN`; at `END` it deletes the key and stops; at `DIE` it stops
/// and leaves the key to run out, as a machine killed does.
const RUN: u8 = 0;
const END: u8 = 1;
#[cfg(test)]
const DIE: u8 = 2;

/// A running heartbeat; stops (and deletes its key) when dropped.
pub(crate) struct Heartbeat {
    state: Arc<AtomicU8>,
    thread: Option<JoinHandle<()>>,
}

impl Heartbeat {
    /// Starts writing `key` on a connection of its own to `url`.
    pub(crate) fn start(url: &str, key: String) -> Result<Self, Error> {
        let mut redis = Redis::open(url)?;
        let state = Arc::new(AtomicU8::new(RUN));
        let seen = state.clone();
        let thread = std::thread::Builder::new()
            .name("exchange-heartbeat".into())
            .spawn(move || {
                let running = || seen.load(Ordering::Acquire) == RUN;
                while running() {
                    let mut set = redis::cmd("SET");
                    set.arg(&key).arg(1).arg("PX").arg(ALIVE.as_millis() as u64);
                    if let Err(error) = redis.query::<()>(&set) {
                        // Should this go on, the others see the key run out.
                        debug!(%error, "exchange heartbeat not written");
                    }
                    let next = Instant::now() + BEAT;
                    while running() && Instant::now() < next {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
                if seen.load(Ordering::Acquire) == END {
                    let _ = redis.query::<()>(redis::cmd("DEL").arg(&key));
                }
            })
            .map_err(|e| Error::Round(format!("cannot start the exchange heartbeat: {e}")))?;
        Ok(Self {
            state,
            thread: Some(thread),
        })
    }

    /// Stops beating and leaves the key to run out, as a machine killed does.
    #[cfg(test)]
    pub(crate) fn die(mut self) {
        self.stop(DIE);
    }

    fn stop(&mut self, how: u8) {
        self.state.store(how, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop(END);
    }
}
