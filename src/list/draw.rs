//! Drawing the popup with ratatui: a header, the list beside the preview
//! of the selected pane, and a line for prompts and hints.

use super::field::Field;
use super::keymap::{Action, Preset};
use super::rows::{self, Counts, Row, Target};
use super::state::{List, Mode};
use crate::git::Status as Git;
use crate::model::AgentStatus;
use ansi_to_tui::IntoText;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Paragraph};

/// A state's mark and colour (as the status line shows them).
pub(crate) fn mark(state: AgentStatus) -> (&'static str, Color) {
    match state {
        AgentStatus::Blocked => ("▲", Color::Red),
        AgentStatus::Done => ("✓", Color::Green),
        AgentStatus::Working => ("●", Color::Yellow),
        AgentStatus::Idle => ("○", Color::Blue),
        AgentStatus::Unknown => ("?", Color::DarkGray),
    }
}

fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

fn counts_spans(counts: &Counts) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for (n, state) in [
        (counts.blocked, AgentStatus::Blocked),
        (counts.working, AgentStatus::Working),
        (counts.done, AgentStatus::Done),
    ] {
        if n > 0 {
            let (mark, color) = mark(state);
            spans.push(Span::styled(
                format!(" {mark}{n}"),
                Style::default().fg(color),
            ));
        }
    }
    spans
}

/// A paragraph of `text` with every control character taken out: names,
/// folders and commands come from tmux as any program set them, and a
/// control character reaching the terminal would act there (clear it,
/// fake rows, set the clipboard). Every text the list draws goes here.
pub(crate) fn paragraph<'a>(text: impl Into<Text<'a>>) -> Paragraph<'a> {
    Paragraph::new(without_controls(text.into()))
}

fn without_controls(mut text: Text<'_>) -> Text<'_> {
    for span in text.lines.iter_mut().flat_map(|line| line.spans.iter_mut()) {
        if span.content.chars().any(char::is_control) {
            let shown: String = span.content.chars().filter(|c| !c.is_control()).collect();
            span.content = shown.into();
        }
    }
    text
}

fn row_line(row: &Row, filtering: bool, git: Option<&str>) -> Line<'static> {
    let indent = "  ".repeat(row.depth as usize);
    let mut spans = vec![Span::raw(indent)];
    match row.target {
        Target::Session(_) => {
            spans.push(Span::styled(
                row.label.clone(),
                Style::default().add_modifier(Modifier::BOLD),
            ));
            spans.extend(counts_spans(&row.counts));
            if let Some(git) = git {
                spans.push(Span::styled(
                    format!("  {git}"),
                    Style::default().fg(Color::Magenta),
                ));
            }
            if !row.detail.is_empty() {
                spans.push(Span::styled(format!("  {}", row.detail), dim()));
            }
        }
        Target::Window { .. } => {
            spans.push(Span::raw(row.label.clone()));
            spans.extend(counts_spans(&row.counts));
        }
        Target::Folder(_) => {
            spans.push(Span::styled("+ ", Style::default().fg(Color::Cyan)));
            spans.push(Span::raw(row.label.clone()));
            spans.push(Span::styled(format!("  {}", row.detail), dim()));
        }
        Target::Machine(_) => {
            spans.push(Span::styled(
                format!("▌{}", row.label),
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD),
            ));
            spans.push(Span::styled(format!(" — {}", row.detail), dim()));
        }
        Target::Worktree(_) => {
            spans.push(Span::styled("⎇ ", dim()));
            spans.push(Span::styled(row.label.clone(), dim()));
            spans.push(Span::styled(format!("  {}", row.detail), dim()));
        }
        Target::Pane { .. } => {
            match row.state {
                Some(state) => {
                    let (mark, color) = mark(state);
                    spans.push(Span::styled(format!("{mark} "), Style::default().fg(color)));
                    spans.push(Span::raw(row.label.clone()));
                    spans.push(Span::styled(
                        format!(" {}", state.as_str()),
                        Style::default().fg(color),
                    ));
                }
                None => {
                    spans.push(Span::styled("· ", dim()));
                    spans.push(Span::raw(row.label.clone()));
                }
            }
            if !row.detail.is_empty() {
                spans.push(Span::styled(format!("  {}", row.detail), dim()));
            }
            if (filtering || row.depth == 0) && !row.place.is_empty() {
                spans.push(Span::styled(format!("  {}", row.place), dim()));
            }
        }
    }
    Line::from(spans)
}

