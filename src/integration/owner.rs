//! Whose hook is this? A hook entry in an agent's config is taw's when its
//! command names taw's script by a path whose folder is the script's
//! folder, however that folder is spelled. One that names the script's file
//! by a path taw cannot resolve might be taw's or might not: uninstall
//! refuses it rather than guess.

use std::path::{Component, Path, PathBuf};

/// What a hook's command says about taw's script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Owner {
    /// It runs taw's script.
    Taw,
    /// It does not name the script's file at all, or names one in another
    /// folder: the user's.
    Other,
    /// It names the script's file by this path, which cannot be resolved.
    Unsure(String),
}

/// How an agent runs a hook's command, which decides how `~/` and `$HOME/`
/// are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runner {
    /// Through a shell (Claude Code): `~/`, `$HOME/`, `${HOME}/` are the
    /// home folder.
    Shell,
    /// Not known to run a shell: such a path cannot be resolved.
    Direct,
}

/// Whose `command` is, for the script at `script` (its folder as installs
/// write it), reading `~` as `home`.
pub(crate) fn owner(command: &str, script: &Path, home: &Path, runner: Runner) -> Owner {
    let Some(file_name) = script.file_name().and_then(|n| n.to_str()) else {
        return Owner::Other;
    };
    let folder = script.parent().unwrap_or(Path::new("/"));
    owner_in(command, file_name, folder, home, runner, 0)
}

fn owner_in(
    command: &str,
    file_name: &str,
    folder: &Path,
    home: &Path,
    runner: Runner,
    depth: u32,
) -> Owner {
    let mut verdict = Owner::Other;
    let (words, operators) = words(command);
    // Taw's own hook is the script run alone (`sh '<script>' <action>`, or
    // the script as the program); a command that names it anywhere else,
    // or does more (`;`, `|`, `&&`), is the user's or might be: refused
    // rather than taken out whole.
    let alone = |index: usize| {
        !operators
            && (index == 0
                || (index == 1
                    && matches!(
                        words[0].text().as_str(),
                        "sh" | "bash" | "/bin/sh" | "/bin/bash"
                    )))
    };
    for (index, word) in words.iter().enumerate() {
        let text = word.text();
        if !mentions(&text, file_name) {
            continue;
        }
        let names_it = text == file_name
            || text
                .strip_suffix(file_name)
                .is_some_and(|rest| rest.ends_with('/'));
        if !names_it {
            // A command in a word (`sh -c '<script> session'`) is read as
            // one; the name inside any other word cannot be told.
            let inner = if depth == 0 && text.contains(char::is_whitespace) {
                owner_in(&text, file_name, folder, home, runner, depth + 1)
            } else {
                Owner::Unsure(text.clone())
            };
            match inner {
                // `sh -c '<script> <action>'`: the command in the word.
                Owner::Taw if !operators && index == 2 && words[1].text() == "-c" => {
                    return Owner::Taw;
                }
                Owner::Taw => verdict = Owner::Unsure(text.clone()),
                Owner::Unsure(path) => verdict = Owner::Unsure(path),
                Owner::Other => {}
            }
            continue;
        }
        match word_folder(word, home, runner) {
            Some(dir) => match same_folder(&dir, folder) {
                Some(true) if alone(index) => return Owner::Taw,
                Some(true) => verdict = Owner::Unsure(text),
                Some(false) => {}
                None => verdict = Owner::Unsure(text),
            },
            None => verdict = Owner::Unsure(text),
        }
    }
    verdict
}

/// Whether `text` has `file_name` as a name of its own: after its start,
/// a slash or a blank, and before its end or a character no file name
/// would go on with.
fn mentions(text: &str, file_name: &str) -> bool {
    text.match_indices(file_name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + file_name.len()..].chars().next();
        before.is_none_or(|c| c == '/' || c.is_whitespace() || "'\"=".contains(c))
            && after.is_none_or(|c| !(c.is_alphanumeric() || "._-".contains(c)))
    })
}

