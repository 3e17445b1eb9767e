//! `session restore`: the sessions of a saved layout that are not open
//! made again (windows, panes, folders, layouts), and each agent's
//! conversation resumed by typing its resume command once the pane's
//! shell is at its prompt. Every step, and every pane left alone with the
//! command to run by hand, is a line of the plan.

use super::agent::typing::{HeldAt, LOOK_EVERY, PromptWatch, screen, shell_wait, type_and_enter};
use super::save::Extras;
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::report::StoredSession;
use crate::sessions::resume::{self, ResumeLine};
use crate::sessions::saved::{self, Layout, SavedAgent, SavedPane, SavedSession, SavedWindow};
use crate::text::shell_word;
use crate::tmux::arrange::{self, NewWindow, parse_new_ids};
use crate::tmux::commands::{
    HeldBack, select_pane, select_window, set_global_option, show_global_value, unset_global_option,
};
use crate::tmux::options::bookkeeping::{AUTOSAVE_HELD, RESTORING};
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::tmux::snapshot::{Pane, Snapshot};
use crate::tmux::{Batch, Tmux};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// herdr's words for a pane left as tmux made it, outside its saved folder.
const RESTORE_ERROR_WORDS: &str =
    "Saved directory is unavailable. Restore the directory and restart this session.";

/// What to restore.
#[derive(Debug, Clone)]
pub(crate) struct Restore {
    /// The layout's name; none: `default`.
    pub name: Option<String>,
    pub dry_run: bool,
    /// `[session] startup_per_agent_delay_ms`.
    pub delay: Duration,
    /// `[session] resume_agents_on_restore`.
    pub resume: bool,
    /// The home folder (Claude's default profile, the folder tmux falls
    /// back to).
    pub home: PathBuf,
}

/// A line a dry run would type.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WouldType {
    pub session: String,
    pub window: i64,
    pub pane: i64,
    pub line: String,
}

/// What a restore did (or, dry, would do).
#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct Restored {
    pub plan: Vec<String>,
    pub created: Vec<String>,
    pub skipped: Vec<String>,
    pub added: Vec<String>,
    pub not_resumed: Vec<String>,
    pub would_type: Vec<WouldType>,
    pub started_server: bool,
    pub attach: Option<String>,
    pub snapshot_file: String,
    pub snapshot_taken_unix: u64,
    pub server_start_unix: Option<u64>,
}

answers!(Restored => "session_restored");

/// How a plan line names a window: its saved number and name.
fn window_words(window: &SavedWindow) -> String {
    format!("window {} '{}'", window.index, window.name)
}

/// A pane to resume once its shell is ready.
struct Pending {
    /// `window 1 'zsh', pane 0`, as the plan names it.
    at: String,
    /// The pane as the layout saved it.
    saved: SavedPane,
    pane: u32,
    cwd: String,
    kind: String,
    agent: SavedAgent,
    line: ResumeLine,
    made: Instant,
    /// Typed when its shell is ready; not, when `[session]
    /// resume_agents_on_restore` is false (the pane still keeps its agent).
    resume: bool,
}

/// A saved window to add to an open session, at the number it gets there.
struct AddedWindow<'a> {
    session: &'a SavedSession,
    window: &'a SavedWindow,
    index: i64,
}

/// What a layout asks of the server: the saved sessions not open, to make,
/// and the windows to add to those open.
struct Work<'a> {
    to_make: Vec<&'a SavedSession>,
    to_add: Vec<AddedWindow<'a>>,
}

/// `taw session restore [--name N] [--dry-run]`.
pub(crate) fn restore(tmux: &Tmux, args: &Restore) -> Result<Restored> {
    let name = args.name.as_deref().unwrap_or(saved::DEFAULT_NAME);
    saved::check_name(name)?;
    let (live, extras) = match read_live(tmux)? {
        Some((snapshot, extras)) => (Some(snapshot), extras),
        None => (None, HashMap::new()),
    };
    let start = live
        .as_ref()
        .map(|s| s.server.start_time)
        .filter(|t| *t > 0);
    let open_names: Vec<String> = live
        .as_ref()
        .map(|s| s.sessions.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    let conversations = Conversations::of(live.as_ref(), &extras);
    let (file, layout) = choose_layout(
        name,
        args.name.is_some(),
        start,
        &open_names,
        &conversations,
        &args.home,
    )?;
    // A restore types the commands a layout holds: one another user could
    // have written is not acted on.
    if let Some(why) = crate::paths::written_by_others(&file) {
        return Err(TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{} is not restored: {why}; taw restores only a layout no one but you could have written",
                crate::paths::display(&file)
            ),
        ));
    }
    let mut out = Restored {
        snapshot_file: crate::paths::display(&file),
        snapshot_taken_unix: layout.taken_unix,
        server_start_unix: start,
        ..Restored::default()
    };
    let work = work_of(&layout, live.as_ref(), &conversations, args, &mut out);
    if work.to_make.is_empty() && work.to_add.is_empty() {
        out.plan.push(nothing_to_restore(&layout, start));
        return Ok(out);
    }
    plan_opening(&mut out, &layout, start, live.is_none(), args.dry_run);
    if args.dry_run {
        dry_plan(&work, &conversations, args, &mut out);
        return Ok(out);
    }
    let mut pending = Vec::new();
    if !work.to_add.is_empty() {
        // A mark not set only lets an autosave run meanwhile; the windows
        // are made all the same.
        let _ = tmux.run_one(set_global_option(RESTORING, &restoring_stamp()));
    }
    for added in &work.to_add {
        add_window(tmux, added, &conversations, args, &mut out, &mut pending);
    }
    let first_failure = make_sessions(
        tmux,
        &work.to_make,
        &conversations,
        args,
        &mut out,
        &mut pending,
    );
    if out.started_server {
        // The server this restore started: its start, as a restore in a
        // running server says that one's; and whether your tmux config
        // loaded the plugin there, without which no agent is watched.
        out.server_start_unix = Snapshot::read(tmux)
            .ok()
            .map(|s| s.server.start_time)
            .filter(|t| *t > 0);
        if !plugin_loaded(tmux) {
            out.plan.push(format!(
                "the plugin is not loaded in the server this restore started (your tmux config does not load it), so no agent there is watched: run `taw{} tmux load`, or add the plugin to ~/.tmux.conf",
                tmux.socket_words()
            ));
        }
    }
    let resumed = resume_all(tmux, pending, args, &mut out);
    save_if_held(tmux, name, &resumed, &mut out);
    if out.started_server
        && let Some(first) = out.created.first()
    {
        // The server it restored, named as taw was pointed at it.
        out.attach = Some(format!(
            "tmux{} attach -t {}",
            tmux.socket_words(),
            shell_word(&format!("={first}"))
        ));
    }
    match first_failure {
        Some(mut error) if out.created.is_empty() => {
            for line in out.plan.iter().filter(|l| l.contains("resume it with")) {
                error.message.push('\n');
                error.message.push_str(line);
            }
            Err(error)
        }
        _ => Ok(out),
    }
}

/// Sorts the layout's sessions: those not open are made, and an open one
/// gets the saved windows whose agent's conversation runs nowhere now, or
/// is skipped (in `out`).
fn work_of<'a>(
    layout: &'a Layout,
    live: Option<&Snapshot>,
    conversations: &Conversations,
    args: &Restore,
    out: &mut Restored,
) -> Work<'a> {
    let open: Vec<&str> = live
        .map(|s| s.sessions.iter().map(|s| s.name.as_str()).collect())
        .unwrap_or_default();
    let mut work = Work {
        to_make: Vec::new(),
        to_add: Vec::new(),
    };
    for session in layout.sessions.iter().filter(|s| has_something(s)) {
        if !open.contains(&session.name.as_str()) {
            work.to_make.push(session);
            continue;
        }
        let add = windows_to_add(session, conversations, &args.home);
        if add.is_empty() {
            out.skipped.push(session.name.clone());
            continue;
        }
        // After the open session's last window, never into a gap.
        let first = next_window_index(live, &session.name);
        for (index, window) in (first..).zip(add) {
            work.to_add.push(AddedWindow {
                session,
                window,
                index,
            });
        }
    }
    work
}

/// The number after the last window of open session `session`.
fn next_window_index(live: Option<&Snapshot>, session: &str) -> i64 {
    live.map(|s| {
        let id = s.sessions.iter().find(|x| x.name == session).map(|x| x.id);
        s.windows
            .iter()
            .filter(|w| Some(w.session) == id)
            .map(|w| w.index)
            .max()
            .unwrap_or(-1)
    })
    .unwrap_or(-1)
        + 1
}

/// `the layout saved at 16:20, before this tmux server started at 16:25`.
fn saved_against(layout: &Layout, start: u64) -> String {
    let order = if layout.taken_unix < start {
        "before"
    } else {
        "after"
    };
    format!(
        "the layout saved at {}, {order} this tmux server started at {}",
        when(layout.taken_unix, start),
        when(start, crate::clock::now_unix())
    )
}

/// The plan's one line when every session of the layout is open.
fn nothing_to_restore(layout: &Layout, start: Option<u64>) -> String {
    match start {
        Some(start) => format!(
            "nothing to restore: {}, has every session open",
            saved_against(layout, start)
        ),
        None => "nothing to restore: every session of the layout is open".into(),
    }
}

/// The plan's first lines: which layout, the server started for it, and
/// the open sessions left as they are.
fn plan_opening(
    out: &mut Restored,
    layout: &Layout,
    start: Option<u64>,
    no_server: bool,
    dry_run: bool,
) {
    out.plan.push(taken_line(layout, start, dry_run));
    if no_server {
        out.plan.push(if dry_run {
            "would start a tmux server (none is running), with your own tmux config".into()
        } else {
            "started a tmux server (none was running), with your own tmux config".into()
        });
        out.started_server = !dry_run;
    }
    for skipped in &out.skipped {
        out.plan
            .push(format!("session '{skipped}' is open: left as it is"));
    }
}

