//! From what a user typed to a tantivy query.
//!
//! The language: words (all required), `"phrases"`, `-word` (but `--option` and `-x` are
//! the option's name, see [`option_name`]), `OR`, `title:word` (or
//! `intitle:word`), `inurl:word` (the URL's words) — tantivy's query grammar, parsed
//! leniently so malformed input is searched as well as it can be and never fails — and
//! the filters, lifted out first: `site:host` (the host itself or any of its subdomains),
//! `lang:xx` (the page's language), `kind:pdf` (what it was made from) and `after:DATE`,
//! `before:DATE` (its date: `2024`, `2024-03` or `2024-03-15`; after includes the day,
//! before leaves it out), see [`Filters`]. Each operator may be given more than once:
//! sites, languages and kinds add up, a second `after:` or `before:` replaces the first.
//!
//! A colon that does not follow a field name separates words, so `std::vec::Vec` searches
//! for `std`, `vec` and `Vec` (all required) instead of a field named `std`.
//!
//! The grammar reads more than that language (any schema field by name, `field:*`, ranges,
//! regexes, boosts), and some of it fails only when the query runs (`title:*` asks for a
//! fast field `title` does not have). So the text is parsed into tantivy's syntax tree
//! first and [`crate::user_fields::within_language`] keeps that tree to the fields a user
//! may name, reading the rest as words, before tantivy builds the query: `title:*` is the
//! pages with a title, `inurl:*` every page, `foo:bar` the words `foo` and `bar`, and
//! `<~intitle:heron` is `title:heron`. Groups nest at most [`MAX_GROUP_DEPTH`] deep (the
//! grammar recurses once per level; a few hundred levels overflow a thread's stack).
//!
//! The words are searched over the stemmed fields (title, headings, body, `lead`: the body's
//! first 40 words, description, anchors, URL words), each with its `[ranking]` boost, and the
//! unstemmed `*_exact` twins of title, headings and body. A compound word (`f-string`,
//! `os.path.join`) is its parts in a row, or joined ([`Matching::Compounds`]); when few pages
//! have every word, [`Matching::AtLeast`] asks for most of them (see [`crate::search`]). The
//! bonuses of a query of plain words (its words together in a field, within one section: a
//! heading or `dt` and its first 30 words, typed with their accents, abbreviated in a title or
//! URL) order its matches without changing them ([`crate::rerank`]).

use index_format::{EXACT_TOKENIZER, IndexFields};
use shared::config::RankingConfig;
use tantivy::Index;
use tantivy::Term;
use tantivy::query::{
    AllQuery, BooleanQuery, EmptyQuery, Occur, PhraseQuery, Query, QueryParser, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TokenizerManager;

use index_format::language::Stemming;

use crate::analysis::{self, Analyses};
use crate::filters::Filters;
use crate::lazy_union::lazy_unions;
use crate::rerank::{Bonuses, Ranked};
use crate::synonyms::{Expansion, with_synonyms};
use crate::user_fields::{user_field, within_language};

/// A query as understood, before it meets an index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserQuery {
    /// The query as typed, cut to the length limit: what is shown back to the user.
    pub shown: String,
    /// The text searched: `site:` terms removed, stray colons escaped.
    pub text: String,
    /// What its operators narrow the results to (`site:`, `lang:`, `kind:`, `after:`,
    /// `before:`), and what was wrong with them.
    pub filters: Filters,
    /// Its words searched with their synonyms too (none unless set: `crate::synonyms`).
    pub synonyms: Vec<Expansion>,
}

