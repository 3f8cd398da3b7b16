//! [`Recent`]: a bounded map of recent work, shared by the threads that search: the least
//! recently used entry goes when it is full. A capacity of 0 keeps nothing.

use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::Mutex;

use lru::LruCache;

/// Up to a fixed number of values by key, the least recently used dropped first.
pub(crate) struct Recent<K: Hash + Eq, V: Clone> {
    map: Option<Mutex<LruCache<K, V>>>,
}

impl<K: Hash + Eq, V: Clone> Recent<K, V> {
    /// A map of at most `capacity` entries (0: none is kept).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            map: NonZeroUsize::new(capacity).map(|c| Mutex::new(LruCache::new(c))),
        }
    }

    /// Whether anything is kept at all.
    pub(crate) fn is_enabled(&self) -> bool {
        self.map.is_some()
    }

    /// A copy of the value of `key`, if kept (it becomes the most recently used).
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.map
            .as_ref()?
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .cloned()
    }

    /// Keeps `value` for `key`, dropping the least recently used entry when full.
    pub(crate) fn put(&self, key: K, value: V) {
        if let Some(map) = &self.map {
            map.lock()
                .unwrap_or_else(|p| p.into_inner())
                .put(key, value);
        }
    }

    /// Drops every entry.
    pub(crate) fn clear(&self) {
        if let Some(map) = &self.map {
            map.lock().unwrap_or_else(|p| p.into_inner()).clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Recent;

    #[test]
    fn keeps_the_most_recently_used_and_nothing_at_zero() {
        let recent = Recent::new(2);
        recent.put("a", 1);
        recent.put("b", 2);
        assert_eq!(recent.get(&"a"), Some(1));
        recent.put("c", 3);
        assert_eq!(recent.get(&"b"), None, "b was the least recently used");
        assert_eq!((recent.get(&"a"), recent.get(&"c")), (Some(1), Some(3)));
        recent.clear();
        assert_eq!(recent.get(&"a"), None);

        let none = Recent::new(0);
        none.put("a", 1);
        assert_eq!(none.get(&"a"), None);
        assert!(!none.is_enabled());
    }
}
