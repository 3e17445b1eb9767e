//! `taw machine feed`: what a machine tells the app over ssh, one JSON
//! object a line (protocol 1). The machine sends `hello` first, then
//! `state` whenever what the list draws changes, `toast` for each toast
//! its watchers show, and `ping` when it has been quiet; the app sends
//! `lease` and `walk`. Every field is read with a default, so a field a
//! newer taw adds stops no older one.

use crate::model::Records;
use crate::tmux::Tmux;
use crate::tmux::snapshot::Snapshot;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The one protocol there is.
pub(crate) const PROTOCOL: u32 = 1;
/// A quiet feed says it is there this often.
const PING_EVERY: Duration = Duration::from_secs(15);
/// With no look from any watcher, the server is read again this often.
const STRUCTURE_EVERY: Duration = Duration::from_secs(1);

/// `hello`, always first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Hello {
    #[serde(default)]
    pub taw: String,
    #[serde(default)]
    pub protocol: u32,
    #[serde(default)]
    pub host: String,
    /// `<tmux server pid> <start unix seconds>`, empty with no server.
    #[serde(default)]
    pub server: String,
}

/// A line the app sends: `lease` (holder) or `walk` (you, stops). Fields
/// not known here are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
struct FromApp {
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    holder: String,
    #[serde(default)]
    you: String,
    #[serde(default)]
    stops: Vec<String>,
}

/// This machine's host name.
pub(crate) fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer outlives the call, which writes at most its length.
    let done = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if done != 0 {
        return String::new();
    }
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

fn hello(snapshot: Option<&Snapshot>) -> Hello {
    Hello {
        taw: env!("CARGO_PKG_VERSION").to_string(),
        protocol: PROTOCOL,
        host: host_name(),
        server: snapshot
            .map(|s| format!("{} {}", s.server.pid, s.server.start_time))
            .unwrap_or_default(),
    }
}

/// `state`: everything the list draws of this machine. `tabs` (the
/// windows, with `active`: the session's current one) is taw's, for the
/// list's window rows.
fn state(snapshot: Option<&Snapshot>, worktrees: &Worktrees, checkouts: &Checkouts) -> Value {
    let Some(snapshot) = snapshot else {
        return json!({"type": "state", "spaces": [], "tabs": [], "panes": [], "agents": [], "worktrees": []});
    };
    let records = Records::new(snapshot);
    let tabs: Vec<Value> = snapshot
        .windows
        .iter()
        .map(|window| {
            let mut tab = serde_json::to_value(records.tab(window)).unwrap_or_default();
            tab["active"] = json!(window.active);
            tab
        })
        .collect();
    let mut state = json!({
        "type": "state",
        "spaces": records.workspaces(),
        "tabs": tabs,
        "panes": records.panes(None),
        "agents": records.agents(),
        "worktrees": worktrees.closed,
    });
    if !worktrees.open.is_empty() {
        state["open_worktrees"] = json!(worktrees.open);
    }
    if !checkouts.found.is_empty() {
        state["git"] = json!(checkouts.found);
    }
    state
}

/// The git status of each session's folder, for the branch the list
/// draws beside a session (by its `$N`): read when the sessions or their
/// folders change, and every GIT_EVERY (a commit or a checkout made
/// there). A folder git does not answer for within GIT_STATUS_LIMIT (a
/// slow mount) has none, so that the feed's lines are not held up.
#[derive(Debug, Default)]
struct Checkouts {
    folders: Vec<(u32, String)>,
    read_at: Option<Instant>,
    found: Vec<Value>,
}

impl Checkouts {
    fn refresh(&mut self, snapshot: Option<&Snapshot>) {
        let folders: Vec<(u32, String)> = snapshot
            .map(|s| {
                s.sessions
                    .iter()
                    .filter(|s| !s.path.is_empty())
                    .map(|s| (s.id, s.path.clone()))
                    .collect()
            })
            .unwrap_or_default();
        if folders == self.folders && fresh(self.read_at) {
            return;
        }
        self.read_at = Some(Instant::now());
        let mut read: HashMap<&str, Option<crate::git::Status>> = HashMap::new();
        self.found = folders
            .iter()
            .filter_map(|(session, folder)| {
                let status = read
                    .entry(folder)
                    .or_insert_with(|| {
                        crate::git::Status::read(std::path::Path::new(folder), GIT_STATUS_LIMIT)
                    })
                    .clone()?;
                let mut entry = serde_json::to_value(status).ok()?;
                entry["tmux_id"] = json!(format!("${session}"));
                Some(entry)
            })
            .collect();
        self.folders = folders;
    }
}

