//! `session save`: the server's sessions, windows and panes, with the
//! agent in front of each pane and what resumes its conversation, as a
//! saved layout (`saved.rs`).

use crate::envelope::{Result, answers};
use crate::report::StoredSession;
use crate::sessions::saved::{self, Layout, SavedAgent, SavedPane, SavedSession, SavedWindow};
use crate::tmux::Tmux;
use crate::tmux::commands as cmd;
use crate::tmux::format::RowFormat;
use crate::tmux::options::pane as opt;
use crate::tmux::options::{self, bookkeeping};
use crate::tmux::snapshot::{Pane, Snapshot};
use serde::Serialize;
use std::collections::HashMap;
use std::time::Duration;

/// What a save wrote.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Saved {
    pub name: String,
    pub file: String,
    pub taken_unix: u64,
    pub sessions: usize,
    pub windows: usize,
    pub panes: usize,
    pub agents: usize,
}

answers!(Saved => "session_saved");

/// The pane options a layout keeps that the snapshot does not read.
fn extras_format() -> RowFormat {
    RowFormat::of(
        "X",
        &[
            "pane_id",
            opt::RESUME,
            opt::CLAUDE_FLAGS,
            opt::RESTORE_SAVED,
            opt::STARTED_COMMAND,
        ],
    )
}

/// The layout of the server now; `resumed` holds the agents a restore
/// has just typed the resume of, kept for their panes before they are up.
fn layout_now(tmux: &Tmux, resumed: &HashMap<u32, SavedAgent>) -> Result<Layout> {
    let (snapshot, extras) = read_with_extras(tmux, resumed)?;
    Ok(layout_of(&snapshot, &extras, crate::clock::now_unix()))
}

/// The server now, with what a layout keeps of each pane beyond the
/// snapshot, in one tmux call.
pub(crate) fn read_with_extras(
    tmux: &Tmux,
    resumed: &HashMap<u32, SavedAgent>,
) -> Result<(Snapshot, HashMap<u32, Extras>)> {
    let format = extras_format();
    let (snapshot, outputs) =
        Snapshot::read_with(tmux, vec![cmd::list_all_panes(&format.format())])?;
    let mut extras: HashMap<u32, Extras> = HashMap::new();
    let printed = outputs.first().map(String::as_str).unwrap_or("");
    let rows = crate::tmux::format::parse_rows(printed, std::slice::from_ref(&format))
        .map_err(crate::envelope::TawError::tmux)?;
    for row in rows {
        if let Some(id) = crate::tmux::ids::tmux_number(row.get(0), '%') {
            extras.insert(
                id,
                Extras {
                    resume: row.get(1).to_string(),
                    claude_flags: row.get(2).to_string(),
                    restore_saved: row.get(3).to_string(),
                    started: row.get(4).to_string(),
                    resumed: resumed.get(&id).cloned(),
                },
            );
        }
    }
    Ok((snapshot, extras))
}

/// What a layout keeps of a pane beyond the snapshot: its reported resume
/// command, Claude's flags, and the pane as a restore found it saved.
#[derive(Debug, Clone, Default)]
pub(crate) struct Extras {
    pub resume: String,
    pub claude_flags: String,
    pub restore_saved: String,
    /// The line `taw agent start` typed in the pane.
    pub started: String,
    /// The agent a restore has just typed the resume of.
    pub resumed: Option<SavedAgent>,
}

