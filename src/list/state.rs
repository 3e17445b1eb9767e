//! The popup's state and what each key does to it: pure, so tests drive it
//! key by key. What must touch tmux comes out as an [`Effect`], which the
//! loop in `mod.rs` carries out.

use super::field::{Edit, Field};
use super::keymap::{Action, Key, Keymap, Preset};
use super::rows::{self, Depth, Layout, Row, Target};
use crate::model::AgentStatus;
use crate::model::nextup;
use crate::tmux::snapshot::Snapshot;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Matcher, Utf32Str};
use std::collections::HashSet;

/// The `[ui]` settings the popup reads.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub layout: Layout,
    pub depth: Depth,
    pub preview: bool,
    pub show_git: bool,
    pub confirm_close: bool,
    /// List the picker's folders (the first eight) under the filter's hits.
    pub projects_in_filter: bool,
    pub home: String,
    /// Open with the new-session picker, and Esc there closes the popup.
    pub new_session: bool,
    /// What is wrong with config.toml, when something is: the popup runs on
    /// the defaults in its place, and the options page says so.
    pub config_problem: Option<String>,
}

/// tmux's prefix keys, and what taw binds after them.
#[derive(Debug, Clone, Default)]
pub(crate) struct TmuxKeys {
    pub prefixes: Vec<Key>,
    /// `@agent-wizard-notification-key`: the next agent that needs you.
    pub notification: Option<Key>,
    /// `@agent-wizard-key`: the popup's own key, which closes it here.
    pub popup: Option<Key>,
}

/// What the loop must do for the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    Quit,
    /// Go to the next agent that needs you, as the notification key does
    /// outside the popup, and close.
    OpenTarget,
    /// Bring the target in front of the popup's client, and close.
    Go(Target),
    Rename(Target, String),
    Close(Target),
    /// Close a repository's session with its worktree sessions.
    CloseGroup(u32),
    /// Make a worktree of `branch` from the repository of session `head`,
    /// and go to its session.
    NewWorktree {
        head: u32,
        branch: String,
    },
    /// Open the session of a worktree no session runs, and go there.
    OpenWorktree {
        head: u32,
        path: String,
    },
    /// Remove a worktree no session runs (`force`: with its changes).
    RemoveWorktree {
        head: u32,
        path: String,
        force: bool,
    },
    /// Open (or create) a session for a directory, and go there.
    OpenSession(String),
    /// Paste the clipboard's image into an agent's pane.
    PasteImage(u32),
    /// Fetch the preview of a pane.
    Preview(u32),
    /// List the directories the new-session picker offers for a query.
    Directories(String),
    /// The folders `[ui] projects_in_filter` offers for a query ("" for
    /// the list; a path for what it completes to).
    Projects(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mode {
    List,
    /// The modal preset's filter, being typed.
    Filter,
    Rename {
        target: Target,
        field: Field,
    },
    /// A question; `y` does `on_yes`.
    Confirm {
        on_yes: Effect,
        question: String,
    },
    /// The branch of a new worktree of session `head`'s repository.
    NewWorktree {
        head: u32,
        field: Field,
    },
    NewSession {
        field: Field,
        selected: usize,
    },
    Help,
    Options,
}

pub(crate) struct List {
    pub keymap: Keymap,
    pub options: Options,
    pub snapshot: Snapshot,
    /// Every row, as the layout and folds make them.
    rows: Vec<Row>,
    /// The rows on screen: indices into `rows`, filtered and ranked.
    pub shown: Vec<usize>,
    pub selected: usize,
    pub mode: Mode,
    pub query: Field,
    pub collapsed: HashSet<u32>,
    pub preview_on: bool,
    /// The pane the preview shows and its text (with colours).
    pub preview: Option<(u32, String)>,
    /// A line for the person: what went wrong, what a key needs.
    pub message: Option<String>,
    /// Directories the new-session picker lists, and the text they answer.
    pub directories: Vec<String>,
    pub directories_for: String,
    /// tmux's prefix keys (prefix, prefix2), which win over every key here,
    /// and the keys taw binds after them that work in the popup too.
    pub tmux_keys: TmuxKeys,
    /// A prefix key came: the next key is read as tmux would.
    after_prefix: bool,
    /// herdr's sidebar rows, when config.toml sets them.
    pub sidebar_agents: Option<super::tokens::Sidebar>,
    pub sidebar_sessions: Option<super::tokens::Sidebar>,
    /// The folders `[ui] projects_in_filter` offers, the folders a query
    /// that is a path completes to (and that query), and those the query
    /// ranks now (what a folder row's index points into).
    pub projects: Vec<String>,
    completions: (String, Vec<String>),
    folder_hits: Vec<String>,
    /// The worktrees of the repositories' sessions that no session runs.
    pub closed_worktrees: Vec<rows::ClosedWorktree>,
    /// Headings, each over the sessions of a span of ids (taw app's
    /// machines; none in the popup).
    pub sections: Vec<rows::Section>,
    /// Where the new-session picker opens a session when that is not here
    /// (a machine's name, said in its prompt).
    pub picker_place: Option<String>,
    matcher: Matcher,
}

/// A row to find again after a rebuild. A folder's and a closed
/// worktree's targets are their places in lists that change under them (a
/// completion arrives, a worktree is added before it): those are found by
/// their folder, so the cursor (and an `x`) never lands on another.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kept {
    Row(Target),
    Folder(String),
    Worktree(String),
}

impl Kept {
    fn is(&self, row: &Row) -> bool {
        match self {
            Kept::Row(target) => row.target == *target,
            Kept::Folder(path) => matches!(row.target, Target::Folder(_)) && row.path == *path,
            Kept::Worktree(path) => matches!(row.target, Target::Worktree(_)) && row.path == *path,
        }
    }
}

