//! `agent start`: types an agent's command into a pane's shell, once the
//! shell is at its prompt, and answers once the agent is really there.

use super::drive::{hosts_agent, mode_name, synchronized_message};
use super::typing::{HeldAt, LOOK_EVERY, PromptWatch, SETTLED, screen, shell_wait, type_and_enter};
use crate::detect::{agents, foreground};
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::model::Records;
use crate::ops::names;
use crate::text::shell_word;
use crate::tmux::commands as cmd;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::tmux::snapshot::{Pane, Snapshot};
use crate::tmux::{Batch, Tmux};
use crate::watch::typed;
use serde::Serialize;
use serde_json::Value;
use std::time::{Duration, Instant};

const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// A first sandboxed start builds an image.
const SANDBOX_TIMEOUT_MS: u64 = 300_000;
const MAX_TIMEOUT_MS: u64 = 300_000;

/// What to start, where.
#[derive(Debug, Clone)]
pub(crate) struct Start {
    /// The agent's name: a-z first, then up to 31 of a-z 0-9 _ -.
    pub name: String,
    /// Which agent: claude, codex, gemini, opencode, pi...
    pub kind: String,
    /// The pane (`%N`) whose shell runs it.
    pub pane: u32,
    /// One budget for the whole verb, in milliseconds.
    pub timeout: Option<u64>,
    /// Arguments for the agent.
    pub args: Vec<String>,
    /// In a container: `taw sandbox` typed in place of the agent, with
    /// the profile asked for, if any.
    pub sandbox: Option<Option<String>>,
}

/// The agent's record, and the command line typed.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Started {
    pub agent: Value,
    pub argv: Vec<String>,
}

answers!(Started => "agent");

fn not_ready(message: String) -> TawError {
    TawError::new(ErrorCode::ShellNotReady, message)
}

/// The pane now, or `not_found` when it closed.
fn pane_now(tmux: &Tmux, id: u32, public: &str) -> Result<Pane> {
    Snapshot::read(tmux)?
        .pane(id, None)
        .cloned()
        .ok_or_else(|| TawError::not_found(format!("pane {public} closed")))
}

/// Waits for the pane's shell to be at its prompt: nothing but the shell
/// in front, something drawn, the screen unchanged for a moment.
fn wait_for_prompt(tmux: &Tmux, id: u32, public: &str, stop: Instant) -> Result<Pane> {
    let mut watch = PromptWatch::default();
    loop {
        let pane = pane_now(tmux, id, public)?;
        if watch.at_prompt(&pane, screen(tmux, id)?) {
            return Ok(pane);
        }
        if Instant::now() >= stop {
            return Err(not_ready(format!(
                "pane {public}'s shell did not come to its prompt in time; nothing was typed"
            )));
        }
        std::thread::sleep(LOOK_EVERY);
    }
}

/// Types the agent's command into the pane's shell once it is at its
/// prompt, and returns once the agent is there.
pub(crate) fn start(tmux: &Tmux, args: Start) -> Result<Started> {
    let begun = Instant::now();
    let (agent, timeout) = check_request(&args)?;
    let deadline = begun + Duration::from_millis(timeout);
    let id = args.pane;
    let snapshot = Snapshot::read(tmux)?;
    let (pane, public) = check_pane(tmux, &snapshot, id, &args.name)?;
    if let Some(profile) = &args.sandbox {
        check_sandbox(agent, profile.as_deref(), &args.args, pane)?;
    }
    let shell_stop = deadline.min(begun + shell_wait());
    let pane = wait_for_prompt(tmux, id, &public, shell_stop)?;

    let previous_hint = pane.kind_hint.clone();
    let previous_pid = pane.agent_pid.clone();
    name_the_pane(tmux, id, agent, &args.name)?;
    let argv = command_words(agent, &args, pane.pid);
    let line = argv
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ");
    // Kept for a restore, to start it again when it has no session.
    let mut started = OptionWrites::default();
    started.set(opt::STARTED_COMMAND, line.as_str());
    tmux_pane::write_options(tmux, id, &started)?;
    let launch = Launch {
        tmux,
        id,
        public: &public,
        shell: &pane.current_command,
        agent,
        line,
        deadline,
        entered: std::cell::Cell::new(false),
        sandboxed: args.sandbox.is_some(),
    };
    match launch.run() {
        Ok(()) => answer(tmux, id, agent.id, argv),
        // A timeout once the command ran (the agent not seen within
        // --timeout, or tmux not answering while it starts): the pid of
        // what came up stays, with the hint and the name, for the watcher.
        // Any other failure, or one before the Enter, puts the pane back.
        Err(error) if launch.entered.get() && error.code == ErrorCode::Timeout => Err(error),
        Err(error) => {
            restore(tmux, id, &previous_hint, &previous_pid);
            Err(if crate::tmux::is_pane_gone(&error) {
                TawError::not_found(format!("pane {public} closed"))
            } else {
                error
            })
        }
    }
}

