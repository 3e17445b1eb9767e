//! What the popup lists: sessions, windows and panes from one snapshot, as
//! a tree (session → window → pane) or flat, at the depth `[ui] depth`
//! asks. Pure: a snapshot in, rows out.

use crate::detect::agents;
use crate::model::AgentStatus;
use crate::tmux::snapshot::{Pane, Session, Snapshot};
use std::collections::HashSet;

/// What a row stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    Session(u32),
    Window {
        session: u32,
        window: u32,
    },
    Pane {
        session: u32,
        window: u32,
        pane: u32,
    },
    /// A folder the filter offers to open a session in (`[ui]
    /// projects_in_filter`): an index into the app's folder hits.
    Folder(u32),
    /// A worktree of a repository's session that no session runs: an
    /// index into the closed worktrees the rows were built with.
    Worktree(u32),
    /// A machine's heading in `taw app`'s list: an index into its sections.
    Machine(u32),
}

/// A machine in `taw app`'s list: its heading, over the sessions whose ids
/// run from `first` up to the next section's `first`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub first: u32,
    pub title: String,
    /// How its link stands: online, offline and why.
    pub detail: String,
}

/// A worktree no session runs, listed under its repository's session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClosedWorktree {
    /// The repository's session.
    pub head: u32,
    pub path: String,
    pub branch: Option<String>,
}

impl ClosedWorktree {
    /// Its branch, else its folder's name.
    pub(crate) fn name(&self) -> String {
        self.branch.clone().unwrap_or_else(|| {
            std::path::Path::new(&self.path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| self.path.clone())
        })
    }
}

impl Target {
    /// The session a row is in; none for a folder.
    pub(crate) fn session(self) -> Option<u32> {
        match self {
            Target::Session(session)
            | Target::Window { session, .. }
            | Target::Pane { session, .. } => Some(session),
            Target::Folder(_) | Target::Worktree(_) | Target::Machine(_) => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    Tree,
    Flat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    Sessions,
    Agents,
    All,
}

impl Layout {
    pub(crate) fn parse(text: &str) -> Layout {
        if text == "flat" {
            Layout::Flat
        } else {
            Layout::Tree
        }
    }
}

impl Depth {
    pub(crate) fn parse(text: &str) -> Depth {
        match text {
            "sessions" => Depth::Sessions,
            "all" => Depth::All,
            _ => Depth::Agents,
        }
    }
}

/// How many agents are in each state, for a session's or window's row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub blocked: usize,
    pub done: usize,
    pub working: usize,
    pub idle: usize,
    pub unknown: usize,
}

impl Counts {
    fn add(&mut self, state: AgentStatus) {
        match state {
            AgentStatus::Blocked => self.blocked += 1,
            AgentStatus::Done => self.done += 1,
            AgentStatus::Working => self.working += 1,
            AgentStatus::Idle => self.idle += 1,
            AgentStatus::Unknown => self.unknown += 1,
        }
    }

    /// Another row's counts added in.
    fn add_all(&mut self, other: &Counts) {
        self.blocked += other.blocked;
        self.done += other.done;
        self.working += other.working;
        self.idle += other.idle;
        self.unknown += other.unknown;
    }

    /// The state that most wants a look: blocked, done, working, idle.
    pub(crate) fn most_urgent(&self) -> Option<AgentStatus> {
        [
            (self.blocked, AgentStatus::Blocked),
            (self.done, AgentStatus::Done),
            (self.working, AgentStatus::Working),
            (self.idle, AgentStatus::Idle),
            (self.unknown, AgentStatus::Unknown),
        ]
        .into_iter()
        .find(|(n, _)| *n > 0)
        .map(|(_, state)| state)
    }
}

/// One line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    pub target: Target,
    /// 0 for a session, 1 for a window, 2 for a pane (tree); 0 when flat.
    pub depth: u8,
    /// What the row says: a session's or window's name, an agent's name.
    pub label: String,
    /// Dim text after it: the agent's kind, a pane's command and folder.
    pub detail: String,
    /// Where it is, for a flat row or a filtered one: `session:window`.
    pub place: String,
    /// The agent's state (a pane), or the most urgent of its agents.
    pub state: Option<AgentStatus>,
    pub counts: Counts,
    /// The pane whose screen the preview shows for this row.
    pub preview_pane: Option<u32>,
    /// A session's folder, for its git status.
    pub path: String,
    /// Text the filter matches against.
    pub search: String,
}

