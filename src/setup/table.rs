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
    /// `run-shell -b` of `taw -S <this server> <args>`.
    pub fn run(&self, args: &[ShellWord]) -> String {
        let mut words: Vec<ShellWord> = self
            .env
            .iter()
            .map(|(name, value)| ShellWord::Assign(name, value.clone()))
            .collect();
        words.push(ShellWord::Literal(self.bin.clone()));
        words.push(ShellWord::Literal("-S".into()));
        words.push(ShellWord::Format("socket_path"));
        words.extend_from_slice(args);
        cmd::run_shell_background(&words)
    }
}

/// The hooks: tmux hook name and the command of its entry.
pub fn hooks(_callback: &Callback) -> Vec<(&'static str, String)> {
    Vec::new()
}

/// The key bindings.
pub fn bindings(_callback: &Callback) -> Vec<Binding> {
    vec![Binding {
        option: options::KEY,
        note: "every session, window and pane, with its agent's state",
        command: cmd::choose_tree_with_agents(),
    }]
}
