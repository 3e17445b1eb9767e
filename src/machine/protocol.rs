//! Protocol 1 of a machine's feed, as types: the lines a machine sends
//! (`hello`, `state`, `toast`, `left`, `ping`), the lines the app sends
//! (`lease`, `walk`), and the records kept between them: in the far
//! server (the walk, who entered, where they left for), on a pane (its
//! watcher's toast) and in the state folder (the lease). Every field is
//! read with a default and a line of an unknown type is read as
//! [`FeedLine::Other`], so what a newer taw adds stops no older one.

use crate::git::Status;
use crate::model::{AgentInfo, PaneInfo, TabInfo, WorkspaceInfo, WorktreeInfo};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The one protocol there is.
pub(crate) const PROTOCOL: u32 = 1;

/// A lease the app renewed this recently is fresh: the app that holds it
/// speaks the machine's toasts (their sound, the `notification` hook), and
/// the walk it sent is followed.
pub(crate) const LEASE_FRESH: Duration = Duration::from_secs(60);

/// Whether something stamped at `at` (Unix ms) is within LEASE_FRESH.
pub(crate) fn fresh(at: u64) -> bool {
    crate::clock::now_ms().saturating_sub(at) < LEASE_FRESH.as_millis() as u64
}

/// A line a machine's feed sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum FeedLine {
    /// Always first.
    Hello(Hello),
    /// Everything the list draws of the machine, whenever it changes.
    State(State),
    /// A toast one of its watchers showed.
    Toast(Toast),
    /// An attach of the app's there ended: where the person went.
    Left(Left),
    /// Said when the feed has been quiet.
    Ping,
    /// A line of a type this taw does not know.
    #[serde(other)]
    Other,
}

impl FeedLine {
    /// One line as the feed writes it.
    pub(crate) fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Hello {
    pub taw: String,
    pub protocol: u32,
    pub host: String,
    /// `<tmux server pid> <start unix seconds>`, empty with no server.
    pub server: String,
}

/// `state`: herdr's records of the machine's sessions, windows, panes and
/// agents, with what taw's list needs beside them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct State {
    pub spaces: Vec<WorkspaceInfo>,
    pub tabs: Vec<FeedTab>,
    pub panes: Vec<PaneInfo>,
    pub agents: Vec<AgentInfo>,
    /// The worktrees of its repositories' sessions that no session runs.
    pub worktrees: Vec<FeedWorktree>,
    /// Those a session runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub open_worktrees: Vec<FeedWorktree>,
    /// The git status of each session's folder.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub git: Vec<Checkout>,
}

/// A window: its record, and whether it is its session's current one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct FeedTab {
    #[serde(flatten)]
    pub tab: TabInfo,
    pub active: bool,
}

/// A worktree of a repository's session (`head`, its tmux id), with the
/// folders behind its links, resolved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct FeedWorktree {
    #[serde(flatten)]
    pub worktree: WorktreeInfo,
    pub head: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real_repo_root: Option<String>,
}

/// The git status of a session's folder (`tmux_id`: the session's).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Checkout {
    #[serde(flatten)]
    pub status: Status,
    pub tmux_id: String,
}

/// `toast`: a toast a watcher there showed, for the app to show and, under
/// its lease, to speak.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Toast {
    /// `done` or `request`.
    pub kind: String,
    pub pane: String,
    pub text: String,
    pub title: String,
    pub body: String,
    /// The agent's name (`Claude Code`) and id (`claude`).
    pub agent: String,
    pub agent_kind: String,
    pub location: String,
    /// The app that reads this holds the machine's lease.
    pub lease: bool,
}

/// `left`, and the record `machine enter` keeps in the server for it:
/// the app's attach there (`holder`'s, to `pane`) ended, and the person
/// went to `go` (an id there, or another machine's `name:%N`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Left {
    pub holder: String,
    pub pane: String,
    pub go: String,
    /// Unix ms; in the server's record only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
}

