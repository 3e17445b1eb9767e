//! The web state API's records: vmux's PaneState for every pane, built
//! from one snapshot and each pane's captured screen. Pure: the server
//! reads tmux, this shapes what it read.

use crate::model::{AgentStatus, Records};
use crate::tmux::snapshot::{Pane, Session, Snapshot, Window};
use serde::Serialize;
use std::collections::HashMap;

/// Keys a client may send, in tmux's spelling: vmux's list, which its
/// clients show as buttons.
pub(crate) const SAFE_KEYS: &[&str] = &[
    "Enter", "Escape", "Tab", "BTab", "Space", "BSpace", "Up", "Down", "Left", "Right", "Home",
    "End", "PageUp", "PageDown", "C-c", "C-d", "C-z", "C-a", "C-e", "C-u", "C-k", "C-l", "C-r",
    "C-w", "C-n", "C-o", "C-p",
];

/// How many of a screen's last non-empty lines make its preview.
const PREVIEW_LINES: usize = 6;

/// One choice of a menu on an agent's screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct MenuOption {
    /// What guarded input names it by.
    pub id: String,
    /// The key that picks it on the screen (`1`), shown as its shortcut.
    pub key: String,
    pub label: String,
    pub description: String,
    pub selected: bool,
    pub freeform: bool,
}

/// One node of where a pane is: its session, window, and itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Node {
    pub kind: &'static str,
    pub id: String,
    pub label: String,
    pub position: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Capabilities {
    pub capture: bool,
    pub input: &'static str,
    pub literal_text: bool,
    pub menu_select: bool,
    pub keys: Vec<&'static str>,
    pub broadcast: bool,
    pub create: bool,
    pub delete: bool,
    pub native_agent_state: bool,
}

/// taw's own word on the agent: display and state evidence, never
/// authorization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct NativeAgent {
    pub present: bool,
    pub kind: String,
    pub name: Option<String>,
    pub status: AgentStatus,
    pub state_change_seq: u64,
    pub interactive_ready: bool,
}

/// What an input must name to be sent (vmux's guard): the pane and its
/// state sequence, and the fingerprints of the prompt and the options the
/// client saw. Opaque to clients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub(crate) struct ActionGuard {
    pub endpoint_revision: String,
    pub prompt_fingerprint: String,
    pub options_fingerprint: String,
}

/// vmux's PaneState.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PaneState {
    pub id: String,
    pub target: String,
    pub name: String,
    pub kind: &'static str,
    pub status: &'static str,
    pub title: String,
    pub question: Option<String>,
    pub menu: Vec<MenuOption>,
    pub preview: Vec<String>,
    pub lines: Vec<String>,
    pub updated: f64,
    pub changed: bool,
    pub window: String,
    pub starred: bool,
    pub interacted: f64,
    pub provider: &'static str,
    pub hierarchy: Vec<Node>,
    pub capabilities: Capabilities,
    pub native_agent: Option<NativeAgent>,
    pub action_guard: Option<ActionGuard>,
    pub actionable: bool,
    pub stale: bool,
    /// The menu's choices sit side by side (taw's, for sending a choice).
    #[serde(skip)]
    pub menu_across: bool,
}

/// The full snapshot a client replaces its pane set with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct StateFrame {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub panes: Vec<PaneState>,
}

/// What the server remembers between snapshots: when each pane's screen
/// last changed, stars, the last input sent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Memory {
    /// Pane → (fingerprint of its lines, when they became so).
    pub screens: HashMap<u32, (u64, f64)>,
    /// Targets starred by a client.
    pub starred: std::collections::BTreeSet<String>,
    /// Pane → when input was last sent to it.
    pub interacted: HashMap<u32, f64>,
}

/// vmux's kinds: the agents it knows by name, `generic` for every other
/// agent taw detects, `shell` for no agent.
pub(crate) fn kind_of(agent: &str) -> &'static str {
    match agent {
        "" => "shell",
        "claude" => "claude-code",
        "codex" => "codex",
        "grok" => "grok",
        "opencode" => "opencode",
        "agy" | "antigravity" | "antigravity_cli" => "antigravity",
        _ => "generic",
    }
}

/// vmux's status of taw's state: blocked needs you, done is idle.
pub(crate) fn status_of(state: Option<AgentStatus>) -> &'static str {
    match state {
        Some(AgentStatus::Blocked) => "needs_input",
        Some(AgentStatus::Working) => "working",
        _ => "idle",
    }
}

