//! A far machine's list as the popup's snapshot, from the records of its
//! feed's `state`, so the popup's rows, keys and questions work on every
//! machine alike. Each machine's tmux ids are lifted into a span of their
//! own (this machine's stay as they are), and lowered again for what is
//! done there. Pure.

use crate::machine::protocol::State;
use crate::model::AgentInfo;
use crate::tmux::snapshot::{Pane, Session, Snapshot, Window};
use serde_json::Value;
use std::collections::HashMap;

/// The ids of one machine: a tmux server numbers far below this.
const SPAN: u32 = 1 << 24;

/// Machine `machine`'s `id` in the merged list.
pub(crate) fn lift(machine: usize, id: u32) -> u32 {
    machine as u32 * SPAN + id % SPAN
}

/// The machine an id of the merged list is of, and its own id there.
pub(crate) fn lower(id: u32) -> (usize, u32) {
    ((id / SPAN) as usize, id % SPAN)
}

/// The first id of machine `machine`'s span.
pub(crate) fn first_id(machine: usize) -> u32 {
    lift(machine, 0)
}

/// `$3`, `@4`, `%5`'s number; none past a machine's span, which would be
/// another machine's id (this one's, where a close is done here).
fn number(text: &str, sigil: char) -> Option<u32> {
    crate::tmux::ids::tmux_number(text, sigil).filter(|&n| n < SPAN)
}

fn text(value: &Option<String>) -> String {
    value.clone().unwrap_or_default()
}

/// Live tokens as the snapshot stores tokens.
fn stored_tokens(tokens: &Option<serde_json::Map<String, Value>>) -> String {
    match tokens {
        Some(map) if !map.is_empty() => {
            let stored: serde_json::Map<String, Value> = map
                .iter()
                .map(|(name, value)| (name.clone(), serde_json::json!({ "value": value })))
                .collect();
            Value::Object(stored).to_string()
        }
        _ => String::new(),
    }
}

/// A session's worktree provenance, with its repository's key made the
/// machine's own: the same folder on two machines is two repositories.
fn provenance(worktree: &Option<crate::model::Provenance>, machine: &str) -> String {
    let Some(worktree) = worktree else {
        return String::new();
    };
    let own = crate::model::Provenance {
        repo_key: format!("{machine}\u{0}{}", worktree.repo_key),
        ..worktree.clone()
    };
    serde_json::to_string(&own).unwrap_or_default()
}

/// Machine number `machine` (called `name`) as a snapshot, from its
/// `state`: its sessions, windows and panes with lifted ids.
pub(crate) fn snapshot_of(state: &State, machine: usize, name: &str) -> Snapshot {
    // Records name each other by public id; the snapshot by tmux's.
    let session_of: HashMap<&str, u32> = state
        .spaces
        .iter()
        .filter_map(|s| Some((s.workspace_id.as_str(), number(&s.tmux_id, '$')?)))
        .collect();
    let window_of: HashMap<&str, u32> = state
        .tabs
        .iter()
        .filter_map(|t| Some((t.tab.tab_id.as_str(), number(&t.tab.tmux_id, '@')?)))
        .collect();
    let mut snapshot = Snapshot {
        panes: panes_of(state, machine, &session_of, &window_of),
        ..Snapshot::default()
    };
    for tab in &state.tabs {
        let (Some(session), Some(id)) = (
            session_of.get(tab.tab.workspace_id.as_str()),
            number(&tab.tab.tmux_id, '@'),
        ) else {
            continue;
        };
        snapshot.windows.push(Window {
            session: lift(machine, *session),
            id: lift(machine, id),
            index: tab.tab.index,
            // A taw before tabs said their name: its label was the name.
            name: if tab.tab.name.is_empty() {
                tab.tab.label.clone()
            } else {
                tab.tab.name.clone()
            },
            active: tab.active,
            pane_count: tab.tab.pane_count,
            zoomed: false,
            layout: String::new(),
            named: true,
        });
    }
    for space in &state.spaces {
        let Some(id) = number(&space.tmux_id, '$') else {
            continue;
        };
        let id = lift(machine, id);
        // The folder its checkout, else its first pane, is in.
        let path = space
            .worktree
            .as_ref()
            .map(|w| w.checkout_path.clone())
            .or_else(|| {
                snapshot
                    .panes
                    .iter()
                    .find(|p| p.session == id)
                    .map(|p| p.current_path.clone())
            })
            .unwrap_or_default();
        snapshot.sessions.push(Session {
            id,
            name: space.label.clone(),
            window_count: space.tab_count,
            attached: 0,
            activity: 0,
            created: 0,
            path,
            tokens: stored_tokens(&space.tokens),
            token_seqs: String::new(),
            worktree: provenance(&space.worktree, name),
            group: String::new(),
            kept_label: String::new(),
        });
    }
    snapshot
}

