//! The languages a user's browser asks for: [`Preferred`], from an `Accept-Language` header.

use index_format::language::language_code;

/// Most languages read from one header.
const MAX_LANGUAGES: usize = 16;

/// Languages in the order the user prefers them (codes of
/// `index_format::language::LANGUAGES`), none when the browser said nothing usable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Preferred(Vec<String>);

impl Preferred {
    /// Reads `Accept-Language` (`de-AT,de;q=0.9,en;q=0.5,*;q=0.1`): each language once, by
    /// quality, ties in the header's order; `*`, unknown tags and `q=0` left out. Malformed
    /// parts are skipped, never an error.
    pub fn from_header(header: Option<&str>) -> Self {
        let Some(header) = header else {
            return Self::default();
        };
        let mut weighed: Vec<(f32, usize, &'static str)> = Vec::new();
        for (order, part) in header.split(',').take(4 * MAX_LANGUAGES).enumerate() {
            let mut pieces = part.split(';');
            let Some(code) = pieces.next().and_then(language_code) else {
                continue;
            };
            let quality = pieces
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if quality.is_nan() || quality <= 0.0 || weighed.iter().any(|(_, _, c)| *c == code) {
                continue;
            }
            weighed.push((quality, order, code));
        }
        weighed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        Self(
            weighed
                .into_iter()
                .take(MAX_LANGUAGES)
                .map(|(_, _, code)| code.to_string())
                .collect(),
        )
    }

    /// The preferred languages, best first.
    pub fn languages(&self) -> &[String] {
        &self.0
    }

    /// How much `lang` is wanted: its place in the list (0 best), or `None` when not asked
    /// for.
    pub fn rank(&self, lang: &str) -> Option<usize> {
        self.0.iter().position(|l| l == lang)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(header: &str) -> Vec<String> {
        Preferred::from_header(Some(header)).0
    }

    #[test]
    fn languages_come_by_quality_then_order_and_junk_is_skipped() {
        assert_eq!(read("de-AT,de;q=0.9,en;q=0.5,*;q=0.1"), ["de", "en"]);
        assert_eq!(read("en;q=0.3, fr"), ["fr", "en"]);
        assert_eq!(read("es;q=0, it"), ["it"]);
        assert_eq!(read("ru;q=abc"), ["ru"]);
        assert_eq!(read("\"><script>, ;;;, x-klingon, pt-BR"), ["pt"]);
        assert!(read("").is_empty());
        assert!(Preferred::from_header(None).languages().is_empty());
        let many: String = (0..1000).map(|_| "fr,").collect();
        assert_eq!(read(&many), ["fr"]);
        assert_eq!(Preferred::from_header(Some("fr, de")).rank("de"), Some(1));
    }
}
