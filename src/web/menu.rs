//! The question and the menu on a blocked agent's screen, read from its
//! text: numbered dialogs (Claude Code, Codex, Gemini CLI), arrow menus
//! (pi), `(y/n)` prompts. Pure, tested on the agents lab's screens.

use super::state::{Asked, MenuOption};

/// Marks a TUI draws at the highlighted row.
const CURSORS: &[char] = &['❯', '›', '>', '→', '▶', '●', '»', '➤', '▸', '*'];
/// Frame characters stripped from a line's ends.
const FRAME: &[char] = &['│', '┃', '║', '┆', '┊'];
/// How many lines above a menu may hold its question.
const QUESTION_LINES: usize = 6;
const QUESTION_CHARS: usize = 600;
/// A label or description is cut at this many characters.
const TEXT_CHARS: usize = 200;

/// One row of the screen, its frame taken off.
fn bare(line: &str) -> &str {
    line.trim()
        .trim_start_matches(FRAME)
        .trim_end_matches(FRAME)
        .trim()
}

/// A line that is only a rule or a box edge.
fn is_rule(line: &str) -> bool {
    const RULE: &str = "─━╌╍┄┅┈┉═╭╮╰╯┌┐└┘├┤┬┴┼▔▁-_";
    let text = line.trim();
    text.chars().any(|c| RULE.contains(c))
        && text
            .chars()
            .all(|c| RULE.contains(c) || c == ' ' || FRAME.contains(&c))
}

/// A menu row: its cursor, its number (for a numbered menu) and label.
struct Row {
    line: usize,
    selected: bool,
    number: Option<u32>,
    label: String,
    /// Where the label starts, for the description lines under it.
    indent: usize,
}

fn cut(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(most - 1).collect();
    cut.push('…');
    cut
}

/// Reads `❯ 1. Yes`, `  2. No`, `● 1. Allow once`, `→ Yes`.
fn row(line_no: usize, line: &str, numbered: bool) -> Option<Row> {
    let text = bare(line);
    let indent = line.chars().count() - line.trim_start().chars().count();
    let (selected, rest) = match text.chars().next() {
        Some(c) if CURSORS.contains(&c) => (true, text[c.len_utf8()..].trim_start()),
        _ => (false, text),
    };
    if numbered {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let after = rest[digits.len()..].strip_prefix(['.', ')'])?;
        if digits.is_empty() || !after.starts_with(' ') {
            return None;
        }
        let label = after.trim();
        if label.is_empty() {
            return None;
        }
        Some(Row {
            line: line_no,
            selected,
            number: digits.parse().ok(),
            label: cut(label, TEXT_CHARS),
            indent,
        })
    } else {
        // An arrow menu: the marked row, and its neighbours at its place.
        if rest.is_empty() || rest.chars().count() > 80 {
            return None;
        }
        Some(Row {
            line: line_no,
            selected,
            number: None,
            label: cut(rest, TEXT_CHARS),
            indent,
        })
    }
}

/// Whether an option invites a reply of your own.
fn freeform(label: &str) -> bool {
    let label = label.to_lowercase();
    [
        "type something",
        "type your own",
        "tell claude",
        "tell codex",
        "what to do differently",
        "suggest changes",
        "none of the above",
        "chat about this",
        "something else",
    ]
    .iter()
    .any(|phrase| label.contains(phrase))
}

/// The last block of numbered rows on the screen, with the description
/// lines under each (Claude's questions): gaps of at most two lines.
fn numbered_block(lines: &[String]) -> Vec<(Row, String)> {
    let mut block: Vec<(Row, String)> = Vec::new();
    let mut gap = 0;
    for (i, line) in lines.iter().enumerate() {
        if let Some(found) = row(i, line, true) {
            let follows = block
                .last()
                .is_some_and(|(last, _)| found.number == last.number.map(|n| n + 1));
            if !follows && found.number != Some(1) {
                continue;
            }
            if !follows {
                block.clear();
            }
            block.push((found, String::new()));
            gap = 0;
            continue;
        }
        if block.is_empty() {
            continue;
        }
        gap += 1;
        let text = bare(line);
        if gap <= 2 && !text.is_empty() && !is_rule(line) {
            // Indented under its option: the option's description.
            let indent = line.chars().count() - line.trim_start().chars().count();
            if let Some((last, description)) = block.last_mut()
                && indent > last.indent
                && description.is_empty()
                && last.line + gap == i
            {
                *description = cut(text, TEXT_CHARS);
                gap = 0;
            }
        }
    }
    block
}

