//! A plugin's `[[panes]]` entrypoints opened in tmux: `overlay` and
//! `popup` as a `display-popup` over the client, `split`/`side` beside the
//! target pane and `bottom` below it, `tab` as a window of the target's
//! session, `zoomed` as a split zoomed at once. The panes are made, shown
//! and closed by the operations every pane goes through (`pane::split`,
//! `tab::create`, `navigate::to_pane`, `pane::close_unasked`), so the names
//! rule and the events apply to them alike; as the spec says, `plugin pane
//! close` asks no `pre_close`. The command runs in the
//! plugin's root, with the plugin's environment and the invocation's ids
//! only (`env -u` takes out what tmux's own environment would give the
//! pane of those names). A pane is marked as the plugin's, so `plugin pane
//! focus|close` know it.

use crate::envelope::{ErrorCode, Reply, Result, TawError, answers};
use crate::hooks::payload::Invoked;
use crate::model::{PaneInfo, Records};
use crate::ops::race::{Race, race_window};
use crate::plugin::registry::PluginInfo;
use crate::plugin::{env, manifest};
use crate::tmux::arrange::Spawn;
use crate::tmux::commands as cmd;
use crate::tmux::snapshot::{Pane, Snapshot};
use crate::tmux::{Batch, Tmux};
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
    /// Asked for from inside a popup of taw's on the same client: tmux
    /// shows one popup a client, so this one opens when that one closes.
    pub queued: bool,
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
    /// A popup asked for from inside another (its token): this process
    /// waits until that one has closed, then opens it.
    pub after_popup: Option<String>,
}

/// What a popup's command is told, so a popup asked for from inside it
/// waits for it to close: its token and its client.
const POPUP_TOKEN_VAR: &str = "TAW_POPUP_TOKEN";
const POPUP_CLIENT_VAR: &str = "TAW_POPUP_CLIENT";

/// A popup of taw's: its token (the `wait-for` channel its command and
/// its closing signal, and its start mark's name) and its client.
struct PopupMark {
    token: String,
    client: String,
}

