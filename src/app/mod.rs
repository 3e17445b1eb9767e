//! `taw app`: the list the popup draws (`list/`), full-screen, of this
//! machine and every machine of `[machines]`, each read from its feed (this
//! one's in this process, the others' over ssh), live: its rows, keys,
//! questions and preview over one snapshot of every machine (`far`); what a
//! key does on a far row runs there as its verb, over ssh.
//! Enter goes there (a far one through `taw machine attach`) and comes back
//! to the list when that ends; toasts from every machine show at the
//! bottom. A machine that drops is marked offline and tried again by
//! itself.

pub(crate) mod machines;
pub(crate) mod merged_list;

use crate::config::Config;
use crate::envelope::TawError;
use crate::exec::Program;
use crate::list::keymap::Keymap;
use crate::list::rows::{ClosedWorktree, Target};
use crate::list::terminal::{self, KeyGate, Screen};
use crate::list::{Effect, List, runner};
use crate::machine::protocol::{AppLine, FeedLine};
use crate::machine::{self, Heard, Machine};
use crate::ops;
use crate::ops::feed;
use crate::tmux::Tmux;
use crate::tmux::pane::{self as tmux_pane, ReadSource};
use crate::tmux::snapshot::Snapshot;
use machines::{MachineView, Place};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A dropped machine is tried again after this long.
const RETRY: Duration = Duration::from_secs(5);
/// The app renews its lease on each machine this often.
const LEASE_EVERY: Duration = Duration::from_secs(20);
/// A far pane's preview costs an ssh: the same pane is read again at most
/// this often.
const FAR_PREVIEW_EVERY: Duration = Duration::from_secs(2);
/// What a key does on a far row (a rename, a close) may take this long.
const FAR_VERB_LIMIT: Duration = Duration::from_secs(60);
const TOASTS_SHOWN: usize = 3;

enum Msg {
    Key(crossterm::event::KeyEvent),
    Resize,
    /// This machine's tmux, read again.
    Here(Box<Snapshot>),
    /// A line of machine `n`'s feed (0: this one's toasts).
    Line(usize, FeedLine),
    /// Machine `n`'s feed ended, and why.
    Dropped(usize, String),
    Preview(u32, String),
    /// Machine `n`'s folders for a query, or why it gave none.
    Directories(usize, String, Result<Vec<String>, String>),
    Projects(String, Vec<String>),
    /// This machine's worktrees that no session runs.
    Worktrees(Vec<ClosedWorktree>),
    Acted(Acted),
}

/// How an action on some machine ended.
enum Acted {
    Fine,
    Failed(String),
    /// A question a yes answers by doing `Effect`.
    Ask(String, Effect),
    /// A far session was made or opened: attach to it there.
    Attach(usize, String),
}

impl From<terminal::Input> for Msg {
    fn from(input: terminal::Input) -> Msg {
        match input {
            terminal::Input::Key(key) => Msg::Key(key),
            terminal::Input::Resize => Msg::Resize,
        }
    }
}

/// The new-session picker's folders are looked for on machine `n`.
type Job = runner::Job<usize>;

/// `<host>-<pid>`: who holds the lease.
fn holder() -> String {
    format!("{}-{}", machine::host_name(), std::process::id())
}

/// This machine: its tmux read after each watcher's look (and at least
/// every second, for what no watcher tells), and its feed's toasts.
fn spawn_here(tmux: Tmux, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let (mut source, first) = feed::Source::start(&tmux);
        let mut lines = first;
        loop {
            for line in lines {
                if tx.send(Msg::Line(0, line)).is_err() {
                    return;
                }
            }
            if let Ok(snapshot) = Snapshot::read(&tmux)
                && tx.send(Msg::Here(Box::new(snapshot))).is_err()
            {
                return;
            }
            lines = source.next(true);
        }
    });
}

/// What the app says to one machine: its walk (its `walk` line, and a
/// count that goes up with each new one), told to the feed's writer.
#[derive(Default)]
struct Outbox {
    walk: Mutex<(u64, Option<AppLine>)>,
    changed: Condvar,
}

impl Outbox {
    fn set_walk(&self, walk: Option<AppLine>) {
        if let Ok(mut kept) = self.walk.lock() {
            *kept = (kept.0 + 1, walk);
            self.changed.notify_all();
        }
    }
}

/// Writes the app's lines to a feed: the lease and the walk first, the
/// walk again each time it changes, and both every LEASE_EVERY (the far
/// side keeps a walk only while it is renewed). Ends when the feed has.
fn write_to_feed(mut stdin: impl Write, outbox: &Outbox) {
    let lease = AppLine::Lease { holder: holder() }.to_line();
    let mut sent: Option<u64> = None;
    let mut leased: Option<Instant> = None;
    loop {
        let renew = leased.is_none_or(|at| at.elapsed() >= LEASE_EVERY);
        let (version, walk) = match outbox.walk.lock() {
            Ok(kept) => kept.clone(),
            Err(_) => return,
        };
        let mut lines = Vec::new();
        if renew {
            lines.push(lease.clone());
            leased = Some(Instant::now());
        }
        if (renew || sent != Some(version))
            && let Some(walk) = walk
        {
            lines.push(walk.to_line());
        }
        sent = Some(version);
        for line in lines {
            if writeln!(stdin, "{line}")
                .and_then(|_| stdin.flush())
                .is_err()
            {
                return;
            }
        }
        // Until the walk changes, or the lease is due.
        let due = LEASE_EVERY.saturating_sub(leased.map_or(Duration::ZERO, |at| at.elapsed()));
        let Ok(kept) = outbox.walk.lock() else { return };
        // Woken or timed out alike, the loop looks again.
        let _ = outbox
            .changed
            .wait_timeout_while(kept, due, |k| Some(k.0) == sent);
    }
}

