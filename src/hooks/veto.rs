//! What is asked before taw closes or removes something: the `[hooks]
//! pre_close` and `pre_worktree_remove` commands of config.toml. They run
//! in the core, so every front end (the CLI, the popup) asks them. Each
//! command runs in turn and is waited for; a non-zero exit, or running past
//! `[sessions] hook_timeout_seconds`, refuses with `hook_refused`, and the
//! caller closes nothing.

use super::payload;
use crate::config::Config;
use crate::envelope::{ErrorCode, Result, TawError};
use crate::events::{Event, Occurrence};
use crate::hooks::run::{self, HookRun};
use crate::tmux::Tmux;

/// What is about to close: a tmux session, window or pane, with the
/// session it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closing {
    Session(u32),
    Window { session: u32, window: u32 },
    Pane { session: u32, pane: u32 },
}

impl Closing {
    fn occurrence(self) -> Occurrence {
        let (what, session, window, pane) = match self {
            Closing::Session(session) => ("session", session, None, None),
            Closing::Window { session, window } => ("window", session, Some(window), None),
            Closing::Pane { session, pane } => ("pane", session, None, Some(pane)),
        };
        Occurrence::new(Event::PreClose)
            .session(Some(session))
            .window(window)
            .pane(pane)
            .var("TAW_CLOSING", what)
    }

    fn describe(self) -> String {
        match self {
            Closing::Session(session) => format!("session ${session}"),
            Closing::Window { window, .. } => format!("window @{window}"),
            Closing::Pane { pane, .. } => format!("pane %{pane}"),
        }
    }
}

/// Whether taw may close it: an error (`hook_refused`) stops the close.
/// With `force`, a config.toml that does not say whether a veto is there
/// (see [`unreadable_veto`]) lets it close; a veto that is read is asked
/// all the same.
pub(crate) fn may_close(tmux: &Tmux, closing: &Closing, force: bool) -> Result<()> {
    ask(tmux, closing.occurrence(), &closing.describe(), force)
}

/// Whether taw may remove the worktree at `path` (the seam the worktree
/// verbs ask).
pub(crate) fn may_remove_worktree(tmux: &Tmux, session: Option<u32>, path: &str) -> Result<()> {
    ask(
        tmux,
        Occurrence::new(Event::PreWorktreeRemove)
            .session(session)
            .var("TAW_WORKTREE", path),
        &format!("the worktree {path}"),
        false,
    )
}

/// Runs the veto's commands in turn; the first that says no refuses. A
/// config.toml whose `[hooks]` could not be read refuses too (unless
/// `force`): the veto it may hold is not known, and a close is not undone.
fn ask(tmux: &Tmux, occurrence: Occurrence, what: &str, force: bool) -> Result<()> {
    let config = Config::load_or_defaults().0;
    if !force && let Some(error) = unreadable_veto(&config) {
        return Err(TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{}; whether its [hooks] {} refuses cannot be read, so {what} stays. Mend the file (`taw config check`), or pass --force",
                config.locate(error),
                occurrence.event.name()
            ),
        ));
    }
    let commands = super::hook_commands(&config, occurrence.event.name());
    if commands.is_empty() {
        return Ok(());
    }
    let Some(delivery) = payload::build_all(tmux, &[&occurrence])?.pop() else {
        return Ok(());
    };
    let limit = veto_limit(&config);
    for command in &commands {
        let outcome = run::run_command(command, &delivery, run::Limit::veto(limit));
        if !outcome.ok {
            run::log_failure(occurrence.event, command, &outcome);
            return Err(refusal(occurrence.event, command, what, &outcome));
        }
    }
    Ok(())
}

/// The error of config.toml that may hide a veto: one of the file as a
/// whole (it does not parse: taw runs on its defaults), or of `[hooks]`.
fn unreadable_veto(config: &Config) -> Option<&crate::config::Diagnostic> {
    config.errors().find(|error| match &error.key {
        None => true,
        Some(key) => key == "hooks" || key.starts_with("hooks."),
    })
}

/// `[sessions] hook_timeout_seconds` as a limit: `None` for 0.
pub(crate) fn veto_limit(config: &Config) -> Option<std::time::Duration> {
    let limit = crate::sessions::folders::hook_limit(config);
    (!limit.is_zero()).then_some(limit)
}

fn refusal(veto: Event, command: &str, what: &str, outcome: &HookRun) -> TawError {
    let why = if outcome.timed_out {
        "it ran past [sessions] hook_timeout_seconds".to_string()
    } else {
        match outcome.status {
            Some(code) => format!("it exited with status {code}"),
            None => outcome
                .failure
                .clone()
                .unwrap_or_else(|| "it did not finish".into()),
        }
    };
    let said = outcome.stderr.trim_end();
    let name = veto.name();
    let mut message = format!("[hooks] {name} `{command}` refused to let {what} go: {why}");
    if !said.is_empty() {
        message.push_str(": ");
        message.push_str(said);
    }
    TawError::new(ErrorCode::HookRefused, message)
}