/// An agent pane's name in the list: its own name, else the display name
/// reported for it (`pane report-metadata --display-agent`), else its
/// kind's.
pub(crate) fn agent_label(pane: &Pane) -> String {
    if !pane.agent_name.is_empty() {
        return pane.agent_name.clone();
    }
    if !pane.meta_display_agent.is_empty() {
        return pane.meta_display_agent.clone();
    }
    agents::by_id(&pane.agent_kind)
        .map(|agent| agent.name.to_string())
        .unwrap_or_else(|| pane.agent_kind.clone())
}

fn pane_state(pane: &Pane) -> Option<AgentStatus> {
    (!pane.agent_kind.is_empty()).then(|| AgentStatus::parse(&pane.agent_state))
}

/// The folder a path is in, with `~` for the home folder.
fn short_path(path: &str, home: &str) -> String {
    match path.strip_prefix(home) {
        Some(rest) if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            format!("~{rest}")
        }
        _ => path.to_string(),
    }
}

/// The sessions in the order the list shows them: each repository's
/// session with its worktree sessions right after it, the rest in tmux's
/// order.
fn grouped_order(snapshot: &Snapshot) -> Vec<&Session> {
    // Each session's head, found once.
    let heads: Vec<Option<u32>> = snapshot
        .sessions
        .iter()
        .map(|s| crate::ops::worktree::head_of(snapshot, s.id))
        .collect();
    let mut order = Vec::new();
    for (session, head) in snapshot.sessions.iter().zip(&heads) {
        match *head {
            // A worktree session comes with its repository's.
            Some(head) if head != session.id => continue,
            Some(head) => {
                order.push(session);
                order.extend(
                    snapshot
                        .sessions
                        .iter()
                        .zip(&heads)
                        .filter(|(s, h)| s.id != head && **h == Some(head))
                        .map(|(s, _)| s),
                );
            }
            None => order.push(session),
        }
    }
    order
}

/// Builds the rows. `collapsed` sessions show no children (tree only).
/// `closed` worktrees are listed under their repository's session. With
/// `sections` (taw app's machines), each machine's heading comes before
/// its own sessions.
pub(crate) fn build(
    snapshot: &Snapshot,
    layout: Layout,
    depth: Depth,
    collapsed: &HashSet<u32>,
    home: &str,
    closed: &[ClosedWorktree],
    sections: &[Section],
) -> Vec<Row> {
    let order = grouped_order(snapshot);
    let of =
        |session: &Session| session_rows(snapshot, session, layout, depth, collapsed, home, closed);
    if sections.is_empty() {
        return order.into_iter().flat_map(of).collect();
    }
    let mut rows = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        let end = sections.get(i + 1).map_or(u32::MAX, |next| next.first);
        rows.push(Row {
            target: Target::Machine(i as u32),
            depth: 0,
            label: section.title.clone(),
            detail: section.detail.clone(),
            place: String::new(),
            state: None,
            counts: Counts::default(),
            preview_pane: None,
            path: String::new(),
            search: section.title.clone(),
        });
        for session in order
            .iter()
            .filter(|s| (section.first..end).contains(&s.id))
        {
            rows.extend(of(session));
        }
    }
    rows
}

