//! Scripts and style sheets fetched for rendered pages, kept for the run: the pages of one
//! site load the same few files, and a file asked for again costs the site no request.
//!
//! Bounded by bytes; the oldest entries go first. Only whole 200 answers that do not forbid
//! storing (`Cache-Control: no-store`) are kept, and the browser is told to keep them too
//! (`max-age`, see [`Reply::keep_for_the_run`]), so a tab asks for each once.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use super::reply::Reply;

/// The most bytes the cache holds.
const CACHE_BYTES: usize = 64 << 20;
/// The largest answer kept.
const ENTRY_BYTES: usize = 8 << 20;

#[derive(Default)]
struct Entries {
    by_url: HashMap<String, Arc<Reply>>,
    order: VecDeque<String>,
    bytes: usize,
}

/// The run's cache of subresources. Cloning shares it.
#[derive(Clone, Default)]
pub(crate) struct SubresourceCache {
    entries: Arc<Mutex<Entries>>,
}

impl SubresourceCache {
    /// The answer kept for `url`.
    pub(crate) fn get(&self, url: &str) -> Option<Arc<Reply>> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.by_url.get(url).cloned()
    }

    /// Whether `reply` may be kept: a whole 200 answer that does not forbid storing, of at
    /// most [`ENTRY_BYTES`].
    pub(crate) fn may_keep(reply: &Reply) -> bool {
        reply.status == 200 && reply.body.len() <= ENTRY_BYTES && !forbids_storing(reply)
    }

    /// Keeps `reply` for `url` when it may be kept.
    pub(crate) fn put(&self, url: &str, reply: Arc<Reply>) {
        let size = reply.body.len() + url.len();
        if !Self::may_keep(&reply) || size > ENTRY_BYTES {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.by_url.contains_key(url) {
            return;
        }
        while entries.bytes + size > CACHE_BYTES {
            let Some(oldest) = entries.order.pop_front() else {
                break;
            };
            if let Some(gone) = entries.by_url.remove(&oldest) {
                entries.bytes -= gone.body.len() + oldest.len();
            }
        }
        entries.bytes += size;
        entries.order.push_back(url.to_string());
        entries.by_url.insert(url.to_string(), reply);
    }
}

fn forbids_storing(reply: &Reply) -> bool {
    reply
        .headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("cache-control"))
        .any(|(_, value)| value.to_ascii_lowercase().contains("no-store"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(status: u16, bytes: usize, cache_control: Option<&str>) -> Arc<Reply> {
        Arc::new(Reply {
            status,
            headers: cache_control
                .map(|v| ("cache-control".to_string(), v.to_string()))
                .into_iter()
                .collect(),
            body: vec![b'x'; bytes],
        })
    }

    #[test]
    fn whole_answers_are_kept_and_the_oldest_go_first_when_full() {
        let cache = SubresourceCache::default();
        cache.put("http://a.test/app.js", reply(200, 10, None));
        assert_eq!(
            cache.get("http://a.test/app.js").map(|r| r.body.len()),
            Some(10)
        );
        for i in 0..20 {
            cache.put(&format!("http://a.test/{i}.js"), reply(200, 4 << 20, None));
        }
        assert!(cache.get("http://a.test/app.js").is_none(), "evicted first");
        assert!(
            cache.get("http://a.test/19.js").is_some(),
            "the newest stays"
        );
        let held = cache.entries.lock().unwrap().bytes;
        assert!(held <= CACHE_BYTES, "{held} bytes held");
    }

    #[test]
    fn errors_huge_answers_and_no_store_are_not_kept() {
        let cache = SubresourceCache::default();
        cache.put("http://a.test/404.js", reply(404, 10, None));
        cache.put("http://a.test/huge.js", reply(200, ENTRY_BYTES + 1, None));
        cache.put(
            "http://a.test/private.js",
            reply(200, 10, Some("private, No-Store")),
        );
        for url in ["404.js", "huge.js", "private.js"] {
            assert!(
                cache.get(&format!("http://a.test/{url}")).is_none(),
                "{url}"
            );
        }
    }
}
