//! `taw notification show`: a message on every attached client.

use super::{Context, envelope_id};
use crate::envelope::{Reply, Result, TawError};
use crate::notify::{self, Sound};
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
    }
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
