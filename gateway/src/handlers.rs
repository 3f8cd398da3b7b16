//! The handlers behind each route: read parameters, do the (blocking) work off the async
//! threads, and answer; failures are rejections that [`crate::error`] turns into answers.
//! Blocking work (searches, store reads) waits for a slot of [`AppState::searches`], so a
//! crowd of clients cannot queue unbounded work.

use std::collections::HashMap;
use std::sync::Arc;

use maud::Markup;
use serde_json::json;
use service::health::Readiness;
use warp::Rejection;
use warp::reply::{Reply, Response};

use crate::accept_language::Preferred;
use crate::cache::copy_anywhere;
use crate::cached_html;
use crate::error::{AppError, reject};
use crate::explain::UrlReport;
use crate::hit::{Order, Ranking};
use crate::leaf_token::LeafToken;
use crate::metrics::GatewayMetrics;
use crate::render;
use crate::search::{SearchResults, Searcher};
use crate::status::StatusReport;

/// The Content-Security-Policy of every page but cached copies: no scripts at all, no
/// plugins, styles only inline, images only from us (the thumbnails of `/thumb/HASH`; no
/// `data:` or other origin, so a page of results loads nothing from the web), forms only to
/// us, never framed.
pub const PAGE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The policy of a cached-copy page; the copy's `srcdoc` frame inherits it. The page is
/// sandboxed as a whole (`sandbox`: an opaque origin, so nothing on it, the copy included,
/// can act as our origin; popups allowed so the copy's links open in a new tab, forms so our
/// own search box works); no scripts and no plugins (the frame's own sandbox forbids them
/// too, and forms: two locks); the copy may load its own styles, images and fonts. No
/// `default-src`, which would also govern the frame itself.
pub const CACHE_CSP: &str = "sandbox allow-forms allow-popups allow-popups-to-escape-sandbox; \
     script-src 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'";

/// What the handlers share.
pub struct AppState {
    /// The index.
    pub searcher: Searcher,
    /// Results per page on HTML pages (and the API's default).
    pub per_page: usize,
    /// Slots for the blocking work of requests (searches, store reads): a crowd of clients
    /// queues here instead of filling the blocking thread pool.
    pub searches: Arc<tokio::sync::Semaphore>,
    /// Its metrics, served at `/metrics`.
    pub metrics: Arc<GatewayMetrics>,
    /// The token a leaf's callers must show (`[searchd] leaf_token_file`); `None`: any.
    pub leaf_token: Option<LeafToken>,
}

impl AppState {
    /// The state of a server over `searcher` with the `[searchd]` settings of `config`, its
    /// searches counted in a registry of its own.
    pub fn new(searcher: Searcher, config: &shared::config::SearchdConfig) -> Self {
        let metrics = GatewayMetrics::new(crate::metrics::route_of);
        Self {
            searcher: searcher.with_metrics(metrics.search.clone()),
            per_page: config.per_page.get(),
            searches: Arc::new(tokio::sync::Semaphore::new(config.max_searches.get())),
            metrics: Arc::new(metrics),
            leaf_token: None,
        }
    }

    /// The same state, its leaf routes open only to callers showing `token`.
    pub fn with_leaf_token(self, token: Option<LeafToken>) -> Self {
        Self {
            leaf_token: token,
            ..self
        }
    }

    /// Whether it can answer searches (`/readyz`): an index generation loaded here, or
    /// remote leaves to ask; and every group of remote leaves has a replica that answered its
    /// last call or probe (each replica's state said, see `replicas`). A new
    /// generation loading leaves the old one serving, so the server stays ready meanwhile.
    pub fn readiness(&self) -> Readiness {
        let mut parts = Vec::new();
        match self.searcher.index_facts() {
            Some(facts) => parts.push(Readiness::Ready(format!(
                "index {} loaded ({} documents)",
                facts.generation, facts.docs
            ))),
            None if self.searcher.leaves().is_empty() => {
                parts.push(Readiness::NotReady("no index generation loaded yet".into()));
            }
            None => {}
        }
        for group in self.searcher.leaves() {
            parts.push(group.readiness());
        }
        Readiness::all(parts)
    }
}

/// Query-string or form parameters.
pub type Params = HashMap<String, String>;

/// The parameters of a search, read leniently: a missing or malformed number is the default.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SearchParams {
    query: String,
    page: usize,
    per_page: usize,
    explain: bool,
    ranking: Ranking,
    order: Order,
}

