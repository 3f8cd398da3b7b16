//! Tests of `archive.rs`.

use super::*;