/// What `agent start` is asked, checked before tmux is: the name, the
/// kind, arguments a shell would read as keys, the time limit. Answers the
/// agent and the limit in milliseconds.
fn check_request(args: &Start) -> Result<(&'static agents::Agent, u64)> {
    names::check_agent_name(&args.name)?;
    let agent = agents::lookup(&args.kind).ok_or_else(|| {
        TawError::new(
            ErrorCode::UnsupportedAgentKind,
            format!(
                "{:?} is no agent taw can start: {}",
                args.kind,
                agents::id_list()
            ),
        )
    })?;
    // A shell reads a newline (or another control character) in the line
    // as a key: the command would run early, or not as written.
    if let Some(arg) = args.args.iter().find(|a| a.chars().any(char::is_control)) {
        return Err(TawError::invalid_argument(format!(
            "the agent argument {arg:?} holds a newline or another control character, which the shell would take as a key; nothing was typed"
        )));
    }
    let timeout = args.timeout.unwrap_or(if args.sandbox.is_some() {
        SANDBOX_TIMEOUT_MS
    } else {
        DEFAULT_TIMEOUT_MS
    });
    if !(3001..=MAX_TIMEOUT_MS).contains(&timeout) {
        return Err(TawError::invalid_argument(format!(
            "--timeout {timeout}: more than 3000 and at most {MAX_TIMEOUT_MS} milliseconds"
        )));
    }
    Ok((agent, timeout))
}

/// The pane to type into, with its public id, once it can take the
/// agent: the name free, no mode, input on, panes not synchronized, its
/// own process a shell.
fn check_pane<'a>(
    tmux: &Tmux,
    snapshot: &'a Snapshot,
    id: u32,
    name: &str,
) -> Result<(&'a Pane, String)> {
    let pane = snapshot.pane(id, None).ok_or_else(|| {
        TawError::not_found(format!(
            "pane %{id} not found; `taw pane list` shows the panes"
        ))
    })?;
    // A name another live agent holds is refused before anything else.
    let taken = snapshot.unique_panes().into_iter().any(|other| {
        other.id != id
            && other.agent_name == name
            && !other.agent_kind.is_empty()
            && hosts_agent(other)
    });
    if taken {
        return Err(TawError::invalid_argument(format!(
            "another live agent is named {name}; choose another name"
        )));
    }
    let values = tmux_pane::read_values(
        tmux,
        id,
        &[
            "pane_in_mode",
            "pane_input_off",
            "pane_mode",
            "synchronize-panes",
        ],
    )?;
    let public = Records::new(snapshot).pane(pane).pane_id;
    if values[0] == "1" {
        return Err(not_ready(format!(
            "pane {public} is in {}; leave it and try again",
            mode_name(&values[2])
        )));
    }
    if values[1] == "1" {
        return Err(not_ready(format!(
            "pane {public} takes no input; turn its input back on and try again"
        )));
    }
    if values[3] == "1" {
        return Err(not_ready(synchronized_message(&public, "")));
    }
    if !foreground::read_process(pane.pid).is_some_and(|own| foreground::is_interactive_shell(&own))
    {
        return Err(not_ready(format!(
            "pane {public}'s own process is not a shell, so nothing is typed into it"
        )));
    }
    Ok((pane, public))
}

/// The profile and the runtime of a sandboxed start, checked before
/// anything is typed, as `taw sandbox` would check them.
fn check_sandbox(
    agent: &agents::Agent,
    profile: Option<&str>,
    agent_args: &[String],
    pane: &Pane,
) -> Result<()> {
    let (config, _) = crate::config::Config::load_or_defaults();
    let dir = crate::detect::foreground::process_cwd(pane.pid)
        .unwrap_or_else(|| pane.current_path.clone());
    crate::sandbox::prepare(
        &config,
        agent.id,
        profile,
        agent_args,
        std::path::Path::new(&dir),
    )?;
    Ok(())
}

