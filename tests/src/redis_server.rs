//! `RedisServer`: a real `redis-server` (Debian's), started for one test on a unix socket in a
//! directory of its own, with its append-only file on (every write synced), so that a server
//! killed and started again comes back with what it held. Killed when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::certs::TestCerts;

/// A running `redis-server` of one test.
#[derive(Debug)]
pub struct RedisServer {
    dir: PathBuf,
    child: Option<Child>,
    /// Arguments added to the server's own (`--requirepass`, ...).
    extra: Vec<String>,
    /// The default user's password, which `cli` gives.
    password: Option<String>,
    /// The TLS port and the CA's certificate, when it speaks TLS.
    tls: Option<(u16, PathBuf)>,
}

fn path(file: &Path) -> String {
    file.display().to_string()
}

impl RedisServer {
    /// Starts a server in a new directory under the system's temporary directory; panics
    /// with what to install when `redis-server` is missing.
    pub fn start() -> RedisServer {
        RedisServer::start_with(None)
    }

    /// [`RedisServer::start`] speaking TLS only on a loopback TCP port (its unix socket,
    /// which [`RedisServer::cli`] uses, stays plain), with a certificate for `127.0.0.1`
    /// signed by a CA made for it; [`RedisServer::tls_url`] names the port and the CA.
    pub fn start_tls() -> RedisServer {
        let mut server = RedisServer::new_in_dir(None);
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let files = TestCerts::write(&server.dir);
        server.extra = vec![
            "--tls-port".into(),
            port.to_string(),
            "--tls-cert-file".into(),
            path(&files.cert),
            "--tls-key-file".into(),
            path(&files.key),
            "--tls-ca-cert-file".into(),
            path(&files.ca),
            "--tls-auth-clients".into(),
            "no".into(),
        ];
        server.tls = Some((port, files.ca));
        server.spawn();
        server
    }

    /// `rediss://127.0.0.1:PORT/0?ca=CA.pem` of a server from [`RedisServer::start_tls`].
    pub fn tls_url(&self) -> String {
        let (port, ca) = self.tls.as_ref().expect("a server started with TLS");
        format!("rediss://127.0.0.1:{port}/0?ca={}", ca.display())
    }

    /// `redis://127.0.0.1:PORT/0`: the TLS port of [`RedisServer::start_tls`], asked in
    /// clear.
    pub fn plain_url_of_tls_port(&self) -> String {
        let (port, _) = self.tls.as_ref().expect("a server started with TLS");
        format!("redis://127.0.0.1:{port}/0")
    }

    /// [`RedisServer::start`] with the users of the ACL file `acl` (`--aclfile`), which
    /// must keep a `default` user for [`RedisServer::cli`].
    pub fn start_with_acl_file(acl: &Path) -> RedisServer {
        let mut server = RedisServer::new_in_dir(None);
        server.extra = vec!["--aclfile".into(), path(acl)];
        server.spawn();
        server
    }

    /// [`RedisServer::start`] with the default user's `password` (`--requirepass`): a
    /// client that does not give it is refused.
    pub fn start_with(password: Option<&str>) -> RedisServer {
        let mut server = RedisServer::new_in_dir(password);
        server.spawn();
        server
    }

    /// A server not started yet, in a new directory.
    fn new_in_dir(password: Option<&str>) -> RedisServer {
        let dir =
            std::env::temp_dir().join(format!("sift-redis-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&dir).expect("the Redis directory is made");
        let extra = password
            .map(|p| vec!["--requirepass".to_string(), p.to_string()])
            .unwrap_or_default();
        RedisServer {
            dir,
            child: None,
            extra,
            password: password.map(str::to_string),
            tls: None,
        }
    }

    /// The URL the crawler takes: `unix:///DIR/redis.sock`.
    pub fn url(&self) -> String {
        format!("unix://{}", self.socket().display())
    }

    /// The server's socket.
    pub fn socket(&self) -> PathBuf {
        self.dir.join("redis.sock")
    }

    /// `kill -9` of the server (its append-only file keeps every write it acknowledged).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again after [`RedisServer::kill`], on the same socket and data.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    /// `kill -9` of the server, its data deleted, and a server started again empty on the
    /// same socket: a Redis run without persistence (or whose disk was lost) restarted.
    pub fn restart_empty(&mut self) {
        self.kill();
        for data in ["appendonlydir", "dump.rdb"] {
            let path = self.dir.join(data);
            let _ = std::fs::remove_dir_all(&path);
            let _ = std::fs::remove_file(&path);
        }
        self.spawn();
    }

    /// `redis-cli` with `args` against this server; its output.
    pub fn cli(&self, args: &[&str]) -> String {
        let mut command = Command::new("redis-cli");
        if let Some(password) = &self.password {
            command.args(["--no-auth-warning", "-a", password]);
        }
        let output = command
            .arg("-s")
            .arg(self.socket())
            .args(args)
            .output()
            .expect("redis-cli runs (Debian's redis-tools)");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// A figure of `INFO`, such as `used_memory`.
    pub fn info(&self, field: &str) -> Option<u64> {
        self.cli(&["INFO"]).lines().find_map(|line| {
            line.strip_prefix(field)?
                .strip_prefix(':')?
                .trim()
                .parse()
                .ok()
        })
    }

    fn spawn(&mut self) {
        let socket = self.socket();
        let _ = std::fs::remove_file(&socket);
        let child = Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(&socket)
            .args([
                "--unixsocketperm",
                "700",
                "--save",
                "",
                "--appendonly",
                "yes",
            ])
            .args(["--appendfsync", "always", "--dir"])
            .arg(&self.dir)
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start redis-server ({e}): install Debian's redis-server package (`bash tests/setup`)")
            });
        self.child = Some(child);
        wait_for(&socket, self);
    }
}

/// Waits until the server answers `PING` on `socket`.
fn wait_for(socket: &Path, server: &RedisServer) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if socket.exists() && server.cli(&["PING"]).trim() == "PONG" {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!(
        "redis-server did not answer on {} within 20 s",
        socket.display()
    );
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
