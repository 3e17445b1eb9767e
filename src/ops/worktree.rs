//! Git worktrees as workspaces: one tmux session a checkout, grouped under
//! the session of its repository. A session knows where its checkout comes
//! from by a session option (herdr's WorkspaceWorktreeInfo, written when a
//! worktree verb makes or opens it); git is asked for everything else, as
//! an argv (`git.rs`), and removes nothing git itself would not.

use super::plan::Plan;
use super::workspace::{self, NewWorkspace};
use crate::config::{Config, schema};
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::events::{Event, Occurrence};
use crate::git::{self, Repo};
use crate::hooks;
use crate::hooks::veto;
use crate::model::{PaneInfo, Records, TabInfo, WorkspaceInfo};
use crate::tmux::arrange;
use crate::tmux::commands as cmd;
use crate::tmux::options::session as session_opt;
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Tmux, ids};
use serde::Serialize;
use std::path::{Path, PathBuf};

// The group's rule lives apart, as `workspace::close` asks it too; these
// names stay here for the front ends that ask them of a worktree.
pub(crate) use super::repo_group::{Provenance, group_of, head_of, heads, provenance};

/// The linked worktrees of a repository's session that no session runs,
/// for the popup to offer to open or remove.
pub(crate) fn closed_worktrees(snapshot: &Snapshot, head: u32) -> Vec<WorktreeInfo> {
    list(snapshot, &Source::Workspace(head))
        .map(|listed| {
            listed
                .worktrees
                .into_iter()
                .filter(|w| w.is_linked_worktree && w.open_workspace_id.is_none())
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) use crate::model::WorktreeInfo;

/// herdr's WorktreeSourceInfo: the repository a listing is of.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorktreeSource {
    pub repo_key: String,
    pub repo_name: String,
    pub repo_root: String,
    pub source_checkout_path: String,
    pub source_workspace_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorktreeList {
    pub source: WorktreeSource,
    pub worktrees: Vec<WorktreeInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorktreeCreated {
    pub workspace: Option<WorkspaceInfo>,
    pub tab: TabInfo,
    pub root_pane: PaneInfo,
    pub worktree: WorktreeInfo,
}

/// herdr's shape without the workspace, with the running session's own
/// tmux id.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorktreeOpened {
    pub tab: TabInfo,
    pub root_pane: PaneInfo,
    pub worktree: WorktreeInfo,
    pub already_open: bool,
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorktreeRemoved {
    pub workspace_id: Option<String>,
    pub path: String,
    pub forced: bool,
    pub worktree: WorktreeInfo,
}

answers!(
    WorktreeList => "worktree_list",
    WorktreeCreated => "worktree_created",
    WorktreeOpened => "worktree_opened",
    WorktreeRemoved => "worktree_removed",
);

/// Where a verb finds its repository: a workspace's checkout, or a folder.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    Workspace(u32),
    Folder(PathBuf),
}

/// The repository a verb works on, and the workspace it was named by.
struct Located {
    repo: Repo,
    session: Option<u32>,
}

/// The folder a workspace works in: its checkout, else its current
/// pane's folder, else the folder it was made in.
fn workspace_folder(snapshot: &Snapshot, session: u32) -> Option<PathBuf> {
    let row = snapshot.session(session)?;
    if let Some(p) = provenance(row).filter(|p| Path::new(&p.checkout_path).is_dir()) {
        return Some(PathBuf::from(p.checkout_path));
    }
    snapshot
        .active_window(session)
        .and_then(|w| snapshot.active_pane(session, w.id))
        .map(|p| p.current_path.clone())
        .filter(|p| !p.is_empty())
        .or_else(|| Some(row.path.clone()).filter(|p| !p.is_empty()))
        .map(PathBuf::from)
}

fn locate(snapshot: &Snapshot, source: &Source) -> Result<Located> {
    let (folder, session) = match source {
        Source::Workspace(session) => (
            workspace_folder(snapshot, *session).ok_or_else(|| {
                TawError::not_found(format!(
                    "workspace {} has no folder to find a repository in",
                    ids::workspace_id(*session)
                ))
            })?,
            Some(*session),
        ),
        Source::Folder(folder) => (folder.clone(), None),
    };
    if !folder.is_dir() {
        return Err(TawError::not_found(format!(
            "the folder {} is not there",
            folder.display()
        )));
    }
    let repo = git::repo_of(&folder)?.ok_or_else(|| {
        TawError::new(
            ErrorCode::NotGitWorktree,
            format!("{} is in no git repository", folder.display()),
        )
    })?;
    Ok(Located { repo, session })
}

/// The open session that runs checkout `path`: the one whose worktree it
/// is, else one with no worktree made in that folder.
fn session_running(snapshot: &Snapshot, path: &Path) -> Option<u32> {
    let same =
        |text: &str| Path::new(text) == path || crate::paths::same_place(Path::new(text), path);
    snapshot
        .sessions
        .iter()
        .find(|s| provenance(s).is_some_and(|p| same(&p.checkout_path)))
        .or_else(|| {
            snapshot
                .sessions
                .iter()
                .find(|s| provenance(s).is_none() && !s.path.is_empty() && same(&s.path))
        })
        .map(|s| s.id)
}

fn info(snapshot: &Snapshot, repo: &Repo, worktree: &git::Worktree) -> WorktreeInfo {
    WorktreeInfo {
        path: worktree.path.display().to_string(),
        branch: worktree.branch.clone(),
        is_bare: worktree.bare,
        is_detached: worktree.detached,
        is_prunable: worktree.prunable || !worktree.path.exists(),
        is_linked_worktree: !crate::paths::same_place(&worktree.path, &repo.root)
            && worktree.path != repo.root,
        open_workspace_id: session_running(snapshot, &worktree.path).map(ids::workspace_id),
        label: repo.name(),
    }
}

fn worktrees_of(repo: &Repo) -> Result<Vec<git::Worktree>> {
    git::worktrees(&repo.checkout)
        .map_err(|error| TawError::new(ErrorCode::WorktreeListFailed, error.message))
}

/// `taw worktree list`: the repository's worktrees, but those whose
/// checkout is gone and that no session runs.
pub(crate) fn list(snapshot: &Snapshot, source: &Source) -> Result<WorktreeList> {
    let located = locate(snapshot, source)?;
    let repo = &located.repo;
    let worktrees = worktrees_of(repo)?
        .iter()
        .filter(|w| w.path.exists() || session_running(snapshot, &w.path).is_some())
        .map(|w| info(snapshot, repo, w))
        .collect();
    Ok(WorktreeList {
        source: WorktreeSource {
            repo_key: repo.key(),
            repo_name: repo.name(),
            repo_root: repo.root.display().to_string(),
            source_checkout_path: repo.checkout.display().to_string(),
            source_workspace_id: located.session.map(ids::workspace_id),
        },
        worktrees,
    })
}

/// What `taw worktree create` is given.
#[derive(Debug, Clone)]
pub(crate) struct NewWorktree {
    pub source: Source,
    pub branch: String,
    pub base: Option<String>,
    /// Where the checkout goes: under `[worktrees] directory` when none.
    pub path: Option<PathBuf>,
    pub label: Option<String>,
    pub focus_client: Option<String>,
}

/// `<[worktrees] directory>/<repo>/<branch-slug>`, which never leaves
/// that folder.
fn default_path(repo: &Repo, branch: &str) -> Result<PathBuf> {
    let config = Config::load_or_defaults().0;
    let written: String = config.get(&schema::WORKTREES_DIRECTORY);
    let mut base = crate::paths::expand_home(written.trim());
    if base.is_relative() {
        // A folder of the config is not read against wherever taw runs.
        base = crate::paths::home_dir()
            .unwrap_or_else(|| PathBuf::from("/"))
            .join(base);
    }
    let repo_folder = git::branch_slug(&repo.name());
    let path = base.join(&repo_folder).join(git::branch_slug(branch));
    let inside = path.parent().and_then(Path::parent) == Some(base.as_path())
        && path
            .components()
            .skip(base.components().count())
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !inside {
        return Err(TawError::invalid_argument(format!(
            "the branch {branch:?} makes no folder inside {}",
            base.display()
        )));
    }
    Ok(path)
}

/// A name of a branch git takes, or a refusal in git's words.
fn check_branch(repo: &Repo, branch: &str) -> Result<()> {
    if branch.is_empty() {
        return Err(TawError::invalid_argument(
            "a worktree needs a branch: taw worktree create <branch>",
        ));
    }
    if let Err(why) = git::check_branch(&repo.checkout, branch)? {
        return Err(TawError::invalid_argument(format!(
            "{branch:?} is no branch name git takes{}",
            if why.is_empty() {
                String::new()
            } else {
                format!(": {why}")
            }
        )));
    }
    Ok(())
}

/// The session name a worktree gets when it is given none:
/// `<repo>/<branch-slug>`.
fn session_name(repo: &Repo, branch: Option<&str>, path: &Path) -> String {
    let tail = branch
        .map(git::branch_slug)
        .or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "worktree".into());
    // A name taw makes is one tmux keeps as made.
    format!("{}/{tail}", repo.name()).replace(|c| super::names::TMUX_ESCAPES.contains(c), "-")
}

/// Makes the session of a checkout, its worktree set in the same tmux
/// call, so the hooks that hear of the session read it.
/// The session of a checkout, its provenance on it: the tmux half of
/// `worktree create`, and of an `open` that finds none running it.
fn plan_session(
    snapshot: &Snapshot,
    provenance: &Provenance,
    label: String,
    focus_client: Option<String>,
) -> Result<Plan<workspace::WorkspaceCreated>> {
    let json = serde_json::to_string(provenance).unwrap_or_default();
    workspace::plan_create(
        snapshot,
        NewWorkspace {
            cwd: provenance.checkout_path.clone(),
            label: Some(label),
            env: Vec::new(),
            focus_client,
            options: vec![(session_opt::WORKTREE.to_string(), json)],
        },
    )
}

/// The session a worktree was made from gains its repository's worktree
/// (herdr's workspace.updated) when it had none: it heads the group.
fn gain_provenance(tmux: &Tmux, snapshot: &Snapshot, session: Option<u32>, repo: &Repo) {
    let Some(row) = session.and_then(|s| snapshot.session(s)) else {
        return;
    };
    if provenance(row).is_some() {
        return;
    }
    let own = Provenance::of(repo, &repo.checkout);
    let json = serde_json::to_string(&own).unwrap_or_default();
    if tmux
        .run_one(cmd::set_session_option(
            &format!("${}", row.id),
            session_opt::WORKTREE,
            &json,
        ))
        .is_ok()
    {
        hooks::announce_now(
            tmux,
            vec![Occurrence::new(Event::WorkspaceUpdated).session(Some(row.id))],
        );
    }
}

fn worktree_event(event: Event, session: Option<u32>, worktree: &WorktreeInfo) -> Occurrence {
    Occurrence::new(event)
        .session(session)
        .data(
            "worktree",
            serde_json::to_value(worktree).unwrap_or_default(),
        )
        .var("TAW_WORKTREE", worktree.path.clone())
}

fn create_failed(message: String) -> TawError {
    TawError::new(ErrorCode::WorktreeCreateFailed, message)
}

/// `taw worktree create`: a new checkout of `branch` (checked out when it
/// is a local branch, else made from `base` or HEAD), in a session of its
/// own.
pub(crate) fn create(
    tmux: &Tmux,
    snapshot: &Snapshot,
    new: NewWorktree,
) -> Result<WorktreeCreated> {
    let located = locate(snapshot, &new.source)?;
    let repo = &located.repo;
    check_new(repo, &new)?;
    let path = new_checkout_path(repo, &new)?;
    add_worktree(repo, &new, &path)?;
    let checkout = std::fs::canonicalize(&path).unwrap_or(path);
    let worktree = worktrees_of(repo)?
        .into_iter()
        .find(|w| crate::paths::same_place(&w.path, &checkout))
        .unwrap_or(git::Worktree {
            path: checkout.clone(),
            branch: Some(new.branch.clone()),
            ..git::Worktree::default()
        });
    let own = Provenance::of(repo, &checkout);
    let label = new
        .label
        .clone()
        .unwrap_or_else(|| session_name(repo, Some(&new.branch), &checkout));
    let created = plan_created(snapshot, repo, worktree, &own, label, new.focus_client)
        .and_then(|plan| plan.apply(tmux))
        .map_err(|error| {
            create_failed(format!(
                "the worktree is at {}, but its session could not be made: {}",
                checkout.display(),
                error.message
            ))
        })?;
    gain_provenance(tmux, snapshot, located.session, repo);
    let session = created.workspace.as_ref().map(|w| w.tmux_id.clone());
    let session = session.and_then(|s| ids::tmux_number(&s, '$'));
    hooks::announce_now(
        tmux,
        vec![worktree_event(
            Event::WorktreeCreated,
            session,
            &created.worktree,
        )],
    );
    Ok(created)
}

/// The session of the worktree `create` made, answered with the worktree
/// as the server read after it shows it.
fn plan_created(
    snapshot: &Snapshot,
    repo: &Repo,
    worktree: git::Worktree,
    own: &Provenance,
    label: String,
    focus_client: Option<String>,
) -> Result<Plan<WorktreeCreated>> {
    let repo = repo.clone();
    Ok(
        plan_session(snapshot, own, label, focus_client)?.then(move |made, after| {
            Ok(WorktreeCreated {
                workspace: made.workspace,
                tab: made.tab,
                root_pane: made.root_pane,
                worktree: info(after, &repo, &worktree),
            })
        }),
    )
}

/// What `worktree create` is given, checked before git makes anything: a
/// branch name git takes, a base that is no option, a branch checked out
/// nowhere yet.
fn check_new(repo: &Repo, new: &NewWorktree) -> Result<()> {
    // The session's name is checked before the checkout is made.
    if let Some(label) = &new.label {
        super::names::check(super::names::Named::Workspace, label)?;
    }
    check_branch(repo, &new.branch)?;
    if let Some(base) = new
        .base
        .as_deref()
        .filter(|b| b.starts_with('-') || b.is_empty())
    {
        return Err(TawError::invalid_argument(format!(
            "--base {base:?} is no commit, branch or tag"
        )));
    }
    if let Some(there) = worktrees_of(repo)?
        .iter()
        .find(|w| w.branch.as_deref() == Some(new.branch.as_str()))
    {
        return Err(create_failed(format!(
            "branch {} is checked out at {} already; open it with: taw worktree open --branch {}",
            new.branch,
            there.path.display(),
            crate::text::shell_word(&new.branch)
        )));
    }
    Ok(())
}

/// Where the new checkout goes: `--path` (against the current folder), or
/// the default one; a folder there must be empty.
fn new_checkout_path(repo: &Repo, new: &NewWorktree) -> Result<PathBuf> {
    let path = match &new.path {
        Some(path) if path.is_absolute() => path.clone(),
        Some(path) => std::env::current_dir()
            .map_err(|e| TawError::io(format!("the current folder cannot be read: {e}")))?
            .join(path),
        None => default_path(repo, &new.branch)?,
    };
    let empty_dir =
        path.is_dir() && std::fs::read_dir(&path).is_ok_and(|mut entries| entries.next().is_none());
    if path.exists() && !empty_dir {
        return Err(create_failed(format!(
            "{} is there already; choose another --path",
            path.display()
        )));
    }
    Ok(path)
}

/// `git worktree add`: the branch checked out at `path` when it is a
/// local branch, else made there from the base.
fn add_worktree(repo: &Repo, new: &NewWorktree, path: &Path) -> Result<()> {
    let path_text = path.display().to_string();
    let mut args = vec!["worktree", "add"];
    let existing = git::has_branch(&repo.checkout, &new.branch)?;
    if existing {
        args.extend(["--", &path_text, &new.branch]);
    } else {
        args.extend(["-b", &new.branch, "--", &path_text]);
        if let Some(base) = &new.base {
            args.push(base);
        }
    }
    let ran = git::run_in(&repo.checkout, &args, git::LIMIT)?;
    if !ran.ok {
        return Err(create_failed(format!(
            "git could not make the worktree: {}",
            ran.said()
        )));
    }
    Ok(())
}

/// Which worktree `taw worktree open` opens.
#[derive(Debug, Clone)]
pub(crate) enum Which {
    Path(PathBuf),
    Branch(String),
}

/// What `taw worktree open` is given.
#[derive(Debug, Clone)]
pub(crate) struct OpenWorktree {
    pub source: Source,
    pub which: Which,
    pub label: Option<String>,
    pub focus_client: Option<String>,
}

fn open_failed(message: impl Into<String>) -> TawError {
    TawError::new(ErrorCode::WorktreeOpenFailed, message)
}

/// `taw worktree open`: the session of an existing worktree, made when
/// none runs it. A checkout that is gone makes no session.
pub(crate) fn open(
    tmux: &Tmux,
    snapshot: &Snapshot,
    wanted: OpenWorktree,
) -> Result<WorktreeOpened> {
    let located = locate(snapshot, &wanted.source)?;
    let repo = &located.repo;
    let worktree = find_worktree(repo, &wanted.which)?;
    let running = session_running(snapshot, &worktree.path);
    if running.is_none() {
        checkout_there(&worktree)?;
    }
    let opened = plan_open(snapshot, repo, worktree, &wanted, running)
        .and_then(|plan| plan.apply(tmux))
        .map_err(|error| match running {
            // What making its session met is the open's failure.
            None if error.code != ErrorCode::WorktreeOpenFailed => open_failed(error.message),
            _ => error,
        })?;
    let session = ids::tmux_number(opened.session_id.as_deref().unwrap_or_default(), '$');
    hooks::announce_now(
        tmux,
        vec![
            worktree_event(Event::WorktreeOpened, session, &opened.worktree)
                .data("already_open", opened.already_open),
        ],
    );
    Ok(opened)
}

/// The session of the worktree `open` opens: the one `running` it shown on
/// the client, else one made for it.
fn plan_open(
    snapshot: &Snapshot,
    repo: &Repo,
    worktree: git::Worktree,
    wanted: &OpenWorktree,
    running: Option<u32>,
) -> Result<Plan<WorktreeOpened>> {
    let repo = repo.clone();
    let client = wanted.focus_client.as_deref();
    let Some(session) = running else {
        let own = Provenance::of(&repo, &worktree.path);
        let label = wanted
            .label
            .clone()
            .unwrap_or_else(|| session_name(&repo, worktree.branch.as_deref(), &worktree.path));
        let plan = plan_session(snapshot, &own, label, client.map(str::to_string))?;
        return Ok(plan.then(move |made, after| {
            let session = made
                .workspace
                .as_ref()
                .and_then(|w| ids::tmux_number(&w.tmux_id, '$'))
                .ok_or_else(|| open_failed("the new session closed at once"))?;
            opened(after, session, false, &repo, &worktree)
        }));
    };
    let target = format!("${session}");
    let batch = Batch::of(
        super::navigate::switch_unless_there(snapshot, client, session, &target)
            .into_iter()
            .collect(),
    );
    Ok(Plan::read_back(batch, move |_, after| {
        opened(after, session, true, &repo, &worktree)
    }))
}

/// What `open` answers: the session's tab and pane in front, as read after.
fn opened(
    after: &Snapshot,
    session: u32,
    already_open: bool,
    repo: &Repo,
    worktree: &git::Worktree,
) -> Result<WorktreeOpened> {
    let records = Records::new(after);
    let gone = || open_failed("the worktree's session closed");
    let window = after.active_window(session).ok_or_else(gone)?;
    let pane = after.active_pane(session, window.id).ok_or_else(gone)?;
    Ok(WorktreeOpened {
        tab: records.tab(window),
        root_pane: records.pane(pane),
        worktree: info(after, repo, worktree),
        already_open,
        session_id: Some(format!("${session}")),
    })
}

/// The worktree of the repository `which` names, as git lists it.
fn find_worktree(repo: &Repo, which: &Which) -> Result<git::Worktree> {
    let worktrees = worktrees_of(repo)?;
    let found = match which {
        Which::Path(path) => worktrees
            .iter()
            .find(|w| w.path == *path || crate::paths::same_place(&w.path, path)),
        Which::Branch(branch) => worktrees
            .iter()
            .find(|w| w.branch.as_deref() == Some(branch.as_str())),
    };
    found.cloned().ok_or_else(|| {
        TawError::new(
            ErrorCode::WorktreeNotFound,
            match which {
                Which::Path(path) => {
                    format!("no worktree of {} is at {}", repo.name(), path.display())
                }
                Which::Branch(branch) => format!(
                    "no worktree of {} has branch {branch} checked out; make one with: taw worktree create {}",
                    repo.name(),
                    crate::text::shell_word(branch)
                ),
            },
        )
    })
}

/// A worktree no session runs gets one only while its checkout is there.
fn checkout_there(worktree: &git::Worktree) -> Result<()> {
    if worktree.path.is_dir() {
        return Ok(());
    }
    Err(TawError::new(
        ErrorCode::WorktreeNotFound,
        format!(
            "the checkout of worktree {} is gone: {}",
            worktree
                .branch
                .clone()
                .unwrap_or_else(|| worktree.path.display().to_string()),
            worktree.path.display()
        ),
    ))
}

/// Which worktree `taw worktree remove` removes.
#[derive(Debug, Clone)]
pub(crate) enum Removal {
    /// The worktree a workspace runs.
    Workspace(u32),
    /// The checkout at a path; a folder of its repository (`source`) is
    /// needed only when the checkout is gone.
    Path {
        path: PathBuf,
        source: Option<Source>,
    },
}

/// `taw worktree remove`: asks `pre_worktree_remove`, has git remove the
/// checkout (`--force` for one with changes), and closes its session. A
/// worktree whose checkout is gone already is taken off git's list. The
/// server is marked, so that its feed reads the worktrees again now: a
/// worktree no session ran changes no session.
pub(crate) fn remove(
    tmux: &Tmux,
    snapshot: &Snapshot,
    removal: Removal,
    force: bool,
) -> Result<WorktreeRemoved> {
    remove_checkout(tmux, snapshot, removal, force)
}

/// What a removal asks of tmux once git removed the checkout: the server
/// marked, and the session that ran it closed.
fn plan_after_removal(session: Option<u32>, now: u64) -> Plan<()> {
    // The mark only hastens the feeds' next read of the worktrees, which
    // comes all the same; it goes first, as the session may have closed.
    let mut batch = Batch::of(vec![cmd::set_global_option(
        crate::tmux::options::bookkeeping::WORKTREES_CHANGED,
        &now.to_string(),
    )]);
    if let Some(session) = session {
        batch.push(arrange::kill_session(&format!("${session}")));
    }
    Plan::known(batch, ())
}

fn remove_checkout(
    tmux: &Tmux,
    snapshot: &Snapshot,
    removal: Removal,
    force: bool,
) -> Result<WorktreeRemoved> {
    let (path, repo_dir) = removal_paths(snapshot, &removal)?;
    let located = locate(snapshot, &Source::Folder(repo_dir))?;
    let repo = &located.repo;
    let gone = !path.exists();
    let (worktree, listed) = linked_worktree(repo, &path, gone)?;
    let named = worktree
        .branch
        .clone()
        .unwrap_or_else(|| worktree.path.display().to_string());
    if !gone
        && !force
        && let Some(dirt) = git::dirt(&worktree.path)?
    {
        return Err(TawError::new(
            ErrorCode::WorktreeDirty,
            format!(
                "worktree {named} at {} has {dirt}; nothing was removed. Remove it anyway with --force, and they are lost",
                worktree.path.display()
            ),
        ));
    }
    let session = match &removal {
        Removal::Workspace(session) => Some(*session),
        Removal::Path { .. } => session_running(snapshot, &worktree.path),
    };
    let path_text = worktree.path.display().to_string();
    veto::may_remove_worktree(tmux, session, &path_text)?;
    let worktree_info = info(snapshot, repo, &worktree);
    git_remove(repo, &path_text, &named, listed, force)?;
    // Its session goes with it, asked of nothing more than the removal.
    let records = Records::new(snapshot);
    let final_record = session.and_then(|s| records.workspace_by_id(s));
    // The checkout is gone already, which is what was asked; a session
    // that closed meanwhile is no failure of it.
    let _ = plan_after_removal(session, crate::clock::now_ms()).apply(tmux);
    let workspace_id = session.map(ids::workspace_id);
    announce_removed(
        tmux,
        &worktree_info,
        force,
        workspace_id.clone(),
        final_record,
    );
    Ok(WorktreeRemoved {
        workspace_id,
        path: path_text,
        forced: force,
        worktree: worktree_info,
    })
}

/// The checkout a removal names, and a folder of its repository to ask
/// git in (the checkout itself while it is there).
fn removal_paths(snapshot: &Snapshot, removal: &Removal) -> Result<(PathBuf, PathBuf)> {
    match removal {
        Removal::Workspace(session) => {
            let row = snapshot.session(*session).ok_or_else(|| {
                TawError::not_found(format!(
                    "workspace {} is not open",
                    ids::workspace_id(*session)
                ))
            })?;
            let own = provenance(row).ok_or_else(|| {
                TawError::new(
                    ErrorCode::NotGitWorktree,
                    format!(
                        "workspace {} runs no worktree taw made or opened; name it with --path",
                        ids::workspace_id(*session)
                    ),
                )
            })?;
            let path = PathBuf::from(&own.checkout_path);
            let dir = if path.is_dir() {
                path.clone()
            } else {
                PathBuf::from(&own.repo_root)
            };
            Ok((path, dir))
        }
        Removal::Path { path, source } => {
            let dir = match source {
                _ if path.is_dir() => path.clone(),
                Some(Source::Folder(folder)) => folder.clone(),
                Some(Source::Workspace(session)) => {
                    workspace_folder(snapshot, *session).unwrap_or_else(|| path.clone())
                }
                None => {
                    return Err(TawError::invalid_argument(format!(
                        "the folder {} is gone: name a folder of its repository with --cwd",
                        path.display()
                    )));
                }
            };
            Ok((path.clone(), dir))
        }
    }
}

/// The linked worktree of `repo` at `path`, as git lists it; one whose
/// checkout is `gone` and that git has dropped already stands in with
/// only its path. The main checkout is refused.
fn linked_worktree(repo: &Repo, path: &Path, gone: bool) -> Result<(git::Worktree, bool)> {
    let entry = worktrees_of(repo)?
        .into_iter()
        .find(|w| w.path == path || crate::paths::same_place(&w.path, path));
    let listed = entry.is_some();
    let worktree = match entry {
        Some(worktree) => worktree,
        // Gone, and off git's list already: the removal has nothing left
        // to do but the session.
        None if gone => git::Worktree {
            path: path.to_path_buf(),
            prunable: true,
            ..git::Worktree::default()
        },
        None => {
            return Err(TawError::new(
                ErrorCode::NotGitWorktree,
                format!("{} is no worktree of {}", path.display(), repo.name()),
            ));
        }
    };
    if crate::paths::same_place(&worktree.path, &repo.root) || worktree.path == repo.root {
        return Err(TawError::new(
            ErrorCode::NotLinkedWorktree,
            format!(
                "{} is the main checkout of {}, which git does not remove",
                worktree.path.display(),
                repo.name()
            ),
        ));
    }
    Ok((worktree, listed))
}

/// `git worktree remove` (with `--force` when forced), which takes a
/// checkout whose folder is gone off git's list too, and keeps a locked
/// one; nothing for one git lists no more. Never `prune`: it would take
/// every other worktree whose folder is missing now (an unmounted disk's)
/// off the list with it.
fn git_remove(repo: &Repo, path_text: &str, named: &str, listed: bool, force: bool) -> Result<()> {
    if !listed {
        return Ok(());
    }
    let mut args = vec!["worktree", "remove"];
    if force {
        args.push("--force");
    }
    args.extend(["--", path_text]);
    let ran = git::run_in(&repo.checkout, &args, git::LIMIT)?;
    if !ran.ok {
        return Err(TawError::new(
            ErrorCode::WorktreeRemoveFailed,
            format!("git did not remove worktree {named}: {}", ran.said()),
        ));
    }
    Ok(())
}

/// herdr's worktree.removed, with the workspace that closed with it.
fn announce_removed(
    tmux: &Tmux,
    worktree: &WorktreeInfo,
    force: bool,
    workspace_id: Option<String>,
    workspace: Option<WorkspaceInfo>,
) {
    let mut occurrence = worktree_event(Event::WorktreeRemoved, None, worktree)
        .data("forced", force)
        .data(
            "workspace_id",
            workspace_id
                .map(serde_json::Value::String)
                .unwrap_or(serde_json::Value::Null),
        );
    if let Some(record) = &workspace {
        occurrence = occurrence.data(
            "workspace",
            serde_json::to_value(record).unwrap_or_default(),
        );
        occurrence.session_name = Some(record.label.clone());
    }
    hooks::announce_now(tmux, vec![occurrence]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture;

    fn repo(root: &Path) -> Repo {
        Repo {
            root: root.to_path_buf(),
            common_dir: root.join(".git"),
            checkout: root.to_path_buf(),
        }
    }

    fn provenance_of(root: &Path, checkout: &Path) -> String {
        serde_json::to_string(&Provenance::of(&repo(root), checkout)).unwrap()
    }

    /// The fixture with workspace `$3` "api/feat" (tab `@4`, pane `%5`)
    /// running the checkout `feat` of repository `root`.
    fn with_feat(root: &Path, feat: &Path) -> Snapshot {
        let mut after = fixture::server();
        let mut made = fixture::session(3, "api/feat");
        made.worktree = provenance_of(root, feat);
        after.sessions.push(made);
        after.windows.push(fixture::window(3, 4, "zsh"));
        after.panes.push(fixture::pane(3, 4, 5, "", "", ""));
        after
    }

    /// The public id of `%5`, the pane of "api/feat".
    fn feat_pane_id(snapshot: &Snapshot) -> String {
        Records::new(snapshot)
            .pane(snapshot.pane(5, Some(3)).unwrap())
            .pane_id
    }

    fn feat_worktree(feat: &Path) -> git::Worktree {
        git::Worktree {
            path: feat.to_path_buf(),
            branch: Some("feat".into()),
            ..git::Worktree::default()
        }
    }

    #[test]
    fn a_created_worktrees_session_carries_where_it_comes_from() {
        let (root, feat) = (Path::new("/src/api"), Path::new("/wt/api/feat"));
        let own = Provenance::of(&repo(root), feat);
        let plan = plan_created(
            &fixture::server(),
            &repo(root),
            feat_worktree(feat),
            &own,
            "api/feat".into(),
            Some("/dev/pts/1".into()),
        )
        .unwrap();
        let lines = plan.lines();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].starts_with("new-session -d "), "{lines:?}");
        assert!(
            lines[0].contains("-s api/feat -c /wt/api/feat"),
            "{lines:?}"
        );
        assert_eq!(
            lines[1],
            format!(
                "set-option -t =api/feat: -- {} {}",
                session_opt::WORKTREE,
                provenance_of(root, feat)
            )
        );
        assert_eq!(lines[2], "switch-client -c /dev/pts/1 -t =api/feat:");
        let after = with_feat(root, feat);
        let created = plan.answer_with("$3 @4 %5 0", &after).unwrap();
        assert_eq!(created.root_pane.pane_id, feat_pane_id(&after));
        assert_eq!(
            created.worktree.open_workspace_id,
            Some(ids::workspace_id(3))
        );
        assert!(created.worktree.is_linked_worktree);
    }

    #[test]
    fn an_open_shows_the_running_session_or_makes_one() {
        let (root, feat) = (Path::new("/src/api"), Path::new("/wt/api/feat"));
        let snapshot = with_feat(root, feat);
        let wanted = |client: Option<&str>| OpenWorktree {
            source: Source::Workspace(1),
            which: Which::Branch("feat".into()),
            label: None,
            focus_client: client.map(str::to_string),
        };
        let open = |running, client| {
            plan_open(
                &snapshot,
                &repo(root),
                feat_worktree(feat),
                &wanted(client),
                running,
            )
            .unwrap()
        };
        // The client is elsewhere: switched; without one, nothing to do.
        let plan = open(Some(3), Some("/dev/pts/1"));
        assert_eq!(plan.lines(), vec!["switch-client -c /dev/pts/1 -t $3"]);
        assert!(open(Some(3), None).lines().is_empty());
        let opened = plan.answer_with("", &snapshot).unwrap();
        assert!(opened.already_open);
        assert_eq!(opened.session_id.as_deref(), Some("$3"));
        assert_eq!(opened.root_pane.pane_id, feat_pane_id(&snapshot));
        // None runs it: made, named for its repository and branch (here
        // the next name free, "api/feat" being taken).
        let plan = open(None, None);
        let lines = plan.lines();
        assert!(lines[0].contains("-s api/feat-2 "), "{lines:?}");
        let opened = plan.answer_with("$3 @4 %5 0", &snapshot).unwrap();
        assert!(!opened.already_open);
        assert_eq!(opened.root_pane.pane_id, feat_pane_id(&snapshot));
    }

    #[test]
    fn a_removal_marks_the_server_then_closes_the_session() {
        let plan = plan_after_removal(Some(2), 1234);
        assert_eq!(
            plan.lines(),
            vec![
                format!(
                    "set-option -g -- {} 1234",
                    crate::tmux::options::bookkeeping::WORKTREES_CHANGED
                ),
                "kill-session -t $2".into(),
            ]
        );
        assert_eq!(plan_after_removal(None, 1).lines().len(), 1);
    }

    #[test]
    fn a_worktrees_session_is_named_repository_slash_branch() {
        let api = repo(Path::new("/src/api"));
        assert_eq!(
            session_name(&api, Some("feat/login"), Path::new("/wt/x")),
            "api/feat-login"
        );
        assert_eq!(
            session_name(&api, None, Path::new("/wt/fix-2")),
            "api/fix-2"
        );
        assert_eq!(session_name(&api, None, Path::new("/")), "api/worktree");
        // What tmux would expand in a name is not kept.
        let odd = repo(Path::new("/src/a$b"));
        assert_eq!(session_name(&odd, Some("x"), Path::new("/")), "a-b/x");
    }

    #[test]
    fn the_session_running_a_checkout_is_the_one_it_was_made_for_first() {
        let mut snapshot = fixture::server();
        let (root, feat) = (Path::new("/src/api"), Path::new("/wt/api/feat"));
        snapshot.sessions[1].worktree = provenance_of(root, feat);
        snapshot.sessions[0].path = "/wt/api/feat".into();
        assert_eq!(session_running(&snapshot, feat), Some(2));
        // A session made in the folder by hand runs it when none was made
        // for it.
        snapshot.sessions[1].worktree.clear();
        assert_eq!(session_running(&snapshot, feat), Some(1));
        assert_eq!(session_running(&snapshot, Path::new("/elsewhere")), None);
    }

    #[test]
    fn a_workspaces_folder_is_its_checkout_then_its_panes_then_its_own() {
        let home = tempfile::tempdir().unwrap();
        let mut snapshot = fixture::server();
        snapshot.panes[0].current_path = "/src/pane".into();
        assert_eq!(
            workspace_folder(&snapshot, 1),
            Some(PathBuf::from("/src/pane"))
        );
        snapshot.sessions[0].worktree = provenance_of(home.path(), home.path());
        assert_eq!(workspace_folder(&snapshot, 1), Some(home.path().into()));
        // A checkout that is gone is passed over.
        snapshot.sessions[0].worktree = provenance_of(home.path(), Path::new("/gone"));
        assert_eq!(
            workspace_folder(&snapshot, 1),
            Some(PathBuf::from("/src/pane"))
        );
        snapshot.panes[0].current_path.clear();
        assert_eq!(
            workspace_folder(&snapshot, 1),
            Some(PathBuf::from("/home/u/api"))
        );
        assert_eq!(workspace_folder(&snapshot, 42), None);
    }

    #[test]
    fn a_worktrees_record_says_if_it_is_linked_open_or_gone() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join("api");
        std::fs::create_dir(&root).unwrap();
        let mut snapshot = fixture::server();
        let linked = git::Worktree {
            path: PathBuf::from("/wt/api/feat"),
            branch: Some("feat".into()),
            ..git::Worktree::default()
        };
        snapshot.sessions[1].worktree = provenance_of(&root, &linked.path);
        let record = info(&snapshot, &repo(&root), &linked);
        assert!(record.is_linked_worktree && record.is_prunable);
        assert_eq!(record.open_workspace_id, Some(ids::workspace_id(2)));
        assert_eq!(record.label, "api");
        let main = git::Worktree {
            path: root.clone(),
            ..git::Worktree::default()
        };
        let record = info(&snapshot, &repo(&root), &main);
        assert!(!record.is_linked_worktree && !record.is_prunable);
    }

    #[test]
    fn a_removal_names_an_open_workspace_that_runs_a_worktree() {
        let snapshot = fixture::server();
        let error = removal_paths(&snapshot, &Removal::Workspace(42))
            .err()
            .unwrap();
        assert_eq!(error.code, ErrorCode::NotFound);
        let error = removal_paths(&snapshot, &Removal::Workspace(1))
            .err()
            .unwrap();
        assert_eq!(error.code, ErrorCode::NotGitWorktree);
        let mut snapshot = fixture::server();
        snapshot.sessions[1].worktree =
            provenance_of(Path::new("/src/api"), Path::new("/wt/api/gone"));
        // Its checkout gone, git is asked in the repository's folder.
        assert_eq!(
            removal_paths(&snapshot, &Removal::Workspace(2)).unwrap(),
            (PathBuf::from("/wt/api/gone"), PathBuf::from("/src/api"))
        );
    }

    #[test]
    fn a_gone_checkout_named_by_path_needs_a_folder_of_its_repository() {
        let snapshot = fixture::server();
        let gone = PathBuf::from("/wt/api/gone");
        let bare = Removal::Path {
            path: gone.clone(),
            source: None,
        };
        let error = removal_paths(&snapshot, &bare).err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
        let named = Removal::Path {
            path: gone.clone(),
            source: Some(Source::Folder("/src/api".into())),
        };
        assert_eq!(
            removal_paths(&snapshot, &named).unwrap().1,
            PathBuf::from("/src/api")
        );
        let by_workspace = Removal::Path {
            path: gone,
            source: Some(Source::Workspace(2)),
        };
        assert_eq!(
            removal_paths(&snapshot, &by_workspace).unwrap().1,
            PathBuf::from("/home/u/web")
        );
    }

    #[test]
    fn a_folder_that_is_not_there_locates_no_repository() {
        let error = locate(
            &fixture::server(),
            &Source::Folder("/no/such/folder".into()),
        )
        .err()
        .unwrap();
        assert_eq!(error.code, ErrorCode::NotFound);
        let mut snapshot = fixture::server();
        snapshot.sessions[1].path.clear();
        let error = locate(&snapshot, &Source::Workspace(2)).err().unwrap();
        assert!(error.message.contains("no folder"), "{}", error.message);
    }
}