impl List {
    pub(crate) fn new(keymap: Keymap, options: Options, snapshot: Snapshot) -> List {
        let mode = if options.new_session {
            Mode::NewSession {
                field: Field::default(),
                selected: 0,
            }
        } else {
            Mode::List
        };
        let mut app = List {
            keymap,
            preview_on: options.preview,
            options,
            snapshot,
            rows: Vec::new(),
            shown: Vec::new(),
            selected: 0,
            mode,
            query: Field::default(),
            collapsed: HashSet::new(),
            preview: None,
            message: None,
            directories: Vec::new(),
            directories_for: String::new(),
            projects: Vec::new(),
            completions: (String::new(), Vec::new()),
            folder_hits: Vec::new(),
            closed_worktrees: Vec::new(),
            sections: Vec::new(),
            picker_place: None,
            sidebar_agents: None,
            sidebar_sessions: None,
            tmux_keys: TmuxKeys::default(),
            after_prefix: false,
            matcher: Matcher::new(nucleo_matcher::Config::DEFAULT),
        };
        app.rebuild(None);
        app
    }

    /// The rows on screen, in order.
    pub(crate) fn shown_rows(&self) -> impl Iterator<Item = &Row> {
        self.shown.iter().map(|&i| &self.rows[i])
    }

    /// The position on screen of the first row that `is_it`.
    fn find_row(&self, is_it: impl Fn(&Row) -> bool) -> Option<usize> {
        self.shown.iter().position(|&i| is_it(&self.rows[i]))
    }

    pub(crate) fn selected_row(&self) -> Option<&Row> {
        self.shown.get(self.selected).map(|&i| &self.rows[i])
    }

    pub(crate) fn filtering(&self) -> bool {
        !self.query.is_empty()
    }

    /// A new snapshot: the list is rebuilt, the selection kept on its row.
    pub(crate) fn update(&mut self, snapshot: Snapshot) -> Vec<Effect> {
        let keep = self.kept();
        self.snapshot = snapshot;
        self.rebuild(keep);
        self.preview_effect()
    }

    /// Selects the row of the pane the client shows, at the start.
    pub(crate) fn select_pane(&mut self, pane: u32) {
        let at = self
            .find_row(|r| matches!(r.target, Target::Pane { pane: p, .. } if p == pane))
            .or_else(|| {
                let session = self.snapshot.pane(pane, None)?.session;
                self.find_row(|r| r.target == Target::Session(session))
            });
        if let Some(at) = at {
            self.selected = at;
        }
    }

    /// The selected row, to find again once the rows are built anew.
    fn kept(&self) -> Option<Kept> {
        let row = self.selected_row()?;
        Some(match row.target {
            Target::Folder(_) => Kept::Folder(row.path.clone()),
            Target::Worktree(_) => Kept::Worktree(row.path.clone()),
            target => Kept::Row(target),
        })
    }

    fn rebuild(&mut self, keep: Option<Kept>) {
        let no_folds = HashSet::new();
        let folds = if self.filtering() {
            &no_folds
        } else {
            &self.collapsed
        };
        self.rows = rows::build(
            &self.snapshot,
            self.options.layout,
            self.options.depth,
            folds,
            &self.options.home,
            &self.closed_worktrees,
            &self.sections,
        );
        self.refilter();
        if let Some(at) = keep.and_then(|keep| self.find_row(|r| keep.is(r))) {
            self.selected = at;
        }
        self.selected = self.selected.min(self.shown.len().saturating_sub(1));
    }

    /// Ranks the rows against the query, as fzf does; all rows in order
    /// when there is none.
    fn refilter(&mut self) {
        let query = self.query.text();
        if query.trim().is_empty() {
            self.shown = (0..self.rows.len()).collect();
            return;
        }
        let pattern = Pattern::parse(&query, CaseMatching::Smart, Normalization::Smart);
        let mut buffer = Vec::new();
        let mut scored: Vec<(u32, usize)> = self
            .rows
            .iter()
            .enumerate()
            .filter_map(|(i, row)| {
                let text = format!("{} {}", row.search, row.place);
                let score = pattern.score(Utf32Str::new(&text, &mut buffer), &mut self.matcher)?;
                Some((score, i))
            })
            .collect();
        // Best first; a tie keeps tmux's order.
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.shown = scored.into_iter().map(|(_, i)| i).collect();
        if self.options.projects_in_filter {
            self.folder_hits = if looks_like_path(&query) {
                // The folders it completes to, once the worker has them.
                if self.completions.0 == query {
                    self.completions.1.iter().take(8).cloned().collect()
                } else {
                    Vec::new()
                }
            } else {
                crate::sessions::folders::rank(&self.projects, &query)
                    .into_iter()
                    .take(8)
                    .collect()
            };
            for (i, folder) in self.folder_hits.iter().enumerate() {
                self.rows.push(Row {
                    target: Target::Folder(i as u32),
                    depth: 0,
                    label: folder.clone(),
                    detail: "open a session here".into(),
                    place: String::new(),
                    state: None,
                    counts: rows::Counts::default(),
                    preview_pane: None,
                    path: folder.clone(),
                    search: folder.clone(),
                });
                self.shown.push(self.rows.len() - 1);
            }
        }
    }

    /// The worktrees no session runs, as the worker found them.
    pub(crate) fn set_closed_worktrees(&mut self, closed: Vec<rows::ClosedWorktree>) {
        if closed != self.closed_worktrees {
            let keep = self.kept();
            self.closed_worktrees = closed;
            self.rebuild(keep);
        }
    }

