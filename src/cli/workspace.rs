//! `taw workspace`: tmux sessions as herdr workspaces.

use super::{Context, envelope_id, with_records};
use crate::envelope::{Reply, Result};
use crate::model::resolve;
use clap::Subcommand;
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// List every workspace (tmux session).
    List,
    /// One workspace's record.
    Get {
        /// A workspace id: w1, $0, or a position such as 1.
        workspace: String,
    },
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::List => (envelope_id("workspace", "list"), list(context)),
        Verb::Get { workspace } => (envelope_id("workspace", "get"), get(context, &workspace)),
    }
}

fn list(context: &Context) -> Result<Reply> {
    with_records(context, |records| {
        Ok(Reply::result(
            "workspace_list",
            json!({ "workspaces": records.workspaces() }),
        ))
    })
}

fn get(context: &Context, workspace: &str) -> Result<Reply> {
    with_records(context, |records| {
        let session = resolve::workspace(records.snapshot(), workspace)?;
        let record = records.workspace_by_id(session);
        Ok(Reply::result(
            "workspace_info",
            json!({ "workspace": record }),
        ))
    })
}
