//! The searcher against real tantivy indexes: the query language, leniency, ranking,
//! snippets, paging and reloading.

use shared::config::RankingConfig;

use crate::search::{MAX_PER_PAGE, Searcher};
use crate::search_error::SearchError;
use crate::testutil::{Doc, add, data_with, shore, write_generation};

fn searcher(data: &std::path::Path) -> Searcher {
    Searcher::open(data, RankingConfig::default()).expect("searcher opens")
}

/// The result URLs of `query` that have every word (pages with most of the words, which
/// follow when few have all, are left out: `no_page_with_every_word...` and
/// `few_full_matches...` test those).
fn urls(searcher: &Searcher, query: &str) -> Vec<String> {
    searcher
        .search(query, 1, 10)
        .unwrap_or_else(|e| panic!("{query:?} fails: {e}"))
        .hits
        .into_iter()
        .filter(|hit| hit.all_words)
        .map(|hit| hit.url)
        .collect()
}

/// The result URLs of `query` over the index in `data`, ranked with `ranking`.
fn urls_ranked(data: &std::path::Path, ranking: RankingConfig, query: &str) -> Vec<String> {
    urls(
        &Searcher::open(data, ranking).expect("searcher opens"),
        query,
    )
}

/// `check(query, expected URLs in any order)`.
fn check(searcher: &Searcher, query: &str, expected: &[&str]) {
    let mut got = urls(searcher, query);
    got.sort();
    let mut expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(got, expected, "hits of {query:?}");
}

#[test]
fn the_query_language() {
    let data = data_with(&shore());
    let s = searcher(data.path());
    let heron = "http://birds.test/heron";
    let catcher = "http://birds.test/oystercatcher";
    let tables = "http://tides.test/tables";
    let private = "http://www.tides.test/private";
    check(&s, "heron", &[heron, tables, private]);
    check(&s, "herons", &[heron, tables, private]);
    // URLs are searchable too: www.tides.test holds "tide".
    check(&s, "heron tide", &[heron, tables, private]);
    check(&s, "heron dawn", &[heron]);
    check(&s, "\"blue heron\"", &[heron]);
    check(&s, "\"heron blue\"", &[]);
    check(&s, "heron -dawn", &[tables, private]);
    check(&s, "mussels OR dawn", &[heron, catcher]);
    check(&s, "title:tide", &[tables]);
    check(&s, "inurl:tides heron", &[tables, private]);
    check(&s, "heron -inurl:www", &[heron, tables]);
    check(&s, "heron site:tides.test", &[tables, private]);
    check(&s, "heron site:www.tides.test", &[private]);
    check(&s, "site:birds.test", &[heron, catcher]);
    check(&s, "heron site:nowhere.test", &[]);
    check(
        &s,
        "tide site:birds.test OR site:tides.test",
        &[heron, catcher, tables, private],
    );
    check(&s, "estuary", &[heron]);
    check(&s, "oystercatcher", &[catcher]);
    check(
        &s,
        "std::vec::Vec",
        &["http://docs.test/std/vec/struct.Vec.html"],
    );
    check(
        &s,
        "Vec::new()",
        &["http://docs.test/std/vec/struct.Vec.html"],
    );
    check(&s, "Vec<T>", &["http://docs.test/std/vec/struct.Vec.html"]);
    check(
        &s,
        "-heron",
        &[catcher, "http://docs.test/std/vec/struct.Vec.html"],
    );
}

#[test]
fn malformed_queries_are_searched_leniently() {
    let data = data_with(&shore());
    let s = searcher(data.path());
    let long = "heron ".repeat(2000);
    let unicode = "é".repeat(6000);
    let deep = format!("{}heron{}", "(-".repeat(250), ")".repeat(250));
    let malformed = [
        "\"unclosed",
        "heron \"unclosed",
        "AND OR",
        "((",
        "))",
        "title:",
        "title:\"",
        "nosuchfield:heron",
        "heron AND",
        "OR heron",
        "[a TO",
        "{",
        "^2",
        "heron^",
        "*",
        "\\",
        "site:",
        "-",
        "--heron",
        "+",
        "\u{0}",
        "inlinks:[1 TO 5]",
        "url:",
        // Issue 20: each of these once failed at search time (HTTP 500).
        "title:*",
        "inurl:*",
        "heron title:* inurl:*",
        "<~intitle:",
        "heron <~intitle:",
        "a\\\" <~intitle:*",
        "TITLE:*",
        "inlinks:*",
        "simhash:[0 TO 5]",
        "title:/her.*/",
        "heron^99999999999999999999999999999999999999999999999999999",
        "\"heron tide\"~4294967295",
        "\"great blue\"*",
        deep.as_str(),
        long.as_str(),
        unicode.as_str(),
    ];
    for query in malformed {
        let results = s.search(query, 1, 10);
        assert!(results.is_ok(), "{query:.40?} fails: {:?}", results.err());
    }
    let results = s.search(&long, 1, 10).expect("long query");
    assert!(results.query.len() <= 512, "queries are cut to the limit");
    assert_eq!(results.total, 3, "the cut long query still finds herons");
}

#[test]
fn field_presence_and_field_names_with_punctuation() {
    let titled = "http://a.test/titled";
    let untitled = "http://a.test/untitled";
    let data = data_with(&[
        Doc::new(titled, "Heron notes", "a heron by the tide"),
        Doc::new(untitled, "", "a heron by the tide"),
        Doc::new("http://a.test/plover", "Plover", "a plover on the beach"),
    ]);
    let s = searcher(data.path());
    // `title:*`: the pages with a title, not an error (title is no fast field).
    check(&s, "title:*", &[titled, "http://a.test/plover"]);
    check(&s, "TITLE:*", &[titled, "http://a.test/plover"]);
    check(&s, "heron title:*", &[titled]);
    check(&s, "heron -title:*", &[untitled]);
    // Every page has a URL: `inurl:*` adds no condition.
    check(&s, "inurl:*", &[titled, untitled, "http://a.test/plover"]);
    check(&s, "heron inurl:*", &[titled, untitled]);
    check(&s, "heron -inurl:*", &[]);
    // Punctuation before a field name is not part of it; `intitle` is the title.
    check(&s, "<~intitle:heron", &[titled]);
    check(&s, "intitle:plover", &["http://a.test/plover"]);
    check(&s, "<~intitle:*", &[titled, "http://a.test/plover"]);
    // A field name with nothing after it adds nothing.
    check(&s, "heron <~intitle:", &[titled, untitled]);
    // A name that is no user field is a word: no page says "inlinks".
    check(&s, "heron inlinks:*", &[]);
    check(&s, "heron foo:*", &[]);
    check(&s, "tide:heron", &[titled, untitled]);
    // Ranges and regexes are their words.
    check(&s, "title:[heron TO notes]", &[titled]);
    check(&s, "title:/plover/", &["http://a.test/plover"]);
}

