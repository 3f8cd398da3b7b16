//! The layout's rules, checked on the source as rust-analyzer's tidy tests check theirs: no
//! source file over [`MAX_LINES`] lines of code that is not a test; no two files of a
//! crate that use each other, directly or round a circle (a file's own submodules and
//! ancestors aside: a module and its rooms are one unit); no two top-level modules of a
//! crate that do, counting every file under each (code, not comments); and serving never writes because
//! it cannot: the crates searchd serves through depend on neither writer, and only searchd's
//! demo names them. Each failure names the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a file may have before its tests.
const MAX_LINES: usize = 700;

/// The crates whose `src/` the rules cover (the workspace's, and the test web's).
const CRATES: [&str; 12] = [
    "shared",
    "robots",
    "warc",
    "image-reader",
    "pdf-reader",
    "index-format",
    "service",
    "crawler",
    "indexer",
    "gateway",
    "searchd",
    "tests",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package sits in the workspace")
        .to_path_buf()
}

/// One module of a crate: its path from the crate root and its file's code before its
/// inline tests.
struct Module {
    path: Vec<String>,
    file: PathBuf,
    code: String,
}

/// A file's lines before its inline `#[cfg(test)] mod ... { ... }`, if any.
fn code_before_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|pair| {
            pair[0].trim() == "#[cfg(test)]"
                && pair[1].starts_with("mod ")
                && pair[1].trim_end().ends_with('{')
        })
        .unwrap_or(lines.len());
    lines[..end].join("\n")
}

/// The submodules a file declares with `mod NAME;` that are not under `#[cfg(test)]`.
fn declared_modules(code: &str) -> Vec<String> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        let name = line
            .strip_prefix("pub mod ")
            .or_else(|| line.strip_prefix("pub(crate) mod "))
            .or_else(|| line.strip_prefix("mod "))
            .and_then(|rest| rest.strip_suffix(';'));
        let Some(name) = name else { continue };
        let attributes = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.trim().starts_with("#["));
        if attributes.into_iter().any(|a| a.contains("cfg(test)")) {
            continue;
        }
        found.push(name.to_string());
    }
    found
}

/// Every non-test module of the crate rooted at `root` (`src/lib.rs`).
fn modules(root: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let mut stack = vec![(Vec::new(), root.to_path_buf())];
    while let Some((path, file)) = stack.pop() {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let code = code_before_tests(&text);
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let dir = file.parent().expect("a file has a directory");
        let children_dir = if matches!(stem, "lib" | "main" | "mod") {
            dir.to_path_buf()
        } else {
            dir.join(stem)
        };
        for name in declared_modules(&code) {
            let flat = children_dir.join(format!("{name}.rs"));
            let nested = children_dir.join(&name).join("mod.rs");
            let child = if flat.is_file() { flat } else { nested };
            let mut child_path = path.clone();
            child_path.push(name);
            stack.push((child_path, child));
        }
        out.push(Module { path, file, code });
    }
    out
}