/// Adds a saved window to its open session, fills it, and queues its
/// agents' resumes.
fn add_window(
    tmux: &Tmux,
    added: &AddedWindow,
    conversations: &Conversations,
    args: &Restore,
    out: &mut Restored,
    pending: &mut Vec<Pending>,
) {
    let AddedWindow {
        session, window, ..
    } = added;
    let made = tmux.run_one(arrange::new_window_at(
        &session.name,
        added.index,
        &window.name,
        &first_cwd(session, window),
    ));
    let Some(ids) = made.ok().as_deref().and_then(NewWindow::parse) else {
        out.plan.push(format!(
            "could not add saved {} to open session '{}'",
            window_words(window),
            session.name
        ));
        return;
    };
    out.plan.push(added.words());
    out.added.push(format!(
        "saved {} as window {} of '{}'",
        window_words(window),
        added.index,
        session.name
    ));
    fill_window(
        tmux,
        &session.name,
        window,
        ids,
        false,
        conversations,
        args,
        out,
        pending,
    );
}

/// Makes each saved session not open; answers the first failure.
fn make_sessions(
    tmux: &Tmux,
    to_make: &[&SavedSession],
    conversations: &Conversations,
    args: &Restore,
    out: &mut Restored,
    pending: &mut Vec<Pending>,
) -> Option<TawError> {
    let mut first_failure = None;
    for session in to_make {
        let made = make_session(tmux, session, conversations, args, out, pending);
        if let Some(label) = &session.label {
            // The label as it was given, on whatever of it was made.
            let _ = tmux.run_one(crate::tmux::commands::set_session_option(
                &format!("={}:", session.name),
                crate::tmux::options::session::LABEL,
                &crate::tmux::options::session::label_value(&session.name, label),
            ));
        }
        match made {
            Ok(()) => out.created.push(session.name.clone()),
            Err(error) => {
                out.plan.push(format!(
                    "stopped restoring session '{}': {}",
                    session.name, error.message
                ));
                first_failure.get_or_insert(error);
            }
        }
    }
    first_failure
}

/// Lets autosave run again. An autosave asked for while the restore ran
/// (a hook of a window made) is done now, once, with the agents resumed;
/// not over the layout a pane left alone still needs.
fn save_if_held(tmux: &Tmux, name: &str, resumed: &HashMap<u32, SavedAgent>, out: &mut Restored) {
    let held = tmux
        .run_one(show_global_value(AUTOSAVE_HELD))
        .is_ok_and(|v| !v.trim().is_empty());
    // A stamp left behind holds nothing once this process has ended.
    let _ = tmux.run(&Batch::of(vec![
        unset_global_option(RESTORING),
        unset_global_option(AUTOSAVE_HELD),
    ]));
    if held && out.not_resumed.is_empty() {
        match super::save::save_keeping(tmux, name, resumed) {
            Ok(_) => out
                .plan
                .push(format!("saved the layout as '{name}', the agents resumed")),
            Err(error) => out
                .plan
                .push(format!("could not save the layout: {}", error.message)),
        }
    }
}

/// A time for the plan, with its date when it is not `against`'s day.
fn when(unix: u64, against: u64) -> String {
    crate::clock::local_time_of(unix, against)
}

/// The plan's first line: which layout, taken when, against the server's
/// start when that is known.
fn taken_line(layout: &Layout, start: Option<u64>, dry_run: bool) -> String {
    let verb = if dry_run { "would restore" } else { "restored" };
    match start {
        Some(start) => format!("{verb} {}", saved_against(layout, start)),
        None => format!(
            "{verb} the layout saved at {}",
            when(layout.taken_unix, crate::clock::now_unix())
        ),
    }
}

/// Whether a layout has something to make: a session not open, or a
/// window of an open one to add.
fn has_work(layout: &Layout, open: &[String], live: &Conversations, home: &Path) -> bool {
    layout.sessions.iter().any(|s| {
        has_something(s) && (!open.contains(&s.name) || !windows_to_add(s, live, home).is_empty())
    })
}

/// A saved session worth making: one with windows, or one of a group
/// (which shares the windows of the session it is grouped with).
fn has_something(session: &SavedSession) -> bool {
    !session.windows.is_empty() || session.grouped_with.is_some()
}

/// The layout to restore: `--name`'s file; with no name the default one,
/// or, when that has nothing to make and the server's start is known, the
/// newest default layout taken before the server started (the default
/// file if it was, else the newest copy that says it was), one and no
/// older.
fn choose_layout(
    name: &str,
    named: bool,
    start: Option<u64>,
    open: &[String],
    live: &Conversations,
    home: &Path,
) -> Result<(PathBuf, Layout)> {
    let has_work = |layout: &Layout| has_work(layout, open, live, home);
    let file = saved::file(name);
    let layout = saved::read(&file);
    if named {
        return layout.map(|l| (file, l));
    }
    let Some(start) = start else {
        return layout.map(|l| (file, l));
    };
    match &layout {
        Ok(current) if has_work(current) => return layout.map(|l| (file, l)),
        Ok(current) if current.taken_unix < start => return layout.map(|l| (file, l)),
        _ => {}
    }
    let older = saved::copies(name)
        .into_iter()
        .find(|(_, copy)| copy.taken_unix < start);
    match (older, layout) {
        (Some(older), _) => Ok(older),
        (None, layout) => layout.map(|l| (file, l)),
    }
}

/// A conversation a dry run would resume, and the pane it names.
type WouldResume<'a> = (&'a SavedAgent, String);

/// What a dry run would add, make and type: the steps the restore takes,
/// each said with a "would".
fn dry_plan(work: &Work, live: &Conversations, args: &Restore, out: &mut Restored) {
    let mut resumed = Vec::new();
    for added in &work.to_add {
        out.plan.push(format!("would {}", added.words()));
        dry_resumes(added.session, added.window, live, args, out, &mut resumed);
    }
    for session in &work.to_make {
        for step in session_steps(session) {
            out.plan.push(format!("would {}", step.words()));
        }
        for window in &session.windows {
            dry_resumes(session, window, live, args, out, &mut resumed);
        }
    }
}

/// The lines a dry run would type in a window's panes, and why it would
/// leave the others: one pane per conversation, as a restore does.
fn dry_resumes<'a>(
    session: &'a SavedSession,
    window: &'a SavedWindow,
    live: &Conversations,
    args: &Restore,
    out: &mut Restored,
    resumed: &mut Vec<WouldResume<'a>>,
) {
    for pane in &window.panes {
        let Some(agent) = &pane.agent else { continue };
        let at = format!("{}, pane {}", window_words(window), pane.index);
        if let Some(other) = live.running(agent, &pane.cwd) {
            out.plan.push(format!(
                "{at}: would not resume: pane %{other} already runs the same session"
            ));
            continue;
        }
        if let Some((_, other)) = resumed
            .iter()
            .find(|(them, _)| them.kind == agent.kind && same_conversation(them, agent))
        {
            out.plan.push(format!(
                "{at}: would not resume: {other} resumes the same session"
            ));
            continue;
        }
        match resume::resume_line(agent, &args.home) {
            // As the restore itself: a pane whose folder is gone opens
            // elsewhere, and nothing is typed there (a pane saved with no
            // folder is typed where it opens).
            Ok(line) if !pane.cwd.is_empty() && !Path::new(&pane.cwd).is_dir() => out.plan.push(format!(
                "{at}: would not type: saved directory {} is gone, so the pane would open elsewhere; once the directory is back, resume it with: {}",
                pane.cwd,
                line.line()
            )),
            Ok(line) if !args.resume => out.plan.push(format!(
                "{at}: would not resume, as [session] resume_agents_on_restore is false; resume it with: {}",
                line.line()
            )),
            Ok(line) => {
                resumed.push((agent, format!("session '{}', {at}", session.name)));
                let line = line.line();
                out.plan.push(format!("{at}: would type: {line}"));
                out.would_type.push(WouldType {
                    session: session.name.clone(),
                    window: window.index,
                    pane: pane.index,
                    line,
                });
            }
            Err(why) => out.plan.push(format!(
                "{at}: would not resume: {}",
                why.words(&agent.kind)
            )),
        }
    }
}

/// A layout string's size: `csum,WxH,...`, when tmux would take it for a
/// session's (1 to 10,000 cells a side): an edited file's `0x0` or a
/// huge one leaves the size out instead of the session unmade.
fn layout_size(layout: &str) -> Option<(u32, u32)> {
    let size = layout.split(',').nth(1)?;
    let (w, h) = size.split_once('x')?;
    let (w, h): (u32, u32) = (w.parse().ok()?, h.parse().ok()?);
    let fits = |side: u32| (1..=10_000).contains(&side);
    (fits(w) && fits(h)).then_some((w, h))
}

/// A step of making a saved session, as the plan says it. The dry run
/// says each step with a "would"; the real one takes the same steps and
/// says each it took, so the two cannot drift.
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    /// A session sharing the windows of one made (or open) before.
    Grouped {
        session: &'a SavedSession,
        first: &'a str,
    },
    Session(&'a SavedSession),
    /// A window of its own, at its saved number.
    Window(&'a SavedWindow),
    /// A window another session shows, linked in.
    Link {
        window: &'a SavedWindow,
        from: &'a str,
    },
    /// The window in front.
    Select(&'a SavedWindow),
}

impl Step<'_> {
    fn words(&self) -> String {
        match self {
            Step::Grouped { session, first } => {
                format!("create session '{}' grouped with '{first}'", session.name)
            }
            Step::Session(session) => format!("create session '{}'", session.name),
            Step::Window(window) => format!("create {}", window_words(window)),
            Step::Link { window, from } => format!("link {} from '{from}'", window_words(window)),
            Step::Select(window) => format!("select {}", window_words(window)),
        }
    }
}

impl AddedWindow<'_> {
    fn words(&self) -> String {
        format!(
            "add saved {} to open session '{}' as window {}",
            window_words(self.window),
            self.session.name,
            self.index
        )
    }
}

