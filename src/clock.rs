//! The time as taw writes it into tmux options (Unix milliseconds), and
//! the limits on what taw waits for and cannot hurry ([`limits`]).

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long taw waits for what it cannot hurry, in one place: tmux's
/// answer to a call, a new pane's shell coming to its prompt, an agent
/// taking up what it was sent, the clipboard's tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// A stopped or hung tmux server costs a call this long, never more.
    pub tmux: Duration,
    /// A shell not at its prompt by then never will be.
    pub prompt: Duration,
    /// A prompt to an agent that is not working may go unanswered this
    /// long.
    pub activity: Duration,
    /// The clipboard's tool (`wl-paste`, `xclip`, `pngpaste`) has this
    /// long to hand over an image.
    pub clipboard: Duration,
    /// A WebSocket with nothing else to send hears from the server this
    /// often, so a client tells a live socket from a dead one.
    pub beat: Duration,
    /// The web server reads the whole server (what no watcher tells: a
    /// window made, a session closed) at least this often, where tmux's
    /// hooks cannot tell it every change.
    pub structure: Duration,
}

impl Limits {
    const PRODUCTION: Limits = Limits {
        tmux: Duration::from_secs(10),
        prompt: Duration::from_secs(15),
        activity: Duration::from_secs(5),
        clipboard: Duration::from_secs(10),
        beat: Duration::from_secs(25),
        structure: Duration::from_secs(1),
    };

    /// The limits with those `TAW_TEST_LIMITS` names changed, in
    /// milliseconds: `tmux=1500,prompt=3000,activity=800`. A word that does
    /// not read leaves its limit as it was.
    fn with(mut self, text: &str) -> Limits {
        for word in text.split(',') {
            let Some((name, value)) = word.split_once('=') else {
                continue;
            };
            let Ok(ms) = value.trim().parse::<u64>() else {
                continue;
            };
            let limit = Duration::from_millis(ms);
            match name.trim() {
                "tmux" => self.tmux = limit,
                "prompt" => self.prompt = limit,
                "activity" => self.activity = limit,
                "clipboard" => self.clipboard = limit,
                "beat" => self.beat = limit,
                "structure" => self.structure = limit,
                _ => {}
            }
        }
        self
    }
}

/// The limits this process keeps. A debug build, which the tests run,
/// reads `TAW_TEST_LIMITS` so that a test of a limit need not wait the
/// whole of it; a release build never does.
pub(crate) fn limits() -> &'static Limits {
    static LIMITS: OnceLock<Limits> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let asked = cfg!(debug_assertions)
            .then(|| std::env::var("TAW_TEST_LIMITS").ok())
            .flatten();
        match asked {
            Some(text) => Limits::PRODUCTION.with(&text),
            None => Limits::PRODUCTION,
        }
    })
}

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
    // The C type by inference: naming `libc::time_t` warns on musl, whose
    // alias libc deprecates (it is to become 64-bit there).
    let time = unix as _;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_may_shorten_the_limits_it_names() {
        let limits = Limits::PRODUCTION.with("tmux=1500, activity=800,prompt=x,other=1");
        assert_eq!(limits.tmux, Duration::from_millis(1500));
        assert_eq!(limits.activity, Duration::from_millis(800));
        assert_eq!(limits.prompt, Limits::PRODUCTION.prompt);
        assert_eq!(Limits::PRODUCTION.with(""), Limits::PRODUCTION);
    }
}
