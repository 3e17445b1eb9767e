//! The watcher of a pane, one thread of the server's watcher
//! ([`server`]): the pane's output wakes it, and it ends when the pane's
//! pipe does.
//!
//! Event driven: output marks the pane dirty; a short debounce later, one
//! tmux call looks at the pane (screen, title, clients, options), the
//! process table says which agent runs, the agent's rules read the screen,
//! and the [`tracker`] decides the state. Options are written only when
//! something changed, in one call. With no output and no timer pending the
//! watcher sleeps in a blocking read: an idle pane costs nothing.

pub(crate) mod announce;
pub(crate) mod attach;
pub(crate) mod mirror;
pub(crate) mod nudge;
pub(crate) mod server;
pub(crate) mod tracker;
pub(crate) mod typed;
pub(crate) mod waiters;
pub(crate) mod web_screen;

use crate::clock::now_ms;
use crate::config::Config;
use crate::detect::agents;
use crate::detect::engine;
use crate::detect::foreground::{self, Front as JobFront};
use crate::detect::manifest::RuleState;
use crate::detect::region::Screen;
use crate::detect::registry::OnDemand;
use crate::envelope::{ErrorCode, TawError};
use crate::events::{Event, Occurrence};
use crate::hooks::{self, Listeners};
use crate::model::AgentStatus;
use crate::notify;
use crate::report::{self, Authority};
use crate::sandbox::Container;
use crate::tmux::Tmux;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self, OptionWrites, PaneView};
use mirror::Mirror;
use server::Inbox;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tracker::{Change, Front, Observation, Reading, Timing, Tracker};

/// How soon output is looked at.
#[derive(Debug, Clone, Copy)]
struct Pace {
    /// Quiet time after output before a look.
    debounce: Duration,
    /// The longest output waits for a look while it keeps coming.
    max_delay: Duration,
    /// Output after [`QUIET`] is looked at this soon.
    leading: Duration,
}

/// A look that asks tmux: a tmux call each.
const TMUX_PACE: Pace = Pace {
    debounce: Duration::from_millis(40),
    max_delay: Duration::from_millis(100),
    leading: Duration::from_millis(15),
};

/// A look at the pane's mirror costs no tmux call: it can come at once.
const MIRROR_PACE: Pace = Pace {
    debounce: Duration::from_millis(4),
    max_delay: Duration::from_millis(40),
    leading: Duration::from_millis(3),
};

/// Output after this much quiet is looked at almost at once: a turn that
/// starts and ends quickly is then still seen working.
const QUIET: Duration = Duration::from_millis(300);
/// A mirror is checked against tmux once its pane has been this quiet
/// since the mirror was last read instead of tmux...
const CHECK_QUIET: Duration = Duration::from_secs(2);
/// ...and at least this often while it keeps printing: an agent working
/// for minutes redraws ten times a second, and each check is a tmux call
/// (20 of them working cost a 500-pane server 2 % of a core at every 10 s).
const CHECK_EVERY: Duration = Duration::from_secs(30);
/// How often a mirror that differed from tmux is said in the log.
const TELL_DIFFERENCE_EVERY: Duration = Duration::from_secs(60);
/// How soon a look tmux did not answer is made again.
const RETRY: Duration = Duration::from_secs(1);
/// How many times in a row a look's option writes that fail (not by a
/// timeout) are tried before they are dropped.
const WRITE_TRIES: u32 = 5;
/// How long a process-table reading is trusted while the job in front is
/// the same.
const JOB_CACHE: Duration = Duration::from_secs(5);

/// What wakes the watcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wake {
    /// The pane printed something.
    Output,
    /// Someone asked for a look (a report, a focus change).
    Nudge,
    /// The pane is gone.
    End,
}

/// A notification waiting for its delay.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingToast {
    at: u64,
    kind: ToastKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToastKind {
    /// An agent needs you (blocked).
    Request,
    /// An agent finished its turn.
    Done,
}

/// What the process table says is in front of a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
enum JobView {
    Unknown,
    /// The pane's own shell.
    Shell,
    /// Programs that name no agent: their pids.
    Other(Vec<u32>),
    Agent {
        kind: &'static str,
        pid: u32,
        /// The container runtime that runs it, if one does.
        runtime: Option<&'static str>,
    },
}

/// The rows the agent's rules read: below the line `taw agent start` typed
/// while it is on the screen (what the last agent left above it is not
/// this one's), else the whole screen. Says whether the line was found.
fn rows_to_read(screen: &str, recorded: &str, command: &str) -> (String, bool) {
    if recorded.is_empty() {
        return (screen.to_string(), false);
    }
    // A value from before the command was kept apart: the line was the command.
    let command = if command.is_empty() {
        recorded
    } else {
        command
    };
    let lines: Vec<&str> = screen.lines().collect();
    match typed::find(&lines, recorded, command) {
        Some(at) => (lines[at + 1..].join("\n"), true),
        None => (screen.to_string(), false),
    }
}

/// The cached answer of the process table.
#[derive(Debug, Clone)]
struct JobReading {
    /// What the reading was of: the group in front, and the names of the
    /// pane's process and of the command in front (an `exec` keeps the
    /// group and changes the name).
    key: (i64, String, String),
    at: Instant,
    view: JobView,
}

/// How many labels of agents taw does not know the watcher keeps, and
/// the longest (a report's own limit): a script that reports a new label
/// each time, or sets the option by hand, cannot grow the watcher for
/// good.
const MAX_LABELS: usize = 1024;
const MAX_LABEL_BYTES: usize = 64;
/// The label of an agent past those limits.
const OTHER_LABEL: &str = "other";

/// A `&'static str` for an agent label: a known agent's id, or the label
/// itself kept for the life of the watcher (a server sees few labels).
fn intern(label: &str) -> &'static str {
    if let Some(agent) = agents::lookup(label) {
        return agent.id;
    }
    static LABELS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut labels = LABELS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = labels.iter().find(|known| **known == label) {
        return known;
    }
    if labels.len() >= MAX_LABELS || label.len() > MAX_LABEL_BYTES {
        return OTHER_LABEL;
    }
    let leaked: &'static str = Box::leak(label.to_string().into_boxed_str());
    labels.push(leaked);
    leaked
}

/// What the server's watcher hands a pane's thread as it pipes the pane.
pub(crate) struct Handed {
    pub pane: u32,
    /// What it wrote in the pane's `@agent_wizard_watcher`.
    pub announcement: String,
    /// Where the pane's output comes.
    pub inbox: Arc<Inbox>,
    /// The pane as the attach read it, with no screen.
    pub first_view: Option<PaneView>,
}