impl UserQuery {
    /// Reads `raw`, cut to `max_len` bytes (between words when it can be).
    pub fn parse(raw: &str, max_len: usize) -> Self {
        let shown = cut(raw, max_len).trim().to_string();
        let mut query = UserQuery {
            shown,
            ..UserQuery::default()
        };
        let mut words: Vec<Word> = Vec::new();
        let mut in_phrase = false;
        let shown = query.shown.clone();
        for word in shown.split_whitespace() {
            let comparison = !in_phrase && is_comparison(word);
            if query.filters.read(word, in_phrase) {
                // An operator, lifted out.
            } else if !comparison {
                words.push(Word {
                    text: split_colons(
                        &field_aliases(option_name(word, in_phrase), in_phrase),
                        in_phrase,
                    ),
                    operator: !in_phrase && matches!(word, "OR" | "AND" | "||" | "&&"),
                });
            }
            if word.chars().filter(|&c| c == '"').count() % 2 == 1 {
                in_phrase = !in_phrase;
            }
        }
        query.text = without_deep_groups(&without_dangling_operators(words).join(" "));
        query
    }

    /// Whether there is nothing to search for (no word, no filter).
    pub fn is_empty(&self) -> bool {
        !self.has_words() && self.filters.is_empty()
    }

    fn has_words(&self) -> bool {
        self.text.chars().any(char::is_alphanumeric)
    }

    /// The tantivy query: the text over every text field with its boost, restricted to
    /// `sites` and `langs`, for an index of one stemming; and the bonuses that order its
    /// best matches.
    pub fn to_query(&self, index: &Index, fields: &IndexFields, ranking: &RankingConfig) -> Ranked {
        self.to_query_matching(index, fields, ranking, Matching::Compounds, &[])
    }

    /// Like [`UserQuery::to_query`], with `matching` deciding whether every word is needed,
    /// over an index whose documents were stemmed by the `held` stemmings (each cut of the
    /// query meets its own documents: `Analyses`).
    pub fn to_query_matching(
        &self,
        index: &Index,
        fields: &IndexFields,
        ranking: &RankingConfig,
        matching: Matching,
        held: &[Stemming],
    ) -> Ranked {
        let searched = [
            (fields.title, ranking.title_boost),
            (fields.headings, ranking.title_boost / 1.5),
            (fields.body, ranking.body_boost),
            (fields.description, ranking.body_boost * 1.2),
            (fields.lead, ranking.lead_boost),
            (fields.anchor, ranking.anchor_boost),
            (fields.url_text, ranking.url_boost),
            // The same words unstemmed: an exact form adds to its stemmed match, so
            // "international" ranks pages saying "international" above "internal".
            (
                fields.title_exact,
                ranking.title_boost * ranking.exact_boost,
            ),
            (
                fields.headings_exact,
                ranking.title_boost / 1.5 * ranking.exact_boost,
            ),
            (fields.body_exact, ranking.body_boost * ranking.exact_boost),
        ];
        let abbreviated = [
            (
                fields.title_exact,
                ranking.title_boost * ranking.abbreviation_weight,
            ),
            (
                fields.url_text,
                ranking.url_boost * ranking.abbreviation_weight,
            ),
        ];
        let sections = (fields.sections, ranking.section_boost);
        let mut bonuses = Bonuses::default();
        let text_query =
            Analyses::of(&self.text, held).combine(fields.stemmer, |tokenizers, only| {
                let clauses = self.bonuses(index, &searched, &abbreviated, sections, tokenizers);
                bonuses.add(only, clauses);
                self.text_query(index, &searched, matching, tokenizers)
            });
        Ranked {
            matches: self.filters.apply(fields, text_query),
            bonuses,
        }
    }

    /// The same text over the body alone, unboosted: the plain BM25 baseline.
    pub fn to_body_query(
        &self,
        index: &Index,
        fields: &IndexFields,
        held: &[Stemming],
    ) -> Box<dyn Query> {
        let searched = [(fields.body, 1.0)];
        let text_query = Analyses::of(&self.text, held).combine(fields.stemmer, |tokenizers, _| {
            self.text_query(index, &searched, Matching::AllWords, tokenizers)
        });
        self.filters.apply(fields, text_query)
    }

    /// Whether a query without every word met could still match pages with some of them:
    /// plain words, more than one.
    pub fn can_match_partially(&self) -> bool {
        self.only_plain_words()
            .is_some_and(|words| words.len() >= 2)
    }

