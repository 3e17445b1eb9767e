//! The records taw answers with, in herdr's shapes (reference §2), built from
//! a tmux [`Snapshot`]. A field herdr leaves out when it has no value is
//! written as `null` here; the fields herdr does not have (`tmux_id`...) are
//! additions a herdr client ignores.

pub(crate) mod layout;
pub(crate) mod nextup;
pub(crate) mod resolve;

use crate::report::StoredSession;
use crate::tmux::ids;
use crate::tmux::snapshot::{Pane, Session, Snapshot, Window};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// herdr's AgentStatus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AgentStatus {
    #[default]
    Unknown,
    Idle,
    Working,
    Done,
    Blocked,
}

impl AgentStatus {
    /// Reads an `@agent_state` value; anything else is unknown.
    pub(crate) fn parse(text: &str) -> AgentStatus {
        match text.trim() {
            "idle" => AgentStatus::Idle,
            "working" => AgentStatus::Working,
            "blocked" => AgentStatus::Blocked,
            "done" => AgentStatus::Done,
            _ => AgentStatus::Unknown,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Unknown => "unknown",
            AgentStatus::Idle => "idle",
            AgentStatus::Working => "working",
            AgentStatus::Done => "done",
            AgentStatus::Blocked => "blocked",
        }
    }

    /// herdr's attention priority: blocked > done > working > idle > unknown.
    pub(crate) fn priority(self) -> u8 {
        match self {
            AgentStatus::Unknown => 0,
            AgentStatus::Idle => 1,
            AgentStatus::Working => 2,
            AgentStatus::Done => 3,
            AgentStatus::Blocked => 4,
        }
    }

    /// The status of a group: the one that asks most for attention.
    pub(crate) fn rollup(statuses: impl IntoIterator<Item = AgentStatus>) -> AgentStatus {
        statuses
            .into_iter()
            .max_by_key(|status| status.priority())
            .unwrap_or(AgentStatus::Unknown)
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct WorkspaceInfo {
    pub workspace_id: String,
    pub number: usize,
    pub label: String,
    pub focused: bool,
    pub pane_count: usize,
    pub tab_count: usize,
    pub active_tab_id: Option<String>,
    pub agent_status: AgentStatus,
    pub tokens: Option<serde_json::Map<String, serde_json::Value>>,
    pub worktree: Option<Provenance>,
    /// taw: the session's tmux id (`$0`).
    pub tmux_id: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct TabInfo {
    pub tab_id: String,
    pub workspace_id: String,
    pub number: u64,
    pub label: String,
    pub focused: bool,
    pub pane_count: usize,
    pub agent_status: AgentStatus,
    /// taw: the window's tmux id (`@1`), index in its session, and name
    /// (the label when it was given one, else what tmux calls it now).
    pub tmux_id: String,
    pub index: i64,
    pub name: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct ScrollInfo {
    pub offset_from_bottom: u64,
    pub max_offset_from_bottom: u64,
    pub viewport_rows: u32,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct PaneInfo {
    pub pane_id: String,
    pub terminal_id: String,
    pub workspace_id: String,
    pub tab_id: String,
    pub focused: bool,
    pub cwd: Option<String>,
    pub foreground_cwd: Option<String>,
    pub label: Option<String>,
    #[serde(flatten)]
    pub shown: Shown,
    #[serde(flatten)]
    pub reported: Reported,
    pub scroll: ScrollInfo,
    pub revision: u64,
    /// herdr's field for a pane a session restore could not put back.
    pub restore_error: Option<String>,
    /// taw: the container the pane's agent runs in.
    pub sandbox: Option<serde_json::Value>,
    /// taw: the pane's tmux id (`%3`), index in its window, and command.
    pub tmux_id: String,
    pub index: i64,
    pub command: String,
}

/// What a pane shows of its agent, in its record and its agent's alike.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Shown {
    pub agent: Option<String>,
    pub title: Option<String>,
    pub terminal_title: Option<String>,
    pub terminal_title_stripped: Option<String>,
    pub display_agent: Option<String>,
    pub agent_status: AgentStatus,
}

/// What a pane's agent reported of itself, in both records alike.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct Reported {
    pub state_labels: Option<serde_json::Map<String, serde_json::Value>>,
    pub tokens: Option<serde_json::Map<String, serde_json::Value>>,
    pub agent_session: Option<serde_json::Value>,
    /// The session id and path the agent's integration reported (taw's
    /// fields beside herdr's reference; a session restore resumes from them).
    pub agent_session_id: Option<String>,
    pub agent_session_path: Option<String>,
}

/// herdr's AgentInfo: a pane that hosts an agent, seen as the agent.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct AgentInfo {
    pub terminal_id: String,
    pub name: Option<String>,
    #[serde(flatten)]
    pub shown: Shown,
    pub screen_detection_skipped: bool,
    #[serde(flatten)]
    pub reported: Reported,
    pub workspace_id: String,
    pub tab_id: String,
    pub pane_id: String,
    pub focused: bool,
    pub launch_pending: bool,
    pub interactive_ready: bool,
    pub state_change_seq: u64,
    pub cwd: Option<String>,
    pub foreground_cwd: Option<String>,
    pub revision: u64,
    /// taw: the container the agent runs in.
    pub sandbox: Option<serde_json::Value>,
    /// taw: the pane's tmux id, and since when (Unix ms) the state holds.
    pub tmux_id: String,
    pub state_since: Option<u64>,
}

/// Where a session's checkout comes from (herdr's WorkspaceWorktreeInfo),
/// as a worktree verb keeps it on the session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Provenance {
    pub repo_key: String,
    pub repo_name: String,
    pub repo_root: String,
    pub checkout_path: String,
    pub is_linked_worktree: bool,
}

/// herdr's WorktreeInfo: one checkout of a repository.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct WorktreeInfo {
    pub path: String,
    pub branch: Option<String>,
    pub is_bare: bool,
    pub is_detached: bool,
    pub is_prunable: bool,
    pub is_linked_worktree: bool,
    pub open_workspace_id: Option<String>,
    /// The repository's name.
    pub label: String,
}

