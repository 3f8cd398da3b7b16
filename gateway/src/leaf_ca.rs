//! [`LeafCa`]: the certificate authorities a root trusts for its `https://` leaves
//! (`[searchd] leaf_ca_file`), in place of the system's: leaves on a private network carry
//! certificates a private CA signed. A file that cannot be used stops the root with one line
//! naming it.

use std::path::Path;

/// The most bytes a CA file may hold.
const MAX_CA_BYTES: usize = 1 << 20;

/// Certificate authorities a root trusts for its leaves, and only those.
#[derive(Clone, Debug)]
pub struct LeafCa(Vec<reqwest::Certificate>);

impl LeafCa {
    /// The certificates of the PEM file `path`; a file missing, over 1 MiB or without a
    /// certificate is refused, in one line naming it.
    pub fn read(path: &Path) -> Result<Self, String> {
        let refused = |why: &str| format!("leaf CA file {}: {why}", path.display());
        let bytes = std::fs::read(path).map_err(|e| refused(&e.to_string()))?;
        if bytes.len() > MAX_CA_BYTES {
            return Err(refused("over 1 MiB: it should hold a few PEM certificates"));
        }
        let certificates =
            reqwest::Certificate::from_pem_bundle(&bytes).map_err(|e| refused(&e.to_string()))?;
        if certificates.is_empty() {
            return Err(refused(
                "no certificate in it (PEM, -----BEGIN CERTIFICATE-----)",
            ));
        }
        Ok(Self(certificates))
    }

    /// Its certificates.
    pub(crate) fn certificates(&self) -> &[reqwest::Certificate] {
        &self.0
    }
}
