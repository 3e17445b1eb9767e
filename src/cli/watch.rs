//! `taw watch`: the watcher that detects the agents in every pane.

use super::Context;
use crate::envelope::{Reply, Result, TawError};
use crate::ops::navigate;
use crate::tmux::callback::Callback;
use crate::watch::{self, attach};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// The watcher of the whole server (attach-all starts it; not for a
    /// person).
    #[command(hide = true)]
    Server {
        /// A socket to tell once it listens.
        #[arg(long)]
        ready: Option<std::path::PathBuf>,
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

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Server { ready } => {
            watch::server::serve(context.tmux(), ready.as_deref()).map(|()| Reply::Nothing)
        }
        Verb::AttachAll { restart, all } => attach_all(context, restart, all),
        Verb::Status => status(context),
        Verb::Seen => seen(context),
    }
}

fn current_bin() -> Result<String> {
    std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map(|path| path.display().to_string())
        .map_err(|e| TawError::io(format!("cannot tell where this taw is: {e}")))
}

fn attach_all(context: &Context, restart: bool, all: bool) -> Result<Reply> {
    let callback = Callback::current(current_bin()?);
    let attached = attach::attach_all(&context.tmux(), &callback, restart, all, None, None)?;
    Ok(Reply::result("watch_attached", attached))
}

fn status(context: &Context) -> Result<Reply> {
    Ok(Reply::of(attach::status(&context.snapshot()?)))
}

fn seen(context: &Context) -> Result<Reply> {
    Ok(Reply::of(navigate::mark_seen(
        &context.tmux(),
        &context.snapshot()?,
    )?))
}
