//! `taw app`: one full-screen list of this machine and every machine of
//! `[machines]`, each read from its feed (this one's in-process, the
//! others' over ssh), live. Enter goes to an agent (a far one through
//! `taw machine attach`) and comes back to the list when that ends;
//! toasts from every machine show at the bottom. A machine that drops is
//! marked offline and tried again by itself.

pub(crate) mod list;

use crate::config::Config;
use crate::exec::Program;
use crate::machine::{self, Heard, Machine, feed};
use crate::tmux::Tmux;
use crate::tmux::snapshot::Snapshot;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::execute;
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use list::{MachineView, Row, Target};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

/// A dropped machine is tried again after this long.
const RETRY: Duration = Duration::from_secs(5);
/// The app renews its lease on each machine this often.
const LEASE_EVERY: Duration = Duration::from_secs(20);
const TOASTS_SHOWN: usize = 3;

enum Msg {
    Key(KeyEvent),
    Redraw,
    /// A line of machine `n`'s feed.
    Line(usize, Value),
    /// Machine `n`'s feed ended, and why.
    Dropped(usize, String),
}

/// `<host>-<pid>`: who holds the lease.
fn holder() -> String {
    format!("{}-{}", feed::host_name(), std::process::id())
}

/// This machine's feed, read in this process.
fn spawn_here(tmux: Tmux, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let (mut source, first) = feed::Source::start(&tmux);
        for line in first {
            if tx.send(Msg::Line(0, line)).is_err() {
                return;
            }
        }
        loop {
            for line in source.next(true) {
                if tx.send(Msg::Line(0, line)).is_err() {
                    return;
                }
            }
        }
    });
}

/// A far machine's feed over ssh, started again when it drops.
fn spawn_far(index: usize, far: Machine, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let args: Vec<String> = ["machine", "feed", "--protocol", "1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        loop {
            let why = match machine::ssh(&far, &args, false).start_streaming() {
                Err(failure) => failure.describe("ssh"),
                Ok(mut stream) => {
                    if let Some(mut stdin) = stream.stdin.take() {
                        std::thread::spawn(move || {
                            let lease = json!({"type": "lease", "holder": holder()}).to_string();
                            while writeln!(stdin, "{lease}")
                                .and_then(|_| stdin.flush())
                                .is_ok()
                            {
                                std::thread::sleep(LEASE_EVERY);
                            }
                        });
                    }
                    if let Some(stdout) = stream.stdout.take() {
                        for line in BufReader::new(stdout).lines() {
                            let Ok(line) = line else { break };
                            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                                continue;
                            };
                            if tx.send(Msg::Line(index, value)).is_err() {
                                return;
                            }
                        }
                    }
                    let (said, status) = stream.finish();
                    said.lines()
                        .rev()
                        .map(str::trim)
                        .find(|l| !l.is_empty())
                        .map(str::to_string)
                        .unwrap_or_else(|| match status {
                            Some(code) => format!("its feed ended (ssh exited {code})"),
                            None => "its feed ended".to_string(),
                        })
                }
            };
            if tx.send(Msg::Dropped(index, why)).is_err() {
                return;
            }
            std::thread::sleep(RETRY);
        }
    });
}

/// Keys, read only while the list is on the screen (an attach has the
/// terminal to itself).
fn spawn_keys(tx: Sender<Msg>, paused: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        loop {
            if paused.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            if !event::poll(Duration::from_millis(100)).unwrap_or(false) {
                continue;
            }
            if paused.load(Ordering::Relaxed) {
                continue;
            }
            let msg = match event::read() {
                Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => Msg::Key(key),
                Ok(Event::Resize(..)) => Msg::Redraw,
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    });
}

fn enter_screen() -> std::io::Result<()> {
    terminal::enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        crossterm::cursor::Hide
    )
}

fn leave_screen() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

struct LeaveOnDrop;

impl Drop for LeaveOnDrop {
    fn drop(&mut self) {
        leave_screen();
    }
}

/// The list's state: the machines, the rows, where the selection is.
struct App {
    machines: Vec<MachineView>,
    rows: Vec<Row>,
    selected: ListState,
    /// The row to select once it is there (`--go`).
    wanted: Option<Target>,
    toasts: VecDeque<String>,
    note: Option<String>,
    /// What `/` typed: only the agents whose row holds it are gone to.
    filter: String,
    filtering: bool,
}

