//! `taw agent`: the agents in panes.

pub mod drive;
pub mod start;

use super::{Context, envelope_id, with_records};
use crate::config::Config;
use crate::detect::explain;
use crate::detect::region::Screen;
use crate::detect::registry::Registry;
use crate::envelope::{Reply, Result, TawError};
use crate::model::{AgentStatus, Records, resolve};
use crate::tmux::Batch;
use crate::tmux::commands as cmd;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::tmux::snapshot::{Pane, Snapshot};
use clap::{Args, Subcommand};
use serde_json::json;
use std::io::Read;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Every pane that hosts an agent.
    List,
    /// One agent's record.
    Get {
        /// The agent's name or its pane's id.
        target: String,
    },
    /// Give an agent a name (unique among live agents), or clear it.
    Rename {
        target: String,
        /// a-z first, then up to 31 of a-z 0-9 _ -.
        #[arg(required_unless_present = "clear")]
        name: Option<String>,
        #[arg(long, conflicts_with = "name")]
        clear: bool,
    },
    /// Show the agent's pane on the client used last (and mark it seen).
    Focus { target: String },
    /// Type an agent's command into a pane's shell, and wait until it runs.
    Start(start::StartArgs),
    /// Send an agent a prompt (and with --wait, wait for its turn to end).
    Prompt(drive::PromptArgs),
    /// Wait until an agent is in one of some states.
    Wait(drive::WaitArgs),
    /// Send an agent keys (herdr's names), checked first and guarded.
    SendKeys {
        target: String,
        #[arg(required = true)]
        keys: Vec<String>,
    },
    /// Print an agent's screen.
    Read(drive::ReadArgs),
    /// Which state a screen reads as, the rule that decided, and every rule tried.
    Explain(ExplainArgs),
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The agent (its name or pane id) whose screen to explain.
    #[arg(conflicts_with = "file", required_unless_present = "file")]
    target: Option<String>,
    /// A saved screen to classify (- for standard input), instead of a pane.
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// The agent whose rules read the screen (with --file).
    #[arg(long, requires = "file")]
    agent: Option<String>,
    /// The pane title that went with the screen (with --file).
    #[arg(long, requires = "file", default_value = "")]
    title: String,
    /// Answer with the JSON envelope.
    #[arg(long)]
    json: bool,
    /// Show what each rule found.
    #[arg(long)]
    verbose: bool,
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::List => (envelope_id("agent", "list"), list(context)),
        Verb::Get { target } => (envelope_id("agent", "get"), get(context, &target)),
        Verb::Rename {
            target,
            name,
            clear,
        } => (
            envelope_id("agent", "rename"),
            rename(context, &target, if clear { None } else { name }),
        ),
        Verb::Focus { target } => (envelope_id("agent", "focus"), focus(context, &target)),
        Verb::Start(args) => (envelope_id("agent", "start"), start::start(context, args)),
        Verb::Prompt(args) => (envelope_id("agent", "prompt"), drive::prompt(context, args)),
        Verb::Wait(args) => (envelope_id("agent", "wait"), drive::wait(context, args)),
        Verb::SendKeys { target, keys } => (
            envelope_id("agent", "send-keys"),
            drive::send_keys(context, &target, &keys),
        ),
        Verb::Read(args) => (envelope_id("agent", "read"), drive::read(context, args)),
        Verb::Explain(args) => (envelope_id("agent", "explain"), explain_verb(context, args)),
    }
}

fn list(context: &Context) -> Result<Reply> {
    with_records(context, |records| {
        Ok(Reply::result(
            "agent_list",
            json!({ "agents": records.agents() }),
        ))
    })
}

fn agent_info(context: &Context, target: &str) -> Result<Reply> {
    with_records(context, |records| {
        let pane = resolve::agent(records.snapshot(), target)?;
        Ok(Reply::result(
            "agent_info",
            json!({ "agent": records.agent(pane) }),
        ))
    })
}

fn get(context: &Context, target: &str) -> Result<Reply> {
    agent_info(context, target)
}

