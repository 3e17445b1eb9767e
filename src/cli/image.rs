//! `taw image paste` and `taw image receive`: the clipboard's PNG into an
//! agent's pane, here or on another machine.

use super::{Context, pane_number};
use crate::config::Config;
use crate::envelope::{ErrorCode, Reply, Result, TawError};
use crate::machine;
use crate::model::Records;
use crate::ops::image::{self as op, ImagePasted};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Paste the clipboard's image into a pane, here or on --machine.
    Paste {
        /// The pane (its id on that machine with --machine).
        #[arg(long)]
        pane: String,
        /// A machine of [machines]: the image goes there over ssh.
        #[arg(long, value_name = "NAME")]
        machine: Option<String>,
        /// The client to tell of a failure (the popup's).
        #[arg(long, hide = true)]
        client: Option<String>,
        /// The popup that asked: a failure is told once it has gone.
        #[arg(long, hide = true)]
        after_pid: Option<u32>,
    },
    /// Keep a PNG of exactly --bytes bytes from standard input under
    /// <state>/images/ and paste its path into the pane.
    Receive {
        #[arg(long)]
        pane: String,
        #[arg(long)]
        bytes: u64,
    },
}

/// How long a paste's failure waits for the popup that asked to go: one
/// kept open gets the word after that, beneath it.
const POPUP_GOES_WITHIN: std::time::Duration = std::time::Duration::from_secs(3);

/// Waits until process `pid` has ended, at most `limit`. No one tells of
/// another process's end: it is looked at every 50 ms.
fn wait_until_gone(pid: u32, limit: std::time::Duration) {
    let start = std::time::Instant::now();
    let there = || {
        rustix::process::Pid::from_raw(pid as i32)
            .is_some_and(|pid| rustix::process::test_kill_process(pid).is_ok())
    };
    while there() && start.elapsed() < limit {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Paste {
            pane,
            machine,
            client,
            after_pid,
        } => {
            let answer = paste(context, &pane, machine.as_deref());
            if let (Err(error), Some(client)) = (&answer, client) {
                // A key press takes a message off the status line: the one
                // that closed the popup (`v` then `q`) would take this one
                // off unseen, so it waits for the popup to go (a moment).
                if let Some(pid) = after_pid {
                    wait_until_gone(pid, POPUP_GOES_WITHIN);
                }
                // Shown on the client that pasted as well as answered; the
                // answer holds it when the client cannot show it.
                let _ = context
                    .tmux()
                    .run_one(crate::tmux::commands::show_message_for(
                        &client,
                        5000,
                        &format!("taw image paste: {}", error.message),
                    ));
            }
            answer.map(Reply::of)
        }
        Verb::Receive { pane, bytes } => receive(context, &pane, bytes).map(Reply::of),
    }
}

/// The pane's number and its public id here.
fn pane_here(context: &Context, text: &str) -> Result<(u32, String)> {
    let id = pane_number(context, text)?;
    let snapshot = context.snapshot()?;
    let pane = snapshot
        .pane(id, None)
        .ok_or_else(|| TawError::not_found(format!("pane {text} is not there")))?;
    Ok((id, Records::new(&snapshot).pane(pane).pane_id))
}

fn receive(context: &Context, pane: &str, bytes: u64) -> Result<op::ImageReceived> {
    use std::io::Read;
    let mut image = Vec::new();
    // One byte more than was said tells a longer image from a whole one.
    std::io::stdin()
        .take(bytes.saturating_add(1))
        .read_to_end(&mut image)
        .map_err(|e| TawError::invalid_argument(format!("could not read the image: {e}")))?;
    let (id, public) = pane_here(context, pane)?;
    op::receive(&context.tmux(), id, &public, bytes, &image)
}

fn paste(context: &Context, pane: &str, machine_name: Option<&str>) -> Result<ImagePasted> {
    let Some(name) = machine_name else {
        // The pane first: no clipboard is read for a pane that is not there.
        let (id, public) = pane_here(context, pane)?;
        let image = op::clipboard_png()?;
        let received = op::receive(&context.tmux(), id, &public, image.len() as u64, &image)?;
        return Ok(ImagePasted {
            pane: received.pane,
            machine: None,
            path: received.path,
        });
    };
    let config = Config::load()?;
    let far = machine::find(&config, name).map_err(TawError::not_found)?;
    let image = op::clipboard_png()?;
    let args: Vec<String> = [
        "image",
        "receive",
        "--pane",
        pane,
        "--bytes",
        &image.len().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // A minute, and a second a megabyte on the way: a paste never waits
    // without end on a machine that went quiet.
    let limit = std::time::Duration::from_secs(60 + (image.len() as u64 >> 20));
    let answer: op::ImageReceived = machine::answer_there(&far, &args, Some(image), Some(limit))?;
    if answer.path.is_empty() {
        return Err(TawError::new(
            ErrorCode::Unsupported,
            format!("the taw on {name} answered the image with no path"),
        ));
    }
    Ok(ImagePasted {
        pane: Some(answer.pane)
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| pane.to_string()),
        machine: Some(name.to_string()),
        path: answer.path,
    })
}
