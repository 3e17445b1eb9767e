//! herdr's `popup.close`: the popup over a client closed (taw's own
//! popup, a plugin's overlay or popup). tmux says nothing of whether a
//! client has a popup, so the answer is the clients it was closed on.

use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Tmux, commands as cmd};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PopupClosed {
    /// The clients whose popup, if one was open, is closed.
    pub clients: Vec<String>,
}

answers!(PopupClosed => "ok");

/// Closes the popup on `client`, else on `caller` (the client of the pane
/// the verb was typed in), else on every attached client. No client at
/// all: `popup_not_open`.
pub(crate) fn close(
    tmux: &Tmux,
    snapshot: &Snapshot,
    client: Option<&str>,
    caller: Option<&str>,
) -> Result<PopupClosed> {
    let clients: Vec<String> = match client.or(caller) {
        Some(name) => {
            if !snapshot.clients.iter().any(|c| c.name == name) {
                return Err(TawError::not_found(format!(
                    "no client {name} is attached to this tmux server"
                )));
            }
            vec![name.to_string()]
        }
        None => snapshot
            .clients
            .iter()
            .filter(|c| c.session.is_some())
            .map(|c| c.name.clone())
            .collect(),
    };
    if clients.is_empty() {
        return Err(TawError::new(
            ErrorCode::PopupNotOpen,
            "no client is attached, so no popup is open",
        ));
    }
    tmux.run(&Batch::of(
        clients.iter().map(|name| cmd::close_popup(name)).collect(),
    ))?;
    Ok(PopupClosed { clients })
}