pub(crate) struct Watcher {
    tmux: Tmux,
    pane: u32,
    /// The tmux server's pid: it names the sockets of the pane's waiters.
    server: u32,
    tracker: Tracker,
    config: Config,
    /// The rules of the agents met in this pane, compiled when first met.
    registry: OnDemand,
    config_stamp: String,
    /// The title in front when the current agent came: not the agent's.
    stale_title: Option<String>,
    job: Option<JobReading>,
    toast: Option<PendingToast>,
    /// The kind of the agent a pending done toast is about.
    toast_agent: Option<&'static str>,
    /// The last turn stamp of a report taken in.
    seen_turn: String,
    /// Whether the first look ran: until it does (tmux did not answer), a
    /// look is the first one, which takes over the pane's record.
    started: bool,
    /// The screen's turn mark at the last look that showed one, and at
    /// this look.
    turn_mark: Option<String>,
    turn_mark_read: Option<String>,
    /// The agent's count of state changes.
    state_seq: u64,
    /// Looks in a row that did not find the typed line.
    typed_misses: u32,
    /// Option writes tmux did not take (it did not answer, or failed
    /// while the pane stays): written with the next look's.
    unwritten: OptionWrites,
    /// Writes in a row that failed: past [`WRITE_TRIES`] they are dropped.
    failed_writes: u32,
    /// Who listens to events, from the config.
    listeners: Listeners,
    announcer: announce::Announcer,
    /// The title (its spinner glyph off), command and reported metadata
    /// at the last look: a change is pane.updated.
    described: Option<String>,
    /// What this look announces, once its writes are in.
    told: Vec<Occurrence>,
    /// The container the agent in front runs in, as last recorded (from
    /// the pane at the first look: a watcher started again announces no
    /// container that was there already).
    container: Option<(Container, Option<&'static str>)>,
    /// What this look's job says: the runtime of the agent in front, and
    /// whether the pane's own shell is.
    runtime_in_front: Option<&'static str>,
    shell_in_front: bool,
    /// The pane's session, for an event told once the pane has gone.
    session_name: String,
    /// What the server's watcher wrote in `@agent_wizard_watcher` as it
    /// piped the pane.
    announcement: String,
    /// What the pane prints, handed over by the server's reading loop.
    inbox: Arc<Inbox>,
    /// The screen kept from those bytes, while an agent is in front.
    mirror: Option<Mirror>,
    /// The last look at tmux, with this watcher's own writes since.
    kept: Option<PaneView>,
    last_tmux_look: Instant,
    /// Looks read the mirror since the last look at tmux.
    unchecked: bool,
    /// How many looks wrote the pane's options: what the web compares to
    /// know whether the pane's row in tmux moved (see [`server::Shown`]).
    writes: u64,
}

impl Watcher {
    pub(crate) fn new(
        tmux: Tmux,
        server: u32,
        handed: Handed,
        config: Config,
        registry: OnDemand,
    ) -> Watcher {
        let Handed {
            pane,
            announcement,
            inbox,
            first_view,
        } = handed;
        let listeners = Listeners::from_config(&config);
        Watcher {
            tmux,
            pane,
            server,
            tracker: Tracker::new(Timing::default()),
            config,
            registry,
            config_stamp: String::new(),
            stale_title: None,
            job: None,
            toast: None,
            toast_agent: None,
            seen_turn: String::new(),
            started: false,
            turn_mark: None,
            turn_mark_read: None,
            state_seq: 0,
            typed_misses: 0,
            unwritten: OptionWrites::default(),
            failed_writes: 0,
            listeners,
            announcer: announce::Announcer::default(),
            described: None,
            told: Vec::new(),
            container: None,
            runtime_in_front: None,
            shell_in_front: false,
            session_name: String::new(),
            announcement,
            inbox,
            mirror: None,
            kept: first_view,
            last_tmux_look: Instant::now(),
            unchecked: false,
            writes: 0,
        }
    }

    /// Runs until the pane's pipe ends. `events` brings output and
    /// nudges. A tmux that does not answer (a stopped server: each call
    /// ends in `timeout`) is asked again a moment later.
    /// The inbox's `unread` is set by the reader when it tells of output,
    /// and taken off here as the output is taken in: a pane printing at
    /// full speed wakes its thread once a look, not once a read.
    pub(crate) fn run(mut self, events: mpsc::Receiver<Wake>) -> Result<(), TawError> {
        let first_wake = self.start();
        let mut first_dirty: Option<Instant> = None;
        let mut last_output = Instant::now();
        let mut last_look = Instant::now();
        // A look set when the output began, not moved by more output.
        let mut fixed_due: Option<Instant> = None;
        let mut wake_at: Option<u64> = first_wake;
        // When the output waiting for a look is due.
        let due = |pace: Pace, first: Instant, last: Instant, fixed: Option<Instant>| {
            fixed.unwrap_or_else(|| (last + pace.debounce).min(first + pace.max_delay))
        };
        loop {
            let now = Instant::now();
            let pace = self.pace();
            let mut timeout: Option<Duration> = None;
            if let Some(first) = first_dirty {
                timeout =
                    Some(due(pace, first, last_output, fixed_due).saturating_duration_since(now));
            }
            // A mirror read instead of tmux is checked once the pane is quiet.
            let check_at =
                (self.unchecked && first_dirty.is_none()).then_some(last_output + CHECK_QUIET);
            if let Some(at) = check_at {
                let wait = at.saturating_duration_since(now);
                timeout = Some(timeout.map_or(wait, |t| t.min(wait)));
            }
            for at in [wake_at, self.toast.as_ref().map(|t| t.at)]
                .into_iter()
                .flatten()
            {
                let wait = Duration::from_millis(at.saturating_sub(now_ms()));
                timeout = Some(timeout.map_or(wait, |t| t.min(wait)));
            }
            match next_wake(&events, timeout) {
                Some(Wake::End) => {
                    self.finish();
                    return Ok(());
                }
                Some(Wake::Output) => {
                    self.inbox.unread.store(false, Ordering::Release);
                    last_output = Instant::now();
                    if first_dirty.is_none() {
                        first_dirty = Some(last_output);
                        let waiting = !matches!(
                            self.tracker.state(),
                            Some(AgentStatus::Working | AgentStatus::Blocked)
                        );
                        fixed_due = early_look(pace, last_output, last_look, waiting);
                    }
                    continue;
                }
                Some(Wake::Nudge) => {
                    // A nudge says something tmux keeps changed: tmux is read.
                    first_dirty = None;
                    wake_at = self.look_at_tmux();
                    last_look = Instant::now();
                }
                None => {
                    let timer_due = wake_at.is_some_and(|at| at <= now_ms());
                    let dirty_due = first_dirty.is_some_and(|first| {
                        Instant::now() >= due(pace, first, last_output, fixed_due)
                    });
                    if timer_due || dirty_due {
                        first_dirty = None;
                        wake_at = self.look();
                        last_look = Instant::now();
                    } else if check_at.is_some_and(|at| Instant::now() >= at) {
                        wake_at = self.look_at_tmux();
                        last_look = Instant::now();
                    }
                }
            }
            self.fire_toast();
        }
    }