/// The module paths a file's code (not its comments) names through `crate::` and `super::`,
/// resolved from the file's own module path (each is cut later to the deepest module that
/// exists).
fn referenced_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    // Comments (doc links among them) name modules without using them.
    let code: String = code
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let segments = |rest: &str| -> Vec<String> {
        rest.split("::")
            .map(|s| {
                s.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .take_while(|s| !s.is_empty() && s.chars().next().is_some_and(|c| c.is_lowercase()))
            .collect()
    };
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
    ] {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::b, c};`: each name at the group's top level.
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for item in group.split(',') {
                    let mut path = base.clone();
                    path.extend(segments(item.trim()));
                    found.push(path);
                }
            } else {
                let mut path = base.clone();
                path.extend(segments(rest));
                found.push(path);
            }
        }
    }
    found
}

fn is_prefix(a: &[String], b: &[String]) -> bool {
    a.len() <= b.len() && a == &b[..a.len()]
}

/// Which module uses which, by module path: every path a module's code names, cut to the
/// deepest module that exists, a module's own ancestors and descendants left out (a module
/// and its rooms are one unit).
fn module_edges(modules: &[Module]) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let known: BTreeSet<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for module in modules {
        for mut target in referenced_paths(&module.path, &module.code) {
            while !known.contains(&target) {
                target.pop();
            }
            if is_prefix(&target, &module.path) || is_prefix(&module.path, &target) {
                continue;
            }
            edges.entry(module.path.clone()).or_default().insert(target);
        }
    }
    edges
}

/// Every cycle of `edges`, each as its nodes in order, found once (from its least node).
fn cycles<T: Ord + Clone>(edges: &BTreeMap<T, BTreeSet<T>>) -> Vec<Vec<T>> {
    let mut found = Vec::new();
    for start in edges.keys() {
        // A path back to `start` through nodes greater than it.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, trail)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    found.push(trail.clone());
                } else if next > start && seen.insert(next.clone()) {
                    let mut longer = trail.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found
}

/// The cycles among the files of the crate rooted at `root`, each as its files in order.
fn file_cycles(root: &Path) -> Vec<Vec<PathBuf>> {
    let modules = modules(root);
    let file_of: BTreeMap<&Vec<String>, &PathBuf> =
        modules.iter().map(|m| (&m.path, &m.file)).collect();
    cycles(&module_edges(&modules))
        .into_iter()
        .map(|cycle| cycle.iter().map(|path| file_of[path].clone()).collect())
        .collect()
}

/// The cycles among the top-level modules of the crate rooted at `root` (a module's files
/// taken together), each as its modules in order: `crawl -> cluster -> crawl` when a file
/// under `crawl` uses one under `cluster` and another under `cluster` uses one under `crawl`.
fn top_level_cycles(root: &Path) -> Vec<Vec<String>> {
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in module_edges(&modules(root)) {
        let Some(from) = from.first() else { continue };
        for target in targets {
            if let Some(to) = target.first()
                && to != from
            {
                top.entry(from.clone()).or_default().insert(to.clone());
            }
        }
    }
    cycles(&top)
}

fn crate_root(name: &str) -> PathBuf {
    workspace().join(name).join("src/lib.rs")
}

#[test]
fn no_source_file_is_over_seven_hundred_lines_before_its_tests() {
    let mut long = Vec::new();
    for name in CRATES {
        for module in modules(&crate_root(name)) {
            let lines = module.code.lines().count();
            if lines > MAX_LINES {
                long.push(format!("{} ({lines} lines)", module.file.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "split these by what they do (tests go in a file of their own): {long:#?}"
    );
}

#[test]
fn no_two_files_use_each_other() {
    let mut cycles = Vec::new();
    for name in CRATES {
        cycles.extend(file_cycles(&crate_root(name)));
    }
    assert!(
        cycles.is_empty(),
        "files that use each other (move what both need to a file of its own): {cycles:#?}"
    );
}

#[test]
fn no_two_top_level_modules_use_each_other() {
    // One direction through each crate: a module's files may use each other's through its
    // own folder, but two top-level modules never reach each other (invert the dependency:
    // the lower module defines a trait, the higher one implements it).
    let mut found = Vec::new();
    for name in CRATES {
        for cycle in top_level_cycles(&crate_root(name)) {
            found.push(format!("{name}: {}", cycle.join(" -> ")));
        }
    }
    assert!(
        found.is_empty(),
        "top-level modules that use each other: {found:#?}"
    );
}

#[test]
fn the_checks_fail_on_a_cycle_and_skip_tests() {
    // The rules must be able to fail: a crate whose two files use each other, as the
    // indexer's build.rs and writer.rs once did, and whose long test module is no code.
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("build")).expect("src");
    let write = |file: &str, text: &str| std::fs::write(src.join(file), text).expect("write");
    write(
        "lib.rs",
        "mod build;\nmod writer;\n#[cfg(test)]\nmod build_tests;\n",
    );
    write(
        "build.rs",
        "mod plan;\nuse crate::writer::write_documents;\n",
    );
    write("build/plan.rs", "use super::super::writer;\n");
    write(
        "writer.rs",
        "use crate::{Error, build::Target};\n#[cfg(test)]\nmod tests {\n}\n",
    );
    let cycles = file_cycles(&src.join("lib.rs"));
    assert_eq!(
        cycles,
        vec![vec![src.join("build.rs"), src.join("writer.rs")]],
        "one cycle, build.rs <-> writer.rs"
    );
    let paths: BTreeSet<String> = modules(&src.join("lib.rs"))
        .iter()
        .map(|m| m.path.join("::"))
        .collect();
    let expected: BTreeSet<String> = ["", "build", "build::plan", "writer"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(paths, expected, "the test module is not code");
}

#[test]
fn the_module_check_fails_on_a_cycle_through_inner_files_and_skips_comments() {
    // A planted cycle between two top-level modules through files deep inside each (as
    // crawl/partition.rs and cluster/held.rs once were), and a doc comment naming a third
    // module, which is no use of it.
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = dir.path().join("src");
    for folder in ["crawl", "cluster", "fetch"] {
        std::fs::create_dir_all(src.join(folder)).expect("src");
    }
    let write = |file: &str, text: &str| std::fs::write(src.join(file), text).expect("write");
    write("lib.rs", "mod cluster;\nmod crawl;\nmod fetch;\n");
    write("crawl.rs", "mod partition;\n");
    write(
        "crawl/partition.rs",
        "use crate::cluster::{Delivery, links};\n",
    );
    write("cluster.rs", "mod held;\n");
    write("cluster/held.rs", "use crate::crawl::PartitionRole;\n");
    write(
        "fetch.rs",
        "//! Booked by [`crate::cluster::AddressGate`].\nuse crate::crawl::Job;\n",
    );
    let root = src.join("lib.rs");
    assert!(file_cycles(&root).is_empty(), "no two files use each other");
    assert_eq!(
        top_level_cycles(&root),
        vec![vec!["cluster".to_string(), "crawl".to_string()]],
        "one cycle, cluster <-> crawl; fetch's comment names cluster without using it"
    );
    // Inverted (the crawl names only its own trait), the check passes.
    write("crawl/partition.rs", "pub(crate) trait OutboxSink {}\n");
    assert!(top_level_cycles(&root).is_empty());
}

/// The packages a manifest's `[dependencies]` names (not its dev- or build-dependencies).
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
        } else if in_dependencies && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            names.insert(name.trim_matches('"').to_string());
        }
    }
    names
}

#[test]
fn serving_links_no_writer() {
    // Serving never writes because it cannot: the crates searchd serves through depend on
    // neither the crawler (the store's writer) nor the indexer (the index's).
    for name in ["gateway", "index-format", "shared"] {
        let manifest =
            std::fs::read_to_string(workspace().join(name).join("Cargo.toml")).expect("manifest");
        let writers: Vec<String> = dependencies(&manifest)
            .into_iter()
            .filter(|dep| dep == "crawler" || dep == "indexer")
            .collect();
        assert!(writers.is_empty(), "{name} depends on {writers:?}");
    }
    // The reading must be able to fail.
    let sample = "[package]\nname = \"x\"\n[dependencies]\nshared.workspace = true\n\
                  crawler = { workspace = true }\n# indexer\n[dev-dependencies]\nindexer.workspace = true\n";
    let expected: BTreeSet<String> = ["crawler", "shared"].map(String::from).into();
    assert_eq!(dependencies(sample), expected);
}

#[test]
fn only_the_demo_reaches_the_writers_from_searchd() {
    // searchd links the crawler and the indexer for `searchd demo` alone.
    let src = workspace().join("searchd/src");
    let mut reaching = Vec::new();
    for module in modules(&src.join("lib.rs"))
        .into_iter()
        .chain(modules(&src.join("main.rs")))
    {
        let demo = module.path.first().is_some_and(|first| first == "demo");
        if !demo && (module.code.contains("crawler::") || module.code.contains("indexer::")) {
            reaching.push(module.file);
        }
    }
    assert!(
        reaching.is_empty(),
        "only demo/ may name crawler:: or indexer::: {reaching:?}"
    );
}
