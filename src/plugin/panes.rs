//! A plugin's `[[panes]]` entrypoints opened in tmux: `overlay` and
//! `popup` as a `display-popup` over the client, `split`/`side` beside the
//! target pane and `bottom` below it (`split-window`), `tab` as a window of
//! the target's session, `zoomed` as a split zoomed at once. The command
//! runs in the plugin's root, with the plugin's environment and the
//! invocation's ids only (`env -u` takes out what tmux's own environment
//! would give the pane of those names). A pane is marked as the plugin's,
//! so `plugin pane focus|close` know it.

use super::registry::PluginInfo;
use super::{env, manifest};
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::model::{PaneInfo, Records};
use crate::tmux::Tmux;
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::commands as cmd;
use crate::tmux::snapshot::{Pane, Snapshot};
use serde::Serialize;

use crate::tmux::options::pane::PLUGIN_PANE as MARK;

/// herdr's plugin_pane record.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PluginPane {
    pub plugin_id: String,
    pub entrypoint: String,
    pub pane: PaneInfo,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Opened {
    pub plugin_pane: PluginPane,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Focused {
    pub plugin_pane: PluginPane,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Closed {
    pub pane_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PopupShown {
    pub plugin_id: String,
    pub entrypoint: String,
}

answers!(
    Opened => "plugin_pane_opened",
    Focused => "plugin_pane_focused",
    Closed => "plugin_pane_closed",
    PopupShown => "ok",
);

/// What `plugin pane open` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpenRequest {
    pub entrypoint: String,
    pub placement: Option<String>,
    /// `right` or `down`, for a split.
    pub direction: Option<String>,
    pub env: Vec<(String, String)>,
    pub focus: bool,
    pub width: Option<String>,
    pub height: Option<String>,
    /// The folder the command starts in (default: the plugin's root).
    pub cwd: Option<String>,
}

/// What a placement becomes in tmux.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Popup,
    Split { right: bool, zoom: bool },
    Window,
}

fn shape(placement: &str, direction: Option<&str>) -> Shape {
    let right = |default: bool| match direction {
        Some("down") => false,
        Some("right") => true,
        _ => default,
    };
    match placement {
        "overlay" | "popup" => Shape::Popup,
        "bottom" => Shape::Split {
            right: right(false),
            zoom: false,
        },
        "tab" => Shape::Window,
        "zoomed" => Shape::Split {
            right: right(true),
            zoom: true,
        },
        _ => Shape::Split {
            right: right(true),
            zoom: false,
        },
    }
}

/// The shell line that runs `argv` with `set` added and the invocation's
/// missing ids taken out of tmux's environment.
fn command_line(argv: &[String], set: &[(String, String)], unset: &[String]) -> String {
    let mut words: Vec<String> = vec!["exec".into(), "env".into()];
    for name in unset {
        words.push("-u".into());
        words.push(name.clone());
    }
    for (name, value) in set {
        words.push(format!("{name}={value}"));
    }
    words.extend(argv.iter().cloned());
    shell_words::join(words)
}

/// Opens an entrypoint for `target` (its context, its place).
pub(crate) fn open(
    tmux: &Tmux,
    snapshot: &Snapshot,
    plugin: &PluginInfo,
    target: &Pane,
    invoked: crate::hooks::payload::Invoked,
    request: &OpenRequest,
) -> Result<crate::envelope::Reply> {
    if !plugin.enabled {
        return Err(TawError::new(
            ErrorCode::PluginDisabled,
            format!("{} is disabled", plugin.manifest.plugin_id),
        ));
    }
    let entry = plugin
        .manifest
        .panes
        .iter()
        .find(|p| p.id == request.entrypoint)
        .ok_or_else(|| {
            TawError::new(
                ErrorCode::InvalidPluginEntrypoint,
                format!(
                    "{} has no pane entrypoint {:?}",
                    plugin.manifest.plugin_id, request.entrypoint
                ),
            )
        })?;
    if !manifest::runs_here(&entry.platforms, &plugin.manifest.platforms) {
        return Err(TawError::new(
            ErrorCode::PlatformUnsupported,
            format!("{} does not run on {}", entry.id, manifest::this_platform()),
        ));
    }
    let placement = request.placement.clone().unwrap_or(entry.placement.clone());
    if !manifest::PLACEMENTS.contains(&placement.as_str()) {
        return Err(TawError::invalid_argument(format!(
            "--placement {placement}: one of {}",
            manifest::PLACEMENTS.join(", ")
        )));
    }
    let invocation = env::Invocation {
        event: "action".into(),
        context: invoked.context.clone(),
        event_json: None,
        tmux_socket: Some(invoked.socket_path.clone()),
    };
    // What the caller adds comes first, and taw's own variables win over
    // it; no one sets a socket path.
    let mut set: Vec<(String, String)> = request
        .env
        .iter()
        .filter(|(name, _)| name != "HERDR_SOCKET_PATH" && name != "TAW_SOCKET_PATH")
        .cloned()
        .collect();
    let own = env::environment(
        plugin,
        &invocation,
        crate::paths::folder_vars()
            .into_iter()
            .map(|(name, value)| (name.to_string(), value)),
    )?;
    set.retain(|(name, _)| !own.contains_key(name));
    set.extend(own);
    // tmux gives the pane its own environment: every herdr or taw name of
    // it that this invocation does not set is taken out.
    let unset: Vec<String> = invoked
        .base_env
        .keys()
        .filter(|name| name.starts_with("HERDR_") || name.starts_with("TAW_"))
        .cloned()
        .chain(
            ["WORKSPACE_ID", "TAB_ID", "PANE_ID", "SOCKET_PATH"]
                .iter()
                .flat_map(|n| [format!("HERDR_{n}"), format!("TAW_{n}")]),
        )
        .filter(|name| !set.iter().any(|(n, _)| n == name))
        .collect::<std::collections::BTreeSet<String>>()
        .into_iter()
        .collect();
    let line = command_line(&entry.command, &set, &unset);
    let root = request.cwd.clone().unwrap_or(plugin.plugin_root.clone());
    let mark = format!("{}\t{}", plugin.manifest.plugin_id, entry.id);
    match shape(&placement, request.direction.as_deref()) {
        Shape::Popup => {
            let client = snapshot
                .clients
                .iter()
                .find(|c| c.session == Some(target.session))
                .or_else(|| snapshot.last_client())
                .ok_or_else(|| {
                    TawError::new(
                        ErrorCode::PluginPaneOpenFailed,
                        "a popup needs an attached client, and none is",
                    )
                })?;
            let width = popup_size("--width", request.width.clone().or(entry.width.clone()))?;
            let height = popup_size("--height", request.height.clone().or(entry.height.clone()))?;
            tmux.start(cmd::display_popup_sized(
                &client.name,
                (&width, &height),
                &root,
                &line,
            ))?;
            Ok(crate::envelope::Reply::of(PopupShown {
                plugin_id: plugin.manifest.plugin_id.clone(),
                entrypoint: entry.id.clone(),
            }))
        }
        Shape::Split { right, zoom } => {
            let spawn = Spawn {
                cwd: Some(root),
                env: Vec::new(),
                command: Some(line),
            };
            let made = tmux.run_one(arrange::split_window(
                &format!("%{}", target.id),
                right,
                50,
                &spawn,
            ))?;
            let (_, _, pane) = arrange::parse_new_ids(&made)
                .ok_or_else(|| TawError::tmux("tmux did not say which pane it made"))?;
            let mut after = vec![cmd::set_pane_option(&format!("%{pane}"), MARK, &mark)];
            if zoom {
                after.push(arrange::toggle_zoom(&format!("%{pane}")));
            }
            if request.focus || zoom {
                after.push(cmd::select_pane(&format!("%{pane}")));
            }
            tmux.run(&crate::tmux::Batch::of(after))?;
            opened(tmux, plugin, &entry.id, pane)
        }
        Shape::Window => {
            let spawn = Spawn {
                cwd: Some(root),
                env: Vec::new(),
                command: Some(line),
            };
            let made = tmux.run_one(arrange::new_window(
                &format!("${}", target.session),
                Some(&entry.title),
                &spawn,
            ))?;
            let (_, window, pane) = arrange::parse_new_ids(&made)
                .ok_or_else(|| TawError::tmux("tmux did not say which pane it made"))?;
            let mut after = vec![cmd::set_pane_option(&format!("%{pane}"), MARK, &mark)];
            if request.focus {
                after.push(cmd::select_window(&format!("@{window}")));
            }
            tmux.run(&crate::tmux::Batch::of(after))?;
            opened(tmux, plugin, &entry.id, pane)
        }
    }
}

/// A popup's size as tmux takes it: cells, or a percentage from 1 to 100
/// (50% when none is given); anything else is refused, never passed on.
fn popup_size(flag: &str, size: Option<String>) -> Result<String> {
    let Some(size) = size else {
        return Ok("50%".into());
    };
    let (number, percent) = match size.strip_suffix('%') {
        Some(number) => (number, true),
        None => (size.as_str(), false),
    };
    match number.parse::<u32>() {
        Ok(n) if (percent && (1..=100).contains(&n)) || (!percent && n <= 65535) => Ok(size),
        _ => Err(TawError::invalid_argument(format!(
            "{flag} {size:?}: cells, or a percentage from 1% to 100%"
        ))),
    }
}

fn opened(
    tmux: &Tmux,
    plugin: &PluginInfo,
    entrypoint: &str,
    pane: u32,
) -> Result<crate::envelope::Reply> {
    let snapshot = Snapshot::read(tmux)?;
    let found = snapshot.pane(pane, None).ok_or_else(|| {
        TawError::new(
            ErrorCode::PluginPaneOpenFailed,
            "the plugin's pane closed at once",
        )
    })?;
    Ok(crate::envelope::Reply::of(Opened {
        plugin_pane: PluginPane {
            plugin_id: plugin.manifest.plugin_id.clone(),
            entrypoint: entrypoint.to_string(),
            pane: Records::new(&snapshot).pane(found),
        },
    }))
}

/// The plugin pane `pane` is, from its mark.
pub(crate) fn marked(tmux: &Tmux, snapshot: &Snapshot, pane: &Pane) -> Result<PluginPane> {
    let mark = crate::tmux::pane::read_values(tmux, pane.id, &[MARK])?
        .pop()
        .unwrap_or_default();
    let (plugin_id, entrypoint) = mark.split_once('\t').ok_or_else(|| {
        TawError::new(
            ErrorCode::PluginPaneNotFound,
            format!("%{} is no plugin's pane", pane.id),
        )
    })?;
    Ok(PluginPane {
        plugin_id: plugin_id.to_string(),
        entrypoint: entrypoint.to_string(),
        pane: Records::new(snapshot).pane(pane),
    })
}

/// `plugin pane focus`: the pane in front of its window and session.
pub(crate) fn focus(tmux: &Tmux, snapshot: &Snapshot, pane: &Pane) -> Result<Focused> {
    let plugin_pane = marked(tmux, snapshot, pane)?;
    tmux.run(&crate::tmux::Batch::of(vec![
        cmd::select_window(&format!("@{}", pane.window)),
        cmd::select_pane(&format!("%{}", pane.id)),
    ]))?;
    Ok(Focused { plugin_pane })
}

/// `plugin pane close`: closes it without asking (no pre_close).
pub(crate) fn close(tmux: &Tmux, snapshot: &Snapshot, pane: &Pane) -> Result<Closed> {
    let plugin_pane = marked(tmux, snapshot, pane)?;
    tmux.run_one(arrange::kill_pane(&format!("%{}", pane.id)))?;
    Ok(Closed {
        pane_id: plugin_pane.pane.pane_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_become_tmux_shapes() {
        assert_eq!(shape("overlay", None), Shape::Popup);
        assert_eq!(
            shape("side", None),
            Shape::Split {
                right: true,
                zoom: false
            }
        );
        assert_eq!(
            shape("bottom", None),
            Shape::Split {
                right: false,
                zoom: false
            }
        );
        assert_eq!(
            shape("split", Some("down")),
            Shape::Split {
                right: false,
                zoom: false
            }
        );
        assert_eq!(
            shape("zoomed", None),
            Shape::Split {
                right: true,
                zoom: true
            }
        );
        assert_eq!(shape("tab", None), Shape::Window);
    }

    #[test]
    fn the_line_quotes_every_word() {
        let line = command_line(
            &["./tui".into(), "a b".into()],
            &[(
                "HERDR_PLUGIN_CONTEXT_JSON".into(),
                "{\"x\": \"$(y)\"}".into(),
            )],
            &["HERDR_PANE_ID".into()],
        );
        assert_eq!(
            shell_words::split(&line).unwrap(),
            [
                "exec",
                "env",
                "-u",
                "HERDR_PANE_ID",
                "HERDR_PLUGIN_CONTEXT_JSON={\"x\": \"$(y)\"}",
                "./tui",
                "a b"
            ]
        );
    }
}
