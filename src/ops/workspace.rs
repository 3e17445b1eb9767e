//! Workspaces: tmux sessions, made, shown, renamed and closed.

use super::names::{self, Named};
use super::{navigate, unread};
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::hooks::veto;
use crate::model::{PaneInfo, Records, TabInfo, WorkspaceInfo};
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::commands as cmd;
use crate::tmux::options::session::{LABEL, label_value};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Tmux, ids};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkspaceList {
    pub workspaces: Vec<WorkspaceInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkspaceAnswer {
    pub workspace: Option<WorkspaceInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkspaceCreated {
    pub workspace: Option<WorkspaceInfo>,
    pub tab: TabInfo,
    pub root_pane: PaneInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkspaceClosed {
    pub workspace_id: String,
    /// The worktree workspaces `--group` closed with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub worktree_workspace_ids: Vec<String>,
}

answers!(
    WorkspaceList => "workspace_list",
    WorkspaceAnswer => "workspace_info",
    WorkspaceCreated => "workspace_created",
    WorkspaceClosed => "ok",
);

pub(crate) fn list(snapshot: &Snapshot) -> WorkspaceList {
    WorkspaceList {
        workspaces: Records::new(snapshot).workspaces(),
    }
}

pub(crate) fn get(snapshot: &Snapshot, session: u32) -> WorkspaceAnswer {
    WorkspaceAnswer {
        workspace: Records::new(snapshot).workspace_by_id(session),
    }
}

/// What a new workspace is made of.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewWorkspace {
    /// The folder of its first pane.
    pub cwd: String,
    /// Its name; the folder's name when none is given.
    pub label: Option<String>,
    pub env: Vec<(String, String)>,
    /// The client to show it on, if any.
    pub focus_client: Option<String>,
    /// Session options set in the same tmux call that makes it, so what
    /// hears of the new session (its hooks) reads them.
    pub options: Vec<(String, String)>,
}

/// Makes a session with one window and one pane.
pub(crate) fn create(
    tmux: &Tmux,
    snapshot: &Snapshot,
    new: NewWorkspace,
) -> Result<WorkspaceCreated> {
    let wanted = match &new.label {
        Some(label) => {
            names::check(Named::Workspace, label)?;
            label.clone()
        }
        None => std::path::Path::new(&new.cwd)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "workspace".into()),
    };
    let name = names::free_session_name(snapshot, &wanted);
    let spawn = Spawn {
        cwd: Some(new.cwd.clone()),
        env: new.env.clone(),
        command: None,
    };
    let target = format!("={}:", arrange::session_name(&name));
    let mut batch = Batch::of(vec![arrange::new_session(Some(&name), &spawn, None)]);
    let mut options = new.options.clone();
    if name != wanted {
        // tmux holds it under another name: the label as given is kept.
        options.push((LABEL.to_string(), label_value(&name, &wanted)));
    }
    for (option, value) in &options {
        batch.push(cmd::set_session_option(&target, option, value));
    }
    let output = tmux.run(&batch)?;
    let (session, window, pane) =
        arrange::parse_new_ids(&output).ok_or_else(|| unread("what it made", &output))?;
    if let Some(client) = &new.focus_client {
        navigate::to_session(tmux, session, Some(client))?;
    }
    let after = Snapshot::read(tmux)?;
    let records = Records::new(&after);
    let closed = || TawError::tmux("the new session closed at once");
    let window = after.window(session, window).ok_or_else(closed)?;
    let pane = after.pane(pane, Some(session)).ok_or_else(closed)?;
    Ok(WorkspaceCreated {
        workspace: records.workspace_by_id(session),
        tab: records.tab(window),
        root_pane: records.pane(pane),
    })
}

/// A name another session has cannot be given (tmux holds one session a
/// name).
fn refuse_taken(snapshot: &Snapshot, name: &str, session: u32) -> Result<()> {
    let name = crate::tmux::arrange::session_name(name);
    if snapshot
        .sessions
        .iter()
        .any(|s| s.name == name && s.id != session)
    {
        return Err(TawError::invalid_argument(format!(
            "another workspace is named {name:?}; choose another name"
        )));
    }
    Ok(())
}

/// Shows session `$session` on `client`.
pub(crate) fn focus(tmux: &Tmux, session: u32, client: Option<&str>) -> Result<WorkspaceAnswer> {
    navigate::to_session(tmux, session, client)?;
    Ok(get(&Snapshot::read(tmux)?, session))
}

pub(crate) fn rename(
    tmux: &Tmux,
    snapshot: &Snapshot,
    session: u32,
    name: &str,
) -> Result<WorkspaceAnswer> {
    names::check(Named::Workspace, name)?;
    refuse_taken(snapshot, name, session)?;
    let target = format!("${session}");
    let held = arrange::session_name(name);
    let label = match held == name {
        true => cmd::unset_session_option(&target, LABEL),
        false => cmd::set_session_option(&target, LABEL, &label_value(&held, name)),
    };
    tmux.run(&Batch::of(vec![
        arrange::rename_session(&target, name),
        label,
    ]))?;
    Ok(get(&Snapshot::read(tmux)?, session))
}

/// Closes the session, once the veto lets it (`force`: see
/// [`veto::may_close`]). A repository's session whose worktree sessions
/// are open closes only with `group`, and then with them: the veto is
/// asked about every one before any closes.
pub(crate) fn close(
    tmux: &Tmux,
    snapshot: &Snapshot,
    session: u32,
    group: bool,
    force: bool,
) -> Result<WorkspaceClosed> {
    let members = super::repo_group::group_of(snapshot, session);
    if !members.is_empty() && !group {
        let records = Records::new(snapshot);
        let named: Vec<String> = members
            .iter()
            .map(|s| match records.workspace_by_id(*s) {
                Some(w) => format!("{} ({})", w.workspace_id, w.label),
                None => ids::workspace_id(*s),
            })
            .collect();
        return Err(TawError::new(
            ErrorCode::WorkspaceGroupCloseRequired,
            format!(
                "workspace {} has worktree workspaces open: {}; nothing was closed. Close them with it with --group",
                ids::workspace_id(session),
                named.join(", ")
            ),
        ));
    }
    for one in std::iter::once(session).chain(members.iter().copied()) {
        veto::may_close(tmux, &veto::Closing::Session(one), force)?;
    }
    for member in &members {
        tmux.run_one(arrange::kill_session(&format!("${member}")))?;
    }
    tmux.run_one(arrange::kill_session(&format!("${session}")))?;
    Ok(WorkspaceClosed {
        workspace_id: ids::workspace_id(session),
        worktree_workspace_ids: members.into_iter().map(ids::workspace_id).collect(),
    })
}
