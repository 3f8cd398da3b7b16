//! Query-time ranking on top of BM25: the link boost, the URL depth prior and host crowding.
//!
//! - The link boost multiplies a document's BM25 score by `1 + w * ln(1 + votes)`, where
//!   the votes are the in-links of the `inlinks` fast field with each one from a page of
//!   another host (`external_inlinks`) counted `ranking.external_link_weight` times: another
//!   site choosing to link says more than a site's own menus (`w` is `ranking.link_weight`).
//! - The PageRank boost multiplies it by `1 + p * log2(1 + rank * pages)` (`p` is
//!   `ranking.pagerank_weight`; the indexer stores the logarithm as a level).
//! - The depth prior divides it by `1 + d * (depth - 1)` for a URL `depth` path segments
//!   deep (`d` is `ranking.depth_weight`): a small preference for shallower pages.
//! - The prose prior multiplies it by `1 - c * (2s - 1)` when a share `s` of more than half
//!   the page's text is in `<pre>` code listings (`c` is `ranking.code_weight`): a
//!   source-code listing ranks below the documentation that explains the same words; a
//!   tutorial or an API page with examples between its prose is not touched.
//! - The thin-page prior multiplies it by `1 - t * (1 - words / 50)` for a page with fewer
//!   than [`THIN_WORDS`] words of text (`t` is `ranking.thin_weight`).
//! - Namesakes: a page with the same name (last path segment, see
//!   `index_format::url_fields::page_name_key`) as a better result of the same host, a mirror or another
//!   version of it that was not close enough to fold, is demoted by [`NAMESAKE_DEMOTION`]
//!   per earlier namesake, so `core::pin::Pin` does not push the next answer down below
//!   `std::pin::Pin`.
//! - Host crowding: when the best results come from more than one host, the second result
//!   of a host is demoted by [`REPEAT_DEMOTION`], the third by its square, and so on, so one
//!   big site cannot fill a page. Repeats are demoted, never dropped; when every candidate is
//!   on one host (a crawl of one site) the order is pure relevance.

use serde::{Deserialize, Serialize};
use shared::config::RankingConfig;
use tantivy::Score;

/// Factor applied once per earlier, better result of the same host.
pub const REPEAT_DEMOTION: f32 = 0.75;
/// Factor applied once per earlier, better result of the same host and page name.
pub const NAMESAKE_DEMOTION: f32 = 0.5;

/// The link votes of a document with `inlinks` in-links, `external` of them from other
/// hosts, each of those counting `external_weight` times.
pub fn link_votes(external_weight: f32, inlinks: u64, external: u64) -> f32 {
    let external = external.min(inlinks) as f32;
    (inlinks as f32 - external) + external_weight.max(0.0) * external
}

/// The link boost of a document with `votes` link votes (see [`link_votes`]).
pub fn link_boost(weight: f32, votes: f32) -> f32 {
    1.0 + weight * (1.0 + votes).ln()
}

/// The PageRank boost of a document at `level` (8: an average page): `1 + w * level / 8`,
/// i.e. `w` times `log2(1 + relative rank)`.
pub fn rank_boost(weight: f32, level: u64) -> f32 {
    1.0 + weight * level as f32 / 8.0
}

/// The prior of a page `depth` path segments deep: 1 at the root and one segment down, then
/// `1 / (1 + w * (depth - 1))`, so a shallower page wins a tie of text and links.
pub fn depth_prior(weight: f32, depth: u64) -> f32 {
    1.0 / (1.0 + weight * depth.saturating_sub(1) as f32)
}

/// The prose prior of a page with `code_percent` percent of its text in code listings.
pub fn prose_prior(weight: f32, code_percent: u64) -> f32 {
    let over_half = code_percent.clamp(50, 100) as f32 / 50.0 - 1.0;
    (1.0 - weight * over_half).max(0.0)
}

/// Fewer words than this in a page's text make it thin.
pub const THIN_WORDS: u64 = 50;

/// The thin-page prior of a page with `words` words of text: `1 - t * (1 - words / 50)` below
/// [`THIN_WORDS`], 1 from there on. A stub (a title and one line) matches its few words in
/// its title and URL, scores high on them, and answers little.
pub fn thin_prior(weight: f32, words: u64) -> f32 {
    let missing = 1.0 - words.min(THIN_WORDS) as f32 / THIN_WORDS as f32;
    (1.0 - weight * missing).max(0.0)
}

