//! Fuzz target `robots`: see `sift_fuzz::bodies::robots`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::robots(data));
