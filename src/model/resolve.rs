//! Finding what an id names, in a snapshot. A malformed id is
//! `invalid_argument`; a well-formed one that names nothing is `not_found`.

use crate::envelope::{ErrorCode, Result, TawError};
use crate::tmux::ids::{self, PaneRef, TabRef, WorkspaceRef};
use crate::tmux::snapshot::{Pane, Snapshot, Window};

/// The session a workspace id names.
pub(crate) fn workspace(snapshot: &Snapshot, text: &str) -> Result<u32> {
    let reference = ids::parse_workspace(text).map_err(TawError::invalid_argument)?;
    workspace_ref(snapshot, reference).ok_or_else(|| {
        TawError::not_found(format!(
            "workspace {text} not found; `taw workspace list` shows the workspaces"
        ))
    })
}

/// A `--workspace` filter: the session it names, or none for all.
pub(crate) fn workspace_filter(snapshot: &Snapshot, text: Option<&str>) -> Result<Option<u32>> {
    text.map(|text| workspace(snapshot, text)).transpose()
}

fn workspace_ref(snapshot: &Snapshot, reference: WorkspaceRef) -> Option<u32> {
    match reference {
        WorkspaceRef::Session(id) => snapshot.session(id).map(|s| s.id),
        WorkspaceRef::Position(index) => snapshot.sessions.get(index - 1).map(|s| s.id),
    }
}

/// The window (as linked into the session the id names) a tab id names.
pub(crate) fn tab<'a>(snapshot: &'a Snapshot, text: &str) -> Result<&'a Window> {
    let reference = ids::parse_tab(text).map_err(TawError::invalid_argument)?;
    let found = match reference {
        TabRef::Window(id) => snapshot.windows.iter().find(|w| w.id == id),
        TabRef::InWorkspace { session, window } => snapshot
            .windows
            .iter()
            .find(|w| w.id == window && w.session == session),
        TabRef::Position { workspace, index } => workspace_ref(snapshot, workspace)
            .and_then(|session| snapshot.windows_of(session).nth(index - 1)),
    };
    found.ok_or_else(|| {
        TawError::not_found(format!(
            "tab {text} not found; `taw tab list` shows the tabs"
        ))
    })
}

/// The pane a pane id names.
pub(crate) fn pane<'a>(snapshot: &'a Snapshot, text: &str) -> Result<&'a Pane> {
    let reference: PaneRef = ids::parse_pane(text).map_err(TawError::invalid_argument)?;
    snapshot.pane_ref(reference).ok_or_else(|| {
        TawError::not_found(format!(
            "pane {text} not found; `taw pane list` shows the panes"
        ))
    })
}

/// The pane of the agent a target names: a live agent's name, or the id
/// of a pane that hosts an agent.
pub(crate) fn agent<'a>(snapshot: &'a Snapshot, text: &str) -> Result<&'a Pane> {
    let text = text.trim();
    let missing = || {
        TawError::new(
            ErrorCode::AgentNotFound,
            format!("agent target {text} not found; `taw agent list` shows the agents"),
        )
    };
    if let Ok(reference) = ids::parse_pane(text) {
        let pane = snapshot.pane_ref(reference).ok_or_else(missing)?;
        return if pane.agent_kind.is_empty() {
            Err(TawError::new(
                ErrorCode::AgentNotFound,
                format!("pane {text} hosts no agent"),
            ))
        } else {
            Ok(pane)
        };
    }
    let named: Vec<&Pane> = snapshot
        .unique_panes()
        .into_iter()
        .filter(|pane| !pane.agent_kind.is_empty() && pane.agent_name == text)
        .collect();
    match named.as_slice() {
        [pane] => Ok(pane),
        [] => Err(missing()),
        _ => Err(TawError::new(
            ErrorCode::AgentTargetAmbiguous,
            format!("more than one live agent is named {text}; name it by its pane id"),
        )),
    }
}
