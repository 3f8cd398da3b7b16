//! The child's `main`: `crawler pdf-text` and `searchd pdf-text` (hidden subcommands) call
//! [`run_child`], and so does the unit tests' child entry when they re-enter their own binary.

use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::confine::confine;
use super::extract::extract;
use super::wire::{ChildReport, limits_from_env, write_frame};

/// Reads one PDF on stdin and writes one answer frame on stdout, under the limits the parent
/// handed over in the environment (the defaults when run by hand): first the limits are set
/// on this process, then at most the input cap is read, then the text is extracted. Panics are
/// caught and answered (quietly: no panic message on stderr). Fails only when stdout cannot be
/// written; a process that dies instead (a signal at a limit) is answered for by the parent.
pub fn run_child() -> std::io::Result<()> {
    let report = confined_report();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    write_frame(&mut out, &report)?;
    out.flush()
}

/// The report: limits, input, extraction.
fn confined_report() -> ChildReport {
    let limits = match limits_from_env() {
        Ok(limits) => limits,
        Err(reason) => return ChildReport::Failed(reason),
    };
    if let Err(error) = confine(&limits) {
        return ChildReport::Failed(error.to_string());
    }
    let mut bytes = Vec::new();
    let cap = limits.max_input_bytes.saturating_add(1) as u64;
    if let Err(error) = std::io::stdin().lock().take(cap).read_to_end(&mut bytes) {
        return ChildReport::Failed(format!("cannot read the PDF on stdin: {error}"));
    }
    if bytes.len() > limits.max_input_bytes {
        return ChildReport::TooLarge { bytes: bytes.len() };
    }
    std::panic::set_hook(Box::new(|_| {}));
    catch_unwind(AssertUnwindSafe(|| extract(&bytes, &limits)))
        .unwrap_or_else(|panic| ChildReport::Crashed(panic_message(panic.as_ref())))
}

/// A panic's message, when it is a string.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message");
    format!("the parser panicked: {message}")
}
