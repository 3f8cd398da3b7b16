//! From what a user typed to a tantivy query.
//!
//! The language: words (all required), `"phrases"`, `-word`, `OR`, `title:word` (tantivy's
//! query grammar, parsed leniently so malformed input is searched as well as it can be, never
//! an error) and `site:host`, which we lift out and turn into a filter on the `host` field.

use indexer::IndexFields;
use shared::config::RankingConfig;
use tantivy::Index;
use tantivy::Term;
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::IndexRecordOption;

/// A query as understood.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct UserQuery {
    /// The text searched (without `site:` terms), cut to the length limit.
    pub text: String,
    /// Hosts from `site:` terms; a hit must be on one of them.
    pub sites: Vec<String>,
}

impl UserQuery {
    /// Splits `site:` terms out of `raw`, cut to `max_len` bytes at a character boundary.
    pub fn parse(raw: &str, max_len: usize) -> Self {
        let mut end = raw.len().min(max_len);
        while !raw.is_char_boundary(end) {
            end -= 1;
        }
        let mut query = UserQuery::default();
        let mut words = Vec::new();
        for word in raw[..end].split_whitespace() {
            match word.get(..5) {
                Some(prefix) if prefix.eq_ignore_ascii_case("site:") && word.len() > 5 => {
                    query
                        .sites
                        .push(word[5..].trim_end_matches('/').to_ascii_lowercase());
                }
                _ => words.push(word),
            }
        }
        query.text = words.join(" ");
        query
    }

    /// Whether there is nothing to search for.
    pub fn is_empty(&self) -> bool {
        self.text.chars().all(|c| !c.is_alphanumeric()) && self.sites.is_empty()
    }

    /// The tantivy query: the text over every text field with its boost, restricted to
    /// `sites`.
    pub fn to_query(
        &self,
        index: &Index,
        fields: &IndexFields,
        ranking: &RankingConfig,
    ) -> Box<dyn Query> {
        let searched = [
            (fields.title, ranking.title_boost),
            (fields.headings, ranking.title_boost / 1.5),
            (fields.body, ranking.body_boost),
            (fields.description, ranking.body_boost * 1.2),
            (fields.anchor, ranking.anchor_boost),
            (fields.url_text, ranking.url_boost),
        ];
        let mut parser = QueryParser::for_index(index, searched.iter().map(|(f, _)| *f).collect());
        parser.set_conjunction_by_default();
        for (field, boost) in searched {
            parser.set_field_boost(field, boost);
        }
        let text_query: Box<dyn Query> = if self.text.chars().any(char::is_alphanumeric) {
            parser.parse_query_lenient(&self.text).0
        } else {
            Box::new(AllQuery)
        };
        if self.sites.is_empty() {
            return text_query;
        }
        let sites: Vec<(Occur, Box<dyn Query>)> = self
            .sites
            .iter()
            .map(|site| {
                let term = Term::from_field_text(fields.host, site);
                (
                    Occur::Should,
                    Box::new(TermQuery::new(term, IndexRecordOption::Basic)) as Box<dyn Query>,
                )
            })
            .collect();
        Box::new(BooleanQuery::new(vec![
            (Occur::Must, text_query),
            (Occur::Must, Box::new(BooleanQuery::new(sites))),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_terms_are_lifted_out() {
        let q = UserQuery::parse("tide SITE:Birds.test/ pools", 100);
        assert_eq!(q.text, "tide pools");
        assert_eq!(q.sites, vec!["birds.test".to_string()]);
    }

    #[test]
    fn long_queries_are_cut_at_a_char_boundary() {
        let q = UserQuery::parse(&"é".repeat(100), 11);
        assert_eq!(q.text, "ééééé");
        assert!(UserQuery::parse("  \"( - ", 100).is_empty());
        assert!(!UserQuery::parse("site:a.test", 100).is_empty());
    }
}
