//! The language of a page, decided once per document as it is indexed: [`decide`].
//!
//! The text decides: `whatlang` reads the first [`DETECT_BYTES`] of the page's title and
//! body (a page that mixes languages gets the one most of that prefix is in). Chinese,
//! Japanese and Korean are told by their scripts first ([`Letters::cjk_language`]):
//! whatlang decides by the script with most letters, and a Japanese manual full of commands
//! has more Latin letters than kana (alone it got half the Japanese and Chinese pages of
//! `bench/langdetect` wrong, and called them reliable). Then English prose is told by its
//! common words ([`reads_as_english`]) without asking the detector, which scores every Latin
//! language's trigrams: most pages of an English site say so and read so. The page's own
//! declarations (`<html lang>`, the `Content-Language` header or META, `og:locale`, the
//! `hreflang` of an alternate naming the page itself) are hints: they win only when the text
//! is too short to tell ([`MIN_LETTERS`]) or the detector is unsure of it, because templates
//! say `lang="en"` over text in any language. Nothing at all: `und`.

use index_format::language::{language, language_code};

use crate::text::Declared;

/// Bytes of a page's text the detector reads: enough for its trigrams to settle, bounded so
/// a page of a megabyte costs what a page of a few kilobytes does.
pub const DETECT_BYTES: usize = 4096;

/// Fewest letters of text the detector is trusted with; below, the declarations decide.
pub const MIN_LETTERS: usize = 40;

/// Fewest letters of text that may overrule a page's declared language: fewer, and the
/// detector is not asked (a short page says little; most of an API reference's pages are
/// short, and the detector was a tenth of a build).
pub const MIN_LETTERS_TO_OVERRULE: usize = 120;

/// The code of "no language could be told".
pub const UNDETERMINED: &str = "und";

/// A page's language and what decided it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageLanguage {
    /// A code of [`index_format::language::LANGUAGES`], or [`UNDETERMINED`].
    pub code: &'static str,
    /// What decided it.
    pub source: Source,
}

/// What decided a page's language.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source {
    /// The text, with the detector's confidence (0 to 1).
    Text(f64),
    /// A declaration, because the text was too short or the detector unsure.
    Declared(Declaration),
    /// Neither text nor declarations could tell.
    Unknown,
}

/// Where a page declared its language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declaration {
    /// `<html lang>`.
    HtmlLang,
    /// The `Content-Language` header.
    Header,
    /// `<meta http-equiv="content-language">`.
    Meta,
    /// `<meta property="og:locale">`.
    OgLocale,
    /// The `hreflang` of a `<link rel="alternate">` naming the page itself.
    Hreflang,
}

impl PageLanguage {
    /// Why the page has its language, in a few words (for `/explain`).
    pub fn reason(&self) -> String {
        let declared = |d: Declaration| match d {
            Declaration::HtmlLang => "<html lang>",
            Declaration::Header => "the Content-Language header",
            Declaration::Meta => "<meta http-equiv=content-language>",
            Declaration::OgLocale => "og:locale",
            Declaration::Hreflang => "its own hreflang",
        };
        match self.source {
            Source::Text(confidence) => format!("its text (confidence {confidence:.2})"),
            Source::Declared(d) => format!("{}: its text is too short or unclear", declared(d)),
            Source::Unknown => "its text is too short or unclear and it declares none".into(),
        }
    }
}

/// A page's declarations, as [`decide`] reads them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hints<'a> {
    /// What the page's markup declares.
    pub declared: Option<&'a Declared>,
    /// The `Content-Language` header, if any.
    pub header: Option<&'a str>,
    /// The page's own URL, to find the alternate naming itself (resolved by the caller).
    pub own_hreflang: Option<&'a str>,
}

impl Hints<'_> {
    /// The first declaration that names a known language, in order of trust.
    fn first(&self) -> Option<(&'static str, Declaration)> {
        let declared = self.declared;
        [
            (
                declared.and_then(|d| d.html_lang.as_deref()),
                Declaration::HtmlLang,
            ),
            (self.header, Declaration::Header),
            (
                declared.and_then(|d| d.meta_language.as_deref()),
                Declaration::Meta,
            ),
            (
                declared.and_then(|d| d.og_locale.as_deref()),
                Declaration::OgLocale,
            ),
            (self.own_hreflang, Declaration::Hreflang),
        ]
        .into_iter()
        .find_map(|(tag, from)| Some((language_code(tag?)?, from)))
    }
}