/// The arrow menu: a marked row with rows at the same place above or
/// under it, none numbered.
fn arrow_block(lines: &[String]) -> Vec<Row> {
    let Some(at) = lines.iter().rposition(|l| {
        let text = bare(l);
        text.starts_with(['→', '❯', '›', '▶', '➤', '▸']) && row(0, l, true).is_none()
    }) else {
        return Vec::new();
    };
    let marked = row(at, &lines[at], false);
    let Some(marked) = marked else {
        return Vec::new();
    };
    let place = |line: &str| {
        let text = line.trim_start();
        line.chars().count() - text.chars().count()
    };
    // The unmarked rows sit where the marked row's label does.
    let label_at = place(&lines[at]) + 2;
    let same = |i: usize| {
        let line = &lines[i];
        let text = bare(line);
        !text.is_empty() && !is_rule(line) && place(line) == label_at && text.chars().count() <= 80
    };
    let mut first = at;
    while first > 0 && same(first - 1) {
        first -= 1;
    }
    let mut last = at;
    while last + 1 < lines.len() && same(last + 1) {
        last += 1;
    }
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate().take(last + 1).skip(first) {
        if i == at {
            rows.push(Row {
                line: i,
                ..marked_copy(&marked)
            });
        } else if let Some(r) = row(i, line, false) {
            rows.push(r);
        }
    }
    if rows.len() < 2 { Vec::new() } else { rows }
}

fn marked_copy(row: &Row) -> Row {
    Row {
        line: row.line,
        selected: row.selected,
        number: row.number,
        label: row.label.clone(),
        indent: row.indent,
    }
}

/// The question above line `top`: up to six lines, stopping at a rule,
/// a second blank line, or a row the agent drew before the dialog.
fn question_above(lines: &[String], top: usize) -> Option<String> {
    let mut found: Vec<String> = Vec::new();
    // Blank lines in a row: a few may part the menu from its question,
    // two end the question.
    let mut blanks = 0;
    for line in lines[..top].iter().rev() {
        if is_rule(line) {
            break;
        }
        let text = bare(line);
        if text.is_empty() {
            blanks += 1;
            if blanks >= if found.is_empty() { 3 } else { 2 } {
                break;
            }
            continue;
        }
        blanks = 0;
        found.push(text.to_string());
        if found.len() >= QUESTION_LINES {
            break;
        }
    }
    found.reverse();
    let joined = found.join("\n");
    (!joined.is_empty()).then(|| cut(&joined, QUESTION_CHARS))
}

/// A menu row as an option (its id is given with the prompt's).
fn option_of(row: Row, key: String, description: String) -> MenuOption {
    MenuOption {
        id: String::new(),
        key,
        freeform: freeform(&row.label),
        label: row.label,
        description,
        selected: row.selected,
    }
}

/// What the screen asks, if it shows a menu or a yes/no prompt.
pub(crate) fn read(lines: &[String]) -> Asked {
    let block = numbered_block(lines);
    if block.len() >= 2 {
        let top = block[0].0.line;
        let menu = block
            .into_iter()
            .map(|(row, description)| {
                let key = row.number.map(|n| n.to_string()).unwrap_or_default();
                option_of(row, key, description)
            })
            .collect();
        return Asked {
            question: question_above(lines, top),
            menu,
            across: false,
        };
    }
    let arrows = arrow_block(lines);
    if !arrows.is_empty() {
        let top = arrows[0].line;
        let menu = arrows
            .into_iter()
            .enumerate()
            .map(|(i, row)| option_of(row, (i + 1).to_string(), String::new()))
            .collect();
        return Asked {
            question: question_above(lines, top),
            menu,
            across: false,
        };
    }
    // `Overwrite? (y/n)`: yes and no.
    if let Some(line) = lines.iter().rev().find(|l| {
        let lower = l.to_lowercase();
        lower.contains("(y/n)") || lower.contains("[y/n]")
    }) {
        let option = |key: &str, label: &str| MenuOption {
            id: String::new(),
            key: key.into(),
            label: label.into(),
            description: String::new(),
            selected: false,
            freeform: false,
        };
        return Asked {
            question: Some(cut(bare(line), QUESTION_CHARS)),
            menu: vec![option("y", "Yes"), option("n", "No")],
            across: false,
        };
    }
    Asked::default()
}

