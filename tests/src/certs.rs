//! `TestCerts`: the PEM files of a TLS server made for one test with `rcgen`: a CA, and a
//! certificate for `127.0.0.1` and `localhost` it signed, with its key. Servers in the tests
//! (Redis with `--tls-port`, `searchd leaf`) show the certificate; clients trust the CA.

use std::path::{Path, PathBuf};

/// A test's CA and a server certificate it signed, as files.
#[derive(Clone, Debug)]
pub struct TestCerts {
    /// The CA's certificate: what a client trusts.
    pub ca: PathBuf,
    /// The server's certificate.
    pub cert: PathBuf,
    /// The server certificate's key.
    pub key: PathBuf,
}

impl TestCerts {
    /// Makes a CA and a certificate for `127.0.0.1` and `localhost` signed by it, in `dir`
    /// (`ca.pem`, `server.pem`, `server.key`).
    pub fn write(dir: &Path) -> TestCerts {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
        let ca_key = KeyPair::generate().expect("a CA key");
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = ca_params.self_signed(&ca_key).expect("the CA");
        let key = KeyPair::generate().expect("a server key");
        let params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".into()])
            .expect("server params");
        let issuer = rcgen::Issuer::new(ca_params, ca_key);
        let cert = params
            .signed_by(&key, &issuer)
            .expect("the server certificate");
        let files = TestCerts {
            ca: dir.join("ca.pem"),
            cert: dir.join("server.pem"),
            key: dir.join("server.key"),
        };
        for (file, pem) in [
            (&files.ca, ca.pem()),
            (&files.cert, cert.pem()),
            (&files.key, key.serialize_pem()),
        ] {
            std::fs::write(file, pem).expect("a PEM file written");
        }
        files
    }
}
