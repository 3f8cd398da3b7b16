//! `RedisSentinels`: a Redis that fails over, of Debian's `redis-server`: a master, a replica
//! of it and three Sentinels (`redis-server --sentinel`) watching them, each on a loopback
//! TCP port of its own and a directory of its own under one temporary directory. A master
//! killed with `kill -9` is replaced by its replica within a few seconds (the Sentinels call
//! a server down after 1 s). Every process is killed when dropped.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The master's name in the Sentinels' configuration.
pub const SENTINEL_MASTER: &str = "sift";
/// How long a server may not answer before the Sentinels call it down.
const DOWN_AFTER_MS: u64 = 1_000;

/// A master, its replica and three Sentinels, of one test.
#[derive(Debug)]
pub struct RedisSentinels {
    dir: PathBuf,
    /// The data servers: their ports and processes (`None` once killed).
    servers: Vec<(u16, Option<Child>)>,
    /// The Sentinels: their ports and processes.
    sentinels: Vec<(u16, Child)>,
}

impl RedisSentinels {
    /// Starts them, and waits until every Sentinel knows the master, its replica and the
    /// other two Sentinels (a failover needs two of them to agree).
    pub fn start() -> RedisSentinels {
        let dir = std::env::temp_dir().join(format!(
            "sift-sentinels-{}-{}",
            std::process::id(),
            unique()
        ));
        std::fs::create_dir_all(&dir).expect("the Redis directory is made");
        let mut rig = RedisSentinels {
            dir,
            servers: Vec::new(),
            sentinels: Vec::new(),
        };
        let master = free_port();
        rig.start_server(master, None);
        let replica = free_port();
        rig.start_server(replica, Some(master));
        wait_until("the replica is in sync", Duration::from_secs(20), || {
            cli(replica, &["INFO", "replication"]).contains("master_link_status:up")
        });
        for n in 0..3 {
            let port = free_port();
            let config = rig.dir.join(format!("sentinel-{n}.conf"));
            std::fs::write(
                &config,
                format!(
                    "port {port}\nbind 127.0.0.1\ndir {}\n\
                     sentinel monitor {SENTINEL_MASTER} 127.0.0.1 {master} 2\n\
                     sentinel down-after-milliseconds {SENTINEL_MASTER} {DOWN_AFTER_MS}\n\
                     sentinel failover-timeout {SENTINEL_MASTER} 4000\n\
                     sentinel parallel-syncs {SENTINEL_MASTER} 1\n",
                    rig.dir.display()
                ),
            )
            .expect("sentinel config written");
            let child = Command::new("redis-server")
                .arg(&config)
                .arg("--sentinel")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start a Sentinel ({e}): `bash tests/setup`"));
            rig.sentinels.push((port, child));
        }
        for &(port, _) in &rig.sentinels {
            wait_until(
                "each Sentinel knows the replica and the other Sentinels",
                Duration::from_secs(30),
                || {
                    let replicas = cli(port, &["SENTINEL", "REPLICAS", SENTINEL_MASTER]);
                    let others = cli(port, &["SENTINEL", "SENTINELS", SENTINEL_MASTER]);
                    replicas.contains(&replica.to_string())
                        && others.matches("127.0.0.1").count() >= 2
                },
            );
        }
        rig
    }

    /// The address the crawler takes: `redis+sentinel://127.0.0.1:P,.../sift`.
    pub fn url(&self) -> String {
        let sentinels: Vec<String> = self
            .sentinels
            .iter()
            .map(|(port, _)| format!("127.0.0.1:{port}"))
            .collect();
        format!("redis+sentinel://{}/{SENTINEL_MASTER}", sentinels.join(","))
    }

    /// The master's port, as the first Sentinel that answers says.
    pub fn master_port(&self) -> Option<u16> {
        self.sentinels.iter().find_map(|&(port, _)| {
            let answer = cli(
                port,
                &["SENTINEL", "GET-MASTER-ADDR-BY-NAME", SENTINEL_MASTER],
            );
            answer.lines().nth(1)?.trim().parse().ok()
        })
    }

    /// `kill -9` of the master; its port.
    pub fn kill_master(&mut self) -> u16 {
        let master = self.master_port().expect("a Sentinel names the master");
        for (port, child) in &mut self.servers {
            if *port == master
                && let Some(mut child) = child.take()
            {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        master
    }

    /// Waits until the Sentinels name a master other than `old` and it answers as one;
    /// its port. Panics after `within`.
    pub fn wait_for_failover(&self, old: u16, within: Duration) -> u16 {
        let mut promoted = None;
        wait_until("a replica is promoted", within, || {
            promoted = self
                .master_port()
                .filter(|&port| port != old && cli(port, &["ROLE"]).starts_with("master"));
            promoted.is_some()
        });
        promoted.expect("promoted")
    }

    /// `redis-cli` with `args` against the master of now; its output.
    pub fn cli(&self, args: &[&str]) -> String {
        let master = self.master_port().expect("a Sentinel names the master");
        cli(master, args)
    }

    fn start_server(&mut self, port: u16, replica_of: Option<u16>) {
        let dir = self.dir.join(format!("server-{port}"));
        std::fs::create_dir_all(&dir).expect("server dir");
        let mut command = Command::new("redis-server");
        command
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(&dir);
        if let Some(master) = replica_of {
            command.args(["--replicaof", "127.0.0.1", &master.to_string()]);
        }
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server ({e}): `bash tests/setup`"));
        self.servers.push((port, Some(child)));
        wait_until("redis-server answers", Duration::from_secs(20), || {
            cli(port, &["PING"]).trim() == "PONG"
        });
    }
}

impl Drop for RedisSentinels {
    fn drop(&mut self) {
        let children = self
            .servers
            .iter_mut()
            .filter_map(|(_, child)| child.as_mut())
            .chain(self.sentinels.iter_mut().map(|(_, child)| child));
        for child in children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `redis-cli -p PORT ARGS`' output (empty when it cannot connect).
fn cli(port: u16, args: &[&str]) -> String {
    let output = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .stderr(Stdio::null())
        .output()
        .expect("redis-cli runs (Debian's redis-tools)");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A port free on loopback now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

fn wait_until(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < within, "{what}: not within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
