//! `DocPlan`: which stored pages become which documents.
//!
//! Every indexable page belongs to exactly one document. Pages with the same content hash,
//! or that the crawler marked `duplicate_of` one another, form one group and become ONE
//! document, filed under the group's shortest URL (ties: the lexicographically smallest), so
//! the choice does not depend on crawl order. `noindex` pages, redirects, non-2xx answers and
//! empty bodies become no document; a redirect still leads links on to its target (see
//! [`DocPlan::resolve`]).

use std::collections::HashMap;

use crate::Error;
use crate::source::{PageKind, PageMeta};

/// Redirect hops followed when resolving a link target.
pub const MAX_REDIRECT_HOPS: usize = 5;

/// A document's number: documents are numbered in the order of their URLs.
pub type DocId = u32;

/// Index of a page in the plan (pages are numbered in URL order).
pub type PageId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The page is (one copy of) this document.
    Doc(DocId),
    /// A `noindex` page.
    NoIndex,
    /// A redirect, a non-2xx answer or an empty body.
    Skipped,
}

struct Page {
    role: Role,
    /// Its redirect target, when that target is a stored page.
    redirect: Option<PageId>,
    nofollow: bool,
}

/// The pages of the store and the documents they become.
pub struct DocPlan {
    ids: HashMap<String, PageId>,
    urls: Vec<String>,
    pages: Vec<Page>,
    /// Document -> the page whose URL and text it carries.
    docs: Vec<PageId>,
    noindex: u64,
    duplicates: u64,
    skipped: u64,
}

impl DocPlan {
    /// Plans the documents of every page's metadata.
    pub fn new(metas: impl IntoIterator<Item = Result<PageMeta, Error>>) -> Result<Self, Error> {
        let mut metas: Vec<PageMeta> = metas.into_iter().collect::<Result<_, _>>()?;
        metas.sort_by(|a, b| a.url.cmp(&b.url));
        metas.dedup_by(|a, b| a.url == b.url);
        let ids: HashMap<String, PageId> = metas
            .iter()
            .enumerate()
            .map(|(i, m)| (m.url.clone(), i as PageId))
            .collect();

        // Group the indexable pages: same content hash, or marked duplicate of one another.
        let mut groups = UnionFind::new(metas.len());
        let mut by_hash: HashMap<u64, usize> = HashMap::new();
        for (i, meta) in metas.iter().enumerate() {
            if meta.kind != PageKind::Indexable {
                continue;
            }
            if meta.content_hash != 0 {
                let first = *by_hash.entry(meta.content_hash).or_insert(i);
                groups.union(first, i);
            }
            if let Some(&other) = meta.duplicate_of.as_ref().and_then(|url| ids.get(url))
                && metas[other as usize].kind == PageKind::Indexable
            {
                groups.union(other as usize, i);
            }
        }
        // The representative of each group: shortest URL, then smallest.
        let mut representative: HashMap<usize, usize> = HashMap::new();
        for (i, meta) in metas
            .iter()
            .enumerate()
            .filter(|(_, m)| m.kind == PageKind::Indexable)
        {
            let best = representative.entry(groups.find(i)).or_insert(i);
            let current = &metas[*best].url;
            if (meta.url.len(), &meta.url) < (current.len(), current) {
                *best = i;
            }
        }
        // Documents numbered in the order of their URLs (pages are already in URL order).
        let mut reps: Vec<usize> = representative.values().copied().collect();
        reps.sort_unstable();
        let doc_of_rep: HashMap<usize, DocId> = reps
            .iter()
            .enumerate()
            .map(|(d, &p)| (p, d as DocId))
            .collect();

        let mut plan = DocPlan {
            ids,
            urls: Vec::with_capacity(metas.len()),
            pages: Vec::with_capacity(metas.len()),
            docs: reps.iter().map(|&p| p as PageId).collect(),
            noindex: 0,
            duplicates: 0,
            skipped: 0,
        };
        for (i, meta) in metas.iter().enumerate() {
            let role = match meta.kind {
                PageKind::Indexable => {
                    let rep = representative[&groups.find(i)];
                    if rep != i {
                        plan.duplicates += 1;
                    }
                    Role::Doc(doc_of_rep[&rep])
                }
                PageKind::NoIndex => {
                    plan.noindex += 1;
                    Role::NoIndex
                }
                PageKind::Skipped => {
                    plan.skipped += 1;
                    Role::Skipped
                }
            };
            let redirect = meta
                .redirect_to
                .as_ref()
                .and_then(|url| plan.ids.get(url))
                .copied();
            plan.pages.push(Page {
                role,
                redirect,
                nofollow: meta.nofollow,
            });
        }
        plan.urls = metas.into_iter().map(|m| m.url).collect();
        Ok(plan)
    }

