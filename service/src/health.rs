//! Liveness and readiness, as a load balancer or an orchestrator asks: `/healthz` answers
//! 200 whenever the process answers at all; `/readyz` answers 200 when the program can take
//! work, else 503, each with a one-line reason in plain text.

use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;

/// Whether a program can take work now, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// It can: what it is serving (`generation gen-000004 loaded`).
    Ready(String),
    /// It cannot yet, or no longer: why (`no index generation loaded`).
    NotReady(String),
}

impl Readiness {
    /// Ready when every part is, else the first part's reason that is not.
    pub fn all(parts: impl IntoIterator<Item = Readiness>) -> Readiness {
        let mut ready = Vec::new();
        for part in parts {
            match part {
                Readiness::Ready(what) => ready.push(what),
                not_ready @ Readiness::NotReady(_) => return not_ready,
            }
        }
        Readiness::Ready(ready.join("; "))
    }

    /// The `/readyz` answer: 200 `ready: WHAT` or 503 `not ready: WHY`, one line.
    pub fn answer(&self) -> Response {
        match self {
            Readiness::Ready(what) => plain(StatusCode::OK, &format!("ready: {what}")),
            Readiness::NotReady(why) => plain(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!("not ready: {why}"),
            ),
        }
    }
}

/// The `/healthz` answer: the process answers.
pub fn alive() -> Response {
    plain(StatusCode::OK, "ok")
}

/// A one-line plain-text answer (line breaks in `line` become spaces).
fn plain(status: StatusCode, line: &str) -> Response {
    let mut body = line.replace(['\r', '\n'], " ");
    body.push('\n');
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    response.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
        .headers_mut()
        .insert("cache-control", HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_ready_is_ready_and_the_first_that_is_not_says_why() {
        let ready = |what: &str| Readiness::Ready(what.into());
        let not = |why: &str| Readiness::NotReady(why.into());
        assert_eq!(
            Readiness::all([ready("a"), ready("b")]),
            Readiness::Ready("a; b".into())
        );
        assert_eq!(
            Readiness::all([ready("a"), not("b down"), not("c down")]),
            not("b down")
        );
        let answer = not("no\nindex").answer();
        assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
    }
}
