//! Query-time ranking weights (`[ranking]`): plain numbers, the same in the file and in use.

use serde::Deserialize;

use super::BadValue;
use super::check::weight;

/// Query-time ranking weights.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RankingConfig {
    /// BM25 boost of the title field.
    pub title_boost: f32,
    /// BM25 boost of the anchor-text field.
    pub anchor_boost: f32,
    /// BM25 boost of the URL field.
    pub url_boost: f32,
    /// BM25 boost of the body field.
    pub body_boost: f32,
    /// BM25 boost of the lead: the first words of the body, where a page says what it is
    /// about (a manual page's NAME line, an API item's summary, an article's first lines).
    pub lead_boost: f32,
    /// BM25 boost of a section (a heading or definition term and its first words) holding
    /// every query word: a long page that covers many topics wins for the part that matches.
    pub section_boost: f32,
    /// `w` in the link boost `1 + w * ln(1 + votes)`, where each in-link is a vote.
    pub link_weight: f32,
    /// How many votes an in-link from a page of another host is worth (one from the same
    /// host is worth 1): a site's own navigation links every page, another site's link is
    /// a choice.
    pub external_link_weight: f32,
    /// Weight of the unstemmed title, headings and body relative to their stemmed fields:
    /// an exact word form adds this share of its field's score on top of the stemmed match.
    pub exact_boost: f32,
    /// `d` in the URL depth prior `1 / (1 + d * (depth - 1))`: shallower pages rank a little
    /// higher; 0 turns it off.
    pub depth_weight: f32,
    /// `p` in the PageRank boost `1 + p * log2(1 + rank * pages)`; 0 turns it off.
    pub pagerank_weight: f32,
    /// `c` in the prose prior `1 - c * (2s - 1)`, applied when a share `s` over one half of a
    /// page's text is in `<pre>` code listings: source listings rank below the prose about
    /// them; 0 turns it off.
    pub code_weight: f32,
    /// `t` in the thin-page prior `1 - t * (1 - words / 50)` of a page with fewer than 50
    /// words of text (a stub that only its title matches); 0 turns it off.
    pub thin_weight: f32,
    /// Share of the title and URL boosts given to a title or URL word that abbreviates a
    /// query word (its first 3 or 4 letters: `env` for "environment"); 0 turns it off.
    pub abbreviation_weight: f32,
}

impl Default for RankingConfig {
    fn default() -> Self {
        Self {
            title_boost: 3.0,
            anchor_boost: 2.0,
            url_boost: 1.5,
            body_boost: 1.0,
            lead_boost: 1.0,
            section_boost: 1.0,
            link_weight: 0.2,
            external_link_weight: 4.0,
            exact_boost: 0.5,
            depth_weight: 0.1,
            pagerank_weight: 0.2,
            code_weight: 0.5,
            thin_weight: 0.5,
            abbreviation_weight: 2.0,
        }
    }
}

impl RankingConfig {
    /// Checks that every weight is a finite number, 0 or more; the error names the key
    /// (`ranking.title_boost`).
    pub fn validate(&self) -> Result<RankingConfig, BadValue> {
        let r = self;
        for (name, value) in [
            ("title_boost", r.title_boost),
            ("anchor_boost", r.anchor_boost),
            ("url_boost", r.url_boost),
            ("body_boost", r.body_boost),
            ("lead_boost", r.lead_boost),
            ("section_boost", r.section_boost),
            ("link_weight", r.link_weight),
            ("external_link_weight", r.external_link_weight),
            ("exact_boost", r.exact_boost),
            ("depth_weight", r.depth_weight),
            ("pagerank_weight", r.pagerank_weight),
            ("code_weight", r.code_weight),
            ("thin_weight", r.thin_weight),
            ("abbreviation_weight", r.abbreviation_weight),
        ] {
            weight(&format!("ranking.{name}"), value)?;
        }
        Ok(r.clone())
    }
}