    /// Number of documents.
    pub fn num_docs(&self) -> usize {
        self.docs.len()
    }

    /// Number of stored pages (documents or not): the nodes of the link graph.
    pub fn num_pages(&self) -> usize {
        self.pages.len()
    }

    /// The page a document is filed under: its node in the link graph, the key
    /// [`DocPlan::source_key`] gives for its links.
    pub fn doc_page(&self, doc: DocId) -> u32 {
        self.docs[doc as usize]
    }

    /// The URL a document is filed under.
    #[cfg(test)]
    pub fn doc_url(&self, doc: DocId) -> &str {
        &self.urls[self.docs[doc as usize] as usize]
    }

    /// The document whose text `url` carries: `Some` only for a document's chosen page.
    pub fn doc_of_representative(&self, url: &str) -> Option<DocId> {
        let page = *self.ids.get(url)?;
        match self.pages[page as usize].role {
            Role::Doc(doc) if self.docs[doc as usize] == page => Some(doc),
            _ => None,
        }
    }

    /// The document a link to `url` counts for: through up to [`MAX_REDIRECT_HOPS`]
    /// redirects (a loop ends the search), and from any copy to its document.
    pub fn resolve(&self, url: &str) -> Option<DocId> {
        let mut page = *self.ids.get(url)?;
        for _ in 0..=MAX_REDIRECT_HOPS {
            let entry = &self.pages[page as usize];
            match (entry.role, entry.redirect) {
                (Role::Doc(doc), _) => return Some(doc),
                (_, Some(next)) => page = next,
                (_, None) => return None,
            }
        }
        None
    }

    /// Who a link comes from, for counting distinct sources: all copies of one document are
    /// one source. `None` for a URL that is not a stored page.
    pub fn source_key(&self, url: &str) -> Option<u32> {
        let page = *self.ids.get(url)?;
        Some(match self.pages[page as usize].role {
            Role::Doc(doc) => self.docs[doc as usize],
            _ => page,
        })
    }

    /// Whether the page at `url` asked that its links not be counted.
    pub fn is_nofollow(&self, url: &str) -> bool {
        self.ids
            .get(url)
            .is_some_and(|&page| self.pages[page as usize].nofollow)
    }

    /// The document a page belongs to, if any.
    pub fn doc_of_page(&self, url: &str) -> Option<DocId> {
        match self.pages[*self.ids.get(url)? as usize].role {
            Role::Doc(doc) => Some(doc),
            _ => None,
        }
    }

    /// `noindex` pages.
    pub fn noindex(&self) -> u64 {
        self.noindex
    }

