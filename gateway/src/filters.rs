//! The filters a query's words can name: `site:` (a host and its subdomains, as a regex over
//! the one-token `host` field) and `lang:` (a language code over `lang`).

use index_format::language::language_code;
use tantivy::Term;
use tantivy::query::{Query, RegexQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};

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
