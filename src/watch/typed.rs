//! The line `taw agent start` typed its command on. A pane still shows what
//! its last agent left, so the watcher reads only the rows below that line
//! while it is on the screen. The line is recorded as the shell echoed it
//! (its prompt, the command, maybe a right prompt); a shell with a
//! transient prompt rewrites the row on Enter, so a row is also taken for
//! it when it holds the command after a short prompt.

/// The widest a rewritten prompt may be when the recorded one was narrower.
const SHORT_PROMPT: usize = 16;

/// The index of the typed line among `rows`, if it is on the screen.
/// `recorded` is the row as the shell echoed it, `command` the command.
pub(crate) fn find(rows: &[&str], recorded: &str, command: &str) -> Option<usize> {
    let recorded = recorded.trim_end();
    if command.is_empty() {
        return rows.iter().rposition(|row| row.trim_end() == recorded);
    }
    if let Some(at) = rows.iter().rposition(|row| row.trim_end() == recorded) {
        return Some(at);
    }
    let prompt_width = prompt_before(recorded, command).map_or(0, width);
    let widest = prompt_width.max(SHORT_PROMPT);
    // A right prompt is looked for only where the prompt row showed one.
    let right_prompt = !recorded.ends_with(command);
    rows.iter().rposition(|row| {
        let row = row.trim_end();
        let prompt = if right_prompt {
            prompt_before(row, command)
        } else {
            row.strip_suffix(command)
        };
        prompt.is_some_and(|prompt| width(prompt) <= widest)
    })
}

/// Whether a row ends with `command`, or with it and a right prompt: the
/// row a shell echoed it on.
pub(crate) fn holds_command(row: &str, command: &str) -> bool {
    !command.is_empty() && prompt_before(row.trim_end(), command).is_some()
}

/// What comes before `command` in a row that ends with it, or with it and,
/// past two spaces or more, a right prompt.
fn prompt_before<'a>(row: &'a str, command: &str) -> Option<&'a str> {
    if let Some(prompt) = row.strip_suffix(command) {
        return Some(prompt);
    }
    // A right prompt: the command, two spaces or more, then text.
    let mut from = 0;
    while let Some(found) = row[from..].find(command) {
        let start = from + found;
        let rest = &row[start + command.len()..];
        if rest.starts_with("  ") && !rest.trim().is_empty() {
            return Some(&row[..start]);
        }
        from = start + command.len().max(1);
        if from >= row.len() {
            break;
        }
        while !row.is_char_boundary(from) {
            from += 1;
        }
    }
    None
}

/// Columns, counted as characters: prompts are made of narrow ones.
fn width(text: &str) -> usize {
    text.chars().count()
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn the_row_as_echoed() {
        let rows = ["old frame", "you@box:~/api$ claude --x", "new frame"];
        assert_eq!(
            find(&rows, "you@box:~/api$ claude --x", "claude --x"),
            Some(1)
        );
        assert_eq!(find(&rows, "$ codex", "codex"), None);
    }

    #[test]
    fn a_transient_prompt_rewrites_the_row() {
        // The long prompt became `❯ ` on Enter.
        let rows = ["old frame", "❯ claude", "new frame"];
        assert_eq!(
            find(&rows, "you@box:~/src/api (main) $ claude", "claude"),
            Some(1)
        );
        // A prompt of its time.
        let rows = ["12:01:33 claude", "new frame"];
        assert_eq!(
            find(&rows, "~/src/very/long/path/to/project ❯ claude", "claude"),
            Some(0)
        );
    }

    #[test]
    fn a_right_prompt_stays_on_the_row() {
        let rows = ["% claude      12:01", "frame"];
        assert_eq!(find(&rows, "% claude      12:00", "claude"), Some(0));
    }

    #[test]
    fn a_row_of_the_agent_that_ends_with_the_command_is_not_it() {
        // The typed line has gone; the agent's footer names the command
        // after more than a short prompt's width.
        let rows = ["Claude Code", "Update available! Run: mise upgrade claude"];
        assert_eq!(find(&rows, "$ claude", "claude"), None);
        // A short tip after a wide prompt can be taken for it.
        let rows = ["frame", "run claude"];
        assert_eq!(
            find(&rows, "a-very-wide-prompt-of-the-shell $ claude", "claude"),
            Some(1)
        );
    }

    #[test]
    fn a_right_prompt_only_where_the_prompt_row_had_one() {
        let rows = ["> claude   (a hint of the agent's)"];
        assert_eq!(find(&rows, "$ claude", "claude"), None);
        assert_eq!(find(&rows, "% claude      12:00", "claude"), Some(0));
        assert!(super::holds_command("% claude      12:00", "claude"));
        assert!(!super::holds_command("% claudette", "claude"));
    }

    #[test]
    fn an_older_value_without_a_command() {
        let rows = ["$ claude", "frame"];
        assert_eq!(find(&rows, "$ claude", ""), Some(0));
    }
}
