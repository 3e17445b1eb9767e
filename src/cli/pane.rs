//! `taw pane`: tmux panes as herdr panes.

use super::{Context, calling_pane, envelope_id, no_current_pane, with_records};
use crate::envelope::{Reply, Result, TawError};
use crate::model::resolve;
use clap::Subcommand;
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// List every pane, or the panes of one workspace.
    List {
        /// Only this workspace's panes.
        #[arg(long)]
        workspace: Option<String>,
    },
    /// One pane's record.
    Get {
        /// A pane id: w1:p3 or %2.
        pane: String,
    },
    /// The pane taw runs in, else the pane in front of the last-used client.
    Current {
        /// This pane instead.
        #[arg(long, conflicts_with = "current")]
        pane: Option<String>,
        /// The pane taw runs in ($TMUX_PANE); an error outside tmux.
        #[arg(long)]
        current: bool,
    },
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::List { workspace } => (envelope_id("pane", "list"), list(context, workspace)),
        Verb::Get { pane } => (envelope_id("pane", "get"), get(context, &pane)),
        Verb::Current { pane, current } => (
            envelope_id("pane", "current"),
            current_pane(context, pane, current),
        ),
    }
}

fn list(context: &Context, workspace: Option<String>) -> Result<Reply> {
    with_records(context, |records| {
        let session = workspace
            .map(|w| resolve::workspace(records.snapshot(), &w))
            .transpose()?;
        Ok(Reply::result(
            "pane_list",
            json!({ "panes": records.panes(session) }),
        ))
    })
}

fn get(context: &Context, pane: &str) -> Result<Reply> {
    with_records(context, |records| {
        let pane = resolve::pane(records.snapshot(), pane)?;
        Ok(Reply::result(
            "pane_info",
            json!({ "pane": records.pane(pane) }),
        ))
    })
}

fn current_pane(context: &Context, pane: Option<String>, current: bool) -> Result<Reply> {
    with_records(context, |records| {
        let snapshot = records.snapshot();
        let found = match (pane, current) {
            (Some(pane), _) => resolve::pane(snapshot, &pane)?,
            (None, true) => {
                let id = calling_pane(snapshot).ok_or_else(no_current_pane)?;
                snapshot.pane(id, None).ok_or_else(no_current_pane)?
            }
            (None, false) => match calling_pane(snapshot) {
                Some(id) => snapshot.pane(id, None).ok_or_else(no_current_pane)?,
                None => snapshot
                    .focused_pane()
                    .ok_or_else(|| TawError::not_found("the tmux server has no pane"))?,
            },
        };
        Ok(Reply::result(
            "pane_current",
            json!({ "pane": records.pane(found) }),
        ))
    })
}
