//! A fetched page's one write: the page record, its outlinks, its content and near-duplicate
//! index entries, its schedule, its fetch history, what rendering it found, the links it
//! queues and the end of its own frontier entry, in one `WriteBatch`; and the same for an
//! entry that stores no page (a revisit answered 304, a sitemap).

use rocksdb::WriteBatch;
use shared::fail_point;
use shared::record::{
    FetchEvent, FetchHistory, FrontierEntry, Outlinks, PageRecord, Record, RenderedPage,
    RevisitRecord,
};
use shared::store::{Cf, KindCommit, PageRecords};
use shared::{CanonicalUrl, StoreError, simhash};

use super::{PageStore, QueuedUrl};

/// The result of fetching one URL, written at once.
pub struct PageCommit<'a> {
    /// The frontier key of the URL that was fetched; `None` for a page that came without
    /// one (imported from an archive, see [`PageStore::waiting_key`]): it is marked seen.
    pub done: Option<&'a [u8]>,
    /// The record to store; its [`PageRecord::change`] number is set here.
    pub page: &'a mut PageRecord,
    /// Its links.
    pub outlinks: &'a Outlinks,
    /// Links to queue (already filtered by scope and depth; unseen ones are queued).
    pub discovered: Vec<(CanonicalUrl, FrontierEntry)>,
    /// The page's next visit.
    pub revisit: &'a RevisitRecord,
    /// The simhash of its main text, indexed for near-duplicate detection when the page is
    /// an original.
    pub simhash: Option<u64>,
    /// Failed fetches of the URL before this one ([`FrontierEntry::attempts`]): the history
    /// holds them, so it is read even for a URL stored for the first time.
    pub failed_before: u8,
    /// What its kind's reader added (see [`crate::kind`]): an image's or a PDF's record, a
    /// thumbnail under its content hash, the images a page shows.
    pub kind: KindCommit<'a>,
    /// What rendering the page in a browser found, stored under its URL; `None` (not
    /// rendered this time) removes a render stored before, so a page crawled again without
    /// rendering keeps no stale one.
    pub rendered: Option<&'a RenderedPage>,
    /// For a page whose render's text decides its copies: the hash of its text before
    /// scripts, indexed with its URL up to the query, so that its variants (the same page
    /// under another query) are found before they are rendered ([`super::CopyCheck`]).
    pub static_text_hash: Option<u64>,
}

impl PageStore {
    /// Writes one fetched page and everything it changes; returns the newly queued URLs.
    pub fn commit_page(&mut self, commit: PageCommit<'_>) -> Result<Vec<QueuedUrl>, StoreError> {
        let mut batch = WriteBatch::default();
        commit.page.change = self.counters.take_change();
        let key = commit.page.url.as_bytes();
        let is_new = self.db.get_pinned_cf(self.cf(Cf::Pages), key)?.is_none();
        PageRecords {
            page: commit.page,
            outlinks: commit.outlinks,
            kind: commit.kind,
            rendered: commit.rendered,
        }
        .put(&self.db, &mut batch, !is_new)?;
        // A URL stored for the first time has no history to read unless its failed attempts
        // wrote one: a first crawl pays no extra read per page.
        let earlier = if is_new && commit.failed_before == 0 {
            FetchHistory::default()
        } else {
            self.history(&commit.page.url)?
        };
        self.add_to_history(
            &mut batch,
            &commit.page.url,
            earlier,
            FetchEvent::of(commit.page),
        );
        if commit.page.is_html_page() && commit.page.duplicate_of.is_none() {
            batch.put_cf(
                self.cf(Cf::Content),
                commit.page.content_hash.to_be_bytes(),
                key,
            );
            let mut value = key.to_vec();
            value.push(0);
            value.extend_from_slice(commit.page.title.as_bytes());
            for near_key in commit.simhash.iter().flat_map(|&h| simhash::block_keys(h)) {
                batch.put_cf(self.cf(Cf::Near), near_key, &value);
            }
            if let Some(hash) = commit.static_text_hash {
                batch.put_cf(
                    self.cf(Cf::Content),
                    super::near::variant_key(hash, &commit.page.url),
                    key,
                );
            }
        }
        batch.put_cf(self.cf(Cf::Revisit), key, commit.revisit.encode());
        let queued = self.queue_unseen(&mut batch, commit.discovered)?;
        // After the links: a link to the page itself must not find its entry waiting.
        match commit.done {
            Some(done) => {
                self.done(&mut batch, done, Some(&commit.page.url));
                self.counters.frontier_len = self.counters.frontier_len.saturating_sub(1);
            }
            None => self.mark_seen(&mut batch, &commit.page.url),
        }
        if is_new {
            self.counters.pages_stored += 1;
        }
        self.put_counters(&mut batch);
        fail_point!("crawler::store::commit_page::before_write", |_| Err(
            self.injected("crawler::store::commit_page::before_write")
        ));
        self.write(batch)?;
        fail_point!("crawler::store::commit_page::after_write", |_| Err(
            self.injected("crawler::store::commit_page::after_write")
        ));
        Ok(queued)
    }

    /// Ends a frontier entry that stores no page: a revisit answered 304 (`revisit` is its
    /// new schedule; the stored copy stays as it is) or a sitemap (its URLs are `discovered`).
    pub fn commit_done(
        &mut self,
        done: &[u8],
        revisit: Option<(&str, &RevisitRecord)>,
        discovered: Vec<(CanonicalUrl, FrontierEntry)>,
    ) -> Result<Vec<QueuedUrl>, StoreError> {
        let mut batch = WriteBatch::default();
        if let Some((url, record)) = revisit {
            batch.put_cf(self.cf(Cf::Revisit), url.as_bytes(), record.encode());
            let event = FetchEvent {
                at_ms: shared::now_ms(),
                status: 304,
                error: None,
                content_hash: record.content_hash,
            };
            let earlier = self.history(url)?;
            self.add_to_history(&mut batch, url, earlier, event);
        }
        let queued = self.queue_unseen(&mut batch, discovered)?;
        self.done(&mut batch, done, revisit.map(|(url, _)| url));
        self.counters.frontier_len = self.counters.frontier_len.saturating_sub(1);
        self.put_counters(&mut batch);
        fail_point!(
            "crawler::store::revisit::before_write",
            revisit.is_some(),
            |_| Err(self.injected("crawler::store::revisit::before_write"))
        );
        fail_point!(
            "crawler::store::sitemap::before_write",
            revisit.is_none(),
            |_| Err(self.injected("crawler::store::sitemap::before_write"))
        );
        self.write(batch)?;
        Ok(queued)
    }

    /// A URL's fetches so far (empty for one never fetched).
    pub(crate) fn history(&self, url: &str) -> Result<FetchHistory, StoreError> {
        Ok(self.get(Cf::History, url.as_bytes())?.unwrap_or_default())
    }

    /// Writes `history` with `event` added in `batch`.
    pub(super) fn add_to_history(
        &self,
        batch: &mut WriteBatch,
        url: &str,
        mut history: FetchHistory,
        event: FetchEvent,
    ) {
        history.push(event);
        batch.put_cf(self.cf(Cf::History), url.as_bytes(), history.encode());
    }
}
