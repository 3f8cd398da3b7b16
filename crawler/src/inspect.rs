//! `crawler status`, `crawler report` and `crawler explain`: what a crawl did, read from the
//! store (read-only, so a running crawl is not disturbed), or from every partition's store
//! of a distributed crawl ([`CrawlStores`]): figures summed, a URL looked up in its host's
//! partition, copies and in-links read across partitions.
//!
//! Which URL the index keeps for a set of copies comes from [`DocPlan`], the plan the indexer
//! builds its documents by, so these answers agree with the index (and with searchd's
//! `/explain`) about which copy stands for the others.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use anyhow::Result;
use shared::docplan::{DocPlan, PageMeta};
use shared::record::{FetchHistory, RobotsDirectives, RobotsFetch};
use shared::{CanonicalUrl, PageRecord, StoreReader, format_time_ms};

mod language;
mod rendered;
mod stores;

pub use stores::CrawlStores;
use stores::Holding;

/// Anchor texts shown by `crawler explain`.
const EXPLAIN_ANCHORS: usize = 10;

/// The plan of every stored page's document (a scan of the pages of every store: copies
/// cross partitions, as the indexer's plan does).
fn plan(crawl: &CrawlStores) -> Result<DocPlan> {
    let mut metas = Vec::new();
    for store in crawl.stores() {
        for page in store.pages() {
            metas.push(PageMeta::from(&page?));
        }
    }
    Ok(DocPlan::new(metas))
}

/// Where the index will find a stored page, by the plan.
enum IndexFate {
    /// It is a document's page: the index files the content under its URL.
    Kept {
        /// Other pages folded into it (first ones, in URL order).
        copies: Vec<String>,
    },
    /// It is a copy: the index files its content under another URL.
    FoundAs(String),
    /// It becomes no document; why.
    NotIndexed(String),
}

fn fate(plan: &DocPlan, page: &PageRecord) -> IndexFate {
    match plan.doc_of_page(&page.url) {
        Some(doc) if plan.doc_url(doc) == page.url => IndexFate::Kept {
            copies: plan.copies(doc),
        },
        Some(doc) => IndexFate::FoundAs(plan.doc_url(doc).to_string()),
        None => IndexFate::NotIndexed(
            not_indexed_reason(page).unwrap_or_else(|| "no indexable text".into()),
        ),
    }
}

/// Why a stored page becomes no document, if it does not.
fn not_indexed_reason(page: &PageRecord) -> Option<String> {
    if let Some(error) = &page.error {
        return Some(format!("fetch failed: {error}"));
    }
    if let Some(target) = &page.redirect_to {
        return Some(format!("redirect {} to {target}", page.status));
    }
    if !(200..300).contains(&page.status) {
        return Some(format!("status {}", page.status));
    }
    if page.body_len == 0 {
        return Some("not an HTML page (or empty)".into());
    }
    if page.robots.noindex {
        return Some(format!(
            "robots noindex ({})",
            source(page.robots_header.noindex)
        ));
    }
    None
}

/// Where a directive the page carries came from.
fn source(in_header: bool) -> &'static str {
    if in_header {
        "X-Robots-Tag header"
    } else {
        "robots META tag"
    }
}

/// The page's published and modified dates, each with where it was read.
fn dates(page: &PageRecord, out: &mut impl Write) -> Result<()> {
    let dates = page.page_dates();
    for (name, date) in [("published", dates.published), ("modified", dates.modified)] {
        match date {
            Some(date) => writeln!(out, "  {name}: {} ({})", date.day(), date.source.describe())?,
            None => writeln!(out, "  {name}: no date found")?,
        }
    }
    if page.dates.is_none() {
        writeln!(
            out,
            "  (stored before the crawler read pages' own dates: these are its URL's and \
             headers'; fetched again, it gets them)"
        )?;
    }
    Ok(())
}

