//! `languages.test`: a small site in many languages, written as people write them, for the
//! language work: plurals, cases and accents to meet by other forms, a page whose template
//! declares the wrong language, a page translated three ways (`hreflang`), scripts Snowball
//! has no stemmer for, right-to-left text, pages of digits, a hostile `lang` attribute, and
//! pages that send browsers without scripts to one fallback page.
//!
//! | path | answer |
//! |---|---|
//! | `/` | links to every page below |
//! | [`LANG_FRENCH`] | French, `<html lang="fr">`: horses (`chevaux`), a café, coffee; one of the three translations |
//! | [`LANG_GERMAN`] | German under `<html lang="en">` (a template's): houses (`Häuser`), Herr Müller, `schön`; one of the translations |
//! | [`LANG_ENGLISH`] | English: the same page, the third translation |
//! | [`LANG_SCHON`] | German with `schon` (without the umlaut) twice in its text |
//! | [`LANG_SPANISH`] | Spanish: songs (`canciones`), eyes (`ojos`, a plural Snowball leaves alone) |
//! | [`LANG_RUSSIAN`] | Russian: books (`книги`) |
//! | [`LANG_GREEK`] | Greek: the sea and its ships |
//! | [`LANG_HEBREW`] | Hebrew (no Snowball stemmer): matched as written |
//! | [`LANG_ARABIC`] | Arabic, right to left |
//! | [`LANG_JAPANESE`] | Japanese, no spaces between words |
//! | [`LANG_DIGITS`] | digits and symbols only |
//! | [`LANG_HOSTILE`] | `lang="en&quot;&gt;&lt;script&gt;..."` over English text |
//! | [`LANG_NOSCRIPT_PAGES`] | three pages, each with a `<noscript>` refresh to [`LANG_NOSCRIPT_FALLBACK`] and a word of its own ([`LANG_NOSCRIPT_WORDS`]) |
//! | [`LANG_NOSCRIPT_FALLBACK`] | "enable scripts" |

use warp::reply::Response;

use crate::reply::{html, not_found, text, with_header};

/// The French translation.
pub const LANG_FRENCH: &str = "/fr/chevaux.html";
/// The German translation (its template says `lang="en"`).
pub const LANG_GERMAN: &str = "/de/haeuser.html";
/// The English translation.
pub const LANG_ENGLISH: &str = "/en/horses.html";
/// A German page that writes `schon`.
pub const LANG_SCHON: &str = "/de/regen.html";
/// Spanish.
pub const LANG_SPANISH: &str = "/es/canciones.html";
/// Russian.
pub const LANG_RUSSIAN: &str = "/ru/knigi.html";
/// Greek.
pub const LANG_GREEK: &str = "/el/thalassa.html";
/// Hebrew.
pub const LANG_HEBREW: &str = "/he/sefer.html";
/// Arabic.
pub const LANG_ARABIC: &str = "/ar/kitab.html";
/// Japanese.
pub const LANG_JAPANESE: &str = "/ja/tokyo.html";
/// Digits and symbols only.
pub const LANG_DIGITS: &str = "/digits.html";
/// A hostile `lang` attribute.
pub const LANG_HOSTILE: &str = "/hostile.html";
/// A word every translation has (a name).
pub const LANG_SHARED_WORD: &str = "Equus";
/// Pages with a `<noscript>` refresh.
pub const LANG_NOSCRIPT_PAGES: [&str; 3] = ["/app/one.html", "/app/two.html", "/app/three.html"];
/// A word of each of them.
pub const LANG_NOSCRIPT_WORDS: [&str; 3] = ["tamarisk", "juniper", "blackthorn"];
/// Where their `<noscript>` refresh sends browsers without scripts.
pub const LANG_NOSCRIPT_FALLBACK: &str = "/noscript.html";

/// Answers one request to `languages.test`.
pub(crate) fn respond(path: &str) -> Response {
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow:\n"),
        "/" => html(200, index()),
        LANG_FRENCH => translation("fr", "fr", "Les chevaux sauvages", FRENCH),
        LANG_GERMAN => translation("en", "de", "Die Häuser am Fluss", GERMAN),
        LANG_ENGLISH => with_header(
            translation("en", "en", "Wild horses", ENGLISH),
            "content-language",
            "en",
        ),
        LANG_SCHON => doc("de", "Regen im Herbst", SCHON),
        LANG_SPANISH => doc("es", "Las canciones del verano", SPANISH),
        LANG_RUSSIAN => doc("ru", "Старые книги", RUSSIAN),
        LANG_GREEK => doc("el", "Η θάλασσα", GREEK),
        LANG_HEBREW => doc("he", "ספר ישן", HEBREW),
        LANG_ARABIC => doc("ar", "كتاب قديم", ARABIC),
        LANG_JAPANESE => doc("ja", "東京の朝", JAPANESE),
        LANG_DIGITS => doc(
            "",
            "1234",
            "<p>1234 5678 + 90 = 5768 % 42 # 17 &amp; 99 / 3 * 7</p>",
        ),
        LANG_HOSTILE => doc(
            "en\"><script>document.title='pwned'</script>",
            "A hostile attribute",
            "<p>This page about lighthouses declares its language with markup inside the \
             attribute. Lighthouses guide ships along rocky coasts at night, and their keepers \
             once lived beside the lamp all year round.</p>",
        ),
        LANG_NOSCRIPT_FALLBACK => doc(
            "en",
            "Scripts needed",
            "<p>This application needs scripts. Please enable scripts in your browser.</p>",
        ),
        _ => match LANG_NOSCRIPT_PAGES.iter().position(|p| *p == path) {
            Some(i) => html(200, noscript_page(i)),
            None => not_found(),
        },
    }
}