impl SearchParams {
    fn read(params: &Params, default_per_page: usize) -> Self {
        let number = |name: &str| {
            params
                .get(name)
                .and_then(|v| v.trim().parse::<usize>().ok())
        };
        SearchParams {
            query: params.get("q").cloned().unwrap_or_default(),
            page: number("page").unwrap_or(1),
            per_page: number("per_page").unwrap_or(default_per_page),
            explain: params
                .get("explain")
                .is_some_and(|v| matches!(v.as_str(), "1" | "true" | "yes")),
            ranking: params
                .get("ranking")
                .map_or(Ranking::Full, |v| Ranking::from_param(v)),
            order: params
                .get("sort")
                .map_or(Order::Relevance, |v| Order::from_param(v)),
        }
    }
}

/// Runs blocking work (tantivy, RocksDB) on the blocking pool.
pub(crate) async fn blocking<T: Send + 'static, E: Into<AppError> + Send + 'static>(
    state: &Arc<AppState>,
    work: impl FnOnce(&AppState) -> Result<T, E> + Send + 'static,
) -> Result<T, Rejection> {
    let state = Arc::clone(state);
    // The request's own timeout bounds the wait (see `crate::server`); the slot is held
    // until the work ends, even when the request gave up on it.
    let slot = Arc::clone(&state.searches)
        .acquire_owned()
        .await
        .map_err(|_| reject(AppError::Busy))?;
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        work(&state)
    })
    .await
    .map_err(AppError::from)
    .and_then(|result| result.map_err(Into::into))
    .map_err(reject)
}

fn html(page: Markup) -> Response {
    warp::reply::html(page.into_string()).into_response()
}

fn json_reply(value: &serde_json::Value) -> Response {
    warp::reply::json(value).into_response()
}

/// `GET /`.
pub async fn home(state: Arc<AppState>) -> Result<Response, Rejection> {
    Ok(html(render::home(
        state.searcher.index_facts().map(|facts| facts.docs),
    )))
}

/// `GET|POST /search`: the HTML results page.
/// Of a page's translations, the one in the language the browser asks for first is shown.
pub async fn search_page(
    params: Params,
    preferred: Preferred,
    state: Arc<AppState>,
) -> Result<Response, Rejection> {
    let SearchParams {
        query, page, order, ..
    } = SearchParams::read(&params, state.per_page);
    let results = blocking(&state, move |s| {
        s.searcher.search_for(
            &query,
            page,
            s.per_page,
            false,
            Ranking::Full,
            &preferred,
            order,
        )
    })
    .await?;
    Ok(html(render::results(&results)))
}

/// The JSON answer of `/api/search`:
/// `{"query", "total", "took_ms", "page", "partial", "suggestion", "hits": [{"url", "title",
/// "snippet", "score", "all_words", "kind", "lang", "published", "modified"}]}`, with
/// `"explain"` on each hit when it was asked for; `kind` is what the result was made from
/// (`html`, `pdf`); `lang` the language of its text (`en`, `fr`, `und` when it could not be
/// told); `published` and `modified` the page's dates (`YYYY-MM-DD`, UTC), null when unknown;
/// `all_words` is false for a page with most but not all of the words (they follow the
/// pages with every word, when those are few); `partial` is
/// true when no page had every word and the hits are pages with some of them, or when a
/// shard did not answer in time (then, and only then, `missing_shards` names those
/// leaves); `suggestion`
/// is a respelled query ("did you mean") or null; `facets` counts all the matches by
/// `lang`uage, `kind` (`html`, `pdf`), `site` (the busiest hosts) and `year` of their date
/// (`[{"value": "fr", "count": 12}]`, most first, years newest first); `synonyms`, when a
/// word was searched with its synonyms too: `[{"word": "k8s", "with": ["kubernetes"]}]`; a hit whose translations also
/// matched names them in `also_in` (`[{"lang", "url"}]`).
pub fn results_json(results: &SearchResults) -> serde_json::Value {
    let hits: Vec<serde_json::Value> = results
        .hits
        .iter()
        .map(|hit| {
            let mut value = json!({
                "url": hit.url,
                "title": hit.title,
                "snippet": hit.snippet.text,
                "score": hit.score,
                "all_words": hit.all_words,
                "kind": hit.kind,
                "lang": hit.lang,
                "published": hit.published,
                "modified": hit.modified,
            });
            if let (false, Some(object)) = (hit.also_in.is_empty(), value.as_object_mut()) {
                object.insert("also_in".into(), json!(hit.also_in));
            }
            if let (Some(explanation), Some(object)) = (&hit.explanation, value.as_object_mut()) {
                object.insert("explain".into(), explanation.clone());
            }
            value
        })
        .collect();
    let mut value = json!({
        "query": results.query,
        "total": results.total,
        "took_ms": results.took_ms,
        "page": results.page,
        "partial": results.partial || !results.missing_shards.is_empty(),
        "suggestion": results.suggestion,
        "facets": {
            "lang": counts(&results.facets.lang),
            "kind": counts(&results.facets.kind),
            "site": counts(&results.facets.site),
            "year": counts(&results.facets.year),
        },
        "hits": hits,
    });
    if let (false, Some(object)) = (results.missing_shards.is_empty(), value.as_object_mut()) {
        object.insert("missing_shards".into(), json!(results.missing_shards));
    }
    if let (false, Some(object)) = (results.synonyms.is_empty(), value.as_object_mut()) {
        object.insert("synonyms".into(), json!(results.synonyms));
    }
    if let (Some(source), Some(object)) = (&results.similar_to, value.as_object_mut()) {
        object.insert(
            "similar_to".into(),
            json!({"url": source.url, "title": source.title, "words": source.words}),
        );
    }
    value
}