/// A page's query-independent signals, read from its fast fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageSignals {
    /// In-links from distinct pages.
    pub inlinks: u64,
    /// Those of them from pages of another host.
    pub external_inlinks: u64,
    /// Path segments of its URL.
    pub depth: u64,
    /// PageRank level.
    pub rank_level: u64,
    /// Share of its text in code listings, percent.
    pub code_percent: u64,
    /// Words of its own content.
    pub body_words: u64,
}

impl PageSignals {
    /// What multiplies the page's BM25 score: the link and PageRank boosts and the depth,
    /// prose and thin-page priors, with the weights of `ranking`.
    pub fn multiplier(&self, ranking: &RankingConfig) -> f32 {
        self.link_boost(ranking)
            * rank_boost(ranking.pagerank_weight, self.rank_level)
            * depth_prior(ranking.depth_weight, self.depth)
            * prose_prior(ranking.code_weight, self.code_percent)
            * thin_prior(ranking.thin_weight, self.body_words)
    }

    /// The link boost alone.
    pub fn link_boost(&self, ranking: &RankingConfig) -> f32 {
        let votes = link_votes(
            ranking.external_link_weight,
            self.inlinks,
            self.external_inlinks,
        );
        link_boost(ranking.link_weight, votes)
    }
}

/// A scored document with its host.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The score: BM25 times the link boost, then times the demotion.
    pub score: Score,
    /// Which of the root's found documents it is (an index into them).
    pub place: usize,
    /// Its host.
    pub host: String,
    /// Its page-name key (0: no name).
    pub name: u64,
    /// How many better results of the same host and name came before it.
    pub namesakes: u32,
    /// How many better results of the same host came before it (0 for the first).
    pub repeats: u32,
    /// The places of its translations folded under it (the same page in other languages).
    pub translations: Vec<usize>,
}

/// Demotes pages named like a better result of the same host and sorts best first (ties
/// keep their order). `candidates` must come best first.
pub fn demote_namesakes(candidates: &mut [Candidate]) {
    let mut seen: std::collections::HashMap<(&str, u64), u32> = std::collections::HashMap::new();
    let mut demotions = Vec::with_capacity(candidates.len());
    for candidate in candidates.iter() {
        let count = match candidate.name {
            0 => 0,
            name => {
                let count = seen.entry((&candidate.host, name)).or_insert(0);
                *count += 1;
                *count - 1
            }
        };
        demotions.push(count);
    }
    for (candidate, count) in candidates.iter_mut().zip(demotions) {
        candidate.namesakes = count;
        candidate.score *= NAMESAKE_DEMOTION.powi(count as i32);
    }
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
}