/// A stable fingerprint of some text (FNV-1a, 64 bits), as hex: it tells
/// a prompt from another, and is no secret.
pub(crate) fn fingerprint(text: &str) -> String {
    format!("fnv1a64:{:016x}", crate::text::fnv1a64(text.as_bytes()))
}

/// The fingerprint of a menu: each option's key, label, description and
/// marks, in order.
pub(crate) fn menu_fingerprint(menu: &[MenuOption]) -> String {
    fingerprint(
        &menu
            .iter()
            .map(|o| {
                format!(
                    "{}\u{1f}{}\u{1f}{}\u{1f}{}{}",
                    o.key, o.label, o.description, o.selected as u8, o.freeform as u8
                )
            })
            .collect::<Vec<_>>()
            .join("\u{1e}"),
    )
}

/// A menu option's id: its place in this prompt and its own text, so an
/// id from an older screen names nothing on a new one.
pub(crate) fn option_id(prompt: &str, option: &MenuOption) -> String {
    format!(
        "o:{:016x}",
        crate::text::fnv1a64(
            format!("{prompt}\u{1d}{}\u{1f}{}", option.key, option.label).as_bytes()
        )
    )
}

/// The lines of a captured screen, trailing blank ones dropped.
pub(crate) fn screen_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// What a blocked agent's screen asks: a question and its menu.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Asked {
    pub question: Option<String>,
    pub menu: Vec<MenuOption>,
    /// The choices sit side by side: left and right move between them.
    pub across: bool,
}

/// Builds every pane's record. `screens` holds each pane's captured text;
/// `memory` is updated with the screens seen now, at `now` (Unix seconds).
pub(crate) fn build(
    snapshot: &Snapshot,
    screens: &HashMap<u32, String>,
    memory: &mut Memory,
    now: f64,
    ask: &dyn Fn(&Pane, &[String]) -> Asked,
) -> StateFrame {
    let records = Records::new(snapshot);
    let mut panes = Vec::new();
    for pane in snapshot.unique_panes() {
        let Some(session) = snapshot.session(pane.session) else {
            continue;
        };
        let Some(window) = snapshot.window(pane.session, pane.window) else {
            continue;
        };
        let place = Place {
            session,
            window,
            pane,
        };
        let screen = screens.get(&pane.id).map(String::as_str).unwrap_or("");
        let looked = Looked { screen, now };
        panes.push(pane_state(snapshot, &records, place, looked, memory, ask));
    }
    // A starred target that runs nowhere now: an offline placeholder,
    // which takes no input.
    let running: std::collections::HashSet<String> =
        panes.iter().map(|p| p.target.clone()).collect();
    for target in memory.starred.iter().filter(|t| !running.contains(*t)) {
        panes.push(offline(target));
    }
    // Panes gone: forgotten.
    let live: std::collections::HashSet<u32> = snapshot.panes.iter().map(|p| p.id).collect();
    memory.screens.retain(|id, _| live.contains(id));
    memory.interacted.retain(|id, _| live.contains(id));
    StateFrame {
        kind: "state",
        panes,
    }
}

/// A pane with its session and window.
#[derive(Clone, Copy)]
struct Place<'a> {
    session: &'a Session,
    window: &'a Window,
    pane: &'a Pane,
}

/// A pane's captured screen, and when it was captured.
#[derive(Clone, Copy)]
struct Looked<'a> {
    screen: &'a str,
    now: f64,
}

