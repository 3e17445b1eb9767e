//! What the load has to tell a person (a warning, a config with errors,
//! "downloaded and loaded"), where a person sees it: on the status line of
//! the attached clients, or, with none attached (tmux.conf runs before any
//! client), kept for the first client that attaches. One short line of at
//! most 80 columns, shown for 15 seconds; the whole of it in tmux's
//! message log (`prefix ~`), `taw tmux status` and `<state>/logs/load.log`.
//!
//! `agent-wizard.tmux` keeps a message for the first client the same way,
//! with the same option and hook index, when it has no taw to run.

use crate::envelope::Result;
use crate::tmux::commands::{self as cmd, Cmd, command_string, if_format};
use crate::tmux::options::bookkeeping::NOTES;
use crate::tmux::{Batch, Tmux, status};
use unicode_width::UnicodeWidthStr;

/// The message kept for the first client to attach, and its whole text.
pub(crate) const TOLD: &str = "@agent_wizard_told";
pub(crate) const TOLD_DETAIL: &str = "@agent_wizard_told_detail";
/// The index of the one-shot hooks that show it: below taw's own range,
/// so a load's plan of its hooks leaves them be.
pub(crate) const TOLD_HOOK_INDEX: u32 = 9099;
/// tmux's `attach` fires the first, `new` (which attaches) the second.
pub(crate) const TOLD_HOOKS: [&str; 2] = ["client-attached", "client-session-changed"];
/// How long a message stays on the status line.
pub(crate) const MESSAGE_MS: u32 = 15_000;
/// The widest message: a terminal of 80 columns shows it whole.
const WIDTH: usize = 80;
const PREFIX: &str = "agent-wizard: ";

/// A message: the short line, and the whole text when the line is not it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    pub short: String,
    pub detail: Option<String>,
}

/// The message for `lines` (the first the most important), or none.
pub(crate) fn compose(lines: &[String]) -> Option<Message> {
    let first = lines.first()?;
    let whole = format!("{PREFIX}{}", lines.join("; "));
    if lines.len() == 1 && whole.width() <= WIDTH {
        return Some(Message {
            short: whole,
            detail: None,
        });
    }
    let more = match lines.len() {
        1 => " (taw tmux status)".to_string(),
        n => format!(" (+{} more: taw tmux status)", n - 1),
    };
    let room = WIDTH - PREFIX.len() - more.width();
    Some(Message {
        short: format!("{PREFIX}{}{more}", cut(first, room)),
        detail: Some(whole),
    })
}

/// `text` in at most `room` columns, `…` at the end when cut.
fn cut(text: &str, room: usize) -> String {
    if text.width() <= room {
        return text.to_string();
    }
    let mut kept = String::new();
    for c in text.chars() {
        if (kept.clone() + &c.to_string()).width() + 1 > room {
            break;
        }
        kept.push(c);
    }
    format!("{}…", kept.trim_end())
}

/// The format that is not empty when a status format taw put its mark in
/// (`@agent_wizard_status_set`) no longer has it: a theme loaded after
/// taw set the format anew.
pub(crate) fn marks_gone_format(status_set: &[String]) -> String {
    status_set
        .iter()
        .map(|name| {
            let word = if name == status::SUMMARY_FORMAT {
                "@agent-wizard-summary"
            } else {
                "@agent-wizard-window-mark"
            };
            format!("#{{?#{{m:*{word}*,#{{{name}}}}},,1}}")
        })
        .collect()
}

/// What a theme that took the marks out is told.
pub(crate) const MARKS_GONE: &str =
    "a theme took taw's marks out of the status line (taw tmux status)";

/// Whether `show-hooks -g` lines have an entry of someone else's at the
/// one-shot hooks' index: its command does not show taw's kept message.
/// taw then keeps no message for the first client (it is in the log and
/// `taw tmux status`), and neither sets nor takes out that entry.
pub(crate) fn told_hooks_taken(show_hooks: &str) -> bool {
    show_hooks.lines().any(|line| {
        let head = line.split_whitespace().next().unwrap_or_default();
        TOLD_HOOKS
            .iter()
            .any(|hook| head == format!("{hook}[{TOLD_HOOK_INDEX}]"))
            && !line.contains(TOLD)
    })
}

