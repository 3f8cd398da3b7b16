//! `searchd eval`: how good the ranking is, measured. Runs every query of a judged set
//! through a running server's `/api/search`, with the full ranking and with the plain BM25
//! baseline (`ranking=bm25`) over the same index, and prints MRR@10, nDCG@10 and recall@10
//! for both, query by query, and their means over the whole set and over each half
//! (`half = "tuning"` or `"held-out"`; a query without one is a tuning query). Another
//! engine's results over the same queries (`--runs NAME=FILE`, see [`parse_runs`]) are
//! scored by the same code, as a column of their own.
//!
//! A judged set is TOML: `[[query]]` tables with `q`, `best` (grade 2: the pages wanted
//! first) and `good` (grade 1: they also answer it), pages named by their path under the
//! site's root (`std/fs/fn.read_to_string.html`); one page published under several paths is
//! one entry, its paths separated by ` | `, and counts once. Results are compared by path,
//! so the set does not depend on the port the site was served from.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// Results looked at per query.
pub const CUTOFF: usize = 10;

/// A judged query set.
#[derive(Debug, Deserialize)]
pub struct Judgments {
    /// The queries.
    pub query: Vec<JudgedQuery>,
}

/// Which half of a judged set a query is in: the queries a ranking is tuned on, or those
/// kept aside to check it. A query without `half` is a tuning query: not marked as kept
/// aside, it cannot be assumed unseen.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Half {
    /// `half = "tuning"` (the default).
    #[default]
    Tuning,
    /// `half = "held-out"`.
    HeldOut,
}

impl Half {
    /// The name used in the judged set and in the output.
    pub fn label(self) -> &'static str {
        match self {
            Half::Tuning => "tuning",
            Half::HeldOut => "held-out",
        }
    }
}

/// One query and the pages that answer it.
#[derive(Debug, Deserialize)]
pub struct JudgedQuery {
    /// What a user types.
    pub q: String,
    /// Its half of the set.
    #[serde(default)]
    pub half: Half,
    /// Grade 2: the pages a user wants first.
    pub best: Vec<String>,
    /// Grade 1: pages that also answer it.
    #[serde(default)]
    pub good: Vec<String>,
}

impl JudgedQuery {
    /// The judged pages: each a set of paths, with its grade.
    fn items(&self) -> Vec<(Vec<&str>, u8)> {
        let graded = self
            .best
            .iter()
            .map(|entry| (entry, 2))
            .chain(self.good.iter().map(|entry| (entry, 1)));
        graded
            .map(|(entry, grade)| (entry.split(" | ").map(str::trim).collect(), grade))
            .collect()
    }
}

/// The figures of one ranked list.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scores {
    /// 1-based rank of the first grade-2 page within the cutoff.
    pub best_rank: Option<usize>,
    /// Reciprocal of `best_rank` (0 when none).
    pub reciprocal_rank: f64,
    /// Normalized discounted cumulative gain (gain 2^grade - 1, log2 discount).
    pub ndcg: f64,
    /// Judged pages found, over the judged pages that fit in the cutoff.
    pub recall: f64,
}

/// Scores one result list (paths, best first) against a judged query. A judged page found
/// again under another of its paths gains nothing the second time.
pub fn score(judged: &JudgedQuery, results: &[String]) -> Scores {
    let items = judged.items();
    let mut credited = vec![false; items.len()];
    let grades: Vec<u8> = results
        .iter()
        .take(CUTOFF)
        .map(|path| {
            let found = items
                .iter()
                .position(|(paths, _)| paths.contains(&path.as_str()));
            match found {
                Some(i) if !credited[i] => {
                    credited[i] = true;
                    items[i].1
                }
                _ => 0,
            }
        })
        .collect();
    let best_rank = grades.iter().position(|&g| g == 2).map(|i| i + 1);
    let dcg = |grades: &[u8]| -> f64 {
        grades
            .iter()
            .enumerate()
            .map(|(i, &g)| (2f64.powi(i32::from(g)) - 1.0) / (i as f64 + 2.0).log2())
            .sum()
    };
    let mut ideal: Vec<u8> = items.iter().map(|(_, grade)| *grade).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    ideal.truncate(CUTOFF);
    let ideal_dcg = dcg(&ideal);
    let judged_count = items.len().min(CUTOFF);
    let found = grades.iter().filter(|&&g| g > 0).count();
    Scores {
        best_rank,
        reciprocal_rank: best_rank.map_or(0.0, |r| 1.0 / r as f64),
        ndcg: if ideal_dcg > 0.0 {
            dcg(&grades) / ideal_dcg
        } else {
            0.0
        },
        recall: if judged_count > 0 {
            found as f64 / judged_count as f64
        } else {
            0.0
        },
    }
}

