//! Languages, and how a page's language decides its analysis.
//!
//! Every document carries the language its text is written in ([`crate::fields::LANG`], an
//! ISO 639-1 code such as `fr`, or 639-3 where there is none) and the stemmer its stemmed
//! fields were cut with ([`crate::fields::STEMMER`]: [`Stemming::name`]). The indexer decides
//! the language (the text first, the page's own declarations as hints); this module is the
//! contract both sides read: which codes exist ([`LANGUAGES`]), how a declared tag such as
//! `de-AT` or `pt_BR` reads ([`language_code`]), and which Snowball stemmer a language gets
//! ([`Stemming::of_language`]).
//!
//! English stemming is the default group: English pages, pages of an unknown language and
//! pages in a language Snowball has no stemmer for (Japanese, Thai, Hebrew, Korean...) are
//! all cut by it, which leaves words outside the Latin script as written. Every other stemmed
//! language is a group of its own, so a query is matched against each group held with that
//! group's stems (see the gateway's query), and the stems of one language never meet the
//! words of another.

use frostem::Algorithm;

/// A language a page can be found in: its code, its 639-3 code, its English name and
/// whether Snowball stems it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LanguageInfo {
    /// ISO 639-1 code where one exists, else 639-3: what `lang:` and JSON name it by.
    pub code: &'static str,
    /// ISO 639-3 code (what detectors name it by).
    pub code3: &'static str,
    /// English name, for the results page.
    pub name: &'static str,
    /// The Snowball stemmer of its words, if there is one.
    stemmer: Option<Algorithm>,
}

const fn lang(
    code: &'static str,
    code3: &'static str,
    name: &'static str,
    stemmer: Option<Algorithm>,
) -> LanguageInfo {
    LanguageInfo {
        code,
        code3,
        name,
        stemmer,
    }
}

/// Every language the index knows, by code: the languages the detector tells apart, and the
/// ones Snowball stems.
pub const LANGUAGES: &[LanguageInfo] = &[
    lang("af", "afr", "Afrikaans", None),
    lang("ak", "aka", "Akan", None),
    lang("am", "amh", "Amharic", None),
    lang("ar", "ara", "Arabic", Some(Algorithm::Arabic)),
    lang("az", "aze", "Azerbaijani", None),
    lang("be", "bel", "Belarusian", None),
    lang("bg", "bul", "Bulgarian", None),
    lang("bn", "ben", "Bengali", None),
    lang("ca", "cat", "Catalan", Some(Algorithm::Catalan)),
    lang("cs", "ces", "Czech", Some(Algorithm::Czech)),
    lang("da", "dan", "Danish", Some(Algorithm::Danish)),
    lang("de", "deu", "German", Some(Algorithm::German)),
    lang("el", "ell", "Greek", Some(Algorithm::Greek)),
    lang("en", "eng", "English", Some(Algorithm::English)),
    lang("eo", "epo", "Esperanto", Some(Algorithm::Esperanto)),
    lang("es", "spa", "Spanish", Some(Algorithm::Spanish)),
    lang("et", "est", "Estonian", Some(Algorithm::Estonian)),
    lang("eu", "eus", "Basque", Some(Algorithm::Basque)),
    lang("fa", "pes", "Persian", Some(Algorithm::Persian)),
    lang("fi", "fin", "Finnish", Some(Algorithm::Finnish)),
    lang("fr", "fra", "French", Some(Algorithm::French)),
    lang("ga", "gle", "Irish", Some(Algorithm::Irish)),
    lang("gu", "guj", "Gujarati", None),
    lang("he", "heb", "Hebrew", None),
    lang("hi", "hin", "Hindi", Some(Algorithm::Hindi)),
    lang("hr", "hrv", "Croatian", None),
    lang("hu", "hun", "Hungarian", Some(Algorithm::Hungarian)),
    lang("hy", "hye", "Armenian", Some(Algorithm::Armenian)),
    lang("id", "ind", "Indonesian", Some(Algorithm::Indonesian)),
    lang("it", "ita", "Italian", Some(Algorithm::Italian)),
    lang("ja", "jpn", "Japanese", None),
    lang("jv", "jav", "Javanese", None),
    lang("ka", "kat", "Georgian", None),
    lang("km", "khm", "Khmer", None),
    lang("kn", "kan", "Kannada", None),
    lang("ko", "kor", "Korean", None),
    lang("la", "lat", "Latin", None),
    lang("lt", "lit", "Lithuanian", Some(Algorithm::Lithuanian)),
    lang("lv", "lav", "Latvian", None),
    lang("mk", "mkd", "Macedonian", None),
    lang("ml", "mal", "Malayalam", None),
    lang("mr", "mar", "Marathi", None),
    lang("my", "mya", "Burmese", None),
    lang("nb", "nob", "Norwegian", Some(Algorithm::Norwegian)),
    lang("ne", "nep", "Nepali", Some(Algorithm::Nepali)),
    lang("nl", "nld", "Dutch", Some(Algorithm::Dutch)),
    lang("or", "ori", "Oriya", None),
    lang("pa", "pan", "Punjabi", None),
    lang("pl", "pol", "Polish", Some(Algorithm::Polish)),
    lang("pt", "por", "Portuguese", Some(Algorithm::Portuguese)),
    lang("ro", "ron", "Romanian", Some(Algorithm::Romanian)),
    lang("ru", "rus", "Russian", Some(Algorithm::Russian)),
    lang("si", "sin", "Sinhala", None),
    lang("sk", "slk", "Slovak", None),
    lang("sl", "slv", "Slovene", None),
    lang("sn", "sna", "Shona", None),
    lang("sr", "srp", "Serbian", Some(Algorithm::Serbian)),
    lang("sv", "swe", "Swedish", Some(Algorithm::Swedish)),
    lang("ta", "tam", "Tamil", Some(Algorithm::Tamil)),
    lang("te", "tel", "Telugu", None),
    lang("th", "tha", "Thai", None),
    lang("tk", "tuk", "Turkmen", None),
    lang("tl", "tgl", "Tagalog", None),
    lang("tr", "tur", "Turkish", Some(Algorithm::Turkish)),
    lang("uk", "ukr", "Ukrainian", None),
    lang("ur", "urd", "Urdu", None),
    lang("uz", "uzb", "Uzbek", None),
    lang("vi", "vie", "Vietnamese", None),
    lang("yi", "yid", "Yiddish", Some(Algorithm::Yiddish)),
    lang("zh", "cmn", "Chinese", None),
    lang("zu", "zul", "Zulu", None),
];

