//! A URL's last fetches ([`FetchHistory`], family `history`): what `explain` shows as its
//! status history.

use serde::{Deserialize, Serialize};

use super::{PageRecord, Record};

/// The last fetches of one URL, oldest first (column family `history`): what `explain`
/// shows as its status history. At most [`FetchHistory::KEPT`] are kept.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchHistory(pub Vec<FetchEvent>);

/// One fetch of a URL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchEvent {
    /// When the answer (or the failure) came, ms since the Unix epoch.
    pub at_ms: u64,
    /// The HTTP status; 304 for a revisit that found the stored copy current; 0 for none.
    pub status: u16,
    /// Why the fetch failed, if it did (cut to [`FetchEvent::MAX_ERROR`] bytes).
    pub error: Option<String>,
    /// The content hash of the page's text then (0: none), so a change shows.
    pub content_hash: u64,
}

impl FetchEvent {
    /// Longest error message kept in a history.
    pub const MAX_ERROR: usize = 200;

    /// The event of a stored fetch.
    pub fn of(page: &PageRecord) -> Self {
        Self {
            at_ms: page.fetched_at_ms,
            status: page.status,
            error: page
                .error
                .as_deref()
                .map(|e| e[..e.floor_char_boundary(Self::MAX_ERROR)].to_string()),
            content_hash: page.content_hash,
        }
    }
}

impl FetchHistory {
    /// Fetches kept per URL.
    pub const KEPT: usize = 16;

    /// Adds the latest fetch, dropping the oldest beyond [`FetchHistory::KEPT`].
    pub fn push(&mut self, event: FetchEvent) {
        self.0.push(event);
        let over = self.0.len().saturating_sub(Self::KEPT);
        self.0.drain(..over);
    }
}

impl Record for FetchHistory {
    const KIND: &'static str = "fetch history";
    const VERSION: u8 = 1;
}
