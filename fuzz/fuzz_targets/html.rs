//! Fuzz target `html`: see `sift_fuzz::bodies::html`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::html(data));