#[test]
fn empty_queries_ask_for_words_without_needing_an_index() {
    let data = tempfile::tempdir().expect("tempdir");
    let s = searcher(data.path());
    for query in ["", "   ", "-", "\"(", "\u{0}"] {
        let results = s.search(query, 1, 10).expect("no error");
        assert!(results.nothing_to_search, "{query:?}");
        assert!(results.hits.is_empty());
    }
    assert!(matches!(
        s.search("heron", 1, 10),
        Err(SearchError::NoIndex)
    ));
}

#[test]
fn in_links_raise_rank_and_equal_text_scores_equal() {
    let docs = [
        Doc {
            inlinks: 0,
            ..Doc::new("http://a.test/obscure", "Plover", "snowy plover nest")
        },
        Doc {
            inlinks: 40,
            ..Doc::new("http://a.test/popular", "Plover", "snowy plover nest")
        },
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    assert_eq!(
        urls(&s, "plover"),
        vec!["http://a.test/popular", "http://a.test/obscure"]
    );
    let flat = Searcher::open(
        data.path(),
        RankingConfig {
            link_weight: 0.0,
            ..RankingConfig::default()
        },
    )
    .expect("searcher");
    let hits = flat.search("plover", 1, 10).expect("search").hits;
    assert!((hits[0].score - hits[1].score).abs() < 1e-5);
}

#[test]
fn links_from_other_hosts_weigh_more_than_a_sites_own() {
    // Both on one host, so host crowding does not enter: only where the links come from.
    let docs = [
        Doc {
            inlinks: 8,
            ..Doc::new("http://a.test/menu-linked", "Plover", "snowy plover nest")
        },
        Doc {
            inlinks: 3,
            external_inlinks: 3,
            ..Doc::new("http://a.test/cited", "Plover", "snowy plover nest")
        },
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    assert_eq!(
        urls(&s, "plover"),
        vec!["http://a.test/cited", "http://a.test/menu-linked"]
    );
    // Counted like the site's own links, eight beat three.
    let flat = Searcher::open(
        data.path(),
        RankingConfig {
            external_link_weight: 1.0,
            ..RankingConfig::default()
        },
    )
    .expect("searcher");
    assert_eq!(
        urls(&flat, "plover"),
        vec!["http://a.test/menu-linked", "http://a.test/cited"]
    );
}

#[test]
fn an_exact_word_ranks_above_its_stem_sibling() {
    // The English stemmer makes both words "connect": the exact form decides.
    let docs = [
        Doc::new(
            "http://a.test/connected",
            "Pipes",
            "pipes connected at dawn",
        ),
        Doc::new(
            "http://a.test/connection",
            "Pipes",
            "pipes connection at dawn",
        ),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    assert_eq!(
        urls(&s, "connection"),
        ["http://a.test/connection", "http://a.test/connected"]
    );
    assert_eq!(
        urls(&s, "connected"),
        ["http://a.test/connected", "http://a.test/connection"]
    );
}

#[test]
fn words_together_rank_above_words_scattered() {
    let docs = [
        Doc::new(
            "http://a.test/scattered",
            "Notes",
            "the key was found by the river where we sort the stones",
        ),
        Doc::new(
            "http://a.test/together",
            "Notes",
            "the river stones were found where we sort by key the stones",
        ),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    assert_eq!(
        urls(&s, "sort by key"),
        ["http://a.test/together", "http://a.test/scattered"]
    );
    assert_eq!(
        urls(&s, "key sort"),
        ["http://a.test/scattered", "http://a.test/together"],
        "in the order asked"
    );
}

#[test]
fn a_comparison_does_not_require_the_word_vs() {
    let docs = [Doc::new(
        "http://a.test/pointers",
        "Shared pointers",
        "Arc is the thread-safe Rc",
    )];
    let data = data_with(&docs);
    let s = searcher(data.path());
    for query in ["Arc vs Rc", "arc VS rc", "Arc versus Rc"] {
        assert_eq!(urls(&s, query), ["http://a.test/pointers"], "{query}");
    }
    assert!(
        urls(&s, "\"Arc vs Rc\"").is_empty(),
        "inside quotes it is a word"
    );
}

#[test]
fn no_page_with_every_word_gives_the_pages_with_most_of_them_said_so() {
    let docs = [
        Doc::new(
            "http://a.test/heron",
            "Heron",
            "a grey heron at dawn in the reeds",
        ),
        Doc::new(
            "http://a.test/gull",
            "Gull",
            "a gull at dawn over the harbour",
        ),
        Doc::new("http://a.test/crab", "Crab", "a crab under a stone"),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let all = s.search("heron dawn", 1, 10).expect("search");
    assert!(!all.partial);
    let got: Vec<(&str, bool)> = all
        .hits
        .iter()
        .map(|h| (h.url.as_str(), h.all_words))
        .collect();
    assert_eq!(
        got,
        [("http://a.test/heron", true), ("http://a.test/gull", false)],
        "the one page with both words, then the one with one of two"
    );

    let some = s.search("heron dawn harbour", 1, 10).expect("search");
    assert!(some.partial, "no page has all three words");
    let got: Vec<&str> = some.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(!got.contains(&"http://a.test/crab"), "{got:?}");
    assert!(some.hits.iter().all(|h| !h.all_words));
    // No page has two of the three: then a page with any one of them.
    let one = s.search("crab albatross petrel", 1, 10).expect("search");
    assert!(one.partial);
    assert_eq!(one.hits.len(), 1);
    assert_eq!(one.hits[0].url, "http://a.test/crab");

    let none = s.search("albatross petrel", 1, 10).expect("search");
    assert!(
        none.partial && none.hits.is_empty(),
        "said so, and nothing found"
    );
    let phrase = s.search("\"heron harbour\"", 1, 10).expect("search");
    assert!(
        !phrase.partial && phrase.hits.is_empty(),
        "a phrase is not loosened"
    );
}

#[test]
fn korean_pages_are_found_by_korean_words() {
    let docs = [
        Doc::new(
            "http://a.test/ko/ownership.html",
            "소유권 이해하기",
            "러스트는 가비지 컬렉터 없이 메모리 안전성을 보장합니다. 소유권은 러스트의 핵심 기능입니다.",
        ),
        Doc::new(
            "http://a.test/en/ownership.html",
            "Understanding ownership",
            "Rust guarantees memory safety without a garbage collector.",
        ),
        Doc::new(
            "http://a.test/ja/ownership.html",
            "所有権",
            "所有権はRustの中心的な機能です。",
        ),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let ko = "http://a.test/ko/ownership.html";
    // Words as typed, without the particles the page attaches ("러스트는", "소유권은").
    check(&s, "러스트", &[ko]);
    check(&s, "소유권", &[ko]);
    check(&s, "메모리 안전성", &[ko]);
    check(&s, "컬렉터", &[ko]);
    check(&s, "memory safety", &["http://a.test/en/ownership.html"]);
    check(&s, "所有権", &["http://a.test/ja/ownership.html"]);
    // Bigrams must stand together: these syllables are all on the page, not in this order.
    check(&s, "트러스", &[]);
}

#[test]
fn an_unknown_word_gets_a_spelling_from_the_index() {
    let docs = [
        Doc::new(
            "http://a.test/1",
            "Heron",
            "the grey heron waits in the reeds",
        ),
        Doc::new(
            "http://a.test/2",
            "Herons",
            "two herons and a heron at dawn",
        ),
        Doc::new(
            "http://a.test/3",
            "Reeds",
            "reeds bend where the heron stood",
        ),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let suggestion = |query: &str| s.search(query, 1, 10).expect("search").suggestion;
    assert_eq!(suggestion("heorn"), Some("heron".into()), "a transposition");
    assert_eq!(suggestion("grey hreon"), Some("grey heron".into()));
    assert_eq!(suggestion("Heron"), None, "a known word stands");
    assert_eq!(
        suggestion("herons"),
        None,
        "a known word in another form stands"
    );
    assert_eq!(suggestion("albatross"), None, "nothing near it");
    assert_eq!(
        suggestion("\"heorn\""),
        None,
        "only plain words are respelled"
    );
    assert_eq!(suggestion("heorn site:a.test"), None);
}

#[test]
fn a_spelling_that_fits_the_other_words_wins() {
    let docs = [
        Doc::new("http://a.test/1", "Look", "look at the sky"),
        Doc::new("http://a.test/2", "Look", "look at the sea"),
        Doc::new(
            "http://a.test/3",
            "Mutex",
            "take the mutex lock before writing",
        ),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let suggestion = |query: &str| s.search(query, 1, 10).expect("search").suggestion;
    assert_eq!(
        suggestion("lcok"),
        Some("look".into()),
        "alone: the commonest"
    );
    assert_eq!(
        suggestion("mutex lcok"),
        Some("mutex lock".into()),
        "with its neighbour"
    );
}

#[test]
fn a_shallower_page_wins_a_tie() {
    let docs = [
        Doc::new(
            "http://a.test/guide/birds/shore/charadrius.html",
            "Plover",
            "snowy plover nest",
        ),
        Doc::new("http://a.test/plover.html", "Plover", "snowy plover nest"),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    // Words the URLs do not hold: text and links tie, the depth prior decides.
    assert_eq!(
        urls(&s, "snowy nest"),
        [
            "http://a.test/plover.html",
            "http://a.test/guide/birds/shore/charadrius.html"
        ]
    );
    let flat = Searcher::open(
        data.path(),
        RankingConfig {
            depth_weight: 0.0,
            ..RankingConfig::default()
        },
    )
    .expect("searcher");
    let hits = flat.search("snowy nest", 1, 10).expect("search").hits;
    assert!(
        (hits[0].score - hits[1].score).abs() < 1e-5,
        "a tie without it"
    );
}

#[test]
fn a_page_published_under_two_paths_shows_once() {
    const TEXT: &str = "A pinned pointer keeps its pointee in place: the value behind it \
        never moves again until it is dropped, which self-referential futures need, \
        and the type system checks every use of the pinned place for you.";
    const OTHER: &str = "A boxed pointer owns its pointee on the heap: the value behind it \
        moves with the box, is freed when the box is dropped, and can be of any size \
        the allocator can provide at run time.";
    // The core copy folds under the better std one; the same text under another page name
    // (index.html) stays.
    let docs = [
        Doc {
            inlinks: 9,
            ..Doc::new(
                "http://docs.test/std/pin/struct.Pin.html",
                "Pin in std::pin",
                TEXT,
            )
        },
        Doc::new(
            "http://docs.test/core/pin/struct.Pin.html",
            "Pin in core::pin",
            TEXT,
        ),
        Doc::new("http://docs.test/std/pin/index.html", "std::pin", TEXT),
        Doc::new("http://docs.test/std/boxed/struct.Box.html", "Box", OTHER),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let got = urls(&s, "pointer");
    assert_eq!(
        got[0], "http://docs.test/std/pin/struct.Pin.html",
        "{got:?}"
    );
    check(
        &s,
        "pointer",
        &[
            "http://docs.test/std/pin/struct.Pin.html",
            "http://docs.test/std/pin/index.html",
            "http://docs.test/std/boxed/struct.Box.html",
        ],
    );
}

#[test]
fn a_source_listing_ranks_below_the_prose_about_it() {
    let docs = [
        Doc::new(
            "http://docs.test/std/struct.Instant.html",
            "Instant",
            "An instant measures elapsed time on a monotonic clock.",
        ),
        Doc {
            code: "/// Elapsed time since this instant: the elapsed time, as elapsed time.\n\
                   fn elapsed(&self) -> Duration { Instant::now() - *self }",
            ..Doc::new("http://docs.test/src/clock.rs.html", "clock.rs", "source")
        },
        Doc::new(
            "http://docs.test/std/struct.Duration.html",
            "Duration",
            "A span of time.",
        ),
        Doc::new(
            "http://docs.test/std/fn.sleep.html",
            "sleep",
            "Puts the thread to sleep.",
        ),
    ];
    let data = data_with(&docs);
    let order = |code_weight| {
        let ranking = RankingConfig {
            code_weight,
            ..RankingConfig::default()
        };
        urls_ranked(data.path(), ranking, "elapsed time")
    };
    // The listing says the words more often: it wins on text alone.
    assert_eq!(order(0.0)[0], "http://docs.test/src/clock.rs.html");
    assert_eq!(
        order(RankingConfig::default().code_weight),
        [
            "http://docs.test/std/struct.Instant.html",
            "http://docs.test/src/clock.rs.html"
        ]
    );
}

#[test]
fn a_stub_ranks_below_a_page_that_explains() {
    let docs = [
        Doc::new(
            "http://docs.test/unstable/str-split-whitespace-remainder.html",
            "str_split_whitespace_remainder",
            "str_split_whitespace_remainder: the tracking issue for this feature is #77998.",
        ),
        Doc {
            headings: "pub fn split_whitespace(&self) -> SplitWhitespace<'_>",
            inlinks: 250,
            ..Doc::new(
                "http://docs.test/std/primitive.str.html",
                "str",
                "String slices. The str type is the most primitive string type; it is usually seen \
             in its borrowed form. Methods: len returns the length in bytes, is_empty says \
             whether it has none, chars iterates over its characters, bytes over its bytes, \
             lines over its lines, and split_whitespace splits a string slice by whitespace, \
             returning an iterator over the words between; to_uppercase and to_lowercase \
             return a new String, trim removes leading and trailing whitespace, parse turns \
             it into any type that implements FromStr.",
            )
        },
        Doc::new(
            "http://docs.test/std/primitive.char.html",
            "char",
            "A character type: is_whitespace says whether it is whitespace.",
        ),
        Doc::new(
            "http://docs.test/std/vec/struct.Vec.html",
            "Vec",
            "A growable array: split_off splits it in two.",
        ),
    ];
    let data = data_with(&docs);
    let order = |thin_weight| {
        // The lead and section signals left out: they favour the explaining page too.
        let ranking = RankingConfig {
            thin_weight,
            lead_boost: 0.0,
            section_boost: 0.0,
            ..RankingConfig::default()
        };
        urls_ranked(data.path(), ranking, "split whitespace")
    };
    // The stub's title and URL are the query: it wins on text alone.
    let stub = "http://docs.test/unstable/str-split-whitespace-remainder.html";
    assert_eq!(order(0.0)[0], stub);
    assert_eq!(
        order(RankingConfig::default().thin_weight),
        ["http://docs.test/std/primitive.str.html", stub]
    );
}

#[test]
fn a_name_abbreviating_the_query_words_ranks_higher() {
    let docs = [
        Doc::new(
            "http://docs.test/std/env/fn.var.html",
            "var in std::env",
            "Fetches the environment variable key from the current process.",
        ),
        Doc::new(
            "http://docs.test/book/configuration.html",
            "Configuration",
            "Set an environment variable, or a variable in the file: the environment \
             variable wins over the file.",
        ),
    ];
    let data = data_with(&docs);
    let order = |abbreviation_weight| {
        let ranking = RankingConfig {
            abbreviation_weight,
            ..RankingConfig::default()
        };
        urls_ranked(data.path(), ranking, "environment variable")
    };
    assert_eq!(order(0.0)[0], "http://docs.test/book/configuration.html");
    assert_eq!(
        order(RankingConfig::default().abbreviation_weight)[0],
        "http://docs.test/std/env/fn.var.html"
    );
}

#[test]
fn a_namesake_of_a_better_result_moves_below_other_pages() {
    // std's and core's pages of one trait, with different texts (not close enough to fold),
    // and another page a little weaker than either.
    let docs = [
        Doc {
            inlinks: 20,
            ..Doc::new(
                "http://docs.test/std/marker/trait.Unpin.html",
                "Unpin in std::marker",
                "Unpin types can move after pinning. Implementors: String, Vec, File.",
            )
        },
        Doc {
            inlinks: 10,
            ..Doc::new(
                "http://docs.test/core/marker/trait.Unpin.html",
                "Unpin in core::marker",
                "Unpin types can move after pinning. Implementors: u8, bool, char.",
            )
        },
        Doc {
            inlinks: 10,
            ..Doc::new(
                "http://docs.test/book/pinning.html",
                "Pinning and Unpin",
                "Pinned data stays at one location in memory; Unpin types can move.",
            )
        },
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let hits = s.search_explained("unpin", 1, 10).expect("search").hits;
    let scored: Vec<(&str, f32)> = hits.iter().map(|h| (h.url.as_str(), h.score)).collect();
    assert_eq!(hits.len(), 3, "kept: {scored:?}");
    assert_eq!(
        hits.iter().map(|h| h.url.as_str()).collect::<Vec<_>>(),
        [
            "http://docs.test/std/marker/trait.Unpin.html",
            "http://docs.test/book/pinning.html",
            "http://docs.test/core/marker/trait.Unpin.html",
        ],
        "{scored:?}"
    );
    let demoted = hits[2].explanation.as_ref().expect("explained");
    assert_eq!(demoted["namesakes"], 1, "{demoted}");
    // Without the demotion the core page would come second.
    let raw = hits[2].score / crate::ranking::NAMESAKE_DEMOTION;
    assert!(raw > hits[1].score, "{scored:?}");
}

#[test]
fn repeats_of_one_host_are_demoted_but_kept() {
    let docs = [
        Doc::new(
            "http://big.test/1",
            "Sanderling",
            "sanderling sanderling sanderling",
        ),
        Doc::new(
            "http://big.test/2",
            "Sanderling",
            "sanderling sanderling sanderling",
        ),
        Doc::new(
            "http://big.test/3",
            "Sanderling",
            "sanderling sanderling sanderling",
        ),
        Doc::new(
            "http://small.test/1",
            "Sanderling",
            "sanderling sanderling sanderling surf",
        ),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let got = urls(&s, "sanderling");
    assert_eq!(got.len(), 4, "nothing dropped: {got:?}");
    assert_eq!(got[0].split('/').nth(2), Some("big.test"));
    assert_eq!(
        got[1], "http://small.test/1",
        "the other host moves up: {got:?}"
    );
    let scores: Vec<f32> = s
        .search("sanderling", 1, 10)
        .expect("search")
        .hits
        .iter()
        .map(|h| h.score)
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best first: {scores:?}"
    );
}

#[test]
fn snippets_mark_terms_and_respect_nosnippet() {
    let data = data_with(&shore());
    let s = searcher(data.path());
    let results = s.search("tide", 1, 10).expect("search");
    let heron = results
        .hits
        .iter()
        .find(|h| h.url == "http://birds.test/heron")
        .expect("heron page");
    let marked: Vec<&str> = heron
        .snippet
        .runs()
        .into_iter()
        .filter_map(|(marked, run)| marked.then_some(run))
        .collect();
    assert_eq!(marked, vec!["tide"], "{:?}", heron.snippet);

    let private = s
        .search("private", 1, 10)
        .expect("search")
        .hits
        .into_iter()
        .next()
        .expect("private page");
    assert!(
        private.snippet.text.is_empty(),
        "nosnippet: {:?}",
        private.snippet
    );

    // Matched on the title only: the description stands in.
    let tables = s.search("tables", 1, 10).expect("search").hits;
    assert_eq!(tables[0].snippet.text, "Tide tables for the bay.");
}

#[test]
fn pages_are_capped() {
    let docs: Vec<Doc> = (0..120)
        .map(|i| {
            let url: &'static str = Box::leak(format!("http://a.test/{i}").into_boxed_str());
            Doc::new(url, "Turnstone", "ruddy turnstone")
        })
        .collect();
    let data = data_with(&docs);
    let s = searcher(data.path());
    let all = s.search("turnstone", 1, 1000).expect("search");
    assert_eq!(
        (all.total, all.hits.len(), all.per_page),
        (120, MAX_PER_PAGE, MAX_PER_PAGE)
    );
    let third = s.search("turnstone", 3, 50).expect("search");
    assert_eq!((third.page, third.hits.len()), (3, 20));
    let far = s.search("turnstone", 1_000_000, 10).expect("search");
    assert_eq!(far.page, 101, "offset at most 1000");
    assert!(far.hits.is_empty());
    let zero = s.search("turnstone", 0, 0).expect("search");
    assert_eq!((zero.page, zero.per_page, zero.hits.len()), (1, 1, 1));
    let mut seen: Vec<String> = (1..=3)
        .flat_map(|p| s.search("turnstone", p, 50).expect("page").hits)
        .map(|h| h.url)
        .collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 120, "pages neither repeat nor skip");
}

/// A kept answer is the one a search would give: the same results, its own query shown,
/// never kept when explained.
#[test]
fn a_kept_answer_is_what_a_search_gives() {
    let data = data_with(&shore());
    let fresh = searcher(data.path());
    let keeping = searcher(data.path()).with_answer_cache(8);
    let summary = |results: crate::search::SearchResults| {
        let hits: Vec<(String, u32, String)> = results
            .hits
            .into_iter()
            .map(|hit| (hit.url, hit.score.to_bits(), hit.snippet.text))
            .collect();
        (results.query, results.total, results.partial, hits)
    };
    for query in [
        "heron",
        "heron dawn",
        " heron   dawn ",
        "heron",
        "tide OR heron",
        "heron",
    ] {
        for page in [1, 2] {
            let expected = fresh.search(query, page, 2).expect("search");
            let got = keeping.search(query, page, 2).expect("search");
            assert_eq!(summary(got), summary(expected), "{query:?}, page {page}");
        }
    }
    for _ in 0..2 {
        let explained = keeping.search_explained("heron", 1, 10).expect("search");
        assert!(explained.hits.iter().all(|hit| hit.explanation.is_some()));
    }
}

/// Answers kept or not, a commit and a new generation are seen by the next search.
#[test]
fn new_generations_and_commits_are_picked_up() {
    let data = tempfile::tempdir().expect("tempdir");
    let s = searcher(data.path()).with_answer_cache(100);
    assert!(s.index_facts().is_none());
    let index = write_generation(
        data.path(),
        1,
        &[Doc::new("http://a.test/", "Whimbrel", "whimbrel")],
    );
    assert!(s.refresh().expect("refresh"), "first generation loaded");
    assert!(!s.refresh().expect("refresh"), "nothing new");
    assert_eq!(urls(&s, "whimbrel"), vec!["http://a.test/"]);

    // A commit to the same generation: the reader follows it by itself.
    add(
        &index,
        &[Doc::new("http://a.test/2", "Whimbrel two", "whimbrel")],
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while urls(&s, "whimbrel").len() < 2 {
        assert!(std::time::Instant::now() < deadline, "commit never seen");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    write_generation(
        data.path(),
        2,
        &[Doc::new("http://b.test/", "Godwit", "godwit")],
    );
    assert!(s.refresh().expect("refresh"));
    assert_eq!(
        s.index_facts().map(|f| f.generation).as_deref(),
        Some("gen-000002")
    );
    assert_eq!(urls(&s, "godwit"), vec!["http://b.test/"]);
    assert!(urls(&s, "whimbrel").is_empty());

    // A CURRENT naming a missing generation: an error, and the old one keeps serving.
    std::fs::write(
        index_format::current_generation_marker(data.path()),
        "gen-000009\n",
    )
    .expect("write");
    assert!(s.refresh().is_err());
    assert_eq!(urls(&s, "godwit"), vec!["http://b.test/"]);
}

#[test]
fn explained_scores_show_their_parts() {
    let data = data_with(&shore());
    let s = searcher(data.path());
    let hits = s.search_explained("heron", 1, 10).expect("search").hits;
    let explanation = hits[0].explanation.as_ref().expect("explained");
    let fields = explanation["fields"].as_object().expect("fields");
    assert!(fields["title"].as_f64().unwrap_or(0.0) > 0.0, "{fields:?}");
    let total: f64 = fields.values().filter_map(|v| v.as_f64()).sum();
    let bm25 = explanation["bm25"]["value"].as_f64().expect("bm25 value");
    assert!((total - bm25).abs() < 1e-3 * bm25, "{total} vs {bm25}");
    for key in [
        "fields",
        "bm25",
        "inlinks",
        "link_boost",
        "pagerank_boost",
        "depth_prior",
        "prose_prior",
        "namesake_demotion",
        "host_demotion",
        "score",
    ] {
        assert!(explanation.get(key).is_some(), "{key} in {explanation}");
    }
}

#[test]
fn documents_are_found_by_url() {
    let data = data_with(&shore());
    let s = searcher(data.path());
    let doc = s
        .document("http://birds.test/heron")
        .expect("lookup")
        .expect("indexed");
    assert_eq!(
        (doc.title.as_str(), doc.signals.inlinks),
        ("Great blue heron", 5)
    );
    assert!(
        s.document("http://birds.test/nope")
            .expect("lookup")
            .is_none()
    );
}

#[test]
fn a_result_is_scanned_for_the_terms_its_body_holds() {
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
    use tantivy::schema::IndexRecordOption;
    use tantivy::{DocAddress, Term};

    let data = tempfile::tempdir().expect("tempdir");
    let index = write_generation(
        data.path(),
        1,
        &[
            Doc::new(
                "http://a.test/both",
                "Both",
                "The heron waits for the tide.",
            ),
            Doc::new(
                "http://a.test/tide",
                "Heron",
                "The tide comes in twice a day.",
            ),
            Doc::new(
                "http://a.test/none",
                "Heron tide",
                "Nothing about birds here.",
            ),
        ],
    );
    let fields = index_format::IndexFields::new(&index.schema()).expect("fields");
    let searcher = index.reader().expect("reader").searcher();
    let term = |word: &str| -> Box<dyn Query> {
        Box::new(TermQuery::new(
            Term::from_field_text(fields.body, word),
            IndexRecordOption::WithFreqsAndPositions,
        ))
    };
    let query = BooleanQuery::new(vec![
        (Occur::Should, term("heron")),
        (Occur::Should, term("tide")),
    ]);
    let passages = crate::snippet::Passages::new(&searcher, &query, fields.body).expect("passages");
    // The writer may spread the documents over segments: each is found by its URL.
    let address = |url: &str| -> DocAddress {
        let by_url = TermQuery::new(
            Term::from_field_text(fields.url, url),
            IndexRecordOption::Basic,
        );
        let top = TopDocs::with_limit(1).order_by_score();
        searcher.search(&by_url, &top).expect("search")[0].1
    };
    let held: Vec<(u64, Vec<u32>)> = [
        "http://a.test/both",
        "http://a.test/tide",
        "http://a.test/none",
    ]
    .into_iter()
    .map(|url| {
        let held = passages.held_by(&searcher, address(url));
        (held.terms, held.occurrences)
    })
    .collect();
    // Terms in query order: heron is bit 0, tide bit 1; a title word is not in the body.
    assert_eq!(
        held,
        [(0b11, vec![1, 1]), (0b10, vec![0, 1]), (0b00, vec![0, 0])]
    );
}

#[test]
fn few_full_matches_are_followed_by_pages_with_most_of_the_words() {
    // Two pages have all three words; many have two of them; some have one.
    let leak = |s: String| -> &'static str { s.leak() };
    let two: Vec<&str> = (0..8)
        .map(|i| leak(format!("http://a.test/two-{i}")))
        .collect();
    let one: Vec<&str> = (0..6)
        .map(|i| leak(format!("http://a.test/one-{i}")))
        .collect();
    let mut docs = vec![
        Doc::new("http://a.test/all-1", "Tide", "heron tide pools at dawn"),
        Doc::new(
            "http://a.test/all-2",
            "Pools",
            "tide pools where a heron waits",
        ),
    ];
    for &url in &two {
        docs.push(Doc::new(url, "Two", "a heron over the tide flats"));
    }
    for &url in &one {
        docs.push(Doc::new(url, "One", "a heron in the reeds"));
    }
    let data = data_with(&docs);
    let s = searcher(data.path());
    let results = s.search("heron tide pools", 1, 20).expect("search");
    assert!(!results.partial, "some pages have every word");
    let got: Vec<(&str, bool)> = results
        .hits
        .iter()
        .map(|h| (h.url.as_str(), h.all_words))
        .collect();
    assert_eq!(
        got.len(),
        10,
        "two full matches, eight with two of three: {got:?}"
    );
    assert!(
        got[..2]
            .iter()
            .all(|(url, all)| url.contains("/all-") && *all),
        "{got:?}"
    );
    assert!(
        got[2..]
            .iter()
            .all(|(url, all)| url.contains("/two-") && !*all),
        "{got:?}"
    );
    assert!(
        results.hits[1].score >= results.hits[2].score,
        "full matches first"
    );
    let json = crate::handlers::results_json(&results);
    assert_eq!(json["hits"][0]["all_words"], true);
    assert_eq!(json["hits"][2]["all_words"], false);
    let page = crate::render::results(&results).into_string();
    assert_eq!(page.matches("Pages with only some of the words").count(), 1);
    // Each hit is explained by the query that found it (a page with two of three words
    // does not match the query that needs all three).
    let explained = s
        .search_explained("heron tide pools", 1, 20)
        .expect("explained, not refused");
    assert_eq!(explained.hits.len(), 10);
    assert!(explained.hits.iter().all(|h| h.explanation.is_some()));
    // Ten pages or more with every word: nothing looser follows.
    let many = s.search("heron tide", 1, 20).expect("search");
    assert!(
        many.hits.iter().all(|h| h.all_words),
        "ten pages have both, the one-* pages one"
    );
    assert_eq!(many.hits.len(), 10);
}

#[test]
fn hyphenated_joined_and_spaced_forms_meet() {
    let docs = [
        Doc::new(
            "http://a.test/hyphen",
            "Format",
            "an f-string formats values",
        ),
        Doc::new(
            "http://a.test/joined",
            "Format",
            "an fstring formats values",
        ),
        Doc::new(
            "http://a.test/spaced",
            "Format",
            "an f string formats values",
        ),
        Doc::new(
            "http://a.test/apart",
            "Format",
            "f is a letter; a string of them",
        ),
        Doc::new("http://a.test/mail", "Mail", "send e-mail to the list"),
        Doc::new("http://a.test/email", "Mail", "send email to the list"),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let (hyphen, joined, spaced, apart) = (
        "http://a.test/hyphen",
        "http://a.test/joined",
        "http://a.test/spaced",
        "http://a.test/apart",
    );
    check(&s, "f-string", &[hyphen, joined, spaced]);
    check(&s, "fstring", &[hyphen, joined]);
    check(&s, "f string", &[hyphen, spaced, apart]);
    assert_eq!(
        urls(&s, "f string")[2],
        apart,
        "words apart rank last: {:?}",
        urls(&s, "f string")
    );
    check(&s, "email", &["http://a.test/mail", "http://a.test/email"]);
    check(&s, "e-mail", &["http://a.test/mail", "http://a.test/email"]);
    check(&s, "\"f-string\"", &[hyphen, spaced]);
}

#[test]
fn versions_and_dotted_names_match_as_written_and_as_parts() {
    let docs = [
        Doc::new(
            "http://a.test/311",
            "Release",
            "what is new in 3.11 and later",
        ),
        Doc::new("http://a.test/3-1-1", "Release", "what is new in 3.1.1"),
        Doc::new("http://a.test/apart", "Release", "3 apples and 11 pears"),
        Doc::new(
            "http://a.test/join",
            "Paths",
            "call os.path.join to build a path",
        ),
        Doc::new(
            "http://a.test/words",
            "Paths",
            "the os module, a path and join them",
        ),
        Doc::new(
            "http://a.test/fs",
            "Files",
            "std::fs::read reads a whole file",
        ),
        Doc::new(
            "http://a.test/fs-apart",
            "Files",
            "read the std docs: fs is a module that can read",
        ),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    check(&s, "3.11", &["http://a.test/311"]);
    check(&s, "1.1", &["http://a.test/3-1-1"]);
    check(&s, "os.path.join", &["http://a.test/join"]);
    check(&s, "path.join", &["http://a.test/join"]);
    check(&s, "ospathjoin", &["http://a.test/join"]);
    assert_eq!(urls(&s, "join")[0], "http://a.test/join");
    assert_eq!(
        urls(&s, "std::fs::read"),
        ["http://a.test/fs", "http://a.test/fs-apart"],
        "as parts, written together first"
    );
}

#[test]
fn a_section_holding_every_word_beats_a_long_page_that_scatters_them() {
    // A long reference page names each word many times, each in another section; a short
    // page's one section holds them together.
    const LONG: &[(&str, &str)] = &[
        (
            "status.showUntracked",
            "untracked entries are listed; untracked is the default",
        ),
        (
            "clean.requireForce",
            "refuse to remove anything unless forced; remove nothing",
        ),
        (
            "core.excludesFile",
            "files of patterns; files listed here; more files",
        ),
        ("diff.renames", "detect renames between the two trees"),
        ("gc.auto", "housekeeping after this many loose objects"),
        (
            "status.relativePaths",
            "paths relative to the current directory",
        ),
    ];
    const SHORT: &[(&str, &str)] = &[(
        "Description",
        "Remove untracked files from the working tree, recursively",
    )];
    let docs = [
        Doc {
            sections: LONG,
            ..Doc::new(
                "http://a.test/config",
                "Configuration",
                "remove untracked files settings: untracked, files, remove",
            )
        },
        Doc {
            sections: SHORT,
            ..Doc::new("http://a.test/clean", "Clean", "a command")
        },
    ];
    let data = data_with(&docs);
    let order = |section_boost| {
        let ranking = RankingConfig {
            section_boost,
            lead_boost: 0.0,
            ..RankingConfig::default()
        };
        urls_ranked(data.path(), ranking, "remove untracked files")
    };
    assert_eq!(
        order(0.0)[0],
        "http://a.test/config",
        "without sections the long page's many mentions win"
    );
    assert_eq!(
        order(RankingConfig::default().section_boost),
        ["http://a.test/clean", "http://a.test/config"]
    );
    assert_eq!(order(1.0)[0], "http://a.test/clean");
}
#[test]
fn a_generation_an_older_version_wrote_is_left_unloaded_until_the_next() {
    let data = tempfile::tempdir().expect("tempdir");
    // An older version's generation: its schema lacks fields this version reads.
    let dir = data.path().join("index").join("gen-000001");
    std::fs::create_dir_all(&dir).expect("generation dir");
    let mut old = tantivy::schema::Schema::builder();
    old.add_text_field(index_format::fields::URL, tantivy::schema::STRING);
    tantivy::Index::create_in_dir(&dir, old.build()).expect("old index");
    std::fs::write(
        index_format::current_generation_marker(data.path()),
        "gen-000001\n",
    )
    .expect("CURRENT");
    let s = Searcher::open(data.path(), RankingConfig::default()).expect("opens, not fails");
    assert!(matches!(
        s.search("heron", 1, 10),
        Err(SearchError::NoIndex)
    ));
    write_generation(data.path(), 2, &shore());
    assert!(
        s.refresh().expect("refresh"),
        "the new generation is loaded"
    );
    assert!(!urls(&s, "heron").is_empty());
}

#[test]
fn a_results_score_is_its_explained_parts_multiplied() {
    // Bonuses are scored over the first pass's best only (`rerank`): what they add must be
    // what the query and its bonuses in one give, in English and in French pages alike
    // (whose bonuses count for their own stemming's pages only).
    let docs = [
        Doc {
            sections: &[("Sort by key", "sort the stones by key, by the river")],
            inlinks: 3,
            ..Doc::new(
                "http://a.test/together",
                "Sort by key",
                "the river stones were found where we sort by key the stones",
            )
        },
        Doc::new(
            "http://a.test/scattered",
            "Notes",
            "the key was found by the river where we sort the stones",
        ),
        Doc::new(
            "http://b.test/fr",
            "Trier par clé",
            "Les pierres de la rivière sont triées : sort by key, disent les gens, et ils \
             trient les pierres de la rivière par leur clé pendant toute la journée.",
        ),
    ];
    let data = data_with(&docs);
    let s = searcher(data.path());
    let hits = s
        .search_explained("sort by key", 1, 10)
        .expect("search")
        .hits;
    assert_eq!(hits.len(), 3, "{hits:?}");
    assert_eq!(hits[0].url, "http://a.test/together");
    for hit in &hits {
        let explanation = hit.explanation.as_ref().expect("explained");
        let part = |key: &str| explanation[key].as_f64().unwrap_or(f64::NAN);
        let product = explanation["bm25"]["value"].as_f64().expect("bm25")
            * part("link_boost")
            * part("pagerank_boost")
            * part("depth_prior")
            * part("prose_prior")
            * part("thin_prior")
            * part("namesake_demotion")
            * part("host_demotion");
        let score = f64::from(hit.score);
        assert!(
            (product - score).abs() < 1e-4 * score,
            "{}: {product} explained, {score} given",
            hit.url
        );
    }
}

#[test]
fn a_hit_is_read_where_round_two_found_it_unless_another_page_is_there() {
    use crate::hit::{QuerySpec, Ranking};
    use crate::leaf::HitsRequest;
    use crate::query::Matching;
    use tantivy::DocAddress;

    let data = data_with(&[
        Doc::new("http://a.test/one", "One", "a heron by the river"),
        Doc::new("http://a.test/two", "Two", "a heron by the lake"),
    ]);
    let searcher = searcher(data.path());
    let request = |found_at| HitsRequest {
        spec: QuerySpec {
            text: "heron".to_string(),
            matching: Matching::Compounds,
            ranking: Ranking::Full,
            order: crate::hit::Order::Relevance,
            synonyms: Vec::new(),
        },
        stats: Default::default(),
        wanted: vec![(0, "http://a.test/two".to_string())],
        found_at,
        explain: false,
    };
    let places = [
        vec![],
        vec![None],
        vec![Some(DocAddress::new(0, 0))],
        vec![Some(DocAddress::new(0, 1))],
        vec![Some(DocAddress::new(0, 999))],
        vec![Some(DocAddress::new(7, 0))],
    ];
    for found_at in places {
        let hits = searcher
            .local()
            .hits(&request(found_at.clone()))
            .expect("hits");
        let shown: Vec<(&str, &str)> = hits
            .iter()
            .map(|hit| (hit.url.as_str(), hit.title.as_str()))
            .collect();
        assert_eq!(shown, [("http://a.test/two", "Two")], "{found_at:?}");
        assert!(hits[0].snippet.text.contains("lake"), "{found_at:?}");
    }
}

/// A page saying "tide", published on `published` (`YYYY-MM-DD`), from a PDF when `pdf`.
fn tide_report(url: &'static str, published: Option<&'static str>, pdf: bool) -> Doc {
    Doc {
        url,
        title: "Tide report",
        body: "The tide came in early along the estuary.",
        published,
        pdf,
        ..Doc::default()
    }
}

#[test]
fn kind_and_date_operators_narrow_and_a_date_that_is_none_is_refused() {
    let (old, leap, undated, pdf) = (
        "http://news.test/old",
        "http://news.test/leap",
        "http://news.test/undated",
        "http://news.test/tides.pdf",
    );
    let doc = tide_report;
    let data = data_with(&[
        doc(old, Some("2019-06-01"), false),
        doc(leap, Some("2024-02-29"), false),
        doc(undated, None, false),
        doc(pdf, Some("2021-01-01"), true),
    ]);
    let s = searcher(data.path());
    check(&s, "tide", &[old, leap, undated, pdf]);
    check(&s, "tide kind:pdf", &[pdf]);
    check(&s, "tide kind:html", &[old, leap, undated]);
    check(&s, "tide kind:page kind:pdf", &[old, leap, undated, pdf]);
    check(&s, "tide kind:doc", &[]);
    // A date filter leaves undated pages out; after includes its day, before leaves it out.
    check(&s, "tide after:2020", &[leap, pdf]);
    check(&s, "tide before:2020", &[old]);
    check(&s, "tide after:2019-06-01 before:2024-02-29", &[old, pdf]);
    check(&s, "tide after:2019-06-02 before:2024-03", &[leap, pdf]);
    check(&s, "after:1991", &[old, leap, pdf]);
    check(&s, "kind:pdf before:2021-01-02", &[pdf]);
    // Results carry the date they were filtered by.
    let hits = s.search("tide after:2024", 1, 10).expect("searched").hits;
    assert_eq!(hits[0].published.as_deref(), Some("2024-02-29"));
    assert_eq!(hits[0].modified, None);
    for (query, said) in [
        ("tide after:2024-02-30", "after:2024-02-30 is not a date"),
        ("before:2024-1-5", "before:2024-1-5 is not a date"),
    ] {
        match s.search(query, 1, 10) {
            Err(SearchError::BadOperator(message)) => {
                assert!(message.starts_with(said), "{message}")
            }
            other => panic!("{query}: {other:?}"),
        }
    }
}

#[test]
fn facets_count_every_match_not_the_page_shown() {
    let docs = [
        ("http://a.test/1", Some("2023-05-01"), false),
        ("http://a.test/2", Some("2023-11-30"), false),
        ("http://a.test/3", Some("2024-01-01"), true),
        ("http://b.test/1", Some("2022-12-31"), false),
        ("http://b.test/2", None, false),
        ("http://c.test/1", None, true),
    ]
    .map(|(url, published, pdf)| tide_report(url, published, pdf));
    let mut all = docs.to_vec();
    all.push(Doc::new(
        "http://d.test/1",
        "Other",
        "nothing of the sea here",
    ));
    let data = data_with(&all);
    let s = searcher(data.path());
    let pair = |value: &str, count: u64| (value.to_string(), count);
    // One result shown, six counted: the facets are of every match.
    let found = s.search("tide", 1, 1).expect("searched");
    assert_eq!(found.hits.len(), 1);
    assert_eq!(found.facets.kind, [pair("html", 4), pair("pdf", 2)]);
    assert_eq!(
        found.facets.site,
        [pair("a.test", 3), pair("b.test", 2), pair("c.test", 1)]
    );
    // Years newest first; undated pages in none.
    assert_eq!(
        found.facets.year,
        [pair("2024", 1), pair("2023", 2), pair("2022", 1)]
    );
    assert_eq!(found.facets.lang, [pair("en", 6)]);
    // Narrowed by two facets' operators, the counts follow.
    let narrowed = s
        .search("tide site:a.test after:2023 before:2024", 1, 10)
        .expect("searched");
    assert_eq!(narrowed.total, 2);
    assert_eq!(narrowed.facets.year, [pair("2023", 2)]);
    assert_eq!(narrowed.facets.kind, [pair("html", 2)]);
}

#[test]
fn synonyms_find_each_other_the_word_typed_first_and_reload_with_the_index() {
    let docs = [
        Doc::new(
            "http://ops.test/k8s",
            "k8s notes",
            "Running a k8s cluster at home.",
        ),
        Doc::new(
            "http://ops.test/kubernetes",
            "Kubernetes guide",
            "Running a Kubernetes cluster in production.",
        ),
        Doc::new(
            "http://ops.test/learning",
            "Machine learning",
            "Machine learning models trained on logs.",
        ),
        Doc::new(
            "http://ops.test/ssl",
            "SSL",
            "Certificates for SSL servers.",
        ),
    ];
    let data = data_with(&docs);
    let file = data.path().join("synonyms.txt");
    std::fs::write(&file, "k8s, kubernetes\nml, machine learning\n").expect("write");
    let s = searcher(data.path())
        .with_synonyms(Some(file.clone()))
        .expect("synonyms read");
    // Each finds the other, the word typed first.
    let found = s.search("k8s", 1, 10).expect("searched");
    let urls: Vec<&str> = found.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(urls, ["http://ops.test/k8s", "http://ops.test/kubernetes"]);
    let found = s.search("kubernetes cluster", 1, 10).expect("searched");
    let urls: Vec<&str> = found.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(urls, ["http://ops.test/kubernetes", "http://ops.test/k8s"]);
    assert_eq!(found.synonyms.len(), 1);
    assert_eq!(found.synonyms[0].word, "kubernetes");
    assert_eq!(found.synonyms[0].with, ["k8s"]);
    // A phrase synonym is searched as a phrase; a quoted word is not expanded.
    check(&s, "ml", &["http://ops.test/learning"]);
    check(&s, "\"k8s\"", &["http://ops.test/k8s"]);
    check(&s, "tls", &[]);

    // A new generation reads the file again: a refused file keeps the groups, a good one
    // replaces them.
    std::fs::write(&file, "tls, ssl\ntls, https\n").expect("write");
    write_generation(data.path(), 2, &docs);
    assert!(s.refresh().expect("refreshed"));
    check(
        &s,
        "k8s",
        &["http://ops.test/k8s", "http://ops.test/kubernetes"],
    );
    check(&s, "tls", &[]);
    std::fs::write(&file, "tls, ssl\n").expect("write");
    write_generation(data.path(), 3, &docs);
    assert!(s.refresh().expect("refreshed"));
    check(&s, "tls", &["http://ops.test/ssl"]);
    check(&s, "k8s", &["http://ops.test/k8s"]);

    // A file refused at start is the error, one line.
    std::fs::write(&file, "a, , b\n").expect("write");
    match searcher(data.path()).with_synonyms(Some(file)) {
        Err(SearchError::Synonyms(message)) => {
            assert!(message.contains("line 1: an empty member"), "{message}")
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a bad file accepted"),
    }
}