/// Builds records from one snapshot, so every record of an answer agrees.
pub(crate) struct Records<'a> {
    snapshot: &'a Snapshot,
    focused_session: Option<u32>,
}

impl<'a> Records<'a> {
    pub(crate) fn new(snapshot: &'a Snapshot) -> Records<'a> {
        Records {
            snapshot,
            focused_session: snapshot.focused_session(),
        }
    }

    /// Every workspace, numbered by its place in tmux's session order.
    pub(crate) fn workspaces(&self) -> Vec<WorkspaceInfo> {
        self.snapshot
            .sessions
            .iter()
            .enumerate()
            .map(|(index, session)| self.workspace(session, index + 1))
            .collect()
    }

    pub(crate) fn workspace_by_id(&self, session_id: u32) -> Option<WorkspaceInfo> {
        let index = self
            .snapshot
            .sessions
            .iter()
            .position(|session| session.id == session_id)?;
        Some(self.workspace(&self.snapshot.sessions[index], index + 1))
    }

    fn workspace(&self, session: &Session, number: usize) -> WorkspaceInfo {
        let panes: Vec<&Pane> = self
            .snapshot
            .panes
            .iter()
            .filter(|pane| pane.session == session.id)
            .collect();
        WorkspaceInfo {
            workspace_id: ids::workspace_id(session.id),
            number,
            label: session.label().to_string(),
            focused: self.focused_session == Some(session.id),
            pane_count: panes.len(),
            tab_count: self.snapshot.windows_of(session.id).count(),
            active_tab_id: self
                .snapshot
                .active_window(session.id)
                .map(|window| ids::tab_id(session.id, window.id)),
            agent_status: AgentStatus::rollup(panes.iter().map(|p| pane_status(p))),
            tokens: Some(live_tokens(&session.tokens, crate::clock::now_ms()))
                .filter(|tokens| !tokens.is_empty()),
            worktree: serde_json::from_str(&session.worktree).ok(),
            tmux_id: format!("${}", session.id),
        }
    }

    /// The tabs of one workspace, or of all, in tmux's order.
    pub(crate) fn tabs(&self, session: Option<u32>) -> Vec<TabInfo> {
        self.snapshot
            .windows
            .iter()
            .filter(|window| session.is_none_or(|s| window.session == s))
            .map(|window| self.tab(window))
            .collect()
    }

    pub(crate) fn tab(&self, window: &Window) -> TabInfo {
        let panes = self.snapshot.panes_of(window.session, window.id);
        TabInfo {
            tab_id: ids::tab_id(window.session, window.id),
            workspace_id: ids::workspace_id(window.session),
            number: window.id as u64 + 1,
            label: self.snapshot.tab_label(window),
            focused: window.active && self.focused_session == Some(window.session),
            pane_count: window.pane_count,
            agent_status: AgentStatus::rollup(panes.map(pane_status)),
            tmux_id: format!("@{}", window.id),
            index: window.index,
            name: window.name.clone(),
        }
    }

    /// Every pane once, or the panes of one workspace.
    pub(crate) fn panes(&self, session: Option<u32>) -> Vec<PaneInfo> {
        match session {
            Some(session) => self
                .snapshot
                .panes
                .iter()
                .filter(|pane| pane.session == session)
                .map(|pane| self.pane(pane))
                .collect(),
            None => self
                .snapshot
                .unique_panes()
                .into_iter()
                .map(|pane| self.pane(pane))
                .collect(),
        }
    }

    /// herdr's PaneLayoutSnapshot of a window as seen from its session.
    pub(crate) fn pane_layout(&self, window: &Window) -> serde_json::Value {
        let tree = crate::tmux::layout::parse(&window.layout).ok();
        let node = tree.as_ref().map(layout::Node::from_cell);
        let mut panes = Vec::new();
        if let Some(node) = &node {
            collect_leaves(node, &mut |pane, rect| {
                let active = self
                    .snapshot
                    .panes_of(window.session, window.id)
                    .any(|p| p.id == pane && p.active);
                panes.push(serde_json::json!({
                    "pane_id": ids::pane_id(window.session, pane),
                    "focused": active,
                    "rect": layout::RectRecord::from(rect),
                }));
            });
        }
        let focused = self
            .snapshot
            .active_pane(window.session, window.id)
            .map(|p| ids::pane_id(window.session, p.id));
        serde_json::json!({
            "workspace_id": ids::workspace_id(window.session),
            "tab_id": ids::tab_id(window.session, window.id),
            "zoomed": window.zoomed,
            "area": node.as_ref().map(|n| layout::RectRecord::from(n.rect())),
            "focused_pane_id": focused,
            "panes": panes,
            "splits": node.as_ref().map(|n| layout::splits(n, window.id as u64 + 1)).unwrap_or_default(),
        })
    }

    /// herdr's LayoutDescription of a window: its split tree, each pane with
    /// its label and folder.
    pub(crate) fn layout_description(&self, window: &Window) -> serde_json::Value {
        let node = crate::tmux::layout::parse(&window.layout)
            .ok()
            .map(|cell| layout::Node::from_cell(&cell));
        let facts = |pane: u32| {
            let row = self.snapshot.pane(pane, Some(window.session));
            layout::PaneFacts {
                session: window.session,
                label: row.and_then(|p| non_empty(&p.label)),
                cwd: row.and_then(|p| non_empty(&p.current_path)),
            }
        };
        serde_json::json!({
            "workspace_id": ids::workspace_id(window.session),
            "tab_id": ids::tab_id(window.session, window.id),
            "zoomed": window.zoomed,
            "focused_pane_id": self
                .snapshot
                .active_pane(window.session, window.id)
                .map(|p| ids::pane_id(window.session, p.id)),
            "root": node.as_ref().map(|n| layout::layout_node(n, &facts)),
        })
    }

    /// Every pane that hosts an agent, as agent records.
    pub(crate) fn agents(&self) -> Vec<AgentInfo> {
        self.snapshot
            .unique_panes()
            .into_iter()
            .filter_map(|pane| self.agent(pane))
            .collect()
    }

    /// The agent of a pane, if it hosts one.
    pub(crate) fn agent(&self, pane: &Pane) -> Option<AgentInfo> {
        if pane.agent_kind.is_empty() {
            return None;
        }
        let record = self.pane(pane);
        let skipped = pane.reported_kind == pane.agent_kind
            && !pane.reported_state.is_empty()
            && crate::report::authority(&pane.reported_source, &pane.agent_kind)
                != crate::report::Authority::SessionOnly;
        Some(AgentInfo {
            terminal_id: record.terminal_id,
            name: non_empty(&pane.agent_name),
            interactive_ready: record.shown.agent_status != AgentStatus::Unknown,
            shown: record.shown,
            screen_detection_skipped: skipped,
            reported: record.reported,
            workspace_id: record.workspace_id,
            tab_id: record.tab_id,
            pane_id: record.pane_id,
            focused: record.focused,
            launch_pending: false,
            state_change_seq: pane.state_seq,
            cwd: record.cwd,
            foreground_cwd: record.foreground_cwd,
            revision: record.revision,
            sandbox: record.sandbox,
            tmux_id: record.tmux_id,
            state_since: (pane.state_since > 0).then_some(pane.state_since),
        })
    }

    pub(crate) fn pane(&self, pane: &Pane) -> PaneInfo {
        let window_active = self
            .snapshot
            .windows
            .iter()
            .any(|w| w.session == pane.session && w.id == pane.window && w.active);
        let session = StoredSession::parse(&pane.agent_session);
        let terminal_title = terminal_title(
            pane,
            &self.snapshot.server.host,
            &self.snapshot.server.host_short,
        );
        PaneInfo {
            pane_id: ids::pane_id(pane.session, pane.id),
            terminal_id: ids::terminal_id(pane.id),
            workspace_id: ids::workspace_id(pane.session),
            tab_id: ids::tab_id(pane.session, pane.window),
            focused: pane.active && window_active && self.focused_session == Some(pane.session),
            // The folder the pane's own shell is in; tmux's `pane_current_path`
            // is the folder of whatever runs in front (herdr's foreground_cwd).
            cwd: crate::detect::foreground::process_cwd(pane.pid)
                .or_else(|| non_empty(&pane.current_path)),
            foreground_cwd: non_empty(&pane.current_path),
            label: non_empty(&pane.label),
            shown: Shown {
                agent: non_empty(&pane.agent_kind),
                title: non_empty(&pane.meta_title),
                terminal_title_stripped: terminal_title.as_deref().map(strip_title_glyph),
                terminal_title,
                display_agent: non_empty(&pane.meta_display_agent),
                agent_status: pane_status(pane),
            },
            reported: Reported {
                state_labels: state_labels(&pane.meta_state_labels),
                tokens: Some(live_tokens(&pane.meta_tokens, crate::clock::now_ms()))
                    .filter(|tokens| !tokens.is_empty()),
                agent_session: session.as_ref().map(StoredSession::record),
                agent_session_id: session.as_ref().and_then(StoredSession::session_id),
                agent_session_path: session.as_ref().and_then(StoredSession::session_path),
            },
            scroll: ScrollInfo {
                offset_from_bottom: if pane.in_mode {
                    pane.scroll_position.unwrap_or(0)
                } else {
                    0
                },
                max_offset_from_bottom: pane.history_size,
                viewport_rows: pane.height,
            },
            revision: pane.revision,
            // Until the pane has an agent of its own.
            restore_error: (!pane.restore_error.is_empty()
                && pane.agent_kind.is_empty()
                && pane.reported_kind.is_empty())
            .then(|| pane.restore_error.clone()),
            sandbox: crate::sandbox::record_field(&pane.container, &pane.sandbox_profile),
            tmux_id: format!("%{}", pane.id),
            index: pane.index,
            command: pane.current_command.clone(),
        }
    }
}

fn collect_leaves(node: &layout::Node, visit: &mut dyn FnMut(u32, crate::tmux::layout::Rect)) {
    match node {
        layout::Node::Pane { pane, rect } => visit(*pane, *rect),
        layout::Node::Split { first, second, .. } => {
            collect_leaves(first, visit);
            collect_leaves(second, visit);
        }
    }
}

/// The tokens still alive in the stored JSON, name → value.
pub(crate) fn live_tokens(stored: &str, now: u64) -> Map<String, Value> {
    let Ok(Value::Object(tokens)) = serde_json::from_str::<Value>(stored) else {
        return Map::new();
    };
    tokens
        .into_iter()
        .filter(|(_, token)| {
            token["expires"]
                .as_u64()
                .is_none_or(|expires| expires > now)
        })
        .filter_map(|(name, token)| Some((name, token["value"].as_str()?.into())))
        .collect()
}

/// The labels reported for a pane's states (status to text), if any.
pub(crate) fn state_labels(stored: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(stored) {
        Ok(Value::Object(labels)) if !labels.is_empty() => Some(
            labels
                .into_iter()
                .filter(|(_, label)| label.is_string())
                .collect(),
        ),
        _ => None,
    }
}

/// A pane's status: its agent's state, unknown without one.
pub(crate) fn pane_status(pane: &Pane) -> AgentStatus {
    if pane.agent_kind.is_empty() && pane.agent_state.is_empty() {
        return AgentStatus::Unknown;
    }
    AgentStatus::parse(&pane.agent_state)
}

/// The title a program set. tmux gives a pane the host's name until a
/// program sets one, so that name means "none".
fn terminal_title(pane: &Pane, host: &str, host_short: &str) -> Option<String> {
    let title: String = pane.title.chars().filter(|c| !c.is_control()).collect();
    if title.is_empty() || title == host || title == host_short {
        None
    } else {
        Some(title)
    }
}

/// herdr's stripped title: one leading spinner or activity glyph (braille,
/// or one of `·✢✳✶✻✽`) and the spaces after it taken off.
pub(crate) fn strip_title_glyph(title: &str) -> String {
    let mut chars = title.chars();
    match chars.next() {
        Some(c) if ('\u{2800}'..='\u{28ff}').contains(&c) || "·✢✳✶✻✽".contains(c) => {
            chars.as_str().trim_start().to_string()
        }
        _ => title.to_string(),
    }
}

fn non_empty(text: &str) -> Option<String> {
    if text.is_empty() {
        None
    } else {
        Some(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expired_tokens_are_not_shown() {
        let stored = r#"{"a":{"value":"1","expires":null},"b":{"value":"2","expires":10},"c":{"value":"3","expires":99}}"#;
        let live = live_tokens(stored, 50);
        assert_eq!(live.len(), 2);
        assert_eq!(live["a"], "1");
        assert_eq!(live["c"], "3");
        assert!(live_tokens("junk", 0).is_empty());
    }

    #[test]
    fn state_labels_are_read_back() {
        let labels = state_labels(r#"{"working":"thinking","idle":3}"#).unwrap();
        assert_eq!(
            Value::Object(labels),
            serde_json::json!({"working": "thinking"})
        );
        assert!(state_labels("").is_none());
        assert!(state_labels("{}").is_none());
    }

    #[test]
    fn rollup_takes_the_most_urgent() {
        use AgentStatus::*;
        assert_eq!(AgentStatus::rollup([Idle, Blocked, Working]), Blocked);
        assert_eq!(AgentStatus::rollup([Idle, Done, Working]), Done);
        assert_eq!(AgentStatus::rollup([]), Unknown);
        assert_eq!(AgentStatus::rollup([Unknown, Idle]), Idle);
    }

    #[test]
    fn title_glyph_is_stripped_once() {
        assert_eq!(
            strip_title_glyph("⠧ Agents lab | work"),
            "Agents lab | work"
        );
        assert_eq!(strip_title_glyph("✳ Claude Code"), "Claude Code");
        assert_eq!(strip_title_glyph("✳✳ x"), "✳ x");
        assert_eq!(strip_title_glyph("plain"), "plain");
        assert_eq!(strip_title_glyph(""), "");
    }

    #[test]
    fn statuses_serialize_as_herdr_spells_them() {
        assert_eq!(
            serde_json::to_value(AgentStatus::Blocked).unwrap(),
            serde_json::json!("blocked")
        );
    }
}
