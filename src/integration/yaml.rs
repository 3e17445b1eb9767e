//! A name in the `plugins: enabled:` list of a YAML config (Hermes's
//! config.yaml), put in and taken out line by line, so every comment and
//! line of the user's stays. The file is checked by a YAML parser before
//! and after.

use crate::envelope::{ErrorCode, Result, TawError};
use crate::paths;
use std::path::Path;

/// The file checked: its error with its line.
pub(crate) fn check(text: &str, file: &Path) -> Result<()> {
    load(text, file).map(|_| ())
}

/// The file's one document (none for an empty file).
fn load(text: &str, file: &Path) -> Result<Option<yaml_rust2::Yaml>> {
    let documents = yaml_rust2::YamlLoader::load_from_str(text).map_err(|error| {
        TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{} does not parse: line {}: {}; it was not changed",
                paths::display(file),
                error.marker().line(),
                error.info()
            ),
        )
    })?;
    if documents.len() > 1 {
        return Err(TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{} holds {} YAML documents, where its agent reads one; it was not changed",
                paths::display(file),
                documents.len()
            ),
        ));
    }
    Ok(documents.into_iter().next())
}

/// Whether the document has `plugins:` (and under it `enabled:`).
fn has_keys(document: Option<&yaml_rust2::Yaml>) -> (bool, bool) {
    let Some(document) = document else {
        return (false, false);
    };
    let plugins = &document["plugins"];
    (!plugins.is_badvalue(), !plugins["enabled"].is_badvalue())
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether a line says nothing (blank or a comment).
fn is_idle(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// A key line `key:` at `indent`, with nothing after it but a comment.
fn is_block_key(line: &str, indent: usize, key: &str) -> bool {
    indent_of(line) == indent
        && line.trim_start().strip_prefix(key).is_some_and(|rest| {
            rest.strip_prefix(':')
                .is_some_and(|after| is_idle(after) || after.trim().is_empty())
        })
}

/// The lines of the block under the key at `at`: those after it that are
/// more indented than `indent` (or say nothing), up to the first that is
/// not. Returns the end (exclusive), trailing idle lines left out.
fn block_end(lines: &[&str], at: usize, indent: usize) -> usize {
    let mut end = at + 1;
    let mut last = at + 1;
    while end < lines.len() {
        let line = lines[end];
        if is_idle(line) {
            end += 1;
            continue;
        }
        if indent_of(line) <= indent && !line.trim_start().starts_with("- ") {
            break;
        }
        if indent_of(line) < indent {
            break;
        }
        end += 1;
        last = end;
    }
    last
}

fn item_line(line: &str) -> Option<&str> {
    let item = line.trim_start().strip_prefix("- ")?;
    let item = item.split(" #").next().unwrap_or(item).trim();
    Some(item.trim_matches(['"', '\'']))
}

/// Where `plugins:` and its `enabled:` are.
struct Found {
    plugins: Option<usize>,
    enabled: Option<(usize, usize)>,
}

fn find(lines: &[&str]) -> Found {
    let Some(plugins) = lines.iter().position(|l| is_block_key(l, 0, "plugins")) else {
        return Found {
            plugins: None,
            enabled: None,
        };
    };
    let end = block_end(lines, plugins, 0);
    // `enabled:` among plugins' own keys, not deeper.
    let child = (plugins + 1..end)
        .map(|i| lines[i])
        .find(|l| !is_idle(l))
        .map(indent_of);
    let enabled = child.and_then(|child| {
        (plugins + 1..end).find_map(|i| {
            let line = lines[i];
            (!is_idle(line) && is_block_key(line, child, "enabled")).then_some((i, child))
        })
    });
    Found {
        plugins: Some(plugins),
        enabled,
    }
}

fn split(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn refuse(file: &Path) -> TawError {
    TawError::new(
        ErrorCode::InvalidConfig,
        format!(
            "{}: plugins.enabled is not a list taw can add to line by line (write it as `enabled:` with `- name` lines); it was not changed",
            paths::display(file)
        ),
    )
}

/// The file with `name` in `plugins: enabled:`.
pub(crate) fn add_enabled(text: &str, file: &Path, name: &str) -> Result<String> {
    check(text, file)?;
    let lines = split(text);
    let found = find(&lines);
    let newline = |s: &str| if s.ends_with('\n') { "" } else { "\n" };
    let result = match (found.plugins, found.enabled) {
        (None, _) => {
            if lines
                .iter()
                .any(|l| indent_of(l) == 0 && l.trim_start().starts_with("plugins:"))
            {
                return Err(refuse(file));
            }
            // A newline, then a blank line: taking the block out takes
            // one newline back.
            let gap = if text.is_empty() { "" } else { "\n" };
            format!("{text}{gap}plugins:\n  enabled:\n    - {name}\n")
        }
        (Some(plugins), None) => {
            let mut out: String = lines[..=plugins].concat();
            out.push_str(newline(&out));
            let child = lines[plugins + 1..]
                .iter()
                .find(|l| !is_idle(l))
                .map(|l| indent_of(l))
                .filter(|i| *i > 0)
                .unwrap_or(2);
            // `plugins:` that is a list itself, not a table.
            if lines[plugins + 1..block_end(&lines, plugins, 0)]
                .iter()
                .any(|l| indent_of(l) <= child && l.trim_start().starts_with("- "))
            {
                return Err(refuse(file));
            }
            out.push_str(&format!("{0}enabled:\n{0}  - {name}\n", " ".repeat(child)));
            out.push_str(&lines[plugins + 1..].concat());
            out
        }
        (Some(_), Some((at, indent))) => {
            let end = block_end(&lines, at, indent);
            let items: Vec<usize> = (at + 1..end)
                .filter(|&i| item_line(lines[i]).is_some())
                .collect();
            if items.iter().any(|&i| item_line(lines[i]) == Some(name)) {
                return Ok(text.to_string());
            }
            let (after, item_indent) = match items.last() {
                Some(&last) => (last, indent_of(lines[last])),
                None => (at, indent + 2),
            };
            let mut out: String = lines[..=after].concat();
            out.push_str(newline(&out));
            out.push_str(&format!("{}- {name}\n", " ".repeat(item_indent)));
            out.push_str(&lines[after + 1..].concat());
            out
        }
    };
    // The name must be where Hermes looks: plugins.enabled.
    let document = load(&result, file).map_err(|_| refuse(file))?;
    let listed = document.as_ref().is_some_and(|d| {
        d["plugins"]["enabled"]
            .as_vec()
            .is_some_and(|names| names.iter().any(|n| n.as_str() == Some(name)))
    });
    if !listed {
        return Err(refuse(file));
    }
    Ok(result)
}

/// The file without `name` in `plugins: enabled:`, and whether it was
/// there; an `enabled:` or `plugins:` left with nothing under it goes too.
pub(crate) fn remove_enabled(
    text: &str,
    file: &Path,
    name: &str,
    before: Option<&str>,
) -> Result<(String, bool)> {
    check(text, file)?;
    // Keys the file had before the install stay, empty or not.
    let (had_plugins, had_enabled) =
        has_keys(before.and_then(|b| load(b, file).ok().flatten()).as_ref());
    let lines = split(text);
    let found = find(&lines);
    let (Some(plugins), Some((at, indent))) = (found.plugins, found.enabled) else {
        return Ok((text.to_string(), false));
    };
    let end = block_end(&lines, at, indent);
    let Some(item) = (at + 1..end).find(|&i| item_line(lines[i]) == Some(name)) else {
        return Ok((text.to_string(), false));
    };
    let mut keep: Vec<bool> = vec![true; lines.len()];
    keep[item] = false;
    let others = (at + 1..end).any(|i| i != item && !is_idle(lines[i]));
    if !others && !had_enabled {
        keep[at] = false;
        let plugins_end = block_end(&lines, plugins, 0);
        let rest = (plugins + 1..plugins_end).any(|i| keep[i] && !is_idle(lines[i]));
        if !rest && !had_plugins {
            keep[plugins] = false;
        }
    }
    let mut out: String = lines
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(l, _)| *l)
        .collect();
    // taw's block at the end came after a newline of its own.
    if !keep[plugins] && plugins > 0 && (plugins + 1..lines.len()).all(|i| !keep[i]) {
        out.pop();
    }
    Ok((out, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_and_out_byte_for_byte() {
        let file = Path::new("config.yaml");
        for before in [
            "",
            "model: hermes-3\n",
            "model: hermes-3",
            "# mine\nplugins:\n  enabled:\n    - memory  # keep\n    - web\n\ndisplay:\n  theme: dark\n",
            "plugins:\n  disabled:\n    - old\n",
            "plugins:\n  enabled:\n  - memory\nother: 1\n",
        ] {
            let with = add_enabled(before, file, "taw-agent-session").unwrap();
            assert!(with.contains("- taw-agent-session\n"), "{with}");
            assert_eq!(add_enabled(&with, file, "taw-agent-session").unwrap(), with);
            let (without, removed) =
                remove_enabled(&with, file, "taw-agent-session", None).unwrap();
            assert!(removed);
            assert_eq!(without, before, "from {with:?}");
        }
    }

    #[test]
    fn what_it_cannot_edit_it_refuses() {
        let file = Path::new("config.yaml");
        assert!(add_enabled("plugins: [a, b]\n", file, "x").is_err());
        // Not a deeper list of the same name.
        let deeper = "plugins:\n  settings:\n    enabled:\n      - a\n";
        let with = add_enabled(deeper, file, "x").unwrap();
        assert!(
            with.starts_with("plugins:\n  enabled:\n    - x\n"),
            "{with}"
        );
        assert!(add_enabled("model: x\n...\n---\nother: 1\n", file, "x").is_err());
        // A key the user had before stays when taw's name was all it held.
        let (without, _) = remove_enabled(
            "plugins:\n  enabled:\n    - x\n",
            file,
            "x",
            Some("plugins:\n  enabled: []\n"),
        )
        .unwrap();
        assert_eq!(without, "plugins:\n  enabled:\n");
        let error = add_enabled("a: [\n", file, "x").unwrap_err();
        assert!(
            error.message.contains("does not parse"),
            "{}",
            error.message
        );
    }
}