/// One session's rows: its own, its windows' and panes', its closed
/// worktrees'.
fn session_rows(
    snapshot: &Snapshot,
    session: &Session,
    layout: Layout,
    depth: Depth,
    collapsed: &HashSet<u32>,
    home: &str,
    closed: &[ClosedWorktree],
) -> Vec<Row> {
    let windows: Vec<_> = snapshot
        .windows
        .iter()
        .filter(|w| w.session == session.id)
        .collect();
    let mut session_counts = Counts::default();
    let mut children = Vec::new();
    for window in &windows {
        let (counts, rows) = window_rows(snapshot, session, window, layout, depth, home);
        session_counts.add_all(&counts);
        children.extend(rows);
    }
    let mut rows = Vec::new();
    if layout == Layout::Tree || depth == Depth::Sessions {
        let active_pane = windows
            .iter()
            .find(|w| w.active)
            .and_then(|w| snapshot.panes_of(session.id, w.id).find(|p| p.active))
            .map(|p| p.id);
        rows.push(session_row(session, session_counts, active_pane, home));
    }
    if layout == Layout::Tree && collapsed.contains(&session.id) {
        return rows;
    }
    rows.extend(children);
    rows.extend(closed_worktree_rows(session, closed, layout, home));
    rows
}

/// A window's counts, and its rows as the depth and layout list them: the
/// window's own (in a tree) and its panes'; none when no pane is listed.
fn window_rows(
    snapshot: &Snapshot,
    session: &Session,
    window: &crate::tmux::snapshot::Window,
    layout: Layout,
    depth: Depth,
    home: &str,
) -> (Counts, Vec<Row>) {
    let panes: Vec<&Pane> = snapshot.panes_of(session.id, window.id).collect();
    let mut counts = Counts::default();
    let mut pane_rows = Vec::new();
    for pane in &panes {
        let state = pane_state(pane);
        if let Some(state) = state {
            counts.add(state);
        }
        if depth == Depth::All || (depth == Depth::Agents && state.is_some()) {
            pane_rows.push(pane_row(session.name.as_str(), window, pane, layout, home));
        }
    }
    if depth == Depth::Sessions || pane_rows.is_empty() {
        return (counts, Vec::new());
    }
    let mut rows = Vec::new();
    if layout == Layout::Tree {
        let active = panes.iter().find(|p| p.active).or(panes.first());
        rows.push(Row {
            target: Target::Window {
                session: session.id,
                window: window.id,
            },
            depth: 1,
            label: format!("{}: {}", window.index, window.name),
            detail: String::new(),
            place: format!("{}:{}", session.name, window.index),
            state: counts.most_urgent(),
            counts,
            preview_pane: active.map(|p| p.id),
            path: String::new(),
            search: format!("{} {}", session.name, window.name),
        });
    }
    rows.extend(pane_rows);
    (counts, rows)
}

/// A session's own row: its folder (or the repository it is a worktree
/// of) and its agents' counts.
fn session_row(session: &Session, counts: Counts, active_pane: Option<u32>, home: &str) -> Row {
    let detail = match crate::ops::worktree::provenance(session) {
        Some(w) if w.is_linked_worktree => format!(
            "worktree of {} · {}",
            w.repo_name,
            short_path(&w.checkout_path, home)
        ),
        _ => short_path(&session.path, home),
    };
    Row {
        target: Target::Session(session.id),
        depth: 0,
        label: session.name.clone(),
        detail,
        place: String::new(),
        state: counts.most_urgent(),
        counts,
        preview_pane: active_pane,
        path: session.path.clone(),
        search: session.name.clone(),
    }
}

/// The rows of the worktrees of a repository's session that no session
/// runs.
fn closed_worktree_rows(
    session: &Session,
    closed: &[ClosedWorktree],
    layout: Layout,
    home: &str,
) -> Vec<Row> {
    closed
        .iter()
        .enumerate()
        .filter(|(_, w)| w.head == session.id)
        .map(|(i, worktree)| Row {
            target: Target::Worktree(i as u32),
            depth: if layout == Layout::Tree { 1 } else { 0 },
            label: worktree.name(),
            detail: format!("closed worktree · {}", short_path(&worktree.path, home)),
            place: session.name.clone(),
            state: None,
            counts: Counts::default(),
            preview_pane: None,
            path: worktree.path.clone(),
            search: format!("{} {} worktree", session.name, worktree.name()),
        })
        .collect()
}

