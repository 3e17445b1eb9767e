//! The list the popup and taw app share: every session, window and agent
//! with its state (`rows.rs`, from a snapshot; pure), the state and what
//! each key does to it (`state.rs`; pure, its effects carried out by the
//! front end), the keymap and `[keys]` (`keymap.rs`), herdr's editing keys
//! (`field.rs`), herdr's sidebar rows (`tokens.rs`), the drawing
//! (`draw.rs`), and what an action does on this machine's tmux
//! ([`perform`], through the operations of `ops`). A front end keeps only
//! its loop and where its lists come from: the popup (`ui`) one server,
//! taw app (`app`) every machine.

pub(crate) mod draw;
pub(crate) mod field;
pub(crate) mod keymap;
pub(crate) mod rows;
pub(crate) mod runner;
pub(crate) mod state;
pub(crate) mod terminal;
pub(crate) mod tokens;

use crate::config::Config;
use crate::envelope::{Result, TawError};
use crate::ops;
use crate::tmux::Tmux;
use crate::tmux::snapshot::Snapshot;
use rows::{Depth, Layout, Target};
pub(crate) use state::{Effect, List, Mode, Options};

/// The `[ui]` settings the list reads. `new_session`: it opens on the
/// new-session picker.
pub(crate) fn options_from(config: &Config, new_session: bool) -> Options {
    Options {
        layout: Layout::parse(&config.get(&crate::config::schema::UI_LAYOUT)),
        depth: Depth::parse(&config.get(&crate::config::schema::UI_DEPTH)),
        preview: config.get(&crate::config::schema::UI_PREVIEW),
        show_git: config.get(&crate::config::schema::UI_SHOW_GIT),
        confirm_close: config.get(&crate::config::schema::UI_CONFIRM_CLOSE),
        projects_in_filter: config.get(&crate::config::schema::UI_PROJECTS_IN_FILTER),
        home: std::env::var("HOME").unwrap_or_default(),
        new_session,
        config_problem: config.errors_summary(),
    }
}

/// How an action ended.
pub(crate) enum Outcome {
    /// Done; whether the popup closes now.
    Done(bool),
    Failed(String),
    /// Refused for a reason a yes overrides: the question, and what a yes
    /// does.
    Ask(String, Effect),
}

/// Carries out one action of the list on this machine's tmux: the popup's,
/// and taw app's for its own machine. Every action is an operation of
/// `ops`, the same the command line runs.
pub(crate) fn perform(
    tmux: &Tmux,
    config: &Config,
    client: Option<&str>,
    snapshot: &Snapshot,
    effect: Effect,
) -> Outcome {
    let snapshot = snapshot.clone();
    let outcome = match effect {
        Effect::OpenTarget => ops::navigate::next_up(tmux, &snapshot, client).map(|_| true),
        Effect::Go(target) => go(tmux, &snapshot, client, target).map(|_| true),
        Effect::Rename(target, name) => rename(tmux, &snapshot, target, &name).map(|_| false),
        Effect::Close(target) => close(tmux, &snapshot, target).map(|_| false),
        Effect::CloseGroup(session) => {
            ops::workspace::close(tmux, &snapshot, session, true, false).map(|_| false)
        }
        Effect::NewWorktree { head, branch } => ops::worktree::create(
            tmux,
            &snapshot,
            ops::worktree::NewWorktree {
                source: ops::worktree::Source::Workspace(head),
                branch,
                base: None,
                path: None,
                label: None,
                focus_client: client.map(str::to_string),
            },
        )
        .map(|_| true),
        Effect::OpenWorktree { head, path } => ops::worktree::open(
            tmux,
            &snapshot,
            ops::worktree::OpenWorktree {
                source: ops::worktree::Source::Workspace(head),
                which: ops::worktree::Which::Path(path.into()),
                label: None,
                focus_client: client.map(str::to_string),
            },
        )
        .map(|_| true),
        Effect::RemoveWorktree { head, path, force } => {
            let removal = ops::worktree::Removal::Path {
                path: path.clone().into(),
                source: Some(ops::worktree::Source::Workspace(head)),
            };
            match ops::worktree::remove(tmux, &snapshot, removal, force) {
                Err(error) if error.code == crate::envelope::ErrorCode::WorktreeDirty => {
                    return Outcome::Ask(
                        dirty_question(&path),
                        Effect::RemoveWorktree {
                            head,
                            path,
                            force: true,
                        },
                    );
                }
                other => other.map(|_| false),
            }
        }
        Effect::OpenSession(dir) => crate::sessions::folders::resolve_dir(&dir)
            .and_then(|dir| ops::session::open(tmux, config, &dir, client))
            .map(|_| true),
        Effect::PasteImage(pane) => paste_image(tmux, &format!("%{pane}"), None, client),
        Effect::Quit | Effect::Preview(_) | Effect::Directories(_) | Effect::Projects(_) => {
            Ok(false)
        }
    };
    match outcome {
        Ok(closes) => Outcome::Done(closes),
        Err(error) => Outcome::Failed(error.message),
    }
}

