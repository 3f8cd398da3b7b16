//! The programs as system services: the systemd units in `packaging/systemd/` pass
//! `systemd-analyze verify` without a warning (and a planted typo makes it warn), are
//! hardened as the README says, and a crawler stopped by SIGTERM, as systemd stops it, ends
//! as Ctrl-C ends it: its writes finished, exit status 0.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use testweb::{SoakWeb, TestWeb};

use crate::faults::child::{crawl_args, spawn};
use crate::support::write_config_file;

/// The units, by file name.
const UNITS: [&str; 3] = [
    "sift-searchd.service",
    "sift-leaf.service",
    "sift-worker.service",
];

fn packaging() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../packaging")
}

/// A root for `systemd-analyze verify --root`: the system's own units, the programs the
/// units start (as placeholders: verify checks only that they can be executed), the
/// settings file they read, and `units` in `etc/systemd/system`.
fn verify_root(units: &[(&str, String)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("tempdir");
    let at = |path: &str| root.path().join(path);
    for dir in [
        "usr/bin",
        "usr/lib/systemd",
        "etc/default",
        "etc/systemd/system",
    ] {
        std::fs::create_dir_all(at(dir)).expect("a directory");
    }
    let copied = Command::new("cp")
        .args(["-a", "/usr/lib/systemd/system"])
        .arg(at("usr/lib/systemd"))
        .status()
        .expect("cp runs");
    assert!(
        copied.success(),
        "the system's units (systemd: `bash tests/setup`)"
    );
    for program in ["searchd", "crawler"] {
        std::fs::copy("/bin/true", at(&format!("usr/bin/{program}"))).expect("a placeholder");
    }
    std::fs::copy(packaging().join("default/sift"), at("etc/default/sift")).expect("settings");
    for (name, text) in units {
        std::fs::write(at(&format!("etc/systemd/system/{name}")), text).expect("a unit");
    }
    root
}

/// `systemd-analyze verify --root ROOT UNITS`: its exit status and what it said.
fn verify(root: &Path, names: &[&str]) -> (bool, String) {
    let output = Command::new("systemd-analyze")
        .arg("verify")
        .arg(format!("--root={}", root.display()))
        .args(names)
        .stdin(Stdio::null())
        .output()
        .expect("systemd-analyze runs (Debian's systemd: `bash tests/setup`)");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), said)
}

#[test]
fn the_units_verify_without_a_warning_and_are_hardened() {
    let units: Vec<(&str, String)> = UNITS
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(packaging().join("systemd").join(name))
                .expect("the unit is in packaging/systemd");
            (*name, text)
        })
        .collect();
    let root = verify_root(&units);
    assert_eq!(verify(root.path(), &UNITS), (true, String::new()));
    for (name, text) in &units {
        for line in [
            "User=sift",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ReadWritePaths=/var/lib/sift",
            "Restart=on-failure",
            "KillSignal=SIGTERM",
        ] {
            assert!(text.lines().any(|l| l == line), "{name} lacks {line}");
        }
    }

    // The check can fail: a misspelt key and a bad value are warned about.
    let typo = units[0]
        .1
        .replace("NoNewPrivileges=yes", "NoNewPrivilege=yes")
        .replace("ProtectSystem=strict", "ProtectSystem=strictly");
    let root = verify_root(&[(UNITS[0], typo)]);
    let (_, said) = verify(root.path(), &UNITS[..1]);
    assert!(said.contains("Unknown key 'NoNewPrivilege'"), "{said}");
    assert!(said.contains("strictly"), "{said}");
}

/// A few slow hosts: the crawl is still running when it is stopped.
const WEB: SoakWeb = SoakWeb {
    hosts: 3,
    pages: 200,
    slow: Duration::from_millis(20),
    crawl_delay_ms: 0,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_stopped_by_sigterm_ends_as_ctrl_c_ends_it() {
    // The crawl runs in a child: this process asks over HTTP with reqwest, whose TLS crypto
    // provider (never used on loopback HTTP) must be chosen first.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let web = TestWeb::start_with(WEB).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, config) = (dir.path().join("data"), dir.path().join("crawl.toml"));
    let slow = format!(
        "\n[crawler.hosts.\"{}\"]\ndelay_ms = 50\n",
        SoakWeb::host(0)
    );
    write_config_file(&web, &config, &slow);
    let metrics = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port");
    let mut args = crawl_args(&data, &config, &[web.url(&SoakWeb::host(0), "/")]);
    args.extend(["--metrics-listen".to_string(), metrics.to_string()]);
    let mut child = spawn("crawler", &args, "", Stdio::null());

    // Crawling: ready, and some pages fetched.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let fetched = reqwest::get(format!("http://{metrics}/metrics"))
            .await
            .ok()
            .map(|answer| answer.text());
        let text = match fetched {
            Some(text) => text.await.unwrap_or_default(),
            None => String::new(),
        };
        if text
            .lines()
            .any(|l| l.starts_with("crawler_store_page_writes_total ") && !l.ends_with(" 0"))
        {
            break;
        }
        assert!(Instant::now() < deadline, "the crawl never wrote a page");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pid = child.id().to_string();
    let sent = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child") {
            break status;
        }
        assert!(Instant::now() < deadline, "SIGTERM did not stop the crawl");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "stopped by SIGTERM: {status}");
    let store = shared::StoreReader::open(&data).expect("the store opens after the stop");
    let stored = store.counters().expect("counters").pages_stored;
    assert!(
        stored > 0 && stored < (WEB.pages * WEB.hosts) as u64,
        "{stored} pages stored: stopped midway"
    );
}
