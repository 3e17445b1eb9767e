//! `taw layout export|apply|set-split-ratio`: herdr's split trees over
//! tmux's own window layouts.

use super::{Context, calling_pane};
use crate::envelope::{Reply, Result, TawError};
use crate::model::resolve;
use crate::ops::layout::{self as op, Apply};
use crate::tmux::snapshot::{Snapshot, Window};
use clap::{Args, Subcommand};
use serde_json::Value;
use std::io::Read;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// A tab's split tree, each pane with its label and folder (herdr's LayoutDescription).
    Export(Which),
    /// Make a tab from a split tree (JSON: a LayoutDescription or its root).
    Apply(ApplyArgs),
    /// Set the ratio of one split of a tab.
    SetSplitRatio(RatioArgs),
}

/// The tab a verb is about: `--tab`, the tab of `--pane`, or the tab taw
/// runs in, else the one in front.
#[derive(Debug, Args)]
pub(crate) struct Which {
    #[arg(long, conflicts_with = "pane")]
    pub tab: Option<String>,
    #[arg(long)]
    pub pane: Option<String>,
}

impl Which {
    fn window<'a>(&self, snapshot: &'a Snapshot) -> Result<&'a Window> {
        if let Some(tab) = &self.tab {
            return resolve::tab(snapshot, tab);
        }
        let pane = match &self.pane {
            Some(pane) => super::named_pane(snapshot, pane)?,
            None => match calling_pane(snapshot).and_then(|id| snapshot.pane(id, None)) {
                Some(pane) => pane,
                None => snapshot
                    .focused_pane()
                    .ok_or_else(|| TawError::not_found("the tmux server has no pane"))?,
            },
        };
        snapshot
            .windows
            .iter()
            .find(|w| w.id == pane.window && w.session == pane.session)
            .ok_or_else(|| TawError::not_found("the pane's tab is gone"))
    }
}

#[derive(Debug, Args)]
pub(crate) struct ApplyArgs {
    /// The workspace of the new tab (default: the one taw runs in, or in front).
    #[arg(long)]
    pub workspace: Option<String>,
    /// Replace this tab (its programs end) instead of making a new one.
    #[arg(long)]
    pub tab: Option<String>,
    /// The new tab's name.
    #[arg(long, allow_hyphen_values = true)]
    pub tab_label: Option<String>,
    /// Show the tab on the client used last.
    #[arg(long)]
    pub focus: bool,
    /// The JSON, from a file or - for standard input.
    #[arg(long, default_value = "-")]
    pub file: String,
}

#[derive(Debug, Args)]
pub(crate) struct RatioArgs {
    #[command(flatten)]
    pub which: Which,
    /// The split: 0 and 1 from the root (0 the first child, 1 the second);
    /// empty for the root.
    #[arg(long, default_value = "")]
    pub path: String,
    /// The first child's share, 0.1 to 0.9.
    #[arg(long)]
    pub ratio: f64,
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Export(which) => export(context, &which),
        Verb::Apply(args) => apply(context, args),
        Verb::SetSplitRatio(args) => set_ratio(context, args),
    }
}

fn export(context: &Context, which: &Which) -> Result<Reply> {
    let snapshot = context.snapshot()?;
    let window = which.window(&snapshot)?;
    Ok(Reply::of(op::export(&snapshot, window)))
}

fn set_ratio(context: &Context, args: RatioArgs) -> Result<Reply> {
    let path = op::parse_split_path(&args.path)?;
    let snapshot = context.snapshot()?;
    let window = args.which.window(&snapshot)?;
    Ok(Reply::of(op::set_split_ratio(
        &context.tmux(),
        window,
        &path,
        args.ratio,
    )?))
}

fn apply(context: &Context, args: ApplyArgs) -> Result<Reply> {
    let mut text = String::new();
    if args.file == "-" {
        use std::io::IsTerminal;
        // Nothing piped: reading the terminal would wait for a Ctrl-D.
        if std::io::stdin().is_terminal() {
            return Err(TawError::invalid_argument(
                "no layout given: pass --file PATH, or pipe the JSON in (`taw layout export ... | taw layout apply`)",
            ));
        }
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            TawError::io(format!("cannot read the layout from standard input: {e}"))
        })?;
    } else {
        text = std::fs::read_to_string(&args.file)
            .map_err(|e| TawError::not_found(format!("cannot read {}: {e}", args.file)))?;
    }
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| TawError::invalid_argument(format!("the layout is not JSON: {e}")))?;
    // The tree is checked before any id is looked up.
    let root = op::tree_of(&value)?;
    let snapshot = context.snapshot()?;
    let replacing = args
        .tab
        .as_deref()
        .map(|tab| resolve::tab(&snapshot, tab))
        .transpose()?;
    let session = match (&args.workspace, replacing) {
        (Some(workspace), _) => resolve::workspace(&snapshot, workspace)?,
        (None, Some(window)) => window.session,
        (None, None) => match calling_pane(&snapshot).and_then(|id| snapshot.pane(id, None)) {
            Some(pane) => pane.session,
            None => snapshot
                .focused_session()
                .ok_or_else(|| TawError::not_found("the tmux server has no session"))?,
        },
    };
    let apply = Apply {
        root,
        session,
        replacing,
        tab_label: args.tab_label,
        focus: args
            .focus
            .then(|| snapshot.last_client().map(|c| c.name.clone())),
    };
    Ok(Reply::of(op::apply(&context.tmux(), &snapshot, apply)?))
}
