//! `taw tab`: tmux windows as herdr tabs.

use super::{Context, calling_pane, parse_env};
use crate::envelope::{Reply, Result, TawError};
use crate::model::resolve;
use crate::ops::tab::{self as op, NewTab};
use crate::tmux::snapshot::Snapshot;
use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// List the tabs (tmux windows) of every workspace, or of one.
    List {
        /// Only this workspace's tabs.
        #[arg(long)]
        workspace: Option<String>,
    },
    /// One tab's record.
    Get {
        /// A tab id: w1:t2, @1, or a workspace and position such as w1:2.
        tab: String,
    },
    /// Make a tab (a tmux window) with one pane.
    Create(CreateArgs),
    /// Show a tab on the client used last.
    Focus { tab: String },
    /// Rename a tab.
    Rename {
        tab: String,
        /// The new name (more words after it are joined to it).
        #[arg(allow_hyphen_values = true)]
        label: String,
        #[arg(hide = true)]
        more: Vec<String>,
    },
    /// Close a tab (its workspace too when it is the last).
    Close {
        tab: String,
        /// Close even when config.toml does not parse (a `[hooks]
        /// pre_close` there cannot be asked).
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Args)]
pub(crate) struct CreateArgs {
    /// The workspace (default: the one a plugin or hook runs for,
    /// $TAW_WORKSPACE_ID or $HERDR_WORKSPACE_ID, else the one taw runs in,
    /// else the one in front).
    #[arg(long)]
    pub workspace: Option<String>,
    #[arg(long)]
    pub cwd: Option<String>,
    #[arg(long, allow_hyphen_values = true)]
    pub label: Option<String>,
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long)]
    pub no_focus: bool,
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    answer(context, verb)
}

/// The workspace a new tab goes to: the one named, else the one taw runs
/// in, else the one in front.
pub(super) fn workspace_for(snapshot: &Snapshot, workspace: Option<&str>) -> Result<u32> {
    if let Some(workspace) = workspace {
        return resolve::workspace(snapshot, workspace);
    }
    if let Some(pane) = calling_pane(snapshot).and_then(|id| snapshot.pane_as_seen(id)) {
        return Ok(pane.session);
    }
    snapshot
        .focused_session()
        .ok_or_else(|| TawError::not_found("the tmux server has no session"))
}

/// The workspace a plugin's process or a `[hooks]` command was run for
/// (`TAW_WORKSPACE_ID`, else herdr's `HERDR_WORKSPACE_ID`), as herdr's
/// CLI makes a tab there whatever is in front; none when it names no
/// workspace of this server (a stale id), or when `-L`/`-S` sent taw to
/// a server of its own choosing (the id is the invoking server's).
fn invoked_for(context: &Context, snapshot: &Snapshot) -> Option<u32> {
    if context.flags.name.is_some() || context.flags.path.is_some() {
        return None;
    }
    ["TAW_WORKSPACE_ID", "HERDR_WORKSPACE_ID"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find_map(|id| resolve::workspace(snapshot, &id).ok())
}

fn answer(context: &Context, verb: Verb) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = context.snapshot()?;
    let client = snapshot.last_client().map(|c| c.name.clone());
    Ok(match verb {
        Verb::List { workspace } => {
            let session = resolve::workspace_filter(&snapshot, workspace.as_deref())?;
            Reply::of(op::list(&snapshot, session))
        }
        Verb::Get { tab } => Reply::of(op::get(&snapshot, resolve::tab(&snapshot, &tab)?)),
        Verb::Create(args) => {
            let env = parse_env(&args.env)?;
            let session = match (&args.workspace, invoked_for(context, &snapshot)) {
                (None, Some(session)) => session,
                (given, _) => workspace_for(&snapshot, given.as_deref())?,
            };
            let new = NewTab {
                session,
                cwd: args.cwd,
                label: args.label,
                env,
                command: None,
                focus: args.focus.then_some(client),
            };
            Reply::of(op::create(&tmux, &snapshot, new)?)
        }
        Verb::Focus { tab } => Reply::of(op::focus(
            &tmux,
            &snapshot,
            resolve::tab(&snapshot, &tab)?,
            client.as_deref(),
        )?),
        Verb::Rename { tab, label, more } => Reply::of(op::rename(
            &tmux,
            resolve::tab(&snapshot, &tab)?,
            &super::joined(label, more),
        )?),
        Verb::Close { tab, force } => Reply::of(op::close(
            &tmux,
            &snapshot,
            resolve::tab(&snapshot, &tab)?,
            force,
        )?),
    })
}
