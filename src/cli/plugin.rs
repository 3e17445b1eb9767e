//! `taw plugin`: herdr plugins: the registry (`link`, `unlink`, `enable`,
//! `disable`, `list`, `config-dir`), what they run (`action`, `startup`,
//! `event`), and the log of those runs. Installing from GitHub and plugin
//! panes come next.

use super::Context;
use crate::envelope::{Reply, Result};
use crate::events::{Event, Occurrence};
use crate::hooks::Listeners;
use crate::hooks::payload::{self, Ids};
use crate::model::resolve;
use crate::plugin;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Fetch a plugin from GitHub (owner/repo[/subdir][@<40-hex commit>]), show what it runs, build it once you say yes, and register it.
    Install {
        source: String,
        /// A branch, a tag, or a full commit to pin.
        #[arg(long = "ref")]
        git_ref: Option<String>,
        /// Install without asking (the preview is still printed).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Bring GitHub plugins to the commit their ref names now (all, or those named): fetched, shown and built beside the old copy, which goes once the new one is in.
    Update {
        /// Plugin ids or owner/repo sources; none: every GitHub plugin.
        targets: Vec<String>,
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Take a plugin out and remove the folder its install made.
    Uninstall {
        /// Its id, or the owner/repo[/subdir] it came from.
        plugin: String,
    },
    /// Register the plugin in a folder (or its herdr-plugin.toml) where it is: no build, nothing run.
    Link {
        path: PathBuf,
        /// Register it disabled.
        #[arg(long)]
        disabled: bool,
    },
    /// Take a plugin out of the registry; its files stay.
    Unlink { plugin_id: String },
    /// Let a plugin's actions, hooks and panes run.
    Enable { plugin_id: String },
    /// Keep a plugin registered, running nothing of it.
    Disable { plugin_id: String },
    /// Every plugin taw knows, with its manifest read now.
    List {
        /// Only this plugin.
        #[arg(long = "plugin")]
        plugin_id: Option<String>,
        /// Accepted for herdr's scripts: the answer is always JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a plugin's own config folder (made when missing).
    ConfigDir { plugin_id: String },
    /// Plugins' actions: list them, or run one.
    #[command(subcommand)]
    Action(ActionVerb),
    /// The log of what plugins ran.
    #[command(subcommand)]
    Log(LogVerb),
    /// Plugins' panes: open an entrypoint, focus or close its pane.
    #[command(subcommand)]
    Pane(PaneVerb),
    /// Run every enabled plugin's [[startup]] commands now (taw runs them by itself when the plugin first loads into tmux).
    Startup {
        /// Only this plugin's.
        #[arg(long = "plugin")]
        plugin_id: Option<String>,
    },
    /// Fire an event at every plugin hooked to it, and the [hooks] of that name.
    Event {
        /// The event (tab.created, pane.agent_status_changed...).
        name: String,
        /// The event is about this pane (else about nothing).
        #[arg(long)]
        pane: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ActionVerb {
    /// Every action of every plugin (or of one).
    List {
        #[arg(long = "plugin")]
        plugin_id: Option<String>,
    },
    /// Run an action, for a pane, tab or workspace (default: the pane taw runs in, else the one in front).
    Invoke {
        /// The action's id: local (open) or qualified (acme.review.open).
        action_id: String,
        #[arg(long = "plugin")]
        plugin_id: Option<String>,
        #[arg(long, conflicts_with_all = ["tab", "workspace"])]
        pane: Option<String>,
        #[arg(long, conflicts_with = "workspace")]
        tab: Option<String>,
        #[arg(long)]
        workspace: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum PaneVerb {
    /// Open a [[panes]] entrypoint: overlay or popup as a popup, split/side beside the pane, bottom below it, tab as a window, zoomed as a split zoomed.
    Open(Box<OpenArgs>),
    /// Show a plugin's pane: its window, and it in front.
    Focus { pane: String },
    /// Close a plugin's pane, asking nothing (no pre_close).
    Close { pane: String },
    /// The first word of a plugin pane's command: its own ids (as herdr
    /// gives a plugin pane), then the entrypoint's command in its place.
    #[command(hide = true)]
    Exec {
        /// In a popup of taw's: its token, to say that it started.
        #[arg(long)]
        popup: Option<String>,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        argv: Vec<String>,
    },
}

/// The placements `--placement` takes: a manifest's, and herdr's
/// `fullscreen` (zoomed).
fn placements() -> clap::builder::PossibleValuesParser {
    let words = crate::plugin::manifest::PLACEMENTS.iter().copied();
    clap::builder::PossibleValuesParser::new(words.chain(["fullscreen"]))
}

#[derive(Debug, clap::Args)]
pub(crate) struct OpenArgs {
    #[arg(long = "plugin")]
    plugin_id: String,
    #[arg(long)]
    entrypoint: String,
    /// Where it opens (default: the entrypoint's placement); herdr's
    /// `fullscreen` is `zoomed`.
    #[arg(long, value_parser = placements())]
    placement: Option<String>,
    /// For a split: right or down.
    #[arg(long, value_parser = ["right", "down"])]
    direction: Option<String>,
    /// The pane it opens for (default: the pane taw runs in, else the one in front).
    #[arg(long = "target-pane", alias = "pane", conflicts_with = "workspace")]
    target_pane: Option<String>,
    /// Open it for this workspace (its active pane).
    #[arg(long)]
    workspace: Option<String>,
    /// The folder its command starts in (default: the plugin's root).
    #[arg(long)]
    cwd: Option<String>,
    /// K=V added to its environment.
    #[arg(long, value_name = "K=V")]
    env: Vec<String>,
    /// A popup's width (cells or a percentage).
    #[arg(long)]
    width: Option<String>,
    /// A popup's height (cells or a percentage).
    #[arg(long)]
    height: Option<String>,
    /// Bring the pane in front: its window and it (herdr's default).
    #[arg(long, overrides_with = "no_focus")]
    focus: bool,
    /// Open it where it goes, and leave the pane in front as it is.
    #[arg(long, overrides_with = "focus")]
    no_focus: bool,
    /// A popup asked for from inside another, by the process that waits
    /// for that one to close (not for a person).
    #[arg(long, hide = true)]
    after_popup: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum LogVerb {
    /// The newest runs, oldest first.
    List {
        #[arg(long = "plugin")]
        plugin_id: Option<String>,
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Install {
            source,
            git_ref,
            yes,
        } => install(context, &source, git_ref.as_deref(), yes),
        Verb::Update { targets, yes } => update(context, &targets, yes),
        Verb::Uninstall { plugin } => {
            plugin::install::uninstall(&plugin).map(|answer| changed(context, answer))
        }
        Verb::Link { path, disabled } => {
            plugin::link(&path, !disabled).map(|answer| changed(context, answer))
        }
        Verb::Unlink { plugin_id } => {
            plugin::unlink(&plugin_id).map(|answer| changed(context, answer))
        }
        Verb::Enable { plugin_id } => {
            plugin::enable(&plugin_id).map(|answer| changed(context, answer))
        }
        Verb::Disable { plugin_id } => {
            plugin::disable(&plugin_id).map(|answer| changed(context, answer))
        }
        Verb::List { plugin_id, .. } => plugin::list(plugin_id.as_deref()).map(Reply::of),
        Verb::ConfigDir { plugin_id } => {
            plugin::config_dir(&plugin_id).map(|dir| Reply::Text(dir.display().to_string()))
        }
        Verb::Action(verb) => action(context, verb),
        Verb::Log(LogVerb::List { plugin_id, limit }) => {
            Ok(Reply::of(plugin::log_list(plugin_id.as_deref(), limit)))
        }
        Verb::Pane(verb) => pane(context, verb),
        Verb::Startup { plugin_id } => plugin::startup(
            plugin_id.as_deref(),
            context.snapshot().ok().map(|s| s.server.socket_path),
            // herdr's own environment is tmux's global one here, with
            // the folders this taw runs with.
            context.snapshot().ok().map(|_| {
                let mut env = crate::tmux::environment::read_for_sessions(&context.tmux(), &[])
                    .for_session(None);
                env.extend(
                    crate::paths::folder_vars()
                        .into_iter()
                        .map(|(name, value)| (name.to_string(), value)),
                );
                env
            }),
        )
        .map(Reply::of),
        Verb::Event { name, pane } => fire(context, &name, pane.as_deref()),
    }
}

/// `taw plugin action list|invoke`.
fn action(context: &Context, verb: ActionVerb) -> Result<Reply> {
    match verb {
        ActionVerb::List { plugin_id } => plugin::action_list(plugin_id.as_deref()).map(Reply::of),
        ActionVerb::Invoke {
            action_id,
            plugin_id,
            pane,
            tab,
            workspace,
        } => invoke(
            context,
            &action_id,
            plugin_id.as_deref(),
            pane,
            tab,
            workspace,
        ),
    }
}

fn install(context: &Context, source: &str, git_ref: Option<&str>, yes: bool) -> Result<Reply> {
    use plugin::install::{self, Consent, Stopped};
    let request = install::parse_source(source, git_ref)?;
    let consent = if yes { Consent::Given } else { Consent::Ask };
    match install::install(&request, consent, None) {
        Ok(installed) => {
            let config_dir = plugin::registry::config_dir(&installed.manifest.plugin_id)?;
            let startup = plugin::StartupNotRun::of(&installed);
            // Where the preview and the question were: the person reads it.
            if let Some(startup) = &startup {
                eprintln!("{}", startup.said());
            }
            Ok(changed(
                context,
                plugin::Installed {
                    plugin: installed,
                    config_dir: config_dir.display().to_string(),
                    startup,
                },
            ))
        }
        Err(Stopped::Declined) => Ok(Reply::FailedText(
            "Not installed: nothing was built or registered.".into(),
        )),
        Err(Stopped::NoTerminal) => Ok(Reply::Usage(
            "taw plugin install: no terminal to ask on; add --yes to install without asking".into(),
        )),
        Err(Stopped::Failed(error)) => Err(error),
    }
}

fn update(context: &Context, targets: &[String], yes: bool) -> Result<Reply> {
    use plugin::install::{self, Consent};
    let consent = if yes { Consent::Given } else { Consent::Ask };
    let plugins = install::update(targets, consent)?;
    let failed = plugins.iter().any(|p| p.status == "failed");
    let answer = changed(context, plugin::Updated { plugins });
    // Any plugin that failed: exit 1, every plugin still listed.
    Ok(match answer {
        Reply::Result { kind, fields } if failed => Reply::Failed { kind, fields },
        other => other,
    })
}

fn pane(context: &Context, verb: PaneVerb) -> Result<Reply> {
    use crate::ops::plugin as panes;
    let tmux = context.tmux();
    let snapshot = context.snapshot()?;
    match verb {
        PaneVerb::Open(args) => {
            let OpenArgs {
                plugin_id,
                entrypoint,
                placement,
                direction,
                target_pane,
                workspace,
                cwd,
                env,
                width,
                height,
                no_focus,
                after_popup,
                ..
            } = *args;
            let found = plugin::registry::plugin(&plugin_id)?;
            let about = subject(context, target_pane.as_deref(), None, workspace.as_deref())?;
            let target = about
                .pane
                .and_then(|p| snapshot.pane(p, about.session))
                .cloned()
                .ok_or_else(super::no_current_pane)?;
            let invoked = payload::invoked(&tmux, about)?;
            let request = panes::OpenRequest {
                cwd,
                entrypoint,
                placement,
                direction,
                env: super::parse_env(&env)?,
                // herdr's CLI brings the pane in front unless --no-focus.
                focus: !no_focus,
                width,
                height,
                after_popup,
            };
            panes::open(&tmux, &snapshot, &found, &target, invoked, &request)
        }
        PaneVerb::Focus { pane } => {
            let found = super::named_pane(&snapshot, &pane)?;
            panes::focus(&tmux, &snapshot, found).map(Reply::of)
        }
        PaneVerb::Close { pane } => {
            let found = super::named_pane(&snapshot, &pane)?;
            panes::close(&tmux, &snapshot, found).map(Reply::of)
        }
        PaneVerb::Exec { popup, argv } => Err(panes::exec_in_own_pane(
            &tmux,
            &snapshot,
            &argv,
            popup.as_deref(),
        )),
    }
}

/// After the registry changed: tmux's hooks and the watchers follow.
fn changed<A: crate::envelope::Answer>(context: &Context, answer: A) -> Reply {
    crate::setup::live::listeners_changed(&context.tmux());
    Reply::of(answer)
}

/// The subject an invocation names: a pane, a tab's active pane, a
/// workspace's; else the pane taw runs in, else the active pane of the
/// session in front.
fn subject(
    context: &Context,
    pane: Option<&str>,
    tab: Option<&str>,
    workspace: Option<&str>,
) -> Result<Ids> {
    let snapshot = context.snapshot()?;
    let found = if let Some(text) = pane {
        Some(super::named_pane(&snapshot, text)?.clone())
    } else if let Some(text) = tab {
        let window = resolve::tab(&snapshot, text)?;
        snapshot.active_pane(window.session, window.id).cloned()
    } else if let Some(text) = workspace {
        let session = resolve::workspace(&snapshot, text)?;
        snapshot
            .active_window(session)
            .and_then(|w| snapshot.active_pane(w.session, w.id))
            .cloned()
    } else {
        super::calling_pane(&snapshot)
            .and_then(|p| snapshot.pane(p, None))
            .or_else(|| snapshot.focused_pane())
            .cloned()
    };
    Ok(found.map_or(Ids::default(), |p| Ids {
        session: Some(p.session),
        window: Some(p.window),
        pane: Some(p.id),
    }))
}

fn invoke(
    context: &Context,
    action_id: &str,
    plugin_id: Option<&str>,
    pane: Option<String>,
    tab: Option<String>,
    workspace: Option<String>,
) -> Result<Reply> {
    let (found, action) = plugin::find_action(action_id, plugin_id)?;
    let about = subject(
        context,
        pane.as_deref(),
        tab.as_deref(),
        workspace.as_deref(),
    )?;
    let invoked = payload::invoked(&context.tmux(), about)?;
    let socket = Some(invoked.socket_path.clone());
    let base_env = Some(invoked.base_env);
    let mut invocation_context = invoked.context;
    if let Ok(snapshot) = context.snapshot()
        && let Some(caller) = super::calling_pane(&snapshot).and_then(|p| snapshot.pane(p, None))
    {
        invocation_context.insert(
            "caller_pane_id".into(),
            crate::tmux::ids::pane_id(caller.session, caller.id).into(),
        );
    }
    let invoked = plugin::invoke(&found, &action, invocation_context, socket, base_env);
    // herdr's exit status says whether the action ran well; the envelope
    // says why not.
    let failed = invoked.log.status != "succeeded";
    Ok(match Reply::of(invoked) {
        Reply::Result { kind, fields } if failed => Reply::Failed { kind, fields },
        other => other,
    })
}

fn fire(context: &Context, name: &str, pane: Option<&str>) -> Result<Reply> {
    let Some(event) = Event::from_name(name).filter(|e| !e.def().veto) else {
        return Err(crate::envelope::TawError::invalid_argument(format!(
            "{name:?} is no event taw knows; taw hooks list names them"
        )));
    };
    let occurrence = match pane {
        Some(_) => {
            let about = subject(context, pane, None, None)?;
            Occurrence::new(event)
                .session(about.session)
                .window(about.window)
                .pane(about.pane)
        }
        None => Occurrence::new(event),
    };
    let config = crate::config::Config::load_or_defaults().0;
    let listeners = Listeners::from_config(&config);
    let delivered = crate::hooks::deliver(&context.tmux(), &listeners, &[occurrence]);
    Ok(Reply::of(plugin::EventFired {
        event: name.to_string(),
        delivered: delivered.plugin_runs,
        hooks: delivered.hook_runs,
    }))
}