/// The popup, whole.
pub(crate) fn draw(frame: &mut Frame, app: &List, git: &dyn Fn(&Row) -> Option<Git>) {
    draw_in(frame, frame.area(), app, git);
}

/// The popup in one part of the frame (taw app keeps a part for toasts).
pub(crate) fn draw_in(
    frame: &mut Frame,
    whole: Rect,
    app: &List,
    git: &dyn Fn(&Row) -> Option<Git>,
) {
    // tmux draws the popup without a frame (-B): this is its frame.
    let frame_block = Block::default()
        .borders(Borders::ALL)
        .border_type(ratatui::widgets::BorderType::Rounded)
        .border_style(dim())
        .title(Span::styled(" tmux-agent-wizard ", dim()));
    let area = frame_block.inner(whole);
    frame.render_widget(frame_block, whole);
    let [header, body, footer] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
        ])
        .areas(area);
    draw_header(frame, app, header);
    match &app.mode {
        Mode::Help => draw_help(frame, app, body),
        Mode::Options => draw_options(frame, app, body),
        Mode::NewSession { field, selected } => draw_picker(frame, app, body, field, *selected),
        _ => draw_body(frame, app, body, git),
    }
    draw_footer(frame, app, footer);
}

fn draw_header(frame: &mut Frame, app: &List, area: Rect) {
    let mut total = Counts::default();
    for pane in app.snapshot.unique_panes() {
        match AgentStatus::parse(&pane.agent_state) {
            _ if pane.agent_kind.is_empty() => {}
            AgentStatus::Blocked => total.blocked += 1,
            AgentStatus::Working => total.working += 1,
            AgentStatus::Done => total.done += 1,
            _ => {}
        }
    }
    let typing = app.mode == Mode::Filter || app.keymap.preset == Preset::Search;
    let mut spans = Vec::new();
    if typing || app.filtering() {
        let sign = if app.keymap.preset == Preset::Search {
            "> "
        } else {
            "/ "
        };
        spans.push(Span::styled(sign, Style::default().fg(Color::Cyan)));
        spans.push(Span::raw(app.query.text()));
        if typing && matches!(app.mode, Mode::List | Mode::Filter) {
            put_cursor(frame, area, 2 + app.query.cursor_column());
        }
    } else {
        spans.push(Span::styled(
            "agents",
            Style::default().add_modifier(Modifier::BOLD),
        ));
    }
    let mut right = counts_spans(&total);
    if right.is_empty() {
        right.push(Span::styled(" no agent needs you", dim()));
    }
    spans.push(Span::raw("   "));
    spans.extend(right);
    frame.render_widget(paragraph(Line::from(spans)), area);
}

fn draw_body(frame: &mut Frame, app: &List, area: Rect, git: &dyn Fn(&Row) -> Option<Git>) {
    let side = app.preview_on && area.width >= 70;
    let (list_area, preview_area) = if side {
        let list_width = (area.width * 2 / 5).max(34).min(area.width - 20);
        let [l, p] = Layout::default()
            .direction(Direction::Horizontal)
            .constraints([Constraint::Length(list_width), Constraint::Min(10)])
            .areas(area);
        (l, Some(p))
    } else {
        (area, None)
    };
    draw_list(frame, app, list_area, git);
    if let Some(preview_area) = preview_area {
        draw_preview(frame, app, preview_area);
    }
}

