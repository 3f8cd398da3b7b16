//! `DocPlan`: which stored pages become which documents of the index.
//!
//! The indexer builds its documents by this plan; `crawler explain` and `crawler report` read
//! it to say under which URL a copy is found. One rule, so the two never disagree.
//!
//! Every indexable page belongs to exactly one document. Pages form one group, and become ONE
//! document, when they have the same content hash, when the crawler marked one
//! `duplicate_of` the other, or when one names the other as its `rel=canonical` URL and that
//! page is itself indexable ("index me as that URL", even when the texts differ, as long as
//! both are on one origin: across sites a canonical only chooses among copies). A canonical
//! naming a page that is not stored, not indexable (`noindex`, a redirect, an error) or the
//! page itself changes nothing: a canonical to nowhere never makes a page vanish. Each page's
//! canonical is followed one hop, to its target and no further; the target's own canonical is
//! the target's own link. So A -> B -> C is one group (filed under C, the end of the chain),
//! A -> B -> A is one group, and A -> B -> (a `noindex` C) is one group of A and B.
//!
//! A group is filed under a member that members name as canonical: first one that names no
//! other member itself (the end of a chain), then the one most members name, then, as for a
//! group where no member names another, the shortest URL (ties: the lexicographically
//! smallest). Nothing depends on crawl order. `noindex` pages, redirects, non-2xx answers and
//! empty bodies become no document; a redirect still leads links on to its target (see
//! [`DocPlan::resolve`]), and a link to any member of a group counts for its document.

use std::collections::HashMap;

use crate::record::PageRecord;

/// What the indexer does with a stored page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageKind {
    /// A 2xx page with a body: it becomes a document (or joins one: a duplicate, or a page
    /// whose `rel=canonical` names a page of it).
    Indexable,
    /// A page that asked not to be indexed (robots META or `X-Robots-Tag`).
    NoIndex,
    /// A redirect, a non-2xx answer, a failed fetch or an empty body.
    Skipped,
}

impl PageKind {
    /// Classifies a stored page.
    pub fn of(page: &PageRecord) -> Self {
        if page.redirect_to.is_some() || page.error.is_some() || !page.is_html_page() {
            PageKind::Skipped
        } else if page.robots.noindex {
            PageKind::NoIndex
        } else {
            PageKind::Indexable
        }
    }
}

/// What the plan and the link graph need of a page: everything but its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageMeta {
    /// Canonical URL (the store key).
    pub url: String,
    /// What the indexer does with it.
    pub kind: PageKind,
    /// Hash of its normalized text (0: none).
    pub content_hash: u64,
    /// For a redirect: its target.
    pub redirect_to: Option<String>,
    /// The crawler found another page with the same text first.
    pub duplicate_of: Option<String>,
    /// The URL the page asks to be indexed as (`rel=canonical`; never its own).
    pub canonical: Option<String>,
    /// The page asked that its links not be followed or counted.
    pub nofollow: bool,
    /// The store's change number of its last write ([`PageRecord::change`]).
    pub change: u64,
}

impl PageMeta {
    /// A page of kind `kind` with content hash `content_hash` that names no other page (no
    /// redirect, canonical or duplicate mark) and lets its links count.
    pub fn new(url: &str, kind: PageKind, content_hash: u64) -> Self {
        Self {
            url: url.into(),
            kind,
            content_hash,
            redirect_to: None,
            duplicate_of: None,
            canonical: None,
            nofollow: false,
            change: 0,
        }
    }
}

impl From<&PageRecord> for PageMeta {
    fn from(page: &PageRecord) -> Self {
        Self {
            url: page.url.clone(),
            kind: PageKind::of(page),
            content_hash: page.content_hash,
            redirect_to: page.redirect_to.clone(),
            duplicate_of: page.duplicate_of.clone(),
            canonical: page.canonical.clone(),
            nofollow: page.robots.nofollow,
            change: page.change,
        }
    }
}

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

/// Copies of one document named in the index (a mirror with thousands of URLs names the
/// first ones, in URL order).
pub const MAX_COPIES: usize = 1_000;

/// The pages of the store and the documents they become.
pub struct DocPlan {
    ids: HashMap<String, PageId>,
    urls: Vec<String>,
    pages: Vec<Page>,
    /// Document -> the page whose URL and text it carries.
    docs: Vec<PageId>,
    /// Document -> the other pages folded into it (empty for most).
    copies: Vec<Vec<PageId>>,
    noindex: u64,
    duplicates: u64,
    skipped: u64,
}

