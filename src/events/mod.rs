//! Events: what happened in tmux or to an agent, told to whoever listens.
//!
//! Every event has one name in [`EVENTS`]. A source (a tmux hook's job in
//! `source.rs`, the watcher, a verb) describes what happened as an
//! [`Occurrence`]: the event's name, the tmux ids it is about and the
//! facts only the source knows. [`announce`] hands it to the listeners;
//! when nothing listens it does nothing at all. The payload is built once
//! (`payload.rs`, in herdr's record shapes) and given to each listener:
//! the `[hooks]` commands of config.toml now, plugins' `[[events]]` next,
//! from the same [`deliver`].

pub(crate) mod payload;
pub(crate) mod roster;
pub(crate) mod run;
pub(crate) mod source;

use crate::config::{Config, schema};
use crate::tmux::Tmux;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Every event's name, spelled once: the sources and the list use these.
pub(crate) mod name {
    pub(crate) const WORKSPACE_CREATED: &str = "workspace.created";
    pub(crate) const WORKSPACE_UPDATED: &str = "workspace.updated";
    pub(crate) const WORKSPACE_CLOSED: &str = "workspace.closed";
    pub(crate) const WORKSPACE_RENAMED: &str = "workspace.renamed";
    pub(crate) const WORKSPACE_FOCUSED: &str = "workspace.focused";
    pub(crate) const WORKTREE_CREATED: &str = "worktree.created";
    pub(crate) const WORKTREE_OPENED: &str = "worktree.opened";
    pub(crate) const WORKTREE_REMOVED: &str = "worktree.removed";
    pub(crate) const TAB_CREATED: &str = "tab.created";
    pub(crate) const TAB_CLOSED: &str = "tab.closed";
    pub(crate) const TAB_RENAMED: &str = "tab.renamed";
    pub(crate) const TAB_FOCUSED: &str = "tab.focused";
    pub(crate) const PANE_CREATED: &str = "pane.created";
    pub(crate) const PANE_CLOSED: &str = "pane.closed";
    pub(crate) const PANE_FOCUSED: &str = "pane.focused";
    pub(crate) const PANE_MOVED: &str = "pane.moved";
    pub(crate) const PANE_EXITED: &str = "pane.exited";
    pub(crate) const PANE_AGENT_DETECTED: &str = "pane.agent_detected";
    pub(crate) const PANE_AGENT_STATUS_CHANGED: &str = "pane.agent_status_changed";
    pub(crate) const PANE_UPDATED: &str = "pane.updated";
    pub(crate) const LAYOUT_UPDATED: &str = "layout.updated";
    pub(crate) const AGENT_BLOCKED: &str = "agent.blocked";
    pub(crate) const AGENT_WORKING: &str = "agent.working";
    pub(crate) const AGENT_IDLE: &str = "agent.idle";
    pub(crate) const AGENT_DONE: &str = "agent.done";
    pub(crate) const SANDBOX_STARTED: &str = "sandbox.started";
    pub(crate) const SANDBOX_STOPPED: &str = "sandbox.stopped";
    pub(crate) const NOTIFICATION: &str = "notification";
    /// The vetoes.
    pub(crate) const PRE_CLOSE: &str = "pre_close";
    pub(crate) const PRE_WORKTREE_REMOVE: &str = "pre_worktree_remove";

    /// taw's agent event for a state: `agent.done` for done.
    pub(crate) fn agent_event(state: crate::model::AgentStatus) -> Option<&'static str> {
        use crate::model::AgentStatus;
        match state {
            AgentStatus::Blocked => Some(AGENT_BLOCKED),
            AgentStatus::Working => Some(AGENT_WORKING),
            AgentStatus::Idle => Some(AGENT_IDLE),
            AgentStatus::Done => Some(AGENT_DONE),
            AgentStatus::Unknown => None,
        }
    }
}

/// One event taw fires: its name, where it comes from, and the tmux hooks
/// that must be in place for it to fire.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventDef {
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
}

