//! Workspaces: tmux sessions, made, shown, renamed and closed.

use super::names::{self, Named};
use super::plan::Plan;
use super::{navigate, unread};
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::hooks::veto;
use crate::model::{PaneInfo, Records, TabInfo, WorkspaceInfo};
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::commands as cmd;
use crate::tmux::options::session::{LABEL, label_value};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Tmux, ids};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkspaceList {
    pub workspaces: Vec<WorkspaceInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkspaceAnswer {
    pub workspace: Option<WorkspaceInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkspaceCreated {
    pub workspace: Option<WorkspaceInfo>,
    pub tab: TabInfo,
    pub root_pane: PaneInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkspaceClosed {
    pub workspace_id: String,
    /// The worktree workspaces `--group` closed with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub worktree_workspace_ids: Vec<String>,
}

answers!(
    WorkspaceList => "workspace_list",
    WorkspaceAnswer => "workspace_info",
    WorkspaceCreated => "workspace_created",
    WorkspaceClosed => "ok",
);

pub(crate) fn list(snapshot: &Snapshot) -> WorkspaceList {
    WorkspaceList {
        workspaces: Records::new(snapshot).workspaces(),
    }
}

pub(crate) fn get(snapshot: &Snapshot, session: u32) -> WorkspaceAnswer {
    WorkspaceAnswer {
        workspace: Records::new(snapshot).workspace_by_id(session),
    }
}

/// What a new workspace is made of.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewWorkspace {
    /// The folder of its first pane.
    pub cwd: String,
    /// Its name; the folder's name when none is given.
    pub label: Option<String>,
    pub env: Vec<(String, String)>,
    /// The client to show it on, if any.
    pub focus_client: Option<String>,
    /// Session options set in the same tmux call that makes it, so what
    /// hears of the new session (its hooks) reads them.
    pub options: Vec<(String, String)>,
}

/// Makes a session with one window and one pane.
pub(crate) fn create(
    tmux: &Tmux,
    snapshot: &Snapshot,
    new: NewWorkspace,
) -> Result<WorkspaceCreated> {
    plan_create(snapshot, new)?.apply(tmux)
}

pub(crate) fn plan_create(
    snapshot: &Snapshot,
    new: NewWorkspace,
) -> Result<Plan<WorkspaceCreated>> {
    let wanted = match &new.label {
        Some(label) => {
            names::check(Named::Workspace, label)?;
            label.clone()
        }
        None => std::path::Path::new(&new.cwd)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "workspace".into()),
    };
    let name = names::free_session_name(snapshot, &wanted);
    let spawn = Spawn {
        cwd: Some(new.cwd),
        env: new.env,
        command: None,
    };
    let target = format!("={}:", arrange::session_name(&name));
    let mut batch = Batch::of(vec![arrange::new_session(Some(&name), &spawn, None)]);
    let mut options = new.options;
    if name != wanted {
        // tmux holds it under another name: the label as given is kept.
        options.push((LABEL.to_string(), label_value(&name, &wanted)));
    }
    for (option, value) in &options {
        batch.push(cmd::set_session_option(&target, option, value));
    }
    // A new session: no client is on it yet.
    if let Some(client) = &new.focus_client {
        batch.push(cmd::switch_client(client, &target));
    }
    Ok(Plan::read_back(batch, |printed, after| {
        let (session, window, pane) =
            arrange::parse_new_ids(printed).ok_or_else(|| unread("what it made", printed))?;
        let records = Records::new(after);
        let closed = || TawError::tmux("the new session closed at once");
        let window = after.window(session, window).ok_or_else(closed)?;
        let pane = after.pane(pane, Some(session)).ok_or_else(closed)?;
        Ok(WorkspaceCreated {
            workspace: records.workspace_by_id(session),
            tab: records.tab(window),
            root_pane: records.pane(pane),
        })
    }))
}

/// A name another session has cannot be given (tmux holds one session a
/// name).
fn refuse_taken(snapshot: &Snapshot, name: &str, session: u32) -> Result<()> {
    let name = crate::tmux::arrange::session_name(name);
    if snapshot
        .sessions
        .iter()
        .any(|s| s.name == name && s.id != session)
    {
        return Err(TawError::invalid_argument(format!(
            "another workspace is named {name:?}; choose another name"
        )));
    }
    Ok(())
}

/// Answers with session `$session` as the server has it after.
fn read_back(batch: Batch, session: u32) -> Plan<WorkspaceAnswer> {
    Plan::read_back(batch, move |_, after| Ok(get(after, session)))
}

/// Shows session `$session` on `client`.
pub(crate) fn focus(
    tmux: &Tmux,
    snapshot: &Snapshot,
    session: u32,
    client: Option<&str>,
) -> Result<WorkspaceAnswer> {
    plan_focus(snapshot, session, client).apply(tmux)
}

pub(crate) fn plan_focus(
    snapshot: &Snapshot,
    session: u32,
    client: Option<&str>,
) -> Plan<WorkspaceAnswer> {
    let target = format!("${session}");
    let switch = navigate::switch_unless_there(snapshot, client, session, &target);
    read_back(Batch::of(switch.into_iter().collect()), session)
}

pub(crate) fn rename(
    tmux: &Tmux,
    snapshot: &Snapshot,
    session: u32,
    name: &str,
) -> Result<WorkspaceAnswer> {
    plan_rename(snapshot, session, name)?.apply(tmux)
}

pub(crate) fn plan_rename(
    snapshot: &Snapshot,
    session: u32,
    name: &str,
) -> Result<Plan<WorkspaceAnswer>> {
    names::check(Named::Workspace, name)?;
    refuse_taken(snapshot, name, session)?;
    let target = format!("${session}");
    let held = arrange::session_name(name);
    let label = match held == name {
        true => cmd::unset_session_option(&target, LABEL),
        false => cmd::set_session_option(&target, LABEL, &label_value(&held, name)),
    };
    Ok(read_back(
        Batch::of(vec![arrange::rename_session(&target, name), label]),
        session,
    ))
}

/// Closes the session, once the veto lets it (`force`: see
/// [`veto::may_close`]). A repository's session whose worktree sessions
/// are open closes only with `group`, and then with them: the veto is
/// asked about every one before any closes.
pub(crate) fn close(
    tmux: &Tmux,
    snapshot: &Snapshot,
    session: u32,
    group: bool,
    force: bool,
) -> Result<WorkspaceClosed> {
    plan_close(snapshot, session, group, force)?.apply(tmux)
}

/// A close that would end session `session`, a repository's with worktree
/// sessions open, is refused (`workspace_group_close_required`): a tab's
/// or a pane's that ends it as much as the workspace's own. The group
/// closes whole with `workspace close --group` (the popup asks).
pub(crate) fn refuse_ending_a_group(snapshot: &Snapshot, session: u32) -> Result<()> {
    let members = super::repo_group::group_of(snapshot, session);
    if members.is_empty() {
        return Ok(());
    }
    let records = Records::new(snapshot);
    let named: Vec<String> = members
        .iter()
        .map(|s| match records.workspace_by_id(*s) {
            Some(w) => format!("{} ({})", w.workspace_id, w.label),
            None => ids::workspace_id(*s),
        })
        .collect();
    Err(TawError::new(
        ErrorCode::WorkspaceGroupCloseRequired,
        format!(
            "workspace {} has worktree workspaces open: {}; nothing was closed. Close them with it with `taw workspace close --group`",
            ids::workspace_id(session),
            named.join(", ")
        ),
    ))
}

pub(crate) fn plan_close(
    snapshot: &Snapshot,
    session: u32,
    group: bool,
    force: bool,
) -> Result<Plan<WorkspaceClosed>> {
    if !group {
        refuse_ending_a_group(snapshot, session)?;
    }
    let members = super::repo_group::group_of(snapshot, session);
    // The worktrees' sessions first, the repository's last.
    let kills = members
        .iter()
        .chain(std::iter::once(&session))
        .map(|one| arrange::kill_session(&format!("${one}")))
        .collect();
    let mut plan = Plan::known(
        Batch::of(kills),
        WorkspaceClosed {
            workspace_id: ids::workspace_id(session),
            worktree_workspace_ids: members.iter().copied().map(ids::workspace_id).collect(),
        },
    );
    for one in std::iter::once(session).chain(members) {
        plan = plan.vetoed(veto::Closing::Session(one), force);
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture;

    fn new_in(cwd: &str) -> NewWorkspace {
        NewWorkspace {
            cwd: cwd.into(),
            ..NewWorkspace::default()
        }
    }

    /// A server after `$9` was made: its tab `@9` and pane `%9`.
    fn after_making() -> Snapshot {
        let mut after = fixture::server();
        after.sessions.push(fixture::session(9, "shop"));
        after.windows.push(fixture::window(9, 9, "zsh"));
        after.panes.push(fixture::pane(9, 9, 9, "", "", ""));
        after
    }

    #[test]
    fn a_new_workspace_is_named_after_its_folder() {
        let plan = plan_create(&fixture::server(), new_in("/src/shop")).unwrap();
        assert_eq!(plan.vetoes, vec![]);
        let lines = plan.lines();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("new-session -d -P"), "{lines:?}");
        assert!(lines[0].contains("-s shop -c /src/shop"), "{lines:?}");
        let made = plan.answer_with("$9 @9 %9\n", &after_making()).unwrap();
        assert_eq!(made.workspace.unwrap().workspace_id, ids::workspace_id(9));
        assert_eq!(made.tab.tab_id, ids::tab_id(9, 9));
        assert_eq!(made.root_pane.pane_id, ids::pane_id(9, 9));
    }

    #[test]
    fn a_taken_name_gets_a_number_and_the_label_is_kept() {
        let mut new = new_in("/src/x");
        new.label = Some("api".into());
        new.options = vec![("@mine".into(), "1".into())];
        let lines = plan_create(&fixture::server(), new).unwrap().lines();
        assert!(lines[0].contains("-s api-2"), "{lines:?}");
        assert_eq!(lines[1], "set-option -t =api-2: -- @mine 1");
        assert_eq!(
            lines[2],
            format!("set-option -t =api-2: -- {LABEL} api-2\tapi")
        );
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn a_folder_without_a_name_makes_a_workspace_named_workspace() {
        let lines = plan_create(&fixture::server(), new_in("/"))
            .unwrap()
            .lines();
        assert!(lines[0].contains("-s workspace "), "{lines:?}");
    }

    #[test]
    fn a_label_the_names_rule_refuses_makes_nothing() {
        let mut new = new_in("/src/x");
        new.label = Some("two\nlines".into());
        let error = plan_create(&fixture::server(), new).err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn a_new_workspace_shown_switches_the_client_by_its_exact_name() {
        let mut new = new_in("/src/shop");
        new.focus_client = Some("/dev/pts/1".into());
        let lines = plan_create(&fixture::server(), new).unwrap().lines();
        assert_eq!(
            lines.last().unwrap(),
            "switch-client -c /dev/pts/1 -t =shop:"
        );
    }

    #[test]
    fn what_tmux_did_not_print_or_closed_at_once_is_an_error() {
        let plan = plan_create(&fixture::server(), new_in("/src/shop")).unwrap();
        let error = plan.answer_with("junk", &after_making()).err().unwrap();
        assert_eq!(error.code, ErrorCode::TmuxError);
        let plan = plan_create(&fixture::server(), new_in("/src/shop")).unwrap();
        let error = plan
            .answer_with("$9 @9 %9\n", &fixture::server())
            .err()
            .unwrap();
        assert_eq!(error.code, ErrorCode::TmuxError);
    }

    #[test]
    fn focus_switches_only_a_client_on_another_workspace() {
        let snapshot = fixture::server();
        assert_eq!(
            plan_focus(&snapshot, 2, Some("/dev/pts/1")).lines(),
            vec!["switch-client -c /dev/pts/1 -t $2"]
        );
        assert!(
            plan_focus(&snapshot, 1, Some("/dev/pts/1"))
                .lines()
                .is_empty()
        );
        assert!(plan_focus(&snapshot, 2, None).lines().is_empty());
        let shown = plan_focus(&snapshot, 2, None)
            .answer_with("", &snapshot)
            .unwrap();
        assert_eq!(shown.workspace.unwrap().workspace_id, ids::workspace_id(2));
    }

    #[test]
    fn rename_refuses_a_name_another_workspace_has() {
        let error = plan_rename(&fixture::server(), 2, "api").err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
        assert!(
            error.message.contains("another workspace"),
            "{}",
            error.message
        );
        // Its own name again is no clash.
        assert!(plan_rename(&fixture::server(), 1, "api").is_ok());
    }

    #[test]
    fn rename_keeps_a_name_tmux_would_change_as_the_label() {
        let lines = plan_rename(&fixture::server(), 2, "v1.2").unwrap().lines();
        assert_eq!(lines[0], "rename-session -t $2 -- v1.2");
        assert_eq!(lines[1], format!("set-option -t $2 -- {LABEL} v1_2\tv1.2"));
        let lines = plan_rename(&fixture::server(), 2, "plain").unwrap().lines();
        assert_eq!(lines[1], format!("set-option -u -t $2 -- {LABEL}"));
    }

    /// A repository's session `$1` with one worktree session, `$2`.
    fn grouped() -> Snapshot {
        let mut snapshot = fixture::server();
        let of = |path: &str, linked: bool| {
            serde_json::to_string(&crate::model::Provenance {
                repo_key: "/src/api/.git".into(),
                repo_name: "api".into(),
                repo_root: "/src/api".into(),
                checkout_path: path.into(),
                is_linked_worktree: linked,
            })
            .unwrap()
        };
        snapshot.sessions[0].worktree = of("/src/api", false);
        snapshot.sessions[1].worktree = of("/wt/api/feat", true);
        snapshot
    }

    #[test]
    fn the_last_tab_of_a_repositorys_session_closes_only_with_its_group() {
        let mut snapshot = grouped();
        let session = snapshot.sessions[0].id;
        // Its other tabs gone: the one left is its last.
        let first = snapshot.windows_of(session).next().unwrap().id;
        snapshot
            .windows
            .retain(|w| w.session != session || w.id == first);
        let last = snapshot.window(session, first).unwrap().clone();
        let error = crate::ops::tab::plan_close(&snapshot, &last, false)
            .err()
            .unwrap();
        assert_eq!(error.code, ErrorCode::WorkspaceGroupCloseRequired);
        // A worktree's own session is no head: its last tab closes.
        let other = snapshot.sessions[1].id;
        let theirs = snapshot.windows_of(other).next().unwrap().clone();
        if snapshot.windows_of(other).count() == 1 {
            assert!(crate::ops::tab::plan_close(&snapshot, &theirs, false).is_ok());
        }
    }

    #[test]
    fn close_asks_the_veto_then_kills_the_session() {
        let plan = plan_close(&fixture::server(), 2, false, true).unwrap();
        assert_eq!(plan.vetoes, vec![veto::Closing::Session(2)]);
        assert!(plan.force);
        assert_eq!(plan.lines(), vec!["kill-session -t $2"]);
        let closed = plan.answer_with("", &Snapshot::default()).unwrap();
        assert_eq!(closed.workspace_id, ids::workspace_id(2));
        assert!(closed.worktree_workspace_ids.is_empty());
    }

    #[test]
    fn a_repository_with_worktrees_open_closes_only_with_its_group() {
        let error = plan_close(&grouped(), 1, false, false).err().unwrap();
        assert_eq!(error.code, ErrorCode::WorkspaceGroupCloseRequired);
        let named = format!("{} (web)", ids::workspace_id(2));
        assert!(error.message.contains(&named), "{}", error.message);
        let plan = plan_close(&grouped(), 1, true, false).unwrap();
        assert_eq!(
            plan.vetoes,
            vec![veto::Closing::Session(1), veto::Closing::Session(2)]
        );
        assert_eq!(
            plan.lines(),
            vec!["kill-session -t $2", "kill-session -t $1"]
        );
        let closed = plan.answer_with("", &Snapshot::default()).unwrap();
        assert_eq!(closed.worktree_workspace_ids, vec![ids::workspace_id(2)]);
        // A worktree's own session closes alone.
        assert_eq!(
            plan_close(&grouped(), 2, false, false)
                .unwrap()
                .lines()
                .len(),
            1
        );
    }
}