    /// Pages that are copies of another page's document.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// Redirects, non-2xx answers, failed fetches and empty bodies.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// Disjoint sets over `0..n`, smallest member as the root so results never depend on order.
struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> Self {
        Self((0..n).collect())
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.0[i] != i {
            self.0[i] = self.0[self.0[i]];
            i = self.0[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        let (low, high) = (a.min(b), a.max(b));
        self.0[high] = low;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use super::*;

    pub(crate) fn meta(url: &str, kind: PageKind, hash: u64) -> PageMeta {
        PageMeta {
            url: url.into(),
            kind,
            content_hash: hash,
            redirect_to: None,
            duplicate_of: None,
            nofollow: false,
        }
    }

    fn plan(metas: Vec<PageMeta>) -> DocPlan {
        DocPlan::new(metas.into_iter().map(Ok)).unwrap()
    }

    #[test]
    fn duplicates_collapse_to_the_shortest_url() {
        let p = plan(vec![
            meta("http://a.test/index.html", PageKind::Indexable, 7),
            meta("http://a.test/", PageKind::Indexable, 7),
            meta("http://a.test/b", PageKind::Indexable, 8),
            meta("http://a.test/a", PageKind::Indexable, 8),
            meta("http://a.test/other", PageKind::Indexable, 9),
        ]);
        // Three groups: {/, /index.html}, {/a, /b} (same length: /a is smaller), {/other}.
        assert_eq!(p.num_docs(), 3);
        assert_eq!(p.duplicates(), 2);
        assert_eq!(
            p.doc_of_representative("http://a.test/"),
            p.resolve("http://a.test/index.html")
        );
        assert_eq!(p.doc_of_representative("http://a.test/index.html"), None);
        assert!(p.doc_of_representative("http://a.test/a").is_some());
        assert_eq!(p.doc_of_representative("http://a.test/b"), None);
        let urls: Vec<&str> = (0..3).map(|d| p.doc_url(d)).collect();
        assert_eq!(
            urls,
            ["http://a.test/", "http://a.test/a", "http://a.test/other"]
        );
    }

    #[test]
    fn duplicate_of_joins_groups_and_noindex_pages_stay_out() {
        let mut copy = meta("http://a.test/copy", PageKind::Indexable, 2);
        copy.duplicate_of = Some("http://a.test/original-page".into());
        let p = plan(vec![
            meta("http://a.test/original-page", PageKind::Indexable, 1),
            copy,
            meta("http://a.test/n", PageKind::NoIndex, 1),
            meta("http://a.test/gone", PageKind::Skipped, 0),
        ]);
        assert_eq!(p.num_docs(), 1);
        assert_eq!(p.doc_url(0), "http://a.test/copy");
        assert_eq!((p.noindex(), p.duplicates(), p.skipped()), (1, 1, 1));
        assert_eq!(p.resolve("http://a.test/n"), None);
    }

    #[test]
    fn redirects_resolve_to_their_target_and_loops_end() {
        let mut r1 = meta("http://a.test/r1", PageKind::Skipped, 0);
        r1.redirect_to = Some("http://a.test/r2".into());
        let mut r2 = meta("http://a.test/r2", PageKind::Skipped, 0);
        r2.redirect_to = Some("http://a.test/page".into());
        let mut l1 = meta("http://a.test/l1", PageKind::Skipped, 0);
        l1.redirect_to = Some("http://a.test/l2".into());
        let mut l2 = meta("http://a.test/l2", PageKind::Skipped, 0);
        l2.redirect_to = Some("http://a.test/l1".into());
        let p = plan(vec![
            meta("http://a.test/page", PageKind::Indexable, 1),
            r1,
            r2,
            l1,
            l2,
        ]);
        assert_eq!(p.resolve("http://a.test/r1"), Some(0));
        assert_eq!(p.resolve("http://a.test/l1"), None);
        assert_eq!(p.resolve("http://a.test/never-stored"), None);
    }

    #[test]
    fn too_many_hops_resolve_to_nothing() {
        // /h0 -> /h1 -> ... -> /h6 -> /page: 7 hops, over the limit of 5.
        let mut metas = vec![meta("http://a.test/page", PageKind::Indexable, 1)];
        for i in 0..7 {
            let mut hop = meta(&format!("http://a.test/h{i}"), PageKind::Skipped, 0);
            hop.redirect_to = Some(if i == 6 {
                "http://a.test/page".into()
            } else {
                format!("http://a.test/h{}", i + 1)
            });
            metas.push(hop);
        }
        let p = plan(metas);
        assert_eq!(p.resolve("http://a.test/h0"), None, "7 hops");
        assert_eq!(p.resolve("http://a.test/h2"), Some(0), "5 hops");
    }
}
