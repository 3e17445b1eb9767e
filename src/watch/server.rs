//! One watcher for a whole tmux server: `taw watch server`, started by the
//! first `taw watch attach-all` (a load, a hook for a new pane) that finds
//! none running.
//!
//! tmux starts a process for every `pipe-pane`; here it is the smallest
//! there is, `cat` writing into a FIFO of the watcher's (about 0.1 MB a
//! pane, where a watcher of its own cost 1.9 MB). One thread reads every
//! FIFO with poll(2) and wakes the pane's [`Watcher`], which keeps its own
//! state and timers in a thread of its own; a quiet server wakes nothing.
//! The watcher listens on a Unix socket in the state folder for the asks
//! of other taw processes (attach the panes, look at a pane, quit), and
//! holds a lock file while it runs, so a server never has two. It ends
//! when its last pane's pipe closes: the panes went (or the server did),
//! or an unload closed them.

use super::Wake;
use super::attach::{Attached, Watch, watch_of_pipe};
use super::web_screen::{self, WebScreen};
use crate::config::Config;
use crate::detect::registry::OnDemand;
use crate::envelope::{ErrorCode, Result, TawError};
use crate::tmux::commands::ShellWord;
use crate::tmux::{Batch, Tmux, pane};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixDatagram, UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use super::waiters::MAX_PATH as MAX_SOCKET_PATH;
/// How long an ask waits for the watcher's answer (an attach reads the
/// server and makes every pipe in one tmux call).
const ANSWER_LIMIT: Duration = Duration::from_secs(20);
/// How long a new watcher has to say it listens.
const START_LIMIT: Duration = Duration::from_secs(10);
/// How long a new watcher waits for one on its way out to let go.
const LOCK_WAIT: Duration = Duration::from_secs(5);
/// How long a watcher with no pane waits for an ask before it ends.
const IDLE_END: Duration = Duration::from_secs(30);
/// How long the watcher waits for an ask's line once connected.
const ASK_LIMIT: Duration = Duration::from_secs(2);
/// Each pane's thread: its looks need little stack (the config's parser is
/// the deepest), and only the pages it touches cost memory.
const PANE_STACK: usize = 512 * 1024;

/// What another taw asks the server's watcher.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "ask", rename_all = "snake_case")]
pub(crate) enum Ask {
    /// Pipe every pane that has no watcher (with `restart`, those of
    /// another taw version too); answered with [`Attached`]. With `budget`
    /// (milliseconds), answered once that is spent, the panes not piped
    /// yet said pending: they are piped right after.
    Attach {
        restart: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        budget: Option<u64>,
    },
    /// Look at pane `%pane` now: a report, a focus change.
    Look { pane: u32 },
    /// What the last looks at these panes saw (the web's frames): answered
    /// with [`Shown`] for each that has an agent in front.
    Shown { panes: Vec<u32> },
    /// End now, leaving the pipes: a watcher started after it takes them.
    Quit,
}

/// The watcher's answer to an ask.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
enum Answer {
    Attached(Attached),
    Failed { code: ErrorCode, message: String },
    Done,
    Shown { shown: Vec<Shown> },
}

/// The watcher's socket for server `server`: `None` where the state
/// folder's path is too long for one.
pub(crate) fn socket_path(state_dir: &Path, server: u32) -> Option<PathBuf> {
    let path = state_dir.join("run").join(format!("{server}-watch.sock"));
    (path.as_os_str().len() <= MAX_SOCKET_PATH).then_some(path)
}

fn lock_path(state_dir: &Path, server: u32) -> PathBuf {
    state_dir.join("run").join(format!("{server}-watch.lock"))
}

/// A pane's FIFO: the serial makes each pipe's its own, so a pane piped
/// again never meets the end of its last pipe.
/// The FIFOs' folder: apart from the waiters' sockets in `run/`, which
/// every look lists.
fn fifo_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("run").join("fifos")
}

fn fifo_path(state_dir: &Path, server: u32, pane: u32, serial: u64) -> PathBuf {
    fifo_dir(state_dir).join(format!("{server}-{pane}-{serial}.fifo"))
}

fn no_socket() -> TawError {
    TawError::io(format!(
        "the state folder's path is too long for the watcher's socket (at most {MAX_SOCKET_PATH} bytes); set TAW_STATE_DIR to a shorter one"
    ))
}

/// Sends `ask` to the watcher of server `server` and reads its answer:
/// `Ok(None)` when no watcher listens there.
fn send(state_dir: &Path, server: u32, ask: &Ask) -> Result<Option<String>> {
    send_within(state_dir, server, ask, ANSWER_LIMIT)
}

