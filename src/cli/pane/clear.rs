//! `taw pane clear`: the pane's history goes, and when its own bash, zsh or
//! fish is at its prompt, the screen too (the shell redraws its prompt at
//! the top on Ctrl-L). Anything else in front keeps its screen.

use super::arrange::PaneSel;
use crate::cli::Context;
use crate::detect::job;
use crate::envelope::{Reply, Result};
use crate::tmux::commands::{self as cmd, Cmd};
use crate::tmux::pane as tmux_pane;
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, ids};
use serde_json::json;
use std::time::{Duration, Instant};

/// Shells that redraw their prompt and line on Ctrl-L.
const REDRAWING_SHELLS: &[&str] = &["bash", "zsh", "fish"];
const REDRAW_WAIT: Duration = Duration::from_secs(3);

/// The state of the screen that tells a redraw happened.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ScreenMark {
    cursor_y: u32,
    history: u64,
    first_line: String,
}

fn mark(context: &Context, pane: u32) -> Result<(ScreenMark, String)> {
    let tmux = context.tmux();
    let values = tmux_pane::read_values(&tmux, pane, &["cursor_y", "history_size"])?;
    let screen = tmux_pane::capture(&tmux, pane, tmux_pane::ReadSource::Visible, 0, false)?;
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

pub fn clear(context: &Context, id: Option<&str>, sel: &PaneSel) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = sel.resolve(&snapshot, id)?;
    let target = format!("%{}", pane.id);
    let pane_id = ids::pane_id(pane.session, pane.id);
    let answer = |history: bool, screen: bool, note: Option<&str>| {
        Reply::result(
            "ok",
            json!({
                "pane_id": pane_id,
                "history_cleared": history,
                "screen_cleared": screen,
                "note": note,
            }),
        )
    };
    let facts = tmux_pane::read_values(&tmux, pane.id, &["alternate_on", "synchronize-panes"])?;
    if facts[0] == "1" {
        return Ok(answer(
            false,
            false,
            Some("a full-screen program has the alternate screen; nothing was changed"),
        ));
    }
    tmux.run_one(Cmd::new("clear-history").args(["-t", &target]))?;
    if facts[1] == "1" {
        return Ok(answer(
            true,
            false,
            Some(
                "synchronize-panes is on in this window: a key would go to every pane, so only the history was cleared",
            ),
        ));
    }
    // The pane's own shell, at its prompt, and one that redraws on Ctrl-L.
    let shell = job::read_job(pane.pid).and_then(|(own, group)| {
        let at_prompt = matches!(job::front_of(&own, group), job::Front::Shell);
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
    });
    let Some(shell) = shell else {
        return Ok(answer(
            true,
            false,
            Some(
                "no bash, zsh or fish of the pane's own is at its prompt, so only the history was cleared",
            ),
        ));
    };
    let (before, screen) = mark(context, pane.id)?;
    let before_lines: Vec<String> = screen.lines().map(str::to_string).collect();
    let clear_already = before.cursor_y == 0 && screen.lines().skip(1).all(|l| l.trim().is_empty());
    if clear_already {
        return Ok(answer(true, true, None));
    }
    let send = Cmd::new("send-keys").args(["-t", &target, "C-l"]);
    let output = tmux.run(&Batch::of(vec![cmd::guarded(&target, &shell, &[send])]))?;
    if let Some(found) = cmd::held_back(&output) {
        let why = if found.in_mode {
            "the pane is in a mode"
        } else if found.input_off {
            "the pane takes no input"
        } else {
            "another program came in front of the shell"
        };
        return Ok(answer(true, false, Some(why)));
    }
    let start = Instant::now();
    while start.elapsed() < REDRAW_WAIT {
        std::thread::sleep(Duration::from_millis(50));
        let (now, screen) = mark(context, pane.id)?;
        // A shell that took Ctrl-L as text (bash in vi mode, zsh in a
        // `read`) shows ^L on its line, and nothing else moves.
        let cursor_line = screen.lines().nth(now.cursor_y as usize).unwrap_or("");
        let before_line = before_screen_line(&before_lines, before.cursor_y);
        if cursor_line.contains("^L") && !before_line.contains("^L") {
            let taken_back = tmux.run(&Batch::of(vec![cmd::guarded(
                &target,
                &shell,
                &[Cmd::new("send-keys").args(["-t", &target, "BSpace"])],
            )]));
            let note = if taken_back.is_ok_and(|out| cmd::held_back(&out).is_none()) {
                "the shell took Ctrl-L as text; it was taken back out"
            } else {
                "the shell took Ctrl-L as text, and it could not be taken back out"
            };
            return Ok(answer(true, false, Some(note)));
        }
        if now.cursor_y < before.cursor_y
            || now.history > before.history
            || now.first_line != before.first_line
        {
            return Ok(answer(true, true, None));
        }
    }
    Ok(answer(
        true,
        false,
        Some("the shell showed no sign of redrawing its screen"),
    ))
}

/// Row `y` of a screen's text, or "".
fn before_screen_line(lines: &[String], y: u32) -> &str {
    lines.get(y as usize).map(String::as_str).unwrap_or("")
}