/// Demotes repeats of a host and sorts best first (ties keep their order). `candidates` must
/// come best first. Does nothing when all candidates share one host.
pub fn demote_repeats(candidates: &mut [Candidate]) {
    let Some(first) = candidates.first() else {
        return;
    };
    if candidates.iter().all(|c| c.host == first.host) {
        return;
    }
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for candidate in candidates.iter_mut() {
        let count = seen.entry(candidate.host.clone()).or_insert(0);
        candidate.repeats = *count;
        candidate.score *= REPEAT_DEMOTION.powi(*count as i32);
        *count += 1;
    }
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(list: &[(Score, &str)]) -> Vec<Candidate> {
        named(&list.iter().map(|&(s, h)| (s, h, 0)).collect::<Vec<_>>())
    }

    fn named(list: &[(Score, &str, u64)]) -> Vec<Candidate> {
        list.iter()
            .enumerate()
            .map(|(i, (score, host, name))| Candidate {
                score: *score,
                place: i,
                host: host.to_string(),
                name: *name,
                namesakes: 0,
                repeats: 0,
                translations: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn namesakes_of_a_host_move_down_but_stay() {
        let mut list = named(&[
            (10.0, "a", 7),
            (9.5, "a", 7),
            (9.0, "a", 8),
            (8.0, "b", 7),
            (7.0, "a", 0),
            (6.9, "a", 0),
            (4.0, "a", 7),
        ]);
        demote_namesakes(&mut list);
        // a/7: 10, 4.75, 1.0 (two before it); a/8: 9; b/7: 8 (another host); no name: kept.
        assert_eq!(order(&list), vec![0, 2, 3, 4, 5, 1, 6]);
        assert_eq!(list[5].namesakes, 1);
        assert_eq!(list[6].namesakes, 2);
        assert_eq!(list[6].score, 1.0);
    }

    fn order(list: &[Candidate]) -> Vec<usize> {
        list.iter().map(|c| c.place).collect()
    }

    #[test]
    fn repeats_of_a_host_move_down_but_stay() {
        let mut list = candidates(&[(10.0, "a"), (9.5, "a"), (9.0, "a"), (8.0, "b")]);
        demote_repeats(&mut list);
        // a: 10, 7.125, 5.0625; b: 8
        assert_eq!(order(&list), vec![0, 3, 1, 2]);
        assert_eq!(list[2].repeats, 1);
    }

    #[test]
    fn one_host_keeps_pure_relevance() {
        let mut list = candidates(&[(10.0, "a"), (9.5, "a"), (9.0, "a")]);
        demote_repeats(&mut list);
        assert_eq!(order(&list), vec![0, 1, 2]);
        assert_eq!(list[1].score, 9.5);
    }

    #[test]
    fn deeper_pages_get_a_smaller_prior() {
        assert_eq!(depth_prior(0.1, 0), 1.0);
        assert_eq!(depth_prior(0.1, 1), 1.0);
        assert!((depth_prior(0.1, 3) - 1.0 / 1.2).abs() < 1e-6);
        assert_eq!(depth_prior(0.0, 9), 1.0);
    }

    #[test]
    fn code_listings_get_a_smaller_prior() {
        assert_eq!(prose_prior(0.5, 0), 1.0);
        assert_eq!(prose_prior(0.5, 50), 1.0);
        assert!((prose_prior(0.5, 75) - 0.75).abs() < 1e-6);
        assert_eq!(prose_prior(0.5, 100), 0.5);
        assert_eq!(prose_prior(0.5, 180), 0.5);
        assert_eq!(prose_prior(2.0, 100), 0.0);
        assert_eq!(prose_prior(0.0, 100), 1.0);
    }

    #[test]
    fn thin_pages_get_a_smaller_prior() {
        assert_eq!(thin_prior(0.5, 0), 0.5);
        assert!((thin_prior(0.5, 25) - 0.75).abs() < 1e-6);
        assert_eq!(thin_prior(0.5, THIN_WORDS), 1.0);
        assert_eq!(thin_prior(0.5, 10_000), 1.0);
        assert_eq!(thin_prior(0.0, 0), 1.0);
    }

    #[test]
    fn the_multiplier_is_every_signal_together() {
        let signals = PageSignals {
            inlinks: 9,
            external_inlinks: 0,
            depth: 3,
            rank_level: 16,
            code_percent: 75,
            body_words: 25,
        };
        let ranking = RankingConfig::default();
        let expected = link_boost(ranking.link_weight, 9.0)
            * rank_boost(ranking.pagerank_weight, 16)
            * depth_prior(ranking.depth_weight, 3)
            * prose_prior(ranking.code_weight, 75)
            * thin_prior(ranking.thin_weight, 25);
        assert_eq!(signals.multiplier(&ranking), expected);
        assert!(expected < 1.0 && expected > 0.0, "{expected}");
    }

    #[test]
    fn link_boost_is_log_damped() {
        assert_eq!(link_boost(0.2, 0.0), 1.0);
        assert!((link_boost(0.2, 9.0) - (1.0 + 0.2 * 10f32.ln())).abs() < 1e-6);
        assert_eq!(link_boost(0.0, 1000.0), 1.0);
    }

    #[test]
    fn links_from_other_hosts_count_more() {
        assert_eq!(link_votes(4.0, 10, 0), 10.0);
        assert_eq!(link_votes(4.0, 10, 2), 8.0 + 8.0);
        assert_eq!(link_votes(1.0, 10, 2), 10.0, "weight 1: a link is a link");
        assert_eq!(link_votes(4.0, 1, 5), 4.0, "never more external than all");
        let ranking = RankingConfig::default();
        let signals = |inlinks, external_inlinks| PageSignals {
            inlinks,
            external_inlinks,
            depth: 1,
            rank_level: 8,
            code_percent: 0,
            body_words: 100,
        };
        assert!(signals(3, 3).link_boost(&ranking) > signals(6, 0).link_boost(&ranking));
    }
}
