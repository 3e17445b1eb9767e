//! Going somewhere: a pane, a window or a session brought in front of a
//! client, a done agent there marked seen, and "next up", the agent the
//! notification key and the popup's Tab go to.

use crate::clock::now_ms;
use crate::envelope::{Result, TawError, answers};
use crate::model::{AgentStatus, nextup};
use crate::tmux::commands as cmd;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::OptionWrites;
use crate::tmux::snapshot::{Client, Pane, Snapshot};
use crate::tmux::{Batch, Tmux};
use crate::watch::nudge;
use serde::Serialize;

/// The client a front end names (`--client`, the popup's own), checked to
/// be attached; with none named, the client used last, if any.
pub(crate) fn client<'a>(snapshot: &'a Snapshot, name: Option<&str>) -> Result<Option<&'a Client>> {
    match name {
        Some(name) => snapshot
            .clients
            .iter()
            .find(|c| c.name == name && c.session.is_some())
            .map(Some)
            .ok_or_else(|| TawError::not_found(format!("no attached client {name:?}"))),
        None => Ok(snapshot.last_client()),
    }
}

/// The walk's next stop, for the client of taw app's attach under a walk
/// its app renewed lately; none otherwise (a person's own client there,
/// an app that has gone).
fn walk_stop(snapshot: &Snapshot, client: &Client, current: Option<u32>) -> Option<nextup::Stop> {
    use crate::machine::protocol::{self, Entered, Walk};
    let walk: Walk = protocol::read_kept(&snapshot.server.walk)?;
    let entered: Entered = protocol::read_kept(&snapshot.server.entered)?;
    let ours = !client.tty.is_empty()
        && entered.tty == client.tty
        && !entered.holder.is_empty()
        && entered.holder == walk.holder;
    if !protocol::fresh(walk.at) || !ours {
        return None;
    }
    nextup::walk_next(&walk.stops, &walk.you, current)
}

/// Brings `pane` in front: its window, itself, and the client onto it; a
/// done agent there is seen (idle).
pub(crate) fn to_pane(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    client: Option<&str>,
) -> Result<()> {
    tmux.run(&pane_in_front(snapshot, pane, client))?;
    if pane.agent_state == "done" {
        wake(snapshot, &[pane.id]);
    }
    Ok(())
}

/// What brings `pane` in front, and marks a done agent there seen.
/// In sessions grouped (or a window linked into several), the pane's row
/// is the one in the client's own session when that session has it, and
/// its window is named with that session: a bare `%N` lets tmux choose the
/// session, which moved the client off its own or changed another
/// session's current window.
fn pane_in_front(snapshot: &Snapshot, pane: &Pane, client: Option<&str>) -> Batch {
    let client_session = snapshot
        .clients
        .iter()
        .find(|c| Some(c.name.as_str()) == client)
        .and_then(|c| c.session);
    let pane = client_session
        .and_then(|session| snapshot.pane(pane.id, Some(session)))
        .unwrap_or(pane);
    let id = format!("%{}", pane.id);
    let window = format!("${}:@{}", pane.session, pane.window);
    let mut batch = Batch::new();
    batch.push(cmd::select_window(&window));
    batch.push(cmd::select_pane(&id));
    // As `to_window`: a client on the pane's session already is not
    // switched (that would tell workspace.focused).
    let there = client_session == Some(pane.session);
    if let Some(client) = client.filter(|_| !there) {
        batch.push(cmd::switch_client(client, &window));
    }
    if pane.agent_state == "done" {
        batch.extend(seen_commands(pane.id));
    }
    batch
}

/// `switch-client` onto `target` (in session `$session`) for `client`,
/// unless the snapshot has it on that session already: tmux tells a
/// switch-client as client-session-changed (herdr's `workspace.focused`)
/// even when the session stays.
pub(crate) fn switch_unless_there(
    snapshot: &Snapshot,
    client: Option<&str>,
    session: u32,
    target: &str,
) -> Option<crate::tmux::Cmd> {
    let client = client?;
    let there = snapshot
        .clients
        .iter()
        .any(|c| c.name == client && c.session == Some(session));
    (!there).then(|| cmd::switch_client(client, target))
}

/// Brings window `@window` in front in its session, and the client onto it.
pub(crate) fn to_window(tmux: &Tmux, window: u32, client: Option<&str>) -> Result<()> {
    let id = format!("@{window}");
    let mut batch = Batch::of(vec![cmd::select_window(&id)]);
    if let Some(client) = client
        && on_another_session(tmux, client, &id)?
    {
        batch.push(cmd::switch_client(client, &id));
    }
    tmux.run(&batch).map(|_| ())
}