/// The last agent's record goes from the pane; this one's name and kind
/// come.
fn name_the_pane(tmux: &Tmux, id: u32, agent: &agents::Agent, name: &str) -> Result<()> {
    let mut writes = OptionWrites::default();
    for option in opt::RECORD.iter().chain(opt::REPORT) {
        writes.unset(option);
    }
    writes.unset(opt::AGENT_SESSION);
    writes.unset(opt::RESUME);
    writes.set(opt::AGENT_KIND_HINT, agent.id);
    writes.set(opt::AGENT_NAME, name);
    tmux_pane::write_options(tmux, id, &writes)
}

/// The words of the command typed: the agent's program and its
/// arguments, or `taw sandbox` (as the shell `shell_pid` names taw) with
/// the agent, its profile and arguments.
fn command_words(agent: &agents::Agent, args: &Start, shell_pid: u32) -> Vec<String> {
    let mut argv = match &args.sandbox {
        Some(profile) => {
            let mut words = vec![
                crate::sandbox::taw_word(shell_pid),
                "sandbox".to_string(),
                agent.id.to_string(),
            ];
            if let Some(profile) = profile {
                words.extend(["--profile".to_string(), profile.clone()]);
            }
            if !args.args.is_empty() {
                words.push("--".into());
            }
            words
        }
        None if agent.command.is_empty() => vec![agent.executable.to_string()],
        None => agent.command.iter().map(|word| word.to_string()).collect(),
    };
    argv.extend(args.args.iter().cloned());
    argv
}

/// Typing the command into a shell at its prompt, and watching it start.
struct Launch<'a> {
    tmux: &'a Tmux,
    id: u32,
    public: &'a str,
    /// The shell's command name, as tmux says it: what must be in front.
    shell: &'a str,
    agent: &'static agents::Agent,
    line: String,
    deadline: Instant,
    /// Set once the Enter after the command was sent.
    entered: std::cell::Cell<bool>,
    /// Started by `taw sandbox`: there once a container runtime runs it.
    sandboxed: bool,
}

