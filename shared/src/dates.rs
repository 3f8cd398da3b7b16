//! A page's dates: when it was published and last modified, each with where it was read.
//!
//! A page says its dates in several places, trusted in this order ([`DateSource`]):
//! 1. JSON-LD (`<script type="application/ld+json">`): `datePublished`, `dateModified` of
//!    the top-level item, of the items of a top-level array, or of an `@graph`;
//! 2. `<meta property="article:published_time">` and `article:modified_time`;
//! 3. `<time datetime>` in the page's main content (not in navigation, the page's header or
//!    footer, or a sidebar): the first says the publication, unless it is marked
//!    `itemprop="dateModified"`;
//! 4. a date in the URL's path (`/2024/03/15/`, `/2024/03/`, `/2024-03-15-title`):
//!    publication only;
//! 5. the `Last-Modified` header: modification only.
//!
//! The first three are read by the crawler's pass over the page ([`DeclaredDates`], filled by
//! [`crate::extract`]); [`PageDates::decide`] adds the last two and keeps, for each date, the
//! most trusted source that gave a plausible one: from [`EARLIEST`] to a day after the fetch
//! (a page that dates itself in the future, or before the web, says nothing reliable).
//! Dates are whole seconds since the Unix epoch, in UTC.

use serde::{Deserialize, Serialize};

/// Where a date was read, most trusted first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DateSource {
    /// A JSON-LD `datePublished` or `dateModified`.
    JsonLd,
    /// `<meta property="article:published_time">` or `article:modified_time`.
    ArticleMeta,
    /// A `<time datetime>` in the main content.
    TimeElement,
    /// A date in the URL's path.
    UrlPath,
    /// The `Last-Modified` header.
    LastModified,
}

impl DateSource {
    /// How `crawler explain` and searchd name it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::JsonLd => "JSON-LD",
            Self::ArticleMeta => "article meta tag",
            Self::TimeElement => "<time> in the content",
            Self::UrlPath => "URL path",
            Self::LastModified => "Last-Modified header",
        }
    }
}

/// One date of a page and where it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageDate {
    /// Seconds since the Unix epoch, UTC.
    pub unix_seconds: i64,
    /// Where it was read.
    pub source: DateSource,
}

impl PageDate {
    /// The date as `YYYY-MM-DD` (UTC).
    pub fn day(&self) -> String {
        day(self.unix_seconds)
    }
}

/// A page's dates, as [`PageDates::decide`] chose them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageDates {
    /// When it was published.
    pub published: Option<PageDate>,
    /// When it was last modified.
    pub modified: Option<PageDate>,
}

/// The dates the page's HTML declares, by source, as the crawler's pass reads them: each the
/// first of its kind that parses (unparsable values are skipped; plausibility is
/// [`PageDates::decide`]'s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeclaredDates {
    /// JSON-LD `datePublished`.
    pub json_ld_published: Option<i64>,
    /// JSON-LD `dateModified`.
    pub json_ld_modified: Option<i64>,
    /// `article:published_time`.
    pub meta_published: Option<i64>,
    /// `article:modified_time`.
    pub meta_modified: Option<i64>,
    /// The first `<time datetime>` of the main content not marked as a modification.
    pub time_published: Option<i64>,
    /// The first `<time itemprop="dateModified" datetime>` of the main content.
    pub time_modified: Option<i64>,
}

/// The earliest plausible date: 1991-01-01, the year of the first web page.
pub const EARLIEST: i64 = 662_688_000;
/// How far after its fetch a date may lie (time zones, clocks a little ahead).
const FUTURE_SLACK_SECONDS: i64 = 86_400;
/// Longest JSON-LD script read, in bytes (real ones are a few KiB).
pub const MAX_JSON_LD_BYTES: usize = 64 * 1024;
/// How deep a JSON-LD document is walked for its dates (items of an `@graph` are at 2).
const MAX_JSON_LD_DEPTH: usize = 3;