/// What a removal of a worktree with changes asks: the question first, as
/// a long path would push it off the line.
pub(crate) fn dirty_question(path: &str) -> String {
    let folder = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{folder} has changes: remove anyway? uncommitted changes are lost. y/n")
}

/// The clipboard's image into a pane (of `machine`, else here), by `taw
/// image paste` in a session of its own, which finishes after the list
/// has gone; a failure is shown on `client` (the popup's), when there is
/// one. The list stays open.
pub(crate) fn paste_image(
    tmux: &Tmux,
    pane: &str,
    machine: Option<&str>,
    client: Option<&str>,
) -> Result<bool> {
    let exe = std::env::current_exe()
        .map_err(|e| TawError::new(crate::envelope::ErrorCode::IoError, e.to_string()))?;
    let mut program = crate::exec::Program::new(exe)
        .args(tmux.socket_args())
        .args(["image", "paste", "--pane", pane]);
    if let Some(machine) = machine {
        program = program.args(["--machine", machine]);
    }
    if let Some(client) = client {
        // This process is the popup: a failure is told once it has gone.
        let pid = std::process::id().to_string();
        program = program.args(["--client", client, "--after-pid", &pid]);
    }
    program.start_unwatched().map_err(|failure| {
        TawError::new(
            crate::envelope::ErrorCode::IoError,
            failure.describe("taw image paste"),
        )
    })?;
    Ok(false)
}

fn gone() -> TawError {
    TawError::not_found("it has closed")
}

fn go(tmux: &Tmux, snapshot: &Snapshot, client: Option<&str>, target: Target) -> Result<()> {
    match target {
        Target::Pane { pane, session, .. } => {
            let row = snapshot.pane(pane, Some(session)).ok_or_else(gone)?;
            ops::navigate::to_pane(tmux, snapshot, row, client)
        }
        Target::Window { window, .. } => ops::navigate::to_window(tmux, window, client),
        Target::Session(session) => ops::navigate::to_session(tmux, session, client),
        Target::Folder(_) | Target::Worktree(_) | Target::Machine(_) => Ok(()),
    }
}

/// A rename from the popup's field: an empty name takes a pane's label or
/// an agent's name off, and is refused for a session or a window.
fn rename(tmux: &Tmux, snapshot: &Snapshot, target: Target, name: &str) -> Result<()> {
    let name = Some(name).filter(|n| !n.is_empty());
    match target {
        Target::Folder(_) | Target::Worktree(_) | Target::Machine(_) => Ok(()),
        Target::Session(id) => {
            ops::workspace::rename(tmux, snapshot, id, name.unwrap_or("")).map(|_| ())
        }
        Target::Window { session, window } => {
            let row = snapshot.window(session, window).ok_or_else(gone)?;
            ops::tab::rename(tmux, row, name.unwrap_or("")).map(|_| ())
        }
        Target::Pane { pane, session, .. } => {
            let row = snapshot.pane(pane, Some(session)).ok_or_else(gone)?;
            if row.agent_kind.is_empty() {
                ops::pane::rename(tmux, row, name).map(|_| ())
            } else {
                ops::agent::rename(tmux, snapshot, row, name).map(|_| ())
            }
        }
    }
}

fn close(tmux: &Tmux, snapshot: &Snapshot, target: Target) -> Result<()> {
    match target {
        Target::Session(id) => ops::workspace::close(tmux, snapshot, id, false, false).map(|_| ()),
        Target::Window { session, window } => {
            let row = snapshot.window(session, window).ok_or_else(gone)?;
            ops::tab::close(tmux, snapshot, row, false).map(|_| ())
        }
        Target::Pane { pane, session, .. } => {
            let row = snapshot.pane(pane, Some(session)).ok_or_else(gone)?;
            ops::pane::close(tmux, snapshot, row, false).map(|_| ())
        }
        Target::Folder(_) | Target::Worktree(_) | Target::Machine(_) => Ok(()),
    }
}

/// The worktrees of these repositories' sessions that no session runs, as
/// the list shows them (git is asked).
pub(crate) fn closed_worktrees(snapshot: &Snapshot, heads: Vec<u32>) -> Vec<rows::ClosedWorktree> {
    heads
        .into_iter()
        .flat_map(|head| {
            ops::worktree::closed_worktrees(snapshot, head)
                .into_iter()
                .map(move |w| rows::ClosedWorktree {
                    head,
                    path: w.path,
                    branch: w.branch,
                })
        })
        .collect()
}
