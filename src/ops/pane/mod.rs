//! Panes: made, closed, named; `arrange` moves them about, `moving` into
//! other tabs and workspaces, `clear` clears them, `input` reads and types,
//! `report` takes an integration's word about the agent in one.

pub(crate) mod arrange;
pub(crate) mod clear;
pub(crate) mod input;
pub(crate) mod moving;
pub(crate) mod report;

use super::names::{self, Named};
use super::unread;
use crate::envelope::{Result, TawError, answers};
use crate::hooks::veto;
use crate::model::{PaneInfo, Records};
use crate::tmux::arrange::{self as tmux_arrange, Spawn};
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::tmux::snapshot::{Pane, Snapshot};
use crate::tmux::{Tmux, commands as cmd, ids};
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
    let percent = new_pane_percent(new.ratio)?;
    let output = tmux.run_one(tmux_arrange::split_window(
        &format!("%{}", pane.id),
        new.right,
        percent,
        &new.spawn,
    ))?;
    let (session, _, made) = tmux_arrange::parse_new_ids(&output)
        .ok_or_else(|| unread("which pane it made", &output))?;
    if new.focus {
        let made = format!("%{made}");
        tmux.run(&crate::tmux::Batch::of(vec![
            cmd::select_window(&made),
            cmd::select_pane(&made),
        ]))?;
    }
    reread(tmux, made, session).map_err(|_| TawError::tmux("the new pane closed at once"))
}

/// Closes the pane, once the veto lets it (`force`: see
/// [`veto::may_close`]).
pub(crate) fn close(tmux: &Tmux, pane: &Pane, force: bool) -> Result<PaneClosed> {
    veto::may_close(
        tmux,
        &veto::Closing::Pane {
            session: pane.session,
            pane: pane.id,
        },
        force,
    )?;
    close_unasked(tmux, pane)
}

/// Closes the pane without asking `pre_close`: a plugin's own pane, which
/// `plugin pane close` closes unasked (the spec's rule).
pub(crate) fn close_unasked(tmux: &Tmux, pane: &Pane) -> Result<PaneClosed> {
    tmux.run_one(tmux_arrange::kill_pane(&format!("%{}", pane.id)))?;
    Ok(PaneClosed {
        pane_id: ids::pane_id(pane.session, pane.id),
    })
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
