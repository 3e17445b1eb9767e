//! herdr plugins under tmux: the manifest (`manifest.rs`), the registry of
//! the plugins taw knows (`registry.rs`), and the operations the `taw
//! plugin` verbs share.

pub(crate) mod env;
pub(crate) mod install;
pub(crate) mod manifest;
pub(crate) mod registry;
pub(crate) mod run;

use crate::envelope::{ErrorCode, Result, TawError, answers};
use registry::{Entry, PluginInfo, Source};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Linked {
    pub plugin: PluginInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Unlinked {
    pub plugin_id: String,
    pub removed: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Listed {
    pub plugins: Vec<PluginInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Switched {
    pub plugin: PluginInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Disabled {
    pub plugin: PluginInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Installed {
    pub plugin: PluginInfo,
    pub config_dir: String,
    /// The plugin's startup commands, which an install does not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup: Option<StartupNotRun>,
}

/// A plugin with startup commands, just installed: they have not run (herdr
/// runs them as its server comes up, taw as the plugin first loads into a
/// tmux server), and this is how to run them now.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StartupNotRun {
    pub ran: bool,
    pub commands: usize,
    pub run_now: String,
}

impl StartupNotRun {
    pub(crate) fn of(plugin: &PluginInfo) -> Option<StartupNotRun> {
        let commands = plugin
            .manifest
            .startup
            .iter()
            .filter(|c| manifest::runs_here(&c.platforms, &plugin.manifest.platforms))
            .count();
        (commands > 0).then(|| StartupNotRun {
            ran: false,
            commands,
            run_now: format!("taw plugin startup --plugin {}", plugin.manifest.plugin_id),
        })
    }

    /// The words for the person who installed it.
    pub(crate) fn said(&self) -> String {
        let them = if self.commands == 1 {
            "Its startup command has"
        } else {
            "Its startup commands have"
        };
        format!(
            "{them} not run: taw runs them when a tmux server starts with the plugin; to run them now: {}",
            self.run_now
        )
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Updated {
    pub plugins: Vec<install::UpdateOutcome>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct LogList {
    pub logs: Vec<run::LogRecord>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct EventFired {
    pub event: String,
    /// Each plugin hook's run.
    pub delivered: Vec<run::LogRecord>,
    /// How many `[hooks]` commands ran.
    pub hooks: usize,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct StartupRan {
    pub runs: Vec<run::LogRecord>,
}

/// herdr's PluginActionInfo.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ActionInfo {
    pub plugin_id: String,
    pub action_id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<String>>,
    pub command: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<String>>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ActionList {
    pub actions: Vec<ActionInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ActionInvoked {
    pub action: ActionInfo,
    pub context: serde_json::Value,
    pub log: run::LogRecord,
}

answers!(
    Installed => "plugin_installed",
    Updated => "plugin_update",
    LogList => "plugin_log_list",
    EventFired => "plugin_event_fired",
    StartupRan => "plugin_startup",
    ActionList => "plugin_action_list",
    ActionInvoked => "plugin_action_invoked",
);

answers!(
    Linked => "plugin_linked",
    Unlinked => "plugin_unlinked",
    Listed => "plugin_list",
    Switched => "plugin_enabled",
    Disabled => "plugin_disabled",
);

/// The manifest a path names: a folder holding `herdr-plugin.toml`, or the
/// file itself.
fn manifest_path(path: &Path) -> Result<PathBuf> {
    let unreadable = |error: std::io::Error| {
        TawError::new(
            ErrorCode::InvalidPluginManifestPath,
            format!("{}: {error}", path.display()),
        )
    };
    // The manifest named itself stays where it was named: its folder is the
    // plugin's, even when the name is a link to somewhere else.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) && path.is_file() {
        let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
        let folder = std::fs::canonicalize(folder.unwrap_or(Path::new("."))).map_err(unreadable)?;
        return Ok(folder.join(path.file_name().unwrap_or_default()));
    }
    let path = std::fs::canonicalize(path).map_err(unreadable)?;
    if path.is_dir() {
        let file = path.join(manifest::FILE_NAME);
        if !file.is_file() {
            return Err(TawError::new(
                ErrorCode::PluginManifestNotFound,
                format!("{} holds no {}", path.display(), manifest::FILE_NAME),
            ));
        }
        Ok(file)
    } else {
        Ok(path)
    }
}

/// `path` with `.` gone and each `..` taking the name before it: where a
/// path points as written, for a link whose target is not there yet.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A plugin is its folder: its manifest, and each program of its own a
/// command names (`./bin/x`), must be there and not a link (or `..`) out
/// of it, or what was shown and trusted is not what runs. A program not
/// there yet (the build makes it) is checked once it is.
pub(crate) fn check_within(manifest_file: &Path, manifest: &manifest::Manifest) -> Result<()> {
    let root = manifest_file.parent().unwrap_or(Path::new("/"));
    let root = std::fs::canonicalize(root).map_err(|error| {
        TawError::new(
            ErrorCode::InvalidPluginManifestPath,
            format!("{}: {error}", root.display()),
        )
    })?;
    let outside = |path: &Path| match std::fs::canonicalize(path) {
        Ok(real) => !real.starts_with(&root),
        // A link to nothing yet: where it points, as written (the build
        // may make an inside target; `/tmp/x` is another user's to make).
        Err(_) => std::fs::read_link(path).is_ok_and(|to| {
            let to = path.parent().unwrap_or(Path::new("/")).join(to);
            !lexical(&to).starts_with(&root)
        }),
    };
    if outside(manifest_file) {
        return Err(TawError::new(
            ErrorCode::InvalidPluginManifestPath,
            format!(
                "{} leads out of the plugin's folder {}: a plugin is refused whose manifest is not its own",
                manifest_file.display(),
                root.display()
            ),
        ));
    }
    let programs = manifest
        .build
        .iter()
        .chain(&manifest.startup)
        .map(|c| &c.command)
        .chain(manifest.actions.iter().map(|a| &a.command))
        .chain(manifest.events.iter().map(|e| &e.command))
        .chain(manifest.panes.iter().map(|p| &p.command))
        .filter_map(|argv| argv.first());
    for program in programs {
        if run::own_program(&root, program).is_some_and(|path| outside(&path)) {
            return Err(TawError::new(
                ErrorCode::InvalidPluginCommand,
                format!(
                    "{program} leads out of the plugin's folder {}: a plugin runs only programs of its own",
                    root.display()
                ),
            ));
        }
    }
    Ok(())
}

/// `taw plugin link <path>`: registers a plugin where it is, with no build
/// and nothing run. A link over an installed plugin of the same id is
/// refused; over a linked one, it takes its place.
pub(crate) fn link(path: &Path, enabled: bool) -> Result<Linked> {
    let file = manifest_path(path)?;
    let manifest = manifest::load(&file, &registry::compat_version())?;
    check_within(&file, &manifest)?;
    let id = manifest.plugin_id.clone();
    if let Some(installed) = registry::entries()?
        .into_iter()
        .find(|e| e.plugin_id == id && e.source.kind != "local")
    {
        return Err(TawError::new(
            ErrorCode::InvalidPluginSource,
            format!(
                "{id} is installed from {}; `taw plugin uninstall {id}` first",
                installed.source.kind
            ),
        ));
    }
    let root = file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"));
    registry::register(Entry {
        plugin_id: id.clone(),
        manifest_path: file.display().to_string(),
        plugin_root: root.display().to_string(),
        enabled,
        source: Source::local(),
    })?;
    registry::config_dir(&id)?;
    registry::state_dir(&id)?;
    Ok(Linked {
        plugin: registry::plugin(&id)?,
    })
}

/// `taw plugin unlink <id>`: the registry's entry only; files stay.
pub(crate) fn unlink(id: &str) -> Result<Unlinked> {
    Ok(Unlinked {
        plugin_id: id.to_string(),
        removed: registry::unregister(id)?,
    })
}

pub(crate) fn list(only: Option<&str>) -> Result<Listed> {
    let mut plugins = registry::plugins()?;
    if let Some(id) = only {
        plugins.retain(|p| p.manifest.plugin_id == id);
        if plugins.is_empty() {
            return Err(registry::not_found(id));
        }
    }
    Ok(Listed { plugins })
}

pub(crate) fn enable(id: &str) -> Result<Switched> {
    registry::set_enabled(id, true)?;
    Ok(Switched {
        plugin: registry::plugin(id)?,
    })
}

pub(crate) fn disable(id: &str) -> Result<Disabled> {
    registry::set_enabled(id, false)?;
    Ok(Disabled {
        plugin: registry::plugin(id)?,
    })
}

/// `taw plugin config-dir <id>`: the plugin's own config folder, made.
pub(crate) fn config_dir(id: &str) -> Result<PathBuf> {
    registry::plugin(id)?;
    registry::config_dir(id)
}

/// One `[[events]]` entry of an enabled plugin that runs here.
#[derive(Debug, Clone)]
pub(crate) struct EventListener {
    pub plugin: PluginInfo,
    pub hook: manifest::EventHook,
}

/// The `[[events]]` entries that listen: of enabled plugins whose manifest
/// reads, for this platform. A registry that cannot be read has none.
pub(crate) fn event_listeners() -> Vec<EventListener> {
    let Ok(plugins) = registry::plugins() else {
        return Vec::new();
    };
    plugins
        .into_iter()
        .filter(|p| p.enabled && p.available())
        .flat_map(|plugin| {
            let hooks: Vec<manifest::EventHook> = plugin
                .manifest
                .events
                .iter()
                .filter(|hook| manifest::runs_here(&hook.platforms, &plugin.manifest.platforms))
                .filter(|hook| {
                    crate::events::Event::from_name(&hook.on).is_some_and(|e| e.def().for_plugins)
                })
                .cloned()
                .collect();
            hooks.into_iter().map(move |hook| EventListener {
                plugin: plugin.clone(),
                hook,
            })
        })
        .collect()
}

/// The longest a plugin's startup command or action may run.
const RUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// `taw plugin log list`.
pub(crate) fn log_list(plugin: Option<&str>, limit: usize) -> LogList {
    LogList {
        logs: run::log(plugin, limit),
    }
}

/// `taw plugin startup`: every enabled plugin's `[[startup]]` commands that
/// run here, plugins in id order, each with HERDR_PLUGIN_EVENT=startup and
/// no pane, tab or workspace.
pub(crate) fn startup(
    only: Option<&str>,
    tmux_socket: Option<String>,
    base_env: Option<std::collections::BTreeMap<String, String>>,
) -> Result<StartupRan> {
    let mut runs = Vec::new();
    for plugin in registry::plugins()?
        .into_iter()
        .filter(|p| p.enabled && p.available())
        .filter(|p| only.is_none_or(|id| p.manifest.plugin_id == id))
    {
        for command in &plugin.manifest.startup {
            if !manifest::runs_here(&command.platforms, &plugin.manifest.platforms) {
                continue;
            }
            let mut context = serde_json::Map::new();
            context.insert("invocation_source".into(), "startup".into());
            context.insert("correlation_id".into(), "plugin.startup".into());
            let invocation = env::Invocation {
                event: "startup".into(),
                context,
                tmux_socket: tmux_socket.clone(),
                base_env: base_env.clone(),
                ..env::Invocation::default()
            };
            runs.push(run::run(
                &plugin,
                &command.command,
                &invocation,
                None,
                Some(RUN_LIMIT),
            ));
        }
    }
    Ok(StartupRan { runs })
}

fn action_info(plugin: &PluginInfo, action: &manifest::Action) -> ActionInfo {
    ActionInfo {
        plugin_id: plugin.manifest.plugin_id.clone(),
        action_id: action.id.clone(),
        title: action.title.clone(),
        description: action.description.clone(),
        contexts: action.contexts.clone(),
        command: action.command.clone(),
        platforms: action
            .platforms
            .clone()
            .or_else(|| plugin.manifest.platforms.clone()),
    }
}

/// `taw plugin action list`.
pub(crate) fn action_list(only: Option<&str>) -> Result<ActionList> {
    let plugins = list(only)?.plugins;
    Ok(ActionList {
        actions: plugins
            .iter()
            .flat_map(|p| p.manifest.actions.iter().map(move |a| action_info(p, a)))
            .collect(),
    })
}

/// The action an id names: local (`open`) or qualified
/// (`persiyanov.reviewr.open`), in one plugin or across all.
pub(crate) fn find_action(
    id: &str,
    plugin_id: Option<&str>,
) -> Result<(PluginInfo, manifest::Action)> {
    let plugins = list(plugin_id)?.plugins;
    // A plugin whose manifest does not read has no actions to find: its
    // error is the answer for an action named in it.
    if let Some(broken) = plugins.iter().find(|p| {
        !p.available()
            && (plugin_id == Some(p.manifest.plugin_id.as_str())
                || id.starts_with(&format!("{}.", p.manifest.plugin_id)))
    }) {
        let why = broken.manifest.warnings.join("; ");
        return Err(TawError::new(
            ErrorCode::PluginManifestParseFailed,
            format!("{}: {why}", broken.manifest.plugin_id),
        ));
    }
    let mut found: Vec<(PluginInfo, manifest::Action)> = Vec::new();
    for plugin in plugins {
        for action in &plugin.manifest.actions {
            let qualified = format!("{}.{}", plugin.manifest.plugin_id, action.id);
            if action.id == id || qualified == id {
                found.push((plugin.clone(), action.clone()));
            }
        }
    }
    match found.len() {
        0 => Err(TawError::new(
            ErrorCode::PluginActionNotFound,
            format!("no plugin action {id:?}; `taw plugin action list` shows them"),
        )),
        1 => {
            let (plugin, action) = found.pop().expect("one");
            if !plugin.enabled {
                return Err(TawError::new(
                    ErrorCode::PluginDisabled,
                    format!(
                        "{} is disabled; `taw plugin enable {}`",
                        plugin.manifest.plugin_id, plugin.manifest.plugin_id
                    ),
                ));
            }
            if !manifest::runs_here(&action.platforms, &plugin.manifest.platforms) {
                return Err(TawError::new(
                    ErrorCode::PlatformUnsupported,
                    format!("{id} does not run on {}", manifest::this_platform()),
                ));
            }
            Ok((plugin, action))
        }
        _ => Err(TawError::new(
            ErrorCode::AmbiguousPluginAction,
            format!(
                "{id:?} is an action of {}; name one with --plugin",
                found
                    .iter()
                    .map(|(p, _)| p.manifest.plugin_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// `taw plugin action invoke`: runs the action with the context of what
/// it is invoked for (the pane, tab and workspace), from tmux's
/// environment for that session (`base_env`).
pub(crate) fn invoke(
    plugin: &PluginInfo,
    action: &manifest::Action,
    context: serde_json::Map<String, serde_json::Value>,
    tmux_socket: Option<String>,
    base_env: Option<std::collections::BTreeMap<String, String>>,
) -> ActionInvoked {
    let invocation = env::Invocation {
        event: "action".into(),
        context,
        tmux_socket,
        action_id: Some(action.id.clone()),
        base_env,
        ..env::Invocation::default()
    };
    let log = run::run(
        plugin,
        &action.command,
        &invocation,
        Some(&action.id),
        Some(RUN_LIMIT),
    );
    ActionInvoked {
        action: action_info(plugin, action),
        context: env::context_json(&invocation.context),
        log,
    }
}

/// Whether any enabled plugin has startup commands: what decides if a load
/// starts `taw plugin startup`.
pub(crate) fn has_startup() -> bool {
    registry::plugins()
        .map(|plugins| {
            plugins
                .iter()
                .any(|p| p.enabled && p.available() && !p.manifest.startup.is_empty())
        })
        .unwrap_or(false)
}

/// Starts `taw plugin startup` against `tmux`'s server, detached: a load
/// does not wait for the plugins.
pub(crate) fn start_startup(tmux: &crate::tmux::Tmux) {
    let Ok(bin) = std::env::current_exe() else {
        return;
    };
    // A load does not fail for the plugins, and no one waits to be told.
    let _ = crate::exec::Program::new(bin)
        .args(tmux.socket_args())
        .args(["plugin", "startup"])
        .start_unwatched();
}
