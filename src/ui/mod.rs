//! The popup: every session, window and agent with its state and a preview
//! of its screen; Enter goes there, Tab to the next agent that needs you.
//! `taw ui open` opens it in a tmux popup; `taw ui` is what runs inside.
//!
//! Three threads feed one loop: the terminal's keys; a worker that makes
//! every tmux call (a snapshot, a preview, the picker's directories), so a
//! slow call never stops the keys; and a waiter the pane watchers wake
//! after each look, which asks the worker for a new snapshot. The loop
//! draws after each batch of messages.

pub(crate) mod launch;

use crate::config::Config;
use crate::envelope::{Result, TawError};
use crate::git::Status as Git;
use crate::list::terminal::{self, Screen};
use crate::list::{self, Effect, List, Options, draw, keymap, rows, runner, tokens};
use crate::ops;
use crate::tmux::Tmux;
use crate::tmux::commands as cmd;
use crate::tmux::pane::{self as tmux_pane, ReadSource};
use crate::tmux::snapshot::Snapshot;
use crate::watch::waiters::Waiter;
use keymap::Keymap;
use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

/// Without a look from any watcher, the list is read again this often, for
/// what no watcher tells (a window renamed, a session closed).
const STRUCTURE_EVERY: Duration = Duration::from_secs(1);
/// The least time between two reads of the list.
const REFRESH_GAP: Duration = Duration::from_millis(150);

/// What the popup was opened for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Launch {
    /// The client the popup is on: where Go takes it.
    pub client: Option<String>,
    pub new_session: bool,
}

enum Msg {
    Key(crossterm::event::KeyEvent),
    Resize,
    Snapshot(Box<Snapshot>),
    Preview(u32, String),
    Directories(String, Vec<String>),
    Projects(String, Vec<String>),
    Git(String, Option<Git>),
    /// The worktrees no session runs, of the repositories' sessions.
    Worktrees(Vec<rows::ClosedWorktree>),
    /// An action refused for a reason a yes overrides: the question, and
    /// what a yes does.
    Ask(String, Effect),
    /// An action (go, rename, close, open) is done: whether the popup is to
    /// close, or why it failed.
    Acted(std::result::Result<bool, String>),
}

impl From<terminal::Input> for Msg {
    fn from(input: terminal::Input) -> Msg {
        match input {
            terminal::Input::Key(key) => Msg::Key(key),
            terminal::Input::Resize => Msg::Resize,
        }
    }
}

/// The popup's picker looks for folders here only.
type Job = runner::Job<()>;

/// The popup's loop state: the list, and where its work goes.
struct Popup {
    tmux: Tmux,
    config: Config,
    /// The client the popup is on: where Go takes it.
    client: Option<String>,
    list: List,
    terminal: Screen,
    jobs: Sender<Job>,
    tx: Sender<Msg>,
    /// The git status of each session folder, once read.
    git: HashMap<String, Option<Git>>,
    acting: runner::Actions,
    /// Where the first frame's rows came from: the key's listing, or a
    /// read (told to `scripts/bench` and the tests).
    first_read: &'static str,
    /// Whether the first frame is drawn: the sessions' git status is read
    /// only after it (a git process a folder would take the cores from it).
    first_frame_drawn: bool,
}

impl Popup {
    /// The list of one snapshot, the client's pane selected, `[keys]` and
    /// the sidebar rows of the config.
    fn list(
        keys: list::state::TmuxKeys,
        config: &Config,
        problem: Option<String>,
        launch: &Launch,
        snapshot: Snapshot,
    ) -> (List, Option<String>) {
        let client = launch
            .client
            .clone()
            .or_else(|| snapshot.last_client().map(|c| c.name.clone()));
        let client_pane = client.as_deref().and_then(|name| {
            let c = snapshot.clients.iter().find(|c| c.name == name)?;
            snapshot.client_pane(c).map(|p| p.id)
        });
        let options = Options {
            config_problem: problem,
            ..list::options_from(config, launch.new_session)
        };
        let mut list = List::new(Keymap::from_config(config), options, snapshot);
        if let Some(pane) = client_pane {
            list.select_pane(pane);
        }
        list.tmux_keys = keys;
        list.sidebar_agents =
            tokens::Sidebar::from_config(config, &crate::config::schema::SIDEBAR_AGENTS);
        list.sidebar_sessions =
            tokens::Sidebar::from_config(config, &crate::config::schema::SIDEBAR_SESSIONS);
        (list, client)
    }

