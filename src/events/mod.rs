//! Events: what happened in tmux or to an agent, in words every layer
//! shares. Each event (and each veto, a `[hooks]` key asked before taw
//! closes or removes something) is a variant of [`Event`] with its one row
//! in the table below: its name, where it comes from, the tmux hooks its
//! source needs. A source (a tmux hook's job, the watcher, a verb)
//! describes what happened as an [`Occurrence`]; `hooks` delivers it to
//! whoever listens.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One row of the table: an event's name and what `taw hooks list`,
/// docs/EVENTS.md and the load know of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventDef {
    pub event: Event,
    pub name: &'static str,
    /// Where it comes from, for `taw hooks list` and docs/EVENTS.md.
    pub when: &'static str,
    /// Something goes away (a close, an exit, a removal): `taw hooks test
    /// --pane` refuses it without `--force`.
    pub going_away: bool,
    /// The tmux hooks its source needs; none for the watcher's and the
    /// verbs' events.
    pub tmux_hooks: &'static [&'static str],
    /// Whether plugins' `[[events]]` hear it: all but the sandbox events,
    /// which are for `[hooks]` only.
    pub for_plugins: bool,
    /// Asked before taw does something, and can refuse (`pre_close`).
    pub veto: bool,
}

const fn event(
    name: &'static str,
    when: &'static str,
    tmux_hooks: &'static [&'static str],
) -> EventDef {
    EventDef {
        // Each row's own variant is set by `events!`.
        event: Event::Notification,
        name,
        when,
        going_away: false,
        tmux_hooks,
        for_plugins: true,
        veto: false,
    }
}

const fn going(mut def: EventDef) -> EventDef {
    def.going_away = true;
    def
}

const fn hooks_only(mut def: EventDef) -> EventDef {
    def.for_plugins = false;
    def
}

const fn veto(name: &'static str, when: &'static str) -> EventDef {
    let mut def = event(name, when, &[]);
    def.veto = true;
    def.for_plugins = false;
    def
}

/// The tmux hooks behind pane.closed: every way a pane goes, and the exit
/// marks (pane-exited) that keep an exit from being read as a close.
const CLOSE_HOOKS: &[&str] = &[
    "after-kill-pane",
    "window-unlinked",
    "session-closed",
    "pane-exited",
];

/// The enum and its table from one list, so that a variant cannot lack
/// its row: a variant's discriminant is its row's index.
macro_rules! events {
    ($($variant:ident => $def:expr,)*) => {
        /// Every event taw fires, herdr's first, then taw's own, then the
        /// vetoes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) enum Event {
            $($variant,)*
        }

        const TABLE: &[EventDef] = &[$(EventDef {
            event: Event::$variant,
            ..$def
        },)*];
    };
}

