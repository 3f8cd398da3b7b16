//! `DocState`: what a generation holds, as `url -> fingerprint`, kept in
//! `gen-NNNNNN/state.json` for the next incremental build.
//!
//! Each commit carries the state's build number as its tantivy payload. An incremental build
//! trusts the state only when the numbers match (a build that died between its commit and
//! its state write cannot mislead the next one), and when it was written by this format
//! version; otherwise it writes a new generation instead.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::FORMAT_VERSION;
use crate::generation::write_atomically;

const FILE: &str = "state.json";

/// The documents of a generation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocState {
    /// [`FORMAT_VERSION`] of the build that wrote it.
    pub format: u32,
    /// Counts the commits of this generation; equals the commit payload.
    pub build: u64,
    /// URL -> fingerprint of every document in the generation.
    pub docs: BTreeMap<String, u64>,
    /// The newest store change number the last build read (`shared::PageRecord::change`):
    /// pages with a higher one changed since.
    #[serde(default)]
    pub store_change: u64,
}

impl DocState {
    /// An empty state for a new generation.
    pub fn new() -> Self {
        Self {
            format: FORMAT_VERSION,
            build: 0,
            docs: BTreeMap::new(),
            store_change: 0,
        }
    }

    /// The commit payload that matches this state.
    pub fn payload(&self) -> String {
        format!("build {}", self.build)
    }

    /// Reads the state of a generation: `None` when it is missing, unreadable or of another
    /// format version (each of which means "build a new generation").
    pub fn load(gen_dir: &Path) -> Option<Self> {
        let path = gen_dir.join(FILE);
        let bytes = std::fs::read(&path).ok()?;
        let state: DocState = serde_json::from_slice(&bytes).ok()?;
        (state.format == FORMAT_VERSION).then_some(state)
    }

    /// Writes the state of a generation, atomically.
    pub fn save(&self, gen_dir: &Path) -> Result<(), Error> {
        let path = gen_dir.join(FILE);
        let bytes = serde_json::to_vec(self).map_err(|e| Error::State {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        write_atomically(&path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(DocState::load(dir.path()), None);
        let mut state = DocState::new();
        state.build = 3;
        state.docs.insert("http://a.test/".into(), 42);
        state.save(dir.path()).unwrap();
        assert_eq!(DocState::load(dir.path()), Some(state.clone()));
        assert_eq!(state.payload(), "build 3");

        state.format = FORMAT_VERSION + 1;
        state.save(dir.path()).unwrap();
        assert_eq!(DocState::load(dir.path()), None, "another format version");
        std::fs::write(dir.path().join(FILE), "{not json").unwrap();
        assert_eq!(DocState::load(dir.path()), None);
    }
}