/// A row's lines: herdr's sidebar rows when config.toml sets them for its
/// kind (an agent, a session), else one line of the popup's own.
fn row_lines(app: &List, row: &Row, git: &dyn Fn(&Row) -> Option<Git>) -> Vec<Line<'static>> {
    let status = match row.target {
        Target::Session(_) if app.options.show_git => git(row),
        _ => None,
    };
    let indent = "  ".repeat(row.depth as usize);
    let with_indent = |lines: Vec<Line<'static>>| -> Vec<Line<'static>> {
        lines
            .into_iter()
            .map(|mut line| {
                line.spans.insert(0, Span::raw(indent.clone()));
                line
            })
            .collect()
    };
    let mut lines = Vec::new();
    let mut gap = 0;
    match row.target {
        Target::Pane {
            pane,
            session,
            window,
        } if row.state.is_some() => {
            if let (Some(sidebar), Some(p)) =
                (&app.sidebar_agents, app.snapshot.pane(pane, Some(session)))
            {
                let session_name = app.snapshot.session(session).map(|s| s.name.clone());
                let window_name = app
                    .snapshot
                    .windows
                    .iter()
                    .find(|w| w.id == window)
                    .map(|w| w.name.clone());
                let state = row.state.unwrap_or(AgentStatus::Unknown);
                let value = |name: &str| -> Option<(String, Style)> {
                    let plain = |text: String| Some((text, Style::default()));
                    match name {
                        "state_icon" => {
                            let (m, color) = mark(state);
                            Some((m.to_string(), Style::default().fg(color)))
                        }
                        // The label reported for the state, else its word.
                        "state_text" => plain(
                            crate::model::state_labels(&p.meta_state_labels)
                                .and_then(|labels| {
                                    Some(labels.get(state.as_str())?.as_str()?.to_string())
                                })
                                .unwrap_or_else(|| state.as_str().to_string()),
                        ),
                        "workspace" => plain(session_name.clone()?),
                        "tab" => plain(window_name.clone()?),
                        "pane" => plain(if p.label.is_empty() {
                            format!("%{}", p.id)
                        } else {
                            p.label.clone()
                        }),
                        "agent" => plain(rows::agent_label(p)),
                        "terminal_title" => plain(p.title.clone()),
                        "terminal_title_stripped" => plain(
                            p.title
                                .trim_start_matches(|c: char| !c.is_alphanumeric())
                                .to_string(),
                        ),
                        token => plain(
                            crate::model::live_tokens(&p.meta_tokens, crate::clock::now_ms())
                                .get(token.strip_prefix('$')?)?
                                .as_str()?
                                .to_string(),
                        ),
                    }
                };
                lines = sidebar.lines(Some(&p.agent_kind), &value);
                gap = sidebar.row_gap;
            }
        }
        Target::Session(id) => {
            if let (Some(sidebar), Some(session)) =
                (&app.sidebar_sessions, app.snapshot.session(id))
            {
                let tokens = crate::model::live_tokens(&session.tokens, crate::clock::now_ms());
                let value = |name: &str| -> Option<(String, Style)> {
                    let plain = |text: String| Some((text, Style::default()));
                    match name {
                        "state_icon" => {
                            let (m, color) = mark(row.state?);
                            Some((m.to_string(), Style::default().fg(color)))
                        }
                        "state_text" => plain(row.state?.as_str().to_string()),
                        "workspace" => plain(session.name.clone()),
                        "branch" => plain(status.as_ref()?.short()),
                        "git_status" => plain(status.as_ref()?.counts()),
                        token => plain(tokens.get(token.strip_prefix('$')?)?.as_str()?.to_string()),
                    }
                };
                lines = sidebar.lines(None, &value);
                gap = sidebar.row_gap;
            }
        }
        _ => {}
    }
    if lines.is_empty() {
        let short = status.as_ref().map(Git::short);
        return vec![row_line(row, app.filtering(), short.as_deref())];
    }
    let mut lines = with_indent(lines);
    lines.extend((0..gap).map(|_| Line::raw("")));
    lines
}