    /// Hands a job to the worker, which ends only with the popup.
    fn ask(&self, job: Job) {
        let _ = self.jobs.send(job);
    }
}

impl runner::Front for Popup {
    type Msg = Msg;

    fn draw(&mut self) -> std::io::Result<()> {
        if self.list.options.show_git && self.first_frame_drawn {
            ask_git(&self.list, &mut self.git, &self.tx);
        }
        let (list, git) = (&self.list, &self.git);
        self.terminal.draw(|frame| {
            draw::draw(frame, list, &|row: &rows::Row| {
                git.get(&row.path).cloned().flatten()
            })
        })?;
        Ok(())
    }

    /// What the first frame leaves to fetch: the sessions' git status, its
    /// preview, the picker's folders, the filter's projects, the closed
    /// worktrees.
    fn after_first_frame(&mut self) {
        note_first_frame(self.first_read);
        self.first_frame_drawn = true;
        if self.list.options.show_git {
            ask_git(&self.list, &mut self.git, &self.tx);
        }
        self.ask(Job::Refresh);
        for effect in startup_effects(&self.list) {
            self.carry_out(effect);
        }
        if self.list.options.projects_in_filter {
            self.ask(Job::Projects(String::new()));
        }
        self.ask(Job::Worktrees(ops::worktree::heads(&self.list.snapshot)));
    }

    /// One message into the list.
    fn take(&mut self, msg: Msg) -> Option<Vec<Effect>> {
        let list = &mut self.list;
        let effects = match msg {
            Msg::Key(key) => list.key(key),
            Msg::Resize => Vec::new(),
            Msg::Snapshot(snapshot) => {
                let heads_before = ops::worktree::heads(&list.snapshot);
                let effects = list.update(*snapshot);
                let heads = ops::worktree::heads(&list.snapshot);
                if heads != heads_before {
                    self.ask(Job::Worktrees(heads));
                }
                effects
            }
            Msg::Preview(pane, text) => {
                list.preview = Some((pane, text));
                Vec::new()
            }
            Msg::Directories(query, dirs) => {
                list.directories = dirs;
                list.directories_for = query;
                Vec::new()
            }
            Msg::Projects(query, projects) => {
                list.set_projects(query, projects);
                Vec::new()
            }
            Msg::Git(path, status) => {
                self.git.insert(path, status);
                Vec::new()
            }
            Msg::Worktrees(closed) => {
                list.set_closed_worktrees(closed);
                Vec::new()
            }
            Msg::Ask(question, on_yes) => {
                list.message = None;
                list.ask(question, on_yes);
                Vec::new()
            }
            Msg::Acted(Ok(true)) => return None,
            Msg::Acted(outcome) => {
                list.message = outcome.err();
                let heads = ops::worktree::heads(&list.snapshot);
                self.ask(Job::Refresh);
                self.ask(Job::Worktrees(heads));
                Vec::new()
            }
        };
        Some(effects)
    }

    /// Carries out what the list asks; false when it asks to close.
    fn carry_out(&mut self, effect: Effect) -> bool {
        match effect {
            Effect::Quit => return false,
            Effect::Preview(pane) => self.ask(Job::Preview(pane)),
            Effect::Directories(query) => self.ask(Job::Directories((), query)),
            Effect::Projects(query) => self.ask(Job::Projects(query)),
            action => {
                // Tmux calls and hooks that may take a while: off the key
                // loop, so Esc still answers.
                self.list.message = Some("…".into());
                let handle = act(
                    &self.tmux,
                    &self.config,
                    self.client.clone(),
                    self.list.snapshot.clone(),
                    action,
                    self.tx.clone(),
                );
                self.acting.push(handle);
            }
        }
        true
    }
}

