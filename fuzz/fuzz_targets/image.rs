//! Fuzz target `image`: see `sift_fuzz::bodies::image`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::image(data));