fn draw_list(frame: &mut Frame, app: &List, area: Rect, git: &dyn Fn(&Row) -> Option<Git>) {
    let height = area.height as usize;
    if app.shown.is_empty() {
        let text = if app.filtering() {
            "nothing matches"
        } else {
            "no session holds an agent (n: a new session)"
        };
        frame.render_widget(paragraph(Span::styled(text, dim())), area);
        return;
    }
    // Each row's lines; the selected one highlighted, and kept in view.
    let mut lines: Vec<Line> = Vec::new();
    let mut selected_span = (0, 0);
    for (i, row) in app.shown_rows().enumerate() {
        let start = lines.len();
        let mut entry = row_lines(app, row, git);
        if i == app.selected {
            entry = entry
                .into_iter()
                .map(|l| l.style(Style::default().add_modifier(Modifier::REVERSED)))
                .collect();
        }
        lines.extend(entry);
        if i == app.selected {
            selected_span = (start, lines.len());
        }
    }
    let first = selected_span.1.saturating_sub(height).min(selected_span.0);
    let shown: Vec<Line> = lines.into_iter().skip(first).take(height).collect();
    frame.render_widget(paragraph(shown), area);
}

fn draw_preview(frame: &mut Frame, app: &List, area: Rect) {
    let block = Block::default().borders(Borders::LEFT).border_style(dim());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let wanted = app.selected_row().and_then(|r| r.preview_pane);
    let text: Text = match (&app.preview, wanted) {
        (Some((pane, screen)), Some(want)) if *pane == want => screen
            .into_text()
            .unwrap_or_else(|_| Text::raw(screen.clone())),
        (_, None) => Text::styled("nothing to show", dim()),
        _ => Text::default(),
    };
    // The bottom of the screen is where an agent asks and works.
    let mut trimmed = text;
    while trimmed.lines.last().is_some_and(|l| l.width() == 0) && trimmed.lines.len() > 1 {
        trimmed.lines.pop();
    }
    let skip = trimmed.lines.len().saturating_sub(inner.height as usize);
    let shown: Vec<Line> = trimmed.lines.into_iter().skip(skip).collect();
    frame.render_widget(paragraph(shown), inner);
}

fn draw_help(frame: &mut Frame, app: &List, area: Rect) {
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "keys ({} preset; [keys] in config.toml changes them)",
            if app.keymap.preset == Preset::Search {
                "search"
            } else {
                "modal"
            }
        ),
        Style::default().add_modifier(Modifier::BOLD),
    ))];
    for action in Action::ALL {
        let keys = app.keymap.keys_of(action);
        if keys.is_empty() {
            continue;
        }
        lines.push(Line::from(vec![
            Span::styled(
                format!("{:<22}", keys.join(" ")),
                Style::default().fg(Color::Cyan),
            ),
            Span::raw(action.describe()),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(
        "text fields: ctrl-a/e ctrl-b/f alt-b/f ctrl-d alt-d ctrl-w alt-backspace ctrl-u ctrl-k ctrl-y",
        dim(),
    )));
    lines.push(Line::from(Span::styled("any key to go back", dim())));
    frame.render_widget(paragraph(lines), area);
}

fn draw_options(frame: &mut Frame, app: &List, area: Rect) {
    let o = &app.options;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(problem) = &o.config_problem {
        lines.push(Line::styled(
            problem.clone(),
            Style::default().fg(Color::Red),
        ));
        lines.push(Line::raw(""));
    }
    lines.extend(
        [
            format!("[ui] layout = {:?}", o.layout).to_lowercase(),
            format!("[ui] depth = {:?}", o.depth).to_lowercase(),
            format!("[ui] preview = {}", o.preview),
            format!("[ui] show_git = {}", o.show_git),
            format!("[ui] confirm_close = {}", o.confirm_close),
            format!("[ui] projects_in_filter = {}", o.projects_in_filter),
            format!(
                "[keys] preset = {}",
                if app.keymap.preset == Preset::Search {
                    "search"
                } else {
                    "modal"
                }
            ),
            String::new(),
            "set in config.toml (taw config check shows where); any key to go back".into(),
        ]
        .into_iter()
        .map(Line::raw),
    );
    frame.render_widget(
        paragraph(lines).wrap(ratatui::widgets::Wrap { trim: false }),
        area,
    );
}

fn draw_picker(frame: &mut Frame, app: &List, area: Rect, field: &Field, selected: usize) {
    let [top, list] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Length(1), Constraint::Min(1)])
        .areas(area);
    let prompt = match &app.picker_place {
        Some(machine) => format!("new session on {machine} in: "),
        None => "new session in: ".to_string(),
    };
    frame.render_widget(
        paragraph(Line::from(vec![
            Span::styled(prompt.clone(), Style::default().fg(Color::Cyan)),
            Span::raw(field.text()),
        ])),
        top,
    );
    put_cursor(frame, top, prompt.chars().count() + field.cursor_column());
    let height = list.height as usize;
    let first = selected.saturating_sub(height.saturating_sub(1));
    let lines: Vec<Line> = app
        .directories
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, dir)| {
            let line = Line::raw(dir.clone());
            if i == selected {
                line.style(Style::default().add_modifier(Modifier::REVERSED))
            } else {
                line
            }
        })
        .collect();
    if lines.is_empty() {
        frame.render_widget(
            paragraph(Span::styled("type a folder (tab completes)", dim())),
            list,
        );
    } else {
        frame.render_widget(paragraph(lines), list);
    }
}

