//! `crawler export`: the store's answers as a WARC 1.1 file (see the [module](super) docs
//! for what is written and why the headers are rewritten). The store is opened read-only,
//! so a crawl may be running; the file is written beside its name and renamed into place
//! when whole.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use reqwest::header::HeaderValue;
use shared::config::CrawlerConfig;
use shared::record::PageRecord;
use shared::store::ReadPattern;
use shared::{CanonicalUrl, StoreReader};
use warc::{WarcHeader, WarcWriter, format_ms, record_id, sha1_digest};

use super::WarcError;

use crate::fetch::user_agent;
use crate::kind::Kinds;

/// What an export wrote and left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Pages in the store.
    pub pages: u64,
    /// Answers written (a `request` and a `response` record each).
    pub answers: u64,
    /// Rendered pages written (a `conversion` record each, beside the page's response).
    pub renders: u64,
    /// Fetches that got no answer (status 0), not written.
    pub no_answer: u64,
    /// Records of the store that could not be read (or a URL or body that could not),
    /// not written.
    pub unreadable: u64,
    /// Bytes of the WARC file.
    pub bytes: u64,
}

/// Writes every stored answer of `data` to `file`; `config` gives the `User-Agent` and
/// `From` of the rebuilt requests.
pub fn export(
    data: &Path,
    file: &Path,
    config: &CrawlerConfig,
) -> Result<ExportSummary, WarcError> {
    // Every page is read once, in URL order: no block is worth keeping.
    let store = StoreReader::open_for(data, ReadPattern::OnePass)?;
    let kinds = Kinds::new(config, None);
    let partial = partial_name(file);
    let out = File::create(&partial).map_err(WarcError::io(&partial))?;
    let mut writer = WarcWriter::new(BufWriter::with_capacity(1 << 20, out));
    let mut summary = ExportSummary::default();
    let now = shared::now_ms();
    let info_id = record_id(&[
        b"warcinfo",
        file.as_os_str().as_encoded_bytes(),
        &now.to_be_bytes(),
    ]);
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut info = WarcHeader::default();
    info.add("WARC-Type", "warcinfo")
        .add("WARC-Record-ID", info_id.clone())
        .add("WARC-Date", format_ms(now))
        .add("WARC-Filename", name)
        .add("Content-Type", "application/warc-fields");
    let fields = format!(
        "software: sift crawler {}\r\nformat: WARC File Format 1.1\r\n\
         conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n\
         robots: obey\r\nhttp-header-user-agent: {}\r\n\
         description: HTML bodies as the crawler stores them, decoded to UTF-8; each response's \
         headers describe the bytes written (no Content-Encoding or Transfer-Encoding, \
         Content-Length the body's, charset=utf-8)\r\n",
        shared::VERSION,
        user_agent(config)
    );
    writer
        .write_record(&info, &[fields.as_bytes()])
        .map_err(WarcError::io(&partial))?;
    let mut renders = store.rendered_in_order();
    for page in store.pages() {
        summary.pages += 1;
        let Ok(page) = page else {
            summary.unreadable += 1;
            continue;
        };
        if page.status == 0 {
            summary.no_answer += 1;
            continue;
        }
        // A page without a body stores none: nothing to decompress.
        let body = match page.body.compressed_len() {
            0 => Ok(String::new()),
            _ => page.body.decompress(),
        };
        let (Ok(url), Ok(body)) = (CanonicalUrl::parse(&page.url), body) else {
            summary.unreadable += 1;
            continue;
        };
        let asked = Asked {
            config,
            accept: kinds.accept(config.kinds_for(url.host())),
        };
        let response_id = write_answer(&mut writer, &page, &url, body.as_bytes(), &info_id, &asked)
            .map_err(WarcError::io(&partial))?;
        summary.answers += 1;
        let render = match renders.get(&page.url) {
            Ok(render) => render.and_then(|render| Some((render.rendered_html()?, render))),
            Err(_) => {
                summary.unreadable += 1;
                None
            }
        };
        match render {
            Some((Ok(html), render)) => {
                let refers = Refers {
                    url: &page.url,
                    response_id: &response_id,
                    info_id: &info_id,
                };
                write_conversion(&mut writer, &refers, render.rendered_at_ms, &html)
                    .map_err(WarcError::io(&partial))?;
                summary.renders += 1;
            }
            Some((Err(_), _)) => summary.unreadable += 1,
            None => {}
        }
    }
    summary.bytes = writer.bytes();
    let out = writer.finish().map_err(WarcError::io(&partial))?;
    let out = out.into_inner().map_err(|e| WarcError::Io {
        path: partial.clone(),
        source: e.into_error(),
    })?;
    out.sync_all().map_err(WarcError::io(&partial))?;
    std::fs::rename(&partial, file).map_err(WarcError::io(file))?;
    Ok(summary)
}

