//! The link graph: for every indexed page, how many distinct pages link to it and with what
//! anchor text.
//!
//! Self-links and `nofollow` links do not count. Redirects pass their in-links on to their
//! target (up to [`MAX_REDIRECT_HOPS`], loop-safe), and duplicates count as their
//! representative, so a link to any copy counts once for the document.

use std::collections::HashMap;

use shared::{StoreError, StoreReader};

/// Redirect hops followed when resolving a link target.
pub const MAX_REDIRECT_HOPS: usize = 5;
/// Anchor texts kept per page.
const MAX_ANCHORS: usize = 100;
/// Anchor text kept per page, in bytes.
const MAX_ANCHOR_BYTES: usize = 8 * 1024;

/// What links say about one page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inbound {
    /// Distinct pages linking here (self-links and nofollow excluded).
    pub count: u64,
    /// Distinct anchor texts of those links, in first-seen order, bounded.
    pub anchors: Vec<String>,
    anchor_bytes: usize,
}

/// In-links of every document.
#[derive(Debug, Default)]
pub struct LinkGraph {
    inbound: HashMap<String, Inbound>,
}

/// How URLs map onto documents: the representative URL of every indexable page, and the
/// targets of redirects.
#[derive(Debug, Default)]
pub struct UrlMap {
    /// Indexable URL -> the URL of the document that stands for it (itself, or the shortest
    /// URL with the same content).
    pub representative: HashMap<String, String>,
    /// Redirecting URL -> its target.
    pub redirects: HashMap<String, String>,
}

impl UrlMap {
    /// The document a link to `url` counts for, if any.
    pub fn resolve<'a>(&'a self, mut url: &'a str) -> Option<&'a str> {
        for _ in 0..=MAX_REDIRECT_HOPS {
            if let Some(doc) = self.representative.get(url) {
                return Some(doc);
            }
            url = self.redirects.get(url)?;
        }
        None
    }
}

impl LinkGraph {
    /// Reads every page's outlinks from the store.
    pub fn build(store: &StoreReader, urls: &UrlMap) -> Result<Self, StoreError> {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut inbound: HashMap<String, Inbound> = HashMap::new();
        for item in store.all_outlinks() {
            let (source, links) = item?;
            let source_doc = urls.resolve(&source).unwrap_or(&source).to_string();
            let next_id = ids.len() as u32;
            let source_id = *ids.entry(source_doc.clone()).or_insert(next_id);
            for link in links.0.iter().filter(|l| !l.nofollow) {
                let Some(target) = urls.resolve(&link.target) else { continue };
                if target == source_doc {
                    continue;
                }
                let next_id = ids.len() as u32;
                let target_id = *ids.entry(target.to_string()).or_insert(next_id);
                edges.push((target_id, source_id));
                let entry = inbound.entry(target.to_string()).or_default();
                let anchor = link.anchor.trim();
                if !anchor.is_empty()
                    && entry.anchors.len() < MAX_ANCHORS
                    && entry.anchor_bytes + anchor.len() <= MAX_ANCHOR_BYTES
                    && !entry.anchors.iter().any(|a| a == anchor)
                {
                    entry.anchor_bytes += anchor.len();
                    entry.anchors.push(anchor.to_string());
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let names: HashMap<u32, &String> = ids.iter().map(|(name, id)| (*id, name)).collect();
        for (target_id, _) in edges {
            if let Some(name) = names.get(&target_id) {
                inbound.entry((*name).clone()).or_default().count += 1;
            }
        }
        Ok(Self { inbound })
    }

    /// In-links of a document (none when nothing links to it).
    pub fn inbound(&self, url: &str) -> Inbound {
        self.inbound.get(url).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_follows_redirects_and_duplicates() {
        let mut map = UrlMap::default();
        map.representative.insert("http://a.test/x".into(), "http://a.test/x".into());
        map.representative.insert("http://a.test/copy-of-x".into(), "http://a.test/x".into());
        map.redirects.insert("http://a.test/old".into(), "http://a.test/copy-of-x".into());
        map.redirects.insert("http://a.test/loop1".into(), "http://a.test/loop2".into());
        map.redirects.insert("http://a.test/loop2".into(), "http://a.test/loop1".into());
        assert_eq!(map.resolve("http://a.test/old"), Some("http://a.test/x"));
        assert_eq!(map.resolve("http://a.test/loop1"), None);
        assert_eq!(map.resolve("http://a.test/unknown"), None);
    }
}