/// The page's robots directives with where each came from: `noindex (robots META tag),
/// noarchive (X-Robots-Tag header)`, or `none`.
fn directives(robots: RobotsDirectives, header: RobotsDirectives) -> String {
    let named = [
        ("noindex", robots.noindex, header.noindex),
        ("nofollow", robots.nofollow, header.nofollow),
        ("noarchive", robots.noarchive, header.noarchive),
        ("nosnippet", robots.nosnippet, header.nosnippet),
    ];
    let said: Vec<String> = named
        .iter()
        .filter(|(_, set, _)| *set)
        .map(|(name, _, in_header)| format!("{name} ({})", source(*in_header)))
        .collect();
    if said.is_empty() {
        "none".into()
    } else {
        said.join(", ")
    }
}

/// `crawler status`: pages, frontier, hosts, errors by kind, duplicates, URLs not fetched by
/// reason, trap cut-offs, halted hosts with why; over every partition's store, summed, with
/// each partition's pages and frontier and the partitions this directory lacks.
pub fn status(crawl: &CrawlStores, json: bool, out: &mut impl Write) -> Result<()> {
    let mut all = Figures::default();
    let mut by_partition = Vec::new();
    for part in crawl.parts() {
        let figures = Figures::of(&part.store)?;
        if let Some(id) = part.partition {
            by_partition.push((id, figures.pages_stored, figures.frontier));
        }
        all.add(figures);
    }
    let absent = crawl.absent();
    if json {
        let mut value = serde_json::json!({
            "pages_stored": all.pages_stored,
            "frontier": all.frontier,
            "hosts": all.hosts.len(),
            "errors": all.errors,
            "duplicates": all.duplicates,
            "not_fetched": all.not_fetched,
            "traps": all.traps,
            "store_change": all.page_writes,
            "halted_hosts": all.halted.iter().map(|(origin, _)| origin).collect::<Vec<_>>(),
            "halted": all
                .halted
                .iter()
                .map(|(origin, why)| serde_json::json!({"origin": origin, "why": why}))
                .collect::<Vec<_>>(),
        });
        if crawl.is_partitioned() {
            value["partitions"] = serde_json::json!(
                by_partition
                    .iter()
                    .map(|(id, pages, frontier)| serde_json::json!({
                        "partition": id.dir_name(),
                        "pages_stored": pages,
                        "frontier": frontier,
                    }))
                    .collect::<Vec<_>>()
            );
            value["partitions_absent"] =
                serde_json::json!(absent.iter().map(|id| id.dir_name()).collect::<Vec<_>>());
        }
        writeln!(out, "{value}")?;
        return Ok(());
    }
    if crawl.is_partitioned() {
        writeln!(
            out,
            "partitions:   {} in this directory",
            by_partition.len()
        )?;
    }
    writeln!(
        out,
        "pages stored: {}\nfrontier:     {}\nhosts:        {}\nduplicates:   {}\npage writes:  {}",
        all.pages_stored,
        all.frontier,
        all.hosts.len(),
        all.duplicates,
        all.page_writes
    )?;
    for (kind, n) in &all.errors {
        writeln!(out, "errors {kind}: {n}")?;
    }
    for (kind, n) in &all.not_fetched {
        writeln!(out, "not fetched ({kind}): {n}")?;
    }
    for (rule, n) in &all.traps {
        writeln!(out, "links cut off by the trap rule {rule}: {n}")?;
    }
    for (origin, why) in &all.halted {
        writeln!(
            out,
            "halted {origin}: {why} (`crawler resume --data DIR {origin}` lifts it)"
        )?;
    }
    for (id, pages, frontier) in &by_partition {
        writeln!(
            out,
            "{id}: {pages} pages stored, {frontier} in its frontier"
        )?;
    }
    if !absent.is_empty() {
        let names: Vec<String> = absent.iter().map(|id| id.dir_name()).collect();
        writeln!(
            out,
            "not in this directory ({} of the crawl's partitions, not counted above): {}",
            names.len(),
            names.join(", ")
        )?;
    }
    Ok(())
}