/// Whether the one-shot hooks' entries are free for taw (see
/// [`told_hooks_taken`]); taken when tmux cannot say.
fn told_hooks_free(tmux: &Tmux) -> bool {
    tmux.run_one(cmd::show_global_hooks(false))
        .is_ok_and(|hooks| !told_hooks_taken(&hooks))
}

/// Says `lines` to the people looking: on `clients`' status lines, or
/// kept for the first client to attach, which is also told then when a
/// theme took out the marks of `status_set`. The lines are kept for `taw
/// tmux status` and the log either way.
pub(crate) fn say(
    tmux: &Tmux,
    lines: &[String],
    clients: &[String],
    status_set: &[String],
) -> Result<()> {
    log_lines(lines);
    say_again(tmux, lines, clients, status_set)
}

/// [`say`], the lines in the log already: where a batch that said them
/// with the load's commands failed.
pub(crate) fn say_again(
    tmux: &Tmux,
    lines: &[String],
    clients: &[String],
    status_set: &[String],
) -> Result<()> {
    let free = clients.is_empty() && told_hooks_free(tmux);
    let cmds = said(lines, clients, status_set, free);
    let message = compose(lines).filter(|_| !clients.is_empty());
    tmux.run(&Batch::of(cmds)).map(drop).or_else(|error| {
        let Some(message) = message else {
            return Err(error);
        };
        // A client that left meanwhile fails its message alone.
        for client in clients {
            let _ = tmux.run_one(cmd::show_message_for(client, MESSAGE_MS, &message.short));
        }
        Ok(())
    })
}

/// The commands that say `lines` (see [`say`]), which the load runs in its
/// own batch; nothing kept for the first client unless the one-shot hooks'
/// entries are `told_free`.
pub(crate) fn said(
    lines: &[String],
    clients: &[String],
    status_set: &[String],
    told_free: bool,
) -> Vec<Cmd> {
    let message = compose(lines);
    let mut cmds = vec![cmd::set_global_option(NOTES, &lines.join("\n"))];
    if !clients.is_empty() {
        for client in clients {
            let Some(message) = &message else { break };
            if let Some(detail) = &message.detail {
                cmds.push(cmd::show_message_for(client, 1, detail));
            }
            cmds.push(cmd::show_message_for(client, MESSAGE_MS, &message.short));
        }
        return cmds;
    }
    let gone = marks_gone_format(status_set);
    if !told_free || (message.is_none() && gone.is_empty()) {
        return cmds;
    }
    // With nothing new, a message kept and not yet shown stays (the hooks
    // take it out once they showed it).
    // Kept as tmux draws them: `#{option}` puts a value in unexpanded, but
    // what a client shows is still drawn (a `#[` would style it).
    if let Some(message) = message {
        cmds.push(cmd::set_global_option(
            TOLD,
            &cmd::escape_drawn(&message.short),
        ));
        cmds.push(match &message.detail {
            Some(detail) => cmd::set_global_option(TOLD_DETAIL, &cmd::escape_drawn(detail)),
            None => cmd::unset_global_option(TOLD_DETAIL),
        });
    }
    let once = first_attach_command(&gone);
    for hook in TOLD_HOOKS {
        cmds.push(cmd::set_hook(hook, TOLD_HOOK_INDEX, &once));
    }
    cmds
}

/// Puts `lines` in the load's log.
pub(crate) fn log_lines(lines: &[String]) {
    for line in lines {
        log(line);
    }
}

/// The command of the one-shot hooks: the kept message (its whole text
/// first, into the message log, then the short line to read), the marks'
/// check, and the hooks and the message taken out.
fn first_attach_command(marks_gone: &str) -> String {
    let show = |option: &str, ms: u32| {
        if_format(
            &format!("#{{{option}}}"),
            &command_string(&[Cmd::new("display-message").args([
                "-d",
                &ms.to_string(),
                &format!("#{{{option}}}"),
            ])]),
        )
    };
    let mut parts = vec![show(TOLD_DETAIL, 1), show(TOLD, MESSAGE_MS)];
    if !marks_gone.is_empty() {
        parts.push(if_format(
            marks_gone,
            &command_string(&[Cmd::new("display-message").args([
                "-d",
                &MESSAGE_MS.to_string(),
                "--",
                &cmd::escape_message(&format!("{PREFIX}{MARKS_GONE}")),
            ])]),
        ));
    }
    parts.push(command_string(&forget(true)));
    parts.join(" ; ")
}

