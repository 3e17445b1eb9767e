//! An event's payload, built once for every listener: herdr's event data
//! (`{"type": "pane_created", "pane": {...}}`), the context a plugin gets
//! (the workspace, tab and pane the event is about, in the records the CLI
//! prints), the `TAW_*` variables, and the environment tmux would give a new
//! pane of the event's session.

use super::Occurrence;
use crate::envelope::Result;
use crate::model::Records;
use crate::tmux::Tmux;
use crate::tmux::commands as cmd;
use crate::tmux::environment::{EnvValue, parse_shell_environment};
use crate::tmux::ids;
use crate::tmux::snapshot::Snapshot;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Everything a listener is given about one occurrence.
#[derive(Debug, Clone, Default)]
pub(crate) struct Delivery {
    pub event: String,
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
    /// What a `[hooks]` command reads on standard input: the context with
    /// the event's name and herdr's event data.
    pub(crate) fn input(&self) -> Value {
        let mut input = Map::new();
        input.insert("event".into(), Value::String(self.event.clone()));
        input.extend(self.context.clone());
        input.insert("data".into(), Value::Object(self.data.clone()));
        Value::Object(input)
    }

    /// The whole environment of a hook command: only taw sets the event's
    /// variables (tmux's environment may hold stale ones of their names).
    pub(crate) fn environment(&self) -> BTreeMap<String, String> {
        let mut env = self.base_env.clone();
        env.retain(|name, _| {
            !name.starts_with("TAW_") || crate::paths::FOLDER_VARS.contains(&name.as_str())
        });
        env.extend(self.taw_env.clone());
        env
    }
}

