//! `taw pane`: tmux panes as herdr panes.

pub mod arrange;
pub mod clear;
pub mod input;
pub mod report;

use super::{Context, calling_pane, envelope_id, no_current_pane, with_records};
use crate::envelope::{Reply, Result, TawError};
use crate::model::resolve;
use clap::Subcommand;
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// List every pane, or the panes of one workspace.
    List {
        /// Only this workspace's panes.
        #[arg(long)]
        workspace: Option<String>,
    },
    /// One pane's record.
    Get {
        /// A pane id: w1:p3 or %2.
        pane: String,
    },
    /// The pane taw runs in, else the pane in front of the last-used client.
    Current {
        /// This pane instead.
        #[arg(long, conflicts_with = "current")]
        pane: Option<String>,
        /// The pane taw runs in ($TMUX_PANE); an error outside tmux.
        #[arg(long)]
        current: bool,
    },
    /// Split a pane: a new one to its right or below it.
    Split(arrange::SplitArgs),
    /// Close a pane.
    Close { pane: String },
    /// Give a pane a label (shown in its record), or clear it.
    Rename {
        pane: String,
        #[arg(required_unless_present = "clear")]
        label: Vec<String>,
        #[arg(long, conflicts_with = "label")]
        clear: bool,
    },
    /// Go to the pane on one side.
    Focus {
        #[arg(long, value_enum)]
        direction: arrange::Direction,
        #[command(flatten)]
        sel: arrange::PaneSel,
    },
    /// The pane on one side, if any.
    Neighbor {
        #[arg(long, value_enum)]
        direction: arrange::Direction,
        #[command(flatten)]
        sel: arrange::PaneSel,
    },
    /// Which edges of the window a pane touches.
    Edges {
        #[command(flatten)]
        sel: arrange::PaneSel,
    },
    /// Grow a pane toward one side by a share of the window.
    Resize {
        #[arg(long, value_enum)]
        direction: arrange::Direction,
        #[arg(long, default_value_t = 0.05)]
        amount: f64,
        #[command(flatten)]
        sel: arrange::PaneSel,
    },
    /// Zoom a pane to the whole window, or back.
    Zoom {
        id: Option<String>,
        #[command(flatten)]
        sel: arrange::PaneSel,
        #[arg(long, conflicts_with_all = ["on", "off"])]
        toggle: bool,
        #[arg(long, conflicts_with = "off")]
        on: bool,
        #[arg(long)]
        off: bool,
    },
    /// Swap a pane with its neighbour, or two panes.
    Swap {
        #[arg(long, value_enum)]
        direction: Option<arrange::Direction>,
        #[command(flatten)]
        sel: arrange::PaneSel,
        #[arg(long)]
        source_pane: Option<String>,
        #[arg(long)]
        target_pane: Option<String>,
    },
    /// Move a pane to another tab, a tab of its own, or a workspace of its own.
    Move(arrange::MoveArgs),
    /// The layout of a pane's window: every pane and split with its rectangle.
    Layout {
        #[command(flatten)]
        sel: arrange::PaneSel,
    },
    /// The processes in front of a pane's terminal.
    ProcessInfo {
        #[command(flatten)]
        sel: arrange::PaneSel,
    },
    /// Clear a pane's history, and its screen when its shell is at its prompt.
    Clear {
        id: Option<String>,
        #[command(flatten)]
        sel: arrange::PaneSel,
    },
    /// Print the pane's text (the screen, or its last rows with history).
    Read(input::ReadArgs),
    /// Type text into the pane, as it is.
    SendText {
        pane: String,
        #[arg(required = true)]
        text: Vec<String>,
    },
    /// Send keys (herdr's names: enter, ctrl+c, alt+x...); all are checked first.
    SendKeys {
        pane: String,
        #[arg(required = true)]
        keys: Vec<String>,
    },
    /// Type a command line and Enter (pasted, bracketed if the program asked).
    Run {
        pane: String,
        #[arg(required = true)]
        command: Vec<String>,
    },
    /// Wait until a line of the pane contains text or matches a regex.
    WaitOutput(input::WaitArgs),
    /// An integration reports its agent's state (herdr's arguments).
    ReportAgent(report::ReportArgs),
    /// An integration reports its agent's session, not its state.
    ReportAgentSession(report::SessionArgs),
    /// An integration gives the pane up: its report and resume command go.
    ReleaseAgent(report::ReleaseArgs),
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::List { workspace } => (envelope_id("pane", "list"), list(context, workspace)),
        Verb::Get { pane } => (envelope_id("pane", "get"), get(context, &pane)),
        Verb::Current { pane, current } => (
            envelope_id("pane", "current"),
            current_pane(context, pane, current),
        ),
        Verb::Split(args) => (envelope_id("pane", "split"), arrange::split(context, args)),
        Verb::Close { pane } => (envelope_id("pane", "close"), arrange::close(context, &pane)),
        Verb::Rename { pane, label, clear } => (
            envelope_id("pane", "rename"),
            arrange::rename(context, &pane, (!clear).then(|| label.join(" "))),
        ),
        Verb::Focus { direction, sel } => (
            envelope_id("pane", "focus"),
            arrange::focus_direction(context, &sel, direction),
        ),
        Verb::Neighbor { direction, sel } => (
            envelope_id("pane", "neighbor"),
            arrange::neighbor(context, &sel, direction),
        ),
        Verb::Edges { sel } => (envelope_id("pane", "edges"), arrange::edges(context, &sel)),
        Verb::Resize {
            direction,
            amount,
            sel,
        } => (
            envelope_id("pane", "resize"),
            arrange::resize(context, &sel, direction, amount),
        ),
        Verb::Zoom {
            id,
            sel,
            toggle: _,
            on,
            off,
        } => {
            let mode = if on {
                arrange::ZoomMode::On
            } else if off {
                arrange::ZoomMode::Off
            } else {
                arrange::ZoomMode::Toggle
            };
            (
                envelope_id("pane", "zoom"),
                arrange::zoom(context, &sel, id.as_deref(), mode),
            )
        }
        Verb::Swap {
            direction,
            sel,
            source_pane,
            target_pane,
        } => (
            envelope_id("pane", "swap"),
            arrange::swap(
                context,
                &sel,
                direction,
                source_pane.as_deref(),
                target_pane.as_deref(),
            ),
        ),
        Verb::Move(args) => (
            envelope_id("pane", "move"),
            arrange::move_pane(context, args),
        ),
        Verb::Layout { sel } => (
            envelope_id("pane", "layout"),
            arrange::layout(context, &sel),
        ),
        Verb::ProcessInfo { sel } => (
            envelope_id("pane", "process-info"),
            arrange::process_info(context, &sel),
        ),
        Verb::Clear { id, sel } => (
            envelope_id("pane", "clear"),
            clear::clear(context, id.as_deref(), &sel),
        ),
        Verb::Read(args) => (envelope_id("pane", "read"), input::read(context, args)),
        Verb::SendText { pane, text } => (
            envelope_id("pane", "send-text"),
            input::send_text(context, &pane, &text),
        ),
        Verb::SendKeys { pane, keys } => (
            envelope_id("pane", "send-keys"),
            input::send_keys(context, &pane, &keys),
        ),
        Verb::Run { pane, command } => (
            envelope_id("pane", "run"),
            input::run(context, &pane, &command),
        ),
        Verb::WaitOutput(args) => (
            envelope_id("pane", "wait-output"),
            input::wait_output(context, args),
        ),
        Verb::ReportAgent(args) => (
            envelope_id("pane", "report-agent"),
            report::report_agent(context, args),
        ),
        Verb::ReportAgentSession(args) => (
            envelope_id("pane", "report-agent-session"),
            report::report_session(context, args),
        ),
        Verb::ReleaseAgent(args) => (
            envelope_id("pane", "release-agent"),
            report::release_agent(context, args),
        ),
    }
}

