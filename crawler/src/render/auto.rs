//! `render = "auto"`: render a sample of a host's first pages, keep rendering the host only
//! if scripts add materially to what the static pages hold, and keep checking.
//!
//! The first [`SAMPLE`] HTML pages of a host are rendered. As soon as one of them has
//! materially more links or text rendered than static ([`Gain::is_material`]), the host is
//! rendered; once the sample is done without such a page, it is not. The decision is not
//! final, as Crawlee's adaptive crawler keeps checking its guess:
//! - a host not rendered still has one page in [`RECHECK_EVERY`] rendered; when such a
//!   re-check gains materially, the host is rendered from then on;
//! - a rendered host whose last [`DULL_RUN`] renders in a row gained nothing material is
//!   no longer rendered (its scripts stopped adding, or the sample was lucky).
//!
//! Each change of a host's verdict is handed to the crawl ([`AutoDecisions::unsaved`]),
//! which keeps it in the store, and a later run starts from the verdict it stored
//! ([`AutoDecisions::remember`]) instead of sampling again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use shared::store::AutoVerdict;
use tracing::info;

/// Pages of a host rendered before it is decided.
pub(crate) const SAMPLE: u32 = 5;
/// A host decided against rendering has one HTML page in this many rendered: a re-check.
pub(crate) const RECHECK_EVERY: u32 = 50;
/// Renders in a row that gain nothing material before a rendered host is no longer rendered.
pub(crate) const DULL_RUN: u32 = 50;

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
    Render { dull_in_a_row: u32 },
    Skip { since_check: u32 },
}

impl Decision {
    fn verdict(self) -> Option<AutoVerdict> {
        match self {
            Decision::Sampling { .. } => None,
            Decision::Render { .. } => Some(AutoVerdict::Render),
            Decision::Skip { .. } => Some(AutoVerdict::Skip),
        }
    }
}

/// A host's decision, and whether its verdict changed since the crawl last stored it.
#[derive(Clone, Copy, Debug)]
struct Host {
    decision: Decision,
    unsaved: bool,
}

/// Each `auto` host's decision. Cloning shares it.
#[derive(Clone, Default)]
pub(crate) struct AutoDecisions {
    hosts: Arc<Mutex<HashMap<String, Host>>>,
}

impl AutoDecisions {
    /// Whether a page of `host` is to be rendered: while its sample lasts, once decided for
    /// rendering, and for a host decided against it, one page in [`RECHECK_EVERY`] (asked
    /// once per HTML page, it counts them).
    pub(crate) fn wants(&self, host: &str) -> bool {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(state) = hosts.get_mut(host) else {
            return true;
        };
        match state.decision {
            Decision::Sampling { .. } | Decision::Render { .. } => true,
            Decision::Skip { since_check } => {
                let recheck = since_check + 1 >= RECHECK_EVERY;
                state.decision = Decision::Skip {
                    since_check: if recheck { 0 } else { since_check + 1 },
                };
                recheck
            }
        }
    }

    /// Counts a rendered page of `host` and what it added.
    pub(crate) fn observe(&self, host: &str, gain: Gain) {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let state = hosts.entry(host.to_string()).or_insert(Host {
            decision: Decision::Sampling { rendered: 0 },
            unsaved: false,
        });
        let material = gain.is_material();
        let next = match state.decision {
            Decision::Sampling { .. } if material => {
                info!(%host, ?gain, "render auto: scripts add links or text; the host is rendered");
                Decision::Render { dull_in_a_row: 0 }
            }
            Decision::Sampling { rendered } if rendered + 1 >= SAMPLE => {
                info!(%host, pages = SAMPLE, "render auto: scripts add nothing material; the host is not rendered (one page in {RECHECK_EVERY} is re-checked)");
                Decision::Skip { since_check: 0 }
            }
            Decision::Sampling { rendered } => Decision::Sampling {
                rendered: rendered + 1,
            },
            Decision::Render { .. } if material => Decision::Render { dull_in_a_row: 0 },
            Decision::Render { dull_in_a_row } if dull_in_a_row + 1 >= DULL_RUN => {
                info!(%host, pages = DULL_RUN, "render auto: the last renders added nothing material; the host is no longer rendered");
                Decision::Skip { since_check: 0 }
            }
            Decision::Render { dull_in_a_row } => Decision::Render {
                dull_in_a_row: dull_in_a_row + 1,
            },
            Decision::Skip { .. } if material => {
                info!(%host, ?gain, "render auto: a re-check found scripts adding links or text; the host is rendered again");
                Decision::Render { dull_in_a_row: 0 }
            }
            skip @ Decision::Skip { .. } => skip,
        };
        if next.verdict() != state.decision.verdict() {
            state.unsaved = true;
        }
        state.decision = next;
    }

