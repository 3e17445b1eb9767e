//! `taw tab`: tmux windows as herdr tabs.

use super::pane::arrange::parse_env;
use super::workspace::last_client;
use super::{Context, calling_pane, envelope_id, with_records};
use crate::envelope::{Reply, Result, TawError};
use crate::model::{Records, resolve};
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::commands as cmd;
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, ids};
use crate::veto;
use clap::{Args, Subcommand};
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum Verb {
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
        #[arg(required = true)]
        label: Vec<String>,
    },
    /// Close a tab (its workspace too when it is the last).
    Close { tab: String },
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The workspace (default: the one taw runs in, else the one in front).
    #[arg(long)]
    pub workspace: Option<String>,
    #[arg(long)]
    pub cwd: Option<String>,
    #[arg(long)]
    pub label: Option<String>,
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long)]
    pub no_focus: bool,
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::List { workspace } => (envelope_id("tab", "list"), list(context, workspace)),
        Verb::Get { tab } => (envelope_id("tab", "get"), get(context, &tab)),
        Verb::Create(args) => (envelope_id("tab", "create"), create(context, args)),
        Verb::Focus { tab } => (envelope_id("tab", "focus"), focus(context, &tab)),
        Verb::Rename { tab, label } => {
            (envelope_id("tab", "rename"), rename(context, &tab, &label))
        }
        Verb::Close { tab } => (envelope_id("tab", "close"), close(context, &tab)),
    }
}

fn list(context: &Context, workspace: Option<String>) -> Result<Reply> {
    with_records(context, |records| {
        let session = resolve::workspace_filter(records.snapshot(), workspace.as_deref())?;
        Ok(Reply::result(
            "tab_list",
            json!({ "tabs": records.tabs(session) }),
        ))
    })
}

fn get(context: &Context, tab: &str) -> Result<Reply> {
    with_records(context, |records| {
        let window = resolve::tab(records.snapshot(), tab)?;
        Ok(Reply::result(
            "tab_info",
            json!({ "tab": records.tab(window) }),
        ))
    })
}

/// The workspace a new tab goes to.
fn workspace_for(snapshot: &Snapshot, workspace: Option<&str>) -> Result<u32> {
    if let Some(workspace) = workspace {
        return resolve::workspace(snapshot, workspace);
    }
    if let Some(pane) = calling_pane(snapshot).and_then(|id| snapshot.pane(id, None)) {
        return Ok(pane.session);
    }
    snapshot
        .focused_session()
        .ok_or_else(|| TawError::not_found("the tmux server has no session"))
}

fn create(context: &Context, args: CreateArgs) -> Result<Reply> {
    let env = parse_env(&args.env)?;
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let session = workspace_for(&snapshot, args.workspace.as_deref())?;
    let label = args
        .label
        .as_deref()
        .map(|l| crate::notify::one_line(l, 80))
        .filter(|l| !l.is_empty());
    let spawn = Spawn {
        cwd: args.cwd.clone(),
        env,
        command: None,
    };
    let output = tmux.run_one(arrange::new_window(
        &format!("${session}"),
        label.as_deref(),
        &spawn,
    ))?;
    let (session, window, pane) = arrange::parse_new_ids(&output)
        .ok_or_else(|| TawError::tmux(format!("tmux did not say what it made: {output:?}")))?;
    if args.focus {
        let mut batch = Batch::new();
        batch.push(cmd::select_window(&format!("@{window}")));
        if let Some(client) = last_client(&snapshot) {
            batch.push(cmd::switch_client(client, &format!("@{window}")));
        }
        tmux.run(&batch)?;
    }
    let snapshot = context.snapshot()?;
    let records = Records::new(&snapshot);
    let window = snapshot
        .windows
        .iter()
        .find(|w| w.id == window && w.session == session)
        .ok_or_else(|| TawError::tmux("the new tab closed at once"))?;
    let pane = snapshot
        .pane(pane, Some(session))
        .ok_or_else(|| TawError::tmux("the new tab closed at once"))?;
    Ok(Reply::result(
        "tab_created",
        json!({ "tab": records.tab(window), "root_pane": records.pane(pane) }),
    ))
}

fn focus(context: &Context, tab: &str) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let window = resolve::tab(&snapshot, tab)?;
    let target = format!("@{}", window.id);
    let mut batch = Batch::new();
    batch.push(cmd::select_window(&target));
    if let Some(client) = last_client(&snapshot) {
        batch.push(cmd::switch_client(client, &target));
    }
    tmux.run(&batch)?;
    get(context, &ids::tab_id(window.session, window.id))
}

fn rename(context: &Context, tab: &str, label: &[String]) -> Result<Reply> {
    let label = crate::notify::one_line(&label.join(" "), 80);
    if label.is_empty() {
        return Err(TawError::invalid_argument("the new name is empty"));
    }
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let window = resolve::tab(&snapshot, tab)?;
    tmux.run_one(arrange::rename_window(&format!("@{}", window.id), &label))?;
    get(context, &ids::tab_id(window.session, window.id))
}

fn close(context: &Context, tab: &str) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let window = resolve::tab(&snapshot, tab)?;
    veto::may_close(&veto::Closing::Window(window.id))?;
    tmux.run_one(arrange::kill_window(&format!("@{}", window.id)))?;
    Ok(Reply::result(
        "ok",
        json!({
            "tab_id": ids::tab_id(window.session, window.id),
            "workspace_id": ids::workspace_id(window.session),
        }),
    ))
}