    /// Folders for `[ui] projects_in_filter`: the list (for an empty
    /// `query`), or what a query that is a path completes to.
    pub(crate) fn set_projects(&mut self, query: String, projects: Vec<String>) {
        if query.is_empty() {
            self.projects = projects;
        } else {
            self.completions = (query, projects);
        }
        if self.filtering() {
            self.rebuild(self.kept());
        }
    }

    /// The query changed: the list ranked again from the top, and for a
    /// path, its completions asked for.
    fn query_changed(&mut self) -> Vec<Effect> {
        self.selected = 0;
        self.rebuild(None);
        let mut effects = self.preview_effect();
        let query = self.query.text();
        if self.options.projects_in_filter && looks_like_path(&query) {
            effects.push(Effect::Projects(query));
        }
        effects
    }

    /// The preview of the selected row, when the preview is on.
    pub(crate) fn preview_effect(&self) -> Vec<Effect> {
        match self.selected_row().and_then(|r| r.preview_pane) {
            Some(pane) if self.preview_on => vec![Effect::Preview(pane)],
            _ => Vec::new(),
        }
    }

    fn select(&mut self, at: usize) -> Vec<Effect> {
        if self.shown.is_empty() {
            return Vec::new();
        }
        self.selected = at.min(self.shown.len() - 1);
        self.preview_effect()
    }