    /// The text over `searched` fields with their boosts, cut by `tokenizers`.
    fn text_query(
        &self,
        index: &Index,
        searched: &[(Field, f32)],
        matching: Matching,
        tokenizers: &TokenizerManager,
    ) -> Box<dyn Query> {
        let parse = |text: &str, all_words| {
            parsed(index, searched, text, all_words, tokenizers, &self.synonyms)
        };
        match (self.has_words(), matching) {
            (false, _) => Box::new(AllQuery),
            (true, Matching::AllWords) => parse(&self.text, true),
            (true, Matching::AnyWord) => parse(&self.text, false),
            (true, Matching::Compounds) => parse(&with_compound_forms(&self.text), true),
            (true, Matching::AtLeast(needed)) => {
                let words = self.only_plain_words().unwrap_or_default();
                let clauses = words
                    .iter()
                    .map(|word| (Occur::Should, parse(&with_compound_forms(word), true)))
                    .collect();
                Box::new(BooleanQuery::with_minimum_required_clauses(
                    clauses,
                    usize::from(needed).max(1),
                ))
            }
        }
    }
}

/// `vs`, `vs.`, `versus`: "Arc vs Rc" compares two things, and pages comparing them seldom
/// say "vs"; the word is left out rather than required.
fn is_comparison(word: &str) -> bool {
    matches!(word.to_ascii_lowercase().as_str(), "vs" | "vs." | "versus")
}

/// How far apart (in positions) query words may be and still count as together.
const PROXIMITY_SLOP: u32 = 2;

/// How far apart (in positions, summed over the words) query words may be and still be in
/// one section (a section holds at most 30 words).
const SECTION_SLOP: u32 = 40;

impl UserQuery {
    /// The words of the query when it is nothing but plain words (one or more; no phrase, no
    /// `-word`, no operator, no field): what the ranking bonuses apply to and a spelling
    /// suggestion may rewrite.
    pub fn only_plain_words(&self) -> Option<Vec<&str>> {
        let words: Vec<&str> = self.text.split_whitespace().collect();
        let plain = !words.is_empty()
            && words.iter().all(|w| {
                w.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
                    && !w.starts_with('-')
                    && !matches!(*w, "OR" | "AND")
            });
        plain.then_some(words)
    }