/// The worktrees of the repositories' sessions, read with git: those no
/// session runs (which the list draws under their repository's session),
/// and those one does.
#[derive(Debug, Default)]
struct Worktrees {
    asked_for: WorktreesKey,
    read_at: Option<Instant>,
    closed: Vec<Value>,
    open: Vec<Value>,
}

/// What a change of makes git be asked about worktrees again.
#[derive(Debug, Default, PartialEq, Eq)]
struct WorktreesKey {
    /// The repositories' sessions.
    heads: Vec<u32>,
    /// Every session: a worktree's opened or closed.
    sessions: Vec<u32>,
    /// The server's mark of the last removal.
    removed_at: String,
}

/// git is asked again this often even when nothing here says a checkout
/// changed (a worktree made or removed by hand, a commit).
const GIT_EVERY: Duration = Duration::from_secs(15);
/// How long the feed waits for one folder's `git status`.
const GIT_STATUS_LIMIT: Duration = Duration::from_secs(2);

/// Read within GIT_EVERY.
fn fresh(read_at: Option<Instant>) -> bool {
    read_at.is_some_and(|at| at.elapsed() < GIT_EVERY)
}

impl Worktrees {
    fn refresh(&mut self, snapshot: Option<&Snapshot>) {
        let key = snapshot
            .map(|s| WorktreesKey {
                heads: crate::ops::worktree::heads(s),
                sessions: s.sessions.iter().map(|s| s.id).collect(),
                removed_at: s.server.worktrees_changed.clone(),
            })
            .unwrap_or_default();
        if key == self.asked_for && fresh(self.read_at) {
            return;
        }
        self.asked_for = key;
        self.read_at = Some(Instant::now());
        self.closed.clear();
        self.open.clear();
        let Some(snapshot) = snapshot else { return };
        for head in &self.asked_for.heads {
            let source = crate::ops::worktree::Source::Workspace(*head);
            let Ok(listed) = crate::ops::worktree::list(snapshot, &source) else {
                continue;
            };
            let real_root = real_path(&listed.source.repo_root);
            for worktree in listed
                .worktrees
                .into_iter()
                .filter(|w| w.is_linked_worktree)
            {
                let open = worktree.open_workspace_id.is_some();
                let mut record = serde_json::to_value(&worktree).unwrap_or_default();
                record["head"] = json!(format!("${head}"));
                if let Some(real) = real_path(&worktree.path) {
                    record["real_path"] = json!(real);
                }
                if let Some(real) = &real_root {
                    record["real_repo_root"] = json!(real);
                }
                if open {
                    self.open.push(record);
                } else {
                    self.closed.push(record);
                }
            }
        }
    }
}

/// A folder that sits behind a link, resolved; none for one that does not.
fn real_path(path: &str) -> Option<String> {
    let real = std::fs::canonicalize(path).ok()?;
    (real != std::path::Path::new(path)).then(|| real.display().to_string())
}

