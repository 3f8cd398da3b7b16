//! The demo's web site: a directory of files served over HTTP on loopback, as a static web
//! server serves one, for the demo's crawl and for the result links people click.
//!
//! Each file is read in one call on the blocking pool. warp's `fs::dir`, which this
//! replaced, read a file in steps of a few KiB, each a trip to the blocking pool, and sent it
//! chunked: crawled by the same crawler, the Rust docs took 36 s from it against 19 s from
//! nginx on the same machine.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use warp::Filter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

/// The largest file served; a larger one is answered 500 (the demo crawls at most 32 MiB of
/// a page anyway).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// `GET` and `HEAD` of any path under `root`: the file, `DIR/index.html` for `DIR/`, a
/// redirect to `DIR/` for `DIR`, else 404.
pub fn routes(
    root: PathBuf,
) -> impl Filter<Extract = (Response,), Error = warp::Rejection> + Clone {
    let root = Arc::new(root);
    warp::get()
        .or(warp::head())
        .unify()
        .and(warp::path::full())
        .and_then(move |path: warp::path::FullPath| {
            let root = Arc::clone(&root);
            async move { Ok::<_, warp::Rejection>(answer(&root, path.as_str()).await) }
        })
}

/// The answer for one URL path.
async fn answer(root: &Path, url_path: &str) -> Response {
    let Some(relative) = shared::url::site_file(url_path) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let media_type = mime_guess::from_path(&relative).first_or_octet_stream();
    let file = root.join(relative);
    let directory_without_slash = !url_path.ends_with('/');
    let read = tokio::task::spawn_blocking(move || read_file(&file, directory_without_slash)).await;
    match read {
        Ok(Ok(Found::File(body))) => {
            warp::reply::with_header(body, "content-type", media_type.as_ref()).into_response()
        }
        Ok(Ok(Found::Directory)) => warp::reply::with_header(
            StatusCode::MOVED_PERMANENTLY,
            "location",
            format!("{url_path}/"),
        )
        .into_response(),
        Ok(Err(error))
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            StatusCode::NOT_FOUND.into_response()
        }
        Ok(Err(error)) => {
            tracing::warn!(path = url_path, %error, "the demo's site cannot read a file");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// What a path names on disk.
enum Found {
    /// A file's bytes.
    File(Vec<u8>),
    /// A directory asked for without its slash.
    Directory,
}

/// Reads `file`, which a URL without a trailing slash may name as a directory.
fn read_file(file: &Path, may_be_directory: bool) -> io::Result<Found> {
    let meta = std::fs::metadata(file)?;
    if meta.is_dir() {
        return if may_be_directory {
            Ok(Found::Directory)
        } else {
            Err(io::ErrorKind::NotFound.into())
        };
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(io::Error::other(format!(
            "over {} MiB",
            MAX_FILE_BYTES >> 20
        )));
    }
    Ok(Found::File(std::fs::read(file)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn files_directories_and_misses_are_answered_as_a_web_server_does() {
        let site = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(site.path().join("guide")).expect("dir");
        std::fs::write(site.path().join("guide/index.html"), "<h1>guide</h1>").expect("write");
        std::fs::write(site.path().join("style.css"), "h1 {}").expect("write");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        let server = warp::serve(routes(site.path().to_path_buf()))
            .incoming(listener)
            .run();
        tokio::spawn(server);
        // reqwest has no bundled TLS crypto provider here (as in the crawler's fetcher).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let get = |path: &str| client.get(format!("http://{addr}{path}")).send();

        let page = get("/guide/").await.expect("answer");
        assert_eq!(page.status(), 200);
        assert_eq!(page.headers()["content-type"], "text/html");
        assert_eq!(page.text().await.expect("body"), "<h1>guide</h1>");
        let css = get("/style.css").await.expect("answer");
        assert_eq!(css.headers()["content-type"], "text/css");
        let directory = get("/guide").await.expect("answer");
        assert_eq!(directory.status(), 301);
        assert_eq!(directory.headers()["location"], "/guide/");
        for missing in ["/missing.html", "/style.css/"] {
            assert_eq!(
                get(missing).await.expect("answer").status(),
                404,
                "{missing}"
            );
        }
        let head = client
            .head(format!("http://{addr}/style.css"))
            .send()
            .await
            .expect("answer");
        assert_eq!(head.status(), 200);
    }
}
