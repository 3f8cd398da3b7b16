//! An image search as asked ([`ImageRequest`]: the words, the page, the filters) and the
//! tantivy query it becomes over an image index.
//!
//! The words are read as the web search reads them ([`UserQuery`]: lenient, never an
//! error; compounds as parts or joined) and searched over the alt text (boost 3), the
//! titles of the pages showing the image (1.5), the words around it (1) and its file name's
//! words (1), every word required; `site:host` keeps images shown on that host's pages
//! (the `page_url` of the best page showing each). Filters (`min_width`, `min_height`, `format`) are
//! conditions that add nothing to the score. A filter given but malformed is refused with a
//! message saying what it takes (a 400), because ignoring it would show what was filtered
//! out; an empty one (an untouched form field) is no filter.

use index_format::ImageFields;
use tantivy::Term;
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};

use crate::filters::url_on_site_query;
use crate::handlers::Params;
use crate::query::{UserQuery, parsed_over, with_compound_forms};

/// Field boosts of an image search.
const ALT_BOOST: f32 = 3.0;
const PAGE_TITLE_BOOST: f32 = 1.5;
const CONTEXT_BOOST: f32 = 1.0;
const FILE_NAME_BOOST: f32 = 1.0;

/// Longest format name a filter takes (`svg+xml` is not one; `jpeg`, `webp`, `avif` are).
const MAX_FORMAT_LEN: usize = 8;

/// A filter parameter that makes no sense.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// `min_width` or `min_height` is not a whole number of pixels.
    #[error("{name} must be a whole number of pixels, not {value:?}")]
    NotPixels {
        /// The parameter.
        name: &'static str,
        /// What it was.
        value: String,
    },
    /// `format` is not a format's name.
    #[error("format must be a format's name such as png, jpeg, gif, webp or svg, not {0:?}")]
    NotAFormat(String),
}

/// What an image search asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImageRequest {
    /// The words, as typed.
    pub query: String,
    /// The page, from 1.
    pub page: usize,
    /// Results per page.
    pub per_page: usize,
    /// At least this wide, in pixels.
    pub min_width: Option<u64>,
    /// At least this high, in pixels.
    pub min_height: Option<u64>,
    /// Only this format (lowercase; `jpg` is `jpeg`).
    pub format: Option<String>,
}

impl ImageRequest {
    /// Reads query-string parameters: `q`, `page` and `per_page` leniently as the web search
    /// does (malformed: the default), the filters strictly.
    pub fn read(params: &Params, default_per_page: usize) -> Result<Self, FilterError> {
        let number = |name: &str| {
            params
                .get(name)
                .and_then(|v| v.trim().parse::<usize>().ok())
        };
        Ok(Self {
            query: params.get("q").cloned().unwrap_or_default(),
            page: number("page").unwrap_or(1),
            per_page: number("per_page").unwrap_or(default_per_page),
            min_width: pixels(params, "min_width")?,
            min_height: pixels(params, "min_height")?,
            format: format(params)?,
        })
    }

    /// Whether any filter is set.
    pub fn filtered(&self) -> bool {
        self.min_width.is_some() || self.min_height.is_some() || self.format.is_some()
    }
}

fn given<'a>(params: &'a Params, name: &str) -> Option<&'a str> {
    params.get(name).map(|v| v.trim()).filter(|v| !v.is_empty())
}

fn pixels(params: &Params, name: &'static str) -> Result<Option<u64>, FilterError> {
    let Some(value) = given(params, name) else {
        return Ok(None);
    };
    value
        .parse::<u32>()
        .map(|n| (n > 0).then_some(u64::from(n)))
        .map_err(|_| FilterError::NotPixels {
            name,
            value: value.chars().take(40).collect(),
        })
}

