//! `Prometheus`: a real `prometheus` server (Debian's), started for one test on a free
//! loopback port, scraping the targets it is given every second, its data in a directory of
//! its own. Killed when dropped.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A running `prometheus` of one test.
#[derive(Debug)]
pub struct Prometheus {
    dir: PathBuf,
    addr: SocketAddr,
    child: Child,
}

impl Prometheus {
    /// Starts a server scraping each `(job, address)` every second at `/metrics`; panics
    /// with what to install when `prometheus` is missing. It answers its HTTP API a moment
    /// later: ask until it does.
    pub fn start(targets: &[(&str, SocketAddr)]) -> Prometheus {
        let dir = std::env::temp_dir().join(format!(
            "sift-prometheus-{}-{}",
            std::process::id(),
            unique()
        ));
        std::fs::create_dir_all(&dir).expect("the Prometheus directory is made");
        let mut config =
            String::from("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n");
        for (job, addr) in targets {
            config.push_str(&format!(
                "  - job_name: {job}\n    static_configs:\n      - targets: ['{addr}']\n"
            ));
        }
        let config_file = dir.join("prometheus.yml");
        std::fs::write(&config_file, config).expect("the config is written");
        let addr = free_port();
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config_file.display()))
            .arg(format!("--storage.tsdb.path={}", dir.join("data").display()))
            .arg(format!("--web.listen-address={addr}"))
            .arg("--log.level=warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start prometheus ({e}): install Debian's prometheus (`bash tests/setup`)")
            });
        Prometheus { dir, addr, child }
    }

    /// `http://ADDR`, where its HTTP API answers (`/api/v1/query?query=...`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A loopback address with a port free a moment ago.
fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
