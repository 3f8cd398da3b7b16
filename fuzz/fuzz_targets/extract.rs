//! Fuzz target `extract`: see `sift_fuzz::bodies::extract`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::extract(data));
