//! Every language a page is written in, through the real crawl, build and searchd over
//! `languages.test`: each page's language told by its text (a template's `lang="en"` over
//! German text loses), words met in their other forms by their page's language (a French
//! plural by its singular, a German plural with an umlaut, a Spanish plural typed without its
//! accent, a Russian noun in another case), accents optional with the exact spelling first,
//! `lang:`, the language facet, translations folded into one result shown in the language
//! the browser asks for, scripts without a stemmer matched as written, right-to-left
//! snippets, and a `<noscript>` refresh that is no redirect.

use serde_json::Value;
use testweb::{
    LANG_ARABIC, LANG_DIGITS, LANG_ENGLISH, LANG_FRENCH, LANG_GERMAN, LANG_GREEK, LANG_HEBREW,
    LANG_HOSTILE, LANG_JAPANESE, LANG_NOSCRIPT_FALLBACK, LANG_NOSCRIPT_PAGES, LANG_NOSCRIPT_WORDS,
    LANG_RUSSIAN, LANG_SCHON, LANG_SHARED_WORD, LANG_SPANISH,
};

use crate::support::{Rig, Searchd};

/// The JSON answer for `query`, the browser asking for `languages` (an `Accept-Language`).
async fn api(searchd: &Searchd, query: &str, languages: Option<&str>) -> Value {
    let url = searchd.url(&format!("/api/search?q={}", gateway::urlencode(query)));
    let mut request = reqwest::Client::new().get(url);
    if let Some(languages) = languages {
        request = request.header("accept-language", languages);
    }
    let answer = request.send().await.expect("searchd answers");
    assert_eq!(answer.status(), 200, "{query}");
    serde_json::from_str(&answer.text().await.expect("body")).expect("JSON")
}

/// The paths of the hits, best first.
fn paths(answer: &Value) -> Vec<String> {
    answer["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|hit| {
            let url = hit["url"].as_str().expect("a URL");
            url.splitn(4, '/')
                .nth(3)
                .map_or("/".into(), |p| format!("/{p}"))
        })
        .collect()
}

/// Whether `path` is a hit of `answer` or a translation folded into one.
fn finds(answer: &Value, path: &str) -> bool {
    answer["hits"].as_array().expect("hits").iter().any(|hit| {
        let folded = hit["also_in"].as_array().into_iter().flatten();
        std::iter::once(&hit["url"])
            .chain(folded.map(|t| &t["url"]))
            .any(|url| url.as_str().is_some_and(|url| url.ends_with(path)))
    })
}

