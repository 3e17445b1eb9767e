//! Finding what an id names, in a snapshot. A malformed id is
//! `invalid_argument`; a well-formed one that names nothing is `not_found`.

use crate::envelope::{Result, TawError};
use crate::tmux::ids::{self, PaneRef, TabRef, WorkspaceRef};
use crate::tmux::snapshot::{Pane, Snapshot, Window};

/// The session a workspace id names.
pub fn workspace(snapshot: &Snapshot, text: &str) -> Result<u32> {
    let reference = ids::parse_workspace(text).map_err(TawError::invalid_argument)?;
    workspace_ref(snapshot, reference).ok_or_else(|| {
        TawError::not_found(format!(
            "workspace {text} not found; `taw workspace list` shows the workspaces"
        ))
    })
}

fn workspace_ref(snapshot: &Snapshot, reference: WorkspaceRef) -> Option<u32> {
    match reference {
        WorkspaceRef::Session(id) => snapshot.session(id).map(|s| s.id),
        WorkspaceRef::Position(index) => snapshot.sessions.get(index - 1).map(|s| s.id),
    }
}

/// The window (as linked into the session the id names) a tab id names.
pub fn tab<'a>(snapshot: &'a Snapshot, text: &str) -> Result<&'a Window> {
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
pub fn pane<'a>(snapshot: &'a Snapshot, text: &str) -> Result<&'a Pane> {
    let reference: PaneRef = ids::parse_pane(text).map_err(TawError::invalid_argument)?;
    snapshot.pane_ref(reference).ok_or_else(|| {
        TawError::not_found(format!(
            "pane {text} not found; `taw pane list` shows the panes"
        ))
    })
}
