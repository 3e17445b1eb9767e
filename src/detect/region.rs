//! Regions: which part of a screen a rule's matchers read (reference §5.2).

use serde::Serialize;

/// What a pane shows at one moment: its rows (plain text, top to bottom),
/// its title and the last OSC 9 progress report (tmux keeps none: empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Screen {
    pub lines: Vec<String>,
    pub title: String,
    pub progress: String,
}

impl Screen {
    pub(crate) fn from_text(text: &str, title: &str) -> Screen {
        Screen {
            lines: text
                .lines()
                .map(|line| line.trim_end().to_string())
                .collect(),
            title: title.to_string(),
            progress: String::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub(crate) enum Region {
    WholeRecent,
    BottomLines(usize),
    BottomNonEmptyLines(usize),
    TopNonEmptyLines(usize),
    AfterLastHorizontalRule,
    PromptBoxBody,
    AbovePromptBox,
    LastNonEmptyAbovePromptBox,
    AfterLastPromptMarker,
    BeforeCurrentPromptMarker,
    WholeRecentWithoutCurrentPromptMarker,
    CurrentPromptBlockMarker,
    AfterCurrentPromptBlockMarker,
    OscTitle,
    OscProgress,
}

impl Region {
    /// Reads a region's name as a manifest writes it.
    pub(crate) fn parse(text: &str) -> Result<Region, String> {
        let text = text.trim();
        let counted = |name: &str| -> Option<Result<usize, String>> {
            let inner = text
                .strip_prefix(name)?
                .strip_prefix('(')?
                .strip_suffix(')')?;
            Some(parse_count(inner).ok_or_else(|| {
                format!("region {text:?}: the count must be a number from 1 to 65535")
            }))
        };
        if let Some(n) = counted("bottom_lines") {
            return n.map(Region::BottomLines);
        }
        if let Some(n) = counted("bottom_non_empty_lines") {
            return n.map(Region::BottomNonEmptyLines);
        }
        if let Some(n) = counted("top_non_empty_lines") {
            return n.map(Region::TopNonEmptyLines);
        }
        Ok(match text {
            "whole_recent" => Region::WholeRecent,
            "after_last_horizontal_rule" => Region::AfterLastHorizontalRule,
            "prompt_box_body" => Region::PromptBoxBody,
            "above_prompt_box" => Region::AbovePromptBox,
            "last_non_empty_above_prompt_box" => Region::LastNonEmptyAbovePromptBox,
            "after_last_prompt_marker" => Region::AfterLastPromptMarker,
            "before_current_prompt_marker" => Region::BeforeCurrentPromptMarker,
            "whole_recent_without_current_prompt_marker" => {
                Region::WholeRecentWithoutCurrentPromptMarker
            }
            "current_prompt_block_marker" => Region::CurrentPromptBlockMarker,
            "after_current_prompt_block_marker" => Region::AfterCurrentPromptBlockMarker,
            "osc_title" => Region::OscTitle,
            "osc_progress" => Region::OscProgress,
            other => return Err(format!("{other:?} is not a region")),
        })
    }

    /// The text of this region of `screen`, lines joined with `\n`.
    pub(crate) fn select(self, screen: &Screen) -> String {
        let lines = &screen.lines;
        let joined = |range: &[String]| range.join("\n");
        match self {
            Region::WholeRecent => joined(lines),
            Region::BottomLines(n) => joined(&lines[lines.len().saturating_sub(n)..]),
            Region::BottomNonEmptyLines(n) => {
                let non_empty: Vec<usize> = non_empty_indexes(lines);
                if non_empty.is_empty() {
                    return String::new();
                }
                let start = non_empty[non_empty.len().saturating_sub(n)];
                joined(&lines[start..])
            }
            Region::TopNonEmptyLines(n) => {
                let non_empty = non_empty_indexes(lines);
                match non_empty.get(n.saturating_sub(1)).or(non_empty.last()) {
                    Some(&end) => joined(&lines[..=end]),
                    None => String::new(),
                }
            }
            Region::AfterLastHorizontalRule => match rules(lines).last() {
                Some(&rule) => joined(&lines[rule + 1..]),
                None => joined(lines),
            },
            Region::PromptBoxBody => match prompt_box(lines) {
                Some((top, bottom)) => joined(&lines[top + 1..bottom]),
                None => String::new(),
            },
            Region::AbovePromptBox => match prompt_box(lines) {
                Some((top, _)) => joined(&lines[..top]),
                None => joined(lines),
            },
            Region::LastNonEmptyAbovePromptBox => {
                let above = match prompt_box(lines) {
                    Some((top, _)) => &lines[..top],
                    None => &lines[..],
                };
                above
                    .iter()
                    .rev()
                    .find(|line| !line.trim().is_empty())
                    .cloned()
                    .unwrap_or_default()
            }
            Region::AfterLastPromptMarker => {
                match lines.iter().rposition(|line| is_prompt_line(line)) {
                    Some(index) => joined(&lines[index + 1..]),
                    None => joined(lines),
                }
            }
            Region::BeforeCurrentPromptMarker => match current_prompt(lines) {
                Some(index) => joined(&lines[..index]),
                None => joined(lines),
            },
            Region::WholeRecentWithoutCurrentPromptMarker => match current_prompt(lines) {
                Some(_) => String::new(),
                None => joined(lines),
            },
            Region::CurrentPromptBlockMarker => match current_block_marker(lines) {
                Some(index) => lines[index].clone(),
                None => String::new(),
            },
            Region::AfterCurrentPromptBlockMarker => match current_block_marker(lines) {
                Some(index) => joined(&lines[index..]),
                None => String::new(),
            },
            Region::OscTitle => screen.title.chars().take(256).collect(),
            Region::OscProgress => screen.progress.chars().take(256).collect(),
        }
    }
}

fn parse_count(text: &str) -> Option<usize> {
    if text.is_empty() || text.starts_with('0') || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse()
        .ok()
        .filter(|n: &usize| (1..=65535).contains(n))
}

fn non_empty_indexes(lines: &[String]) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, _)| index)
        .collect()
}