impl App {
    fn refresh(&mut self) {
        let at = self
            .selected
            .selected()
            .and_then(|i| self.rows.get(i))
            .and_then(|r| r.target.clone());
        self.rows = list::rows(&self.machines);
        let want = self.wanted.clone().or(at);
        let found = want.and_then(|t| self.rows.iter().position(|r| r.target.as_ref() == Some(&t)));
        if found.is_some() && self.wanted.is_some() {
            self.wanted = None;
        }
        let index = found.or_else(|| self.rows.iter().position(|r| r.target.is_some()));
        self.selected.select(index);
    }

    /// The rows that go somewhere (agents), in order.
    fn targets(&self) -> Vec<usize> {
        (0..self.rows.len())
            .filter(|i| self.rows[*i].target.is_some())
            .filter(|i| {
                self.filter.is_empty()
                    || self.rows[*i]
                        .text
                        .to_lowercase()
                        .contains(&self.filter.to_lowercase())
            })
            .collect()
    }

    /// The first or the last agent row.
    fn end(&mut self, last: bool) {
        let targets = self.targets();
        let at = if last {
            targets.last()
        } else {
            targets.first()
        };
        if let Some(at) = at {
            self.selected.select(Some(*at));
        }
    }

    /// The popup's Tab: the next agent that needs you (blocked or done)
    /// after the selection, wrapping; else the next agent.
    fn next_up(&mut self) {
        let targets = self.targets();
        let now = self.selected.selected().unwrap_or(0);
        let after: Vec<usize> = targets
            .iter()
            .copied()
            .filter(|i| *i > now)
            .chain(targets.iter().copied().filter(|i| *i <= now))
            .collect();
        let needs_you =
            |i: &usize| matches!(self.rows[*i].state.as_deref(), Some("blocked" | "done"));
        if let Some(next) = after.iter().find(|i| needs_you(i)).or(after.first()) {
            self.selected.select(Some(*next));
        }
    }

    /// Moves the selection to the next agent row up or down.
    fn step(&mut self, down: bool) {
        let targets = self.targets();
        let Some(now) = self.selected.selected() else {
            self.selected.select(targets.first().copied());
            return;
        };
        let next = if down {
            targets.iter().find(|i| **i > now)
        } else {
            targets.iter().rev().find(|i| **i < now)
        };
        if let Some(next) = next {
            self.selected.select(Some(*next));
        }
    }

    fn target(&self) -> Option<Target> {
        self.selected
            .selected()
            .and_then(|i| self.rows.get(i))
            .and_then(|r| r.target.clone())
    }
}

fn draw(frame: &mut ratatui::Frame, app: &mut App) {
    let [top, middle, bottom, help] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(TOASTS_SHOWN as u16),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(
            format!("taw app · {} machines", app.machines.len()),
            Style::default().add_modifier(Modifier::BOLD),
        ))),
        top,
    );
    let items: Vec<ListItem> = app
        .rows
        .iter()
        .map(|row| {
            let indent = "  ".repeat(row.depth as usize);
            let style = match (row.depth, row.state.as_deref()) {
                (0, _) => Style::default().add_modifier(Modifier::BOLD),
                (_, Some("blocked")) => Style::default().fg(Color::Red),
                (_, Some("done")) => Style::default().fg(Color::Green),
                (_, Some("working")) => Style::default().fg(Color::Yellow),
                _ => Style::default(),
            };
            ListItem::new(Line::from(Span::styled(
                format!("{indent}{}", row.text),
                style,
            )))
        })
        .collect();
    frame.render_stateful_widget(
        List::new(items).highlight_style(Style::default().add_modifier(Modifier::REVERSED)),
        middle,
        &mut app.selected,
    );
    let toasts: Vec<Line> = app.toasts.iter().map(|t| Line::from(t.as_str())).collect();
    frame.render_widget(Paragraph::new(toasts), bottom);
    let help_text = app.note.clone().unwrap_or_else(|| {
        "↑↓ j k move · Tab next that needs you · / filter · Enter go there · v paste the clipboard's image · q quit"
            .to_string()
    });
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(
            help_text,
            Style::default().add_modifier(Modifier::DIM),
        ))),
        help,
    );
}

