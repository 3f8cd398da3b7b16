//! Language-detector benchmark (issue 39, part 1).
//!
//! Reads `pages.jsonl` (made by `extract.py`: one `{"id","set","truth","text"}` a line), runs
//! every detector on a bounded prefix of each page's text for each prefix size, and writes
//!
//! * `predictions.tsv`: detector, prefix, id, set, truth, predicted language (ISO 639-1 where
//!   it has one, else 639-3; `-` for no answer), confidence (`-` where the crate has none),
//!   the crate's own "reliable" flag (`-` where it has none), script (whatlang only);
//! * `speed.tsv`: detector, prefix, pages, bytes, best-of-N seconds, MB/s, µs per page.
//!
//! `analyze.py` makes the tables of RESULTS.md from them. Everything runs in this one process
//! on one thread (RAYON_NUM_THREADS=1 for lingua's model loading; its single-text calls use no
//! threads).

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::time::{Duration, Instant};

use lingua::{Language, LanguageDetector, LanguageDetectorBuilder};

#[derive(serde::Deserialize)]
struct Page {
    id: String,
    set: String,
    truth: String,
    text: String,
}

/// One answer: language code, confidence, the crate's reliable flag, script.
struct Answer {
    lang: Option<String>,
    confidence: Option<f64>,
    reliable: Option<bool>,
    script: Option<String>,
}

/// The languages lingua is built with (the features in Cargo.toml).
const LINGUA_LANGS: &[Language] = &[
    Language::English,
    Language::German,
    Language::French,
    Language::Spanish,
    Language::Italian,
    Language::Portuguese,
    Language::Russian,
    Language::Greek,
    Language::Japanese,
    Language::Chinese,
    Language::Thai,
    Language::Arabic,
    Language::Danish,
    Language::Dutch,
    Language::Finnish,
    Language::Hungarian,
    Language::Bokmal,
    Language::Nynorsk,
    Language::Romanian,
    Language::Swedish,
    Language::Tamil,
    Language::Turkish,
    Language::Korean,
    Language::Hindi,
    Language::Polish,
    Language::Czech,
    Language::Ukrainian,
    Language::Vietnamese,
];

/// ISO 639-3 codes (whatlang's and whichlang's) to 639-1 where the test set needs it.
fn to_639_1(code3: &str) -> String {
    let two = match code3 {
        "eng" => "en",
        "deu" => "de",
        "fra" => "fr",
        "spa" => "es",
        "ita" => "it",
        "por" => "pt",
        "rus" => "ru",
        "ell" => "el",
        "jpn" => "ja",
        "cmn" => "zh",
        "tha" => "th",
        "ara" => "ar",
        "hin" => "hi",
        "kor" => "ko",
        "nld" => "nl",
        "swe" => "sv",
        "tur" => "tr",
        "vie" => "vi",
        "ukr" => "uk",
        "pol" => "pl",
        "ces" => "cs",
        "dan" => "da",
        "fin" => "fi",
        "hun" => "hu",
        "nob" => "nb",
        "ron" => "ro",
        "cat" => "ca",
        "epo" => "eo",
        "lat" => "la",
        "bul" => "bg",
        "srp" => "sr",
        "hrv" => "hr",
        "slv" => "sl",
        "slk" => "sk",
        "est" => "et",
        "lit" => "lt",
        "lav" => "lv",
        "ind" => "id",
        "tgl" => "tl",
        "afr" => "af",
        "bel" => "be",
        "mkd" => "mk",
        "heb" => "he",
        "pes" => "fa",
        "urd" => "ur",
        "ben" => "bn",
        "tam" => "ta",
        "aze" => "az",
        "zul" => "zu",
        "uzb" => "uz",
        "kat" => "ka",
        "hye" => "hy",
        "jav" => "jv",
        "yid" => "yi",
        other => other,
    };
    two.to_string()
}

enum Detector {
    Whatlang,
    /// whatlang, but a text whose letters are at least 10% Han, kana or Hangul is decided by
    /// script first (Hangul at least half: ko; else kana ≥ 10% of Han+kana: ja; else zh): a
    /// Japanese or Chinese page with English commands has more Latin letters than CJK ones,
    /// and whatlang takes the script with the most letters.
    WhatlangCjk,
    Whichlang,
    Lingua(Box<LanguageDetector>),
}

