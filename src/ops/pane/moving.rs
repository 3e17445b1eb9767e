//! `pane move`: a pane into another tab, a tab of its own, or a workspace
//! of its own, with herdr's `pane_move` result.

use super::new_pane_percent;
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::model::{PaneInfo, Records, TabInfo, WorkspaceInfo};
use crate::ops::names::{self, Named};
use crate::ops::plan::Plan;
use crate::ops::{unread, window_of};
use crate::tmux::arrange::{self as tmux_arrange, Spawn};
use crate::tmux::snapshot::{Pane, Snapshot, Window};
use crate::tmux::{Batch, Cmd, Tmux, commands as cmd, ids};
use serde::Serialize;
use serde_json::Value;

/// Where a pane goes.
#[derive(Debug, Clone)]
pub(crate) enum Destination<'a> {
    /// Beside (`right`) or below a pane of another tab: `beside`, else the
    /// tab's active pane.
    Tab {
        window: &'a Window,
        right: bool,
        beside: Option<&'a Pane>,
        ratio: f64,
    },
    /// A tab of its own at the end of `$session`.
    NewTab { session: u32, label: Option<String> },
    /// A workspace of its own.
    NewWorkspace {
        label: Option<String>,
        tab_label: Option<String>,
    },
}

/// Where the pane was.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Previous {
    pub previous_pane_id: String,
    pub previous_workspace_id: String,
    pub previous_tab_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Refused {
    #[serde(flatten)]
    pub previous: Previous,
    pub changed: bool,
    pub reason: &'static str,
    pub pane: PaneInfo,
    pub target_layout: Value,
    pub focused_pane_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Moved {
    #[serde(flatten)]
    pub previous: Previous,
    pub changed: bool,
    pub pane: PaneInfo,
    pub source_layout: Option<Value>,
    pub target_layout: Value,
    pub created_workspace: Option<WorkspaceInfo>,
    pub created_tab: Option<TabInfo>,
    pub closed_workspace_id: Option<String>,
    pub closed_tab_id: Option<String>,
    pub focused_pane_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum MoveResult {
    Refused(Box<Refused>),
    Moved(Box<Moved>),
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct MoveAnswer {
    pub move_result: MoveResult,
}

answers!(MoveAnswer => "pane_move");

/// Where a moved pane landed, and what the move made for it.
struct Landed {
    session: u32,
    window: u32,
    created_workspace: Option<u32>,
    /// The tab made for it: its session and window.
    created_tab: Option<(u32, u32)>,
}

/// What a move makes for the pane, known before it is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Made {
    Nothing,
    Tab,
    Workspace,
}

/// Moves `pane`; with `focus`, shows it on that client (or with `Some(None)`
/// selects it with no client to move).
pub(crate) fn move_pane(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    destination: Destination,
    focus: Option<Option<String>>,
) -> Result<MoveAnswer> {
    let MovePlan { holder, plan } = plan_move(snapshot, pane, destination, focus)?;
    let holder = match holder {
        Some(batch) => Some(make_holder(tmux, &batch)?),
        None => None,
    };
    let (answer, landed) = match plan.apply(tmux) {
        Ok(done) => done,
        Err(error) => {
            if let Some(session) = holder {
                tidy_holder(tmux, pane.id, session, &error);
            }
            return Err(error);
        }
    };
    if let (MoveResult::Moved(moved), Some((session, window))) = (&answer.move_result, landed) {
        // A pane in another session: the pane roster (when kept) learns
        // it, so its close is told with the session it is in.
        if session != pane.session {
            crate::hooks::roster::refresh(tmux);
        }
        announce_move(tmux, moved, session, window, pane.id);
    }
    Ok(answer)
}

/// The move's answer, and where the pane landed (none when refused).
type Planned = (MoveAnswer, Option<(u32, u32)>);

/// A move: the session made first to hold a place for a new workspace's
/// pane (a call of its own, so that what hears of it has heard of its
/// placeholder before the pane comes), then the move itself.
pub(crate) struct MovePlan {
    holder: Option<Batch>,
    plan: Plan<Planned>,
}

pub(crate) fn plan_move(
    snapshot: &Snapshot,
    pane: &Pane,
    destination: Destination,
    focus: Option<Option<String>>,
) -> Result<MovePlan> {
    let source_window = window_of(snapshot, pane)?;
    let previous = Previous {
        previous_pane_id: ids::pane_id(pane.session, pane.id),
        previous_workspace_id: ids::workspace_id(pane.session),
        previous_tab_id: ids::tab_id(pane.session, pane.window),
    };
    // The session it goes to; a new workspace's is not known yet.
    let mut holder = None;
    let (mut batch, made, into) = match destination {
        Destination::Tab {
            window,
            right,
            beside,
            ratio,
        } => match join_tab(
            snapshot,
            pane,
            window,
            (right, beside, ratio),
            focus.is_some(),
        )? {
            Ok(join) => (Batch::of(vec![join]), Made::Nothing, Some(window.session)),
            Err(reason) => {
                let refused = refused(snapshot, pane, source_window, previous, reason);
                return Ok(MovePlan {
                    holder: None,
                    plan: Plan::known(Batch::new(), (refused, None)),
                });
            }
        },
        Destination::NewTab { session, label } => {
            if let Some(label) = &label {
                names::check(Named::Tab, label)?;
            }
            let into = format!("${session}");
            let broken = tmux_arrange::break_pane(&target(pane), &into, label.as_deref());
            (Batch::of(vec![broken]), Made::Tab, Some(session))
        }
        Destination::NewWorkspace { label, tab_label } => {
            let (made_first, moved) = break_to_workspace(snapshot, pane, label, tab_label)?;
            holder = Some(made_first);
            (moved, Made::Workspace, None)
        }
    };
    if let Some(client) = &focus {
        batch.extend(show_moved(pane, client.as_deref()));
    }
    let source = (
        source_window.clone(),
        snapshot.windows_of(pane.session).count(),
    );
    let pane = pane.clone();
    let plan = Plan::read_back(batch, move |_, after| {
        // Where the pane is now says where it went (break-pane prints
        // nothing when it moves a window's only pane).
        let now = match into {
            Some(session) => after.pane(pane.id, Some(session)),
            None => after
                .panes
                .iter()
                .find(|now| now.id == pane.id && now.session != pane.session),
        };
        let now = now.ok_or_else(|| TawError::tmux("the pane is not where it was moved"))?;
        let (session, window) = (now.session, now.window);
        let landed = Landed {
            session,
            window,
            created_workspace: (made == Made::Workspace).then_some(session),
            created_tab: (made != Made::Nothing).then_some((session, window)),
        };
        let moved = moved_record(after, &pane, &source.0, source.1, previous, &landed)?;
        let answer = MoveAnswer {
            move_result: MoveResult::Moved(Box::new(moved)),
        };
        Ok((answer, Some((session, window))))
    });
    Ok(MovePlan { holder, plan })
}

fn target(pane: &Pane) -> String {
    format!("%{}", pane.id)
}

/// herdr's refusal: nothing moved, the pane and its tab as they are.
fn refused(
    snapshot: &Snapshot,
    pane: &Pane,
    source_window: &Window,
    previous: Previous,
    reason: &'static str,
) -> MoveAnswer {
    let records = Records::new(snapshot);
    MoveAnswer {
        move_result: MoveResult::Refused(Box::new(Refused {
            previous,
            changed: false,
            reason,
            pane: records.pane(pane),
            target_layout: records.pane_layout(source_window),
            focused_pane_id: snapshot
                .active_pane(pane.session, pane.window)
                .map(|p| ids::pane_id(pane.session, p.id)),
        })),
    }
}

/// The join beside (`right`) or below a pane of another tab, by `ratio`;
/// herdr's reason when the tab is its own or zoomed.
fn join_tab(
    snapshot: &Snapshot,
    pane: &Pane,
    window: &Window,
    (right, beside, ratio): (bool, Option<&Pane>, f64),
    select: bool,
) -> Result<std::result::Result<Cmd, &'static str>> {
    if window.id == pane.window {
        return Ok(Err("same_tab"));
    }
    if window.zoomed {
        return Ok(Err("zoomed_tab"));
    }
    let beside = match beside {
        Some(beside) if beside.window != window.id => {
            return Err(TawError::invalid_argument("--target-pane is not in --tab"));
        }
        Some(beside) => beside,
        None => snapshot
            .active_pane(window.session, window.id)
            .ok_or_else(|| TawError::not_found("the tab has no pane"))?,
    };
    let percent = new_pane_percent(ratio)?;
    Ok(Ok(tmux_arrange::join_pane(
        &target(pane),
        &target(beside),
        right,
        percent,
        select,
    )))
}

/// The pane broken out into a workspace of its own: a new session made
/// first, whose placeholder window goes once the pane is there.
fn break_to_workspace(
    snapshot: &Snapshot,
    pane: &Pane,
    label: Option<String>,
    tab_label: Option<String>,
) -> Result<(Batch, Batch)> {
    if let Some(label) = &label {
        names::check(Named::Workspace, label)?;
    }
    let name = names::free_session_name(snapshot, label.as_deref().unwrap_or("workspace"));
    if let Some(tab_label) = &tab_label {
        names::check(Named::Tab, tab_label)?;
    }
    let session = format!("={name}");
    let holder = Batch::of(vec![
        tmux_arrange::new_session(Some(&name), &Spawn::default(), None),
        // Its first window only holds a place until the pane is there:
        // marked so in the same call, so its creation and close are told
        // as nothing.
        crate::tmux::roster::mark_placeholder(&format!("{session}:")),
    ]);
    let moved = Batch::of(vec![
        tmux_arrange::break_pane(&target(pane), &session, tab_label.as_deref()),
        tmux_arrange::kill_other_windows(&target(pane)),
    ]);
    Ok((holder, moved))
}

/// Makes the session that holds a place for the pane; its id.
fn make_holder(tmux: &Tmux, holder: &Batch) -> Result<u32> {
    let output = tmux.run(holder)?;
    tmux_arrange::parse_new_ids(&output)
        .map(|(session, _, _)| session)
        .ok_or_else(|| unread("what it made", &output))
}

/// After a move into a new workspace failed: the session made for it goes,
/// unless the pane got there (only the placeholder's kill failed, it had
/// gone), or tmux did not answer (it may still do both; nothing is undone).
fn tidy_holder(tmux: &Tmux, pane: u32, session: u32, error: &TawError) {
    if error.code == ErrorCode::Timeout {
        return;
    }
    let pane_there = Snapshot::read(tmux)
        .map(|after| after.pane(pane, Some(session)).is_some())
        .unwrap_or(true);
    if !pane_there {
        // Tidying only: the move's own error is what is answered.
        let _ = tmux.run_one(tmux_arrange::kill_session(&format!("${session}")));
    }
}

/// The moved pane in front: its window and the pane selected, and the
/// client, if one is named, moved onto it.
fn show_moved(pane: &Pane, client: Option<&str>) -> Vec<Cmd> {
    let mut shown = vec![
        cmd::select_window(&target(pane)),
        cmd::select_pane(&target(pane)),
    ];
    if let Some(client) = client {
        shown.push(cmd::switch_client(client, &target(pane)));
    }
    shown
}

/// herdr's record of a move, read after it: the pane, both layouts, and
/// what the move made and closed.
fn moved_record(
    after: &Snapshot,
    pane: &Pane,
    source_window: &Window,
    source_session_windows: usize,
    previous: Previous,
    landed: &Landed,
) -> Result<Moved> {
    let Landed {
        session, window, ..
    } = *landed;
    let records = Records::new(after);
    let moved = after
        .pane(pane.id, Some(session))
        .ok_or_else(|| TawError::tmux("the pane is not where it was moved"))?;
    let target_window = after
        .window(session, window)
        .ok_or_else(|| TawError::tmux("the target tab is gone"))?;
    let source_left = after.window(source_window.session, source_window.id);
    let source_session_left = after.session(pane.session).is_some();
    let closed_workspace = !source_session_left
        || (source_session_windows == 1
            && source_left.is_none()
            && after.session(pane.session).is_none());
    Ok(Moved {
        previous,
        changed: true,
        pane: records.pane(moved),
        source_layout: source_left.map(|w| records.pane_layout(w)),
        target_layout: records.pane_layout(target_window),
        created_workspace: landed
            .created_workspace
            .and_then(|s| records.workspace_by_id(s)),
        created_tab: landed
            .created_tab
            .and_then(|(s, w)| after.window(s, w))
            .map(|w| records.tab(w)),
        closed_workspace_id: closed_workspace.then(|| ids::workspace_id(pane.session)),
        closed_tab_id: source_left
            .is_none()
            .then(|| ids::tab_id(pane.session, pane.window)),
        focused_pane_id: after
            .active_pane(session, window)
            .map(|p| ids::pane_id(session, p.id)),
    })
}

/// herdr's pane.moved: where the pane was, and what the move made and
/// closed. Only a move taw makes is told: tmux has no hook that names a
/// pane a hand `join-pane` moved.
fn announce_move(tmux: &Tmux, moved: &Moved, session: u32, window: u32, pane: u32) {
    let mut occurrence = crate::events::Occurrence::new(crate::events::Event::PaneMoved)
        .session(Some(session))
        .window(Some(window))
        .pane(Some(pane));
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(moved) {
        for name in [
            "previous_pane_id",
            "previous_workspace_id",
            "previous_tab_id",
            "created_workspace",
            "created_tab",
            "closed_workspace_id",
            "closed_tab_id",
        ] {
            if let Some(value) = fields.get(name).filter(|v| !v.is_null()) {
                occurrence = occurrence.data(name, value.clone());
            }
        }
    }
    crate::hooks::announce_now(tmux, vec![occurrence]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture;

    fn pane(snapshot: &Snapshot, id: u32) -> Pane {
        snapshot.pane(id, None).unwrap().clone()
    }

    fn into_tab<'a>(window: &'a Window, beside: Option<&'a Pane>) -> Destination<'a> {
        Destination::Tab {
            window,
            right: true,
            beside,
            ratio: 0.5,
        }
    }

    fn moved(plan: MovePlan, after: &Snapshot) -> Moved {
        match plan.plan.answer_with("", after).unwrap().0.move_result {
            MoveResult::Moved(moved) => *moved,
            MoveResult::Refused(refused) => panic!("refused: {}", refused.reason),
        }
    }

    fn reason(plan: MovePlan) -> &'static str {
        assert!(plan.plan.lines().is_empty() && plan.holder.is_none());
        match plan
            .plan
            .answer_with("", &Snapshot::default())
            .unwrap()
            .0
            .move_result
        {
            MoveResult::Refused(refused) => refused.reason,
            MoveResult::Moved(_) => panic!("moved"),
        }
    }

    #[test]
    fn a_move_into_its_own_or_a_zoomed_tab_is_refused_with_herdrs_reason() {
        let s = fixture::server();
        let own = into_tab(s.window(1, 1).unwrap(), None);
        assert_eq!(
            reason(plan_move(&s, &pane(&s, 1), own, None).unwrap()),
            "same_tab"
        );
        let mut zoomed = s.window(1, 2).unwrap().clone();
        zoomed.zoomed = true;
        let plan = plan_move(&s, &pane(&s, 1), into_tab(&zoomed, None), None).unwrap();
        assert_eq!(reason(plan), "zoomed_tab");
    }

    #[test]
    fn a_move_beside_a_pane_of_another_tab_is_refused_as_bad_input() {
        let s = fixture::server();
        let far = pane(&s, 4);
        let elsewhere = into_tab(s.window(1, 2).unwrap(), Some(&far));
        let error = plan_move(&s, &pane(&s, 1), elsewhere, None).err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn a_move_into_a_tab_joins_its_active_pane_and_shows_it_when_asked() {
        let s = fixture::server();
        let plan = plan_move(
            &s,
            &pane(&s, 2),
            into_tab(s.window(1, 2).unwrap(), None),
            Some(Some("/dev/pts/1".into())),
        )
        .unwrap();
        assert!(plan.holder.is_none());
        assert_eq!(
            plan.plan.lines(),
            vec![
                "join-pane -h -l 50% -s %2 -t %3",
                "select-window -t %2",
                "select-pane -t %2",
                "switch-client -c /dev/pts/1 -t %2",
            ]
        );
        let mut after = fixture::server();
        after.panes[1].window = 2;
        let moved = moved(plan, &after);
        assert_eq!(moved.pane.tab_id, ids::tab_id(1, 2));
        assert!(moved.created_tab.is_none() && moved.closed_tab_id.is_none());
        assert!(moved.source_layout.is_some());
    }

    #[test]
    fn a_move_to_a_new_tab_breaks_the_pane_out_and_names_what_it_made() {
        let s = fixture::server();
        let destination = Destination::NewTab {
            session: 2,
            label: Some("logs".into()),
        };
        let plan = plan_move(&s, &pane(&s, 3), destination, None).unwrap();
        assert_eq!(
            plan.plan.lines(),
            vec![format!(
                "break-pane -d -P -F {} -s %3 -t $2: -n logs",
                tmux_arrange::NEW_IDS
            )]
        );
        // The pane's tab was its own: it closed with the move.
        let mut after = fixture::server();
        after.windows.retain(|w| w.id != 2);
        after.windows.push(fixture::window(2, 8, "logs"));
        after.panes[2].session = 2;
        after.panes[2].window = 8;
        let moved = moved(plan, &after);
        assert_eq!(moved.created_tab.unwrap().tab_id, ids::tab_id(2, 8));
        assert_eq!(moved.closed_tab_id, Some(ids::tab_id(1, 2)));
        assert!(moved.closed_workspace_id.is_none());
        let bad = Destination::NewTab {
            session: 2,
            label: Some("a\nb".into()),
        };
        assert!(plan_move(&s, &pane(&s, 3), bad, None).is_err());
    }

    #[test]
    fn a_move_to_a_new_workspace_makes_its_holder_first() {
        let s = fixture::server();
        let destination = Destination::NewWorkspace {
            label: Some("api".into()),
            tab_label: None,
        };
        let plan = plan_move(&s, &pane(&s, 4), destination, None).unwrap();
        let holder = plan.holder.as_ref().unwrap().commands();
        assert!(holder[0].words().join(" ").contains("-s api-2"));
        assert_eq!(
            holder[1].words()[..4],
            ["set-option", "-gF", "-t", "=api-2:"]
        );
        assert_eq!(
            plan.plan.lines(),
            vec![
                format!(
                    "break-pane -d -P -F {} -s %4 -t =api-2:",
                    tmux_arrange::NEW_IDS
                ),
                "kill-window -a -t %4".into(),
            ]
        );
        // `$2` had only this pane: it closed.
        let mut after = fixture::server();
        after.sessions.retain(|w| w.id != 2);
        after.sessions.push(fixture::session(5, "api-2"));
        after.windows.retain(|w| w.id != 3);
        after.windows.push(fixture::window(5, 6, "zsh"));
        after.panes[3].session = 5;
        after.panes[3].window = 6;
        let moved = moved(plan, &after);
        assert_eq!(
            moved.created_workspace.unwrap().workspace_id,
            ids::workspace_id(5)
        );
        assert_eq!(moved.closed_workspace_id, Some(ids::workspace_id(2)));
        assert_eq!(moved.focused_pane_id, Some(ids::pane_id(5, 4)));
    }

    #[test]
    fn a_pane_not_where_it_was_moved_is_an_error() {
        let s = fixture::server();
        let destination = Destination::NewWorkspace {
            label: None,
            tab_label: Some("t".into()),
        };
        let plan = plan_move(&s, &pane(&s, 4), destination, None).unwrap();
        let error = plan.plan.answer_with("", &s).err().unwrap();
        assert_eq!(error.code, ErrorCode::TmuxError);
    }
}