/// The folder a word's path names, when it can be told without running a
/// shell: an absolute path, or for a shell runner one that starts with an
/// unquoted `~/`, or with `$HOME/` or `${HOME}/` unquoted or in double
/// quotes.
fn word_folder(word: &Word, home: &Path, runner: Runner) -> Option<PathBuf> {
    let first = word.parts.first()?;
    let rest: String = word.parts[1..].iter().map(|p| p.text.as_str()).collect();
    let expandable = |part: &Part| part.quote != Quote::Single;
    // Anything but the leading home may not hold an expansion.
    let plain_after = |from: usize| {
        word.parts[from..]
            .iter()
            .all(|p| p.quote == Quote::Single || !p.text.contains(['$', '`']))
    };
    let path =
        if runner == Runner::Shell && first.quote == Quote::None && first.text.starts_with("~/") {
            if first.text[2..].contains(['$', '`']) || !plain_after(1) {
                return None;
            }
            home.join(format!("{}{rest}", &first.text[2..]))
        } else if let Some(tail) = (runner == Runner::Shell && expandable(first))
            .then(|| {
                first
                    .text
                    .strip_prefix("$HOME/")
                    .or_else(|| first.text.strip_prefix("${HOME}/"))
            })
            .flatten()
        {
            if tail.contains(['$', '`']) || !plain_after(1) {
                return None;
            }
            home.join(format!("{tail}{rest}"))
        } else {
            let text = word.text();
            let expands = word
                .parts
                .iter()
                .any(|p| p.quote != Quote::Single && p.text.contains(['$', '`']))
                || (first.quote == Quote::None && first.text.starts_with('~'));
            if !text.starts_with('/') || expands {
                return None;
            }
            PathBuf::from(text)
        };
    path.parent().map(Path::to_path_buf)
}

/// Whether `a` and `b` are one folder: the same words, or the same folder
/// through links. `None` when `a` names no folder that exists.
fn same_folder(a: &Path, b: &Path) -> Option<bool> {
    if lexical(a) == lexical(b) {
        return Some(true);
    }
    let a = std::fs::canonicalize(a).ok()?;
    Some(std::fs::canonicalize(b).is_ok_and(|b| b == a))
}