impl Launch<'_> {
    /// Types, enters, and waits for the agent: `Ok` once it is there.
    fn run(&self) -> Result<()> {
        let no_marks = OptionWrites::default();
        let echoed = type_and_enter(self.tmux, self.id, self.shell, &self.line, &no_marks)?
            .map_err(|held| match held {
                HeldAt::Typing(found) => typing_held_back(self.public, &found),
                HeldAt::Enter(found) => enter_held_back(self.public, &found),
            })?;
        self.entered.set(true);
        self.watch_start(&echoed)
    }

    /// Waits until the agent is there: its process names it, its
    /// integration reported it, or the watcher read a state for it. A shell
    /// back at its prompt with nothing running is a command that did not
    /// start.
    fn watch_start(&self, echoed: &str) -> Result<()> {
        let entered_at = Instant::now();
        let mut front = FrontJobs::default();
        let mut shell_screen: Option<(String, Instant)> = None;
        loop {
            let pane = pane_now(self.tmux, self.id, self.public)?;
            let mut shell_back = false;
            match front.look(&pane, self.agent.id, self.sandboxed) {
                InFront::Agent(pid) => {
                    record_pid(self.tmux, self.id, pid);
                    if self.sandboxed {
                        self.await_container_record();
                    }
                    return Ok(());
                }
                InFront::Shell => shell_back = true,
                InFront::Other => {}
            }
            if self.recorded_on(&pane) {
                let pid = front.agreed.or_else(|| self.settle_pid(front.last));
                if let Some(pid) = pid {
                    record_pid(self.tmux, self.id, pid);
                }
                return Ok(());
            }
            if shell_back && self.shell_at_prompt_again(echoed, &mut shell_screen, entered_at)? {
                return Err(self.not_started());
            }
            if !shell_back {
                shell_screen = None;
            }
            if Instant::now() >= self.deadline {
                if let Some(pid) = front.agreed {
                    record_pid(self.tmux, self.id, pid);
                }
                return Err(self.not_seen());
            }
            std::thread::sleep(LOOK_EVERY);
        }
    }

    /// Whether the pane's options say the agent is there: its integration
    /// reported it, or the watcher read a state for it (for a sandboxed
    /// agent, once it runs in its container).
    fn recorded_on(&self, pane: &Pane) -> bool {
        let contained = !self.sandboxed || !pane.container.is_empty();
        let reported = pane.reported_kind == self.agent.id && contained;
        let read = pane.agent_kind == self.agent.id
            && !pane.agent_state.is_empty()
            && pane.agent_state != "unknown"
            && contained;
        reported || read
    }

    /// The shell came back to its prompt: the command did not start.
    fn not_started(&self) -> TawError {
        let message = if self.sandboxed {
            format!(
                "{} did not start in its sandbox in pane {}: the shell is back at its prompt, and the pane shows what the profile said",
                self.agent.name, self.public
            )
        } else {
            format!(
                "{} did not start in pane {}: the shell is back at its prompt (is `{}` installed and on the pane's PATH?)",
                self.agent.name, self.public, self.agent.executable
            )
        };
        TawError::new(ErrorCode::AgentNotStarted, message)
    }

    /// --timeout ran out before the agent was seen.
    fn not_seen(&self) -> TawError {
        TawError::new(
            ErrorCode::Timeout,
            format!(
                "{} was not seen running in pane {}{} within --timeout",
                self.agent.name,
                self.public,
                if self.sandboxed { "'s container" } else { "" }
            ),
        )
    }

    /// A container seen in front: the record answered says it once the
    /// pane's watcher has recorded it, which its next look does (two
    /// seconds at most, none past --timeout; a pane with no watcher says
    /// the runtime is still to come).
    fn await_container_record(&self) {
        let until = self.deadline.min(Instant::now() + Duration::from_secs(2));
        while Instant::now() < until {
            match pane_now(self.tmux, self.id, self.public) {
                Ok(pane) if pane.container.is_empty() => std::thread::sleep(LOOK_EVERY),
                _ => return,
            }
        }
    }

    /// When the wait's last two looks did not agree on the job in front:
    /// looks again, for up to 1.5 s and three looks at the least, then on
    /// until two agree or the sixth, but none past --timeout. The pid two
    /// looks in a row agree on, so a helper a preexec hook ran for a
    /// moment is not taken for the agent.
    fn settle_pid(&self, mut last: Option<u32>) -> Option<u32> {
        let begun = Instant::now();
        let mut looks = 0;
        loop {
            let window_over = begun.elapsed() >= Duration::from_millis(1500) && looks >= 3;
            if Instant::now() >= self.deadline || (window_over && looks >= 6) {
                return None;
            }
            std::thread::sleep(LOOK_EVERY);
            looks += 1;
            let pane = pane_now(self.tmux, self.id, self.public).ok()?;
            let now =
                foreground::read_job(pane.pid).and_then(|(own, group)| match foreground::front_of(
                    &own, group,
                ) {
                    foreground::Front::Job { pgid, .. } => Some(pgid),
                    _ => None,
                });
            if now.is_some() && now == last {
                return now;
            }
            last = now;
        }
    }

    /// With the shell in front: whether it has drawn something below the
    /// typed line (what it said, its prompt) and the screen has stayed the
    /// same for a moment, half a second at least after the Enter.
    fn shell_at_prompt_again(
        &self,
        echoed: &str,
        last: &mut Option<(String, Instant)>,
        entered_at: Instant,
    ) -> Result<bool> {
        let text = screen(self.tmux, self.id)?;
        let steady_since = match last {
            Some((seen, since)) if *seen == text => *since,
            _ => {
                *last = Some((text.clone(), Instant::now()));
                Instant::now()
            }
        };
        let rows: Vec<&str> = text.lines().collect();
        let below = match typed::find(&rows, echoed, &self.line) {
            Some(at) => rows[at + 1..].iter().any(|row| !row.trim().is_empty()),
            // The line went (a clear): whatever is drawn.
            None => !text.trim().is_empty(),
        };
        Ok(below
            && steady_since.elapsed() >= SETTLED
            && entered_at.elapsed() >= Duration::from_millis(500))
    }
}

/// What is in front of a pane's shell, look by look. For an agent nothing
/// names (a script, a wrapper), the job in front that two looks in a row
/// agree on is taken for it, at the end.
#[derive(Default)]
struct FrontJobs {
    /// The leader of the job in front at the last look.
    last: Option<u32>,
    /// The leader the last two looks agreed on.
    agreed: Option<u32>,
}

/// What one look found in front of the shell.
enum InFront {
    /// The agent started, by its process (with a container runtime, for a
    /// sandboxed start): its pid.
    Agent(u32),
    /// The shell itself, with nothing running.
    Shell,
    /// Another job, or nothing could be read.
    Other,
}

impl FrontJobs {
    fn look(&mut self, pane: &Pane, agent: &str, sandboxed: bool) -> InFront {
        let Some((own, group)) = foreground::read_job(pane.pid) else {
            return InFront::Other;
        };
        match foreground::front_of(&own, group) {
            foreground::Front::Job { pgid, members } => {
                if let Some(found) =
                    foreground::identify(&members, &foreground::resolve_link_on_disk)
                    && found.agent.id == agent
                    && (found.runtime.is_some() || !sandboxed)
                {
                    return InFront::Agent(found.pid);
                }
                self.agreed = (self.last == Some(pgid)).then_some(pgid);
                self.last = Some(pgid);
                InFront::Other
            }
            foreground::Front::Shell => {
                self.last = None;
                InFront::Shell
            }
            foreground::Front::Unknown => InFront::Other,
        }
    }
}