    /// The pane ended, or its pipe went to another watcher: the
    /// announcement comes off, and a container in front of a pane that went
    /// is told stopped.
    fn finish(&mut self) {
        if server::HANDING_OVER.load(Ordering::SeqCst) {
            return;
        }
        // Nothing to do when it fails: a pane that went took its options
        // with it, and a watcher after this one has its own announcement.
        // In turn with the other panes' calls: an unload ends every pane's
        // thread at once, and 500 of them would start 1,000 tmux clients
        // together.
        let _ = in_turn(|| pane::retire_watcher(&self.tmux, self.pane, &self.announcement));
        if self.container.is_none() {
            return;
        }
        // The pane went (or its server) with a container in front; a pane
        // still there has only changed watchers.
        // A server on its way out may answer in other words, or not in
        // time: its process gone says as much.
        let pane_gone = in_turn(|| pane::read_values(&self.tmux, self.pane, &[])).is_err_and(|e| {
            e.code == ErrorCode::NotFound
                || crate::tmux::is_server_gone(&e)
                || !foreground::is_alive(self.server)
        });
        if pane_gone && let Some((gone, kind)) = self.container.take() {
            let mut stopped = sandbox_event(Event::SandboxStopped, self.pane, &gone, kind);
            stopped.session_name =
                (!self.session_name.is_empty()).then(|| self.session_name.clone());
            hooks::announce(&self.tmux, &self.listeners, vec![stopped]);
        }
    }

    /// The first look: an agent the pane already records (a watcher started
    /// again) is taken over as it was, so a done stays done.
    fn start(&mut self) -> Option<u64> {
        let first = self
            .kept
            .take()
            .filter(|view| self.starts_without_screen(view));
        let view = match first {
            Some(view) => view,
            None => match in_turn(|| pane::look(&self.tmux, self.pane)) {
                Ok(view) => view,
                Err(_) => return Some(now_ms() + RETRY.as_millis() as u64),
            },
        };
        self.started = true;
        self.last_tmux_look = Instant::now();
        self.reload_config_if_moved(&view);
        self.seen_turn = view.reported_turn.clone();
        self.state_seq = view.state_seq;
        self.container = Container::parse(&view.container)
            .map(|container| (container, agents::by_id(&view.agent_kind).map(|a| a.id)));
        if let Some(agent) = agents::by_id(&view.agent_kind) {
            let front = self.front(&view);
            if let Front::Agent { kind, pid, .. } = front
                && kind == agent.id
            {
                let state = AgentStatus::parse(&view.agent_state);
                self.tracker = Tracker::resume(Timing::default(), kind, pid, state, now_ms());
                self.announcer = announce::Announcer::resume(Some(state));
            }
        }
        self.kept = Some(view.clone());
        let front = self.front(&view);
        let wake = self.observe(view.clone(), front);
        self.follow_mirror(&view);
        self.publish(&view);
        wake
    }

    /// Whether the view its attach read (no screen, no clients) is enough
    /// for the first look: a shell in front, and no agent on record.
    fn starts_without_screen(&mut self, view: &PaneView) -> bool {
        view.typed_line.is_empty()
            && view.agent_kind.is_empty()
            && view.reported_kind.is_empty()
            && matches!(
                self.job_view(view.pid, &view.current_command),
                JobView::Shell
            )
    }

    /// Looks at the pane and acts on what changed: at its mirror when that
    /// can stand for tmux, else at tmux. Returns when to look again
    /// without output.
    fn look(&mut self) -> Option<u64> {
        if !self.started {
            // The first look failed: this one takes over the record, or a
            // done agent would read as new (unknown) and a turn be made up.
            return self.start();
        }
        self.take_output();
        let Some(view) = self.mirror_view() else {
            return self.look_at_tmux();
        };
        let front = self.front(&view);
        if !self.mirror_decides(&front) {
            return self.look_at_tmux();
        }
        self.unchecked = true;
        let wake = self.observe(view.clone(), front);
        self.publish(&view);
        // Verbs waiting on this pane read it again now.
        waiters::notify_all(&crate::paths::state_dir(), self.server, self.pane);
        wake
    }

    /// A look at tmux: the screen, title, options and clients as tmux has
    /// them. The mirror is checked against it.
    fn look_at_tmux(&mut self) -> Option<u64> {
        // What the pane printed so far is in the capture too.
        self.take_output();
        let web_mark = self.inbox.web().mark(Instant::now());
        let Ok(view) = in_turn(|| pane::look(&self.tmux, self.pane)) else {
            // tmux did not answer (or the pane is going: its end comes).
            return Some(now_ms() + RETRY.as_millis() as u64);
        };
        self.last_tmux_look = Instant::now();
        self.unchecked = false;
        self.reload_config_if_moved(&view);
        self.check_mirror(&view);
        let row_moved = self
            .kept
            .as_ref()
            .is_some_and(|kept| web_row(kept) != web_row(&view));
        self.kept = Some(view.clone());
        let front = self.front(&view);
        let wake = self.observe(view.clone(), front);
        self.follow_mirror(&view);
        let web_wake = self.follow_web_screen(&view, row_moved, web_mark);
        self.publish(&view);
        // Verbs waiting on this pane read it again now.
        waiters::notify_all(&crate::paths::state_dir(), self.server, self.pane);
        match (wake, web_wake) {
            (Some(wake), Some(web)) => Some(wake.min(web)),
            (wake, web) => wake.or(web),
        }
    }

    /// How soon output is looked at: at once with a mirror to read.
    fn pace(&self) -> Pace {
        if self.mirror.as_ref().is_some_and(Mirror::trusted) {
            MIRROR_PACE
        } else {
            TMUX_PACE
        }
    }

    /// Feeds the mirror what the pane printed since the last look.
    fn take_output(&mut self) {
        let taken = self.inbox.take();
        if let Some(mirror) = &mut self.mirror {
            if taken.lost {
                mirror.lose();
            }
            mirror.feed(&taken.bytes);
        }
    }

    /// The last look at tmux with the mirror's screen and title: `None`
    /// when the mirror cannot stand for tmux (none, bytes lost, its size
    /// not the terminal's, or tmux not read for a while).
    fn mirror_view(&self) -> Option<PaneView> {
        let mirror = self.mirror.as_ref().filter(|m| m.trusted())?;
        let kept = self.kept.as_ref()?;
        if self.last_tmux_look.elapsed() >= CHECK_EVERY {
            return None;
        }
        // A resize: tmux reflows the screen, the mirror does not.
        if terminal_size(&kept.tty) != Some(mirror.size()) {
            return None;
        }
        let mut view = kept.clone();
        view.screen = mirror.text();
        if let Some(title) = mirror.title() {
            view.title = title.to_string();
        }
        Some(view)
    }