/// The figures `crawler status` shows, of one store or summed over several.
#[derive(Default)]
struct Figures {
    pages_stored: u64,
    frontier: u64,
    /// Origins with a stored page (a host is in one partition only, so a union is a sum).
    hosts: BTreeSet<String>,
    errors: BTreeMap<String, u64>,
    duplicates: u64,
    not_fetched: BTreeMap<&'static str, u64>,
    traps: BTreeMap<String, u64>,
    /// Page writes: each store's last change number, summed.
    page_writes: u64,
    halted: Vec<(String, String)>,
}

impl Figures {
    /// One store's figures (a scan of its pages and of the URLs kept out).
    fn of(store: &StoreReader) -> Result<Self> {
        let counters = store.counters()?;
        let mut figures = Self {
            pages_stored: counters.pages_stored,
            frontier: store.frontier_len() as u64,
            traps: counters.trapped.clone(),
            page_writes: counters.last_change(),
            halted: store.halted_hosts()?,
            ..Self::default()
        };
        for page in store.pages() {
            let page = page?;
            if let Ok(url) = CanonicalUrl::parse(&page.url) {
                figures.hosts.insert(url.origin());
            }
            figures.duplicates += u64::from(page.duplicate_of.is_some());
            let kind = match (&page.error, page.status) {
                (Some(error), _) => Some(error.split(':').next().unwrap_or("error").to_string()),
                (None, 400..=499) => Some("http_4xx".into()),
                (None, 500..) => Some("http_5xx".into()),
                _ => None,
            };
            if let Some(kind) = kind {
                *figures.errors.entry(kind).or_default() += 1;
            }
        }
        for skipped in store.all_skipped() {
            let (_, record) = skipped?;
            *figures.not_fetched.entry(record.reason.kind()).or_default() += 1;
        }
        Ok(figures)
    }

    /// Adds another store's figures to these.
    fn add(&mut self, other: Self) {
        self.pages_stored += other.pages_stored;
        self.frontier += other.frontier;
        self.hosts.extend(other.hosts);
        for (kind, n) in other.errors {
            *self.errors.entry(kind).or_default() += n;
        }
        self.duplicates += other.duplicates;
        for (kind, n) in other.not_fetched {
            *self.not_fetched.entry(kind).or_default() += n;
        }
        for (rule, n) in other.traps {
            *self.traps.entry(rule).or_default() += n;
        }
        self.page_writes += other.page_writes;
        self.halted.extend(other.halted);
    }
}

/// `crawler report`: every URL that is stored but not indexed under its own URL, or was
/// never fetched, with why; one line each (tab-separated, or JSON lines).
pub fn report(crawl: &CrawlStores, json: bool, out: &mut impl Write) -> Result<()> {
    let plan = plan(crawl)?;
    let mut line = |url: &str, reason: &str| {
        if json {
            writeln!(out, "{}", serde_json::json!({"url": url, "reason": reason}))
        } else {
            writeln!(out, "{url}\t{reason}")
        }
    };
    for store in crawl.stores() {
        for page in store.pages() {
            let page = page?;
            match fate(&plan, &page) {
                IndexFate::Kept { .. } => {}
                IndexFate::FoundAs(kept) => line(
                    &page.url,
                    &format!("found as {kept}: the one URL the index keeps for this content"),
                )?,
                IndexFate::NotIndexed(reason) => line(&page.url, &reason)?,
            }
        }
        for skipped in store.all_skipped() {
            let (url, record) = skipped?;
            line(&url, &format!("not fetched: {}", record.reason))?;
        }
    }
    Ok(())
}