/// The steps that make a saved session: a grouped one shares its
/// group's windows; another is made, then its own windows, then those
/// linked from sessions made before, then the one in front chosen.
fn session_steps(session: &SavedSession) -> Vec<Step<'_>> {
    if let Some(first) = &session.grouped_with {
        return vec![Step::Grouped { session, first }];
    }
    let own = || session.windows.iter().filter(|w| w.linked_from.is_none());
    let mut steps = vec![Step::Session(session)];
    steps.extend(own().map(Step::Window));
    steps.extend(session.windows.iter().filter_map(|window| {
        let from = window.linked_from.as_deref()?;
        Some(Step::Link { window, from })
    }));
    steps.extend(own().find(|w| w.active).map(Step::Select));
    steps
}

/// A saved window's first folder: its first pane's, else its session's.
fn first_cwd(session: &SavedSession, window: &SavedWindow) -> String {
    window
        .panes
        .first()
        .map(|p| p.cwd.clone())
        .unwrap_or_else(|| session.path.clone())
}

/// Makes one saved session by its steps: each window made is filled and
/// its agents queued for resuming. It stops at the first window tmux
/// refuses (a session closed under the restore is given up on; the agents
/// of the windows it made are typed all the same); a link that fails is
/// said, and the rest goes on.
fn make_session(
    tmux: &Tmux,
    session: &SavedSession,
    live: &Conversations,
    args: &Restore,
    out: &mut Restored,
    pending: &mut Vec<Pending>,
) -> Result<()> {
    let mut made: Vec<(&SavedWindow, u32)> = Vec::new();
    let mut placeholder = None;
    for step in session_steps(session) {
        match step {
            Step::Grouped { first, .. } => {
                run_starting(
                    tmux,
                    &Batch::of(vec![arrange::new_session_grouped(&session.name, first)]),
                )?;
            }
            Step::Session(_) => {
                out.plan.push(step.words());
                // A session of linked windows only starts from a window of
                // its own, which goes once they are in.
                if !session.windows.iter().any(|w| w.linked_from.is_none()) {
                    let window = make_placeholder(tmux, session)
                        .map_err(|error| partly_made(session, 0, error))?;
                    placeholder = Some(window);
                }
                continue;
            }
            Step::Window(window) => {
                let ids = make_window(tmux, session, window, made.is_empty()).map_err(|error| {
                    let at = session.windows.iter().position(|w| std::ptr::eq(w, window));
                    partly_made(session, at.unwrap_or(0), error)
                })?;
                out.plan.push(step.words());
                fill_window(
                    tmux,
                    &session.name,
                    window,
                    ids,
                    true,
                    live,
                    args,
                    out,
                    pending,
                );
                made.push((window, ids.window));
                continue;
            }
            Step::Link { window, from } => {
                // The window it shows was made (or was open) before; one
                // that is not there is said, and the rest goes on.
                let linked = tmux.run_one(arrange::link_window(from, &session.name, window.index));
                if let Err(error) = linked {
                    out.plan.push(format!(
                        "could not link {} from '{from}': {}",
                        window_words(window),
                        error.message.trim_end_matches('.')
                    ));
                    continue;
                }
            }
            Step::Select(window) => {
                let Some((_, id)) = made.iter().find(|(w, _)| std::ptr::eq(*w, window)) else {
                    continue;
                };
                // Which window is in front is a nicety; the session is made.
                let _ = tmux.run_one(select_window(&format!("@{id}")));
            }
        }
        out.plan.push(step.words());
    }
    if let Some(window_id) = placeholder {
        // Gone once the linked windows hold the session; with none linked,
        // it stays rather than close the session.
        if tmux
            .run_one(arrange::window_count(&session.name))
            .is_ok_and(|count| count.trim().parse::<usize>().unwrap_or(0) > 1)
        {
            let _ = tmux.run_one(arrange::kill_window(&format!("@{window_id}")));
        }
    }
    Ok(())
}

/// The window a session of linked windows only starts from; its id.
fn make_placeholder(tmux: &Tmux, session: &SavedSession) -> Result<u32> {
    let batch = Batch::of(vec![
        arrange::new_session_named(&session.name, "", &session.path, None),
        set_global_option(RESTORING, &restoring_stamp()),
    ]);
    let printed = run_starting(tmux, &batch)?;
    parse_new_ids(&printed)
        .map(|(_, window, _)| window)
        .ok_or_else(|| TawError::tmux("tmux did not say which window it made"))
}

/// Makes one of a session's own windows at its saved number: the
/// session's `first` makes the session itself, at the layout's size (and
/// holds autosave off in that same call, for a restore that starts the
/// server).
fn make_window(
    tmux: &Tmux,
    session: &SavedSession,
    window: &SavedWindow,
    first: bool,
) -> Result<NewWindow> {
    let cwd = first_cwd(session, window);
    let batch = match first {
        true => Batch::of(vec![
            arrange::new_session_named(
                &session.name,
                &window.name,
                &cwd,
                layout_size(&window.layout),
            ),
            set_global_option(RESTORING, &restoring_stamp()),
        ]),
        false => Batch::of(vec![arrange::new_window_at(
            &session.name,
            window.index,
            &window.name,
            &cwd,
        )]),
    };
    let printed = run_starting(tmux, &batch)?;
    let made = NewWindow::parse(&printed).ok_or_else(|| {
        TawError::tmux(format!(
            "tmux did not say which window it made for {}",
            window_words(window)
        ))
    })?;
    if first {
        // The session's first window takes its saved number; kept at
        // tmux's number when it cannot, which a later window may then not
        // get.
        let _ = tmux.run_one(arrange::move_window_to(
            &format!("@{}", made.window),
            &session.name,
            window.index,
        ));
    }
    Ok(made)
}

/// A session's failure, with the windows made before window `at` and
/// those not made.
fn partly_made(session: &SavedSession, at: usize, error: TawError) -> TawError {
    let words = |windows: &[SavedWindow]| {
        windows
            .iter()
            .map(window_words)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let made_words = words(&session.windows[..at]);
    let missing = words(&session.windows[at..]);
    TawError::new(
        error.code,
        format!(
            "{} (made: {}; not made: {missing})",
            error.message,
            if made_words.is_empty() {
                "nothing"
            } else {
                &made_words
            }
        ),
    )
}

/// The rest of a made window, as one batch: each other pane split from
/// the one before it, in its folder, named by its place in the window
/// (tmux puts a split's new pane just after the pane split, and no pane
/// made has an id yet); then the layout as saved, and (when `select`) its
/// active pane and zoom.
fn plan_fill(window: &SavedWindow, made: NewWindow, select: bool) -> Batch {
    let mut batch = Batch::new();
    for (at, pane) in window.panes.iter().enumerate().skip(1) {
        batch.push(arrange::split_in(&made.place(at - 1), &pane.cwd));
    }
    if !window.layout.is_empty() {
        batch.push(arrange::select_layout(
            &format!("@{}", made.window),
            &window.layout,
        ));
    }
    batch.extend(selection(window, window.panes.len(), select, |at| {
        made.place(at)
    }));
    batch
}

/// A window's active pane chosen, and zoomed as saved, when `select` and
/// it is among the `count` panes made; `target` names a pane by place.
fn selection(
    window: &SavedWindow,
    count: usize,
    select: bool,
    target: impl Fn(usize) -> String,
) -> Vec<crate::tmux::Cmd> {
    let Some(at) = window.panes.iter().position(|p| p.active) else {
        return Vec::new();
    };
    if !select || at >= count {
        return Vec::new();
    }
    let mut cmds = vec![select_pane(&target(at))];
    if window.zoomed && count > 1 {
        cmds.push(arrange::toggle_zoom(&target(at)));
    }
    cmds
}

/// Fills a made window (`plan_fill`) in one call, and queues its agents
/// for resuming. A pane tmux has no room for stops the filling there: the
/// panes made are kept and said, and the window is looked after without
/// the saved layout, which fits only the whole.
#[allow(clippy::too_many_arguments)]
fn fill_window(
    tmux: &Tmux,
    session: &str,
    window: &SavedWindow,
    made: NewWindow,
    select: bool,
    live: &Conversations,
    args: &Restore,
    out: &mut Restored,
    pending: &mut Vec<Pending>,
) {
    let (printed, failed) = tmux.run_as_far_as(&plan_fill(window, made, select));
    let mut pane_ids = vec![made.first_pane];
    pane_ids.extend(
        printed
            .lines()
            .filter_map(parse_new_ids)
            .map(|(_, _, pane)| pane),
    );
    pane_ids.truncate(window.panes.len());
    if pane_ids.len() < window.panes.len() {
        out.plan.push(format!(
            "{} of session '{session}' has {} of its {} panes",
            window_words(window),
            pane_ids.len(),
            window.panes.len()
        ));
    }
    if failed.is_some_and(|error| error.code != ErrorCode::Timeout) {
        // The layout and the active pane are how it looks; the panes and
        // their resumes do not wait on them.
        let apart = selection(window, pane_ids.len(), select, |at| {
            format!("%{}", pane_ids[at])
        });
        let _ = tmux.run(&Batch::of(apart));
    }
    for (pane, id) in window.panes.iter().zip(&pane_ids) {
        queue_resume(window, pane, *id, live, args, out, pending);
    }
}

/// The saved windows of an open session worth adding: those with an
/// agent whose conversation, resumable, runs in no pane now.
fn windows_to_add<'a>(
    session: &'a SavedSession,
    live: &Conversations,
    home: &Path,
) -> Vec<&'a SavedWindow> {
    session
        .windows
        .iter()
        .filter(|window| {
            window.panes.iter().any(|pane| {
                pane.agent.as_ref().is_some_and(|agent| {
                    resume::resume_line(agent, home).is_ok()
                        && live.running(agent, &pane.cwd).is_none()
                })
            })
        })
        .collect()
}

/// The conversations that run in the server's panes: (kind, session id
/// or path), a sandboxed agent's kept resume, and the resume command an
/// integration reported with the pane's folder (an agent known by no id).
#[derive(Default)]
struct Conversations(Vec<(String, String, u32)>);