impl PageDates {
    /// Chooses the page's dates: for each, the most trusted source with a date between
    /// [`EARLIEST`] and a day after `fetched_at_ms`. `url` is the page's URL (its path may
    /// hold a date), `last_modified` its `Last-Modified` header.
    pub fn decide(
        declared: &DeclaredDates,
        url: &str,
        last_modified: Option<&str>,
        fetched_at_ms: u64,
    ) -> Self {
        let latest = (fetched_at_ms / 1000) as i64 + FUTURE_SLACK_SECONDS;
        let plausible = |seconds: &i64| (EARLIEST..=latest).contains(seconds);
        let first = |candidates: &[(Option<i64>, DateSource)]| {
            candidates.iter().find_map(|&(seconds, source)| {
                seconds.filter(plausible).map(|unix_seconds| PageDate {
                    unix_seconds,
                    source,
                })
            })
        };
        Self {
            published: first(&[
                (declared.json_ld_published, DateSource::JsonLd),
                (declared.meta_published, DateSource::ArticleMeta),
                (declared.time_published, DateSource::TimeElement),
                (url_path_date(url), DateSource::UrlPath),
            ]),
            modified: first(&[
                (declared.json_ld_modified, DateSource::JsonLd),
                (declared.meta_modified, DateSource::ArticleMeta),
                (declared.time_modified, DateSource::TimeElement),
                (last_modified.and_then(http_date), DateSource::LastModified),
            ]),
        }
    }

    /// The page's date for sorting and `after:`/`before:`: its publication, else its last
    /// modification.
    pub fn date(&self) -> Option<PageDate> {
        self.published.or(self.modified)
    }
}

