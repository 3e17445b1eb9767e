//! The operations every front end shares: the command line (`cli/`), the
//! list of the popup and taw app (`list::perform`), the web API, the
//! plugin host, a session restore. Each takes the tmux server and what a snapshot says, checks
//! what it is given, changes tmux through `tmux/`, and answers with typed
//! records ([`crate::envelope::Answer`]) or a [`TawError`] with its code.
//! An operation takes targets already found (a session, window or pane of
//! the snapshot), never text to resolve: reading an id or a name is the
//! front end's part (`model::resolve`).

pub(crate) mod agent;
pub(crate) mod api;
pub(crate) mod feed;
pub(crate) mod image;
pub(crate) mod layout;
pub(crate) mod metadata;
pub(crate) mod names;
pub(crate) mod navigate;
pub(crate) mod notification;
pub(crate) mod pane;
pub(crate) mod plan;
pub(crate) mod plugin;
pub(crate) mod popup;
pub(crate) mod race;
pub(crate) mod repo_group;
pub(crate) mod restore;
pub(crate) mod save;
pub(crate) mod session;
pub(crate) mod tab;
pub(crate) mod workspace;
pub(crate) mod worktree;

use crate::envelope::{Result, TawError};
use crate::tmux::snapshot::{Pane, Snapshot, Window};

/// A new name or id tmux printed could not be read.
pub(crate) fn unread(what: &str, output: &str) -> TawError {
    TawError::tmux(format!("tmux did not say {what}: {output:?}"))
}

/// The window a pane is in, as the snapshot has it.
pub(crate) fn window_of<'a>(snapshot: &'a Snapshot, pane: &Pane) -> Result<&'a Window> {
    snapshot
        .window(pane.session, pane.window)
        .ok_or_else(|| TawError::tmux("the pane's window is not in tmux's list"))
}