fn index() -> String {
    let mut links = String::new();
    for path in [
        LANG_FRENCH,
        LANG_GERMAN,
        LANG_ENGLISH,
        LANG_SCHON,
        LANG_SPANISH,
        LANG_RUSSIAN,
        LANG_GREEK,
        LANG_HEBREW,
        LANG_ARABIC,
        LANG_JAPANESE,
        LANG_DIGITS,
        LANG_HOSTILE,
    ]
    .iter()
    .chain(LANG_NOSCRIPT_PAGES.iter())
    {
        links.push_str(&format!("<li><a href=\"{path}\">{path}</a></li>"));
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Languages</title></head>\
         <body><ul>{links}</ul></body></html>"
    )
}

/// A page in `lang` (as declared: any text) titled `title`.
fn doc(lang: &str, title: &str, body: &str) -> Response {
    let lang = lang.replace('&', "&amp;").replace('"', "&quot;");
    html(
        200,
        format!(
            "<!doctype html><html lang=\"{lang}\"><head><meta charset=utf-8><title>{title}</title></head>\
             <body><main><h1>{title}</h1>{body}</main></body></html>"
        ),
    )
}

/// One of the three translations, each naming all three as `hreflang` alternates.
fn translation(declared: &str, lang: &str, title: &str, body: &str) -> Response {
    let alternates = [
        ("fr", LANG_FRENCH),
        ("de", LANG_GERMAN),
        ("en", LANG_ENGLISH),
    ]
    .iter()
    .map(|(l, p)| format!("<link rel=\"alternate\" hreflang=\"{l}\" href=\"{p}\">"))
    .collect::<String>();
    html(
        200,
        format!(
            "<!doctype html><html lang=\"{declared}\"><head><meta charset=utf-8><title>{title}</title>\
             {alternates}<meta property=\"og:locale\" content=\"{lang}\"></head>\
             <body><main><h1>{title}</h1>{body}</main></body></html>"
        ),
    )
}

fn noscript_page(i: usize) -> String {
    let word = LANG_NOSCRIPT_WORDS[i];
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Garden {i}</title>\
         <noscript><meta http-equiv=\"refresh\" content=\"0; url={LANG_NOSCRIPT_FALLBACK}\"></noscript>\
         </head><body><main><h1>Garden {i}</h1><p>The {word} hedge at the end of the garden \
         flowers early this year, and the birds nest in it every spring.</p></main></body></html>"
    )
}

const FRENCH: &str = "<p>Les chevaux sauvages (Equus) vivent en troupeaux dans les grandes \
    plaines. Chaque matin, les chevaux courent vers la rivière pour boire, puis ils broutent \
    l'herbe fraîche jusqu'au soir.</p><p>Au village, le café ouvre tôt : les éleveurs y boivent \
    un café noir en parlant de leurs juments et de leurs poulains.</p>";

const GERMAN: &str = "<p>Die Häuser am Fluss sind alt und schön. Herr Müller wohnt seit vielen \
    Jahren im größten der Häuser, und jeden Morgen füttert er die Pferde (Equus) auf der Weide \
    hinter dem Garten.</p><p>Im Sommer sitzen die Nachbarn abends vor den Häusern und erzählen \
    Geschichten von früher, während die Kinder am Ufer spielen.</p>";

const ENGLISH: &str = "<p>Wild horses (Equus) live in herds on the great plains. Every morning \
    the horses run to the river to drink, then graze on fresh grass until the evening.</p>\
    <p>In the village the café opens early: the breeders drink black coffee there and talk \
    about their mares and foals.</p>";

const SCHON: &str = "<p>Es regnet schon wieder, und der Wind weht kalt über die Felder. Die \
    Bauern warten schon seit Tagen auf die Sonne, denn die Ernte muss bald eingebracht werden, \
    bevor der Herbst kommt.</p>";

const SPANISH: &str = "<p>Las canciones del verano suenan en todas las plazas del pueblo. Los \
    músicos tocan la guitarra cada noche y la gente baila con los ojos cerrados hasta muy tarde, \
    mientras los niños corren por las calles iluminadas.</p>";

const RUSSIAN: &str = "<p>В старой библиотеке хранятся редкие книги. Каждое утро читатели \
    приходят сюда, чтобы изучать старинные рукописи и карты, которые собирались веками.</p>";

const GREEK: &str = "<p>Η θάλασσα είναι ήρεμη σήμερα και τα πλοία φεύγουν από το λιμάνι νωρίς \
    το πρωί. Οι ψαράδες επιστρέφουν το απόγευμα με τα δίχτυα γεμάτα ψάρια.</p>";

const HEBREW: &str = "<p>בספרייה הישנה שמורים ספרים נדירים רבים. כל בוקר באים קוראים ללמוד \
    כתבי יד עתיקים ומפות שנאספו במשך מאות שנים.</p>";

const ARABIC: &str = "<p>في المكتبة القديمة كتب نادرة كثيرة. يأتي القراء كل صباح لدراسة \
    المخطوطات القديمة والخرائط التي جمعت عبر القرون.</p>";

const JAPANESE: &str = "<p>東京の朝はとても静かです。駅の前には小さな喫茶店があり、\
    毎朝たくさんの人がコーヒーを飲みに来ます。</p>";
