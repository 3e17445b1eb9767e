//! How tmux calls taw back: the shell words of `exec taw -S <server>
//! <args>` that hooks, key bindings, pipes and the popup run, with the
//! folders the load used, and the mark that tells taw's hooks from a
//! user's.

use crate::tmux::commands::{self as cmd, ShellWord};

/// The word at the start of every shell line taw's hooks and keys run (an
/// assignment the shell ignores): how a load tells taw's entries from a
/// user's at the same indexes.
/// It sets [`crate::exec::HOOK_VAR`].
pub(crate) const HOOK_MARK: &str = "AGENT_WIZARD_HOOK=1";

/// How hooks and keys call taw back: the binary, the folders it was loaded
/// with, and the server the hook runs in.
#[derive(Debug, Clone)]
pub(crate) struct Callback {
    pub bin: String,
    /// `TAW_STATE_DIR`/`TAW_CONFIG_DIR` as they were at load, when set, so
    /// hooks use the folders the load used.
    pub env: Vec<(&'static str, String)>,
}

impl Callback {
    /// This taw, with the folders it runs with now.
    pub(crate) fn current(bin: String) -> Callback {
        Callback {
            bin,
            env: crate::paths::folder_vars(),
        }
    }

    /// The shell words of `exec taw -S <socket> <args>`, with the socket's
    /// path written out, for a command tmux does not expand.
    pub(crate) fn words_for(&self, socket: &str, args: &[ShellWord]) -> Vec<ShellWord> {
        self.exec_words(ShellWord::Literal(socket.into()), args)
    }

    /// The shell words of `exec taw -S <this server> <args>`.
    pub(crate) fn words(&self, args: &[ShellWord]) -> Vec<ShellWord> {
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
    pub(crate) fn run(&self, args: &[ShellWord]) -> String {
        let mut words = vec![ShellWord::Keyword(HOOK_MARK)];
        words.extend(self.words(args));
        words.push(ShellWord::Keyword(">/dev/null"));
        words.push(ShellWord::Keyword("2>&1"));
        cmd::run_shell_background(&words)
    }
}
