//! Reading a pane and typing into it: `pane read`, `send-text`,
//! `send-keys`, `run`, `wait-output`.

use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::tmux::pane::{self as tmux_pane, ReadSource};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Tmux, ids};
use crate::watch::waiters::Waiter;
use regex::Regex;
use serde::Serialize;
use std::time::{Duration, Instant};

/// The most lines a read gives.
const MAX_LINES: usize = 1000;
/// Rows of history and screen the recent sources read when not told.
const RECENT_ROWS: usize = 80;

/// Where a read's text comes from (herdr's sources, `--source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Source {
    Visible,
    Recent,
    // herdr takes its record's spelling too.
    #[value(alias = "recent_unwrapped")]
    RecentUnwrapped,
    Detection,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Visible => "visible",
            Source::Recent => "recent",
            Source::RecentUnwrapped => "recent_unwrapped",
            Source::Detection => "detection",
        }
    }
}

/// herdr's PaneReadResult.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PaneRead {
    pub pane_id: String,
    pub workspace_id: String,
    pub tab_id: String,
    pub source: &'static str,
    pub format: &'static str,
    pub text: String,
    pub revision: u64,
    pub truncated: bool,
}

/// What a read is of: where its text comes from, how much.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadSpec {
    pub source: Source,
    pub lines: Option<usize>,
    pub ansi: bool,
}

/// Reads a pane's text as herdr's `pane.read` does.
pub(crate) fn read(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: u32,
    spec: ReadSpec,
) -> Result<PaneRead> {
    let row = snapshot
        .pane(pane, None)
        .ok_or_else(|| TawError::not_found(format!("pane %{pane} not found")))?;
    let lines = spec.lines.map(|n| n.min(MAX_LINES));
    let (source, rows) = match spec.source {
        Source::Visible | Source::Detection => (ReadSource::Visible, 0),
        Source::Recent => (ReadSource::Recent, lines.unwrap_or(RECENT_ROWS)),
        Source::RecentUnwrapped => (ReadSource::RecentUnwrapped, lines.unwrap_or(RECENT_ROWS)),
    };
    let ansi = spec.ansi && spec.source != Source::Detection;
    // Rows left out above what is read (the joined read's are known only
    // from its rows as drawn).
    let mut rows_above = false;
    let text = if spec.source == Source::RecentUnwrapped {
        // herdr counts rendered rows, then joins the wrapped ones: the
        // rows are found first, then read again joined (two reads: output
        // between them moves what the second finds). One row more than is
        // read says whether there are rows above.
        let rendered = tmux_pane::capture(tmux, pane, ReadSource::Recent, rows + 1, false)?;
        let (span, above) = rendered_span(&rendered, row.height, rows);
        rows_above = above;
        tmux_pane::capture_joined(tmux, pane, span, ansi)?
    } else {
        tmux_pane::capture(tmux, pane, source, rows, ansi)?
    };
    let mut all: Vec<&str> = text.lines().collect();
    while all.last().is_some_and(|line| line.trim().is_empty()) {
        all.pop();
    }
    let keep = match (spec.source, lines) {
        (Source::Visible | Source::Detection, Some(n)) => n,
        (Source::Recent | Source::RecentUnwrapped, _) => rows,
        _ => MAX_LINES,
    };
    let truncated = all.len() > keep || rows_above;
    let start = all.len().saturating_sub(keep);
    Ok(PaneRead {
        pane_id: ids::pane_id(row.session, row.id),
        workspace_id: ids::workspace_id(row.session),
        tab_id: ids::tab_id(row.session, row.window),
        source: spec.source.name(),
        format: if ansi { "ansi" } else { "text" },
        text: all[start..].join("\n"),
        revision: row.revision,
        truncated,
    })
}

/// The last `rows` rows of a capture of history and screen that are not
/// its blank bottom, as tmux numbers rows (0 the screen's first, below 0
/// the history): the screen is `height` rows, the capture's last. And
/// whether the capture had rows above them.
fn rendered_span(rendered: &str, height: u32, rows: usize) -> ((i64, i64), bool) {
    let all = rendered.lines().count();
    let blank_bottom = rendered
        .lines()
        .rev()
        .take_while(|line| line.trim().is_empty())
        .count();
    let rows = rows.max(1);
    let bottom = (i64::from(height) - 1 - blank_bottom as i64).max(0);
    let span = (bottom + 1 - rows as i64, bottom);
    (span, all - blank_bottom > rows)
}

/// The pane, checked to be there before anything is typed.
fn existing(tmux: &Tmux, pane: u32) -> Result<()> {
    tmux_pane::read_values(tmux, pane, &[]).map(|_| ())
}

/// Types `text` into the pane as it is, byte for byte and at any size:
/// it reaches tmux on its standard input and is pasted raw (no bracketed
/// paste, newlines left as they are), as typing it would give the program.
pub(crate) fn send_text(tmux: &Tmux, pane: u32, text: &str) -> Result<()> {
    existing(tmux, pane)?;
    if text.is_empty() {
        return Ok(());
    }
    let buffer = tmux_pane::Buffer::named();
    let batch = Batch::of(vec![buffer.load(), buffer.paste_raw(pane)]);
    tmux.run_with_input(&batch, text.as_bytes().to_vec())
        .map(|_| ())
        .inspect_err(|error| forget(tmux, &buffer, error))
}