/// How a conversation known only by its reported resume command is
/// matched: the command's words and the folder it runs in.
fn resume_key(words: &[String], cwd: &str) -> String {
    format!("resume\0{}\0{cwd}", words.join("\0"))
}

impl Conversations {
    fn of(snapshot: Option<&Snapshot>, extras: &HashMap<u32, Extras>) -> Conversations {
        let mut found = Vec::new();
        for pane in snapshot.map(|s| s.panes.as_slice()).unwrap_or_default() {
            // A pane a restore left as tmux made it (its saved folder gone)
            // holds its saved conversation: it is there, waiting.
            let waiting = extras
                .get(&pane.id)
                .and_then(|e| serde_json::from_str::<SavedPane>(&e.restore_saved).ok())
                .and_then(|saved| saved.agent.map(|agent| (agent, saved.cwd)));
            if let Some((agent, cwd)) = waiting {
                for key in conversation_keys(&agent, &cwd) {
                    found.push((agent.kind.clone(), key, pane.id));
                }
            }
            // With no watcher (the plugin not loaded), a resumed agent is
            // known by the restore's own mark while it is in front.
            let kind = if !pane.agent_kind.is_empty() {
                &pane.agent_kind
            } else if !pane.reported_kind.is_empty() {
                &pane.reported_kind
            } else if !crate::detect::foreground::is_shell(&pane.current_command) {
                &pane.kind_hint
            } else {
                continue;
            };
            if kind.is_empty() {
                continue;
            }
            if !pane.container.is_empty()
                && let Some(kept) = crate::sandbox::KeptResume::parse(&pane.sandbox_resume)
            {
                found.push((
                    kind.clone(),
                    sandbox_key(&kept, &pane.current_path),
                    pane.id,
                ));
            }
            let reported = extras
                .get(&pane.id)
                .and_then(|e| serde_json::from_str::<Vec<String>>(&e.resume).ok())
                .filter(|words| !words.is_empty());
            if let Some(words) = reported {
                found.push((
                    kind.clone(),
                    resume_key(&words, &pane.current_path),
                    pane.id,
                ));
            }
            if let Some(session) = StoredSession::parse(&pane.agent_session) {
                found.push((kind.clone(), session.value.clone(), pane.id));
                if let Some(id) = session.session_id() {
                    found.push((kind.clone(), id, pane.id));
                }
            }
        }
        Conversations(found)
    }

    /// The pane that runs `agent`'s conversation, if one does.
    fn running(&self, agent: &SavedAgent, cwd: &str) -> Option<u32> {
        let keys = conversation_keys(agent, cwd);
        self.0.iter().find_map(|(kind, value, pane)| {
            (kind == &agent.kind && keys.iter().any(|k| k == value)).then_some(*pane)
        })
    }
}

