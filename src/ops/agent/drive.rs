//! Driving an agent: prompt it, send it keys, wait for it, read it.
//! Nothing is typed into a pane whose agent has gone: the check comes
//! first, and the send itself is guarded by tmux (`tmux::commands::guarded`),
//! so an agent that exits between the two gets nothing, and neither does
//! the shell it leaves. The verbs here take the target as a person wrote
//! it (an agent's name or a pane id): herdr's messages quote it, and a wait
//! looks it up again as the pane changes.

use super::typing;
use crate::clock::now_ms;
use crate::detect::foreground;
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::model::{AgentInfo, AgentStatus, Records, resolve};
use crate::ops::pane::input::{self, PaneRead, ReadSpec};
use crate::ops::race::{Race, race_window};
use crate::tmux::commands::{self as cmd, Cmd};
use crate::tmux::pane::{self as tmux_pane, Buffer};
use crate::tmux::snapshot::{Pane, Snapshot};
use crate::tmux::{Batch, Tmux};
use crate::watch::waiters::Waiter;
use serde::Serialize;
use std::time::{Duration, Instant};

/// A watcher tells of every look; this is only a safety net.
const RECHECK: Duration = Duration::from_secs(2);
const POLL_WITHOUT_WATCHER: Duration = Duration::from_millis(200);
/// How long a watcher has to write the end of a turn when an agent leaves.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long a prompt or keys wait for a watched agent that has just
/// started to be read for the first time (its input drawn).
const FIRST_READ_WAIT: Duration = Duration::from_secs(10);
/// When the screen from the line that showed a prompt's paste down is
/// unchanged this long after its Enter, the Enter was dropped (Claude Code
/// or Gemini CLI settling on a busy machine keeps the text in its input),
/// and goes again, as a person would press it again; on an empty input an
/// Enter does nothing. A change above it (Claude Code drawing its
/// effort line late) does not count as taken.
const ENTER_AGAIN_AFTER: Duration = Duration::from_secs(2);
/// At most this many Enters more than the first.
const ENTER_PRESSES_MORE: usize = 2;

fn code(code: ErrorCode, message: String) -> TawError {
    TawError::new(code, message)
}

/// The verbs that type, for herdr's wording of their refusals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Prompt,
    SendKeys,
}

/// The agent a target names, for verbs that type into its pane: a target
/// that names no pane is `agent_not_found`; a pane with no agent there is
/// `agent_not_ready`.
fn agent_pane<'a>(snapshot: &'a Snapshot, target: &str, verb: Verb) -> Result<&'a Pane> {
    let pane = resolve::agent(snapshot, target).map_err(|error| {
        if error.code == ErrorCode::AgentTargetAmbiguous {
            error
        } else if let Ok(pane) = resolve::pane(snapshot, target) {
            let public = Records::new(snapshot).pane(pane).pane_id;
            code(
                ErrorCode::AgentNotReady,
                format!(
                    "agent {target} is not an active named agent: no agent runs in pane {public}"
                ),
            )
        } else {
            code(
                ErrorCode::AgentNotFound,
                format!("agent target {target} not found"),
            )
        }
    })?;
    if !hosts_agent(pane) {
        return Err(code(ErrorCode::AgentNotReady, gone_message(target, verb)));
    }
    Ok(pane)
}

/// Whether the job in front of the pane is still the agent its options
/// name: its processes name it, or the pid recorded for it is in front.
/// A shell, or a process that names another agent, is not it, whatever
/// the pane records. An integration's report stands for an agent only when
/// no process can name its kind (a label of the integration's own), and
/// something that is no shell is in front.
pub(crate) fn hosts_agent(pane: &Pane) -> bool {
    let Some((own, group)) = foreground::read_job(pane.pid) else {
        return false;
    };
    let members = match foreground::front_of(&own, group) {
        foreground::Front::Job { members, .. } => members,
        _ => return false,
    };
    if let Some(found) = foreground::identify(&members, &foreground::resolve_link_on_disk) {
        return found.agent.id == pane.agent_kind;
    }
    let recorded = pane.agent_pid.parse::<u32>().ok();
    if recorded.is_some_and(|pid| members.iter().any(|p| p.pid == pid)) {
        return true;
    }
    crate::detect::agents::lookup(&pane.agent_kind).is_none()
        && pane.reported_kind == pane.agent_kind
        && !members.iter().any(foreground::is_shell_process)
}

