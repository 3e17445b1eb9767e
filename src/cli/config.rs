//! `taw config`: check `config.toml`, and tell running taw processes to read
//! it again.

use super::Context;
use crate::config::{Config, Diagnostic, Severity};
use crate::envelope::{Reply, Result};
use crate::paths;
use crate::tmux::commands as cmd;
use crate::tmux::options::bookkeeping;
use clap::Subcommand;
use serde_json::json;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Check config.toml: errors, warnings and the values taw reads.
    Check {
        /// Answer with the JSON envelope instead of a listing.
        #[arg(long)]
        json: bool,
    },
    /// Check config.toml and have the running watchers read it again.
    Reload,
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Check { json } => check(json),
        Verb::Reload => reload(context),
    }
}

fn status(config: &Config) -> &'static str {
    if config.has_errors() {
        "errors"
    } else if config.warnings().next().is_some() {
        "warnings"
    } else {
        "ok"
    }
}

fn check(as_json: bool) -> Result<Reply> {
    let mut config = Config::load()?;
    // The files of <config>/sandbox/ that are no profile, and profiles
    // [sandbox.agents] names that are not there.
    for (key, message) in crate::sandbox::config_warnings(&config) {
        config.diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            line: key.as_ref().and_then(|key| {
                config
                    .table(&crate::config::schema::SANDBOX_AGENTS)
                    .iter()
                    .find(|entry| {
                        format!(
                            "{}.{}",
                            crate::config::schema::SANDBOX_AGENTS.path,
                            entry.key
                        ) == *key
                    })
                    .map(|entry| entry.line)
            }),
            key,
            message,
        });
    }
    // The files of <config>/manifests/ that define no agent, and the
    // overrides that are not used: the user's detection, checked here too.
    let registry = crate::detect::registry::Registry::from_config(&config);
    let manifest_warnings = registry
        .problems
        .iter()
        .cloned()
        .chain(registry.loaded.iter().filter_map(|l| l.warning.clone()));
    for message in manifest_warnings.collect::<Vec<_>>() {
        config.diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            line: None,
            key: None,
            message,
        });
    }
    if as_json {
        let fields = json!({
            "path": config.path.display().to_string(),
            "exists": config.exists,
            "status": status(&config),
            "diagnostics": config.diagnostics,
            "values": config.set_values().into_iter().collect::<serde_json::Map<_, _>>(),
        });
        return Ok(if config.has_errors() {
            Reply::Failed {
                kind: "config_check",
                fields,
            }
        } else {
            Reply::Result {
                kind: "config_check",
                fields,
            }
        });
    }
    let text = listing(&config);
    // A person's listing, with the exit status a script can test.
    Ok(if config.has_errors() {
        Reply::FailedText(text)
    } else {
        Reply::Text(text)
    })
}

/// The plain listing: each problem with its line, then the values read.
fn listing(config: &Config) -> String {
    let mut out = String::new();
    let shown = paths::display(&config.path);
    if !config.exists {
        out.push_str(&format!("{shown}: no file; taw uses its defaults\n"));
        // The manifests folder is checked all the same.
        for diagnostic in &config.diagnostics {
            out.push_str(&format!("  {}\n", describe(diagnostic)));
        }
        return out;
    }
    out.push_str(&format!("{shown}\n"));
    for diagnostic in &config.diagnostics {
        out.push_str(&format!("  {}\n", describe(diagnostic)));
    }
    let values = config.set_values();
    if !values.is_empty() {
        out.push_str("values:\n");
        for (key, value) in values {
            out.push_str(&format!("  {key} = {value}\n"));
        }
    }
    let errors = config.errors().count();
    let warnings = config.warnings().count();
    out.push_str(&format!(
        "{errors} error{}, {warnings} warning{}\n",
        plural(errors),
        plural(warnings)
    ));
    out
}

fn describe(diagnostic: &Diagnostic) -> String {
    let severity = match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let line = diagnostic
        .line
        .map(|line| format!("line {line}: "))
        .unwrap_or_default();
    let key = diagnostic
        .key
        .as_deref()
        .map(|key| format!("{key}: "))
        .unwrap_or_default();
    format!("{severity}: {line}{key}{}", diagnostic.message)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// taw has no daemon: each run reads the file afresh. The long-lived
/// processes (the watchers) check a stamp in tmux and read the file again
/// when it moves, so reload checks the file and moves the stamp.
fn reload(context: &Context) -> Result<Reply> {
    let config = Config::load()?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let tmux = context.tmux();
    // The tmux hooks the events of the new [hooks] need go in before the
    // old come out; then the watchers read the file again.
    if !config.has_errors() {
        crate::setup::live::rehook(&tmux, &config)?;
    }
    tmux.run_one(cmd::set_global_option(
        bookkeeping::CONFIG_STAMP,
        &stamp.to_string(),
    ))?;
    let fields = json!({
        "status": status(&config),
        "path": config.path.display().to_string(),
        "diagnostics": config.diagnostics,
    });
    Ok(if config.has_errors() {
        Reply::Failed {
            kind: "config_reload",
            fields,
        }
    } else {
        Reply::Result {
            kind: "config_reload",
            fields,
        }
    })
}