/// The language of a page whose text starts with `title` and `body`; see the module docs.
pub fn decide(title: &str, body: &str, hints: &Hints<'_>) -> PageLanguage {
    let mut sample = String::with_capacity(DETECT_BYTES);
    for part in [title, body] {
        let room = DETECT_BYTES.saturating_sub(sample.len() + 1);
        if room == 0 {
            break;
        }
        if !sample.is_empty() {
            sample.push(' ');
        }
        sample.push_str(prefix(part, room));
    }
    let declared = hints.first();
    let letters = Letters::of(&sample);
    let detected = match letters.cjk_language() {
        Some(code) => Some((code, 1.0, true)),
        // Most pages of an English site say so and read so: told without the detector.
        None if reads_as_english(&sample, &letters, declared.map(|(code, _)| code)) => {
            Some(("en", 1.0, true))
        }
        None if letters.all < MIN_LETTERS => None,
        None if declared.is_some() && letters.all < MIN_LETTERS_TO_OVERRULE => None,
        None => detect(&sample),
    };
    // The text overrules a declaration only when the detector is sure of it: a page of
    // code under `lang="en"` is no French page because its identifiers look French.
    let overrules = |code: &str, confidence: f64, reliable: bool| match declared {
        Some((declared, _)) if declared != code => confidence >= OVERRULING_CONFIDENCE,
        Some(_) => reliable,
        None => true,
    };
    if let Some((code, confidence, reliable)) = detected
        && overrules(code, confidence, reliable)
    {
        return PageLanguage {
            code,
            source: Source::Text(confidence),
        };
    }
    match declared {
        Some((code, from)) => PageLanguage {
            code,
            source: Source::Declared(from),
        },
        None => PageLanguage {
            code: UNDETERMINED,
            source: Source::Unknown,
        },
    }
}

/// The detector's confidence (0 to 1) at which the text overrules a page's declared
/// language. A paragraph of German under a template's `lang="en"` is told at 1.00; the
/// Rust docs' one page told otherwise than it says (a source file of SIMD code, "French"
/// at 0.93) is not overruled.
pub const OVERRULING_CONFIDENCE: f64 = 0.98;

/// Words that are frequent in English prose and rare in other languages' (no `in`, `is` or
/// `an`, which German and Dutch write too).
const ENGLISH_WORDS: [&str; 20] = [
    "the", "and", "of", "to", "that", "for", "with", "this", "from", "are", "by", "it", "or",
    "can", "which", "you", "be", "as", "on", "not",
];

/// Words of [`ENGLISH_WORDS`] that another Latin-script language also writes often: French
/// `on`, `or`, Portuguese `as`, Dutch `of`, Danish and Norwegian `to`, `for`, `by`, Swedish
/// `be`. They count towards a page's English words, but alone never tell English.
const SHARED_WORDS: [&str; 8] = ["on", "or", "as", "of", "to", "for", "by", "be"];

/// Whether `sample` reads as English prose, for a page that declares `declared` (English,
/// or nothing; never for another language): nearly all its letters ASCII (a Russian manual
/// quoting an English sentence is no English page), and among its first 300 words (20 at
/// least) the words of [`ENGLISH_WORDS`] at least a twentieth (API docs are half code). A
/// page that says it is English needs one of them that no other language shares (`the`,
/// `and`, `from`...; not [`SHARED_WORDS`]): most of an API reference's pages are a
/// signature and a sentence with no `the` in it, and asking the detector about each was a
/// fourteenth of an index build. A page that says nothing needs `the` 3 times. Far cheaper
/// than the detector, which scores every Latin language's trigrams.
fn reads_as_english(sample: &str, letters: &Letters, declared: Option<&str>) -> bool {
    match declared {
        Some("en") | None => {}
        Some(_) => return false,
    }
    if letters.ascii * 100 < letters.all * 98 {
        return false;
    }
    let (mut words, mut english, mut distinctive, mut the) = (0usize, 0usize, 0usize, 0usize);
    for word in sample
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .take(300)
    {
        words += 1;
        if word.len() > 5 {
            continue;
        }
        let Some(known) = ENGLISH_WORDS.iter().find(|w| w.eq_ignore_ascii_case(word)) else {
            continue;
        };
        english += 1;
        distinctive += usize::from(!SHARED_WORDS.contains(known));
        the += usize::from(*known == "the");
    }
    let told = match declared {
        Some(_) => distinctive >= 1,
        None => the >= 3,
    };
    words >= 20 && english * 20 >= words && told
}

