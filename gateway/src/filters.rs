//! The filters a query's words can name ([`Filters`]): `site:` (a host and its subdomains,
//! as a regex over the one-token `host` field), `lang:` (a language code over `lang`),
//! `kind:` (`pdf`, or `html`: what a document was made from) and `after:`/`before:` (a range
//! of the page's `date`: a page with no date is left out by either). Sites, languages and
//! kinds add up (any of them will do); a second `after:` or `before:` replaces the first.

use std::ops::Bound;

use index_format::IndexFields;
use index_format::language::language_code;
use tantivy::Term;
use tantivy::query::{
    BooleanQuery, ConstScoreQuery, Occur, Query, RangeQuery, RegexQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};

/// What a query's operators narrow its results to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    /// Hosts from `site:` terms, lowercase; a hit must be on one of them (or a subdomain).
    pub sites: Vec<String>,
    /// Languages from `lang:` terms (`lang:fr`, `lang:de-AT` is `de`); a hit must be in one
    /// of them. A value that names no language is kept as typed, lowercase: it matches none.
    pub langs: Vec<String>,
    /// What hits were made from, from `kind:` terms (`pdf`, `html`); a hit must be one.
    pub kinds: Vec<String>,
    /// From `after:`: a hit's date is this second (UTC) or later.
    pub after: Option<i64>,
    /// From `before:`: a hit's date is before this second (UTC).
    pub before: Option<i64>,
    /// What was wrong with the operators (`after:2024-02-30`): the query is not searched,
    /// the first of these is the answer.
    pub problems: Vec<String>,
}

impl Filters {
    /// Takes `word` if it is an operator with a value (never inside a phrase): whether it
    /// was. A date that is none is taken, and said in [`Filters::problems`].
    pub(crate) fn read(&mut self, word: &str, in_phrase: bool) -> bool {
        if in_phrase {
            return false;
        }
        let value = |name: &str| {
            let prefix = word.get(..name.len())?;
            prefix
                .eq_ignore_ascii_case(name)
                .then(|| &word[name.len()..])
                .filter(|value| !value.is_empty())
        };
        if let Some(host) = value("site:").and_then(site_host) {
            self.sites.push(host);
        } else if let Some(lang) = value("lang:").and_then(lang_value) {
            self.langs.push(lang);
        } else if let Some(kind) = value("kind:").and_then(kind_value) {
            self.kinds.push(kind);
        } else if let Some(date) = value("after:") {
            match date_value("after:", date) {
                Ok(seconds) => self.after = Some(seconds),
                Err(problem) => self.problems.push(problem),
            }
        } else if let Some(date) = value("before:") {
            match date_value("before:", date) {
                Ok(seconds) => self.before = Some(seconds),
                Err(problem) => self.problems.push(problem),
            }
        } else {
            return false;
        }
        true
    }

    /// Whether nothing is filtered.
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
            && self.langs.is_empty()
            && self.kinds.is_empty()
            && self.after.is_none()
            && self.before.is_none()
    }

    /// `query` restricted to the filters (which add nothing to a score).
    pub(crate) fn apply(&self, fields: &IndexFields, query: Box<dyn Query>) -> Box<dyn Query> {
        let mut clauses = vec![(Occur::Must, query)];
        let any_term = |field: Field, values: &[String]| -> Box<dyn Query> {
            let terms = values
                .iter()
                .map(|value| {
                    let term = Term::from_field_text(field, value);
                    let query: Box<dyn Query> =
                        Box::new(TermQuery::new(term, IndexRecordOption::Basic));
                    (Occur::Should, query)
                })
                .collect();
            Box::new(ConstScoreQuery::new(
                Box::new(BooleanQuery::new(terms)),
                0.0,
            ))
        };
        if !self.sites.is_empty() {
            let sites = self
                .sites
                .iter()
                .map(|site| (Occur::Should, site_query(fields.host, site)))
                .collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(sites))));
        }
        if !self.langs.is_empty() {
            clauses.push((Occur::Must, any_term(fields.lang, &self.langs)));
        }
        if !self.kinds.is_empty() {
            clauses.push((Occur::Must, any_term(fields.kind, &self.kinds)));
        }
        if self.after.is_some() || self.before.is_some() {
            let dates = date_query(fields.date, self.after, self.before);
            clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(dates, 0.0))));
        }
        match clauses.len() {
            1 => clauses.remove(0).1,
            _ => Box::new(BooleanQuery::new(clauses)),
        }
    }
}