/// What tells a saved agent's conversation from another: its session id
/// and path, a sandbox's kept resume, a reported resume command in `cwd`.
fn conversation_keys(agent: &SavedAgent, cwd: &str) -> Vec<String> {
    [
        agent.session_id.clone(),
        agent.session_path.clone(),
        agent.sandbox.as_ref().map(|kept| sandbox_key(kept, cwd)),
        (!agent.resume.is_empty()).then(|| resume_key(&agent.resume, cwd)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Whether `taw tmux load` has run in the server.
fn plugin_loaded(tmux: &Tmux) -> bool {
    tmux.loaded().is_some()
}

/// The server now, or none when no server runs. A server still going
/// away (a `kill-server` just before) answers that it "exited
/// unexpectedly": asked again until it has gone.
fn read_live(tmux: &Tmux) -> Result<Option<(Snapshot, HashMap<u32, Extras>)>> {
    let mut tries = 0;
    loop {
        match crate::ops::save::read_with_extras(tmux, &HashMap::new()) {
            Ok(snapshot) => return Ok(Some(snapshot)),
            Err(error) if error.code == ErrorCode::ServerNotRunning => return Ok(None),
            Err(error) if error.message.contains("server exited unexpectedly") && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(error) => return Err(error),
        }
    }
}

/// Runs `batch`, again a few times when the server it starts meets one
/// still going away (a `kill-server` just before): tmux says the server
/// "exited unexpectedly".
fn run_starting(tmux: &Tmux, batch: &Batch) -> Result<String> {
    let mut tries = 0;
    loop {
        match tmux.run(batch) {
            Err(error) if error.message.contains("server exited unexpectedly") && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

/// `<pid> <start unix ms>`: whose restore holds autosave off, since when.
fn restoring_stamp() -> String {
    format!("{} {}", std::process::id(), crate::clock::now_ms())
}

fn queue_resume(
    window: &SavedWindow,
    pane: &SavedPane,
    id: u32,
    live: &Conversations,
    args: &Restore,
    out: &mut Restored,
    pending: &mut Vec<Pending>,
) {
    let Some(agent) = &pane.agent else { return };
    let at = format!("{}, pane {}", window_words(window), pane.index);
    // One pane per conversation.
    if let Some(other) = live.running(agent, &pane.cwd) {
        out.plan.push(format!(
            "skip resume in pane %{id}: pane %{other} already runs the same session"
        ));
        return;
    }
    // A pane that will open elsewhere (its folder gone) or is not to be
    // typed resumes nothing, so it takes no conversation from another: as
    // the dry run counts them.
    if let Some(other) = pending.iter().find(|job| {
        job.resume
            && (job.cwd.is_empty() || Path::new(&job.cwd).is_dir())
            && job.kind == agent.kind
            && same_conversation(&job.agent, agent)
    }) {
        out.plan.push(format!(
            "skip resume in pane %{id}: pane %{} resumes the same session",
            other.pane
        ));
        return;
    }
    match resume::resume_line(agent, &args.home) {
        Ok(line) => pending.push(Pending {
            at: at.clone(),
            saved: pane.clone(),
            pane: id,
            cwd: pane.cwd.clone(),
            kind: agent.kind.clone(),
            agent: agent.clone(),
            line,
            made: Instant::now(),
            resume: args.resume,
        }),
        Err(why) => out.plan.push(format!(
            "{at} (pane %{id}): not resumed: {}",
            why.words(&agent.kind)
        )),
    }
}

/// Whether two saved agents are one conversation: the same session id or
/// path, or the same command an integration reported.
fn same_conversation(a: &SavedAgent, b: &SavedAgent) -> bool {
    let some_equal = |x: &Option<String>, y: &Option<String>| x.is_some() && x == y;
    some_equal(&a.session_id, &b.session_id)
        || some_equal(&a.session_path, &b.session_path)
        || (!a.resume.is_empty() && a.resume == b.resume)
}

/// A sandboxed conversation: its kept resume, in its folder (one with no
/// id yet continues the last conversation there).
fn sandbox_key(kept: &crate::sandbox::KeptResume, cwd: &str) -> String {
    format!("sandbox\u{1f}{}\u{1f}{cwd}", kept.value())
}

impl Pending {
    /// The command to resume the agent by hand, after a `cd` to its saved
    /// folder when `with_cd`.
    fn by_hand(&self, with_cd: bool) -> String {
        if with_cd {
            format!("cd {} && {}", shell_word(&self.cwd), self.line.line())
        } else {
            self.line.line()
        }
    }
}

/// A pane whose resume is not typed: said in the plan, with the command
/// to run there.
fn leave_alone(out: &mut Restored, pane: u32, line: String) {
    out.not_resumed.push(format!("%{pane}"));
    out.plan.push(line);
}

/// The resumes being typed: each pane's prompt watch, and the resumes
/// typed, with when the last one was.
struct Resuming {
    /// `[session] startup_per_agent_delay_ms`: the time between two.
    delay: Duration,
    prompts: HashMap<u32, PromptWatch>,
    last_typed: Option<Instant>,
    typed: HashMap<u32, SavedAgent>,
}

/// Types each pending resume as its pane's shell comes to its prompt,
/// `args.delay` apart, and says in the plan what was left alone; answers
/// the agents typed, by pane.
fn resume_all(
    tmux: &Tmux,
    mut pending: Vec<Pending>,
    args: &Restore,
    out: &mut Restored,
) -> HashMap<u32, SavedAgent> {
    let mut resuming = Resuming {
        delay: args.delay,
        prompts: HashMap::new(),
        last_typed: None,
        typed: HashMap::new(),
    };
    while !pending.is_empty() {
        let snapshot = Snapshot::read(tmux).ok();
        pending = pending
            .into_iter()
            .filter_map(|job| resuming.try_one(tmux, snapshot.as_ref(), job, out))
            .collect();
        if !pending.is_empty() {
            std::thread::sleep(LOOK_EVERY);
        }
    }
    resuming.typed
}

impl Resuming {
    /// One look at a pending resume: typed, or left alone with the reason,
    /// or given back to wait for its shell.
    fn try_one(
        &mut self,
        tmux: &Tmux,
        snapshot: Option<&Snapshot>,
        job: Pending,
        out: &mut Restored,
    ) -> Option<Pending> {
        let Some(pane) = snapshot.and_then(|s| s.pane(job.pane, None)).cloned() else {
            leave_alone(
                out,
                job.pane,
                format!(
                    "pane %{} closed before its command was typed; resume it with: {}",
                    job.pane,
                    job.by_hand(true)
                ),
            );
            return None;
        };
        if !job.cwd.is_empty()
            && !crate::paths::same_place(Path::new(&pane.current_path), Path::new(&job.cwd))
        {
            opened_elsewhere(tmux, &job, &pane, out);
            return None;
        }
        if !job.resume {
            keep_saved(tmux, &job);
            leave_alone(
                out,
                job.pane,
                format!(
                    "{} (pane %{}): not resumed, as [session] resume_agents_on_restore is false; resume it with: {}",
                    job.at,
                    job.pane,
                    job.line.line()
                ),
            );
            return None;
        }
        // A pane in a mode, or with its input off, takes nothing typed:
        // said at once.
        if let Some(found) = takes_no_typing(tmux, &pane) {
            keep_saved(tmux, &job);
            leave_alone(
                out,
                job.pane,
                format!(
                    "pane %{} {}; resume it with: {}",
                    job.pane,
                    held_back_words(&found, NOTHING_TYPED),
                    job.by_hand(false)
                ),
            );
            return None;
        }
        let text = screen(tmux, job.pane).unwrap_or_default();
        let ready = self
            .prompts
            .entry(job.pane)
            .or_default()
            .at_prompt(&pane, text);
        let spaced = self.last_typed.is_none_or(|t| t.elapsed() >= self.delay);
        if ready && spaced {
            self.type_one(tmux, &job, &pane.current_command, out);
            return None;
        }
        if job.made.elapsed() >= shell_wait() {
            keep_saved(tmux, &job);
            leave_alone(
                out,
                job.pane,
                format!(
                    "pane %{} did not reach its prompt; resume it with: {}",
                    job.pane,
                    job.by_hand(false)
                ),
            );
            return None;
        }
        Some(job)
    }

    /// Types a resume into a shell at its prompt, and says how it went.
    fn type_one(&mut self, tmux: &Tmux, job: &Pending, shell: &str, out: &mut Restored) {
        match type_resume(tmux, job, shell) {
            Ok(Ok(())) => {
                self.last_typed = Some(Instant::now());
                self.typed.insert(job.pane, job.agent.clone());
                out.plan.push(format!(
                    "{} (pane %{}): typed: {}",
                    job.at,
                    job.pane,
                    job.line.line()
                ));
            }
            Ok(Err(why)) => {
                keep_saved(tmux, job);
                leave_alone(
                    out,
                    job.pane,
                    format!(
                        "pane %{} {why}; resume it with: {}",
                        job.pane,
                        job.by_hand(false)
                    ),
                )
            }
            Err(error) => {
                keep_saved(tmux, job);
                leave_alone(
                    out,
                    job.pane,
                    format!(
                        "pane %{}: {}; resume it with: {}",
                        job.pane,
                        error.message.trim_end_matches('.'),
                        job.by_hand(false)
                    ),
                )
            }
        }
    }
}

/// A pane left with its saved agent not resumed keeps it, as saved, until
/// it has an agent of its own: the next autosave writes it again, and a
/// restore after counts its conversation as there.
fn keep_saved(tmux: &Tmux, job: &Pending) {
    let mut writes = OptionWrites::default();
    writes.set(
        opt::RESTORE_SAVED,
        serde_json::to_string(&job.saved).unwrap_or_default(),
    );
    // Only a mark for later saves: the plan says what was left either way.
    let _ = tmux_pane::write_options(tmux, job.pane, &writes);
}

/// A pane tmux opened somewhere else than saved: nothing is typed there,
/// and the pane says so (herdr's restore_error) and is saved as it was
/// saved until it has an agent of its own.
fn opened_elsewhere(tmux: &Tmux, job: &Pending, pane: &Pane, out: &mut Restored) {
    let mut writes = OptionWrites::default();
    writes.set(opt::RESTORE_ERROR, RESTORE_ERROR_WORDS);
    writes.set(
        opt::RESTORE_SAVED,
        serde_json::to_string(&job.saved).unwrap_or_default(),
    );
    let kept = tmux_pane::write_options(tmux, job.pane, &writes);
    let line = if Path::new(&job.cwd).is_dir() {
        format!(
            "pane %{}: tmux opened it in {} and not in its saved directory {}, so nothing was typed; resume it with: {}",
            job.pane,
            pane.current_path,
            job.cwd,
            job.by_hand(true)
        )
    } else {
        format!(
            "pane %{}: saved directory {} is gone, so tmux opened it in {}, and nothing was typed; once the directory is back, resume it with: {}",
            job.pane,
            job.cwd,
            pane.current_path,
            job.by_hand(true)
        )
    };
    leave_alone(out, job.pane, line);
    // Without the marks the next save holds the pane as it is now, its
    // saved agent gone from the layout: worth a line of its own.
    if let Err(error) = kept {
        out.plan.push(format!(
            "pane %{}: could not keep its saved agent for the next save: {}",
            job.pane,
            error.message.trim_end_matches('.')
        ));
    }
}

/// What keeps a pane from taking a typed line before anything is tried: a
/// mode, or its input off.
fn takes_no_typing(tmux: &Tmux, pane: &Pane) -> Option<HeldBack> {
    let values =
        tmux_pane::read_values(tmux, pane.id, &["pane_mode", "pane_input_off"]).unwrap_or_default();
    let input_off = values.get(1).is_some_and(|v| v == "1");
    (pane.in_mode || input_off).then(|| HeldBack {
        in_mode: pane.in_mode,
        input_off,
        synchronized: false,
        mode: values.first().cloned().unwrap_or_default(),
        command: String::new(),
    })
}

/// The pane options a resume writes once its line is typed: the agent it
/// resumes, as the pane held it when the layout was saved.
fn resume_marks(job: &Pending) -> OptionWrites {
    let mut writes = OptionWrites::default();
    writes.set(opt::AGENT_KIND_HINT, job.kind.as_str());
    // A command the agent reported for itself comes with its word that it
    // is there, which holds until the shell is back at its prompt (a
    // program nothing names is the agent by it), and is kept for the
    // next save, as its report kept it.
    if !job.agent.resume.is_empty() {
        writes.set(opt::REPORTED_KIND, job.kind.as_str());
        writes.set(
            opt::RESUME,
            serde_json::to_string(&job.agent.resume).unwrap_or_default(),
        );
    }
    if let Some(started) = job.agent.started.as_deref().filter(|s| !s.is_empty()) {
        writes.set(opt::STARTED_COMMAND, started);
    }
    let stored = StoredSession {
        source: "taw:restore".into(),
        agent: job.kind.clone(),
        kind: if job.agent.session_path.is_some() {
            "path"
        } else {
            "id"
        }
        .into(),
        value: job
            .agent
            .session_path
            .clone()
            .or_else(|| job.agent.session_id.clone())
            .unwrap_or_default(),
        id: job.agent.session_id.clone(),
        path: job.agent.session_path.clone(),
    };
    if !stored.value.is_empty() {
        writes.set(
            opt::AGENT_SESSION,
            serde_json::to_string(&stored).unwrap_or_default(),
        );
    }
    if !job.agent.agent_claude_flags.is_empty() {
        writes.set(
            opt::CLAUDE_FLAGS,
            serde_json::to_string(&job.agent.agent_claude_flags).unwrap_or_default(),
        );
    }
    writes
}

/// A sandboxed agent's resume: `taw sandbox` typed again (the pane's own
/// word for taw), and the marks: its kept resume and no plain option.
fn sandbox_resume(
    tmux: &Tmux,
    job: &Pending,
    kept: &crate::sandbox::KeptResume,
) -> Result<(String, OptionWrites)> {
    let shell_pid = tmux_pane::read_values(tmux, job.pane, &["pane_pid"])?
        .first()
        .and_then(|pid| pid.parse().ok())
        .unwrap_or(0);
    let line = kept.line(&crate::sandbox::taw_word(shell_pid));
    let mut writes = OptionWrites::default();
    writes.set(opt::AGENT_KIND_HINT, job.kind.as_str());
    writes.set(opt::SANDBOX_RESUME, kept.value());
    Ok((line, writes))
}

/// Types a resume command and its Enter, and marks the pane as holding
/// the agent it resumes; a send held back answers why, in the plan's
/// words.
fn type_resume(tmux: &Tmux, job: &Pending, shell: &str) -> Result<std::result::Result<(), String>> {
    let (line, marks) = match &job.agent.sandbox {
        Some(kept) => sandbox_resume(tmux, job, kept)?,
        None => (job.line.line(), resume_marks(job)),
    };
    Ok(type_and_enter(tmux, job.pane, shell, &line, &marks)?
        .map(drop)
        .map_err(|held| match held {
            HeldAt::Typing(found) => held_back_words(&found, NOTHING_TYPED),
            HeldAt::Enter(found) => held_back_words(&found, LEFT_ON_LINE),
        }))
}

/// How the plan ends a send held back before its line was typed.
const NOTHING_TYPED: &str = "typed, so nothing was typed";
/// How the plan ends a send whose Enter was held back.
const LEFT_ON_LINE: &str = "run, and it may be left on the pane's line: clear the line first";

/// Why a guarded send held a resume back, after "pane %N": `when` says
/// at which step ("typed, so nothing was typed").
fn held_back_words(found: &HeldBack, when: &str) -> String {
    if found.in_mode {
        format!("is in {}", super::agent::drive::mode_name(&found.mode))
    } else if found.input_off {
        "takes no input".to_string()
    } else if found.synchronized {
        "is in a window with synchronize-panes on, where what is typed goes to every pane"
            .to_string()
    } else {
        format!("had another program in front of its shell when its command was to be {when}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tmux::snapshot::fixture;

    const HOME: &str = "/home/nobody-here";

    fn agent(kind: &str, id: Option<&str>) -> SavedAgent {
        SavedAgent {
            kind: kind.into(),
            session_id: id.map(Into::into),
            ..SavedAgent::default()
        }
    }

    fn saved_pane(index: i64, cwd: &str, agent: Option<SavedAgent>) -> SavedPane {
        SavedPane {
            index,
            id: format!("%{index}"),
            cwd: cwd.into(),
            active: index == 0,
            agent,
        }
    }

    fn saved_window(index: i64, name: &str, panes: Vec<SavedPane>) -> SavedWindow {
        SavedWindow {
            index,
            name: name.into(),
            layout: String::new(),
            active: false,
            zoomed: false,
            linked_from: None,
            panes,
        }
    }

    fn saved_session(name: &str, windows: Vec<SavedWindow>) -> SavedSession {
        SavedSession {
            name: name.into(),
            path: format!("/src/{name}"),
            grouped_with: None,
            label: None,
            windows,
        }
    }

    fn layout(taken_unix: u64, sessions: Vec<SavedSession>) -> Layout {
        Layout {
            version: saved::VERSION,
            taken_unix,
            sessions,
        }
    }

    fn dry_args(home: &Path) -> Restore {
        Restore {
            name: None,
            dry_run: true,
            delay: Duration::ZERO,
            resume: true,
            home: home.to_path_buf(),
        }
    }

    /// A `@agent_session` value as a watcher stores it.
    fn stored(agent: &str, kind: &str, value: &str, id: Option<&str>) -> String {
        serde_json::to_string(&StoredSession {
            source: "test".into(),
            agent: agent.into(),
            kind: kind.into(),
            value: value.into(),
            id: id.map(Into::into),
            path: None,
        })
        .unwrap()
    }

    #[test]
    fn a_layout_string_without_a_whole_size_has_no_size() {
        let split = "c0de,80x24,0,0{40x24,0,0,1,39x24,41,0,2}";
        assert_eq!(layout_size(split), Some((80, 24)));
        assert_eq!(layout_size(""), None);
        assert_eq!(layout_size("c0de"), None);
        assert_eq!(layout_size("c0de,80x,0,0,1"), None);
        assert_eq!(layout_size("c0de,x24,0,0,1"), None);
        assert_eq!(layout_size("c0de,-80x24,0,0,1"), None);
        assert_eq!(layout_size("c0de,80 by 24,0,0,1"), None);
        // A size tmux refuses for a session is left out.
        assert_eq!(layout_size("c0de,0x24,0,0,1"), None);
        assert_eq!(layout_size("c0de,80x4294967295,0,0,1"), None);
        assert_eq!(layout_size("c0de,10000x1,0,0,1"), Some((10_000, 1)));
    }

    #[test]
    fn a_window_is_named_by_its_saved_number_and_name() {
        let window = saved_window(3, "logs", Vec::new());
        assert_eq!(window_words(&window), "window 3 'logs'");
        // An unnamed window still reads as one.
        assert_eq!(
            window_words(&saved_window(0, "", Vec::new())),
            "window 0 ''"
        );
    }

    #[test]
    fn only_a_session_with_windows_or_a_group_is_worth_making() {
        let mut empty = saved_session("empty", Vec::new());
        assert!(!has_something(&empty));
        // A grouped session shares its group's windows: none of its own.
        empty.grouped_with = Some("api".into());
        assert!(has_something(&empty));
        let with_window = saved_session("api", vec![saved_window(0, "zsh", Vec::new())]);
        assert!(has_something(&with_window));
    }

    #[test]
    fn an_added_window_goes_after_the_open_sessions_last_window() {
        let mut live = fixture::server();
        // `api` has windows 1 and 2, `web` window 3.
        assert_eq!(next_window_index(Some(&live), "api"), 3);
        assert_eq!(next_window_index(Some(&live), "web"), 4);
        // Never into a gap: after the highest number, not the count.
        live.windows[1].index = 9;
        assert_eq!(next_window_index(Some(&live), "api"), 10);
        // A session not open, or no server at all: the first number, 0.
        assert_eq!(next_window_index(Some(&live), "gone"), 0);
        assert_eq!(next_window_index(None, "api"), 0);
    }

    #[test]
    fn a_time_on_another_day_carries_its_date() {
        let noon = 1_750_000_000;
        let same_day = when(noon, noon);
        assert_eq!(same_day.len(), "16:20".len());
        assert_eq!(same_day.as_bytes()[2], b':');
        // Two days off is another date in every time zone.
        let other_day = when(noon, noon + 2 * 86_400);
        assert_eq!(other_day.len(), "2026-12-01 16:20".len());
        assert!(other_day.ends_with(&format!(" {same_day}")));
    }

    #[test]
    fn a_layout_is_said_to_be_saved_before_or_after_the_server_started() {
        let start = 1_750_000_000;
        let earlier = layout(start - 60, Vec::new());
        assert!(
            saved_against(&earlier, start).contains(", before this tmux server started at "),
            "{}",
            saved_against(&earlier, start)
        );
        // Taken the very second the server started: not before it.
        let same = layout(start, Vec::new());
        assert!(saved_against(&same, start).contains(", after this tmux server started at "));
        let later = layout(start + 60, Vec::new());
        let words = saved_against(&later, start);
        assert!(words.starts_with(&format!(
            "the layout saved at {}, after",
            when(start + 60, start)
        )));
    }

    #[test]
    fn nothing_to_restore_names_the_server_start_only_when_known() {
        let saved = layout(1_750_000_000, Vec::new());
        assert_eq!(
            nothing_to_restore(&saved, None),
            "nothing to restore: every session of the layout is open"
        );
        let known = nothing_to_restore(&saved, Some(1_750_000_100));
        assert!(known.starts_with("nothing to restore: the layout saved at "));
        assert!(known.contains("before this tmux server started"));
        assert!(known.ends_with(", has every session open"));
    }

    #[test]
    fn the_first_plan_line_says_would_on_a_dry_run() {
        let saved = layout(1_750_000_000, Vec::new());
        let now = crate::clock::now_unix();
        assert_eq!(
            taken_line(&saved, None, true),
            format!(
                "would restore the layout saved at {}",
                when(saved.taken_unix, now)
            )
        );
        assert!(taken_line(&saved, None, false).starts_with("restored the layout saved at "));
        let against = taken_line(&saved, Some(1_750_000_100), false);
        assert!(against.starts_with("restored the layout saved at "));
        assert!(against.contains("this tmux server started at"));
    }

    #[test]
    fn the_opening_starts_a_server_only_when_not_dry() {
        let saved = layout(1_750_000_000, Vec::new());
        let mut dry = Restored {
            skipped: vec!["web".into()],
            ..Restored::default()
        };
        plan_opening(&mut dry, &saved, None, true, true);
        assert_eq!(dry.plan.len(), 3);
        assert_eq!(
            dry.plan[1],
            "would start a tmux server (none is running), with your own tmux config"
        );
        assert_eq!(dry.plan[2], "session 'web' is open: left as it is");
        assert!(!dry.started_server);

        let mut real = Restored::default();
        plan_opening(&mut real, &saved, None, true, false);
        assert_eq!(
            real.plan[1],
            "started a tmux server (none was running), with your own tmux config"
        );
        assert!(real.started_server);

        // A server already running: only the layout's line.
        let mut running = Restored::default();
        plan_opening(&mut running, &saved, Some(1_750_000_100), false, false);
        assert_eq!(running.plan.len(), 1);
        assert!(!running.started_server);
    }

    #[test]
    fn two_agents_are_one_conversation_only_by_something_they_both_have() {
        let a = agent("claude", Some("abc"));
        assert!(same_conversation(&a, &agent("claude", Some("abc"))));
        assert!(!same_conversation(&a, &agent("claude", Some("xyz"))));
        // No id on either side is no match: None is not a shared id.
        assert!(!same_conversation(
            &agent("claude", None),
            &agent("claude", None)
        ));
        let by_path = |path: &str| SavedAgent {
            session_path: Some(path.into()),
            ..agent("pi", None)
        };
        assert!(same_conversation(
            &by_path("/t/1.jsonl"),
            &by_path("/t/1.jsonl")
        ));
        assert!(!same_conversation(
            &by_path("/t/1.jsonl"),
            &by_path("/t/2.jsonl")
        ));
        let reported = |words: &[&str]| SavedAgent {
            resume: words.iter().map(|w| w.to_string()).collect(),
            ..agent("mybot", None)
        };
        assert!(same_conversation(
            &reported(&["mybot", "--resume", "7"]),
            &reported(&["mybot", "--resume", "7"])
        ));
        assert!(!same_conversation(&reported(&[]), &reported(&[])));
    }

    #[test]
    fn a_conversation_is_known_by_each_of_its_keys_in_order() {
        assert!(conversation_keys(&agent("codex", None), "/src").is_empty());
        let kept = crate::sandbox::KeptResume {
            agent: "claude".into(),
            profile: "strict".into(),
            session_id: None,
        };
        let full = SavedAgent {
            session_id: Some("abc".into()),
            session_path: Some("/t/abc.jsonl".into()),
            resume: vec!["claude".into(), "-r".into()],
            sandbox: Some(kept.clone()),
            ..agent("claude", None)
        };
        let words = vec!["claude".to_string(), "-r".to_string()];
        assert_eq!(
            conversation_keys(&full, "/src/api"),
            vec![
                "abc".to_string(),
                "/t/abc.jsonl".to_string(),
                sandbox_key(&kept, "/src/api"),
                resume_key(&words, "/src/api"),
            ]
        );
    }

    #[test]
    fn a_folder_keyed_conversation_differs_by_folder() {
        let words = vec!["mybot".to_string(), "--continue".to_string()];
        assert_ne!(resume_key(&words, "/src/a"), resume_key(&words, "/src/b"));
        // Words are kept apart: `a b` is not `ab`.
        assert_ne!(
            resume_key(&["a".into(), "b".into()], "/x"),
            resume_key(&["ab".into()], "/x")
        );
        let kept = crate::sandbox::KeptResume {
            agent: "codex".into(),
            profile: "p".into(),
            session_id: Some("s1".into()),
        };
        assert_ne!(sandbox_key(&kept, "/src/a"), sandbox_key(&kept, "/src/b"));
        assert!(sandbox_key(&kept, "/src/a").contains(&kept.value()));
    }

    #[test]
    fn no_server_runs_no_conversation() {
        let none = Conversations::of(None, &HashMap::new());
        assert!(none.0.is_empty());
        assert_eq!(none.running(&agent("claude", Some("abc")), "/src"), None);
    }

    #[test]
    fn a_live_agent_session_is_matched_by_kind_and_id() {
        let mut live = fixture::server();
        // %3 is the fixture's Claude pane.
        live.panes[2].agent_session = stored("claude", "id", "abc", None);
        let conversations = Conversations::of(Some(&live), &HashMap::new());
        assert_eq!(
            conversations.running(&agent("claude", Some("abc")), "/anywhere"),
            Some(3)
        );
        assert_eq!(
            conversations.running(&agent("claude", Some("other")), "/anywhere"),
            None
        );
        // The same id under another agent is another conversation.
        assert_eq!(
            conversations.running(&agent("codex", Some("abc")), "/anywhere"),
            None
        );
    }

    #[test]
    fn a_path_session_is_matched_by_its_path_and_its_id() {
        let mut live = fixture::server();
        live.panes[2].agent_session = stored("pi", "path", "/t/s.jsonl", Some("s"));
        live.panes[2].agent_kind = "pi".into();
        let conversations = Conversations::of(Some(&live), &HashMap::new());
        let by_path = SavedAgent {
            session_path: Some("/t/s.jsonl".into()),
            ..agent("pi", None)
        };
        assert_eq!(conversations.running(&by_path, ""), Some(3));
        assert_eq!(conversations.running(&agent("pi", Some("s")), ""), Some(3));
    }

    #[test]
    fn a_kind_hint_counts_only_while_the_shell_is_not_in_front() {
        let mut live = fixture::server();
        let hinted = &mut live.panes[0];
        hinted.kind_hint = "codex".into();
        hinted.agent_session = stored("codex", "id", "t1", None);
        // At the shell's prompt: the agent it was resumed as has exited.
        let at_shell = Conversations::of(Some(&live), &HashMap::new());
        assert_eq!(at_shell.running(&agent("codex", Some("t1")), ""), None);
        live.panes[0].current_command = "node".into();
        let in_front = Conversations::of(Some(&live), &HashMap::new());
        assert_eq!(in_front.running(&agent("codex", Some("t1")), ""), Some(1));
    }

    #[test]
    fn a_reported_resume_command_matches_only_in_its_folder() {
        let mut live = fixture::server();
        live.panes[3].agent_kind = "mybot".into();
        live.panes[3].current_path = "/src/web".into();
        let words = vec!["mybot".to_string(), "--resume".to_string(), "9".to_string()];
        let extras = HashMap::from([(
            4,
            Extras {
                resume: serde_json::to_string(&words).unwrap(),
                ..Extras::default()
            },
        )]);
        let conversations = Conversations::of(Some(&live), &extras);
        let saved = SavedAgent {
            resume: words,
            ..agent("mybot", None)
        };
        assert_eq!(conversations.running(&saved, "/src/web"), Some(4));
        assert_eq!(conversations.running(&saved, "/src/api"), None);
    }

    #[test]
    fn a_pane_left_waiting_by_a_restore_still_holds_its_saved_conversation() {
        // A plain shell pane, no agent in front: its saved pane is what
        // says the conversation is there.
        let live = fixture::server();
        let waiting = saved_pane(0, "/gone/folder", Some(agent("codex", Some("t1"))));
        let extras = HashMap::from([(
            2,
            Extras {
                restore_saved: serde_json::to_string(&waiting).unwrap(),
                ..Extras::default()
            },
        )]);
        let conversations = Conversations::of(Some(&live), &extras);
        assert_eq!(
            conversations.running(&agent("codex", Some("t1")), ""),
            Some(2)
        );
        // Unreadable marks are no conversation.
        let garbled = HashMap::from([(
            2,
            Extras {
                restore_saved: "{not json".into(),
                ..Extras::default()
            },
        )]);
        let conversations = Conversations::of(Some(&live), &garbled);
        assert_eq!(conversations.running(&agent("codex", Some("t1")), ""), None);
    }

    #[test]
    fn a_sandboxed_conversation_is_matched_in_its_container_and_folder() {
        let kept = crate::sandbox::KeptResume {
            agent: "claude".into(),
            profile: "strict".into(),
            session_id: Some("abc".into()),
        };
        let mut live = fixture::server();
        let pane = &mut live.panes[2];
        pane.current_path = "/src/api".into();
        pane.sandbox_resume = kept.value();
        let saved = SavedAgent {
            sandbox: Some(kept.clone()),
            ..agent("claude", None)
        };
        // A kept resume with no container is not a sandbox running.
        let no_container = Conversations::of(Some(&live), &HashMap::new());
        assert_eq!(no_container.running(&saved, "/src/api"), None);
        live.panes[2].container = "taw-abc".into();
        let contained = Conversations::of(Some(&live), &HashMap::new());
        assert_eq!(contained.running(&saved, "/src/api"), Some(3));
        assert_eq!(contained.running(&saved, "/src/web"), None);
    }

    #[test]
    fn only_windows_with_a_resumable_agent_not_running_are_added() {
        let home = Path::new(HOME);
        let session = saved_session(
            "api",
            vec![
                saved_window(0, "shell", vec![saved_pane(0, "/src", None)]),
                saved_window(
                    1,
                    "running",
                    vec![saved_pane(0, "/src", Some(agent("codex", Some("live"))))],
                ),
                saved_window(
                    2,
                    "closed",
                    vec![
                        saved_pane(0, "/src", None),
                        saved_pane(1, "/src", Some(agent("codex", Some("t1")))),
                    ],
                ),
                // taw knows no resume for it, nor one with no session.
                saved_window(
                    3,
                    "unknown",
                    vec![saved_pane(0, "/src", Some(agent("minimax", Some("m"))))],
                ),
                saved_window(
                    4,
                    "no-session",
                    vec![saved_pane(0, "/src", Some(agent("codex", None)))],
                ),
            ],
        );
        let live = Conversations(vec![("codex".into(), "live".into(), 7)]);
        let added: Vec<i64> = windows_to_add(&session, &live, home)
            .iter()
            .map(|w| w.index)
            .collect();
        assert_eq!(added, vec![2]);
    }

    #[test]
    fn a_layout_has_work_for_a_session_not_open_or_a_window_to_add() {
        let home = Path::new(HOME);
        let none = Conversations::default();
        let open = vec!["api".to_string()];
        let shell_only = saved_session(
            "api",
            vec![saved_window(0, "zsh", vec![saved_pane(0, "/src", None)])],
        );
        assert!(!has_work(
            &layout(0, vec![shell_only.clone()]),
            &open,
            &none,
            home
        ));
        // A saved session with nothing in it is no work even when closed.
        assert!(!has_work(
            &layout(0, vec![saved_session("empty", Vec::new())]),
            &open,
            &none,
            home
        ));
        let mut web = shell_only;
        web.name = "web".into();
        assert!(has_work(&layout(0, vec![web]), &open, &none, home));
        let with_agent = saved_session(
            "api",
            vec![saved_window(
                0,
                "zsh",
                vec![saved_pane(0, "/src", Some(agent("codex", Some("t1"))))],
            )],
        );
        assert!(has_work(&layout(0, vec![with_agent]), &open, &none, home));
    }

    #[test]
    fn the_work_makes_closed_sessions_and_adds_to_open_ones_after_their_last_window() {
        let home = Path::new(HOME);
        let live = fixture::server();
        let agent_window = |index: i64, id: &str| {
            saved_window(
                index,
                "agent",
                vec![saved_pane(0, "/src", Some(agent("codex", Some(id))))],
            )
        };
        let saved = layout(
            0,
            vec![
                saved_session("api", vec![agent_window(1, "t1"), agent_window(5, "t2")]),
                saved_session(
                    "web",
                    vec![saved_window(0, "zsh", vec![saved_pane(0, "/src", None)])],
                ),
                saved_session("new", vec![agent_window(0, "t3")]),
                saved_session("empty", Vec::new()),
            ],
        );
        let mut out = Restored::default();
        let work = work_of(
            &saved,
            Some(&live),
            &Conversations::default(),
            &dry_args(home),
            &mut out,
        );
        let made: Vec<&str> = work.to_make.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(made, vec!["new"]);
        // api's open windows are 1 and 2: the saved ones come at 3 and 4.
        let added: Vec<(&str, i64, i64)> = work
            .to_add
            .iter()
            .map(|a| (a.session.name.as_str(), a.window.index, a.index))
            .collect();
        assert_eq!(added, vec![("api", 1, 3), ("api", 5, 4)]);
        assert_eq!(out.skipped, vec!["web".to_string()]);
    }

    #[test]
    fn with_no_server_every_session_is_made() {
        let saved = layout(
            0,
            vec![saved_session(
                "api",
                vec![saved_window(0, "zsh", vec![saved_pane(0, "/src", None)])],
            )],
        );
        let mut out = Restored::default();
        let work = work_of(
            &saved,
            None,
            &Conversations::default(),
            &dry_args(Path::new(HOME)),
            &mut out,
        );
        assert_eq!(work.to_make.len(), 1);
        assert!(work.to_add.is_empty());
        assert!(out.skipped.is_empty());
    }

    #[test]
    fn a_failed_session_says_which_windows_were_made_and_which_not() {
        let session = saved_session(
            "api",
            vec![
                saved_window(0, "a", Vec::new()),
                saved_window(1, "b", Vec::new()),
                saved_window(2, "c", Vec::new()),
            ],
        );
        let error = partly_made(&session, 1, TawError::tmux("no space for new pane"));
        assert_eq!(error.code, ErrorCode::TmuxError);
        assert_eq!(
            error.message,
            "no space for new pane (made: window 0 'a'; not made: window 1 'b', window 2 'c')"
        );
        let at_first = partly_made(&session, 0, TawError::tmux("gone"));
        assert!(
            at_first
                .message
                .contains("(made: nothing; not made: window 0 'a'")
        );
    }

    #[test]
    fn a_held_back_send_says_the_first_thing_that_held_it() {
        let held = |in_mode: bool, input_off: bool, synchronized: bool, mode: &str| HeldBack {
            in_mode,
            input_off,
            synchronized,
            mode: mode.into(),
            command: String::new(),
        };
        assert_eq!(
            held_back_words(&held(true, true, true, "copy-mode"), NOTHING_TYPED),
            "is in copy mode"
        );
        assert_eq!(
            held_back_words(&held(true, false, false, ""), NOTHING_TYPED),
            "is in a mode"
        );
        assert_eq!(
            held_back_words(&held(false, true, true, ""), NOTHING_TYPED),
            "takes no input"
        );
        assert!(
            held_back_words(&held(false, false, true, ""), NOTHING_TYPED)
                .contains("synchronize-panes on")
        );
        assert_eq!(
            held_back_words(&held(false, false, false, ""), LEFT_ON_LINE),
            format!(
                "had another program in front of its shell when its command was to be {LEFT_ON_LINE}"
            )
        );
    }

    fn pending(cwd: &str, agent: SavedAgent) -> Pending {
        let line = resume::resume_line(&agent, Path::new(HOME)).unwrap();
        Pending {
            at: "window 0 'zsh', pane 0".into(),
            saved: saved_pane(0, cwd, Some(agent.clone())),
            pane: 5,
            cwd: cwd.into(),
            kind: agent.kind.clone(),
            agent,
            line,
            made: Instant::now(),
            resume: true,
        }
    }

    #[test]
    fn a_resume_by_hand_goes_to_its_folder_first_when_asked() {
        let job = pending("/src/my api", agent("codex", Some("t1")));
        assert_eq!(job.by_hand(false), "codex resume t1");
        assert_eq!(job.by_hand(true), "cd '/src/my api' && codex resume t1");
    }

    #[test]
    fn resume_marks_keep_only_what_the_saved_agent_had() {
        let plain = resume_marks(&pending("/src", agent("codex", Some("t1"))));
        let names: Vec<&str> = plain.set.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, vec![opt::AGENT_KIND_HINT, opt::AGENT_SESSION]);
        let session = StoredSession::parse(&plain.set[1].1).unwrap();
        assert_eq!(
            (session.kind.as_str(), session.value.as_str()),
            ("id", "t1")
        );
        assert!(plain.unset.is_empty());

        // A path is stored over an id; a reported command and flags come
        // with their own marks.
        let full = SavedAgent {
            session_path: Some("/t/s.jsonl".into()),
            resume: vec!["mybot".into(), "--resume".into(), "s".into()],
            agent_claude_flags: vec!["--model".into(), "opus".into()],
            started: Some("mybot --fast".into()),
            ..agent("mybot", Some("s"))
        };
        let marks = resume_marks(&pending("/src", full));
        let value = |name: &str| {
            marks
                .set
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(value(opt::REPORTED_KIND).as_deref(), Some("mybot"));
        assert_eq!(
            value(opt::RESUME).as_deref(),
            Some(r#"["mybot","--resume","s"]"#)
        );
        assert_eq!(value(opt::STARTED_COMMAND).as_deref(), Some("mybot --fast"));
        assert_eq!(
            value(opt::CLAUDE_FLAGS).as_deref(),
            Some(r#"["--model","opus"]"#)
        );
        let session = StoredSession::parse(&value(opt::AGENT_SESSION).unwrap()).unwrap();
        assert_eq!(session.kind, "path");
        assert_eq!(session.value, "/t/s.jsonl");
        assert_eq!(session.id.as_deref(), Some("s"));
    }

    #[test]
    fn a_session_is_made_own_windows_first_then_links_then_the_one_in_front() {
        let mut linked = saved_window(0, "shared", Vec::new());
        linked.linked_from = Some("web:2".into());
        linked.active = true;
        let mut logs = saved_window(2, "logs", Vec::new());
        logs.active = true;
        let api = saved_session(
            "api",
            vec![linked, saved_window(1, "zsh", Vec::new()), logs],
        );
        let words: Vec<String> = session_steps(&api).iter().map(Step::words).collect();
        assert_eq!(
            words,
            vec![
                "create session 'api'",
                "create window 1 'zsh'",
                "create window 2 'logs'",
                "link window 0 'shared' from 'web:2'",
                // A linked window in front is the other session's to choose.
                "select window 2 'logs'",
            ]
        );
        let mut group = saved_session("api-2", vec![saved_window(0, "x", Vec::new())]);
        group.grouped_with = Some("api".into());
        let words: Vec<String> = session_steps(&group).iter().map(Step::words).collect();
        assert_eq!(words, vec!["create session 'api-2' grouped with 'api'"]);
    }

    #[test]
    fn a_window_is_filled_in_one_batch_each_pane_split_from_the_last() {
        let mut window = saved_window(
            3,
            "work",
            vec![
                saved_pane(0, "/a", None),
                saved_pane(1, "/b", None),
                saved_pane(2, "/c d", None),
            ],
        );
        window.layout = "c0de,80x24,0,0[80x8,0,0,1,80x7,0,9,2,80x7,0,17,3]".into();
        window.panes[0].active = false;
        window.panes[1].active = true;
        window.zoomed = true;
        let made = NewWindow::parse("$1 @7 %20 1\n").unwrap();
        assert_eq!(
            made,
            NewWindow {
                session: 1,
                window: 7,
                first_pane: 20,
                first_index: 1
            }
        );
        let lines: Vec<String> = plan_fill(&window, made, true)
            .commands()
            .iter()
            .map(|cmd| cmd.words().join(" "))
            .collect();
        let ids = arrange::NEW_IDS;
        assert_eq!(
            lines,
            vec![
                format!("split-window -d -P -F {ids} -t @7.1 -c /b"),
                format!("split-window -d -P -F {ids} -t @7.2 -c /c d"),
                format!("select-layout -t @7 {}", window.layout),
                "select-pane -t @7.2".into(),
                "resize-pane -Z -t @7.2".into(),
            ]
        );
        // An added window is not chosen; one pane is not zoomed.
        let lines = plan_fill(&window, made, false).commands().len();
        assert_eq!(lines, 3);
        let alone = saved_window(0, "one", vec![saved_pane(0, "/a", None)]);
        assert!(selection(&alone, 1, true, |at| at.to_string()).len() == 1);
        // Two panes made of three: the active one (the second) is there.
        let apart = selection(&window, 2, true, |at| format!("%{}", 20 + at));
        assert_eq!(apart.len(), 2);
        assert!(selection(&window, 1, true, |at| at.to_string()).is_empty());
    }

    #[test]
    fn a_dry_run_plans_each_session_window_and_typed_line() {
        let folder = tempfile::tempdir().unwrap();
        let cwd = folder.path().display().to_string();
        let mut first = saved_window(
            0,
            "agents",
            vec![
                saved_pane(0, &cwd, Some(agent("codex", Some("t1")))),
                // The same conversation again: resumed once only.
                saved_pane(1, &cwd, Some(agent("codex", Some("t1")))),
                saved_pane(2, &cwd, Some(agent("minimax", Some("m")))),
                saved_pane(3, "/no/such/folder/here", Some(agent("codex", Some("t2")))),
                saved_pane(4, &cwd, Some(agent("codex", Some("live")))),
            ],
        );
        first.active = true;
        let mut linked = saved_window(1, "shared", Vec::new());
        linked.linked_from = Some("web:2".into());
        let api = saved_session("api", vec![first, linked]);
        let mut group = saved_session("api-2", Vec::new());
        group.grouped_with = Some("api".into());
        let work = Work {
            to_make: vec![&api, &group],
            to_add: Vec::new(),
        };
        let live = Conversations(vec![("codex".into(), "live".into(), 8)]);
        let mut out = Restored::default();
        dry_plan(&work, &live, &dry_args(Path::new(HOME)), &mut out);
        let at = |pane: i64| format!("window 0 'agents', pane {pane}");
        assert_eq!(
            out.plan,
            vec![
                "would create session 'api'".to_string(),
                "would create window 0 'agents'".to_string(),
                "would link window 1 'shared' from 'web:2'".to_string(),
                "would select window 0 'agents'".to_string(),
                format!("{}: would type: codex resume t1", at(0)),
                format!(
                    "{}: would not resume: session 'api', {} resumes the same session",
                    at(1),
                    at(0)
                ),
                format!(
                    "{}: would not resume: taw knows no way to resume minimax",
                    at(2)
                ),
                format!(
                    "{}: would not type: saved directory /no/such/folder/here is gone, so the pane would open elsewhere; once the directory is back, resume it with: codex resume t2",
                    at(3)
                ),
                format!(
                    "{}: would not resume: pane %8 already runs the same session",
                    at(4)
                ),
                "would create session 'api-2' grouped with 'api'".to_string(),
            ]
        );
        assert_eq!(out.would_type.len(), 1);
        let typed = &out.would_type[0];
        assert_eq!(
            (
                typed.session.as_str(),
                typed.window,
                typed.pane,
                typed.line.as_str()
            ),
            ("api", 0, 0, "codex resume t1")
        );
        // A dry run makes nothing and leaves nothing unresumed.
        assert!(out.created.is_empty() && out.not_resumed.is_empty());
    }

    #[test]
    fn a_dry_run_names_the_number_an_added_window_gets() {
        let folder = tempfile::tempdir().unwrap();
        let cwd = folder.path().display().to_string();
        let api = saved_session(
            "api",
            vec![saved_window(
                1,
                "agent",
                vec![saved_pane(0, &cwd, Some(agent("codex", Some("t1"))))],
            )],
        );
        let work = Work {
            to_make: Vec::new(),
            to_add: vec![AddedWindow {
                session: &api,
                window: &api.windows[0],
                index: 4,
            }],
        };
        let mut out = Restored::default();
        dry_plan(
            &work,
            &Conversations::default(),
            &dry_args(Path::new(HOME)),
            &mut out,
        );
        assert_eq!(
            out.plan,
            vec![
                "would add saved window 1 'agent' to open session 'api' as window 4".to_string(),
                "window 1 'agent', pane 0: would type: codex resume t1".to_string(),
            ]
        );
        // The line is keyed by the saved window number, not the new one.
        assert_eq!(out.would_type[0].window, 1);
    }

    #[test]
    fn a_pane_left_alone_is_listed_and_explained() {
        let mut out = Restored::default();
        leave_alone(&mut out, 12, "pane %12 takes no input".into());
        assert_eq!(out.not_resumed, vec!["%12".to_string()]);
        assert_eq!(out.plan, vec!["pane %12 takes no input".to_string()]);
    }

    #[test]
    fn a_layouts_size() {
        assert_eq!(layout_size("b25d,120x40,0,0,1"), Some((120, 40)));
        assert_eq!(layout_size("junk"), None);
    }
}