/// The toasts the watchers recorded (`@agent_toast`), by pane.
fn toasts(snapshot: Option<&Snapshot>) -> HashMap<u32, String> {
    snapshot
        .map(|s| {
            s.unique_panes()
                .into_iter()
                .filter(|p| !p.toast.is_empty())
                .map(|p| (p.id, p.toast.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// A toast line from what a watcher recorded.
fn toast_line(pane: u32, recorded: &str, lease: bool) -> Option<Value> {
    let toast: Value = serde_json::from_str(recorded).ok()?;
    let text = toast["text"].as_str().unwrap_or_default().to_string();
    let agent_kind = toast["agent"].as_str().unwrap_or_default().to_string();
    let agent = crate::detect::agents::by_id(&agent_kind)
        .map(|a| a.name.to_string())
        .unwrap_or_else(|| agent_kind.clone());
    Some(json!({
        "type": "toast",
        "kind": toast["kind"].as_str().unwrap_or("done"),
        "pane": format!("%{pane}"),
        "text": text,
        "title": agent,
        "body": toast["location"].as_str().unwrap_or_default(),
        "agent": agent,
        "agent_kind": agent_kind,
        "location": toast["location"].as_str().unwrap_or_default(),
        "lease": lease,
    }))
}

/// Writes one line; false once the app has gone (a closed pipe).
fn send(out: &mut impl Write, line: &Value) -> bool {
    let Ok(text) = serde_json::to_string(line) else {
        return true;
    };
    writeln!(out, "{text}").and_then(|_| out.flush()).is_ok()
}

/// What a machine has, read as the lines of its feed: `hello` and `state`
/// first, then a `state` whenever what the list draws changes and a
/// `toast` for each toast a watcher shows. The feed and the app's own
/// machine read it alike.
pub(crate) struct Source {
    tmux: Tmux,
    state_dir: std::path::PathBuf,
    server: u32,
    waiter: Option<crate::watch::waiters::Waiter>,
    last_state: Value,
    seen_toasts: HashMap<u32, String>,
    /// `@agent_wizard_left` as last seen: a new one is a `left` line.
    last_left: String,
    worktrees: Worktrees,
    checkouts: Checkouts,
}

impl Source {
    /// The source and its first lines: hello, then state.
    pub(crate) fn start(tmux: &Tmux) -> (Source, Vec<Value>) {
        let snapshot = Snapshot::read(tmux).ok();
        let mut greeting = serde_json::to_value(hello(snapshot.as_ref())).unwrap_or_default();
        greeting["type"] = json!("hello");
        let mut worktrees = Worktrees::default();
        worktrees.refresh(snapshot.as_ref());
        let mut checkouts = Checkouts::default();
        checkouts.refresh(snapshot.as_ref());
        let first_state = state(snapshot.as_ref(), &worktrees, &checkouts);
        let mut source = Source {
            tmux: tmux.clone(),
            state_dir: crate::paths::state_dir(),
            server: 0,
            waiter: None,
            last_state: first_state.clone(),
            seen_toasts: toasts(snapshot.as_ref()),
            last_left: snapshot
                .as_ref()
                .map(|s| s.server.left.clone())
                .unwrap_or_default(),
            worktrees,
            checkouts,
        };
        source.follow_server(snapshot.as_ref());
        (source, vec![greeting, first_state])
    }

    /// The watchers of the server wake the source after each look; a
    /// server started (or started again) since has watchers of its own.
    fn follow_server(&mut self, snapshot: Option<&Snapshot>) {
        let now = snapshot.map(|s| s.server.pid).unwrap_or(0);
        if now != self.server || (now != 0 && self.waiter.is_none()) {
            self.server = now;
            self.waiter = (now != 0)
                .then(|| crate::watch::waiters::Waiter::any(&self.state_dir, now))
                .flatten();
        }
    }

    /// Waits up to a second for a watcher's look; the lines it brings.
    /// The server is read then whether a look came or not, as the popup
    /// reads it, for what no watcher tells (a session renamed, a window
    /// closed, a server gone). `lease`: the app holds a fresh lease.
    pub(crate) fn next(&mut self, lease: bool) -> Vec<Value> {
        match &self.waiter {
            Some(waiter) => {
                waiter.wait_panes(STRUCTURE_EVERY);
            }
            None => std::thread::sleep(STRUCTURE_EVERY),
        }
        let snapshot = Snapshot::read(&self.tmux).ok();
        self.follow_server(snapshot.as_ref());
        let mut lines = Vec::new();
        self.worktrees.refresh(snapshot.as_ref());
        self.checkouts.refresh(snapshot.as_ref());
        let now_state = state(snapshot.as_ref(), &self.worktrees, &self.checkouts);
        if now_state != self.last_state {
            lines.push(now_state.clone());
            self.last_state = now_state;
        }
        let now_toasts = toasts(snapshot.as_ref());
        for (pane, recorded) in &now_toasts {
            if self.seen_toasts.get(pane) != Some(recorded)
                && let Some(line) = toast_line(*pane, recorded, lease)
            {
                lines.push(line);
            }
        }
        self.seen_toasts = now_toasts;
        if let Some(snapshot) = &snapshot
            && snapshot.server.left != self.last_left
        {
            self.last_left = snapshot.server.left.clone();
            if let Ok(left) = serde_json::from_str::<Value>(&self.last_left) {
                lines.push(json!({
                    "type": "left",
                    "holder": left["holder"].as_str().unwrap_or_default(),
                    "pane": left["pane"].as_str().unwrap_or_default(),
                    "go": left["go"].as_str().unwrap_or_default(),
                }));
            }
        }
        lines
    }
}

/// Runs the feed until the app goes (its end of the pipe closes, or it
/// closes our standard input). `once`: hello and one state, then done.
pub(crate) fn run(tmux: &Tmux, once: bool) -> i32 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (mut source, first) = Source::start(tmux);
    for line in &first {
        if !send(&mut out, line) {
            return 0;
        }
    }
    if once {
        return 0;
    }
    // What the app says, read beside: its lease, and its end.
    let gone = Arc::new(AtomicBool::new(false));
    let lease_at = Arc::new(AtomicU64::new(0));
    let holder = Arc::new(Mutex::new(String::new()));
    {
        let (gone, lease_at, holder) = (gone.clone(), lease_at.clone(), holder.clone());
        let tmux = tmux.clone();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                let said: FromApp = serde_json::from_str(&line).unwrap_or_default();
                if said.kind == "lease" {
                    lease_at.store(crate::clock::now_ms(), Ordering::Relaxed);
                    super::record_lease(&said.holder);
                    if let Ok(mut kept) = holder.lock() {
                        *kept = said.holder;
                    }
                } else if said.kind == "walk" {
                    // Kept in the server, where the notification key of
                    // the app's attach reads it.
                    let by = holder.lock().map(|h| h.clone()).unwrap_or_default();
                    let walk = json!({
                        "you": said.you,
                        "stops": said.stops,
                        "holder": by,
                        "at": crate::clock::now_ms(),
                    });
                    let _ = tmux.run_one(crate::tmux::commands::set_global_option(
                        crate::tmux::options::bookkeeping::WALK,
                        &walk.to_string(),
                    ));
                }
            }
            gone.store(true, Ordering::Relaxed);
        });
    }
    let mut last_sent = Instant::now();
    loop {
        let fresh = crate::clock::now_ms().saturating_sub(lease_at.load(Ordering::Relaxed))
            < super::LEASE_FRESH.as_millis() as u64;
        let lines = source.next(fresh);
        if gone.load(Ordering::Relaxed) {
            return 0;
        }
        for line in &lines {
            if !send(&mut out, line) {
                return 0;
            }
            last_sent = Instant::now();
        }
        if last_sent.elapsed() >= PING_EVERY {
            if !send(&mut out, &json!({"type": "ping"})) {
                return 0;
            }
            last_sent = Instant::now();
        }
    }
}

/// The first line of a feed, read as its hello.
pub(crate) fn read_hello(text: &str) -> Option<Hello> {
    let first = text.lines().next()?;
    let value: Value = serde_json::from_str(first).ok()?;
    if value["type"] != "hello" {
        return None;
    }
    serde_json::from_value(value).ok()
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
    fn a_toast_line_from_a_watchers_record() {
        let line = toast_line(
            7,
            "{\"at\":1,\"kind\":\"request\",\"text\":\"Claude Code needs you in main:1 (x)\",\"agent\":\"claude\",\"location\":\"main:1 (x)\"}",
            true,
        )
        .unwrap();
        assert_eq!(line["type"], "toast");
        assert_eq!(line["pane"], "%7");
        assert_eq!(line["kind"], "request");
        assert_eq!(line["agent"], "Claude Code");
        assert_eq!(line["agent_kind"], "claude");
        assert_eq!(line["lease"], true);
        assert!(toast_line(1, "not json", false).is_none());
    }
}
