//! Synonyms (`[searchd] synonyms = "FILE"`): groups of equivalent words or phrases, one
//! group a line, members separated by commas (`k8s, kubernetes`; `tls, ssl`; `ml, machine
//! learning`), `#` starting a comment. A query word in a group is searched as itself or any
//! other member ([`Expansion`]), the others weighted [`SYNONYM_WEIGHT`] so the word typed
//! scores highest; they meet the stemmed fields as the word does.
//!
//! A file is refused whole, with one line saying why, when it is over [`MAX_FILE_BYTES`], not
//! UTF-8, has an empty group or member, a group of one, a member that is no plain word or
//! phrase (quotes, colons, operators), or a member in two groups (the groups would chain: say
//! them as one). searchd refuses to start with such a file, and a reload keeps the list it
//! had.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tantivy::query_grammar::{Delimiter, Occur, UserInputAst, UserInputLeaf, UserInputLiteral};

/// Largest synonyms file read.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// The weight of a synonym against the word typed (1).
pub const SYNONYM_WEIGHT: f32 = 0.8;
/// Most members of one group.
const MAX_GROUP: usize = 32;

/// Groups of equivalent words or phrases, looked up by member.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Synonyms {
    /// Each group's members, lowercase, spaces collapsed.
    groups: Vec<Vec<String>>,
    /// Member to its group.
    by_member: HashMap<String, usize>,
}

/// A query word searched with its synonyms.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Expansion {
    /// The word as the query has it, lowercase.
    pub word: String,
    /// The other members of its group.
    pub with: Vec<String>,
}

impl Synonyms {
    /// Reads a synonyms file; the error is one line naming the file.
    pub fn load(path: &Path) -> Result<Self, String> {
        let named = |why: String| format!("synonyms file {}: {why}", path.display());
        let size = std::fs::metadata(path)
            .map_err(|e| named(e.to_string()))?
            .len();
        if size > MAX_FILE_BYTES {
            return Err(named(format!(
                "{size} bytes, more than the {MAX_FILE_BYTES} a synonyms file may have"
            )));
        }
        let bytes = std::fs::read(path).map_err(|e| named(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            named(format!("line {line} is not UTF-8"))
        })?;
        Self::parse(&text).map_err(named)
    }

    /// Reads the groups of a synonyms file's text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut synonyms = Synonyms::default();
        let mut line_of_group = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let n = n + 1;
            let line = line.split('#').next().unwrap_or_default();
            if line.trim().is_empty() {
                continue;
            }
            let mut group: Vec<String> = Vec::new();
            for member in line.split(',') {
                let member = member.split_whitespace().collect::<Vec<_>>().join(" ");
                let member = member.to_lowercase();
                if member.is_empty() {
                    return Err(format!("line {n}: an empty member (two commas in a row?)"));
                }
                if !member
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '.' | '_' | '+'))
                    || member.starts_with('-')
                {
                    let shown: String = member.chars().take(40).collect();
                    return Err(format!(
                        "line {n}: {shown:?} is not a plain word or phrase (no quotes, colons \
                         or operators)"
                    ));
                }
                if !group.contains(&member) {
                    group.push(member);
                }
            }
            if group.len() < 2 {
                return Err(format!(
                    "line {n}: a group needs two members, separated by a comma"
                ));
            }
            if group.len() > MAX_GROUP {
                return Err(format!("line {n}: more than {MAX_GROUP} members"));
            }
            let index = synonyms.groups.len();
            for member in &group {
                if let Some(&other) = synonyms.by_member.get(member) {
                    return Err(format!(
                        "line {n}: {member:?} is in the group of line {} too (the groups would \
                         chain: make them one)",
                        line_of_group[other]
                    ));
                }
                synonyms.by_member.insert(member.clone(), index);
            }
            synonyms.groups.push(group);
            line_of_group.push(n);
        }
        Ok(synonyms)
    }

    /// How many groups there are.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The expansions of a query's plain `words` (each at most once, in order).
    pub fn expansions<'w>(&self, words: impl IntoIterator<Item = &'w str>) -> Vec<Expansion> {
        let mut out: Vec<Expansion> = Vec::new();
        for word in words {
            let word = word.to_lowercase();
            let Some(&group) = self.by_member.get(&word) else {
                continue;
            };
            if out.iter().any(|e| e.word == word) {
                continue;
            }
            let with = self.groups[group]
                .iter()
                .filter(|member| **member != word)
                .cloned()
                .collect();
            out.push(Expansion { word, with });
        }
        out
    }
}