/// The host of a `site:` value: `Example.com`, `example.com/`, `http://example.com:8080/x`
/// all give `example.com`. `None` when nothing is left.
pub(crate) fn site_host(value: &str) -> Option<String> {
    let value = value.split_once("://").map_or(value, |(_, rest)| rest);
    let host = value.split('/').next().unwrap_or_default();
    let host = match host.rsplit_once(':') {
        Some((name, port))
            if !name.is_empty()
                && !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && (!name.contains(':') || name.ends_with(']')) =>
        {
            name
        }
        _ => host,
    };
    let host = host.trim_matches('.').to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

/// The language a `lang:` value names (`fr`, `de-AT`, `FRA`), else the value as typed,
/// lowercase (a filter nothing matches); `None` when empty.
pub(crate) fn lang_value(value: &str) -> Option<String> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    Some(language_code(value).map_or_else(|| value.to_lowercase(), str::to_string))
}

/// What a `kind:` value names: `pdf`, or `html` (also `page`), the values of the `kind`
/// field; anything else as typed, lowercase (a filter nothing matches); `None` when empty.
pub(crate) fn kind_value(value: &str) -> Option<String> {
    let value = value.trim().to_lowercase();
    match value.as_str() {
        "" => None,
        "page" | "web" => Some("html".into()),
        _ => Some(value),
    }
}

/// The first second (UTC) of the day, month or year an `after:` or `before:` value names
/// (`2024-03-15`, `2024-03`, `2024`); what is wrong with it, in words a user reads, when it
/// names none.
pub(crate) fn date_value(operator: &str, value: &str) -> Result<i64, String> {
    let full = match value.len() {
        4 => format!("{value}-01-01"),
        7 => format!("{value}-01"),
        10 => value.to_string(),
        _ => String::new(),
    };
    let year_ok = value
        .get(..4)
        .is_some_and(|year| year.bytes().all(|b| b.is_ascii_digit()));
    match shared::dates::iso_date(&full) {
        Some(seconds) if year_ok => Ok(seconds),
        _ => {
            let shown: String = value.chars().take(40).collect();
            let shown = shown.escape_debug();
            Err(format!(
                "{operator}{shown} is not a date: write {operator}2024, {operator}2024-03 or \
                 {operator}2024-03-15"
            ))
        }
    }
}

/// Pages dated from `after` (included) to `before` (left out), seconds since the epoch.
fn date_query(field: Field, after: Option<i64>, before: Option<i64>) -> Box<dyn Query> {
    let bound = |seconds: Option<i64>, inclusive: bool| match seconds {
        None => Bound::Unbounded,
        Some(s) if inclusive => Bound::Included(Term::from_field_i64(field, s)),
        Some(s) => Bound::Excluded(Term::from_field_i64(field, s)),
    };
    Box::new(RangeQuery::new(bound(after, true), bound(before, false)))
}

/// `host` as a regex matching itself only.
fn escaped_host(host: &str) -> String {
    host.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

/// Pages on `host` or any of its subdomains.
pub(crate) fn site_query(field: Field, host: &str) -> Box<dyn Query> {
    site_regex_query(field, host, &format!("(.+\\.)?{}", escaped_host(host)))
}

/// URLs (an untokenized URL field such as the image index's `page_url`) on `host` or any
/// of its subdomains, any scheme, port and path.
pub(crate) fn url_on_site_query(field: Field, host: &str) -> Box<dyn Query> {
    let pattern = format!("[a-z]+://([^/]+\\.)?{}(:[0-9]+)?(/.*)?", escaped_host(host));
    site_regex_query(field, host, &pattern)
}

/// The regex query of `pattern` over `field`, or the exact term `host` if the pattern is
/// refused.
fn site_regex_query(field: Field, host: &str, pattern: &str) -> Box<dyn Query> {
    match RegexQuery::from_pattern(pattern, field) {
        Ok(query) => Box::new(query),
        Err(_) => Box::new(TermQuery::new(
            Term::from_field_text(field, host),
            IndexRecordOption::Basic,
        )),
    }
}
