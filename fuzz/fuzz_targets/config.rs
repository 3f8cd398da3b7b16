//! Fuzz target `config`: see `sift_fuzz::bodies::config`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::config(data));
