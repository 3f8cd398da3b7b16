//! The checks the sections share: each turns a raw value into a typed one, or says what is
//! wrong with it under its full key.

use std::time::Duration;

use super::BadValue;

/// `ms` milliseconds (any number is a duration, 0 included).
pub(super) fn millis(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// `ms` milliseconds, at least 1 (a timeout of 0 would fail everything).
pub(super) fn positive_millis(key: &str, ms: u64) -> Result<Duration, BadValue> {
    if ms == 0 {
        return Err(BadValue::new(key, "must be at least 1 (milliseconds)"));
    }
    Ok(Duration::from_millis(ms))
}

/// `n` as a non-zero integer type (`NonZeroUsize`, ...): it must be at least 1.
pub(super) fn at_least_one<T, N: TryFrom<T>>(key: &str, n: T) -> Result<N, BadValue> {
    N::try_from(n).map_err(|_| BadValue::new(key, "must be at least 1"))
}

/// A size in bytes of at least 1 MiB (a memory budget below that would starve the store).
pub(super) fn at_least_a_mebibyte(key: &str, bytes: usize) -> Result<usize, BadValue> {
    if bytes < 1 << 20 {
        return Err(BadValue::new(key, "must be at least 1048576 (1 MiB)"));
    }
    Ok(bytes)
}

/// A weight that must be a finite number, 0 or more.
pub(super) fn weight(key: &str, value: f32) -> Result<f32, BadValue> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(BadValue::new(
            key,
            format!("{value} is not a weight: give a finite number, 0 or more"),
        ))
    }
}

/// A host name as a URL's host is spelled once canonical: lowercase, IDN in punycode; no
/// scheme, port or path.
pub(super) fn host_name(key: &str, name: &str) -> Result<String, BadValue> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(BadValue::new(key, "names no host"));
    }
    match url::Host::parse(trimmed) {
        Ok(host) => Ok(host.to_string()),
        Err(error) => Err(BadValue::new(
            key,
            format!(
                "{name:?} is not a host name ({error}; give a bare name such as docs.example.org, no scheme or port)"
            ),
        )),
    }
}
