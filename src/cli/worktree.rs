//! `taw worktree`: git worktrees, each in a session of its own, grouped
//! under its repository's session.

use super::Context;
use super::tab::workspace_for;
use crate::envelope::{ErrorCode, Reply, Result, TawError};
use crate::model::resolve;
use crate::ops::worktree::{self as op, NewWorktree, OpenWorktree, Removal, Source, Which};
use crate::tmux::snapshot::Snapshot;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// List a repository's worktrees, and the workspaces that run them.
    List(ListArgs),
    /// Make a worktree of a branch (made from --base or HEAD when it is new), in a workspace of its own.
    Create(CreateArgs),
    /// Open the workspace of a worktree, made when none runs it.
    Open(OpenArgs),
    /// Remove a worktree (git worktree remove) and close its workspace.
    Remove(RemoveArgs),
}

/// Where the repository is: a workspace's checkout, a folder, or (neither)
/// the workspace taw runs in, else the one in front.
#[derive(Debug, Args)]
pub(crate) struct SourceArgs {
    /// A workspace of the repository: w1, $0, or a position.
    #[arg(long, conflicts_with = "cwd")]
    pub workspace: Option<String>,
    /// A folder of the repository.
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}

/// `--json`, which herdr's worktree verbs take and scripts written for
/// herdr pass: taw's answer is always JSON.
#[derive(Debug, Args)]
pub(crate) struct HerdrJson {
    /// Accepted for herdr's scripts: the answer is always JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub herdr: HerdrJson,
}

#[derive(Debug, Args)]
pub(crate) struct CreateArgs {
    /// The branch: checked out when it is a local branch, else made.
    #[arg(conflicts_with = "branch_flag")]
    pub branch: Option<String>,
    /// The branch, as herdr spells it.
    #[arg(long = "branch", value_name = "BRANCH")]
    pub branch_flag: Option<String>,
    #[command(flatten)]
    pub source: SourceArgs,
    /// What a new branch starts from (default: HEAD).
    #[arg(long)]
    pub base: Option<String>,
    /// Where the checkout goes (default: <[worktrees] directory>/<repo>/<branch>).
    #[arg(long)]
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub session: SessionArgs,
    #[command(flatten)]
    pub herdr: HerdrJson,
}

/// The session a verb makes: its name, and whether to show it.
#[derive(Debug, Args)]
pub(crate) struct SessionArgs {
    /// The workspace's name when one is made (default: <repo>/<branch>).
    #[arg(long, allow_hyphen_values = true)]
    pub label: Option<String>,
    /// Show it on the client used last.
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long)]
    pub no_focus: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["path", "branch"])))]
pub(crate) struct OpenArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The worktree's folder.
    #[arg(long)]
    pub path: Option<PathBuf>,
    /// The branch checked out in it.
    #[arg(long)]
    pub branch: Option<String>,
    #[command(flatten)]
    pub session: SessionArgs,
    #[command(flatten)]
    pub herdr: HerdrJson,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["workspace", "path"])))]
pub(crate) struct RemoveArgs {
    /// The workspace that runs the worktree.
    #[arg(long, conflicts_with = "path")]
    pub workspace: Option<String>,
    /// The worktree's folder (one no workspace runs, or one already gone).
    #[arg(long)]
    pub path: Option<PathBuf>,
    /// A folder of the repository, for a --path that is gone.
    #[arg(long, requires = "path")]
    pub cwd: Option<PathBuf>,
    /// Remove a checkout with modified or untracked files too (they are lost).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub herdr: HerdrJson,
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    answer(context, verb)
}

/// A folder as given (`~/` the home, as herdr reads it), made absolute
/// against the folder taw runs in.
fn absolute(path: PathBuf) -> Result<PathBuf> {
    let path = match path.to_str() {
        Some(text) => crate::paths::expand_home(text),
        None => path,
    };
    if path.is_absolute() {
        return Ok(path);
    }
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .map_err(|e| TawError::io(format!("the current folder cannot be read: {e}")))
}

fn source(snapshot: &Snapshot, args: SourceArgs) -> Result<Source> {
    if let Some(cwd) = args.cwd {
        return Ok(Source::Folder(absolute(cwd)?));
    }
    Ok(Source::Workspace(workspace_for(
        snapshot,
        args.workspace.as_deref(),
    )?))
}

fn answer(context: &Context, verb: Verb) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = match (&verb, context.snapshot()) {
        (_, Ok(snapshot)) => snapshot,
        // A listing of a folder needs no server: no workspace runs a
        // worktree then.
        (
            Verb::List(ListArgs {
                source: SourceArgs { cwd: Some(_), .. },
                ..
            }),
            Err(e),
        ) if e.code == ErrorCode::ServerNotRunning => Snapshot::default(),
        (_, Err(e)) => return Err(e),
    };
    let focus_client = |focus: bool| {
        focus
            .then(|| snapshot.last_client().map(|c| c.name.clone()))
            .flatten()
    };
    Ok(match verb {
        Verb::List(args) => Reply::of(op::list(&snapshot, &source(&snapshot, args.source)?)?),
        Verb::Create(args) => {
            let branch = args.branch.or(args.branch_flag).ok_or_else(|| {
                TawError::invalid_argument(
                    "a worktree needs a branch: taw worktree create <branch>",
                )
            })?;
            let new = NewWorktree {
                source: source(&snapshot, args.source)?,
                branch,
                base: args.base,
                path: args.path.map(absolute).transpose()?,
                label: args.session.label,
                focus_client: focus_client(args.session.focus),
            };
            Reply::of(op::create(&tmux, &snapshot, new)?)
        }
        Verb::Open(args) => {
            let which = match (args.path, args.branch) {
                (Some(path), _) => Which::Path(absolute(path)?),
                (None, Some(branch)) => Which::Branch(branch),
                // clap asks for one; said all the same, should it not.
                (None, None) => return Err(TawError::invalid_argument("give --path or --branch")),
            };
            let wanted = OpenWorktree {
                source: source(&snapshot, args.source)?,
                which,
                label: args.session.label,
                focus_client: focus_client(args.session.focus),
            };
            Reply::of(op::open(&tmux, &snapshot, wanted)?)
        }
        Verb::Remove(args) => {
            let removal = match (args.workspace, args.path) {
                (Some(workspace), _) => {
                    Removal::Workspace(resolve::workspace(&snapshot, &workspace)?)
                }
                (None, Some(path)) => Removal::Path {
                    path: absolute(path)?,
                    source: args.cwd.map(absolute).transpose()?.map(Source::Folder),
                },
                (None, None) => {
                    return Err(TawError::invalid_argument("give --workspace or --path"));
                }
            };
            Reply::of(op::remove(&tmux, &snapshot, removal, args.force)?)
        }
    })
}
