//! `taw popup close`: herdr's `popup.close`, for the popup over a client.

use super::Context;
use crate::envelope::{Reply, Result};
use crate::ops::popup;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Close the popup (taw's list, a plugin's overlay or popup) on a
    /// client: the one named, else the one this runs under, else every one.
    Close {
        /// The client (tmux's name for it, as list-clients prints).
        #[arg(long)]
        client: Option<String>,
    },
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Close { client } => close(context, client),
    }
}

fn close(context: &Context, client: Option<String>) -> Result<Reply> {
    let snapshot = context.snapshot()?;
    let caller = super::terminal_client(&snapshot);
    Ok(Reply::of(popup::close(
        &context.tmux(),
        &snapshot,
        client.as_deref(),
        caller,
    )?))
}
