//! The root's merge of its shards' best documents (round 2 of [`crate::search`]): merged best
//! first and cut, near-copies folded under better results, the translations of one page folded
//! into one result, namesakes and a host's repeats demoted; what each result's explanation
//! gains from it.

use std::collections::HashMap;

use tantivy::Score;

use crate::accept_language::Preferred;
use crate::facets::Facets;
use crate::hit::{Order, Translation};
use crate::leaf::TopHit;
use crate::ranking::{Candidate, demote_namesakes, demote_repeats};
use crate::stats::ShardStats;

/// Round 2's outcome: the summed statistics, the matches in all, and each shard's best,
/// with the leaf that found it (0: this process, `i + 1`: remote leaf `i`).
pub(crate) struct Found {
    pub(crate) stats: ShardStats,
    pub(crate) crowding: bool,
    pub(crate) total: u64,
    pub(crate) hits: Vec<(usize, TopHit)>,
    pub(crate) facets: Facets,
}

/// The found documents merged best first (ties in the order found: leaf, shard, rank) and
/// cut to `limit`, near-copies folded under better results, translations of one page folded
/// into one result (at the best one's rank, shown in the language `preferred` wants most),
/// namesakes and host repeats demoted (the full ranking's); each candidate names its place
/// in `found.hits`. By [`Order::Date`]: newest first, ties best first, undated last; nothing
/// demoted (a demotion would move a page out of its date's place).
pub(crate) fn merge(
    found: &mut Found,
    limit: usize,
    full: bool,
    preferred: &Preferred,
    order: Order,
) -> Vec<Candidate> {
    match order {
        Order::Relevance => found.hits.sort_by(|a, b| b.1.score.total_cmp(&a.1.score)),
        Order::Date => found.hits.sort_by(|a, b| {
            let date = |hit: &TopHit| hit.date.unwrap_or(i64::MIN);
            date(&b.1)
                .cmp(&date(&a.1))
                .then(b.1.score.total_cmp(&a.1.score))
        }),
    }
    found.hits.truncate(limit);
    let mut candidates: Vec<Candidate> = Vec::with_capacity(found.hits.len());
    // Results kept so far, by body simhash and page name: a later near-copy folds under them.
    let mut kept: Vec<(u64, u64)> = Vec::new();
    // Sets of translations met so far: the candidate standing for each.
    let mut sets: HashMap<u64, usize> = HashMap::new();
    for (place, (_, top)) in found.hits.iter().enumerate() {
        if full {
            if top.translations != 0
                && let Some(&at) = sets.get(&top.translations)
            {
                let standing = &mut candidates[at];
                let shown = &found.hits[standing.place].1;
                if prefers(preferred, &top.lang, &shown.lang) {
                    standing.translations.push(standing.place);
                    standing.place = place;
                    standing.host = top.host.clone();
                    standing.name = top.name;
                } else {
                    standing.translations.push(place);
                }
                continue; // a translation of a better result: folded into it
            }
            if is_copy_of_kept(&kept, top.simhash, top.name) {
                continue; // a near-copy of a better result: folded under it
            }
            kept.push((top.simhash, top.name));
            if top.translations != 0 {
                sets.insert(top.translations, candidates.len());
            }
        }
        candidates.push(Candidate {
            score: top.score,
            place,
            host: top.host.clone(),
            name: top.name,
            namesakes: 0,
            repeats: 0,
            translations: Vec::new(),
        });
    }
    if order == Order::Relevance && full {
        demote_namesakes(&mut candidates);
    }
    if order == Order::Relevance && found.crowding {
        demote_repeats(&mut candidates);
    }
    candidates
}

/// What the root adds to a hit's explanation: the demotions on the merged list and the
/// final score.
pub(crate) fn demotions(candidate: &Candidate) -> [(&'static str, serde_json::Value); 5] {
    let power = |factor: Score, n: u32| factor.powi(n as i32);
    [
        ("namesakes", candidate.namesakes.into()),
        (
            "namesake_demotion",
            power(crate::ranking::NAMESAKE_DEMOTION, candidate.namesakes).into(),
        ),
        ("host_repeats", candidate.repeats.into()),
        (
            "host_demotion",
            power(crate::ranking::REPEAT_DEMOTION, candidate.repeats).into(),
        ),
        ("score", candidate.score.into()),
    ]
}

/// Whether a user preferring `preferred` would rather read `lang` than `shown`.
fn prefers(preferred: &Preferred, lang: &str, shown: &str) -> bool {
    match (preferred.rank(lang), preferred.rank(shown)) {
        (Some(new), Some(old)) => new < old,
        (Some(_), None) => true,
        _ => false,
    }
}

/// The translations folded into `candidate`, by language.
pub(crate) fn translations(found: &Found, candidate: &Candidate) -> Vec<Translation> {
    let mut out: Vec<Translation> = candidate
        .translations
        .iter()
        .filter_map(|&place| found.hits.get(place))
        .map(|(_, top)| Translation {
            lang: top.lang.clone(),
            url: top.url.clone(),
        })
        .collect();
    out.sort_by(|a, b| a.lang.cmp(&b.lang).then_with(|| a.url.cmp(&b.url)));
    out
}

/// Whether a result is a near-copy of one already kept: the same page name (see
/// `index_format::url_fields::page_name_key`) and body text within
/// [`shared::simhash::NEAR_DISTANCE`] bits.
/// Mirrors of one page under several paths (`core::pin::Pin` and `std::pin::Pin`,
/// `/v1/x.html` and `/latest/x.html`) show once, under the best of them.
fn is_copy_of_kept(kept: &[(u64, u64)], simhash: u64, name: u64) -> bool {
    simhash != 0
        && name != 0
        && kept.iter().any(|&(other, other_name)| {
            other_name == name && other != 0 && shared::simhash::is_near(other, simhash)
        })
}