/// The whatlang language of `text`, with its confidence and whether it is reliable, if
/// whatlang tells one of [`index_format::language::LANGUAGES`].
fn detect(text: &str) -> Option<(&'static str, f64, bool)> {
    let info = whatlang::detect(text)?;
    let code = language(info.lang().code())?.code;
    Some((code, info.confidence(), info.is_reliable()))
}

/// The letters of a page's sample, counted in one pass: all of them, the ASCII ones, and
/// those of the Chinese, Japanese and Korean scripts.
#[derive(Clone, Copy, Debug, Default)]
struct Letters {
    all: usize,
    ascii: usize,
    han: usize,
    kana: usize,
    hangul: usize,
}

impl Letters {
    fn of(text: &str) -> Self {
        let mut letters = Self::default();
        for c in text.chars() {
            if c.is_ascii() {
                letters.ascii += usize::from(c.is_ascii_alphabetic());
                continue;
            }
            match c as u32 {
                0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => letters.kana += 1,
                0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => letters.han += 1,
                0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => letters.hangul += 1,
                _ => {}
            }
            letters.all += usize::from(c.is_alphabetic());
        }
        letters.all += letters.ascii;
        letters
    }

    /// Chinese, Japanese or Korean, when at least a tenth of the letters are Han, kana or
    /// Hangul: Korean when Hangul is at least half of them, Japanese when kana is at least a
    /// tenth of the rest, else Chinese.
    fn cjk_language(&self) -> Option<&'static str> {
        let (han, kana, hangul) = (self.han, self.kana, self.hangul);
        let cjk = han + kana + hangul;
        if cjk == 0 || cjk * 10 < self.all {
            return None;
        }
        Some(if hangul >= han + kana {
            "ko"
        } else if kana * 10 >= han + kana {
            "ja"
        } else {
            "zh"
        })
    }
}

