//! Events from tmux's hooks: taw installs, for each event something
//! listens to, an entry on the tmux hook behind it that runs `taw hooks
//! tmux <hook>` with the ids tmux gives (through `#{q:...}`). Here each
//! tmux hook becomes its events, which are delivered in this process: tmux
//! started it with `run-shell -b` and waits for nothing.

use super::{Listeners, roster};
use crate::events::{Event, Occurrence};
use crate::tmux::Tmux;

/// What a tmux hook's entry passes: the ids of what the hook is about.
#[derive(Debug, Clone, Default)]
pub(crate) struct HookFire {
    pub hook: String,
    pub session: Option<u32>,
    pub window: Option<u32>,
    pub pane: Option<u32>,
    /// The session's name, for a session that has gone (session-closed).
    pub session_name: Option<String>,
    /// window-linked: the tab roster knew the window in that session, so
    /// it is a move within the session, not a new tab.
    pub known: bool,
}

/// The ids each tmux hook's entry passes, as `--flag format` pairs: the
/// formats tmux fills in for that hook.
pub(crate) fn hook_arguments(hook: &str) -> &'static [(&'static str, &'static str)] {
    match hook {
        "after-split-window" | "after-new-window" | "after-select-pane" => &[
            ("--session", "session_id"),
            ("--window", "window_id"),
            ("--pane", "pane_id"),
        ],
        "session-created" => &[
            ("--session", "hook_session"),
            ("--window", "window_id"),
            ("--pane", "pane_id"),
        ],
        "window-linked" => &[("--session", "hook_session"), ("--window", "hook_window")],
        "window-unlinked" => &[
            ("--session", "hook_session"),
            ("--window", "hook_window"),
            ("--name", "hook_session_name"),
        ],
        "session-closed" => &[
            ("--session", "hook_session"),
            ("--name", "hook_session_name"),
        ],
        "pane-exited" | "pane-died" => &[("--pane", "hook_pane")],
        "session-window-changed" => &[("--session", "hook_session"), ("--window", "window_id")],
        "client-session-changed" | "after-rename-session" => &[("--session", "session_id")],
        "after-rename-window" => &[("--session", "session_id"), ("--window", "window_id")],
        "window-layout-changed" => &[("--window", "hook_window")],
        _ => &[],
    }
}

/// The events one firing of a tmux hook stands for.
pub(crate) fn occurrences(tmux: &Tmux, listeners: &Listeners, fire: &HookFire) -> Vec<Occurrence> {
    let at = |event: Event| {
        Occurrence::new(event)
            .session(fire.session)
            .window(fire.window)
            .pane(fire.pane)
    };
    let mut found = Vec::new();
    let mut detect_closes = false;
    match fire.hook.as_str() {
        "after-split-window" | "after-new-window" => found.push(at(Event::PaneCreated)),
        "session-created" => {
            found.push(at(Event::WorkspaceCreated).window(None).pane(None));
            // A session grouped with another shares its panes: none is
            // made. (One gone already is taken as made alone.)
            let grouped = fire.session.is_some_and(|session| {
                crate::tmux::roster::session_grouped(tmux, session).unwrap_or(false)
            });
            if !grouped {
                found.push(at(Event::PaneCreated));
            }
        }
        // A move within a session links the window again and then unlinks
        // it from its old place: the unlink tells the move.
        "window-linked" if fire.known => {}
        "window-linked" => found.push(at(Event::TabCreated)),
        "window-unlinked" if still_there(tmux, fire) => {}
        "window-unlinked" => {
            if let (Some(window), Some(session)) = (fire.window, fire.session) {
                // Not told: its return would be taken for a move.
                let _ = crate::tmux::roster::forget_tab(tmux, window, session);
            }
            let mut closed = at(Event::TabClosed);
            closed.session_name = fire.session_name.clone();
            found.push(closed);
            detect_closes = true;
        }
        "session-closed" => {
            let mut closed = at(Event::WorkspaceClosed);
            closed.session_name = fire.session_name.clone();
            found.push(closed);
            detect_closes = true;
        }
        "after-kill-pane" => detect_closes = true,
        "pane-exited" => {
            // Its own take of the roster names the pane's session, and
            // reports any close that came in the same moment.
            let (closed, exiting) = roster::detect(tmux, fire.pane);
            found.push(at(Event::PaneExited).session(exiting.map(|e| e.session)));
            if listeners.hears(Event::PaneClosed) {
                found.extend(closed);
            }
        }
        "pane-died" => found.push(at(Event::PaneExited)),
        "after-select-pane" => {
            // The hook names the pane the command was aimed at; the focus
            // may have moved from it to a neighbour.
            let focused = fire
                .pane
                .and_then(|p| crate::tmux::pane::active_pane_beside(tmux, p))
                .or(fire.pane);
            found.push(at(Event::PaneFocused).pane(focused));
        }
        "session-window-changed" => found.push(at(Event::TabFocused)),
        "client-session-changed" => found.push(at(Event::WorkspaceFocused)),
        "after-rename-window" => found.push(at(Event::TabRenamed)),
        "after-rename-session" => found.push(at(Event::WorkspaceRenamed)),
        // tmux fires it twice for one select-layout: a layout already
        // told is not told again.
        "window-layout-changed" if !new_layout(tmux, fire) => {}
        "window-layout-changed" => found.push(at(Event::LayoutUpdated)),
        _ => {}
    }
    // tmux tells no swap-window, and a move-window as a link and an
    // unlink: the session's order, against the one last seen, tells what
    // moved, at whichever of its hooks comes first.
    if listeners.hears(Event::TabMoved)
        && matches!(
            fire.hook.as_str(),
            "window-linked" | "window-unlinked" | "session-window-changed"
        )
        && let Some(session) = fire.session
    {
        let moved = crate::tmux::roster::moved_tabs(tmux, session, fire.window).unwrap_or_default();
        found.extend(
            moved
                .into_iter()
                .map(|w| at(Event::TabMoved).window(Some(w)).pane(None)),
        );
    }
    if detect_closes && listeners.hears(Event::PaneClosed) {
        // A pane of a session that has gone is named with that session.
        found.extend(roster::detect(tmux, None).0.into_iter().map(|mut closed| {
            if closed.session == fire.session {
                closed.session_name = fire.session_name.clone();
            }
            closed
        }));
    }
    roster::without_placeholders(tmux, found)
}

/// Whether the window a window-unlinked hook names is still linked into
/// its session: moved within it, not closed.
fn still_there(tmux: &Tmux, fire: &HookFire) -> bool {
    match (fire.window, fire.session) {
        (Some(window), Some(session)) => {
            crate::tmux::roster::window_in_session(tmux, window, session).unwrap_or(false)
        }
        _ => false,
    }
}

/// Runs a tmux hook's job: its events, delivered to their listeners.
pub(crate) fn fire(tmux: &Tmux, listeners: &Listeners, fire: &HookFire) {
    let found = occurrences(tmux, listeners, fire);
    super::deliver(tmux, listeners, &found);
}

/// Whether the window a window-layout-changed hook names has a layout not
/// told before (claimed now by this process). A window gone has none.
fn new_layout(tmux: &Tmux, fire: &HookFire) -> bool {
    fire.window
        .is_some_and(|window| crate::tmux::roster::claim_layout(tmux, window).unwrap_or(false))
}
