//! `taw tab`: tmux windows as herdr tabs.

use super::{Context, envelope_id, with_records};
use crate::envelope::{Reply, Result};
use crate::model::resolve;
use clap::Subcommand;
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// List the tabs (tmux windows) of every workspace, or of one.
    List {
        /// Only this workspace's tabs.
        #[arg(long)]
        workspace: Option<String>,
    },
    /// One tab's record.
    Get {
        /// A tab id: w1:t2, @1, or a workspace and position such as w1:2.
        tab: String,
    },
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::List { workspace } => (envelope_id("tab", "list"), list(context, workspace)),
        Verb::Get { tab } => (envelope_id("tab", "get"), get(context, &tab)),
    }
}

fn list(context: &Context, workspace: Option<String>) -> Result<Reply> {
    with_records(context, |records| {
        let session = resolve::workspace_filter(records.snapshot(), workspace.as_deref())?;
        Ok(Reply::result(
            "tab_list",
            json!({ "tabs": records.tabs(session) }),
        ))
    })
}

fn get(context: &Context, tab: &str) -> Result<Reply> {
    with_records(context, |records| {
        let window = resolve::tab(records.snapshot(), tab)?;
        Ok(Reply::result(
            "tab_info",
            json!({ "tab": records.tab(window) }),
        ))
    })
}
