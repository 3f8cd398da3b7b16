//! `crawler status`, `crawler report` and `crawler explain`: what a crawl did, read from the
//! store (read-only, so a running crawl is not disturbed).
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

pub use language::explain_language;

/// Anchor texts shown by `crawler explain`.
const EXPLAIN_ANCHORS: usize = 10;

/// The plan of every stored page's document (a scan of the pages).
fn plan(store: &StoreReader) -> Result<DocPlan> {
    let metas: Vec<PageMeta> = store
        .pages()
        .map(|page| page.map(|page| PageMeta::from(&page)))
        .collect::<Result<_, _>>()?;
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
/// reason, trap cut-offs, halted hosts with why.
pub fn status(store: &StoreReader, json: bool, out: &mut impl Write) -> Result<()> {
    let counters = store.counters()?;
    let mut hosts = BTreeSet::new();
    let mut errors = BTreeMap::<String, u64>::new();
    let mut duplicates = 0u64;
    for page in store.pages() {
        let page = page?;
        if let Ok(url) = CanonicalUrl::parse(&page.url) {
            hosts.insert(url.origin());
        }
        duplicates += u64::from(page.duplicate_of.is_some());
        let kind = match (&page.error, page.status) {
            (Some(error), _) => Some(error.split(':').next().unwrap_or("error").to_string()),
            (None, 400..=499) => Some("http_4xx".into()),
            (None, 500..) => Some("http_5xx".into()),
            _ => None,
        };
        if let Some(kind) = kind {
            *errors.entry(kind).or_default() += 1;
        }
    }
    let mut not_fetched = BTreeMap::<&str, u64>::new();
    for skipped in store.all_skipped() {
        let (_, record) = skipped?;
        *not_fetched.entry(record.reason.kind()).or_default() += 1;
    }
    let frontier = store.frontier_len();
    let halted = store.halted_hosts()?;
    if json {
        let value = serde_json::json!({
            "pages_stored": counters.pages_stored,
            "frontier": frontier,
            "hosts": hosts.len(),
            "errors": errors,
            "duplicates": duplicates,
            "not_fetched": not_fetched,
            "traps": counters.trapped,
            "store_change": counters.last_change(),
            "halted_hosts": halted.iter().map(|(origin, _)| origin).collect::<Vec<_>>(),
            "halted": halted
                .iter()
                .map(|(origin, why)| serde_json::json!({"origin": origin, "why": why}))
                .collect::<Vec<_>>(),
        });
        writeln!(out, "{value}")?;
        return Ok(());
    }
    writeln!(
        out,
        "pages stored: {}\nfrontier:     {frontier}\nhosts:        {}\nduplicates:   {duplicates}\npage writes:  {}",
        counters.pages_stored,
        hosts.len(),
        counters.last_change()
    )?;
    for (kind, n) in errors {
        writeln!(out, "errors {kind}: {n}")?;
    }
    for (kind, n) in not_fetched {
        writeln!(out, "not fetched ({kind}): {n}")?;
    }
    for (rule, n) in &counters.trapped {
        writeln!(out, "links cut off by the trap rule {rule}: {n}")?;
    }
    for (origin, why) in &halted {
        writeln!(
            out,
            "halted {origin}: {why} (`crawler resume --data DIR {origin}` lifts it)"
        )?;
    }
    Ok(())
}

/// `crawler report`: every URL that is stored but not indexed under its own URL, or was
/// never fetched, with why; one line each (tab-separated, or JSON lines).
pub fn report(store: &StoreReader, json: bool, out: &mut impl Write) -> Result<()> {
    let plan = plan(store)?;
    let mut line = |url: &str, reason: &str| {
        if json {
            writeln!(out, "{}", serde_json::json!({"url": url, "reason": reason}))
        } else {
            writeln!(out, "{url}\t{reason}")
        }
    };
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
/// page's), and the pages and texts linking to it.
pub fn explain(store: &StoreReader, url: &str, out: &mut impl Write) -> Result<()> {
    let canonical = CanonicalUrl::parse(url)?;
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
        return inlinks(store, &canonical, out);
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
    match fate(&plan(store)?, &page) {
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
    inlinks(store, &canonical, out)
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

/// The pages that link to `url` (followed links, not its own) and the texts they link with.
fn inlinks(store: &StoreReader, url: &CanonicalUrl, out: &mut impl Write) -> Result<()> {
    let mut sources = BTreeSet::new();
    let mut anchors = BTreeMap::<String, u64>::new();
    for (source, links) in store.all_outlinks().filter_map(Result::ok) {
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
