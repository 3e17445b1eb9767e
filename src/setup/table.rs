//! The hooks and key bindings taw puts into tmux, in one table each.

use crate::tmux::commands::{self as cmd, ShellWord};
use crate::tmux::options;

/// A prefix-table binding whose key is the value of `option`.
#[derive(Debug, Clone)]
pub struct Binding {
    pub option: &'static str,
    /// What `prefix ?` says the key does (after taw's note prefix).
    pub note: &'static str,
    /// The tmux command string the key runs.
    pub command: String,
}

/// How hooks and keys call taw back: the binary, the folders it was loaded
/// with, and the server the hook runs in.
#[derive(Debug, Clone)]
pub struct Callback {
    pub bin: String,
    /// `TAW_STATE_DIR`/`TAW_CONFIG_DIR` as they were at load, when set, so
    /// hooks use the folders the load used.
    pub env: Vec<(&'static str, String)>,
}

impl Callback {
    /// This taw, with the folders it runs with now.
    pub fn current(bin: String) -> Callback {
        Callback {
            bin,
            env: ["TAW_STATE_DIR", "TAW_CONFIG_DIR"]
                .into_iter()
                .filter_map(|name| {
                    std::env::var(name)
                        .ok()
                        .filter(|v| !v.is_empty())
                        .map(|v| (name, v))
                })
                .collect(),
        }
    }

    /// The shell words of `exec taw -S <socket> <args>`, with the socket's
    /// path written out, for a command tmux does not expand.
    pub fn words_for(&self, socket: &str, args: &[ShellWord]) -> Vec<ShellWord> {
        self.exec_words(ShellWord::Literal(socket.into()), args)
    }

    /// The shell words of `exec taw -S <this server> <args>`.
    pub fn words(&self, args: &[ShellWord]) -> Vec<ShellWord> {
        self.exec_words(ShellWord::Format("socket_path"), args)
    }

    fn exec_words(&self, socket: ShellWord, args: &[ShellWord]) -> Vec<ShellWord> {
        let mut words: Vec<ShellWord> = self
            .env
            .iter()
            .map(|(name, value)| ShellWord::Assign(name, value.clone()))
            .collect();
        words.push(ShellWord::Keyword("exec"));
        words.push(ShellWord::Literal(self.bin.clone()));
        words.push(ShellWord::Literal("-S".into()));
        words.push(socket);
        words.extend_from_slice(args);
        words
    }

    /// `run-shell -b` of `taw -S <this server> <args>`, its output thrown
    /// away: tmux would show any output of a `run-shell` in the pane, in
    /// view mode, where it would swallow the keys sent to the pane.
    pub fn run(&self, args: &[ShellWord]) -> String {
        let mut words = vec![ShellWord::Keyword(HOOK_MARK)];
        words.extend(self.words(args));
        words.push(ShellWord::Keyword(">/dev/null"));
        words.push(ShellWord::Keyword("2>&1"));
        cmd::run_shell_background(&words)
    }
}

/// The word at the start of every shell line taw's hooks and keys run (an
/// assignment the shell ignores): how a load tells taw's entries from a
/// user's at the same indexes.
pub const HOOK_MARK: &str = "AGENT_WIZARD_HOOK=1";

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
pub fn hooks(callback: &Callback) -> Vec<(&'static str, String)> {
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
pub fn bindings(callback: &Callback) -> Vec<Binding> {
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
