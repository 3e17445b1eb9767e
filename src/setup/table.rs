//! The hooks and key bindings taw puts into tmux, in one table each.

use crate::hooks::{Listeners, source};
use crate::tmux::callback::Callback;
use crate::tmux::commands::{self as cmd, ShellWord};
use crate::tmux::options;
use crate::tmux::roster;

/// A prefix-table binding whose key is the value of `option`.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub option: &'static str,
    /// What `prefix ?` says the key does (after taw's note prefix).
    pub note: &'static str,
    /// The tmux command string the key runs.
    pub command: String,
}

/// Hooks that fire when a pane is made: each pane gets its watcher.
const NEW_PANE_HOOKS: &[&str] = &["after-split-window", "after-new-window", "session-created"];

/// Hooks that fire when the layout changes: a window or pane made or
/// closed, a name changed. Each asks for an autosave, which waits for the
/// burst to end.
const LAYOUT_HOOKS: &[&str] = &[
    "after-new-window",
    "after-split-window",
    "session-created",
    "session-closed",
    "window-unlinked",
    "pane-exited",
    "after-kill-pane",
    "after-rename-window",
    "after-rename-session",
];

/// Hooks that fire when something a view of the server shows changes:
/// each signals [`crate::tmux::CHANGED_CHANNEL`], which the web server
/// waits on instead of reading the server every second. (A screen's change
/// comes from its pane's watcher.)
const CHANGE_HOOKS: &[&str] = &[
    "after-new-window",
    "after-split-window",
    "after-kill-pane",
    "after-rename-window",
    "after-rename-session",
    "after-set-option",
    "session-created",
    "session-closed",
    "window-linked",
    "window-unlinked",
    "pane-exited",
    "pane-died",
    "session-window-changed",
    "window-pane-changed",
    "client-session-changed",
    "client-attached",
    "client-detached",
];

/// Hooks that fire when what a client shows changes: a done agent that
/// comes into view is seen (idle). tmux checks for a done pane in the
/// window first, so the common case starts no process.
const FOCUS_HOOKS: &[&str] = &[
    "session-window-changed",
    "window-pane-changed",
    "client-session-changed",
    "client-attached",
];

/// The hooks: tmux hook name and the command of its entry. Besides taw's
/// own (watchers, seen), an event that something listens to gets the tmux
/// hooks behind it, and none otherwise.
pub(crate) fn hooks(callback: &Callback, listeners: &Listeners) -> Vec<(&'static str, String)> {
    let attach = callback.run(&[
        ShellWord::Literal("watch".into()),
        ShellWord::Literal("attach-all".into()),
    ]);
    let seen = cmd::if_format(
        &format!(
            "#{{P:#{{?#{{==:#{{{}}},done}},1,}}}}",
            options::pane::AGENT_STATE
        ),
        &callback.run(&[
            ShellWord::Literal("watch".into()),
            ShellWord::Literal("seen".into()),
        ]),
    );
    let mut hooks: Vec<(&'static str, String)> = NEW_PANE_HOOKS
        .iter()
        .map(|hook| (*hook, attach.clone()))
        .collect();
    hooks.extend(FOCUS_HOOKS.iter().map(|hook| (*hook, seen.clone())));
    // One autosave process a burst: the hook starts one only when none
    // is waiting already (the flag is tmux's, so a change costs no
    // process); it clears the flag as it saves.
    let asked = options::bookkeeping::AUTOSAVE_ASKED;
    let autosave = cmd::if_format(
        &format!("#{{?#{{{asked}}},,1}}"),
        &format!(
            "{} ; {}",
            cmd::command_string(&[cmd::set_global_option(asked, "1")]),
            callback.run(&[
                ShellWord::Literal("session".into()),
                ShellWord::Literal("autosave".into()),
            ])
        ),
    );
    hooks.extend(LAYOUT_HOOKS.iter().map(|hook| (*hook, autosave.clone())));
    hooks.extend(event_hooks(callback, listeners));
    // Last on each hook: what the hooks above changed is in place.
    let changed = crate::tmux::signal_change_command();
    hooks.extend(CHANGE_HOOKS.iter().map(|hook| (*hook, changed.clone())));
    hooks
}

/// The tmux hooks of the events `listeners` hear. The roster's own
/// commands run inside tmux and come first on their hook, so a pane is on
/// the roster, and an exit marked, before any job of taw's looks.
fn event_hooks(callback: &Callback, listeners: &Listeners) -> Vec<(&'static str, String)> {
    let mut hooks: Vec<(&'static str, String)> = Vec::new();
    if listeners.needs_roster() {
        for hook in ROSTER_HOOKS {
            hooks.push((hook, roster::add_pane_command()));
        }
        hooks.push(("pane-exited", roster::mark_exit_command()));
    }
    for hook in listeners.tmux_hooks() {
        let mut words = vec![
            ShellWord::Literal("hooks".into()),
            ShellWord::Literal("tmux".into()),
            ShellWord::Literal(hook.into()),
        ];
        for (flag, format) in source::hook_arguments(hook) {
            words.push(ShellWord::Literal((*flag).into()));
            words.push(ShellWord::Format(format));
        }
        if hook == "window-linked" {
            words.push(ShellWord::Literal("--known".into()));
            words.push(ShellWord::Keyword(roster::TAB_KNOWN.as_str()));
        }
        hooks.push((hook, callback.run(&words)));
        if hook == "window-linked" {
            // After the job's entry, which reads the roster as it was.
            hooks.push((hook, roster::add_tab_command()));
        }
    }
    hooks
}

/// Hooks that make a pane: each adds it to the roster.
const ROSTER_HOOKS: &[&str] = &["after-split-window", "after-new-window", "session-created"];

/// The key bindings.
pub(crate) fn bindings(callback: &Callback, tmux_version: &str) -> Vec<Binding> {
    // `taw <group> <verb> --<flag> <this client's or pane's id>`.
    let verb = |group: &str, verb: &str, flag: Option<&str>, format: &'static str| {
        let mut words = vec![
            ShellWord::Literal(group.into()),
            ShellWord::Literal(verb.into()),
        ];
        words.extend(flag.map(|f| ShellWord::Literal(f.into())));
        words.push(ShellWord::Format(format));
        callback.run(&words)
    };
    vec![
        Binding {
            option: options::KEY,
            note: "the popup: every session, window and agent, with its state",
            command: crate::ui::launch::key_command(callback, tmux_version),
        },
        Binding {
            option: options::NOTIFICATION_KEY,
            note: "go to the next agent that needs you",
            command: verb(
                "notification",
                "open-target",
                Some("--client"),
                "client_name",
            ),
        },
        Binding {
            option: options::CLEAR_KEY,
            note: "clear the pane's history and screen",
            command: verb("pane", "clear", None, "pane_id"),
        },
    ]
}