    /// Starts `host` from the verdict a former run stored, unless this run decided it
    /// already.
    pub(crate) fn remember(&self, host: &str, verdict: AutoVerdict) {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        hosts.entry(host.to_string()).or_insert(Host {
            decision: match verdict {
                AutoVerdict::Render => Decision::Render { dull_in_a_row: 0 },
                AutoVerdict::Skip => Decision::Skip { since_check: 0 },
            },
            unsaved: false,
        });
    }

    /// `host`'s verdict when it changed since this was last asked: the crawl stores it.
    pub(crate) fn unsaved(&self, host: &str) -> Option<AutoVerdict> {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let state = hosts.get_mut(host).filter(|state| state.unsaved)?;
        state.unsaved = false;
        state.decision.verdict()
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

    #[test]
    fn a_host_left_unrendered_is_rechecked_one_page_in_so_many_and_rendered_when_it_gains() {
        let decisions = AutoDecisions::default();
        let (dull, rich) = (gain(10, 10, (500, 500)), gain(0, 12, (50, 2000)));
        for _ in 0..SAMPLE {
            decisions.observe("a.test", dull);
        }
        assert_eq!(decisions.unsaved("a.test"), Some(AutoVerdict::Skip));
        assert_eq!(decisions.unsaved("a.test"), None, "told once");
        let rendered = (0..3 * RECHECK_EVERY)
            .filter(|_| decisions.wants("a.test"))
            .count();
        assert_eq!(rendered, 3, "one page in {RECHECK_EVERY}");
        decisions.observe("a.test", dull);
        assert_eq!(
            decisions.unsaved("a.test"),
            None,
            "a dull re-check changes nothing"
        );
        decisions.observe("a.test", rich);
        assert_eq!(decisions.unsaved("a.test"), Some(AutoVerdict::Render));
        assert!((0..RECHECK_EVERY).all(|_| decisions.wants("a.test")));
    }

    #[test]
    fn a_rendered_host_is_left_after_a_dull_run_and_a_gain_restarts_the_run() {
        let decisions = AutoDecisions::default();
        let (dull, rich) = (gain(10, 10, (500, 500)), gain(0, 12, (50, 2000)));
        decisions.observe("b.test", rich);
        assert_eq!(decisions.unsaved("b.test"), Some(AutoVerdict::Render));
        for _ in 1..DULL_RUN {
            decisions.observe("b.test", dull);
        }
        decisions.observe("b.test", rich);
        for _ in 1..DULL_RUN {
            decisions.observe("b.test", dull);
        }
        assert!(
            decisions.wants("b.test"),
            "no run of {DULL_RUN} dull renders yet"
        );
        assert_eq!(decisions.unsaved("b.test"), None);
        decisions.observe("b.test", dull);
        assert_eq!(decisions.unsaved("b.test"), Some(AutoVerdict::Skip));
        assert!(!decisions.wants("b.test"));
    }

    #[test]
    fn a_stored_verdict_starts_the_host_without_a_sample() {
        let decisions = AutoDecisions::default();
        decisions.remember("skip.test", AutoVerdict::Skip);
        decisions.remember("render.test", AutoVerdict::Render);
        assert!(
            !decisions.wants("skip.test"),
            "no sample for a host decided before"
        );
        assert!(decisions.wants("render.test"));
        assert_eq!(decisions.unsaved("skip.test"), None, "nothing new to store");
        // A verdict this run reached stands over one a store offers later.
        decisions.observe("render.test", gain(10, 10, (500, 500)));
        decisions.remember("render.test", AutoVerdict::Skip);
        assert!(decisions.wants("render.test"));
        for verdict in [AutoVerdict::Render, AutoVerdict::Skip] {
            assert_eq!(AutoVerdict::from_name(verdict.name()), Some(verdict));
        }
    }
}
