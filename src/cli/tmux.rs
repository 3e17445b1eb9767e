//! `taw tmux load|unload`: what `agent-wizard.tmux` runs to put the plugin
//! into a tmux server, and its undo.

use super::{Context, envelope_id};
use crate::envelope::{Reply, Result, TawError};
use crate::paths;
use crate::setup::{self, Desired, ServerState, table};
use crate::tmux::Batch;
use crate::tmux::commands as cmd;
use crate::watch::attach;
use clap::Subcommand;
use std::path::{Path, PathBuf};

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Put the plugin into the tmux server: option defaults, hooks, keys, PATH.
    Load {
        /// The taw binary hooks and keys run (default: this one).
        #[arg(long, value_name = "PATH")]
        bin: Option<PathBuf>,
    },
    /// Take out every hook, key, option default and PATH entry taw put in.
    Unload,
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::Load { bin } => (envelope_id("tmux", "load"), load(context, bin)),
        Verb::Unload => (envelope_id("tmux", "unload"), unload(context)),
    }
}

fn load(context: &Context, bin: Option<PathBuf>) -> Result<Reply> {
    let bin = resolve_bin(bin)?;
    let tmux = context.tmux();
    let state = ServerState::read(&tmux)?;
    let bin_dir = paths::bin_dir();
    let callback = table::Callback::current(bin.display().to_string());
    let desired = Desired {
        bin: bin.display().to_string(),
        bin_dir: bin_dir.display().to_string(),
        hooks: table::hooks(&callback),
        bindings: table::bindings(&callback),
        version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let (cmds, report) = setup::plan_load(&state, &desired);
    if report.path_dir.is_some() {
        setup::install_link(&bin_dir, &bin).map_err(|e| {
            TawError::io(format!(
                "cannot make the link {}/taw: {e}",
                bin_dir.display()
            ))
        })?;
    }
    let mut batch = Batch::of(cmds);
    for warning in &report.warnings {
        batch.push(cmd::show_message(&format!("agent-wizard: {warning}")));
    }
    tmux.run(&batch)?;
    // Every pane gets a watcher; those of an older taw are started again.
    let watchers = attach::attach_all(&tmux, &callback, true, false)?;
    let mut fields = serde_json::to_value(&report).unwrap_or_default();
    fields["watchers"] = serde_json::to_value(&watchers).unwrap_or_default();
    Ok(Reply::Result {
        kind: "tmux_loaded",
        fields,
    })
}

fn unload(context: &Context) -> Result<Reply> {
    let tmux = context.tmux();
    let state = ServerState::read(&tmux)?;
    let (cmds, report) = setup::plan_unload(&state);
    tmux.run(&Batch::of(cmds))?;
    Ok(Reply::result("tmux_unloaded", &report))
}

/// The binary hooks run: absolute, resolved, and there.
fn resolve_bin(bin: Option<PathBuf>) -> Result<PathBuf> {
    let bin = match bin {
        Some(bin) => bin,
        None => std::env::current_exe()
            .map_err(|e| TawError::io(format!("cannot tell where this taw is: {e}")))?,
    };
    let resolved = std::fs::canonicalize(&bin).map_err(|e| {
        TawError::invalid_argument(format!(
            "the taw binary {} cannot be used: {e}",
            bin.display()
        ))
    })?;
    if !is_executable(&resolved) {
        return Err(TawError::invalid_argument(format!(
            "{} is not an executable file",
            resolved.display()
        )));
    }
    Ok(resolved)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
