//! The PDF reader against real child processes: this test binary re-entered as the child
//! ([`child_entry`]), and plain programs (`sleep`, `sh`, `yes`) standing for children that
//! hang, die or flood. Each hostile PDF ends in its status with this process alive and its
//! memory where it was: the child holds the parser's memory.

use std::time::Duration;

use super::confine::{confine, status_kib};
use super::fixtures::{self, PAGE_WORDS, TITLE};
use super::wire::{LIMITS_ENV, limits_from_env};
use super::*;

/// Set (with the limits) when the child entry is to spin on the CPU instead of reading.
const SPIN_ENV: &str = "SIFT_PDF_TEST_SPIN";

/// Not a test of its own: when the parent hands limits over, this process is the child and
/// answers as `crawler pdf-text` does; with [`SPIN_ENV`] too, it confines itself and spins.
#[test]
fn child_entry() {
    if std::env::var_os(LIMITS_ENV).is_none() {
        return;
    }
    if std::env::var_os(SPIN_ENV).is_some() {
        let limits = limits_from_env().expect("limits");
        confine(&limits).expect("confined");
        let mut spins = 0u64;
        loop {
            spins = std::hint::black_box(spins.wrapping_add(1));
        }
    }
    run_child().expect("the answer is written");
}

/// A reader re-entering this test binary as its child.
fn reader(limits: PdfLimits) -> PdfReader {
    PdfReader::new(own_child(), limits)
}

/// This test binary, running [`child_entry`] alone.
fn own_child() -> ChildCommand {
    ChildCommand {
        program: std::env::current_exe().expect("test binary path"),
        args: [
            "--exact",
            "tests::child_entry",
            "--nocapture",
            "--test-threads=1",
        ]
        .map(Into::into)
        .to_vec(),
        env: Vec::new(),
    }
}

/// A reader running `sh -c script`.
fn shell(script: &str, limits: PdfLimits) -> PdfReader {
    let command = ChildCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        env: Vec::new(),
    };
    PdfReader::new(command, limits)
}

/// This process's resident memory.
fn rss_bytes() -> u64 {
    status_kib("VmRSS:").expect("VmRSS") * 1024
}

#[tokio::test]
async fn a_three_page_pdf_gives_its_words_title_metadata_and_page_count() {
    let outcome = reader(PdfLimits::default())
        .read(fixtures::three_pages())
        .await;
    let PdfOutcome::Read(document) = outcome else {
        panic!("not read: {outcome:?}");
    };
    assert_eq!(document.title.as_deref(), Some(TITLE));
    assert_eq!(document.author.as_deref(), Some("Åsa Dahill"));
    assert_eq!(document.subject.as_deref(), Some("Fixtures"));
    assert_eq!(document.keywords, None);
    assert_eq!(
        document.created.as_deref(),
        Some("2024-03-01T10:20:30+01:00")
    );
    assert_eq!((document.pages, document.pages_read), (3, 3));
    assert!(!document.cut);
    let at = PAGE_WORDS.map(|word| document.text.find(word).expect(word));
    assert!(
        at[0] < at[1] && at[1] < at[2],
        "pages out of order: {document:?}"
    );
}

#[tokio::test]
async fn pages_and_text_past_their_caps_are_left_out_and_the_text_is_marked_cut() {
    let limits = PdfLimits {
        max_pages: 2,
        ..PdfLimits::default()
    };
    let PdfOutcome::Read(document) = reader(limits).read(fixtures::three_pages()).await else {
        panic!("not read");
    };
    assert_eq!(
        (document.pages, document.pages_read, document.cut),
        (3, 2, true)
    );
    assert!(document.text.contains(PAGE_WORDS[1]) && !document.text.contains(PAGE_WORDS[2]));

    let limits = PdfLimits {
        max_text_bytes: 20,
        ..PdfLimits::default()
    };
    let PdfOutcome::Read(document) = reader(limits).read(fixtures::three_pages()).await else {
        panic!("not read");
    };
    assert!(document.cut && document.text.len() <= 20, "{document:?}");
    assert!(!document.text.contains(PAGE_WORDS[1]), "{document:?}");
}