fn pane_row(
    session: &str,
    window: &crate::tmux::snapshot::Window,
    pane: &Pane,
    layout: Layout,
    home: &str,
) -> Row {
    let state = pane_state(pane);
    let (label, detail) = match state {
        Some(_) => {
            // What it is: the display name reported for it, else its kind.
            let kind = if pane.meta_display_agent.is_empty() {
                agents::by_id(&pane.agent_kind)
                    .map(|a| a.name.to_string())
                    .unwrap_or_else(|| pane.agent_kind.clone())
            } else {
                pane.meta_display_agent.clone()
            };
            let label = agent_label(pane);
            // A title reported for the pane says more than the kind.
            let detail = if !pane.meta_title.is_empty() {
                pane.meta_title.clone()
            } else if label == kind {
                String::new()
            } else {
                kind
            };
            (label, detail)
        }
        None => (
            if pane.label.is_empty() {
                pane.current_command.clone()
            } else {
                pane.label.clone()
            },
            short_path(&pane.current_path, home),
        ),
    };
    let mut counts = Counts::default();
    if let Some(state) = state {
        counts.add(state);
    }
    Row {
        target: Target::Pane {
            session: pane.session,
            window: pane.window,
            pane: pane.id,
        },
        depth: if layout == Layout::Tree { 2 } else { 0 },
        search: format!(
            "{session} {} {label} {detail} {}",
            window.name, pane.agent_kind
        ),
        label,
        detail,
        place: format!("{session}:{}", window.index),
        state,
        counts,
        preview_pane: Some(pane.id),
        path: pane.current_path.clone(),
    }
}

