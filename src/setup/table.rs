//! The hooks and key bindings taw puts into tmux, in one table each.

use crate::callback::Callback;
use crate::tmux::commands::{self as cmd, ShellWord};
use crate::tmux::options;

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

/// Hooks that fire when what a client shows changes: a done agent that
/// comes into view is seen (idle). tmux checks for a done pane in the
/// window first, so the common case starts no process.
const FOCUS_HOOKS: &[&str] = &[
    "session-window-changed",
    "window-pane-changed",
    "client-session-changed",
    "client-attached",
];

/// The hooks: tmux hook name and the command of its entry.
pub(crate) fn hooks(callback: &Callback) -> Vec<(&'static str, String)> {
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
    hooks
}

/// The key bindings.
pub(crate) fn bindings(callback: &Callback) -> Vec<Binding> {
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
            command: verb("ui", "open", Some("--client"), "client_name"),
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
