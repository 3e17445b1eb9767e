//! `taw agent`: the agents in panes.

use super::{Context, envelope_id};
use crate::config::Config;
use crate::detect::explain;
use crate::detect::region::Screen;
use crate::detect::registry::Registry;
use crate::envelope::{Reply, Result, TawError};
use clap::{Args, Subcommand};
use serde_json::json;
use std::io::Read;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Which state a screen reads as, the rule that decided, and every rule tried.
    Explain(ExplainArgs),
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
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

pub fn run(_context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::Explain(args) => (envelope_id("agent", "explain"), explain_verb(args)),
    }
}

fn explain_verb(args: ExplainArgs) -> Result<Reply> {
    let Some(file) = args.file else {
        return Err(TawError::invalid_argument(
            "name a saved screen with --file PATH (or - for standard input) and its agent with --agent",
        ));
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
