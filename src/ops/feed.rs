//! `taw machine feed`: what a machine has, as the lines of protocol 1
//! (`machine::protocol`), one JSON object a line. [`Source`] reads the
//! server and says what changed; the far `machine feed` and `taw app`'s
//! own machine share it. [`run`] is the feed itself: `hello` first, then
//! `state` whenever what the list draws changes, `toast` for each toast
//! its watchers show, `left` when an attach of the app's ends, `ping` when
//! it has been quiet; it reads the app's `lease` and `walk` beside.

use crate::machine::protocol::{
    self, AppLine, Checkout, FeedLine, FeedTab, FeedWorktree, Hello, Left, PaneToast, State, Toast,
    Walk,
};
use crate::model::Records;
use crate::tmux::Tmux;
use crate::tmux::snapshot::Snapshot;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A quiet feed says it is there this often.
const PING_EVERY: Duration = Duration::from_secs(15);
/// With no look from any watcher, the server is read again this often.
const STRUCTURE_EVERY: Duration = Duration::from_secs(1);
/// git is asked again this often even when nothing here says a checkout
/// changed (a worktree made or removed by hand, a commit).
const GIT_EVERY: Duration = Duration::from_secs(15);
/// How long the feed waits for one folder's `git status`.
const GIT_STATUS_LIMIT: Duration = Duration::from_secs(2);

fn hello(snapshot: Option<&Snapshot>) -> Hello {
    Hello {
        taw: env!("CARGO_PKG_VERSION").to_string(),
        protocol: protocol::PROTOCOL,
        host: crate::machine::host_name(),
        server: snapshot
            .map(|s| format!("{} {}", s.server.pid, s.server.start_time))
            .unwrap_or_default(),
    }
}

/// `state`: everything the list draws of this machine.
fn state(snapshot: Option<&Snapshot>, worktrees: &Worktrees, checkouts: &Checkouts) -> State {
    let Some(snapshot) = snapshot else {
        return State::default();
    };
    let records = Records::new(snapshot);
    State {
        spaces: records.workspaces(),
        tabs: snapshot
            .windows
            .iter()
            .map(|window| FeedTab {
                tab: records.tab(window),
                active: window.active,
            })
            .collect(),
        panes: records.panes(None),
        agents: records.agents(),
        worktrees: worktrees.closed.clone(),
        open_worktrees: worktrees.open.clone(),
        git: checkouts.found.clone(),
    }
}

/// Read within GIT_EVERY.
fn fresh(read_at: Option<Instant>) -> bool {
    read_at.is_some_and(|at| at.elapsed() < GIT_EVERY)
}