    /// The bonuses of the query's words, which only order its matches (see
    /// [`crate::rerank`]), each with its boost:
    /// - proximity: the words stand together, in order (within [`PROXIMITY_SLOP`]
    ///   positions), in one of the `searched` fields, scored with the field's boost;
    /// - abbreviations: a title or URL word is a short prefix of a query word (`env` and
    ///   `var` for "environment variable", `str` for "string"), the way API names shorten
    ///   words, in the `abbreviated` fields with their boosts;
    /// - a section: every word within one section of the page (its heading and first words,
    ///   at most [`SECTION_SLOP`] positions apart, in any order), in the `sections` field with
    ///   its boost.
    ///
    /// None unless the query is plain words.
    fn bonuses(
        &self,
        index: &Index,
        searched: &[(Field, f32)],
        abbreviated: &[(Field, f32)],
        (sections, section_boost): (Field, f32),
        tokenizers: &TokenizerManager,
    ) -> Vec<(Box<dyn Query>, f32)> {
        let Some(words) = self.only_plain_words() else {
            return Vec::new();
        };
        let mut clauses: Vec<(Box<dyn Query>, f32)> = Vec::new();
        let text = words.join(" ");
        for &(field, boost) in searched.iter().filter(|_| words.len() >= 2) {
            let terms = positioned_terms(index, field, &text, tokenizers);
            if terms.len() < 2 {
                continue;
            }
            let mut phrase = PhraseQuery::new_with_offset(terms);
            phrase.set_slop(PROXIMITY_SLOP);
            clauses.push((Box::new(phrase), boost));
        }
        if section_boost > 0.0 {
            let terms = positioned_terms(index, sections, &text, tokenizers);
            let section: Box<dyn Query> = match terms.as_slice() {
                [] => Box::new(EmptyQuery),
                [(_, term)] => Box::new(TermQuery::new(term.clone(), IndexRecordOption::WithFreqs)),
                _ => {
                    let mut phrase = PhraseQuery::new_with_offset(terms);
                    phrase.set_slop(SECTION_SLOP);
                    Box::new(phrase)
                }
            };
            clauses.push((section, section_boost));
        }
        // The spelling typed: a word typed with its accents (`schön`) means that spelling,
        // and a page that has the word only without them (`schon`, which German stems
        // alike) ranks below one that has it as typed.
        for word in words.iter().filter(|word| has_accents(word)) {
            let exact = searched
                .iter()
                .filter(|(field, _)| tokenizer_of(index, *field) == Some(EXACT_TOKENIZER));
            for &(field, boost) in exact {
                for token in field_tokens_with(index, field, word, tokenizers) {
                    let term = TermQuery::new(
                        Term::from_field_text(field, &token),
                        IndexRecordOption::WithFreqs,
                    );
                    clauses.push((Box::new(term), boost * SPELLING_BOOST));
                }
            }
        }
        for &(field, boost) in abbreviated.iter().filter(|(_, boost)| *boost > 0.0) {
            for prefix in words.iter().flat_map(|word| abbreviations(word)) {
                for token in field_tokens_with(index, field, prefix, tokenizers) {
                    let term = Term::from_field_text(field, &token);
                    let term = TermQuery::new(term, IndexRecordOption::WithFreqs);
                    clauses.push((Box::new(term), boost));
                }
            }
        }
        clauses
    }
}

/// The terms `text` becomes in `field`, each with its position: what a phrase is made of.
fn positioned_terms(
    index: &Index,
    field: Field,
    text: &str,
    tokenizers: &TokenizerManager,
) -> Vec<(usize, Term)> {
    field_tokens_with(index, field, text, tokenizers)
        .iter()
        .enumerate()
        .map(|(position, token)| (position, Term::from_field_text(field, token)))
        .collect()
}

/// How much more a word typed with accents counts in an exact field than its exact match
/// alone does (see [`UserQuery::bonuses`]).
const SPELLING_BOOST: f32 = 4.0;

/// Whether `word` has letters that lose an accent when folded (`schön`, `café`).
fn has_accents(word: &str) -> bool {
    let lower = word.to_lowercase();
    index_format::tokenize::fold(&lower) != lower.as_str()
}

/// The tokenizer `field` is indexed with, if it is a text field.
fn tokenizer_of(index: &Index, field: Field) -> Option<&'static str> {
    let schema = index.schema();
    let tantivy::schema::FieldType::Str(options) = schema.get_field_entry(field).field_type()
    else {
        return None;
    };
    let name = options.get_indexing_options()?.tokenizer();
    [EXACT_TOKENIZER, index_format::TOKENIZER]
        .into_iter()
        .find(|known| *known == name)
}

/// Shortest word abbreviated.
const MIN_ABBREVIATED_LEN: usize = 6;

/// The short prefixes of `word` an API name may abbreviate it to: its first 3 and 4
/// letters, for alphabetic words of at least [`MIN_ABBREVIATED_LEN`] letters ("environment"
/// gives `env` and `envi`).
fn abbreviations(word: &str) -> impl Iterator<Item = &str> {
    let long = word.len() >= MIN_ABBREVIATED_LEN && word.chars().all(|c| c.is_ascii_alphabetic());
    [3, 4]
        .into_iter()
        .filter(move |_| long)
        .map(move |len| &word[..len])
}

/// Which pages a query matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Matching {
    /// Pages with every word, as the grammar reads them (the plain-BM25 baseline's).
    AllWords,
    /// Pages with every word, a compound word (`f-string`, `os.path.join`) met as its
    /// parts in a row or joined (`fstring`): the full ranking's.
    Compounds,
    /// Pages with at least this many of the plain words (compounds met as in
    /// [`Matching::Compounds`]): the pages with most of the words, when few have them all.
    AtLeast(u8),
    /// Pages with any of the words, those with more of them (and rarer ones) first.
    AnyWord,
}