/// The panes of a state whose workspace and tab it lists, with their
/// agents' names.
fn panes_of(
    state: &State,
    machine: usize,
    session_of: &HashMap<&str, u32>,
    window_of: &HashMap<&str, u32>,
) -> Vec<Pane> {
    let agent_of: HashMap<&str, &AgentInfo> = state
        .agents
        .iter()
        .map(|a| (a.tmux_id.as_str(), a))
        .collect();
    state
        .panes
        .iter()
        .filter_map(|pane| {
            let session = session_of.get(pane.workspace_id.as_str())?;
            let window = window_of.get(pane.tab_id.as_str())?;
            let id = number(&pane.tmux_id, '%')?;
            let agent = agent_of.get(pane.tmux_id.as_str());
            let kind = text(&pane.shown.agent);
            Some(Pane {
                session: lift(machine, *session),
                window: lift(machine, *window),
                id: lift(machine, id),
                index: pane.index,
                active: pane.focused,
                title: text(&pane.shown.terminal_title),
                current_path: pane
                    .cwd
                    .clone()
                    .or(pane.foreground_cwd.clone())
                    .unwrap_or_default(),
                current_command: pane.command.clone(),
                agent_state: if kind.is_empty() {
                    String::new()
                } else {
                    pane.shown.agent_status.as_str().to_string()
                },
                agent_name: agent.map(|a| text(&a.name)).unwrap_or_default(),
                agent_kind: kind,
                label: text(&pane.label),
                meta_title: text(&pane.shown.title),
                meta_display_agent: text(&pane.shown.display_agent),
                meta_state_labels: pane
                    .reported
                    .state_labels
                    .clone()
                    .map(|labels| Value::Object(labels).to_string())
                    .unwrap_or_default(),
                meta_tokens: stored_tokens(&pane.reported.tokens),
                state_since: agent.and_then(|a| a.state_since).unwrap_or(0),
                ..Pane::default()
            })
        })
        .collect()
}

/// One snapshot of every machine: this machine's own (its server and
/// clients with it) first, then the far ones, in the list's order.
pub(crate) fn merge<'a>(here: &Snapshot, far: impl Iterator<Item = &'a Snapshot>) -> Snapshot {
    let mut merged = here.clone();
    for snapshot in far {
        merged.sessions.extend(snapshot.sessions.iter().cloned());
        merged.windows.extend(snapshot.windows.iter().cloned());
        merged.panes.extend(snapshot.panes.iter().cloned());
    }
    merged
}

