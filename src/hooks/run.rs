//! Running a `[hooks]` command, and the log of the ones that failed.
//!
//! A command line runs as `/bin/sh -c LINE` (so `~/bin/push` and
//! `"$TAW_MESSAGE"` work as a person writes them), in the event's folder,
//! with the environment a new pane of the event's session would get plus
//! the `TAW_*` variables, and the event's JSON on standard input. Nothing
//! of the event is ever put into the line itself.

use super::payload::Delivery;
use crate::exec::{Failure, Program};
use crate::tmux::Tmux;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// The most of each output stream a hook's run keeps, and of a veto's
/// standard error in its refusal.
pub(crate) const KEPT_OUTPUT: usize = 16 * 1024;

/// The line a kept stream starts with when it was longer.
pub(crate) const CUT_NOTE: &str = "(earlier output cut; the last 16 KiB follow)\n";

/// The log's size past which its older half is dropped.
const LOG_BOUND: u64 = 256 * 1024;

/// How a hook command's run went, in `taw hooks test`'s shape.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub(crate) struct HookRun {
    pub command: String,
    pub dir: String,
    pub ok: bool,
    pub status: Option<i32>,
    pub timed_out: bool,
    pub failure: Option<String>,
    pub stdout: String,
    pub stderr: String,
}

/// `[hooks] timeout_seconds` as a limit: `None` for 0 (no limit).
pub(crate) fn event_limit(seconds: f64) -> Option<Duration> {
    (seconds > 0.0).then(|| Duration::from_secs_f64(seconds.min(3600.0)))
}

/// How long a hook may run, and the setting that says so.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limit {
    pub limit: Option<Duration>,
    pub setting: &'static str,
}

impl Limit {
    /// An event hook's: `[hooks] timeout_seconds`.
    pub(crate) fn event(seconds: f64) -> Limit {
        Limit {
            limit: event_limit(seconds),
            setting: "[hooks] timeout_seconds",
        }
    }

    /// A veto's: `[sessions] hook_timeout_seconds`.
    pub(crate) fn veto(limit: Option<Duration>) -> Limit {
        Limit {
            limit,
            setting: "[sessions] hook_timeout_seconds",
        }
    }
}

/// Runs one command line for a delivery, to its end or its limit.
pub(crate) fn run_command(command: &str, delivery: &Delivery, limit: Limit) -> HookRun {
    let input = serde_json::to_vec(&delivery.input()).unwrap_or_default();
    let mut run = HookRun {
        command: command.to_string(),
        dir: delivery.dir.display().to_string(),
        ..HookRun::default()
    };
    let program = Program::new("/bin/sh")
        .args(["-c", command])
        .env_clear()
        .envs(delivery.environment())
        .current_dir(&delivery.dir)
        .input(input)
        .limit(limit.limit)
        // One byte more than is shown, to tell a cut stream.
        .stdout_tail(KEPT_OUTPUT + 1)
        .stderr_tail(KEPT_OUTPUT + 1);
    match program.output() {
        Ok(output) => {
            run.status = output.status.code();
            run.ok = output.status.success();
            run.stdout = kept_text(&output.stdout);
            run.stderr = kept_text(&output.stderr);
            if run.status.is_none() {
                run.failure = Some("it was killed by a signal".into());
            }
        }
        Err(Failure::TimedOut(timeout)) => {
            run.timed_out = true;
            run.failure = Some(format!(
                "it ran past {} ({}) and was stopped",
                limit.setting,
                crate::exec::seconds(timeout)
            ));
        }
        Err(other) => run.failure = Some(other.describe("/bin/sh")),
    }
    run
}

/// A stream's kept bytes as text: its last 16 KiB, after [`CUT_NOTE`] when
/// there was more.
pub(crate) fn kept_text(bytes: &[u8]) -> String {
    crate::exec::tail_text(bytes, KEPT_OUTPUT)
}

/// `<state>/logs/hooks.log`.
pub(crate) fn log_path() -> PathBuf {
    crate::paths::state_dir().join("logs").join("hooks.log")
}

/// Logs a run that failed or timed out; a run that went well leaves no line.
pub(crate) fn log_failure(event: crate::events::Event, command: &str, run: &HookRun) {
    if run.ok {
        return;
    }
    let how = if run.timed_out {
        "timed out".to_string()
    } else {
        match run.status {
            Some(code) => format!("failed (exit status {code})"),
            None => format!(
                "failed ({})",
                run.failure.as_deref().unwrap_or("it did not finish")
            ),
        }
    };
    let said = run
        .stderr
        .lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty() && *line != CUT_NOTE.trim())
        .map(|line| format!(" | {line}"))
        .unwrap_or_default();
    log_line(&format!(
        "{event} {how}: {}{said}",
        crate::text::one_line(command, usize::MAX)
    ));
}

/// Appends one line to the hooks log, with the time; past its bound, its
/// older half goes.
pub(crate) fn log_line(text: &str) {
    let line = format!(
        "{} {}",
        utc_time(crate::clock::now_ms() / 1000),
        crate::text::one_line(text, usize::MAX)
    );
    crate::paths::append_line(&log_path(), &line, LOG_BOUND);
}

/// The last `count` lines of the log, oldest first.
pub(crate) fn log_tail(count: usize) -> Vec<String> {
    let text = std::fs::read_to_string(log_path()).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// `2026-09-30 10:11:12 UTC` for a Unix time in seconds.
pub(crate) fn utc_time(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let rest = seconds % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Starts `taw hooks deliver` for occurrences (as JSON), detached: the
/// caller goes on at once.
pub(crate) fn start_deliverer(tmux: &Tmux, occurrences_json: &str) -> Result<(), Failure> {
    let bin = std::env::current_exe().map_err(Failure::Io)?;
    Program::new(bin)
        .args(tmux.socket_args())
        .args(["hooks", "deliver", occurrences_json])
        .start_unwatched()
}

/// Runs one plugin's hook for an event: herdr's envelope in
/// HERDR_PLUGIN_EVENT_JSON, the event's subject as its context.
pub(crate) fn run_plugin_hook(
    listener: &crate::plugin::EventListener,
    delivery: &Delivery,
    limit: Option<std::time::Duration>,
) -> crate::plugin::run::LogRecord {
    let invocation = crate::plugin::env::Invocation {
        event: delivery.event.name().to_string(),
        context: delivery.context.clone(),
        event_json: Some(serde_json::json!({
            "event": delivery.event.snake_name(),
            "data": delivery.data,
        })),
        tmux_socket: Some(delivery.socket_path.clone()),
        base_env: Some(delivery.base_env.clone()),
        ..crate::plugin::env::Invocation::default()
    };
    crate::plugin::run::run(
        &listener.plugin,
        &listener.hook.command,
        &invocation,
        None,
        limit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_times() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(1_790_763_072), "2026-09-30 10:11:12 UTC");
        assert_eq!(utc_time(951_782_400), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn kept_text_says_when_it_was_cut() {
        assert_eq!(kept_text(b"short"), "short");
        let long = vec![b'x'; KEPT_OUTPUT + 1];
        let kept = kept_text(&long);
        assert!(kept.starts_with(CUT_NOTE));
        assert_eq!(kept.len(), CUT_NOTE.len() + KEPT_OUTPUT);
    }

    #[test]
    fn limits() {
        assert_eq!(event_limit(0.0), None);
        assert_eq!(event_limit(1.5), Some(Duration::from_millis(1500)));
    }
}