/// Deletes the buffer of a paste that failed (not from a server that did
/// not answer: that would only wait again). Tidying only: the paste's own
/// error is what is answered.
fn forget(tmux: &Tmux, buffer: &tmux_pane::Buffer, error: &TawError) {
    if error.code != ErrorCode::Timeout {
        let _ = tmux.run_one(buffer.delete());
    }
}

/// Sends keys already in tmux's spelling (`crate::tmux::keys` checks them).
pub(crate) fn send_keys(tmux: &Tmux, pane: u32, keys: &[String]) -> Result<()> {
    existing(tmux, pane)?;
    tmux.run(&Batch::of(vec![tmux_pane::send_keys(pane, keys)]))
        .map(|_| ())
}

/// Pastes a command line (bracketed if the program asked for it) and Enter;
/// an empty one is Enter alone, as herdr sends it.
pub(crate) fn run(tmux: &Tmux, pane: u32, line: &str) -> Result<()> {
    if line.is_empty() {
        return send_keys(tmux, pane, &["Enter".to_string()]);
    }
    existing(tmux, pane)?;
    let buffer = tmux_pane::Buffer::named();
    let mut batch = Batch::of(vec![buffer.load()]);
    batch.extend(buffer.paste_then_enter(pane));
    tmux.run_with_input(&batch, line.as_bytes().to_vec())
        .map(|_| ())
        .inspect_err(|error| forget(tmux, &buffer, error))
}

/// What a wait looks for in a line.
pub(crate) enum Matcher {
    Text(String),
    Regex(Regex),
}

impl Matcher {
    /// `--match TEXT` or `--regex RE`; a regex that does not compile is
    /// `invalid_regex`.
    pub(crate) fn new(text: Option<&str>, regex: Option<&str>) -> Result<Matcher> {
        match (text, regex) {
            (Some(text), _) => Ok(Matcher::Text(text.to_string())),
            (None, Some(pattern)) => Regex::new(pattern).map(Matcher::Regex).map_err(|e| {
                TawError::new(ErrorCode::InvalidRegex, format!("--regex {pattern:?}: {e}"))
            }),
            (None, None) => Err(TawError::invalid_argument(
                "give --match TEXT or --regex RE",
            )),
        }
    }

    fn first_match<'a>(&self, text: &'a str) -> Option<&'a str> {
        text.lines().find(|line| match self {
            Matcher::Text(needle) => line.contains(needle.as_str()),
            Matcher::Regex(re) => re.is_match(line),
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct OutputMatched {
    pub pane_id: String,
    pub revision: u64,
    pub matched_line: String,
    pub read: PaneRead,
}

answers!(OutputMatched => "output_matched");

/// How often a pane with no watcher is read again while waiting.
const POLL_WITHOUT_WATCHER: Duration = Duration::from_millis(250);
/// A watcher tells of every look; this is only a safety net.
const RECHECK_WITH_WATCHER: Duration = Duration::from_secs(2);

/// Waits until a line of the pane matches, or `timeout_ms` runs out.
pub(crate) fn wait_output(
    tmux: &Tmux,
    pane: u32,
    matcher: &Matcher,
    spec: ReadSpec,
    timeout_ms: Option<u64>,
) -> Result<OutputMatched> {
    let deadline = timeout_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
    // herdr reads `recent` unwrapped for a wait.
    let spec = ReadSpec {
        source: match spec.source {
            Source::Recent => Source::RecentUnwrapped,
            other => other,
        },
        ..spec
    };
    let mut waiter: Option<Waiter> = None;
    loop {
        let snapshot = Snapshot::read(tmux)?;
        let read = read(tmux, &snapshot, pane, spec)?;
        if let Some(line) = matcher.first_match(&read.text) {
            return Ok(OutputMatched {
                pane_id: read.pane_id.clone(),
                revision: read.revision,
                matched_line: line.to_string(),
                read,
            });
        }
        let remaining = match deadline {
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(TawError::new(
                        ErrorCode::Timeout,
                        format!(
                            "no line of pane %{pane} matched within {} ms",
                            timeout_ms.unwrap_or(0)
                        ),
                    ));
                }
                left
            }
            None => Duration::MAX,
        };
        let watched = snapshot
            .pane(pane, None)
            .is_some_and(|row| !row.watcher.is_empty());
        if watched && waiter.is_none() {
            waiter = Waiter::new(&crate::paths::state_dir(), snapshot.server.pid, pane);
        }
        match (&waiter, watched) {
            (Some(waiter), true) => {
                waiter.wait(remaining.min(RECHECK_WITH_WATCHER));
            }
            _ => std::thread::sleep(remaining.min(POLL_WITHOUT_WATCHER)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows a `recent-unwrapped` read joins: the last ones above the
    /// screen's blank bottom, numbered as tmux numbers them.
    #[test]
    fn the_rows_read_joined_end_above_the_blank_bottom() {
        // One row of history (`a`), a screen of four: `b`, `c`, two blank.
        let rendered = "a\nb\nc\n\n\n";
        assert_eq!(rendered_span(rendered, 4, 2), ((0, 1), true));
        assert_eq!(rendered_span(rendered, 4, 5), ((-3, 1), false));
        // A full screen: its last row.
        assert_eq!(rendered_span("a\nb\nc\nd\ne\n", 4, 1), ((3, 3), true));
        // A blank screen: from its top.
        assert_eq!(rendered_span("a\n\n\n\n\n", 4, 2), ((-1, 0), false));
    }
}
