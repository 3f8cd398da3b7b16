//! One headless Chromium, started by the crawler and driven over a pipe.
//!
//! The browser gets the DevTools protocol on fds 3 and 4 (`--remote-debugging-pipe`; a shell
//! maps the child's stdin and stdout there, so no `unsafe` pre-exec code is needed) and no
//! network of its own: every name resolves nowhere (`--host-resolver-rules`) and every
//! connection it would still make (an IP literal, a WebSocket) goes to a proxy on a closed
//! loopback port. Every request a page makes is paused and answered by the crawler
//! ([`super::network`]).
//!
//! No browser outlives the crawler: when the crawler's end of the pipe closes (its exit, a
//! crash, `kill -9`) the browser quits, and its processes follow; `setpriv --pdeathsig KILL`
//! kills it too if the crawler dies first. Dropping a [`Browser`] kills it and removes its
//! profile directory.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use shared::config::{Resource, ResourceSet};
use tokio::process::{Child, Command};
use tokio::time::Instant;

use super::RenderError;
use super::cdp::Cdp;

/// How long a browser may take to start and answer its first call.
const START_DEADLINE: Duration = Duration::from_secs(30);
/// How long a stopped browser's processes may take to be gone.
const EXIT_WAIT: Duration = Duration::from_secs(10);

/// A running browser.
pub(crate) struct Browser {
    cdp: Cdp,
    child: Child,
    profile: PathBuf,
}

impl Browser {
    /// Starts `program` with its profile in `profile` (made, and removed when the browser
    /// is dropped) and waits until it answers.
    pub(crate) async fn launch(
        program: &Path,
        profile: PathBuf,
        fetched: ResourceSet,
    ) -> Result<Self, RenderError> {
        std::fs::create_dir_all(&profile).map_err(|error| {
            RenderError::Launch(format!("profile {}: {error}", profile.display()))
        })?;
        let mut command = Command::new("sh");
        // fd 3: what the browser reads; fd 4: what it writes. Its own output is dropped.
        command
            .arg("-c")
            .arg(r#"exec "$@" 3<&0 4>&1 0</dev/null 1>/dev/null"#)
            .arg("sh");
        if let Some(setpriv) = find_program("setpriv") {
            command.arg(setpriv).args(["--pdeathsig", "KILL", "--"]);
        }
        command
            .arg(program)
            .args(flags(&profile, fetched))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .map_err(|error| RenderError::Launch(format!("{}: {error}", program.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(RenderError::Launch("no pipe to the browser".into()));
        };
        let browser = Self {
            cdp: Cdp::start(stdin, stdout),
            child,
            profile,
        };
        let started = tokio::time::timeout(
            START_DEADLINE,
            browser.cdp.call(None, "Browser.getVersion", json!({})),
        )
        .await;
        match started {
            Ok(Ok(_)) => Ok(browser),
            Ok(Err(error)) => Err(RenderError::Launch(format!(
                "{} did not start: {error} (run it by hand with --headless to see why)",
                program.display()
            ))),
            Err(_) => Err(RenderError::Launch(format!(
                "{} did not answer within {START_DEADLINE:?}",
                program.display()
            ))),
        }
    }

    /// The connection to it.
    pub(crate) fn cdp(&self) -> &Cdp {
        &self.cdp
    }

    /// The memory its processes use together (proportional set size, so pages shared
    /// between them count once), found by their profile directory.
    pub(crate) fn memory_bytes(&self) -> u64 {
        processes_of(&self.profile)
            .into_iter()
            .map(|pid| proportional_set_size(pid).unwrap_or(0))
            .sum()
    }

    /// Stops the browser and waits, [`EXIT_WAIT`] at most, until none of its processes is
    /// left, so that a successor does not start beside them.
    pub(crate) async fn shut_down(mut self) {
        let _ = self.child.start_kill();
        let until = Instant::now() + EXIT_WAIT;
        let _ = tokio::time::timeout_at(until, self.child.wait()).await;
        while !processes_of(&self.profile).is_empty() && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        // Its other processes quit as the pipe closes; the profile goes with them.
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// The browser's command line after the program; `fetched` are the request types a page
/// may make (images and fonts not among them are not even asked for).
fn flags(profile: &Path, fetched: ResourceSet) -> Vec<String> {
    let mut flags: Vec<String> = [
        "--headless",
        "--remote-debugging-pipe",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--disable-breakpad",
        "--disable-gpu",
        "--disable-gpu-compositing",
        // Every tab renders at full speed: none is a background tab to throttle.
        "--disable-background-timer-throttling",
        "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
        "--mute-audio",
        "--hide-scrollbars",
        "--dns-prefetch-disable",
        "--password-store=basic",
        // The scripts and style sheets it is told to keep, bounded on disk.
        "--disk-cache-size=67108864",
        "--use-mock-keychain",
        "--disable-features=Translate,MediaRouter,OptimizationHints,DnsOverHttps,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
        // No network of its own: no name resolves, and what needs none goes to a closed port.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        // A script's heap is bounded: a page that grows without end crashes its renderer.
        "--js-flags=--max-old-space-size=512",
    ]
    .map(String::from)
    .to_vec();
    if !fetched.contains(Resource::Image) {
        flags.push("--blink-settings=imagesEnabled=false".into());
    }
    if !fetched.contains(Resource::Font) {
        flags.push("--disable-remote-fonts".into());
    }
    if running_as_root() {
        // Chromium refuses to start its sandbox as root (containers, CI).
        flags.push("--no-sandbox".into());
    }
    flags.push(format!("--user-data-dir={}", profile.display()));
    flags.push("about:blank".into());
    flags
}

/// `program` as given when it is a path, else found on `PATH`.
pub(crate) fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return path.is_file().then_some(path);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|line| line.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    })
}

/// The processes whose command line names `profile` (every process of one browser).
pub(super) fn processes_of(profile: &Path) -> Vec<u32> {
    let needle = format!("--user-data-dir={}", profile.display());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| holds_arg(&cmdline, needle.as_bytes()))
        })
        .collect()
}

/// Whether the command line `cmdline` holds the argument `arg` whole. Arguments are
/// NUL-separated, except in the browser's renderers and helpers: Chromium rewrites their
/// title, and their command line becomes one line of space-joined arguments.
pub(super) fn holds_arg(cmdline: &[u8], arg: &[u8]) -> bool {
    !arg.is_empty()
        && cmdline.windows(arg.len()).enumerate().any(|(at, window)| {
            window == arg && matches!(cmdline.get(at + arg.len()), None | Some(0 | b' '))
        })
}

fn proportional_set_size(pid: u32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let kib: u64 = rollup
        .lines()
        .find_map(|line| line.strip_prefix("Pss:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}
