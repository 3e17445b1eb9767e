//! tmux-agent-wizard: herdr's agent features for the tmux people already use.
//! `taw` is a short-lived process per call; tmux is the server and its
//! options are the store (see docs/ARCHITECTURE.md).

pub mod cli;
pub mod clock;
pub mod config;
pub mod detect;
pub mod envelope;
pub mod exec;
pub mod keys;
pub mod model;
pub mod notify;
pub mod ops;
pub mod paths;
pub mod report;
pub mod sessions;
pub mod setup;
pub mod tmux;
pub mod ui;
pub mod veto;
pub mod watch;
