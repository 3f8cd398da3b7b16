//! The reader's open path: the generation `CURRENT` names, with the tokenizers registered and
//! every field looked up.

use std::path::Path;

use crate::generation::{current_generation, generation_dir};
use crate::schema::IndexFields;
use crate::state::DocState;
use crate::{Error, tokenize};

/// The index a reader should use now.
pub struct CurrentIndex {
    /// The tantivy index of the current generation.
    pub index: tantivy::Index,
    /// The generation's name (`gen-NNNNNN`).
    pub generation: String,
    /// Its fields.
    pub fields: IndexFields,
}

/// Opens the generation `CURRENT` names, or `None` when no index was built yet.
pub fn open_current(data: &Path) -> Result<Option<CurrentIndex>, Error> {
    let Some(generation) = current_generation(data)? else {
        return Ok(None);
    };
    let dir = generation_dir(data, &generation);
    if !dir.is_dir() {
        return Err(Error::MissingGeneration(dir));
    }
    let index = tantivy::Index::open_in_dir(&dir)?;
    tokenize::register(&index);
    let fields = IndexFields::new(&index.schema())?;
    Ok(Some(CurrentIndex {
        index,
        generation,
        fields,
    }))
}

/// The newest store change number a generation holds (see
/// `shared::PageRecord::change`): `None` when its state is missing or of another format.
pub fn indexed_store_change(data: &Path, generation: &str) -> Option<u64> {
    DocState::load(&generation_dir(data, generation)).map(|state| state.store_change)
}
