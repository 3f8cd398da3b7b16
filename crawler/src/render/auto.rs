//! `render = "auto"`: render a sample of a host's first pages and keep rendering the host
//! only if scripts add materially to what the static pages hold.
//!
//! The first [`SAMPLE`] HTML pages of a host are rendered. As soon as one of them has
//! materially more links or text rendered than static ([`Gain::is_material`]), the host is
//! rendered from then on; once the sample is done without such a page, it is not. The
//! decision lasts for the run (a new run samples again).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::info;

/// Pages of a host rendered before it is decided.
pub(crate) const SAMPLE: u32 = 5;

/// What rendering one page added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gain {
    /// Links in the static page.
    pub static_links: usize,
    /// Links in the rendered page.
    pub rendered_links: usize,
    /// Bytes of visible text in the static page.
    pub static_text: usize,
    /// Bytes of visible text in the rendered page.
    pub rendered_text: usize,
}

impl Gain {
    /// Material: at least 3 more links and a tenth more, or at least 200 more bytes of text
    /// and a fifth more.
    pub(crate) fn is_material(&self) -> bool {
        let links = self.rendered_links.saturating_sub(self.static_links);
        let text = self.rendered_text.saturating_sub(self.static_text);
        (links >= 3 && links * 10 >= self.static_links)
            || (text >= 200 && text * 5 >= self.static_text)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decision {
    Sampling { rendered: u32 },
    Render,
    Skip,
}

/// Each `auto` host's decision. Cloning shares it.
#[derive(Clone, Default)]
pub(crate) struct AutoDecisions {
    hosts: Arc<Mutex<HashMap<String, Decision>>>,
}

impl AutoDecisions {
    /// Whether a page of `host` is to be rendered: while its sample lasts, or once decided
    /// for rendering.
    pub(crate) fn wants(&self, host: &str) -> bool {
        let hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        !matches!(hosts.get(host), Some(Decision::Skip))
    }

    /// Counts a rendered page of `host` and what it added.
    pub(crate) fn observe(&self, host: &str, gain: Gain) {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let decision = hosts
            .entry(host.to_string())
            .or_insert(Decision::Sampling { rendered: 0 });
        let Decision::Sampling { rendered } = *decision else {
            return;
        };
        *decision = if gain.is_material() {
            info!(%host, ?gain, "render auto: scripts add links or text; the host is rendered");
            Decision::Render
        } else if rendered + 1 >= SAMPLE {
            info!(%host, pages = SAMPLE, "render auto: scripts add nothing material; the host is not rendered");
            Decision::Skip
        } else {
            Decision::Sampling {
                rendered: rendered + 1,
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gain(static_links: usize, rendered_links: usize, text: (usize, usize)) -> Gain {
        Gain {
            static_links,
            rendered_links,
            static_text: text.0,
            rendered_text: text.1,
        }
    }

    #[test]
    fn a_few_more_links_or_a_fifth_more_text_is_material_and_noise_is_not() {
        assert!(
            gain(0, 3, (100, 100)).is_material(),
            "links built by script"
        );
        assert!(gain(20, 23, (100, 100)).is_material());
        assert!(!gain(100, 103, (100, 100)).is_material(), "3% more links");
        assert!(
            gain(5, 5, (1000, 1300)).is_material(),
            "text built by script"
        );
        assert!(!gain(5, 5, (10_000, 10_300)).is_material(), "3% more text");
        assert!(!gain(5, 4, (1000, 900)).is_material(), "less");
    }

    #[test]
    fn a_host_is_rendered_once_one_sample_page_gains_and_left_after_a_dull_sample() {
        let decisions = AutoDecisions::default();
        let dull = gain(10, 10, (500, 500));
        let rich = gain(0, 12, (50, 2000));
        assert!(decisions.wants("a.test") && decisions.wants("b.test"));
        for _ in 0..SAMPLE {
            decisions.observe("a.test", dull);
        }
        assert!(!decisions.wants("a.test"), "the sample added nothing");
        decisions.observe("b.test", dull);
        decisions.observe("b.test", rich);
        for _ in 0..SAMPLE {
            decisions.observe("b.test", dull);
        }
        assert!(decisions.wants("b.test"), "decided by the rich page");
    }
}
