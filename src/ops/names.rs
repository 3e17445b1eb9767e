//! The one rule for the names a person gives a workspace, a tab or a pane,
//! and herdr's rule for agent names. A name that breaks a rule is refused
//! with `invalid_argument` and a word on why; taw never cuts or rewrites a
//! name it was given (docs/SCRIPTING.md, "Names").

use crate::envelope::{Result, TawError};
use crate::tmux::snapshot::Snapshot;

/// The longest name, in characters.
pub(crate) const MAX_NAME: usize = 80;

/// What tmux escapes with a backslash in a session's or window's name.
pub(crate) const TMUX_ESCAPES: &str = "$\\";

/// What a name is given to, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Named {
    Workspace,
    Tab,
    Pane,
}

impl Named {
    fn word(self) -> &'static str {
        match self {
            Named::Workspace => "workspace",
            Named::Tab => "tab",
            Named::Pane => "pane",
        }
    }
}

/// Checks a name: not empty, one line with no control character, at most
/// [`MAX_NAME`] characters. The name is then used as given. tmux holds a
/// session under another name when it has `.` or `:` (they become `_`) or
/// is taken (taw numbers it): the workspace keeps its label as given
/// beside it, in every record, event and context.
pub(crate) fn check(named: Named, name: &str) -> Result<()> {
    let what = named.word();
    if name.trim().is_empty() {
        return Err(TawError::invalid_argument(format!(
            "the new {what} name is empty"
        )));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(TawError::invalid_argument(format!(
            "a {what} name is one line of text, and this one holds {}; nothing was renamed",
            control_name(c)
        )));
    }
    // tmux stores a session's or a window's name with `$` and `\` escaped
    // (`$abc` becomes `\$abc`), so such a name could not be kept as given.
    if matches!(named, Named::Workspace | Named::Tab)
        && let Some(c) = name.chars().find(|c| TMUX_ESCAPES.contains(*c))
    {
        return Err(TawError::invalid_argument(format!(
            "a {what} name cannot hold {c:?}: tmux would keep it as \\{c}, not as you wrote it; nothing was made or renamed"
        )));
    }
    let count = name.chars().count();
    if count > MAX_NAME {
        return Err(TawError::invalid_argument(format!(
            "a {what} name is at most {MAX_NAME} characters, and this one has {count}; nothing was renamed"
        )));
    }
    Ok(())
}

fn control_name(c: char) -> String {
    match c {
        '\n' => "a newline".into(),
        '\r' => "a carriage return".into(),
        '\t' => "a tab".into(),
        '\u{1b}' => "an escape".into(),
        other => format!("the control character U+{:04X}", other as u32),
    }
}

/// herdr's agent names: a lower-case letter, then up to 31 of
/// `a-z 0-9 _ -`.
pub(crate) fn check_agent_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest_ok = name.len() <= 32
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if first_ok && rest_ok {
        Ok(())
    } else {
        Err(TawError::invalid_argument(format!(
            "{name:?} is not an agent name: a lower-case letter, then up to 31 of a-z, 0-9, _ and -"
        )))
    }
}

/// The name a new session gets: `.` and `:` become `_` as tmux makes
/// them, and a taken name gets `-2`, `-3`...
pub(crate) fn free_session_name(snapshot: &Snapshot, name: &str) -> String {
    let name = crate::tmux::arrange::session_name(name);
    let taken = |candidate: &str| snapshot.sessions.iter().any(|s| s.name == candidate);
    if !taken(&name) {
        return name;
    }
    (2..)
        .map(|n| format!("{name}-{n}"))
        .find(|candidate| !taken(candidate))
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kept_or_refused_never_changed() {
        assert!(check(Named::Tab, "build & test #2").is_ok());
        assert!(check(Named::Tab, "  spaced  ").is_ok());
        let error = check(Named::Tab, "two\nlines").unwrap_err();
        assert!(error.message.contains("a newline"), "{error}");
        assert!(check(Named::Pane, "a\tb").is_err());
        assert!(check(Named::Pane, "   ").is_err());
        assert!(check(Named::Pane, &"x".repeat(80)).is_ok());
        let error = check(Named::Pane, &"é".repeat(81)).unwrap_err();
        assert!(error.message.contains("81"), "{error}");
        assert!(check(Named::Workspace, "api.v2").is_ok());
        for name in ["$abc", "a$b", "a\\b"] {
            assert!(check(Named::Workspace, name).is_err(), "{name}");
            assert!(check(Named::Tab, name).is_err(), "{name}");
            assert!(check(Named::Pane, name).is_ok(), "{name}");
        }
    }

    #[test]
    fn agent_names_follow_herdr() {
        assert!(check_agent_name("reviewer-2").is_ok());
        assert!(check_agent_name("Reviewer").is_err());
        assert!(check_agent_name("2nd").is_err());
        assert!(check_agent_name(&format!("a{}", "b".repeat(32))).is_err());
    }
}
