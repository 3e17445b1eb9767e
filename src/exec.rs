//! The one place that starts child processes.
//!
//! Everything taw runs (tmux, ps, git, zoxide, a user's hook or sound
//! command) is a [`Program`] made here, so three rules have a single door
//! to watch: arguments go as an argv array and never through a shell;
//! standard input is closed unless the caller gives bytes or asks for its
//! own; and every program has a time limit, past which it is killed and the
//! caller told so. `clippy.toml` forbids `Command::new` anywhere else.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// How long a program may run when its caller names no limit of its own.
pub(crate) const DEFAULT_LIMIT: Duration = Duration::from_secs(10);

/// After a program ends, how long its output pipes may stay open (a
/// background process it left holds them) before taw stops reading.
const PIPE_GRACE: Duration = Duration::from_millis(500);

/// What a program reads on its standard input.
enum Input {
    Closed,
    Bytes(Vec<u8>),
}

/// Where one of a program's output streams goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    /// Read by taw, all of it.
    Kept,
    /// Read by taw; only the last this many bytes are kept.
    Tail(usize),
    Discarded,
}

/// A program to run, built up like a `Command`.
pub(crate) struct Program {
    command: Command,
    limit: Option<Duration>,
    input: Input,
    stdout: Sink,
    stderr: Sink,
}

/// What a finished program printed, and how it ended.
#[derive(Debug)]
pub(crate) struct Output {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Why a program gave no output.
#[derive(Debug)]
pub(crate) enum Failure {
    /// No such program on PATH (or at its path).
    NotFound,
    /// It could not be started, or read.
    Io(std::io::Error),
    /// It ran past its limit and was killed.
    TimedOut(Duration),
}

impl Failure {
    /// A program that could not be started: not there, or another reason.
    fn of_spawn(error: std::io::Error) -> Failure {
        if error.kind() == std::io::ErrorKind::NotFound {
            Failure::NotFound
        } else {
            Failure::Io(error)
        }
    }

    /// The failure in words, naming the program.
    pub(crate) fn describe(&self, name: &str) -> String {
        match self {
            Failure::NotFound => format!("{name} is not installed or not on PATH"),
            Failure::Io(error) => format!("{name} could not be run: {error}"),
            Failure::TimedOut(limit) => format!(
                "{name} did not finish within {} and was stopped",
                seconds(*limit)
            ),
        }
    }
}

/// `10 s`, `1.5 s`.
pub(crate) fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs} s")
    }
}

/// The variable that marks a taw run by one of the plugin's hooks or keys
/// (`crate::tmux::callback::HOOK_MARK` sets it); no process taw starts
/// inherits it.
pub(crate) const HOOK_VAR: &str = "AGENT_WIZARD_HOOK";

impl Program {
    /// `program`, with standard input closed, both outputs kept, and the
    /// default limit.
    #[allow(clippy::disallowed_methods)]
    pub(crate) fn new(program: impl AsRef<OsStr>) -> Program {
        let mut command = Command::new(program);
        // Only the taw a hook runs ends with 0 whatever came (see
        // `crate::run`); what it starts (a plugin calling the CLI) is told
        // its failures.
        command.env_remove(HOOK_VAR);
        Program {
            command,
            limit: Some(DEFAULT_LIMIT),
            input: Input::Closed,
            stdout: Sink::Kept,
            stderr: Sink::Kept,
        }
    }

    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Program {
        self.command.arg(arg);
        self
    }

    pub(crate) fn args<I, S>(mut self, args: I) -> Program
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    pub(crate) fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Program {
        self.command.env(name, value);
        self
    }

