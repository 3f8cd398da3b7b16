//! Generations: `DATA/index/gen-NNNNNN/` directories, the `CURRENT` file naming the one in
//! use, the build lock, and the atomic switch.
//!
//! `CURRENT` is replaced atomically: written to a temporary file, fsynced, renamed over the
//! old one, and the directory fsynced. A reader sees the old name or the new one, and the
//! generation it names is complete (a new generation is committed before it is named).
//!
//! Failpoints (compiled in for the fault-injection tests only, see `tests/e2e/faults.rs`):
//! `index_format::generation::before_switch` (the new generation committed, `CURRENT` not yet
//! touched), then in the write of `CURRENT`: `index_format::generation::current_written` (the
//! temporary file written, not yet fsynced), `::current_synced` (fsynced, not yet renamed)
//! and `::current_renamed` (renamed, the directory not yet fsynced). An injected error is an
//! I/O error on `CURRENT`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use tracing::{info, warn};

use crate::Error;

const CURRENT: &str = "CURRENT";
const LOCK: &str = "LOCK";
const PREFIX: &str = "gen-";

/// `DATA/index`.
pub fn index_dir(data: &Path) -> PathBuf {
    data.join("index")
}

/// The file whose change tells searchd to reopen: `DATA/index/CURRENT`.
pub fn current_generation_marker(data: &Path) -> PathBuf {
    index_dir(data).join(CURRENT)
}

/// The directory of a generation.
pub fn generation_dir(data: &Path, name: &str) -> PathBuf {
    index_dir(data).join(name)
}

/// The generation `CURRENT` names, or `None` when no index was built yet.
pub fn current_generation(data: &Path) -> Result<Option<String>, Error> {
    let path = current_generation_marker(data);
    let name = match std::fs::read_to_string(&path) {
        Ok(name) => name.trim().to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    if number(&name).is_none() {
        return Err(Error::BadCurrent { path, name });
    }
    Ok(Some(name))
}

/// The number of a generation name (`gen-000042` -> 42).
fn number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The name of generation `n`.
pub fn name(n: u64) -> String {
    format!("{PREFIX}{n:06}")
}

/// Every generation directory, by number.
fn generations(data: &Path) -> Result<Vec<(u64, String)>, Error> {
    let dir = index_dir(data);
    let mut found: Vec<(u64, String)> = std::fs::read_dir(&dir)
        .map_err(|e| Error::io(&dir, e))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter_map(|name| Some((number(&name)?, name)))
        .collect();
    found.sort();
    Ok(found)
}

/// A name for a new generation: one past every generation on disk, including a half-built
/// one left by a crashed build (the next switch removes that one).
pub fn next_generation(data: &Path) -> Result<String, Error> {
    let last = generations(data)?.last().map_or(0, |(n, _)| *n);
    // A CURRENT that names no generation is about to be replaced: it does not count.
    let current = current_generation(data)
        .ok()
        .flatten()
        .as_deref()
        .and_then(number)
        .unwrap_or(0);
    Ok(name(last.max(current) + 1))
}

/// Names `generation` in `CURRENT`, atomically.
pub fn switch_current(data: &Path, generation: &str) -> Result<(), Error> {
    fail_point!("index_format::generation::before_switch", |_| Err(
        injected(
            &current_generation_marker(data),
            "index_format::generation::before_switch"
        )
    ));
    write_atomically(
        &current_generation_marker(data),
        format!("{generation}\n").as_bytes(),
    )?;
    info!(generation, "CURRENT switched");
    Ok(())
}

/// Removes every generation but `current` and `previous` (a searchd may still be reading the
/// previous one). A directory that cannot be removed is left with a warning.
pub fn remove_old(data: &Path, current: &str, previous: Option<&str>) -> Result<(), Error> {
    for (_, name) in generations(data)? {
        if name == current || Some(name.as_str()) == previous {
            continue;
        }
        let path = generation_dir(data, &name);
        match std::fs::remove_dir_all(&path) {
            Ok(()) => info!(generation = name, "old generation removed"),
            Err(error) => warn!(path = %path.display(), %error, "cannot remove an old generation"),
        }
    }
    Ok(())
}

/// Held while a build runs: one build at a time per data directory. The OS releases it when
/// the process ends, so a killed build leaves no stale lock.
pub struct BuildLock {
    _file: File,
}

/// Takes the build lock of `data`, creating `DATA/index` if needed.
pub fn lock(data: &Path) -> Result<BuildLock, Error> {
    let dir = index_dir(data);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let path = dir.join(LOCK);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(BuildLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::Locked(dir)),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(path, e)),
    }
}

/// Writes a file so that readers see the old content or the new, never a part of it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    file.write_all(bytes).map_err(|e| Error::io(&tmp, e))?;
    // The failpoints of this function are those of `CURRENT`'s switch, not the state file's.
    fail_point!(
        "index_format::generation::current_written",
        path.ends_with(CURRENT),
        |_| Err(injected(&tmp, "index_format::generation::current_written"))
    );
    file.sync_all().map_err(|e| Error::io(&tmp, e))?;
    drop(file);
    fail_point!(
        "index_format::generation::current_synced",
        path.ends_with(CURRENT),
        |_| Err(injected(&tmp, "index_format::generation::current_synced"))
    );
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
    fail_point!(
        "index_format::generation::current_renamed",
        path.ends_with(CURRENT),
        |_| Err(injected(path, "index_format::generation::current_renamed"))
    );
    if let Some(dir) = path.parent() {
        // Makes the rename itself durable; not every platform can open a directory.
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
    }
    Ok(())
}

/// The error a failpoint injects: an I/O error on `path` at `point`.
#[cfg(feature = "failpoints")]
fn injected(path: &Path, point: &str) -> Error {
    Error::io(
        path,
        std::io::Error::other(format!("injected fault at failpoint {point}")),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use super::*;

    #[test]
    fn names_and_numbers() {
        assert_eq!(name(1), "gen-000001");
        assert_eq!(number("gen-000042"), Some(42));
        assert_eq!(number("gen-1234567"), Some(1_234_567));
        for bad in [
            "gen-",
            "gen-12a",
            "../gen-1",
            "gen--1",
            "CURRENT",
            "gen-000001.tmp",
        ] {
            assert_eq!(number(bad), None, "{bad}");
        }
    }

    #[test]
    fn current_switches_and_old_generations_go() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path();
        let _lock = lock(data).unwrap();
        assert!(
            matches!(lock(data), Err(Error::Locked(_))),
            "one build at a time"
        );
        assert_eq!(current_generation(data).unwrap(), None);
        assert_eq!(next_generation(data).unwrap(), "gen-000001");

        for n in 1..=3 {
            std::fs::create_dir(generation_dir(data, &name(n))).unwrap();
        }
        assert_eq!(next_generation(data).unwrap(), "gen-000004");
        switch_current(data, "gen-000003").unwrap();
        assert_eq!(
            current_generation(data).unwrap().as_deref(),
            Some("gen-000003")
        );
        remove_old(data, "gen-000003", Some("gen-000002")).unwrap();
        assert!(!generation_dir(data, "gen-000001").exists());
        assert!(generation_dir(data, "gen-000002").exists());

        std::fs::write(current_generation_marker(data), "../../etc").unwrap();
        assert!(matches!(
            current_generation(data),
            Err(Error::BadCurrent { .. })
        ));
    }
}
