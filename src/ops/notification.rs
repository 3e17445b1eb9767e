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

/// How long a desktop notification is waited on for its click.
const DESKTOP_WAIT: std::time::Duration = std::time::Duration::from_secs(15 * 60);

#[derive(Debug, Clone, Serialize)]
pub(crate) struct DesktopShown {
    /// The program that showed it: notify-send, terminal-notifier,
    /// osascript; none where there is none.
    pub by: Option<String>,
    /// Whether it was clicked, and so the pane brought in front.
    pub clicked: bool,
}

answers!(DesktopShown => "notification_desktop");

/// Shows `message` as a desktop notification and waits (15 minutes at
/// most) for its click, which brings `pane` in front of the client used
/// last. notify-send's `--wait` prints the action clicked; macOS's
/// osascript has no click to wait for, and terminal-notifier, when it is
/// installed, runs taw itself on a click. The message goes as an argument
/// (never through a shell).
pub(crate) fn desktop(tmux: &Tmux, message: &str, pane: Option<u32>) -> Result<DesktopShown> {
    use crate::exec::Program;
    let message = crate::text::one_line(message, 240);
    let title = "tmux-agent-wizard";
    if cfg!(target_os = "macos") {
        if which("terminal-notifier") {
            let mut args = vec![
                "-title".to_string(),
                title.to_string(),
                "-message".to_string(),
                message.clone(),
            ];
            if let (Some(pane), Ok(bin)) = (pane, std::env::current_exe()) {
                // terminal-notifier runs -execute with a shell: every word
                // is taw's own path and ids, each quoted.
                let words: Vec<String> = [bin.display().to_string()]
                    .into_iter()
                    .chain(tmux.socket_args())
                    .chain(["agent".into(), "focus".into(), format!("%{pane}")])
                    .collect();
                let line: Vec<String> = words
                    .iter()
                    .map(|w| crate::text::single_quoted(w))
                    .collect();
                args.extend(["-execute".to_string(), line.join(" ")]);
            }
            let shown = Program::new("terminal-notifier").args(&args).output();
            return Ok(DesktopShown {
                by: shown.is_ok().then(|| "terminal-notifier".to_string()),
                clicked: false,
            });
        }
        let shown = Program::new("osascript")
            .args([
                "-e",
                "on run argv",
                "-e",
                "display notification (item 2 of argv) with title (item 1 of argv)",
                "-e",
                "end run",
                title,
                &message,
            ])
            .output();
        return Ok(DesktopShown {
            by: shown.is_ok().then(|| "osascript".to_string()),
            clicked: false,
        });
    }
    if !which("notify-send") {
        return Ok(DesktopShown {
            by: None,
            clicked: false,
        });
    }
    let asked = Program::new("notify-send")
        .args([
            "--app-name=tmux-agent-wizard",
            "--action=default=Go there",
            "--wait",
            "--",
            title,
            &message,
        ])
        .limit(Some(DESKTOP_WAIT))
        .output();
    let clicked = match asked {
        Ok(output) if output.status.success() => {
            String::from_utf8_lossy(&output.stdout).trim() == "default"
        }
        // Shown, and nobody clicked it in time: not shown again.
        Err(crate::exec::Failure::TimedOut(_)) => false,
        // An older notify-send, without actions: the notification alone.
        _ => {
            let _ = Program::new("notify-send")
                .args(["--app-name=tmux-agent-wizard", "--", title, &message])
                .output();
            false
        }
    };
    if clicked && let Some(pane) = pane {
        let snapshot = Snapshot::read(tmux)?;
        if let Some(found) = snapshot.pane(pane, None) {
            let client = snapshot.last_client().map(|c| c.name.clone());
            crate::ops::navigate::to_pane(tmux, &snapshot, found, client.as_deref())?;
        }
    }
    Ok(DesktopShown {
        by: Some("notify-send".into()),
        clicked,
    })
}

/// Whether `program` is on PATH.
fn which(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            use std::os::unix::fs::PermissionsExt;
            dir.join(program)
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}
