//! Agents: the panes that host one, seen as the agent. `start` types an
//! agent's command into a shell (through `typing`, which a restore's
//! resumes share); `drive` prompts it, sends it keys and waits for it,
//! never typing into a pane whose agent has gone.

pub(crate) mod drive;
pub(crate) mod start;
pub(crate) mod typing;

use super::names;
use super::navigate;
use crate::config::Config;
use crate::detect::explain::{self, Explain};
use crate::detect::foreground;
use crate::detect::region::Screen;
use crate::detect::registry::Registry;
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::model::{AgentInfo, AgentStatus, Records};
use crate::tmux::Tmux;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::tmux::snapshot::{Pane, Snapshot};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct AgentList {
    pub agents: Vec<AgentInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct AgentAnswer {
    pub agent: Option<AgentInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Explained {
    pub explain: Explain,
}

answers!(
    AgentList => "agent_list",
    AgentAnswer => "agent_info",
    Explained => "agent_explain",
);

pub(crate) fn list(snapshot: &Snapshot) -> AgentList {
    AgentList {
        agents: Records::new(snapshot).agents(),
    }
}

pub(crate) fn get(snapshot: &Snapshot, pane: &Pane) -> AgentAnswer {
    AgentAnswer {
        agent: Records::new(snapshot).agent(pane),
    }
}

/// The agent of pane `%pane` in a fresh read.
fn reread(tmux: &Tmux, pane: u32) -> Result<AgentAnswer> {
    let snapshot = Snapshot::read(tmux)?;
    let row = snapshot
        .pane(pane, None)
        .ok_or_else(|| TawError::not_found("the pane closed"))?;
    Ok(get(&snapshot, row))
}

/// Gives the agent of `pane` a name (unique among live agents), or with
/// `None` takes it off.
pub(crate) fn rename(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    name: Option<&str>,
) -> Result<AgentAnswer> {
    let mut writes = OptionWrites::default();
    match name {
        Some(name) => {
            names::check_agent_name(name)?;
            let taken = snapshot.unique_panes().into_iter().any(|other| {
                other.id != pane.id && !other.agent_kind.is_empty() && other.agent_name == name
            });
            if taken {
                return Err(TawError::invalid_argument(format!(
                    "another live agent is named {name}; choose another name"
                )));
            }
            writes.set(opt::AGENT_NAME, name);
        }
        None => {
            writes.unset(opt::AGENT_NAME);
        }
    }
    tmux_pane::write_options(tmux, pane.id, &writes)?;
    reread(tmux, pane.id)
}

/// herdr's `agent attach`: the agent's pane in front (a done agent seen),
/// and `client`, when there is one, moved onto it; with `takeover`, every
/// other client showing that session is detached. With no client (a
/// terminal outside tmux), the caller attaches one after.
pub(crate) fn attach(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    client: Option<&str>,
    takeover: bool,
) -> Result<()> {
    crate::ops::navigate::to_pane(tmux, snapshot, pane, client)?;
    if takeover {
        let others: Vec<crate::tmux::Cmd> = snapshot
            .clients
            .iter()
            .filter(|c| c.session == Some(pane.session) && Some(c.name.as_str()) != client)
            .map(|c| crate::tmux::commands::detach_client(&c.name))
            .collect();
        if !others.is_empty() {
            tmux.run(&crate::tmux::Batch::of(others))?;
        }
    }
    Ok(())
}

/// Shows the agent's pane on `client` (every other window of the session
/// stays as it is), and marks a done agent seen.
pub(crate) fn focus(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    client: Option<&str>,
) -> Result<AgentAnswer> {
    navigate::to_pane(tmux, snapshot, pane, client)?;
    reread(tmux, pane.id)
}

/// How the rules of `agent` read a saved screen.
pub(crate) fn explain_screen(
    config: &Config,
    agent: &str,
    text: &str,
    title: &str,
) -> Result<Explained> {
    let loaded = Registry::one(config, agent).ok_or_else(|| {
        TawError::not_found(format!(
            "no detection rules for agent {agent:?}; `taw manifest list` shows the agents that have them"
        ))
    })?;
    let screen = Screen::from_text(text, title);
    Ok(Explained {
        explain: explain::explain(&loaded, &screen),
    })
}

/// How the rules of a live agent read the screen it shows now.
pub(crate) fn explain_pane(
    tmux: &Tmux,
    snapshot: &Snapshot,
    config: &Config,
    pane: &Pane,
) -> Result<Explained> {
    if pane.agent_kind.is_empty() {
        let public = Records::new(snapshot).pane(pane).pane_id;
        return Err(TawError::new(
            ErrorCode::AgentNotFound,
            explain::no_agent(&public, pane.pid, foreground::read_job(pane.pid)),
        ));
    }
    let view = tmux_pane::look(tmux, pane.id)?;
    let loaded = Registry::one(config, &pane.agent_kind).ok_or_else(|| {
        TawError::not_found(format!(
            "agent {} has no screen rules; its own integration reports its state",
            pane.agent_kind
        ))
    })?;
    let screen = Screen::from_text(&view.screen, &view.title);
    let mut explained = explain::explain(&loaded, &screen);
    if let Some(agent) = Records::new(snapshot).agent(pane)
        && agent.screen_detection_skipped
    {
        explained.screen_detection_skipped = true;
        explained.screen_detection_skip_reason = Some("full_lifecycle_hook_authority");
        explained.state = AgentStatus::parse(&pane.reported_state).as_str();
    }
    Ok(Explained { explain: explained })
}