/// A line the app sends to a feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum AppLine {
    /// The app holds the machine's lease, renewed.
    Lease { holder: String },
    /// Every machine's agents that need you, in the app's names
    /// (`studio:%16`), and this machine's own name among them.
    Walk { you: String, stops: Vec<String> },
    #[serde(other)]
    Other,
}

impl AppLine {
    pub(crate) fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The walk as the feed keeps it in the server (`@agent_wizard_walk`),
/// where the notification key of the app's attach reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Walk {
    pub you: String,
    pub stops: Vec<String>,
    /// The app that sent it, and when (Unix ms).
    pub holder: String,
    pub at: u64,
}

/// Who the app's attach there is (`@agent_wizard_entered`): the client's
/// terminal and the app's holder name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Entered {
    pub tty: String,
    pub holder: String,
}

/// The toast a watcher showed, kept on its pane (`@agent_toast`) for the
/// feed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct PaneToast {
    pub at: u64,
    /// `done` or `request`.
    pub kind: String,
    pub text: String,
    /// The agent's id.
    pub agent: String,
    pub location: String,
}

/// This machine's lease (`<state>/machine-lease.json`): the app that holds
/// it, and when it was last renewed (Unix ms).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Lease {
    pub holder: String,
    pub at: u64,
}

/// A record kept as JSON text (a server option, a pane option), read with
/// its defaults; none when it is empty or not JSON.
pub(crate) fn read_kept<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_str(text).ok()
}

/// A record as the JSON text it is kept as.
pub(crate) fn kept(record: &impl Serialize) -> String {
    serde_json::to_string(record).unwrap_or_default()
}

/// The first line of a feed, read as its hello.
pub(crate) fn read_hello(text: &str) -> Option<Hello> {
    match serde_json::from_str(text.lines().next()?).ok()? {
        FeedLine::Hello(hello) => Some(hello),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hello_is_read_with_defaults() {
        let hello =
            read_hello("{\"type\":\"hello\",\"taw\":\"0.2.0\",\"protocol\":1,\"new\":true}\n{}")
                .unwrap();
        assert_eq!(hello.taw, "0.2.0");
        assert_eq!(hello.protocol, 1);
        assert_eq!(hello.host, "");
        assert!(read_hello("{\"type\":\"state\"}").is_none());
        assert!(read_hello("garbage").is_none());
    }

    #[test]
    fn lines_of_a_newer_taw_are_read_or_passed_over() {
        let line = "{\"type\":\"state\",\"spaces\":[{\"workspace_id\":\"w1\",\"tmux_id\":\"$2\",\"label\":\"api\",\"new\":1}],\"tabs\":[{\"tab_id\":\"w1:t1\",\"tmux_id\":\"@4\",\"active\":true}],\"future\":[]}";
        let FeedLine::State(state) = serde_json::from_str(line).unwrap() else {
            panic!("a state")
        };
        assert_eq!(state.spaces[0].label, "api");
        assert!(state.tabs[0].active && state.tabs[0].tab.tmux_id == "@4");
        assert_eq!(
            serde_json::from_str::<FeedLine>("{\"type\":\"weather\"}").unwrap(),
            FeedLine::Other
        );
        assert_eq!(
            serde_json::from_str::<FeedLine>("{\"type\":\"ping\"}").unwrap(),
            FeedLine::Ping
        );
        let walk = AppLine::Walk {
            you: "studio".into(),
            stops: vec!["laptop:%3".into()],
        };
        assert_eq!(
            walk.to_line(),
            "{\"type\":\"walk\",\"you\":\"studio\",\"stops\":[\"laptop:%3\"]}"
        );
        assert_eq!(
            serde_json::from_str::<AppLine>(&walk.to_line()).unwrap(),
            walk
        );
    }

    #[test]
    fn a_state_says_what_it_has_and_leaves_out_what_it_has_not() {
        let text = FeedLine::State(State::default()).to_line();
        assert_eq!(
            text,
            "{\"type\":\"state\",\"spaces\":[],\"tabs\":[],\"panes\":[],\"agents\":[],\"worktrees\":[]}"
        );
    }
}