/// The query parsed from `text` over the `searched` fields with their boosts, cut by
/// `tokenizers`, every word required when `all_words`; parsed leniently, so it never fails.
fn parsed(
    index: &Index,
    searched: &[(Field, f32)],
    text: &str,
    all_words: bool,
    tokenizers: &TokenizerManager,
    synonyms: &[Expansion],
) -> Box<dyn Query> {
    let mut parser = QueryParser::new(
        index.schema(),
        searched.iter().map(|(f, _)| *f).collect(),
        tokenizers.clone(),
    );
    if all_words {
        parser.set_conjunction_by_default();
    }
    for &(field, boost) in searched {
        parser.set_field_boost(field, boost);
    }
    let (ast, errors) = tantivy::query_grammar::parse_query_lenient(text);
    // The only regexes left are the `field:*` presence tests `within_language` writes.
    parser.allow_regexes();
    let (query, build_errors) = parser
        .build_query_from_user_input_ast_lenient(with_synonyms(within_language(ast), synonyms));
    if !errors.is_empty() || !build_errors.is_empty() {
        tracing::debug!(query = %text, ?errors, ?build_errors, "query parsed leniently");
    }
    lazy_unions(query)
}

/// `text` over the `searched` fields with their boosts, every word required, parsed
/// leniently as [`UserQuery`] text is (fields a user may not name read as words): for
/// indexes other than the page index, such as the image index.
pub(crate) fn parsed_over(index: &Index, searched: &[(Field, f32)], text: &str) -> Box<dyn Query> {
    parsed(
        index,
        searched,
        text,
        true,
        analysis::tokenizers(Stemming::DEFAULT),
        &[],
    )
}

/// Most parts of a query compound given a joined form.
const MAX_COMPOUND_PARTS: usize = 8;

/// `text` with each compound word outside quotes (letters or digits joined by single `-`,
/// `.` or `_`, with a letter among them, not negated, not a field) written as "its parts in a
/// row, or its joined form": `f-string` becomes `("f-string" OR fstring)`, which finds
/// pages writing `f-string`, `f string` and `fstring`. Numbers (`3.11`) stay as typed.
pub fn with_compound_forms(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut in_phrase = false;
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match joined_form(word).filter(|_| !in_phrase) {
            Some(joined) => {
                out.push_str(&format!("(\"{word}\" OR {joined})"));
            }
            None => out.push_str(word),
        }
        if word.chars().filter(|&c| c == '"').count() % 2 == 1 {
            in_phrase = !in_phrase;
        }
    }
    out
}

/// The joined form of a compound word (`f-string` gives `fstring`), if `word` is one.
fn joined_form(word: &str) -> Option<String> {
    let parts: Vec<&str> = word.split(['-', '.', '_']).collect();
    let compound = parts.len() >= 2
        && parts.len() <= MAX_COMPOUND_PARTS
        && parts
            .iter()
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric()))
        && word.chars().any(char::is_alphabetic);
    compound.then(|| parts.concat())
}

/// The tokens `text` becomes in `field`, through the field's analyzer in `tokenizers` (one
/// stemming's query tokenizers: lowercased, stemmed or not, CJK bigrams; compounds as parts),
/// as documents of that stemming hold them.
pub(crate) fn field_tokens_with(
    index: &Index,
    field: Field,
    text: &str,
    tokenizers: &TokenizerManager,
) -> Vec<String> {
    let schema = index.schema();
    let entry = schema.get_field_entry(field);
    let tantivy::schema::FieldType::Str(options) = entry.field_type() else {
        return Vec::new();
    };
    let Some(mut analyzer) = options
        .get_indexing_options()
        .and_then(|indexing| tokenizers.get(indexing.tokenizer()))
    else {
        return Vec::new();
    };
    let mut stream = analyzer.token_stream(text);
    let mut tokens = Vec::new();
    while let Some(token) = stream.next() {
        tokens.push(token.text.clone());
    }
    tokens
}

