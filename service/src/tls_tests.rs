//! HTTPS on a real loopback listener: certificates made here (self-signed, `rcgen`), asked
//! with reqwest trusting only them.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use std::convert::Infallible;
use std::path::Path;
use std::time::{Duration, SystemTime};

use warp::Filter;
use warp::reply::Response;

use crate::server::{Limits, Listener, serve};
use crate::tls::ServerTls;

/// A self-signed certificate for 127.0.0.1, written as `cert` and `key`, stamped `modified`
/// (so a rewrite is seen whatever the file system's clock grain): its PEM, to trust.
fn self_signed(cert: &Path, key: &Path, modified: SystemTime) -> String {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let pem = made.cert.pem();
    for (path, text) in [(cert, &pem), (key, &made.signing_key.serialize_pem())] {
        std::fs::write(path, text).unwrap();
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(modified).unwrap();
    }
    pem
}

/// A client trusting only the certificate `pem`.
fn trusting(pem: &str) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let certificate = reqwest::Certificate::from_pem(pem.as_bytes()).unwrap();
    reqwest::Client::builder()
        .tls_certs_only([certificate])
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

fn limits() -> Limits {
    Limits {
        max_connections: 8,
        header_timeout: Duration::from_secs(2),
        request_timeout: Duration::from_secs(2),
    }
}

fn overloaded(_path: &str) -> Response {
    warp::http::Response::new("late".into())
}

#[tokio::test]
async fn https_answers_with_its_certificate_and_takes_a_renewed_one_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let first = self_signed(&cert, &key, SystemTime::UNIX_EPOCH + Duration::from_secs(1));
    let tls = ServerTls::from_pem_files(&cert, &key).unwrap();
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = tcp.local_addr().unwrap();
    let listener = Listener::from(tcp).with_tls(Some(tls.clone()));
    assert_eq!(listener.scheme(), "https");
    let routes = warp::path("hello").map(|| Response::new("hello".into()));
    let routes = routes.or_else(|_| async { Ok::<_, Infallible>((Response::new("".into()),)) });
    tokio::spawn(serve(
        listener,
        routes,
        limits(),
        overloaded,
        None,
        std::future::pending(),
    ));

    let url = format!("https://{address}/hello");
    let answer = trusting(&first).get(&url).send().await.unwrap();
    assert_eq!(answer.text().await.unwrap(), "hello");
    let plain = trusting(&first)
        .get(format!("http://{address}/hello"))
        .send()
        .await;
    assert!(plain.is_err(), "no plain HTTP on a TLS listener: {plain:?}");

    // The files renewed: unchanged until looked at, then the new certificate only.
    assert!(!tls.reload_if_changed().unwrap(), "nothing changed yet");
    let second = self_signed(&cert, &key, SystemTime::UNIX_EPOCH + Duration::from_secs(2));
    assert!(tls.reload_if_changed().unwrap(), "the renewal is taken");
    let answer = trusting(&second).get(&url).send().await.unwrap();
    assert_eq!(answer.text().await.unwrap(), "hello");
    let old = trusting(&first).get(&url).send().await;
    assert!(old.is_err(), "the old certificate is gone: {old:?}");

    // A key written before its certificate: the pair in use stays until both are whole.
    let third = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    std::fs::write(&key, third.signing_key.serialize_pem()).unwrap();
    let problem = tls.reload_if_changed().unwrap_err();
    assert!(
        problem.starts_with(&format!("TLS key file {}: not the key of", key.display())),
        "{problem}"
    );
    let answer = trusting(&second).get(&url).send().await.unwrap();
    assert_eq!(answer.text().await.unwrap(), "hello");
}

#[test]
fn files_that_cannot_be_used_are_refused_in_one_line_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let missing = ServerTls::from_pem_files(&cert, &key).unwrap_err();
    assert!(
        missing.starts_with(&format!("TLS certificate file {}: ", cert.display())),
        "{missing}"
    );
    self_signed(&cert, &key, SystemTime::now());
    std::fs::write(&cert, "not a certificate\n").unwrap();
    let empty = ServerTls::from_pem_files(&cert, &key).unwrap_err();
    assert_eq!(
        empty,
        format!(
            "TLS certificate file {}: no certificate in it (PEM, -----BEGIN CERTIFICATE-----)",
            cert.display()
        )
    );
    self_signed(&cert, &key, SystemTime::now());
    std::fs::write(&key, "-----BEGIN CERTIFICATE-----\n").unwrap();
    let keyless = ServerTls::from_pem_files(&cert, &key).unwrap_err();
    assert!(
        keyless.starts_with(&format!("TLS key file {}: ", key.display())),
        "{keyless}"
    );
    for problem in [missing, empty, keyless] {
        assert_eq!(problem.lines().count(), 1, "{problem}");
    }
}
