//! The image tab: images indexed apart from pages, searched by what names them and ranked
//! with a quality prior. A shard's image index is opened with its page index
//! (`shard/image_index.rs`); here `query.rs` reads an image request, `search.rs` runs it
//! (the words that name an image, times `prior.rs`'s quality prior), `render.rs` draws the
//! grid and `handlers.rs` answers its routes (results, thumbnails). Tests: `tests.rs`
//! (ranking, folding, filters, paging), `coverage_tests.rs` (which images a search reaches),
//! `routes_tests.rs` (the routes over a real socket), on fixtures from `testutil.rs`.

pub(crate) mod handlers;
mod prior;
pub(crate) mod query;
mod render;
pub(crate) mod search;

#[cfg(test)]
mod coverage_tests;
#[cfg(test)]
mod routes_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;