/// A word of the query text.
struct Word {
    text: String,
    /// A binary operator (`OR`, `AND`) outside quotes.
    operator: bool,
}

/// Drops operators that have no word on one side (`heron OR`, `AND OR`, or the `OR` left
/// between two `site:` terms that were lifted out), which would otherwise match nothing.
fn without_dangling_operators(words: Vec<Word>) -> Vec<String> {
    let mut out: Vec<Word> = Vec::with_capacity(words.len());
    for word in words {
        let after_operator = out.last().is_none_or(|last| last.operator);
        if word.operator && after_operator {
            continue;
        }
        out.push(word);
    }
    while out.last().is_some_and(|last| last.operator) {
        out.pop();
    }
    out.into_iter().map(|w| w.text).collect()
}

/// Deepest nesting of `(` groups passed to tantivy's grammar, which recurses once per level
/// (on the blocking pool's small stacks): deeper parentheses are word breaks.
pub const MAX_GROUP_DEPTH: usize = 10;

/// `text` with every parenthesis past [`MAX_GROUP_DEPTH`] levels a space. Quotes and escapes
/// are not looked at, so no reading of them can hide a level: a parenthesis inside a phrase
/// is no word anyway.
fn without_deep_groups(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .map(|c| match c {
            '(' => {
                depth += 1;
                if depth > MAX_GROUP_DEPTH { ' ' } else { c }
            }
            ')' => {
                let deep = depth > MAX_GROUP_DEPTH;
                depth = depth.saturating_sub(1);
                if deep { ' ' } else { c }
            }
            _ => c,
        })
        .collect()
}

/// The first `max_len` bytes of `raw`, cut back to a character boundary, and to the end of
/// the last whole word when the cut falls inside a word.
fn cut(raw: &str, max_len: usize) -> &str {
    if raw.len() <= max_len {
        return raw;
    }
    let mut end = max_len;
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    let head = &raw[..end];
    let mid_word = !raw[end..].starts_with(char::is_whitespace);
    match head.rfind(char::is_whitespace) {
        Some(space) if mid_word => &head[..space],
        _ => head,
    }
}

/// A command-line option outside quotes is the option's name, not an exclusion:
/// `--force-with-lease` searches for `force-with-lease`, `-i` for `i` (excluding one letter
/// would only drop nearly every page). `-word` stays an exclusion.
fn option_name(word: &str, in_phrase: bool) -> &str {
    if in_phrase {
        return word;
    }
    let starts_word = |rest: &str| rest.chars().next().is_some_and(char::is_alphanumeric);
    match word.strip_prefix("--") {
        Some(rest) if starts_word(rest) => rest,
        _ => {
            let mut chars = word.chars();
            match (chars.next(), chars.next(), chars.next()) {
                (Some('-'), Some(c), None) if c.is_alphanumeric() => &word[1..],
                _ => word,
            }
        }
    }
}

/// `inurl:word` (as other engines spell it) is `url_text:word`; outside quotes, with or
/// without a leading `-`.
fn field_aliases(word: &str, in_phrase: bool) -> std::borrow::Cow<'_, str> {
    let sign = if word.starts_with('-') { "-" } else { "" };
    let rest = &word[sign.len()..];
    match rest.get(..6) {
        Some(prefix) if !in_phrase && prefix.eq_ignore_ascii_case("inurl:") => {
            format!("{sign}url_text:{}", &rest[6..]).into()
        }
        _ => word.into(),
    }
}