/// Goes to the target: a far pane through `taw machine attach`, one here
/// by moving this client (inside tmux) or attaching (outside); back to
/// the list when that ends.
fn go(tmux: &Tmux, target: &Target, paused: &AtomicBool) -> Option<String> {
    let inside = std::env::var("TMUX").is_ok_and(|v| !v.is_empty());
    if target.machine.is_none() && inside {
        let snapshot = Snapshot::read(tmux).ok()?;
        let id = crate::tmux::ids::tmux_number(&target.pane, '%')?;
        let pane = snapshot.pane(id, None)?;
        let mine = std::env::var("TMUX_PANE").ok();
        let client = snapshot
            .clients
            .iter()
            .find(|c| snapshot.client_pane(c).map(|p| format!("%{}", p.id)) == mine)
            .or_else(|| snapshot.last_client())
            .map(|c| c.name.clone());
        return crate::ops::go::to_pane(tmux, &snapshot, pane, client.as_deref())
            .err()
            .map(|e| e.message);
    }
    let exe = std::env::current_exe().ok()?;
    let program = match &target.machine {
        Some(name) => Program::new(exe).args([
            "machine",
            "attach",
            name,
            &target.pane,
            "--holder",
            &holder(),
        ]),
        None => Program::new(exe)
            .args(tmux.socket_args())
            .args(["machine", "enter", &target.pane]),
    };
    paused.store(true, Ordering::Relaxed);
    leave_screen();
    let ran = program.limit(None).run_in_terminal();
    let _ = enter_screen();
    paused.store(false, Ordering::Relaxed);
    match ran {
        Ok(status) if status.success() => None,
        Ok(status) => Some(format!(
            "{} ended with status {}",
            target.words(),
            status.code().unwrap_or(-1)
        )),
        Err(failure) => Some(failure.describe("taw")),
    }
}

/// `v`: the clipboard's image into the agent, by `taw image paste` in a
/// process (and a group) of its own, which finishes even if the app
/// quits; the app, outside tmux, has no client to show its failure on.
fn paste_image(tmux: &Tmux, target: &Target) -> String {
    let Ok(exe) = std::env::current_exe() else {
        return "taw cannot find itself to paste".into();
    };
    let mut program =
        Program::new(exe)
            .args(tmux.socket_args())
            .args(["image", "paste", "--pane", &target.pane]);
    if let Some(machine) = &target.machine {
        program = program.args(["--machine", machine]);
    }
    match program.start_unwatched() {
        Ok(()) => format!("pasting the clipboard's image into {}", target.words()),
        Err(failure) => failure.describe("taw image paste"),
    }
}