/// A layout from a snapshot and each pane's extras. Pure. A session of a
/// group saved after the first keeps only the name of that first one
/// (they share their windows), and a window already saved in an earlier
/// session (linked into several) only where it came from.
pub(crate) fn layout_of(
    snapshot: &Snapshot,
    extras: &HashMap<u32, Extras>,
    taken_unix: u64,
) -> Layout {
    let mut sessions = Vec::new();
    let mut group_firsts: HashMap<&str, &str> = HashMap::new();
    let mut windows_saved: HashMap<u32, String> = HashMap::new();
    for session in &snapshot.sessions {
        let grouped_with = (!session.group.is_empty())
            .then(|| *group_firsts.entry(&session.group).or_insert(&session.name))
            .filter(|first| *first != session.name)
            .map(str::to_string);
        if grouped_with.is_some() {
            sessions.push(SavedSession {
                name: session.name.clone(),
                path: session.path.clone(),
                grouped_with,
                label: label_of(session),
                windows: Vec::new(),
            });
            continue;
        }
        let mut windows: Vec<SavedWindow> = snapshot
            .windows
            .iter()
            .filter(|w| w.session == session.id)
            .map(|window| {
                if let Some(from) = windows_saved.get(&window.id) {
                    return SavedWindow {
                        index: window.index,
                        name: window.name.clone(),
                        layout: String::new(),
                        active: window.active,
                        zoomed: false,
                        linked_from: Some(from.clone()),
                        panes: Vec::new(),
                    };
                }
                windows_saved.insert(window.id, format!("{}:{}", session.name, window.index));
                let mut panes: Vec<SavedPane> = snapshot
                    .panes
                    .iter()
                    .filter(|p| p.window == window.id && p.session == session.id)
                    .map(|pane| saved_pane(pane, extras.get(&pane.id)))
                    .collect();
                panes.sort_by_key(|p| p.index);
                SavedWindow {
                    index: window.index,
                    name: window.name.clone(),
                    layout: window.layout.clone(),
                    active: window.active,
                    zoomed: window.zoomed,
                    linked_from: None,
                    panes,
                }
            })
            .collect();
        windows.sort_by_key(|w| w.index);
        sessions.push(SavedSession {
            name: session.name.clone(),
            path: session.path.clone(),
            grouped_with: None,
            label: label_of(session),
            windows,
        });
    }
    Layout {
        version: saved::VERSION,
        taken_unix,
        sessions,
    }
}

/// The workspace's label where it is not the session's name.
fn label_of(session: &crate::tmux::snapshot::Session) -> Option<String> {
    (session.label() != session.name).then(|| session.label().to_string())
}

/// A pane as the layout keeps it. One a restore left outside its saved
/// folder is kept as it was saved, until it has an agent of its own.
fn saved_pane(pane: &Pane, extras: Option<&Extras>) -> SavedPane {
    let agent = agent_of(pane, extras).or_else(|| extras.and_then(|e| e.resumed.clone()));
    if agent.is_none()
        && let Some(mut kept) =
            extras.and_then(|e| serde_json::from_str::<SavedPane>(&e.restore_saved).ok())
    {
        kept.index = pane.index;
        kept.id = format!("%{}", pane.id);
        kept.active = pane.active;
        return kept;
    }
    SavedPane {
        index: pane.index,
        id: format!("%{}", pane.id),
        cwd: pane.current_path.clone(),
        active: pane.active,
        agent,
    }
}

/// The agent in front of a pane: what taw read there, or what its
/// integration said it is.
fn agent_of(pane: &Pane, extras: Option<&Extras>) -> Option<SavedAgent> {
    let kind = if pane.agent_kind.is_empty() {
        pane.reported_kind.clone()
    } else {
        pane.agent_kind.clone()
    };
    if kind.is_empty() {
        return None;
    }
    let session = StoredSession::parse(&pane.agent_session).filter(|s| s.agent == kind);
    let extras = extras.cloned().unwrap_or_default();
    let (resume, flags) = (extras.resume.clone(), extras.claude_flags.clone());
    let words = |text: &str| serde_json::from_str::<Vec<String>>(text).unwrap_or_default();
    // A sandboxed agent is kept by its kept resume alone: its session is
    // the container's, resumed there.
    if !pane.container.is_empty()
        && let Some(kept) =
            crate::sandbox::KeptResume::parse(&pane.sandbox_resume).filter(|k| k.agent == kind)
    {
        return Some(SavedAgent {
            kind,
            session_id: None,
            session_path: None,
            resume: Vec::new(),
            agent_claude_flags: Vec::new(),
            started: None,
            sandbox: Some(kept),
        });
    }
    Some(SavedAgent {
        session_id: session.as_ref().and_then(StoredSession::session_id),
        session_path: session.as_ref().and_then(StoredSession::session_path),
        resume: words(&resume),
        agent_claude_flags: words(&flags),
        started: (!extras.started.is_empty() && pane.kind_hint == kind)
            .then(|| extras.started.clone()),
        sandbox: None,
        kind,
    })
}