fn rename(context: &Context, target: &str, name: Option<String>) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = resolve::agent(&snapshot, target)?;
    let mut writes = OptionWrites::default();
    match &name {
        Some(name) => {
            resolve::check_agent_name(name)?;
            let taken = snapshot.unique_panes().into_iter().any(|other| {
                other.id != pane.id && !other.agent_kind.is_empty() && other.agent_name == *name
            });
            if taken {
                return Err(TawError::invalid_argument(format!(
                    "another live agent is named {name}; choose another name"
                )));
            }
            writes.set(opt::AGENT_NAME, name.as_str());
        }
        None => {
            writes.unset(opt::AGENT_NAME);
        }
    }
    let id = format!("%{}", pane.id);
    tmux_pane::write_options(&tmux, pane.id, &writes)?;
    agent_info(context, &id)
}

/// Shows the agent's pane on the client used last (every window of the
/// session otherwise stays as it is), and marks a done agent seen.
fn focus(context: &Context, target: &str) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = resolve::agent(&snapshot, target)?;
    let id = format!("%{}", pane.id);
    let client = snapshot.last_client().map(|client| client.name.as_str());
    tmux.run(&go_to(pane, client))?;
    agent_info(context, &id)
}

/// Brings `pane` in front: its window, itself, and the client onto it; a
/// done agent there is seen (idle).
pub fn go_to(pane: &Pane, client: Option<&str>) -> Batch {
    let id = format!("%{}", pane.id);
    let mut batch = Batch::new();
    batch.push(cmd::select_window(&id));
    batch.push(cmd::select_pane(&id));
    if let Some(client) = client {
        batch.push(cmd::switch_client(client, &id));
    }
    if pane.agent_state == "done" {
        let mut writes = OptionWrites::default();
        writes.set(opt::AGENT_STATE, "idle");
        batch.extend(writes.commands(pane.id));
    }
    batch
}

fn explain_verb(context: &Context, args: ExplainArgs) -> Result<Reply> {
    let Some(file) = args.file else {
        return explain_pane(
            context,
            args.target.as_deref().unwrap_or(""),
            args.json,
            args.verbose,
        );
    };
    let Some(agent) = args.agent else {
        return Err(TawError::invalid_argument(
            "--file needs --agent: the agent whose rules read the screen",
        ));
    };
    let text = read_screen(&file)?;
    let config = Config::load()?;
    let registry = Registry::from_config(&config);
    let loaded = registry.get(&agent).ok_or_else(|| {
        TawError::not_found(format!(
            "no detection rules for agent {agent:?}; `taw manifest list` shows the agents that have them"
        ))
    })?;
    let screen = Screen::from_text(&text, &args.title);
    let explained = explain::explain(loaded, &screen);
    if args.json {
        Ok(Reply::result(
            "agent_explain",
            json!({ "explain": explained }),
        ))
    } else {
        Ok(Reply::Text(explain::describe(&explained, args.verbose)))
    }
}

/// Explains the screen a live agent shows now.
fn explain_pane(context: &Context, target: &str, json_out: bool, verbose: bool) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = resolve::agent(&snapshot, target)?;
    let view = tmux_pane::look(&tmux, pane.id)?;
    let config = Config::load()?;
    let registry = Registry::from_config(&config);
    let loaded = registry.get(&pane.agent_kind).ok_or_else(|| {
        TawError::not_found(format!(
            "agent {} has no screen rules; its own integration reports its state",
            pane.agent_kind
        ))
    })?;
    let screen = Screen::from_text(&view.screen, &view.title);
    let mut explained = explain::explain(loaded, &screen);
    if let Some(agent) = Records::new(&snapshot).agent(pane)
        && agent.screen_detection_skipped
    {
        explained.screen_detection_skipped = true;
        explained.screen_detection_skip_reason = Some("full_lifecycle_hook_authority");
        explained.state = AgentStatus::parse(&pane.reported_state).as_str();
    }
    if json_out {
        Ok(Reply::result(
            "agent_explain",
            json!({ "explain": explained }),
        ))
    } else {
        Ok(Reply::Text(explain::describe(&explained, verbose)))
    }
}

fn read_screen(file: &PathBuf) -> Result<String> {
    if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            TawError::io(format!("cannot read the screen from standard input: {e}"))
        })?;
        return Ok(text);
    }
    let bytes = std::fs::read(file).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            TawError::not_found(format!("no screen at {}: {e}", file.display()))
        } else {
            TawError::io(format!("cannot read {}: {e}", file.display()))
        }
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