/// The commands that take a kept message and its hooks out: the hooks'
/// own last step, and an unload's (the hooks' entries only when they are
/// taw's: `hooks`).
pub(crate) fn forget(hooks: bool) -> Vec<Cmd> {
    let mut cmds = vec![
        cmd::unset_global_option(TOLD),
        cmd::unset_global_option(TOLD_DETAIL),
    ];
    if hooks {
        cmds.extend(
            TOLD_HOOKS
                .iter()
                .map(|hook| cmd::unset_hook(hook, TOLD_HOOK_INDEX)),
        );
    }
    cmds
}

/// A line of `<state>/logs/load.log`, where the entry script writes too.
fn log(line: &str) {
    let stamp = crate::hooks::run::utc_time(crate::clock::now_ms() / 1000);
    let line = crate::text::one_line(line, usize::MAX);
    crate::paths::append_line(&load_log(), &format!("{stamp} {PREFIX}{line}"), LOG_BOUND);
}

/// How large the load's log grows before its older half goes.
const LOG_BOUND: u64 = 64 * 1024;

/// The load's log.
pub(crate) fn load_log() -> std::path::PathBuf {
    crate::paths::state_dir().join("logs").join("load.log")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_of_someone_elses_at_the_one_shot_index_is_told() {
        let ours = format!(
            "client-attached[9099] if-shell -F \"#{{{TOLD}}}\" x ; set-hook -gu client-attached[9099]"
        );
        assert!(!told_hooks_taken(&ours));
        assert!(!told_hooks_taken("client-attached[9100] display-message x"));
        assert!(told_hooks_taken(
            "client-attached[0] x\nclient-session-changed[9099] display-message mine"
        ));
        assert!(!told_hooks_taken(""));
    }

    fn lines(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_message_kept_for_the_first_client_is_kept_as_tmux_draws_it() {
        let cmds = said(&["width '#[fg=red]x' is ##2".to_string()], &[], &[], true);
        let kept = cmds
            .iter()
            .find(|c| c.words().contains(&TOLD.to_string()))
            .unwrap();
        assert_eq!(
            kept.words().last().unwrap(),
            "agent-wizard: width '##[fg=red]x' is ####2"
        );
    }

    #[test]
    fn one_short_line_is_said_as_it_is() {
        let said = compose(&lines(&["taw 0.2.0 is downloaded and loaded"])).unwrap();
        assert_eq!(
            said.short,
            "agent-wizard: taw 0.2.0 is downloaded and loaded"
        );
        assert_eq!(said.detail, None);
        assert_eq!(compose(&[]), None);
    }

    #[test]
    fn a_long_or_second_line_fits_80_columns_and_points_to_the_details() {
        let long = "x".repeat(200);
        let said = compose(&lines(&[&long, "config.toml: 2 errors"])).unwrap();
        assert!(said.short.width() <= 80, "{}", said.short);
        assert!(said.short.ends_with("(+1 more: taw tmux status)"));
        assert!(said.short.contains('…'));
        assert_eq!(
            said.detail.unwrap(),
            format!("agent-wizard: {long}; config.toml: 2 errors")
        );
        let said = compose(&lines(&[&"é".repeat(100)])).unwrap();
        assert!(said.short.width() <= 80);
        assert!(said.short.ends_with("(taw tmux status)"));
    }

    #[test]
    fn the_marks_check_names_each_format() {
        let check = marks_gone_format(&lines(&["window-status-format", "status-right"]));
        assert_eq!(
            check,
            "#{?#{m:*@agent-wizard-window-mark*,#{window-status-format}},,1}\
             #{?#{m:*@agent-wizard-summary*,#{status-right}},,1}"
        );
        assert_eq!(marks_gone_format(&[]), "");
    }
}
