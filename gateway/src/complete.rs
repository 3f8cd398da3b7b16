//! Completions of what a searcher types (`/suggest`): each shard's phrases
//! (`index_format::completions`, written beside its generation), merged over the local
//! shards and the remote leaves as one index's would be: a phrase several shards hold
//! weighs their weights summed.

use std::collections::HashMap;

use index_format::completions::{Completion, KEPT, best_first, typed_prefix};
use serde::{Deserialize, Serialize};

use crate::leaf::LocalShards;
use crate::search::Searcher;

/// What a root asks a leaf for (`POST /leaf/complete`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompleteRequest {
    /// The prefix, as [`typed_prefix`] made it.
    pub prefix: String,
    /// The most phrases wanted.
    pub limit: usize,
}

impl LocalShards {
    /// The best phrases of this process's shards beginning with `prefix` (normalized).
    pub fn complete(&self, prefix: &str, limit: usize) -> Vec<Completion> {
        merge(
            self.shards().iter().filter_map(|shard| {
                let loaded = shard.current()?;
                Some(loaded.completions.as_ref()?.complete(prefix, limit))
            }),
            limit,
        )
    }
}

impl Searcher {
    /// The phrases offered for what was `typed`, best first: at most `limit` (and
    /// [`KEPT`]), none for a blank, overlong or control-character prefix. A leaf that does
    /// not answer leaves its phrases out.
    pub fn complete(&self, typed: &str, limit: usize) -> Vec<String> {
        let Some(prefix) = typed_prefix(typed) else {
            return Vec::new();
        };
        let limit = limit.min(KEPT);
        let request = CompleteRequest {
            prefix: prefix.clone(),
            limit,
        };
        let pending: Vec<_> = self
            .leaves()
            .iter()
            .map(|leaf| leaf.ask::<Vec<Completion>>("/leaf/complete", &request))
            .collect();
        let local = self.local().complete(&prefix, limit);
        let remote = pending.into_iter().filter_map(|answer| {
            answer
                .wait()
                .inspect_err(|error| tracing::debug!(%error, "no completions from a leaf"))
                .ok()
        });
        merge(std::iter::once(local).chain(remote), limit)
            .into_iter()
            .map(|completion| completion.phrase)
            .collect()
    }
}

/// The best `limit` of several shards' lists, a phrase's weights summed over them.
fn merge(lists: impl IntoIterator<Item = Vec<Completion>>, limit: usize) -> Vec<Completion> {
    let mut summed: HashMap<String, u64> = HashMap::new();
    for completion in lists.into_iter().flatten() {
        let weight = summed.entry(completion.phrase).or_default();
        *weight = weight.saturating_add(completion.weight);
    }
    let mut merged: Vec<Completion> = summed
        .into_iter()
        .map(|(phrase, weight)| Completion { phrase, weight })
        .collect();
    best_first(&mut merged, limit);
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes_tests::{get, start};
    use crate::testutil::{Doc, data_with};

    fn completion(phrase: &str, weight: u64) -> Completion {
        Completion {
            phrase: phrase.into(),
            weight,
        }
    }

    #[test]
    fn shards_lists_merge_with_a_phrase_weighed_over_all() {
        let merged = merge(
            [
                vec![completion("vec", 5), completion("vector", 4)],
                vec![completion("vector", 3), completion("vecdeque", 6)],
            ],
            2,
        );
        assert_eq!(merged, [completion("vector", 7), completion("vecdeque", 6)]);
    }

    fn birds() -> Vec<Doc> {
        let doc = |url, title, inlinks| Doc {
            inlinks,
            ..Doc::new(url, title, "Shore birds and the tide.")
        };
        vec![
            doc(
                "http://bay.test/heron-nesting",
                "Heron nesting - Birds of the bay",
                9,
            ),
            doc(
                "http://bay.test/heron-feeding",
                "Heron feeding - Birds of the bay",
                1,
            ),
            doc(
                "http://bay.test/herring-gull",
                "Herring gull - Birds of the bay",
                30,
            ),
            doc(
                "http://shore.test/hermit-crab",
                "Hermit crab | Shore life",
                0,
            ),
        ]
    }

    /// The answer's body as JSON, checked against the OpenSearch suggestions format: an
    /// array of the query as received and an array of completions (strings).
    fn suggestions(answer: &crate::routes_tests::Answer, typed: &str) -> Vec<String> {
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(
            answer.headers["content-type"],
            "application/x-suggestions+json"
        );
        let value: serde_json::Value = serde_json::from_str(&answer.body).expect("JSON");
        let array = value.as_array().expect("an array");
        assert_eq!(array.len(), 2, "{value}");
        assert_eq!(array[0], typed, "the query comes back as received");
        array[1]
            .as_array()
            .expect("completions are an array")
            .iter()
            .map(|c| c.as_str().expect("each completion a string").to_string())
            .collect()
    }

    #[tokio::test]
    async fn suggest_completes_a_prefix_from_titles_in_the_opensearch_format() {
        let data = data_with(&birds());
        let server = start(data.path()).await;
        let ask = |query: &'static str| async move {
            get(server.addr, &format!("/suggest?q={query}")).await
        };
        // Title parts by their pages' links, then words frequent in titles by their pages.
        assert_eq!(
            suggestions(&ask("her").await, "her"),
            [
                "herring gull",
                "heron nesting",
                "heron",
                "heron feeding",
                "hermit crab"
            ]
        );
        assert_eq!(
            suggestions(&ask("HERON%20").await, "HERON "),
            ["heron nesting", "heron feeding"]
        );
        assert_eq!(
            suggestions(&ask("heron+n").await, "heron n"),
            ["heron nesting"]
        );
        let birds = suggestions(&ask("bi").await, "bi");
        assert_eq!(
            birds.first().map(String::as_str),
            Some("birds of the bay"),
            "{birds:?}"
        );
        assert_eq!(suggestions(&ask("shore").await, "shore"), ["shore life"]);
        assert!(suggestions(&ask("zebra").await, "zebra").is_empty());

        // Nothing to complete is an empty list, never an error.
        let long = "h".repeat(1_000);
        for (query, typed) in [
            ("", ""),
            ("%20%20", "  "),
            ("her%07", "her\u{7}"),
            (long.as_str(), long.as_str()),
        ] {
            let answer = get(server.addr, &format!("/suggest?q={query}")).await;
            assert!(suggestions(&answer, typed).is_empty(), "{query:?}");
        }
        let answer = get(server.addr, "/suggest").await;
        assert!(suggestions(&answer, "").is_empty());
        // Bytes that are not UTF-8 are replaced, and nothing begins with them.
        let answer = get(server.addr, "/suggest?q=%FF%FE").await;
        assert!(suggestions(&answer, "\u{fffd}\u{fffd}").is_empty());

        let description = get(server.addr, "/opensearch.xml").await;
        let template = format!(
            r#"<Url type="application/x-suggestions+json" method="get" template="http://{}/suggest?q={{searchTerms}}"/>"#,
            server.addr
        );
        assert!(description.body.contains(&template), "{}", description.body);
    }
}
