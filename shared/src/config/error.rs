//! Why a config cannot be used: each error is one line that names the file and the key.

use std::path::PathBuf;

/// A value the validation refuses: the full key, as the file spells it, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {problem}")]
pub struct BadValue {
    /// The key: `crawler.delay_ms`, `crawler.hosts."docs.test".deny_urls[2]`.
    pub key: String,
    /// What is wrong with its value.
    pub problem: String,
}

impl BadValue {
    /// A bad value of `key`.
    pub fn new(key: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            problem: problem.into(),
        }
    }
}

/// Why a config could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read (missing, unreadable, not UTF-8).
    #[error("cannot read config {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not TOML, or not TOML of this shape: a syntax error, an unknown key, a
    /// value of the wrong type.
    #[error(
        "config {path} line {line}: {}{message}",
        .key.as_ref().map(|k| format!("{k}: ")).unwrap_or_default()
    )]
    Parse {
        /// The file.
        path: PathBuf,
        /// The line (from 1) where the problem is.
        line: usize,
        /// The full key it concerns, when it concerns one.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A value in the file that the validation refuses.
    #[error("config {path}: {source}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key and what is wrong with it.
        source: BadValue,
    },
    /// A value given by a command-line flag that the validation refuses.
    #[error("{flag}: {source}")]
    Flag {
        /// The flag (`--delay-ms`).
        flag: &'static str,
        /// The key it sets and what is wrong with the value.
        source: BadValue,
    },
    /// A value set in code (the defaults, a program's own settings) that the validation
    /// refuses.
    #[error(transparent)]
    Value(#[from] BadValue),
}