/// Moves the client onto session `$session`; with no client, or one there
/// already, nothing.
pub(crate) fn to_session(tmux: &Tmux, session: u32, client: Option<&str>) -> Result<()> {
    let target = format!("${session}");
    match client {
        Some(client) if on_another_session(tmux, client, &target)? => tmux
            .run_one(cmd::switch_client(client, &target))
            .map(|_| ()),
        _ => Ok(()),
    }
}

/// Whether `client` shows another session than the one `target` is in.
/// tmux tells a switch-client as client-session-changed (herdr's
/// `workspace.focused`) even when the session stays, so a move within the
/// session in front switches nothing.
fn on_another_session(tmux: &Tmux, client: &str, target: &str) -> Result<bool> {
    // A client's own session is its `client_session` (its `session_id`
    // would be the command's target's).
    let sessions = tmux.run_apart(vec![
        cmd::print_format_for_client(client, "#{client_session}"),
        cmd::print_format_at(target, "#{session_name}"),
    ])?;
    Ok(sessions.first().map(|s| s.trim()) != sessions.get(1).map(|s| s.trim()))
}

/// What marks a done pane seen: idle, since now. Its watcher takes it in
/// at its next look ([`wake`] makes that look come now).
pub(crate) fn seen_commands(pane: u32) -> Vec<crate::tmux::Cmd> {
    let mut writes = OptionWrites::default();
    writes.set(opt::AGENT_STATE, AgentStatus::Idle.as_str());
    writes.set(opt::STATE_SINCE, now_ms().to_string());
    writes.commands(pane)
}

/// Wakes the watchers of `panes`, so they look now.
pub(crate) fn wake(snapshot: &Snapshot, panes: &[u32]) {
    nudge::wake_all(snapshot.server.pid, panes);
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Seen {
    /// The panes marked seen (`%N`).
    pub panes: Vec<String>,
}

answers!(Seen => "watch_seen");

/// Every done agent of a window a client shows becomes idle: the person
/// has seen it (the focus hooks run this).
pub(crate) fn mark_seen(tmux: &Tmux, snapshot: &Snapshot) -> Result<Seen> {
    let marked = seen_in_front(snapshot);
    if !marked.is_empty() {
        let batch = Batch::of(marked.iter().flat_map(|&p| seen_commands(p)).collect());
        tmux.run(&batch)?;
        wake(snapshot, &marked);
    }
    Ok(Seen {
        panes: marked.iter().map(|p| format!("%{p}")).collect(),
    })
}

/// The done agents in the windows clients show, each once.
fn seen_in_front(snapshot: &Snapshot) -> Vec<u32> {
    let shown: Vec<(u32, u32)> = snapshot
        .clients
        .iter()
        .filter_map(|client| {
            let session = client.session?;
            let window = snapshot.active_window(session)?;
            Some((session, window.id))
        })
        .collect();
    let mut marked = Vec::new();
    for pane in &snapshot.panes {
        if pane.agent_state == "done"
            && shown.contains(&(pane.session, pane.window))
            && !marked.contains(&pane.id)
        {
            marked.push(pane.id);
        }
    }
    marked
}

/// Where "next up" went: the pane, and the group it was chosen from.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct NextUp {
    pub pane_id: String,
    pub target: &'static str,
}

answers!(NextUp => "ok");