/// OpenCode's permission row (`Allow once   Allow always   Reject`), whose
/// choice is marked by its background alone: read from the screen's
/// colours (`ansi`, the same rows with their escapes), and offered only
/// when exactly one choice stands out.
pub(crate) fn read_across(lines: &[String], ansi: &str) -> Asked {
    let Some(at) = lines
        .iter()
        .rposition(|l| l.contains("Allow once") && l.contains("Reject"))
    else {
        return Asked::default();
    };
    let row = bare(&lines[at]);
    // The choices come before the key hints, two spaces or more apart.
    let labels: Vec<&str> = row
        .split("  ")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .take_while(|t| !t.starts_with("ctrl+") && !t.starts_with('⇆') && !t.starts_with("enter"))
        .collect();
    if labels.len() < 2 {
        return Asked::default();
    }
    use ansi_to_tui::IntoText;
    let Ok(text) = ansi.as_bytes().into_text() else {
        return Asked::default();
    };
    let Some(line) = text.lines.get(at) else {
        return Asked::default();
    };
    let background = |label: &str| {
        line.spans
            .iter()
            .find(|span| span.content.contains(label))
            .map(|span| span.style.bg)
    };
    let backgrounds: Vec<_> = labels.iter().map(|l| background(l)).collect();
    let standing_out: Vec<usize> = (0..labels.len())
        .filter(|&i| {
            backgrounds
                .iter()
                .enumerate()
                .all(|(j, other)| j == i || *other != backgrounds[i])
        })
        .collect();
    if standing_out.len() != 1 || backgrounds.iter().any(Option::is_none) {
        return Asked::default();
    }
    let start = lines[..at]
        .iter()
        .rposition(|l| bare(l).starts_with('△'))
        .unwrap_or(at.saturating_sub(QUESTION_LINES));
    let question: Vec<&str> = lines[start..at]
        .iter()
        .map(|l| bare(l))
        .filter(|l| !l.is_empty())
        .take(QUESTION_LINES)
        .collect();
    Asked {
        question: (!question.is_empty()).then(|| cut(&question.join("\n"), QUESTION_CHARS)),
        menu: labels
            .iter()
            .enumerate()
            .map(|(i, label)| MenuOption {
                id: String::new(),
                key: (i + 1).to_string(),
                label: label.to_string(),
                description: String::new(),
                selected: i == standing_out[0],
                freeform: false,
            })
            .collect(),
        across: true,
    }
}

