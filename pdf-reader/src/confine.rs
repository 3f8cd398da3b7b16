//! The child's own bounds, set with `setrlimit` before it reads the PDF: an address space
//! (`RLIMIT_AS`), CPU time (`RLIMIT_CPU`) and no core dump (`RLIMIT_CORE` = 0).
//!
//! The workspace forbids `unsafe`, so the parent cannot set them between `fork` and `exec`
//! (`pre_exec`); the child sets them on itself, first thing, through the `rlimit` crate's safe
//! calls. Limits are only lowered, never raised past the hard limit the child was given.

use rlimit::Resource;

use super::limits::ChildLimits;

/// A bound the child could not set on itself; it then reads nothing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfineError {
    /// `setrlimit` or `getrlimit` refused.
    #[error("cannot set {resource}: {source}")]
    Limit {
        /// `RLIMIT_AS`, `RLIMIT_CPU` or `RLIMIT_CORE`.
        resource: &'static str,
        /// The system's answer.
        source: std::io::Error,
    },
    /// `/proc/self/status` could not be read or holds no `VmSize`.
    #[error("cannot read this process's mapped size: {0}")]
    MappedSize(std::io::Error),
}

/// Sets the child's bounds: no core dump; `limits.cpu_secs` of CPU (`SIGXCPU` then, `SIGKILL`
/// a second later); and an address space of what is mapped now plus `limits.memory_bytes`,
/// so that the limit counts what the PDF costs, not the size of the binary and its threads.
pub(crate) fn confine(limits: &ChildLimits) -> Result<(), ConfineError> {
    lower(Resource::CORE, "RLIMIT_CORE", 0, 0)?;
    let cpu = limits.cpu_secs.max(1);
    lower(Resource::CPU, "RLIMIT_CPU", cpu, cpu.saturating_add(1))?;
    let address_space = mapped_bytes()?.saturating_add(limits.memory_bytes);
    lower(Resource::AS, "RLIMIT_AS", address_space, address_space)
}

/// Sets `resource` to `soft` and `hard`, each no higher than the hard limit in force.
fn lower(resource: Resource, name: &'static str, soft: u64, hard: u64) -> Result<(), ConfineError> {
    let failed = |source| ConfineError::Limit {
        resource: name,
        source,
    };
    let (_, current_hard) = rlimit::getrlimit(resource).map_err(failed)?;
    let hard = hard.min(current_hard);
    rlimit::setrlimit(resource, soft.min(hard), hard).map_err(failed)
}

/// The bytes of address space this process has mapped (`VmSize` in `/proc/self/status`).
pub(crate) fn mapped_bytes() -> Result<u64, ConfineError> {
    status_kib("VmSize:")
        .map(|kib| kib.saturating_mul(1024))
        .map_err(ConfineError::MappedSize)
}

/// A `/proc/self/status` figure given in kB, such as `VmSize:` or `VmRSS:`.
pub(crate) fn status_kib(field: &str) -> std::io::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no {field} in /proc/self/status")))
}
