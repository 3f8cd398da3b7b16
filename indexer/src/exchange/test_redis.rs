//! `TestRedis`: Debian's `redis-server` for one test, on a unix socket in a directory of its
//! own, nothing saved; killed when dropped. (The end-to-end tests' `testweb::RedisServer` is
//! the same with an append-only file.)

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server`.
pub(crate) struct TestRedis {
    dir: tempfile::TempDir,
    child: Child,
}

impl TestRedis {
    /// Starts one; panics saying what to install when `redis-server` is missing.
    pub(crate) fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("redis.sock");
        let child = Command::new("redis-server")
            .args([
                "--port",
                "0",
                "--save",
                "",
                "--appendonly",
                "no",
                "--unixsocket",
            ])
            .arg(&socket)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server runs (Debian's redis-server package)");
        let started = Instant::now();
        // The socket file appears when it is bound, a moment before Redis listens: wait
        // until it takes a connection.
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server starts"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        Self { dir, child }
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("redis.sock")
    }

    /// `unix:///DIR/redis.sock`.
    pub(crate) fn url(&self) -> String {
        format!("unix://{}", self.socket().display())
    }
}

impl Drop for TestRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