/// `path` with `.` and repeated slashes gone (`..` is kept: only the file
/// system knows where it leads through a link).
fn lexical(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// A run of a word's characters under one kind of quoting.
#[derive(Debug, Clone)]
struct Part {
    quote: Quote,
    text: String,
}

#[derive(Debug, Clone, Default)]
struct Word {
    parts: Vec<Part>,
}

impl Word {
    fn text(&self) -> String {
        self.parts.iter().map(|p| p.text.as_str()).collect()
    }

    fn push(&mut self, quote: Quote, c: char) {
        match self.parts.last_mut() {
            Some(part) if part.quote == quote => part.text.push(c),
            _ => self.parts.push(Part {
                quote,
                text: c.to_string(),
            }),
        }
    }
}

/// The words of a command line as a POSIX shell splits them, each with
/// how its characters were quoted, and whether it has operators (`;`,
/// `|`, `&`, `(`, `)`, `<`, `>`, which also end a word) outside quotes
/// and comments.
fn words(command: &str) -> (Vec<Word>, bool) {
    let mut operators = false;
    let mut words = Vec::new();
    let mut word = Word::default();
    let mut chars = command.chars();
    let mut started = false;
    let end = |word: &mut Word, started: &mut bool, words: &mut Vec<Word>| {
        if *started {
            words.push(std::mem::take(word));
        }
        *started = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                started = true;
                word.parts.push(Part {
                    quote: Quote::Single,
                    text: String::new(),
                });
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(Quote::Single, c);
                }
            }
            '"' => {
                started = true;
                word.parts.push(Part {
                    quote: Quote::Double,
                    text: String::new(),
                });
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(next) = chars.next() {
                                if !matches!(next, '$' | '`' | '"' | '\\' | '\n') {
                                    word.push(Quote::Double, '\\');
                                }
                                word.push(Quote::Single, next);
                            }
                        }
                        c => word.push(Quote::Double, c),
                    }
                }
            }
            '\\' => match chars.next() {
                // A line continued: nothing.
                Some('\n') => {}
                Some(next) => {
                    started = true;
                    word.push(Quote::Single, next);
                }
                None => {}
            },
            // A comment, to the end of its line.
            '#' if !started => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            c if c.is_whitespace() || ";|&()<>".contains(c) => {
                operators |= !c.is_whitespace();
                end(&mut word, &mut started, &mut words)
            }
            c => {
                started = true;
                word.push(Quote::None, c);
            }
        }
    }
    end(&mut word, &mut started, &mut words);
    (words, operators)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path().join("home");
        let hooks = home.join(".claude/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        let script = hooks.join("taw-agent-session.sh");
        std::fs::write(&script, "").unwrap();
        (temp, home, script)
    }

    #[test]
    fn the_scripts_path_however_spelled_is_taws() {
        let (temp, home, script) = setup();
        let s = script.display().to_string();
        let shell = |c: &str| owner(c, &script, &home, Runner::Shell);
        assert_eq!(shell(&format!("{s} session")), Owner::Taw);
        assert_eq!(shell(&format!("'{s}' session")), Owner::Taw);
        assert_eq!(shell(&format!("sh \"{s}\" session")), Owner::Taw);
        assert_eq!(
            shell("~/.claude/hooks/taw-agent-session.sh session"),
            Owner::Taw
        );
        assert_eq!(
            shell("$HOME/.claude/hooks/taw-agent-session.sh"),
            Owner::Taw
        );
        assert_eq!(
            shell("\"${HOME}/.claude/hooks/taw-agent-session.sh\" x"),
            Owner::Taw
        );
        // The quotes end before the slash: not `$HOME/` in double quotes.
        assert!(matches!(
            shell("\"$HOME\"/.claude/hooks/taw-agent-session.sh"),
            Owner::Unsure(_)
        ));
        assert_eq!(shell("~/.claude/./hooks//taw-agent-session.sh"), Owner::Taw);
        assert_eq!(shell(&format!("sh -c '{s} session'")), Owner::Taw);
        assert_eq!(shell(&format!("{s}\\\n session")), Owner::Taw);
        // A comment names nothing.
        assert_eq!(shell(&format!("echo x # {s}")), Owner::Other);
        // Named, but not run alone: the user's command, or might be.
        for theirs in [
            format!("cat {s} | logger"),
            format!("sh '{s}' session; notify-send done"),
            format!("sh -c '{s} session' && echo ok"),
            format!("sh -c 'cat {s}'"),
            format!("logger {s}"),
        ] {
            assert!(
                matches!(shell(&theirs), Owner::Unsure(_)),
                "{theirs} should be unsure, is {:?}",
                shell(&theirs)
            );
        }
        // Through a link to the folder.
        let link = temp.path().join("link");
        std::os::unix::fs::symlink(home.join(".claude"), &link).unwrap();
        assert_eq!(
            shell(&format!("{}/hooks/taw-agent-session.sh", link.display())),
            Owner::Taw
        );
    }

    #[test]
    fn others_and_unsure_ones() {
        let (temp, home, script) = setup();
        let shell = |c: &str| owner(c, &script, &home, Runner::Shell);
        assert_eq!(shell("echo hello"), Owner::Other);
        assert_eq!(
            shell("/usr/bin/notify-send taw-agent-session.shx"),
            Owner::Other
        );
        let elsewhere = temp.path().join("other");
        std::fs::create_dir_all(&elsewhere).unwrap();
        assert_eq!(
            shell(&format!("{}/taw-agent-session.sh", elsewhere.display())),
            Owner::Other
        );
        for unsure in [
            "./taw-agent-session.sh",
            "taw-agent-session.sh session",
            "~other/.claude/hooks/taw-agent-session.sh",
            "$CLAUDE_DIR/hooks/taw-agent-session.sh",
            "'~/.claude/hooks/taw-agent-session.sh'",
            "'$HOME/.claude/hooks/taw-agent-session.sh'",
            "x~/.claude/hooks/taw-agent-session.sh",
            "--hook=$HOME/.claude/hooks/taw-agent-session.sh",
            "/gone/folder/taw-agent-session.sh",
        ] {
            assert!(
                matches!(shell(unsure), Owner::Unsure(_)),
                "{unsure} should be unsure, is {:?}",
                shell(unsure)
            );
        }
        // An agent that runs no shell: ~/ cannot be read.
        assert!(matches!(
            owner(
                "~/.claude/hooks/taw-agent-session.sh",
                &script,
                &home,
                Runner::Direct
            ),
            Owner::Unsure(_)
        ));
    }

    #[test]
    fn a_missing_script_folder_still_matches_by_its_words() {
        let temp = tempfile::tempdir().unwrap();
        let script = temp.path().join("gone/hooks/taw-agent-state.sh");
        let home = temp.path().to_path_buf();
        let command = format!("{} working", script.display());
        assert_eq!(owner(&command, &script, &home, Runner::Direct), Owner::Taw);
    }
}
