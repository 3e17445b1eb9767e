//! The environment of every plugin process (a build, a startup hook, an
//! action, a pane command, an event hook), built here alone, as herdr
//! builds it: the environment it starts from (tmux's for the session, or
//! the caller's) without herdr's runtime variables (the socket paths, the
//! binary, `HERDR_ENV`, the three ids, `HERDR_PLUGIN_*`, and their `TAW_`
//! twins), so that a user's own `HERDR_*` settings reach the plugin; then
//! herdr's table over it, each variable also as its `TAW_` twin.

use super::registry::{self, PluginInfo};
use crate::envelope::{Result, TawError};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// herdr's flat context fields, each present (null where taw has nothing).
const CONTEXT_FIELDS: &[&str] = &[
    "workspace_id",
    "tab_id",
    "focused_pane_id",
    "focused_pane_cwd",
    "focused_pane_agent",
    "focused_pane_status",
    "workspace_cwd",
    "workspace_label",
    "tab_label",
    "worktree",
    "selected_text",
    "clicked_url",
    "link_handler_id",
    "invocation_source",
    "correlation_id",
];

/// What a plugin process is run for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Invocation {
    /// `startup`, `action`, or the event's name.
    pub event: String,
    /// herdr's context fields and taw's nested records.
    pub context: Map<String, Value>,
    /// herdr's event envelope, for an event hook.
    pub event_json: Option<Value>,
    /// The tmux server the invocation is about: a call back through
    /// HERDR_BIN_PATH reaches it (`TAW_TMUX_SOCKET`) wherever it runs.
    pub tmux_socket: Option<String>,
    /// The action run (`HERDR_PLUGIN_ACTION_ID`), or the pane entrypoint
    /// opened (`HERDR_PLUGIN_ENTRYPOINT_ID`).
    pub action_id: Option<String>,
    pub entrypoint_id: Option<String>,
    /// The environment it starts from: tmux's for the session it is about,
    /// as a new pane there gets it; none for the caller's own.
    pub base_env: Option<BTreeMap<String, String>>,
}

/// herdr's runtime variables (without their `HERDR_`/`TAW_` prefix):
/// what a plugin process never inherits, as herdr strips them. The rest of
/// a user's `HERDR_*` reaches it.
const RUNTIME: &[&str] = &[
    "SOCKET_PATH",
    "BIN_PATH",
    "ENV",
    "WORKSPACE_ID",
    "TAB_ID",
    "PANE_ID",
    "TMUX_SOCKET",
];

/// Whether `name` is one of herdr's runtime variables, or taw's twin.
pub(crate) fn is_runtime(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("HERDR_")
        .or_else(|| name.strip_prefix("TAW_"))
    else {
        return false;
    };
    RUNTIME.contains(&rest) || rest.starts_with("PLUGIN_")
}

/// The context as a plugin reads it: every flat field herdr has (null
/// where taw has nothing), taw's nested records beside them.
pub(crate) fn context_json(context: &Map<String, Value>) -> Value {
    let mut full = Map::new();
    for field in CONTEXT_FIELDS {
        full.insert(
            (*field).to_string(),
            context.get(*field).cloned().unwrap_or(Value::Null),
        );
    }
    for (name, value) in context {
        full.entry(name.clone()).or_insert_with(|| value.clone());
    }
    Value::Object(full)
}

