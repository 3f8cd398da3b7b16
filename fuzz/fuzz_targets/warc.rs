//! Fuzz target `warc`: see `sift_fuzz::bodies::warc`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::warc(data));
