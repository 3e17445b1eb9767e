//! Panes: made, closed, named; `arrange` moves them about, `moving` into
//! other tabs and workspaces, `clear` clears them, `input` reads and types,
//! `report` takes an integration's word about the agent in one.

pub(crate) mod arrange;
pub(crate) mod clear;
pub(crate) mod input;
pub(crate) mod moving;
pub(crate) mod report;

use super::names::{self, Named};
use super::plan::Plan;
use super::unread;
use crate::envelope::{Result, TawError, answers};
use crate::hooks::veto;
use crate::model::{PaneInfo, Records};
use crate::tmux::arrange::{self as tmux_arrange, Spawn};
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::tmux::snapshot::{Pane, Snapshot};
use crate::tmux::{Batch, Tmux, commands as cmd, ids};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PaneList {
    pub panes: Vec<PaneInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PaneAnswer {
    pub pane: PaneInfo,
}

/// The same record, for `pane current`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PaneCurrent {
    pub pane: PaneInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PaneClosed {
    pub pane_id: String,
}

answers!(
    PaneList => "pane_list",
    PaneAnswer => "pane_info",
    PaneCurrent => "pane_current",
    PaneClosed => "ok",
);

pub(crate) fn list(snapshot: &Snapshot, session: Option<u32>) -> PaneList {
    PaneList {
        panes: Records::new(snapshot).panes(session),
    }
}

pub(crate) fn get(snapshot: &Snapshot, pane: &Pane) -> PaneAnswer {
    PaneAnswer {
        pane: Records::new(snapshot).pane(pane),
    }
}

/// Pane `%pane` in a fresh read, under session `$session`.
pub(crate) fn reread(tmux: &Tmux, pane: u32, session: u32) -> Result<PaneAnswer> {
    let snapshot = Snapshot::read(tmux)?;
    let row = snapshot
        .pane(pane, Some(session))
        .ok_or_else(|| TawError::not_found("the pane closed"))?;
    Ok(get(&snapshot, row))
}

/// Percent of the room a new pane takes, for the share the old one keeps.
pub(crate) fn new_pane_percent(ratio: f64) -> Result<u32> {
    if !(0.1..=0.9).contains(&ratio) {
        return Err(TawError::invalid_argument(format!(
            "--ratio {ratio} is out of range: 0.1 to 0.9"
        )));
    }
    Ok((((1.0 - ratio) * 100.0).round() as u32).clamp(10, 90))
}

/// What a split makes.
#[derive(Debug, Clone)]
pub(crate) struct NewPane {
    /// Beside the pane (right), else below it.
    pub right: bool,
    /// The share the pane being split keeps.
    pub ratio: f64,
    pub spawn: Spawn,
    /// Bring the new pane in front: its window, and it in its window (as
    /// herdr moves to the tab of a pane it focuses).
    pub focus: bool,
}

/// Splits `pane`: a new pane to its right or below it.
pub(crate) fn split(tmux: &Tmux, pane: &Pane, new: NewPane) -> Result<PaneAnswer> {
    plan_split(pane, new)?.apply(tmux)
}

pub(crate) fn plan_split(pane: &Pane, new: NewPane) -> Result<Plan<PaneAnswer>> {
    let percent = new_pane_percent(new.ratio)?;
    let split = tmux_arrange::split_window(
        &format!("%{}", pane.id),
        new.right,
        percent,
        &new.spawn,
        new.focus,
    );
    let mut batch = Batch::of(vec![split]);
    if new.focus {
        // Made its window's active pane by the split: its window in front.
        batch.push(cmd::select_window(&format!("@{}", pane.window)));
    }
    Ok(Plan::read_back(batch, |printed, after| {
        let (session, _, made) = tmux_arrange::parse_new_ids(printed)
            .ok_or_else(|| unread("which pane it made", printed))?;
        let row = after
            .pane(made, Some(session))
            .ok_or_else(|| TawError::tmux("the new pane closed at once"))?;
        Ok(get(after, row))
    }))
}

/// Closes the pane, once the veto lets it (`force`: see
/// [`veto::may_close`]).
pub(crate) fn close(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    force: bool,
) -> Result<PaneClosed> {
    // The last pane of a session's last tab ends the session.
    let windows = snapshot.windows_of(pane.session).count();
    if windows == 1 && snapshot.panes_of(pane.session, pane.window).count() == 1 {
        super::workspace::refuse_ending_a_group(snapshot, pane.session)?;
    }
    plan_close(pane)
        .vetoed(
            veto::Closing::Pane {
                session: pane.session,
                pane: pane.id,
            },
            force,
        )
        .apply(tmux)
}

/// Closes the pane without asking `pre_close`: a plugin's own pane, which
/// `plugin pane close` closes unasked (the spec's rule).
pub(crate) fn close_unasked(tmux: &Tmux, pane: &Pane) -> Result<PaneClosed> {
    plan_close(pane).apply(tmux)
}

/// The pane's close, the veto not asked.
pub(crate) fn plan_close(pane: &Pane) -> Plan<PaneClosed> {
    let kill = tmux_arrange::kill_pane(&format!("%{}", pane.id));
    let closed = PaneClosed {
        pane_id: ids::pane_id(pane.session, pane.id),
    };
    Plan::known(Batch::of(vec![kill]), closed)
}

/// Gives the pane a label (shown in its record), or with `None` takes it off.
pub(crate) fn rename(tmux: &Tmux, pane: &Pane, label: Option<&str>) -> Result<PaneAnswer> {
    let mut writes = OptionWrites::default();
    match label {
        Some(label) => {
            names::check(Named::Pane, label)?;
            writes.set(opt::LABEL, label);
        }
        None => {
            writes.unset(opt::LABEL);
        }
    }
    tmux_pane::write_options(tmux, pane.id, &writes)?;
    // Its watcher sees the new label now: pane.updated.
    crate::watch::nudge::wake(tmux, pane.id);
    reread(tmux, pane.id, pane.session)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::ErrorCode;
    use crate::tmux::snapshot::fixture;

    fn pane(id: u32) -> Pane {
        fixture::server().pane(id, None).unwrap().clone()
    }

    fn new_pane(right: bool, ratio: f64, focus: bool) -> NewPane {
        NewPane {
            right,
            ratio,
            spawn: Spawn::default(),
            focus,
        }
    }

    #[test]
    fn the_share_a_split_keeps_is_checked_and_turned_into_the_new_panes() {
        assert_eq!(new_pane_percent(0.5).unwrap(), 50);
        assert_eq!(new_pane_percent(0.7).unwrap(), 30);
        assert_eq!(new_pane_percent(0.1).unwrap(), 90);
        for bad in [0.05, 0.95, f64::NAN, -1.0] {
            let error = new_pane_percent(bad).err().unwrap();
            assert_eq!(error.code, ErrorCode::InvalidArgument);
        }
    }

    #[test]
    fn a_split_is_made_apart_unless_it_is_to_be_shown() {
        let plan = plan_split(&pane(2), new_pane(true, 0.7, false)).unwrap();
        assert_eq!(
            plan.lines(),
            vec![format!(
                "split-window -h -d -P -F {} -l 30% -t %2",
                tmux_arrange::NEW_IDS
            )]
        );
        let plan = plan_split(&pane(3), new_pane(false, 0.5, true)).unwrap();
        assert_eq!(
            plan.lines(),
            vec![
                format!(
                    "split-window -v -P -F {} -l 50% -t %3",
                    tmux_arrange::NEW_IDS
                ),
                "select-window -t @2".into(),
            ]
        );
        assert!(plan_split(&pane(1), new_pane(true, 0.95, false)).is_err());
    }

    #[test]
    fn a_split_answers_with_the_pane_tmux_made() {
        let mut after = fixture::server();
        after.panes.push(fixture::pane(1, 1, 5, "", "", ""));
        let made = plan_split(&pane(1), new_pane(true, 0.5, false))
            .unwrap()
            .answer_with("$1 @1 %5\n", &after)
            .unwrap();
        assert_eq!(made.pane.pane_id, ids::pane_id(1, 5));
        let gone = plan_split(&pane(1), new_pane(true, 0.5, false))
            .unwrap()
            .answer_with("$1 @1 %5\n", &fixture::server())
            .err()
            .unwrap();
        assert_eq!(gone.code, ErrorCode::TmuxError);
        let unread = plan_split(&pane(1), new_pane(true, 0.5, false))
            .unwrap()
            .answer_with("", &after)
            .err()
            .unwrap();
        assert_eq!(unread.code, ErrorCode::TmuxError);
    }

    #[test]
    fn a_close_kills_the_pane_and_answers_its_id() {
        let plan = plan_close(&pane(4));
        assert!(plan.vetoes.is_empty());
        assert_eq!(plan.lines(), vec!["kill-pane -t %4"]);
        let closed = plan.answer_with("", &Snapshot::default()).unwrap();
        assert_eq!(closed.pane_id, ids::pane_id(2, 4));
    }
}