/// The most a feed's line may hold: a state of hundreds of panes is well
/// under it; a far side that writes without end is not kept in memory.
const FEED_LINE_MAX: u64 = 16 << 20;

/// The next line of a feed into `line`: `Some(true)` a whole one,
/// `Some(false)` one of `max` bytes or more (read to its end and dropped),
/// `None` at the feed's end.
fn feed_line(reader: &mut impl std::io::BufRead, line: &mut Vec<u8>, max: u64) -> Option<bool> {
    use std::io::{BufRead, Read};
    line.clear();
    match reader.by_ref().take(max).read_until(b'\n', line) {
        Ok(0) | Err(_) => return None,
        Ok(_) if line.ends_with(b"\n") || (line.len() as u64) < max => return Some(true),
        Ok(_) => {}
    }
    // Too long: the rest of it goes unread into nothing.
    loop {
        let (skipped, ended) = match reader.fill_buf() {
            Ok([]) | Err(_) => return None,
            Ok(bytes) => match bytes.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (bytes.len(), false),
            },
        };
        reader.consume(skipped);
        if ended {
            line.clear();
            return Some(false);
        }
    }
}

/// A far machine's feed over ssh, started again when it drops.
fn spawn_far(index: usize, far: Machine, outbox: Arc<Outbox>, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let args = words(&["machine", "feed", "--protocol", "1"]);
        loop {
            let why = match machine::ssh(&far, &args, false).start_streaming() {
                Err(failure) => failure.describe("ssh"),
                Ok(mut stream) => {
                    if let Some(stdin) = stream.stdin.take() {
                        let outbox = outbox.clone();
                        std::thread::spawn(move || write_to_feed(stdin, &outbox));
                    }
                    if let Some(stdout) = stream.stdout.take() {
                        let mut reader = BufReader::new(stdout);
                        let mut line = Vec::new();
                        // To the feed's end: a line that is not a record (not
                        // UTF-8, a motd's, too long) is passed over, never the
                        // end of the reading (ssh would be waited for forever).
                        while let Some(whole) = feed_line(&mut reader, &mut line, FEED_LINE_MAX) {
                            let Some(value) = whole
                                .then(|| serde_json::from_slice::<FeedLine>(&line).ok())
                                .flatten()
                            else {
                                continue;
                            };
                            if tx.send(Msg::Line(index, value)).is_err() {
                                return;
                            }
                        }
                    }
                    let (said, status) = stream.finish();
                    said.lines()
                        .rev()
                        .map(str::trim)
                        .find(|l| !l.is_empty())
                        .map(str::to_string)
                        .unwrap_or_else(|| match status {
                            Some(code) => format!("its feed ended (ssh exited {code})"),
                            None => "its feed ended".to_string(),
                        })
                }
            };
            if tx.send(Msg::Dropped(index, why)).is_err() {
                return;
            }
            std::thread::sleep(RETRY);
        }
    });
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The calls the list asks for that may take a while (a preview over ssh,
/// git), one at a time, repeated asks folded into one.
fn spawn_worker(
    tmux: Tmux,
    config: Config,
    far: Vec<Machine>,
    jobs: Receiver<Job>,
    tx: Sender<Msg>,
) {
    let mut last_far: Option<(u32, Instant)> = None;
    runner::spawn_worker(jobs, move |asked| {
        let mut out = Vec::new();
        for query in asked.projects {
            let found = crate::sessions::folders::directories(&config, &query);
            out.push(Msg::Projects(query, found));
        }
        if let Some((index, query)) = asked.directories {
            let found = match index {
                0 => Ok(crate::sessions::folders::directories(&config, &query)),
                _ => far
                    .get(index - 1)
                    .map_or(Ok(Vec::new()), |m| far_folders(m, &query)),
            };
            out.push(Msg::Directories(index, query, found));
        }
        if let Some(heads) = asked.worktrees
            && let Ok(snapshot) = Snapshot::read(&tmux)
        {
            out.push(Msg::Worktrees(crate::list::closed_worktrees(
                &snapshot, heads,
            )));
        }
        if let Some(id) = asked.preview {
            let (index, pane) = merged_list::lower(id);
            let text = if index == 0 {
                tmux_pane::capture(&tmux, pane, ReadSource::Visible, 0, true).ok()
            } else if last_far
                .is_some_and(|(was, at)| was == id && at.elapsed() < FAR_PREVIEW_EVERY)
            {
                None
            } else {
                last_far = Some((id, Instant::now()));
                far.get(index - 1).and_then(|m| read_far_pane(m, pane))
            };
            if let Some(text) = text {
                out.push(Msg::Preview(id, text));
            }
        }
        out.into_iter().all(|msg| tx.send(msg).is_ok())
    });
}

/// A far machine's folders for its new-session picker, or why there are
/// none (it does not answer, or its taw has no `session folders`).
fn far_folders(far: &Machine, query: &str) -> Result<Vec<String>, String> {
    let verb = words(&["session", "folders", "--", query]);
    let answer: ops::session::Folders =
        machine::answer_there(far, &verb, None, Some(Duration::from_secs(10)))
            .map_err(|error| format!("{}: {}", far.name, error.message))?;
    Ok(answer.folders)
}

/// A far pane's screen, in colour, as `pane read` gives it there.
fn read_far_pane(far: &Machine, pane: u32) -> Option<String> {
    // The screen alone, as the local preview reads it.
    let args = words(&[
        "pane",
        "read",
        &format!("%{pane}"),
        "--source",
        "visible",
        "--format",
        "ansi",
    ]);
    let output = machine::ssh(far, &args, false)
        .limit(Some(Duration::from_secs(10)))
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The id a row's target has on its own machine, and that machine.
fn own_id(target: Target) -> Option<(usize, String)> {
    let (id, sigil) = match target {
        Target::Pane { pane, .. } => (pane, '%'),
        Target::Window { window, .. } => (window, '@'),
        Target::Session(session) => (session, '$'),
        Target::Folder(_) | Target::Worktree(_) | Target::Machine(_) => return None,
    };
    let (index, own) = merged_list::lower(id);
    Some((index, format!("{sigil}{own}")))
}

/// The app: the popup's list over every machine, and what it knows of each.
struct App {
    list: List,
    machines: Vec<MachineView>,
    here: Snapshot,
    /// This machine's closed worktrees (the far ones come with their state).
    here_worktrees: Vec<ClosedWorktree>,
    /// The row to select once it is there (`--go`, or where an attach
    /// there went).
    wanted: Option<Place>,
    toasts: VecDeque<String>,
    /// What the app tells each far machine (index 1 is `outboxes[0]`).
    outboxes: Vec<Arc<Outbox>>,
    /// The walk last told: the agents that need you, in the app's names.
    stops: Vec<String>,
    /// The machine the new-session picker was last opened on.
    picker: usize,
}

impl App {
    /// Every machine's snapshot and worktrees, into the list.
    fn refresh(&mut self) -> Vec<Effect> {
        self.list.sections = machines::sections(&self.machines);
        let merged = merged_list::merge(
            &self.here,
            self.machines.iter().skip(1).map(|m| &m.snapshot),
        );
        let mut closed = self.here_worktrees.clone();
        for (index, machine) in self.machines.iter().enumerate().skip(1) {
            closed.extend(merged_list::closed_worktrees(&machine.state, index));
        }
        self.list.set_closed_worktrees(closed);
        let effects = self.list.update(merged);
        self.tell_walk();
        if let Some(place) = self.wanted.clone()
            && self.select(&place)
        {
            self.wanted = None;
            return self.list.preview_effect();
        }
        effects
    }

    /// The walk: every machine's agents that need you (blocked, done), in
    /// the list's order and the app's names, told to each far machine
    /// with its own name when it changes. The notification key of an
    /// attach there goes on along it, to another machine too.
    fn tell_walk(&mut self) {
        let stops: Vec<String> = self
            .list
            .snapshot
            .unique_panes()
            .into_iter()
            .filter(|p| {
                !p.agent_kind.is_empty() && matches!(p.agent_state.as_str(), "blocked" | "done")
            })
            .filter_map(|p| {
                let (index, own) = merged_list::lower(p.id);
                Some(format!("{}:%{own}", self.machines.get(index)?.name))
            })
            .collect();
        if stops == self.stops {
            return;
        }
        for (outbox, machine) in self.outboxes.iter().zip(self.machines.iter().skip(1)) {
            outbox.set_walk(Some(AppLine::Walk {
                you: machine.name.clone(),
                stops: stops.clone(),
            }));
        }
        self.stops = stops;
    }

    /// Selects the row of a place, if it is listed.
    fn select(&mut self, place: &Place) -> bool {
        let Some(index) = self.machine_index(place) else {
            return false;
        };
        let at = self
            .list
            .shown_rows()
            .position(|row| own_id(row.target) == Some((index, place.id.clone())));
        match at {
            Some(at) => {
                self.list.selected = at;
                true
            }
            None => false,
        }
    }

    /// The machine a place is on (no name, or this machine's: 0).
    fn machine_index(&self, place: &Place) -> Option<usize> {
        match &place.machine {
            None => Some(0),
            Some(name) => self.machines.iter().position(|m| &m.name == name),
        }
    }

    fn in_picker(&self) -> bool {
        matches!(self.list.mode, crate::list::Mode::NewSession { .. })
    }

    /// The new-session picker has opened: on the selected row's machine,
    /// which it keeps while it is open whatever the list does under it.
    fn open_picker(&mut self) {
        self.picker = self.selected_machine();
        self.list.picker_place = self.machine_name(self.picker);
    }

    /// The machine of the selected row (0: this one).
    fn selected_machine(&self) -> usize {
        let Some(row) = self.list.selected_row() else {
            return 0;
        };
        match row.target {
            Target::Machine(index) => index as usize,
            Target::Worktree(_) => self
                .list
                .closed_worktree(row.target)
                .map_or(0, |w| merged_list::lower(w.head).0),
            target => own_id(target).map_or(0, |(index, _)| index),
        }
    }

    fn machine_name(&self, index: usize) -> Option<String> {
        (index > 0)
            .then(|| self.machines.get(index).map(|m| m.name.clone()))
            .flatten()
    }
}

/// The verb (and its arguments) that does an action on a far machine, by
/// that machine's own ids; none for what is not done there.
fn far_verb(snapshot: &Snapshot, effect: &Effect) -> Option<Vec<String>> {
    let id = |target: Target| own_id(target).map(|(_, id)| id);
    let session = |head: u32| format!("${}", merged_list::lower(head).1);
    let verb: Vec<String> = match effect {
        Effect::Rename(target, name) => {
            let own = id(*target)?;
            let (group, clear) = match target {
                Target::Session(_) => ("workspace", false),
                Target::Window { .. } => ("tab", false),
                Target::Pane { pane, .. } => {
                    let agent = snapshot
                        .pane(*pane, None)
                        .is_some_and(|p| !p.agent_kind.is_empty());
                    (if agent { "agent" } else { "pane" }, name.is_empty())
                }
                _ => return None,
            };
            // A name is a name even when it starts with a dash.
            match clear {
                true => words(&[group, "rename", &own, "--clear"]),
                false => words(&[group, "rename", &own, "--", name]),
            }
        }
        Effect::Close(target) => {
            let own = id(*target)?;
            let group = match target {
                Target::Session(_) => "workspace",
                Target::Window { .. } => "tab",
                _ => "pane",
            };
            words(&[group, "close", &own])
        }
        Effect::CloseGroup(head) => words(&["workspace", "close", &session(*head), "--group"]),
        Effect::NewWorktree { head, branch } => words(&[
            "worktree",
            "create",
            "--workspace",
            &session(*head),
            "--no-focus",
            &format!("--branch={branch}"),
        ]),
        Effect::OpenWorktree { head, path } => words(&[
            "worktree",
            "open",
            "--workspace",
            &session(*head),
            &format!("--path={path}"),
            "--no-focus",
        ]),
        Effect::OpenSession(folder) => words(&["session", "open", "--no-focus", "--", folder]),
        Effect::RemoveWorktree { path, force, .. } => {
            let mut verb = words(&["worktree", "remove", &format!("--path={path}")]);
            if *force {
                verb.push("--force".into());
            }
            verb
        }
        // Carried out before an action reaches a machine (`carry_out`):
        // the app's own (quit, the worker's reads), a move through
        // `machine attach`, an image pasted through its own verb.
        Effect::Quit
        | Effect::OpenTarget
        | Effect::Go(_)
        | Effect::PasteImage(_)
        | Effect::Preview(_)
        | Effect::Directories(_)
        | Effect::Projects(_) => return None,
    };
    Some(verb)
}

/// Does an action on machine `index` on a thread of its own: here as the
/// popup does it, there as its verb over ssh.
fn act(
    tmux: &Tmux,
    config: &Config,
    here: Snapshot,
    target_machine: Option<(usize, Machine)>,
    merged: Snapshot,
    effect: Effect,
    tx: Sender<Msg>,
) -> std::thread::JoinHandle<()> {
    let (tmux, config) = (tmux.clone(), config.clone());
    std::thread::spawn(move || {
        let acted = match target_machine {
            None => act_here(&tmux, &config, &here, effect),
            Some((index, far)) => match far_verb(&merged, &effect) {
                None => Acted::Fine,
                Some(verb) => act_there(index, &far, &verb, effect),
            },
        };
        // The app has quit when nobody hears.
        let _ = tx.send(Msg::Acted(acted));
    })
}

/// An action on this machine, as the popup does it; the picker's session
/// made here is gone into, as Enter does.
fn act_here(tmux: &Tmux, config: &Config, here: &Snapshot, effect: Effect) -> Acted {
    if let Effect::OpenSession(folder) = &effect {
        let opened = crate::sessions::folders::resolve_dir(folder)
            .and_then(|dir| crate::ops::session::open(tmux, config, &dir, None));
        return match opened {
            Ok(opened) => opened
                .session_id
                .map_or(Acted::Fine, |id| Acted::Attach(0, id)),
            Err(error) => Acted::Failed(error.message),
        };
    }
    let client = here_client(here);
    match crate::list::perform(tmux, config, client.as_deref(), here, effect) {
        crate::list::Outcome::Done(_) => Acted::Fine,
        crate::list::Outcome::Failed(message) => Acted::Failed(message),
        crate::list::Outcome::Ask(question, on_yes) => Acted::Ask(question, on_yes),
    }
}

/// An action on far machine `index`, as its verb there: a session made or
/// opened there is attached to; a dirty worktree's removal is asked again.
fn act_there(index: usize, far: &Machine, verb: &[String], effect: Effect) -> Acted {
    match machine::answer_there(far, verb, None, Some(FAR_VERB_LIMIT)) {
        Ok(MadeThere {
            session_id,
            workspace,
        }) => {
            let session = session_id
                .filter(|id| !id.is_empty())
                .or(workspace.map(|w| w.tmux_id).filter(|id| !id.is_empty()));
            let makes_one = matches!(
                effect,
                Effect::NewWorktree { .. } | Effect::OpenWorktree { .. } | Effect::OpenSession(_)
            );
            match session {
                Some(id) if makes_one => Acted::Attach(index, id),
                _ => Acted::Fine,
            }
        }
        Err(error) if error.code == crate::envelope::ErrorCode::WorktreeDirty => match effect {
            Effect::RemoveWorktree { head, path, .. } => Acted::Ask(
                crate::list::dirty_question(&path),
                Effect::RemoveWorktree {
                    head,
                    path,
                    force: true,
                },
            ),
            _ => Acted::Failed(error.message),
        },
        Err(error) => Acted::Failed(error.message),
    }
}

/// Of what a far verb answers, what the app needs: the session it made or
/// opened there (`session open`'s `session_id`, `worktree create`'s and
/// `open`'s `workspace`).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct MadeThere {
    session_id: Option<String>,
    workspace: Option<crate::model::WorkspaceInfo>,
}

/// The client the app runs in, when it runs inside tmux on this machine's
/// server: where going to a pane here moves it.
fn here_client(snapshot: &Snapshot) -> Option<String> {
    if std::env::var("TMUX").is_ok_and(|v| v.is_empty()) || std::env::var_os("TMUX").is_none() {
        return None;
    }
    let mine = std::env::var("TMUX_PANE").ok();
    snapshot
        .clients
        .iter()
        .find(|c| snapshot.client_pane(c).map(|p| format!("%{}", p.id)) == mine)
        .map(|c| c.name.clone())
}

/// Goes to a row: a far one through `taw machine attach`, one here by
/// moving this client (inside tmux) or attaching (outside); back to the
/// list when that ends. Some words for the person, when there are any.
fn go(tmux: &Tmux, app: &mut App, index: usize, id: &str, keys: &KeyGate) -> Option<String> {
    let place = Place {
        machine: app.machine_name(index),
        id: id.to_string(),
    };
    // Not kept: `--go last` opens where it was before; nothing else needs it.
    let _ = crate::paths::write_private(&last_file(), place.words().as_bytes());
    if index == 0
        && let Some(client) = here_client(&app.here)
    {
        use crate::tmux::ids::tmux_number;
        let snapshot = &app.here;
        let went = if let Some(pane) = tmux_number(id, '%') {
            match snapshot.pane(pane, None) {
                Some(row) => ops::navigate::to_pane(tmux, snapshot, row, Some(&client)),
                None => Err(TawError::not_found(format!("pane {id} has closed"))),
            }
        } else if let Some(window) = tmux_number(id, '@') {
            ops::navigate::to_window(tmux, window, Some(&client))
        } else {
            let session = tmux_number(id, '$')?;
            ops::navigate::to_session(tmux, session, Some(&client))
        };
        return went.err().map(|e| e.message);
    }
    let exe = std::env::current_exe().ok()?;
    let program = match &place.machine {
        Some(name) => {
            Program::new(exe).args(["machine", "attach", name, id, "--holder", &holder()])
        }
        None => Program::new(exe)
            .args(tmux.socket_args())
            .args(["machine", "enter", id]),
    };
    app.list.clear_query();
    keys.hold();
    terminal::leave();
    let ran = program.limit(None).run_in_terminal();
    // A screen not taken back shows in the next frame's message, drawn anyway.
    let _ = terminal::enter();
    keys.release();
    match ran {
        Ok(status) if status.success() => None,
        Ok(status) => Some(format!(
            "{} ended with status {}",
            place.words(),
            status.code().unwrap_or(-1)
        )),
        Err(failure) => Some(failure.describe("taw")),
    }
}

fn draw(frame: &mut ratatui::Frame, app: &App) {
    let [list, toasts] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(TOASTS_SHOWN as u16)])
            .areas(frame.area());
    // The list's drawing, above the toasts; a session's branch as its
    // machine's feed read it there.
    let git = |row: &crate::list::rows::Row| match row.target {
        crate::list::rows::Target::Session(id) => {
            let (machine, own) = merged_list::lower(id);
            app.machines.get(machine)?.git(own)
        }
        _ => None,
    };
    crate::list::draw::draw_in(frame, list, &app.list, &git);
    let lines: Vec<Line> = app
        .toasts
        .iter()
        .map(|t| Line::styled(t.clone(), Style::default().add_modifier(Modifier::DIM)))
        .collect();
    frame.render_widget(crate::list::draw::paragraph(lines), toasts);
}

