//! An event's payload, built once for every listener: herdr's event data
//! (`{"type": "pane_created", "pane": {...}}`), the context a plugin gets
//! (the workspace, tab and pane the event is about, in the records the CLI
//! prints), the `TAW_*` variables, and the environment tmux would give a new
//! pane of the event's session.

use crate::envelope::Result;
use crate::events::{Event, Occurrence};
use crate::model::{AgentInfo, PaneInfo, Records, TabInfo, WorkspaceInfo};
use crate::tmux::Tmux;
use crate::tmux::commands as cmd;
pub(crate) use crate::tmux::environment::Environments;
use crate::tmux::environment::parse_shell_environment;
use crate::tmux::ids;
use crate::tmux::snapshot::{Pane, Session, Snapshot, Window};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Everything a listener is given about one occurrence.
#[derive(Debug, Clone)]
pub(crate) struct Delivery {
    pub event: Event,
    /// herdr's event data, `type` first.
    pub data: Map<String, Value>,
    /// herdr's invocation context for the event's subject, with the records.
    pub context: Map<String, Value>,
    /// The `TAW_*` variables.
    pub taw_env: BTreeMap<String, String>,
    /// The environment of a new pane of the event's session (tmux's
    /// global one when there is none), with `TMUX`.
    pub base_env: BTreeMap<String, String>,
    /// Where the hook runs: the pane's folder, else the session's, else home.
    pub dir: PathBuf,
    /// The tmux server's socket.
    pub socket_path: String,
}

impl Delivery {
    /// What a `[hooks]` command reads on standard input: the context a
    /// plugin gets (herdr's flat fields null where taw has nothing) with
    /// the event's name and herdr's event data.
    pub(crate) fn input(&self) -> Value {
        let mut input = Map::new();
        input.insert("event".into(), Value::String(self.event.name().into()));
        if let Value::Object(context) = crate::plugin::env::context_json(&self.context) {
            input.extend(context);
        }
        input.insert("data".into(), Value::Object(self.data.clone()));
        Value::Object(input)
    }

    /// The whole environment of a hook command: only taw sets the event's
    /// variables (tmux's environment may hold stale ones of their names),
    /// and nothing of herdr's reaches it (`@agent-wizard-herdr-env` puts
    /// herdr's into tmux's environment for agents, not for hooks).
    pub(crate) fn environment(&self) -> BTreeMap<String, String> {
        let mut env = self.base_env.clone();
        env.retain(|name, _| {
            !name.starts_with("HERDR_")
                && (!name.starts_with("TAW_") || crate::paths::FOLDER_VARS.contains(&name.as_str()))
        });
        env.extend(self.taw_env.clone());
        env
    }
}

/// The tmux ids an occurrence or an invocation is about (numbers: `$3`
/// is 3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Ids {
    pub session: Option<u32>,
    pub window: Option<u32>,
    pub pane: Option<u32>,
}

impl Occurrence {
    fn ids(&self) -> Ids {
        Ids {
            session: self.session,
            window: self.window,
            pane: self.pane,
        }
    }
}