/// [`send`], waiting at most `limit` for the answer.
fn send_within(
    state_dir: &Path,
    server: u32,
    ask: &Ask,
    limit: Duration,
) -> Result<Option<String>> {
    let path = socket_path(state_dir, server).ok_or_else(no_socket)?;
    let mut stream = match UnixStream::connect(&path) {
        Ok(stream) => stream,
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Ok(None);
        }
        Err(error) => return Err(TawError::io(format!("the watcher's socket: {error}"))),
    };
    let line = serde_json::to_string(ask).map_err(|e| TawError::io(e.to_string()))?;
    let io = |error: std::io::Error| TawError::io(format!("the watcher's socket: {error}"));
    stream.set_write_timeout(Some(limit)).map_err(io)?;
    stream.set_read_timeout(Some(limit)).map_err(io)?;
    stream
        .write_all(format!("{line}\n").as_bytes())
        .map_err(io)?;
    let mut answer = String::new();
    match stream.read_to_string(&mut answer) {
        Ok(_) => Ok(Some(answer)),
        Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => Err(TawError::new(
            ErrorCode::Timeout,
            format!(
                "the watcher (taw watch server) did not answer in {}",
                crate::exec::seconds(limit)
            ),
        )),
        Err(error) => Err(io(error)),
    }
}

/// How long the web waits for the watcher's screens before it reads tmux
/// (a watcher busy piping a loading server's panes answers after that).
const SHOWN_LIMIT: Duration = Duration::from_millis(100);

/// What the server's watcher last saw of each of `panes` that has an agent
/// in front, and the screens it keeps for the web of those with none (a
/// shell asked for is followed from then on); empty when no watcher
/// answers (none runs, one of a taw before this ask, or one busy), and the
/// caller reads tmux.
pub(crate) fn shown(server: u32, panes: &[u32]) -> HashMap<u32, Shown> {
    let ask = Ask::Shown {
        panes: panes.to_vec(),
    };
    let answer = send_within(&crate::paths::state_dir(), server, &ask, SHOWN_LIMIT);
    match answer
        .ok()
        .flatten()
        .map(|text| serde_json::from_str(&text))
    {
        Some(Ok(Answer::Shown { shown })) => shown.into_iter().map(|s| (s.pane, s)).collect(),
        _ => HashMap::new(),
    }
}

/// Asks the server's watcher to look at pane `%pane`; nothing happens when
/// none runs (the next one looks at every pane as it starts).
pub(crate) fn ask_look(server: u32, pane: u32) {
    // A look not asked is made at the pane's next output.
    let _ = send(&crate::paths::state_dir(), server, &Ask::Look { pane });
}

