//! herdr's sidebar rows (`[ui.sidebar.agents]`, `[ui.sidebar.spaces]`,
//! read as `[ui.sidebar.sessions]`): an entry drawn as rows of tokens, each
//! token's value joined to the next by ` · ` (one space after the state
//! icon), a missing value and an empty row left out, and a token's style
//! set by the first of its rules whose condition its text meets (or the
//! token hidden). Pure: values in, styled lines out.

use crate::config::{Config, Entry, Value};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
enum Condition {
    Equals(String),
    Contains(String),
    StartsWith(String),
    Greater(f64),
    Less(f64),
}

#[derive(Debug, Clone, PartialEq)]
struct Rule {
    condition: Condition,
    ignore_case: bool,
    fg: Option<Color>,
    bold: Option<bool>,
    dim: Option<bool>,
    hide: bool,
}

impl Rule {
    fn meets(&self, text: &str) -> bool {
        let fold = |s: &str| {
            if self.ignore_case {
                s.to_lowercase()
            } else {
                s.to_string()
            }
        };
        match &self.condition {
            Condition::Equals(want) => fold(text) == fold(want),
            Condition::Contains(want) => fold(text).contains(&fold(want)),
            Condition::StartsWith(want) => fold(text).starts_with(&fold(want)),
            Condition::Greater(n) => number(text).is_some_and(|v| v > *n),
            Condition::Less(n) => number(text).is_some_and(|v| v < *n),
        }
    }
}

/// The number a token's text starts with (`12`, `3.5k` is 3.5).
fn number(text: &str) -> Option<f64> {
    let digits: String = text
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '-')
        .collect();
    digits.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[derive(Debug, Clone, PartialEq)]
struct Token {
    name: String,
    fg: Option<Color>,
    bold: bool,
    dim: bool,
    rules: Vec<Rule>,
}

/// The rows of one kind of entry, as config.toml writes them.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Sidebar {
    rows: Vec<Vec<Token>>,
    by_agent: HashMap<String, Vec<Vec<Token>>>,
    pub row_gap: usize,
}

/// A token's value: its text and the style it comes with (a state icon's
/// colour). `None` when it has none, which leaves it out.
pub(crate) type Value0 = Option<(String, Style)>;

fn color(text: &str) -> Option<Color> {
    let hex = text.strip_prefix('#')?;
    let expand = |c: char| c.to_digit(16).map(|d| (d * 17) as u8);
    match hex.len() {
        3 => {
            let mut c = hex.chars();
            Some(Color::Rgb(
                expand(c.next()?)?,
                expand(c.next()?)?,
                expand(c.next()?)?,
            ))
        }
        6 => {
            let n = u32::from_str_radix(hex, 16).ok()?;
            Some(Color::Rgb((n >> 16) as u8, (n >> 8) as u8, n as u8))
        }
        _ => None,
    }
}

fn field<'a>(fields: &'a [Entry], key: &str) -> Option<&'a Value> {
    fields.iter().find(|f| f.key == key).map(|f| &f.value)
}

