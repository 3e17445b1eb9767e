//! `taw agent`: the agents in panes.

use super::pane::ReadFlags;
use super::{Context, pane_number};
use crate::config::Config;
use crate::detect::explain;
use crate::envelope::{Reply, Result, TawError};
use crate::model::AgentStatus;
use crate::ops::agent::drive::{self, Prompt, Waited};
use crate::ops::agent::start::{self, Start};
use crate::ops::agent::{self as op};
use crate::tmux::keys;
use clap::{Args, Subcommand, ValueEnum};
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
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
    /// This terminal onto the agent's pane: inside tmux this client goes
    /// there; outside, tmux attaches here. Prints nothing.
    Attach {
        target: String,
        /// Detach every other client showing that session.
        #[arg(long)]
        takeover: bool,
    },
    /// Type an agent's command into a pane's shell, and wait until it runs.
    Start(StartArgs),
    /// Send an agent a prompt (and with --wait, wait for its turn to end).
    Prompt(PromptArgs),
    /// Wait until an agent is in one of some states.
    Wait(WaitArgs),
    /// Send an agent keys (herdr's names), checked first and guarded.
    SendKeys {
        target: String,
        #[arg(required = true)]
        keys: Vec<String>,
    },
    /// Print an agent's screen.
    Read(ReadArgs),
    /// Which state a screen reads as, the rule that decided, and every rule tried.
    Explain(ExplainArgs),
}