impl DeclaredDates {
    /// Reads the dates of one JSON-LD script's text (nothing when it is no JSON).
    pub fn read_json_ld(&mut self, text: &str) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            return;
        };
        self.walk_json_ld(&value, 0);
    }

    fn walk_json_ld(&mut self, value: &serde_json::Value, depth: usize) {
        if depth > MAX_JSON_LD_DEPTH {
            return;
        }
        match value {
            serde_json::Value::Array(items) => {
                for item in items {
                    self.walk_json_ld(item, depth + 1);
                }
            }
            serde_json::Value::Object(object) => {
                let date = |key: &str| object.get(key)?.as_str().and_then(iso_date);
                self.json_ld_published = self.json_ld_published.or_else(|| date("datePublished"));
                self.json_ld_modified = self.json_ld_modified.or_else(|| date("dateModified"));
                if let Some(graph) = object.get("@graph") {
                    self.walk_json_ld(graph, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// Reads a `<meta property content>`: `article:published_time`, `article:modified_time`.
    pub fn read_meta(&mut self, property: &str, content: &str) {
        let property = property.trim();
        if property.eq_ignore_ascii_case("article:published_time") {
            self.meta_published = self.meta_published.or_else(|| iso_date(content));
        } else if property.eq_ignore_ascii_case("article:modified_time") {
            self.meta_modified = self.meta_modified.or_else(|| iso_date(content));
        }
    }

    /// Reads a `<time datetime itemprop>` of the main content.
    pub fn read_time(&mut self, datetime: &str, itemprop: Option<&str>) {
        let modified = itemprop.is_some_and(|p| {
            p.split_ascii_whitespace()
                .any(|token| token.eq_ignore_ascii_case("dateModified"))
        });
        let slot = if modified {
            &mut self.time_modified
        } else {
            &mut self.time_published
        };
        *slot = slot.or_else(|| iso_date(datetime));
    }
}

/// Reads an ISO 8601 date as pages write it: `2024-03-15`, `2024-03-15T10:20`,
/// `2024-03-15 10:20:30.5+01:00`, `2024-03-15T10:20:30Z`, `...-0500`. A time without a zone
/// is taken as UTC. `None` for anything else, or an impossible date or time.
pub fn iso_date(text: &str) -> Option<i64> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = bytes.get(range)?;
        part.iter().all(u8::is_ascii_digit).then(|| {
            part.iter()
                .fold(0i64, |n, &digit| n * 10 + i64::from(digit - b'0'))
        })
    };
    if bytes.get(4) != Some(&b'-') || bytes.get(7) != Some(&b'-') {
        return None;
    }
    let days = days_from_civil(digits(0..4)?, digits(5..7)?, digits(8..10)?)?;
    let mut seconds = days * 86_400;
    let rest = &bytes[10..];
    if rest.is_empty() {
        return Some(seconds);
    }
    if !matches!(rest[0], b'T' | b't' | b' ') {
        return None;
    }
    let (hour, minute) = (digits(11..13)?, digits(14..16)?);
    if bytes.get(13) != Some(&b':') || hour > 23 || minute > 59 {
        return None;
    }
    seconds += hour * 3600 + minute * 60;
    let mut at = 16;
    if bytes.get(at) == Some(&b':') {
        let second = digits(17..19)?;
        if second > 60 {
            return None;
        }
        seconds += second;
        at = 19;
        if matches!(bytes.get(at), Some(b'.' | b',')) {
            at += 1;
            let start = at;
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if at == start {
                return None;
            }
        }
    }
    match &bytes[at..] {
        [] | [b'Z' | b'z'] => Some(seconds),
        [sign @ (b'+' | b'-'), zone @ ..] => {
            let zone_digits: Vec<u8> = zone.iter().copied().filter(|&b| b != b':').collect();
            let valid_shape = matches!(zone.len(), 2 | 4 | 5)
                && (zone.len() != 5 || zone[2] == b':')
                && zone_digits.len() == zone.len() - usize::from(zone.len() == 5)
                && zone_digits.iter().all(u8::is_ascii_digit);
            if !valid_shape {
                return None;
            }
            let number = |pair: &[u8]| i64::from(pair[0] - b'0') * 10 + i64::from(pair[1] - b'0');
            let hours = number(&zone_digits[0..2]);
            let minutes = zone_digits.get(2..4).map_or(0, number);
            if hours > 14 || minutes > 59 {
                return None;
            }
            let offset = hours * 3600 + minutes * 60;
            Some(if *sign == b'+' {
                seconds - offset
            } else {
                seconds + offset
            })
        }
        _ => None,
    }
}

/// Reads an HTTP date (`Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT`, and the two obsolete
/// forms HTTP still accepts).
pub fn http_date(text: &str) -> Option<i64> {
    let at = httpdate::parse_http_date(text.trim()).ok()?;
    let seconds = at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(seconds).ok()
}

/// A date in a URL's path, as blogs and news sites write them: `/2024/03/15/`, `/2024/3/5/`,
/// `/2024/03/` (the month's first day), or a segment starting `2024-03-15`. Years from 1991
/// to 2199; a year alone (`/2024/`, often a version or a section) is no date.
pub fn url_path_date(url: &str) -> Option<i64> {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = after_scheme
        .find('/')
        .map_or("", |slash| &after_scheme[slash..]);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let segments: Vec<&str> = path.split('/').collect();
    let number = |segment: &str, widths: std::ops::RangeInclusive<usize>| -> Option<i64> {
        (widths.contains(&segment.len()) && segment.bytes().all(|b| b.is_ascii_digit()))
            .then(|| segment.parse().ok())
            .flatten()
    };
    let year_of = |n: i64| (1991..2200).contains(&n).then_some(n);
    for (i, segment) in segments.iter().enumerate() {
        if let Some(seconds) = segment.get(..10).and_then(|start| {
            let next = segment.as_bytes().get(10);
            if next.is_some_and(u8::is_ascii_digit) {
                return None;
            }
            year_of(number(start.get(..4)?, 4..=4)?)?;
            iso_date(start)
        }) {
            return Some(seconds);
        }
        let Some(year) = number(segment, 4..=4).and_then(year_of) else {
            continue;
        };
        let Some(month) = segments.get(i + 1).and_then(|s| number(s, 1..=2)) else {
            continue;
        };
        let day = segments.get(i + 2).and_then(|s| number(s, 1..=2));
        if let Some(days) = days_from_civil(year, month, day.unwrap_or(1)) {
            return Some(days * 86_400);
        }
    }
    None
}

/// `YYYY-MM-DD` (UTC) of seconds since the Unix epoch.
pub fn day(unix_seconds: i64) -> String {
    let (year, month, day) = civil_from_days(unix_seconds.div_euclid(86_400));
    format!("{year:04}-{month:02}-{day:02}")
}

/// Days since 1970-01-01 of a proleptic Gregorian date; `None` when it does not exist.
fn days_from_civil(year: i64, month: i64, day: i64) -> Option<i64> {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if !(1..=month_days).contains(&day) {
        return None;
    }
    // Howard Hinnant's days_from_civil: years start in March, so February's end is the
    // year's end and leap days need no special case.
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    Some(era * 146_097 + day_of_era - 719_468)
}

/// The date (year, month, day) of a day since 1970-01-01: `days_from_civil` backwards.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2024-03-15T00:00:00Z, worked out by hand: 19,797 days after 1970-01-01
    /// (54 years of 365 days, 13 leap days from 1972 to 2020, then 31 + 29 + 14 days).
    const MARCH_15_2024: i64 = (54 * 365 + 13 + 31 + 29 + 14) * 86_400;
    /// A fetch on 2025-01-01.
    const FETCHED_2025_MS: u64 = (55 * 365 + 14) * 86_400 * 1000;

    #[test]
    fn iso_dates_as_pages_write_them() {
        assert_eq!(iso_date("2024-03-15"), Some(MARCH_15_2024));
        assert_eq!(iso_date(" 2024-03-15T10:20 "), Some(MARCH_15_2024 + 37_200));
        assert_eq!(
            iso_date("2024-03-15T10:20:30.123Z"),
            Some(MARCH_15_2024 + 37_230)
        );
        assert_eq!(
            iso_date("2024-03-15 10:20:30+01:00"),
            Some(MARCH_15_2024 + 37_230 - 3600)
        );
        assert_eq!(
            iso_date("2024-03-15T10:20:30-0530"),
            Some(MARCH_15_2024 + 37_230 + 5 * 3600 + 1800)
        );
        assert_eq!(
            iso_date("2024-03-15T01:00:00+02"),
            Some(MARCH_15_2024 - 3600)
        );
        assert_eq!(iso_date("1970-01-01"), Some(0));
        assert_eq!(iso_date("2000-02-29"), Some(11_016 * 86_400));
    }

    #[test]
    fn impossible_or_hostile_dates_are_none() {
        for text in [
            "",
            "2024",
            "2024-03",
            "2024-13-01",
            "2024-02-30",
            "2023-02-29",
            "1900-02-29",
            "2024-03-15T24:00",
            "2024-03-15T10:60",
            "2024-03-15T10:20:61",
            "2024-03-15T10",
            "2024-03-15T10:20:30.",
            "2024-03-15T10:20+25:00",
            "2024-03-15T10:20+01:0",
            "2024-03-15x",
            "15/03/2024",
            "２０２４-03-15",
            "2024-03-15T10:20:30Z trailing",
            "9999999999-01-01",
        ] {
            assert_eq!(iso_date(text), None, "{text:?}");
        }
    }

    #[test]
    fn days_and_dates_round_trip() {
        for days in (-800_000..800_000).step_by(997) {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(
                days_from_civil(year, i64::from(month), i64::from(day)),
                Some(days),
                "{year}-{month}-{day}"
            );
        }
        assert_eq!(civil_from_days(MARCH_15_2024 / 86_400), (2024, 3, 15));
    }

    #[test]
    fn http_dates() {
        // RFC 9110's example, and its two obsolete forms.
        let example = 784_111_777;
        assert_eq!(http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(example));
        assert_eq!(http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(example));
        assert_eq!(http_date("Sun Nov  6 08:49:37 1994"), Some(example));
        assert_eq!(http_date("yesterday"), None);
    }

    #[test]
    fn dates_in_url_paths() {
        let day = |url| {
            url_path_date(url).map(|s| {
                PageDate {
                    unix_seconds: s,
                    source: DateSource::UrlPath,
                }
                .day()
            })
        };
        assert_eq!(
            day("https://a.test/2024/03/15/title").as_deref(),
            Some("2024-03-15")
        );
        assert_eq!(
            day("https://a.test/blog/2024/3/5/").as_deref(),
            Some("2024-03-05")
        );
        assert_eq!(
            day("https://a.test/2024/03/").as_deref(),
            Some("2024-03-01")
        );
        assert_eq!(day("https://a.test/2024/03").as_deref(), Some("2024-03-01"));
        assert_eq!(
            day("https://a.test/news/2024-03-15-a-title").as_deref(),
            Some("2024-03-15")
        );
        assert_eq!(
            day("https://a.test/2024-03-15").as_deref(),
            Some("2024-03-15")
        );
        for none in [
            "https://a.test/2024/",
            "https://a.test/2024/intro",
            "https://a.test/2024/13/01/",
            "https://a.test/2024/02/30/",
            "https://a.test/1066/10/14/",
            "https://a.test/v1/2/3/",
            "https://a.test/12345/03/15/",
            "https://a.test/2024-03-155",
            "https://a.test/a?d=2024/03/15",
            "https://a.test/#/2024/03/15",
            "https://2024.test/03/15/",
            "https://a.test",
        ] {
            assert_eq!(day(none), None, "{none}");
        }
    }

    #[test]
    fn json_ld_dates_from_an_item_an_array_or_a_graph() {
        let mut one = DeclaredDates::default();
        one.read_json_ld(
            r#"{"@type":"Article","datePublished":"2024-03-15","dateModified":"2024-03-16T00:00:00Z"}"#,
        );
        assert_eq!(one.json_ld_published, Some(MARCH_15_2024));
        assert_eq!(one.json_ld_modified, Some(MARCH_15_2024 + 86_400));

        let mut graph = DeclaredDates::default();
        graph.read_json_ld(
            r#"{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"x"},
               {"@type":"BlogPosting","datePublished":"2024-03-15"}]}"#,
        );
        assert_eq!(graph.json_ld_published, Some(MARCH_15_2024));
        assert_eq!(graph.json_ld_modified, None);

        let mut array = DeclaredDates::default();
        array.read_json_ld(r#"[{"name":"x"},{"dateModified":"2024-03-15"}]"#);
        assert_eq!(array.json_ld_modified, Some(MARCH_15_2024));

        // The first script to say a date keeps it; broken JSON, a number, a nested item past
        // the depth bound say nothing.
        let mut kept = one;
        kept.read_json_ld(r#"{"datePublished":"2020-01-01"}"#);
        assert_eq!(kept.json_ld_published, Some(MARCH_15_2024));
        let mut nothing = DeclaredDates::default();
        nothing.read_json_ld(r#"{"datePublished":"2024-03-15""#);
        nothing.read_json_ld(r#"{"datePublished":20240315}"#);
        nothing.read_json_ld(r#"[[[[{"datePublished":"2024-03-15"}]]]]"#);
        assert_eq!(nothing, DeclaredDates::default());
    }

    #[test]
    fn each_date_from_its_most_trusted_plausible_source() {
        let url = "https://a.test/2023/01/02/post";
        let header = Some("Sun, 06 Nov 2022 08:49:37 GMT");
        let mut declared = DeclaredDates {
            json_ld_published: Some(MARCH_15_2024),
            meta_published: Some(MARCH_15_2024 - 86_400),
            time_published: Some(MARCH_15_2024 - 2 * 86_400),
            meta_modified: Some(MARCH_15_2024 + 86_400),
            ..Default::default()
        };
        let source_of = |declared: &DeclaredDates| {
            let dates = PageDates::decide(declared, url, header, FETCHED_2025_MS);
            (
                dates.published.map(|d| (d.day(), d.source)),
                dates.modified.map(|d| (d.day(), d.source)),
            )
        };
        let day = |s: &str| s.to_string();
        assert_eq!(
            source_of(&declared),
            (
                Some((day("2024-03-15"), DateSource::JsonLd)),
                Some((day("2024-03-16"), DateSource::ArticleMeta))
            )
        );
        declared.json_ld_published = None;
        declared.meta_modified = None;
        assert_eq!(
            source_of(&declared),
            (
                Some((day("2024-03-14"), DateSource::ArticleMeta)),
                Some((day("2022-11-06"), DateSource::LastModified))
            )
        );
        declared.meta_published = None;
        assert_eq!(
            source_of(&declared).0,
            Some((day("2024-03-13"), DateSource::TimeElement))
        );
        // A date in the future of the fetch, or before the web, is passed over.
        declared.time_published = Some(FETCHED_2025_MS as i64 / 1000 + 2 * 86_400);
        declared.json_ld_published = Some(EARLIEST - 1);
        assert_eq!(
            source_of(&declared).0,
            Some((day("2023-01-02"), DateSource::UrlPath))
        );
        let none = PageDates::decide(&DeclaredDates::default(), "https://a.test/", None, 0);
        assert_eq!(none, PageDates::default());
        assert_eq!(none.date(), None);
    }
}
