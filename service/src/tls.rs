//! [`ServerTls`]: HTTPS on a server's listener, from a certificate chain and its key in PEM
//! files (what certbot, `openssl req` or a private CA hands an operator).
//!
//! - The files are read at start: a file missing, without a certificate or key, or a key
//!   that is not the certificate's stops the server with one line naming the file.
//! - A renewed certificate is taken without a restart: the files are looked at every
//!   [`RELOAD_EVERY`] and read again when either changed; new handshakes use the new pair,
//!   connections open keep theirs. A pair that cannot be used (a key written before its
//!   certificate, say) is logged and the old one kept until the files are whole.
//! - TLS 1.2 and 1.3 only (rustls's safe defaults, ring's ciphers); HTTP/1.1 by ALPN; no
//!   client certificates (callers prove themselves with a token, see searchd's leaves).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio_rustls::TlsAcceptor;

/// How often the certificate and key files are looked at for a renewal.
pub const RELOAD_EVERY: Duration = Duration::from_secs(10);

/// A listener's TLS: the certificate it shows and the files it came from.
#[derive(Clone)]
pub struct ServerTls {
    acceptor: TlsAcceptor,
    current: Arc<Current>,
}

impl fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerTls")
            .field("cert", &self.current.cert)
            .field("key", &self.current.key)
            .finish()
    }
}

/// The pair handshakes use now, and the files' modification times it was read at.
struct Current {
    cert: PathBuf,
    key: PathBuf,
    provider: Arc<CryptoProvider>,
    pair: RwLock<(Arc<CertifiedKey>, Stamps)>,
}

impl fmt::Debug for Current {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Current").field("cert", &self.cert).finish()
    }
}

/// The modification times of the certificate and key files.
type Stamps = (Option<SystemTime>, Option<SystemTime>);

impl ServerTls {
    /// HTTPS with the certificate chain in `cert` (the server's own first) and its private
    /// key in `key`; each problem is one line naming the file.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Self, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let stamps = stamps(cert, key);
        let pair = certified(cert, key, &provider)?;
        let current = Arc::new(Current {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            provider: Arc::clone(&provider),
            pair: RwLock::new((Arc::new(pair), stamps)),
        });
        let resolver = Arc::new(Resolver(Arc::clone(&current)));
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .with_no_client_auth()
            .with_cert_resolver(resolver);
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            current,
        })
    }

    /// What accepts a connection's handshake.
    pub(crate) fn acceptor(&self) -> &TlsAcceptor {
        &self.acceptor
    }

    /// Reads the files again when either changed since they were read: `Ok(true)` when a new
    /// pair is in use, `Ok(false)` when nothing changed, the problem when the files changed
    /// but cannot be used (the old pair stays in use, and is tried again next time).
    pub fn reload_if_changed(&self) -> Result<bool, String> {
        let current = &self.current;
        let now = stamps(&current.cert, &current.key);
        let read_at = current
            .pair
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .1;
        if now == read_at {
            return Ok(false);
        }
        let pair = certified(&current.cert, &current.key, &current.provider)?;
        *current.pair.write().unwrap_or_else(PoisonError::into_inner) = (Arc::new(pair), now);
        Ok(true)
    }

    /// Calls [`reload_if_changed`](Self::reload_if_changed) every [`RELOAD_EVERY`] (off the
    /// async threads), logging a new pair and each new problem once, until dropped.
    pub(crate) async fn reload_forever(self) {
        let mut last_problem = None;
        loop {
            tokio::time::sleep(RELOAD_EVERY).await;
            let tls = self.clone();
            let outcome = match tokio::task::spawn_blocking(move || tls.reload_if_changed()).await {
                Ok(outcome) => outcome,
                Err(error) => Err(error.to_string()),
            };
            match outcome {
                Ok(true) => {
                    tracing::info!(cert = %self.current.cert.display(), "TLS certificate renewed");
                    last_problem = None;
                }
                Ok(false) => {}
                Err(problem) => {
                    if last_problem.as_ref() != Some(&problem) {
                        tracing::warn!(%problem, "cannot use the changed TLS files; the old certificate stays in use");
                    }
                    last_problem = Some(problem);
                }
            }
        }
    }
}

/// Gives every handshake the pair in use now.
#[derive(Debug)]
struct Resolver(Arc<Current>);

impl ResolvesServerCert for Resolver {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let pair = self.0.pair.read().unwrap_or_else(PoisonError::into_inner);
        Some(Arc::clone(&pair.0))
    }
}

/// The files' modification times (`None` for a file that cannot be looked at).
fn stamps(cert: &Path, key: &Path) -> Stamps {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    (modified(cert), modified(key))
}

/// The certificate chain of `cert` with the key of `key`, checked to belong together.
fn certified(cert: &Path, key: &Path, provider: &CryptoProvider) -> Result<CertifiedKey, String> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("TLS certificate file {}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "TLS certificate file {}: no certificate in it (PEM, -----BEGIN CERTIFICATE-----)",
            cert.display()
        ));
    }
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| match e {
        pem::Error::NoItemsFound => format!(
            "TLS key file {}: no private key in it (PEM, -----BEGIN PRIVATE KEY-----)",
            key.display()
        ),
        other => format!("TLS key file {}: {other}", key.display()),
    })?;
    CertifiedKey::from_der(chain, private, provider).map_err(|e| {
        format!(
            "TLS key file {}: not the key of {}'s certificate ({e})",
            key.display(),
            cert.display()
        )
    })
}
