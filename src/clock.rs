//! The time as taw writes it into tmux options: Unix milliseconds.

use std::time::{SystemTime, UNIX_EPOCH};

/// Unix time in milliseconds.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
