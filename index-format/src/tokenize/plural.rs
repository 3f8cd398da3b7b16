//! Plurals made singular before Snowball stems, for the languages whose Snowball stemmer
//! leaves short plurals alone: [`singular`].
//!
//! Snowball's Spanish and Portuguese stemmers remove suffixes only inside a word's "RV"
//! region, which is empty or one letter for short words: Spanish `ojos` stays `ojos` while
//! `ojo` stays `ojo`, and `imagenes` becomes `imagen` while `imagen` becomes `imag`, so a
//! query in the singular misses the page in the plural (Portuguese `olhos`/`olho`,
//! `imagens`/`imagem` alike). Both languages make plurals with a handful of regular endings,
//! so those endings are taken off first (on folded words: accents are already off), as
//! Lucene's "minimal" stemmers for these languages do; the word then goes to Snowball, and a
//! document and a query meet whichever number each is written in.

use std::borrow::Cow;

use frostem::Algorithm;

use crate::language::Stemming;

/// `word` (lowercase, folded) made singular by the plural endings of `stemming`'s language;
/// borrowed when it is not a plural that language's Snowball stemmer needs help with.
pub fn singular(stemming: Stemming, word: &str) -> Cow<'_, str> {
    let rules: fn(&str) -> Option<String> = match stemming.algorithm() {
        Algorithm::Spanish => spanish,
        Algorithm::Portuguese => portuguese,
        _ => return Cow::Borrowed(word),
    };
    if word.len() < MIN_PLURAL_BYTES || !word.is_ascii() || !word.ends_with('s') {
        return Cow::Borrowed(word);
    }
    rules(word).map_or(Cow::Borrowed(word), Cow::Owned)
}

/// Shortest plural made singular, in bytes (`mes`, `tus` stay as written).
const MIN_PLURAL_BYTES: usize = 4;

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// The byte before the final `s` of `word` (ASCII, at least [`MIN_PLURAL_BYTES`] long,
/// ending in `s`: [`singular`] checks before a language's rules run).
fn before_s(word: &str) -> u8 {
    word.as_bytes()[word.len() - 2]
}

/// `luces` → `luz`; `colores`, `imagenes`, `pinceles`, `ciudades`, `relojes`, `leyes` lose
/// `es`; `ojos`, `capas`, `clases` lose `s`.
fn spanish(word: &str) -> Option<String> {
    if let Some(base) = word.strip_suffix("ces") {
        return Some(format!("{base}z"));
    }
    if let Some(base) = word.strip_suffix("es")
        && base.len() >= 3
        && base
            .bytes()
            .last()
            .is_some_and(|c| matches!(c, b'l' | b'n' | b'r' | b'd' | b'j' | b'y'))
    {
        return Some(base.to_string());
    }
    is_vowel(before_s(word)).then(|| word[..word.len() - 1].to_string())
}

/// `imagens` → `imagem`; `botoes` → `botao`; `papeis` → `papel`, `animais` → `animal`;
/// `cores`, `luzes` lose `es`; `olhos`, `camadas` lose `s`.
fn portuguese(word: &str) -> Option<String> {
    if let Some(base) = word.strip_suffix("ns") {
        return Some(format!("{base}m"));
    }
    for (plural, singular) in [("oes", "ao"), ("aes", "ao"), ("ais", "al"), ("eis", "el")] {
        if let Some(base) = word.strip_suffix(plural) {
            return Some(format!("{base}{singular}"));
        }
    }
    if let Some(base) = word.strip_suffix("es")
        && base.len() >= 3
        && base
            .bytes()
            .last()
            .is_some_and(|c| matches!(c, b'r' | b'z'))
    {
        return Some(base.to_string());
    }
    is_vowel(before_s(word)).then(|| word[..word.len() - 1].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(language: &str, word: &str) -> String {
        singular(Stemming::of_language(language), word).into_owned()
    }

    #[test]
    fn spanish_and_portuguese_plurals_become_singular() {
        for (plural, singular) in [
            ("ojos", "ojo"),
            ("capas", "capa"),
            ("clases", "clase"),
            ("imagenes", "imagen"),
            ("colores", "color"),
            ("pinceles", "pincel"),
            ("ciudades", "ciudad"),
            ("luces", "luz"),
            ("ojo", "ojo"),
            ("imagen", "imagen"),
            ("mes", "mes"),
        ] {
            assert_eq!(of("es", plural), singular, "es {plural}");
        }
        for (plural, singular) in [
            ("olhos", "olho"),
            ("camadas", "camada"),
            ("imagens", "imagem"),
            ("botoes", "botao"),
            ("papeis", "papel"),
            ("animais", "animal"),
            ("cores", "cor"),
            ("luzes", "luz"),
            ("olho", "olho"),
        ] {
            assert_eq!(of("pt", plural), singular, "pt {plural}");
        }
    }

    #[test]
    fn other_languages_and_other_scripts_are_left_to_snowball() {
        assert_eq!(of("fr", "calques"), "calques");
        assert_eq!(of("en", "eyes"), "eyes");
        assert_eq!(
            of("es", "añadidos"),
            "añadidos",
            "unfolded words are not plurals here"
        );
        assert!(matches!(
            singular(Stemming::of_language("es"), "ojo"),
            Cow::Borrowed(_)
        ));
    }
}