events! {
    WorkspaceCreated => event(
        "workspace.created",
        "a session is made (taw workspace create, tmux new-session): tmux's session-created",
        &["session-created"],
    ),
    WorkspaceUpdated => event(
        "workspace.updated",
        "a session gains its repository's worktree (the one a taw worktree create started from), or its metadata is reported (taw workspace report-metadata)",
        &[],
    ),
    WorkspaceClosed => going(event(
        "workspace.closed",
        "a session ends (taw workspace close, tmux kill-session, its last pane closing): tmux's session-closed",
        &["session-closed"],
    )),
    WorkspaceRenamed => event(
        "workspace.renamed",
        "a session is renamed (taw workspace rename, prefix + $): tmux's after-rename-session",
        &["after-rename-session"],
    ),
    WorkspaceFocused => event(
        "workspace.focused",
        "a client goes to another session: tmux's client-session-changed",
        &["client-session-changed"],
    ),
    WorkspaceMoved => event(
        "workspace.moved",
        "never from tmux: a tmux server keeps no order of sessions to change (they go by name); for taw plugin event and taw hooks test",
        &[],
    ),
    WorkspaceReordered => event(
        "workspace.reordered",
        "never from tmux, as workspace.moved; for taw plugin event and taw hooks test",
        &[],
    ),
    WorktreeCreated => event(
        "worktree.created",
        "taw worktree create made a worktree and its session (after workspace.created, tab.created and pane.created)",
        &[],
    ),
    WorktreeOpened => event(
        "worktree.opened",
        "taw worktree open, whether it made the session or found it open",
        &[],
    ),
    WorktreeRemoved => going(event(
        "worktree.removed",
        "taw worktree remove removed a worktree (workspace.closed follows when its session was open)",
        &[],
    )),
    TabCreated => event(
        "tab.created",
        "a window is made or linked into a session (taw tab create, prefix + c, a new session's first window): tmux's window-linked",
        &["window-linked"],
    ),
    TabClosed => going(event(
        "tab.closed",
        "a window leaves a session (taw tab close, prefix + &, its last pane closing): tmux's window-unlinked",
        &["window-unlinked"],
    )),
    TabRenamed => event(
        "tab.renamed",
        "a window is renamed (taw tab rename, prefix + ,): tmux's after-rename-window",
        &["after-rename-window"],
    ),
    TabMoved => event(
        "tab.moved",
        "a window's place among its session's windows changes (tmux move-window, prefix + ., swap-window): the session's order against the one last seen, at its window-linked, window-unlinked or session-window-changed (tmux 3.3 runs no hook for a swap-window: it is told at the session's next one)",
        &["window-linked", "window-unlinked", "session-window-changed"],
    ),
    TabFocused => event(
        "tab.focused",
        "a session's current window changes: tmux's session-window-changed",
        &["session-window-changed"],
    ),
    PaneCreated => event(
        "pane.created",
        "a pane is made (taw pane split, prefix + %, a new window's or session's first pane): tmux's after-split-window, after-new-window, session-created",
        &["after-split-window", "after-new-window", "session-created"],
    ),
    PaneClosed => going(event(
        "pane.closed",
        "a pane is closed (taw pane close, prefix + x, its window or session killed): tmux's after-kill-pane, window-unlinked and session-closed, against the pane roster",
        CLOSE_HOOKS,
    )),
    PaneFocused => event(
        "pane.focused",
        "a pane is selected (taw pane focus, prefix + arrow, a click): tmux's after-select-pane",
        &["after-select-pane"],
    ),
    PaneMoved => event(
        "pane.moved",
        "taw pane move takes a pane to another tab or workspace (a hand join-pane or break-pane is not told: no tmux hook names the pane)",
        &[],
    ),
    PaneExited => going(event(
        "pane.exited",
        "a pane's own process ends: tmux's pane-exited (the pane goes) and pane-died (remain-on-exit keeps it)",
        &["pane-exited", "pane-died"],
    )),
    PaneAgentDetected => event(
        "pane.agent_detected",
        "an agent comes into a pane or leaves it, as its watcher sees",
        &[],
    ),
    PaneAgentStatusChanged => event(
        "pane.agent_status_changed",
        "the state the pane's watcher records changes (an agent comes, works, asks, ends its turn, leaves)",
        &[],
    ),
    PaneUpdated => event(
        "pane.updated",
        "a pane's title or command, or what its agent reported about itself, changes, as its watcher sees",
        &[],
    ),
    LayoutUpdated => event(
        "layout.updated",
        "a window's layout changes (a split, a close, a resize, taw layout apply): tmux's window-layout-changed",
        &["window-layout-changed"],
    ),
    AgentBlocked => event(
        "agent.blocked",
        "an agent asks you something (with pane.agent_status_changed)",
        &[],
    ),
    AgentWorking => event(
        "agent.working",
        "an agent starts working (with pane.agent_status_changed)",
        &[],
    ),
    AgentIdle => event(
        "agent.idle",
        "an agent waits for you, its turn over in a pane you look at (with pane.agent_status_changed)",
        &[],
    ),
    AgentDone => event(
        "agent.done",
        "an agent ends its turn in a pane nobody looks at, or exits mid-turn (with pane.agent_status_changed)",
        &[],
    ),
    SandboxStarted => hooks_only(event(
        "sandbox.started",
        "the agent in front of a pane runs in a container (taw sandbox's, or one typed by hand)",
        &[],
    )),
    SandboxStopped => hooks_only(event(
        "sandbox.stopped",
        "that container has left the pane, or the pane or its server went with it in front",
        &[],
    )),
    Notification => event(
        "notification",
        "taw shows a toast (an agent needs you or is done, taw notification show)",
        &[],
    ),
    PreClose => veto(
        "pre_close",
        "before taw closes a session, a window or a pane (workspace close, tab close, pane close, the popup's x); a non-zero exit keeps it",
    ),
    PreWorktreeRemove => veto(
        "pre_worktree_remove",
        "before taw removes a worktree; a non-zero exit keeps it",
    ),
}

