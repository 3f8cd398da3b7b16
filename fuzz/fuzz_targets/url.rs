//! Fuzz target `url`: see `sift_fuzz::bodies::url`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::url(data));