/// The closed worktrees of a far machine's state (its `worktrees`, each
/// with the tmux id of the repository's session as `head`), for the list.
pub(crate) fn closed_worktrees(
    state: &State,
    machine: usize,
) -> Vec<crate::list::rows::ClosedWorktree> {
    state
        .worktrees
        .iter()
        .filter_map(|w| {
            Some(crate::list::rows::ClosedWorktree {
                head: lift(machine, number(&w.head, '$')?),
                path: Some(w.worktree.path.clone()).filter(|p| !p.is_empty())?,
                branch: w.worktree.branch.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state() -> State {
        serde_json::from_value(json!({
            "type": "state",
            "spaces": [{
                "workspace_id": "w1", "tmux_id": "$2", "label": "api", "tab_count": 1,
                "tokens": {"branch": "main"},
                "worktree": {"repo_key": "/src/api/.git", "checkout_path": "/src/api", "is_linked_worktree": false}
            }],
            "tabs": [{"tab_id": "w1:t1", "workspace_id": "w1", "tmux_id": "@4", "index": 0, "label": "code", "active": true, "pane_count": 2}],
            "panes": [
                {"workspace_id": "w1", "tab_id": "w1:t1", "tmux_id": "%7", "index": 0, "focused": true,
                 "cwd": "/src/api", "command": "claude", "agent": "claude", "agent_status": "blocked", "terminal_title": "✳ Claude"},
                {"workspace_id": "w1", "tab_id": "w1:t1", "tmux_id": "%8", "index": 1, "cwd": "/src/api",
                 "command": "bash", "agent_status": "unknown", "label": "logs"},
                {"workspace_id": "w9", "tab_id": "w9:t1", "tmux_id": "%9"}
            ],
            "agents": [{"tmux_id": "%7", "name": "reviewer", "state_since": 1700}],
            "worktrees": [{"head": "$2", "path": "/wt/api/old", "branch": "old"}, {"path": "/no/head"}]
        }))
        .unwrap()
    }

    #[test]
    fn a_far_state_becomes_a_snapshot_with_lifted_ids() {
        let snapshot = snapshot_of(&state(), 2, "studio");
        let session = &snapshot.sessions[0];
        assert_eq!(lower(session.id), (2, 2));
        assert_eq!(session.name, "api");
        assert_eq!(session.path, "/src/api");
        assert!(session.worktree.contains("studio\\u0000/src/api/.git"));
        assert_eq!(
            crate::model::live_tokens(&session.tokens, 0)["branch"],
            "main"
        );
        let window = &snapshot.windows[0];
        assert_eq!((lower(window.id), window.name.as_str()), ((2, 4), "code"));
        assert!(window.active);
        // The pane of a workspace the state does not list is left out.
        assert_eq!(snapshot.panes.len(), 2);
        let agent = &snapshot.panes[0];
        assert_eq!(lower(agent.id), (2, 7));
        assert_eq!(agent.session, session.id);
        assert_eq!(
            (agent.agent_kind.as_str(), agent.agent_state.as_str()),
            ("claude", "blocked")
        );
        assert_eq!(agent.agent_name, "reviewer");
        assert_eq!(agent.state_since, 1700);
        let shell = &snapshot.panes[1];
        assert_eq!(
            (shell.label.as_str(), shell.agent_state.as_str()),
            ("logs", "")
        );
    }

    #[test]
    fn this_machine_keeps_its_ids_and_the_far_ones_follow() {
        assert_eq!(lift(0, 5), 5);
        assert_eq!(lower(5), (0, 5));
        assert_eq!(lower(lift(3, 5)), (3, 5));
        // A far id past the span is no id: it would be another's.
        assert_eq!(number(&format!("%{SPAN}"), '%'), None);
        assert_eq!(number(&format!("%{}", SPAN - 1), '%'), Some(SPAN - 1));
        // Every machine listed has a span of its own.
        assert_eq!(
            lower(lift(crate::machine::MOST_MACHINES, SPAN - 1)),
            (crate::machine::MOST_MACHINES, SPAN - 1)
        );
        let here = snapshot_of(&state(), 0, "here");
        let far = snapshot_of(&state(), 1, "studio");
        let merged = merge(&here, [&far].into_iter());
        assert_eq!(merged.sessions.len(), 2);
        assert_eq!(merged.panes.len(), 4);
        assert_eq!(lower(merged.sessions[1].id), (1, 2));
    }

    #[test]
    fn closed_worktrees_name_their_repositorys_session() {
        let closed = closed_worktrees(&state(), 1);
        assert_eq!(closed.len(), 1);
        assert_eq!(lower(closed[0].head), (1, 2));
        assert_eq!(closed[0].name(), "old");
    }
}
