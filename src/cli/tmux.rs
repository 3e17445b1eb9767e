//! `taw tmux load|unload`: what `agent-wizard.tmux` runs to put the plugin
//! into a tmux server, and its undo.

use super::Context;
use crate::envelope::{ErrorCode, Reply, Result};
use crate::setup;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Put the plugin into the tmux server: option defaults, hooks, keys, PATH.
    Load {
        /// The taw binary hooks and keys run (default: this one).
        #[arg(long, value_name = "PATH")]
        bin: Option<PathBuf>,
    },
    /// Take out every hook, key, option default and PATH entry taw put in.
    Unload,
    /// What is loaded, which binary and from where, the config file, the
    /// status marks, PATH, the web server, and what the last load said.
    Status {
        /// Answer with the JSON envelope instead of a screen.
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Load { bin } => load(context, bin),
        Verb::Unload => unload(context),
        Verb::Status { json } => status(context, json),
    }
}

fn load(context: &Context, bin: Option<PathBuf>) -> Result<Reply> {
    let tmux = context.tmux();
    let loaded = setup::live::load(&tmux, bin);
    // The status line is where a person loading the plugin looks; a server
    // that does not answer, or is not there, cannot show anything.
    if let Err(error) = &loaded
        && !matches!(error.code, ErrorCode::Timeout | ErrorCode::ServerNotRunning)
    {
        // The answer says the error either way; the message is the extra.
        setup::live::say_failure(&tmux, error);
    }
    loaded.map(Reply::of)
}

fn unload(context: &Context) -> Result<Reply> {
    setup::live::unload(&context.tmux()).map(Reply::of)
}

fn status(context: &Context, json: bool) -> Result<Reply> {
    let overview = setup::overview::read(&context.tmux())?;
    Ok(if json {
        Reply::of(overview)
    } else {
        Reply::Text(setup::overview::text(&overview))
    })
}