/// Where a popup's command marks that it started: `<state>/run/popups`.
fn popup_marks() -> std::path::PathBuf {
    crate::paths::state_dir().join("run").join("popups")
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
        "zoomed" | "fullscreen" => Shape::Split {
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
    invoked: Invoked,
    request: &OpenRequest,
) -> Result<Reply> {
    let entry = entrypoint(plugin, &request.entrypoint)?;
    let placement = request.placement.clone().unwrap_or(entry.placement.clone());
    if !manifest::PLACEMENTS.contains(&placement.as_str()) {
        return Err(TawError::invalid_argument(format!(
            "--placement {placement}: one of {}",
            manifest::PLACEMENTS.join(", ")
        )));
    }
    let shape = shape(&placement, request.direction.as_deref());
    let root = request.cwd.clone().unwrap_or(plugin.plugin_root.clone());
    if shape == Shape::Popup {
        return popup(
            tmux, snapshot, plugin, entry, target, &invoked, request, root,
        );
    }
    let line = pane_line(plugin, entry, &invoked, request, None)?;
    let spawn = Spawn {
        cwd: Some(root),
        env: Vec::new(),
        command: Some(line),
    };
    let made = match shape {
        Shape::Popup => unreachable!("opened above"),
        Shape::Split { right, zoom } => {
            let new = super::pane::NewPane {
                right,
                ratio: 0.5,
                spawn,
                focus: request.focus || zoom,
            };
            let made = super::pane::split(tmux, target, new)?.pane;
            if zoom {
                tmux.run_one(crate::tmux::arrange::toggle_zoom(&made.tmux_id))?;
            }
            made
        }
        Shape::Window => {
            // Named by its title where tmux keeps the title as written;
            // unnamed otherwise, as a pane goes unlabelled below.
            let label = super::names::check(super::names::Named::Tab, &entry.title)
                .is_ok()
                .then(|| entry.title.clone());
            let new = super::tab::NewTab {
                session: target.session,
                cwd: spawn.cwd,
                label,
                env: Vec::new(),
                command: spawn.command,
                focus: request.focus.then_some(None),
            };
            super::tab::create(tmux, snapshot, new)?.root_pane
        }
    };
    // Marked as the plugin's, and labelled with the entry's title as herdr
    // labels it: a plugin finds its pane again by that label (lazygit's
    // toggle). A title the names rule refuses leaves it unlabelled.
    let mut made = made;
    let mut writes = crate::tmux::pane::OptionWrites::default();
    writes.set(MARK, format!("{}\t{}", plugin.manifest.plugin_id, entry.id));
    if super::names::check(super::names::Named::Pane, &entry.title).is_ok() {
        writes.set(crate::tmux::options::pane::LABEL, &entry.title);
        made.label = Some(entry.title.clone());
    }
    let pane = crate::tmux::ids::tmux_number(&made.tmux_id, '%')
        .ok_or_else(|| TawError::tmux("tmux did not say which pane it made"))?;
    crate::tmux::pane::write_options(tmux, pane, &writes)?;
    Ok(Reply::of(Opened {
        plugin_pane: PluginPane {
            plugin_id: plugin.manifest.plugin_id.clone(),
            entrypoint: entry.id.clone(),
            pane: made,
        },
    }))
}

/// The pane entrypoint `id` of an enabled plugin, for this platform.
fn entrypoint<'a>(plugin: &'a PluginInfo, id: &str) -> Result<&'a manifest::PaneEntry> {
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
        .find(|p| p.id == id)
        .ok_or_else(|| {
            TawError::new(
                ErrorCode::InvalidPluginEntrypoint,
                format!(
                    "{} has no pane entrypoint {id:?}",
                    plugin.manifest.plugin_id
                ),
            )
        })?;
    if !manifest::runs_here(&entry.platforms, &plugin.manifest.platforms) {
        return Err(TawError::new(
            ErrorCode::PlatformUnsupported,
            format!("{} does not run on {}", entry.id, manifest::this_platform()),
        ));
    }
    Ok(entry)
}

/// The shell line the entrypoint's pane runs: its command with the
/// plugin's environment over tmux's. A pane gets its own ids, as herdr
/// gives them: they are known only once it is made, so its command starts
/// with `taw plugin pane exec`, which reads them. A popup is no pane: it
/// gets no pane id, and its tab and workspace are the target's.
fn pane_line(
    plugin: &PluginInfo,
    entry: &manifest::PaneEntry,
    invoked: &Invoked,
    request: &OpenRequest,
    popup: Option<&PopupMark>,
) -> Result<String> {
    let invocation = env::Invocation {
        event: "action".into(),
        context: invoked.context.clone(),
        tmux_socket: Some(invoked.socket_path.clone()),
        entrypoint_id: Some(entry.id.clone()),
        ..env::Invocation::default()
    };
    // What the caller adds comes first, and taw's own variables win over
    // it; no one sets a socket path.
    let mut set: Vec<(String, String)> = request
        .env
        .iter()
        .filter(|(name, _)| name != "HERDR_SOCKET_PATH" && name != "TAW_SOCKET_PATH")
        .cloned()
        .collect();
    // The pane's PATH is tmux's, as the pane would have it, with the
    // plugins' program folder first.
    let search_path = invoked
        .base_env
        .get("PATH")
        .map(|path| ("PATH".to_string(), path.clone()));
    let mut own = env::environment(
        plugin,
        &invocation,
        crate::paths::folder_vars()
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .chain(search_path),
    )?;
    let not_the_targets: &[&str] = if popup.is_some() {
        &["PANE_ID"]
    } else {
        &["PANE_ID", "TAB_ID", "WORKSPACE_ID"]
    };
    for id in not_the_targets {
        own.remove(&format!("HERDR_{id}"));
        own.remove(&format!("TAW_{id}"));
    }
    if let Some(mark) = popup {
        own.insert(POPUP_TOKEN_VAR.into(), mark.token.clone());
        own.insert(POPUP_CLIENT_VAR.into(), mark.client.clone());
    }
    set.retain(|(name, _)| !own.contains_key(name));
    set.extend(own);
    // tmux gives the pane its own environment: herdr's runtime variables of
    // it that this invocation does not set are taken out; a user's own
    // HERDR_* settings stay.
    let unset: Vec<String> = invoked
        .base_env
        .keys()
        .filter(|name| env::is_runtime(name))
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
    let bin = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "taw".into());
    let mut argv = vec![bin, "-S".into(), invoked.socket_path.clone()];
    argv.extend(["plugin", "pane", "exec"].map(String::from));
    if let Some(mark) = popup {
        argv.extend(["--popup".to_string(), mark.token.clone()]);
    }
    argv.push("--".into());
    // A program named by a relative path is the plugin's own, as an
    // action's is: found in its folder, never in the pane's `--cwd`.
    let mut command = entry.command.iter().cloned();
    let program = command.next().map(|program| {
        crate::plugin::run::own_program(std::path::Path::new(&plugin.plugin_root), &program)
            .map_or(program, |own| own.display().to_string())
    });
    argv.extend(program);
    argv.extend(command);
    Ok(command_line(&argv, &set, &unset))
}