/// Made-up sessions, windows and panes for the popup's tests.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture::{self, session, window};

    fn pane(session: u32, window: u32, id: u32, kind: &str, state: &str) -> Pane {
        fixture::pane(session, window, id, kind, state, "")
    }

    fn snapshot() -> Snapshot {
        Snapshot {
            sessions: vec![session(0, "api"), session(1, "web")],
            windows: vec![
                window(0, 0, "code"),
                window(0, 1, "logs"),
                window(1, 2, "main"),
            ],
            panes: vec![
                pane(0, 0, 0, "claude", "blocked"),
                pane(0, 0, 1, "", ""),
                pane(0, 1, 2, "", ""),
                pane(1, 2, 3, "codex", "working"),
            ],
            ..Snapshot::default()
        }
    }

    fn labels(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| format!("{}{}", "  ".repeat(r.depth as usize), r.label))
            .collect()
    }

    #[test]
    fn a_tree_of_agents() {
        let rows = build(
            &snapshot(),
            Layout::Tree,
            Depth::Agents,
            &HashSet::new(),
            "/home/u",
            &[],
            &[],
        );
        assert_eq!(
            labels(&rows),
            [
                "api",
                "  0: code",
                "    Claude Code",
                "web",
                "  2: main",
                "    Codex"
            ]
        );
        assert_eq!(rows[0].state, Some(AgentStatus::Blocked));
        assert_eq!(rows[0].detail, "~/api");
        assert_eq!(rows[3].counts.working, 1);
    }

    #[test]
    fn every_pane_or_only_sessions() {
        let all = build(
            &snapshot(),
            Layout::Tree,
            Depth::All,
            &HashSet::new(),
            "",
            &[],
            &[],
        );
        assert_eq!(all.len(), 2 + 3 + 4);
        let sessions = build(
            &snapshot(),
            Layout::Tree,
            Depth::Sessions,
            &HashSet::new(),
            "",
            &[],
            &[],
        );
        assert_eq!(labels(&sessions), ["api", "web"]);
        let collapsed: HashSet<u32> = [0].into();
        let rows = build(
            &snapshot(),
            Layout::Tree,
            Depth::Agents,
            &collapsed,
            "",
            &[],
            &[],
        );
        assert_eq!(labels(&rows), ["api", "web", "  2: main", "    Codex"]);
    }

    #[test]
    fn reported_metadata_names_the_agent_and_titles_it() {
        let mut snapshot = snapshot();
        snapshot.panes[0].meta_display_agent = "Claude (Opus)".into();
        snapshot.panes[0].meta_title = "Fixing the login".into();
        snapshot.panes[3].agent_name = "reviewer".into();
        snapshot.panes[3].meta_display_agent = "Codex 5".into();
        let rows = build(
            &snapshot,
            Layout::Flat,
            Depth::Agents,
            &HashSet::new(),
            "",
            &[],
            &[],
        );
        let shown: Vec<(String, String)> = rows
            .iter()
            .map(|r| (r.label.clone(), r.detail.clone()))
            .collect();
        assert_eq!(
            shown,
            [
                ("Claude (Opus)".to_string(), "Fixing the login".to_string()),
                ("reviewer".to_string(), "Codex 5".to_string()),
            ]
        );
    }

    #[test]
    fn flat_lists_the_agents_with_their_place() {
        let rows = build(
            &snapshot(),
            Layout::Flat,
            Depth::Agents,
            &HashSet::new(),
            "",
            &[],
            &[],
        );
        assert_eq!(labels(&rows), ["Claude Code", "Codex"]);
        assert_eq!(rows[1].place, "web:2");
    }

    #[test]
    fn worktree_sessions_come_under_their_repository() {
        let mut snapshot = snapshot();
        let worktree = |checkout: &str, linked: bool| {
            format!(
                "{{\"repo_key\":\"/src/api/.git\",\"repo_name\":\"api\",\"repo_root\":\"/src/api\",\"checkout_path\":\"{checkout}\",\"is_linked_worktree\":{linked}}}"
            )
        };
        // web runs a worktree of api's repository; api heads the group.
        snapshot.sessions[1].worktree = worktree("/wt/api/feat-x", true);
        snapshot.sessions.push(fixture::session(7, "lone"));
        snapshot.sessions.swap(0, 2);
        snapshot
            .sessions
            .iter_mut()
            .find(|s| s.id == 0)
            .unwrap()
            .worktree = worktree("/src/api", false);
        let closed = [ClosedWorktree {
            head: 0,
            path: "/wt/api/old".into(),
            branch: Some("old".into()),
        }];
        let rows = build(
            &snapshot,
            Layout::Tree,
            Depth::Sessions,
            &HashSet::new(),
            "/home/u",
            &closed,
            &[],
        );
        assert_eq!(labels(&rows), ["lone", "api", "  old", "web"]);
        assert_eq!(rows[2].target, Target::Worktree(0));
        assert_eq!(rows[3].detail, "worktree of api · /wt/api/feat-x");
    }

    #[test]
    fn each_machine_heads_its_own_sessions() {
        let mut snapshot = snapshot();
        // The second machine's ids start at 1000: web (id 1) is here.
        let mut far = fixture::session(1000, "far-api");
        far.path = "/far".into();
        snapshot.sessions.push(far);
        let sections = [
            Section {
                first: 0,
                title: "here".into(),
                detail: "this machine".into(),
            },
            Section {
                first: 1000,
                title: "studio".into(),
                detail: "online".into(),
            },
            Section {
                first: 2000,
                title: "laptop".into(),
                detail: "offline".into(),
            },
        ];
        let rows = build(
            &snapshot,
            Layout::Tree,
            Depth::Sessions,
            &HashSet::new(),
            "",
            &[],
            &sections,
        );
        assert_eq!(
            labels(&rows),
            ["here", "api", "web", "studio", "far-api", "laptop"]
        );
        assert_eq!(rows[3].target, Target::Machine(1));
        assert_eq!(rows[5].detail, "offline");
    }
}
