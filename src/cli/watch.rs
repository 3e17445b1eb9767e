//! `taw watch`: the per-pane watchers that detect agents.

use super::{Context, envelope_id};
use crate::callback::Callback;
use crate::envelope::{Reply, Result, TawError};
use crate::model::resolve;
use crate::ops::go;
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, ids};
use crate::watch::attach::{self, Watch};
use crate::watch::{self, Watcher, nudge};
use clap::Subcommand;
use serde_json::json;
use std::collections::HashSet;
use std::sync::mpsc;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Watch one pane (tmux runs this with pipe-pane; not for a person).
    Pane {
        /// The pane: %N or w1:pN.
        pane: String,
    },
    /// Put a watcher on every pane that has none.
    AttachAll {
        /// Also start again the watchers of another taw version.
        #[arg(long)]
        restart: bool,
        /// Start every watcher again.
        #[arg(long, requires = "restart")]
        all: bool,
    },
    /// Which panes have a watcher, and of which taw.
    Status,
    /// Mark the done agents a client shows as seen (idle).
    Seen,
}

pub(crate) fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::Pane { pane } => (envelope_id("watch", "pane"), watch_pane(context, &pane)),
        Verb::AttachAll { restart, all } => (
            envelope_id("watch", "attach-all"),
            attach_all(context, restart, all),
        ),
        Verb::Status => (envelope_id("watch", "status"), status(context)),
        Verb::Seen => (envelope_id("watch", "seen"), seen(context)),
    }
}

fn watch_pane(context: &Context, pane: &str) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = resolve::pane(&snapshot, pane)?.id;
    let (sender, events) = mpsc::channel();
    let output = sender.clone();
    std::thread::spawn(move || watch::read_output(output));
    let socket = nudge::socket_path(&crate::paths::state_dir(), snapshot.server.pid, pane);
    if let Some(path) = &socket {
        let _ = nudge::listen(path, sender);
    }
    let result = Watcher::new(tmux, pane, snapshot.server.pid).run(events);
    if let Some(path) = socket {
        let _ = std::fs::remove_file(path);
    }
    result.map(|()| Reply::Nothing)
}

fn current_bin() -> Result<String> {
    std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map(|path| path.display().to_string())
        .map_err(|e| TawError::io(format!("cannot tell where this taw is: {e}")))
}

fn attach_all(context: &Context, restart: bool, all: bool) -> Result<Reply> {
    let callback = Callback::current(current_bin()?);
    let attached = attach::attach_all(&context.tmux(), &callback, restart, all)?;
    Ok(Reply::result("watch_attached", attached))
}

fn status(context: &Context) -> Result<Reply> {
    let snapshot = context.snapshot()?;
    let panes: Vec<_> = snapshot
        .unique_panes()
        .into_iter()
        .map(|pane| {
            let mut words = pane.watcher.split_whitespace();
            json!({
                "pane_id": ids::pane_id(pane.session, pane.id),
                "tmux_id": format!("%{}", pane.id),
                "watch": attach::watch_of(pane),
                "version": words.next(),
                "pid": words.next().and_then(|p| p.parse::<u32>().ok()),
            })
        })
        .collect();
    let count = |watch: Watch| {
        snapshot
            .unique_panes()
            .iter()
            .filter(|p| attach::watch_of(p) == watch)
            .count()
    };
    Ok(Reply::result(
        "watch_status",
        json!({
            "version": env!("CARGO_PKG_VERSION"),
            "watched": count(Watch::Current),
            "older": count(Watch::Older),
            "unwatched": count(Watch::None),
            "foreign": count(Watch::Foreign),
            "panes": panes,
        }),
    ))
}

/// Every pane of a window a client shows that is done becomes idle: the
/// person has seen it. Its watcher reads the option at its next look.
fn seen(context: &Context) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let shown: HashSet<(u32, u32)> = snapshot
        .clients
        .iter()
        .filter_map(|client| {
            let session = client.session?;
            let window = snapshot.active_window(session)?;
            Some((session, window.id))
        })
        .collect();
    let mut batch = Batch::new();
    let mut marked = Vec::new();
    for pane in &snapshot.panes {
        if pane.agent_state == "done"
            && shown.contains(&(pane.session, pane.window))
            && !marked.contains(&pane.id)
        {
            batch.extend(go::seen_commands(pane.id));
            marked.push(pane.id);
        }
    }
    if !batch.is_empty() {
        tmux.run(&batch)?;
        go::wake(&snapshot, &marked);
    }
    Ok(Reply::result(
        "watch_seen",
        json!({ "panes": marked.iter().map(|p| format!("%{p}")).collect::<Vec<_>>() }),
    ))
}
