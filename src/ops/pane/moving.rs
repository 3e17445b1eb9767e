//! `pane move`: a pane into another tab, a tab of its own, or a workspace
//! of its own, with herdr's `pane_move` result.

use super::new_pane_percent;
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::model::{PaneInfo, Records, TabInfo, WorkspaceInfo};
use crate::ops::names::{self, Named};
use crate::ops::{unread, window_of};
use crate::tmux::arrange::{self as tmux_arrange, Spawn};
use crate::tmux::snapshot::{Pane, Snapshot, Window};
use crate::tmux::{Batch, Tmux, commands as cmd, ids};
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

/// The window pane `%pane` is in now, in session `$session`.
fn window_now(tmux: &Tmux, pane: u32, session: u32) -> Result<u32> {
    Snapshot::read(tmux)?
        .pane(pane, Some(session))
        .map(|p| p.window)
        .ok_or_else(|| TawError::tmux(format!("pane %{pane} is not where it was moved")))
}

/// Where a moved pane landed, and what the move made for it.
struct Landed {
    session: u32,
    window: u32,
    created_workspace: Option<u32>,
    /// The tab made for it: its session and window.
    created_tab: Option<(u32, u32)>,
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
    let source_window = window_of(snapshot, pane)?;
    let source_session_windows = snapshot.windows_of(pane.session).count();
    let previous = Previous {
        previous_pane_id: ids::pane_id(pane.session, pane.id),
        previous_workspace_id: ids::workspace_id(pane.session),
        previous_tab_id: ids::tab_id(pane.session, pane.window),
    };
    let landed = match destination {
        Destination::Tab {
            window,
            right,
            beside,
            ratio,
        } => {
            let joined = join_tab(
                tmux,
                snapshot,
                pane,
                window,
                (right, beside, ratio),
                focus.is_some(),
            )?;
            match joined {
                Ok(landed) => landed,
                Err(reason) => return Ok(refused(snapshot, pane, source_window, previous, reason)),
            }
        }
        Destination::NewTab { session, label } => break_to_tab(tmux, pane, session, label)?,
        Destination::NewWorkspace { label, tab_label } => {
            break_to_workspace(tmux, snapshot, pane, label, tab_label)?
        }
    };
    if let Some(client) = &focus {
        show_moved(tmux, pane, landed.window, client.as_deref())?;
    }
    // A pane in another session: the pane roster (when kept) learns it,
    // so its close is told with the session it is in.
    if landed.session != pane.session {
        crate::hooks::roster::refresh(tmux);
    }
    let after = Snapshot::read(tmux)?;
    let moved = moved_record(
        &after,
        pane,
        source_window,
        source_session_windows,
        previous,
        &landed,
    )?;
    announce_move(tmux, &moved, landed.session, landed.window, pane.id);
    Ok(MoveAnswer {
        move_result: MoveResult::Moved(Box::new(moved)),
    })
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

/// The pane joined beside (`right`) or below a pane of another tab, by
/// `ratio`; herdr's reason when the tab is its own or zoomed.
fn join_tab(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    window: &Window,
    (right, beside, ratio): (bool, Option<&Pane>, f64),
    select: bool,
) -> Result<std::result::Result<Landed, &'static str>> {
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
    tmux.run_one(tmux_arrange::join_pane(
        &target(pane),
        &target(beside),
        right,
        percent,
        select,
    ))?;
    Ok(Ok(Landed {
        session: window.session,
        window: window.id,
        created_workspace: None,
        created_tab: None,
    }))
}

/// The pane broken out into a tab of its own at the end of `$session`.
fn break_to_tab(tmux: &Tmux, pane: &Pane, session: u32, label: Option<String>) -> Result<Landed> {
    if let Some(label) = &label {
        names::check(Named::Tab, label)?;
    }
    tmux.run_one(tmux_arrange::break_pane(
        &target(pane),
        &format!("${session}"),
        label.as_deref(),
    ))?;
    // break-pane prints nothing when it moves a window's only pane:
    // the pane's id says where it went.
    let window = window_now(tmux, pane.id, session)?;
    Ok(Landed {
        session,
        window,
        created_workspace: None,
        created_tab: Some((session, window)),
    })
}

/// The pane broken out into a workspace of its own: a new session, whose
/// placeholder window goes once the pane is there.
fn break_to_workspace(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    label: Option<String>,
    tab_label: Option<String>,
) -> Result<Landed> {
    if let Some(label) = &label {
        names::check(Named::Workspace, label)?;
    }
    let name = names::free_session_name(snapshot, label.as_deref().unwrap_or("workspace"));
    if let Some(tab_label) = &tab_label {
        names::check(Named::Tab, tab_label)?;
    }
    // Its first window only holds a place until the pane is there: marked
    // so in the same call, so its creation and close are told as nothing.
    let output = tmux.run(&Batch::of(vec![
        tmux_arrange::new_session(Some(&name), &Spawn::default(), None),
        crate::tmux::roster::mark_placeholder(&format!("={name}:")),
    ]))?;
    let (session, placeholder, _) =
        tmux_arrange::parse_new_ids(&output).ok_or_else(|| unread("what it made", &output))?;
    let moved = tmux.run(&Batch::of(vec![
        tmux_arrange::break_pane(&target(pane), &format!("${session}"), tab_label.as_deref()),
        tmux_arrange::kill_window(&format!("@{placeholder}")),
    ]));
    match moved {
        Ok(_) => {}
        // tmux did not answer: it may still do both; nothing is undone.
        Err(error) if error.code == ErrorCode::Timeout => return Err(error),
        Err(error) => {
            let pane_there = Snapshot::read(tmux)
                .map(|after| after.pane(pane.id, Some(session)).is_some())
                .unwrap_or(true);
            // The pane got there and only the placeholder's kill
            // failed (it had gone): the move is made. Otherwise the
            // session made for it goes.
            if !pane_there {
                // Tidying only: the move's own error is what is answered.
                let _ = tmux.run_one(tmux_arrange::kill_session(&format!("${session}")));
                return Err(error);
            }
        }
    }
    let window = window_now(tmux, pane.id, session)?;
    Ok(Landed {
        session,
        window,
        created_workspace: Some(session),
        created_tab: Some((session, window)),
    })
}

/// The moved pane in front: its window and the pane selected, and the
/// client, if one is named, moved onto it.
fn show_moved(tmux: &Tmux, pane: &Pane, window: u32, client: Option<&str>) -> Result<()> {
    let mut batch = Batch::new();
    batch.push(cmd::select_window(&format!("@{window}")));
    batch.push(cmd::select_pane(&target(pane)));
    if let Some(client) = client {
        batch.push(cmd::switch_client(client, &target(pane)));
    }
    tmux.run(&batch)?;
    Ok(())
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
