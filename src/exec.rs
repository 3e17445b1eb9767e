//! The one place that starts child processes.
//!
//! Everything taw runs (tmux, ps, a user's hook) is started from a
//! `std::process::Command` made here, so the rule "untrusted text is never
//! handed to a shell" has a single door to watch. `clippy.toml` forbids
//! `Command::new` anywhere else.

use std::ffi::OsStr;
use std::process::Command;

/// A command for `program`, with the arguments still to add. Arguments are
/// passed as an argv array, never through a shell.
#[allow(clippy::disallowed_methods)]
pub fn command(program: impl AsRef<OsStr>) -> Command {
    Command::new(program)
}