    pub(crate) fn envs<I, K, V>(mut self, vars: I) -> Program
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.command.envs(vars);
        self
    }

    /// Starts from an empty environment: the caller gives every variable.
    pub(crate) fn env_clear(mut self) -> Program {
        self.command.env_clear();
        self
    }

    pub(crate) fn current_dir(mut self, dir: impl AsRef<Path>) -> Program {
        self.command.current_dir(dir);
        self
    }

    /// The longest it may run; `None` for no limit (a popup a person
    /// keeps open, a hook the config says may run for ever).
    pub(crate) fn limit(mut self, limit: Option<Duration>) -> Program {
        self.limit = limit;
        self
    }

    /// Bytes for its standard input, which is then closed.
    pub(crate) fn input(mut self, bytes: Vec<u8>) -> Program {
        self.input = Input::Bytes(bytes);
        self
    }

    pub(crate) fn discard_stdout(mut self) -> Program {
        self.stdout = Sink::Discarded;
        self
    }

    pub(crate) fn discard_stderr(mut self) -> Program {
        self.stderr = Sink::Discarded;
        self
    }

    /// Keeps only the last `bytes` of what it writes on standard error, so
    /// a chatty program costs no memory.
    pub(crate) fn stderr_tail(mut self, bytes: usize) -> Program {
        self.stderr = Sink::Tail(bytes);
        self
    }

    /// Keeps only the last `bytes` of what it writes on standard output.
    pub(crate) fn stdout_tail(mut self, bytes: usize) -> Program {
        self.stdout = Sink::Tail(bytes);
        self
    }

    fn spawn(&mut self) -> Result<Child, Failure> {
        let stdin = match self.input {
            Input::Closed => Stdio::null(),
            Input::Bytes(_) => Stdio::piped(),
        };
        let pipe = |sink: Sink| match sink {
            Sink::Discarded => Stdio::null(),
            _ => Stdio::piped(),
        };
        self.command
            .stdin(stdin)
            .stdout(pipe(self.stdout))
            .stderr(pipe(self.stderr));
        // A program with a limit gets a group of its own, so that past it
        // it is stopped with every process it started (a hook's script, a
        // sound's player). One without keeps taw's: it may need the
        // terminal, and a Ctrl-C reaches it with taw.
        if self.limit.is_some() {
            use std::os::unix::process::CommandExt;
            self.command.process_group(0);
        }
        self.command.spawn().map_err(Failure::of_spawn)
    }

    /// Runs it to its end (or its limit) and gives what it printed.
    pub(crate) fn output(mut self) -> Result<Output, Failure> {
        let mut child = self.spawn()?;
        if let Input::Bytes(bytes) = std::mem::replace(&mut self.input, Input::Closed)
            && let Some(mut stdin) = child.stdin.take()
        {
            // A thread, so a program that reads slowly (or not at all) and
            // fills its pipe cannot hold taw past the limit.
            std::thread::spawn(move || {
                // A program that does not read its input is told by its status.
                let _ = stdin.write_all(&bytes);
            });
        }
        let deadline = self.limit.map(|limit| (limit, Instant::now() + limit));
        let streams = [
            child
                .stdout
                .take()
                .map(|out| Stream::new(out.into(), self.stdout)),
            child
                .stderr
                .take()
                .map(|err| Stream::new(err.into(), self.stderr)),
        ];
        let collected = match collect(&mut child, streams, deadline) {
            Ok(collected) => collected,
            Err(failure) => {
                stop(&mut child);
                return Err(failure);
            }
        };
        let status = match (collected.ended, deadline) {
            (Some(status), _) => status,
            (None, None) => child.wait().map_err(Failure::Io)?,
            (None, Some((limit, deadline))) => {
                let left = deadline.saturating_duration_since(Instant::now());
                match child.wait_timeout(left) {
                    Ok(Some(status)) => status,
                    Ok(None) => {
                        stop(&mut child);
                        return Err(Failure::TimedOut(limit));
                    }
                    Err(error) => {
                        stop(&mut child);
                        return Err(Failure::Io(error));
                    }
                }
            }
        };
        Ok(Output {
            status,
            stdout: collected.stdout,
            stderr: collected.stderr,
        })
    }

    /// Starts it and returns at once; a thread of its own waits for it and
    /// stops it at its limit, while this process lives: a short-lived one
    /// waits for it ([`Detached::wait`]) before it ends. Its output is
    /// thrown away.
    pub(crate) fn start_detached(mut self) -> Result<Detached, Failure> {
        self.stdout = Sink::Discarded;
        self.stderr = Sink::Discarded;
        if matches!(self.input, Input::Bytes(_)) {
            self.input = Input::Closed;
        }
        let mut child = self.spawn()?;
        let limit = self.limit;
        Ok(Detached(std::thread::spawn(move || match limit {
            Some(limit) => {
                // Past its limit, or a wait that failed: stopped and reaped.
                if !matches!(child.wait_timeout(limit), Ok(Some(_))) {
                    stop(&mut child);
                }
            }
            None => {
                // Reaped only: it ran unwatched, as asked.
                let _ = child.wait();
            }
        })))
    }

    /// Starts it in a session of its own and forgets it: it runs on
    /// after this process ends (a deliverer of events that a verb or the
    /// watcher must not wait for). A thread of this process reaps it if it
    /// ends first. It has no limit here: it keeps its own. Its output is
    /// thrown away and its standard input is closed.
    pub(crate) fn start_unwatched(mut self) -> Result<(), Failure> {
        use std::os::unix::process::CommandExt;
        self.stdout = Sink::Discarded;
        self.stderr = Sink::Discarded;
        self.input = Input::Closed;
        self.limit = None;
        // In a session of its own, with no terminal: a Ctrl-C or a
        // hang-up of the caller's terminal (a popup closing) does not
        // reach it.
        // SAFETY: setsid is async-signal-safe, and the only call made
        // between the fork and the exec.
        unsafe {
            self.command.pre_exec(|| {
                rustix::process::setsid()?;
                Ok(())
            });
        }
        let mut child = self.spawn()?;
        std::thread::spawn(move || {
            // Reaped only: nobody waits for its status.
            let _ = child.wait();
        });
        Ok(())
    }

    /// Starts it with a pipe to its standard input and one from its output,
    /// for a conversation of lines (a machine's feed), with no limit: the
    /// caller ends it, or dropping the [`Streaming`] does. Its stderr's last
    /// lines are kept, to say why it ended.
    pub(crate) fn start_streaming(mut self) -> Result<Streaming, Failure> {
        use std::os::unix::process::CommandExt;
        self.command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = self.command.spawn().map_err(Failure::of_spawn)?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let (tell, said) = std::sync::mpsc::channel();
        if let Some(stderr) = stderr {
            std::thread::spawn(move || {
                use std::io::Read;
                // Its last words only, kept as they come: a feed can run
                // for days and say a lot on stderr.
                let mut tail = Stream::new(stderr.into(), Sink::Tail(STREAMING_SAID + 1));
                let mut chunk = [0u8; 16 * 1024];
                loop {
                    match tail.pipe.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => tail.keep(&chunk[..n]),
                        Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                        // What was read before a failed read is what it said.
                        Err(_) => break,
                    }
                }
                // Nobody asks when the program was dropped unfinished.
                let _ = tell.send(tail_text(&tail.kept, STREAMING_SAID));
            });
        }
        Ok(Streaming {
            child,
            stdin,
            stdout,
            said,
        })
    }

    /// Runs it in this terminal (standard input and output its own) and
    /// waits for its end, with no limit: `machine attach` from the app.
    pub(crate) fn run_in_terminal(mut self) -> Result<std::process::ExitStatus, Failure> {
        self.command
            .stdin(Stdio::inherit())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit());
        let mut child = self.command.spawn().map_err(Failure::of_spawn)?;
        child.wait().map_err(Failure::Io)
    }

    /// Becomes the program: taw's process is replaced, its standard input
    /// and output go to it. Returns only when that failed.
    pub(crate) fn become_it(mut self) -> std::io::Error {
        use std::os::unix::process::CommandExt;
        self.command.stdin(Stdio::inherit());
        self.command.exec()
    }
}