    /// Whether a look at the mirror can decide: the same agent is in
    /// front, and its turn is not ending (whether it ends done or idle
    /// hangs on who looks at the pane, which tmux knows).
    fn mirror_decides(&self, front: &Front) -> bool {
        let (Front::Agent { kind, reading, .. }, Some(track)) = (front, &self.tracker.agent) else {
            return false;
        };
        let ending = matches!(
            self.tracker.state(),
            Some(AgentStatus::Working | AgentStatus::Blocked)
        ) && matches!(reading.state, Some(AgentStatus::Idle));
        // A turn no look saw, its mark moved: told once, and ended done or
        // idle by who looks now, which tmux says (the kept view's clients
        // may be seconds old).
        let marked_turn = matches!(reading.state, Some(AgentStatus::Idle))
            && matches!(
                (&self.turn_mark, &self.turn_mark_read),
                (Some(before), Some(now)) if before != now
            );
        *kind == track.kind && !ending && !marked_turn
    }

    /// Compares the mirror with tmux's screen: a difference is logged (once
    /// in a while), and tmux's screen wins.
    fn check_mirror(&mut self, view: &PaneView) {
        let Some(mirror) = &mut self.mirror else {
            return;
        };
        let (rows, columns) = mirror.size();
        let resized = (view.geometry.height, view.geometry.width) != (rows, columns);
        if !resized && mirror.trusted() && mirror::same_text(&mirror.text(), &view.screen) {
            return;
        }
        if !resized
            && mirror.trusted()
            && mirror
                .last_told_difference
                .is_none_or(|at| at.elapsed() >= TELL_DIFFERENCE_EVERY)
        {
            server::log(&format!(
                "pane %{}: its mirror differed from tmux's screen; tmux's is taken",
                self.pane
            ));
            mirror.last_told_difference = Some(Instant::now());
        }
        let told = mirror.last_told_difference;
        self.mirror = Mirror::seed(&view.screen, view.geometry).map(|mut seeded| {
            seeded.last_told_difference = told;
            seeded
        });
    }

    /// Leaves what this look saw for the web, while an agent is in front
    /// (a shell's screen is read from tmux: no bytes are kept for it).
    fn publish(&self, view: &PaneView) {
        let shown = self.mirror.is_some().then(|| server::Shown {
            pane: self.pane,
            screen: view.screen.clone(),
            title: view.title.clone(),
            writes: self.writes,
        });
        *self.inbox.shown.lock().unwrap_or_else(|e| e.into_inner()) = shown;
    }

    /// Keeps a mirror while an agent is in front (its looks read it), and
    /// none otherwise (a shell's look is rare; its memory is not).
    fn follow_mirror(&mut self, view: &PaneView) {
        let wanted = self.tracker.agent.is_some();
        self.inbox.wanted.store(wanted, Ordering::Release);
        if !wanted {
            self.mirror = None;
        } else if self.mirror.is_none() {
            self.mirror = Mirror::seed(&view.screen, view.geometry);
        }
    }

    /// Keeps the screen the web follows of a pane with no agent in front
    /// (an agent's mirror serves the web then): seeded or checked by this
    /// look, asked of tmux at `mark`. A move of what the page shows of the
    /// pane's row counts as a write: the web reads the row again. Returns
    /// when to look again for the screen (Unix ms).
    fn follow_web_screen(
        &mut self,
        view: &PaneView,
        row_moved: bool,
        mark: web_screen::Mark,
    ) -> Option<u64> {
        if self.mirror.is_some() {
            self.inbox.stop_web_screen();
            return None;
        }
        let mut web = self.inbox.web();
        if !web.followed() {
            return None;
        }
        if row_moved {
            self.writes += 1;
        }
        let now = Instant::now();
        if web.look(view, self.writes, mark, now) == web_screen::Checked::Differed
            && web.tell_difference(TELL_DIFFERENCE_EVERY, now)
        {
            server::log(&format!(
                "pane %{}: the screen kept for the web differed from tmux's; tmux's is taken",
                self.pane
            ));
        }
        // While output keeps coming, its own looks follow (the last one
        // settled); a look again is for a pane that went quiet.
        if self.inbox.unread.load(Ordering::Acquire) {
            return None;
        }
        let again = web.look_again()?;
        Some(now_ms() + again.saturating_duration_since(now).as_millis() as u64)
    }

    fn reload_config_if_moved(&mut self, view: &PaneView) {
        if view.config_stamp != self.config_stamp {
            if !self.config_stamp.is_empty() || !view.config_stamp.is_empty() {
                self.config = Config::load().unwrap_or_default();
                self.listeners = Listeners::from_config(&self.config);
                // Agents a file defines come and go with the manifests.
                crate::detect::agents::reload_defined();
            }
            self.config_stamp = view.config_stamp.clone();
        }
    }

    /// Acts on one look: the tracker's changes, the options they write,
    /// the events they fire. Returns when to look again without output.
    fn observe(&mut self, view: PaneView, front: Front) -> Option<u64> {
        let now = now_ms();
        let looking = view.looked_at(self.pane);
        // Someone (a hook, the popup) marked a done pane as seen.
        if self.tracker.state() == Some(AgentStatus::Done) && view.agent_state == "idle" {
            self.tracker.seen(now);
        }
        self.session_name = view.session_name.clone();
        let container_now = self.container_in_front(&front, &view);
        let mut changes = self.turn_between_looks(&view, front, now, looking);
        let outcome = self.tracker.observe(Observation {
            now,
            front,
            looking,
        });
        changes.extend(outcome.changes.iter().cloned());
        // What a look tmux did not answer could not write comes first; what
        // this look writes is the later word.
        let mut writes = std::mem::take(&mut self.unwritten);
        let wake_at = self.follow_typed_line(&view, now, outcome.wake_at, &mut writes);
        for change in &changes {
            let kind = self.tracker.agent.as_ref().map(|track| track.kind);
            let told = self.announcer.occurrences(self.pane, kind, change);
            self.told.extend(told);
            self.apply(change, &view, now, looking, &mut writes);
        }
        // follow_container gives the container's variables to the events
        // told so far; pane.updated, told after it, goes without them.
        self.follow_container(container_now, &view, &mut writes);
        self.follow_description(&view);
        if front == Front::NoAgent && self.tracker.agent.is_none() && changes.is_empty() {
            forget_record_left(&view, now, &mut writes);
        }
        self.write_and_tell(writes, wake_at)
    }

    /// The container the agent in front runs in, by this look's job.
    fn container_in_front(
        &self,
        front: &Front,
        view: &PaneView,
    ) -> Option<(Container, &'static str)> {
        let Front::Agent { kind, .. } = front else {
            return None;
        };
        let runtime = self.runtime_in_front?;
        let container = Container {
            runtime: runtime.to_string(),
            profile: (!view.sandbox_profile.is_empty()).then(|| view.sandbox_profile.clone()),
        };
        Some((container, *kind))
    }

