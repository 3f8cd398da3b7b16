//! Documents waiting for tantivy's indexing threads, bounded in bytes.
//!
//! tantivy's `IndexWriter::add_document` only queues a document: its indexing threads take
//! them from a channel of 10,000 documents. When the parser threads make documents faster
//! than those threads index them (one indexing thread under a small `--writer-memory`, or
//! long pages), that channel held every document of a 6,000-page partition at once: 36 MiB
//! at the build's peak, growing with the corpus. Here each document holds a share of a
//! [`QueueBudget`] from the moment it is queued until tantivy has indexed it (its
//! [`Queued`] wrapper is dropped then), and a parser waits for room before queueing another.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use tantivy::TantivyDocument;
use tantivy::schema::document::Document;

/// The bytes of documents that may wait for tantivy at once.
pub(crate) struct QueueBudget {
    limit: usize,
    /// The longest a parser waits for room: past it, its document goes anyway.
    stall: Duration,
    held: Mutex<usize>,
    freed: Condvar,
}

impl QueueBudget {
    /// The least budget: room for a few pages of text.
    pub(crate) const MIN_BYTES: usize = 1 << 20;

    /// How long a parser waits for room before its document goes anyway. tantivy keeps the
    /// queued documents of an indexing thread that failed (a full disk) until the writer is
    /// dropped, and only `add_document` says it failed: a parser that waited for ever would
    /// hang the build instead of ending it with the error. Writing a segment stalls the
    /// queue too, so a few documents past the budget may go while one is written.
    const STALL: Duration = Duration::from_secs(1);

    /// A budget of `limit` bytes (at least [`QueueBudget::MIN_BYTES`]).
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Self::stalling_after(limit, Self::STALL)
    }

    fn stalling_after(limit: usize, stall: Duration) -> Arc<Self> {
        Arc::new(Self {
            limit: limit.max(Self::MIN_BYTES),
            stall,
            held: Mutex::new(0),
            freed: Condvar::new(),
        })
    }

    /// `doc`, which holds about `bytes`, with its share of the budget, once there is room
    /// for it or the queue has stalled ([`QueueBudget::STALL`]); a document larger than the
    /// whole budget waits until nothing else is queued, then goes alone. (The caller says
    /// the size: reading it off the document would deserialize every stemmed field, which
    /// cost a build a tenth of its CPU.)
    pub(crate) fn admit(self: &Arc<Self>, doc: TantivyDocument, bytes: usize) -> Queued {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        // Room, or the stall: either way the document goes.
        let (mut held, _) = self
            .freed
            .wait_timeout_while(held, self.stall, |held| {
                *held > 0 && *held + bytes > self.limit
            })
            .unwrap_or_else(PoisonError::into_inner);
        *held += bytes;
        Queued {
            doc,
            bytes,
            budget: Arc::clone(self),
        }
    }

    /// Bytes held by documents queued and not yet indexed.
    #[cfg(test)]
    fn held(&self) -> usize {
        *self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn release(&self, bytes: usize) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        *held -= bytes;
        self.freed.notify_all();
    }
}

/// A document queued for tantivy, holding its share of a [`QueueBudget`] until tantivy drops
/// it, which it does once the document is indexed (or when the writer fails).
pub(crate) struct Queued {
    doc: TantivyDocument,
    bytes: usize,
    budget: Arc<QueueBudget>,
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

impl Document for Queued {
    type Value<'a> = <TantivyDocument as Document>::Value<'a>;
    type FieldsValuesIter<'a> = <TantivyDocument as Document>::FieldsValuesIter<'a>;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        self.doc.iter_fields_and_values()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::doc;
    use tantivy::schema::{STORED, Schema, TEXT};

    use super::*;

    /// A parser waits while the queue is full, and goes on once tantivy has indexed (dropped)
    /// a queued document; a document larger than the budget still goes, alone.
    #[test]
    fn a_full_queue_holds_the_next_document_back_until_one_is_indexed() {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", TEXT | STORED);
        let _ = schema.build();
        let budget = QueueBudget::stalling_after(QueueBudget::MIN_BYTES, Duration::from_secs(60));
        let page = "heron ".repeat(100_000); // 600 KB: one fits, two do not
        let first = budget.admit(doc!(body => page.clone()), page.len());
        assert_eq!(budget.held(), page.len());

        let (sent, admitted) = std::sync::mpsc::channel();
        let parser = {
            let (budget, page) = (Arc::clone(&budget), page.clone());
            std::thread::spawn(move || {
                let second = budget.admit(doc!(body => page.clone()), page.len());
                sent.send(()).expect("the test waits");
                second
            })
        };
        assert!(
            admitted.recv_timeout(Duration::from_millis(300)).is_err(),
            "a second 600 KB document waits while the first fills the 1 MiB budget"
        );
        drop(first); // tantivy indexed it
        admitted
            .recv_timeout(Duration::from_secs(10))
            .expect("admitted once the first was indexed");
        let second = parser.join().expect("the parser");
        drop(second);
        assert_eq!(budget.held(), 0);

        let huge = budget.admit(doc!(body => "heron"), 2 << 20);
        assert_eq!(budget.held(), 2 << 20, "alone, past the budget");
        drop(huge);
        assert_eq!(budget.held(), 0);
    }

    /// A queue that nothing drains (a failed indexing thread keeps what it was given) lets
    /// the next document through once it has stalled, so the parser reaches tantivy's error.
    #[test]
    fn a_queue_that_nothing_drains_lets_the_next_document_through_after_the_stall() {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", TEXT);
        let _ = schema.build();
        let budget = QueueBudget::stalling_after(QueueBudget::MIN_BYTES, Duration::from_millis(50));
        let _never_indexed = budget.admit(doc!(body => "heron"), QueueBudget::MIN_BYTES);
        let next = budget.admit(doc!(body => "egret"), 10);
        assert_eq!(budget.held(), QueueBudget::MIN_BYTES + 10);
        drop(next);
    }
}