/// What a stored image or PDF was read to be, in one line.
fn media_line(kind: shared::ContentKind, media: &shared::record::MediaRecord) -> String {
    use shared::record::MediaRecord;
    match media {
        MediaRecord::Image(image) => {
            let mut line = format!(
                "{kind}: {} {} x {}, {}",
                image.format,
                image.width,
                image.height,
                crate::fetch::byte_size(image.bytes)
            );
            if let Some(quality) = image.jpeg_quality {
                line.push_str(&format!(", JPEG quality {quality}"));
            }
            line.push_str(if image.thumbnail {
                ", thumbnail stored"
            } else {
                ", no thumbnail"
            });
            if let Some(problem) = &image.problem {
                line.push_str(&format!(" ({problem})"));
            }
            line
        }
        MediaRecord::Pdf(pdf) => {
            let mut line = format!("{kind}: {}", pdf.status.describe());
            if let Some(problem) = &pdf.problem {
                line.push_str(&format!(" ({problem})"));
            }
            if pdf.pages > 0 {
                line.push_str(&format!(", {} pages", pdf.pages));
            }
            if pdf.text_truncated {
                line.push_str(", text cut at the cap");
            }
            line
        }
    }
}

/// `crawler explain URL`: why a URL was or was not fetched and indexed, its fetch history,
/// its robots directives and where they came from, what an image or PDF was read
/// to be, what rendering it in a browser found (its links and text beside the static
/// page's), the language the index gave it, and the pages and texts linking to it. A
/// partitioned crawl's URL is read from its host's partition.
pub fn explain(crawl: &CrawlStores, url: &str, out: &mut impl Write) -> Result<()> {
    let canonical = CanonicalUrl::parse(url)?;
    let part = match crawl.holding(&canonical)? {
        Holding::Here(part) => part,
        Holding::Elsewhere(id) => {
            writeln!(
                out,
                "{canonical}: in partition {id} of the crawl, which this directory does not hold"
            )?;
            return Ok(());
        }
    };
    let store = &part.store;
    let Some(page) = store.page(canonical.as_str())? else {
        match store.skipped(canonical.as_str())? {
            Some(skipped) => writeln!(
                out,
                "{canonical}: not fetched: {} (decided at {})",
                skipped.reason,
                format_time_ms(skipped.at_ms)
            )?,
            None => writeln!(
                out,
                "{canonical}: not stored (not yet fetched, or out of scope)"
            )?,
        }
        return inlinks(crawl, &canonical, out);
    };
    writeln!(out, "{canonical}")?;
    writeln!(
        out,
        "  status {} at depth {}, fetched at {}",
        page.status,
        page.depth,
        format_time_ms(page.fetched_at_ms)
    )?;
    if let Some(error) = &page.error {
        writeln!(out, "  fetch failed: {error}")?;
    }
    if page.truncated {
        writeln!(
            out,
            "  body cut at {} (the body limit): the rest was not read",
            crate::fetch::byte_size(page.body_len)
        )?;
    }
    writeln!(out, "  title: {:?}", page.title)?;
    dates(&page, out)?;
    if let Some(media) = store.media(canonical.as_str())? {
        writeln!(out, "  {}", media_line(page.kind, &media))?;
    }
    if let Some(render) = store.rendered(canonical.as_str())? {
        rendered::explain_render(&page, &canonical, &render, out)?;
    }
    writeln!(
        out,
        "  robots directives: {}",
        directives(page.robots, page.robots_header)
    )?;
    match fate(&plan(crawl)?, &page) {
        IndexFate::Kept { copies } if copies.is_empty() => {
            writeln!(out, "  index: filed under this URL")?
        }
        IndexFate::Kept { copies } => writeln!(
            out,
            "  index: filed under this URL, with {} copies folded in: {}",
            copies.len(),
            copies.join(", ")
        )?,
        IndexFate::FoundAs(kept) => writeln!(
            out,
            "  index: not on its own: found as {kept}, the one URL kept for this content \
             (its rel=canonical target, else the shortest URL)"
        )?,
        IndexFate::NotIndexed(reason) => writeln!(out, "  not indexed: {reason}")?,
    }
    history(&store.history(canonical.as_str())?, out)?;
    if !page.aliases.is_empty() {
        writeln!(
            out,
            "  reached by redirects from: {}",
            page.aliases.join(" -> ")
        )?;
    }
    if let Some(target) = &page.canonical {
        writeln!(out, "  rel=canonical: {target}")?;
    }
    if let Some(revisit) = store.revisit(canonical.as_str())? {
        let now = shared::now_ms();
        let due = if revisit.due_ms <= now {
            "due now".to_string()
        } else {
            format!("due in {}", whole_seconds(revisit.due_ms - now))
        };
        writeln!(
            out,
            "  next visit: {due} (interval {}; {} visits, {} with changes)",
            whole_seconds(revisit.interval_ms),
            revisit.visits,
            revisit.changes
        )?;
    }
    if let Some(robots) = store.robots(&canonical.origin())? {
        let answer = match robots.fetch {
            RobotsFetch::Rules(_) => "rules",
            RobotsFetch::NoRules => "no rules (4xx)",
            RobotsFetch::Forbidden => "the whole site forbidden (401/403)",
        };
        writeln!(
            out,
            "  robots.txt of {}: {answer}, cached until {}",
            canonical.origin(),
            format_time_ms(robots.expires_at_ms)
        )?;
    }
    inlinks(crawl, &canonical, out)?;
    language::explain_language(&part.data, &canonical, out)
}

