//! A WARC record's header: the version line and named fields, read and written as WARC 1.1
//! lays them out (`WARC/1.1`, `Name: value` lines, CRLF, an empty line); the record types;
//! the `sha1:` base32 digests; and record ids.

use std::io::{self, Write};

/// The version line this crawler writes.
pub const VERSION: &str = "WARC/1.1";

/// What a record holds (`WARC-Type`), by what the import does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordType {
    /// An answer: imported when it holds an HTTP response.
    Response,
    /// A request sent: skipped on import.
    Request,
    /// About the file: skipped.
    Warcinfo,
    /// Anything else (`metadata`, `resource`, `revisit`, `conversion`, `continuation`, an
    /// unknown type): skipped, counted under its name.
    Other,
}

impl RecordType {
    /// The type a `WARC-Type` value names (case-insensitive).
    pub fn of(value: &str) -> RecordType {
        match value.trim().to_ascii_lowercase().as_str() {
            "response" => RecordType::Response,
            "request" => RecordType::Request,
            "warcinfo" => RecordType::Warcinfo,
            _ => RecordType::Other,
        }
    }
}

/// A record's named fields, in order; names compared case-insensitively.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarcHeader {
    /// `(name, value)` pairs as they came (or are to be written).
    pub fields: Vec<(String, String)>,
}

impl WarcHeader {
    /// A field's first value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Adds a field (its value's CR and LF become spaces: a value is one line).
    pub fn add(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
        let value: String = value.into();
        let value = if value.contains(['\r', '\n']) {
            value.replace(['\r', '\n'], " ")
        } else {
            value
        };
        self.fields.push((name.to_string(), value));
        self
    }

    /// The record's type.
    pub fn record_type(&self) -> RecordType {
        self.get("WARC-Type")
            .map_or(RecordType::Other, RecordType::of)
    }

    /// `WARC-Target-URI`, without the angle brackets some writers put around it.
    pub fn target_uri(&self) -> Option<&str> {
        self.get("WARC-Target-URI").map(|uri| {
            let uri = uri.trim();
            uri.strip_prefix('<')
                .and_then(|u| u.strip_suffix('>'))
                .unwrap_or(uri)
        })
    }

    /// Writes the version line, the fields and the empty line that ends them.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        write!(out, "{VERSION}\r\n")?;
        for (name, value) in &self.fields {
            write!(out, "{name}: {value}\r\n")?;
        }
        out.write_all(b"\r\n")
    }

    /// Reads one field line (without its line end) into the header: `Name: value`, or a
    /// continuation (a line starting with a space or tab) of the field before. Returns
    /// `false` for a line that is neither.
    pub fn read_line(&mut self, line: &str) -> bool {
        if line.starts_with([' ', '\t']) {
            return match self.fields.last_mut() {
                Some((_, value)) => {
                    value.push(' ');
                    value.push_str(line.trim());
                    true
                }
                None => false,
            };
        }
        match line.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => {
                self.fields
                    .push((name.trim().to_string(), value.trim().to_string()));
                true
            }
            _ => false,
        }
    }
}

/// `sha1:` and the base32 of the SHA-1 of `parts` (joined): the digest form warcio, wget and
/// Heritrix write.
pub fn sha1_digest<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut sha = sha1_smol::Sha1::new();
    for part in parts {
        sha.update(part);
    }
    format!(
        "sha1:{}",
        data_encoding::BASE32.encode(&sha.digest().bytes())
    )
}

/// `<urn:uuid:...>`: a name-based UUID (version 5's layout: SHA-1 of the name, version and
/// variant bits set) of `name`'s parts, so the same record of the same store gets the same
/// id in every export.
pub fn record_id(name: &[&[u8]]) -> String {
    let mut sha = sha1_smol::Sha1::new();
    sha.update(b"sift WARC record\0");
    for part in name {
        sha.update(part);
        sha.update(b"\0");
    }
    let digest = sha.digest().bytes();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x50;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha1_in_base32_as_warcio_writes_them() {
        // SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d (FIPS 180-1's example),
        // in RFC 4648 base32.
        assert_eq!(
            sha1_digest([&b"a"[..], b"bc"]),
            "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"
        );
        assert_eq!(
            sha1_digest([&b""[..]]),
            "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
            "SHA-1 of nothing: da39a3ee..."
        );
    }

    #[test]
    fn record_ids_are_version_5_uuids_that_repeat_for_the_same_name() {
        let id = record_id(&[b"response", b"http://a.test/", b"1"]);
        assert_eq!(id, record_id(&[b"response", b"http://a.test/", b"1"]));
        assert_ne!(id, record_id(&[b"request", b"http://a.test/", b"1"]));
        let uuid = id
            .strip_prefix("<urn:uuid:")
            .and_then(|u| u.strip_suffix('>'))
            .expect("urn:uuid in angle brackets");
        let groups: Vec<&str> = uuid.split('-').collect();
        assert_eq!(
            groups.iter().map(|g| g.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(groups[2].starts_with('5'), "version 5: {uuid}");
        assert!(
            matches!(groups[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'),
            "RFC 4122 variant: {uuid}"
        );
    }

    #[test]
    fn fields_are_read_with_continuations_and_found_in_any_case() {
        let mut header = WarcHeader::default();
        for line in [
            "WARC-Type: response",
            "WARC-Target-URI: <http://a.test/x>",
            "X-Long: one",
            "\ttwo",
        ] {
            assert!(header.read_line(line), "{line}");
        }
        assert!(!header.read_line("no colon here"));
        assert_eq!(header.record_type(), RecordType::Response);
        assert_eq!(header.target_uri(), Some("http://a.test/x"));
        assert_eq!(header.get("x-long"), Some("one two"));
        let mut written = Vec::new();
        WarcHeader::default()
            .add("WARC-Type", "request")
            .add("X-Bad", "a\r\nb")
            .write_to(&mut written)
            .expect("written");
        assert_eq!(
            written,
            b"WARC/1.1\r\nWARC-Type: request\r\nX-Bad: a  b\r\n\r\n"
        );
    }
}
