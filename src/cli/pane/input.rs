//! Reading a pane and typing into it: `taw pane read`, `send-text`,
//! `send-keys`, `run`, `wait-output`.

use crate::cli::{Context, pane_number};
use crate::envelope::{ErrorCode, Reply, Result, TawError};
use crate::keys;
use crate::tmux::pane::{self as tmux_pane, ReadSource};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, ids};
use crate::watch::waiters::Waiter;
use clap::{Args, ValueEnum};
use regex::Regex;
use serde::Serialize;
use serde_json::json;
use std::time::{Duration, Instant};

/// The most lines a read gives.
const MAX_LINES: usize = 1000;
/// Rows of history and screen the recent sources read when not told.
const RECENT_ROWS: usize = 80;

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Source {
    Visible,
    Recent,
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

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Ansi,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The pane: %N, w1:pN, or %calling.
    pub pane: String,
    #[arg(long, value_enum, default_value = "visible")]
    pub source: Source,
    /// The last N lines (recent: N rows of history and screen; at most 1000).
    #[arg(long)]
    pub lines: Option<usize>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// The same as --format ansi.
    #[arg(long)]
    pub ansi: bool,
    /// Colours and all, nothing taken out.
    #[arg(long)]
    pub raw: bool,
}

/// herdr's PaneReadResult.
#[derive(Debug, Clone, Serialize)]
pub struct PaneRead {
    pub pane_id: String,
    pub workspace_id: String,
    pub tab_id: String,
    pub source: &'static str,
    pub format: &'static str,
    pub text: String,
    pub revision: u64,
    pub truncated: bool,
}

/// What a read is of: the pane, where its text comes from, how much.
#[derive(Debug, Clone, Copy)]
pub struct ReadSpec {
    pub source: Source,
    pub lines: Option<usize>,
    pub ansi: bool,
}

/// Reads a pane's text as herdr's `pane.read` does.
pub fn read_pane(
    context: &Context,
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
    let text = tmux_pane::capture(&context.tmux(), pane, source, rows, ansi)?;
    let mut all: Vec<&str> = text.lines().collect();
    while all.last().is_some_and(|line| line.trim().is_empty()) {
        all.pop();
    }
    let keep = match (spec.source, lines) {
        (Source::Visible | Source::Detection, Some(n)) => n,
        (Source::Recent | Source::RecentUnwrapped, _) => rows,
        _ => MAX_LINES,
    };
    let truncated = all.len() > keep;
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

pub fn read(context: &Context, args: ReadArgs) -> Result<Reply> {
    let pane = pane_number(context, &args.pane)?;
    let snapshot = context.snapshot()?;
    let spec = ReadSpec {
        source: args.source,
        lines: args.lines,
        ansi: args.ansi || args.raw || args.format == Format::Ansi,
    };
    let read = read_pane(context, &snapshot, pane, spec)?;
    Ok(Reply::Text(read.text))
}

/// The pane a typing verb names, checked to be there.
fn existing_pane(context: &Context, text: &str) -> Result<u32> {
    let pane = pane_number(context, text)?;
    tmux_pane::read_values(&context.tmux(), pane, &[])?;
    Ok(pane)
}

pub fn send_text(context: &Context, pane: &str, text: &[String]) -> Result<Reply> {
    let pane = existing_pane(context, pane)?;
    let text = text.join(" ");
    context
        .tmux()
        .run(&Batch::of(vec![tmux_pane::send_text(pane, &text)]))?;
    Ok(Reply::Nothing)
}

pub fn send_keys(context: &Context, pane: &str, keys: &[String]) -> Result<Reply> {
    // Every key is checked before any is sent.
    let keys = keys::all_to_tmux(keys)?;
    let pane = existing_pane(context, pane)?;
    context
        .tmux()
        .run(&Batch::of(vec![tmux_pane::send_keys(pane, &keys)]))?;
    Ok(Reply::Nothing)
}

pub fn run(context: &Context, pane: &str, command: &[String]) -> Result<Reply> {
    let pane = existing_pane(context, pane)?;
    let text = command.join(" ");
    context
        .tmux()
        .run(&Batch::of(tmux_pane::paste_then_enter(pane, &text)))?;
    Ok(Reply::Nothing)
}

#[derive(Debug, Args)]
pub struct WaitArgs {
    pub pane: String,
    /// Text a line must contain.
    #[arg(
        long = "match",
        conflicts_with = "regex",
        required_unless_present = "regex"
    )]
    pub matching: Option<String>,
    /// A regular expression a line must match.
    #[arg(long)]
    pub regex: Option<String>,
    #[arg(long, value_enum, default_value = "visible")]
    pub source: Source,
    #[arg(long)]
    pub lines: Option<usize>,
    /// Give up after this many milliseconds (no limit without it).
    #[arg(long)]
    pub timeout: Option<u64>,
    /// Match and answer with colours kept.
    #[arg(long)]
    pub raw: bool,
}

enum Matcher {
    Text(String),
    Regex(Regex),
}

impl Matcher {
    fn first_match<'a>(&self, text: &'a str) -> Option<&'a str> {
        text.lines().find(|line| match self {
            Matcher::Text(needle) => line.contains(needle.as_str()),
            Matcher::Regex(re) => re.is_match(line),
        })
    }
}

/// How often a pane with no watcher is read again while waiting.
const POLL_WITHOUT_WATCHER: Duration = Duration::from_millis(250);
/// A watcher tells of every look; this is only a safety net.
const RECHECK_WITH_WATCHER: Duration = Duration::from_secs(2);

pub fn wait_output(context: &Context, args: WaitArgs) -> Result<Reply> {
    let matcher = match (&args.matching, &args.regex) {
        (Some(text), _) => Matcher::Text(text.clone()),
        (None, Some(pattern)) => Matcher::Regex(Regex::new(pattern).map_err(|e| {
            TawError::new(ErrorCode::InvalidRegex, format!("--regex {pattern:?}: {e}"))
        })?),
        (None, None) => {
            return Err(TawError::invalid_argument(
                "give --match TEXT or --regex RE",
            ));
        }
    };
    let pane = pane_number(context, &args.pane)?;
    let deadline = args
        .timeout
        .map(|ms| Instant::now() + Duration::from_millis(ms));
    // herdr reads `recent` unwrapped for a wait.
    let source = match args.source {
        Source::Recent => Source::RecentUnwrapped,
        other => other,
    };
    let spec = ReadSpec {
        source,
        lines: args.lines,
        ansi: args.raw,
    };
    let mut waiter: Option<Waiter> = None;
    loop {
        let snapshot = context.snapshot()?;
        let read = read_pane(context, &snapshot, pane, spec)?;
        if let Some(line) = matcher.first_match(&read.text) {
            return Ok(Reply::result(
                "output_matched",
                json!({
                    "pane_id": read.pane_id,
                    "revision": read.revision,
                    "matched_line": line,
                    "read": read,
                }),
            ));
        }
        let remaining = match deadline {
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(TawError::new(
                        ErrorCode::Timeout,
                        format!(
                            "no line of pane %{pane} matched within {} ms",
                            args.timeout.unwrap_or(0)
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
