//! taw's entries in an agent's TOML config (Codex's feature switch, Kimi's
//! hooks), put in and taken out keeping every other byte.

use super::owner::Owner;
use crate::envelope::{ErrorCode, Result, TawError};
use crate::paths;
use std::path::Path;
use toml_edit::{DocumentMut, Item, value};

/// The file parsed, its errors given with its name and line.
pub(crate) fn parse(text: &str, file: &Path) -> Result<DocumentMut> {
    text.parse::<DocumentMut>().map_err(|error| {
        let line = error
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        let message = error.message().trim().to_string();
        TawError::new(
            ErrorCode::InvalidConfig,
            match line {
                Some(line) => format!(
                    "{} does not parse: line {line}: {message}; it was not changed",
                    paths::display(file)
                ),
                None => format!(
                    "{} does not parse: {message}; it was not changed",
                    paths::display(file)
                ),
            },
        )
    })
}

/// Codex's config with `[features] hooks = true` and no `codex_hooks`, the
/// key's older name.
pub(crate) fn codex_feature(text: &str, file: &Path) -> Result<String> {
    let mut document = parse(text, file)?;
    let on = document
        .get("features")
        .and_then(|f| f.get("hooks"))
        .and_then(Item::as_bool)
        == Some(true);
    let old = document
        .get("features")
        .and_then(|f| f.get("codex_hooks"))
        .is_some();
    if on && !old {
        return Ok(text.to_string());
    }
    let features = document
        .entry("features")
        .or_insert_with(|| Item::Table(toml_edit::Table::new()));
    let Some(features) = features.as_table_like_mut() else {
        return Err(TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{}: features is not a table, so taw cannot turn Codex's hooks on; it was not changed",
                paths::display(file)
            ),
        ));
    };
    features.remove("codex_hooks");
    features.insert("hooks", value(true));
    Ok(crate::text::with_bom_of(text, document.to_string()))
}

/// Whether Codex's hooks were turned off in this config (`hooks = false`,
/// or the old `codex_hooks = false` with no `hooks`): taw's switch turns
/// every hook of Codex's on, the user's own too, so the install says so.
pub(crate) fn codex_hooks_turned_off(text: &str) -> bool {
    let Ok(document) = text.parse::<DocumentMut>() else {
        return false;
    };
    let Some(features) = document.get("features") else {
        return false;
    };
    let switch = |key: &str| features.get(key).and_then(Item::as_bool);
    match switch("hooks") {
        Some(on) => !on,
        None => switch("codex_hooks") == Some(false),
    }
}

fn begin_line(marker: &str) -> String {
    format!("# >>> {marker} >>>")
}

fn end_line(marker: &str) -> String {
    format!("# <<< {marker} <<<")
}

/// The file with taw's block (`body` between its marker lines) at the end;
/// a block there already is put back where it was with this body.
pub(crate) fn add_block(
    text: &str,
    file: &Path,
    marker: &str,
    body: &str,
    whose: &dyn Fn(&str) -> Owner,
) -> Result<String> {
    parse(text, file)?;
    let block = format!("{}\n{}{}\n", begin_line(marker), body, end_line(marker));
    let result = match find_block(text, file, marker)? {
        Some((start, end)) => format!("{}{block}{}", &text[..start], &text[end..]),
        None => {
            // Hooks of taw's whose marker lines a formatter dropped go
            // first: else they would run twice.
            let (text, _) = remove_block(text, file, marker, whose)?;
            // A blank line after the user's last line; a last line with no
            // newline gets one. Taking the block out takes one newline back.
            let gap = if text.is_empty() { "" } else { "\n" };
            format!("{text}{gap}{block}")
        }
    };
    parse(&result, file).map_err(|_| {
        TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{}: taw's hooks would clash with a key of the file (a `hooks` that is not a list of tables?); it was not changed",
                paths::display(file)
            ),
        )
    })?;
    Ok(result)
}