/// The environment of a process of `plugin`, from the caller's `inherited`.
pub(crate) fn environment(
    plugin: &PluginInfo,
    invocation: &Invocation,
    inherited: impl IntoIterator<Item = (String, String)>,
) -> Result<BTreeMap<String, String>> {
    let mut env: BTreeMap<String, String> = inherited
        .into_iter()
        .filter(|(name, _)| !is_runtime(name))
        .collect();
    let id = &plugin.manifest.plugin_id;
    let mut set = |name: &str, value: String| {
        env.insert(format!("HERDR_{name}"), value.clone());
        env.insert(format!("TAW_{name}"), value);
    };
    let bin = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "taw".into());
    set("BIN_PATH", bin.clone());
    set("ENV", "1".into());
    set("PLUGIN_ID", id.clone());
    set("PLUGIN_ROOT", plugin.plugin_root.clone());
    set(
        "PLUGIN_CONFIG_DIR",
        registry::config_dir(id)?.display().to_string(),
    );
    set(
        "PLUGIN_STATE_DIR",
        registry::state_dir(id)?.display().to_string(),
    );
    set(
        "PLUGIN_CONTEXT_JSON",
        context_json(&invocation.context).to_string(),
    );
    set("PLUGIN_EVENT", invocation.event.clone());
    if let Some(event_json) = &invocation.event_json {
        set("PLUGIN_EVENT_JSON", event_json.to_string());
    }
    if let Some(action) = &invocation.action_id {
        set("PLUGIN_ACTION_ID", action.clone());
    }
    if let Some(entrypoint) = &invocation.entrypoint_id {
        set("PLUGIN_ENTRYPOINT_ID", entrypoint.clone());
    }

    let text = |name: &str| {
        invocation
            .context
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    for (var, field) in [
        ("WORKSPACE_ID", "workspace_id"),
        ("TAB_ID", "tab_id"),
        ("PANE_ID", "focused_pane_id"),
    ] {
        if let Some(value) = text(field) {
            set(var, value);
        }
    }
    if let Some(socket) = invocation.tmux_socket.as_ref().filter(|s| !s.is_empty()) {
        env.insert("TAW_TMUX_SOCKET".into(), socket.clone());
    }
    let programs = programs_dir(Path::new(&bin))?;
    let path = env.get("PATH").map(String::as_str).unwrap_or(DEFAULT_PATH);
    env.insert("PATH".into(), path_with_first(&programs, path));
    Ok(env)
}

/// The search path of a process that inherited none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// `<state>/plugins/bin`: `herdr` and `taw`, each a link to this taw, and
/// nothing else. It comes first on every plugin process's PATH, so a
/// plugin that runs `herdr …` by name (as herdr's own plugins do: herdr's
/// server runs them with its binary on PATH) reaches taw, and a user's
/// panes and `[hooks]` see none of it. Links that already name this taw
/// are left as they are; others are replaced whole (a link made beside
/// it, then renamed over).
pub(crate) fn programs_dir(bin: &Path) -> Result<PathBuf> {
    let dir = super::registry::plugins_dir().join("bin");
    let failed = |e: std::io::Error| {
        TawError::io(format!(
            "cannot make the plugins' program folder {}: {e}",
            dir.display()
        ))
    };
    crate::paths::make_private_dir(&dir).map_err(failed)?;
    for name in ["herdr", "taw"] {
        let link = dir.join(name);
        if std::fs::read_link(&link).is_ok_and(|to| to == bin) {
            continue;
        }
        // Named by process and call: the threads of one delivery make
        // theirs at once, and one must never remove another's.
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let beside = dir.join(format!(".{name}.{}.{call}", std::process::id()));
        let _ = std::fs::remove_file(&beside);
        std::os::unix::fs::symlink(bin, &beside)
            .and_then(|()| std::fs::rename(&beside, &link))
            .map_err(failed)?;
    }
    Ok(dir)
}

/// `path` with `first` in front, and nowhere else (a plugin process that
/// runs another keeps one copy).
fn path_with_first(first: &Path, path: &str) -> String {
    let first = first.display().to_string();
    if path.is_empty() {
        return first;
    }
    std::iter::once(first.as_str())
        .chain(path.split(':').filter(|dir| *dir != first))
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_has_every_flat_field() {
        let mut context = Map::new();
        context.insert("workspace_id".into(), Value::String("w1".into()));
        context.insert("pane".into(), serde_json::json!({"pane_id": "w1:p1"}));
        let full = context_json(&context);
        assert_eq!(full["workspace_id"], "w1");
        assert_eq!(full["clicked_url"], Value::Null);
        assert_eq!(full["pane"]["pane_id"], "w1:p1");
        assert_eq!(full.as_object().unwrap().len(), CONTEXT_FIELDS.len() + 1);
    }
}
