//! tmux-agent-wizard: herdr's agent features for the tmux people already use.
//! `taw` is a short-lived process per call; tmux is the server and its
//! options are the store (see docs/ARCHITECTURE.md). The command line is
//! the only way in: everything here is the crate's own.

mod app;
mod cli;
mod clock;
mod config;
mod detect;
mod envelope;
mod events;
mod exec;
mod git;
mod hooks;
mod integration;
mod list;
mod machine;
mod model;
mod notify;
mod ops;
mod paths;
mod plugin;
mod report;
mod sandbox;
mod sessions;
mod setup;
mod text;
mod tmux;
mod ui;
mod version;
mod watch;
mod web;

/// Runs `taw` with the process's arguments; the exit status to end with.
/// Run by a hook or a key of the plugin's (its line carries
/// [`exec::HOOK_VAR`]), taw ends with 0 whatever came: tmux
/// shows a `run-shell` that ended otherwise ("'…' returned 1") in view
/// mode over a pane, where it swallows the keys sent there. What went
/// wrong is in taw's logs, not in the status.
pub fn run() -> i32 {
    let from_hook = std::env::var_os(exec::HOOK_VAR).is_some();
    let code = cli::run();
    if from_hook { 0 } else { code }
}