/// The app's loop: the app, the terminal it draws on, and where its work
/// goes.
struct Running {
    tmux: Tmux,
    config: Config,
    far: Vec<Machine>,
    jobs: Sender<Job>,
    tx: Sender<Msg>,
    /// Held while an attach has the terminal: the key thread reads nothing.
    keys: Arc<KeyGate>,
    terminal: Screen,
    app: App,
    /// This machine's repositories' sessions, whose closed worktrees are
    /// asked for when they change.
    heads: Vec<u32>,
    acting: runner::Actions,
    /// What the batch of messages being taken changed.
    changed: Changed,
}

/// What a batch of messages changed.
#[derive(Default)]
struct Changed {
    /// A machine's list: the merged list is made again.
    list: bool,
    /// Where the walk went on, to another machine: the app goes there.
    hops: Vec<(usize, String)>,
}

impl Running {
    /// Hands a job to the worker, which ends only with the app.
    fn ask(&self, job: Job) {
        let _ = self.jobs.send(job);
    }

    /// A redraw from scratch, after the terminal was an attach's.
    fn clear(&mut self) {
        // A failed clear leaves only stale cells, drawn over next frame.
        let _ = self.terminal.clear();
    }

    /// Goes to `id` of machine `index`, and back to the list after.
    fn go_to(&mut self, index: usize, id: &str) {
        self.app.list.message = go(&self.tmux, &mut self.app, index, id, &self.keys);
        self.clear();
    }