/// Moves `client` (else the client used last) to the agent "next up"
/// after the pane it shows: the next that needs you, else the next agent
/// of any kind. `not_found` when no pane holds an agent.
///
/// On the client of taw app's attach, under a fresh walk, the next is the
/// walk's next stop instead: on this machine it is gone to; on another,
/// the attach ends (the app then attaches there), and `pane_id` names
/// that stop as the app does (`laptop:%9`).
pub(crate) fn next_up(tmux: &Tmux, snapshot: &Snapshot, client: Option<&str>) -> Result<NextUp> {
    let client = self::client(snapshot, client)?;
    let current = client
        .and_then(|c| snapshot.client_pane(c))
        .map(|pane| pane.id);
    if let Some(client) = client
        && let Some(stop) = walk_stop(snapshot, client, current)
    {
        match stop {
            nextup::Stop::Here(id) => {
                if let Some(pane) = snapshot.pane(id, None) {
                    to_pane(tmux, snapshot, pane, Some(&client.name))?;
                    return Ok(NextUp {
                        pane_id: format!("%{id}"),
                        target: nextup::Group::NeedsYou.as_str(),
                    });
                }
            }
            nextup::Stop::There(stop) => {
                use crate::tmux::options::bookkeeping::HOP;
                tmux.run(&Batch::of(vec![
                    cmd::set_global_option(HOP, &stop),
                    cmd::detach_client(&client.name),
                ]))?;
                return Ok(NextUp {
                    pane_id: stop,
                    target: nextup::Group::NeedsYou.as_str(),
                });
            }
        }
    }
    let panes: Vec<(u32, Option<AgentStatus>)> = snapshot
        .unique_panes()
        .into_iter()
        .map(|pane| {
            let state =
                (!pane.agent_kind.is_empty()).then(|| AgentStatus::parse(&pane.agent_state));
            (pane.id, state)
        })
        .collect();
    let (id, group) = nextup::next_up(&panes, current).ok_or_else(|| {
        TawError::not_found("no pane holds an agent; `taw agent list` shows the agents")
    })?;
    let pane = snapshot
        .pane(id, None)
        .ok_or_else(|| TawError::not_found("the pane closed"))?;
    to_pane(tmux, snapshot, pane, client.map(|c| c.name.as_str()))?;
    Ok(NextUp {
        pane_id: format!("%{id}"),
        target: group.as_str(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture;

    fn lines(batch: &Batch) -> Vec<String> {
        batch
            .commands()
            .iter()
            .map(|cmd| cmd.words().join(" "))
            .collect()
    }

    #[test]
    fn a_named_client_must_be_attached_and_none_named_is_the_last_used() {
        let mut snapshot = fixture::server();
        assert_eq!(
            client(&snapshot, None).unwrap().map(|c| c.name.as_str()),
            Some("/dev/pts/1")
        );
        let error = client(&snapshot, Some("/dev/pts/9")).err().unwrap();
        assert_eq!(error.code, crate::envelope::ErrorCode::NotFound);
        snapshot.clients[0].session = None;
        assert!(client(&snapshot, Some("/dev/pts/1")).is_err());
    }

    #[test]
    fn a_client_is_switched_only_off_another_session() {
        let snapshot = fixture::server();
        let switch = |client, session| {
            switch_unless_there(&snapshot, client, session, "@3").map(|c| c.words().join(" "))
        };
        assert_eq!(switch(Some("/dev/pts/1"), 1), None);
        assert_eq!(
            switch(Some("/dev/pts/1"), 2).as_deref(),
            Some("switch-client -c /dev/pts/1 -t @3")
        );
        assert_eq!(switch(None, 2), None);
    }

    #[test]
    fn a_pane_in_front_is_its_window_itself_and_the_client_if_elsewhere() {
        let snapshot = fixture::server();
        let far = snapshot.pane(4, None).unwrap();
        assert_eq!(
            lines(&pane_in_front(&snapshot, far, Some("/dev/pts/1"))),
            vec![
                "select-window -t $2:@3",
                "select-pane -t %4",
                "switch-client -c /dev/pts/1 -t $2:@3"
            ]
        );
        let near = snapshot.pane(2, None).unwrap();
        assert_eq!(
            lines(&pane_in_front(&snapshot, near, Some("/dev/pts/1"))).len(),
            2
        );
    }

    #[test]
    fn a_done_agent_brought_in_front_is_seen() {
        let snapshot = fixture::server();
        let done = snapshot.pane(3, None).unwrap();
        let lines = lines(&pane_in_front(&snapshot, done, None));
        assert_eq!(lines.len(), 2 + seen_commands(3).len());
        assert!(
            lines
                .iter()
                .any(|l| l.contains(opt::AGENT_STATE) && l.ends_with(" idle")),
            "{lines:?}"
        );
    }

    #[test]
    fn only_done_agents_a_client_shows_are_marked_seen_each_once() {
        let mut snapshot = fixture::server();
        // `%3` is done in `@2`, which no client shows.
        assert!(seen_in_front(&snapshot).is_empty());
        snapshot.windows[0].active = false;
        snapshot.windows[1].active = true;
        assert_eq!(seen_in_front(&snapshot), vec![3]);
        // Linked into a second session a client shows too: still once.
        let mut linked = snapshot.panes[2].clone();
        linked.session = 2;
        snapshot.panes.push(linked);
        snapshot.clients.push(Client {
            session: Some(2),
            ..snapshot.clients[0].clone()
        });
        assert_eq!(seen_in_front(&snapshot), vec![3]);
    }
}
