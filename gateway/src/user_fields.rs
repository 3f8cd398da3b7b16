//! What of tantivy's query grammar reaches tantivy's query builder: the fields a user may
//! name, and everything else read as words.
//!
//! tantivy's grammar knows more than sift's language: any field of the schema by name (the
//! ranking signals too), `field:*` (an "exists" query, which tantivy answers only on fast
//! fields and otherwise fails at search time), ranges `[a TO b]`, sets `IN [a b]`, regexes,
//! boosts `^N`. [`within_language`] walks the syntax tree the grammar made of the text and
//! keeps only what sift offers, so no string a user types can make a search fail:
//!
//! - a field name is looked up by [`user_field`]: case ignored, and any punctuation before
//!   it (`<~intitle:`) ignored too; other engines' names (`intitle`, `inurl`, `intext`,
//!   `inanchor`) are the fields they mean. A name that is no user field is a word of the
//!   query, and so is what followed its colon (`foo:bar` searches `foo` and `bar`);
//! - `field:*` means "pages with something in that field": for the fields every page has
//!   (`url`, `url_text`, `host`, `body`) every page, for the others (`title`, `headings`,
//!   `description`, `anchor`) the pages holding any word there. A name that is no user field
//!   before `:*` is a word;
//! - ranges, sets and regexes are read as their words (a set as any of them);
//! - a boost is kept between 0 and [`MAX_BOOST`] (`^1e400` would be infinite).

use tantivy::query::Occur;
use tantivy::query_grammar::{
    Delimiter, UserInputAst, UserInputBound, UserInputLeaf, UserInputLiteral,
};

/// The largest boost a query may give a term.
pub const MAX_BOOST: f64 = 100.0;

/// A field a user may name: its names, the schema field, and whether every page has it.
struct UserField {
    names: &'static [&'static str],
    field: &'static str,
    on_every_page: bool,
}

/// The fields a user may name, with the names other engines use for them.
const USER_FIELDS: &[UserField] = &[
    UserField {
        names: &["title", "intitle"],
        field: index_format::fields::TITLE,
        on_every_page: false,
    },
    UserField {
        names: &["headings"],
        field: index_format::fields::HEADINGS,
        on_every_page: false,
    },
    UserField {
        names: &["body", "intext"],
        field: index_format::fields::BODY,
        on_every_page: true,
    },
    UserField {
        names: &["description"],
        field: index_format::fields::DESCRIPTION,
        on_every_page: false,
    },
    UserField {
        names: &["anchor", "inanchor"],
        field: index_format::fields::ANCHOR,
        on_every_page: false,
    },
    UserField {
        names: &["url_text", "inurl"],
        field: index_format::fields::URL_TEXT,
        on_every_page: true,
    },
    UserField {
        names: &["host"],
        field: index_format::fields::HOST,
        on_every_page: true,
    },
    UserField {
        names: &["url"],
        field: index_format::fields::URL,
        on_every_page: true,
    },
];

fn lookup(name: &str) -> Option<&'static UserField> {
    let name = name.trim_start_matches(|c: char| !c.is_alphanumeric());
    USER_FIELDS
        .iter()
        .find(|f| f.names.iter().any(|n| n.eq_ignore_ascii_case(name)))
}

/// The schema field a name typed before a colon stands for (`Title`, `intitle`, `<~title`
/// are `title`), or `None` when it names no field a user may search.
pub fn user_field(name: &str) -> Option<&'static str> {
    lookup(name).map(|f| f.field)
}

/// `ast` with every field a user field by its schema name and everything outside sift's
/// language read as words (see the module docs). Regexes in the result are only the
/// `field:*` presence tests written here.
pub fn within_language(ast: UserInputAst) -> UserInputAst {
    match ast {
        UserInputAst::Clause(clauses) => UserInputAst::Clause(
            clauses
                .into_iter()
                .map(|(occur, ast)| (occur, within_language(ast)))
                .collect(),
        ),
        UserInputAst::Boost(ast, boost) => {
            let boost = boost.into_inner();
            let boost = if boost.is_nan() {
                1.0
            } else {
                boost.clamp(0.0, MAX_BOOST)
            };
            UserInputAst::Boost(Box::new(within_language(*ast)), boost.into())
        }
        UserInputAst::Leaf(leaf) => leaf_within_language(*leaf),
    }
}

fn leaf_within_language(leaf: UserInputLeaf) -> UserInputAst {
    match leaf {
        UserInputLeaf::Literal(mut literal) => match literal.field_name.take() {
            None => leaf_of(UserInputLeaf::Literal(literal)),
            Some(name) => match user_field(&name) {
                Some(field) => {
                    literal.field_name = Some(field.to_string());
                    leaf_of(UserInputLeaf::Literal(literal))
                }
                None => all_of(vec![
                    word(&name, None),
                    leaf_of(UserInputLeaf::Literal(literal)),
                ]),
            },
        },
        UserInputLeaf::All => leaf_of(UserInputLeaf::All),
        UserInputLeaf::Exists { field: name } => match lookup(&name) {
            Some(field) if field.on_every_page => leaf_of(UserInputLeaf::All),
            Some(field) => leaf_of(UserInputLeaf::Regex {
                field: Some(field.field.to_string()),
                pattern: ".+".to_string(),
            }),
            None => word(&name, None),
        },
        UserInputLeaf::Range {
            field: name,
            lower,
            upper,
        } => {
            let (field, mut words) = field_or_word(name);
            for bound in [lower, upper] {
                if let UserInputBound::Inclusive(text) | UserInputBound::Exclusive(text) = bound {
                    words.push(word(&text, field));
                }
            }
            all_of(words)
        }
        UserInputLeaf::Set {
            field: name,
            elements,
        } => {
            let (field, mut words) = field_or_word(name);
            let any = elements
                .iter()
                .map(|element| (Some(Occur::Should), word(element, field)))
                .collect();
            words.push(UserInputAst::Clause(any));
            all_of(words)
        }
        UserInputLeaf::Regex {
            field: name,
            pattern,
        } => {
            let (field, mut words) = field_or_word(name);
            words.push(word(&pattern, field));
            all_of(words)
        }
    }
}

