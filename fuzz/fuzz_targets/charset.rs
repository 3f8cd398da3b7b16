//! Fuzz target `charset`: see `sift_fuzz::bodies::charset`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::charset(data));