/// The pane a verb types into, as the user named it and as herdr's id.
struct Aim<'a> {
    pane: &'a Pane,
    /// What the user typed for it (a name or an id).
    target: &'a str,
    /// Its public id, for messages.
    public: String,
    verb: Verb,
}

impl<'a> Aim<'a> {
    fn new(snapshot: &Snapshot, pane: &'a Pane, target: &'a str, verb: Verb) -> Aim<'a> {
        Aim {
            pane,
            target,
            public: Records::new(snapshot).pane(pane).pane_id,
            verb,
        }
    }

    /// herdr's words for an agent that has gone from its pane.
    fn gone(&self) -> TawError {
        code(
            ErrorCode::AgentNotReady,
            gone_message(self.target, self.verb),
        )
    }

    /// Refuses a pane in a mode or with its input off before anything is sent.
    fn refuse_mode(&self, tmux: &Tmux) -> Result<()> {
        let values = tmux_pane::read_values(
            tmux,
            self.pane.id,
            &[
                "pane_in_mode",
                "pane_input_off",
                "pane_mode",
                "synchronize-panes",
            ],
        )?;
        if values[0] == "1" {
            return Err(self.in_mode(&values[2], ""));
        }
        if values[1] == "1" {
            return Err(self.input_off(""));
        }
        if values[3] == "1" {
            return Err(self.synchronized(""));
        }
        Ok(())
    }

    fn in_mode(&self, mode: &str, more: &str) -> TawError {
        code(
            ErrorCode::ShellNotReady,
            format!(
                "pane {} is in {}; leave it and try again{more}",
                self.public,
                mode_name(mode)
            ),
        )
    }

    fn synchronized(&self, more: &str) -> TawError {
        code(
            ErrorCode::ShellNotReady,
            synchronized_message(&self.public, more),
        )
    }

    fn input_off(&self, more: &str) -> TawError {
        code(
            ErrorCode::ShellNotReady,
            format!(
                "pane {} takes no input; turn its input back on and try again{more}",
                self.public
            ),
        )
    }

    /// Sends `cmds` only while the command tmux saw in front is still there
    /// and the pane takes input, after `before` (a buffer loaded from
    /// `input`), in one tmux call; `refused` runs when tmux held them back.
    /// The answer says why it held them back.
    fn send_guarded(
        &self,
        tmux: &Tmux,
        before: Vec<Cmd>,
        cmds: Vec<Cmd>,
        refused: Vec<Cmd>,
        input: Vec<u8>,
        what: &str,
    ) -> Result<()> {
        let target = format!("%{}", self.pane.id);
        race_window(Race::Sending);
        let mut batch = Batch::of(before);
        batch.push(cmd::guarded(
            &target,
            &self.pane.current_command,
            &cmds,
            &refused,
        ));
        let output = tmux.run_with_input(&batch, input).map_err(|error| {
            // What a held-back send would have cleaned up (its buffer), but
            // not from a server that does not answer; tidying only, as the
            // send's own error is what is answered.
            if error.code != ErrorCode::Timeout {
                let _ = tmux.run(&Batch::of(refused.clone()));
            }
            pane_gone(error, &self.public)
        })?;
        let not_sent = format!(" ({what} was not sent)");
        match cmd::held_back(&output) {
            None => Ok(()),
            Some(found) if found.in_mode => Err(self.in_mode(&found.mode, &not_sent)),
            Some(found) if found.input_off => Err(self.input_off(&not_sent)),
            Some(found) if found.synchronized => Err(self.synchronized(&not_sent)),
            Some(_) => Err(self.gone()),
        }
    }
}

