//! `stalls.test`: a site with a few URLs that fail the ways a hostile or broken server fails,
//! among ordinary pages, to show that no single URL holds up the rest of its host.
//!
//! | path | answer |
//! |---|---|
//! | `/` | 200, links to `/hang` first, then [`STALLS_PAGES`] and the other stalls |
//! | `/hang` | accepts the request and never answers (until the test web stops) |
//! | `/drip` | 200 and its headers at once, then a body of one byte a second, without end |
//! | `/trickle` | 200, then a body of 2 KiB every 100 ms (fast enough for any least rate), without end |
//! | `/big` | 200, a 256 KiB HTML page |
//! | `/bomb` | 200, `Content-Encoding: gzip`: 64 MiB of spaces in a page, 64 KiB on the wire |
//! | `/page/1` ... `/page/10` | 200, ordinary pages |

use std::convert::Infallible;
use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{StreamExt, stream};
use tokio::sync::watch;
use warp::reply::Response;

use crate::reply::{HTML_UTF8, bytes, html, not_found, page, streamed_html, text, with_header};

/// The ordinary pages, every one reachable from `/`.
pub const STALLS_PAGES: [&str; 10] = [
    "/page/1", "/page/2", "/page/3", "/page/4", "/page/5", "/page/6", "/page/7", "/page/8",
    "/page/9", "/page/10",
];

/// The size of `/big`.
pub const STALLS_BIG_BYTES: usize = 256 * 1024;

/// The decompressed size of `/bomb`.
pub const STALLS_BOMB_BYTES: usize = 64 * 1024 * 1024;

/// Animals the ordinary pages are about, one each, so no two read alike.
const SUBJECTS: [&str; 10] = [
    "heron", "otter", "curlew", "seal", "plover", "eider", "tern", "gannet", "dunlin", "puffin",
];

/// Answers one request to `stalls.test`; `stop` turns true when the test web shuts down.
pub(crate) async fn respond(path: &str, stop: &watch::Receiver<bool>) -> Response {
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow:\n"),
        "/" => html(200, index()),
        "/hang" => {
            let mut stop = stop.clone();
            let _ = stop.wait_for(|stopped| *stopped).await;
            text(503, "stopping\n")
        }
        "/drip" => endless(
            stop.clone(),
            Bytes::from_static(b" "),
            Duration::from_secs(1),
            None,
        ),
        "/trickle" => endless(
            stop.clone(),
            Bytes::from(vec![b' '; 2048]),
            Duration::from_millis(100),
            None,
        ),
        "/big" => html(200, big()),
        "/bomb" => with_header(bytes(200, HTML_UTF8, bomb()), "content-encoding", "gzip"),
        _ => match STALLS_PAGES.iter().position(|p| *p == path) {
            Some(i) => html(200, ordinary(i)),
            None => not_found(),
        },
    }
}

fn index() -> String {
    let links: String = ["/hang"]
        .into_iter()
        .chain(STALLS_PAGES)
        .chain(["/drip", "/trickle", "/big", "/bomb"])
        .map(|p| format!("<li><a href=\"{p}\">{p}</a></li>\n"))
        .collect();
    page("Stalls", &format!("<ul>\n{links}</ul>"))
}

fn ordinary(i: usize) -> String {
    let subject = SUBJECTS[i % SUBJECTS.len()];
    page(
        &format!("Notes on the {subject}"),
        &format!(
            "<p>The {subject} was seen on the shore at dawn; page {} of the stall notes.</p>",
            i + 1
        ),
    )
}

fn big() -> String {
    let line = "<p>A long page: the same paragraph again and again, to pass the body limit.</p>\n";
    let inner = line.repeat(STALLS_BIG_BYTES / line.len() + 1);
    page("A big page", &inner)
}

/// `/bomb`'s body, compressed once per process.
fn bomb() -> Vec<u8> {
    static BOMB: OnceLock<Vec<u8>> = OnceLock::new();
    BOMB.get_or_init(|| {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let head = page("A decompression bomb", "<p>");
        let spaces = vec![b' '; 1024 * 1024];
        let mut written = head.len();
        let _ = encoder.write_all(head.as_bytes());
        while written < STALLS_BOMB_BYTES {
            let _ = encoder.write_all(&spaces);
            written += spaces.len();
        }
        encoder.finish().unwrap_or_default()
    })
    .clone()
}

/// A 200 HTML answer whose body is `first` (if any), then `chunk` every `every`, until the
/// client hangs up or the test web stops.
pub(crate) fn endless(
    stop: watch::Receiver<bool>,
    chunk: Bytes,
    every: Duration,
    first: Option<Bytes>,
) -> Response {
    let head = stream::iter(first.map(Ok::<Bytes, Infallible>));
    let chunks = stream::unfold((stop, chunk), move |(stop, chunk)| async move {
        tokio::time::sleep(every).await;
        if *stop.borrow() {
            return None;
        }
        Some((Ok::<Bytes, Infallible>(chunk.clone()), (stop, chunk)))
    });
    streamed_html(head.chain(chunks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bomb_is_small_on_the_wire() {
        let wire = bomb();
        assert!(wire.len() < 256 * 1024, "{} bytes", wire.len());
        assert_eq!(&wire[..2], &[0x1f, 0x8b]);
    }

    #[test]
    fn hang_is_linked_first() {
        let index = index();
        let hang = index.find("/hang").expect("linked");
        let first_page = index.find("/page/1").expect("linked");
        assert!(hang < first_page);
    }
}