/// The first `max` bytes of `text`, cut at a character boundary.
fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    const GERMAN: &str = "Ebenen sind wie durchsichtige Folien, die übereinander liegen. \
        Jede Ebene kann eigene Bildinhalte haben, und man kann sie einzeln bearbeiten, \
        verschieben oder ausblenden, ohne die anderen zu verändern.";
    const FRENCH: &str = "Les calques sont comme des feuilles transparentes empilées les unes \
        sur les autres. Chaque calque peut contenir sa propre image, et on peut les modifier \
        séparément sans toucher aux autres.";

    fn declared(html_lang: &str) -> Declared {
        Declared {
            html_lang: Some(html_lang.to_string()),
            ..Declared::default()
        }
    }

    #[test]
    fn the_text_wins_over_a_template_that_declares_another_language() {
        let english_template = declared("en");
        let hints = Hints {
            declared: Some(&english_template),
            ..Hints::default()
        };
        let got = decide("Ebenen", GERMAN, &hints);
        assert_eq!(got.code, "de");
        assert!(matches!(got.source, Source::Text(_)), "{got:?}");
        assert_eq!(decide("Calques", FRENCH, &Hints::default()).code, "fr");
    }

    #[test]
    fn english_prose_is_told_without_the_detector_and_only_when_it_reads_so() {
        let english = "The layers of an image are like sheets of glass stacked on top of \
            each other. Each layer can hold its own picture, and you can change the order of \
            the layers or hide one of them without touching the others.";
        let reads = |text: &str, declared| reads_as_english(text, &Letters::of(text), declared);
        assert!(reads(english, None));
        assert!(reads(english, Some("en")));
        assert!(!reads(english, Some("de")));
        let quoting = format!("Падающая тень: фильтр добавляет тень. {english}");
        for other in [GERMAN, FRENCH, "the the the", quoting.as_str()] {
            assert!(!reads(other, Some("en")), "{other}");
        }
        let got = decide("Layers", english, &Hints::default());
        assert_eq!((got.code, got.source), ("en", Source::Text(1.0)));
    }

    #[test]
    fn a_page_that_says_it_is_english_needs_an_english_word_no_other_language_writes() {
        let reads = |text: &str, declared| reads_as_english(text, &Letters::of(text), declared);
        // An API reference's page: a signature and a sentence, no `the`.
        let api = "vext_s8 in core::arch::aarch64 - Rust vext_s8 core::arch::aarch64 Function \
            vext_s8 1.59.0 Source pub fn vext_s8(a: int8x8_t, b: int8x8_t, const N: i32) -> \
            int8x8_t Available on (AArch64 or target_arch=arm64ec) and target feature neon \
            only. Extract vector from pair of vectors";
        assert!(reads(api, Some("en")));
        assert!(!reads(api, None), "a page that says nothing needs `the`");
        // French without accents whose only English words are those French writes too.
        let french = "Si on ouvre le menu Fichier on voit la liste des commandes, on peut \
            choisir une commande ou la chercher avec le clavier, or il faut savoir son nom \
            exact pour la trouver vite";
        assert!(!reads(french, Some("en")));
    }

    #[test]
    fn a_short_text_takes_the_first_declaration_that_names_a_language() {
        let french = declared("fr-CA");
        let hostile = declared("en\"><script>");
        let got = decide(
            "Accueil",
            "Bienvenue",
            &Hints {
                declared: Some(&french),
                header: Some("de"),
                ..Hints::default()
            },
        );
        assert_eq!(got.code, "fr");
        assert_eq!(got.source, Source::Declared(Declaration::HtmlLang));
        let got = decide(
            "Home",
            "",
            &Hints {
                declared: Some(&hostile),
                header: Some("*"),
                own_hreflang: Some("es"),
            },
        );
        assert_eq!(got.code, "es", "{got:?}");
        assert_eq!(decide("", "", &Hints::default()).code, UNDETERMINED);
        assert_eq!(
            decide("12 34", "%%% 99 ### 42 == 17", &Hints::default()).code,
            UNDETERMINED
        );
    }

    #[test]
    fn scripts_without_a_stemmer_are_told_and_a_huge_page_reads_a_bounded_prefix() {
        let thai = "ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอนหรือวรรณยุกต์เช่นเดียวกับภาษาจีน";
        assert_eq!(decide("", thai, &Hints::default()).code, "th");
        let hebrew = "עברית היא שפה שמית ממשפחת השפות האפרו-אסייתיות, הידועה כשפתו של העם היהודי";
        assert_eq!(decide("", hebrew, &Hints::default()).code, "he");
        // Only the prefix is read: what follows it cannot change the language.
        let huge = format!("{FRENCH} {}", "z ".repeat(500_000));
        assert_eq!(decide("", &huge, &Hints::default()).code, "fr");
        // A Japanese manual full of commands is Japanese; Chinese and Korean by their scripts.
        let manual = "設定ファイルを開きます。 sudo apt-get install --yes nginx-full \
            systemctl restart nginx.service && journalctl -u nginx --since today";
        assert_eq!(decide("", manual, &Hints::default()).code, "ja");
        assert_eq!(
            decide(
                "",
                "配置文件在这里。 sudo apt-get install nginx",
                &Hints::default()
            )
            .code,
            "zh"
        );
        assert_eq!(
            decide(
                "",
                "설정 파일을 엽니다 sudo apt-get install",
                &Hints::default()
            )
            .code,
            "ko"
        );
        let mixed = format!("{GERMAN} {GERMAN} {}", &FRENCH[..60]);
        assert_eq!(decide("", &mixed, &Hints::default()).code, "de");
    }
}