/// The snapshot and the environments of the sessions `about` names, in
/// one tmux call. A session no id named (an occurrence about a pane) is
/// read after, once the snapshot names it. `gone_is_fine`: a server that
/// has gone gives an empty read instead of an error.
fn read_server(tmux: &Tmux, about: &[Ids], gone_is_fine: bool) -> Result<(Snapshot, Environments)> {
    let mut named: Vec<u32> = about.iter().filter_map(|ids| ids.session).collect();
    named.sort_unstable();
    named.dedup();
    let mut more = vec![cmd::show_global_environment()];
    more.extend(
        named
            .iter()
            .map(|s| cmd::show_session_environment(&format!("${s}"))),
    );
    let (snapshot, mut environments) = match Snapshot::read_with(tmux, more) {
        Ok((snapshot, texts)) => {
            let mut texts = texts.into_iter();
            let mut read = Environments {
                global: parse_shell_environment(&texts.next().unwrap_or_default()),
                ..Environments::default()
            };
            for (session, text) in named.iter().zip(texts) {
                read.sessions
                    .insert(*session, parse_shell_environment(&text));
            }
            (snapshot, read)
        }
        // A server on its way out may also answer that it exited.
        Err(error) if gone_is_fine && crate::tmux::is_server_gone(&error) => {
            (Snapshot::default(), Environments::default())
        }
        // A session named has gone: read what is there.
        Err(_) => {
            let snapshot = match Snapshot::read(tmux) {
                Ok(snapshot) => snapshot,
                Err(error) if gone_is_fine && crate::tmux::is_server_gone(&error) => {
                    return Ok((Snapshot::default(), Environments::default()));
                }
                Err(error) => return Err(error),
            };
            let live: Vec<u32> = named
                .iter()
                .copied()
                .filter(|s| snapshot.session(*s).is_some())
                .collect();
            let read = crate::tmux::environment::read_for_sessions(tmux, &live);
            (snapshot, read)
        }
    };
    let mut unread: Vec<u32> = about
        .iter()
        .filter(|ids| ids.session.is_none())
        .filter_map(|ids| {
            ids.pane
                .and_then(|p| snapshot.pane(p, None))
                .map(|p| p.session)
        })
        .filter(|s| !environments.sessions.contains_key(s))
        .collect();
    unread.sort_unstable();
    unread.dedup();
    if !unread.is_empty() {
        let read = crate::tmux::environment::read_for_sessions(tmux, &unread);
        environments.sessions.extend(read.sessions);
    }
    Ok((snapshot, environments))
}

/// Builds the deliveries of several occurrences from one read of the
/// server.
pub(crate) fn build_all(tmux: &Tmux, occurrences: &[&Occurrence]) -> Result<Vec<Delivery>> {
    let about: Vec<Ids> = occurrences.iter().map(|o| o.ids()).collect();
    // A container that left with its tmux server is still told, with what
    // its watcher knew.
    let gone_is_fine = occurrences.iter().all(|o| {
        o.event == Event::SandboxStopped || (o.event == Event::Notification && o.pane.is_none())
    });
    let (snapshot, environments) = read_server(tmux, &about, gone_is_fine)?;
    Ok(occurrences
        .iter()
        .map(|occurrence| build(&snapshot, &environments, occurrence, false))
        .collect())
}

/// What a plugin's action or pane is invoked for: herdr's context of its
/// subject (with the records), the environment of a new pane of its
/// session, and the server's socket.
#[derive(Debug, Clone)]
pub(crate) struct Invoked {
    pub context: Map<String, Value>,
    pub base_env: BTreeMap<String, String>,
    pub socket_path: String,
}

/// The invocation context of `about`, from one read of the server, as the
/// command line gives it (`invocation_source` and `correlation_id` "cli").
pub(crate) fn invoked(tmux: &Tmux, about: Ids) -> Result<Invoked> {
    let (snapshot, environments) = read_server(tmux, &[about], false)?;
    let records = Records::new(&snapshot);
    let subject = Subject::find(&snapshot, &records, about);
    Ok(Invoked {
        context: context(&subject, None, None, ("cli", "cli")),
        base_env: base_environment(&snapshot, &environments, &subject),
        socket_path: snapshot.server.socket_path.clone(),
    })
}

/// What an occurrence is about, found in one snapshot, with its records.
#[derive(Clone)]
struct Subject<'a> {
    session: Option<u32>,
    live_session: Option<&'a Session>,
    /// The pane as the source named it (it may have gone), and as found.
    pane_number: Option<u32>,
    pane: Option<&'a Pane>,
    window_id: Option<u32>,
    window: Option<&'a Window>,
    workspace: Option<WorkspaceInfo>,
    tab: Option<TabInfo>,
    pane_record: Option<PaneInfo>,
    agent_record: Option<AgentInfo>,
    workspace_id: Option<String>,
    tab_id: Option<String>,
    pane_id: Option<String>,
}