/// `taw plugin pane exec -- ARGV`, in a plugin's pane: the pane's own
/// workspace, tab and pane ids (`HERDR_*` and their `TAW_` twins), read
/// from `$TMUX_PANE`, then the entrypoint's command in taw's place. Answers
/// only when that command could not be started. In a popup (`--popup
/// TOKEN`, no pane of its own) it marks that it started, and says so on
/// the popup's channel, where the opener waits.
pub(crate) fn exec_in_own_pane(
    tmux: &Tmux,
    snapshot: &Snapshot,
    argv: &[String],
    popup: Option<&str>,
) -> TawError {
    let Some((program, args)) = argv.split_first() else {
        return TawError::invalid_argument("no command to run");
    };
    let mut command = crate::exec::Program::new(program).args(args).limit(None);
    if let Some(token) = popup {
        let marks = popup_marks();
        let marked = crate::paths::make_private_dir(&marks)
            .and_then(|()| crate::paths::write_private(&marks.join(token), b""));
        if let Err(error) = marked {
            return TawError::io(format!("cannot mark the popup as started: {error}"));
        }
        let started = Batch::of(vec![
            cmd::set_global_option(
                &crate::tmux::options::bookkeeping::popup_started(token),
                "1",
            ),
            cmd::signal(&crate::tmux::popup_channel(token)),
        ]);
        if let Err(error) = tmux.run(&started) {
            return error;
        }
    }
    let own = std::env::var("TMUX_PANE")
        .ok()
        .filter(|_| popup.is_none())
        .and_then(|pane| crate::tmux::ids::tmux_number(&pane, '%'))
        .and_then(|pane| snapshot.pane(pane, None));
    if let Some(pane) = own {
        let ids = [
            ("WORKSPACE_ID", crate::tmux::ids::workspace_id(pane.session)),
            (
                "TAB_ID",
                crate::tmux::ids::tab_id(pane.session, pane.window),
            ),
            ("PANE_ID", crate::tmux::ids::pane_id(pane.session, pane.id)),
        ];
        for (name, value) in ids {
            command = command
                .env(format!("HERDR_{name}"), &value)
                .env(format!("TAW_{name}"), value);
        }
    }
    let failed = command.become_it();
    TawError::new(
        ErrorCode::PluginPaneOpenFailed,
        format!("{program}: {failed}"),
    )
}

