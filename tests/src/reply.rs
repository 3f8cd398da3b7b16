//! Small constructors for the answers the test web gives: HTML pages, plain text, raw bytes,
//! redirects and bare statuses, all as warp's `Response`.

use warp::Reply;
use warp::http::header::{CONTENT_TYPE, HeaderName, HeaderValue, LOCATION};
use warp::http::{Response as HttpResponse, StatusCode};
use warp::reply::Response;

/// `text/html; charset=utf-8`.
pub(crate) const HTML_UTF8: &str = "text/html; charset=utf-8";
/// `text/plain; charset=utf-8`.
pub(crate) const TEXT_UTF8: &str = "text/plain; charset=utf-8";

/// An answer with a status, a content type and a body.
pub(crate) fn bytes(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Response {
    let mut response = HttpResponse::new(body.into()).into_response();
    *response.status_mut() = status_code(status);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A UTF-8 HTML page.
pub(crate) fn html(status: u16, body: impl Into<String>) -> Response {
    bytes(status, HTML_UTF8, body.into())
}

/// A 200 UTF-8 HTML answer whose body is streamed from `chunks` as they come.
pub(crate) fn streamed_html<S>(chunks: S) -> Response
where
    S: futures_util::Stream<Item = Result<bytes::Bytes, std::convert::Infallible>>
        + Send
        + Sync
        + 'static,
{
    let mut response = warp::reply::stream(chunks).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(HTML_UTF8));
    response
}

/// A UTF-8 plain-text answer.
pub(crate) fn text(status: u16, body: impl Into<String>) -> Response {
    bytes(status, TEXT_UTF8, body.into())
}

/// 404 with a short plain-text body.
pub(crate) fn not_found() -> Response {
    text(404, "404 Not Found\n")
}

/// A redirect (`301`, `302`, `307`, ...) to `location`, which is sent as given (relative or
/// absolute), with a tiny HTML body as real servers send.
pub(crate) fn redirect(status: u16, location: &str) -> Response {
    let mut response = html(
        status,
        format!("<!DOCTYPE html><title>Moved</title><p>Moved to {location}.</p>\n"),
    );
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(LOCATION, value);
    }
    response
}

/// Adds (or replaces) one header.
pub(crate) fn with_header(
    mut response: Response,
    name: &'static str,
    value: &'static str,
) -> Response {
    response.headers_mut().insert(
        HeaderName::from_static(name),
        HeaderValue::from_static(value),
    );
    response
}

fn status_code(status: u16) -> StatusCode {
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// Wraps a body in the small HTML page every generated host uses: a title, an `<h1>` and the
/// given inner HTML.
pub(crate) fn page(title: &str, inner: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n</head>\n\
         <body>\n<h1>{title}</h1>\n{inner}\n</body>\n</html>\n"
    )
}