impl<'a> Subject<'a> {
    /// The session is the one named, else the pane's, else the window's.
    fn find(snapshot: &'a Snapshot, records: &Records, about: Ids) -> Subject<'a> {
        let session = about
            .session
            .or_else(|| {
                about
                    .pane
                    .and_then(|p| snapshot.pane(p, None))
                    .map(|p| p.session)
            })
            .or_else(|| {
                about.window.and_then(|w| {
                    snapshot
                        .windows
                        .iter()
                        .find(|win| win.id == w)
                        .map(|win| win.session)
                })
            });
        let pane = about.pane.and_then(|p| snapshot.pane(p, session));
        let window_id = about.window.or(pane.map(|p| p.window));
        let window = match (session, window_id) {
            (Some(s), Some(w)) => snapshot.window(s, w),
            _ => None,
        };
        Subject {
            session,
            live_session: session.and_then(|s| snapshot.session(s)),
            pane_number: about.pane,
            pane,
            window_id,
            window,
            workspace: session.and_then(|s| records.workspace_by_id(s)),
            tab: window.map(|w| records.tab(w)),
            pane_record: pane.map(|p| records.pane(p)),
            agent_record: pane.and_then(|p| records.agent(p)),
            workspace_id: session.map(ids::workspace_id),
            tab_id: match (session, window_id) {
                (Some(s), Some(w)) => Some(ids::tab_id(s, w)),
                _ => None,
            },
            pane_id: match (session, about.pane) {
                (Some(s), Some(p)) => Some(ids::pane_id(s, p)),
                _ => None,
            },
        }
    }
}

impl<'a> Subject<'a> {
    /// The subject as herdr gives a plugin's context: an event about a
    /// workspace is about its current tab too, and one about a tab about
    /// that tab's current pane, so a hook has HERDR_TAB_ID and
    /// HERDR_PANE_ID to work in. A window or pane that has gone is not
    /// replaced by another.
    fn widened(self, snapshot: &'a Snapshot, records: &Records, about: &Ids) -> Subject<'a> {
        let Some(session) = self.live_session.map(|s| s.id) else {
            return self;
        };
        let mut widened = self;
        if about.window.is_none() && about.pane.is_none() {
            widened.window = snapshot.active_window(session);
            widened.window_id = widened.window.map(|w| w.id);
            widened.tab = widened.window.map(|w| records.tab(w));
            widened.tab_id = widened.window_id.map(|w| ids::tab_id(session, w));
        }
        if about.pane.is_none()
            && let Some(window) = widened.window
            && let Some(pane) = snapshot.active_pane(session, window.id)
        {
            widened.pane = Some(pane);
            widened.pane_number = Some(pane.id);
            widened.pane_record = Some(records.pane(pane));
            widened.agent_record = records.agent(pane);
            widened.pane_id = Some(ids::pane_id(session, pane.id));
        }
        widened
    }
}

/// Puts `value` in, when there is one.
fn put(map: &mut Map<String, Value>, name: &str, value: Option<Value>) {
    if let Some(value) = value {
        map.insert(name.to_string(), value);
    }
}

fn text(value: &Option<String>) -> Option<Value> {
    value.clone().map(Value::String)
}

fn record(value: &Option<impl serde::Serialize>) -> Option<Value> {
    value.as_ref().and_then(|v| serde_json::to_value(v).ok())
}

/// One occurrence's delivery. `test`: `taw hooks test`'s sample, with
/// `TAW_TEST=1`.
pub(crate) fn build(
    snapshot: &Snapshot,
    environments: &Environments,
    occurrence: &Occurrence,
    test: bool,
) -> Delivery {
    let records = Records::new(snapshot);
    let about = occurrence.ids();
    let subject = Subject::find(snapshot, &records, about);
    let context = context(
        &subject.clone().widened(snapshot, &records, &about),
        occurrence.session_name.as_deref(),
        occurrence.data.get("workspace"),
        ("api", occurrence.event.name()),
    );
    let dir = hook_dir(&subject);
    Delivery {
        event: occurrence.event,
        data: event_data(&subject, &records, occurrence),
        context,
        taw_env: taw_vars(&subject, occurrence, test, &dir),
        base_env: base_environment(snapshot, environments, &subject),
        dir,
        socket_path: snapshot.server.socket_path.clone(),
    }
}

/// herdr's event data: `type`, the ids and records its shape has, and the
/// source's own facts over them.
fn event_data(subject: &Subject, records: &Records, occurrence: &Occurrence) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert("type".into(), Value::String(occurrence.event.snake_name()));
    let s = subject;
    match occurrence.event {
        Event::WorkspaceCreated
        | Event::WorkspaceUpdated
        | Event::WorktreeCreated
        | Event::WorktreeOpened => put(
            &mut data,
            "workspace",
            record(&s.workspace)
                .or_else(|| text(&s.workspace_id).map(|id| json!({"workspace_id": id}))),
        ),
        Event::WorkspaceRenamed => {
            put(&mut data, "workspace_id", text(&s.workspace_id));
            put(
                &mut data,
                "label",
                s.live_session.map(|s| Value::String(s.label().to_string())),
            );
        }
        Event::WorkspaceClosed | Event::WorkspaceFocused => {
            put(&mut data, "workspace_id", text(&s.workspace_id))
        }
        Event::TabCreated => put(
            &mut data,
            "tab",
            record(&s.tab).or_else(|| {
                Some(json!({"tab_id": s.tab_id.clone()?, "workspace_id": s.workspace_id.clone()?}))
            }),
        ),
        Event::TabRenamed => {
            put(&mut data, "tab_id", text(&s.tab_id));
            put(&mut data, "workspace_id", text(&s.workspace_id));
            put(
                &mut data,
                "label",
                s.tab.as_ref().map(|t| Value::String(t.label.clone())),
            );
        }
        Event::TabMoved => {
            put(&mut data, "tab_id", text(&s.tab_id));
            put(&mut data, "workspace_id", text(&s.workspace_id));
            if let Some(session) = s.session {
                let tabs = records.tabs(Some(session));
                let at = tabs
                    .iter()
                    .position(|t| Some(&t.tab_id) == s.tab_id.as_ref());
                put(&mut data, "insert_index", at.map(Value::from));
                put(&mut data, "tabs", serde_json::to_value(tabs).ok());
            }
        }
        Event::WorkspaceMoved | Event::WorkspaceReordered => {
            let workspaces = records.workspaces();
            let at = workspaces
                .iter()
                .position(|w| Some(&w.workspace_id) == s.workspace_id.as_ref());
            if occurrence.event == Event::WorkspaceMoved {
                put(&mut data, "workspace_id", text(&s.workspace_id));
                put(&mut data, "insert_index", at.map(Value::from));
            } else {
                put(
                    &mut data,
                    "workspace_ids",
                    text(&s.workspace_id).map(|id| Value::Array(vec![id])),
                );
                // herdr's block goes before this one; none: it went last.
                let next = at.and_then(|i| workspaces.get(i + 1));
                put(
                    &mut data,
                    "before_workspace_id",
                    next.map(|w| Value::String(w.workspace_id.clone())),
                );
            }
            put(
                &mut data,
                "workspaces",
                serde_json::to_value(workspaces).ok(),
            );
        }
        Event::TabClosed | Event::TabFocused => {
            put(&mut data, "tab_id", text(&s.tab_id));
            put(&mut data, "workspace_id", text(&s.workspace_id));
        }
        Event::PaneCreated | Event::PaneUpdated | Event::PaneMoved => put(
            &mut data,
            "pane",
            record(&s.pane_record).or_else(|| {
                Some(json!({
                    "pane_id": s.pane_id.clone()?,
                    "workspace_id": s.workspace_id.clone()?,
                    "tab_id": s.tab_id.clone(),
                }))
            }),
        ),
        Event::LayoutUpdated => put(
            &mut data,
            "layout",
            s.window.map(|w| records.pane_layout(w)),
        ),
        Event::Notification | Event::WorktreeRemoved => {}
        Event::PreClose => {
            put(&mut data, "workspace_id", text(&s.workspace_id));
            put(&mut data, "tab_id", text(&s.tab_id));
            put(&mut data, "pane_id", text(&s.pane_id));
        }
        // A pane's own news: herdr names the pane and its workspace.
        Event::PaneClosed
        | Event::PaneFocused
        | Event::PaneExited
        | Event::PaneAgentDetected
        | Event::PaneAgentStatusChanged
        | Event::AgentBlocked
        | Event::AgentWorking
        | Event::AgentIdle
        | Event::AgentDone
        | Event::SandboxStarted
        | Event::SandboxStopped
        | Event::PreWorktreeRemove => {
            put(&mut data, "pane_id", text(&s.pane_id));
            put(&mut data, "workspace_id", text(&s.workspace_id));
        }
    }
    if occurrence.event == Event::PaneAgentStatusChanged
        && let Some(pane) = &s.pane_record
    {
        put(&mut data, "title", text(&pane.shown.title));
        put(&mut data, "display_agent", text(&pane.shown.display_agent));
        put(
            &mut data,
            "state_labels",
            record(&pane.reported.state_labels),
        );
    }
    for (name, value) in &occurrence.data {
        data.insert(name.clone(), value.clone());
    }
    data
}

/// herdr's invocation context of a subject: its ids, labels and folders,
/// who invoked it (`invocation_source`, `correlation_id`), and its
/// records. `session_name`: the name of a session that may have gone;
/// `removed`: the workspace a removal closed, whose worktree it was.
fn context(
    subject: &Subject,
    session_name: Option<&str>,
    removed: Option<&Value>,
    (source, correlation): (&str, &str),
) -> Map<String, Value> {
    let s = subject;
    let mut context = Map::new();
    put(&mut context, "workspace_id", text(&s.workspace_id));
    put(
        &mut context,
        "workspace_label",
        s.workspace
            .as_ref()
            .map(|w| w.label.clone())
            .or_else(|| session_name.map(str::to_string))
            .map(Value::String),
    );
    put(
        &mut context,
        "workspace_cwd",
        s.live_session
            .filter(|s| !s.path.is_empty())
            .map(|s| Value::String(s.path.clone())),
    );
    // herdr's WorkspaceWorktreeInfo of the workspace, or of the one a
    // removal closed.
    put(
        &mut context,
        "worktree",
        s.workspace
            .as_ref()
            .and_then(|w| w.worktree.as_ref())
            .and_then(|w| serde_json::to_value(w).ok())
            .or_else(|| removed?.get("worktree").cloned())
            .filter(|w| !w.is_null()),
    );
    put(&mut context, "tab_id", text(&s.tab_id));
    put(
        &mut context,
        "tab_label",
        s.tab.as_ref().map(|t| Value::String(t.label.clone())),
    );
    put(&mut context, "focused_pane_id", text(&s.pane_id));
    if let Some(pane) = &s.pane_record {
        put(&mut context, "focused_pane_cwd", text(&pane.cwd));
        put(&mut context, "focused_pane_agent", text(&pane.shown.agent));
        put(
            &mut context,
            "focused_pane_status",
            serde_json::to_value(pane.shown.agent_status).ok(),
        );
    }
    context.insert("invocation_source".into(), source.into());
    context.insert("correlation_id".into(), correlation.into());
    put(&mut context, "workspace", record(&s.workspace));
    put(&mut context, "tab", record(&s.tab));
    put(&mut context, "pane", record(&s.pane_record));
    put(&mut context, "agent", record(&s.agent_record));
    context
}

/// The folder a hook runs in: the pane's, else the session's, else home.
fn hook_dir(subject: &Subject) -> PathBuf {
    subject
        .pane_record
        .as_ref()
        .and_then(|p| p.cwd.clone().or(p.foreground_cwd.clone()))
        .or_else(|| {
            subject
                .live_session
                .filter(|s| !s.path.is_empty())
                .map(|s| s.path.clone())
        })
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .or_else(crate::paths::home_dir)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// The `TAW_*` variables: the subject's, then the source's over them.
fn taw_vars(
    subject: &Subject,
    occurrence: &Occurrence,
    test: bool,
    dir: &std::path::Path,
) -> BTreeMap<String, String> {
    let s = subject;
    let mut taw = BTreeMap::new();
    taw.insert("TAW_EVENT".to_string(), occurrence.event.name().into());
    if test {
        taw.insert("TAW_TEST".to_string(), "1".to_string());
    }
    let session_name = s
        .live_session
        .map(|s| s.name.clone())
        .or_else(|| occurrence.session_name.clone());
    let from_data = |name: &str| {
        occurrence
            .data
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut set = |name: &str, value: Option<String>| {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            taw.insert(name.to_string(), value);
        }
    };
    set("TAW_SESSION", session_name.map(|name| format!("={name}:")));
    set("TAW_SESSION_ID", s.session.map(|s| format!("${s}")));
    set("TAW_WORKSPACE_ID", s.workspace_id.clone());
    set("TAW_WINDOW", s.window_id.map(|w| format!("@{w}")));
    set("TAW_TAB_ID", s.tab_id.clone());
    set("TAW_PANE", s.pane_number.map(|p| format!("%{p}")));
    set("TAW_PANE_ID", s.pane_id.clone());
    set(
        "TAW_AGENT",
        s.pane
            .map(|p| p.agent_kind.clone())
            .filter(|k| !k.is_empty())
            .or_else(|| from_data("agent")),
    );
    set(
        "TAW_STATE",
        from_data("agent_status").or_else(|| {
            s.pane_record
                .as_ref()
                .map(|p| p.shown.agent_status.as_str().into())
        }),
    );
    set(
        "TAW_BIN_PATH",
        std::env::current_exe()
            .ok()
            .map(|p| p.display().to_string()),
    );
    set("TAW_DIR", Some(dir.display().to_string()));
    // A pane in a sandbox: its profile (empty for a container typed by
    // hand) and runtime (empty while it starts).
    if let Some(sandbox) = s.pane_record.as_ref().and_then(|p| p.sandbox.as_ref()) {
        let field = |name: &str| sandbox[name].as_str().unwrap_or_default().to_string();
        taw.insert("TAW_SANDBOX".into(), field("profile"));
        taw.insert("TAW_RUNTIME".into(), field("runtime"));
    }
    for (name, value) in &occurrence.vars {
        taw.insert(name.clone(), value.clone());
    }
    taw
}

/// tmux's environment for a new pane of the subject's session, with
/// `TMUX` and taw's own folders as this taw runs with them.
fn base_environment(
    snapshot: &Snapshot,
    environments: &Environments,
    subject: &Subject,
) -> BTreeMap<String, String> {
    let mut base = environments.for_session(subject.session);
    if !snapshot.server.socket_path.is_empty() {
        let session_part = subject
            .live_session
            .map(|s| s.id.to_string())
            .unwrap_or_else(|| "-1".into());
        base.insert(
            "TMUX".into(),
            format!(
                "{},{},{session_part}",
                snapshot.server.socket_path, snapshot.server.pid
            ),
        );
    }
    for (name, value) in crate::paths::folder_vars() {
        base.insert(name.into(), value);
    }
    base
}