impl Detector {
    fn detect(&self, text: &str) -> Answer {
        match self {
            Detector::Whatlang => match whatlang::detect(text) {
                Some(info) => Answer {
                    lang: Some(to_639_1(info.lang().code())),
                    confidence: Some(info.confidence()),
                    reliable: Some(info.is_reliable()),
                    script: Some(format!("{:?}", info.script())),
                },
                None => Answer { lang: None, confidence: None, reliable: Some(false), script: None },
            },
            Detector::WhatlangCjk => {
                let (mut han, mut kana, mut hangul, mut letters) = (0usize, 0usize, 0usize, 0usize);
                for c in text.chars() {
                    match c as u32 {
                        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => kana += 1,
                        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => han += 1,
                        0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => hangul += 1,
                        _ if c.is_alphabetic() => letters += 1,
                        _ => continue,
                    }
                }
                let cjk = han + kana + hangul;
                if cjk > 0 && cjk * 10 >= cjk + letters {
                    let lang = if hangul >= han + kana {
                        "ko"
                    } else if kana * 10 >= han + kana {
                        "ja"
                    } else {
                        "zh"
                    };
                    Answer {
                        lang: Some(lang.to_string()),
                        confidence: Some(1.0),
                        reliable: Some(true),
                        script: Some("CJK".to_string()),
                    }
                } else {
                    Detector::Whatlang.detect(text)
                }
            }
            Detector::Whichlang => {
                let lang = whichlang::detect_language(text);
                Answer {
                    lang: Some(to_639_1(lang.three_letter_code())),
                    confidence: None,
                    reliable: None,
                    script: None,
                }
            }
            Detector::Lingua(d) => {
                // The confidence values, sorted best first; empty (or all 0) when the text has
                // no letters of any built language. `detect_language_of` runs the same
                // computation without returning the values.
                let values = d.compute_language_confidence_values(text);
                match values.first() {
                    Some(&(lang, conf)) if conf > 0.0 => Answer {
                        lang: Some(lang.iso_code_639_1().to_string()),
                        confidence: Some(conf),
                        reliable: None,
                        script: None,
                    },
                    _ => Answer { lang: None, confidence: Some(0.0), reliable: None, script: None },
                }
            }
        }
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let data = args.get(1).map(String::as_str).unwrap_or("data/pages.jsonl");
    let out = args.get(2).map(String::as_str).unwrap_or("data");
    let prefixes = [1024usize, 2048, 4096, 8192];

    let mut pages = Vec::new();
    for line in BufReader::new(File::open(data)?).lines() {
        let page: Page = serde_json::from_str(&line?)?;
        pages.push(page);
    }
    eprintln!("{} pages", pages.len());

    let t = Instant::now();
    let lingua_high =
        LanguageDetectorBuilder::from_languages(LINGUA_LANGS).with_preloaded_language_models().build();
    eprintln!("lingua (high accuracy, {} languages) models loaded in {:?}", LINGUA_LANGS.len(), t.elapsed());
    let t = Instant::now();
    let lingua_low = LanguageDetectorBuilder::from_languages(LINGUA_LANGS)
        .with_low_accuracy_mode()
        .with_preloaded_language_models()
        .build();
    eprintln!("lingua (low accuracy) models loaded in {:?}", t.elapsed());

    let detectors = [
        ("whatlang", Detector::Whatlang),
        ("whatlang+cjk", Detector::WhatlangCjk),
        ("whichlang", Detector::Whichlang),
        ("lingua-high", Detector::Lingua(Box::new(lingua_high))),
        ("lingua-low", Detector::Lingua(Box::new(lingua_low))),
    ];

    let mut preds = BufWriter::new(File::create(format!("{out}/predictions.tsv"))?);
    writeln!(preds, "detector\tprefix\tid\tset\ttruth\tpred\tconfidence\treliable\tscript")?;
    let mut speed = BufWriter::new(File::create(format!("{out}/speed.tsv"))?);
    writeln!(speed, "detector\tprefix\tpages\tbytes\tseconds\tmb_per_s\tus_per_page")?;

    // Timing is on the pages of the "main" set (real documentation pages); the hard cases are
    // detected for accuracy only.
    let main: Vec<&Page> = pages.iter().filter(|p| p.set == "main").collect();

    // DETECTORS=a,b runs only those (all by default).
    let only = std::env::var("DETECTORS").ok();
    for (name, det) in &detectors {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|n| n == *name)) {
            continue;
        }
        for &max in &prefixes {
            // Accuracy pass over every page.
            for p in &pages {
                let a = det.detect(prefix(&p.text, max));
                let fmt_f = |v: Option<f64>| v.map_or("-".to_string(), |c| format!("{c:.4}"));
                let fmt_b = |v: Option<bool>| v.map_or("-".to_string(), |b| b.to_string());
                writeln!(
                    preds,
                    "{name}\t{max}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    p.id,
                    p.set,
                    p.truth,
                    a.lang.as_deref().unwrap_or("-"),
                    fmt_f(a.confidence),
                    fmt_b(a.reliable),
                    a.script.as_deref().unwrap_or("-"),
                )?;
            }
            // Speed: whole passes over the main pages until 2 s have gone (at least 2 passes,
            // at most 20); the best pass counts.
            let bytes: usize = main.iter().map(|p| prefix(&p.text, max).len()).sum();
            let started = Instant::now();
            let mut best = Duration::MAX;
            let mut passes = 0;
            while passes < 2 || (passes < 20 && started.elapsed() < Duration::from_secs(2)) {
                let t = Instant::now();
                let mut n = 0usize;
                for p in &main {
                    let a = det.detect(std::hint::black_box(prefix(&p.text, max)));
                    n += a.lang.map_or(0, |l| l.len());
                }
                std::hint::black_box(n);
                best = best.min(t.elapsed());
                passes += 1;
            }
            let secs = best.as_secs_f64();
            writeln!(
                speed,
                "{name}\t{max}\t{}\t{bytes}\t{secs:.4}\t{:.2}\t{:.1}",
                main.len(),
                bytes as f64 / secs / 1e6,
                secs * 1e6 / main.len() as f64,
            )?;
            eprintln!("{name} {max}: {passes} passes, best {secs:.3} s");
        }
    }
    Ok(())
}
