//! `searchd eval`: how good the ranking is, measured. Runs every query of a judged set
//! through a running server's `/api/search`, with the full ranking and with the plain BM25
//! baseline (`ranking=bm25`) over the same index, and prints MRR@10, nDCG@10 and recall@10
//! for both, query by query.
//!
//! A judged set is TOML: `[[query]]` tables with `q`, `best` (grade 2: the pages wanted
//! first) and `good` (grade 1: they also answer it), pages named by their path under the
//! site's root (`std/fs/fn.read_to_string.html`); one page published under several paths is
//! one entry, its paths separated by ` | `, and counts once. Results are compared by path,
//! so the set does not depend on the port the site was served from.

use std::collections::HashMap;
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

/// One query and the pages that answer it.
#[derive(Debug, Deserialize)]
pub struct JudgedQuery {
    /// What a user types.
    pub q: String,
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
pub fn path_of(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => {
            let mut path = parsed.path().trim_start_matches('/').to_string();
            if let Some(query) = parsed.query() {
                path.push('?');
                path.push_str(query);
            }
            path
        }
        Err(_) => url.to_string(),
    }
}

/// The two rankings compared.
const RANKINGS: [(&str, &str); 2] = [("ours", "full"), ("bm25", "bm25")];

/// Runs the judged set against the server at `base` (`http://127.0.0.1:8080`) and prints
/// the table; returns the mean reciprocal rank of our ranking.
pub async fn run(base: &str, judgments: &Judgments) -> Result<f64> {
    // reqwest is built without a bundled TLS crypto provider (as in the crawler's fetcher); installing
    // it twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .build()
        .context("cannot build the HTTP client")?;
    let mut totals: HashMap<&str, Vec<Scores>> = HashMap::new();
    println!(
        "{:<36} {:>9} {:>9}   {:>6} {:>6}   {:>6} {:>6}",
        "query", "best@ours", "best@bm25", "nDCG", "(bm25)", "recall", "(bm25)"
    );
    for judged in &judgments.query {
        let mut row = Vec::new();
        for (name, param) in RANKINGS {
            let paths = results(&client, base, &judged.q, param).await?;
            let scores = score(judged, &paths);
            totals.entry(name).or_default().push(scores);
            row.push(scores);
        }
        let rank = |s: &Scores| s.best_rank.map_or("-".to_string(), |r| r.to_string());
        println!(
            "{:<36} {:>9} {:>9}   {:>6.3} {:>6.3}   {:>6.3} {:>6.3}",
            judged.q,
            rank(&row[0]),
            rank(&row[1]),
            row[0].ndcg,
            row[1].ndcg,
            row[0].recall,
            row[1].recall
        );
    }
    println!();
    let mut ours = 0.0;
    for (name, _) in RANKINGS {
        let scores = &totals[name];
        let n = scores.len() as f64;
        let mean = |f: fn(&Scores) -> f64| scores.iter().map(f).sum::<f64>() / n;
        let mrr = mean(|s| s.reciprocal_rank);
        let top3 = scores
            .iter()
            .filter(|s| s.best_rank.is_some_and(|r| r <= 3))
            .count();
        println!(
            "{name:<5} MRR@10 {mrr:.3}   nDCG@10 {:.3}   recall@10 {:.3}   best page in the top 3: {top3}/{}",
            mean(|s| s.ndcg),
            mean(|s| s.recall),
            scores.len()
        );
        if name == "ours" {
            ours = mrr;
        }
    }
    Ok(ours)
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
    }

    #[test]
    fn the_shipped_judgments_parse() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/relevance/judgments.toml");
        let judgments = load(&path).expect("judgments");
        assert!(judgments.query.len() >= 40, "at least 40 queries");
        for q in &judgments.query {
            assert!(!q.best.is_empty(), "{}: a best page", q.q);
        }
    }
}
