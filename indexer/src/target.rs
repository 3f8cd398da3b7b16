//! `Target`: the generation a build writes, and how a build chooses it ([`BuildMode`]): the
//! current generation, updated in place, when an incremental build can trust its state;
//! otherwise a new one, which the build switches `CURRENT` to at the end.

use std::path::{Path, PathBuf};

use index_format::{DocState, generation, generation_dir, schema};
use tantivy::Index;
use tracing::warn;

use crate::Error;

/// How much to rebuild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildMode {
    /// Update the current generation with the documents that changed (a new generation when
    /// there is none yet, or its state cannot be trusted).
    Incremental,
    /// Write a new generation and switch `CURRENT` to it.
    Full,
}

/// The generation a build writes.
pub(crate) struct Target {
    /// Its name (`gen-NNNNNN`).
    pub(crate) name: String,
    /// Its directory.
    pub(crate) dir: PathBuf,
    /// Its index.
    pub(crate) index: Index,
    /// The documents it holds now.
    pub(crate) state: DocState,
    /// A new generation (switched to at the end).
    pub(crate) fresh: bool,
    /// The generation `CURRENT` named before.
    pub(crate) previous: Option<String>,
}

impl Target {
    /// The generation a build in `mode` writes: the current one, when an incremental
    /// build can trust it, else a new one.
    pub(crate) fn choose(data: &Path, mode: BuildMode) -> Result<Self, Error> {
        let current = match generation::current_generation(data) {
            Err(error @ index_format::Error::BadCurrent { .. }) => {
                warn!(%error, "ignoring CURRENT; writing a new generation");
                None
            }
            other => other?,
        };
        if let (BuildMode::Incremental, Some(name)) = (mode, &current)
            && let Some(target) = Self::reuse(data, name)?
        {
            return Ok(target);
        }
        Self::create(data, current)
    }

    /// The current generation, if an incremental build can trust it.
    fn reuse(data: &Path, name: &str) -> Result<Option<Self>, Error> {
        let dir = generation_dir(data, name);
        let distrust = |why: &str| {
            warn!(
                generation = name,
                why, "writing a new generation instead of updating"
            );
            Ok(None)
        };
        if !dir.is_dir() {
            return distrust("its directory is missing");
        }
        let Some(state) = DocState::load(&dir) else {
            return distrust("its document state is missing or old");
        };
        let index = match Index::open_in_dir(&dir) {
            Ok(index) => index,
            Err(_) => return distrust("it does not open"),
        };
        index_format::tokenize::register(&index);
        if index.schema() != schema() {
            return distrust("its schema differs");
        }
        if index.load_metas()?.payload.as_deref() != Some(state.payload().as_str()) {
            return distrust("its document state does not match its last commit");
        }
        Ok(Some(Self {
            name: name.to_string(),
            dir,
            index,
            state,
            fresh: false,
            previous: None,
        }))
    }

    /// After a successful write: a fresh generation becomes `CURRENT` and older ones are
    /// removed; a generation updated in place is already current. A failed switch removes
    /// the fresh generation unless `CURRENT` names it.
    pub(crate) fn switch(&self, data: &Path) -> Result<(), Error> {
        if !self.fresh {
            return Ok(());
        }
        if let Err(error) = generation::switch_current(data, &self.name) {
            // Not named (yet): the next build's `remove_old` removes it if this one cannot.
            if generation::current_generation(data)
                .ok()
                .flatten()
                .as_deref()
                != Some(self.name.as_str())
            {
                let _ = std::fs::remove_dir_all(&self.dir);
            }
            return Err(error.into());
        }
        generation::remove_old(data, &self.name, self.previous.as_deref())?;
        Ok(())
    }

    fn create(data: &Path, current: Option<String>) -> Result<Self, Error> {
        let name = generation::next_generation(data)?;
        let dir = generation_dir(data, &name);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let index = Index::create_in_dir(&dir, schema())?;
        index_format::tokenize::register(&index);
        Ok(Self {
            name,
            dir,
            index,
            state: DocState::new(),
            fresh: true,
            previous: current,
        })
    }
}