/// A program started with [`Program::start_streaming`]: it is stopped when
/// this is dropped.
pub(crate) struct Streaming {
    child: Child,
    pub stdin: Option<std::process::ChildStdin>,
    pub stdout: Option<std::process::ChildStdout>,
    /// Its last words on stderr, once the pipe ends.
    said: std::sync::mpsc::Receiver<String>,
}

impl Streaming {
    /// Waits for its end: its last words on stderr, and its status.
    pub(crate) fn finish(mut self) -> (String, Option<i32>) {
        self.stdin = None;
        let status = self.child.wait().ok().and_then(|s| s.code());
        // The pipe ends with the program, unless something it left behind
        // holds it open: then no longer than the grace.
        let said = self.said.recv_timeout(PIPE_GRACE).unwrap_or_default();
        (said, status)
    }
}

impl Drop for Streaming {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            stop(&mut self.child);
        }
    }
}

/// A program started with [`Program::start_detached`].
pub(crate) struct Detached(std::thread::JoinHandle<()>);

impl Detached {
    /// Waits until it ends, or is stopped at its limit.
    pub(crate) fn wait(self) {
        // A thread that panicked has nothing more to wait for.
        let _ = self.0.join();
    }
}

/// Stops a program past its limit, and every process of its group.
fn stop(child: &mut Child) {
    // The group is the child's own (`process_group(0)`), so no other
    // process is reached; one gone already is no failure.
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_child(child),
        rustix::process::Signal::KILL,
    );
    // It may have ended by itself meanwhile: either way it is gone.
    let _ = child.kill();
    let _ = child.wait();
}