/// Runs the popup until it is closed; the terminal is put back on any end.
pub(crate) fn run(tmux: Tmux, launch: Launch) -> Result<()> {
    let (config, config_problem) = Config::load_or_defaults();
    // One tmux call before the first frame: the server as listed, and the
    // keys; the whole server right after it.
    // A list of agents (not of every pane) shows agents and each window's
    // active pane: only those are read for it.
    let agents_only = list::rows::Depth::parse(&config.get(&crate::config::schema::UI_DEPTH))
        != list::rows::Depth::All;
    // The key's listing, when it brought one an agent list can show;
    // else one tmux call.
    let listed = self::launch::take_listing()
        .filter(|_| agents_only)
        .and_then(|text| Snapshot::from_listing(&text));
    // The session the key put the listing in: its client's.
    let listed_session = listed
        .as_ref()
        .and_then(|(snapshot, _)| snapshot.clients.first()?.session);
    let (snapshot, keys, first_read) = match listed {
        Some((snapshot, keys)) => (snapshot, keys, "listing"),
        None => {
            let (snapshot, keys) =
                Snapshot::read_listed_with(&tmux, vec![tmux_keys_cmd()], agents_only)?;
            let keys = keys.into_iter().next().unwrap_or_default();
            (snapshot, keys, "read")
        }
    };
    let server = snapshot.server.pid;
    let keys = tmux_keys(&keys);
    let (list, client) = Popup::list(keys, &config, config_problem, &launch, snapshot);
    // Whatever ends the popup from here on puts the terminal back.
    let (restore, terminal) = terminal::take().map_err(io_error)?;
    let (tx, rx) = mpsc::channel::<Msg>();
    let (jobs, job_rx) = mpsc::channel::<Job>();
    runner::spawn_keys(tx.clone(), None);
    let cleanup = listed_session.map(self::launch::listing_cleanup);
    spawn_worker(tmux.clone(), config.clone(), job_rx, tx.clone(), cleanup);
    spawn_looks(server, jobs.clone());
    let mut popup = Popup {
        tmux,
        config,
        client,
        list,
        terminal,
        jobs,
        tx,
        git: HashMap::new(),
        acting: runner::Actions::default(),
        first_read,
        first_frame_drawn: false,
    };
    let served = runner::serve(&mut popup, &rx, Vec::new()).map_err(io_error);
    // The terminal is the client's again before the popup waits for what
    // it was asked to do.
    let mut acting = std::mem::take(&mut popup.acting);
    drop(popup);
    drop(restore);
    acting.finish();
    served
}

fn io_error(error: std::io::Error) -> TawError {
    TawError::new(crate::envelope::ErrorCode::IoError, error.to_string())
}

/// `scripts/bench` times the first frame after the key: it names a file
/// in `TAW_BENCH_FIRST_FRAME`, which gets the time (Unix nanoseconds) and
/// where the frame's rows came from (`listing` or `read`). Nothing else
/// sets it but the tests.
fn note_first_frame(first_read: &str) {
    if let Some(path) = std::env::var_os("TAW_BENCH_FIRST_FRAME") {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        // The benchmark says it saw no frame.
        let _ = std::fs::write(path, format!("{now} {first_read}"));
    }
}

/// What prints tmux's prefix keys and taw's key options, read with the
/// snapshot in one call.
fn tmux_keys_cmd() -> cmd::Cmd {
    cmd::print_format(&tmux_keys_format())
}

/// The format of [`tmux_keys_cmd`]: what a listing prints after its rows too.
pub(crate) fn tmux_keys_format() -> String {
    use crate::tmux::options;
    format!(
        "#{{prefix}}\t#{{prefix2}}\t#{{{}}}\t#{{{}}}",
        options::NOTIFICATION_KEY,
        options::KEY
    )
}

/// The keys [`tmux_keys_cmd`] printed.
fn tmux_keys(output: &str) -> list::state::TmuxKeys {
    let mut words = output.trim_end_matches('\n').split('\t');
    let mut key = || {
        words
            .next()
            .filter(|w| !w.is_empty() && *w != "None")
            .and_then(keymap::Key::from_tmux)
    };
    let prefixes = [key(), key()].into_iter().flatten().collect();
    list::state::TmuxKeys {
        prefixes,
        notification: key(),
        popup: key(),
    }
}