    /// A turn that began and ended between two looks (the integration's
    /// stamp, or the screen's turn mark moved) is seen as its start here,
    /// and its end by the look itself: the changes of that start.
    fn turn_between_looks(
        &mut self,
        view: &PaneView,
        front: Front,
        now: u64,
        looking: bool,
    ) -> Vec<Change> {
        let reported_turn = view.reported_turn != self.seen_turn;
        if reported_turn {
            self.seen_turn = view.reported_turn.clone();
        }
        let same_agent = match (&front, &self.tracker.agent) {
            (Front::Agent { kind, .. }, Some(track)) => *kind == track.kind,
            _ => false,
        };
        if !same_agent {
            self.turn_mark = None;
        }
        let Front::Agent { kind, pid, reading } = front else {
            return Vec::new();
        };
        // Marks are compared between looks at rest: a look in between (a
        // frame read as work, or as a viewer that says nothing) keeps the
        // mark of the last rest, so the turn it shows is still told.
        let at_rest = matches!(reading.state, Some(AgentStatus::Idle | AgentStatus::Done));
        let read_mark = self.turn_mark_read.take().filter(|_| at_rest);
        let marked_turn = match (&self.turn_mark, &read_mark) {
            (Some(before), Some(now)) => before != now,
            _ => false,
        };
        if read_mark.is_some() {
            self.turn_mark = read_mark;
        }

        let missed_turn = matches!(reading.state, Some(AgentStatus::Idle))
            && ((reported_turn && reading.reported) || (marked_turn && !reading.reported))
            && !matches!(
                self.tracker.state(),
                Some(AgentStatus::Working | AgentStatus::Blocked)
            );
        if !missed_turn {
            return Vec::new();
        }
        if marked_turn {
            crate::watch::server::log(&format!(
                "%{}: {kind}'s turn mark moved at rest: a turn no look saw working",
                self.pane
            ));
        }
        let work = Reading {
            state: Some(AgentStatus::Working),
            ..reading
        };
        let started = self.tracker.observe(Observation {
            now,
            front: Front::Agent {
                kind,
                pid,
                reading: work,
            },
            looking,
        });
        started.changes
    }

    /// The typed line went off the screen (scrolled away, cleared): the
    /// first look that misses it asks for another at once, and from the
    /// second the whole screen is read. Returns when to look again.
    fn follow_typed_line(
        &mut self,
        view: &PaneView,
        now: u64,
        wake_at: Option<u64>,
        writes: &mut OptionWrites,
    ) -> Option<u64> {
        let missed = !view.typed_line.is_empty()
            && !rows_to_read(&view.screen, &view.typed_line, &view.typed_command).1;
        if !missed {
            self.typed_misses = 0;
            return wake_at;
        }
        self.typed_misses += 1;
        let mut wake_at = wake_at;
        if self.typed_misses == 1 {
            wake_at = Some(wake_at.map_or(now, |at| at.min(now)));
        }
        if self.typed_misses >= 2 {
            for name in opt::TYPED {
                writes.unset(name);
            }
            self.typed_misses = 0;
        }
        wake_at
    }

    /// The title (its spinner glyph off), command or reported metadata
    /// changed since the last look: a pane.updated.
    fn follow_description(&mut self, view: &PaneView) {
        let described = format!(
            "{}\u{1f}{}\u{1f}{}",
            crate::model::strip_title_glyph(&view.title),
            view.current_command,
            view.described
        );
        if self.described.as_ref().is_some_and(|was| *was != described) {
            self.told
                .push(Occurrence::new(Event::PaneUpdated).pane(Some(self.pane)));
        }
        self.described = Some(described);
    }

    /// Writes the look's options (kept for the next look when tmux does not
    /// take them, which then comes soon), then tells what it saw. Returns when
    /// to look again.
    fn write_and_tell(&mut self, writes: OptionWrites, wake_at: Option<u64>) -> Option<u64> {
        let mut wake_at = wake_at;
        if !writes.is_empty() {
            self.writes += 1;
        }
        let mut tried_again = false;
        match pane::write_options(&self.tmux, self.pane, &writes) {
            Ok(()) => {
                self.failed_writes = 0;
                if let Some(kept) = &mut self.kept {
                    kept.take_in(&writes);
                }
            }
            Err(error) => match after_failed_write(&error, self.failed_writes) {
                FailedWrite::Gone => {}
                FailedWrite::Dropped => {
                    self.failed_writes = 0;
                    server::log(&format!(
                        "pane %{}: a write dropped after {WRITE_TRIES} tries: {}",
                        self.pane, error.message
                    ));
                }
                FailedWrite::Again => {
                    if error.code != ErrorCode::Timeout {
                        self.failed_writes += 1;
                        server::log(&format!(
                            "pane %{}: a write failed, to be tried again: {}",
                            self.pane, error.message
                        ));
                    }
                    self.unwritten = writes;
                    tried_again = true;
                    // From now: the write may have waited its whole limit.
                    let retry = now_ms() + RETRY.as_millis() as u64;
                    wake_at = Some(wake_at.map_or(retry, |at| at.min(retry)));
                }
            },
        }
        // Told once the writes are in, so a listener reads the new state: a
        // write tried again keeps its events for then (one dropped, or of a
        // pane gone, tells them all the same). Nothing starts when nothing
        // listens.
        if !tried_again {
            let told = std::mem::take(&mut self.told);
            hooks::announce(&self.tmux, &self.listeners, told);
        }
        wake_at
    }