/// What a program wrote, kept to its last `limit` bytes (read it with a
/// tail of `limit + 1` to tell): as text, after a line that says the
/// earlier output was cut when there was more.
pub(crate) fn tail_text(bytes: &[u8], limit: usize) -> String {
    if bytes.len() > limit {
        let cut = bytes.len() - limit;
        // Not in the middle of a character: from the next one (UTF-8's
        // continuation bytes are 10xxxxxx, at most three of them).
        let start = (cut..bytes.len())
            .take(4)
            .find(|&i| bytes[i] & 0xC0 != 0x80)
            .unwrap_or(cut);
        format!(
            "(earlier output cut; the last {} KiB follow)\n{}",
            limit / 1024,
            String::from_utf8_lossy(&bytes[start..])
        )
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// How much of a streaming program's stderr is kept for its last words.
const STREAMING_SAID: usize = 4096;

/// How often, while a program's output pipes stay open, taw looks whether
/// the program itself has ended (a background child it left may hold
/// them), where the kernel cannot tell it (no pidfd: not Linux).
const EXIT_CHECK: Duration = Duration::from_millis(25);

/// A descriptor that becomes readable when the program ends (Linux's
/// pidfd), so that taw waits on its end with its pipes instead of looking
/// every [`EXIT_CHECK`]: a long wait (the web server's on tmux's change
/// channel) then costs nothing. `None` where there is none.
#[cfg(target_os = "linux")]
fn exit_descriptor(child: &Child) -> Option<std::os::fd::OwnedFd> {
    rustix::process::pidfd_open(
        rustix::process::Pid::from_child(child),
        rustix::process::PidfdFlags::empty(),
    )
    .ok()
}

#[cfg(not(target_os = "linux"))]
fn exit_descriptor(_child: &Child) -> Option<std::os::fd::OwnedFd> {
    None
}

/// One output stream of a running program, read by [`collect`].
struct Stream {
    pipe: std::fs::File,
    sink: Sink,
    kept: Vec<u8>,
    open: bool,
}

impl Stream {
    fn new(pipe: std::os::fd::OwnedFd, sink: Sink) -> Stream {
        Stream {
            pipe: pipe.into(),
            sink,
            kept: Vec::new(),
            open: true,
        }
    }

    /// Keeps what came, or its tail.
    fn keep(&mut self, bytes: &[u8]) {
        self.kept.extend_from_slice(bytes);
        if let Sink::Tail(limit) = self.sink
            && self.kept.len() > limit
        {
            let excess = self.kept.len() - limit;
            self.kept.drain(..excess);
        }
    }

    /// Reads what is there; the pipe said it is readable, so this does not
    /// block.
    fn read_some(&mut self) {
        let mut chunk = [0u8; 16 * 1024];
        match self.pipe.read(&mut chunk) {
            Ok(0) => self.open = false,
            Ok(n) => self.keep(&chunk[..n]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => self.open = false,
        }
    }
}

/// What [`collect`] read, and the program's status if it ended meanwhile.
struct Collected {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    ended: Option<ExitStatus>,
}

/// Reads both output streams in this thread, with poll(2), until they
/// close; neither can fill its pipe and stall the program. No thread is
/// started: the watcher runs tmux several times a second, and a thread per
/// stream cost more than the program itself. If the program ends while a
/// child it left holds a pipe open, taw reads for [`PIPE_GRACE`] more and
/// stops there. Past the deadline (the limit, and when it runs out) it
/// fails with `TimedOut`, leaving the program to be stopped.
fn collect(
    child: &mut Child,
    streams: [Option<Stream>; 2],
    deadline: Option<(Duration, Instant)>,
) -> Result<Collected, Failure> {
    let mut streams = streams;
    let mut ended: Option<(ExitStatus, Instant)> = None;
    let exit = exit_descriptor(child);
    loop {
        let open: Vec<usize> = (0..2)
            .filter(|&i| streams[i].as_ref().is_some_and(|s| s.open))
            .collect();
        if open.is_empty() {
            break;
        }
        let now = Instant::now();
        // Once the program has ended only the grace counts; before, the
        // deadline, and where the kernel cannot tell the end, a look each
        // EXIT_CHECK.
        let wait = match (ended, &exit) {
            (Some((_, at)), _) => Some((at + PIPE_GRACE).saturating_duration_since(now)),
            (None, exit) => {
                let look = exit.is_none().then_some(EXIT_CHECK);
                let left = deadline.map(|(_, deadline)| deadline.saturating_duration_since(now));
                match (look, left) {
                    (Some(look), Some(left)) => Some(look.min(left)),
                    (look, left) => look.or(left),
                }
            }
        };
        // The end's descriptor, last, while the end is not known.
        let watch_exit = ended.is_none() && exit.is_some();
        let (ready, woke) = {
            use rustix::event::{PollFd, PollFlags};
            let mut fds: Vec<PollFd> = open
                .iter()
                .filter_map(|&i| streams[i].as_ref())
                .map(|s| PollFd::new(&s.pipe, PollFlags::IN))
                .collect();
            if let Some(exit) = exit.as_ref().filter(|_| watch_exit) {
                fds.push(PollFd::new(exit, PollFlags::IN));
            }
            // A wait too long to say is no limit.
            let timeout = wait.and_then(|wait| rustix::event::Timespec::try_from(wait).ok());
            match rustix::event::poll(&mut fds, timeout.as_ref()) {
                Ok(ready) => {
                    let woke: Vec<bool> = fds.iter().map(|fd| !fd.revents().is_empty()).collect();
                    (ready, woke)
                }
                Err(rustix::io::Errno::INTR) => continue,
                Err(error) => return Err(Failure::Io(error.into())),
            }
        };
        for (&woken, &i) in woke.iter().zip(&open) {
            if woken && let Some(stream) = streams[i].as_mut() {
                stream.read_some();
            }
        }
        // Asked after every read, not only when nothing came: a program
        // that never stops writing still meets its deadline, and a child
        // it left writing still ends the grace.
        let now = Instant::now();
        if let Some((_, at)) = ended {
            if now >= at + PIPE_GRACE {
                break;
            }
            continue;
        }
        let exit_told = watch_exit && woke.last() == Some(&true);
        // The kernel said it ended, nothing came within the wait, or
        // (no pidfd) a look is due.
        if (exit_told || ready == 0 || exit.is_none())
            && let Some(status) = child.try_wait().map_err(Failure::Io)?
        {
            ended = Some((status, now));
        } else if let Some((limit, deadline)) = deadline
            && now >= deadline
        {
            return Err(Failure::TimedOut(limit));
        }
    }
    let [stdout, stderr] = streams.map(|s| s.map(|s| s.kept).unwrap_or_default());
    Ok(Collected {
        stdout,
        stderr,
        ended: ended.map(|(status, _)| status),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_status() {
        let out = Program::new("sh")
            .args(["-c", "printf out; printf err >&2; exit 3"])
            .output()
            .unwrap();
        assert_eq!(out.stdout, b"out");
        assert_eq!(out.stderr, b"err");
        assert_eq!(out.status.code(), Some(3));
    }

    #[test]
    fn standard_input_is_closed_unless_given() {
        let out = Program::new("cat").output().unwrap();
        assert!(out.stdout.is_empty(), "cat read nothing and ended");
        let out = Program::new("cat")
            .input(b"a\nb".to_vec())
            .output()
            .unwrap();
        assert_eq!(out.stdout, b"a\nb");
    }

    #[test]
    fn a_program_past_its_limit_is_stopped() {
        let started = Instant::now();
        let failure = Program::new("sleep")
            .arg("30")
            .limit(Some(Duration::from_millis(200)))
            .output()
            .unwrap_err();
        assert!(matches!(failure, Failure::TimedOut(_)), "{failure:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(failure.describe("sleep").contains("within 0.2 s"));
    }

    #[test]
    fn a_program_past_its_limit_is_stopped_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let mark = dir.path().join("late");
        let script = format!("(sleep 1; touch '{}') & sleep 30", mark.display());
        let failure = Program::new("sh")
            .args(["-c", &script])
            .limit(Some(Duration::from_millis(200)))
            .output()
            .unwrap_err();
        assert!(matches!(failure, Failure::TimedOut(_)));
        // Past the moment it would have touched the file, it still has not.
        let until = Instant::now() + Duration::from_millis(1500);
        while Instant::now() < until {
            assert!(!mark.exists(), "the child's child ran on");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    #[test]
    fn a_missing_program_is_not_found() {
        let failure = Program::new("/nonexistent/taw-none").output().unwrap_err();
        assert!(matches!(failure, Failure::NotFound));
    }

    #[test]
    fn a_background_child_holding_the_pipe_does_not_hold_taw() {
        let started = Instant::now();
        let out = Program::new("sh")
            .args(["-c", "sleep 5 & printf done"])
            .output()
            .unwrap();
        assert_eq!(out.stdout, b"done");
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn output_after_a_quiet_while_and_a_closed_stdout_are_read() {
        let out = Program::new("sh")
            .args([
                "-c",
                "sleep 0.2; printf late; exec >&-; sleep 0.2; printf err >&2",
            ])
            .output()
            .unwrap();
        assert_eq!(out.stdout, b"late");
        assert_eq!(out.stderr, b"err");
        assert!(out.status.success());
    }

    #[test]
    fn a_program_that_never_stops_writing_meets_its_limit() {
        let started = Instant::now();
        let failure = Program::new("yes")
            .limit(Some(Duration::from_millis(300)))
            .stdout_tail(100)
            .output()
            .unwrap_err();
        assert!(matches!(failure, Failure::TimedOut(_)), "{failure:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_child_left_writing_does_not_hold_taw_past_the_grace() {
        let started = Instant::now();
        let out = Program::new("sh")
            .args(["-c", "yes & printf done >&2"])
            .limit(Some(Duration::from_secs(30)))
            .stdout_tail(100)
            .output()
            .unwrap();
        assert_eq!(out.stderr, b"done");
        assert!(out.status.success());
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_tail_starts_at_a_whole_character() {
        let text = "é".repeat(10);
        // 20 bytes; the last 5 begin inside an é.
        let tail = tail_text(text.as_bytes(), 5);
        assert!(tail.ends_with("éé"), "{tail}");
        assert!(!tail.contains('\u{FFFD}'), "{tail}");
    }

    #[test]
    fn a_streaming_programs_last_words_are_its_stderrs_tail() {
        let streaming = Program::new("sh")
            .args(["-c", "i=0; while [ $i -lt 1000 ]; do printf 0123456789 >&2; i=$((i+1)); done; printf END >&2"])
            .start_streaming()
            .unwrap();
        let (said, status) = streaming.finish();
        assert_eq!(status, Some(0));
        assert!(said.starts_with("(earlier output cut"), "{said}");
        assert!(said.ends_with("END"), "{said}");
        assert!(said.len() < STREAMING_SAID + 100, "{}", said.len());
    }

    #[test]
    fn the_tail_of_stderr_is_kept() {
        let out = Program::new("sh")
            .args(["-c", "i=0; while [ $i -lt 2000 ]; do printf 0123456789 >&2; i=$((i+1)); done; printf END >&2"])
            .stderr_tail(100)
            .output()
            .unwrap();
        assert_eq!(out.stderr.len(), 100);
        assert!(out.stderr.ends_with(b"END"));
    }
}
