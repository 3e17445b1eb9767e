//! `taw notification show`: a message on every attached client.
//! `taw notification open-target`: go to the agent that needs you next.

use super::{Context, envelope_id};
use crate::cli::agent::go_to;
use crate::envelope::{Reply, Result, TawError};
use crate::model::{AgentStatus, nextup};
use crate::notify::{self, Sound};
use crate::tmux::Tmux;
use crate::tmux::snapshot::Snapshot;
use clap::{Subcommand, ValueEnum};
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Show a message on the status line of every attached client.
    Show {
        /// The message's title, at most 80 characters.
        title: String,
        /// More words after the title, at most 240 characters.
        #[arg(long)]
        body: Option<String>,
        /// herdr's toast corner; tmux shows messages on the status line.
        #[arg(long, value_enum)]
        position: Option<Position>,
        /// Run the sound command (@agent-wizard-sound-command) as for this kind.
        #[arg(long, value_enum, default_value = "none")]
        sound: SoundArg,
    },
    /// Go to the next agent that needs you (blocked or done) after the pane
    /// in front, else to the next agent of any kind.
    OpenTarget {
        /// The client to move (the key binding passes its own); default:
        /// the client used last.
        #[arg(long, hide = true)]
        client: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Position {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SoundArg {
    None,
    Done,
    Request,
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::Show {
            title, body, sound, ..
        } => (
            envelope_id("notification", "show"),
            show(context, &title, body.as_deref(), sound),
        ),
        Verb::OpenTarget { client } => (
            envelope_id("notification", "open-target"),
            open_target(context, client.as_deref()),
        ),
    }
}

fn open_target(context: &Context, client: Option<&str>) -> Result<Reply> {
    let (id, group) = go_next_up(&context.tmux(), client)?;
    Ok(Reply::result(
        "ok",
        json!({ "pane_id": format!("%{id}"), "target": group.as_str() }),
    ))
}

/// Moves `client` (else the client used last) to the agent "next up"
/// after its pane; the pane and the group it came from.
pub fn go_next_up(tmux: &Tmux, client: Option<&str>) -> Result<(u32, nextup::Group)> {
    let snapshot = Snapshot::read(tmux)?;
    let client = match client {
        Some(name) => Some(
            snapshot
                .clients
                .iter()
                .find(|c| c.name == name && c.session.is_some())
                .ok_or_else(|| TawError::not_found(format!("no attached client {name:?}")))?,
        ),
        None => snapshot.last_client(),
    };
    let current = client
        .and_then(|c| snapshot.client_pane(c))
        .map(|pane| pane.id);
    let panes: Vec<(u32, Option<AgentStatus>)> = snapshot
        .unique_panes()
        .into_iter()
        .map(|pane| {
            let state =
                (!pane.agent_kind.is_empty()).then(|| AgentStatus::parse(&pane.agent_state));
            (pane.id, state)
        })
        .collect();
    let (id, group) = nextup::next_up(&panes, current).ok_or_else(|| {
        TawError::not_found("no pane holds an agent; `taw agent list` shows the agents")
    })?;
    let pane = snapshot
        .pane(id, None)
        .ok_or_else(|| TawError::not_found("the pane closed"))?;
    tmux.run(&go_to(pane, client.map(|c| c.name.as_str())))?;
    Ok((id, group))
}

fn show(context: &Context, title: &str, body: Option<&str>, sound: SoundArg) -> Result<Reply> {
    let title = notify::one_line(title, 80);
    if title.is_empty() {
        return Err(TawError::invalid_argument("the title is empty"));
    }
    let message = match body.map(|b| notify::one_line(b, 240)) {
        Some(body) if !body.is_empty() => format!("{title}: {body}"),
        _ => title,
    };
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let clients: Vec<String> = snapshot
        .clients
        .iter()
        .filter(|client| client.session.is_some())
        .map(|client| client.name.clone())
        .collect();
    let sound = match sound {
        SoundArg::None => Sound::None,
        SoundArg::Done => Sound::Done,
        SoundArg::Request => Sound::Request,
    };
    let config = crate::config::Config::load()?;
    let outcome = notify::notify(
        &tmux,
        &config,
        &clients,
        &message,
        sound,
        notify::About::default(),
    );
    Ok(Reply::result(
        "notification_show",
        json!({ "shown": outcome == notify::Outcome::Shown, "reason": outcome }),
    ))
}
