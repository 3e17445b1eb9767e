//! `taw manifest`: the detection rules of each agent, where they come from,
//! and having the watchers read them again.

use super::Context;
use crate::config::Config;
use crate::detect::agents;
use crate::detect::manifest::{Gate, Rule};
use crate::detect::registry::{Loaded, Registry};
use crate::envelope::{Reply, Result, TawError};
use crate::tmux::commands as cmd;
use crate::tmux::options::bookkeeping;
use clap::Subcommand;
use serde_json::{Value, json};

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Every agent's manifest: where it comes from, its rules, taw's supplements.
    List,
    /// One agent's manifest, every rule with its matchers.
    Show {
        /// The agent: claude, codex...
        agent: String,
    },
    /// Check the overrides and have the running watchers read the rules again.
    Reload,
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::List => list(),
        Verb::Show { agent } => show(&agent),
        Verb::Reload => reload(context),
    }
}

fn registry() -> Result<Registry> {
    Ok(Registry::from_config(&Config::load()?))
}

/// A manifest's summary: herdr's fields, and taw's origin and supplements.
fn summary(loaded: &Loaded) -> Value {
    let name = agents::by_id(&loaded.manifest.id).map(|a| a.name);
    json!({
        "agent": loaded.manifest.id,
        "name": name,
        "source": loaded.origin,
        "source_kind": match loaded.origin {
            crate::detect::registry::Origin::Bundled => "bundled",
            crate::detect::registry::Origin::Override => "local override",
            crate::detect::registry::Origin::Defined => "local definition",
        },
        "path": loaded.path.as_ref().map(|p| p.display().to_string()),
        "active_version": loaded.manifest.version,
        "rule_count": loaded.manifest.rules.len(),
        "supplement_rules": loaded.supplement_rules,
        "warning": loaded.warning,
    })
}

fn list() -> Result<Reply> {
    let registry = registry()?;
    let manifests: Vec<Value> = registry.loaded.iter().map(summary).collect();
    Ok(Reply::result(
        "manifest_list",
        json!({ "manifests": manifests, "problems": registry.problems }),
    ))
}

fn gate_json(gate: &Gate) -> Value {
    let mut object = serde_json::Map::new();
    if !gate.contains.is_empty() {
        object.insert("contains".into(), json!(gate.contains));
    }
    let patterns = |list: &[regex::Regex]| {
        list.iter()
            .map(|r| r.as_str().to_string())
            .collect::<Vec<_>>()
    };
    if !gate.regex.is_empty() {
        object.insert("regex".into(), json!(patterns(&gate.regex)));
    }
    if !gate.line_regex.is_empty() {
        object.insert("line_regex".into(), json!(patterns(&gate.line_regex)));
    }
    for (key, gates) in [("all", &gate.all), ("any", &gate.any), ("not", &gate.not)] {
        if !gates.is_empty() {
            object.insert(
                key.into(),
                Value::Array(gates.iter().map(gate_json).collect()),
            );
        }
    }
    Value::Object(object)
}

fn rule_json(rule: &Rule) -> Value {
    let mut value = json!({
        "id": rule.id,
        "state": rule.state.as_str(),
        "priority": rule.priority,
        "region": rule.region_name,
        "source": rule.source,
        "visible_idle": rule.visible_idle,
        "visible_blocker": rule.visible_blocker,
        "visible_working": rule.visible_working,
        "skip_state_update": rule.skip_state_update,
    });
    if let (Value::Object(target), Value::Object(gate)) = (&mut value, gate_json(&rule.gate)) {
        target.extend(gate);
    }
    value
}

fn show(agent: &str) -> Result<Reply> {
    let registry = registry()?;
    let loaded = registry.get(agent).ok_or_else(|| {
        TawError::not_found(format!(
            "no manifest for agent {agent:?}; `taw manifest list` shows the agents that have one"
        ))
    })?;
    let mut manifest = summary(loaded);
    manifest["aliases"] = json!(loaded.manifest.aliases);
    manifest["min_engine_version"] = json!(loaded.manifest.min_engine_version);
    manifest["rules"] = Value::Array(loaded.manifest.rules.iter().map(rule_json).collect());
    if let Some(mark) = &loaded.manifest.turn_mark {
        manifest["turn_mark"] = json!({
            "region": mark.region_name,
            "regex": mark.regex.as_str(),
        });
    }
    Ok(Reply::result("manifest", json!({ "manifest": manifest })))
}

/// Watchers read their rules when they start and when the config stamp
/// moves; reload checks the overrides and moves it.
fn reload(context: &Context) -> Result<Reply> {
    let registry = registry()?;
    let stamp = crate::clock::now_ms().to_string();
    if let Err(error) = context
        .tmux()
        .run_one(cmd::set_global_option(bookkeeping::CONFIG_STAMP, &stamp))
        && error.code != crate::envelope::ErrorCode::ServerNotRunning
    {
        return Err(error);
    }
    let manifests: Vec<Value> = registry.loaded.iter().map(summary).collect();
    Ok(Reply::result(
        "manifest_reload",
        json!({ "manifests": manifests, "problems": registry.problems }),
    ))
}