/// The language of the hit at `path`.
fn lang_of(answer: &Value, path: &str) -> String {
    answer["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .find(|hit| hit["url"].as_str().is_some_and(|url| url.ends_with(path)))
        .and_then(|hit| hit["lang"].as_str())
        .unwrap_or_else(|| panic!("no hit {path} in {answer}"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_are_found_in_their_own_languages_forms() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("languages.test", "/")]).await;
    rig.index().await;
    let searchd = rig.serve().await;

    // Other forms of a word, by the page's language.
    for (query, path, lang) in [
        ("cheval", LANG_FRENCH, "fr"),
        ("chevaux", LANG_FRENCH, "fr"),
        ("Haus", LANG_GERMAN, "de"),
        ("Mueller", LANG_GERMAN, "de"),
        ("Muller", LANG_GERMAN, "de"),
        ("canción", LANG_SPANISH, "es"),
        ("cancion", LANG_SPANISH, "es"),
        ("ojo", LANG_SPANISH, "es"),
        ("книгой", LANG_RUSSIAN, "ru"),
        ("θάλασσας", LANG_GREEK, "el"),
        ("horse", LANG_ENGLISH, "en"),
    ] {
        let answer = api(&searchd, query, None).await;
        assert!(finds(&answer, path), "{query}: {answer}");
        assert_eq!(
            lang_of(&api(&searchd, query, Some(lang)).await, path),
            lang,
            "{query}"
        );
        assert!(
            answer["suggestion"].is_null(),
            "{query} is no misspelling: {answer}"
        );
    }
    // A French plural is not an English word: the English page does not meet `chevaux`.
    let chevaux = api(&searchd, "chevaux", None).await;
    assert_eq!(
        paths(&chevaux).first().map(String::as_str),
        Some(LANG_FRENCH)
    );
    assert!(!finds(&chevaux, LANG_ENGLISH), "{chevaux}");

    // Accents optional, the exact spelling first.
    let cafe = api(&searchd, "cafe", None).await;
    assert!(finds(&cafe, LANG_FRENCH), "{cafe}");
    let schoen = paths(&api(&searchd, "schön", None).await);
    let schon = paths(&api(&searchd, "schon", None).await);
    assert_eq!(
        schoen.first().map(String::as_str),
        Some(LANG_GERMAN),
        "{schoen:?}"
    );
    assert_eq!(
        schon.first().map(String::as_str),
        Some(LANG_SCHON),
        "{schon:?}"
    );
    assert!(schoen.contains(&LANG_SCHON.to_string()), "{schoen:?}");

    // Scripts without a stemmer (and Japanese runs) are matched as written.
    let hebrew = api(&searchd, "ספרים", None).await;
    assert_eq!(paths(&hebrew), [LANG_HEBREW]);
    assert_eq!(lang_of(&hebrew, LANG_HEBREW), "he");
    let japanese = api(&searchd, "喫茶店", None).await;
    assert_eq!(paths(&japanese), [LANG_JAPANESE]);
    // A query mixing scripts is searched, never refused.
    let mixed = api(&searchd, "Equus книги 東京", None).await;
    assert_eq!(mixed["partial"], true, "no page has them all: {mixed}");

    // Digits only: undetermined, still found. A hostile `lang` is no language.
    let digits = api(&searchd, "5768", None).await;
    assert_eq!(lang_of(&digits, LANG_DIGITS), "und");
    let hostile = api(&searchd, "lighthouses", None).await;
    assert_eq!(lang_of(&hostile, LANG_HOSTILE), "en");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn translations_fold_into_the_browsers_language_and_lang_filters() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("languages.test", "/")]).await;
    rig.index().await;
    let searchd = rig.serve().await;

    // The three translations are one result, in the language the browser asks for.
    for (accept, shown, others) in [
        (Some("de-DE,de;q=0.9,en;q=0.5"), LANG_GERMAN, ["en", "fr"]),
        (Some("fr"), LANG_FRENCH, ["de", "en"]),
        (Some("ja, en;q=0.1"), LANG_ENGLISH, ["de", "fr"]),
    ] {
        let answer = api(&searchd, LANG_SHARED_WORD, accept).await;
        assert_eq!(paths(&answer), [shown], "{accept:?}: {answer}");
        let also: Vec<&str> = answer["hits"][0]["also_in"]
            .as_array()
            .expect("also_in")
            .iter()
            .map(|t| t["lang"].as_str().expect("lang"))
            .collect();
        assert_eq!(also, others, "{accept:?}");
        // The facet counts every match, translations included.
        let facet: Vec<(String, u64)> = answer["facets"]["lang"]
            .as_array()
            .expect("facet")
            .iter()
            .map(|f| {
                (
                    f["value"].as_str().expect("value").into(),
                    f["count"].as_u64().expect("n"),
                )
            })
            .collect();
        assert_eq!(
            facet,
            [("de".into(), 1), ("en".into(), 1), ("fr".into(), 1)],
            "{answer}"
        );
    }
    let filtered = api(&searchd, &format!("{LANG_SHARED_WORD} lang:fr"), Some("de")).await;
    assert_eq!(paths(&filtered), [LANG_FRENCH]);
    assert_eq!(filtered["total"], 1);
    let regional = api(&searchd, &format!("{LANG_SHARED_WORD} lang:DE-at"), None).await;
    assert_eq!(paths(&regional), [LANG_GERMAN]);
    let none = api(&searchd, &format!("{LANG_SHARED_WORD} lang:klingon"), None).await;
    assert_eq!(none["total"], 0);

    // The results page: the facet's links, the folded translations, right-to-left text.
    let page = reqwest::get(searchd.url(&format!("/search?q={LANG_SHARED_WORD}")))
        .await
        .expect("answer")
        .text()
        .await
        .expect("page");
    assert!(page.contains("lang%3Afr"), "a facet link narrows to French");
    assert!(page.contains("also in: "), "{page}");
    let arabic = reqwest::get(searchd.url("/search?q=%D8%A7%D9%84%D9%85%D9%83%D8%AA%D8%A8%D8%A9"))
        .await
        .expect("answer")
        .text()
        .await
        .expect("page");
    assert!(arabic.contains(LANG_ARABIC), "{arabic}");
    assert!(
        arabic.contains("<p class=\"snippet\" dir=\"auto\">"),
        "{arabic}"
    );
    assert!(arabic.contains("lang=\"ar\""), "{arabic}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_inside_noscript_is_no_redirect() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("languages.test", "/")]).await;
    rig.index().await;
    let searchd = rig.serve().await;
    // Each page is itself, searchable by its own word; the fallback page is a page too.
    for (path, word) in LANG_NOSCRIPT_PAGES.iter().zip(LANG_NOSCRIPT_WORDS) {
        let page = rig
            .store()
            .page(&rig.web.url("languages.test", path))
            .expect("readable")
            .expect("stored");
        assert_eq!(page.redirect_to, None, "{path}");
        assert_eq!(paths(&api(&searchd, word, None).await), [*path], "{word}");
    }
    assert_eq!(
        paths(&api(&searchd, "enable scripts", None).await),
        [LANG_NOSCRIPT_FALLBACK]
    );
    // `/explain` says the language and why.
    let explained = reqwest::get(searchd.url(&format!(
        "/explain?url={}",
        gateway::urlencode(&rig.web.url("languages.test", LANG_GERMAN))
    )))
    .await
    .expect("answer")
    .text()
    .await
    .expect("page");
    assert!(explained.contains("de (its text"), "{explained}");
}