    /// Carries out what the list asks; false when it asks to quit.
    fn carry_out_effect(&mut self, effect: Effect) -> bool {
        match effect {
            Effect::Quit => return false,
            Effect::Preview(id) => self.ask(Job::Preview(id)),
            Effect::Directories(query) => self.ask(Job::Directories(self.app.picker, query)),
            Effect::Projects(query) => self.ask(Job::Projects(query)),
            // tmux's prefix keys are not read here: nothing asks it.
            Effect::OpenTarget => {}
            Effect::Go(target) => match own_id(target) {
                Some((index, id)) => self.go_to(index, &id),
                None => {
                    self.app.list.message =
                        Some("Enter on a session, a window or an agent goes there".into());
                }
            },
            Effect::PasteImage(id) => self.paste_image(id),
            action => self.act_on_its_machine(action),
        }
        true
    }

    /// The clipboard's image into a pane, of whichever machine.
    fn paste_image(&mut self, id: u32) {
        let (index, pane) = merged_list::lower(id);
        let place = Place {
            machine: self.app.machine_name(index),
            id: format!("%{pane}"),
        };
        let pasted =
            crate::list::paste_image(&self.tmux, &place.id, place.machine.as_deref(), None);
        self.app.list.message = Some(match pasted {
            Ok(_) => format!("pasting the clipboard's image into {}", place.words()),
            Err(error) => error.message,
        });
    }

