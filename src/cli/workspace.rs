//! `taw workspace`: tmux sessions as herdr workspaces.

use super::{Context, parse_env};
use crate::envelope::{Reply, Result};
use crate::model::resolve;
use crate::ops::metadata::{self, TokenReport};
use crate::ops::workspace::{self as op, NewWorkspace};
use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// List every workspace (tmux session).
    List,
    /// One workspace's record.
    Get {
        /// A workspace id: w1, $0, or a position such as 1.
        workspace: String,
    },
    /// Make a workspace (a tmux session), with a tab and a pane.
    Create(CreateArgs),
    /// Show a workspace on the client used last.
    Focus { workspace: String },
    /// Rename a workspace.
    Rename {
        workspace: String,
        /// The new name (more words after it are joined to it).
        #[arg(allow_hyphen_values = true)]
        label: String,
        #[arg(hide = true)]
        more: Vec<String>,
    },
    /// Close a workspace (--group: a repository's, with its worktree workspaces).
    Close {
        workspace: String,
        #[arg(long)]
        group: bool,
        /// Close even when config.toml does not parse (a `[hooks]
        /// pre_close` there cannot be asked).
        #[arg(long)]
        force: bool,
    },
    /// Report tokens about a workspace (herdr's metadata).
    ReportMetadata(MetadataArgs),
}

#[derive(Debug, Args)]
pub(crate) struct CreateArgs {
    /// The folder of its first pane (default: the folder taw runs in).
    #[arg(long)]
    pub cwd: Option<String>,
    /// Its name (default: the folder's name).
    #[arg(long, allow_hyphen_values = true)]
    pub label: Option<String>,
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// Show it on the client used last.
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long)]
    pub no_focus: bool,
}

#[derive(Debug, Args)]
pub(crate) struct MetadataArgs {
    /// The workspace: w1, $0, or a position.
    pub workspace: String,
    #[command(flatten)]
    pub report: TokenArgs,
}

/// What every metadata report has (`workspace report-metadata`, `pane
/// report-metadata`): who reports, its tokens, its number, their life.
#[derive(Debug, Args)]
pub(crate) struct TokenArgs {
    /// Who reports: letters, digits and `: . _ -`, at most 80.
    #[arg(long)]
    pub source: String,
    /// NAME=VALUE to set (an empty value clears it).
    #[arg(long = "token", value_name = "NAME=VALUE")]
    pub tokens: Vec<String>,
    /// A token to take off.
    #[arg(long = "clear-token", value_name = "NAME")]
    pub clear: Vec<String>,
    /// This source's report number; a report not above its last is ignored.
    #[arg(long)]
    pub seq: Option<u64>,
    /// Each token set expires after this many milliseconds.
    #[arg(long)]
    pub ttl_ms: Option<u64>,
}

impl TokenArgs {
    pub(crate) fn report(self) -> TokenReport {
        TokenReport {
            source: self.source,
            tokens: self.tokens,
            clear: self.clear,
            seq: self.seq,
            ttl_ms: self.ttl_ms,
        }
    }
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    answer(context, verb)
}

fn answer(context: &Context, verb: Verb) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = context.snapshot()?;
    let session = |text: &str| resolve::workspace(&snapshot, text);
    Ok(match verb {
        Verb::List => Reply::of(op::list(&snapshot)),
        Verb::Get { workspace } => Reply::of(op::get(&snapshot, session(&workspace)?)),
        Verb::Create(args) => {
            let new = NewWorkspace {
                env: parse_env(&args.env)?,
                cwd: args.cwd.unwrap_or_else(|| {
                    std::env::current_dir()
                        .map(|d| d.display().to_string())
                        .unwrap_or_else(|_| "/".into())
                }),
                label: args.label,
                focus_client: args
                    .focus
                    .then(|| snapshot.last_client().map(|c| c.name.clone()))
                    .flatten(),
                options: Vec::new(),
            };
            Reply::of(op::create(&tmux, &snapshot, new)?)
        }
        Verb::Focus { workspace } => {
            let client = snapshot.last_client().map(|c| c.name.as_str());
            Reply::of(op::focus(&tmux, &snapshot, session(&workspace)?, client)?)
        }
        Verb::Rename {
            workspace,
            label,
            more,
        } => Reply::of(op::rename(
            &tmux,
            &snapshot,
            session(&workspace)?,
            &super::joined(label, more),
        )?),
        Verb::Close {
            workspace,
            group,
            force,
        } => Reply::of(op::close(
            &tmux,
            &snapshot,
            session(&workspace)?,
            group,
            force,
        )?),
        Verb::ReportMetadata(args) => {
            let session = session(&args.workspace)?;
            let report = args.report.report();
            Reply::of(metadata::report(&tmux, &snapshot, session, &report)?)
        }
    })
}
