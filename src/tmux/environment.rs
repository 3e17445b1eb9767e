//! Reading tmux's global environment.
//!
//! `show-environment -g` prints `NAME=value` lines, which a value holding a
//! newline can forge; `-s` prints shell syntax, `NAME="value"; export NAME;`
//! with `"`, `\`, `$` and `` ` `` escaped, which can be read back exactly.

use std::collections::BTreeMap;

/// A variable of tmux's environment: set to a value, or marked to be
/// removed from new panes (`set-environment -r`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EnvValue {
    Set(String),
    Removed,
}

/// Parses `show-environment -s` output into name → value. Text that does
/// not have the expected shape is skipped rather than guessed at.
pub(crate) fn parse_shell_environment(text: &str) -> BTreeMap<String, EnvValue> {
    let mut vars = BTreeMap::new();
    let mut rest = text;
    while !rest.is_empty() {
        rest = rest.trim_start_matches(['\n', ' ']);
        if let Some(after) = rest.strip_prefix("unset ") {
            let end = after.find(';').unwrap_or(after.len());
            vars.insert(after[..end].to_string(), EnvValue::Removed);
            rest = skip_line(&after[end..]);
            continue;
        }
        let Some(eq) = rest.find("=\"") else { break };
        let name = &rest[..eq];
        if name.is_empty() || name.contains(['\n', ' ', ';']) {
            rest = skip_line(rest);
            continue;
        }
        let (value, after_value) = read_quoted(&rest[eq + 2..]);
        vars.insert(name.to_string(), EnvValue::Set(value));
        rest = skip_line(after_value);
    }
    vars
}

/// Reads a double-quoted value up to its closing quote; returns the value and
/// the text after the quote.
fn read_quoted(text: &str) -> (String, &str) {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((index, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '"' => return (value, &text[index + 1..]),
            other => value.push(other),
        }
    }
    (value, "")
}

fn skip_line(text: &str) -> &str {
    match text.find('\n') {
        Some(newline) => &text[newline + 1..],
        None => "",
    }
}

/// tmux's global environment and each session's own: what a new pane of
/// a session starts with, the session's entries over the global ones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Environments {
    pub global: BTreeMap<String, EnvValue>,
    pub sessions: BTreeMap<u32, BTreeMap<String, EnvValue>>,
}

impl Environments {
    /// What a new pane of `session` (none: of no session) starts with: the
    /// global entries, then the session's own over them.
    pub(crate) fn for_session(&self, session: Option<u32>) -> BTreeMap<String, String> {
        let mut base = BTreeMap::new();
        let layers =
            std::iter::once(&self.global).chain(session.and_then(|s| self.sessions.get(&s)));
        for layer in layers {
            for (name, value) in layer {
                match value {
                    EnvValue::Set(value) => base.insert(name.clone(), value.clone()),
                    EnvValue::Removed => base.remove(name),
                };
            }
        }
        base
    }
}

/// tmux's global environment and the own environment of each session, in
/// one call; a session that has gone meanwhile leaves only the global one.
pub(crate) fn read_for_sessions(tmux: &super::Tmux, sessions: &[u32]) -> Environments {
    use super::commands as cmd;
    let mut cmds = vec![cmd::show_global_environment()];
    cmds.extend(
        sessions
            .iter()
            .map(|s| cmd::show_session_environment(&format!("${s}"))),
    );
    let outputs = match tmux.run_apart(cmds) {
        Ok(outputs) => outputs,
        Err(_) => tmux
            .run_apart(vec![cmd::show_global_environment()])
            .unwrap_or_default(),
    };
    let mut read = Environments::default();
    let mut outputs = outputs.into_iter();
    read.global = parse_shell_environment(&outputs.next().unwrap_or_default());
    for (session, text) in sessions.iter().zip(outputs) {
        read.sessions
            .insert(*session, parse_shell_environment(&text));
    }
    read
}

/// A PATH with `dir` put in front, unless it is there already.
pub(crate) fn path_with_front(path: &str, dir: &str) -> String {
    if path.split(':').any(|entry| entry == dir) {
        return path.to_string();
    }
    if path.is_empty() {
        dir.to_string()
    } else {
        format!("{dir}:{path}")
    }
}

/// A PATH with every `dir` entry taken out and the rest left as it was.
pub(crate) fn path_without(path: &str, dir: &str) -> String {
    path.split(':')
        .filter(|entry| *entry != dir)
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_with_newlines_and_escapes() {
        let text = "A=\"x\"; export A;\nX=\"a\nPATH=evil\"; export X;\nPATH=\"/bin:/usr/bin\"; export PATH;\nY=\"has \\\"q\\\" \\$d \\`x\\` \\\\ b\"; export Y;\nunset GONE;\n";
        let vars = parse_shell_environment(text);
        assert_eq!(vars["PATH"], EnvValue::Set("/bin:/usr/bin".into()));
        assert_eq!(vars["X"], EnvValue::Set("a\nPATH=evil".into()));
        assert_eq!(vars["Y"], EnvValue::Set("has \"q\" $d `x` \\ b".into()));
        assert_eq!(vars["GONE"], EnvValue::Removed);
        assert_eq!(vars.len(), 5);
    }

    #[test]
    fn path_front_and_removal() {
        assert_eq!(path_with_front("/bin", "/s/bin"), "/s/bin:/bin");
        assert_eq!(path_with_front("/a:/s/bin:/b", "/s/bin"), "/a:/s/bin:/b");
        assert_eq!(path_with_front("", "/s/bin"), "/s/bin");
        assert_eq!(path_without("/s/bin:/a:/s/bin:/b", "/s/bin"), "/a:/b");
        assert_eq!(path_without("/a::/b", "/s/bin"), "/a::/b");
    }
}