/// Asks the server's watcher to attach the panes, starting one (with
/// `bin`, in `env`) when none runs. With `renew`, the watcher running is
/// ended first, and the new one takes every pane.
pub(crate) fn attach(
    tmux: &Tmux,
    server: u32,
    bin: &str,
    env: &[(&'static str, String)],
    restart: bool,
    renew: bool,
    budget: Option<Duration>,
) -> Result<Attached> {
    let state_dir = crate::paths::state_dir();
    if renew {
        send(&state_dir, server, &Ask::Quit)?;
    }
    let ask = Ask::Attach {
        restart,
        budget: budget.map(|spent| spent.as_millis() as u64),
    };
    // A watcher that was ending as it was asked (its last pane went) is
    // followed by one started here.
    let mut answer = None;
    for _ in 0..3 {
        answer = send(&state_dir, server, &ask)?;
        if answer.is_some() {
            break;
        }
        start(tmux, &state_dir, server, bin, env)?;
    }
    let answer = answer.ok_or_else(|| {
        TawError::io(format!(
            "the watcher (taw watch server) starts but does not listen; its log: {}",
            log_path().display()
        ))
    })?;
    match serde_json::from_str::<Answer>(answer.trim()) {
        // A watcher of another taw (the one before an update) pipes as its
        // own build would and keeps its panes: it is ended, and one of
        // this taw's takes every pane.
        Ok(Answer::Attached(attached))
            if restart
                && !renew
                && attached.watcher_version.as_deref() != Some(env!("CARGO_PKG_VERSION")) =>
        {
            log(&format!(
                "the watcher running is of taw {}: one of taw {} takes its place",
                attached
                    .watcher_version
                    .as_deref()
                    .unwrap_or("(an older one)"),
                env!("CARGO_PKG_VERSION")
            ));
            attach(tmux, server, bin, env, restart, true, budget)
        }
        Ok(Answer::Attached(mut attached)) => {
            attached.watcher_version = None;
            Ok(attached)
        }
        Ok(Answer::Failed { code, message }) => Err(TawError::new(code, message)),
        Ok(Answer::Done | Answer::Shown { .. }) | Err(_) => Err(TawError::io(format!(
            "the watcher answered {:?} to an attach",
            crate::text::one_line(&answer, 200)
        ))),
    }
}

/// Starts `taw watch server` for this server, in a session of its own and
/// with tmux's global environment, and waits until it listens: it says so
/// on a datagram socket of ours.
fn start(
    tmux: &Tmux,
    state_dir: &Path,
    server: u32,
    bin: &str,
    env: &[(&'static str, String)],
) -> Result<()> {
    let run = state_dir.join("run");
    crate::paths::make_private_dir(&run)
        .map_err(|e| TawError::io(format!("cannot make {}: {e}", run.display())))?;
    let ready_path = run.join(format!("{server}-ready-{}.sock", std::process::id()));
    if ready_path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(no_socket());
    }
    // One left by a taw of this pid that was killed; usually none.
    let _ = std::fs::remove_file(&ready_path);
    let ready = UnixDatagram::bind(&ready_path)
        .map_err(|e| TawError::io(format!("cannot listen on {}: {e}", ready_path.display())))?;
    // The environment of tmux's own jobs (tmux's global one): what a pane's
    // program, a hook and a notification's helper expect (DISPLAY, the
    // session bus), whoever asked for the watcher.
    let global = crate::tmux::environment::read_for_sessions(tmux, &[]).for_session(None);
    // Named by its path: tmux's environment has no $TMUX to find it by.
    let socket_path = crate::tmux::socket_path(tmux)?;
    let started = crate::exec::Program::new(bin)
        .env_clear()
        .envs(global)
        .envs(env.iter().map(|(name, value)| (*name, value.as_str())))
        .args(["-S", &socket_path])
        .args(["watch", "server", "--ready"])
        .arg(&ready_path)
        .start_unwatched();
    let heard = started.is_ok()
        && ready.set_read_timeout(Some(START_LIMIT)).is_ok()
        && ready.recv(&mut [0u8; 8]).is_ok();
    // Gone either way: nothing else listens on it.
    let _ = std::fs::remove_file(&ready_path);
    match started {
        Err(failure) => Err(TawError::io(failure.describe("taw watch server"))),
        Ok(()) if !heard => Err(TawError::new(
            ErrorCode::Timeout,
            format!(
                "the watcher (taw watch server) did not start in {}; its log: {}",
                crate::exec::seconds(START_LIMIT),
                log_path().display()
            ),
        )),
        Ok(()) => Ok(()),
    }
}

fn log_path() -> PathBuf {
    crate::paths::state_dir().join("logs").join("watch.log")
}

/// A line in the watcher's log, with the time.
pub(crate) fn log(text: &str) {
    let line = format!(
        "{} [{}] {}",
        crate::hooks::run::utc_time(crate::clock::now_ms() / 1000),
        std::process::id(),
        crate::text::one_line(text, usize::MAX)
    );
    crate::paths::append_line(&log_path(), &line, 256 * 1024);
}

/// The most of a pane's output kept for its thread between two reads: a
/// pane that prints faster than that loses the rest, and its mirror is
/// seeded again from tmux.
const INBOX_LIMIT: usize = 256 * 1024;

/// What a pane printed, handed from the reading loop to the pane's thread;
/// and back, what the thread's last look saw, for [`Ask::Shown`].
#[derive(Default)]
pub(crate) struct Inbox {
    /// Output told that the pane's thread has not taken in yet.
    pub unread: AtomicBool,
    /// The thread keeps a mirror of the screen: the bytes are kept for it
    /// (else only told).
    pub wanted: AtomicBool,
    bytes: Mutex<Taken>,
    /// The last look's screen, while an agent is in front.
    pub shown: Mutex<Option<Shown>>,
    /// The web follows the pane's screen (a shell's: see [`WebScreen`]).
    web_followed: AtomicBool,
    web: Mutex<WebScreen>,
}

/// What a look at an agent's pane saw, or a shell's screen kept for the
/// web: its screen (as `capture-pane -p` gives it) and title, and how many
/// of the thread's looks wrote the pane's options (or moved its row) by
/// then. A reader that read the pane's options from tmux at `writes`
/// needs only this until `writes` moves.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Shown {
    pub pane: u32,
    pub screen: String,
    pub title: String,
    pub writes: u64,
}

/// Bytes waiting for the pane's thread.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Taken {
    pub bytes: Vec<u8>,
    /// Some were dropped, past [`INBOX_LIMIT`].
    pub lost: bool,
}

impl Inbox {
    fn put(&self, bytes: &[u8]) {
        if self.web_followed.load(Ordering::Acquire) {
            self.web().put(bytes, Instant::now());
        }
        if !self.wanted.load(Ordering::Acquire) {
            return;
        }
        let mut kept = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        let room = INBOX_LIMIT.saturating_sub(kept.bytes.len());
        if bytes.len() > room {
            kept.lost = true;
        }
        kept.bytes
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// What waits, taken out.
    pub(crate) fn take(&self) -> Taken {
        std::mem::take(&mut *self.bytes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub(crate) fn web(&self) -> std::sync::MutexGuard<'_, WebScreen> {
        self.web.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The web asks for the pane's screen: the agent's last look, else the
    /// shell's screen kept for the web (followed from now on, while fewer
    /// than [`web_screen::MOST`] are: `room`).
    fn shown_to_web(&self, pane: u32, room: bool, now: Instant) -> Option<Shown> {
        if let Some(shown) = self.shown.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Some(shown);
        }
        if !room && !self.web_followed.load(Ordering::Acquire) {
            return None;
        }
        self.web_followed.store(true, Ordering::Release);
        self.web().ask(pane, now, super::terminal_size)
    }

    /// Drops the web's screen of the pane once the web stopped asking.
    fn forget_web_screen_if_unasked(&self, now: Instant) {
        if self.web_followed.load(Ordering::Acquire) {
            let mut web = self.web();
            if web.expired(now) {
                web.forget();
                self.web_followed.store(false, Ordering::Release);
            }
        }
    }

    /// The web's screen of the pane is no longer kept (an agent is in
    /// front: its own mirror serves the web).
    pub(crate) fn stop_web_screen(&self) {
        if self.web_followed.swap(false, Ordering::AcqRel) {
            self.web().forget();
        }
    }

    fn web_followed(&self) -> bool {
        self.web_followed.load(Ordering::Acquire)
    }
}

/// Set as a watcher ends for one started after it: its panes' threads then
/// take no announcement off.
pub(crate) static HANDING_OVER: AtomicBool = AtomicBool::new(false);

/// A pane an attach is to pipe.
struct Planned {
    id: u32,
    /// Its pipe is another watcher's, taken over.
    restart: bool,
    path: PathBuf,
    fifo: File,
    announcement: String,
}

/// Panes piped in one tmux call: each `pipe-pane` forks the tmux server,
/// so a server of 500 panes is piped in steps it answers others between.
const PIPE_BATCH: usize = 50;

/// One pane the watcher has piped.
struct Piped {
    /// Its FIFO, open for reading; the path is taken out at its end.
    fifo: File,
    path: PathBuf,
    /// What the watcher wrote in the pane's `@agent_wizard_watcher`.
    announcement: String,
    wake: mpsc::Sender<Wake>,
    /// What the pane printed, for its thread.
    inbox: Arc<Inbox>,
    thread: std::thread::JoinHandle<()>,
}

/// The watcher process.
struct Serving {
    tmux: Tmux,
    /// The socket it listens on.
    socket: PathBuf,
    server: u32,
    state_dir: PathBuf,
    config: Config,
    /// The agents' rules, compiled once for every pane.
    rules: OnDemand,
    panes: HashMap<u32, Piped>,
    /// Panes planned by an attach and not piped yet.
    queue: std::collections::VecDeque<Planned>,
    /// Threads of panes that ended, finishing their last words.
    ending: Vec<std::thread::JoinHandle<()>>,
    serial: u64,
}

/// `taw watch server`: runs until the last pane's pipe closes. `ready` is
/// the socket its starter waits on.
pub(crate) fn serve(tmux: Tmux, ready: Option<&Path>) -> Result<()> {
    // glibc gives each thread that allocates an arena of its own (up to 8 a
    // core), most of it idle here: a thread a pane needs little, and one
    // arena keeps the memory of 500 panes near what they use.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable; no thread but this one runs yet.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    // A FIFO a pane stays open for the watcher's life: 500 panes are past
    // macOS's 256.
    crate::paths::raise_open_files_limit();
    let server = crate::tmux::server_pid(&tmux)?;
    let state_dir = crate::paths::state_dir();
    for folder in [state_dir.join("run"), fifo_dir(&state_dir)] {
        crate::paths::make_private_dir(&folder)
            .map_err(|e| TawError::io(format!("cannot make {}: {e}", folder.display())))?;
    }
    let say_ready = || {
        if let Some(path) = ready {
            // The starter gave up waiting: nobody to tell.
            let _ = UnixDatagram::unbound().and_then(|s| s.send_to(b"r", path));
        }
    };
    let lock_file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(&state_dir, server))
        .map_err(|e| TawError::io(format!("the watcher's lock: {e}")))?;
    if !take_lock(&lock_file) {
        // Another watcher runs (or is starting): the starter asks it.
        say_ready();
        return Ok(());
    }
    let socket = socket_path(&state_dir, server).ok_or_else(no_socket)?;
    // The lock is ours, so a socket there is a dead watcher's.
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)
        .map_err(|e| TawError::io(format!("cannot listen on {}: {e}", socket.display())))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| TawError::io(e.to_string()))?;
    log(&format!("started for the tmux server of pid {server}"));
    say_ready();
    let mut serving = Serving {
        tmux,
        socket: socket.clone(),
        server,
        state_dir,
        config: Config::load().unwrap_or_default(),
        rules: OnDemand::default(),
        panes: HashMap::new(),
        queue: std::collections::VecDeque::new(),
        ending: Vec::new(),
        serial: 0,
    };
    let ended = serving.run(&listener);
    let _ = std::fs::remove_file(&socket);
    match ended {
        Ending::LastPane => {
            serving.close();
            log("ended: no pane is piped to it any more");
        }
        Ending::Asked => {
            // The panes' announcements stay: the watcher started after
            // this one knows them by it, and pipes them again. The pane
            // threads, ending as this process does, leave them be.
            HANDING_OVER.store(true, Ordering::SeqCst);
            for piped in serving.panes.values() {
                let _ = std::fs::remove_file(&piped.path);
            }
            for planned in &serving.queue {
                let _ = std::fs::remove_file(&planned.path);
            }
            log("ended: asked to, for a watcher started after it");
        }
    }
    drop(lock_file);
    Ok(())
}