/// The pages like the one at `params`' `url`, or a 404 naming it when no shard holds it.
async fn similar_results(
    params: &Params,
    preferred: Preferred,
    state: &Arc<AppState>,
) -> Result<SearchResults, Rejection> {
    let url = params.get("url").cloned().unwrap_or_default();
    let per_page = SearchParams::read(params, state.per_page).per_page;
    let asked = url.clone();
    let found = blocking(state, move |s| {
        s.searcher.similar(&asked, per_page, &preferred)
    })
    .await?;
    found.ok_or_else(|| {
        reject(AppError::NotFound(format!(
            "{} is not in the index",
            crate::display::shown(&url, 200)
        )))
    })
}

/// `GET /similar?url=`: the results page of the pages like one.
pub async fn similar_page(
    params: Params,
    preferred: Preferred,
    state: Arc<AppState>,
) -> Result<Response, Rejection> {
    let results = similar_results(&params, preferred, &state).await?;
    Ok(html(render::results(&results)))
}

/// `GET /api/similar?url=&per_page=`: the pages like one, in `/api/search`'s shape with
/// `"similar_to": {"url", "title", "words"}` (the page as indexed, the words searched).
pub async fn similar_api(
    params: Params,
    preferred: Preferred,
    state: Arc<AppState>,
) -> Result<Response, Rejection> {
    let results = similar_results(&params, preferred, &state).await?;
    Ok(json_reply(&results_json(&results)))
}

/// Facet counts as JSON: `[{"value": "fr", "count": 12}, ...]`.
fn counts(counts: &[(String, u64)]) -> serde_json::Value {
    counts
        .iter()
        .map(|(value, count)| json!({"value": value, "count": count}))
        .collect()
}

/// `GET /api/search`.
pub async fn search_api(
    params: Params,
    preferred: Preferred,
    state: Arc<AppState>,
) -> Result<Response, Rejection> {
    let p = SearchParams::read(&params, state.per_page);
    let results = blocking(&state, move |s| {
        s.searcher.search_for(
            &p.query, p.page, p.per_page, p.explain, p.ranking, &preferred, p.order,
        )
    })
    .await?;
    Ok(json_reply(&results_json(&results)))
}

/// `GET /cache?url=`: the stored copy, rewritten (or as text when it cannot be), in a
/// sandboxed frame.
pub async fn cache(params: Params, state: Arc<AppState>) -> Result<Response, Rejection> {
    let url = params.get("url").cloned().unwrap_or_default();
    let (copy, document) = blocking(&state, move |s| {
        let copy = copy_anywhere(&s.searcher, &url)?;
        let document = cached_html::rewrite(&copy.html, &copy.url).unwrap_or_else(|e| {
            tracing::warn!(url = %copy.url, error = %e, "cached copy shown as text");
            render::copy_as_text(&copy.html, &e.to_string())
        });
        Ok::<_, AppError>((copy, document))
    })
    .await?;
    let page = render::cache(
        &copy.url,
        &shared::format_time_ms(copy.fetched_at_ms),
        &document,
    );
    Ok(warp::reply::with_header(html(page), "content-security-policy", CACHE_CSP).into_response())
}