/// `FILE.partial`, where the export is written until it is whole.
fn partial_name(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// One answer's `request` and `response` records; the response's record id.
fn write_answer<W: std::io::Write>(
    writer: &mut WarcWriter<W>,
    page: &PageRecord,
    url: &CanonicalUrl,
    body: &[u8],
    info_id: &str,
    asked: &Asked<'_>,
) -> std::io::Result<String> {
    let time = page.fetched_at_ms.to_be_bytes();
    let request_id = record_id(&[b"request", page.url.as_bytes(), &time]);
    let response_id = record_id(&[b"response", page.url.as_bytes(), &time]);
    let date = format_ms(page.fetched_at_ms);
    let request = request_head(url, asked);
    let mut header = WarcHeader::default();
    header
        .add("WARC-Type", "request")
        .add("WARC-Record-ID", request_id.clone())
        .add("WARC-Date", date.clone())
        .add("WARC-Target-URI", page.url.clone())
        .add("WARC-Concurrent-To", response_id.clone())
        .add("WARC-Warcinfo-ID", info_id)
        .add("Content-Type", "application/http;msgtype=request");
    writer.write_record(&header, &[request.as_bytes()])?;
    let head = response_head(page, body.len());
    let mut header = WarcHeader::default();
    header
        .add("WARC-Type", "response")
        .add("WARC-Record-ID", response_id.clone())
        .add("WARC-Date", date)
        .add("WARC-Target-URI", page.url.clone())
        .add("WARC-Concurrent-To", request_id)
        .add("WARC-Warcinfo-ID", info_id)
        .add("Content-Type", "application/http;msgtype=response")
        .add("WARC-Payload-Digest", sha1_digest([body]));
    if page.truncated {
        header.add("WARC-Truncated", "length");
    }
    writer.write_record(&header, &[head.as_bytes(), body])?;
    Ok(response_id)
}

/// The response a `conversion` record is made from.
struct Refers<'a> {
    url: &'a str,
    response_id: &'a str,
    info_id: &'a str,
}

/// A rendered page's document after scripts, as a `conversion` record of its response
/// (WARC 1.1: "an alternative version of another record's content"), dated when it was
/// rendered, so a replay tool finds both the page as served and as a browser built it.
fn write_conversion<W: std::io::Write>(
    writer: &mut WarcWriter<W>,
    refers: &Refers<'_>,
    rendered_at_ms: u64,
    html: &str,
) -> std::io::Result<()> {
    let id = record_id(&[
        b"conversion",
        refers.url.as_bytes(),
        &rendered_at_ms.to_be_bytes(),
    ]);
    let mut header = WarcHeader::default();
    header
        .add("WARC-Type", "conversion")
        .add("WARC-Record-ID", id)
        .add("WARC-Date", format_ms(rendered_at_ms))
        .add("WARC-Target-URI", refers.url)
        .add("WARC-Refers-To", refers.response_id)
        .add("WARC-Warcinfo-ID", refers.info_id)
        .add("Content-Type", "text/html; charset=utf-8")
        .add("WARC-Payload-Digest", sha1_digest([html.as_bytes()]));
    writer.write_record(&header, &[html.as_bytes()])?;
    Ok(())
}

/// What the crawler's requests to a host said: its settings, and the `Accept` of the kinds
/// read from the host.
struct Asked<'a> {
    config: &'a CrawlerConfig,
    accept: HeaderValue,
}