fn format(params: &Params) -> Result<Option<String>, FilterError> {
    let Some(value) = given(params, "format") else {
        return Ok(None);
    };
    let name = value.to_ascii_lowercase();
    let plain = name.len() <= MAX_FORMAT_LEN && name.chars().all(|c| c.is_ascii_alphanumeric());
    match name.as_str() {
        "any" | "all" => Ok(None),
        "jpg" => Ok(Some("jpeg".into())),
        _ if plain => Ok(Some(name)),
        _ => Err(FilterError::NotAFormat(value.chars().take(40).collect())),
    }
}

/// The query of `user_query`'s words and `request`'s filters over an image index.
pub(crate) fn image_query(
    index: &tantivy::Index,
    fields: &ImageFields,
    user_query: &UserQuery,
    request: &ImageRequest,
) -> Box<dyn Query> {
    let searched = [
        (fields.alt, ALT_BOOST),
        (fields.page_title, PAGE_TITLE_BOOST),
        (fields.context, CONTEXT_BOOST),
        (fields.file_name, FILE_NAME_BOOST),
    ];
    let words: Box<dyn Query> = if user_query.text.chars().any(char::is_alphanumeric) {
        parsed_over(index, &searched, &with_compound_forms(&user_query.text))
    } else {
        Box::new(AllQuery)
    };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, words)];
    for (field, min) in [
        (fields.width, request.min_width),
        (fields.height, request.min_height),
    ] {
        if let Some(min) = min {
            clauses.push((Occur::Must, unscored(at_least(field, min))));
        }
    }
    if !user_query.filters.sites.is_empty() {
        let sites = user_query
            .filters
            .sites
            .iter()
            .map(|site| (Occur::Should, url_on_site_query(fields.page_url, site)))
            .collect();
        clauses.push((Occur::Must, unscored(Box::new(BooleanQuery::new(sites)))));
    }
    if let Some(format) = &request.format {
        let term = Term::from_field_text(fields.format, format);
        let query = TermQuery::new(term, IndexRecordOption::Basic);
        clauses.push((Occur::Must, unscored(Box::new(query))));
    }
    Box::new(BooleanQuery::new(clauses))
}

fn at_least(field: Field, min: u64) -> Box<dyn Query> {
    Box::new(RangeQuery::new(
        std::ops::Bound::Included(Term::from_field_u64(field, min)),
        std::ops::Bound::Unbounded,
    ))
}

/// A condition that adds nothing to the score.
fn unscored(query: Box<dyn Query>) -> Box<dyn Query> {
    Box::new(BoostQuery::new(query, 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<ImageRequest, FilterError> {
        let params: Params = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ImageRequest::read(&params, 20)
    }

    #[test]
    fn empty_filters_from_an_untouched_form_are_no_filters() {
        let request = read(&[("q", "heron"), ("min_width", ""), ("format", " ")]).expect("ok");
        assert!(!request.filtered());
        assert_eq!((request.page, request.per_page), (1, 20));
    }

    #[test]
    fn filters_are_read_and_jpg_is_jpeg() {
        let request = read(&[
            ("min_width", " 640 "),
            ("min_height", "480"),
            ("format", "JPG"),
        ])
        .expect("ok");
        assert_eq!(request.min_width, Some(640));
        assert_eq!(request.min_height, Some(480));
        assert_eq!(request.format.as_deref(), Some("jpeg"));
        assert_eq!(read(&[("format", "any")]).expect("ok").format, None);
    }

    #[test]
    fn a_malformed_size_or_format_is_refused_with_what_it_takes() {
        let error = read(&[("min_width", "wide")]).expect_err("refused");
        assert!(
            error
                .to_string()
                .contains("min_width must be a whole number")
        );
        assert!(read(&[("min_height", "-5")]).is_err());
        assert!(read(&[("min_height", "99999999999")]).is_err());
        let error = read(&[("format", "<svg onload=x>")]).expect_err("refused");
        assert!(error.to_string().contains("format must be"));
    }

    #[test]
    fn a_malformed_page_is_the_first_page() {
        let request = read(&[("page", "x"), ("per_page", "-1")]).expect("ok");
        assert_eq!((request.page, request.per_page), (1, 20));
    }
}
