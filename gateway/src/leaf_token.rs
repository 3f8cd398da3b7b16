//! [`LeafToken`]: the secret a root and its leaves share (`[searchd] leaf_token_file`). A
//! root sends it with every call (`Authorization: Bearer TOKEN`); a leaf refuses a call
//! without it, or with another, with a bare 401 that says nothing more. Compared in constant
//! time, so the answer's timing tells nothing of how much of a guess was right.

use std::path::Path;
use std::sync::Arc;

/// The fewest bytes a token may have: a short one could be guessed.
const MIN_TOKEN_BYTES: usize = 16;
/// The most bytes a token file may hold.
const MAX_TOKEN_BYTES: usize = 4096;

/// A root and its leaves' shared secret.
#[derive(Clone)]
pub struct LeafToken(Arc<str>);

impl std::fmt::Debug for LeafToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LeafToken(***)")
    }
}

impl LeafToken {
    /// The token in `path`: its one line, trimmed. A file missing, over 4 KiB, not UTF-8,
    /// of more than one line or shorter than 16 bytes is refused, in one line
    /// naming the file (never the token).
    pub fn read(path: &Path) -> Result<LeafToken, String> {
        let refused = |why: &str| format!("leaf token file {}: {why}", path.display());
        let bytes = std::fs::read(path).map_err(|e| refused(&e.to_string()))?;
        if bytes.len() > MAX_TOKEN_BYTES {
            return Err(refused("over 4 KiB: it should hold one line, the token"));
        }
        let text = String::from_utf8(bytes).map_err(|_| refused("not UTF-8"))?;
        let token = text.trim();
        if token.lines().count() > 1 || token.chars().any(char::is_control) {
            return Err(refused("it should hold one line, the token"));
        }
        if token.len() < MIN_TOKEN_BYTES {
            return Err(refused(&format!(
                "the token is shorter than {MIN_TOKEN_BYTES} bytes: make one with \
                 `head -c 32 /dev/urandom | base64`"
            )));
        }
        Ok(LeafToken(token.into()))
    }

    /// The `Authorization` header's value a root sends.
    pub(crate) fn header(&self) -> String {
        format!("Bearer {}", self.0)
    }

    /// Whether an `Authorization` header's value carries this token.
    pub(crate) fn admits(&self, header: Option<&str>) -> bool {
        let Some(given) = header.and_then(|h| h.strip_prefix("Bearer ")) else {
            return false;
        };
        let (given, wanted) = (given.trim().as_bytes(), self.0.as_bytes());
        // Every byte compared, whatever differs first.
        let mut differ = given.len() ^ wanted.len();
        for (i, &w) in wanted.iter().enumerate() {
            differ |= usize::from(w ^ given.get(i).copied().unwrap_or(!w));
        }
        differ == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("token");
        std::fs::write(&path, text).expect("written");
        (dir, path)
    }

    #[test]
    fn a_token_is_read_from_its_file_and_admits_only_itself() {
        let (_dir, path) = written(b"  0123456789abcdefXYZ\n");
        let token = LeafToken::read(&path).expect("a good token");
        assert_eq!(token.header(), "Bearer 0123456789abcdefXYZ");
        assert!(token.admits(Some("Bearer 0123456789abcdefXYZ")));
        for refused in [
            None,
            Some(""),
            Some("0123456789abcdefXYZ"),
            Some("Bearer 0123456789abcdefXY"),
            Some("Bearer 0123456789abcdefXYZ0"),
            Some("Bearer 0123456789abcdefXYz"),
            Some("Basic 0123456789abcdefXYZ"),
        ] {
            assert!(!token.admits(refused), "{refused:?}");
        }
        assert_eq!(format!("{token:?}"), "LeafToken(***)");
    }

    #[test]
    fn a_weak_or_odd_token_file_is_refused_in_one_line_without_the_token() {
        for (text, why) in [
            (&b"short-token"[..], "shorter than 16"),
            (&b"0123456789abcdef\n0123456789abcdef"[..], "one line"),
            (&b"\xff\xfe0123456789abcdef"[..], "not UTF-8"),
        ] {
            let (_dir, path) = written(text);
            let error = LeafToken::read(&path).expect_err("refused");
            assert!(
                error.contains(why) && error.contains("leaf token file"),
                "{error}"
            );
            assert!(!error.contains("0123456789abcdef") && error.lines().nth(1).is_none());
        }
        let (_dir, path) = written(&[b'a'; 5000]);
        assert!(
            LeafToken::read(&path)
                .expect_err("too big")
                .contains("4 KiB")
        );
        let missing = LeafToken::read(Path::new("/nonexistent/leaf-token")).expect_err("missing");
        assert!(missing.contains("/nonexistent/leaf-token"), "{missing}");
    }
}