enum Ending {
    LastPane,
    Asked,
}

impl Serving {
    /// The loop: output, asks. Returns why it ended.
    fn run(&mut self, listener: &UnixListener) -> Ending {
        let mut buffer = vec![0u8; 64 * 1024];
        // It ends with its last pane, once an attach has been asked (one
        // that finds nothing to pipe ends it too).
        let mut had_panes = false;
        loop {
            self.ending.retain(|thread| !thread.is_finished());
            if had_panes && self.panes.is_empty() && self.queue.is_empty() {
                return Ending::LastPane;
            }
            let order: Vec<u32> = self.panes.keys().copied().collect();
            // With no pane to read, a while without an ask ends it (one whose
            // starter went before asking, or whose server went first). With
            // panes still to pipe, only what is there now is taken.
            let wait = if !self.queue.is_empty() {
                Some(Duration::ZERO)
            } else if self.panes.is_empty() {
                Some(IDLE_END)
            } else if self.web_screens() > 0 {
                // A quiet server still drops the screens nobody asks for.
                Some(web_screen::KEEP)
            } else {
                None
            };
            let (ready, woke) = {
                use rustix::event::{PollFd, PollFlags};
                let mut fds = vec![PollFd::new(listener, PollFlags::IN)];
                fds.extend(
                    order
                        .iter()
                        .map(|pane| PollFd::new(&self.panes[pane].fifo, PollFlags::IN)),
                );
                let timeout = wait.and_then(|wait| rustix::event::Timespec::try_from(wait).ok());
                match rustix::event::poll(&mut fds, timeout.as_ref()) {
                    Ok(ready) => {
                        let woke: Vec<bool> =
                            fds.iter().map(|fd| !fd.revents().is_empty()).collect();
                        (ready, woke)
                    }
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(error) => {
                        log(&format!("poll failed: {error}"));
                        return Ending::LastPane;
                    }
                }
            };
            if ready == 0 && self.queue.is_empty() && self.panes.is_empty() {
                return Ending::LastPane;
            }
            for (index, pane) in order.iter().enumerate() {
                if woke[index + 1] {
                    self.take_output(*pane, &mut buffer);
                }
            }
            if woke[0] {
                while let Ok((stream, _)) = listener.accept() {
                    match self.answer(stream) {
                        Some(Ask::Quit) => return Ending::Asked,
                        Some(Ask::Attach { .. }) => had_panes = true,
                        _ => {}
                    }
                }
            }
            let now = Instant::now();
            for piped in self.panes.values() {
                piped.inbox.forget_web_screen_if_unasked(now);
            }
            if !self.queue.is_empty()
                && let Err(error) = self.pipe_some(&mut Attached::default())
            {
                log(&format!("piping the panes left: {}", error.message));
            }
        }
    }

