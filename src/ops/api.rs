//! herdr's `api snapshot`: the whole state in one answer, as herdr's own
//! clients read it once and then follow by events (herdr-resurrect saves
//! from it, automatic-rename numbers from it). Built from the records
//! every other verb prints, in their order.

use crate::envelope::answers;
use crate::model::{AgentInfo, PaneInfo, Records, TabInfo, WorkspaceInfo};
use crate::tmux::ids;
use crate::tmux::snapshot::Snapshot;
use serde::Serialize;
use serde_json::Value;

/// herdr's socket protocol number this answer's shape follows.
pub(crate) const HERDR_PROTOCOL: u32 = 20;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SessionSnapshot {
    pub version: String,
    pub protocol: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused_workspace_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused_tab_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused_pane_id: Option<String>,
    pub workspaces: Vec<WorkspaceInfo>,
    pub tabs: Vec<TabInfo>,
    pub panes: Vec<PaneInfo>,
    /// One `PaneLayoutSnapshot` a tab, in the tabs' order.
    pub layouts: Vec<Value>,
    pub agents: Vec<AgentInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SnapshotAnswer {
    pub snapshot: SessionSnapshot,
}

answers!(SnapshotAnswer => "session_snapshot");

/// The snapshot of one read of the server. Focused: what the client used
/// last shows (none without a client).
pub(crate) fn snapshot(snapshot: &Snapshot) -> SnapshotAnswer {
    let records = Records::new(snapshot);
    let focused = snapshot.focused_pane();
    SnapshotAnswer {
        snapshot: SessionSnapshot {
            version: env!("CARGO_PKG_VERSION").to_string(),
            protocol: HERDR_PROTOCOL,
            focused_workspace_id: snapshot.focused_session().map(ids::workspace_id),
            focused_tab_id: focused.map(|p| ids::tab_id(p.session, p.window)),
            focused_pane_id: focused.map(|p| ids::pane_id(p.session, p.id)),
            workspaces: records.workspaces(),
            tabs: records.tabs(None),
            panes: records.panes(None),
            layouts: snapshot
                .windows
                .iter()
                .map(|window| records.pane_layout(window))
                .collect(),
            agents: records.agents(),
        },
    }
}
