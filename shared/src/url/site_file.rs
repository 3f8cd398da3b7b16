//! [`site_file`]: the file a URL path names inside a directory served as a site (the demo's
//! site and the test web's `sample.test` serve files this way).

use std::path::PathBuf;

/// The file `url_path` names, relative to the site's directory: percent-decoded (a malformed
/// escape or bytes that are not UTF-8 name nothing), `index.html` for a directory (`/`, or a
/// path ending in `/`). `None` for a path without its leading `/`, for empty, `.` or `..`
/// segments, and for segments holding `\`, NUL or `:`: nothing that could leave the directory.
pub fn site_file(url_path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(url_path)?;
    let inner = decoded.strip_prefix('/')?;
    let directory = inner.is_empty() || inner.ends_with('/');
    let inner = inner.strip_suffix('/').unwrap_or(inner);
    let mut relative = PathBuf::new();
    if !inner.is_empty() {
        for segment in inner.split('/') {
            if matches!(segment, "" | "." | "..") || segment.contains(['\\', '\0', ':']) {
                return None;
            }
            relative.push(segment);
        }
    }
    if directory {
        relative.push("index.html");
    }
    Some(relative)
}

/// `path` with every `%XX` decoded; `None` for a malformed escape or a result that is not
/// UTF-8.
fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `text` with its `%XX` escapes decoded: a malformed escape stays as written, and bytes that
/// do not make UTF-8 become U+FFFD (a file name to show or split into words).
pub fn percent_decode_lossy(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes.get(i).copied().unwrap_or_default();
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (byte, hex) {
            (b'%', Some(decoded)) => {
                out.push(decoded);
                i += 3;
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_paths_name_files_inside_the_site_only() {
        let named = |path: &str| site_file(path).map(|p| p.display().to_string());
        assert_eq!(named("/").as_deref(), Some("index.html"));
        assert_eq!(named("/std/").as_deref(), Some("std/index.html"));
        assert_eq!(
            named("/std/vec/struct.Vec.html").as_deref(),
            Some("std/vec/struct.Vec.html")
        );
        assert_eq!(named("/a%20b.html").as_deref(), Some("a b.html"));
        for outside in [
            "/../etc/passwd",
            "/a/%2e%2e/%2e%2e/x",
            "/a//b",
            "/a/./b",
            "/a%5Cb",
            "/%00",
            "/c:x",
            "x",
            "/%ff",
            "/bad%zz",
            "/bad%2",
        ] {
            assert_eq!(named(outside), None, "{outside}");
        }
    }
}