impl Event {
    pub(crate) fn def(self) -> &'static EventDef {
        &TABLE[self as usize]
    }

    /// Its name: `pane.agent_status_changed`.
    pub(crate) fn name(self) -> &'static str {
        self.def().name
    }

    /// The event or veto of this name.
    pub(crate) fn from_name(name: &str) -> Option<Event> {
        TABLE
            .iter()
            .find(|def| def.name == name)
            .map(|def| def.event)
    }

    /// herdr's spelling in its envelope: `pane_agent_status_changed`.
    pub(crate) fn snake_name(self) -> String {
        self.name().replace('.', "_")
    }
}

/// Every event taw fires (the vetoes aside), in the table's order.
pub(crate) fn events() -> impl Iterator<Item = &'static EventDef> {
    TABLE.iter().filter(|def| !def.veto)
}

/// The vetoes.
pub(crate) fn vetoes() -> impl Iterator<Item = &'static EventDef> {
    TABLE.iter().filter(|def| def.veto)
}

/// Whether `[hooks]` may name it: an event or a veto.
pub(crate) fn is_hook_name(name: &str) -> bool {
    Event::from_name(name).is_some()
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Event, D::Error> {
        let name = String::deserialize(deserializer)?;
        Event::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("no event is called {name:?}")))
    }
}

/// What happened, as its source knows it: the event, the tmux ids it is
/// about (numbers: `$3` is 3), and the facts only the source has (the ids
/// of what has gone, a state, a toast's words). The rest of the payload
/// is read when it is delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Occurrence {
    pub event: Event,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane: Option<u32>,
    /// The session's name, for a session that may be gone by delivery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_name: Option<String>,
    /// Fields of herdr's event data the source knows (besides `type`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub data: Map<String, Value>,
    /// `TAW_*` variables the source knows (TAW_KIND, TAW_MESSAGE...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
}

impl Occurrence {
    pub(crate) fn new(event: Event) -> Occurrence {
        Occurrence {
            event,
            session: None,
            window: None,
            pane: None,
            session_name: None,
            data: Map::new(),
            vars: BTreeMap::new(),
        }
    }

    pub(crate) fn session(mut self, session: Option<u32>) -> Occurrence {
        self.session = session;
        self
    }

    pub(crate) fn window(mut self, window: Option<u32>) -> Occurrence {
        self.window = window;
        self
    }

    pub(crate) fn pane(mut self, pane: Option<u32>) -> Occurrence {
        self.pane = pane;
        self
    }

    pub(crate) fn data(mut self, name: &str, value: impl Into<Value>) -> Occurrence {
        self.data.insert(name.to_string(), value.into());
        self
    }

    pub(crate) fn var(mut self, name: &str, value: impl Into<String>) -> Occurrence {
        self.vars.insert(name.to_string(), value.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_is_its_variants_and_names_are_unique() {
        for (index, def) in TABLE.iter().enumerate() {
            assert_eq!(def.event as usize, index);
            assert_eq!(Event::from_name(def.name), Some(def.event));
            assert!(def.veto || def.name.contains('.') || def.name == "notification");
            assert!(
                TABLE[index + 1..]
                    .iter()
                    .all(|other| other.name != def.name),
                "{} twice",
                def.name
            );
        }
        assert_eq!(events().count(), 31);
        assert_eq!(vetoes().count(), 2);
        assert_eq!(
            Event::PaneAgentStatusChanged.snake_name(),
            "pane_agent_status_changed"
        );
        assert!(is_hook_name("pre_close") && !is_hook_name("pane.gone"));
    }

    #[test]
    fn an_occurrence_travels_by_its_events_name() {
        let sent = Occurrence::new(Event::TabCreated).session(Some(3));
        let text = serde_json::to_string(&sent).unwrap();
        assert!(text.contains("\"event\":\"tab.created\""), "{text}");
        assert_eq!(serde_json::from_str::<Occurrence>(&text).unwrap(), sent);
        assert!(serde_json::from_str::<Occurrence>("{\"event\":\"x.y\"}").is_err());
    }
}
