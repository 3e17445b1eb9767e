//! `taw integration install|status|uninstall`: an agent's own hooks that
//! tell taw its session and state. `taw integration hook` is what those
//! hooks run; it is not for a person.

use super::Context;
use crate::envelope::{Reply, Result};
use crate::integration::{self, hook, targets};
use crate::ops::pane::report::{self as report_op, Reporter, SessionRef};
use clap::Subcommand;
use serde_json::{Value, json};
use std::io::Read;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Put taw's hook (a script, plugin or extension) into an agent's config, keeping every byte of yours.
    Install {
        /// pi, omp, claude, codex, copilot, devin, droid, kimi, opencode,
        /// kilo, hermes, qodercli, cursor, mastracode, antigravity-cli,
        /// grok, letta.
        agent: String,
    },
    /// Which integrations are installed, their version, and what is out of date.
    Status {
        /// Only this agent's.
        target: Option<String>,
        /// Only those that installing again would change.
        #[arg(long)]
        outdated_only: bool,
        /// Accepted for herdr's scripts: the answer is always JSON.
        #[arg(long)]
        json: bool,
    },
    /// Take taw's hook out of an agent's config and delete its script.
    Uninstall { agent: String },
    /// An agent's hook fired: its payload on standard input (taw's hook
    /// scripts run this; not for a person).
    #[command(hide = true)]
    Hook { target: String, action: String },
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Install { agent } => targets::find(&agent)
            .and_then(integration::install)
            .map(Reply::of),
        Verb::Status {
            target,
            outdated_only,
            json: _,
        } => target
            .as_deref()
            .map(targets::find)
            .transpose()
            .and_then(|only| integration::status(only, outdated_only))
            .map(Reply::of),
        Verb::Uninstall { agent } => targets::find(&agent)
            .and_then(integration::uninstall)
            .map(Reply::of),
        Verb::Hook { target, action } => hook_fired(context, &target, &action),
    }
}

/// The most of a payload taw reads.
const PAYLOAD_LIMIT: u64 = 1 << 20;
/// A hook never holds its agent up longer than this, whatever tmux does.
const HOOK_LIMIT_SECONDS: u32 = 3;

/// Reads the agent's payload and reports what it says for the pane the
/// hook runs in.
fn hook_fired(context: &Context, target: &str, action: &str) -> Result<Reply> {
    // The report's number: when the hook ran, before anything can wait.
    let seq = now_ns();
    // SAFETY: alarm(2) only schedules SIGALRM, whose default action ends
    // this process: the bound on a hook's run.
    unsafe {
        libc::alarm(HOOK_LIMIT_SECONDS);
    }
    let target = targets::find(target)?;
    let pane = super::pane_number(context, super::CALLING_PANE)?;
    let mut bytes = Vec::new();
    // A payload that cannot be read is no payload: the hook's name alone
    // says what happened, and what was read stands.
    let _ = std::io::stdin().take(PAYLOAD_LIMIT).read_to_end(&mut bytes);
    let payload: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let said = hook::read(target, action, &payload, &var);
    let who = Reporter {
        pane,
        source: target.source(),
        agent: target.agent.to_string(),
        seq: Some(seq),
    };
    let tmux = context.tmux();
    let reported = match said {
        hook::Said::Nothing => return Ok(Reply::result("ok", json!({"reported": false}))),
        hook::Said::Session { id, path, start } => report_op::report_session(
            &tmux,
            &who,
            start,
            &SessionRef {
                id,
                path,
                command: Vec::new(),
            },
        )?,
        hook::Said::State { state, id } => report_op::report_agent(
            &tmux,
            &who,
            state,
            None,
            &SessionRef {
                id,
                path: None,
                command: Vec::new(),
            },
        )?,
    };
    Ok(Reply::result(
        "ok",
        json!({"reported": true, "in_order": reported.in_order}),
    ))
}

/// Now in nanoseconds: a hook's report number, so a later hook's wins.
fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