/// Builds the deliveries of several occurrences from one read of the
/// server: the snapshot and the environments of the sessions the
/// occurrences name, in one tmux call. A session the source did not know
/// (an occurrence about a pane) is read after, once the snapshot names it.
pub(crate) fn build_all(tmux: &Tmux, occurrences: &[&Occurrence]) -> Result<Vec<Delivery>> {
    let mut named: Vec<u32> = occurrences.iter().filter_map(|o| o.session).collect();
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
        // A container that left with its tmux server is still told, with
        // what its watcher knew.
        Err(error)
            if error.code == crate::envelope::ErrorCode::ServerNotRunning
                && occurrences.iter().all(|o| {
                    o.event == super::name::SANDBOX_STOPPED
                        || (o.event == super::name::NOTIFICATION && o.pane.is_none())
                }) =>
        {
            (Snapshot::default(), Environments::default())
        }
        // A session named has gone: read what is there.
        Err(_) => {
            let snapshot = Snapshot::read(tmux)?;
            let live: Vec<u32> = named
                .iter()
                .copied()
                .filter(|s| snapshot.session(*s).is_some())
                .collect();
            let read = crate::tmux::environment::read_for_sessions(tmux, &live);
            (snapshot, read)
        }
    };
    let mut unread: Vec<u32> = occurrences
        .iter()
        .filter(|o| o.session.is_none())
        .filter_map(|o| {
            o.pane
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
    Ok(occurrences
        .iter()
        .map(|occurrence| build(&snapshot, &environments, occurrence, false))
        .collect())
}

/// The environments read for the deliveries: the global one, and each
/// session's own.
#[derive(Debug, Clone, Default)]
pub(crate) struct Environments {
    pub global: BTreeMap<String, EnvValue>,
    pub sessions: BTreeMap<u32, BTreeMap<String, EnvValue>>,
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
    let session = occurrence
        .session
        .or_else(|| {
            occurrence
                .pane
                .and_then(|p| snapshot.pane(p, None))
                .map(|p| p.session)
        })
        .or_else(|| {
            occurrence.window.and_then(|w| {
                snapshot
                    .windows
                    .iter()
                    .find(|win| win.id == w)
                    .map(|win| win.session)
            })
        });
    let live_session = session.and_then(|s| snapshot.session(s));
    let pane = occurrence.pane.and_then(|p| snapshot.pane(p, session));
    let window_id = occurrence.window.or(pane.map(|p| p.window));
    let window = match (session, window_id) {
        (Some(s), Some(w)) => snapshot.window(s, w),
        _ => None,
    };
    let workspace = session.and_then(|s| records.workspace_by_id(s));
    let tab = window.map(|w| records.tab(w));
    let pane_record = pane.map(|p| records.pane(p));
    let agent_record = pane.and_then(|p| records.agent(p));

    // herdr's data: its ids, the records its shape has, the source's facts.
    let mut data = Map::new();
    data.insert(
        "type".into(),
        Value::String(super::snake_name(&occurrence.event)),
    );
    let workspace_id = session.map(ids::workspace_id);
    let tab_id = match (session, window_id) {
        (Some(s), Some(w)) => Some(ids::tab_id(s, w)),
        _ => None,
    };
    let pane_id = match (session, occurrence.pane) {
        (Some(s), Some(p)) => Some(ids::pane_id(s, p)),
        _ => None,
    };
    let put = |data: &mut Map<String, Value>, name: &str, value: Option<Value>| {
        if let Some(value) = value {
            data.insert(name.to_string(), value);
        }
    };
    let id = |text: &Option<String>| text.clone().map(Value::String);
    match occurrence.event.as_str() {
        super::name::WORKSPACE_CREATED
        | super::name::WORKSPACE_UPDATED
        | super::name::WORKTREE_CREATED
        | super::name::WORKTREE_OPENED => put(
            &mut data,
            "workspace",
            workspace
                .as_ref()
                .and_then(|w| serde_json::to_value(w).ok())
                .or_else(|| id(&workspace_id).map(|id| json!({"workspace_id": id}))),
        ),
        super::name::WORKSPACE_RENAMED => {
            put(&mut data, "workspace_id", id(&workspace_id));
            put(
                &mut data,
                "label",
                live_session.map(|s| Value::String(s.name.clone())),
            );
        }
        super::name::WORKSPACE_CLOSED | super::name::WORKSPACE_FOCUSED => {
            put(&mut data, "workspace_id", id(&workspace_id))
        }
        super::name::TAB_CREATED => put(
            &mut data,
            "tab",
            tab.as_ref()
                .and_then(|t| serde_json::to_value(t).ok())
                .or_else(|| {
                    Some(json!({"tab_id": tab_id.clone()?, "workspace_id": workspace_id.clone()?}))
                }),
        ),
        super::name::TAB_RENAMED => {
            put(&mut data, "tab_id", id(&tab_id));
            put(&mut data, "workspace_id", id(&workspace_id));
            put(
                &mut data,
                "label",
                window.map(|w| Value::String(w.name.clone())),
            );
        }
        super::name::TAB_CLOSED | super::name::TAB_FOCUSED => {
            put(&mut data, "tab_id", id(&tab_id));
            put(&mut data, "workspace_id", id(&workspace_id));
        }
        super::name::PANE_CREATED | super::name::PANE_UPDATED | super::name::PANE_MOVED => put(
            &mut data,
            "pane",
            pane_record
                .as_ref()
                .and_then(|p| serde_json::to_value(p).ok())
                .or_else(|| {
                    Some(json!({
                        "pane_id": pane_id.clone()?,
                        "workspace_id": workspace_id.clone()?,
                        "tab_id": tab_id.clone(),
                    }))
                }),
        ),
        super::name::LAYOUT_UPDATED => {
            put(&mut data, "layout", window.map(|w| records.pane_layout(w)))
        }
        super::name::NOTIFICATION | super::name::WORKTREE_REMOVED => {}
        super::name::PRE_CLOSE => {
            put(&mut data, "workspace_id", id(&workspace_id));
            put(&mut data, "tab_id", id(&tab_id));
            put(&mut data, "pane_id", id(&pane_id));
        }
        _ => {
            put(&mut data, "pane_id", id(&pane_id));
            put(&mut data, "workspace_id", id(&workspace_id));
        }
    }
    if occurrence.event == super::name::PANE_AGENT_STATUS_CHANGED
        && let Some(record) = &pane_record
    {
        put(&mut data, "title", record.title.clone().map(Value::String));
        put(
            &mut data,
            "display_agent",
            record.display_agent.clone().map(Value::String),
        );
    }
    for (name, value) in &occurrence.data {
        data.insert(name.clone(), value.clone());
    }

    // herdr's invocation context, derived from the event's subject.
    let mut context = Map::new();
    put(&mut context, "workspace_id", id(&workspace_id));
    put(
        &mut context,
        "workspace_label",
        workspace
            .as_ref()
            .map(|w| Value::String(w.label.clone()))
            .or_else(|| occurrence.session_name.clone().map(Value::String)),
    );
    put(
        &mut context,
        "workspace_cwd",
        live_session
            .filter(|s| !s.path.is_empty())
            .map(|s| Value::String(s.path.clone())),
    );
    // herdr's WorkspaceWorktreeInfo of the workspace, or of the one a
    // removal closed.
    put(
        &mut context,
        "worktree",
        workspace
            .as_ref()
            .and_then(|w| w.worktree.clone())
            .or_else(|| occurrence.data.get("workspace")?.get("worktree").cloned())
            .filter(|w| !w.is_null()),
    );
    put(&mut context, "tab_id", id(&tab_id));
    put(
        &mut context,
        "tab_label",
        window.map(|w| Value::String(w.name.clone())),
    );
    put(&mut context, "focused_pane_id", id(&pane_id));
    if let Some(record) = &pane_record {
        put(
            &mut context,
            "focused_pane_cwd",
            record.cwd.clone().map(Value::String),
        );
        put(
            &mut context,
            "focused_pane_agent",
            record.agent.clone().map(Value::String),
        );
        put(
            &mut context,
            "focused_pane_status",
            serde_json::to_value(record.agent_status).ok(),
        );
    }
    context.insert("invocation_source".into(), Value::String("api".into()));
    context.insert(
        "correlation_id".into(),
        Value::String(occurrence.event.clone()),
    );
    put(
        &mut context,
        "workspace",
        workspace
            .as_ref()
            .and_then(|w| serde_json::to_value(w).ok()),
    );
    put(
        &mut context,
        "tab",
        tab.as_ref().and_then(|t| serde_json::to_value(t).ok()),
    );
    put(
        &mut context,
        "pane",
        pane_record
            .as_ref()
            .and_then(|p| serde_json::to_value(p).ok()),
    );
    put(
        &mut context,
        "agent",
        agent_record
            .as_ref()
            .and_then(|a| serde_json::to_value(a).ok()),
    );

    // TAW_* variables.
    let mut taw = BTreeMap::new();
    taw.insert("TAW_EVENT".to_string(), occurrence.event.clone());
    if test {
        taw.insert("TAW_TEST".to_string(), "1".to_string());
    }
    let session_name = live_session
        .map(|s| s.name.clone())
        .or_else(|| occurrence.session_name.clone());
    let mut set = |name: &str, value: Option<String>| {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            taw.insert(name.to_string(), value);
        }
    };
    set("TAW_SESSION", session_name.map(|name| format!("={name}:")));
    set("TAW_SESSION_ID", session.map(|s| format!("${s}")));
    set("TAW_WORKSPACE_ID", workspace_id.clone());
    set("TAW_WINDOW", window_id.map(|w| format!("@{w}")));
    set("TAW_TAB_ID", tab_id.clone());
    set("TAW_PANE", occurrence.pane.map(|p| format!("%{p}")));
    set("TAW_PANE_ID", pane_id.clone());
    set(
        "TAW_AGENT",
        pane.map(|p| p.agent_kind.clone())
            .filter(|k| !k.is_empty())
            .or_else(|| {
                occurrence
                    .data
                    .get("agent")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            }),
    );
    set(
        "TAW_STATE",
        occurrence
            .data
            .get("agent_status")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| pane_record.as_ref().map(|p| p.agent_status.as_str().into())),
    );
    set(
        "TAW_BIN_PATH",
        std::env::current_exe()
            .ok()
            .map(|p| p.display().to_string()),
    );
    let dir = pane_record
        .as_ref()
        .and_then(|p| p.cwd.clone().or(p.foreground_cwd.clone()))
        .or_else(|| {
            live_session
                .filter(|s| !s.path.is_empty())
                .map(|s| s.path.clone())
        })
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .or_else(crate::paths::home_dir)
        .unwrap_or_else(|| PathBuf::from("/"));
    set("TAW_DIR", Some(dir.display().to_string()));
    // A pane in a sandbox: its profile (empty for a container typed by
    // hand) and runtime (empty while it starts).
    if let Some(sandbox) = pane_record.as_ref().and_then(|p| p.sandbox.as_ref()) {
        let field = |name: &str| sandbox[name].as_str().unwrap_or_default().to_string();
        taw.insert("TAW_SANDBOX".into(), field("profile"));
        taw.insert("TAW_RUNTIME".into(), field("runtime"));
    }
    for (name, value) in &occurrence.vars {
        taw.insert(name.clone(), value.clone());
    }

    // tmux's environment for a new pane of the session.
    let mut base: BTreeMap<String, String> = BTreeMap::new();
    let layers = std::iter::once(&environments.global)
        .chain(session.and_then(|s| environments.sessions.get(&s)));
    for layer in layers {
        for (name, value) in layer {
            match value {
                EnvValue::Set(value) => base.insert(name.clone(), value.clone()),
                EnvValue::Removed => base.remove(name),
            };
        }
    }
    if !snapshot.server.socket_path.is_empty() {
        let session_part = live_session
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
    // taw's own folders, as this taw runs with them.
    for (name, value) in crate::paths::folder_vars() {
        base.insert(name.into(), value);
    }

    Delivery {
        event: occurrence.event.clone(),
        data,
        context,
        taw_env: taw,
        base_env: base,
        dir,
        socket_path: snapshot.server.socket_path.clone(),
    }
}