fn draw_footer(frame: &mut Frame, app: &List, area: Rect) {
    let line = match &app.mode {
        Mode::Rename { field, .. } => {
            let prompt = "rename to: ";
            put_cursor(frame, area, prompt.chars().count() + field.cursor_column());
            Line::from(vec![
                Span::styled(prompt, Style::default().fg(Color::Cyan)),
                Span::raw(field.text()),
            ])
        }
        Mode::Confirm { question, .. } => Line::from(Span::styled(
            question.clone(),
            Style::default().fg(Color::Yellow),
        )),
        Mode::NewWorktree { head, field } => {
            let repo = app
                .snapshot
                .session(*head)
                .map(|s| s.name.clone())
                .unwrap_or_default();
            let prompt = format!("new worktree of {repo}, branch: ");
            match &app.message {
                Some(message) => Line::from(Span::styled(
                    message.clone(),
                    Style::default().fg(Color::Yellow),
                )),
                None => {
                    put_cursor(frame, area, prompt.chars().count() + field.cursor_column());
                    Line::from(vec![
                        Span::styled(prompt, Style::default().fg(Color::Cyan)),
                        Span::raw(field.text()),
                        Span::styled("   enter make · tab a session instead · esc back", dim()),
                    ])
                }
            }
        }
        Mode::NewSession { .. } => match &app.message {
            Some(message) => Line::from(Span::styled(
                message.clone(),
                Style::default().fg(Color::Yellow),
            )),
            None => Line::from(Span::styled(
                "enter open · tab complete · up/down choose · esc back",
                dim(),
            )),
        },
        _ => match &app.message {
            Some(message) => Line::from(Span::styled(
                message.clone(),
                Style::default().fg(Color::Yellow),
            )),
            None => Line::from(Span::styled(hints(app), dim())),
        },
    };
    frame.render_widget(paragraph(line), area);
}

fn hints(app: &List) -> String {
    let key = |action: Action| app.keymap.keys_of(action).first().cloned();
    [
        (Action::Go, "go"),
        (Action::NextUp, "next up"),
        (Action::Filter, "filter"),
        (Action::Rename, "rename"),
        (Action::Close, "close"),
        (Action::NewSession, "new"),
        (Action::Help, "help"),
    ]
    .into_iter()
    .filter_map(|(action, word)| Some(format!("{} {word}", key(action)?)))
    .collect::<Vec<_>>()
    .join(" · ")
}

/// The cursor `column` cells into a one-line `area`, kept inside it.
fn put_cursor(frame: &mut Frame, area: Rect, column: usize) {
    let last = area.width.saturating_sub(1) as usize;
    let x = area.x as usize + column.min(last);
    frame.set_cursor_position(Position::new(x as u16, area.y));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_never_reach_the_terminal() {
        let line = Line::from(vec![
            Span::raw("/tmp/x\u{1b}[2J\u{1b}[31mFAKE"),
            Span::raw(" \u{1b}]52;c;aGk=\u{7}ok"),
        ]);
        let text = without_controls(Text::from(line));
        let shown: String = text.lines[0]
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(shown, "/tmp/x[2J[31mFAKE ]52;c;aGk=ok");
    }
}