/// Reads a judged set.
pub fn load(path: &Path) -> Result<Judgments> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read judgments {}", path.display()))?;
    let judgments: Judgments =
        toml::from_str(&text).with_context(|| format!("invalid judgments {}", path.display()))?;
    if judgments.query.is_empty() {
        bail!("{} has no [[query]]", path.display());
    }
    Ok(judgments)
}

/// The path of a result URL under the site root: `http://host:port/a/b.html` -> `a/b.html`.
/// A directory's URL names its `index.html`, the file a static server (and the demo's site)
/// answers it with: `http://host:port/` -> `index.html`, `.../guide/` -> `guide/index.html`.
pub fn path_of(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => {
            let mut path = parsed.path().trim_start_matches('/').to_string();
            if path.is_empty() || path.ends_with('/') {
                path.push_str("index.html");
            }
            if let Some(query) = parsed.query() {
                path.push('?');
                path.push_str(query);
            }
            path
        }
        Err(_) => url.to_string(),
    }
}

/// The two rankings of the server compared, by name and `ranking=` parameter.
const RANKINGS: [(&str, &str); 2] = [("ours", "full"), ("bm25", "bm25")];

/// Another engine's results over the same judged set, scored beside the server's rankings
/// (`--runs NAME=FILE`).
#[derive(Debug)]
pub struct Run {
    /// The column's name (`omega`).
    pub name: String,
    /// Result paths per query text, best first; a judged query absent found nothing.
    pub results: HashMap<String, Vec<String>>,
}

/// Parses `NAME=FILE` of `--runs`.
pub fn parse_runs_arg(arg: &str) -> Result<(String, std::path::PathBuf)> {
    match arg.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => {
            if RANKINGS.iter().any(|(taken, _)| *taken == name)
                || name.contains(char::is_whitespace)
            {
                bail!("the name must be one word other than `ours` and `bm25`");
            }
            Ok((name.to_string(), file.into()))
        }
        _ => bail!("expected NAME=FILE"),
    }
}

/// Reads a runs file: one line per result, `QUERY<TAB>PATH`, each query's lines best first
/// (only its first 10 count); the path is under the site's root as in the judged set (a
/// leading `/` is dropped). Blank lines and lines starting with `#` are skipped. A query
/// that is not in `judgments` is an error (a typo would otherwise score as "found nothing").
pub fn parse_runs(name: &str, text: &str, judgments: &Judgments) -> Result<Run> {
    let mut results: HashMap<String, Vec<String>> = HashMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((query, path)) = line.split_once('\t') else {
            bail!("runs {name} line {}: expected QUERY<TAB>PATH", number + 1);
        };
        if !judgments.query.iter().any(|judged| judged.q == query) {
            bail!(
                "runs {name} line {}: {query:?} is not a judged query",
                number + 1
            );
        }
        let path = path.trim().trim_start_matches('/');
        results
            .entry(query.to_string())
            .or_default()
            .push(path.to_string());
    }
    Ok(Run {
        name: name.to_string(),
        results,
    })
}

/// Reads the runs file of `--runs NAME=FILE`.
pub fn load_runs(name: &str, file: &Path, judgments: &Judgments) -> Result<Run> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read runs {}", file.display()))?;
    parse_runs(name, &text, judgments).with_context(|| format!("in {}", file.display()))
}

/// The means over a set of queries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Queries summed over.
    pub queries: usize,
    /// Mean reciprocal rank of the first best page within the cutoff.
    pub mrr: f64,
    /// Mean nDCG@10.
    pub ndcg: f64,
    /// Mean recall@10.
    pub recall: f64,
    /// Queries whose first best page is in the top 3.
    pub top3: usize,
}

/// The means of `scores` (all zero for none).
pub fn summarize<'a>(scores: impl IntoIterator<Item = &'a Scores>) -> Summary {
    let scores: Vec<&Scores> = scores.into_iter().collect();
    let n = scores.len().max(1) as f64;
    let mean = |f: fn(&Scores) -> f64| scores.iter().map(|s| f(s)).sum::<f64>() / n;
    Summary {
        queries: scores.len(),
        mrr: mean(|s| s.reciprocal_rank),
        ndcg: mean(|s| s.ndcg),
        recall: mean(|s| s.recall),
        top3: scores
            .iter()
            .filter(|s| s.best_rank.is_some_and(|r| r <= 3))
            .count(),
    }
}