    /// An action, done on the machine of the row it is about. The picker's
    /// folder is of the machine it was opened on; a folder row of the
    /// filter is this machine's.
    fn act_on_its_machine(&mut self, action: Effect) {
        let index = match action {
            Effect::OpenSession(_) if self.app.in_picker() => self.app.picker,
            _ => action_machine(&action),
        };
        let target_machine = match index {
            0 => None,
            _ => match self.far.get(index - 1) {
                Some(far) => Some((index, far.clone())),
                None => return,
            },
        };
        self.app.list.message = Some("…".into());
        let handle = act(
            &self.tmux,
            &self.config,
            self.app.here.clone(),
            target_machine,
            self.app.list.snapshot.clone(),
            action,
            self.tx.clone(),
        );
        self.acting.push(handle);
    }

    /// One message: into the app, and what it changed.
    fn take_msg(&mut self, msg: Msg) -> Vec<Effect> {
        let app = &mut self.app;
        let changed = &mut self.changed;
        match msg {
            Msg::Key(key) => {
                let was_in_picker = app.in_picker();
                let effects = app.list.key(key);
                if app.in_picker() && !was_in_picker {
                    app.open_picker();
                }
                return effects;
            }
            Msg::Resize => self.clear(),
            Msg::Here(snapshot) => {
                let now = ops::worktree::heads(&snapshot);
                app.here = *snapshot;
                changed.list = true;
                if now != self.heads {
                    self.heads = now.clone();
                    self.ask(Job::Worktrees(now));
                }
            }
            Msg::Line(index, line) => {
                if let Some(hop) = take_line(&self.tmux, &self.config, app, index, &line) {
                    changed.hops.push(hop);
                }
                changed.list |= line != FeedLine::Ping;
            }
            Msg::Dropped(index, why) => {
                if let Some(machine) = app.machines.get_mut(index) {
                    machine.drop_link(&why);
                    let mut heard = machine::read_heard()
                        .remove(&machine.name)
                        .unwrap_or_default();
                    heard.live = false;
                    heard.words = why;
                    machine::record_heard(&machine.name, heard);
                }
                changed.list = true;
            }
            Msg::Preview(id, text) => app.list.preview = Some((id, text)),
            // An answer for a picker opened on another machine since is
            // dropped.
            Msg::Directories(index, query, found) if index == app.picker => match found {
                Ok(found) => {
                    app.list.directories = found;
                    app.list.directories_for = query;
                }
                Err(why) => app.list.message = Some(why),
            },
            Msg::Directories(..) => {}
            Msg::Projects(query, found) => app.list.set_projects(query, found),
            Msg::Worktrees(closed) => {
                app.here_worktrees = closed;
                changed.list = true;
            }
            Msg::Acted(acted) => self.acted(acted),
        }
        Vec::new()
    }