    /// How many shells' screens are kept for the web.
    fn web_screens(&self) -> usize {
        self.panes
            .values()
            .filter(|piped| piped.inbox.web_followed())
            .count()
    }

    /// Reads what pane `%pane`'s FIFO holds; its end (the pipe closed: the
    /// pane went, or its pipe was closed) ends the pane's watch.
    fn take_output(&mut self, pane: u32, buffer: &mut [u8]) {
        let Some(piped) = self.panes.get_mut(&pane) else {
            return;
        };
        let mut got = false;
        let ended = loop {
            match piped.fifo.read(buffer) {
                Ok(0) => break true,
                Ok(read) => {
                    got = true;
                    piped.inbox.put(&buffer[..read]);
                }
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => break false,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break true,
            }
        };
        if got && !piped.inbox.unread.swap(true, Ordering::AcqRel) {
            // Who follows every pane (the web's page) reads the screen now,
            // before the look: its state follows with the look's own word.
            super::waiters::notify_every_pane_waiter(&self.state_dir, self.server, pane);
            // A pane thread that ended has nothing to wake.
            let _ = piped.wake.send(Wake::Output);
        }
        if ended {
            self.end_pane(pane);
        }
    }

    fn end_pane(&mut self, pane: u32) {
        if let Some(piped) = self.panes.remove(&pane) {
            let _ = piped.wake.send(Wake::End);
            // Gone already is fine: nothing else uses the path.
            let _ = std::fs::remove_file(&piped.path);
            self.ending.push(piped.thread);
        }
    }