/// A duration in ms, shown to the second.
fn whole_seconds(ms: u64) -> humantime::FormattedDuration {
    humantime::format_duration(std::time::Duration::from_secs(ms / 1000))
}

/// The fetches of a URL, oldest first, each with its status and whether the text changed.
fn history(history: &FetchHistory, out: &mut impl Write) -> Result<()> {
    if history.0.is_empty() {
        return Ok(());
    }
    writeln!(out, "  fetches (oldest first):")?;
    let mut previous_hash = None;
    for event in &history.0 {
        let what = match (&event.error, event.status) {
            (Some(error), _) => format!("failed: {error}"),
            (None, 304) => "304 not modified".to_string(),
            (None, status) => {
                let text = match (previous_hash, event.content_hash) {
                    (_, 0) => "",
                    (None, _) => "",
                    (Some(before), now) if before == now => ", same text",
                    (Some(_), _) => ", text changed",
                };
                format!("{status}{text}")
            }
        };
        if event.content_hash != 0 {
            previous_hash = Some(event.content_hash);
        }
        writeln!(out, "    {} {what}", format_time_ms(event.at_ms))?;
    }
    Ok(())
}

/// The pages that link to `url` (followed links, not its own) and the texts they link with,
/// from every store.
fn inlinks(crawl: &CrawlStores, url: &CanonicalUrl, out: &mut impl Write) -> Result<()> {
    let mut sources = BTreeSet::new();
    let mut anchors = BTreeMap::<String, u64>::new();
    let outlinks = crawl
        .stores()
        .flat_map(|store| store.all_outlinks().filter_map(Result::ok));
    for (source, links) in outlinks {
        if source == url.as_str() {
            continue;
        }
        let mut linked = false;
        for link in links
            .0
            .iter()
            .filter(|l| l.target == url.as_str() && !l.nofollow)
        {
            linked = true;
            if !link.anchor.is_empty() {
                *anchors.entry(link.anchor.clone()).or_default() += 1;
            }
        }
        if linked {
            sources.insert(source);
        }
    }
    writeln!(out, "  in-links from {} pages", sources.len())?;
    let mut anchors: Vec<(String, u64)> = anchors.into_iter().collect();
    anchors.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (anchor, pages) in anchors.iter().take(EXPLAIN_ANCHORS) {
        writeln!(out, "    {anchor:?} ({pages} links)")?;
    }
    Ok(())
}
