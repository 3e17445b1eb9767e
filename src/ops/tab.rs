//! Tabs: tmux windows, made, shown, renamed and closed.

use super::names::{self, Named};
use super::plan::Plan;
use super::{navigate, unread};
use crate::envelope::{Result, TawError, answers};
use crate::hooks::veto;
use crate::model::{PaneInfo, Records, TabInfo};
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::commands as cmd;
use crate::tmux::snapshot::{Snapshot, Window};
use crate::tmux::{Batch, Tmux, ids};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TabList {
    pub tabs: Vec<TabInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TabAnswer {
    pub tab: TabInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TabCreated {
    pub tab: TabInfo,
    pub root_pane: PaneInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TabClosed {
    pub tab_id: String,
    pub workspace_id: String,
}

answers!(
    TabList => "tab_list",
    TabAnswer => "tab_info",
    TabCreated => "tab_created",
    TabClosed => "ok",
);

pub(crate) fn list(snapshot: &Snapshot, session: Option<u32>) -> TabList {
    TabList {
        tabs: Records::new(snapshot).tabs(session),
    }
}

pub(crate) fn get(snapshot: &Snapshot, window: &Window) -> TabAnswer {
    TabAnswer {
        tab: Records::new(snapshot).tab(window),
    }
}

/// Answers with window `@window` of session `$session` as the server has
/// it after.
fn read_back(batch: Batch, session: u32, window: u32) -> Plan<TabAnswer> {
    Plan::read_back(batch, move |_, after| {
        let window = after
            .window(session, window)
            .ok_or_else(|| TawError::not_found("the tab closed"))?;
        Ok(get(after, window))
    })
}

/// What a new tab is made of.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewTab {
    pub session: u32,
    pub cwd: Option<String>,
    pub label: Option<String>,
    pub env: Vec<(String, String)>,
    /// The shell line its pane runs (default: the user's shell).
    pub command: Option<String>,
    /// The client to show it on; `Some(None)` selects it with no client.
    pub focus: Option<Option<String>>,
}

/// Makes a window with one pane at the end of a session.
pub(crate) fn create(tmux: &Tmux, snapshot: &Snapshot, new: NewTab) -> Result<TabCreated> {
    plan_create(snapshot, new)?.apply(tmux)
}

pub(crate) fn plan_create(snapshot: &Snapshot, new: NewTab) -> Result<Plan<TabCreated>> {
    if let Some(label) = &new.label {
        names::check(Named::Tab, label)?;
    }
    let spawn = Spawn {
        cwd: new.cwd,
        env: new.env,
        command: new.command,
    };
    let session = format!("${}", new.session);
    // Shown, it is made its session's current window as it is made.
    let mut batch = Batch::of(vec![arrange::new_window(
        &session,
        snapshot.last_window(new.session),
        new.label.as_deref(),
        &spawn,
        new.focus.is_some(),
    )]);
    if let Some(client) = &new.focus {
        batch.extend(navigate::switch_unless_there(
            snapshot,
            client.as_deref(),
            new.session,
            &session,
        ));
    }
    Ok(Plan::read_back(batch, |printed, after| {
        let (session, window, pane) =
            arrange::parse_new_ids(printed).ok_or_else(|| unread("what it made", printed))?;
        let closed = || TawError::tmux("the new tab closed at once");
        let records = Records::new(after);
        let made = after.window(session, window).ok_or_else(closed)?;
        let pane = after.pane(pane, Some(session)).ok_or_else(closed)?;
        Ok(TabCreated {
            tab: records.tab(made),
            root_pane: records.pane(pane),
        })
    }))
}

/// Shows the window in its session, and `client` onto it.
pub(crate) fn focus(
    tmux: &Tmux,
    snapshot: &Snapshot,
    window: &Window,
    client: Option<&str>,
) -> Result<TabAnswer> {
    plan_focus(snapshot, window, client).apply(tmux)
}

pub(crate) fn plan_focus(
    snapshot: &Snapshot,
    window: &Window,
    client: Option<&str>,
) -> Plan<TabAnswer> {
    // Named with its session: a bare `@N` of a window in sessions grouped
    // (or linked) lets tmux pick whichever session, another person's.
    let target = format!("${}:@{}", window.session, window.id);
    let mut batch = Batch::of(vec![cmd::select_window(&target)]);
    batch.extend(navigate::switch_unless_there(
        snapshot,
        client,
        window.session,
        &target,
    ));
    read_back(batch, window.session, window.id)
}

pub(crate) fn rename(tmux: &Tmux, window: &Window, name: &str) -> Result<TabAnswer> {
    plan_rename(window, name)?.apply(tmux)
}

pub(crate) fn plan_rename(window: &Window, name: &str) -> Result<Plan<TabAnswer>> {
    names::check(Named::Tab, name)?;
    let rename = arrange::rename_window(&format!("@{}", window.id), name);
    Ok(read_back(
        Batch::of(vec![rename]),
        window.session,
        window.id,
    ))
}

/// Closes the window (its session too when it is the last), once the
/// veto lets it (`force`: see [`veto::may_close`]).
pub(crate) fn close(
    tmux: &Tmux,
    snapshot: &Snapshot,
    window: &Window,
    force: bool,
) -> Result<TabClosed> {
    plan_close(snapshot, window, force)?.apply(tmux)
}

/// The close of a session's last tab ends the session: refused while it
/// heads a group of worktree sessions, as `workspace close` refuses it.
pub(crate) fn plan_close(
    snapshot: &Snapshot,
    window: &Window,
    force: bool,
) -> Result<Plan<TabClosed>> {
    if snapshot.windows_of(window.session).count() == 1 {
        super::workspace::refuse_ending_a_group(snapshot, window.session)?;
    }
    let closed = TabClosed {
        tab_id: ids::tab_id(window.session, window.id),
        workspace_id: ids::workspace_id(window.session),
    };
    let kill = arrange::close_tab(window.session, window.id);
    Ok(Plan::known(Batch::of(vec![kill]), closed).vetoed(
        veto::Closing::Window {
            session: window.session,
            window: window.id,
        },
        force,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::ErrorCode;
    use crate::tmux::snapshot::fixture;

    fn new_in(session: u32) -> NewTab {
        NewTab {
            session,
            ..NewTab::default()
        }
    }

    fn window(snapshot: &Snapshot, session: u32, id: u32) -> Window {
        snapshot.window(session, id).unwrap().clone()
    }

    #[test]
    fn a_new_tab_is_made_apart_at_the_end_of_its_workspace() {
        let mut new = new_in(1);
        new.label = Some("logs #1".into());
        new.cwd = Some("/var/log".into());
        new.env = vec![("A".into(), "b c".into())];
        new.command = Some("tail -f x".into());
        let lines = plan_create(&fixture::server(), new).unwrap().lines();
        assert_eq!(
            lines,
            vec![format!(
                "new-window -d -P -F {} -a -t $1:@2 -n logs ##1 -c /var/log -e A=b c -- tail -f x",
                arrange::NEW_IDS
            )]
        );
    }

    #[test]
    fn a_new_tab_shown_is_made_current_and_the_client_switched_if_elsewhere() {
        let shown = |session, client: Option<&str>| {
            let mut new = new_in(session);
            new.focus = Some(client.map(String::from));
            plan_create(&fixture::server(), new).unwrap().lines()
        };
        let selected = shown(1, None);
        assert_eq!(selected.len(), 1);
        assert!(selected[0].starts_with("new-window -P"), "{selected:?}");
        assert_eq!(shown(1, Some("/dev/pts/1")).len(), 1);
        assert_eq!(
            shown(2, Some("/dev/pts/1"))[1],
            "switch-client -c /dev/pts/1 -t $2"
        );
    }

    #[test]
    fn a_tab_label_the_names_rule_refuses_makes_nothing() {
        let mut new = new_in(1);
        new.label = Some("a\tb".into());
        let error = plan_create(&fixture::server(), new).err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
        let snapshot = fixture::server();
        let error = plan_rename(&window(&snapshot, 1, 2), "").err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn a_new_tab_answers_with_what_tmux_made() {
        let mut after = fixture::server();
        after.windows.push(fixture::window(1, 7, "logs"));
        after.panes.push(fixture::pane(1, 7, 8, "", "", ""));
        let made = plan_create(&fixture::server(), new_in(1))
            .unwrap()
            .answer_with("$1 @7 %8\n", &after)
            .unwrap();
        assert_eq!(made.tab.tab_id, ids::tab_id(1, 7));
        assert_eq!(made.root_pane.pane_id, ids::pane_id(1, 8));
        let gone = plan_create(&fixture::server(), new_in(1))
            .unwrap()
            .answer_with("$1 @7 %8\n", &fixture::server())
            .err()
            .unwrap();
        assert_eq!(gone.code, ErrorCode::TmuxError);
    }

    #[test]
    fn focus_selects_the_tab_and_switches_a_client_elsewhere() {
        let snapshot = fixture::server();
        let here = plan_focus(&snapshot, &window(&snapshot, 1, 2), Some("/dev/pts/1"));
        assert_eq!(here.lines(), vec!["select-window -t $1:@2"]);
        let answer = here.answer_with("", &snapshot).unwrap();
        assert_eq!(answer.tab.tab_id, ids::tab_id(1, 2));
        let there = plan_focus(&snapshot, &window(&snapshot, 2, 3), Some("/dev/pts/1"));
        assert_eq!(
            there.lines(),
            vec![
                "select-window -t $2:@3",
                "switch-client -c /dev/pts/1 -t $2:@3"
            ]
        );
        let closed = there.answer_with("", &Snapshot::default()).err().unwrap();
        assert_eq!(closed.code, ErrorCode::NotFound);
    }

    #[test]
    fn rename_writes_the_name_as_given() {
        let snapshot = fixture::server();
        let plan = plan_rename(&window(&snapshot, 1, 2), "build #2").unwrap();
        assert_eq!(plan.lines(), vec!["rename-window -t @2 -- build ##2"]);
    }

    #[test]
    fn close_asks_the_veto_about_the_window_then_kills_it() {
        let snapshot = fixture::server();
        let plan = plan_close(&snapshot, &window(&snapshot, 1, 2), false).unwrap();
        assert_eq!(
            plan.vetoes,
            vec![veto::Closing::Window {
                session: 1,
                window: 2
            }]
        );
        assert!(!plan.force);
        assert_eq!(plan.lines(), vec!["unlink-window -k -t $1:@2"]);
        let closed = plan.answer_with("", &Snapshot::default()).unwrap();
        assert_eq!(closed.tab_id, ids::tab_id(1, 2));
        assert_eq!(closed.workspace_id, ids::workspace_id(1));
    }
}