const fn event(
    name: &'static str,
    when: &'static str,
    tmux_hooks: &'static [&'static str],
) -> EventDef {
    EventDef {
        name,
        when,
        going_away: false,
        tmux_hooks,
        for_plugins: true,
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

/// The tmux hooks behind pane.closed: every way a pane goes, and the exit
/// marks (pane-exited) that keep an exit from being read as a close.
const CLOSE_HOOKS: &[&str] = &[
    "after-kill-pane",
    "window-unlinked",
    "session-closed",
    "pane-exited",
];

/// Every event taw fires, herdr's names first, then taw's own.
pub(crate) const EVENTS: &[EventDef] = &[
    event(
        name::WORKSPACE_CREATED,
        "a session is made (taw workspace create, tmux new-session): tmux's session-created",
        &["session-created"],
    ),
    event(
        name::WORKSPACE_UPDATED,
        "a session gains its repository's worktree (the one a taw worktree create started from), or its metadata is reported (taw workspace report-metadata)",
        &[],
    ),
    going(event(
        name::WORKSPACE_CLOSED,
        "a session ends (taw workspace close, tmux kill-session, its last pane closing): tmux's session-closed",
        &["session-closed"],
    )),
    event(
        name::WORKSPACE_RENAMED,
        "a session is renamed (taw workspace rename, prefix + $): tmux's after-rename-session",
        &["after-rename-session"],
    ),
    event(
        name::WORKSPACE_FOCUSED,
        "a client goes to another session: tmux's client-session-changed",
        &["client-session-changed"],
    ),
    event(
        name::WORKTREE_CREATED,
        "taw worktree create made a worktree and its session (after workspace.created, tab.created and pane.created)",
        &[],
    ),
    event(
        name::WORKTREE_OPENED,
        "taw worktree open, whether it made the session or found it open",
        &[],
    ),
    going(event(
        name::WORKTREE_REMOVED,
        "taw worktree remove removed a worktree (workspace.closed follows when its session was open)",
        &[],
    )),
    event(
        name::TAB_CREATED,
        "a window is made or linked into a session (taw tab create, prefix + c, a new session's first window): tmux's window-linked",
        &["window-linked"],
    ),
    going(event(
        name::TAB_CLOSED,
        "a window leaves a session (taw tab close, prefix + &, its last pane closing): tmux's window-unlinked",
        &["window-unlinked"],
    )),
    event(
        name::TAB_RENAMED,
        "a window is renamed (taw tab rename, prefix + ,): tmux's after-rename-window",
        &["after-rename-window"],
    ),
    event(
        name::TAB_FOCUSED,
        "a session's current window changes: tmux's session-window-changed",
        &["session-window-changed"],
    ),
    event(
        name::PANE_CREATED,
        "a pane is made (taw pane split, prefix + %, a new window's or session's first pane): tmux's after-split-window, after-new-window, session-created",
        &["after-split-window", "after-new-window", "session-created"],
    ),
    going(event(
        name::PANE_CLOSED,
        "a pane is closed (taw pane close, prefix + x, its window or session killed): tmux's after-kill-pane, window-unlinked and session-closed, against the pane roster",
        CLOSE_HOOKS,
    )),
    event(
        name::PANE_FOCUSED,
        "a pane is selected (taw pane focus, prefix + arrow, a click): tmux's after-select-pane",
        &["after-select-pane"],
    ),
    event(
        name::PANE_MOVED,
        "taw pane move takes a pane to another tab or workspace (a hand join-pane or break-pane is not told: no tmux hook names the pane)",
        &[],
    ),
    going(event(
        name::PANE_EXITED,
        "a pane's own process ends: tmux's pane-exited (the pane goes) and pane-died (remain-on-exit keeps it)",
        &["pane-exited", "pane-died"],
    )),
    event(
        name::PANE_AGENT_DETECTED,
        "an agent comes into a pane or leaves it, as its watcher sees",
        &[],
    ),
    event(
        name::PANE_AGENT_STATUS_CHANGED,
        "the state the pane's watcher records changes (an agent comes, works, asks, ends its turn, leaves)",
        &[],
    ),
    event(
        name::PANE_UPDATED,
        "a pane's title or command, or what its agent reported about itself, changes, as its watcher sees",
        &[],
    ),
    event(
        name::LAYOUT_UPDATED,
        "a window's layout changes (a split, a close, a resize, taw layout apply): tmux's window-layout-changed",
        &["window-layout-changed"],
    ),
    event(
        name::AGENT_BLOCKED,
        "an agent asks you something (with pane.agent_status_changed)",
        &[],
    ),
    event(
        name::AGENT_WORKING,
        "an agent starts working (with pane.agent_status_changed)",
        &[],
    ),
    event(
        name::AGENT_IDLE,
        "an agent waits for you, its turn over in a pane you look at (with pane.agent_status_changed)",
        &[],
    ),
    event(
        name::AGENT_DONE,
        "an agent ends its turn in a pane nobody looks at, or exits mid-turn (with pane.agent_status_changed)",
        &[],
    ),
    hooks_only(event(
        name::SANDBOX_STARTED,
        "the agent in front of a pane runs in a container (taw sandbox's, or one typed by hand)",
        &[],
    )),
    hooks_only(event(
        name::SANDBOX_STOPPED,
        "that container has left the pane, or the pane or its server went with it in front",
        &[],
    )),
    event(
        name::NOTIFICATION,
        "taw shows a toast (an agent needs you or is done, taw notification show)",
        &[],
    ),
];

/// A `[hooks]` key that is asked before taw does something, and can refuse.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VetoDef {
    pub name: &'static str,
    pub when: &'static str,
}

pub(crate) const VETOES: &[VetoDef] = &[
    VetoDef {
        name: name::PRE_CLOSE,
        when: "before taw closes a session, a window or a pane (workspace close, tab close, pane close, the popup's x); a non-zero exit keeps it",
    },
    VetoDef {
        name: name::PRE_WORKTREE_REMOVE,
        when: "before taw removes a worktree; a non-zero exit keeps it",
    },
];

/// The event of this name.
pub(crate) fn find(name: &str) -> Option<&'static EventDef> {
    EVENTS.iter().find(|def| def.name == name)
}