fn wants_json(params: &Params, accept: Option<&str>) -> bool {
    params.get("format").is_some_and(|f| f == "json")
        || accept.is_some_and(|a| a.contains("application/json"))
}

/// `GET /status`: HTML, or JSON with `?format=json` or `Accept: application/json`.
pub async fn status(
    params: Params,
    accept: Option<String>,
    state: Arc<AppState>,
) -> Result<Response, Rejection> {
    let report = blocking(&state, |s| {
        Ok::<_, AppError>(StatusReport::gather(&s.searcher))
    })
    .await?;
    if wants_json(&params, accept.as_deref()) {
        return Ok(json_reply(&json!(report)));
    }
    Ok(html(render::facts("Status", "Status", &report.rows())))
}

/// `GET /explain?url=`: why a URL is or is not searchable; HTML or JSON like `/status`.
pub async fn explain(
    params: Params,
    accept: Option<String>,
    state: Arc<AppState>,
) -> Result<Response, Rejection> {
    let url = params.get("url").cloned().unwrap_or_default();
    let report = blocking(&state, move |s| UrlReport::gather(&s.searcher, &url)).await?;
    if wants_json(&params, accept.as_deref()) {
        return Ok(json_reply(&json!(report)));
    }
    Ok(html(render::facts(
        "Explain",
        "What sift knows of this URL",
        &report.rows(),
    )))
}

/// `GET /opensearch.xml`.
pub fn opensearch(host: Option<String>) -> Response {
    warp::reply::with_header(
        opensearch_xml(host.as_deref()),
        "content-type",
        "application/opensearchdescription+xml",
    )
    .into_response()
}

/// Completions offered for what a searcher typed.
const SUGGESTIONS: usize = 10;

/// `GET /suggest?q=PREFIX`: completions in the OpenSearch suggestions format, a JSON array
/// of the query as received and the completions (`["vec", ["vec", "vecdeque"]]`), as
/// `application/x-suggestions+json`. The query string is read leniently (bad UTF-8 is
/// replaced, a missing `q` is blank): anything that cannot be completed answers an empty
/// list, never an error.
pub async fn suggest(raw_query: String, state: Arc<AppState>) -> Result<Response, Rejection> {
    let typed = url::form_urlencoded::parse(raw_query.as_bytes())
        .find(|(key, _)| key == "q")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    let echoed = typed.clone();
    let found = blocking(&state, move |s| {
        Ok::<_, AppError>(s.searcher.complete(&typed, SUGGESTIONS))
    })
    .await?;
    let body = serde_json::json!([echoed, found]).to_string();
    Ok(
        warp::reply::with_header(body, "content-type", "application/x-suggestions+json")
            .into_response(),
    )
}

/// The OpenSearch description, pointing browsers at `/search?q={searchTerms}` on the host
/// they asked for (a `Host` header with anything but host-name characters gives the default).
pub fn opensearch_xml(host: Option<&str>) -> String {
    let host = host
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".:-[]".contains(c))
        })
        .unwrap_or("127.0.0.1:8080");
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>sift</ShortName>
  <Description>Search the pages sift crawled</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <Url type="text/html" method="get" template="http://{host}/search?q={{searchTerms}}"/>
  <Url type="application/json" method="get" template="http://{host}/api/search?q={{searchTerms}}"/>
  <Url type="application/x-suggestions+json" method="get" template="http://{host}/suggest?q={{searchTerms}}"/>
</OpenSearchDescription>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn search_parameters_are_read_leniently() {
        let p = SearchParams::read(&params(&[("q", "heron"), ("page", " 3 ")]), 10);
        assert_eq!((p.query.as_str(), p.page, p.per_page), ("heron", 3, 10));
        let p = SearchParams::read(
            &params(&[("page", "-1"), ("per_page", "x"), ("explain", "1")]),
            10,
        );
        assert_eq!((p.query.as_str(), p.page, p.per_page), ("", 1, 10));
        assert!(p.explain);
    }

    #[test]
    fn opensearch_names_the_asked_host_only_when_it_is_plain() {
        let xml = opensearch_xml(Some("localhost:9000"));
        assert!(xml.contains("template=\"http://localhost:9000/search?q={searchTerms}\""));
        let xml = opensearch_xml(Some("evil\"><x"));
        assert!(xml.contains("template=\"http://127.0.0.1:8080/search?q={searchTerms}\""));
        assert!(!xml.contains("evil"));
    }
}