/// The GET the crawler sent for `url`, as far as the store tells it.
fn request_head(url: &CanonicalUrl, asked: &Asked<'_>) -> String {
    let config = asked.config;
    let accept = asked.accept.to_str().unwrap_or("*/*");
    let host = match url.as_url().port() {
        Some(port) => format!("{}:{port}", url.host()),
        None => url.host().to_string(),
    };
    let mut head = format!(
        "GET {} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {}\r\nAccept: {accept}\r\n",
        url.path_and_query(),
        user_agent(config)
    );
    if let Some(from) = &config.from {
        head.push_str(&format!("From: {from}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// The status line and headers of a stored answer, made true for a body of `body_len`
/// bytes as stored: no transfer or content coding, its length, and UTF-8 for a body.
fn response_head(page: &PageRecord, body_len: usize) -> String {
    let reason = reqwest::StatusCode::from_u16(page.status)
        .ok()
        .and_then(|status| status.canonical_reason())
        .unwrap_or("");
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", page.status);
    let mut typed = false;
    for (name, value) in &page.headers {
        let lower = name.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "content-encoding" | "transfer-encoding" | "content-length"
        ) || name.is_empty()
            || name.contains([':', '\r', '\n'])
        {
            continue;
        }
        let value = if lower == "content-type" && body_len > 0 {
            typed = true;
            in_utf8(value)
        } else {
            value.replace(['\r', '\n'], " ")
        };
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !typed && body_len > 0 {
        head.push_str("content-type: text/html; charset=utf-8\r\n");
    }
    head.push_str(&format!("content-length: {body_len}\r\n\r\n"));
    head
}

/// A `Content-Type` value saying `charset=utf-8` instead of any charset it named.
fn in_utf8(content_type: &str) -> String {
    let mut parts = content_type.split(';');
    let media = parts.next().unwrap_or_default().trim();
    let mut value = if media.is_empty() { "text/html" } else { media }.to_string();
    for param in parts.map(str::trim).filter(|p| !p.is_empty()) {
        let name = param.split('=').next().unwrap_or_default().trim();
        if !name.eq_ignore_ascii_case("charset") {
            value.push_str("; ");
            value.push_str(&param.replace(['\r', '\n'], " "));
        }
    }
    value.push_str("; charset=utf-8");
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_content_type_names_utf_8_whatever_charset_it_named() {
        for (given, written) in [
            ("text/html; charset=ISO-8859-1", "text/html; charset=utf-8"),
            (
                "text/html;Charset=\"Shift_JIS\"",
                "text/html; charset=utf-8",
            ),
            (
                "application/xhtml+xml",
                "application/xhtml+xml; charset=utf-8",
            ),
            (
                "text/html; level=1; charset=x",
                "text/html; level=1; charset=utf-8",
            ),
            ("", "text/html; charset=utf-8"),
        ] {
            assert_eq!(in_utf8(given), written, "{given:?}");
        }
    }

    #[test]
    fn a_stored_answer_is_written_with_headers_true_for_its_body() {
        let page = PageRecord {
            status: 200,
            headers: vec![
                (
                    "content-type".into(),
                    "text/html; charset=windows-1252".into(),
                ),
                ("content-encoding".into(), "gzip".into()),
                ("transfer-encoding".into(), "chunked".into()),
                ("content-length".into(), "999".into()),
                ("etag".into(), "\"v1\"".into()),
            ],
            ..PageRecord::default()
        };
        assert_eq!(
            response_head(&page, 5),
            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\netag: \"v1\"\r\n\
             content-length: 5\r\n\r\n"
        );
        let redirect = PageRecord {
            status: 301,
            headers: vec![
                ("location".into(), "/b".into()),
                ("content-type".into(), "text/html".into()),
            ],
            ..PageRecord::default()
        };
        assert_eq!(
            response_head(&redirect, 0),
            "HTTP/1.1 301 Moved Permanently\r\nlocation: /b\r\ncontent-type: text/html\r\n\
             content-length: 0\r\n\r\n"
        );
    }

    #[test]
    fn the_request_is_the_get_the_crawler_sends() {
        let config = shared::config::RawCrawlerConfig {
            from: Some("bot@example.org".into()),
            ..Default::default()
        };
        let config = config.validate().expect("valid");
        let url = CanonicalUrl::parse("http://a.test:8080/x?y=1").expect("a URL");
        let asked = Asked {
            config: &config,
            accept: Kinds::new(&config, None).accept(config.kinds),
        };
        let head = request_head(&url, &asked);
        assert!(
            head.starts_with("GET /x?y=1 HTTP/1.1\r\nHost: a.test:8080\r\nUser-Agent: siftbot/"),
            "{head}"
        );
        assert!(
            head.contains("\r\nAccept: text/html,application/xhtml+xml;q=0.9,"),
            "{head}"
        );
        assert!(
            head.ends_with("\r\nFrom: bot@example.org\r\n\r\n"),
            "{head}"
        );
    }
}
