//! `pane clear`: the pane's history goes, and when its own bash, zsh or
//! fish is at its prompt, the screen too (the shell redraws its prompt at
//! the top on Ctrl-L). Anything else in front keeps its screen.

use crate::detect::foreground;
use crate::envelope::{Result, answers};
use crate::tmux::commands as cmd;
use crate::tmux::pane as tmux_pane;
use crate::tmux::snapshot::Pane;
use crate::tmux::{Batch, Tmux, ids};
use serde::Serialize;
use std::time::{Duration, Instant};

/// Shells that redraw their prompt and line on Ctrl-L.
const REDRAWING_SHELLS: &[&str] = &["bash", "zsh", "fish"];
const REDRAW_WAIT: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Cleared {
    pub pane_id: String,
    pub history_cleared: bool,
    pub screen_cleared: bool,
    pub note: Option<&'static str>,
}

answers!(Cleared => "ok");

/// The state of the screen that tells a redraw happened.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ScreenMark {
    cursor_y: u32,
    history: u64,
    first_line: String,
}

fn mark(tmux: &Tmux, pane: u32) -> Result<(ScreenMark, String)> {
    let values = tmux_pane::read_values(tmux, pane, &["cursor_y", "history_size"])?;
    let screen = tmux_pane::capture(tmux, pane, tmux_pane::ReadSource::Visible, 0, false)?;
    let first_line = screen.lines().next().unwrap_or("").to_string();
    Ok((
        ScreenMark {
            cursor_y: values[0].parse().unwrap_or(0),
            history: values[1].parse().unwrap_or(0),
            first_line,
        },
        screen,
    ))
}

/// The pane's own bash, zsh or fish, when it is at its prompt.
fn redrawing_shell(pane: &Pane) -> Option<String> {
    let (own, group) = foreground::read_job(pane.pid)?;
    let at_prompt = matches!(foreground::front_of(&own, group), foreground::Front::Shell);
    let name = own
        .argv
        .first()
        .map(|a| {
            a.rsplit('/')
                .next()
                .unwrap_or(a)
                .trim_start_matches('-')
                .to_string()
        })
        .unwrap_or_default();
    (at_prompt && REDRAWING_SHELLS.contains(&name.as_str())).then_some(name)
}

pub(crate) fn clear(tmux: &Tmux, pane: &Pane) -> Result<Cleared> {
    let target = format!("%{}", pane.id);
    let pane_id = ids::pane_id(pane.session, pane.id);
    let answer = |history: bool, screen: bool, note: Option<&'static str>| Cleared {
        pane_id: pane_id.clone(),
        history_cleared: history,
        screen_cleared: screen,
        note,
    };
    let facts = tmux_pane::read_values(tmux, pane.id, &["alternate_on", "synchronize-panes"])?;
    if facts[0] == "1" {
        return Ok(answer(
            false,
            false,
            Some("a full-screen program has the alternate screen; nothing was changed"),
        ));
    }
    tmux.run_one(cmd::clear_history(&target))?;
    if facts[1] == "1" {
        return Ok(answer(
            true,
            false,
            Some(
                "synchronize-panes is on in this window: a key would go to every pane, so only the history was cleared",
            ),
        ));
    }
    let Some(shell) = redrawing_shell(pane) else {
        return Ok(answer(
            true,
            false,
            Some(
                "no bash, zsh or fish of the pane's own is at its prompt, so only the history was cleared",
            ),
        ));
    };
    let (before, screen) = mark(tmux, pane.id)?;
    let clear_already = before.cursor_y == 0 && screen.lines().skip(1).all(|l| l.trim().is_empty());
    if clear_already {
        return Ok(answer(true, true, None));
    }
    let output = send_key(tmux, pane.id, &shell, "C-l")?;
    if let Some(found) = cmd::held_back(&output) {
        return Ok(answer(true, false, Some(held_back_note(&found))));
    }
    let (screen_cleared, note) = wait_for_redraw(tmux, pane.id, &shell, &before, &screen)?;
    Ok(answer(true, screen_cleared, note))
}

/// Sends one key to the pane, only while `shell` is in front and the pane
/// takes it; answers what the guarded send printed.
fn send_key(tmux: &Tmux, pane: u32, shell: &str, key: &str) -> Result<String> {
    tmux.run(&Batch::of(vec![cmd::guarded(
        &format!("%{pane}"),
        shell,
        &[tmux_pane::send_keys(pane, &[key.to_string()])],
        &[],
    )]))
}

/// Why the Ctrl-L was not sent, as the answer's note.
fn held_back_note(found: &cmd::HeldBack) -> &'static str {
    if found.in_mode {
        "the pane is in a mode"
    } else if found.input_off {
        "the pane takes no input"
    } else if found.synchronized {
        "synchronize-panes came on in this window: a key would go to every pane"
    } else {
        "another program came in front of the shell"
    }
}

/// Watches the screen after the Ctrl-L: whether the shell redrew it, and
/// the note when it did not.
fn wait_for_redraw(
    tmux: &Tmux,
    pane: u32,
    shell: &str,
    before: &ScreenMark,
    screen_before: &str,
) -> Result<(bool, Option<&'static str>)> {
    let before_line = screen_before
        .lines()
        .nth(before.cursor_y as usize)
        .unwrap_or("");
    let start = Instant::now();
    while start.elapsed() < REDRAW_WAIT {
        std::thread::sleep(Duration::from_millis(50));
        let (now, screen) = mark(tmux, pane)?;
        // A shell that took Ctrl-L as text (bash in vi mode, zsh in a
        // `read`) shows ^L on its line, and nothing else moves.
        let cursor_line = screen.lines().nth(now.cursor_y as usize).unwrap_or("");
        if cursor_line.contains("^L") && !before_line.contains("^L") {
            let taken_back = send_key(tmux, pane, shell, "BSpace");
            let note = if taken_back.is_ok_and(|out| cmd::held_back(&out).is_none()) {
                "the shell took Ctrl-L as text; it was taken back out"
            } else {
                "the shell took Ctrl-L as text, and it could not be taken back out"
            };
            return Ok((false, Some(note)));
        }
        if now.cursor_y < before.cursor_y
            || now.history > before.history
            || now.first_line != before.first_line
        {
            return Ok((true, None));
        }
    }
    Ok((
        false,
        Some("the shell showed no sign of redrawing its screen"),
    ))
}
