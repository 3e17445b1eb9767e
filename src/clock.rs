//! The time as taw writes it into tmux options: Unix milliseconds.

use std::time::{SystemTime, UNIX_EPOCH};

/// Unix time in milliseconds.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Unix time in seconds.
pub(crate) fn now_unix() -> u64 {
    now_ms() / 1000
}

/// The local date and time of a Unix second: (`2026-12-01`, `16:23`).
fn local(unix: u64) -> (String, String) {
    let time = unix as libc::time_t;
    // SAFETY: localtime_r writes only the tm it is given.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    unsafe {
        libc::localtime_r(&time, &mut tm);
    }
    (
        format!(
            "{:04}-{:02}-{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday
        ),
        format!("{:02}:{:02}", tm.tm_hour, tm.tm_min),
    )
}

/// A time for a person: `16:23`, with its date when that is not the day
/// of `against` (`2026-11-30 16:23`).
pub(crate) fn local_time_of(unix: u64, against: u64) -> String {
    let (date, time) = local(unix);
    if date == local(against).0 {
        time
    } else {
        format!("{date} {time}")
    }
}
