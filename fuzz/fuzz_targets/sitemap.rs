//! Fuzz target `sitemap`: see `sift_fuzz::bodies::sitemap`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::bodies::sitemap(data));