/// Why a pane of a window with synchronize-panes on is typed nothing.
pub(crate) fn synchronized_message(public: &str, more: &str) -> String {
    format!(
        "pane {public}'s window has synchronize-panes on, so what is sent to it would go to every pane of the window; turn it off and try again{more}"
    )
}

/// tmux's name for a mode, as words: `copy-mode` is "copy mode".
pub(crate) fn mode_name(mode: &str) -> String {
    if mode.is_empty() {
        "a mode".into()
    } else {
        mode.replace('-', " ")
    }
}

fn gone_message(target: &str, verb: Verb) -> String {
    match verb {
        Verb::Prompt => format!("agent {target} is no longer the pane foreground process"),
        Verb::SendKeys => format!("agent {target} is not an active named agent"),
    }
}

/// A tmux error because the pane closed is `not_found`.
fn pane_gone(error: TawError, public: &str) -> TawError {
    if crate::tmux::is_pane_gone(&error) {
        TawError::not_found(format!("pane {public} closed"))
    } else {
        error
    }
}

/// The states that end a wait; herdr's default when none is given.
pub(crate) fn until_or_default(until: Vec<AgentStatus>) -> Vec<AgentStatus> {
    if until.is_empty() {
        vec![AgentStatus::Idle, AgentStatus::Done, AgentStatus::Blocked]
    } else {
        until
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PromptSent {
    pub pane_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct KeysSent {}

answers!(PromptSent => "ok", KeysSent => "ok");

/// How a wait for an agent ended.
#[derive(Debug, Clone)]
pub(crate) enum Waited {
    /// The agent is in a state the wait was for: its record.
    Reached(Box<Option<AgentInfo>>),
    /// It left its pane in one of those states (herdr's released answer).
    Released(AgentStatus),
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Reached {
    pub agent: Option<AgentInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ReleasedAnswer {
    pub agent: Option<AgentInfo>,
    pub final_status: AgentStatus,
    pub released: bool,
}

/// How long a prompt's paste has to show on the agent's screen before its
/// Enter goes anyway: for a text an agent may fold, any change; for a
/// short one-line text, its end drawn. That one waits longer, as an agent
/// on a busy machine may draw nothing for seconds, and Claude Code drops
/// for good an Enter it reads together with a paste it has not drawn yet
/// (an agent that draws none of what is typed pays that wait).
const PASTE_SHOWN: typing::PasteWait = typing::PasteWait {
    any_change: Duration::from_secs(2),
    end_drawn: Duration::from_secs(10),
};
/// The Enter's gap after the paste has shown.
const AFTER_PASTE_SHOWN: Duration = Duration::from_millis(60);

/// A prompt: its text, and what to wait for after it.
#[derive(Debug, Clone)]
pub(crate) struct Prompt {
    pub text: String,
    /// Wait for the turn to end, in one of these states (empty: herdr's).
    pub wait: Option<Vec<AgentStatus>>,
    /// One budget for the send and the wait.
    pub timeout: Option<Duration>,
}

/// Sends an agent a prompt, as it is, byte for byte (pasted, bracketed
/// when the agent asked for it, then Enter), and with `wait`, waits for
/// its turn to end. `Ok(None)` when it was sent and not waited for.
pub(crate) fn prompt(
    tmux: &Tmux,
    target: &str,
    prompt: Prompt,
) -> Result<(PromptSent, Option<Waited>)> {
    let deadline = prompt.timeout.map(|t| Instant::now() + t);
    if prompt.text.trim().is_empty() {
        return Err(TawError::invalid_argument("the prompt is empty"));
    }
    // The prompt goes in a bracketed paste: an escape in it could end the
    // paste (`ESC [201~`) and have the rest read as keys (a mode switch,
    // an Enter). A prompt is text: one that holds an escape is refused.
    if prompt.text.contains('\u{1b}') {
        return Err(TawError::invalid_argument(
            "the prompt holds an escape character (ESC), which could end its paste and be read as keys; nothing was sent",
        ));
    }
    let snapshot = once_drawn(tmux, target, Verb::Prompt, deadline)?;
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Err(timeout_error(target));
    }
    let pane = agent_pane(&snapshot, target, Verb::Prompt)?;
    let aim = Aim::new(&snapshot, pane, target, Verb::Prompt);
    aim.refuse_mode(tmux)?;
    let before = Observed::of(pane);
    let sent_at = now_ms();
    // The text reaches tmux on its standard input, never through its
    // parser, so every byte arrives as it was written, at any size.
    let buffer = Buffer::named();
    let shown = typing::screen(tmux, pane.id).map_err(|e| pane_gone(e, &aim.public))?;
    aim.send_guarded(
        tmux,
        vec![buffer.load()],
        vec![buffer.paste(pane.id, true)],
        vec![buffer.delete()],
        prompt.text.clone().into_bytes(),
        "the prompt",
    )?;
    // Gemini CLI reads an Enter that comes within 30 ms of the text it
    // read last as a newline in the text, and a busy agent reads late: so
    // the Enter goes once the agent has drawn the paste, a moment after.
    let drawn = typing::until_drawn(
        tmux,
        pane.id,
        &shown,
        &prompt.text,
        PASTE_SHOWN.until(deadline),
    )
    .map_err(|e| pane_gone(e, &aim.public))?;
    std::thread::sleep(AFTER_PASTE_SHOWN);
    let before_enter = match drawn {
        Some(_) => Some(typing::screen(tmux, pane.id).map_err(|e| pane_gone(e, &aim.public))?),
        None => None,
    };
    let press_enter = || {
        aim.send_guarded(
            tmux,
            vec![],
            vec![tmux_pane::send_keys(pane.id, &["Enter".to_string()])],
            vec![],
            vec![],
            "the prompt's Enter",
        )
    };
    press_enter()?;
    if let Some(before_enter) = before_enter {
        for _ in 0..ENTER_PRESSES_MORE {
            let took = typing::until_taken(
                tmux,
                pane.id,
                &before_enter,
                &prompt.text,
                ENTER_AGAIN_AFTER,
            )
            .map_err(|e| pane_gone(e, &aim.public))?;
            if took {
                break;
            }
            // Refused (the agent left meanwhile): the next look tells.
            let _ = press_enter();
        }
    }
    let sent = PromptSent {
        pane_id: aim.public.clone(),
    };
    let Some(until) = prompt.wait else {
        return Ok((sent, None));
    };
    let until = until_or_default(until);
    let waiter = Waiter::new(&crate::paths::state_dir(), snapshot.server.pid, pane.id);
    // An agent that was not working must show it took the prompt.
    if before.state != AgentStatus::Working {
        let gate = Instant::now() + crate::clock::limits().activity;
        let stop = deadline.map_or(gate, |d| d.min(gate));
        let mut left_at = None;
        loop {
            match current(tmux, pane)? {
                Current::Gone(final_state) => {
                    return gone(target, final_state, sent_at, &until).map(|w| (sent, Some(w)));
                }
                Current::Here(now) if now.active_since(&before, sent_at) => break,
                Current::Here(_) => {
                    if let Some(final_state) = process_left(tmux, pane, &mut left_at)? {
                        return gone(target, final_state, sent_at, &until).map(|w| (sent, Some(w)));
                    }
                }
            }
            if Instant::now() >= stop {
                if deadline.is_some_and(|d| d <= gate) {
                    return Err(timeout_error(target));
                }
                return Err(code(
                    ErrorCode::AgentPromptStalled,
                    format!(
                        "agent {target} showed no sign of taking the prompt within 5 s (it may still have been delivered)"
                    ),
                ));
            }
            sleep_until_look(&waiter, stop, left_at.is_some());
        }
    }
    let waited = wait_for(tmux, pane, target, &until, deadline, sent_at, &waiter)?;
    Ok((sent, Some(waited)))
}

/// The server as it is once the target agent has been read: an agent
/// `agent start` has just started is named by its process before it has
/// drawn its input, and what is typed into it then can be lost (Claude
/// Code takes the text and drops the Enter). So while a watched agent has
/// no state read yet, and for at most FIRST_READ_WAIT after it came, this
/// waits for the watcher's first read; past that the text is sent anyway.
fn once_drawn(
    tmux: &Tmux,
    target: &str,
    verb: Verb,
    deadline: Option<Instant>,
) -> Result<Snapshot> {
    let mut stop: Option<Instant> = None;
    let mut waiter = None;
    loop {
        let snapshot = Snapshot::read(tmux)?;
        let pane = agent_pane(&snapshot, target, verb)?;
        let unread = matches!(pane.agent_state.as_str(), "" | "unknown");
        if !pane.pipe || !unread {
            return Ok(snapshot);
        }
        let stop = *stop.get_or_insert_with(|| {
            // Unread for a while already: a screen the rules do not know.
            let unread_for = Duration::from_millis(now_ms().saturating_sub(pane.state_since));
            let left = if pane.state_since == 0 {
                FIRST_READ_WAIT
            } else {
                FIRST_READ_WAIT.saturating_sub(unread_for)
            };
            let stop = Instant::now() + left;
            deadline.map_or(stop, |d| d.min(stop))
        });
        if Instant::now() >= stop {
            return Ok(snapshot);
        }
        let waiter = waiter.get_or_insert_with(|| {
            Waiter::new(&crate::paths::state_dir(), snapshot.server.pid, pane.id)
        });
        sleep_until_look(waiter, stop, false);
    }
}

/// What a pane's options said at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Observed {
    state: AgentStatus,
    since: u64,
    turn: String,
    reported_turn: String,
}

impl Observed {
    fn of(pane: &Pane) -> Observed {
        Observed {
            state: AgentStatus::parse(&pane.agent_state),
            since: pane.state_since,
            turn: pane.turn.clone(),
            reported_turn: pane.reported_turn.clone(),
        }
    }

    /// Whether the agent showed it took a prompt sent at `sent_at`: work,
    /// a wait it was not already in, or a turn's stamp that moved.
    fn active_since(&self, before: &Observed, sent_at: u64) -> bool {
        let moved = (self.turn != before.turn && !self.turn.is_empty())
            || (self.reported_turn != before.reported_turn && !self.reported_turn.is_empty());
        match self.state {
            AgentStatus::Working => true,
            AgentStatus::Blocked => {
                before.state != AgentStatus::Blocked || self.since > sent_at || moved
            }
            _ => moved,
        }
    }
}

enum Current {
    Here(Observed),
    /// The agent left; its final state, if the pane recorded one.
    Gone(Option<(AgentStatus, u64)>),
}

/// The agent of `pane` now: still there, or gone (with its final state).
fn current(tmux: &Tmux, pane: &Pane) -> Result<Current> {
    let snapshot = Snapshot::read(tmux)?;
    let Some(now) = snapshot.pane(pane.id, None) else {
        return Ok(Current::Gone(None));
    };
    let final_state = parse_final(&now.final_state);
    if now.agent_kind != pane.agent_kind || now.agent_kind.is_empty() {
        return Ok(Current::Gone(final_state));
    }
    let both_pids = !now.agent_pid.is_empty() && !pane.agent_pid.is_empty();
    if both_pids && now.agent_pid != pane.agent_pid {
        return Ok(Current::Gone(final_state));
    }
    // With no pids to say it is the same process, another session is
    // another agent (a new session in the same process is the same one).
    if !both_pids
        && !now.agent_session.is_empty()
        && !pane.agent_session.is_empty()
        && session_id(&now.agent_session) != session_id(&pane.agent_session)
    {
        return Ok(Current::Gone(final_state));
    }
    Ok(Current::Here(Observed::of(now)))
}

/// The session a pane's `@agent_session` names (its JSON's value).
fn session_id(recorded: &str) -> String {
    serde_json::from_str::<serde_json::Value>(recorded)
        .ok()
        .and_then(|v| v["value"].as_str().map(str::to_string))
        .unwrap_or_else(|| recorded.to_string())
}

/// The agent's process has gone while its record stands (no watcher took
/// it off): after a grace that lets a watcher write the end of the turn
/// first, its final state, if any.
fn process_left(
    tmux: &Tmux,
    pane: &Pane,
    left_at: &mut Option<Instant>,
) -> Result<Option<Option<(AgentStatus, u64)>>> {
    let snapshot = Snapshot::read(tmux)?;
    let Some(row) = snapshot.pane(pane.id, None) else {
        return Ok(Some(None));
    };
    if hosts_agent(row) {
        *left_at = None;
        return Ok(None);
    }
    let first = *left_at.get_or_insert_with(Instant::now);
    Ok((first.elapsed() >= EXIT_GRACE).then(|| parse_final(&row.final_state)))
}

fn parse_final(text: &str) -> Option<(AgentStatus, u64)> {
    let (state, at) = text.split_once(' ')?;
    Some((AgentStatus::parse(state), at.parse().ok()?))
}

/// A wait whose agent left: fine when it left in a state the wait was for
/// (after the wait began), else `agent_not_running`.
fn gone(
    target: &str,
    final_state: Option<(AgentStatus, u64)>,
    since: u64,
    until: &[AgentStatus],
) -> Result<Waited> {
    if let Some((state, at)) = final_state
        && at >= since
        && until.contains(&state)
    {
        return Ok(Waited::Released(state));
    }
    Err(code(
        ErrorCode::AgentNotRunning,
        format!("agent {target} left its pane while it was waited for"),
    ))
}

fn timeout_error(target: &str) -> TawError {
    code(
        ErrorCode::Timeout,
        format!("agent {target} did not get there before --timeout"),
    )
}

/// Sleeps until the watcher's next look, or `stop`; briefly while an agent
/// that seems gone is given its grace.
fn sleep_until_look(waiter: &Option<Waiter>, stop: Instant, quick: bool) {
    let mut left = stop.saturating_duration_since(Instant::now());
    if quick {
        left = left.min(Duration::from_millis(200));
    }
    match waiter {
        Some(waiter) => {
            waiter.wait(left.min(RECHECK));
        }
        None => std::thread::sleep(left.min(POLL_WITHOUT_WATCHER)),
    }
}

/// Waits until the agent is in one of `until`, it leaves, or the deadline.
fn wait_for(
    tmux: &Tmux,
    pane: &Pane,
    target: &str,
    until: &[AgentStatus],
    deadline: Option<Instant>,
    since: u64,
    waiter: &Option<Waiter>,
) -> Result<Waited> {
    let mut left_at: Option<Instant> = None;
    loop {
        match current(tmux, pane)? {
            Current::Gone(final_state) => return gone(target, final_state, since, until),
            Current::Here(now) if until.contains(&now.state) => {
                let snapshot = Snapshot::read(tmux)?;
                let row = snapshot.pane(pane.id, None).ok_or_else(|| {
                    code(
                        ErrorCode::AgentNotRunning,
                        format!("agent {target} left its pane"),
                    )
                })?;
                return Ok(Waited::Reached(Box::new(
                    Records::new(&snapshot).agent(row),
                )));
            }
            Current::Here(_) => {
                if let Some(final_state) = process_left(tmux, pane, &mut left_at)? {
                    return gone(target, final_state, since, until);
                }
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(timeout_error(target));
        }
        let stop = deadline.unwrap_or_else(|| Instant::now() + RECHECK);
        sleep_until_look(waiter, stop, left_at.is_some());
    }
}

/// Waits until the agent `target` names is in one of `until`.
pub(crate) fn wait(
    tmux: &Tmux,
    target: &str,
    until: Vec<AgentStatus>,
    timeout: Option<Duration>,
) -> Result<Waited> {
    let deadline = timeout.map(|t| Instant::now() + t);
    let snapshot = Snapshot::read(tmux)?;
    let pane = resolve::agent(&snapshot, target)?;
    let waiter = Waiter::new(&crate::paths::state_dir(), snapshot.server.pid, pane.id);
    wait_for(
        tmux,
        pane,
        target,
        &until_or_default(until),
        deadline,
        now_ms(),
        &waiter,
    )
}

/// Sends an agent keys in tmux's spelling (`crate::tmux::keys` checks them),
/// checked and guarded as a prompt is.
pub(crate) fn send_keys(tmux: &Tmux, target: &str, keys: &[String]) -> Result<KeysSent> {
    let snapshot = once_drawn(tmux, target, Verb::SendKeys, None)?;
    let pane = agent_pane(&snapshot, target, Verb::SendKeys)?;
    let aim = Aim::new(&snapshot, pane, target, Verb::SendKeys);
    aim.refuse_mode(tmux)?;
    aim.send_guarded(
        tmux,
        Vec::new(),
        vec![tmux_pane::send_keys(pane.id, keys)],
        Vec::new(),
        Vec::new(),
        "the keys",
    )?;
    Ok(KeysSent {})
}

/// Types `text` into an agent's input as it is, byte for byte (a newline
/// stays a newline, not tmux's CR), with no Enter (the web API's text with
/// `enter` off), through the same guarded send as the keys.
pub(crate) fn type_text(tmux: &Tmux, target: &str, text: &str) -> Result<KeysSent> {
    if text.is_empty() {
        return Err(TawError::invalid_argument("the text is empty"));
    }
    let snapshot = once_drawn(tmux, target, Verb::SendKeys, None)?;
    let pane = agent_pane(&snapshot, target, Verb::SendKeys)?;
    let aim = Aim::new(&snapshot, pane, target, Verb::SendKeys);
    aim.refuse_mode(tmux)?;
    let buffer = Buffer::named();
    aim.send_guarded(
        tmux,
        vec![buffer.load()],
        vec![buffer.paste_raw(pane.id)],
        vec![buffer.delete()],
        text.as_bytes().to_vec(),
        "the text",
    )?;
    Ok(KeysSent {})
}

/// An agent's screen, as `pane read` reads it.
pub(crate) fn read(tmux: &Tmux, target: &str, spec: ReadSpec) -> Result<PaneRead> {
    let snapshot = Snapshot::read(tmux)?;
    let pane = resolve::agent(&snapshot, target)?;
    input::read(tmux, &snapshot, pane.id, spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activity_after_a_prompt() {
        let idle = Observed {
            state: AgentStatus::Idle,
            since: 10,
            turn: "5".into(),
            reported_turn: String::new(),
        };
        let working = Observed {
            state: AgentStatus::Working,
            ..idle.clone()
        };
        assert!(working.active_since(&idle, 20));
        assert!(
            !idle.active_since(&idle, 20),
            "the idle it was in is no answer"
        );
        let turned = Observed {
            turn: "30".into(),
            ..idle.clone()
        };
        assert!(
            turned.active_since(&idle, 20),
            "a turn that began and ended"
        );
        let blocked = Observed {
            state: AgentStatus::Blocked,
            since: 10,
            ..idle.clone()
        };
        assert!(
            !blocked.active_since(&blocked, 20),
            "the question it was already asking"
        );
        assert!(blocked.active_since(&idle, 20));
    }
}