/// The plain words of a query's text, for [`Synonyms::expansions`]: not in a phrase, not an
/// operator, not a field's (`title:x`), not left out (`-x`).
pub(crate) fn query_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut in_phrase = false;
    for word in text.split_whitespace() {
        let quotes = word.matches('"').count();
        let plain = !in_phrase
            && quotes == 0
            && !word.contains(':')
            && !word.starts_with(['-', '+', '('])
            && !matches!(word, "OR" | "AND" | "NOT" | "||" | "&&");
        if plain {
            words.push(word.trim_end_matches(')'));
        }
        if quotes % 2 == 1 {
            in_phrase = !in_phrase;
        }
    }
    words
}

/// `ast` with each word that has synonyms searched as itself or any of them, those weighted
/// [`SYNONYM_WEIGHT`] (a phrase synonym as a phrase).
pub(crate) fn with_synonyms(ast: UserInputAst, expansions: &[Expansion]) -> UserInputAst {
    if expansions.is_empty() {
        return ast;
    }
    match ast {
        UserInputAst::Clause(clauses) => UserInputAst::Clause(
            clauses
                .into_iter()
                .map(|(occur, ast)| (occur, with_synonyms(ast, expansions)))
                .collect(),
        ),
        UserInputAst::Boost(ast, boost) => {
            UserInputAst::Boost(Box::new(with_synonyms(*ast, expansions)), boost)
        }
        UserInputAst::Leaf(leaf) => match *leaf {
            UserInputLeaf::Literal(literal)
                if literal.field_name.is_none()
                    && literal.delimiter == Delimiter::None
                    && !literal.prefix =>
            {
                let word = literal.phrase.to_lowercase();
                let typed = UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(literal)));
                let Some(expansion) = expansions.iter().find(|e| e.word == word) else {
                    return typed;
                };
                let mut any = vec![(Some(Occur::Should), typed)];
                for other in &expansion.with {
                    let literal = UserInputLiteral {
                        field_name: None,
                        phrase: other.clone(),
                        delimiter: if other.contains(' ') {
                            Delimiter::DoubleQuotes
                        } else {
                            Delimiter::None
                        },
                        slop: 0,
                        prefix: false,
                    };
                    let leaf = UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(literal)));
                    let weight = f64::from(SYNONYM_WEIGHT).into();
                    any.push((
                        Some(Occur::Should),
                        UserInputAst::Boost(Box::new(leaf), weight),
                    ));
                }
                UserInputAst::Clause(any)
            }
            other => UserInputAst::Leaf(Box::new(other)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_read_and_a_word_expands_to_the_others() {
        let s = Synonyms::parse(
            "# infrastructure\nk8s, Kubernetes\n\n tls ,ssl, Transport  Layer Security # web\n",
        )
        .expect("valid");
        assert_eq!(s.len(), 2);
        assert_eq!(
            s.expansions(["TLS", "heron", "k8s", "tls"]),
            [
                Expansion {
                    word: "tls".into(),
                    with: vec!["ssl".into(), "transport layer security".into()],
                },
                Expansion {
                    word: "k8s".into(),
                    with: vec!["kubernetes".into()],
                },
            ]
        );
        assert!(Synonyms::parse("").expect("empty").is_empty());
    }

    #[test]
    fn a_bad_file_is_one_line_saying_where() {
        for (text, said) in [
            ("a, b\nc\n", "line 2: a group needs two members"),
            ("a, , b", "line 1: an empty member"),
            (",", "line 1: an empty member"),
            ("a, b\nb, c", "line 2: \"b\" is in the group of line 1 too"),
            ("a, a", "line 1: a group needs two members"),
            ("title:x, y", "line 1: \"title:x\" is not a plain word"),
            ("\"a b\", c", "is not a plain word"),
            ("-a, b", "is not a plain word"),
        ] {
            let error = Synonyms::parse(text).expect_err(text);
            assert!(
                error.starts_with(said) || error.contains(said),
                "{text:?}: {error}"
            );
            assert!(!error.contains('\n'), "{error}");
        }
        let wide = (0..=MAX_GROUP)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(",");
        assert!(Synonyms::parse(&wide).is_err());
    }

    #[test]
    fn a_file_too_big_or_not_utf8_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big = dir.path().join("big.txt");
        std::fs::write(&big, "a, b\n".repeat(300_000)).expect("write");
        let error = Synonyms::load(&big).expect_err("too big");
        assert!(error.contains("more than the 1048576"), "{error}");
        let latin1 = dir.path().join("latin1.txt");
        std::fs::write(&latin1, b"tls, ssl\ncaf\xe9, coffee\n").expect("write");
        let error = Synonyms::load(&latin1).expect_err("not UTF-8");
        assert!(error.ends_with("line 2 is not UTF-8"), "{error}");
        let missing = Synonyms::load(&dir.path().join("none.txt")).expect_err("missing");
        assert!(missing.starts_with("synonyms file "), "{missing}");
    }
}