fn bool_field(fields: &[Entry], key: &str) -> Option<bool> {
    match field(fields, key) {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

fn float_of(value: &Value) -> Option<f64> {
    match value {
        Value::Int(n) => Some(*n as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn rule(value: &Value) -> Option<Rule> {
    let Value::Table(fields) = value else {
        return None;
    };
    let text = |key| {
        field(fields, key)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let condition = if let Some(t) = text("equals") {
        Condition::Equals(t)
    } else if let Some(t) = text("contains") {
        Condition::Contains(t)
    } else if let Some(t) = text("starts_with") {
        Condition::StartsWith(t)
    } else if let Some(n) = field(fields, "gt").and_then(float_of) {
        Condition::Greater(n)
    } else {
        Condition::Less(field(fields, "lt").and_then(float_of)?)
    };
    Some(Rule {
        condition,
        ignore_case: bool_field(fields, "ignore_case").unwrap_or(false),
        fg: text("fg").as_deref().and_then(color),
        bold: bool_field(fields, "bold"),
        dim: bool_field(fields, "dim"),
        hide: bool_field(fields, "hide").unwrap_or(false),
    })
}

fn token(value: &Value) -> Option<Token> {
    match value {
        Value::Str(name) => Some(Token {
            name: name.clone(),
            fg: None,
            bold: false,
            dim: false,
            rules: Vec::new(),
        }),
        Value::Table(fields) => Some(Token {
            name: field(fields, "token")?.as_str()?.to_string(),
            fg: field(fields, "fg").and_then(Value::as_str).and_then(color),
            bold: bool_field(fields, "bold").unwrap_or(false),
            dim: bool_field(fields, "dim").unwrap_or(false),
            rules: match field(fields, "rules") {
                Some(Value::Array(rules)) => rules.iter().filter_map(rule).collect(),
                _ => Vec::new(),
            },
        }),
        _ => None,
    }
}

fn rows(value: &Value) -> Vec<Vec<Token>> {
    let Value::Array(rows) = value else {
        return Vec::new();
    };
    rows.iter()
        .map(|row| match row {
            Value::Array(items) => items.iter().filter_map(token).collect(),
            _ => Vec::new(),
        })
        .collect()
}

impl Sidebar {
    /// The table `ui.sidebar.agents` or `ui.sidebar.sessions`, when it sets
    /// rows (else the popup's own drawing is used).
    pub(crate) fn from_config(
        config: &Config,
        table: &crate::config::schema::Table,
    ) -> Option<Sidebar> {
        let entries = config.table(table);
        let mut sidebar = Sidebar::default();
        for entry in entries {
            match entry.key.as_str() {
                "rows" => sidebar.rows = rows(&entry.value),
                "rows_by_agent" => {
                    if let Value::Table(agents) = &entry.value {
                        for agent in agents {
                            sidebar
                                .by_agent
                                .insert(agent.key.clone(), rows(&agent.value));
                        }
                    }
                }
                "row_gap" => {
                    if let Value::Int(n) = entry.value {
                        sidebar.row_gap = n.clamp(0, 10) as usize;
                    }
                }
                _ => {}
            }
        }
        (!sidebar.rows.is_empty() || !sidebar.by_agent.is_empty()).then_some(sidebar)
    }

    /// The entry's lines: `value` gives each token's text and style.
    pub(crate) fn lines(
        &self,
        agent: Option<&str>,
        value: &dyn Fn(&str) -> Value0,
    ) -> Vec<Line<'static>> {
        let rows = agent
            .and_then(|a| self.by_agent.get(a))
            .unwrap_or(&self.rows);
        rows.iter()
            .filter_map(|row| render_row(row, value))
            .collect()
    }
}

fn render_row(row: &[Token], value: &dyn Fn(&str) -> Value0) -> Option<Line<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut after_icon = false;
    for token in row {
        let Some((text, base)) = value(&token.name) else {
            continue;
        };
        if text.is_empty() {
            continue;
        }
        let mut style = base;
        if let Some(fg) = token.fg {
            style = style.fg(fg);
        }
        if token.bold {
            style = style.add_modifier(Modifier::BOLD);
        }
        if token.dim {
            style = style.add_modifier(Modifier::DIM);
        }
        if let Some(rule) = token.rules.iter().find(|r| r.meets(&text)) {
            if rule.hide {
                continue;
            }
            if let Some(fg) = rule.fg {
                style = style.fg(fg);
            }
            match rule.bold {
                Some(true) => style = style.add_modifier(Modifier::BOLD),
                Some(false) => style = style.remove_modifier(Modifier::BOLD),
                None => {}
            }
            match rule.dim {
                Some(true) => style = style.add_modifier(Modifier::DIM),
                Some(false) => style = style.remove_modifier(Modifier::DIM),
                None => {}
            }
        }
        if !spans.is_empty() {
            let gap = if after_icon { " " } else { " · " };
            spans.push(Span::styled(gap, Style::default().fg(Color::DarkGray)));
        }
        after_icon = token.name == "state_icon";
        spans.push(Span::styled(text, style));
    }
    (!spans.is_empty()).then(|| Line::from(spans))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Config {
        Config::parse(std::path::Path::new("config.toml"), text)
    }

    fn plain(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
            .collect()
    }

    fn values(name: &str) -> Value0 {
        let text = match name {
            "state_icon" => "▲",
            "workspace" => "api",
            "tab" => "claude",
            "agent" => "Claude Code",
            "state_text" => "blocked",
            "$cost" => "12",
            _ => return None,
        };
        Some((text.to_string(), Style::default()))
    }

    #[test]
    fn rows_join_tokens_and_drop_missing_ones() {
        let config = parse(
            "[ui.sidebar.agents]\nrows = [[\"state_icon\", \"workspace\", \"tab\"], [\"pane\"], [\"agent\", \"$nothing\"]]\n",
        );
        let sidebar =
            Sidebar::from_config(&config, &crate::config::schema::SIDEBAR_AGENTS).unwrap();
        assert_eq!(
            plain(&sidebar.lines(None, &values)),
            ["▲ api · claude", "Claude Code"]
        );
        assert!(Sidebar::from_config(&parse(""), &crate::config::schema::SIDEBAR_AGENTS).is_none());
    }

    #[test]
    fn the_first_rule_that_matches_styles_or_hides() {
        let config = parse(concat!(
            "[ui.sidebar.agents]\n",
            "rows = [[\"workspace\", { token = \"state_text\", rules = [",
            "{ equals = \"BLOCKED\", ignore_case = true, fg = \"#f00\", bold = true },",
            "{ contains = \"lock\", hide = true }] }, { token = \"$cost\", rules = [{ gt = 10, fg = \"#0f0\" }] }]]\n",
            "[ui.sidebar.agents.rows_by_agent]\ncodex = [[\"agent\"]]\n",
        ));
        let sidebar =
            Sidebar::from_config(&config, &crate::config::schema::SIDEBAR_AGENTS).unwrap();
        let lines = sidebar.lines(Some("claude"), &values);
        assert_eq!(plain(&lines), ["api · blocked · 12"]);
        let state = &lines[0].spans[2];
        assert_eq!(state.style.fg, Some(Color::Rgb(255, 0, 0)));
        assert!(state.style.add_modifier.contains(Modifier::BOLD));
        assert_eq!(lines[0].spans[4].style.fg, Some(Color::Rgb(0, 255, 0)));
        assert_eq!(
            plain(&sidebar.lines(Some("codex"), &values)),
            ["Claude Code"]
        );
    }
}