/// One pane's record; `memory` learns whether its screen changed.
fn pane_state(
    snapshot: &Snapshot,
    records: &Records,
    place: Place,
    looked: Looked,
    memory: &mut Memory,
    ask: &dyn Fn(&Pane, &[String]) -> Asked,
) -> PaneState {
    let Place {
        session,
        window,
        pane,
    } = place;
    let lines = screen_lines(looked.screen);
    let (changed, updated) = screen_change(memory, pane.id, &lines, looked.now);
    let agent = records.agent(pane);
    let state = agent.as_ref().map(|a| a.shown.agent_status);
    let asked = if state == Some(AgentStatus::Blocked) {
        ask(pane, &lines)
    } else {
        Asked::default()
    };
    let question = match (&asked.question, state) {
        (Some(q), _) => Some(q.clone()),
        (None, Some(AgentStatus::Blocked)) => Some("The agent is waiting for your input.".into()),
        _ => None,
    };
    let target = format!("{}:{}.{}", session.name, window.index, pane.index);
    // Input goes only to an agent that is there, in a pane that takes
    // it; a shell is never typed into from the web.
    let actionable = agent.is_some() && !pane.in_mode && !pane.dead;
    let mut menu = asked.menu;
    let prompt_text = question.clone().unwrap_or_default();
    for option in &mut menu {
        option.id = option_id(&prompt_text, option);
    }
    let action_guard = actionable.then(|| ActionGuard {
        endpoint_revision: format!("{}:{}:{}", snapshot.server.pid, pane.id, pane.state_seq),
        prompt_fingerprint: fingerprint(question.as_deref().unwrap_or("")),
        options_fingerprint: menu_fingerprint(&menu),
    });
    PaneState {
        id: format!("%{}", pane.id),
        starred: memory.starred.contains(&target),
        interacted: memory.interacted.get(&pane.id).copied().unwrap_or(0.0),
        target,
        name: display_name(place),
        kind: kind_of(&pane.agent_kind),
        status: status_of(state),
        title: pane.title.clone(),
        question,
        menu,
        preview: preview_of(&lines),
        lines,
        updated,
        changed,
        window: window.name.clone(),
        provider: "tmux",
        hierarchy: hierarchy(place),
        capabilities: guarded_capabilities(),
        native_agent: agent.as_ref().map(|a| NativeAgent {
            present: true,
            kind: pane.agent_kind.clone(),
            name: a.name.clone(),
            status: a.shown.agent_status,
            state_change_seq: pane.state_seq,
            interactive_ready: a.interactive_ready,
        }),
        action_guard,
        actionable,
        stale: false,
        menu_across: asked.across,
    }
}

/// Whether a pane's screen changed since it was last seen, and since when
/// it is as it is now; `memory` keeps the screen seen now.
fn screen_change(memory: &mut Memory, pane: u32, lines: &[String], now: f64) -> (bool, f64) {
    // Every pane's screen is fingerprinted for every frame (two megabytes
    // at 500 panes): std's hasher takes eight bytes a round where FNV
    // takes one, and the lines need not be joined first.
    let print = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        lines.hash(&mut hasher);
        hasher.finish()
    };
    let (changed, updated) = match memory.screens.get(&pane) {
        Some((was, since)) if *was == print => (false, *since),
        Some(_) => (true, now),
        // First seen: no change observed yet.
        None => (false, now),
    };
    memory.screens.insert(pane, (print, updated));
    (changed, updated)
}

/// A pane's name: its agent's, else its label, else where it is.
fn display_name(place: Place) -> String {
    let Place {
        session,
        window,
        pane,
    } = place;
    if !pane.agent_name.is_empty() {
        pane.agent_name.clone()
    } else if !pane.label.is_empty() {
        pane.label.clone()
    } else {
        format!("{}:{}:{}", session.name, window.name, pane.index)
    }
}

/// The last lines of a screen that hold something.
fn preview_of(lines: &[String]) -> Vec<String> {
    let mut preview: Vec<String> = lines
        .iter()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(PREVIEW_LINES)
        .cloned()
        .collect();
    preview.reverse();
    preview
}

fn hierarchy(place: Place) -> Vec<Node> {
    let Place {
        session,
        window,
        pane,
    } = place;
    vec![
        Node {
            kind: "session",
            id: format!("tmux-session:{}", session.name),
            label: session.label().to_string(),
            position: None,
        },
        Node {
            kind: "window",
            id: format!("tmux-window:@{}", window.id),
            label: window.name.clone(),
            position: Some(window.index),
        },
        Node {
            kind: "pane",
            id: format!("%{}", pane.id),
            label: crate::tmux::ids::pane_id(pane.session, pane.id),
            position: Some(pane.index),
        },
    ]
}

/// What a running pane allows: capture, and input through the guard.
fn guarded_capabilities() -> Capabilities {
    Capabilities {
        capture: true,
        input: "guarded_v1",
        literal_text: true,
        menu_select: true,
        keys: SAFE_KEYS.to_vec(),
        broadcast: false,
        create: false,
        delete: false,
        native_agent_state: true,
    }
}