/// The git status of each session's folder, for the branch the list
/// draws beside a session: read when the sessions or their folders
/// change, and every GIT_EVERY (a commit or a checkout made there). A
/// folder git does not answer for within GIT_STATUS_LIMIT (a slow mount)
/// has none, so that the feed's lines are not held up.
#[derive(Debug, Default)]
struct Checkouts {
    folders: Vec<(u32, String)>,
    read_at: Option<Instant>,
    found: Vec<Checkout>,
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
                Some(Checkout {
                    status,
                    tmux_id: format!("${session}"),
                })
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
    closed: Vec<FeedWorktree>,
    open: Vec<FeedWorktree>,
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

impl Worktrees {
    fn refresh(&mut self, snapshot: Option<&Snapshot>) {
        let key = snapshot
            .map(|s| WorktreesKey {
                heads: super::worktree::heads(s),
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
            let source = super::worktree::Source::Workspace(*head);
            let Ok(listed) = super::worktree::list(snapshot, &source) else {
                continue;
            };
            let real_root = real_path(&listed.source.repo_root);
            for worktree in listed
                .worktrees
                .into_iter()
                .filter(|w| w.is_linked_worktree)
            {
                let open = worktree.open_workspace_id.is_some();
                let record = FeedWorktree {
                    real_path: real_path(&worktree.path),
                    real_repo_root: real_root.clone(),
                    head: format!("${head}"),
                    worktree,
                };
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
fn toast_line(pane: u32, recorded: &str, lease: bool) -> Option<Toast> {
    let toast: PaneToast = protocol::read_kept(recorded)?;
    let agent = crate::detect::agents::by_id(&toast.agent)
        .map(|a| a.name.to_string())
        .unwrap_or_else(|| toast.agent.clone());
    Some(Toast {
        kind: if toast.kind.is_empty() {
            "done".into()
        } else {
            toast.kind
        },
        pane: format!("%{pane}"),
        text: toast.text,
        title: agent.clone(),
        body: toast.location.clone(),
        agent,
        agent_kind: toast.agent,
        location: toast.location,
        lease,
    })
}

/// Writes one line; false once the app has gone (a closed pipe).
fn send(out: &mut impl Write, line: &FeedLine) -> bool {
    writeln!(out, "{}", line.to_line())
        .and_then(|_| out.flush())
        .is_ok()
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
    last_state: State,
    seen_toasts: HashMap<u32, String>,
    /// `@agent_wizard_left` as last seen: a new one is a `left` line.
    last_left: String,
    worktrees: Worktrees,
    checkouts: Checkouts,
}

impl Source {
    /// The source and its first lines: hello, then state.
    pub(crate) fn start(tmux: &Tmux) -> (Source, Vec<FeedLine>) {
        let snapshot = Snapshot::read(tmux).ok();
        let greeting = FeedLine::Hello(hello(snapshot.as_ref()));
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
        (source, vec![greeting, FeedLine::State(first_state)])
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
    pub(crate) fn next(&mut self, lease: bool) -> Vec<FeedLine> {
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
            lines.push(FeedLine::State(now_state.clone()));
            self.last_state = now_state;
        }
        let now_toasts = toasts(snapshot.as_ref());
        for (pane, recorded) in &now_toasts {
            if self.seen_toasts.get(pane) != Some(recorded)
                && let Some(toast) = toast_line(*pane, recorded, lease)
            {
                lines.push(FeedLine::Toast(toast));
            }
        }
        self.seen_toasts = now_toasts;
        if let Some(snapshot) = &snapshot
            && snapshot.server.left != self.last_left
        {
            self.last_left = snapshot.server.left.clone();
            if let Some(left) = protocol::read_kept::<Left>(&self.last_left) {
                lines.push(FeedLine::Left(Left { at: None, ..left }));
            }
        }
        lines
    }
}

/// What the app has said so far: the lease's holder and when it was last
/// renewed, and whether it has gone.
#[derive(Default)]
struct FromApp {
    gone: AtomicBool,
    lease_at: AtomicU64,
    holder: Mutex<String>,
}

impl FromApp {
    /// Reads the app's lines until it goes: a lease is recorded here (its
    /// holder speaks this machine's toasts), a walk kept in the server,
    /// where the notification key of the app's attach reads it.
    fn read(&self, tmux: &Tmux, input: impl BufRead) {
        for line in input.lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<AppLine>(&line) {
                Ok(AppLine::Lease { holder }) => {
                    self.lease_at
                        .store(crate::clock::now_ms(), Ordering::Relaxed);
                    crate::machine::record_lease(&holder);
                    if let Ok(mut kept) = self.holder.lock() {
                        *kept = holder;
                    }
                }
                Ok(AppLine::Walk { you, stops }) => {
                    let walk = Walk {
                        you,
                        stops,
                        holder: self.holder.lock().map(|h| h.clone()).unwrap_or_default(),
                        at: crate::clock::now_ms(),
                    };
                    // A walk that does not reach the server is a walk the
                    // next renewal brings again.
                    let _ = tmux.run_one(crate::tmux::commands::set_global_option(
                        crate::tmux::options::bookkeeping::WALK,
                        &protocol::kept(&walk),
                    ));
                }
                Ok(AppLine::Other) | Err(_) => {}
            }
        }
        self.gone.store(true, Ordering::Relaxed);
    }

    fn leased(&self) -> bool {
        protocol::fresh(self.lease_at.load(Ordering::Relaxed))
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
    let app = Arc::new(FromApp::default());
    {
        let (app, tmux) = (app.clone(), tmux.clone());
        std::thread::spawn(move || app.read(&tmux, std::io::stdin().lock()));
    }
    let mut last_sent = Instant::now();
    loop {
        let lines = source.next(app.leased());
        if app.gone.load(Ordering::Relaxed) {
            return 0;
        }
        for line in &lines {
            if !send(&mut out, line) {
                return 0;
            }
            last_sent = Instant::now();
        }
        if last_sent.elapsed() >= PING_EVERY {
            if !send(&mut out, &FeedLine::Ping) {
                return 0;
            }
            last_sent = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toast_line_from_a_watchers_record() {
        let toast = toast_line(
            7,
            "{\"at\":1,\"kind\":\"request\",\"text\":\"Claude Code needs you in main:1 (x)\",\"agent\":\"claude\",\"location\":\"main:1 (x)\"}",
            true,
        )
        .unwrap();
        assert_eq!(toast.pane, "%7");
        assert_eq!(toast.kind, "request");
        assert_eq!(toast.agent, "Claude Code");
        assert_eq!(toast.agent_kind, "claude");
        assert!(toast.lease);
        let line = FeedLine::Toast(toast).to_line();
        assert!(
            line.starts_with("{\"type\":\"toast\",\"kind\":\"request\""),
            "{line}"
        );
        assert!(toast_line(1, "not json", false).is_none());
    }
}