/// A horizontal rule: a line of `─`, or one that starts with three or more
/// and goes on with other text (a titled border).
pub(crate) fn is_horizontal_rule(line: &str) -> bool {
    let trimmed = line.trim();
    if !trimmed.starts_with('─') {
        return false;
    }
    let leading = trimmed.chars().take_while(|&c| c == '─').count();
    leading == trimmed.chars().count() || leading >= 3
}

fn rules(lines: &[String]) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| is_horizontal_rule(line))
        .map(|(index, _)| index)
        .collect()
}

/// The prompt box: the second-to-last rule and the rule right below it.
fn prompt_box(lines: &[String]) -> Option<(usize, usize)> {
    let rules = rules(lines);
    if rules.len() < 2 {
        return None;
    }
    let top = rules[rules.len() - 2];
    Some((top, rules[rules.len() - 1]))
}

/// A Codex-style prompt line: `›` alone or `› ` and text.
fn is_prompt_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed == "›" || trimmed.starts_with("› ")
}

/// A block marker line: starts with `•`, `■`, `✗` or `✓`.
fn is_block_marker(line: &str) -> bool {
    let trimmed = line.trim_start();
    ['•', '■', '✗', '✓'].iter().any(|&c| trimmed.starts_with(c))
}

/// The last prompt line with no block marker after it.
fn current_prompt(lines: &[String]) -> Option<usize> {
    let index = lines.iter().rposition(|line| is_prompt_line(line))?;
    if lines[index + 1..].iter().any(|line| is_block_marker(line)) {
        None
    } else {
        Some(index)
    }
}

/// The last block marker line above the current prompt line.
fn current_block_marker(lines: &[String]) -> Option<usize> {
    let prompt = current_prompt(lines)?;
    lines[..prompt]
        .iter()
        .rposition(|line| is_block_marker(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(text: &str) -> Screen {
        Screen::from_text(text, "title")
    }

    #[test]
    fn parses_every_region() {
        assert_eq!(Region::parse("bottom_lines(6)"), Ok(Region::BottomLines(6)));
        assert_eq!(
            Region::parse("top_non_empty_lines(2)"),
            Ok(Region::TopNonEmptyLines(2))
        );
        assert!(Region::parse("bottom_lines(0)").is_err());
        assert!(Region::parse("bottom_lines(06)").is_err());
        assert!(Region::parse("everything").is_err());
        assert_eq!(Region::parse("osc_title"), Ok(Region::OscTitle));
    }

    #[test]
    fn bottom_regions() {
        let s = screen("a\n\nb\n\nc\n");
        assert_eq!(Region::BottomLines(2).select(&s), "\nc");
        assert_eq!(Region::BottomNonEmptyLines(2).select(&s), "b\n\nc");
        assert_eq!(Region::TopNonEmptyLines(2).select(&s), "a\n\nb");
        assert_eq!(Region::BottomNonEmptyLines(2).select(&screen("\n\n")), "");
    }

    #[test]
    fn prompt_box_regions() {
        let s = screen("reply\n───────\n❯ hi\n───────\n  ? for shortcuts");
        assert_eq!(Region::PromptBoxBody.select(&s), "❯ hi");
        assert_eq!(Region::AbovePromptBox.select(&s), "reply");
        assert_eq!(
            Region::AfterLastHorizontalRule.select(&s),
            "  ? for shortcuts"
        );
        assert_eq!(Region::LastNonEmptyAbovePromptBox.select(&s), "reply");
        assert!(is_horizontal_rule("─── Title ───"));
        assert!(!is_horizontal_rule("── x"));
    }

    #[test]
    fn codex_prompt_regions() {
        let s = screen("• Ran ls\nout\n› write\n  footer");
        assert_eq!(Region::AfterLastPromptMarker.select(&s), "  footer");
        assert_eq!(
            Region::BeforeCurrentPromptMarker.select(&s),
            "• Ran ls\nout"
        );
        assert_eq!(Region::CurrentPromptBlockMarker.select(&s), "• Ran ls");
        assert_eq!(Region::WholeRecentWithoutCurrentPromptMarker.select(&s), "");
        let done = screen("› old\n• Worked");
        assert_eq!(Region::CurrentPromptBlockMarker.select(&done), "");
    }
}
