//! `taw workspace`: tmux sessions as herdr workspaces.

use super::pane::arrange::parse_env;
use super::{Context, envelope_id, with_records};
use crate::envelope::{Reply, Result, TawError};
use crate::model::{Records, resolve};
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::commands as cmd;
use crate::tmux::ids;
use crate::tmux::snapshot::Snapshot;
use crate::veto;
use clap::{Args, Subcommand};
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// List every workspace (tmux session).
    List,
    /// One workspace's record.
    Get {
        /// A workspace id: w1, $0, or a position such as 1.
        workspace: String,
    },
    /// Make a workspace (a tmux session), with a tab and a pane.
    Create(CreateArgs),
    /// Show a workspace on the client used last.
    Focus { workspace: String },
    /// Rename a workspace.
    Rename {
        workspace: String,
        #[arg(required = true)]
        label: Vec<String>,
    },
    /// Close a workspace (--group would close its worktree workspaces too; taw makes none yet).
    Close {
        workspace: String,
        #[arg(long)]
        group: bool,
    },
    /// Report tokens about a workspace (herdr's metadata).
    ReportMetadata(super::metadata::MetadataArgs),
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::List => (envelope_id("workspace", "list"), list(context)),
        Verb::Get { workspace } => (envelope_id("workspace", "get"), get(context, &workspace)),
        Verb::Create(args) => (envelope_id("workspace", "create"), create(context, args)),
        Verb::Focus { workspace } => (
            envelope_id("workspace", "focus"),
            focus(context, &workspace),
        ),
        Verb::Rename { workspace, label } => (
            envelope_id("workspace", "rename"),
            rename(context, &workspace, &label),
        ),
        Verb::Close { workspace, group } => (
            envelope_id("workspace", "close"),
            close(context, &workspace, group),
        ),
        Verb::ReportMetadata(args) => (
            envelope_id("workspace", "report-metadata"),
            super::metadata::report(context, args),
        ),
    }
}

fn list(context: &Context) -> Result<Reply> {
    with_records(context, |records| {
        Ok(Reply::result(
            "workspace_list",
            json!({ "workspaces": records.workspaces() }),
        ))
    })
}

fn get(context: &Context, workspace: &str) -> Result<Reply> {
    with_records(context, |records| {
        let session = resolve::workspace(records.snapshot(), workspace)?;
        let record = records.workspace_by_id(session);
        Ok(Reply::result(
            "workspace_info",
            json!({ "workspace": record }),
        ))
    })
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The folder of its first pane (default: the folder taw runs in).
    #[arg(long)]
    pub cwd: Option<String>,
    /// Its name (default: the folder's name).
    #[arg(long)]
    pub label: Option<String>,
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// Show it on the client used last.
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long)]
    pub no_focus: bool,
}

/// A session name that is free: `name`, else `name-2`, `name-3`...
pub fn free_session_name(snapshot: &Snapshot, name: &str) -> String {
    // tmux puts `_` for `.` and `:` in a session's name.
    let name: String = name
        .chars()
        .map(|c| if c == '.' || c == ':' { '_' } else { c })
        .collect();
    let taken = |candidate: &str| snapshot.sessions.iter().any(|s| s.name == candidate);
    if !taken(&name) {
        return name;
    }
    (2..)
        .map(|n| format!("{name}-{n}"))
        .find(|candidate| !taken(candidate))
        .unwrap_or(name)
}

/// The client used last, to show something on.
pub fn last_client(snapshot: &Snapshot) -> Option<&str> {
    snapshot
        .clients
        .iter()
        .filter(|client| client.session.is_some())
        .max_by_key(|client| client.activity)
        .map(|client| client.name.as_str())
}

fn create(context: &Context, args: CreateArgs) -> Result<Reply> {
    let env = parse_env(&args.env)?;
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let cwd = match &args.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| "/".into()),
    };
    let folder_name = std::path::Path::new(&cwd)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "workspace".into());
    let wanted = args
        .label
        .as_deref()
        .map(|l| crate::notify::one_line(l, 80))
        .filter(|l| !l.is_empty())
        .unwrap_or(folder_name);
    let name = free_session_name(&snapshot, &wanted);
    let spawn = Spawn {
        cwd: Some(cwd),
        env,
        command: None,
    };
    let output = tmux.run_one(arrange::new_session(Some(&name), &spawn, None))?;
    let (session, window, pane) = arrange::parse_new_ids(&output)
        .ok_or_else(|| TawError::tmux(format!("tmux did not say what it made: {output:?}")))?;
    if args.focus
        && let Some(client) = last_client(&snapshot)
    {
        tmux.run_one(cmd::switch_client(client, &format!("${session}")))?;
    }
    let snapshot = context.snapshot()?;
    let records = Records::new(&snapshot);
    let window = snapshot
        .windows
        .iter()
        .find(|w| w.id == window && w.session == session)
        .ok_or_else(|| TawError::tmux("the new session closed at once"))?;
    let pane = snapshot
        .pane(pane, Some(session))
        .ok_or_else(|| TawError::tmux("the new session closed at once"))?;
    Ok(Reply::result(
        "workspace_created",
        json!({
            "workspace": records.workspace_by_id(session),
            "tab": records.tab(window),
            "root_pane": records.pane(pane),
        }),
    ))
}

fn focus(context: &Context, workspace: &str) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let session = resolve::workspace(&snapshot, workspace)?;
    if let Some(client) = last_client(&snapshot) {
        tmux.run_one(cmd::switch_client(client, &format!("${session}")))?;
    }
    get(context, &format!("${session}"))
}

fn rename(context: &Context, workspace: &str, label: &[String]) -> Result<Reply> {
    let label = crate::notify::one_line(&label.join(" "), 80);
    if label.is_empty() {
        return Err(TawError::invalid_argument("the new name is empty"));
    }
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let session = resolve::workspace(&snapshot, workspace)?;
    if snapshot
        .sessions
        .iter()
        .any(|s| s.name == label && s.id != session)
    {
        return Err(TawError::invalid_argument(format!(
            "another workspace is named {label:?}"
        )));
    }
    tmux.run_one(arrange::rename_session(&format!("${session}"), &label))?;
    get(context, &format!("${session}"))
}

fn close(context: &Context, workspace: &str, _group: bool) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let session = resolve::workspace(&snapshot, workspace)?;
    veto::may_close(&veto::Closing::Session(session))?;
    tmux.run_one(arrange::kill_session(&format!("${session}")))?;
    Ok(Reply::result(
        "ok",
        json!({ "workspace_id": ids::workspace_id(session) }),
    ))
}