    /// An action done: what it says, and an attach to what it made.
    fn acted(&mut self, acted: Acted) {
        self.app.list.message = None;
        match acted {
            Acted::Fine => {}
            Acted::Failed(message) => self.app.list.message = Some(message),
            Acted::Ask(question, on_yes) => self.app.list.ask(question, on_yes),
            Acted::Attach(index, id) => {
                // Made: the picker or the branch prompt is done.
                self.app.list.clear_query();
                self.go_to(index, &id);
            }
        }
        self.ask(Job::Worktrees(self.heads.clone()));
    }
}

/// The target `--go` names, else (`last`, or none) where Enter went last;
/// a text that is no target is said, and is status 2.
fn wanted_place(go_to: Option<&str>) -> Result<Option<Place>, i32> {
    match go_to {
        None | Some("last") => Ok(std::fs::read_to_string(last_file())
            .ok()
            .and_then(|t| Place::parse(t.trim()))),
        Some(text) => match Place::parse(text) {
            Some(place) => Ok(Some(place)),
            None => {
                eprintln!("taw app: --go {text:?} is no target: last, %7 or <machine>:%16");
                Err(2)
            }
        },
    }
}

/// The list as the app's config sets it, with nothing in it yet.
fn new_list(config: &Config, problem: Option<String>) -> List {
    let mut list = List::new(
        Keymap::from_config(config),
        crate::list::Options {
            config_problem: problem,
            ..crate::list::options_from(config, false)
        },
        Snapshot::default(),
    );
    use crate::config::schema::{SIDEBAR_AGENTS, SIDEBAR_SESSIONS};
    list.sidebar_agents = crate::list::tokens::Sidebar::from_config(config, &SIDEBAR_AGENTS);
    list.sidebar_sessions = crate::list::tokens::Sidebar::from_config(config, &SIDEBAR_SESSIONS);
    list
}

