//! Where a command writes its report (`crawler explain`, `status`, `report`, `robots
//! check`): standard output, whose reader may stop reading early (`crawler explain URL |
//! head`). A write to a pipe nobody reads fails with [`ReaderGone`] inside the
//! [`std::io::Error`], and [`crate::logging::exit_code`] ends such a run quietly and
//! successfully, as ripgrep and `cat` do, instead of printing "Broken pipe".
//!
//! Only writes through [`ReportOut`] are told apart: a broken pipe anywhere else (a socket,
//! a child's stdin) is still an error.

use std::io::{self, Write};

/// The reader of a command's report went away before the report was written.
#[derive(Debug, thiserror::Error)]
#[error("the reader of the output went away")]
pub struct ReaderGone;

/// A report's writer: `W`'s writes, with a broken pipe made a [`ReaderGone`].
#[derive(Debug)]
pub struct ReportOut<W>(W);

impl<W: Write> ReportOut<W> {
    /// Reports to `out`.
    pub fn new(out: W) -> Self {
        Self(out)
    }
}

/// A report to standard output.
pub fn stdout() -> ReportOut<io::StdoutLock<'static>> {
    ReportOut::new(io::stdout().lock())
}

impl<W: Write> Write for ReportOut<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes).map_err(reader_gone)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(reader_gone)
    }
}

fn reader_gone(error: io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, ReaderGone)
    } else {
        error
    }
}

/// Whether `error`, or one of its causes, is a report's reader gone.
pub fn is_reader_gone(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(error) = next {
        // `io::Error::source` skips its own payload, so the payload is looked at here.
        let gone = error
            .downcast_ref::<io::Error>()
            .and_then(io::Error::get_ref)
            .is_some_and(|inner| inner.is::<ReaderGone>());
        if gone {
            return true;
        }
        next = error.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writing_to_a_pipe_whose_reader_is_gone_is_told_apart() {
        let (reader, writer) = io::pipe().expect("a pipe");
        drop(reader);
        let mut out = ReportOut::new(writer);
        let error = writeln!(out, "a line nobody reads").expect_err("the reader is gone");
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
        assert!(is_reader_gone(&error));
    }

    #[test]
    fn other_broken_pipes_and_errors_are_not_a_reader_gone() {
        let (reader, mut writer) = io::pipe().expect("a pipe");
        drop(reader);
        let error = writer.write_all(b"x").expect_err("the reader is gone");
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
        assert!(!is_reader_gone(&error));
        assert!(!is_reader_gone(&io::Error::other("disk on fire")));
    }

    #[test]
    fn a_report_is_written_whole_while_read() {
        let (mut reader, writer) = io::pipe().expect("a pipe");
        let mut out = ReportOut::new(writer);
        writeln!(out, "one").expect("written");
        writeln!(out, "two").expect("written");
        drop(out);
        let mut read = String::new();
        io::Read::read_to_string(&mut reader, &mut read).expect("read");
        assert_eq!(read, "one\ntwo\n");
    }
}
