//! What a page declares of its language and its translations, read in the text pass:
//! `<html lang>`, `<meta http-equiv="content-language">`, `<meta property="og:locale">` and
//! `<link rel="alternate" hreflang href>`. Every value is as written (bounded); reading a tag
//! as a language is [`index_format::language::language_code`]'s job, so a hostile
//! `lang="en\"><script>"` is simply no language.

use shared::html::StartTag;

/// Longest declared value kept, in bytes.
const MAX_VALUE_BYTES: usize = 64;
/// Longest alternate URL kept, in bytes (a canonical URL is at most 1024).
const MAX_HREF_BYTES: usize = 1024;
/// Most alternates kept from one page.
pub const MAX_ALTERNATES: usize = 64;

/// A page's own declarations of its language and translations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// The first `<html lang>`.
    pub html_lang: Option<String>,
    /// The first `<meta http-equiv="content-language" content>`.
    pub meta_language: Option<String>,
    /// The first `<meta property="og:locale" content>`.
    pub og_locale: Option<String>,
    /// `<link rel="alternate" hreflang href>`: (hreflang, href as written), in order, at most
    /// [`MAX_ALTERNATES`].
    pub alternates: Vec<(String, String)>,
}

impl Declared {
    /// Reads what `tag` declares, if anything.
    pub fn read(&mut self, tag: &StartTag<'_>) {
        match tag.name() {
            "html" if self.html_lang.is_none() => self.html_lang = value(tag.attr("lang")),
            "meta" => {
                let content = tag.attr("content");
                let equiv = tag.attr("http-equiv").unwrap_or_default().trim();
                let property = tag.attr("property").unwrap_or_default().trim();
                if equiv.eq_ignore_ascii_case("content-language") && self.meta_language.is_none() {
                    self.meta_language = value(content);
                } else if property.eq_ignore_ascii_case("og:locale") && self.og_locale.is_none() {
                    self.og_locale = value(content);
                }
            }
            "link" if self.alternates.len() < MAX_ALTERNATES => {
                let alternate = tag.attr("rel").is_some_and(|rel| {
                    rel.split_ascii_whitespace()
                        .any(|t| t.eq_ignore_ascii_case("alternate"))
                });
                if let (true, Some(lang), Some(href)) =
                    (alternate, value(tag.attr("hreflang")), tag.attr("href"))
                    && href.len() <= MAX_HREF_BYTES
                {
                    self.alternates.push((lang, href.trim().to_string()));
                }
            }
            _ => {}
        }
    }
}

/// A declared value, trimmed, if it is short enough to be one.
fn value(raw: Option<&str>) -> Option<String> {
    raw.map(str::trim)
        .filter(|v| !v.is_empty() && v.len() <= MAX_VALUE_BYTES)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::html::PageReader;

    struct Reader(Declared);

    impl PageReader for Reader {
        fn wants_text(&self) -> bool {
            false
        }
        fn text(&mut self, _: &str) {}
        fn start(&mut self, tag: &StartTag<'_>) {
            self.0.read(tag);
        }
        fn end(&mut self, _: &str) {}
    }

    fn declared(html: &str) -> Declared {
        shared::html::read(html, Reader(Declared::default())).0
    }

    #[test]
    fn language_and_translations_are_read_as_written() {
        let got = declared(
            r#"<html LANG=" de-AT "><head>
            <meta http-equiv="Content-Language" content="de">
            <meta property="og:locale" content="de_DE">
            <link rel="alternate" hreflang="fr" href="/fr/page.html">
            <link rel="Alternate  stylesheet" hreflang="en" href="/en/page.html">
            <link rel="alternate" href="/feed.xml">
            <link rel="alternate" hreflang="es">
            </head><html lang="fr">"#,
        );
        assert_eq!(got.html_lang.as_deref(), Some("de-AT"));
        assert_eq!(got.meta_language.as_deref(), Some("de"));
        assert_eq!(got.og_locale.as_deref(), Some("de_DE"));
        assert_eq!(
            got.alternates,
            vec![
                ("fr".to_string(), "/fr/page.html".to_string()),
                ("en".to_string(), "/en/page.html".to_string())
            ]
        );
    }

    #[test]
    fn hostile_and_endless_declarations_are_bounded() {
        let long = "x".repeat(MAX_VALUE_BYTES + 1);
        let mut html = format!(r#"<html lang="{long}"><meta property=og:locale content="">"#);
        for i in 0..MAX_ALTERNATES + 10 {
            html.push_str(&format!(r#"<link rel=alternate hreflang=l{i} href=/{i}>"#));
        }
        let got = declared(&html);
        assert_eq!(got.html_lang, None);
        assert_eq!(got.og_locale, None);
        assert_eq!(got.alternates.len(), MAX_ALTERNATES);
        let hostile = declared(r#"<html lang="en&quot;><script>">"#);
        assert_eq!(hostile.html_lang.as_deref(), Some("en\"><script>"));
        assert_eq!(
            index_format::language::language_code(hostile.html_lang.as_deref().unwrap_or("")),
            None
        );
    }
}