    /// Records the container the agent in front runs in, and announces a
    /// container that came or went (a runtime that changed is a stop, then
    /// a start). The profile `taw sandbox` marked goes once the pane's own
    /// shell is back.
    ///
    /// Every other event of the look says the container too, the one the
    /// agent ran in when it has just left (its agent.done).
    fn follow_container(
        &mut self,
        now: Option<(Container, &'static str)>,
        view: &PaneView,
        writes: &mut OptionWrites,
    ) {
        if self.shell_in_front && !view.sandbox_profile.is_empty() {
            writes.unset(opt::SANDBOX_PROFILE);
        }
        let during = now
            .as_ref()
            .map(|(container, _)| container.clone())
            .or_else(|| self.container.as_ref().map(|(c, _)| c.clone()));
        if let Some(container) = &during {
            for told in self.told.iter_mut().filter(|t| t.pane == Some(self.pane)) {
                told.vars
                    .entry("TAW_SANDBOX".into())
                    .or_insert_with(|| container.profile.clone().unwrap_or_default());
                told.vars
                    .entry("TAW_RUNTIME".into())
                    .or_insert_with(|| container.runtime.clone());
            }
        }
        let same = match (&now, &self.container) {
            (Some((a, _)), Some((b, _))) => a == b,
            (None, None) => true,
            _ => false,
        };
        if same {
            return;
        }
        if let Some((gone, kind)) = self.container.take() {
            // Its session named, as by `finish`: a stop seen as the server
            // goes is delivered after it has.
            let mut stopped = sandbox_event(Event::SandboxStopped, self.pane, &gone, kind);
            stopped.session_name =
                (!self.session_name.is_empty()).then(|| self.session_name.clone());
            self.told.push(stopped);
            writes.unset(opt::CONTAINER);
        }
        if let Some((came, kind)) = &now {
            self.told.push(sandbox_event(
                Event::SandboxStarted,
                self.pane,
                came,
                Some(*kind),
            ));
            writes.set(opt::CONTAINER, came.value());
        }
        self.container = now.map(|(container, kind)| (container, Some(kind)));
    }

    /// What is in front of the pane, with its screen read by its rules and
    /// merged with what its integration reported.
    fn front(&mut self, view: &PaneView) -> Front {
        let reported = (!view.reported_kind.is_empty()).then(|| intern(&view.reported_kind));
        let (kind, pid) = match self.agent_in_front(view, reported) {
            Ok(agent) => agent,
            Err(no_agent) => return no_agent,
        };
        let (screen, visible_blocker) = self.read_screen(view, kind);
        let authority = report::authority(&view.reported_source, kind);
        let reading = if reported == Some(kind)
            && !view.reported_state.is_empty()
            && authority != Authority::SessionOnly
        {
            let state = AgentStatus::parse(&view.reported_state);
            // The reporter's word stands, but a question on screen is still
            // a question: an integration can miss one (OpenCode's reports
            // it works while its permission dialog waits).
            let state = if visible_blocker {
                AgentStatus::Blocked
            } else {
                state
            };
            Reading {
                state: Some(state),
                visible_idle: true,
                reported: true,
            }
        } else {
            screen
        };
        Front::Agent { kind, pid, reading }
    }

    /// The agent in front and its pid (none for one only its integration
    /// names), or, when no agent is, what the front is instead.
    fn agent_in_front(
        &mut self,
        view: &PaneView,
        reported: Option<&'static str>,
    ) -> Result<(&'static str, Option<u32>), Front> {
        let job = self.job_view(view.pid, &view.current_command);
        self.runtime_in_front = None;
        self.shell_in_front = matches!(job, JobView::Shell);
        // `taw agent start`'s hint names an agent run under a script or a
        // wrapper, while the process it recorded is in front.
        let recorded: Option<u32> = view.agent_pid.parse().ok();
        let hinted = (!view.kind_hint.is_empty()).then(|| intern(&view.kind_hint));
        match (job, reported) {
            (JobView::Unknown, _) => Err(Front::Unknown),
            (JobView::Shell, _) => Err(Front::NoAgent),
            (JobView::Agent { kind, pid, runtime }, _) => {
                self.runtime_in_front = runtime;
                Ok((kind, Some(pid)))
            }
            // A program nothing names, that its integration says is an agent.
            (JobView::Other(_), Some(kind)) => Ok((kind, None)),
            (JobView::Other(pids), None) => match (hinted, recorded) {
                (Some(kind), Some(pid)) if pids.contains(&pid) => Ok((kind, Some(pid))),
                _ => Err(Front::NoAgent),
            },
        }
    }

    /// What the rules of agent `kind` read on the screen, and whether they
    /// see a question there.
    fn read_screen(&mut self, view: &PaneView, kind: &'static str) -> (Reading, bool) {
        if let Some(stale) = &self.stale_title
            && *stale != view.title
        {
            self.stale_title = None;
        }
        let title = if self.stale_title.is_some() || self.tracker.agent.is_none() {
            ""
        } else {
            view.title.as_str()
        };
        let (rows, below_typed) = rows_to_read(&view.screen, &view.typed_line, &view.typed_command);
        // The first look that misses the typed line may have caught the
        // shell mid-redraw: it reads nothing, and the next look comes at once.
        let first_miss = !view.typed_line.is_empty() && !below_typed && self.typed_misses == 0;
        self.turn_mark_read = None;
        let unread = Reading {
            state: None,
            visible_idle: false,
            reported: false,
        };
        let Some(loaded) = self.registry.get(&self.config, &self.config_stamp, kind) else {
            // An agent with no screen rules (it reports for itself): idle
            // unless its integration says otherwise.
            let idle = Reading {
                state: Some(AgentStatus::Idle),
                ..unread
            };
            return (idle, false);
        };
        if (below_typed && rows.trim().is_empty()) || first_miss {
            // Nothing drawn below the typed line yet, or not read.
            return (unread, false);
        }
        let screen = Screen::from_text(&rows, title);
        let mut verdict = engine::classify(&loaded.manifest, &screen);
        self.turn_mark_read = loaded
            .manifest
            .turn_mark
            .as_ref()
            .and_then(|mark| mark.read(&screen));
        // What the command prints first (an install's progress) is no idle
        // screen, for a kind whose rules know its idle one.
        let knows_idle = loaded.manifest.rules.iter().any(|r| r.visible_idle);
        if below_typed && verdict.fallback_reason.is_some() && knows_idle {
            verdict.state = None;
        }
        let reading = Reading {
            state: verdict.state.map(status_of),
            visible_idle: verdict.visible_idle,
            reported: false,
        };
        (reading, verdict.visible_blocker)
    }

    /// What the process table says is in front of the pane's terminal.
    fn job_view(&mut self, pane_pid: u32, current_command: &str) -> JobView {
        let Some(pane_process) = foreground::read_process(pane_pid) else {
            return JobView::Unknown;
        };
        let key = (
            pane_process.tpgid,
            pane_process.comm.clone(),
            current_command.to_string(),
        );
        // A shell that runs a command line (`claude; exec bash`, `sh -c`)
        // starts its children in its own group, and nothing tmux tells
        // (the group in front, the command's name) moves when one comes:
        // such a pane's job is read at every look.
        let runner = pane_process.tpgid == i64::from(pane_process.pgid)
            && foreground::is_shell_process(&pane_process)
            && !foreground::is_interactive_shell(&pane_process);
        if let Some(cached) = &self.job
            && cached.key == key
            && cached.at.elapsed() < JOB_CACHE
            && !runner
        {
            return cached.view.clone();
        }
        let group = foreground::read_group(&pane_process);
        let view = match foreground::front_of(&pane_process, group) {
            JobFront::Shell => JobView::Shell,
            JobFront::Unknown => JobView::Unknown,
            JobFront::Job { members, .. } => {
                match foreground::identify(&members, &foreground::resolve_link_on_disk) {
                    Some(found) => JobView::Agent {
                        kind: found.agent.id,
                        pid: found.pid,
                        runtime: found.runtime,
                    },
                    None => JobView::Other(members.iter().map(|p| p.pid).collect()),
                }
            }
        };
        self.job = Some(JobReading {
            key,
            at: Instant::now(),
            view: view.clone(),
        });
        view
    }

    fn apply(
        &mut self,
        change: &Change,
        view: &PaneView,
        now: u64,
        looking: bool,
        writes: &mut OptionWrites,
    ) {
        match change {
            Change::Started { kind, pid, state } => {
                self.stale_title = Some(view.title.clone());
                self.state_seq = 0;
                writes.set(opt::STATE_SEQ, "0");
                writes.set(opt::AGENT_KIND, *kind);
                writes.set(opt::AGENT_STATE, state.as_str());
                writes.set(opt::STATE_SINCE, now.to_string());
                for name in opt::LEFT_BY_RESTORE {
                    writes.unset(name);
                }
                match pid {
                    Some(pid) => writes.set(opt::AGENT_PID, pid.to_string()),
                    None => writes.unset(opt::AGENT_PID),
                };
                self.toast = None;
            }
            Change::State { from, to } => {
                self.state_seq += 1;
                writes.set(opt::STATE_SEQ, self.state_seq.to_string());
                writes.set(opt::AGENT_STATE, to.as_str());
                writes.set(opt::STATE_SINCE, now.to_string());
                let busy =
                    |s: &AgentStatus| matches!(s, AgentStatus::Working | AgentStatus::Blocked);
                if busy(to) && !busy(from) {
                    writes.set(opt::TURN, now.to_string());
                }
                if !looking {
                    match to {
                        AgentStatus::Blocked => self.schedule_toast(now, ToastKind::Request),
                        AgentStatus::Done => self.schedule_toast(now, ToastKind::Done),
                        _ => self.toast = None,
                    }
                } else {
                    self.toast = None;
                }
            }
            Change::Exited { kind, last, .. } => {
                for name in opt::RECORD {
                    writes.unset(name);
                }
                for name in opt::TYPED {
                    writes.unset(name);
                }
                // The report was about this agent; it has gone. Its session
                // and resume command stay, for a session restore.
                if !view.reported_kind.is_empty() {
                    for name in opt::REPORT {
                        writes.unset(name);
                    }
                }
                writes.set(opt::FINAL_STATE, format!("{} {now}", last.as_str()));
                self.stale_title = None;
                self.job = None;
                if *last == AgentStatus::Done && !looking {
                    self.toast_agent = Some(kind);
                    self.schedule_toast(now, ToastKind::Done);
                } else {
                    self.toast = None;
                }
            }
        }
    }

    fn schedule_toast(&mut self, now: u64, kind: ToastKind) {
        let delay = match kind {
            ToastKind::Request => {
                self.config
                    .get(&crate::config::schema::UI_TOAST_DELAY_SECONDS) as f64
            }
            ToastKind::Done => self
                .config
                .get(&crate::config::schema::UI_TOAST_DONE_DELAY_SECONDS),
        };
        self.toast = Some(PendingToast {
            at: now + (delay * 1000.0) as u64,
            kind,
        });
        if kind == ToastKind::Request {
            self.toast_agent = None;
        }
    }

    /// Shows a toast whose delay is over, if its reason still holds and
    /// nobody looks at the pane.
    fn fire_toast(&mut self) {
        let Some(pending) = self.toast.clone() else {
            return;
        };
        if pending.at > now_ms() {
            return;
        }
        self.toast = None;
        let Ok(view) = pane::look(&self.tmux, self.pane) else {
            return;
        };
        if view.looked_at(self.pane) {
            return;
        }
        let (holds, kind_id) = match (pending.kind, self.tracker.agent.as_ref()) {
            (ToastKind::Request, Some(track)) => (track.state == AgentStatus::Blocked, track.kind),
            (ToastKind::Done, Some(track)) => (track.state == AgentStatus::Done, track.kind),
            // The agent left; its done is the last word.
            (ToastKind::Done, None) => (self.toast_agent.is_some(), self.toast_agent.unwrap_or("")),
            (ToastKind::Request, None) => (false, ""),
        };
        if !holds {
            return;
        }
        let name = agents::by_id(kind_id).map(|a| a.name).unwrap_or(kind_id);
        let place = format!(
            "{}:{} ({})",
            view.session_name, view.window_index, view.window_name
        );
        let message = match pending.kind {
            ToastKind::Request => format!("{name} needs you in {place}"),
            ToastKind::Done => format!("{name} is done in {place}"),
        };
        let clients: Vec<String> = view.clients.iter().map(|(name, _)| name.clone()).collect();
        // Kept on the pane for a machine's feed, which the look wakes.
        let mut writes = OptionWrites::default();
        let kept = crate::machine::protocol::PaneToast {
            at: now_ms(),
            kind: match pending.kind {
                ToastKind::Request => "request",
                ToastKind::Done => "done",
            }
            .into(),
            text: message.clone(),
            agent: kind_id.to_string(),
            location: place,
        };
        writes.set(opt::TOAST, crate::machine::protocol::kept(&kept));
        // The toast is shown below all the same; only a machine's feed,
        // which reads this copy, misses it.
        let _ = pane::write_options(&self.tmux, self.pane, &writes);
        waiters::notify_all(&crate::paths::state_dir(), self.server, self.pane);
        let sound = match pending.kind {
            ToastKind::Request => notify::Sound::Request,
            ToastKind::Done => notify::Sound::Done,
        };
        // What was shown is for a verb's answer; the watcher has none. The
        // watcher lives on: the sound's own thread stops it at its limit.
        let _ = notify::notify(
            &self.tmux,
            &self.config,
            &clients,
            &message,
            sound,
            notify::About {
                pane: Some(self.pane),
                agent: Some(kind_id),
            },
        );
    }
}

/// What becomes of a look's option writes tmux did not take.
#[derive(Debug, PartialEq, Eq)]
enum FailedWrite {
    /// The pane or its server went: its end comes, nothing to keep.
    Gone,
    /// Written with the next look, made soon: no more output may come to
    /// make one. tmux did not answer in time, or its client failed while
    /// the pane and server stay (a loaded machine).
    Again,
    /// A failure other than a timeout, [`WRITE_TRIES`] times in a row
    /// (looks' writes merged meanwhile): no passing load.
    Dropped,
}

/// `failed_before`: the failures in a row before this one. A timeout is
/// always tried again (a stopped server answers once it runs on).
fn after_failed_write(error: &TawError, failed_before: u32) -> FailedWrite {
    if crate::tmux::is_pane_gone(error) || crate::tmux::is_server_gone(error) {
        FailedWrite::Gone
    } else if error.code != ErrorCode::Timeout && failed_before + 1 >= WRITE_TRIES {
        FailedWrite::Dropped
    } else {
        FailedWrite::Again
    }
}

fn status_of(state: RuleState) -> AgentStatus {
    match state {
        RuleState::Idle => AgentStatus::Idle,
        RuleState::Working => AgentStatus::Working,
        RuleState::Blocked => AgentStatus::Blocked,
        RuleState::Unknown => AgentStatus::Unknown,
    }
}

/// When output that began at `first` is looked at, where that is sooner
/// than the debounce allows: `None` for the debounce. Output after quiet is
/// looked at almost at once, and so is output to an agent that waits (it
/// may be a turn over in a moment), though then no sooner than
/// [`MAX_DELAY`] after the last look, so a pane that streams with no agent
/// working in it (a build in a shell) is not looked at more often than one
/// where an agent works.
fn early_look(pace: Pace, first: Instant, last_look: Instant, waiting: bool) -> Option<Instant> {
    let soon = first + pace.leading;
    if waiting {
        Some(soon.max(last_look + pace.max_delay))
    } else if first.saturating_duration_since(last_look) >= QUIET {
        Some(soon)
    } else {
        None
    }
}

/// How many pane threads ask tmux at once: 500 panes piped together
/// would otherwise connect 500 clients to tmux in the same moment.
const TMUX_TURNS: usize = 4;

/// Runs `look` when fewer than [`TMUX_TURNS`] other looks at tmux run.
fn in_turn<T>(look: impl FnOnce() -> T) -> T {
    use std::sync::Condvar;
    static RUNNING: Mutex<usize> = Mutex::new(0);
    static FREED: Condvar = Condvar::new();
    {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        while *running >= TMUX_TURNS {
            running = FREED.wait(running).unwrap_or_else(|e| e.into_inner());
        }
        *running += 1;
    }
    let answer = look();
    *RUNNING.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
    FREED.notify_one();
    answer
}

/// The rows and columns of terminal `tty`, as its program sees them.
pub(crate) fn terminal_size(tty: &str) -> Option<(u16, u16)> {
    use std::os::unix::fs::OpenOptionsExt;
    // No controlling terminal is taken, and nothing is read or written.
    let file = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(tty)
        .ok()?;
    let size = rustix::termios::tcgetwinsize(&file).ok()?;
    Some((size.ws_row, size.ws_col))
}

/// The next thing that wakes the watcher: `None` when `timeout` passed
/// first; with no timeout, it waits for one. Its senders all gone is the end.
fn next_wake(events: &mpsc::Receiver<Wake>, timeout: Option<Duration>) -> Option<Wake> {
    match timeout {
        Some(timeout) => match events.recv_timeout(timeout) {
            Ok(event) => Some(event),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Wake::End),
        },
        None => Some(events.recv().unwrap_or(Wake::End)),
    }
}

/// A record no look of this watcher made (`taw agent start` wrote it as
/// the agent came up, or a watcher before this one) for an agent no longer
/// in front: taken off, as an exit's would be.
fn forget_record_left(view: &PaneView, now: u64, writes: &mut OptionWrites) {
    if view.agent_kind.is_empty() || !view.reported_kind.is_empty() {
        return;
    }
    for name in opt::RECORD {
        writes.unset(name);
    }
    for name in opt::TYPED {
        writes.unset(name);
    }
    let last = AgentStatus::parse(&view.agent_state);
    writes.set(opt::FINAL_STATE, format!("{} {now}", last.as_str()));
}

/// `sandbox.started` or `sandbox.stopped` for a pane: the event's own
/// `sandbox` field is the container that came or went, and TAW_SANDBOX and
/// TAW_RUNTIME say it (the profile is empty for one typed by hand).
fn sandbox_event(
    event: Event,
    pane: u32,
    container: &Container,
    agent: Option<&'static str>,
) -> Occurrence {
    let mut occurrence = Occurrence::new(event).pane(Some(pane));
    occurrence.data.insert(
        "sandbox".into(),
        serde_json::json!({"profile": container.profile, "runtime": container.runtime}),
    );
    if let Some(agent) = agent {
        occurrence
            .data
            .insert("agent".into(), serde_json::Value::String(agent.into()));
    }
    occurrence.vars.insert(
        "TAW_SANDBOX".into(),
        container.profile.clone().unwrap_or_default(),
    );
    occurrence
        .vars
        .insert("TAW_RUNTIME".into(), container.runtime.clone());
    occurrence
}

/// What of a pane's row the web shows and a shell's own output can move
/// with no hook telling: its title, the program in front, copy mode.
fn web_row(view: &PaneView) -> (&str, &str, bool, bool) {
    (&view.title, &view.current_command, view.in_mode, view.dead)
}

#[cfg(test)]
mod label_tests {
    use super::{MAX_LABELS, OTHER_LABEL, intern};