/// The summary of each half that has queries, tuning first, from `(half, scores)` rows.
pub fn summarize_by_half(rows: &[(Half, Scores)]) -> Vec<(Half, Summary)> {
    [Half::Tuning, Half::HeldOut]
        .into_iter()
        .filter(|half| rows.iter().any(|(h, _)| h == half))
        .map(|half| {
            let scores = rows.iter().filter(|(h, _)| *h == half).map(|(_, s)| s);
            (half, summarize(scores))
        })
        .collect()
}

/// A group of columns of the per-query table: its label (`best@`, then the engine's name)
/// and how one query's scores show in it.
type Metric = (&'static str, fn(&Scores) -> String);

/// The per-query table's column groups.
const METRICS: [Metric; 3] = [
    ("best@", |s| {
        s.best_rank.map_or("-".to_string(), |r| r.to_string())
    }),
    ("nDCG@", |s| format!("{:.3}", s.ndcg)),
    ("recall@", |s| format!("{:.3}", s.recall)),
];

/// Runs the judged set against the server at `base` (`http://127.0.0.1:8080`), with our
/// ranking and BM25, scores each of `runs` beside them and writes the table to `out`: a row
/// per query with its half, then each engine's means over all queries and over each half.
/// Returns the mean reciprocal rank of our ranking.
pub async fn run(
    base: &str,
    judgments: &Judgments,
    runs: &[Run],
    out: &mut (impl Write + Send),
) -> Result<f64> {
    // reqwest is built without a bundled TLS crypto provider (as in the crawler's fetcher); installing
    // it twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .build()
        .context("cannot build the HTTP client")?;
    let names: Vec<&str> = RANKINGS
        .iter()
        .map(|(name, _)| *name)
        .chain(runs.iter().map(|run| run.name.as_str()))
        .collect();
    // Per engine, (half, scores) per query.
    let mut rows: Vec<Vec<(Half, Scores)>> = vec![Vec::new(); names.len()];
    let column = |label: &str| label.len().max(6);
    let mut header = format!("{:<8} {:<36}", "half", "query");
    for (metric, _) in METRICS {
        header.push_str("  ");
        for name in &names {
            let label = format!("{metric}{name}");
            header.push_str(&format!(" {label:>w$}", w = column(&label)));
        }
    }
    writeln!(out, "{header}")?;
    for judged in &judgments.query {
        let mut row = Vec::new();
        for (_, param) in RANKINGS {
            let paths = results(&client, base, &judged.q, param).await?;
            row.push(score(judged, &paths));
        }
        for run in runs {
            let paths = run.results.get(&judged.q).map_or(&[][..], Vec::as_slice);
            row.push(score(judged, paths));
        }
        let mut line = format!("{:<8} {:<36}", judged.half.label(), judged.q);
        for (metric, show) in METRICS {
            line.push_str("  ");
            for (name, scores) in names.iter().zip(&row) {
                let w = column(&format!("{metric}{name}"));
                line.push_str(&format!(" {:>w$}", show(scores)));
            }
        }
        writeln!(out, "{line}")?;
        for (engine, scores) in row.into_iter().enumerate() {
            rows[engine].push((judged.half, scores));
        }
    }
    writeln!(out)?;
    let show = |out: &mut dyn Write, label: String, s: &Summary| {
        writeln!(
            out,
            "{label} MRR@10 {:.3}   nDCG@10 {:.3}   recall@10 {:.3}   best page in the top 3: {}/{}",
            s.mrr, s.ndcg, s.recall, s.top3, s.queries
        )
    };
    for (name, engine) in names.iter().zip(&rows) {
        show(
            out,
            format!("{name:<5}"),
            &summarize(engine.iter().map(|(_, s)| s)),
        )?;
    }
    writeln!(out)?;
    for (name, engine) in names.iter().zip(&rows) {
        for (half, summary) in summarize_by_half(engine) {
            show(out, format!("{name:<5} {:<8}", half.label()), &summary)?;
        }
    }
    Ok(summarize(rows[0].iter().map(|(_, s)| s)).mrr)
}

/// The result paths of one query, best first.
async fn results(
    client: &reqwest::Client,
    base: &str,
    query: &str,
    ranking: &str,
) -> Result<Vec<String>> {
    let endpoint = format!("{}/api/search", base.trim_end_matches('/'));
    let per_page = CUTOFF.to_string();
    let url = url::Url::parse_with_params(
        &endpoint,
        [("q", query), ("per_page", &per_page), ("ranking", ranking)],
    )
    .with_context(|| format!("bad server URL {base:?}"))?;
    let body = client
        .get(url)
        .send()
        .await
        .with_context(|| format!("cannot reach {endpoint}"))?
        .error_for_status()
        .with_context(|| format!("{endpoint} answered an error for {query:?}"))?
        .text()
        .await
        .with_context(|| format!("{endpoint} answer broke off"))?;
    let answer: serde_json::Value =
        serde_json::from_str(&body).with_context(|| format!("{endpoint} did not answer JSON"))?;
    Ok(answer["hits"]
        .as_array()
        .map(|hits| {
            hits.iter()
                .filter_map(|hit| hit["url"].as_str())
                .map(path_of)
                .collect()
        })
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged() -> JudgedQuery {
        JudgedQuery {
            q: "x".into(),
            half: Half::Tuning,
            best: vec!["a.html".into()],
            good: vec!["b.html".into(), "c.html".into()],
        }
    }

    fn list(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn best_first_is_perfect() {
        let s = score(&judged(), &list(&["a.html", "b.html", "c.html", "z.html"]));
        assert_eq!(s.best_rank, Some(1));
        assert_eq!(s.reciprocal_rank, 1.0);
        assert!((s.ndcg - 1.0).abs() < 1e-9);
        assert_eq!(s.recall, 1.0);
    }

    #[test]
    fn a_late_best_page_costs_rank_and_gain() {
        // Ranks: z (0), b (1), a (2). DCG = 1/log2(3) + 3/log2(4) = 0.6309 + 1.5 = 2.1309.
        // Ideal: a, b, c: 3/1 + 1/log2(3) + 1/log2(4) = 3 + 0.6309 + 0.5 = 4.1309.
        let s = score(&judged(), &list(&["z.html", "b.html", "a.html"]));
        assert_eq!(s.best_rank, Some(3));
        assert!((s.reciprocal_rank - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.ndcg - 2.1309 / 4.1309).abs() < 1e-3, "{}", s.ndcg);
        assert!((s.recall - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn no_best_page_in_the_cutoff_scores_zero_rank() {
        let mut paths = list(&["z.html"; 10]);
        paths.push("a.html".into());
        let s = score(&judged(), &paths);
        assert_eq!((s.best_rank, s.reciprocal_rank, s.recall), (None, 0.0, 0.0));
    }

    #[test]
    fn a_page_under_two_paths_counts_once() {
        let judged = JudgedQuery {
            q: "x".into(),
            half: Half::Tuning,
            best: vec!["std/a.html | core/a.html".into()],
            good: vec!["b.html".into()],
        };
        let s = score(&judged, &list(&["core/a.html", "std/a.html", "b.html"]));
        assert_eq!(s.best_rank, Some(1));
        // Gains 3, 0, 1 at ranks 1-3 against the ideal 3, 1.
        let ideal = 3.0 + 1.0 / 3f64.log2();
        assert!(
            (s.ndcg - (3.0 + 1.0 / 2.0) / ideal).abs() < 1e-9,
            "{}",
            s.ndcg
        );
        assert_eq!(s.recall, 1.0);
    }

    #[test]
    fn urls_become_paths_under_the_root() {
        assert_eq!(
            path_of("http://127.0.0.1:9/std/fs/index.html"),
            "std/fs/index.html"
        );
        assert_eq!(path_of("http://h.test/a?b=1"), "a?b=1");
        assert_eq!(path_of("http://127.0.0.1:9/"), "index.html");
        assert_eq!(path_of("http://127.0.0.1:9/std/"), "std/index.html");
    }

    /// Three queries, each wanting a.html first and b.html too: one tuning, one held-out,
    /// one without a half.
    fn halved() -> Judgments {
        toml::from_str(
            r#"
            [[query]]
            q = "one"
            half = "tuning"
            best = ["a.html"]
            good = ["b.html"]
            [[query]]
            q = "two"
            half = "held-out"
            best = ["a.html"]
            good = ["b.html"]
            [[query]]
            q = "three"
            best = ["a.html"]
            good = ["b.html"]
            "#,
        )
        .expect("judgments")
    }

    #[test]
    fn a_query_without_a_half_is_a_tuning_query() {
        let halves: Vec<Half> = halved().query.iter().map(|q| q.half).collect();
        assert_eq!(halves, [Half::Tuning, Half::HeldOut, Half::Tuning]);
        let bad = "[[query]]\nq = \"x\"\nhalf = \"heldout\"\nbest = [\"a.html\"]\n";
        assert!(toml::from_str::<Judgments>(bad).is_err());
    }

    #[test]
    fn runs_are_scored_per_half() {
        let judgments = halved();
        let text = "# omega\none\ta.html\ntwo\tz.html\ntwo\ty.html\ntwo\tx.html\ntwo\t/a.html\n";
        let run = parse_runs("omega", text, &judgments).expect("runs");
        assert_eq!(run.results["two"], ["z.html", "y.html", "x.html", "a.html"]);
        let rows: Vec<(Half, Scores)> = judgments
            .query
            .iter()
            .map(|q| {
                let paths = run.results.get(&q.q).map_or(&[][..], Vec::as_slice);
                (q.half, score(q, paths))
            })
            .collect();
        let halves = summarize_by_half(&rows);
        assert_eq!(halves.len(), 2);
        // Ideal DCG: a then b, 3 + 1/log2(3) = 3.6309.
        // "one": a first: RR 1, nDCG 3 / 3.6309 = 0.8262, recall 1/2.
        // "three": nothing: 0, 0, 0. Tuning means: MRR 0.5, nDCG 0.4131, recall 0.25.
        let (half, tuning) = halves[0];
        assert_eq!(half, Half::Tuning);
        assert_eq!((tuning.queries, tuning.top3), (2, 1));
        assert!((tuning.mrr - 0.5).abs() < 1e-9);
        assert!((tuning.ndcg - 0.4131).abs() < 1e-4, "{}", tuning.ndcg);
        assert!((tuning.recall - 0.25).abs() < 1e-9);
        // "two": a fourth: RR 0.25, nDCG (3 / log2(5)) / 3.6309 = 1.2920 / 3.6309 = 0.3558.
        let (half, held_out) = halves[1];
        assert_eq!(half, Half::HeldOut);
        assert_eq!((held_out.queries, held_out.top3), (1, 0));
        assert!((held_out.mrr - 0.25).abs() < 1e-9);
        assert!((held_out.ndcg - 0.3558).abs() < 1e-4, "{}", held_out.ndcg);
        assert!((held_out.recall - 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_half_without_queries_is_left_out() {
        let rows = [(Half::HeldOut, Scores::default())];
        let halves = summarize_by_half(&rows);
        assert_eq!(halves.len(), 1);
        assert_eq!(halves[0].0, Half::HeldOut);
    }

    #[test]
    fn bad_runs_files_are_refused_with_their_line() {
        let judgments = halved();
        let error = parse_runs("omega", "one\ta.html\none a.html\n", &judgments).unwrap_err();
        assert!(error.to_string().contains("line 2"), "{error}");
        let error = parse_runs("omega", "four\ta.html\n", &judgments).unwrap_err();
        assert!(error.to_string().contains("not a judged query"), "{error}");
    }

    #[test]
    fn runs_args_name_a_new_column_and_a_file() {
        let (name, file) = parse_runs_arg("omega=/tmp/o.tsv").expect("parsed");
        assert_eq!((name.as_str(), file), ("omega", "/tmp/o.tsv".into()));
        assert!(parse_runs_arg("ours=/tmp/o.tsv").is_err());
        assert!(parse_runs_arg("omega").is_err());
        assert!(parse_runs_arg("=x").is_err());
    }

    #[test]
    fn the_shipped_judgments_parse() {
        for set in ["judgments", "sqlite", "git", "apache"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../bench/relevance/{set}.toml"));
            let judgments = load(&path).expect("judgments");
            assert!(judgments.query.len() >= 40, "{set}: at least 40 queries");
            for q in &judgments.query {
                assert!(!q.best.is_empty(), "{set}: {}: a best page", q.q);
            }
            let held_out = judgments
                .query
                .iter()
                .filter(|q| q.half == Half::HeldOut)
                .count();
            assert_eq!(
                2 * held_out,
                judgments.query.len(),
                "{set}: halves of one size"
            );
        }
    }
}
