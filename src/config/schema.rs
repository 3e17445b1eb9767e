//! Every key `config.toml` may hold: herdr's own (v0.8.2 and the later ones
//! the spec names) and taw's, with type, default and range. `docs/CONFIG.md`
//! documents the same keys; a test keeps the two in step.

use std::marker::PhantomData;

/// What a key's value must be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Bool,
    Str,
    Int {
        min: i64,
        max: i64,
    },
    Float {
        min: f64,
        max: f64,
    },
    /// One of these words. Aliases are read as the word they stand for.
    Choice {
        words: &'static [&'static str],
        aliases: &'static [(&'static str, &'static str)],
    },
    StrList,
    /// A herdr key that taw reads but has no use for: accepted, no check.
    Ignored,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct KeySpec {
    /// Dotted path: `ui.toast.done_delay_seconds`.
    pub path: &'static str,
    pub kind: Kind,
    /// The default, as written in TOML (empty: unset).
    pub default: &'static str,
}

/// A key of config.toml, typed by the value taw reads from it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key<T: 'static> {
    pub spec: KeySpec,
    value: PhantomData<fn() -> T>,
}

const fn key<T>(path: &'static str, kind: Kind, default: &'static str) -> Key<T> {
    Key {
        spec: KeySpec {
            path,
            kind,
            default,
        },
        value: PhantomData,
    }
}

const fn flag(path: &'static str, default: &'static str) -> Key<bool> {
    key(path, Kind::Bool, default)
}

const fn text(path: &'static str, default: &'static str) -> Key<String> {
    key(path, Kind::Str, default)
}

const fn one_of(
    path: &'static str,
    words: &'static [&'static str],
    default: &'static str,
) -> Key<String> {
    key(path, choice(words), default)
}

const fn one_of_aliased(
    path: &'static str,
    words: &'static [&'static str],
    aliases: &'static [(&'static str, &'static str)],
    default: &'static str,
) -> Key<String> {
    key(path, Kind::Choice { words, aliases }, default)
}

const fn int(path: &'static str, min: i64, max: i64, default: &'static str) -> Key<i64> {
    key(path, Kind::Int { min, max }, default)
}

const fn float(path: &'static str, min: f64, max: f64, default: &'static str) -> Key<f64> {
    key(path, Kind::Float { min, max }, default)
}

const fn list(path: &'static str, default: &'static str) -> Key<Vec<String>> {
    key(path, Kind::StrList, default)
}

/// A herdr key taw accepts and has no use for: no value is read from it.
const fn ignored(path: &'static str) -> Key<()> {
    key(path, Kind::Ignored, "")
}