fn startup_effects(app: &List) -> Vec<Effect> {
    let mut effects = Vec::new();
    if let Some(pane) = app.selected_row().and_then(|r| r.preview_pane)
        && app.preview_on
    {
        effects.push(Effect::Preview(pane));
    }
    if matches!(app.mode, list::Mode::NewSession { .. }) {
        effects.push(Effect::Directories(String::new()));
    }
    effects
}

/// Carries out an action on a thread of its own, and says when it is done.
fn act(
    tmux: &Tmux,
    config: &Config,
    client: Option<String>,
    snapshot: Snapshot,
    effect: Effect,
    tx: Sender<Msg>,
) -> std::thread::JoinHandle<()> {
    let tmux = tmux.clone();
    let config = config.clone();
    std::thread::spawn(move || {
        let msg = match list::perform(&tmux, &config, client.as_deref(), &snapshot, effect) {
            list::Outcome::Done(closes) => Msg::Acted(Ok(closes)),
            list::Outcome::Failed(message) => Msg::Acted(Err(message)),
            list::Outcome::Ask(question, on_yes) => Msg::Ask(question, on_yes),
        };
        // The popup has closed when nobody hears.
        let _ = tx.send(msg);
    })
}

/// Every tmux call the popup makes after its first frame, one at a time,
/// with repeated asks folded into one.
/// `cleanup`: a command sent with the first read (the key's listing out
/// of the environment).
fn spawn_worker(
    tmux: Tmux,
    config: Config,
    jobs: Receiver<Job>,
    tx: Sender<Msg>,
    mut cleanup: Option<cmd::Cmd>,
) {
    runner::spawn_worker(jobs, move |asked| {
        let send = |msg| tx.send(msg).is_ok();
        for query in asked.projects {
            let found = crate::sessions::folders::directories(&config, &query);
            if !send(Msg::Projects(query, found)) {
                return false;
            }
        }
        if let Some(((), query)) = asked.directories {
            let dirs = crate::sessions::folders::directories(&config, &query);
            if !send(Msg::Directories(query, dirs)) {
                return false;
            }
        }
        // One read for both, as after the first frame.
        if (asked.refresh || asked.worktrees.is_some())
            && let Ok((snapshot, _)) =
                Snapshot::read_with(&tmux, cleanup.take().into_iter().collect())
        {
            let closed = (asked.worktrees).map(|heads| list::closed_worktrees(&snapshot, heads));
            if asked.refresh && !send(Msg::Snapshot(Box::new(snapshot))) {
                return false;
            }
            if let Some(closed) = closed
                && !send(Msg::Worktrees(closed))
            {
                return false;
            }
        }
        match asked.preview {
            Some(pane) => match tmux_pane::capture(&tmux, pane, ReadSource::Visible, 0, true) {
                Ok(text) => send(Msg::Preview(pane, text)),
                Err(_) => true,
            },
            None => true,
        }
    });
}

/// Asks for a new snapshot after each look of any pane's watcher, and at
/// least every STRUCTURE_EVERY.
fn spawn_looks(server: u32, jobs: Sender<Job>) {
    std::thread::spawn(move || {
        let waiter = Waiter::any(&crate::paths::state_dir(), server);
        loop {
            match &waiter {
                Some(waiter) => {
                    waiter.wait(STRUCTURE_EVERY);
                }
                None => std::thread::sleep(STRUCTURE_EVERY),
            }
            if jobs.send(Job::Refresh).is_err() {
                return;
            }
            // Many busy agents look many times a second: one list a beat.
            std::thread::sleep(REFRESH_GAP);
        }
    });
}

/// Starts reading the git status of sessions not asked about yet.
fn ask_git(app: &List, known: &mut HashMap<String, Option<Git>>, tx: &Sender<Msg>) {
    for session in &app.snapshot.sessions {
        if session.path.is_empty() || known.contains_key(&session.path) {
            continue;
        }
        known.insert(session.path.clone(), None);
        let path = session.path.clone();
        let tx = tx.clone();
        std::thread::spawn(move || {
            let status = Git::read(std::path::Path::new(&path), crate::exec::DEFAULT_LIMIT);
            // The popup has closed when nobody hears.
            let _ = tx.send(Msg::Git(path, status));
        });
    }
}