/// An `overlay` or `popup` entrypoint: a `display-popup` over the client
/// of the target's session (else the last one), which is no pane. tmux
/// shows one popup a client and drops a second without a word, so:
/// asked for from inside a popup of taw's on the same client (a picker
/// that hands over to a viewer), it opens once that one has closed (a
/// process of its own waits for it, and the answer says `queued`);
/// otherwise it answers only once its command has started, and with
/// `plugin_pane_open_failed` when tmux showed nothing (another popup is
/// open there).
#[allow(clippy::too_many_arguments)]
fn popup(
    tmux: &Tmux,
    snapshot: &Snapshot,
    plugin: &PluginInfo,
    entry: &manifest::PaneEntry,
    target: &Pane,
    invoked: &Invoked,
    request: &OpenRequest,
    root: String,
) -> Result<Reply> {
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
    let shown = |queued| {
        Reply::of(PopupShown {
            plugin_id: plugin.manifest.plugin_id.clone(),
            entrypoint: entry.id.clone(),
            queued,
        })
    };
    match &request.after_popup {
        // The process that waits: until the popup it was asked from closes.
        Some(first) => {
            tmux.wait_for(&crate::tmux::popup_closed_channel(first), None)?;
        }
        None => {
            let inside = std::env::var(POPUP_TOKEN_VAR)
                .ok()
                .filter(|_| std::env::var(POPUP_CLIENT_VAR).is_ok_and(|c| c == client.name));
            if let Some(first) = inside {
                let me = std::env::current_exe()
                    .map_err(|e| TawError::io(format!("cannot find taw itself: {e}")))?;
                crate::exec::Program::new(me)
                    .args(std::env::args_os().skip(1))
                    .args(["--after-popup", &first])
                    .start_unwatched()
                    .map_err(|failure| {
                        TawError::new(ErrorCode::PluginPaneOpenFailed, failure.describe("taw"))
                    })?;
                return Ok(shown(true));
            }
        }
    }
    let mark = PopupMark {
        token: format!("{}-{}", std::process::id(), crate::clock::now_ms()),
        client: client.name.clone(),
    };
    let line = pane_line(plugin, entry, invoked, request, Some(&mark))?;
    let channel = crate::tmux::popup_channel(&mark.token);
    // The popup's command signals as it starts; tmux, once the popup has
    // closed (at once when it showed none), signals only when it did not:
    // either way the wait below ends.
    let started = crate::tmux::options::bookkeeping::popup_started(&mark.token);
    tmux.start(vec![
        cmd::display_popup_sized(&client.name, (&width, &height), &root, &entry.title, &line),
        cmd::unless_global_set(&started, &[cmd::signal(&channel)]),
        cmd::unset_global_option(&started),
        cmd::signal(&crate::tmux::popup_closed_channel(&mark.token)),
    ])?;
    race_window(Race::PopupWait);
    tmux.wait_for(&channel, Some(crate::tmux::answer_limit()))?;
    let started = popup_marks().join(&mark.token);
    if std::fs::remove_file(&started).is_err() {
        return Err(TawError::new(
            ErrorCode::PluginPaneOpenFailed,
            format!(
                "tmux showed no popup on {}: a popup is open there already (tmux shows one at a time)",
                client.name
            ),
        ));
    }
    Ok(shown(false))
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
    super::navigate::to_pane(tmux, snapshot, pane, None)?;
    Ok(Focused { plugin_pane })
}

/// `plugin pane close`: closes it without asking (no `pre_close`: the
/// plugin opened it, and closes it as its own).
pub(crate) fn close(tmux: &Tmux, snapshot: &Snapshot, pane: &Pane) -> Result<Closed> {
    let plugin_pane = marked(tmux, snapshot, pane)?;
    super::pane::close_unasked(tmux, pane)?;
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
        assert_eq!(shape("fullscreen", None), shape("zoomed", None));
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

    #[test]
    fn a_popups_size_is_cells_or_a_percentage() {
        assert_eq!(popup_size("--width", None).unwrap(), "50%");
        for good in ["80", "100%", "1%", "0"] {
            assert_eq!(popup_size("--width", Some(good.into())).unwrap(), good);
        }
        for bad in ["0%", "101%", "70000", "-3", "wide", "%"] {
            let error = popup_size("--height", Some(bad.into())).err().unwrap();
            assert_eq!(error.code, ErrorCode::InvalidArgument, "{bad}");
            assert!(error.message.starts_with("--height"), "{}", error.message);
        }
    }
}
