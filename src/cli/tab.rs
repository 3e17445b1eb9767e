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
        #[arg(required = true, allow_hyphen_values = true)]
        label: Vec<String>,
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
    /// The workspace (default: $HERDR_WORKSPACE_ID's, else the one taw
    /// runs in, else the one in front).
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
            // As herdr's CLI: a plugin's process makes its tab in the
            // workspace it was run for, whatever is in front.
            let given = args.workspace.or_else(|| {
                std::env::var("HERDR_WORKSPACE_ID")
                    .ok()
                    .filter(|id| !id.trim().is_empty())
            });
            let new = NewTab {
                session: workspace_for(&snapshot, given.as_deref())?,
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
        Verb::Rename { tab, label } => Reply::of(op::rename(
            &tmux,
            resolve::tab(&snapshot, &tab)?,
            &label.join(" "),
        )?),
        Verb::Close { tab, force } => Reply::of(op::close(
            &tmux,
            &snapshot,
            resolve::tab(&snapshot, &tab)?,
            force,
        )?),
    })
}