    #[test]
    fn the_labels_kept_are_bounded() {
        assert_eq!(intern("Claude-Code"), "claude");
        let first = intern("label-test-0");
        assert_eq!(first, "label-test-0");
        assert_eq!(intern(&"x".repeat(65)), OTHER_LABEL);
        for n in 0..MAX_LABELS + 10 {
            intern(&format!("label-test-{n}"));
        }
        assert_eq!(intern("label-test-new"), OTHER_LABEL);
        // Those kept stay, the same text.
        assert!(std::ptr::eq(intern("label-test-0"), first));
        assert_eq!(intern("codex"), "codex");
    }
}

#[cfg(test)]
mod rows_tests {
    use super::{FailedWrite, WRITE_TRIES, after_failed_write, rows_to_read};
    use crate::envelope::{ErrorCode, TawError};

    #[test]
    fn a_write_tmux_did_not_take_is_tried_again_until_it_lasts() {
        let busy = TawError::tmux("tmux: fork failed");
        assert_eq!(after_failed_write(&busy, 0), FailedWrite::Again);
        assert_eq!(
            after_failed_write(&busy, WRITE_TRIES - 2),
            FailedWrite::Again
        );
        // The last of WRITE_TRIES tries in all.
        assert_eq!(
            after_failed_write(&busy, WRITE_TRIES - 1),
            FailedWrite::Dropped
        );
        // A stopped server's timeouts are waited out.
        let slow = TawError::new(ErrorCode::Timeout, "tmux did not answer");
        assert_eq!(
            after_failed_write(&slow, WRITE_TRIES * 3),
            FailedWrite::Again
        );
        let closed = TawError::tmux("can't find pane: %4");
        assert_eq!(after_failed_write(&closed, 0), FailedWrite::Gone);
        let ended = TawError::tmux("lost server");
        assert_eq!(after_failed_write(&ended, 0), FailedWrite::Gone);
    }