impl DocPlan {
    /// Plans the documents of every page's metadata.
    pub fn new(metas: impl IntoIterator<Item = PageMeta>) -> Self {
        let mut metas: Vec<PageMeta> = metas.into_iter().collect();
        metas.sort_by(|a, b| a.url.cmp(&b.url));
        metas.dedup_by(|a, b| a.url == b.url);
        let ids: HashMap<String, PageId> = metas
            .iter()
            .enumerate()
            .map(|(i, m)| (m.url.clone(), i as PageId))
            .collect();

        let representative = representatives(&metas, &ids);
        // Documents numbered in the order of their URLs (pages are already in URL order).
        let mut reps: Vec<usize> = representative.iter().flatten().copied().collect();
        reps.sort_unstable();
        reps.dedup();
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
            copies: vec![Vec::new(); reps.len()],
            noindex: 0,
            duplicates: 0,
            skipped: 0,
        };
        for (i, (meta, rep)) in metas.iter().zip(&representative).enumerate() {
            // Every indexable page, and only those, has a representative.
            let role = match (rep, meta.kind) {
                (&Some(rep), _) => {
                    let doc = doc_of_rep[&rep];
                    if rep != i {
                        plan.duplicates += 1;
                        plan.copies[doc as usize].push(i as PageId);
                    }
                    Role::Doc(doc)
                }
                (None, PageKind::NoIndex) => {
                    plan.noindex += 1;
                    Role::NoIndex
                }
                (None, _) => {
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
        plan
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

    /// The URLs of the other pages folded into a document, at most [`MAX_COPIES`].
    pub fn copies(&self, doc: DocId) -> Vec<String> {
        self.copies[doc as usize]
            .iter()
            .take(MAX_COPIES)
            .map(|&page| self.urls[page as usize].clone())
            .collect()
    }

    /// The URL a document is filed under.
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

    /// Pages folded into another page's document: copies, and pages whose `rel=canonical`
    /// names a page of it.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// Redirects, non-2xx answers, failed fetches and empty bodies.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// `scheme://host:port` of a URL (the whole text when it has no path).
fn origin(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    url[after_scheme..]
        .find('/')
        .map_or(url, |end| &url[..after_scheme + end])
}

/// Groups the indexable pages (see the module docs): for each page, the page its group is
/// filed under (`None` for a page that is not indexable).
fn representatives(metas: &[PageMeta], ids: &HashMap<String, PageId>) -> Vec<Option<usize>> {
    let indexable = |i: usize| metas[i].kind == PageKind::Indexable;
    let stored = |url: Option<&str>| url.and_then(|url| ids.get(url)).map(|&p| p as usize);
    let mut groups = UnionFind::new(metas.len());
    let mut by_hash: HashMap<u64, usize> = HashMap::new();
    // The indexable page each page names as canonical, and how many name each page.
    let mut names: Vec<Option<usize>> = vec![None; metas.len()];
    let mut named_by = vec![0u32; metas.len()];
    for (i, meta) in metas.iter().enumerate().filter(|&(i, _)| indexable(i)) {
        if meta.content_hash != 0 {
            let first = *by_hash.entry(meta.content_hash).or_insert(i);
            groups.union(first, i);
        }
        if let Some(other) = stored(meta.duplicate_of.as_deref()).filter(|&o| indexable(o)) {
            groups.union(other, i);
        }
    }
    // Canonicals once the copies are grouped: a page may fold a different text into a page of
    // its own site, but across sites a canonical only picks among copies, so no site can
    // attach its pages (and the anchor texts pointing at them) to another site's page.
    for (i, meta) in metas.iter().enumerate().filter(|&(i, _)| indexable(i)) {
        let Some(target) = stored(meta.canonical.as_deref()).filter(|&t| t != i && indexable(t))
        else {
            continue;
        };
        if origin(&metas[target].url) != origin(&meta.url) && groups.find(target) != groups.find(i)
        {
            continue;
        }
        groups.union(target, i);
        names[i] = Some(target);
        named_by[target] += 1;
    }
    // Smaller is better: named by a member, naming no other member, named by more, shorter,
    // smaller.
    let rank = |i: usize| {
        let url = &metas[i].url;
        (
            named_by[i] == 0,
            names[i].is_some(),
            std::cmp::Reverse(named_by[i]),
            url.len(),
            url,
        )
    };
    let mut best: HashMap<usize, usize> = HashMap::new();
    for i in (0..metas.len()).filter(|&i| indexable(i)) {
        let best = best.entry(groups.find(i)).or_insert(i);
        if rank(i) < rank(*best) {
            *best = i;
        }
    }
    (0..metas.len())
        .map(|i| indexable(i).then(|| best[&groups.find(i)]))
        .collect()
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
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use super::*;

    fn meta(url: &str, kind: PageKind, hash: u64) -> PageMeta {
        PageMeta::new(url, kind, hash)
    }

    /// An indexable page with this content hash naming `canonical`.
    fn naming(url: &str, hash: u64, canonical: &str) -> PageMeta {
        PageMeta {
            canonical: Some(canonical.into()),
            ..meta(url, PageKind::Indexable, hash)
        }
    }

    /// The URL each page's document is filed under (`None`: no document), in input order.
    fn filed_under(p: &DocPlan, urls: &[&str]) -> Vec<Option<String>> {
        urls.iter()
            .map(|url| p.doc_of_page(url).map(|doc| p.doc_url(doc).to_string()))
            .collect()
    }

    fn page(url: &str, body: &str) -> PageRecord {
        PageRecord {
            url: url.into(),
            status: 200,
            body: crate::record::CompressedBody::compress(body),
            body_len: body.len() as u64,
            ..PageRecord::default()
        }
    }

    #[test]
    fn kinds() {
        let page = page("http://a.test/", "<p>x</p>");
        assert_eq!(PageKind::of(&page), PageKind::Indexable);

        let mut noindex = page.clone();
        noindex.robots.noindex = true;
        assert_eq!(PageKind::of(&noindex), PageKind::NoIndex);

        let mut missing = page.clone();
        missing.status = 404;
        assert_eq!(PageKind::of(&missing), PageKind::Skipped);

        let empty = PageRecord {
            body_len: 0,
            ..page.clone()
        };
        assert_eq!(PageKind::of(&empty), PageKind::Skipped);

        let mut redirect = empty;
        redirect.status = 301;
        redirect.redirect_to = Some("http://a.test/b".into());
        assert_eq!(PageKind::of(&redirect), PageKind::Skipped);
    }

    fn plan(metas: Vec<PageMeta>) -> DocPlan {
        DocPlan::new(metas)
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
        // Each document names the pages folded into it.
        assert_eq!(p.copies(0), ["http://a.test/index.html"]);
        assert_eq!(p.copies(1), ["http://a.test/b"]);
        assert!(p.copies(2).is_empty());
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
    fn a_duplicate_group_is_filed_under_its_canonical_target() {
        const LONG: &str = "http://a.test/article/long-canonical-name";
        let metas = vec![
            naming("http://a.test/a", 5, LONG),
            naming("http://a.test/print/a", 5, LONG),
            meta(LONG, PageKind::Indexable, 5),
            // Members disagree: the target more members name wins over a shorter one.
            naming("http://a.test/p1", 6, "http://a.test/voted"),
            naming("http://a.test/p2", 6, "http://a.test/voted"),
            naming("http://a.test/p3", 6, "http://a.test/s"),
            meta("http://a.test/voted", PageKind::Indexable, 6),
            meta("http://a.test/s", PageKind::Indexable, 6),
            // A tie: the shorter target.
            naming("http://a.test/t1", 7, "http://a.test/tie-bb"),
            naming("http://a.test/t2", 7, "http://a.test/tie-a"),
            meta("http://a.test/tie-bb", PageKind::Indexable, 7),
            meta("http://a.test/tie-a", PageKind::Indexable, 7),
        ];
        let mut reversed = metas.clone();
        reversed.reverse();
        let p = plan(metas);
        assert_eq!(p.num_docs(), 3);
        assert_eq!(p.duplicates(), 9);
        let urls: Vec<&str> = (0..3).map(|d| p.doc_url(d)).collect();
        assert_eq!(urls, [LONG, "http://a.test/tie-a", "http://a.test/voted"]);
        assert_eq!(p.resolve("http://a.test/a"), p.doc_of_representative(LONG));
        assert_eq!(p.doc_of_representative("http://a.test/a"), None);

        let again = plan(reversed);
        let urls_again: Vec<&str> = (0..3).map(|d| again.doc_url(d)).collect();
        assert_eq!(urls_again, urls, "input order changes nothing");
    }

    #[test]
    fn a_canonical_naming_another_indexable_page_joins_its_document() {
        let story = "http://a.test/story";
        let p = plan(vec![
            // Different text (another hash): joined all the same.
            naming("http://a.test/amp/story", 1, story),
            naming("http://a.test/m", 2, story),
            meta(story, PageKind::Indexable, 3),
            meta("http://a.test/other", PageKind::Indexable, 4),
        ]);
        assert_eq!(p.num_docs(), 2);
        assert_eq!(p.duplicates(), 2);
        assert_eq!(
            filed_under(&p, &["http://a.test/amp/story", "http://a.test/m", story]),
            vec![Some(story.to_string()); 3]
        );
        assert_eq!(p.resolve("http://a.test/m"), p.doc_of_representative(story));
        assert_eq!(p.source_key("http://a.test/m"), p.source_key(story));
    }

    #[test]
    fn a_canonical_to_nowhere_leaves_the_page_alone() {
        let mut redirect = meta("http://a.test/moved", PageKind::Skipped, 0);
        redirect.redirect_to = Some("http://a.test/target".into());
        let pages = [
            naming("http://a.test/1", 1, "http://a.test/never-stored"),
            naming("http://a.test/2", 2, "http://a.test/hidden"),
            naming("http://a.test/3", 3, "http://a.test/moved"),
            naming("http://a.test/4", 4, "http://a.test/error"),
            naming("http://a.test/5", 5, "not a url"),
        ];
        let urls: Vec<String> = pages.iter().map(|m| m.url.clone()).collect();
        let mut metas = pages.to_vec();
        metas.extend([
            meta("http://a.test/hidden", PageKind::NoIndex, 6),
            redirect,
            meta("http://a.test/error", PageKind::Skipped, 0),
            meta("http://a.test/target", PageKind::Indexable, 7),
        ]);
        let p = plan(metas);
        assert_eq!(p.num_docs(), 6);
        assert_eq!(p.duplicates(), 0);
        let own: Vec<Option<String>> = urls.iter().cloned().map(Some).collect();
        let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
        assert_eq!(filed_under(&p, &urls), own);
    }

    #[test]
    fn across_sites_a_canonical_only_chooses_among_copies() {
        let p = plan(vec![
            meta("http://victim.test/article", PageKind::Indexable, 1),
            // Another text claiming the victim's page: stays its own document.
            naming("http://evil.test/spam", 2, "http://victim.test/article"),
            // A copy naming the original: one document, under the original.
            naming("http://mirror.test/a", 1, "http://victim.test/article"),
        ]);
        assert_eq!(p.num_docs(), 2);
        assert_eq!(
            filed_under(&p, &["http://evil.test/spam", "http://mirror.test/a"]),
            [
                Some("http://evil.test/spam".to_string()),
                Some("http://victim.test/article".to_string())
            ]
        );
        assert_eq!(origin("http://a.test:8080/x/y"), "http://a.test:8080");
        assert_eq!(origin("http://a.test"), "http://a.test");
    }

    #[test]
    fn canonical_chains_and_loops_end() {
        let p = plan(vec![
            // A loop: one document, under the shorter URL of the two, not under their
            // shorter copy that nobody names.
            naming("http://a.test/loop-a", 1, "http://a.test/loop-bb"),
            naming("http://a.test/loop-bb", 2, "http://a.test/loop-a"),
            meta("http://a.test/l", PageKind::Indexable, 1),
            // A -> B -> C: filed under C, the end of the chain, though B is named as often.
            naming("http://a.test/ch-a", 3, "http://a.test/ch-b"),
            naming("http://a.test/ch-b", 4, "http://a.test/chain-end-c"),
            meta("http://a.test/chain-end-c", PageKind::Indexable, 5),
            // A -> B -> noindex: B is a document, A joins it; the noindex page stays out.
            naming("http://a.test/x-a", 6, "http://a.test/x-b"),
            naming("http://a.test/x-b", 7, "http://a.test/x-hidden"),
            meta("http://a.test/x-hidden", PageKind::NoIndex, 8),
        ]);
        assert_eq!(p.num_docs(), 3);
        assert_eq!(p.duplicates(), 5);
        assert_eq!(
            filed_under(
                &p,
                &[
                    "http://a.test/l",
                    "http://a.test/loop-bb",
                    "http://a.test/ch-a",
                    "http://a.test/ch-b",
                    "http://a.test/x-a",
                    "http://a.test/x-hidden",
                ]
            ),
            [
                Some("http://a.test/loop-a"),
                Some("http://a.test/loop-a"),
                Some("http://a.test/chain-end-c"),
                Some("http://a.test/chain-end-c"),
                Some("http://a.test/x-b"),
                None,
            ]
            .map(|url| url.map(String::from))
        );
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