#[tokio::test]
async fn a_flate_bomb_inflates_only_in_the_child_and_only_to_its_memory_limit() {
    let bomb = fixtures::flate_bomb(1 << 30);
    assert!(bomb.len() < 16 << 10, "the bomb is {} bytes", bomb.len());
    let before = rss_bytes();
    let limits = PdfLimits {
        memory_bytes: 128 << 20,
        ..PdfLimits::default()
    };
    let outcome = reader(limits).read(bomb).await;
    // Either an allocation at the limit aborted the child, or the inflater's own buffer
    // refused to grow (`read_to_end` reserves fallibly) and lopdf fell back to the stream's
    // raw bytes: no gigabyte became text either way.
    match &outcome {
        PdfOutcome::ParseCrash(_) => {}
        PdfOutcome::Read(document) => assert!(document.text.len() < 1024, "{outcome:?}"),
        other => panic!("{other:?}"),
    }
    let grown = rss_bytes().saturating_sub(before);
    assert!(grown < 64 << 20, "this process grew by {grown} bytes");
}

#[tokio::test]
async fn nesting_10000_deep_is_refused_by_the_parser() {
    let outcome = reader(PdfLimits::default())
        .read(fixtures::deep_nesting(10_000))
        .await;
    // lopdf stops at 100 levels; the catalog holding the nesting is unreadable, so no page
    // is found.
    let PdfOutcome::Malformed(reason) = outcome else {
        panic!("not malformed: {outcome:?}");
    };
    assert!(reason.contains("no page"), "{reason}");
}

#[tokio::test]
async fn a_page_tree_that_is_its_own_parent_or_kid_is_malformed() {
    let outcome = reader(PdfLimits::default())
        .read(fixtures::self_parent_tree())
        .await;
    let PdfOutcome::Malformed(reason) = outcome else {
        panic!("not malformed: {outcome:?}");
    };
    assert!(reason.contains("page tree loops"), "{reason}");
    // lopdf's walk of the tree visits each object once at most: the page behind the loop is
    // never reached.
    let outcome = reader(PdfLimits::default())
        .read(fixtures::self_kid_tree())
        .await;
    let PdfOutcome::Malformed(reason) = outcome else {
        panic!("not malformed: {outcome:?}");
    };
    assert!(reason.contains("no page"), "{reason}");
}

#[tokio::test]
async fn an_xref_table_that_is_its_own_predecessor_is_read_once() {
    let outcome = reader(PdfLimits::default())
        .read(fixtures::xref_loop())
        .await;
    let PdfOutcome::Read(document) = outcome else {
        panic!("not read: {outcome:?}");
    };
    assert_eq!(document.pages, 3);
    assert!(document.text.contains(PAGE_WORDS[2]), "{document:?}");
}

#[tokio::test]
async fn an_encrypted_pdf_is_reported_encrypted() {
    let outcome = reader(PdfLimits::default())
        .read(fixtures::encrypted())
        .await;
    assert_eq!(outcome, PdfOutcome::Encrypted);
}

#[tokio::test]
async fn bytes_that_are_not_a_pdf_are_not_a_pdf() {
    let html = b"<!doctype html><title>PDF</title><p>%PDF- is not at the start".repeat(40);
    let outcome = reader(PdfLimits::default()).read(html).await;
    assert_eq!(outcome, PdfOutcome::NotPdf);
}

