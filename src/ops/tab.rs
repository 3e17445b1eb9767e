//! Tabs: tmux windows, made, shown, renamed and closed.

use super::names::{self, Named};
use super::{navigate, unread};
use crate::envelope::{Result, TawError, answers};
use crate::hooks::veto;
use crate::model::{PaneInfo, Records, TabInfo};
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::snapshot::{Snapshot, Window};
use crate::tmux::{Tmux, ids};
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

/// The window `@window` of session `$session` in a fresh read.
fn reread(tmux: &Tmux, session: u32, window: u32) -> Result<TabAnswer> {
    let snapshot = Snapshot::read(tmux)?;
    let window = snapshot
        .window(session, window)
        .ok_or_else(|| TawError::not_found("the tab closed"))?;
    Ok(get(&snapshot, window))
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
pub(crate) fn create(tmux: &Tmux, new: NewTab) -> Result<TabCreated> {
    if let Some(label) = &new.label {
        names::check(Named::Tab, label)?;
    }
    let spawn = Spawn {
        cwd: new.cwd.clone(),
        env: new.env.clone(),
        command: new.command.clone(),
    };
    let output = tmux.run_one(arrange::new_window(
        &format!("${}", new.session),
        new.label.as_deref(),
        &spawn,
    ))?;
    let (session, window, pane) =
        arrange::parse_new_ids(&output).ok_or_else(|| unread("what it made", &output))?;
    if let Some(client) = &new.focus {
        navigate::to_window(tmux, window, client.as_deref())?;
    }
    let after = Snapshot::read(tmux)?;
    let closed = || TawError::tmux("the new tab closed at once");
    let records = Records::new(&after);
    let made = after.window(session, window).ok_or_else(closed)?;
    let pane = after.pane(pane, Some(session)).ok_or_else(closed)?;
    Ok(TabCreated {
        tab: records.tab(made),
        root_pane: records.pane(pane),
    })
}

/// Shows the window in its session, and `client` onto it.
pub(crate) fn focus(tmux: &Tmux, window: &Window, client: Option<&str>) -> Result<TabAnswer> {
    navigate::to_window(tmux, window.id, client)?;
    reread(tmux, window.session, window.id)
}

pub(crate) fn rename(tmux: &Tmux, window: &Window, name: &str) -> Result<TabAnswer> {
    names::check(Named::Tab, name)?;
    tmux.run_one(arrange::rename_window(&format!("@{}", window.id), name))?;
    reread(tmux, window.session, window.id)
}

/// Closes the window (its session too when it is the last), once the
/// veto lets it (`force`: see [`veto::may_close`]).
pub(crate) fn close(tmux: &Tmux, window: &Window, force: bool) -> Result<TabClosed> {
    veto::may_close(
        tmux,
        &veto::Closing::Window {
            session: window.session,
            window: window.id,
        },
        force,
    )?;
    tmux.run_one(arrange::kill_window(&format!("@{}", window.id)))?;
    Ok(TabClosed {
        tab_id: ids::tab_id(window.session, window.id),
        workspace_id: ids::workspace_id(window.session),
    })
}