#[derive(Debug, Args)]
pub(crate) struct StartArgs {
    /// The agent's name: a-z first, then up to 31 of a-z 0-9 _ -.
    pub name: String,
    /// Which agent: claude, codex, gemini, opencode, pi...
    #[arg(long)]
    pub kind: String,
    /// The pane whose shell runs it.
    #[arg(long)]
    pub pane: String,
    /// One budget for the whole verb, in milliseconds (default 30000, 300000 with --sandbox; more than 3000, at most 300000).
    #[arg(long)]
    pub timeout: Option<u64>,
    /// Run it in a container: types `taw sandbox <kind>` into the pane.
    #[arg(long)]
    pub sandbox: bool,
    /// The sandbox profile (default: [sandbox.agents], else default).
    #[arg(long, requires = "sandbox")]
    pub profile: Option<String>,
    /// Arguments for the agent.
    #[arg(last = true)]
    pub args: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct PromptArgs {
    /// The agent: its name or its pane's id.
    pub target: String,
    /// The prompt (more words after it are joined to it with spaces).
    #[arg(allow_hyphen_values = true)]
    pub text: String,
    /// More words of the prompt, joined to it with spaces.
    #[arg(hide = true)]
    pub more: Vec<String>,
    /// Wait for the turn to end.
    #[arg(long)]
    pub wait: bool,
    /// The states that end the wait (default idle, done, blocked).
    #[arg(long, requires = "wait", value_enum)]
    pub until: Vec<UntilState>,
    /// One budget, in milliseconds, for the send and the wait.
    #[arg(long)]
    pub timeout: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum UntilState {
    Idle,
    Working,
    Blocked,
    Done,
    Unknown,
}

impl UntilState {
    fn status(self) -> AgentStatus {
        match self {
            UntilState::Idle => AgentStatus::Idle,
            UntilState::Working => AgentStatus::Working,
            UntilState::Blocked => AgentStatus::Blocked,
            UntilState::Done => AgentStatus::Done,
            UntilState::Unknown => AgentStatus::Unknown,
        }
    }
}

fn statuses(until: &[UntilState]) -> Vec<AgentStatus> {
    until.iter().map(|u| u.status()).collect()
}

#[derive(Debug, Args)]
pub(crate) struct WaitArgs {
    pub target: String,
    /// A state that ends the wait (again for more; default idle, done,
    /// blocked). `--status` is herdr's older spelling.
    #[arg(long, value_enum, alias = "status")]
    pub until: Vec<UntilState>,
    #[arg(long)]
    pub timeout: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    pub target: String,
    #[command(flatten)]
    pub read: ReadFlags,
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
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
    /// Answer with the explanation as JSON (herdr's explain object).
    #[arg(long, overrides_with = "format")]
    json: bool,
    /// text (the default) or json.
    #[arg(long, value_enum, overrides_with = "json")]
    format: Option<ExplainFormat>,
    /// Show what each rule found.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ExplainFormat {
    Text,
    Json,
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    answer(context, verb)
}

fn millis(ms: Option<u64>) -> Option<Duration> {
    ms.map(Duration::from_millis)
}

/// A wait's answer: the agent's record under `kind`, or herdr's released
/// answer for an agent that left in a state the wait was for.
fn waited(kind: &'static str, waited: Waited) -> Reply {
    match waited {
        Waited::Reached(agent) => Reply::result(kind, drive::Reached { agent: *agent }),
        Waited::Released(state) => Reply::result(
            "agent",
            drive::ReleasedAnswer {
                agent: None,
                final_status: state,
                released: true,
            },
        ),
    }
}

fn answer(context: &Context, verb: Verb) -> Result<Reply> {
    let tmux = context.tmux();
    match verb {
        Verb::List => Ok(Reply::of(op::list(&context.snapshot()?))),
        Verb::Get { target } => {
            let snapshot = context.snapshot()?;
            Ok(Reply::of(op::get(
                &snapshot,
                super::named_agent(&snapshot, &target)?,
            )))
        }
        Verb::Rename {
            target,
            name,
            clear,
        } => {
            let snapshot = context.snapshot()?;
            let pane = super::named_agent(&snapshot, &target)?;
            let name = if clear { None } else { name };
            Ok(Reply::of(op::rename(
                &tmux,
                &snapshot,
                pane,
                name.as_deref(),
            )?))
        }
        Verb::Focus { target } => {
            let snapshot = context.snapshot()?;
            let pane = super::named_agent(&snapshot, &target)?;
            let client = snapshot.last_client().map(|c| c.name.as_str());
            Ok(Reply::of(op::focus(&tmux, &snapshot, pane, client)?))
        }
        // A person's verb: `attach_for_a_person` answers it.
        Verb::Attach { .. } => Err(TawError::invalid_argument(
            "taw agent attach is for a terminal",
        )),
        Verb::Start(args) => {
            let start = Start {
                pane: pane_number(context, &args.pane)?,
                name: args.name,
                kind: args.kind,
                timeout: args.timeout,
                args: args.args,
                sandbox: args.sandbox.then_some(args.profile),
            };
            Ok(Reply::of(start::start(&tmux, start)?))
        }
        Verb::Prompt(args) => {
            let prompt = Prompt {
                text: super::joined(args.text, args.more),
                wait: args.wait.then(|| statuses(&args.until)),
                timeout: millis(args.timeout),
            };
            Ok(match drive::prompt(&tmux, &args.target, prompt)? {
                (sent, None) => Reply::of(sent),
                (_, Some(outcome)) => waited("agent", outcome),
            })
        }
        Verb::Wait(args) => {
            let outcome = drive::wait(
                &tmux,
                &args.target,
                statuses(&args.until),
                millis(args.timeout),
            )?;
            Ok(waited("agent_info", outcome))
        }
        Verb::SendKeys { target, keys } => {
            let keys = keys::all_to_tmux(&keys)?;
            Ok(Reply::of(drive::send_keys(&tmux, &target, &keys)?))
        }
        Verb::Read(args) => {
            let spec = args.read.spec(false);
            Ok(Reply::Text(drive::read(&tmux, &args.target, spec)?.text))
        }
        Verb::Explain(args) => explain_verb(context, args),
    }
}

fn explain_verb(context: &Context, args: ExplainArgs) -> Result<Reply> {
    let json = args.json || args.format == Some(ExplainFormat::Json);
    let config = Config::load()?;
    let explained = match &args.file {
        Some(file) => {
            let Some(agent) = &args.agent else {
                return Err(TawError::invalid_argument(
                    "--file needs --agent: the agent whose rules read the screen",
                ));
            };
            op::explain_screen(&config, agent, &read_screen(file)?, &args.title)?
        }
        None => {
            let snapshot = context.snapshot()?;
            let target = args.target.as_deref().unwrap_or("");
            // A pane id is explained even with no agent in it: the answer
            // then says what is in front and why it is no agent.
            let pane = match super::named_pane(&snapshot, target) {
                Ok(pane) => pane,
                Err(_) => super::named_agent(&snapshot, target)?,
            };
            match op::explain_pane(&context.tmux(), &snapshot, &config, pane) {
                Err(error) if !json && error.code == crate::envelope::ErrorCode::AgentNotFound => {
                    return Ok(Reply::FailedText(error.message));
                }
                other => other?,
            }
        }
    };
    if json {
        // herdr prints the explanation itself, not its envelope.
        // (A record of plain fields: its serialization cannot fail.)
        Ok(Reply::Text(
            serde_json::to_string(&explained.explain).unwrap_or_default(),
        ))
    } else {
        Ok(Reply::Text(explain::describe(
            &explained.explain,
            args.verbose,
        )))
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

/// `taw agent attach <target> [--takeover]`, herdr's interactive attach:
/// inside tmux this terminal's client goes to the agent's pane; outside,
/// this terminal becomes a tmux client there. A done agent is seen. Prints
/// nothing when it works; a failure is one line on stderr, `taw agent
/// attach: <why>`, exit 1 (2 for no terminal to attach).
pub(crate) fn attach_for_a_person(context: &Context, target: &str, takeover: bool) -> i32 {
    use std::io::IsTerminal;
    let fail = |error: TawError, status: i32| {
        eprintln!("taw agent attach: {}", error.message);
        status
    };
    let tmux = context.tmux();
    let snapshot = match context.snapshot() {
        Ok(snapshot) => snapshot,
        Err(error) => return fail(error, 1),
    };
    let pane = match super::named_agent(&snapshot, target) {
        Ok(pane) => pane,
        Err(error) => return fail(error, 1),
    };
    let here = super::terminal_client(&snapshot);
    if here.is_none() && !std::io::stdin().is_terminal() {
        return fail(
            TawError::invalid_argument("this is not a terminal to attach"),
            2,
        );
    }
    match op::attach(&tmux, &snapshot, pane, here, takeover) {
        Ok(()) if here.is_some() => crate::envelope::EXIT_OK,
        // Outside tmux: this process becomes the tmux client.
        Ok(()) => fail(tmux.attach_pane(pane.id, takeover), 1),
        Err(error) => fail(error, 1),
    }
}