#[tokio::test]
async fn every_truncation_of_a_pdf_has_a_status_and_never_a_panic_here() {
    let whole = fixtures::three_pages();
    let reader = reader(PdfLimits::default());
    let before = rss_bytes();
    for cut in (0..whole.len())
        .step_by(whole.len() / 36)
        .chain([whole.len() - 1])
    {
        let outcome = reader.read(whole[..cut].to_vec()).await;
        match &outcome {
            PdfOutcome::Read(document) => assert!(document.pages <= 3, "cut at {cut}"),
            PdfOutcome::NotPdf => assert!(cut < 5, "cut at {cut}: {outcome:?}"),
            PdfOutcome::Malformed(_) | PdfOutcome::ParseCrash(_) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    let grown = rss_bytes().saturating_sub(before);
    assert!(grown < 64 << 20, "this process grew by {grown} bytes");
}

#[tokio::test]
async fn a_child_spinning_past_its_cpu_seconds_is_a_parse_timeout() {
    let mut command = own_child();
    command.env.push((SPIN_ENV.into(), "1".into()));
    let limits = PdfLimits {
        cpu_secs: 1,
        wall: Duration::from_secs(120),
        ..PdfLimits::default()
    };
    let outcome = PdfReader::new(command, limits)
        .read(fixtures::three_pages())
        .await;
    assert_eq!(outcome, PdfOutcome::ParseTimeout);
}

#[tokio::test]
async fn a_child_blocked_past_the_wall_clock_deadline_is_killed_as_a_parse_timeout() {
    let limits = PdfLimits {
        wall: Duration::from_millis(500),
        ..PdfLimits::default()
    };
    let outcome = shell("exec sleep 600", limits)
        .read(fixtures::three_pages())
        .await;
    assert_eq!(outcome, PdfOutcome::ParseTimeout);
}

#[tokio::test]
async fn children_that_die_or_flood_their_answer_are_parse_crashes() {
    let limits = PdfLimits::default();
    let cases = [
        ("cat >/dev/null; kill -SEGV $$", "signal 11"),
        ("cat >/dev/null; echo 'it broke' >&2; exit 3", "it broke"),
        ("exec yes sift", "more than"),
    ];
    // A MiB of input: more than a pipe holds, so a child that never reads it (`yes`) must
    // not hold up the reading of its answer.
    let input = [fixtures::three_pages(), vec![b' '; 1 << 20]].concat();
    for (script, reason) in cases {
        let outcome = shell(script, limits).read(input.clone()).await;
        let PdfOutcome::ParseCrash(said) = &outcome else {
            panic!("{script}: {outcome:?}");
        };
        assert!(said.contains(reason), "{script}: {said}");
    }
}

#[tokio::test]
async fn a_pdf_over_the_input_cap_is_never_handed_to_a_child() {
    let limits = PdfLimits {
        max_input_bytes: 100,
        ..PdfLimits::default()
    };
    let nowhere = ChildCommand {
        program: "/nonexistent/sift-pdf-child".into(),
        args: Vec::new(),
        env: Vec::new(),
    };
    let outcome = PdfReader::new(nowhere.clone(), limits)
        .read(vec![b'%'; 101])
        .await;
    assert_eq!(
        outcome,
        PdfOutcome::TooLarge {
            bytes: 101,
            limit: 100
        }
    );
    let outcome = PdfReader::new(nowhere, limits).read(vec![b'%'; 100]).await;
    assert!(matches!(outcome, PdfOutcome::ChildFailed(_)), "{outcome:?}");
}

#[tokio::test]
async fn no_more_children_run_at_once_than_the_reader_has_slots() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lock = dir.path().join("running");
    // A child that finds another running exits 7; one alone sleeps a little, then exits 9.
    let script = format!(
        "cat >/dev/null; mkdir '{0}' 2>/dev/null || exit 7; sleep 0.05; rmdir '{0}'; exit 9",
        lock.display()
    );
    let command = ChildCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        env: Vec::new(),
    };
    let reader = PdfReader::with_slots(command, PdfLimits::default(), 1);
    let reads = (0..6).map(|_| reader.read(b"%PDF-1.7".to_vec()));
    for outcome in futures_util::future::join_all(reads).await {
        let PdfOutcome::ParseCrash(said) = &outcome else {
            panic!("{outcome:?}");
        };
        assert!(said.contains("exit status: 9"), "{said}");
    }
}

/// PDFs per second through the child, spawn included: `cargo test -p crawler --lib
/// pdf::tests::throughput -- --ignored --nocapture`. The child is this test binary, or the
/// binary `SIFT_PDF_BENCH_PROGRAM` names, run as `PROGRAM pdf-text` (a `crawler` build).
#[tokio::test]
#[ignore = "a measurement, not a test: prints figures"]
async fn throughput() {
    let pdf = fixtures::three_pages();
    let command = match std::env::var_os("SIFT_PDF_BENCH_PROGRAM") {
        Some(program) => ChildCommand {
            program: program.into(),
            args: vec!["pdf-text".into()],
            env: Vec::new(),
        },
        None => own_child(),
    };
    println!("child: {}", command.program.display());
    for slots in [1, 2] {
        let reader = PdfReader::with_slots(command.clone(), PdfLimits::default(), slots);
        let count = 40;
        let started = std::time::Instant::now();
        let reads = (0..count).map(|_| reader.read(pdf.clone()));
        let outcomes = futures_util::future::join_all(reads).await;
        let elapsed = started.elapsed();
        assert!(outcomes.iter().all(|o| matches!(o, PdfOutcome::Read(_))));
        println!(
            "{slots} slot(s): {count} three-page PDFs in {elapsed:.2?}: {:.1} PDFs/s",
            f64::from(count) / elapsed.as_secs_f64()
        );
    }
}
