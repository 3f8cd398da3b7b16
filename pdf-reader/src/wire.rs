//! What the parent and the child say to each other. The parent hands the limits over in one
//! environment variable (JSON) and the PDF's bytes on stdin; the child answers with one frame
//! on stdout: a tag, the length of the JSON that follows, a newline, the JSON.
//!
//! The frame is found by its tag wherever it is in the output, so lines the process prints
//! around it (the test harness's `running 1 test`, when the unit tests re-enter their own
//! binary as the child) do not hide it; the length says where it ends, so text inside it
//! that looks like a tag cannot either.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::limits::ChildLimits;
use super::outcome::PdfDocument;

/// The environment variable that carries [`ChildLimits`] to the child as JSON. The unit tests'
/// child entry runs only when it is set.
pub(crate) const LIMITS_ENV: &str = "SIFT_PDF_CHILD_LIMITS";

/// The frame's tag; the length in decimal and a newline follow it.
const TAG: &[u8] = b"@@sift-pdf-answer v1 ";

/// The most digits a frame's length has.
const MAX_LENGTH_DIGITS: usize = 12;

/// What the child found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ChildReport {
    /// The text and metadata, perhaps cut at the page or text cap.
    Read(PdfDocument),
    /// An `/Encrypt` dictionary whose user password is not empty.
    Encrypted,
    /// No `%PDF-` header at the start.
    NotPdf,
    /// The parser refused the file; its reason.
    Malformed(String),
    /// More than the input cap on stdin: `bytes` were read before stopping.
    TooLarge {
        /// The bytes read, one past the cap.
        bytes: usize,
    },
    /// The parser panicked outside any page; the panic's message.
    Crashed(String),
    /// The child could not set its limits or read its input; nothing was parsed.
    Failed(String),
}

/// Why no answer could be taken from a child's output.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrameError {
    /// No tag in the output.
    #[error("no answer frame in the child's output")]
    Missing,
    /// The tag is not followed by a length and a newline.
    #[error("the answer frame's length is unreadable")]
    BadLength,
    /// The output ends before the length says the frame does.
    #[error("the answer frame is cut short")]
    Truncated,
    /// The frame's JSON is not a report.
    #[error("the answer frame is garbled: {0}")]
    Garbled(#[from] serde_json::Error),
}

/// Writes `report` as one frame, on a line of its own, and flushes.
pub(crate) fn write_frame(out: &mut impl Write, report: &ChildReport) -> std::io::Result<()> {
    let json = serde_json::to_vec(report)?;
    out.write_all(b"\n")?;
    out.write_all(TAG)?;
    writeln!(out, "{}", json.len())?;
    out.write_all(&json)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The first frame in `output`.
pub(crate) fn read_frame(output: &[u8]) -> Result<ChildReport, FrameError> {
    let start = find(output, TAG).ok_or(FrameError::Missing)? + TAG.len();
    let rest = output.get(start..).ok_or(FrameError::Truncated)?;
    let digits = rest
        .iter()
        .take(MAX_LENGTH_DIGITS + 1)
        .position(|&byte| byte == b'\n')
        .ok_or(FrameError::BadLength)?;
    let length: usize = std::str::from_utf8(rest.get(..digits).ok_or(FrameError::BadLength)?)
        .ok()
        .and_then(|text| text.parse().ok())
        .ok_or(FrameError::BadLength)?;
    let body_start = digits + 1;
    let json = body_start
        .checked_add(length)
        .and_then(|end| rest.get(body_start..end))
        .ok_or(FrameError::Truncated)?;
    Ok(serde_json::from_slice(json)?)
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The limits the parent handed over, or the defaults when run by hand without them.
pub(crate) fn limits_from_env() -> Result<ChildLimits, String> {
    match std::env::var(LIMITS_ENV) {
        Ok(json) => serde_json::from_str(&json).map_err(|error| format!("{LIMITS_ENV}: {error}")),
        Err(std::env::VarError::NotPresent) => Ok(ChildLimits::default()),
        Err(error) => Err(format!("{LIMITS_ENV}: {error}")),
    }
}

/// [`LIMITS_ENV`]'s value for `limits`.
pub(crate) fn limits_to_env(limits: &ChildLimits) -> String {
    // A struct of integers always serializes.
    serde_json::to_string(limits).unwrap_or_default()
}

#[cfg(test)]
mod frame_tests {
    use super::*;

    #[test]
    fn a_frame_is_found_among_other_lines_and_its_text_cannot_fake_one() {
        let report = ChildReport::Malformed("a \n@@sift-pdf-answer v1 3\n{} inside".into());
        let mut output = b"running 1 test\n".to_vec();
        write_frame(&mut output, &report).expect("written");
        output.extend_from_slice(b"test pdf::tests::child ... ok\n");
        assert_eq!(read_frame(&output).expect("found"), report);
    }

    #[test]
    fn a_frame_cut_anywhere_is_an_error_not_a_panic() {
        let mut output = Vec::new();
        write_frame(&mut output, &ChildReport::NotPdf).expect("written");
        let whole = output.len() - 1;
        for cut in 0..whole {
            assert!(read_frame(&output[..cut]).is_err(), "cut at {cut}");
        }
        assert!(matches!(
            read_frame(b"@@sift-pdf-answer v1 99999999999999999999\n{}"),
            Err(FrameError::BadLength)
        ));
    }
}