/// Whether `[hooks]` may name it: an event or a veto.
pub(crate) fn is_hook_name(name: &str) -> bool {
    find(name).is_some() || VETOES.iter().any(|veto| veto.name == name)
}

/// herdr's spelling of an event in its envelope: `pane.agent_status_changed`
/// is `pane_agent_status_changed`.
pub(crate) fn snake_name(name: &str) -> String {
    name.replace('.', "_")
}

/// The command lines `[hooks]` gives `name`, in the file's order.
pub(crate) fn hook_commands(config: &Config, name: &str) -> Vec<String> {
    config
        .table(&schema::HOOKS)
        .iter()
        .filter(|entry| entry.key == name)
        .flat_map(|entry| match &entry.value {
            crate::config::Value::Str(line) => vec![line.clone()],
            crate::config::Value::Array(items) => items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        })
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// Who listens, as read from the config (plugins will add theirs here).
#[derive(Debug, Clone, Default)]
pub(crate) struct Listeners {
    hooks: BTreeMap<String, Vec<String>>,
    /// The `[[events]]` of the enabled plugins that run here.
    plugins: Vec<crate::plugin::EventListener>,
    /// `[hooks] timeout_seconds`.
    limit_seconds: f64,
}

impl Listeners {
    pub(crate) fn from_config(config: &Config) -> Listeners {
        let hooks = EVENTS
            .iter()
            .map(|def| (def.name.to_string(), hook_commands(config, def.name)))
            .filter(|(_, commands)| !commands.is_empty())
            .collect();
        Listeners {
            hooks,
            plugins: crate::plugin::event_listeners(),
            limit_seconds: config.get(&schema::HOOKS_TIMEOUT_SECONDS),
        }
    }

    /// Whether anything listens to `name`.
    pub(crate) fn hears(&self, name: &str) -> bool {
        self.hooks.contains_key(name) || self.plugins.iter().any(|p| p.hook.on == name)
    }

    /// The `[hooks]` commands of `name`.
    pub(crate) fn commands(&self, name: &str) -> &[String] {
        self.hooks.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The tmux hooks the events listened to need, each once, in the
    /// order of [`EVENTS`].
    pub(crate) fn tmux_hooks(&self) -> Vec<&'static str> {
        let mut needed: Vec<&'static str> = Vec::new();
        for def in EVENTS.iter().filter(|def| self.hears(def.name)) {
            for hook in def.tmux_hooks {
                if !needed.contains(hook) {
                    needed.push(hook);
                }
            }
        }
        needed
    }

    /// Whether the pane roster must be kept: a close or an exit is told
    /// only by comparing it with the live panes.
    pub(crate) fn needs_roster(&self) -> bool {
        self.hears(name::PANE_CLOSED) || self.hears(name::PANE_EXITED)
    }
}

/// What happened, as its source knows it: the event, the tmux ids it is
/// about (numbers: `$3` is 3), and the facts only the source has (the ids
/// of what has gone, a state, a toast's words). The rest of the payload
/// is read when it is delivered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Occurrence {
    pub event: String,
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
    pub(crate) fn new(event: &str) -> Occurrence {
        Occurrence {
            event: event.to_string(),
            ..Occurrence::default()
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

/// Delivers what happened to its listeners and waits for them: for a
/// process that was started to do just that (a tmux hook's job, `taw hooks
/// deliver`). Nothing is read when nothing listens.
pub(crate) fn deliver(tmux: &Tmux, listeners: &Listeners, occurrences: &[Occurrence]) -> Delivered {
    let heard: Vec<&Occurrence> = occurrences
        .iter()
        .filter(|occurrence| listeners.hears(&occurrence.event))
        .collect();
    if heard.is_empty() {
        return Delivered::default();
    }
    let deliveries = match payload::build_all(tmux, &heard) {
        Ok(deliveries) => deliveries,
        Err(error) => {
            run::log_line(&format!(
                "{} not delivered: {}",
                heard[0].event, error.message
            ));
            return Delivered::default();
        }
    };
    let limit = run::Limit::event(listeners.limit_seconds);
    // Each command line gets its occurrences in order, in a thread of its
    // own: a hook hears a turn's end before the agent leaves, and a slow
    // hook holds up no other.
    let mut queues: Vec<(String, Vec<payload::Delivery>)> = Vec::new();
    // Each plugin hook hears its occurrences in order, in a thread of its
    // own, as a [hooks] command line does.
    let mut plugin_queues: Vec<(crate::plugin::EventListener, Vec<payload::Delivery>)> = Vec::new();
    for delivery in &deliveries {
        for listener in listeners
            .plugins
            .iter()
            .filter(|p| p.hook.on == delivery.event)
        {
            let same =
                |(queued, _): &&mut (crate::plugin::EventListener, Vec<payload::Delivery>)| {
                    queued.plugin.manifest.plugin_id == listener.plugin.manifest.plugin_id
                        && queued.hook.command == listener.hook.command
                };
            match plugin_queues.iter_mut().find(|q| same(q)) {
                Some((_, queued)) => queued.push(delivery.clone()),
                None => plugin_queues.push((listener.clone(), vec![delivery.clone()])),
            }
        }
    }
    let plugin_limit = limit.limit;
    let plugin_runs: Vec<_> = plugin_queues
        .into_iter()
        .map(|(listener, queued)| {
            std::thread::spawn(move || {
                queued
                    .iter()
                    .map(|delivery| crate::plugin::deliver_event(&listener, delivery, plugin_limit))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let hook_runs = deliveries
        .iter()
        .map(|d| listeners.commands(&d.event).len())
        .sum();
    for delivery in deliveries {
        for command in listeners.commands(&delivery.event) {
            match queues.iter_mut().find(|(line, _)| line == command) {
                Some((_, queued)) => queued.push(delivery.clone()),
                None => queues.push((command.clone(), vec![delivery.clone()])),
            }
        }
    }
    let mut running = Vec::new();
    for (command, queued) in queues {
        running.push(std::thread::spawn(move || {
            for delivery in queued {
                let outcome = run::run_command(&command, &delivery, limit);
                run::log_failure(&delivery.event, &command, &outcome);
            }
        }));
    }
    for handle in running {
        let _ = handle.join();
    }
    Delivered {
        plugin_runs: plugin_runs
            .into_iter()
            .filter_map(|handle| handle.join().ok())
            .flatten()
            .collect(),
        hook_runs,
    }
}

/// What a delivery ran.
#[derive(Debug, Clone, Default)]
pub(crate) struct Delivered {
    /// Each plugin hook's run, as its log has it.
    pub plugin_runs: Vec<crate::plugin::run::LogRecord>,
    /// How many `[hooks]` command runs.
    pub hook_runs: usize,
}

/// Announces what happened from a process that must not wait for the
/// listeners (the watcher, a verb): when something listens, a `taw hooks
/// deliver` of its own delivers it, detached. Nothing starts otherwise.
pub(crate) fn announce(tmux: &Tmux, listeners: &Listeners, occurrences: Vec<Occurrence>) {
    let heard: Vec<Occurrence> = occurrences
        .into_iter()
        .filter(|occurrence| listeners.hears(&occurrence.event))
        .collect();
    if heard.is_empty() {
        return;
    }
    let Ok(json) = serde_json::to_string(&heard) else {
        return;
    };
    if let Err(failure) = run::start_deliverer(tmux, &json) {
        run::log_line(&format!(
            "{} not delivered: {}",
            heard[0].event,
            failure.describe("taw hooks deliver")
        ));
    }
}

/// [`announce`] with the listeners of the config as it is now on disk: for
/// a short-lived verb.
pub(crate) fn announce_now(tmux: &Tmux, occurrences: Vec<Occurrence>) {
    if let Ok(config) = Config::load() {
        announce(tmux, &Listeners::from_config(&config), occurrences);
    }
}

/// The result of checking a `[hooks]` name, for `taw config check`.
pub(crate) fn unknown_names(config: &Config) -> Vec<(String, Vec<String>)> {
    let mut unknown: Vec<(String, Vec<String>)> = Vec::new();
    for entry in config.table(&schema::HOOKS) {
        if entry.key == "timeout_seconds" || is_hook_name(&entry.key) {
            continue;
        }
        let commands = hook_commands(config, &entry.key);
        unknown.push((entry.key.clone(), commands));
    }
    unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_dotted() {
        for (index, def) in EVENTS.iter().enumerate() {
            assert!(def.name.contains('.') || def.name == "notification");
            assert!(
                EVENTS[index + 1..]
                    .iter()
                    .all(|other| other.name != def.name),
                "{} twice",
                def.name
            );
        }
        assert_eq!(
            snake_name("pane.agent_status_changed"),
            "pane_agent_status_changed"
        );
    }

    #[test]
    fn listeners_ask_only_for_the_tmux_hooks_they_need() {
        let config = Config::parse(
            std::path::Path::new("config.toml"),
            "[hooks]\n\"tab.created\" = \"true\"\n\"pane.closed\" = [\"a\", \"b\"]\n\"agent.done\" = \"\"\n",
        );
        let listeners = Listeners::from_config(&config);
        assert!(listeners.hears("tab.created"));
        assert!(
            !listeners.hears("agent.done"),
            "an empty line is no listener"
        );
        assert_eq!(listeners.commands("pane.closed"), ["a", "b"]);
        assert_eq!(
            listeners.tmux_hooks(),
            [
                "window-linked",
                "after-kill-pane",
                "window-unlinked",
                "session-closed",
                "pane-exited"
            ]
        );
        assert!(listeners.needs_roster());
        let none = Listeners::from_config(&Config::default());
        assert!(!none.hears("pane.closed") && none.tmux_hooks().is_empty() && !none.needs_roster());
    }
}