fn list(context: &Context, workspace: Option<String>) -> Result<Reply> {
    with_records(context, |records| {
        let session = resolve::workspace_filter(records.snapshot(), workspace.as_deref())?;
        Ok(Reply::result(
            "pane_list",
            json!({ "panes": records.panes(session) }),
        ))
    })
}

fn get(context: &Context, pane: &str) -> Result<Reply> {
    with_records(context, |records| {
        let pane = resolve::pane(records.snapshot(), pane)?;
        Ok(Reply::result(
            "pane_info",
            json!({ "pane": records.pane(pane) }),
        ))
    })
}

fn current_pane(context: &Context, pane: Option<String>, current: bool) -> Result<Reply> {
    with_records(context, |records| {
        let snapshot = records.snapshot();
        let found = match (pane, current) {
            (Some(pane), _) => resolve::pane(snapshot, &pane)?,
            (None, true) => {
                let id = calling_pane(snapshot).ok_or_else(no_current_pane)?;
                snapshot.pane(id, None).ok_or_else(no_current_pane)?
            }
            (None, false) => match calling_pane(snapshot) {
                Some(id) => snapshot.pane(id, None).ok_or_else(no_current_pane)?,
                None => snapshot
                    .focused_pane()
                    .ok_or_else(|| TawError::not_found("the tmux server has no pane"))?,
            },
        };
        Ok(Reply::result(
            "pane_current",
            json!({ "pane": records.pane(found) }),
        ))
    })
}