    #[test]
    fn rows_below_the_typed_line() {
        let screen = "old agent's last frame\n$ claude --x\nnew frame\n";
        assert_eq!(
            rows_to_read(screen, "$ claude --x", "claude --x"),
            ("new frame".to_string(), true)
        );
        assert_eq!(rows_to_read(screen, "", ""), (screen.to_string(), false));
        assert!(!rows_to_read(screen, "$ codex", "codex").1);
        // An older value: the command alone.
        assert!(rows_to_read(screen, "claude --x", "").1);
    }
}

#[cfg(test)]
mod timing_tests {
    use super::{MIRROR_PACE, TMUX_PACE, early_look};
    use std::time::{Duration, Instant};

    #[test]
    fn output_is_looked_at_early_but_not_more_often_than_a_burst() {
        let look = Instant::now();
        let ms = Duration::from_millis;
        for pace in [TMUX_PACE, MIRROR_PACE] {
            // After quiet: almost at once, waiting or not.
            for waiting in [true, false] {
                let first = look + ms(500);
                assert_eq!(
                    early_look(pace, first, look, waiting),
                    Some(first + pace.leading)
                );
            }
            // A working agent's output soon after a look: the debounce.
            assert_eq!(early_look(pace, look + ms(30), look, false), None);
            // A waiting pane's output soon after a look: early, but a burst
            // apart from the last look.
            assert_eq!(
                early_look(pace, look + ms(2), look, true),
                Some(look + pace.max_delay)
            );
            assert_eq!(
                early_look(pace, look + ms(95), look, true),
                Some(look + ms(95) + pace.leading)
            );
        }
    }
}
