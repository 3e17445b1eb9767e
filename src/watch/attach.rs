//! Starting watchers: `taw watch attach-all` puts one on every pane that
//! has none, and `--restart` starts again those of another taw version.

use crate::envelope::Result;
use crate::tmux::callback::Callback;
use crate::tmux::commands::ShellWord;
use crate::tmux::pane;
use crate::tmux::snapshot::{Pane, Snapshot};
use crate::tmux::{Batch, Tmux};
use serde::Serialize;

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
    let version = pane.watcher.split_whitespace().next().unwrap_or("");
    match (pane.pipe, version) {
        (false, _) => Watch::None,
        (true, "") => Watch::Foreign,
        (true, env!("CARGO_PKG_VERSION")) => Watch::Current,
        (true, _) => Watch::Older,
    }
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub(crate) struct Attached {
    pub attached: Vec<String>,
    pub restarted: Vec<String>,
    pub skipped_foreign: Vec<String>,
}

/// Puts a watcher on every pane without one; with `restart`, starts again
/// the watchers of other taw versions (all of them, with `restart_all`).
pub(crate) fn attach_all(
    tmux: &Tmux,
    callback: &Callback,
    restart: bool,
    restart_all: bool,
) -> Result<Attached> {
    let snapshot = Snapshot::read(tmux)?;
    let mut result = Attached::default();
    // Each pane's pipe is a group of its own: a pane that closed meanwhile
    // stops no other pane's watcher.
    let mut groups: Vec<(String, bool, Batch)> = Vec::new();
    for pane in snapshot.unique_panes() {
        if pane.dead {
            continue;
        }
        let words = callback.words(&[
            ShellWord::Literal("watch".into()),
            ShellWord::Literal("pane".into()),
            ShellWord::Literal(format!("%{}", pane.id)),
        ]);
        let id = format!("%{}", pane.id);
        let restart_it = match watch_of(pane) {
            Watch::None => false,
            Watch::Older if restart => true,
            Watch::Current if restart_all => true,
            Watch::Foreign => {
                result.skipped_foreign.push(id);
                continue;
            }
            _ => continue,
        };
        let batch = Batch::of(pane::pipe_commands(pane.id, &words, restart_it));
        groups.push((id, restart_it, batch));
    }
    // New pipes go together (opening one is asked only where none is, so a
    // group run twice opens one); a restart, which closes a pipe first,
    // goes alone.
    let batches: Vec<Batch> = groups
        .iter()
        .filter(|(_, restart, _)| !restart)
        .map(|(_, _, batch)| batch.clone())
        .collect();
    let mut opened = tmux.run_groups(&batches).into_iter();
    let ran: Vec<Result<()>> = groups
        .iter()
        .map(|(_, restart, batch)| match restart {
            true => tmux.run(batch).map(|_| ()),
            false => opened.next().unwrap_or(Ok(())),
        })
        .collect();
    for ((id, restarted, _), ran) in groups.into_iter().zip(ran) {
        match ran {
            Ok(()) if restarted => result.restarted.push(id),
            Ok(()) => result.attached.push(id),
            // A pane that closed meanwhile has no watcher to get.
            Err(error) if crate::tmux::is_pane_gone(&error) => {}
            Err(error) => return Err(error),
        }
    }
    Ok(result)
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