/// Where taw's block is: from its first line's start to just after its
/// last line's newline. Marker lines that do not make one block (a begin
/// whose end was deleted, two of either) are refused, changing nothing:
/// taken for a block, they could take the user's own lines with it.
fn find_block(text: &str, file: &Path, marker: &str) -> Result<Option<(usize, usize)>> {
    let (begin, end) = (begin_line(marker), end_line(marker));
    let (mut begins, mut ends) = (Vec::new(), Vec::new());
    let mut offset = 0;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == begin {
            begins.push((number + 1, offset));
        } else if bare == end {
            ends.push((number + 1, offset + line.len()));
        }
        offset += line.len();
    }
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => Ok(None),
        ([(_, start)], [(_, stop)]) if start < stop => Ok(Some((*start, *stop))),
        _ => {
            let lines: Vec<String> = begins
                .iter()
                .chain(&ends)
                .map(|(number, _)| number.to_string())
                .collect();
            Err(TawError::new(
                ErrorCode::InvalidConfig,
                format!(
                    "{}: taw's marker lines (`{begin}`, `{end}`, at lines {}) do not make one block; mend them by hand, nothing was changed",
                    paths::display(file),
                    lines.join(", ")
                ),
            ))
        }
    }
}

/// The commands of the file's `[[hooks]]`.
fn hook_commands(document: &DocumentMut) -> Vec<String> {
    document
        .get("hooks")
        .and_then(Item::as_array_of_tables)
        .map(|hooks| {
            hooks
                .iter()
                .filter_map(|t| t.get("command").and_then(Item::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The file without taw's block (and the blank line taw put before it),
/// and without any other `[[hooks]]` that runs taw's script (one whose
/// marker lines a formatter dropped). Fails, changing nothing, when a
/// hook might be taw's.
pub(crate) fn remove_block(
    text: &str,
    file: &Path,
    marker: &str,
    whose: &dyn Fn(&str) -> Owner,
) -> Result<(String, bool)> {
    for command in hook_commands(&parse(text, file)?) {
        if let Owner::Unsure(path) = whose(&command) {
            return Err(super::json::unsure(file, &path));
        }
    }
    let (mut result, mut removed) = match find_block(text, file, marker)? {
        Some((start, end)) => {
            let mut before = &text[..start];
            if !before.is_empty() {
                before = before.strip_suffix('\n').unwrap_or(before);
            }
            (format!("{before}{}", &text[end..]), true)
        }
        None => (text.to_string(), false),
    };
    let mut document = parse(&result, file)?;
    if hook_commands(&document)
        .iter()
        .any(|c| whose(c) == Owner::Taw)
        && let Some(hooks) = document
            .get_mut("hooks")
            .and_then(Item::as_array_of_tables_mut)
    {
        hooks.retain(|t| {
            t.get("command")
                .and_then(Item::as_str)
                .is_none_or(|c| whose(c) != Owner::Taw)
        });
        if hooks.is_empty() {
            document.remove("hooks");
        }
        result = crate::text::with_bom_of(text, document.to_string());
        removed = true;
    }
    Ok((result, removed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_gets_its_switch_and_loses_the_old_name() {
        let file = Path::new("config.toml");
        let text = "# mine\nmodel = \"o3\"\n\n[features]\ncodex_hooks = true\nplugins = false\n";
        let result = codex_feature(text, file).unwrap();
        assert!(result.starts_with("# mine\nmodel = \"o3\"\n"));
        assert!(result.contains("hooks = true"));
        assert!(!result.contains("codex_hooks"));
        assert!(result.contains("plugins = false"));
        assert_eq!(codex_feature(&result, file).unwrap(), result);
        let fresh = codex_feature("model = \"x\"\n", file).unwrap();
        assert!(fresh.contains("[features]\nhooks = true"), "{fresh}");
    }

    #[test]
    fn a_byte_order_mark_stays() {
        let file = Path::new("config.toml");
        let result = codex_feature("\u{feff}model = \"o3\"\n", file).unwrap();
        assert!(result.starts_with("\u{feff}model = \"o3\"\n"), "{result:?}");
        assert!(result.contains("hooks = true"));
    }

    #[test]
    fn hooks_turned_off_are_told() {
        assert!(codex_hooks_turned_off("[features]\nhooks = false\n"));
        assert!(codex_hooks_turned_off("[features]\ncodex_hooks = false\n"));
        assert!(!codex_hooks_turned_off(
            "[features]\nhooks = true\ncodex_hooks = false\n"
        ));
        assert!(!codex_hooks_turned_off("[features]\nplugins = false\n"));
        assert!(!codex_hooks_turned_off("model = \"o3\"\n"));
        assert!(!codex_hooks_turned_off("features = "));
    }

    fn whose(command: &str) -> Owner {
        if command.starts_with("/x/taw-agent-state.sh") {
            Owner::Taw
        } else if command.contains("taw-agent-state.sh") {
            Owner::Unsure(command.into())
        } else {
            Owner::Other
        }
    }

    #[test]
    fn hooks_of_taws_without_their_markers_go_and_unsure_ones_refuse() {
        let file = Path::new("config.toml");
        let text = "a = 1\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"mine\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/taw-agent-state.sh idle\"\n";
        let (without, removed) = remove_block(text, file, "taw kimi", &whose).unwrap();
        assert!(removed);
        assert!(
            without.contains("mine") && !without.contains("taw-agent-state"),
            "{without}"
        );
        let unsure =
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"sh ./hooks/taw-agent-state.sh idle\"\n";
        let error = remove_block(unsure, file, "taw kimi", &whose).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn a_block_goes_in_and_out_byte_for_byte() {
        let file = Path::new("config.toml");
        let body = "[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/taw-agent-state.sh idle\"\n";
        for before in [
            "",
            "default_model = \"k2\"\n",
            "default_model = \"k2\"\n\n",
            "default_model = \"k2\"",
            "# comment\n[[hooks]]\nevent = \"Stop\"\ncommand = \"mine\"\n",
        ] {
            let with = add_block(before, file, "taw kimi", body, &whose).unwrap();
            assert!(with.contains(body));
            assert_eq!(
                add_block(&with, file, "taw kimi", body, &whose).unwrap(),
                with
            );
            let (without, removed) = remove_block(&with, file, "taw kimi", &whose).unwrap();
            assert!(removed);
            assert_eq!(without, before, "from {with:?}");
        }
        let error = add_block("a = \n", file, "taw kimi", body, &whose).unwrap_err();
        assert!(error.message.contains("line 1"), "{}", error.message);
        assert!(add_block("hooks = 1\n", file, "taw kimi", body, &whose).is_err());
    }

    #[test]
    fn markers_that_make_no_block_are_refused() {
        let file = Path::new("config.toml");
        let body = "[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/taw-agent-state.sh idle\"\n";
        // A begin whose end was deleted, before the user's own hooks.
        let stray = "# >>> taw kimi >>>\n[[hooks]]\nevent = \"Stop\"\ncommand = \"mine\"\n";
        let error = add_block(stray, file, "taw kimi", body, &whose).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidConfig);
        assert!(error.message.contains("line"), "{}", error.message);
        assert!(remove_block(stray, file, "taw kimi", &whose).is_err());
    }

    #[test]
    fn hooks_of_taws_without_markers_are_not_added_twice() {
        let file = Path::new("config.toml");
        let body = "[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/taw-agent-state.sh idle\"\n";
        let formatted =
            "a = 1\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/taw-agent-state.sh idle\"\n";
        let with = add_block(formatted, file, "taw kimi", body, &whose).unwrap();
        assert_eq!(with.matches("taw-agent-state.sh").count(), 1, "{with}");
        assert!(with.starts_with("a = 1\n"), "{with}");
    }
}
