//! Tests of `http.rs`.

use super::*;