/// Turns every colon of `word` that does not end a field name, outside quotes, into a space.
fn split_colons(word: &str, starts_in_phrase: bool) -> String {
    let mut out = String::with_capacity(word.len() + 4);
    let mut in_phrase = starts_in_phrase;
    let mut first_colon = true;
    let mut escaped = false;
    for (i, c) in word.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            in_phrase = !in_phrase;
        } else if c == ':' && !in_phrase {
            let is_field = first_colon && user_field(&word[..i]).is_some();
            first_colon = false;
            if !is_field {
                out.push(' ');
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn long_words_are_abbreviated_to_their_first_letters() {
        assert_eq!(
            abbreviations("environment").collect::<Vec<_>>(),
            ["env", "envi"]
        );
        assert_eq!(abbreviations("String").collect::<Vec<_>>(), ["Str", "Stri"]);
        assert_eq!(abbreviations("vec").count(), 0, "too short");
        assert_eq!(abbreviations("borrow_mut").count(), 0, "not a plain word");
        assert_eq!(
            abbreviations("éléphant").count(),
            0,
            "not ASCII: no cut mid-letter"
        );
    }

    use super::*;

    fn check_text(raw: &str, text: &str, sites: &[&str]) {
        let q = UserQuery::parse(raw, 512);
        assert_eq!(q.text, text, "text of {raw:?}");
        assert_eq!(q.filters.sites, sites, "sites of {raw:?}");
    }

    #[test]
    fn lang_terms_are_lifted_out_as_languages() {
        for (raw, text, langs) in [
            ("cheval lang:fr", "cheval", &["fr"][..]),
            ("LANG:de-AT haus lang:FRA", "haus", &["de", "fr"]),
            ("lang:klingon x", "x", &["klingon"]),
            ("lang: x", "lang  x", &[]),
            ("\"a lang:fr\"", "\"a lang:fr\"", &[]),
            ("lang:\"><script>", "", &["\"><script>"]),
        ] {
            let q = UserQuery::parse(raw, 512);
            assert_eq!(q.text, text, "text of {raw:?}");
            assert_eq!(q.filters.langs, langs, "langs of {raw:?}");
        }
        assert!(!UserQuery::parse("lang:fr", 100).is_empty());
    }

    #[test]
    fn kind_and_date_terms_are_lifted_out_as_filters() {
        let day = |text: &str| shared::dates::iso_date(text).expect("a date");
        let q = UserQuery::parse("tides KIND:PDF after:2024 before:2024-03-15 kind:page", 512);
        assert_eq!(q.text, "tides");
        assert_eq!(q.filters.kinds, ["pdf", "html"]);
        assert_eq!(q.filters.after, Some(day("2024-01-01")));
        assert_eq!(q.filters.before, Some(day("2024-03-15")));
        assert!(q.filters.problems.is_empty());
        // The later of two `after:` wins; a month is its first day; a filter alone is a query.
        let q = UserQuery::parse("after:2020 AFTER:2021-02", 512);
        assert_eq!(q.filters.after, Some(day("2021-02-01")));
        assert!(!q.is_empty() && !q.filters.is_empty());
        // In a phrase, or with no value, they are words.
        let q = UserQuery::parse("\"after:2020 x\" before: kind:", 512);
        assert_eq!(
            (q.filters.after, q.filters.before, q.filters.kinds.len()),
            (None, None, 0)
        );
        assert_eq!(q.text, "\"after:2020 x\" before  kind ");
        // A date that is none is a problem said in words, with the value shown (bounded).
        for (raw, said) in [
            ("x after:2024-02-30", "after:2024-02-30 is not a date"),
            ("x before:2024-13", "before:2024-13 is not a date"),
            ("after:yesterday", "after:yesterday is not a date"),
            ("before:20240315", "before:20240315 is not a date"),
            ("after:+2024", "after:+2024 is not a date"),
            ("after:\u{7}<b>", "after:\\u{7}<b> is not a date"),
        ] {
            let q = UserQuery::parse(raw, 512);
            assert!(
                q.filters
                    .problems
                    .first()
                    .is_some_and(|p| p.starts_with(said)),
                "{raw:?}: {:?}",
                q.filters.problems
            );
        }
        let long = format!("after:{}", "9".repeat(400));
        let problem = &UserQuery::parse(&long, 1024).filters.problems[0];
        assert!(problem.len() < 200, "{problem}");
    }

    #[test]
    fn site_terms_are_lifted_out() {
        check_text("tide SITE:Birds.test/ pools", "tide pools", &["birds.test"]);
        check_text("site:http://a.test:8080/x heron", "heron", &["a.test"]);
        check_text("site:127.0.0.1:3000", "", &["127.0.0.1"]);
        check_text("site:[::1]:80 x", "x", &["[::1]"]);
        check_text("site: heron", "site  heron", &[]);
        check_text("\"a site:b.test\"", "\"a site:b.test\"", &[]);
        check_text(
            "tide site:a.test OR site:b.test",
            "tide",
            &["a.test", "b.test"],
        );
        check_text("site:a.test OR tide", "tide", &["a.test"]);
        check_text("AND OR heron OR OR tide OR", "heron OR tide", &[]);
        check_text("\"OR\" heron", "\"OR\" heron", &[]);
        assert!(UserQuery::parse("AND OR", 100).is_empty());
    }

    #[test]
    fn inurl_is_the_url_words_field() {
        check_text("vec inurl:collections", "vec url_text:collections", &[]);
        check_text(
            "INURL:hash -inurl:alloc",
            "url_text:hash -url_text:alloc",
            &[],
        );
        check_text("\"inurl:x\"", "\"inurl:x\"", &[]);
        check_text("\"a inurl:x\"", "\"a inurl:x\"", &[]);
    }

    #[test]
    fn command_line_options_are_words_not_exclusions() {
        check_text("--force-with-lease", "force-with-lease", &[]);
        check_text("rebase -i", "rebase i", &[]);
        check_text("heron -dawn", "heron -dawn", &[]);
        check_text("heron -- -", "heron -- -", &[]);
        check_text("\"a -i\"", "\"a -i\"", &[]);
        check_text("-é", "é", &[]);
    }

    #[test]
    fn colons_that_name_no_field_separate_words() {
        check_text("title:heron", "title:heron", &[]);
        check_text("-title:heron", "-title:heron", &[]);
        check_text("std::vec::Vec", "std  vec  Vec", &[]);
        check_text("title:std::vec", "title:std  vec", &[]);
        check_text("\"a:b\" c:d", "\"a:b\" c d", &[]);
        check_text("a\\:b", "a\\:b", &[]);
        check_text("\"a b:c\"", "\"a b:c\"", &[]);
        check_text("title:", "title:", &[]);
    }

    #[test]
    fn deep_groups_are_flattened() {
        let deep = format!("{}heron{}", "(".repeat(500), ")".repeat(500));
        let kept = format!("{}heron{}", "(".repeat(10), ")".repeat(10));
        let q = UserQuery::parse(&deep, 4096);
        assert_eq!(q.text.replace(' ', ""), kept);
        check_text("((a) (b))", "((a) (b))", &[]);
        check_text("\\((((((((((((x", "\\((((((((((  x", &[]);
    }

    #[test]
    fn long_queries_are_cut_between_words() {
        assert_eq!(UserQuery::parse("heron tide pools", 12).text, "heron tide");
        assert_eq!(UserQuery::parse("heron tide pools", 10).text, "heron tide");
        assert_eq!(UserQuery::parse("heron tide pools", 8).text, "heron");
        assert_eq!(UserQuery::parse("herontidepools", 8).text, "herontid");
    }

    #[test]
    fn long_queries_are_cut_at_a_char_boundary() {
        let q = UserQuery::parse(&"é".repeat(100), 11);
        assert_eq!(q.text, "ééééé");
        assert_eq!(q.shown, "ééééé");
        assert!(UserQuery::parse("  \"( - ", 100).is_empty());
        assert!(UserQuery::parse("\0", 100).is_empty());
        assert!(!UserQuery::parse("site:a.test", 100).is_empty());
    }
}