    /// Reads one ask from `stream` and answers it.
    fn answer(&mut self, stream: UnixStream) -> Option<Ask> {
        // An ask that cannot be read has nobody to hear why.
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(ASK_LIMIT));
        // The one loop reads every pane: an asker that stops reading a
        // large answer (a web process stopped) holds it at most this long.
        let _ = stream.set_write_timeout(Some(ASK_LIMIT));
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line).ok()?;
        let ask: Ask = serde_json::from_str(line.trim()).ok()?;
        let answer = match &ask {
            Ask::Attach { restart, budget } => {
                match self.attach(*restart, budget.map(Duration::from_millis)) {
                    Ok(attached) => Answer::Attached(attached),
                    Err(error) => Answer::Failed {
                        code: error.code,
                        message: error.message,
                    },
                }
            }
            Ask::Look { pane } => {
                if let Some(piped) = self.panes.get(pane) {
                    let _ = piped.wake.send(Wake::Nudge);
                }
                Answer::Done
            }
            Ask::Shown { panes } => {
                let now = Instant::now();
                let mut followed = self.web_screens();
                let mut shown = Vec::new();
                for (pane, piped) in panes.iter().filter_map(|p| Some((p, self.panes.get(p)?))) {
                    let was = piped.inbox.web_followed();
                    shown.extend(
                        piped
                            .inbox
                            .shown_to_web(*pane, followed < web_screen::MOST, now),
                    );
                    followed += usize::from(!was && piped.inbox.web_followed());
                }
                Answer::Shown { shown }
            }
            Ask::Quit => {
                // Gone before the answer: the asker's next ask starts a new
                // watcher rather than reach this one on its way out.
                let _ = std::fs::remove_file(&self.socket);
                Answer::Done
            }
        };
        if let Ok(text) = serde_json::to_string(&answer) {
            // The asker gave up: the work is done all the same.
            let _ = (&stream).write_all(format!("{text}\n").as_bytes());
        }
        Some(ask)
    }

    /// Pipes every pane that needs it, a batch of panes a tmux call: those
    /// with no pipe, those whose pipe's watcher is not this one (it ended:
    /// its pipes are dead ends), and with `restart` those of another taw
    /// version. Someone else's pipe is left alone. With a `budget`, what is
    /// left once it is spent is said pending, and piped by the loop next;
    /// the first batch is piped whatever the budget, so a server of one
    /// batch's panes is always piped whole when the answer comes.
    fn attach(&mut self, restart: bool, budget: Option<Duration>) -> Result<Attached> {
        let deadline = budget.map(|budget| Instant::now() + budget);
        let mut result = Attached {
            watcher_version: Some(env!("CARGO_PKG_VERSION").to_string()),
            ..Attached::default()
        };
        let planned = self.plan(restart, &mut result)?;
        self.queue.extend(planned);
        let mut batches = 0;
        while !self.queue.is_empty() && another_batch(batches, deadline, Instant::now()) {
            self.pipe_some(&mut result)?;
            batches += 1;
        }
        result.pending = self.queue.iter().map(|p| format!("%{}", p.id)).collect();
        Ok(result)
    }

    /// The panes an attach pipes, each with its FIFO made.
    fn plan(&mut self, restart: bool, result: &mut Attached) -> Result<Vec<Planned>> {
        let panes = pane::pipes(&self.tmux)?;
        let mut planned = Vec::new();
        let mut gone_watchers: Vec<String> = Vec::new();
        for found in &panes {
            if found.dead || self.queue.iter().any(|queued| queued.id == found.id) {
                continue;
            }
            let mine = self
                .panes
                .get(&found.id)
                .is_some_and(|piped| found.pipe && piped.announcement == found.watcher);
            if mine {
                continue;
            }
            let restart_it = match watch_of_pipe(found.pipe, &found.watcher) {
                Watch::None => false,
                Watch::Current => {
                    let pid = found.watcher.split_whitespace().nth(1).unwrap_or("");
                    if !gone_watchers.iter().any(|known| known == pid) {
                        gone_watchers.push(pid.to_string());
                    }
                    true
                }
                Watch::Older if restart => true,
                Watch::Older => continue,
                Watch::Foreign => {
                    result.skipped_foreign.push(format!("%{}", found.id));
                    continue;
                }
            };
            self.serial += 1;
            let path = fifo_path(&self.state_dir, self.server, found.id, self.serial);
            let fifo = make_fifo(&path)
                .map_err(|e| TawError::io(format!("cannot make {}: {e}", path.display())))?;
            let announcement = format!(
                "{} {} {}",
                env!("CARGO_PKG_VERSION"),
                std::process::id(),
                self.serial
            );
            planned.push(Planned {
                id: found.id,
                restart: restart_it,
                path,
                fifo,
                announcement,
            });
        }
        for pid in gone_watchers.iter().filter(|pid| !pid.is_empty()) {
            log(&format!(
                "the panes of the watcher of pid {pid}, which is not this one, are watched again"
            ));
        }
        Ok(planned)
    }

    /// Pipes the next batch of the queue, in one tmux call, and starts the
    /// thread of each pane tmux piped.
    fn pipe_some(&mut self, result: &mut Attached) -> Result<()> {
        let count = self.queue.len().min(PIPE_BATCH);
        let batch: Vec<Planned> = self.queue.drain(..count).collect();
        let groups: Vec<Batch> = batch
            .iter()
            .map(|planned| {
                Batch::of(pane::pipe_commands(
                    planned.id,
                    &relay_words(&planned.path),
                    &planned.announcement,
                    planned.restart,
                ))
            })
            .collect();
        let ran = self.tmux.run_groups(&groups);
        // Which pipes tmux made: an `if-shell` that found a pipe made none.
        // Each pane's view too: its thread starts from it, with no call of
        // its own unless an agent is in front.
        let mut announced = match pane::views(&self.tmux) {
            Ok(views) => views,
            Err(error) => {
                for planned in &batch {
                    let _ = std::fs::remove_file(&planned.path);
                }
                return Err(error);
            }
        };
        let mut failure = None;
        for (planned, ran) in batch.into_iter().zip(ran) {
            let view = announced
                .remove(&planned.id)
                .filter(|(pipe, _)| pipe.watcher == planned.announcement)
                .map(|(_, view)| view);
            let made = ran.is_ok() && view.is_some();
            if !made {
                let _ = std::fs::remove_file(&planned.path);
                match ran {
                    // A pane that closed meanwhile has no watcher to get.
                    Err(error) if !crate::tmux::is_pane_gone(&error) => {
                        failure.get_or_insert(error);
                    }
                    _ => {}
                }
                continue;
            }
            let id = planned.id;
            if let Some(old) = self.panes.remove(&id) {
                // Its pipe was closed for this one: its thread ends, and
                // leaves this announcement be.
                let _ = old.wake.send(Wake::End);
                let _ = std::fs::remove_file(&old.path);
                self.ending.push(old.thread);
            }
            let restarted = planned.restart;
            let path = planned.path.clone();
            // A thread that cannot start fails its pane alone: the rest of
            // the batch, piped by tmux already, is still watched.
            let piped =
                match self.start_pane(id, planned.path, planned.fifo, planned.announcement, view) {
                    Ok(piped) => piped,
                    Err(error) => {
                        let _ = std::fs::remove_file(&path);
                        failure.get_or_insert(error);
                        continue;
                    }
                };
            self.panes.insert(id, piped);
            if restarted {
                result.restarted.push(format!("%{id}"));
            } else {
                result.attached.push(format!("%{id}"));
            }
        }
        match failure {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    fn start_pane(
        &self,
        id: u32,
        path: PathBuf,
        fifo: File,
        announcement: String,
        first_view: Option<pane::PaneView>,
    ) -> Result<Piped> {
        let (wake, events) = mpsc::channel();
        let inbox = Arc::new(Inbox::default());
        let watcher = super::Watcher::new(
            self.tmux.clone(),
            self.server,
            super::Handed {
                pane: id,
                announcement: announcement.clone(),
                inbox: inbox.clone(),
                first_view,
            },
            self.config.clone(),
            self.rules.clone(),
        );
        let thread = std::thread::Builder::new()
            .name(format!("pane %{id}"))
            .stack_size(PANE_STACK)
            .spawn(move || {
                if let Err(error) = watcher.run(events) {
                    log(&format!("pane %{id}: {}", error.message));
                }
            })
            .map_err(|e| TawError::io(format!("cannot start the thread of %{id}: {e}")))?;
        Ok(Piped {
            fifo,
            path,
            announcement,
            wake,
            inbox,
            thread,
        })
    }

    /// The end: every pane's thread told, and waited for while it says
    /// its last words (a look being written, a retired announcement).
    fn close(&mut self) {
        for planned in self.queue.drain(..) {
            let _ = std::fs::remove_file(&planned.path);
        }
        let panes: Vec<u32> = self.panes.keys().copied().collect();
        for pane in panes {
            self.end_pane(pane);
        }
        for thread in self.ending.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Takes the watcher's lock: at once when it is free, or once a watcher
/// on its way out lets it go (a quit for a renew, the last pane gone: a
/// moment); false when another watcher holds it on.
fn take_lock(file: &File) -> bool {
    // The lock is the open file's: a handle of the thread's own holds it
    // as well as the caller's.
    let Ok(held) = file.try_clone() else {
        return false;
    };
    let (taken, told) = mpsc::channel();
    // A blocking flock has no time limit of its own: it waits in a thread
    // of its own, which the process's end takes along.
    std::thread::spawn(move || {
        let locked = rustix::fs::flock(&held, rustix::fs::FlockOperation::LockExclusive);
        let _ = taken.send(locked.is_ok());
    });
    told.recv_timeout(LOCK_WAIT).unwrap_or(false)
}

/// The relay tmux runs for a pane: `test -p FIFO && exec cat > FIFO`.
/// The test: a pipe tmux starts late (it did not answer in time, and the
/// watcher took the FIFO away) would otherwise make a regular file there
/// and copy the pane's output into it for good.
fn relay_words(path: &Path) -> Vec<ShellWord> {
    let path = path.display().to_string();
    vec![
        ShellWord::Literal("test".into()),
        ShellWord::Keyword("-p"),
        ShellWord::Literal(path.clone()),
        ShellWord::Keyword("&&"),
        ShellWord::Keyword("exec"),
        ShellWord::Literal("cat".into()),
        ShellWord::Keyword(">"),
        ShellWord::Literal(path),
    ]
}

/// Makes a FIFO at `path` (one left there is replaced) and opens it for
/// reading without waiting for a writer.
/// Whether an attach pipes one more batch before it answers: the first
/// always, the others while its deadline (a load's budget) is not past.
fn another_batch(piped: u32, deadline: Option<Instant>, now: Instant) -> bool {
    piped == 0 || deadline.is_none_or(|at| now < at)
}

fn make_fifo(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::remove_file(path);
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::from_raw_mode(0o600),
    )?;
    File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attach_pipes_its_first_batch_whatever_its_budget() {
        let now = Instant::now();
        let past = Some(now - Duration::from_millis(1));
        let ahead = Some(now + Duration::from_millis(50));
        assert!(another_batch(0, past, now));
        assert!(!another_batch(1, past, now));
        assert!(another_batch(3, ahead, now));
        // No budget (a hook's attach): every batch.
        assert!(another_batch(9, None, now));
    }

    #[test]
    fn asks_and_answers_read_back() {
        for ask in [
            Ask::Attach {
                restart: true,
                budget: None,
            },
            Ask::Look { pane: 7 },
            Ask::Shown { panes: vec![1, 2] },
            Ask::Quit,
        ] {
            let text = serde_json::to_string(&ask).unwrap();
            assert_eq!(serde_json::from_str::<Ask>(&text).unwrap(), ask);
        }
        let text = serde_json::to_string(&Answer::Failed {
            code: ErrorCode::Timeout,
            message: "m".into(),
        })
        .unwrap();
        assert!(matches!(
            serde_json::from_str::<Answer>(&text).unwrap(),
            Answer::Failed {
                code: ErrorCode::Timeout,
                ..
            }
        ));
        // A screen, whatever it holds, reads back as it was.
        let shown = Shown {
            pane: 3,
            screen: "\u{1b}]2;x\u{7} \"quoted\"\n\ttab é 漢\n".into(),
            title: "✳ title".into(),
            writes: 9,
        };
        let text = serde_json::to_string(&Answer::Shown {
            shown: vec![shown.clone()],
        })
        .unwrap();
        assert!(matches!(
            serde_json::from_str::<Answer>(&text).unwrap(),
            Answer::Shown { shown: got } if got == [shown]
        ));
    }

    #[test]
    fn a_fifo_is_read_until_its_writer_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo_path(dir.path(), 1, 2, 3);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut fifo = make_fifo(&path).unwrap();
        let mut buffer = [0u8; 16];
        {
            let mut writer = File::options().write(true).open(&path).unwrap();
            writer.write_all(b"hi").unwrap();
            assert_eq!(fifo.read(&mut buffer).unwrap(), 2);
            assert_eq!(
                fifo.read(&mut buffer).unwrap_err().kind(),
                std::io::ErrorKind::WouldBlock
            );
        }
        assert_eq!(fifo.read(&mut buffer).unwrap(), 0);
    }

    #[test]
    fn the_relay_quotes_its_path() {
        let line = crate::tmux::commands::shell_line(&relay_words(Path::new("/a b/it's #1")));
        assert_eq!(
            line,
            "'test' -p '/a b/it'\\''s ##1' && exec 'cat' > '/a b/it'\\''s ##1'"
        );
    }
}