fn record_pid(tmux: &Tmux, pane: u32, pid: u32) {
    let mut writes = OptionWrites::default();
    writes.set(opt::AGENT_PID, pid.to_string());
    // A hint for the watcher only, which finds the agent's process itself.
    let _ = tmux_pane::write_options(tmux, pane, &writes);
}

/// Puts back the hint and pid the pane had, and takes the name off: no
/// agent started.
fn restore(tmux: &Tmux, pane: u32, hint: &str, pid: &str) {
    let mut writes = OptionWrites::default();
    match hint {
        "" => writes.unset(opt::AGENT_KIND_HINT),
        hint => writes.set(opt::AGENT_KIND_HINT, hint),
    };
    match pid {
        "" => writes.unset(opt::AGENT_PID),
        pid => writes.set(opt::AGENT_PID, pid),
    };
    writes.unset(opt::AGENT_NAME);
    for name in opt::TYPED {
        writes.unset(name);
    }
    // The start's own failure is what is answered; a tmux that cannot
    // take this back could not take anything.
    let _ = tmux_pane::write_options(tmux, pane, &writes);
}

fn answer(tmux: &Tmux, pane: u32, kind: &str, argv: Vec<String>) -> Result<Started> {
    // The pane holds the agent from now on, for a verb that names it next
    // (`agent prompt reviewer`), before the watcher has looked: unknown, as
    // a watcher's first look says, unless the watcher has written already.
    let target = format!("%{pane}");
    let mut writes = OptionWrites::default();
    writes.set(opt::AGENT_KIND, kind);
    writes.set(opt::AGENT_STATE, "unknown");
    writes.set(opt::STATE_SINCE, crate::clock::now_ms().to_string());
    let mut own = OptionWrites::default();
    for name in opt::LEFT_BY_RESTORE {
        own.unset(name);
    }
    let mut batch = Batch::of(own.commands(pane));
    batch.push(cmd::unless_set(
        &target,
        opt::AGENT_KIND,
        &writes.commands(pane),
    ));
    // The watcher writes the same on its first look; a tmux gone fails the
    // read just below.
    let _ = tmux.run(&batch);
    let snapshot = Snapshot::read(tmux)?;
    let row = snapshot
        .pane(pane, None)
        .ok_or_else(|| TawError::not_found("the pane closed"))?;
    let records = Records::new(&snapshot);
    // The record as an agent's, even before the watcher has written it.
    let agent = records
        .agent(row)
        .map(|a| serde_json::to_value(a).unwrap_or_default())
        .unwrap_or_else(|| {
            let mut record = serde_json::to_value(records.pane(row)).unwrap_or_default();
            record["name"] = Value::String(row.agent_name.clone());
            record
        });
    Ok(Started { agent, argv })
}

/// `agent start`'s words for a command held back before it was typed.
fn typing_held_back(public: &str, found: &cmd::HeldBack) -> TawError {
    not_ready(if found.in_mode {
        format!(
            "pane {public} is in {}; leave it and try again",
            mode_name(&found.mode)
        )
    } else if found.input_off {
        format!("pane {public} takes no input; turn its input back on and try again")
    } else if found.synchronized {
        synchronized_message(public, "")
    } else {
        format!(
            "pane {public} had another program in front of its shell when the command was to be typed, so nothing was typed. Start the agent again once the shell is at its prompt."
        )
    })
}

/// `agent start`'s words for a command typed whose Enter was held back.
fn enter_held_back(public: &str, found: &cmd::HeldBack) -> TawError {
    not_ready(if found.in_mode {
        format!(
            "pane {public} is in {}, and the command typed into it may be left on its line; leave the mode, clear the line and try again",
            mode_name(&found.mode)
        )
    } else if found.input_off {
        format!(
            "pane {public} takes no input, and the command typed into it may be left on its line; turn its input back on, clear the line and try again"
        )
    } else if found.synchronized {
        synchronized_message(
            public,
            ", and the command typed into it may be left on its line",
        )
    } else {
        format!(
            "pane {public} had another program in front of its shell when the command was to be run, and the command typed into it may be left on its line; clear the line and start the agent again once the shell is at its prompt."
        )
    })
}
