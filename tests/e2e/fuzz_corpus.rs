//! The fuzz corpus as a regression test: every file committed under `fuzz/corpus/<target>/`
//! goes through its target's body (`fuzz/src/bodies.rs`, included here as it is, so the
//! laws are the fuzzer's own), without building libFuzzer. A crash the fuzzer found and
//! that was fixed stays fixed: its input is in the corpus.

use std::path::Path;

#[path = "../../fuzz/src/bodies.rs"]
mod bodies;

#[test]
fn fuzz_corpus_replays_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut failed = Vec::new();
    for (target, body) in bodies::TARGETS {
        let dir = root.join(target);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a readable corpus folder").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no corpus for {target}");
        for file in files {
            let data = std::fs::read(&file).expect("a readable corpus file");
            if std::panic::catch_unwind(|| body(&data)).is_err() {
                failed.push(file.display().to_string());
            }
        }
    }
    assert!(
        failed.is_empty(),
        "inputs that panic:\n{}",
        failed.join("\n")
    );
}
