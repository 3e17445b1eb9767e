//! `taw ui` (the popup itself, run inside a tmux popup) and `taw ui open`
//! (opens it over a client).

use super::{Context, envelope_id};
use crate::envelope::{Reply, Result, TawError};
use crate::setup::table::Callback;
use crate::tmux::commands::{self as cmd, ShellWord};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Cmd, Tmux};
use clap::{Args, Subcommand};
use serde_json::json;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct UiArgs {
    #[command(subcommand)]
    pub verb: Option<Verb>,
    /// Start with the new-session picker open (Esc there closes the popup).
    #[arg(long)]
    pub new_session: bool,
    /// The client the popup is on (taw ui open passes it).
    #[arg(long, hide = true)]
    pub client: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Open the popup over the client used last.
    Open {
        /// Start with the new-session picker open.
        #[arg(long)]
        new_session: bool,
        /// The client to open it on (the key binding passes its own).
        #[arg(long, hide = true)]
        client: Option<String>,
    },
}

pub fn run(context: &Context, args: UiArgs) -> (String, Result<Reply>) {
    match args.verb {
        Some(Verb::Open {
            new_session,
            client,
        }) => (
            envelope_id("ui", "open"),
            open(context, client.as_deref(), new_session),
        ),
        None => (
            "cli:ui".into(),
            crate::ui::run(
                context.tmux(),
                crate::ui::Launch {
                    client: args.client,
                    new_session: args.new_session,
                },
            )
            .map(|_| Reply::Nothing),
        ),
    }
}

/// The popup's size on a client: a percentage of its width or height
/// (`80%`), or a number of cells, from the plugin options.
fn size(spec: &str, whole: u32, default_percent: u32) -> u32 {
    let spec = spec.trim();
    let cells = match spec.strip_suffix('%').map(str::parse::<u32>) {
        Some(Ok(percent)) => whole * percent.min(100) / 100,
        _ => match spec.parse::<u32>() {
            Ok(cells) => cells,
            Err(_) => whole * default_percent / 100,
        },
    };
    cells.clamp(10.min(whole), whole)
}

/// tmux 3.3 and later draw a popup without a border (`-B`).
fn frameless(version: &str) -> bool {
    let digits: String = version
        .trim_start_matches("next-")
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = digits.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= (3, 3)
}

/// The geometry of the popup on a client of `width` x `height`: centred.
/// tmux takes `-y` as the line below the popup.
pub fn geometry(width: u32, height: u32, w_spec: &str, h_spec: &str) -> (u32, u32, u32, u32) {
    let w = size(w_spec, width, 90);
    let h = size(h_spec, height, 85);
    let x = (width - w) / 2;
    let top = (height - h) / 2;
    (x, top + h, w, h)
}

fn open(context: &Context, client: Option<&str>, new_session: bool) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let client = match client {
        Some(name) => snapshot
            .clients
            .iter()
            .find(|c| c.name == name && c.session.is_some())
            .map(|c| c.name.clone()),
        None => snapshot.last_client().map(|c| c.name.clone()),
    }
    .ok_or_else(|| TawError::tmux("no attached client to open the popup on"))?;
    let (x, y, w, h) = client_geometry(&tmux, &client)?;
    let bin = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "taw".into());
    let mut args = vec![
        ShellWord::Literal("ui".into()),
        ShellWord::Literal("--client".into()),
        ShellWord::Literal(client.clone()),
    ];
    if new_session {
        args.push(ShellWord::Literal("--new-session".into()));
    }
    // display-popup runs its command as it is: no format is expanded there.
    let line = cmd::plain_shell_line(
        &Callback::current(bin).words_for(&snapshot.server.socket_path, &args),
    );
    let mut popup = Cmd::new("display-popup").args([
        "-c",
        &client,
        "-E",
        "-x",
        &x.to_string(),
        "-y",
        &y.to_string(),
        "-w",
        &w.to_string(),
        "-h",
        &h.to_string(),
    ]);
    if frameless(&snapshot.server.version) {
        popup = popup.args(["-B"]);
    }
    popup = popup.args([line.as_str()]);
    tmux.run_popup(popup)?;
    Ok(Reply::result(
        "ui_open",
        json!({ "x": x, "y": y, "w": w, "h": h }),
    ))
}

fn client_geometry(tmux: &Tmux, client: &str) -> Result<(u32, u32, u32, u32)> {
    let format = format!(
        "#{{client_width}} #{{client_height}} #{{{}}} #{{{}}}",
        crate::tmux::options::POPUP_WIDTH,
        crate::tmux::options::POPUP_HEIGHT
    );
    let output =
        tmux.run_one(Cmd::new("display-message").args(["-c", client, "-p", "--", &format]))?;
    let mut words = output.split_whitespace();
    let width: u32 = words.next().and_then(|w| w.parse().ok()).unwrap_or(80);
    let height: u32 = words.next().and_then(|w| w.parse().ok()).unwrap_or(24);
    let w_spec = words.next().unwrap_or("");
    let h_spec = words.next().unwrap_or("");
    Ok(geometry(width, height, w_spec, h_spec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_is_centred_and_bounded() {
        assert_eq!(geometry(200, 50, "90%", "80%"), (10, 45, 180, 40));
        assert_eq!(geometry(100, 30, "", ""), (5, 27, 90, 25));
        assert_eq!(geometry(100, 30, "100%", "100%"), (0, 30, 100, 30));
        assert_eq!(geometry(100, 30, "60", "20"), (20, 25, 60, 20));
        assert_eq!(geometry(100, 30, "500", "bad"), (0, 27, 100, 25));
    }

    #[test]
    fn frameless_from_3_3() {
        assert!(frameless("3.3a"));
        assert!(frameless("3.5"));
        assert!(frameless("next-3.6"));
        assert!(!frameless("3.2a"));
    }
}