/// What an autosave did.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Autosaved {
    pub saved: bool,
    /// Why it saved nothing: off, a newer one saves, a restore runs.
    pub reason: Option<String>,
}

answers!(Autosaved => "session_autosave");

/// How long an autosave waits for a burst of changes to end: one save a
/// burst.
const SETTLE: Duration = Duration::from_millis(500);
/// A restore older than this holds autosave no more.
const RESTORE_HOLDS_AT_MOST: Duration = Duration::from_secs(600);

fn global(tmux: &Tmux, name: &str) -> String {
    tmux.run_one(cmd::show_global_value(name))
        .map(|v| v.trim().to_string())
        .unwrap_or_default()
}

/// Whether `<pid> <unix ms>` names a restore still running: its process
/// is there, and it began less than ten minutes ago.
fn restore_runs(stamp: &str) -> bool {
    let mut words = stamp.split_whitespace();
    let (Some(pid), Some(since)) = (
        words.next().and_then(|p| p.parse::<i32>().ok()),
        words.next().and_then(|s| s.parse::<u64>().ok()),
    ) else {
        return false;
    };
    // Signal 0 only asks whether the process exists (one of another user
    // is refused, and is there).
    let alive = rustix::process::Pid::from_raw(pid).is_some_and(|pid| {
        matches!(
            rustix::process::test_kill_process(pid),
            Ok(()) | Err(rustix::io::Errno::PERM)
        )
    });
    alive && crate::clock::now_ms().saturating_sub(since) < RESTORE_HOLDS_AT_MOST.as_millis() as u64
}

/// `taw session autosave` (tmux's hooks run it on every new window,
/// split, close and rename): the default layout saved once the changes
/// have settled, unless `@agent-wizard-autosave` is off or a restore runs.
pub(crate) fn autosave(tmux: &Tmux) -> Result<Autosaved> {
    let not = |why: &str| {
        Ok(Autosaved {
            saved: false,
            reason: Some(why.to_string()),
        })
    };
    // Changes of the burst set the flag again and start nothing; the
    // flag goes before the save, so a change after it asks anew.
    let done_waiting = || tmux.run_one(cmd::unset_global_option(bookkeeping::AUTOSAVE_ASKED));
    if global(tmux, options::AUTOSAVE) == "off" {
        done_waiting()?;
        return not(&format!("{} is off", options::AUTOSAVE));
    }
    std::thread::sleep(SETTLE);
    done_waiting()?;
    if restore_runs(&global(tmux, bookkeeping::RESTORING)) {
        tmux.run_one(cmd::set_global_option(bookkeeping::AUTOSAVE_HELD, "1"))?;
        return not("a restore runs; it saves when it is done");
    }
    save(tmux, saved::DEFAULT_NAME)?;
    Ok(Autosaved {
        saved: true,
        reason: None,
    })
}

/// `taw session save [--name N]`.
pub(crate) fn save(tmux: &Tmux, name: &str) -> Result<Saved> {
    save_keeping(tmux, name, &HashMap::new())
}

