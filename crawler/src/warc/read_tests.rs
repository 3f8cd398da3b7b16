//! Tests of `read.rs`.

use super::*;
