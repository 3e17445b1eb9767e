//! `taw hooks list|test|log`: the `[hooks]` of config.toml, tried for real
//! against a sample, and the log of the runs that failed. `taw hooks tmux`
//! and `taw hooks deliver` are how tmux's hooks and the watchers hand an
//! event over; they are not for a person.

use super::Context;
use crate::config::{Config, schema};
use crate::envelope::{Reply, Result, TawError};
use crate::events::{Event, Occurrence};
use crate::hooks::payload::{self, Delivery, Environments};
use crate::hooks::run::{self, HookRun};
use crate::hooks::source::{self, HookFire};
use crate::hooks::{self, Listeners};
use crate::tmux::ids;
use crate::tmux::snapshot::Snapshot;
use clap::Subcommand;
use serde::Serialize;
use serde_json::{Value, json};

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Every event and veto [hooks] can name, with the commands hooked to each.
    List,
    /// Run the [hooks] commands of one event now, against a sample (or a
    /// real pane), and show what each did.
    Test {
        /// The event (agent.done, pane.closed...) or veto (pre_close).
        event: String,
        /// Use this real pane's ids, session, window and folder instead of
        /// the sample (a tmux id or a public id).
        #[arg(long)]
        pane: Option<String>,
        /// Allow --pane for an event about something going away (the hook
        /// may close or remove what is really there).
        #[arg(long, requires = "pane")]
        force: bool,
        /// For the notification event: set TAW_MACHINE to this [machines] name.
        #[arg(long, conflicts_with = "pane")]
        machine: Option<String>,
    },
    /// The last lines of the log of hook runs that failed or timed out.
    Log {
        /// How many lines, oldest first.
        #[arg(long, default_value_t = 20)]
        lines: usize,
    },
    /// A tmux hook fired (taw's hook entries run this; not for a person).
    #[command(hide = true)]
    Tmux {
        hook: String,
        #[arg(long)]
        session: Option<String>,
        #[arg(long)]
        window: Option<String>,
        #[arg(long)]
        pane: Option<String>,
        #[arg(long)]
        name: Option<String>,
        /// `1`: the tab roster knew the window in that session already.
        #[arg(long)]
        known: Option<String>,
    },
    /// Deliver events a watcher or a verb handed over (not for a person).
    #[command(hide = true)]
    Deliver { occurrences: String },
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::List => list(),
        Verb::Test {
            event,
            pane,
            force,
            machine,
        } => test(context, &event, pane.as_deref(), force, machine.as_deref()),
        Verb::Log { lines } => Ok(log(lines)),
        Verb::Tmux {
            hook,
            session,
            window,
            pane,
            name,
            known,
        } => {
            let fire = HookFire {
                hook,
                session: session.and_then(|s| ids::tmux_number(&s, '$')),
                window: window.and_then(|w| ids::tmux_number(&w, '@')),
                pane: pane.and_then(|p| ids::tmux_number(&p, '%')),
                session_name: name,
                known: known.as_deref() == Some("1"),
            };
            let listeners = Listeners::from_config(&Config::load_or_defaults().0);
            source::fire(&context.tmux(), &listeners, &fire);
            Ok(Reply::Nothing)
        }
        Verb::Deliver { occurrences } => {
            let listeners = Listeners::from_config(&Config::load_or_defaults().0);
            match serde_json::from_str::<Vec<Occurrence>>(&occurrences) {
                Ok(found) => {
                    hooks::deliver(&context.tmux(), &listeners, &found);
                }
                Err(error) => run::log_line(&format!("events not delivered: {error}")),
            }
            Ok(Reply::Nothing)
        }
    }
}

/// The `TAW_*` variables a hook may be given.
const VARIABLES: &[&str] = &[
    "TAW_EVENT",
    "TAW_SESSION",
    "TAW_SESSION_ID",
    "TAW_WORKSPACE_ID",
    "TAW_WINDOW",
    "TAW_TAB_ID",
    "TAW_PANE",
    "TAW_PANE_ID",
    "TAW_DIR",
    "TAW_AGENT",
    "TAW_STATE",
    "TAW_PREVIOUS_STATE",
    "TAW_KIND",
    "TAW_MESSAGE",
    "TAW_CLOSING",
    "TAW_WORKTREE",
    "TAW_SANDBOX",
    "TAW_RUNTIME",
    "TAW_MACHINE",
    "TAW_BIN_PATH",
    "TAW_TEST",
];

/// The ids of the sample: numbers no tmux server has given.
const SAMPLE_NUMBER: u32 = 999_999;
const SAMPLE_SESSION: &str = "taw-hooks-test";