/// Declares the typed key constants and [`KEYS`], the list of them all.
macro_rules! keys {
    ($($(#[$meta:meta])* $name:ident: $ty:ty = $key:expr;)*) => {
        $($(#[$meta])* pub const $name: Key<$ty> = $key;)*

        /// Every fixed key, in the file's order.
        pub(crate) const KEYS: &[KeySpec] = &[$($name.spec),*];
    };
}

pub(crate) const fn choice(words: &'static [&'static str]) -> Kind {
    Kind::Choice {
        words,
        aliases: &[],
    }
}

const POSITIONS4: &[&str] = &["top-left", "top-right", "bottom-left", "bottom-right"];
const POSITIONS6: &[&str] = &[
    "top-left",
    "top-center",
    "top-right",
    "bottom-left",
    "bottom-center",
    "bottom-right",
];

// The fixed keys: each a typed constant, which is how taw reads a value
// (`config.get(&UI_PREVIEW)`), and together `KEYS`, which is how the
// checker and the docs know them. A key no constant names cannot be read,
// so a typo is a compile error, not a silent default.
keys! {
    /// herdr's first-run screen; taw has none
    ONBOARDING: () = ignored("onboarding");
    // [terminal]
    /// shell for new panes (empty: tmux's default-shell)
    TERMINAL_DEFAULT_SHELL: String = text("terminal.default_shell", "\"\"");
    /// herdr's login-shell choice; tmux decides this for its own panes
    TERMINAL_SHELL_MODE: String = one_of(
        "terminal.shell_mode",
        &["auto", "login", "non_login"],
        "\"auto\"",
    );
    /// folder of new panes, tabs and workspaces made without --cwd: follow,
    /// home, current or a path
    TERMINAL_NEW_CWD: String = text("terminal.new_cwd", "\"follow\"");
    /// accepted and ignored: tmux draws no Kitty graphics in a pane
    TERMINAL_KITTY_GRAPHICS: () = ignored("terminal.kitty_graphics");
    // [update]
    /// herdr's remote detection-manifest updates; taw ships its manifests in
    /// the binary
    UPDATE_MANIFEST_CHECK: bool = flag("update.manifest_check", "true");
    /// herdr's update check; taw is updated by TPM (prefix + U)
    UPDATE_VERSION_CHECK: () = ignored("update.version_check");
    /// herdr's release channel; no effect in taw
    UPDATE_CHANNEL: String = one_of("update.channel", &["stable", "preview"], "\"stable\"");
    // [keys]
    /// the popup's base keymap: modal (vim-like) or search (type to filter)
    KEYS_PRESET: String = one_of("keys.preset", &["modal", "search"], "\"modal\"");
    /// herdr's prefix key; tmux's prefix is the one that counts
    KEYS_PREFIX: () = ignored("keys.prefix");
    // [ui]
    /// what the popup lists under a session: nothing, agent panes, or every
    /// pane
    UI_DEPTH: String = one_of("ui.depth", &["sessions", "agents", "all"], "\"agents\"");
    /// the popup as a tree (session, window, pane) or a flat list
    UI_LAYOUT: String = one_of("ui.layout", &["tree", "flat"], "\"tree\"");
    /// show the selected pane's screen in the popup
    UI_PREVIEW: bool = flag("ui.preview", "true");
    /// show each session's git branch and dirty mark in the popup
    UI_SHOW_GIT: bool = flag("ui.show_git", "true");
    /// also list project folders (the n picker's) under the sessions while
    /// filtering
    UI_PROJECTS_IN_FILTER: bool = flag("ui.projects_in_filter", "false");
    /// ask before closing from the popup
    UI_CONFIRM_CLOSE: bool = flag("ui.confirm_close", "true");
    /// order of agents in the flat list: by session, or most urgent first
    UI_AGENT_PANEL_SORT: String = one_of_aliased(
        "ui.agent_panel_sort",
        &["sessions", "attention"],
        &[("priority", "attention"), ("spaces", "sessions"), ("workspaces", "sessions")],
        "\"sessions\"",
    );
    /// state marks as dots or symbols
    UI_STATUS_INDICATORS: String = one_of(
        "ui.status_indicators",
        &["dots", "symbols"],
        "\"dots\"",
    );
    /// herdr's pane-border labels; see docs/STATUS-LINE.md for tmux's
    UI_SHOW_AGENT_LABELS_ON_PANE_BORDERS: bool = flag(
        "ui.show_agent_labels_on_pane_borders",
        "false",
    );
    /// herdr: ask a name for a new tab
    UI_PROMPT_NEW_TAB_NAME: bool = flag("ui.prompt_new_tab_name", "true");
    /// herdr: ask a name for a new workspace
    UI_PROMPT_NEW_WORKSPACE_NAME: bool = flag("ui.prompt_new_workspace_name", "false");
    /// herdr's sidebar width
    UI_SIDEBAR_WIDTH: i64 = int("ui.sidebar_width", 10, 200, "26");
    /// herdr's sidebar minimum width
    UI_SIDEBAR_MIN_WIDTH: i64 = int("ui.sidebar_min_width", 10, 200, "18");
    /// herdr's sidebar maximum width
    UI_SIDEBAR_MAX_WIDTH: i64 = int("ui.sidebar_max_width", 10, 200, "36");
    /// herdr's sidebar state at start
    UI_SIDEBAR_START_COLLAPSED: bool = flag("ui.sidebar_start_collapsed", "false");
    /// herdr's collapsed sidebar
    UI_SIDEBAR_COLLAPSED_MODE: String = one_of(
        "ui.sidebar_collapsed_mode",
        &["compact", "hidden"],
        "\"compact\"",
    );
    /// herdr's mouse capture; tmux's mouse option rules in tmux
    UI_MOUSE_CAPTURE: bool = flag("ui.mouse_capture", "true");
    /// herdr's copy on select; tmux's copy mode rules in tmux
    UI_COPY_ON_SELECT: bool = flag("ui.copy_on_select", "true");
    /// accepted and ignored
    UI_PANE_BORDERS: () = ignored("ui.pane_borders");
    // [ui.toast]
    /// herdr's background notifications; taw shows tmux messages (see
    /// done_delay_seconds)
    UI_TOAST_DELIVERY: String = one_of(
        "ui.toast.delivery",
        &["off", "herdr", "terminal", "system"],
        "\"off\"",
    );
    /// notify only when a state lasts this long
    UI_TOAST_DELAY_SECONDS: i64 = int("ui.toast.delay_seconds", 0, 3600, "1");
    /// seconds a done state waits before its toast
    UI_TOAST_DONE_DELAY_SECONDS: f64 = float("ui.toast.done_delay_seconds", 0.0, 3600.0, "5");
    /// herdr's toast corner
    UI_TOAST_HERDR_POSITION: String = one_of(
        "ui.toast.herdr.position",
        POSITIONS4,
        "\"bottom-right\"",
    );
    /// herdr's clipboard toast
    UI_TOAST_CLIPBOARD_ENABLED: bool = flag("ui.toast.clipboard.enabled", "true");
    /// herdr's clipboard toast position
    UI_TOAST_CLIPBOARD_POSITION: String = one_of(
        "ui.toast.clipboard.position",
        POSITIONS6,
        "\"bottom-center\"",
    );
    // [ui.sound]
    /// sounds for background state changes
    UI_SOUND_ENABLED: bool = flag("ui.sound.enabled", "true");
    /// a sound file for every notification (relative to the config folder)
    UI_SOUND_PATH: String = text("ui.sound.path", "");
    /// a sound file for done
    UI_SOUND_DONE_PATH: String = text("ui.sound.done_path", "");
    /// a sound file for an agent that needs you
    UI_SOUND_REQUEST_PATH: String = text("ui.sound.request_path", "");
    // [session]
    /// resume agents' sessions when a layout is restored
    SESSION_RESUME_AGENTS_ON_RESTORE: bool = flag("session.resume_agents_on_restore", "true");
    /// milliseconds between agent resumes in one restore; 0 starts them at once
    SESSION_STARTUP_PER_AGENT_DELAY_MS: i64 = int(
        "session.startup_per_agent_delay_ms",
        0,
        600_000,
        "100",
    );
    // [sessions] (taw)
    /// how a new session is named from its folder
    SESSIONS_NAME: String = one_of(
        "sessions.name",
        &["directory", "full-path", "short-path"],
        "\"directory\"",
    );
    /// list zoxide's folders in the new-session picker and add opened folders
    /// to zoxide
    SESSIONS_ZOXIDE: bool = flag("sessions.zoxide", "true");
    /// folders whose subfolders the new-session picker lists
    SESSIONS_PROJECT_DIRS: Vec<String> = list("sessions.project_dirs", "[]");
    /// command run as <hook> <session> <dir> before a session is made; non-zero
    /// refuses
    SESSIONS_PRE_CREATE_HOOK: String = text("sessions.pre_create_hook", "");
    /// command run as <hook> <session> <dir> after a session is made
    SESSIONS_POST_CREATE_HOOK: String = text("sessions.post_create_hook", "");
    /// how long a create hook, pre_close or pre_worktree_remove may run; 0: no
    /// limit
    SESSIONS_HOOK_TIMEOUT_SECONDS: f64 = float(
        "sessions.hook_timeout_seconds",
        0.0,
        3600.0,
        "10",
    );
    // [worktrees]
    /// root of <repo>/<branch> worktree checkouts
    WORKTREES_DIRECTORY: String = text("worktrees.directory", "\"~/.herdr/worktrees\"");
    // [server]
    /// herdr's headless server size; tmux sizes its own windows
    SERVER_HEADLESS_COLS: () = ignored("server.headless_cols");
    /// herdr's headless server size; tmux sizes its own windows
    SERVER_HEADLESS_ROWS: () = ignored("server.headless_rows");
    /// herdr keeps a client's size; tmux's window-size option rules in tmux
    SERVER_REMEMBER_CLIENT_SIZE: () = ignored("server.remember_client_size");
    /// herdr 0.9.4, Windows only: unelevated clients of an elevated server
    SERVER_ALLOW_UNELEVATED_CLIENTS: () = ignored("server.allow_unelevated_clients");
    // [advanced]
    /// herdr's scrollback size; tmux's history-limit rules in tmux
    ADVANCED_SCROLLBACK_LIMIT_BYTES: () = ignored("advanced.scrollback_limit_bytes");
    // [experimental] (herdr's pane_history is no key of taw's: a restore
    // shows no saved screen, so config check names it unknown)
    /// herdr inside herdr; no meaning in tmux
    EXPERIMENTAL_ALLOW_NESTED: () = ignored("experimental.allow_nested");
    /// accepted and ignored
    EXPERIMENTAL_KITTY_GRAPHICS: () = ignored("experimental.kitty_graphics");
    // [detection] (taw)
    /// add taw's own detection rules to the bundled manifests
    DETECTION_SUPPLEMENTS: bool = flag("detection.supplements", "true");
    // [plugins] (taw)
    /// the herdr version plugins' min_herdr_version is checked against
    PLUGINS_COMPAT_HERDR_VERSION: String = text("plugins.compat_herdr_version", "\"0.9.5\"");
    // [hooks] (taw)
    /// how long an event hook may run before taw stops it; 0: no limit
    HOOKS_TIMEOUT_SECONDS: f64 = float("hooks.timeout_seconds", 0.0, 3600.0, "30");
    // [sandbox] (taw)
    /// the agent `taw sandbox` runs when none is named
    SANDBOX_AGENT: String = text("sandbox.agent", "\"claude\"");
    /// the container runtime: auto (Docker, else Podman), or a program's name
    SANDBOX_RUNTIME: String = text("sandbox.runtime", "\"auto\"");
    /// the image taw's default profile runs (empty: one it builds per agent)
    SANDBOX_IMAGE: String = text("sandbox.image", "\"\"");
    /// whether taw's default profile gives the container a network
    SANDBOX_NETWORK: String = one_of("sandbox.network", &["on", "off"], "\"on\"");
    /// more variables taw's default profile passes in, by name
    SANDBOX_ENV: Vec<String> = list("sandbox.env", "[]");
}

/// Tables whose keys are names the user chooses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Dynamic {
    /// `[keys]`: an action name = a key spec or a list of them.
    KeyBindings,
    /// `[[keys.command]]`: custom commands.
    KeyCommands,
    /// `[hooks]`: an event name = a command line or a list of them.
    Hooks,
    /// `[machines]`: name = "ssh destination", or `[machines.name]` with ssh and taw.
    Machines,
    /// `[ui.sound.agents]`: agent = default | on | off.
    SoundAgents,
    /// `[sandbox.agents]`: agent = profile name.
    SandboxAgents,
    /// `[ui.sidebar.agents]`, `[ui.sidebar.sessions]`: row token rules.
    Sidebar,
    /// `[theme]`: herdr's theme; accepted as written.
    Theme,
    /// `[remote]`: herdr's remote settings; accepted as written.
    Remote,
}

/// A table whose keys are names the user chooses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Table {
    pub path: &'static str,
    pub kind: Dynamic,
}

pub(crate) const KEY_BINDINGS: Table = Table {
    path: "keys",
    kind: Dynamic::KeyBindings,
};
pub(crate) const KEY_COMMANDS: Table = Table {
    path: "keys.command",
    kind: Dynamic::KeyCommands,
};
pub(crate) const HOOKS: Table = Table {
    path: "hooks",
    kind: Dynamic::Hooks,
};
pub(crate) const MACHINES: Table = Table {
    path: "machines",
    kind: Dynamic::Machines,
};
pub(crate) const SOUND_AGENTS_TABLE: Table = Table {
    path: "ui.sound.agents",
    kind: Dynamic::SoundAgents,
};
pub(crate) const SANDBOX_AGENTS: Table = Table {
    path: "sandbox.agents",
    kind: Dynamic::SandboxAgents,
};
pub(crate) const SIDEBAR_AGENTS: Table = Table {
    path: "ui.sidebar.agents",
    kind: Dynamic::Sidebar,
};
pub(crate) const SIDEBAR_SESSIONS: Table = Table {
    path: "ui.sidebar.sessions",
    kind: Dynamic::Sidebar,
};
pub(crate) const THEME: Table = Table {
    path: "theme",
    kind: Dynamic::Theme,
};
pub(crate) const REMOTE: Table = Table {
    path: "remote",
    kind: Dynamic::Remote,
};

pub(crate) const DYNAMIC: &[Table] = &[
    KEY_BINDINGS,
    KEY_COMMANDS,
    HOOKS,
    MACHINES,
    SOUND_AGENTS_TABLE,
    SANDBOX_AGENTS,
    SIDEBAR_AGENTS,
    SIDEBAR_SESSIONS,
    THEME,
    REMOTE,
];

/// Table names read as another: herdr's spelling → taw's.
pub(crate) const TABLE_ALIASES: &[(&str, &str)] = &[("ui.sidebar.spaces", "ui.sidebar.sessions")];

/// The popup's actions, each a `[keys]` entry.
pub(crate) const ACTIONS: &[&str] = &[
    "go",
    "filter",
    "next_up",
    "rename",
    "close",
    "new_session",
    "help",
    "quit",
    "up",
    "down",
    "top",
    "bottom",
    "expand",
    "collapse",
    "toggle_preview",
    "next_session",
    "previous_session",
    "options",
    "paste_image",
];

/// herdr's spellings of popup actions.
pub(crate) const ACTION_ALIASES: &[(&str, &str)] = &[
    ("goto", "filter"),
    ("workspace_picker", "filter"),
    ("new_workspace", "new_session"),
    ("rename_workspace", "rename"),
    ("close_workspace", "close"),
    ("next_workspace", "next_session"),
    ("previous_workspace", "previous_session"),
    ("settings", "options"),
];

/// herdr actions whose job tmux's own keys do; accepted without effect.
pub(crate) const HERDR_ONLY_ACTIONS: &[&str] = &[
    "new_tab",
    "split_vertical",
    "split_horizontal",
    "close_pane",
    "zoom",
    "detach",
    "reload_config",
    "previous_agent",
    "next_agent",
    "focus_agent",
    "switch_tab",
    "previous_tab",
    "next_tab",
    "close_tab",
    "rename_tab",
    "copy_mode",
    "toggle_sidebar",
    "focus_left",
    "focus_right",
    "focus_up",
    "focus_down",
    "resize_left",
    "resize_right",
    "resize_up",
    "resize_down",
    "clear_pane",
    "edit_scrollback",
];

/// Agents `[ui.sound.agents]` knows (herdr's keys).
pub(crate) const SOUND_AGENTS: &[&str] = &[
    "pi",
    "claude",
    "codex",
    "gemini",
    "cursor",
    "devin",
    "agy",
    "cline",
    "open_code",
    "github_copilot",
    "kimi",
    "kiro",
    "droid",
    "amp",
    "grok",
    "hermes",
    "kilo",
    "qodercli",
    "maki",
];

/// Sidebar row tokens.
pub(crate) const AGENT_TOKENS: &[&str] = &[
    "state_icon",
    "state_text",
    "workspace",
    "tab",
    "pane",
    "agent",
    "terminal_title",
    "terminal_title_stripped",
];
pub(crate) const SESSION_TOKENS: &[&str] = &[
    "state_icon",
    "state_text",
    "workspace",
    "branch",
    "git_status",
];

pub(crate) fn spec(path: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|spec| spec.path == path)
}

