//! The tests that run the real `taw` binary against real tmux servers,
//! one module per part of taw, in one binary: one link for all of them,
//! and one pool of test threads that keeps the cores busy while tests wait
//! on tmux. `common` is the harness.
#![allow(clippy::disallowed_methods, dead_code)]

mod common;

mod agent_drive;
// Named to come first of the real-agent tests (libtest starts them in the
// order of their names): the longest, it then ends with the others.
mod agent_restore_lab;
mod agents;
mod agents_lab;
mod api;
mod architecture;
mod config;
mod docs;
mod events;
mod install;
mod integrations;
mod integrations_lab;
mod load;
mod machines;
mod metadata;
mod notification;
mod plugins;
mod popup;
mod records;
mod replay;
mod report;
mod restore;
mod sandbox;
mod sandbox_profiles;
mod sessions;
mod shapes;
mod status_line;
mod stopped;
mod verbs;
mod watch;
mod web;
mod web_lab;
mod web_page;
mod worktrees;
