//! Reading a config file into a [`RawConfig`]: a TOML error becomes one line that names the
//! line and the full key (`crawler.hosts."docs.test".delay`), and an unknown key the known
//! key it is closest to.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{ConfigError, RawConfig};

/// Reads `path` as a config file.
pub(super) fn read(path: &Path) -> Result<RawConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, path)
}

/// Parses `text`, the contents of `path`.
pub(super) fn parse(text: &str, path: &Path) -> Result<RawConfig, ConfigError> {
    toml::from_str(text).map_err(|error| {
        let span = error.span().unwrap_or(0..0);
        let key = DeTable::parse(text)
            .ok()
            .and_then(|table| key_at(table.get_ref(), &span))
            .map(|path| path.join("."));
        let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
        ConfigError::Parse {
            path: path.to_path_buf(),
            line,
            key,
            message: explain(error.message()),
        }
    })
}

/// The path of keys to the entry whose key or (non-table) value holds `span`.
fn key_at(table: &DeTable<'_>, span: &Range<usize>) -> Option<Vec<String>> {
    for (key, value) in table {
        let within = |s: Range<usize>| s.start <= span.start && span.end <= s.end.max(s.start + 1);
        let mut path = vec![quoted(key.get_ref())];
        if let Some(rest) = inner_key_at(value, span) {
            path.extend(rest);
            return Some(path);
        }
        let leaf = !matches!(value.get_ref(), DeValue::Table(_) | DeValue::Array(_));
        if within(key.span()) || (leaf && within(value.span())) {
            return Some(path);
        }
    }
    None
}

/// The path inside a table or array value to the entry that holds `span`.
fn inner_key_at(value: &Spanned<DeValue<'_>>, span: &Range<usize>) -> Option<Vec<String>> {
    match value.get_ref() {
        DeValue::Table(table) => key_at(table, span),
        DeValue::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
            let inner = inner_key_at(item, span);
            let s = item.span();
            let here = s.start <= span.start && span.end <= s.end;
            match inner {
                Some(rest) => Some(std::iter::once(format!("[{i}]")).chain(rest).collect()),
                None => here.then(|| vec![format!("[{i}]")]),
            }
        }),
        _ => None,
    }
    .map(|path| {
        // An array index belongs to the key before it: `deny_urls[2]`, not `deny_urls.[2]`.
        let mut joined: Vec<String> = Vec::new();
        for part in path {
            match joined.last_mut() {
                Some(last) if part.starts_with('[') => last.push_str(&part),
                _ => joined.push(part),
            }
        }
        joined
    })
}

/// A key as TOML spells it in a dotted path: bare when it can be, else quoted.
pub(super) fn quoted(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

/// serde's message, with "unknown field `x`, expected one of ..." (a list of every key)
/// shortened to the key it is most likely a typo of.
fn explain(message: &str) -> String {
    let message = message.trim();
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((unknown, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    let known: Vec<&str> = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| !name.is_empty())
        .collect();
    match closest(unknown, &known) {
        Some(name) => format!("unknown key `{unknown}` (did you mean `{name}`?)"),
        None => format!(
            "unknown key `{unknown}` (data/example.toml lists every key; here: {})",
            known.join(", ")
        ),
    }
}

/// The known key `unknown` most likely misspells: one that starts with it or it starts with
/// (`delay` for `delay_ms`), else one at most two edits away.
pub(super) fn closest<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    let unknown = unknown.to_ascii_lowercase();
    known
        .iter()
        .map(|name| {
            let prefix = name.starts_with(&unknown) || unknown.starts_with(name);
            let distance = if prefix { 0 } else { edits(&unknown, name) };
            (distance, *name)
        })
        .filter(|(distance, _)| *distance <= 2)
        .min()
        .map(|(_, name)| name)
}

/// Levenshtein distance between two short strings.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}
