//! Typing a command line into a pane's shell: waiting for its prompt,
//! then the line and its Enter, each sent only while the shell is in
//! front and the pane takes input. `agent start` and a restore's resumes
//! both type through here.

use crate::detect::foreground;
use crate::envelope::{ErrorCode, Result};
use crate::ops::race::{Race, race_window};
use crate::tmux::commands::{self as cmd, HeldBack};
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, Buffer, OptionWrites, ReadSource};
use crate::tmux::snapshot::Pane;
use crate::tmux::{Batch, Tmux};
use crate::watch::typed;
use std::time::{Duration, Instant};

/// A shell that has not come to its prompt by then never will.
pub(crate) fn shell_wait() -> Duration {
    crate::clock::limits().prompt
}

/// A prompt is a screen that has not changed for this long.
pub(crate) const SETTLED: Duration = Duration::from_millis(300);
/// How long the shell has to echo the typed command.
const ECHO_WAIT: Duration = Duration::from_secs(1);
pub(crate) const LOOK_EVERY: Duration = Duration::from_millis(100);

/// The pane's visible screen.
pub(crate) fn screen(tmux: &Tmux, pane: u32) -> Result<String> {
    tmux_pane::capture(tmux, pane, ReadSource::Visible, 0, false)
}

/// Waits until pane `pane`'s screen differs from `before`, at most
/// `limit`: the new screen, or `None` when it stayed the same.
pub(crate) fn until_changed(
    tmux: &Tmux,
    pane: u32,
    before: &str,
    limit: Duration,
) -> Result<Option<String>> {
    let stop = Instant::now() + limit;
    loop {
        let now = screen(tmux, pane)?;
        if now != before {
            return Ok(Some(now));
        }
        if Instant::now() >= stop {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How long a paste may take to show: `any_change` for a text an agent
/// may fold, `end_drawn` for the end of a short one-line text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PasteWait {
    pub any_change: Duration,
    pub end_drawn: Duration,
}

impl PasteWait {
    /// The same waits, none past `deadline`.
    pub(crate) fn until(self, deadline: Option<Instant>) -> PasteWait {
        let left = deadline.map_or(Duration::MAX, |d| {
            d.saturating_duration_since(Instant::now())
        });
        PasteWait {
            any_change: self.any_change.min(left),
            end_drawn: self.end_drawn.min(left),
        }
    }
}

/// Waits until pane `pane` has drawn the `text` just pasted into it: the
/// end of a short one-line text shown once more than on `before` (within
/// `wait.end_drawn`), or, for text an agent may fold ("[Pasted text +3
/// lines]"), any change (within `wait.any_change`). Past its wait: the
/// screen if it changed at all, or `None` when the pane drew nothing.
pub(crate) fn until_drawn(
    tmux: &Tmux,
    pane: u32,
    before: &str,
    text: &str,
    wait: PasteWait,
) -> Result<Option<String>> {
    let Some(end) = drawn_mark(text) else {
        return until_changed(tmux, pane, before, wait.any_change);
    };
    let already = before.matches(end).count();
    let stop = Instant::now() + wait.end_drawn;
    let mut changed = None;
    loop {
        let now = screen(tmux, pane)?;
        if now.matches(end).count() > already {
            return Ok(Some(now));
        }
        if now != before {
            changed = Some(now);
        }
        if Instant::now() >= stop {
            return Ok(changed);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until pane `pane` has taken the `text` an Enter was just pressed
/// on: from the last line of `before` that showed it down, something
/// changed (the input cleared, the agent answered below it, the screen
/// moved on), or, when `before` showed none of it, anything changed. A
/// change only above it (Claude Code drawing its effort line late) is not
/// a taken prompt. False when nothing did within `limit`.
pub(crate) fn until_taken(
    tmux: &Tmux,
    pane: u32,
    before: &str,
    text: &str,
    limit: Duration,
) -> Result<bool> {
    let stop = Instant::now() + limit;
    loop {
        let now = screen(tmux, pane)?;
        if taken(before, &now, drawn_mark(text)) {
            return Ok(true);
        }
        if Instant::now() >= stop {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `now` differs from `before` at or below the last line of
/// `before` that showed `mark` (the input; an earlier turn of the same
/// text may show above it), or anywhere when none did or there is no mark.
fn taken(before: &str, now: &str, mark: Option<&str>) -> bool {
    let was: Vec<&str> = before.lines().collect();
    let is: Vec<&str> = now.lines().collect();
    let from = mark
        .and_then(|mark| was.iter().rposition(|line| line.contains(mark)))
        .unwrap_or(0);
    (from..was.len().max(is.len())).any(|at| was.get(at) != is.get(at))
}

/// The end of a prompt to look for on the screen once it is pasted: the
/// last few characters of a short one-line text (few enough that a wrap
/// seldom splits them). None for text agents fold or wrap much.
fn drawn_mark(text: &str) -> Option<&str> {
    const SHORT: usize = 200;
    const END_CHARS: usize = 8;
    let text = text.trim_end();
    if text.len() > SHORT || text.contains(['\n', '\r', '\t']) || text.is_empty() {
        return None;
    }
    let start = text
        .char_indices()
        .rev()
        .nth(END_CHARS - 1)
        .map_or(0, |(at, _)| at);
    Some(text[start..].trim_start()).filter(|end| !end.is_empty())
}

/// Whether the pane's own shell is in front with nothing running.
pub(crate) fn shell_in_front(pane: &Pane) -> bool {
    foreground::read_job(pane.pid).is_some_and(|(own, group)| {
        matches!(foreground::front_of(&own, group), foreground::Front::Shell)
    })
}

/// One pane's looks while its shell comes up: the screen last seen and
/// since when it has stayed the same.
pub(crate) struct PromptWatch {
    screen: String,
    unchanged_since: Instant,
}

impl Default for PromptWatch {
    fn default() -> PromptWatch {
        PromptWatch {
            screen: String::new(),
            unchanged_since: Instant::now(),
        }
    }
}

impl PromptWatch {
    /// Takes in the pane's screen now; whether its shell is at its prompt:
    /// something drawn, nothing but the shell in front, the screen
    /// unchanged for a moment.
    pub(crate) fn at_prompt(&mut self, pane: &Pane, screen: String) -> bool {
        if screen != self.screen {
            self.screen = screen;
            self.unchanged_since = Instant::now();
        }
        !self.screen.trim().is_empty()
            && shell_in_front(pane)
            && self.unchanged_since.elapsed() >= SETTLED
    }
}

/// The step of a guarded send that held it back, with what it found.
pub(crate) enum HeldAt {
    /// Before the line was typed: nothing reached the pane.
    Typing(HeldBack),
    /// Before its Enter: the line may be left on the pane's command line.
    Enter(HeldBack),
}

/// Types `line` into pane `id`'s shell (`shell`, as tmux names it), writes
/// `marks` on the pane once the line is there, and sends its Enter.
/// Answers the row the shell echoed the line on, or the step that found
/// the pane not ready.
pub(crate) fn type_and_enter(
    tmux: &Tmux,
    id: u32,
    shell: &str,
    line: &str,
    marks: &OptionWrites,
) -> Result<std::result::Result<String, HeldAt>> {
    let echoed = match type_guarded(tmux, id, shell, line)? {
        Ok(echoed) => echoed,
        Err(found) => return Ok(Err(HeldAt::Typing(found))),
    };
    tmux_pane::write_options(tmux, id, marks)?;
    Ok(enter_guarded(tmux, id, shell, line, &echoed)?
        .map(|()| echoed)
        .map_err(HeldAt::Enter))
}

/// What a guarded send did: sent (with what it answers), or held back by
/// what it found in the pane.
type Guarded<T> = std::result::Result<T, HeldBack>;

/// Types `line` into pane `id` (no Enter), only while `shell` is in front
/// and the pane takes input; answers the row the shell echoed it on, or
/// the line itself when no echo came within a second.
fn type_guarded(tmux: &Tmux, id: u32, shell: &str, line: &str) -> Result<Guarded<String>> {
    // The echo is looked for from the cursor's row down, so an older
    // row that ends with the same command is not taken for it.
    let cursor: usize = tmux_pane::read_values(tmux, id, &["cursor_y"])?[0]
        .parse()
        .unwrap_or(0);
    // The line reaches tmux on its standard input and is pasted as
    // typed: no byte of it is read by tmux's parser.
    let buffer = Buffer::named();
    race_window(Race::Typing);
    let typed = tmux
        .run_with_input(
            &Batch::of(vec![
                buffer.load(),
                cmd::guarded(
                    &format!("%{id}"),
                    shell,
                    // C-u first: what a person left half-typed on the line
                    // goes (readline, zsh, fish, and a terminal's own line
                    // editing all take it so), or the command would run
                    // as its arguments.
                    &[
                        tmux_pane::send_keys(id, &["C-u".to_string()]),
                        buffer.paste(id, false),
                    ],
                    &[buffer.delete()],
                ),
            ]),
            line.as_bytes().to_vec(),
        )
        .inspect_err(|error| {
            if error.code != ErrorCode::Timeout {
                // Tidying only: the typing's own error is what is answered.
                let _ = tmux.run_one(buffer.delete());
            }
        })?;
    if let Some(found) = cmd::held_back(&typed) {
        return Ok(Err(found));
    }
    let echo_stop = Instant::now() + ECHO_WAIT;
    loop {
        let text = screen(tmux, id)?;
        let rows: Vec<&str> = text.lines().skip(cursor).map(str::trim_end).collect();
        let echoed = rows
            .iter()
            .rev()
            .find(|row| typed::holds_command(row, line));
        if let Some(row) = echoed {
            return Ok(Ok(row.to_string()));
        }
        if Instant::now() >= echo_stop {
            return Ok(Ok(line.to_string()));
        }
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// Records the typed line for the watcher and sends Enter, only while
/// `shell` is in front and the pane takes input.
fn enter_guarded(
    tmux: &Tmux,
    id: u32,
    shell: &str,
    line: &str,
    echoed: &str,
) -> Result<Guarded<()>> {
    let mut writes = OptionWrites::default();
    writes.set(opt::TYPED_LINE, echoed);
    writes.set(opt::TYPED_COMMAND, line);
    let mut batch = Batch::of(writes.commands(id));
    batch.push(cmd::guarded(
        &format!("%{id}"),
        shell,
        &[tmux_pane::send_keys(id, &["Enter".to_string()])],
        &[],
    ));
    race_window(Race::Sending);
    let entered = tmux.run(&batch)?;
    Ok(match cmd::held_back(&entered) {
        Some(found) => Err(found),
        None => Ok(()),
    })
}

#[cfg(test)]
mod tests {
    use super::{PasteWait, drawn_mark, taken};
    use std::time::{Duration, Instant};

    #[test]
    fn a_paste_wait_ends_by_the_deadline() {
        let wait = PasteWait {
            any_change: Duration::from_secs(2),
            end_drawn: Duration::from_secs(10),
        };
        let free = wait.until(None);
        assert_eq!(free.end_drawn, Duration::from_secs(10));
        let near = wait.until(Some(Instant::now() + Duration::from_secs(3)));
        assert_eq!(near.any_change, Duration::from_secs(2));
        assert!(near.end_drawn <= Duration::from_secs(3));
        let past = wait.until(Some(Instant::now()));
        assert_eq!(past.end_drawn, Duration::ZERO);
    }

    #[test]
    fn a_prompt_is_taken_when_its_line_or_below_changes_not_above() {
        let typed = "logo\n\n> work 2\nfooter";
        let sent = "logo\n> work 2\n> \nfooter";
        let answered = "logo\n\n> work 2\nfooter\ntook: work 2";
        let redrawn_above = "logo  medium\n\n> work 2\nfooter";
        assert!(taken(typed, sent, Some("work 2")));
        assert!(taken(typed, answered, Some("work 2")));
        assert!(!taken(typed, redrawn_above, Some("work 2")));
        assert!(!taken(typed, typed, Some("work 2")));
        // The same text sent before shows above the input: a change
        // between the two is not this one taken.
        let again = "> work 2\nlogo\n> work 2\nfooter";
        let drawn_between = "> work 2\nlogo  medium\n> work 2\nfooter";
        assert!(!taken(again, drawn_between, Some("work 2")));
        // Nothing of the text on the screen: any change tells.
        assert!(taken("a\nb", "c\nb", Some("work 2")));
        assert!(taken("a\nb", "a\nc", None));
        assert!(!taken("a\nb", "a\nb", None));
    }

    #[test]
    fn a_prompts_end_is_looked_for_only_where_agents_draw_it_as_it_is() {
        assert_eq!(drawn_mark("work 1"), Some("work 1"));
        assert_eq!(drawn_mark("explain the parser  "), Some("e parser"));
        assert_eq!(drawn_mark("résumé ça va bien"), Some("va bien"));
        assert_eq!(drawn_mark("two\nlines"), None);
        assert_eq!(drawn_mark(&"x".repeat(300)), None);
        assert_eq!(drawn_mark("   "), None);
    }
}