/// `taw app [--go TARGET]`: status 0 when it quits, 2 with no terminal.
pub(crate) fn run(tmux: Tmux, go_to: Option<String>) -> i32 {
    use std::io::IsTerminal;
    let wanted = match wanted_place(go_to.as_deref()) {
        Ok(wanted) => wanted,
        Err(status) => return status,
    };
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        eprintln!(
            "taw app: this is not a terminal; `taw machine list` and `taw --machine NAME agent list` print the same as JSON"
        );
        return 2;
    }
    let (config, config_problem) = Config::load_or_defaults();
    let far_machines = machine::machines(&config);
    let mut machines = vec![MachineView::new(&here_name(&far_machines), true)];
    machines.extend(
        far_machines
            .iter()
            .map(|m| MachineView::new(&m.name, false)),
    );
    let (tx, rx) = mpsc::channel::<Msg>();
    let (jobs, job_rx) = mpsc::channel::<Job>();
    spawn_here(tmux.clone(), tx.clone());
    let outboxes: Vec<Arc<Outbox>> = far_machines.iter().map(|_| Arc::default()).collect();
    for (index, m) in far_machines.iter().enumerate() {
        spawn_far(index + 1, m.clone(), outboxes[index].clone(), tx.clone());
    }
    spawn_worker(
        tmux.clone(),
        config.clone(),
        far_machines.clone(),
        job_rx,
        tx.clone(),
    );
    let keys = Arc::new(KeyGate::default());
    runner::spawn_keys(tx.clone(), Some(keys.clone()));
    let Ok((taken, terminal)) = terminal::take() else {
        eprintln!("taw app: could not take the terminal");
        return 1;
    };
    let app = App {
        list: new_list(&config, config_problem),
        machines,
        here: Snapshot::default(),
        here_worktrees: Vec::new(),
        wanted,
        toasts: VecDeque::new(),
        outboxes,
        stops: Vec::new(),
        picker: 0,
    };
    let mut running = Running {
        tmux,
        config,
        far: far_machines,
        jobs,
        tx,
        keys,
        terminal,
        app,
        heads: Vec::new(),
        acting: runner::Actions::default(),
        changed: Changed::default(),
    };
    let first = running.app.refresh();
    // Its frames are drawn whatever happens: nothing ends it but a quit.
    let _ = runner::serve(&mut running, &rx, first);
    // The terminal is the person's again before the app waits for what it
    // was asked to do.
    drop(taken);
    running.acting.finish();
    0
}

impl runner::Front for Running {
    type Msg = Msg;

    fn draw(&mut self) -> std::io::Result<()> {
        // A frame not drawn is drawn again with the next message.
        let _ = self.terminal.draw(|frame| draw(frame, &self.app));
        Ok(())
    }

    fn take(&mut self, msg: Msg) -> Option<Vec<Effect>> {
        Some(self.take_msg(msg))
    }

    fn after_batch(&mut self) -> Vec<Effect> {
        let changed = std::mem::take(&mut self.changed);
        let effects = match changed.list {
            true => self.app.refresh(),
            false => Vec::new(),
        };
        // The walk went on to another machine: so does the app.
        if let Some((to, id)) = changed.hops.last() {
            self.go_to(*to, id);
        }
        effects
    }

    fn carry_out(&mut self, effect: Effect) -> bool {
        self.carry_out_effect(effect)
    }
}

/// This machine's name in the list and the walk: its host name, unless a
/// machine of `[machines]` has that name (then `<host>-here`), so that no
/// stop of the walk is taken for another machine's.
fn here_name(far: &[Machine]) -> String {
    let mut name = machine::host_name();
    while far.iter().any(|m| m.name == name) {
        name.push_str("-here");
    }
    name
}

/// The machine an action is about, by the ids it names.
fn action_machine(effect: &Effect) -> usize {
    match effect {
        Effect::Go(target) | Effect::Rename(target, _) | Effect::Close(target) => {
            own_id(*target).map_or(0, |(index, _)| index)
        }
        Effect::CloseGroup(session) => merged_list::lower(*session).0,
        Effect::NewWorktree { head, .. }
        | Effect::OpenWorktree { head, .. }
        | Effect::RemoveWorktree { head, .. } => merged_list::lower(*head).0,
        Effect::PasteImage(pane) | Effect::Preview(pane) => merged_list::lower(*pane).0,
        _ => 0,
    }
}