/// vmux's `cfg:` placeholder for a configured target that is not running.
fn offline(target: &str) -> PaneState {
    PaneState {
        id: format!("cfg:{target}"),
        target: target.to_string(),
        name: target.to_string(),
        kind: "shell",
        status: "offline",
        title: String::new(),
        question: None,
        menu: Vec::new(),
        preview: Vec::new(),
        lines: Vec::new(),
        updated: 0.0,
        changed: false,
        window: String::new(),
        starred: true,
        interacted: 0.0,
        provider: "tmux",
        hierarchy: Vec::new(),
        capabilities: Capabilities {
            capture: false,
            input: "none",
            literal_text: false,
            menu_select: false,
            keys: Vec::new(),
            broadcast: false,
            create: false,
            delete: false,
            native_agent_state: false,
        },
        native_agent: None,
        action_guard: None,
        actionable: false,
        stale: true,
        menu_across: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture::{session, window};

    fn pane(id: u32, kind: &str, state: &str) -> Pane {
        let mut pane = crate::tmux::snapshot::fixture::pane(0, 0, id, kind, state, "");
        pane.title = format!("title {id}");
        pane
    }

    #[test]
    fn a_screen_is_changed_when_its_lines_are_and_keeps_since_when_not() {
        let mut memory = Memory::default();
        // (pane, screen, now) and what it answers: (changed, since).
        let seen = [
            // First seen: no change observed yet.
            ((1, "a\nb", 10.0), (false, 10.0)),
            // Blanks at the ends of lines and blank lines below are none.
            ((1, "a\nb  \n\n", 11.0), (false, 10.0)),
            ((1, "a\nc", 12.0), (true, 12.0)),
            ((1, "a\nc\n", 13.0), (false, 12.0)),
            // The same words on one line are another screen.
            ((1, "a c", 14.0), (true, 14.0)),
            ((2, "a c", 15.0), (false, 15.0)),
        ];
        for ((pane, screen, now), answer) in seen {
            let lines = screen_lines(screen);
            assert_eq!(
                screen_change(&mut memory, pane, &lines, now),
                answer,
                "{screen:?}"
            );
        }
    }

    #[test]
    fn panes_as_vmux_reads_them() {
        let snapshot = Snapshot {
            sessions: vec![session(0, "work")],
            windows: vec![window(0, 0, "api")],
            panes: vec![pane(1, "claude", "blocked"), pane(2, "", "")],
            ..Snapshot::default()
        };
        let screens: HashMap<u32, String> = [
            (1, "Edit file?\n 1. Yes\n 2. No\n\n\n".to_string()),
            (2, "$ ls\na b\n$\n".to_string()),
        ]
        .into();
        let mut memory = Memory::default();
        let no_menu = |_: &Pane, _: &[String]| Asked::default();
        let frame = build(&snapshot, &screens, &mut memory, 100.0, &no_menu);
        assert_eq!(frame.kind, "state");
        let claude = &frame.panes[0];
        assert_eq!(claude.id, "%1");
        assert_eq!(claude.kind, "claude-code");
        assert_eq!(claude.status, "needs_input");
        assert_eq!(claude.lines, ["Edit file?", " 1. Yes", " 2. No"]);
        assert_eq!(claude.preview.len(), 3);
        assert!(claude.question.is_some());
        assert!(claude.actionable && claude.action_guard.is_some());
        let shell = &frame.panes[1];
        assert_eq!((shell.kind, shell.status), ("shell", "idle"));
        assert!(!shell.actionable && shell.action_guard.is_none());
        // Unchanged: `updated` stays; a change moves it and says so.
        let again = build(&snapshot, &screens, &mut memory, 105.0, &no_menu);
        assert_eq!(
            (again.panes[1].updated, again.panes[1].changed),
            (100.0, false)
        );
        let mut moved = screens.clone();
        moved.insert(2, "$ ls\na b\n$ pwd\n".into());
        let later = build(&snapshot, &moved, &mut memory, 110.0, &no_menu);
        assert_eq!(
            (later.panes[1].updated, later.panes[1].changed),
            (110.0, true)
        );
        // A starred target that is gone: offline, and no input.
        memory.starred.insert("work:9.0".into());
        let starred = build(&snapshot, &moved, &mut memory, 111.0, &no_menu);
        let gone = starred
            .panes
            .iter()
            .find(|p| p.id == "cfg:work:9.0")
            .unwrap();
        assert_eq!(
            (gone.status, gone.actionable, gone.stale),
            ("offline", false, true)
        );
        let json = serde_json::to_value(&later).unwrap();
        assert_eq!(json["panes"][0]["provider"], "tmux");
        assert_eq!(json["panes"][0]["capabilities"]["input"], "guarded_v1");
    }

    #[test]
    fn kinds_and_statuses() {
        assert_eq!(kind_of("agy"), "antigravity");
        assert_eq!(kind_of("pi"), "generic");
        assert_eq!(status_of(Some(AgentStatus::Done)), "idle");
        assert_eq!(status_of(None), "idle");
    }
}
