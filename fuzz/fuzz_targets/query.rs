//! Fuzz target `query`: see `sift_fuzz::bodies::query`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::query(data));