/// A save that keeps the agents a restore has just resumed (`resumed`, by
/// pane) on their panes, which their agents may not be in front of yet.
pub(crate) fn save_keeping(
    tmux: &Tmux,
    name: &str,
    resumed: &HashMap<u32, SavedAgent>,
) -> Result<Saved> {
    saved::check_name(name)?;
    let _turn = saved::take_turn(name)?;
    let layout = layout_now(tmux, resumed)?;
    let path = saved::write(name, &layout)?;
    let windows: Vec<&SavedWindow> = layout.sessions.iter().flat_map(|s| &s.windows).collect();
    let panes: Vec<&SavedPane> = windows.iter().flat_map(|w| &w.panes).collect();
    Ok(Saved {
        name: name.to_string(),
        file: crate::paths::display(&path),
        taken_unix: layout.taken_unix,
        sessions: layout.sessions.len(),
        windows: windows.len(),
        panes: panes.len(),
        agents: panes.iter().filter(|p| p.agent.is_some()).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture;

    #[test]
    fn a_layout_keeps_every_session_window_and_pane_in_order() {
        let mut snapshot = fixture::server();
        snapshot.sessions[1].kept_label = "web\tthe web".into();
        snapshot.panes[1].index = 1;
        snapshot.panes.swap(0, 1);
        let layout = layout_of(&snapshot, &HashMap::new(), 42);
        assert_eq!(layout.taken_unix, 42);
        let api = &layout.sessions[0];
        assert_eq!((api.name.as_str(), api.label.as_deref()), ("api", None));
        assert_eq!(api.windows.len(), 2);
        let panes: Vec<&str> = api.windows[0].panes.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(panes, vec!["%1", "%2"]);
        assert_eq!(
            api.windows[1].panes[0].agent.as_ref().unwrap().kind,
            "claude"
        );
        assert_eq!(layout.sessions[1].label.as_deref(), Some("the web"));
    }

    #[test]
    fn a_grouped_session_and_a_linked_window_keep_only_where_they_come_from() {
        let mut snapshot = fixture::server();
        snapshot.sessions[0].group = "g".into();
        let mut twin = fixture::session(3, "api-twin");
        twin.group = "g".into();
        snapshot.sessions.push(twin);
        // `@3` of `$2` linked into `$1` as well.
        let mut linked = snapshot.windows[2].clone();
        linked.session = 1;
        linked.index = 5;
        snapshot.windows.push(linked);
        let mut order = snapshot.sessions.clone();
        order.swap(0, 1);
        snapshot.sessions = order;
        let layout = layout_of(&snapshot, &HashMap::new(), 0);
        let twin = layout
            .sessions
            .iter()
            .find(|s| s.name == "api-twin")
            .unwrap();
        assert_eq!(twin.grouped_with.as_deref(), Some("api"));
        assert!(twin.windows.is_empty());
        let api = layout.sessions.iter().find(|s| s.name == "api").unwrap();
        let link = api.windows.iter().find(|w| w.index == 5).unwrap();
        assert_eq!(link.linked_from.as_deref(), Some("web:3"));
        assert!(link.panes.is_empty());
    }

    #[test]
    fn an_agent_is_what_taw_read_else_what_its_integration_said() {
        let mut pane = fixture::pane(1, 1, 7, "", "", "");
        assert!(agent_of(&pane, None).is_none());
        pane.reported_kind = "codex".into();
        let extras = Extras {
            resume: r#"["codex","resume","abc"]"#.into(),
            started: "codex --yolo".into(),
            ..Extras::default()
        };
        let agent = agent_of(&pane, Some(&extras)).unwrap();
        assert_eq!(agent.kind, "codex");
        assert_eq!(agent.resume, vec!["codex", "resume", "abc"]);
        // The line typed is kept only for the agent it started.
        assert_eq!(agent.started, None);
        pane.kind_hint = "codex".into();
        let agent = agent_of(&pane, Some(&extras)).unwrap();
        assert_eq!(agent.started.as_deref(), Some("codex --yolo"));
    }

    #[test]
    fn a_pane_a_restore_left_is_kept_as_it_was_saved_until_an_agent_comes() {
        let mut pane = fixture::pane(1, 1, 7, "", "", "");
        pane.current_path = "/tmp".into();
        pane.index = 2;
        let saved = SavedPane {
            index: 0,
            id: "%99".into(),
            cwd: "/src/api".into(),
            active: false,
            agent: None,
        };
        let extras = Extras {
            restore_saved: serde_json::to_string(&saved).unwrap(),
            ..Extras::default()
        };
        let kept = saved_pane(&pane, Some(&extras));
        assert_eq!((kept.cwd.as_str(), kept.id.as_str()), ("/src/api", "%7"));
        assert_eq!(kept.index, 2);
        pane.agent_kind = "pi".into();
        assert_eq!(saved_pane(&pane, Some(&extras)).cwd, "/tmp");
    }
}