/// One line of a machine's feed: its state into the list, a toast shown
/// (and spoken when this app holds that machine's lease), what was heard
/// of it recorded, and where an attach of ours there went.
fn take_line(
    tmux: &Tmux,
    config: &Config,
    app: &mut App,
    index: usize,
    line: &FeedLine,
) -> Option<(usize, String)> {
    // An attach of ours ended there: the person went to `go`, there, or
    // (the walk's next) to a stop the app names with its machine, which
    // the app goes on to.
    let mut hop = None;
    if let FeedLine::Left(left) = line
        && left.holder == holder()
        && let Some(place) = Place::parse(&left.go)
    {
        match place.machine {
            Some(_) => {
                hop = app.machine_index(&place).map(|to| (to, place.id.clone()));
                app.wanted = Some(place);
            }
            None => {
                app.wanted = Some(Place {
                    machine: app.machine_name(index),
                    id: place.id,
                })
            }
        }
    }
    let Some(machine) = app.machines.get_mut(index) else {
        return hop;
    };
    if let Some(shown) = machine.take(index, line) {
        if let FeedLine::Toast(toast) = line
            && index > 0
            && toast.lease
        {
            let sound = match toast.kind.as_str() {
                "request" => crate::notify::Sound::Request,
                _ => crate::notify::Sound::Done,
            };
            // The sound plays on its own; the app does not wait for it.
            let _ = crate::notify::speak_for(
                tmux,
                config,
                &machine.name,
                &toast.text,
                sound,
                Some(toast.agent_kind.as_str()).filter(|k| !k.is_empty()),
            );
        }
        app.toasts.push_back(shown);
        while app.toasts.len() > TOASTS_SHOWN {
            app.toasts.pop_front();
        }
    }
    if let FeedLine::Hello(hello) = line
        && index > 0
    {
        machine::record_heard(
            &machine.name,
            Heard {
                live: true,
                last_seen: Some(crate::clock::now_ms() / 1000),
                taw_version: Some(hello.taw.clone()).filter(|taw| !taw.is_empty()),
                protocol: Some(hello.protocol),
                words: "online".into(),
            },
        );
    }
    hop
}

/// Where `--go last` is kept: the last place Enter went to.
fn last_file() -> std::path::PathBuf {
    crate::paths::state_dir().join("app-last")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feed_line_too_long_or_not_a_record_is_passed_over_to_the_next() {
        let mut feed: &[u8] = b"{\"a\":1}\n\xff\xfe not utf-8\n0123456789 far too long\nlast";
        let mut line = Vec::new();
        let mut seen = Vec::new();
        while let Some(whole) = feed_line(&mut feed, &mut line, 16) {
            seen.push((whole, String::from_utf8_lossy(&line).into_owned()));
        }
        assert_eq!(
            seen,
            [
                (true, "{\"a\":1}\n".to_string()),
                (true, "\u{fffd}\u{fffd} not utf-8\n".to_string()),
                (false, String::new()),
                (true, "last".to_string()),
            ]
        );
    }

    fn far_snapshot() -> Snapshot {
        let state = serde_json::from_value(serde_json::json!({
            "spaces": [{"workspace_id": "w1", "tmux_id": "$2", "label": "api"}],
            "tabs": [{"tab_id": "w1:t1", "workspace_id": "w1", "tmux_id": "@4", "label": "code"}],
            "panes": [
                {"workspace_id": "w1", "tab_id": "w1:t1", "tmux_id": "%7", "agent": "claude", "agent_status": "idle"},
                {"workspace_id": "w1", "tab_id": "w1:t1", "tmux_id": "%8", "command": "bash"}
            ],
        }))
        .unwrap();
        merged_list::snapshot_of(&state, 1, "studio")
    }

    #[test]
    fn a_key_on_a_far_row_is_its_verb_there_by_that_machines_ids() {
        let snapshot = far_snapshot();
        let (session, window) = (merged_list::lift(1, 2), merged_list::lift(1, 4));
        let pane = |id| Target::Pane {
            session,
            window,
            pane: merged_list::lift(1, id),
        };
        let verb = |effect: Effect| far_verb(&snapshot, &effect).map(|v| v.join(" "));
        assert_eq!(
            verb(Effect::Rename(Target::Session(session), "-x y".into())).as_deref(),
            Some("workspace rename $2 -- -x y")
        );
        assert_eq!(
            verb(Effect::Rename(pane(7), "reviewer".into())).as_deref(),
            Some("agent rename %7 -- reviewer")
        );
        assert_eq!(
            verb(Effect::Rename(pane(8), String::new())).as_deref(),
            Some("pane rename %8 --clear")
        );
        assert_eq!(
            verb(Effect::Close(Target::Window { session, window })).as_deref(),
            Some("tab close @4")
        );
        assert_eq!(
            verb(Effect::CloseGroup(session)).as_deref(),
            Some("workspace close $2 --group")
        );
        // A folder is a folder even when it starts with a dash.
        assert_eq!(
            verb(Effect::OpenSession("-x".into())).as_deref(),
            Some("session open --no-focus -- -x")
        );
        assert_eq!(
            verb(Effect::NewWorktree {
                head: session,
                branch: "feat/x".into()
            })
            .as_deref(),
            Some("worktree create --workspace $2 --no-focus --branch=feat/x")
        );
        assert_eq!(
            verb(Effect::RemoveWorktree {
                head: session,
                path: "/wt/a b".into(),
                force: true
            })
            .as_deref(),
            Some("worktree remove --path=/wt/a b --force")
        );
        assert_eq!(verb(Effect::Quit), None);
        assert_eq!(action_machine(&Effect::Close(pane(7))), 1);
        assert_eq!(action_machine(&Effect::Close(Target::Session(3))), 0);
    }
}