/// `taw app [--go TARGET]`: status 0 when it quits, 2 with no terminal.
pub(crate) fn run(tmux: Tmux, go_to: Option<String>) -> i32 {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        eprintln!(
            "taw app: this is not a terminal; `taw machine list` and `taw --machine NAME agent list` print the same as JSON"
        );
        return 2;
    }
    let wanted = match go_to.as_deref() {
        None | Some("last") => std::fs::read_to_string(last_file())
            .ok()
            .and_then(|t| Target::parse(t.trim())),
        Some(text) => match Target::parse(text) {
            Some(target) => Some(target),
            None => {
                eprintln!("taw app: --go {text:?} is no target: last, %7 or <machine>:%16");
                return 2;
            }
        },
    };
    let (config, _) = Config::load_or_defaults();
    let far = machine::machines(&config);
    let mut machines = vec![MachineView::new(&feed::host_name(), true)];
    machines.extend(far.iter().map(|m| MachineView::new(&m.name, false)));
    let (tx, rx) = mpsc::channel::<Msg>();
    spawn_here(tmux.clone(), tx.clone());
    for (index, m) in far.iter().enumerate() {
        spawn_far(index + 1, m.clone(), tx.clone());
    }
    let paused = Arc::new(AtomicBool::new(false));
    spawn_keys(tx.clone(), paused.clone());
    if enter_screen().is_err() {
        eprintln!("taw app: could not take the terminal");
        return 1;
    }
    let _leave = LeaveOnDrop;
    let Ok(mut terminal) = Terminal::new(CrosstermBackend::new(std::io::stdout())) else {
        return 1;
    };
    let mut app = App {
        machines,
        rows: Vec::new(),
        selected: ListState::default(),
        wanted,
        toasts: VecDeque::new(),
        note: None,
        filter: String::new(),
        filtering: false,
    };
    app.refresh();
    loop {
        let _ = terminal.draw(|frame| draw(frame, &mut app));
        let Ok(msg) = rx.recv() else { return 0 };
        match msg {
            Msg::Key(key) => {
                let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
                if ctrl && key.code == KeyCode::Char('c') {
                    return 0;
                }
                if app.filtering {
                    match key.code {
                        KeyCode::Esc => {
                            app.filter.clear();
                            app.filtering = false;
                        }
                        KeyCode::Enter => app.filtering = false,
                        KeyCode::Backspace => {
                            app.filter.pop();
                        }
                        KeyCode::Char(c) => app.filter.push(c),
                        _ => {}
                    }
                    app.note = app.filtering.then(|| format!("/{}", app.filter));
                    if !app.filter.is_empty() {
                        app.end(false);
                    }
                    continue;
                }
                match key.code {
                    KeyCode::Char('q') | KeyCode::Esc => return 0,
                    KeyCode::Char('/') => {
                        app.filtering = true;
                        app.note = Some("/".into());
                    }
                    KeyCode::Tab => app.next_up(),
                    KeyCode::Char('g') | KeyCode::Home => app.end(false),
                    KeyCode::Char('G') | KeyCode::End => app.end(true),
                    KeyCode::Char('n') if ctrl => app.step(true),
                    KeyCode::Char('p') if ctrl => app.step(false),
                    KeyCode::Char('v') => {
                        if let Some(target) = app.target() {
                            app.note = Some(paste_image(&tmux, &target));
                        }
                    }
                    KeyCode::Down | KeyCode::Char('j') => app.step(true),
                    KeyCode::Up | KeyCode::Char('k') => app.step(false),
                    KeyCode::Enter => {
                        if let Some(target) = app.target() {
                            let _ =
                                crate::paths::write_atomic(&last_file(), target.words().as_bytes());
                            app.note = go(&tmux, &target, &paused);
                            let _ = terminal.clear();
                        }
                    }
                    _ => {}
                }
            }
            Msg::Redraw => {
                let _ = terminal.clear();
            }
            Msg::Line(index, line) => {
                // An attach of ours ended there: the person went to `go`.
                if line["type"] == "left"
                    && line["holder"].as_str() == Some(holder().as_str())
                    && let Some(machine) = app.machines.get(index)
                {
                    app.wanted =
                        Target::parse(line["go"].as_str().unwrap_or_default()).map(|t| Target {
                            machine: (!machine.here).then(|| machine.name.clone()),
                            pane: t.pane,
                        });
                }
                if let Some(machine) = app.machines.get_mut(index) {
                    if let Some(toast) = machine.take(&line) {
                        // This app holds that machine's lease: it speaks.
                        if index > 0 && line["lease"] == true {
                            let sound = match line["kind"].as_str() {
                                Some("request") => crate::notify::Sound::Request,
                                _ => crate::notify::Sound::Done,
                            };
                            let _ = crate::notify::speak_for(
                                &tmux,
                                &config,
                                &machine.name,
                                line["text"].as_str().unwrap_or_default(),
                                sound,
                                line["agent_kind"].as_str(),
                            );
                        }
                        app.toasts.push_back(toast);
                        while app.toasts.len() > TOASTS_SHOWN {
                            app.toasts.pop_front();
                        }
                    }
                    if index > 0 && line["type"] == "hello" {
                        machine::record_heard(
                            &machine.name,
                            Heard {
                                live: true,
                                last_seen: Some(crate::clock::now_ms() / 1000),
                                taw_version: line["taw"].as_str().map(str::to_string),
                                protocol: line["protocol"].as_u64().map(|p| p as u32),
                                words: "online".into(),
                            },
                        );
                    }
                }
                app.refresh();
            }
            Msg::Dropped(index, why) => {
                if let Some(machine) = app.machines.get_mut(index) {
                    machine.drop_link(&why);
                    let mut heard = machine::read_heard()
                        .remove(&machine.name)
                        .unwrap_or_default();
                    heard.live = false;
                    heard.words = why;
                    machine::record_heard(&machine.name, heard);
                }
                app.refresh();
            }
        }
    }
}

/// Where `--go last` is kept: the last target Enter went to.
fn last_file() -> std::path::PathBuf {
    crate::paths::state_dir().join("app-last")
}