/// The user field `name` stands for, or none and `name` as a word.
fn field_or_word(name: Option<String>) -> (Option<&'static str>, Vec<UserInputAst>) {
    match name {
        None => (None, Vec::new()),
        Some(name) => match user_field(&name) {
            Some(field) => (Some(field), Vec::new()),
            None => (None, vec![word(&name, None)]),
        },
    }
}

fn leaf_of(leaf: UserInputLeaf) -> UserInputAst {
    UserInputAst::Leaf(Box::new(leaf))
}

/// `text` as unquoted words, in `field` or the default fields.
fn word(text: &str, field: Option<&str>) -> UserInputAst {
    leaf_of(UserInputLeaf::Literal(UserInputLiteral {
        field_name: field.map(str::to_string),
        phrase: text.to_string(),
        delimiter: Delimiter::None,
        slop: 0,
        prefix: false,
    }))
}

/// A clause of `asts`, each with the parser's default occurrence (all required); one alone
/// is itself.
fn all_of(mut asts: Vec<UserInputAst>) -> UserInputAst {
    if asts.len() == 1
        && let Some(ast) = asts.pop()
    {
        return ast;
    }
    UserInputAst::Clause(asts.into_iter().map(|ast| (None, ast)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check(text as typed, the tree tantivy's grammar reads from the same query when it is
    /// kept to sift's language, written by hand)`.
    fn check(raw: &str, expected: &str) {
        let (ast, _) = tantivy::query_grammar::parse_query_lenient(raw);
        let (want, _) = tantivy::query_grammar::parse_query_lenient(expected);
        assert_eq!(
            format!("{:?}", within_language(ast)),
            format!("{:?}", want),
            "{raw:?}"
        );
    }

    #[test]
    fn field_names_are_read_leniently() {
        assert_eq!(user_field("title"), Some("title"));
        assert_eq!(user_field("TITLE"), Some("title"));
        assert_eq!(user_field("intitle"), Some("title"));
        assert_eq!(user_field("<~intitle"), Some("title"));
        assert_eq!(user_field("inurl"), Some("url_text"));
        assert_eq!(user_field("inlinks"), None, "a ranking signal, not text");
        assert_eq!(user_field("body_exact"), None, "an inner field");
        assert_eq!(user_field("foo"), None);
        assert_eq!(user_field(""), None);
        assert_eq!(user_field("<~"), None);
    }

    #[test]
    fn fields_are_named_by_their_schema_names() {
        check("intitle:heron", "title:heron");
        check("<~intitle:heron", "title:heron");
        check("Title:heron", "title:heron");
        check("inurl:vec", "url_text:vec");
    }

    #[test]
    fn unknown_fields_are_words() {
        check("foo:bar", "(foo bar)");
        check("inlinks:5", "(inlinks 5)");
        check("heron -foo:bar", "heron -(foo bar)");
    }

    #[test]
    fn presence_of_a_field() {
        // Every page has a URL and a body: `inurl:*` adds no condition.
        let every = format!("{:?}", UserInputAst::Leaf(Box::new(UserInputLeaf::All)));
        for raw in ["inurl:*", "url:*", "body:*", "host:*"] {
            let (ast, _) = tantivy::query_grammar::parse_query_lenient(raw);
            assert_eq!(format!("{:?}", within_language(ast)), every, "{raw:?}");
        }
        // A title may be empty: `title:*` is any title word.
        let (ast, _) = tantivy::query_grammar::parse_query_lenient("title:*");
        let want = UserInputAst::Leaf(Box::new(UserInputLeaf::Regex {
            field: Some("title".into()),
            pattern: ".+".into(),
        }));
        assert_eq!(within_language(ast), want);
        // No such field: its name is a word.
        check("foo:*", "foo");
        // (`<~foo` alone would be a range: "below ~foo".)
        let (ast, _) = tantivy::query_grammar::parse_query_lenient("<~foo:*");
        assert_eq!(within_language(ast), word("<~foo", None));
    }

    #[test]
    fn ranges_sets_and_regexes_are_words() {
        check("title:[a TO b]", "(title:a title:b)");
        check("inlinks:[1 TO 5]", "(inlinks 1 5)");
        check("[a TO *]", "a");
        check("<~foo", "~foo");
        check("title: IN [a b]", "((title:a OR title:b))");
    }

    #[test]
    fn boosts_are_bounded() {
        let (ast, _) =
            tantivy::query_grammar::parse_query_lenient(&format!("a^{}", "9".repeat(400)));
        let UserInputAst::Boost(_, boost) = within_language(ast) else {
            panic!("a boost");
        };
        assert_eq!(boost.into_inner(), MAX_BOOST);
        check("a^2", "a^2");
    }
}
