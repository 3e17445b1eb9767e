//! `taw notification show`: a message on every attached client.
//! `taw notification open-target`: go to the agent that needs you next.

use super::Context;
use crate::envelope::{Reply, Result};
use crate::notify::Sound;
use crate::ops::{navigate, notification};
use clap::{Subcommand, ValueEnum};

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
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
    /// A desktop notification (what @agent-wizard-desktop gives each toast),
    /// and, when it is clicked, the pane brought in front.
    #[command(hide = true)]
    Desktop {
        /// The pane a click goes to.
        #[arg(long)]
        pane: Option<String>,
        message: String,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Position {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum SoundArg {
    None,
    Done,
    Request,
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Show {
            title, body, sound, ..
        } => show(context, &title, body.as_deref(), sound),
        Verb::Desktop { pane, message } => desktop(context, pane.as_deref(), &message),
        Verb::OpenTarget { client } => context
            .snapshot()
            .and_then(|snapshot| navigate::next_up(&context.tmux(), &snapshot, client.as_deref()))
            .map(Reply::of),
    }
}

fn show(context: &Context, title: &str, body: Option<&str>, sound: SoundArg) -> Result<Reply> {
    let sound = match sound {
        SoundArg::None => Sound::None,
        SoundArg::Done => Sound::Done,
        SoundArg::Request => Sound::Request,
    };
    let config = crate::config::Config::load()?;
    let snapshot = context.snapshot()?;
    Ok(Reply::of(notification::show(
        &context.tmux(),
        &snapshot,
        &config,
        title,
        body,
        sound,
    )?))
}

fn desktop(context: &Context, pane: Option<&str>, message: &str) -> Result<Reply> {
    let pane = match pane {
        Some(target) => Some(super::pane_number(context, target)?),
        None => None,
    };
    Ok(Reply::of(notification::desktop(
        &context.tmux(),
        message,
        pane,
    )?))
}
