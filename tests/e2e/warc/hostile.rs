//! Hostile WARC files: a bad `Content-Length` (no number, too long), a truncated gzip
//! member, a record over the size limit, each reported with its offset and skipped while
//! the rest of the file is imported; a file that is no WARC fails in one line, importing
//! nothing.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Parser;
use crawler::archive::{Damage, ImportDamage, ImportSummary, Problem};
use shared::config::{CrawlerConfig, RawCrawlerConfig};

use crate::support::stored_urls;

fn url(page: &str) -> String {
    format!("http://archive.test/{page}.html")
}

/// A `response` record of `page` (its word in its title and text), its `Content-Length`
/// as given (`None`: the true one), the page `padding` bytes longer.
fn response(page: &str, length: Option<&str>, padding: usize) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>{page}</title><p>{page} {}</p>",
        "x".repeat(padding)
    );
    let length = length.map_or_else(|| http.len().to_string(), str::to_string);
    format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {}\r\n\
         WARC-Date: 2024-05-06T12:53:20Z\r\nContent-Type: application/http;msgtype=response\r\n\
         Content-Length: {length}\r\n\r\n{http}\r\n\r\n",
        url(page)
    )
    .into_bytes()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("compressed");
    encoder.finish().expect("compressed")
}

/// `parts` written one after the other to a file; returns it and each part's offset.
fn file(dir: &Path, name: &str, parts: &[Vec<u8>]) -> (PathBuf, Vec<u64>) {
    let mut offsets = Vec::new();
    let mut bytes = Vec::new();
    for part in parts {
        offsets.push(bytes.len() as u64);
        bytes.extend_from_slice(part);
    }
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("written");
    (path, offsets)
}

fn config() -> CrawlerConfig {
    RawCrawlerConfig {
        max_body_bytes: 4096,
        ..RawCrawlerConfig::default()
    }
    .validate()
    .expect("valid")
}

/// Imports `files` into `data`: the summary and every problem reported.
fn import(data: &Path, files: &[PathBuf]) -> (ImportSummary, Vec<Problem>) {
    let mut problems = Vec::new();
    let summary =
        crawler::archive::import(data, files, &config(), &mut |_, p| problems.push(p.clone()))
            .expect("the import runs");
    (summary, problems)
}

fn urls(pages: &[&str]) -> std::collections::BTreeSet<String> {
    pages.iter().map(|p| url(p)).collect()
}

#[test]
fn a_record_whose_content_length_is_no_number_or_too_long_is_skipped_and_the_rest_imported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let records = [
        response("alpha", None, 0),
        response("bravo", Some("12abc"), 0),
        response("charlie", None, 0),
        response("delta", Some("3000"), 0),
        response("echo", None, 0),
    ];
    let members: Vec<Vec<u8>> = records.iter().map(|r| gzip(r)).collect();
    let (gzipped, at) = file(dir.path(), "members.warc.gz", &members);
    let (plain, plain_at) = file(dir.path(), "plain.warc", &records);
    for (warc, at) in [(gzipped, at), (plain, plain_at)] {
        let name = warc.file_name().expect("a name").to_string_lossy();
        let data = dir.path().join(format!("data-{name}"));
        let (summary, problems) = import(&data, std::slice::from_ref(&warc));
        assert_eq!(
            stored_urls(&data),
            urls(&["alpha", "charlie", "echo"]),
            "{warc:?}: {problems:?}"
        );
        assert_eq!(summary.stored, 3);
        assert_eq!(summary.damaged, 2);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].at.offset, at[1]);
        assert_eq!(
            problems[0].damage,
            ImportDamage::Record(Damage::BadLength {
                value: "12abc".into()
            })
        );
        assert_eq!(problems[1].at.offset, at[3], "{warc:?}");
        // In its own gzip member the record ends before 3000 bytes; in a plain file its
        // block runs into the record after it, which is still found.
        assert!(
            matches!(
                problems[1].damage,
                ImportDamage::Record(
                    Damage::Truncated { length: 3000, .. }
                        | Damage::LengthMismatch { length: 3000 }
                )
            ),
            "{warc:?}: {problems:?}"
        );
        assert!(
            problems[1]
                .to_string()
                .starts_with(&format!("offset {}: Content-Length 3000", at[3])),
            "{}",
            problems[1]
        );
    }
}

#[test]
fn a_truncated_gzip_member_is_skipped_and_the_members_after_it_imported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cut = gzip(&response("bravo", None, 2000));
    let members = [
        gzip(&response("alpha", None, 0)),
        cut[..cut.len() / 2].to_vec(),
        gzip(&response("charlie", None, 0)),
        gzip(&response("delta", None, 0)),
    ];
    let (warc, at) = file(dir.path(), "cut.warc.gz", &members);
    let data = dir.path().join("data");
    let (summary, problems) = import(&data, &[warc]);
    assert_eq!(stored_urls(&data), urls(&["alpha", "charlie", "delta"]));
    assert_eq!(summary.damaged, 1);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].at.offset, at[1]);
    assert!(
        matches!(
            problems[0].damage,
            ImportDamage::Record(Damage::Gzip { .. })
        ),
        "{problems:?}"
    );
}

#[test]
fn a_record_over_the_size_limit_is_skipped_and_the_rest_imported() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The limit: 4096 bytes of body and 128 KiB of headers.
    let records = [
        response("alpha", None, 0),
        response("bravo", None, 200 * 1024),
        response("charlie", None, 0),
    ];
    let members: Vec<Vec<u8>> = records.iter().map(|r| gzip(r)).collect();
    for (name, parts) in [("big.warc.gz", &members[..]), ("big.warc", &records[..])] {
        let (warc, at) = file(dir.path(), name, parts);
        let data = dir.path().join(format!("data-{name}"));
        let (summary, problems) = import(&data, &[warc]);
        assert_eq!(stored_urls(&data), urls(&["alpha", "charlie"]), "{name}");
        assert_eq!(summary.damaged, 1);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].at.offset, at[1]);
        assert!(
            matches!(problems[0].damage, ImportDamage::Record(Damage::OverLimit { limit, .. }) if limit == 4096 + 128 * 1024),
            "{problems:?}"
        );
    }
}

#[tokio::test]
async fn a_file_that_is_no_warc_fails_in_one_line_and_nothing_is_imported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (good, _) = file(
        dir.path(),
        "good.warc.gz",
        &[gzip(&response("alpha", None, 0))],
    );
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<!doctype html><p>not an archive</p>").expect("written");
    let data = dir.path().join("data");
    let args = [
        "crawler",
        "import",
        "--data",
        data.to_str().expect("UTF-8"),
        "--warc",
        good.to_str().expect("UTF-8"),
        page.to_str().expect("UTF-8"),
    ];
    let cli = crawler::cli::Cli::try_parse_from(args).expect("the arguments parse");
    let mut stderr = Vec::new();
    let code = shared::logging::exit_code("crawler", crawler::cli::run(cli).await, &mut stderr);
    let said = String::from_utf8(stderr).expect("UTF-8");
    assert_eq!(code, std::process::ExitCode::FAILURE);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.contains(&format!(
            "{} is not a WARC file: it starts with \"<!doctype html><\"",
            page.display()
        )),
        "{said}"
    );
    assert!(!data.exists(), "nothing imported, no store made");
}
