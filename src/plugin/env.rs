//! The environment of every plugin process (a build, a startup hook, an
//! action, a pane command, an event hook), built here alone: the caller's
//! environment without any herdr or taw variable of its own (herdr's socket
//! path least of all), then herdr's table, each variable also as its
//! `TAW_` twin.

use super::registry::{self, PluginInfo};
use crate::envelope::Result;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

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
        .filter(|(name, _)| {
            // taw's own folders stay, so the plugin's calls back find the
            // same ones; every other herdr or taw variable is the caller's.
            !(name.starts_with("HERDR_") || name.starts_with("TAW_"))
                || crate::paths::FOLDER_VARS.contains(&name.as_str())
        })
        .collect();
    let id = &plugin.manifest.plugin_id;
    let mut set = |name: &str, value: String| {
        env.insert(format!("HERDR_{name}"), value.clone());
        env.insert(format!("TAW_{name}"), value);
    };
    let bin = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "taw".into());
    set("BIN_PATH", bin);
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
    Ok(env)
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