pub(crate) fn dynamic(path: &str) -> Option<Dynamic> {
    DYNAMIC
        .iter()
        .find(|table| table.path == path)
        .map(|table| table.kind)
}

/// Whether `path` is a table that holds fixed keys (`ui`, `ui.toast`...).
pub(crate) fn is_fixed_table(path: &str) -> bool {
    KEYS.iter().any(|spec| {
        spec.path
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with('.'))
    })
}

pub(crate) fn table_alias(path: &str) -> &str {
    TABLE_ALIASES
        .iter()
        .find(|(alias, _)| *alias == path)
        .map(|(_, real)| *real)
        .unwrap_or(path)
}

pub(crate) fn action_alias(name: &str) -> &str {
    ACTION_ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map(|(_, real)| *real)
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/CONFIG.md names every key, event, veto hook and popup action.
    #[test]
    fn every_config_key_is_in_config_md() {
        let doc = include_str!("../../docs/CONFIG.md");
        for key in KEYS {
            assert!(
                doc.contains(&format!("`{}`", key.path)),
                "{} missing",
                key.path
            );
        }
        let hook_names = crate::events::events()
            .chain(crate::events::vetoes())
            .map(|def| def.name);
        for name in hook_names.chain(ACTIONS.iter().copied()) {
            assert!(doc.contains(&format!("`{name}`")), "{name} missing");
        }
    }

    #[test]
    fn typed_keys_are_in_the_list() {
        assert!(KEYS.iter().any(|k| k.path == UI_PREVIEW.spec.path));
        assert_eq!(spec("ui.toast.done_delay_seconds").unwrap().default, "5");
    }
}