/// Other spellings of a primary subtag that name a language of [`LANGUAGES`].
const ALIASES: &[(&str, &str)] = &[
    ("no", "nb"),
    ("nn", "nb"),
    ("iw", "he"),
    ("in", "id"),
    ("ji", "yi"),
    ("fil", "tl"),
    ("sh", "sr"),
];

/// The language of `code` (`fr`, `fra`), if it is one of [`LANGUAGES`].
pub fn language(code: &str) -> Option<&'static LanguageInfo> {
    LANGUAGES.iter().find(|l| l.code == code || l.code3 == code)
}

/// The code of the language a declared tag names (`<html lang>`, `Content-Language`,
/// `og:locale`, `hreflang`): its primary subtag, case-insensitive, before `-` or `_`
/// (`de-AT`, `pt_BR`, `EN`), if it is a language of [`LANGUAGES`]; of a list (`de, en`), the
/// first. Anything else (empty, `x-default`, `und`, `*`, markup) is no language.
pub fn language_code(tag: &str) -> Option<&'static str> {
    let first = tag.split(',').next()?;
    let primary = first.trim().split(['-', '_']).next()?;
    if !(2..=3).contains(&primary.len()) || !primary.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let primary = primary.to_ascii_lowercase();
    let code = ALIASES
        .iter()
        .find(|(alias, _)| *alias == primary)
        .map_or(primary.as_str(), |(_, code)| code);
    language(code).map(|l| l.code)
}

/// The stemmer of a group of documents: Snowball's algorithm for their language, English
/// for every language without one (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stemming(Algorithm);

impl Stemming {
    /// The default group: English, and every language Snowball does not stem.
    pub const DEFAULT: Stemming = Stemming(Algorithm::English);

    /// The stemming of a document in language `code` (a code of [`LANGUAGES`]; any other
    /// gets [`Stemming::DEFAULT`]).
    pub fn of_language(code: &str) -> Stemming {
        language(code)
            .and_then(|l| l.stemmer)
            .map_or(Stemming::DEFAULT, Stemming)
    }

    /// Its name, as the `stemmer` field holds it (`english`, `french`).
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The stemming named `name` (as [`Stemming::name`] gives it), if it is one a language
    /// of [`LANGUAGES`] uses.
    pub fn from_name(name: &str) -> Option<Stemming> {
        LANGUAGES
            .iter()
            .filter_map(|l| l.stemmer)
            .find(|a| a.name() == name)
            .map(Stemming)
    }

    /// The Snowball algorithm.
    pub(crate) fn algorithm(self) -> Algorithm {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_tags_read_as_their_primary_language_or_none() {
        for (tag, code) in [
            ("en", Some("en")),
            ("EN-us", Some("en")),
            ("de-AT-1996", Some("de")),
            ("pt_BR", Some("pt")),
            (" fr ", Some("fr")),
            ("fra", Some("fr")),
            ("no", Some("nb")),
            ("iw", Some("he")),
            ("zh-Hant-TW", Some("zh")),
            ("x-default", None),
            ("und", None),
            ("", None),
            ("en\"><script>", None),
            ("english", None),
            ("e1", None),
            ("qq", None),
            ("en, fr", Some("en")),
            ("*", None),
        ] {
            assert_eq!(language_code(tag), code, "{tag:?}");
        }
    }

    #[test]
    fn each_language_has_one_entry_and_its_stemmer_is_found_by_name() {
        for (i, l) in LANGUAGES.iter().enumerate() {
            assert!(
                LANGUAGES[i + 1..]
                    .iter()
                    .all(|o| o.code != l.code && o.code3 != l.code3),
                "{} twice",
                l.code
            );
            let stemming = Stemming::of_language(l.code);
            assert_eq!(Stemming::from_name(stemming.name()), Some(stemming));
        }
        assert_eq!(Stemming::of_language("fr").name(), "french");
        assert_eq!(Stemming::of_language("ja"), Stemming::DEFAULT);
        assert_eq!(Stemming::of_language("nonsense"), Stemming::DEFAULT);
        assert_eq!(Stemming::from_name("lovins"), None);
    }
}