fn sample_words() -> String {
    format!(
        "a sample that names nothing on any tmux server: pane %{n}, window @{n}, session ${n} called {SAMPLE_SESSION} (TAW_SESSION is ={SAMPLE_SESSION}:), with TAW_TEST=1; a hook should begin with [ -n \"$TAW_TEST\" ] && exit 0 when it acts on what it is told",
        n = SAMPLE_NUMBER
    )
}

#[derive(Debug, Serialize)]
struct HookEntry {
    name: &'static str,
    kind: &'static str,
    when: &'static str,
    commands: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Unknown {
    name: String,
    commands: Vec<String>,
}

fn list() -> Result<Reply> {
    let config = Config::load()?;
    let hooks: Vec<HookEntry> = crate::events::events()
        .chain(crate::events::vetoes())
        .map(|def| HookEntry {
            name: def.name,
            kind: if def.veto { "veto" } else { "event" },
            when: def.when,
            commands: hooks::hook_commands(&config, def.name),
        })
        .collect();
    let unknown: Vec<Unknown> = hooks::unknown_names(&config)
        .into_iter()
        .map(|(name, commands)| Unknown { name, commands })
        .collect();
    Ok(Reply::Result {
        kind: "hooks_list",
        fields: json!({
            "timeout_seconds": config.get(&schema::HOOKS_TIMEOUT_SECONDS),
            "veto_timeout_seconds": config.get(&schema::SESSIONS_HOOK_TIMEOUT_SECONDS),
            "log": run::log_path().display().to_string(),
            "variables": VARIABLES,
            "sample": sample_words(),
            "hooks": hooks,
            "unknown": unknown,
        }),
    })
}

fn log(lines: usize) -> Reply {
    let found = run::log_tail(lines);
    Reply::Result {
        kind: "hooks_log",
        fields: json!({
            "path": run::log_path().display().to_string(),
            "count": found.len(),
            "lines": found,
        }),
    }
}

fn test(
    context: &Context,
    event: &str,
    pane: Option<&str>,
    force: bool,
    machine: Option<&str>,
) -> Result<Reply> {
    let Some(event) = Event::from_name(event) else {
        return Err(TawError::invalid_argument(format!(
            "{event:?} is no event or veto taw knows; taw hooks list names them"
        )));
    };
    let (veto, name) = (event.def().veto, event.name());
    let going_away = event.def().going_away || veto;
    if pane.is_some() && going_away && !force {
        return Ok(Reply::Usage(format!(
            "taw hooks test: {name} is about something going away, and with --pane its hooks may close, remove or respawn that real pane; add --force to run them against it"
        )));
    }
    let config = Config::load()?;
    if let Some(refusal) = machine.and_then(|machine| machine_refusal(&config, event, machine)) {
        return Ok(Reply::Usage(refusal));
    }
    let (delivery, real_pane) = match pane {
        Some(text) => real_pane_delivery(context, event, text)?,
        None => (sample_delivery(context, event, machine), None),
    };
    let commands = hooks::hook_commands(&config, name);
    let (kind, limit_seconds, limit) = test_limit(&config, veto);
    let runs: Vec<HookRun> = commands
        .iter()
        .map(|command| run::run_command(command, &delivery, limit))
        .collect();
    let note = commands
        .is_empty()
        .then(|| format!("nothing in [hooks] of config.toml is hooked to {name}, so nothing ran"));
    let sample = match &real_pane {
        Some(pane) => {
            format!("the real pane {pane}: its ids, session, window and folder, with TAW_TEST=1")
        }
        None => sample_words(),
    };
    Ok(Reply::Result {
        kind: "hooks_test",
        fields: json!({
            "event": name,
            "kind": kind,
            "limit_seconds": limit_seconds,
            "count": commands.len(),
            "note": note,
            "sample": sample,
            "real_pane": real_pane,
            "env": delivery.taw_env,
            "input": input_of(&delivery),
            "hooks": runs,
        }),
    })
}

/// Why `--machine` cannot be used here, if it cannot.
fn machine_refusal(config: &Config, event: Event, machine: &str) -> Option<String> {
    if event != Event::Notification {
        return Some(format!(
            "taw hooks test: --machine is for the notification event only, not {event}"
        ));
    }
    let known = config
        .table(&schema::MACHINES)
        .iter()
        .any(|entry| entry.key == machine);
    (!known).then(|| format!("taw: no machine called {machine:?} in [machines] of config.toml"))
}

/// The delivery about a real pane: its ids, and the rest read from the
/// server; with the pane's tmux id for the answer.
fn real_pane_delivery(
    context: &Context,
    event: Event,
    text: &str,
) -> Result<(Delivery, Option<String>)> {
    let snapshot = context.snapshot()?;
    let found = super::named_pane(&snapshot, text)?;
    let mut occurrence = sample_occurrence(event, None)
        .session(Some(found.session))
        .window(Some(found.window))
        .pane(Some(found.id));
    // The sample's session name would hide the real one the snapshot has.
    occurrence.session_name = None;
    let environments =
        crate::tmux::environment::read_for_sessions(&context.tmux(), &[found.session]);
    let delivery = payload::build(&snapshot, &environments, &occurrence, true);
    Ok((delivery, Some(format!("%{}", found.id))))
}

/// The delivery of the sample, in tmux's global environment, or taw's own
/// when no server answers.
fn sample_delivery(context: &Context, event: Event, machine: Option<&str>) -> Delivery {
    let environments = context
        .tmux()
        .run_apart(vec![crate::tmux::commands::show_global_environment()])
        .ok()
        .map(|mut texts| Environments {
            global: crate::tmux::environment::parse_shell_environment(
                &texts.pop().unwrap_or_default(),
            ),
            ..Environments::default()
        })
        .unwrap_or_else(own_environment);
    payload::build(
        &Snapshot::default(),
        &environments,
        &sample_occurrence(event, machine),
        true,
    )
}

/// A veto's hooks run under the veto's limit, an event's under [hooks]':
/// the kind, the limit in seconds as configured, and the limit to run with.
fn test_limit(config: &Config, veto: bool) -> (&'static str, f64, run::Limit) {
    if veto {
        let seconds = config.get(&schema::SESSIONS_HOOK_TIMEOUT_SECONDS);
        (
            "veto",
            seconds,
            run::Limit::veto(crate::hooks::veto::veto_limit(config)),
        )
    } else {
        let seconds = config.get(&schema::HOOKS_TIMEOUT_SECONDS);
        ("event", seconds, run::Limit::event(seconds))
    }
}

fn input_of(delivery: &Delivery) -> Value {
    delivery.input()
}

/// With no tmux server to ask, a hook gets taw's own environment.
fn own_environment() -> Environments {
    Environments {
        global: std::env::vars()
            .map(|(name, value)| (name, crate::tmux::environment::EnvValue::Set(value)))
            .collect(),
        ..Environments::default()
    }
}

/// The sample occurrence of an event: the ids no server has, and the
/// facts its source would give.
fn sample_occurrence(event: Event, machine: Option<&str>) -> Occurrence {
    let n = SAMPLE_NUMBER;
    let mut occurrence = Occurrence::new(event)
        .session(Some(n))
        .window(Some(n))
        .pane(Some(n));
    occurrence.session_name = Some(if event.name().starts_with("worktree.") {
        format!("{SAMPLE_SESSION}--feat-x")
    } else {
        SAMPLE_SESSION.to_string()
    });
    let state = |event: Event| match event {
        Event::AgentBlocked => "blocked",
        Event::AgentWorking => "working",
        Event::AgentIdle => "idle",
        _ => "done",
    };
    match event {
        Event::PaneAgentStatusChanged
        | Event::AgentBlocked
        | Event::AgentWorking
        | Event::AgentIdle
        | Event::AgentDone => {
            occurrence = occurrence
                .data("agent", "claude")
                .data("agent_status", state(event))
                .var("TAW_AGENT", "claude")
                .var("TAW_STATE", state(event));
            if event.name().starts_with("agent.") {
                let previous = if event == Event::AgentWorking {
                    "idle"
                } else {
                    "working"
                };
                occurrence = occurrence
                    .data("previous_status", previous)
                    .var("TAW_PREVIOUS_STATE", previous);
            }
        }
        Event::PaneAgentDetected => occurrence = occurrence.data("agent", "claude"),
        Event::Notification => {
            let message = format!("Claude Code is done in {SAMPLE_SESSION}:1 (main)");
            occurrence = occurrence
                .data("kind", "done")
                .data("message", message.clone())
                .data("agent", "claude")
                .var("TAW_KIND", "done")
                .var("TAW_MESSAGE", message);
            if let Some(machine) = machine {
                occurrence = occurrence
                    .data("machine", machine)
                    .var("TAW_MACHINE", machine);
            }
        }
        Event::SandboxStarted | Event::SandboxStopped => {
            occurrence = occurrence
                .data(
                    "sandbox",
                    serde_json::json!({"profile": "default", "runtime": "docker"}),
                )
                .data("agent", "claude")
                .var("TAW_AGENT", "claude")
                .var("TAW_SANDBOX", "default")
                .var("TAW_RUNTIME", "docker");
        }
        Event::PreClose => occurrence = occurrence.var("TAW_CLOSING", "pane"),
        Event::PreWorktreeRemove
        | Event::WorktreeCreated
        | Event::WorktreeOpened
        | Event::WorktreeRemoved => {
            occurrence = occurrence.var("TAW_WORKTREE", "/tmp/taw-hooks-test--feat-x")
        }
        _ => {}
    }
    occurrence
}
