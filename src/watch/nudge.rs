//! Waking a pane's watcher without output: the server's watcher listens on
//! a Unix socket in taw's state folder ([`super::server`]), and `taw pane
//! report-agent` (or a focus hook) asks it to look at a pane. No daemon of
//! taw's own beyond it, and no polling.

/// Wakes the watcher of pane `%pane` of the server `tmux` reaches, so it
/// looks now (a report, a new label: nothing the pane prints).
pub(crate) fn wake(tmux: &crate::tmux::Tmux, pane: u32) {
    if let Ok(values) = crate::tmux::pane::read_values(tmux, pane, &["pid"])
        && let Ok(server) = values[0].parse::<u32>()
    {
        super::server::ask_look(server, pane);
    }
}

/// Wakes the watchers of `panes` of the server of pid `server`.
pub(crate) fn wake_all(server: u32, panes: &[u32]) {
    for pane in panes {
        super::server::ask_look(server, *pane);
    }
}
