//! A full disk during a crawl and during an index build: one line on stderr naming the
//! disk's directory, a failure exit, and a clean resume once there is room.
//!
//! The disk is a small tmpfs the test mounts, so it runs as root where `mount` works (CI:
//! root on a fresh Debian VM); elsewhere it prints why it is skipped. [`Tmpfs`] unmounts on
//! drop, whatever the test's outcome.

use std::path::{Path, PathBuf};
use std::process::Command;

use testweb::TestWeb;

use super::child::{self, build_args, crawl_args};
use super::{indexed_docs, stored_whole};
use crate::support::{crawled, write_config_file};

/// A tmpfs mounted by the test; unmounted on drop.
struct Tmpfs {
    at: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`mount`'s spelling: `512k`) at `at` (created), or says why
    /// it cannot and gives `None`.
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        let root = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("Uid:"))
                    .map(|l| l.split_whitespace().nth(1) == Some("0"))
            })
            .unwrap_or(false);
        if !root {
            eprintln!("skipped: a full disk needs a tmpfs, and mounting one needs root");
            return None;
        }
        std::fs::create_dir_all(at).expect("mount point");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .output();
        match mounted {
            Ok(out) if out.status.success() => Some(Tmpfs {
                at: at.to_path_buf(),
            }),
            Ok(out) => {
                eprintln!(
                    "skipped: cannot mount a tmpfs: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                None
            }
            Err(error) => {
                eprintln!("skipped: cannot run mount: {error}");
                None
            }
        }
    }

    /// Gives the disk room: `size` now.
    fn grow(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.at)
            .status()
            .expect("mount runs");
        assert!(status.success(), "tmpfs grown");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let unmounted = Command::new("umount").arg(&self.at).status();
        if !unmounted.is_ok_and(|s| s.success()) {
            // Busy (a file still open): detach it now, it goes when the last file closes.
            let _ = Command::new("umount").arg("-l").arg(&self.at).status();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_stops_a_crawl_in_one_line_and_it_resumes_with_room() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let Some(disk) = Tmpfs::mount(&data, "1m") else {
        return;
    };
    let config = dir.path().join("crawl.toml");
    write_config_file(&web, &config, "");
    let args = crawl_args(&data, &config, &[web.url("big.test", "/")]);

    let full = child::run("crawler", &args, "").await;
    let line = full.failed_in_one_line("crawler");
    assert!(line.contains("no space left"), "{line}");
    assert!(
        line.contains(&data.join("store").display().to_string()),
        "{line}"
    );

    disk.grow("64m");
    let again = child::run("crawler", &args, "").await;
    assert!(again.succeeded(), "the crawl resumes with room: {again:?}");
    let expected: std::collections::BTreeSet<String> = testweb::big_site_paths()
        .iter()
        .map(|p| web.url("big.test", p))
        .collect();
    assert_eq!(stored_whole(&data), expected, "every page stored");
    drop(disk);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_stops_an_index_build_in_one_line_and_it_resumes_with_room() {
    let web = TestWeb::start().await;
    let dir = crawled(&web, "big.test").await;
    let data = dir.path();
    let index = data.join("index");
    let Some(disk) = Tmpfs::mount(&index, "256k") else {
        return;
    };

    let full = child::run("indexer", &build_args(data), "").await;
    let line = full.failed_in_one_line("indexer");
    assert!(line.contains("no space left"), "{line}");
    assert!(line.contains(&index.display().to_string()), "{line}");

    disk.grow("64m");
    let again = child::run("indexer", &build_args(data), "").await;
    assert!(again.succeeded(), "the build resumes with room: {again:?}");
    assert_eq!(indexed_docs(data), testweb::big_site_paths().len() as u64);
    drop(disk);
}
