//! The fuzz targets' bodies (see `bodies.rs`), as a library the targets in `fuzz_targets/`
//! call. The end-to-end tests include the same file to replay the committed corpus.

pub mod bodies;