/// How a menu takes a choice: the keys that move from the highlighted
/// row to option `index` and take it (left and right for a row across the
/// screen), or, with no row highlighted, the option's own key.
pub(crate) fn keys_to_choose(menu: &[MenuOption], index: usize, across: bool) -> Vec<String> {
    let Some(option) = menu.get(index) else {
        return Vec::new();
    };
    match menu.iter().position(|o| o.selected) {
        Some(from) => {
            let step = match (across, index >= from) {
                (false, true) => "Down",
                (false, false) => "Up",
                (true, true) => "Right",
                (true, false) => "Left",
            };
            let mut keys = vec![step.to_string(); index.abs_diff(from)];
            keys.push("Enter".into());
            keys
        }
        None if option.key == "y" || option.key == "n" => {
            vec![option.key.clone(), "Enter".into()]
        }
        None => vec![option.key.clone()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::state::screen_lines;

    /// A screen the agents lab recorded, when the lab is there beside the
    /// checkout.
    fn lab_screen(name: &str) -> Option<Vec<String>> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/agents-lab/screens")
            .join(name);
        std::fs::read_to_string(path).ok().map(|t| screen_lines(&t))
    }

    fn labels(asked: &Asked) -> Vec<&str> {
        asked.menu.iter().map(|o| o.label.as_str()).collect()
    }

    #[test]
    fn claude_codes_permission_dialog() {
        let lines = screen_lines(
            " Bash command\n Run touch x\n╌╌╌╌╌╌\n touch x\n╌╌╌╌╌╌\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow\n   3. No\n Esc to cancel · Tab to amend\n",
        );
        let asked = read(&lines);
        assert_eq!(labels(&asked), ["Yes", "Yes, and always allow", "No"]);
        assert!(asked.menu[0].selected && !asked.menu[1].selected);
        assert_eq!(asked.question.as_deref(), Some("Do you want to proceed?"));
        assert_eq!(
            keys_to_choose(&asked.menu, 2, false),
            ["Down", "Down", "Enter"]
        );
        assert_eq!(keys_to_choose(&asked.menu, 0, false), ["Enter"]);
    }

    #[test]
    fn the_labs_screens() {
        let Some(claude) = lab_screen("claude/blocked-1.txt") else {
            return;
        };
        let asked = read(&claude);
        assert_eq!(asked.menu.len(), 4);
        assert_eq!(asked.menu[3].label, "No");
        assert_eq!(asked.question.as_deref(), Some("Do you want to proceed?"));
        let question = read(&lab_screen("claude/question-1.txt").unwrap());
        assert_eq!(
            labels(&question),
            ["Red", "Green", "Blue", "Type something.", "Chat about this"]
        );
        assert_eq!(question.menu[0].description, "A warm color for the note");
        assert!(question.menu[3].freeform);
        assert_eq!(
            question.question.as_deref(),
            Some("☐ Color\nWhich color should the lab note use?")
        );
        let codex = read(&lab_screen("codex/blocked-1.txt").unwrap());
        assert_eq!(codex.menu.len(), 3);
        assert!(codex.menu[0].selected);
        assert!(codex.menu[2].freeform);
        assert!(
            codex
                .question
                .as_deref()
                .unwrap()
                .contains("Would you like to run the following command?")
        );
        let gemini = read(&lab_screen("gemini/blocked-1.txt").unwrap());
        assert_eq!(
            labels(&gemini),
            [
                "Allow once",
                "Allow for this session",
                "No, suggest changes (esc)"
            ]
        );
        assert_eq!(
            gemini.question.as_deref(),
            Some("Allow execution of [Shell]?")
        );
        let pi = read(&lab_screen("pi/blocked-1.txt").unwrap());
        assert_eq!(labels(&pi), ["Yes", "No"]);
        assert!(pi.menu[0].selected);
        assert_eq!(
            pi.question.as_deref(),
            Some(
                "⚠\u{fe0f} Dangerous command:\ntouch lab-note.txt && chmod 777 lab-note.txt\nAllow?"
            )
        );
        // A screen that asks nothing.
        assert!(
            read(&lab_screen("claude/idle-1.txt").unwrap())
                .menu
                .is_empty()
        );
    }

    /// The dialogs of the agents and releases this project recorded
    /// (tests/fixtures/screens): Qwen Code's, Kilo's, an earlier Codex's.
    #[test]
    fn recorded_dialogs_of_other_agents_and_releases() {
        let fixture = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/screens")
                .join(name);
            read(&screen_lines(&std::fs::read_to_string(path).unwrap()))
        };
        let qwen = fixture("qwen/0.24.4/blocked-1.txt");
        assert_eq!(qwen.menu.len(), 4);
        assert_eq!(qwen.menu[0].label, "Yes, allow once");
        assert!(qwen.menu[0].selected);
        // Up to six lines above the menu: Qwen Code draws no blank line.
        assert!(
            qwen.question.as_deref().unwrap().ends_with(
                "touch lab-note.txt && chmod 777 lab-note.txt\nAllow execution of: 'touch, chmod'?"
            ),
            "{:?}",
            qwen.question
        );
        let codex = fixture("codex/0.77.0/blocked-1.txt");
        assert_eq!(codex.menu.len(), 3);
        assert!(codex.menu[0].selected);
        let claude = fixture("claude/2.0.76/blocked-1.txt");
        assert_eq!(claude.menu.len(), 3);
        assert_eq!(claude.menu[0].label, "Yes");
        assert!(claude.menu[2].freeform);
    }

    #[test]
    fn yes_no_prompts() {
        let asked = read(&screen_lines("Overwrite lab-note.txt? (y/n)\n"));
        assert_eq!(labels(&asked), ["Yes", "No"]);
        assert_eq!(keys_to_choose(&asked.menu, 1, false), ["n", "Enter"]);
    }

    #[test]
    fn opencodes_permission_row_by_its_colours() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/agents-lab/screens/opencode");
        let (Ok(text), Ok(ansi)) = (
            std::fs::read_to_string(dir.join("blocked-1.txt")),
            std::fs::read_to_string(dir.join("blocked-1.ansi")),
        ) else {
            return;
        };
        let asked = read_across(&screen_lines(&text), &ansi);
        assert_eq!(labels(&asked), ["Allow once", "Allow always", "Reject"]);
        assert!(asked.menu[0].selected && !asked.menu[2].selected);
        assert!(
            asked
                .question
                .as_deref()
                .unwrap()
                .starts_with("△ Permission required")
        );
        assert_eq!(
            keys_to_choose(&asked.menu, 2, true),
            ["Right", "Right", "Enter"]
        );
        // With no colours, no choice stands out: no menu.
        assert!(read_across(&screen_lines(&text), &text).menu.is_empty());
    }
}
