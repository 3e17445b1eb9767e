//! `taw tmux load|unload`: what `agent-wizard.tmux` runs to put the plugin
//! into a tmux server, and its undo.

use super::{Context, envelope_id};
use crate::envelope::{ErrorCode, Reply, Result};
use crate::setup;
use crate::tmux::commands as cmd;
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
}

pub(crate) fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::Load { bin } => (envelope_id("tmux", "load"), load(context, bin)),
        Verb::Unload => (envelope_id("tmux", "unload"), unload(context)),
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
        let _ = tmux.run_one(cmd::show_message(&format!(
            "agent-wizard: loading failed: {}",
            error.message
        )));
    }
    loaded.map(Reply::of)
}

fn unload(context: &Context) -> Result<Reply> {
    setup::live::unload(&context.tmux()).map(Reply::of)
}