    /// A key: what it changes, and what the loop must do.
    pub(crate) fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        // Any key leaves the help and the settings screens, tmux's prefix
        // too.
        if matches!(self.mode, Mode::Help | Mode::Options) {
            self.mode = Mode::List;
            return Vec::new();
        }
        self.message = None;
        // tmux's prefix wins over every key of the popup's.
        let pressed = Key::of(key);
        if std::mem::take(&mut self.after_prefix) {
            if Some(pressed) == self.tmux_keys.notification {
                return vec![Effect::OpenTarget];
            }
            if Some(pressed) == self.tmux_keys.popup {
                return vec![Effect::Quit];
            }
            self.message = Some(format!(
                "prefix {} does nothing in the popup",
                super::keymap::describe(pressed)
            ));
            return Vec::new();
        }
        if self.tmux_keys.prefixes.contains(&pressed) {
            self.after_prefix = true;
            return Vec::new();
        }
        match std::mem::replace(&mut self.mode, Mode::List) {
            Mode::List => self.list_key(key),
            Mode::Filter => self.filter_key(key),
            Mode::Rename { target, field } => self.rename_key(key, target, field),
            Mode::Confirm { on_yes, question } => self.confirm_key(key, on_yes, question),
            Mode::NewWorktree { head, field } => self.new_worktree_key(key, head, field),
            Mode::NewSession { field, selected } => self.new_session_key(key, field, selected),
            Mode::Help | Mode::Options => Vec::new(),
        }
    }

    fn list_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let action = self.keymap.action(key);
        if self.keymap.preset == Preset::Search {
            // Typing filters; a [keys] entry answers before the field.
            if !self.keymap.is_configured(key) {
                if is_quit_on_empty(key) && self.query.is_empty() {
                    return vec![Effect::Quit];
                }
                if action.is_none() || is_text_key(key) {
                    if self.query.key(key) == Edit::Changed {
                        return self.query_changed();
                    }
                    if action.is_none() {
                        return Vec::new();
                    }
                }
            }
        }
        match action {
            Some(action) => self.act(action),
            None => Vec::new(),
        }
    }

    fn act(&mut self, action: Action) -> Vec<Effect> {
        let last = self.shown.len().saturating_sub(1);
        match action {
            Action::Quit => self.quit(),
            Action::Up => self.select(self.selected.saturating_sub(1)),
            Action::Down => self.select((self.selected + 1).min(last)),
            Action::Top => self.select(0),
            Action::Bottom => self.select(last),
            Action::Go => self.go(),
            Action::Filter => {
                if self.keymap.preset == Preset::Modal {
                    self.mode = Mode::Filter;
                }
                Vec::new()
            }
            Action::NextUp => self.next_up(),
            Action::NextSession => self.step_session(true),
            Action::PreviousSession => self.step_session(false),
            Action::Expand => self.fold(false),
            Action::Collapse => self.fold(true),
            Action::TogglePreview => {
                self.preview_on = !self.preview_on;
                self.preview_effect()
            }
            Action::Rename => self.start_rename(),
            Action::Close => self.close(),
            Action::NewSession => self.new_session(),
            Action::Help => {
                self.mode = Mode::Help;
                Vec::new()
            }
            Action::Options => {
                self.mode = Mode::Options;
                Vec::new()
            }
            Action::PasteImage => self.paste_image(),
        }
    }

    /// Quit; in the modal preset with a filter typed, the filter goes first.
    fn quit(&mut self) -> Vec<Effect> {
        if self.keymap.preset == Preset::Modal && self.filtering() {
            self.query.clear();
            self.rebuild(self.kept());
            return self.preview_effect();
        }
        vec![Effect::Quit]
    }

    /// Enter: a folder row opens its session, a closed worktree's row its
    /// worktree, any other row is gone to.
    fn go(&self) -> Vec<Effect> {
        let Some(target) = self.selected_row().map(|r| r.target) else {
            return Vec::new();
        };
        let effect = match target {
            Target::Folder(i) => self
                .folder_hits
                .get(i as usize)
                .map(|folder| Effect::OpenSession(folder.clone())),
            Target::Worktree(_) => self.closed_worktree(target).map(|w| Effect::OpenWorktree {
                head: w.head,
                path: w.path.clone(),
            }),
            target => Some(Effect::Go(target)),
        };
        effect.into_iter().collect()
    }

    /// The next (or the previous) session's row.
    fn step_session(&mut self, forward: bool) -> Vec<Effect> {
        let sessions: Vec<usize> = self
            .shown_rows()
            .enumerate()
            .filter(|(_, r)| matches!(r.target, Target::Session(_)))
            .map(|(i, _)| i)
            .collect();
        let to = if forward {
            sessions.iter().find(|&&i| i > self.selected).copied()
        } else {
            sessions.iter().rev().find(|&&i| i < self.selected).copied()
        };
        match to {
            Some(at) => self.select(at),
            None => Vec::new(),
        }
    }

    /// Folds (or unfolds) the selected row's session.
    fn fold(&mut self, collapse: bool) -> Vec<Effect> {
        let Some(session) = self.selected_row().and_then(|r| r.target.session()) else {
            return Vec::new();
        };
        let changed = if collapse {
            self.collapsed.insert(session)
        } else {
            self.collapsed.remove(&session)
        };
        if changed {
            self.rebuild(Some(Kept::Row(Target::Session(session))));
        }
        self.preview_effect()
    }

    /// The rename field, with the selected row's name in it.
    fn start_rename(&mut self) -> Vec<Effect> {
        let Some(row) = self.selected_row().filter(|r| r.target.session().is_some()) else {
            return Vec::new();
        };
        let current = self.current_name(row.target);
        self.mode = Mode::Rename {
            target: row.target,
            field: Field::with(&current),
        };
        Vec::new()
    }

    /// x: a closed worktree is removed, anything else closed, each asked
    /// about first as `[ui] confirm_close` says.
    fn close(&mut self) -> Vec<Effect> {
        let Some(target) = self.selected_row().map(|r| r.target) else {
            return Vec::new();
        };
        if let Some(worktree) = self.closed_worktree(target).cloned() {
            let remove = Effect::RemoveWorktree {
                head: worktree.head,
                path: worktree.path.clone(),
                force: false,
            };
            if !self.options.confirm_close {
                return vec![remove];
            }
            let question = format!(
                "remove worktree {} at {} (git worktree remove)? y/n",
                worktree.name(),
                worktree.path
            );
            self.ask(question, remove);
            return Vec::new();
        }
        if target.session().is_none() {
            return Vec::new();
        }
        // A close that ends a repository's session asks about its
        // worktree sessions, whatever [ui] confirm_close says.
        if let Some(session) = self.group_closed_by(target) {
            self.ask(
                self.group_question(target, session),
                Effect::CloseGroup(session),
            );
            return Vec::new();
        }
        if !self.options.confirm_close {
            return vec![Effect::Close(target)];
        }
        self.ask(self.close_question(target), Effect::Close(target));
        Vec::new()
    }

    /// n: in a repository's group, a new worktree of it; elsewhere, the
    /// new-session picker.
    fn new_session(&mut self) -> Vec<Effect> {
        let head = self
            .selected_row()
            .and_then(|r| {
                r.target
                    .session()
                    .or_else(|| self.closed_worktree(r.target).map(|w| w.head))
            })
            .and_then(|s| crate::ops::worktree::head_of(&self.snapshot, s));
        if let Some(head) = head {
            self.mode = Mode::NewWorktree {
                head,
                field: Field::default(),
            };
            return Vec::new();
        }
        self.directories.clear();
        self.mode = Mode::NewSession {
            field: Field::default(),
            selected: 0,
        };
        vec![Effect::Directories(String::new())]
    }

    /// v: the clipboard's image into the selected agent.
    fn paste_image(&mut self) -> Vec<Effect> {
        match self.selected_row() {
            // The list pastes only into an agent's row.
            Some(Row {
                target: Target::Pane { pane, .. },
                state: Some(_),
                ..
            }) => vec![Effect::PasteImage(*pane)],
            _ => {
                self.message = Some("the clipboard's image goes into an agent's row".into());
                Vec::new()
            }
        }
    }

    fn filter_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let action = self.keymap.action(key);
        match key.code {
            KeyCode::Esc => {
                self.query.clear();
                self.rebuild(self.kept());
                return self.preview_effect();
            }
            KeyCode::Enter => return self.act(Action::Go),
            KeyCode::Up | KeyCode::Down | KeyCode::Tab => {
                self.mode = Mode::Filter;
                return action.map(|a| self.act(a)).unwrap_or_default();
            }
            _ => {}
        }
        if matches!(action, Some(Action::Up | Action::Down)) && key_has_ctrl(key) {
            self.mode = Mode::Filter;
            return self.act(action.unwrap_or(Action::Up));
        }
        self.mode = Mode::Filter;
        if self.query.key(key) == Edit::Changed {
            return self.query_changed();
        }
        Vec::new()
    }

    fn rename_key(&mut self, key: KeyEvent, target: Target, mut field: Field) -> Vec<Effect> {
        match key.code {
            KeyCode::Esc => Vec::new(),
            KeyCode::Enter => {
                let name = field.text().trim().to_string();
                if name.is_empty() && !matches!(target, Target::Pane { .. }) {
                    self.message = Some("a name cannot be empty".into());
                    self.mode = Mode::Rename { target, field };
                    return Vec::new();
                }
                vec![Effect::Rename(target, name)]
            }
            _ => {
                field.key(key);
                self.mode = Mode::Rename { target, field };
                Vec::new()
            }
        }
    }

    fn confirm_key(&mut self, key: KeyEvent, on_yes: Effect, question: String) -> Vec<Effect> {
        match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => vec![on_yes],
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Vec::new(),
            _ => {
                self.mode = Mode::Confirm { on_yes, question };
                Vec::new()
            }
        }
    }

    /// Asks `question`; `y` does `on_yes` (a removal refused for changes,
    /// asked again with force). An answer that comes while the person
    /// types something else (a search, a folder) asks nothing: the text
    /// would be lost, and a `y` typed there would answer a question never
    /// read. It is said instead, and the action taken again asks.
    pub(crate) fn ask(&mut self, question: String, on_yes: Effect) {
        if matches!(self.mode, Mode::List) {
            self.mode = Mode::Confirm { on_yes, question };
        } else {
            self.message = Some(format!("not done: {}", question.trim_end_matches(" y/n")));
        }
    }

    fn new_worktree_key(&mut self, key: KeyEvent, head: u32, mut field: Field) -> Vec<Effect> {
        match key.code {
            KeyCode::Esc => Vec::new(),
            // A new session of a folder instead.
            KeyCode::Tab => {
                self.directories.clear();
                self.mode = Mode::NewSession {
                    field: Field::default(),
                    selected: 0,
                };
                vec![Effect::Directories(String::new())]
            }
            KeyCode::Enter => {
                let branch = field.text().trim().to_string();
                if branch.is_empty() {
                    self.mode = Mode::NewWorktree { head, field };
                    return Vec::new();
                }
                vec![Effect::NewWorktree { head, branch }]
            }
            _ => {
                field.key(key);
                self.mode = Mode::NewWorktree { head, field };
                Vec::new()
            }
        }
    }

    /// The closed worktree a row stands for.
    pub(crate) fn closed_worktree(&self, target: Target) -> Option<&rows::ClosedWorktree> {
        match target {
            Target::Worktree(i) => self.closed_worktrees.get(i as usize),
            _ => None,
        }
    }

    /// The session a close of `target` would end, when it heads a group of
    /// worktree sessions: the session itself, or its last window or pane.
    fn group_closed_by(&self, target: Target) -> Option<u32> {
        let session = target.session()?;
        let windows = self.snapshot.windows_of(session).count();
        let ends_session = match target {
            Target::Session(_) => true,
            Target::Window { .. } => windows == 1,
            Target::Pane { window, .. } => {
                windows == 1 && self.snapshot.panes_of(session, window).count() == 1
            }
            Target::Folder(_) | Target::Worktree(_) | Target::Machine(_) => false,
        };
        (ends_session && !crate::ops::worktree::group_of(&self.snapshot, session).is_empty())
            .then_some(session)
    }

    fn new_session_key(&mut self, key: KeyEvent, mut field: Field, selected: usize) -> Vec<Effect> {
        let count = self.directories.len();
        match key.code {
            KeyCode::Esc => {
                if self.options.new_session {
                    return vec![Effect::Quit];
                }
                Vec::new()
            }
            KeyCode::Enter => {
                // The list, when it answers what is typed now; else the text.
                let listed = (self.directories_for == field.text())
                    .then(|| self.directories.get(selected).cloned())
                    .flatten();
                let choice = listed.unwrap_or_else(|| field.text());
                let empty = choice.trim().is_empty();
                // The picker stays, with what was typed, until the open works.
                self.mode = Mode::NewSession { field, selected };
                if empty {
                    return Vec::new();
                }
                vec![Effect::OpenSession(choice)]
            }
            KeyCode::Up => {
                self.mode = Mode::NewSession {
                    field,
                    selected: selected.saturating_sub(1),
                };
                Vec::new()
            }
            KeyCode::Down => {
                self.mode = Mode::NewSession {
                    field,
                    selected: (selected + 1).min(count.saturating_sub(1)),
                };
                Vec::new()
            }
            KeyCode::Char('n') | KeyCode::Char('p') if key_has_ctrl(key) => {
                let selected = if key.code == KeyCode::Char('n') {
                    (selected + 1).min(count.saturating_sub(1))
                } else {
                    selected.saturating_sub(1)
                };
                self.mode = Mode::NewSession { field, selected };
                Vec::new()
            }
            KeyCode::Tab => {
                // Completes the field with the selected directory.
                if let Some(dir) = self.directories.get(selected) {
                    field = Field::with(&format!("{}/", dir.trim_end_matches('/')));
                }
                let query = field.text();
                self.mode = Mode::NewSession { field, selected: 0 };
                vec![Effect::Directories(query)]
            }
            _ => {
                let changed = field.key(key) == Edit::Changed;
                let query = field.text();
                self.mode = Mode::NewSession {
                    field,
                    selected: if changed { 0 } else { selected },
                };
                if changed {
                    vec![Effect::Directories(query)]
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// The list as it opens: no query, the selection kept (taw app, back
    /// from where Enter went, as the popup would open again).
    pub(crate) fn clear_query(&mut self) {
        self.mode = Mode::List;
        if self.filtering() {
            self.query.clear();
            self.rebuild(self.kept());
        }
    }

    /// Tab: the next agent that needs you after the selected row's pane
    /// (else the next agent of any kind), selected.
    fn next_up(&mut self) -> Vec<Effect> {
        let panes: Vec<(u32, Option<AgentStatus>)> = self
            .snapshot
            .unique_panes()
            .into_iter()
            .map(|p| {
                let state = (!p.agent_kind.is_empty()).then(|| AgentStatus::parse(&p.agent_state));
                (p.id, state)
            })
            .collect();
        let current = self.selected_row().and_then(|r| r.preview_pane);
        let Some((pane, _)) = nextup::next_up(&panes, current) else {
            self.message = Some("no agent to go to".into());
            return Vec::new();
        };
        let session = self.snapshot.pane(pane, None).map(|p| p.session);
        let is_it = |r: &Row| matches!(r.target, Target::Pane { pane: p, .. } if p == pane);
        if self.find_row(is_it).is_none() {
            // Unfold and unfilter so its row is there.
            if let Some(session) = session {
                self.collapsed.remove(&session);
            }
            self.query.clear();
            self.rebuild(None);
        }
        // A layout with no pane rows: its session's.
        let at = self.find_row(is_it).or_else(|| {
            let session = session?;
            self.find_row(|r| r.target == Target::Session(session))
        });
        match at {
            Some(at) => self.select(at),
            None => Vec::new(),
        }
    }

    fn current_name(&self, target: Target) -> String {
        match target {
            Target::Session(id) => self
                .snapshot
                .session(id)
                .map(|s| s.name.clone())
                .unwrap_or_default(),
            Target::Window { window, .. } => self
                .snapshot
                .windows
                .iter()
                .find(|w| w.id == window)
                .map(|w| w.name.clone())
                .unwrap_or_default(),
            Target::Pane { pane, .. } => self
                .snapshot
                .pane(pane, None)
                .map(|p| {
                    if p.agent_kind.is_empty() {
                        p.label.clone()
                    } else {
                        p.agent_name.clone()
                    }
                })
                .unwrap_or_default(),
            Target::Folder(_) | Target::Worktree(_) | Target::Machine(_) => String::new(),
        }
    }

    /// What a close that ends a repository's session asks.
    fn group_question(&self, target: Target, session: u32) -> String {
        let names: Vec<String> = crate::ops::worktree::group_of(&self.snapshot, session)
            .into_iter()
            .filter_map(|s| self.snapshot.session(s).map(|s| s.name.clone()))
            .collect();
        let what = match target {
            Target::Session(_) => format!("session {}", self.current_name(target)),
            _ => format!(
                "the last of session {}",
                self.current_name(Target::Session(session))
            ),
        };
        // The question before the names, which a long list would cut.
        format!(
            "closing {what} closes its worktree sessions. Close them too? y/n ({})",
            names.join(", ")
        )
    }

    /// What closing asks, saying what else goes with it.
    fn close_question(&self, target: Target) -> String {
        match target {
            Target::Session(id) => {
                let name = self.current_name(target);
                let windows = self
                    .snapshot
                    .windows
                    .iter()
                    .filter(|w| w.session == id)
                    .count();
                format!("close session {name} and its {windows} window(s)? y/n")
            }
            Target::Window { session, .. } => {
                let name = self.current_name(target);
                let last = self
                    .snapshot
                    .windows
                    .iter()
                    .filter(|w| w.session == session)
                    .count()
                    == 1;
                if last {
                    format!("close window {name}, the session's last, and the session with it? y/n")
                } else {
                    format!("close window {name}? y/n")
                }
            }
            Target::Pane {
                session,
                window,
                pane,
            } => {
                let panes = self.snapshot.panes_of(session, window).count();
                let what = self
                    .snapshot
                    .pane(pane, None)
                    .map(|p| {
                        if p.agent_kind.is_empty() {
                            p.current_command.clone()
                        } else {
                            rows::agent_label(p)
                        }
                    })
                    .unwrap_or_default();
                let windows = self
                    .snapshot
                    .windows
                    .iter()
                    .filter(|w| w.session == session)
                    .count();
                if panes == 1 && windows == 1 {
                    format!("close {what}: the session's last pane, so the session closes too? y/n")
                } else if panes == 1 {
                    format!("close {what}: the window's last pane, so the window closes too? y/n")
                } else {
                    format!("close the pane of {what}? y/n")
                }
            }
            Target::Folder(_) | Target::Worktree(_) | Target::Machine(_) => String::new(),
        }
    }
}

/// A query that names a folder by its path.
fn looks_like_path(query: &str) -> bool {
    query.starts_with('/') || query.starts_with('~') || query.starts_with('.')
}

fn key_has_ctrl(key: KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL)
}

/// ctrl-d: fzf's end of input when the query is empty.
fn is_quit_on_empty(key: KeyEvent) -> bool {
    key.code == KeyCode::Char('d') && key_has_ctrl(key)
}

/// A key that types or edits text, which the search preset's query takes
/// before any action that has no `[keys]` entry of its own.
fn is_text_key(key: KeyEvent) -> bool {
    let plain = !key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match key.code {
        KeyCode::Char(_) => plain,
        KeyCode::Backspace | KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture::{pane, session, window};

    fn snapshot() -> Snapshot {
        Snapshot {
            sessions: vec![session(0, "api"), session(1, "web")],
            windows: vec![window(0, 0, "w0"), window(1, 1, "w1")],
            panes: vec![
                pane(0, 0, 0, "claude", "working", "reviewer"),
                pane(0, 0, 1, "codex", "idle", "tester"),
                pane(1, 1, 2, "claude", "blocked", "asker"),
            ],
            ..Snapshot::default()
        }
    }

    fn app(preset: Preset) -> List {
        let options = Options {
            layout: Layout::Tree,
            depth: Depth::Agents,
            preview: true,
            show_git: false,
            confirm_close: true,
            projects_in_filter: true,
            home: String::new(),
            new_session: false,
            config_problem: None,
        };
        List::new(Keymap::new(preset, &[]), options, snapshot())
    }

    fn press(app: &mut List, code: KeyCode) -> Vec<Effect> {
        app.key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn ctrl(app: &mut List, c: char) -> Vec<Effect> {
        app.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
    }

    fn typed(app: &mut List, text: &str) {
        for c in text.chars() {
            press(app, KeyCode::Char(c));
        }
    }

    fn selected(app: &List) -> String {
        app.selected_row()
            .map(|r| r.label.clone())
            .unwrap_or_default()
    }

    #[test]
    fn any_key_leaves_the_help_page_and_does_nothing_else() {
        let mut app = app(Preset::Modal);
        app.tmux_keys.prefixes = vec![Key::of(KeyEvent::new(
            KeyCode::Char('b'),
            KeyModifiers::CONTROL,
        ))];
        app.mode = Mode::Help;
        assert!(press(&mut app, KeyCode::Char('q')).is_empty());
        assert!(matches!(app.mode, Mode::List));
        // tmux's prefix too: the key after it is the list's again.
        app.mode = Mode::Options;
        assert!(ctrl(&mut app, 'b').is_empty());
        assert!(matches!(app.mode, Mode::List));
        assert_eq!(press(&mut app, KeyCode::Char('q')), [Effect::Quit]);
    }

    #[test]
    fn moving_and_going() {
        let mut app = app(Preset::Modal);
        assert_eq!(selected(&app), "api");
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(selected(&app), "reviewer");
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            [Effect::Go(Target::Pane {
                session: 0,
                window: 0,
                pane: 0
            })]
        );
        press(&mut app, KeyCode::Char('G'));
        assert_eq!(selected(&app), "asker");
        assert_eq!(press(&mut app, KeyCode::Char('q')), [Effect::Quit]);
    }

    #[test]
    fn tab_selects_the_next_agent_that_needs_you() {
        let mut app = app(Preset::Modal);
        let effects = press(&mut app, KeyCode::Tab);
        assert_eq!(selected(&app), "asker");
        assert_eq!(effects, [Effect::Preview(2)]);
        // Collapsed away, it is unfolded to be shown.
        press(&mut app, KeyCode::Char('g'));
        app.collapsed.insert(1);
        app.rebuild(None);
        press(&mut app, KeyCode::Tab);
        assert_eq!(selected(&app), "asker");
    }

    #[test]
    fn filtering_ranks_and_esc_clears() {
        let mut app = app(Preset::Modal);
        press(&mut app, KeyCode::Char('/'));
        typed(&mut app, "test");
        assert_eq!(selected(&app), "tester");
        assert_eq!(app.shown.len(), 1);
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.shown.len(), 7);
        assert_eq!(app.mode, Mode::List);
    }

    #[test]
    fn the_search_preset_types_into_the_query() {
        let mut app = app(Preset::Search);
        typed(&mut app, "ask");
        assert_eq!(selected(&app), "asker");
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            [Effect::Go(Target::Pane {
                session: 1,
                window: 1,
                pane: 2
            })]
        );
        // ctrl-d deletes while there is a query, and quits on an empty one.
        ctrl(&mut app, 'a');
        ctrl(&mut app, 'd');
        assert_eq!(app.query.text(), "sk");
        // ctrl-k is fzf's up here; ctrl-e then ctrl-u empties the query.
        ctrl(&mut app, 'e');
        ctrl(&mut app, 'u');
        assert!(app.query.is_empty());
        assert_eq!(ctrl(&mut app, 'd'), [Effect::Quit]);
    }

    #[test]
    fn rename_and_close_ask_first() {
        let mut app = app(Preset::Modal);
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Char('r'));
        ctrl(&mut app, 'u');
        typed(&mut app, "critic");
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            [Effect::Rename(
                Target::Pane {
                    session: 0,
                    window: 0,
                    pane: 0
                },
                "critic".into()
            )]
        );
        press(&mut app, KeyCode::Char('x'));
        let Mode::Confirm { question, .. } = &app.mode else {
            panic!("{:?}", app.mode)
        };
        assert!(question.contains("reviewer"), "{question}");
        assert_eq!(press(&mut app, KeyCode::Char('n')), []);
        press(&mut app, KeyCode::Char('G'));
        press(&mut app, KeyCode::Char('x'));
        let Mode::Confirm { question, .. } = &app.mode else {
            panic!()
        };
        assert!(question.contains("session closes too"), "{question}");
        assert_eq!(
            press(&mut app, KeyCode::Char('y')),
            [Effect::Close(Target::Pane {
                session: 1,
                window: 1,
                pane: 2
            })]
        );
    }

    #[test]
    fn tmux_prefix_then_the_notification_key() {
        let mut app = app(Preset::Search);
        app.tmux_keys = TmuxKeys {
            prefixes: vec![Key::from_tmux("C-b").unwrap()],
            notification: Key::from_tmux("Tab"),
            popup: Key::from_tmux("a"),
        };
        // The prefix wins even over the search preset's query.
        ctrl(&mut app, 'b');
        assert_eq!(press(&mut app, KeyCode::Tab), [Effect::OpenTarget]);
        assert!(app.query.is_empty());
        ctrl(&mut app, 'b');
        assert_eq!(press(&mut app, KeyCode::Char('a')), [Effect::Quit]);
        ctrl(&mut app, 'b');
        assert_eq!(press(&mut app, KeyCode::Char('z')), []);
        assert!(app.message.is_some());
        // Without the prefix, Tab is the popup's own next up.
        assert_eq!(press(&mut app, KeyCode::Tab), [Effect::Preview(2)]);
    }

    #[test]
    fn the_filter_offers_folders_to_open() {
        let mut app = app(Preset::Modal);
        app.set_projects(
            String::new(),
            vec!["~/src/shop".into(), "~/src/blog".into()],
        );
        press(&mut app, KeyCode::Char('/'));
        typed(&mut app, "shop");
        assert_eq!(selected(&app), "~/src/shop");
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            [Effect::OpenSession("~/src/shop".into())]
        );
        // Nothing to rename or close on a folder.
        assert_eq!(press(&mut app, KeyCode::Char('r')), []);
        assert_eq!(app.mode, Mode::List);
    }

    #[test]
    fn the_selection_stays_on_its_folder_as_completions_arrive() {
        let mut app = app(Preset::Modal);
        press(&mut app, KeyCode::Char('/'));
        typed(&mut app, "~/src/");
        let query = app.query.text();
        app.set_projects(
            query.clone(),
            vec!["~/src/blog".into(), "~/src/shop".into()],
        );
        let at = app.find_row(|r| r.path == "~/src/shop").unwrap();
        app.select(at);
        // The worker's next answer has a folder before it.
        app.set_projects(
            query,
            vec!["~/src/api".into(), "~/src/blog".into(), "~/src/shop".into()],
        );
        assert_eq!(selected(&app), "~/src/shop");
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            [Effect::OpenSession("~/src/shop".into())]
        );
    }

    #[test]
    fn a_snapshot_keeps_the_selection_on_its_row() {
        let mut app = app(Preset::Modal);
        press(&mut app, KeyCode::Char('G'));
        let mut next = snapshot();
        next.panes.retain(|p| p.id != 1);
        app.update(next);
        assert_eq!(selected(&app), "asker");
    }

    /// api heads a repository's group; web runs one of its worktrees.
    fn grouped() -> List {
        let mut app = app(Preset::Modal);
        let worktree = |checkout: &str, linked: bool| {
            format!(
                "{{\"repo_key\":\"/src/api/.git\",\"repo_name\":\"api\",\"repo_root\":\"/src/api\",\"checkout_path\":\"{checkout}\",\"is_linked_worktree\":{linked}}}"
            )
        };
        let mut snapshot = snapshot();
        snapshot.sessions[0].worktree = worktree("/src/api", false);
        snapshot.sessions[1].worktree = worktree("/wt/api/feat-x", true);
        app.update(snapshot);
        app.set_closed_worktrees(vec![rows::ClosedWorktree {
            head: 0,
            path: "/wt/api/old".into(),
            branch: Some("old".into()),
        }]);
        app
    }

    #[test]
    fn the_selection_follows_a_closed_worktree_as_the_list_changes() {
        let mut app = grouped();
        let at = app
            .find_row(|r| matches!(r.target, Target::Worktree(_)) && r.path == "/wt/api/old")
            .unwrap();
        app.select(at);
        // Another closed worktree comes before it.
        app.set_closed_worktrees(vec![
            rows::ClosedWorktree {
                head: 0,
                path: "/wt/api/aaa".into(),
                branch: Some("aaa".into()),
            },
            rows::ClosedWorktree {
                head: 0,
                path: "/wt/api/old".into(),
                branch: Some("old".into()),
            },
        ]);
        assert_eq!(app.selected_row().unwrap().path, "/wt/api/old");
    }

    #[test]
    fn a_repositorys_session_closes_with_its_worktree_sessions_on_a_yes() {
        let mut app = grouped();
        let at = app.find_row(|r| r.target == Target::Session(0)).unwrap();
        app.select(at);
        press(&mut app, KeyCode::Char('x'));
        let Mode::Confirm { question, .. } = &app.mode else {
            panic!("no question: {:?}", app.mode);
        };
        assert!(
            question.contains("web") && question.contains("Close them too?"),
            "{question}"
        );
        assert_eq!(press(&mut app, KeyCode::Char('y')), [Effect::CloseGroup(0)]);
        // A worktree session on its own closes as any session does.
        let at = app.find_row(|r| r.target == Target::Session(1)).unwrap();
        app.select(at);
        press(&mut app, KeyCode::Char('x'));
        assert_eq!(
            press(&mut app, KeyCode::Char('y')),
            [Effect::Close(Target::Session(1))]
        );
    }

    #[test]
    fn n_in_a_repositorys_group_makes_a_worktree_and_x_removes_a_closed_one() {
        let mut plain = app(Preset::Modal);
        let mut app = grouped();
        let at = app.find_row(|r| r.target == Target::Session(1)).unwrap();
        app.select(at);
        press(&mut app, KeyCode::Char('n'));
        assert!(
            matches!(app.mode, Mode::NewWorktree { head: 0, .. }),
            "{:?}",
            app.mode
        );
        typed(&mut app, "feat/y");
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            [Effect::NewWorktree {
                head: 0,
                branch: "feat/y".into()
            }]
        );
        // The closed worktree's row: Enter opens it, x removes it.
        let at = app.find_row(|r| r.target == Target::Worktree(0)).unwrap();
        app.select(at);
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            [Effect::OpenWorktree {
                head: 0,
                path: "/wt/api/old".into()
            }]
        );
        press(&mut app, KeyCode::Char('x'));
        let remove = |force| Effect::RemoveWorktree {
            head: 0,
            path: "/wt/api/old".into(),
            force,
        };
        assert_eq!(press(&mut app, KeyCode::Char('y')), [remove(false)]);
        // Refused for its changes: asked again, and a yes forces it.
        app.ask(
            "remove anyway? uncommitted changes are lost. y/n".into(),
            remove(true),
        );
        assert_eq!(press(&mut app, KeyCode::Char('y')), [remove(true)]);
        // One that comes while the person types elsewhere asks nothing:
        // said, and their text and mode left as they were.
        app.mode = Mode::Filter;
        app.ask(
            "remove anyway? uncommitted changes are lost. y/n".into(),
            remove(true),
        );
        assert!(matches!(app.mode, Mode::Filter));
        assert!(
            app.message
                .as_deref()
                .is_some_and(|m| m.starts_with("not done: remove anyway?"))
        );
        app.mode = Mode::List;
        // Outside any group, n is the new-session picker.
        press(&mut plain, KeyCode::Char('n'));
        assert!(matches!(plain.mode, Mode::NewSession { .. }));
    }
}
