//! A notification by hand: a message on every attached client, and the
//! sound command.

use crate::config::Config;
use crate::envelope::{Result, TawError, answers};
use crate::notify::{self, Outcome, Sound};
use crate::tmux::Tmux;
use crate::tmux::snapshot::Snapshot;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Shown {
    pub shown: bool,
    pub reason: Outcome,
}

answers!(Shown => "notification_show");

/// Shows `title` (and `body`) on every attached client, herdr's way:
/// whitespace collapsed, the title at most 80 characters, the body 240.
pub(crate) fn show(
    tmux: &Tmux,
    snapshot: &Snapshot,
    config: &Config,
    title: &str,
    body: Option<&str>,
    sound: Sound,
) -> Result<Shown> {
    let title = crate::text::one_line(title, 80);
    if title.is_empty() {
        return Err(TawError::invalid_argument("the title is empty"));
    }
    let message = match body.map(|b| crate::text::one_line(b, 240)) {
        Some(body) if !body.is_empty() => format!("{title}: {body}"),
        _ => title,
    };
    let clients: Vec<String> = snapshot
        .clients
        .iter()
        .filter(|client| client.session.is_some())
        .map(|client| client.name.clone())
        .collect();
    let (outcome, playing) = notify::notify(
        tmux,
        config,
        &clients,
        &message,
        sound,
        notify::About::default(),
    );
    // taw ends with this verb: its sound command, if one plays, is let
    // finish (within its limit) first.
    if let Some(playing) = playing {
        playing.wait();
    }
    Ok(Shown {
        shown: outcome == Outcome::Shown,
        reason: outcome,
    })
}
