//! herdr's plugin manifest, `herdr-plugin.toml`: read, checked rule by
//! rule, and turned into the record `taw plugin list` prints. A manifest
//! that breaks a rule is an error naming the file, the key and the rule,
//! with herdr's code; nothing of it is registered. Unknown keys are
//! ignored, as herdr ignores them.

use crate::envelope::{ErrorCode, Result, TawError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name in a plugin's folder.
pub(crate) const FILE_NAME: &str = "herdr-plugin.toml";

/// Platforms a manifest may name.
const PLATFORMS: &[&str] = &["linux", "macos", "windows"];

/// Contexts an action may name.
const CONTEXTS: &[&str] = &["global", "workspace", "tab", "pane", "selection"];

/// Placements a pane entrypoint may ask for: herdr's five, and the seed's
/// `side` and `bottom`.
pub(crate) const PLACEMENTS: &[&str] = &[
    "overlay", "popup", "split", "tab", "zoomed", "side", "bottom",
];

/// The platform taw runs on, in the manifest's words.
pub(crate) fn this_platform() -> &'static str {
    if cfg!(target_os = "macos") {
        "macos"
    } else if cfg!(windows) {
        "windows"
    } else {
        "linux"
    }
}

/// A command: an argv array, run without a shell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Command {
    pub command: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Action {
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<String>>,
    pub command: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct EventHook {
    pub on: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<String>>,
    pub command: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PaneEntry {
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<String>>,
    pub placement: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<String>,
    pub command: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct LinkHandler {
    pub id: String,
    pub title: String,
    pub pattern: String,
    pub action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<String>>,
}

/// A manifest that keeps every rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Manifest {
    pub plugin_id: String,
    pub name: String,
    pub version: String,
    pub min_herdr_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub build: Vec<Command>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub startup: Vec<Command>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventHook>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub panes: Vec<PaneEntry>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub link_handlers: Vec<LinkHandler>,
    /// What loads but deserves a word: an event taw never fires, no
    /// platforms named.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

// The file as written; every field optional, so each rule can say what is
// missing in its own words.
#[derive(Debug, Deserialize)]
struct Raw {
    id: Option<String>,
    name: Option<String>,
    version: Option<String>,
    min_herdr_version: Option<String>,
    description: Option<String>,
    platforms: Option<Vec<String>>,
    #[serde(default)]
    build: Vec<RawCommand>,
    #[serde(default)]
    startup: Vec<RawCommand>,
    #[serde(default)]
    actions: Vec<RawAction>,
    #[serde(default)]
    events: Vec<RawEvent>,
    #[serde(default)]
    panes: Vec<RawPane>,
    #[serde(default)]
    link_handlers: Vec<RawLinkHandler>,
}

#[derive(Debug, Deserialize)]
struct RawCommand {
    command: Option<Vec<String>>,
    platforms: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct RawAction {
    id: Option<String>,
    title: Option<String>,
    description: Option<String>,
    contexts: Option<Vec<String>>,
    platforms: Option<Vec<String>>,
    command: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct RawEvent {
    on: Option<String>,
    platforms: Option<Vec<String>>,
    command: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct RawPane {
    id: Option<String>,
    title: Option<String>,
    description: Option<String>,
    platforms: Option<Vec<String>>,
    placement: Option<String>,
    width: Option<Size>,
    height: Option<Size>,
    command: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Size {
    Cells(i64),
    Text(String),
}

#[derive(Debug, Deserialize)]
struct RawLinkHandler {
    id: Option<String>,
    title: Option<String>,
    pattern: Option<String>,
    action: Option<String>,
    platforms: Option<Vec<String>>,
}

/// The most a manifest may hold.
const MANIFEST_MAX: u64 = 1024 * 1024;

/// Reads and checks the manifest at `path`. `compat` is the herdr version
/// taw answers for (`[plugins] compat_herdr_version`).
pub(crate) fn load(path: &Path, compat: &str) -> Result<Manifest> {
    use std::io::Read;
    let unread = |error: std::io::Error| {
        let code = if error.kind() == std::io::ErrorKind::NotFound {
            ErrorCode::PluginManifestNotFound
        } else {
            ErrorCode::PluginManifestReadFailed
        };
        TawError::new(code, format!("{}: cannot be read: {error}", path.display()))
    };
    let refused = |why: &str| {
        TawError::new(
            ErrorCode::PluginManifestReadFailed,
            format!("{}: {why}", path.display()),
        )
    };
    // Before it is opened: a repository's manifest may be a link to a
    // device or a pipe, which would be read forever or never.
    if !std::fs::metadata(path).map_err(unread)?.is_file() {
        return Err(refused("is not a file"));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .map_err(unread)?
        .take(MANIFEST_MAX + 1)
        .read_to_string(&mut text)
        .map_err(unread)?;
    if text.len() as u64 > MANIFEST_MAX {
        return Err(refused("is over 1 MiB: a manifest is a page of TOML"));
    }
    parse(&text, compat).map_err(|error| {
        TawError::new(error.code, format!("{}: {}", path.display(), error.message))
    })
}

/// Checks manifest text. An error's message names the key and the rule.
/// The rules are checked in one fixed order (the top keys, then each
/// table), which decides the error a manifest breaking several gets.
pub(crate) fn parse(text: &str, compat: &str) -> Result<Manifest> {
    let raw: Raw = toml_edit::de::from_str(text).map_err(|error| {
        TawError::new(
            ErrorCode::PluginManifestParseFailed,
            format!(
                "not a manifest herdr reads: {}",
                crate::text::one_line(&error.to_string(), usize::MAX)
            ),
        )
    })?;
    let plugin_id = trimmed(raw.id);
    if !valid_id(&plugin_id, true) {
        return Err(TawError::new(
            ErrorCode::InvalidPluginId,
            format!(
                "id {plugin_id:?}: required, at most 120 characters of ASCII letters, digits and `: . _ -`"
            ),
        ));
    }
    let name = required("name", raw.name, ErrorCode::InvalidPluginName)?;
    let version = required("version", raw.version, ErrorCode::InvalidPluginVersion)?;
    let min_herdr_version = check_min_herdr_version(raw.min_herdr_version, compat)?;
    let description = raw
        .description
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty());
    let mut warnings = Vec::new();
    let platforms = check_platforms("platforms", raw.platforms)?;
    if platforms.is_none() {
        warnings.push("platform support unknown: the manifest names no platforms".to_string());
    }
    let build = check_commands("build", raw.build)?;
    let startup = check_commands("startup", raw.startup)?;
    let actions = check_actions(raw.actions)?;
    let events = check_events(raw.events, &mut warnings)?;
    let panes = check_panes(raw.panes)?;
    let link_handlers = check_link_handlers(raw.link_handlers, &actions)?;
    Ok(Manifest {
        plugin_id,
        name,
        version,
        min_herdr_version,
        description,
        platforms,
        build,
        startup,
        actions,
        events,
        panes,
        link_handlers,
        warnings,
    })
}

/// Text as given, trimmed; nothing when it is missing.
fn trimmed(raw: Option<String>) -> String {
    raw.as_deref().map(str::trim).unwrap_or("").to_string()
}

/// A top-level text that must be there, not empty.
fn required(key: &str, raw: Option<String>, code: ErrorCode) -> Result<String> {
    let text = trimmed(raw);
    if text.is_empty() {
        return Err(TawError::new(code, format!("{key}: required, not empty")));
    }
    Ok(text)
}

/// A version, and not newer than the herdr taw answers for.
fn check_min_herdr_version(raw: Option<String>, compat: &str) -> Result<String> {
    let min_herdr_version = trimmed(raw);
    let Some(wanted) = crate::text::parse_version(&min_herdr_version) else {
        return Err(TawError::new(
            ErrorCode::InvalidPluginMinHerdrVersion,
            format!(
                "min_herdr_version {min_herdr_version:?}: required, a version such as \"0.7.1\""
            ),
        ));
    };
    if let Some(have) = crate::text::parse_version(compat)
        && wanted > have
    {
        return Err(TawError::new(
            ErrorCode::PluginRequiresNewerHerdr,
            format!(
                "min_herdr_version {min_herdr_version}: newer than the herdr {compat} taw answers for ([plugins] compat_herdr_version)"
            ),
        ));
    }
    Ok(min_herdr_version)
}

/// `build` or `startup`: each a command, on its platforms.
fn check_commands(table: &str, items: Vec<RawCommand>) -> Result<Vec<Command>> {
    items
        .into_iter()
        .enumerate()
        .map(|(n, item)| {
            let key = format!("{table}[{n}]");
            Ok(Command {
                command: check_command(&key, item.command)?,
                platforms: check_platforms(&format!("{key}.platforms"), item.platforms)?,
            })
        })
        .collect()
}

/// `[[actions]]`, sorted by id.
fn check_actions(items: Vec<RawAction>) -> Result<Vec<Action>> {
    let mut actions = Vec::new();
    for (n, item) in items.into_iter().enumerate() {
        let key = format!("actions[{n}]");
        let id = local_id(
            &key,
            item.id,
            |id| actions.iter().any(|a: &Action| a.id == id),
            (
                ErrorCode::InvalidPluginActionId,
                ErrorCode::DuplicatePluginActionId,
            ),
            "action",
        )?;
        let title = required_title(&key, item.title, ErrorCode::InvalidPluginActionTitle)?;
        if let Some(contexts) = &item.contexts
            && let Some(bad) = contexts.iter().find(|c| !CONTEXTS.contains(&c.as_str()))
        {
            return Err(TawError::new(
                ErrorCode::InvalidPluginContext,
                format!("{key}.contexts: {bad:?} is none of {}", CONTEXTS.join(", ")),
            ));
        }
        actions.push(Action {
            id,
            title,
            description: item.description.filter(|d| !d.trim().is_empty()),
            contexts: item.contexts,
            platforms: check_platforms(&format!("{key}.platforms"), item.platforms)?,
            command: check_command(&key, item.command)?,
        });
    }
    actions.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(actions)
}

/// `[[events]]`, sorted by event and command; an event taw never fires
/// loads with a warning.
fn check_events(items: Vec<RawEvent>, warnings: &mut Vec<String>) -> Result<Vec<EventHook>> {
    let mut events = Vec::new();
    for (n, item) in items.into_iter().enumerate() {
        let key = format!("events[{n}]");
        let on = trimmed(item.on);
        if on.is_empty() {
            return Err(TawError::new(
                ErrorCode::InvalidPluginEvent,
                format!("{key}.on: required, an event's name such as \"tab.created\""),
            ));
        }
        if !crate::events::Event::from_name(&on).is_some_and(|e| e.def().for_plugins) {
            warnings.push(format!("unknown event '{on}': taw never fires it"));
        }
        events.push(EventHook {
            on,
            platforms: check_platforms(&format!("{key}.platforms"), item.platforms)?,
            command: check_command(&key, item.command)?,
        });
    }
    events.sort_by(|a, b| a.on.cmp(&b.on).then_with(|| a.command.cmp(&b.command)));
    Ok(events)
}

/// `[[panes]]`, sorted by id.
fn check_panes(items: Vec<RawPane>) -> Result<Vec<PaneEntry>> {
    let mut panes: Vec<PaneEntry> = Vec::new();
    for (n, item) in items.into_iter().enumerate() {
        let pane = check_pane(&format!("panes[{n}]"), item, &panes)?;
        panes.push(pane);
    }
    panes.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(panes)
}

/// One pane entrypoint at `key`, its id not one of `earlier`'s.
fn check_pane(key: &str, item: RawPane, earlier: &[PaneEntry]) -> Result<PaneEntry> {
    let id = local_id(
        key,
        item.id,
        |id| earlier.iter().any(|x| x.id == id),
        (
            ErrorCode::InvalidPluginPaneId,
            ErrorCode::DuplicatePluginPaneId,
        ),
        "pane",
    )?;
    let title = required_title(key, item.title, ErrorCode::InvalidPluginPaneTitle)?;
    let placement = item.placement.unwrap_or_else(|| "overlay".into());
    if !PLACEMENTS.contains(&placement.as_str()) {
        return Err(TawError::new(
            ErrorCode::InvalidPluginEntrypoint,
            format!(
                "{key}.placement {placement:?}: one of {}",
                PLACEMENTS.join(", ")
            ),
        ));
    }
    let size = |name: &str, size: Option<Size>| -> Result<Option<String>> {
        let Some(size) = size else { return Ok(None) };
        if placement != "popup" {
            return Err(TawError::new(
                ErrorCode::InvalidPluginPaneSize,
                format!("{key}.{name}: only a popup takes a size"),
            ));
        }
        check_size(&format!("{key}.{name}"), size).map(Some)
    };
    let width = size("width", item.width)?;
    let height = size("height", item.height)?;
    Ok(PaneEntry {
        id,
        title,
        description: item.description.filter(|d| !d.trim().is_empty()),
        platforms: check_platforms(&format!("{key}.platforms"), item.platforms)?,
        placement,
        width,
        height,
        command: check_command(key, item.command)?,
    })
}

/// `[[link_handlers]]`, each naming one of `actions`; kept in the file's
/// order.
fn check_link_handlers(items: Vec<RawLinkHandler>, actions: &[Action]) -> Result<Vec<LinkHandler>> {
    let mut link_handlers: Vec<LinkHandler> = Vec::new();
    for (n, item) in items.into_iter().enumerate() {
        let handler = check_link_handler(
            &format!("link_handlers[{n}]"),
            item,
            &link_handlers,
            actions,
        )?;
        link_handlers.push(handler);
    }
    Ok(link_handlers)
}

/// One link handler at `key`, its id not one of `earlier`'s.
fn check_link_handler(
    key: &str,
    item: RawLinkHandler,
    earlier: &[LinkHandler],
    actions: &[Action],
) -> Result<LinkHandler> {
    let id = local_id(
        key,
        item.id,
        |id| earlier.iter().any(|x| x.id == id),
        (
            ErrorCode::InvalidPluginLinkHandlerId,
            ErrorCode::DuplicatePluginLinkHandlerId,
        ),
        "link handler",
    )?;
    let title = required_title(key, item.title, ErrorCode::InvalidPluginLinkHandlerTitle)?;
    let pattern = item.pattern.unwrap_or_default();
    if let Err(error) = regex::Regex::new(&pattern) {
        return Err(TawError::new(
            ErrorCode::InvalidPluginLinkHandlerPattern,
            format!(
                "{key}.pattern: not a regular expression: {}",
                crate::text::one_line(&error.to_string(), usize::MAX)
            ),
        ));
    }
    let action = item.action.unwrap_or_default();
    if !actions.iter().any(|a| a.id == action) {
        return Err(TawError::new(
            ErrorCode::InvalidPluginLinkHandlerAction,
            format!("{key}.action {action:?}: must name an action of this plugin"),
        ));
    }
    Ok(LinkHandler {
        id,
        title,
        pattern,
        action,
        platforms: check_platforms(&format!("{key}.platforms"), item.platforms)?,
    })
}

/// A local id (an action's, a pane's, a link handler's): valid, and not
/// another one's of the same kind.
fn local_id(
    key: &str,
    raw: Option<String>,
    taken: impl Fn(&str) -> bool,
    (invalid, duplicate): (ErrorCode, ErrorCode),
    kind: &str,
) -> Result<String> {
    let id = trimmed(raw);
    if !valid_id(&id, false) {
        return Err(TawError::new(
            invalid,
            format!(
                "{key}.id {id:?}: required, at most 120 characters of ASCII letters, digits and `: _ -` (no dots)"
            ),
        ));
    }
    if taken(&id) {
        return Err(TawError::new(
            duplicate,
            format!("{key}.id {id:?}: another {kind} has it"),
        ));
    }
    Ok(id)
}

/// A title that must be there.
fn required_title(key: &str, raw: Option<String>, code: ErrorCode) -> Result<String> {
    let title = trimmed(raw);
    if title.is_empty() {
        return Err(TawError::new(
            code,
            format!("{key}.title: required, not empty"),
        ));
    }
    Ok(title)
}

/// A plugin id (dots allowed) or a local id (no dots): trimmed, 1 to 120
/// ASCII letters, digits and `: _ -`.
fn valid_id(id: &str, dots: bool) -> bool {
    !id.is_empty()
        && id.len() <= 120
        && id.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-') || (dots && c == '.')
        })
}

fn check_command(key: &str, command: Option<Vec<String>>) -> Result<Vec<String>> {
    match command {
        Some(argv) if !argv.is_empty() && argv.iter().all(|word| !word.is_empty()) => Ok(argv),
        _ => Err(TawError::new(
            ErrorCode::InvalidPluginCommand,
            format!(
                "{key}.command: required, an argv array of words, none empty (it runs without a shell)"
            ),
        )),
    }
}

fn check_platforms(key: &str, platforms: Option<Vec<String>>) -> Result<Option<Vec<String>>> {
    let Some(platforms) = platforms else {
        return Ok(None);
    };
    if platforms.is_empty() {
        return Err(TawError::new(
            ErrorCode::InvalidPluginPlatform,
            format!("{key}: an empty list; leave it out or name linux, macos or windows"),
        ));
    }
    if let Some(bad) = platforms.iter().find(|p| !PLATFORMS.contains(&p.as_str())) {
        return Err(TawError::new(
            ErrorCode::InvalidPluginPlatform,
            format!("{key}: {bad:?} is none of linux, macos, windows"),
        ));
    }
    Ok(Some(platforms))
}

/// A popup's size: cells 0 to 65535, or a percentage "1%" to "100%".
fn check_size(key: &str, size: Size) -> Result<String> {
    let bad = || {
        TawError::new(
            ErrorCode::InvalidPluginPaneSize,
            format!("{key}: cells from 0 to 65535, or a percentage from \"1%\" to \"100%\""),
        )
    };
    match size {
        Size::Cells(n) if (0..=65535).contains(&n) => Ok(n.to_string()),
        Size::Text(text) => {
            let percent: u32 = text
                .strip_suffix('%')
                .and_then(|n| n.parse().ok())
                .ok_or_else(bad)?;
            if (1..=100).contains(&percent) {
                Ok(text)
            } else {
                Err(bad())
            }
        }
        Size::Cells(_) => Err(bad()),
    }
}

/// Whether an entry runs here: its own platforms, else the plugin's, else
/// everywhere.
pub(crate) fn runs_here(own: &Option<Vec<String>>, plugin: &Option<Vec<String>>) -> bool {
    match own.as_ref().or(plugin.as_ref()) {
        Some(list) => list.iter().any(|p| p == this_platform()),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
id = "acme.review"
name = "Review"
version = "0.2.0"
min_herdr_version = "0.7.0"
platforms = ["linux", "macos"]
unknown_key = true

[[build]]
command = ["make"]

[[actions]]
id = "zeta"
title = "Last"
command = ["./z"]

[[actions]]
id = "alpha"
title = "First"
contexts = ["pane"]
command = ["./a", "--go"]

[[events]]
on = "tab.created"
command = ["./on-tab"]

[[events]]
on = "agent.finished"
command = ["./x"]

[[panes]]
id = "queue"
title = "Queue"
placement = "popup"
width = "70%"
height = 24
command = ["./tui"]

[[link_handlers]]
id = "gh"
title = "GitHub"
pattern = "https://github\\.com/.*"
action = "alpha"
"#;

    #[test]
    fn a_good_manifest_is_read_and_sorted() {
        let m = parse(GOOD, "0.9.3").unwrap();
        assert_eq!(m.plugin_id, "acme.review");
        assert_eq!(m.actions[0].id, "alpha");
        assert_eq!(m.events[0].on, "agent.finished");
        assert_eq!(m.panes[0].width.as_deref(), Some("70%"));
        assert_eq!(m.panes[0].height.as_deref(), Some("24"));
        assert_eq!(
            m.warnings,
            ["unknown event 'agent.finished': taw never fires it"]
        );
    }

    fn code(text: &str) -> String {
        parse(text, "0.9.3").unwrap_err().code.as_str()
    }

    #[test]
    fn each_rule_has_its_code() {
        let head = "name = \"n\"\nversion = \"1\"\nmin_herdr_version = \"0.7\"\n";
        assert_eq!(code(&format!("id = \"a b\"\n{head}")), "invalid_plugin_id");
        assert_eq!(
            code("id = \"a\"\nversion = \"1\"\nmin_herdr_version = \"0.7\"\n"),
            "invalid_plugin_name"
        );
        assert_eq!(
            code("id = \"a\"\nname = \"n\"\nversion = \"1\"\n"),
            "invalid_plugin_min_herdr_version"
        );
        assert_eq!(
            code("id = \"a\"\nname = \"n\"\nversion = \"1\"\nmin_herdr_version = \"1.0.0\"\n"),
            "plugin_requires_newer_herdr"
        );
        let with = |rest: &str| code(&format!("id = \"a\"\n{head}{rest}"));
        assert_eq!(with("platforms = []\n"), "invalid_plugin_platform");
        assert_eq!(with("platforms = [\"beos\"]\n"), "invalid_plugin_platform");
        assert_eq!(with("[[build]]\ncommand = []\n"), "invalid_plugin_command");
        assert_eq!(
            with("[[build]]\ncommand = [\"\"]\n"),
            "invalid_plugin_command"
        );
        assert_eq!(
            with("[[actions]]\nid = \"a.b\"\ntitle = \"t\"\ncommand = [\"x\"]\n"),
            "invalid_plugin_action_id"
        );
        assert_eq!(
            with(
                "[[actions]]\nid = \"a\"\ntitle = \"t\"\ncommand = [\"x\"]\n[[actions]]\nid = \"a\"\ntitle = \"t\"\ncommand = [\"x\"]\n"
            ),
            "duplicate_plugin_action_id"
        );
        assert_eq!(
            with("[[events]]\ncommand = [\"x\"]\n"),
            "invalid_plugin_event"
        );
        assert_eq!(
            with(
                "[[panes]]\nid = \"p\"\ntitle = \"t\"\nplacement = \"floating\"\ncommand = [\"x\"]\n"
            ),
            "invalid_plugin_entrypoint"
        );
        assert_eq!(
            with("[[panes]]\nid = \"p\"\ntitle = \"t\"\nwidth = 10\ncommand = [\"x\"]\n"),
            "invalid_plugin_pane_size"
        );
        assert_eq!(
            with(
                "[[panes]]\nid = \"p\"\ntitle = \"t\"\nplacement = \"popup\"\nwidth = \"0%\"\ncommand = [\"x\"]\n"
            ),
            "invalid_plugin_pane_size"
        );
        assert_eq!(
            with("[[link_handlers]]\nid = \"l\"\ntitle = \"t\"\npattern = \"(\"\naction = \"a\"\n"),
            "invalid_plugin_link_handler_pattern"
        );
        assert_eq!(
            with(
                "[[link_handlers]]\nid = \"l\"\ntitle = \"t\"\npattern = \"x\"\naction = \"none\"\n"
            ),
            "invalid_plugin_link_handler_action"
        );
        assert_eq!(code("id = 3\n"), "plugin_manifest_parse_failed");
        assert_eq!(code("id = \"unclosed\n"), "plugin_manifest_parse_failed");
    }

    #[test]
    fn the_message_names_the_key_and_the_file() {
        let error = parse(
            "id = \"a\"\nname = \"n\"\nversion = \"1\"\nmin_herdr_version = \"0.7\"\n[[startup]]\ncommand = []\n",
            "0.9.3",
        )
        .unwrap_err();
        assert!(
            error.message.starts_with("startup[0].command"),
            "{}",
            error.message
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, "id = \"a b\"").unwrap();
        let error = load(&path, "0.9.3").unwrap_err();
        assert!(error.message.contains(FILE_NAME), "{}", error.message);
        let missing = load(&dir.path().join("none.toml"), "0.9.3").unwrap_err();
        assert_eq!(missing.code.as_str(), "plugin_manifest_not_found");
    }

    #[test]
    fn a_manifest_that_is_no_file_or_too_large_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        // A link to a device: /dev/zero would be read until memory ran out.
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let error = load(&path, "0.9.3").unwrap_err();
        assert_eq!(error.code.as_str(), "plugin_manifest_read_failed");
        assert!(error.message.contains("is not a file"), "{}", error.message);
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "#".repeat(MANIFEST_MAX as usize + 1)).unwrap();
        let error = load(&path, "0.9.3").unwrap_err();
        assert!(error.message.contains("over 1 MiB"), "{}", error.message);
    }

    #[test]
    fn versions_and_platforms() {
        assert!(runs_here(&None, &None));
        assert!(runs_here(&None, &Some(vec![this_platform().to_string()])));
        assert!(!runs_here(&Some(vec!["windows".into()]), &None));
    }
}
