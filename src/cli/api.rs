//! `taw api`: herdr's whole-state answer for its clients and plugins.

use super::Context;
use crate::envelope::{Reply, Result};
use crate::ops::api as op;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Verb {
    /// Every workspace, tab, pane, layout and agent in one answer (herdr's session snapshot).
    Snapshot,
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Snapshot => context.snapshot().map(|s| Reply::of(op::snapshot(&s))),
    }
}
