//! Attaching panes: `taw watch attach-all` asks the server's watcher
//! ([`super::server`], started when none runs) to pipe every pane that has
//! none; `--restart` also takes those of another taw version, and `--all`
//! starts the watcher itself again.

use crate::envelope::Result;
use crate::tmux::Tmux;
use crate::tmux::callback::Callback;
use crate::tmux::snapshot::{Pane, Snapshot};
use serde::{Deserialize, Serialize};

/// What a pane's pipe is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Watch {
    /// A watcher of this taw version.
    Current,
    /// A watcher started by another taw version.
    Older,
    /// No pipe at all.
    None,
    /// A pipe of someone else's (tmux-logging...): left alone.
    Foreign,
}

pub(crate) fn watch_of(pane: &Pane) -> Watch {
    watch_of_pipe(pane.pipe, &pane.watcher)
}

/// What a pipe is, by whether there is one and its announcement.
pub(crate) fn watch_of_pipe(pipe: bool, announcement: &str) -> Watch {
    let version = announcement.split_whitespace().next().unwrap_or("");
    match (pipe, version) {
        (false, _) => Watch::None,
        (true, "") => Watch::Foreign,
        (true, env!("CARGO_PKG_VERSION")) => Watch::Current,
        (true, _) => Watch::Older,
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Attached {
    pub attached: Vec<String>,
    pub restarted: Vec<String>,
    pub skipped_foreign: Vec<String>,
    /// Panes still to pipe when the asker's time was spent: the watcher
    /// pipes them next.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// The version of the watcher that answered, on the watcher's socket
    /// only (an older one says none): a load of another version replaces
    /// it. Taken off before the answer is printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watcher_version: Option<String>,
}

/// Puts a watcher on every pane without one; with `restart`, also on
/// those of other taw versions (and, with `restart_all`, the server's
/// watcher is started again and takes every pane). The watcher runs the
/// callback's taw. `server` is the tmux server's pid, when the caller
/// knows it. With a `budget`, the answer comes once it is spent, with the
/// panes left to pipe said pending.
pub(crate) fn attach_all(
    tmux: &Tmux,
    callback: &Callback,
    restart: bool,
    restart_all: bool,
    server: Option<u32>,
    budget: Option<std::time::Duration>,
) -> Result<Attached> {
    let server = match server {
        Some(pid) => pid,
        None => crate::tmux::server_pid(tmux)?,
    };
    super::server::attach(
        tmux,
        server,
        &callback.bin,
        &callback.env,
        restart,
        restart_all,
        budget,
    )
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PaneWatch {
    pub pane_id: String,
    pub tmux_id: String,
    pub watch: Watch,
    pub version: Option<String>,
    pub pid: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WatchStatus {
    pub version: &'static str,
    pub watched: usize,
    pub older: usize,
    pub unwatched: usize,
    pub foreign: usize,
    pub panes: Vec<PaneWatch>,
}

crate::envelope::answers!(WatchStatus => "watch_status");

/// Which panes have a watcher, and of which taw.
pub(crate) fn status(snapshot: &Snapshot) -> WatchStatus {
    let panes = snapshot.unique_panes();
    let count = |watch: Watch| panes.iter().filter(|p| watch_of(p) == watch).count();
    WatchStatus {
        version: env!("CARGO_PKG_VERSION"),
        watched: count(Watch::Current),
        older: count(Watch::Older),
        unwatched: count(Watch::None),
        foreign: count(Watch::Foreign),
        panes: panes
            .iter()
            .map(|pane| {
                let mut words = pane.watcher.split_whitespace();
                PaneWatch {
                    pane_id: crate::tmux::ids::pane_id(pane.session, pane.id),
                    tmux_id: format!("%{}", pane.id),
                    watch: watch_of(pane),
                    version: words.next().map(str::to_string),
                    pid: words.next().and_then(|p| p.parse::<u32>().ok()),
                }
            })
            .collect(),
    }
}
