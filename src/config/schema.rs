//! Every key `config.toml` may hold: herdr's own (v0.8.2 and the later ones
//! the spec names) and taw's, with type, default and range. `docs/CONFIG.md`
//! documents the same keys; a test keeps the two in step.

/// What a key's value must be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
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
    /// A colour, `#RGB` or `#RRGGBB`.
    Color,
    /// A herdr key that taw reads but has no use for: accepted, no check.
    Ignored,
}

#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    /// Dotted path: `ui.toast.done_delay_seconds`.
    pub path: &'static str,
    pub kind: Kind,
    /// The default, as written in TOML (empty: unset).
    pub default: &'static str,
    pub doc: &'static str,
}

const fn key(path: &'static str, kind: Kind, default: &'static str, doc: &'static str) -> KeySpec {
    KeySpec {
        path,
        kind,
        default,
        doc,
    }
}

pub const fn choice(words: &'static [&'static str]) -> Kind {
    Kind::Choice {
        words,
        aliases: &[],
    }
}

const BOOL: Kind = Kind::Bool;
const STR: Kind = Kind::Str;
const IGNORED: Kind = Kind::Ignored;
const POSITIONS4: &[&str] = &["top-left", "top-right", "bottom-left", "bottom-right"];
const POSITIONS6: &[&str] = &[
    "top-left",
    "top-center",
    "top-right",
    "bottom-left",
    "bottom-center",
    "bottom-right",
];

/// The fixed keys.
pub const KEYS: &[KeySpec] = &[
    key(
        "onboarding",
        IGNORED,
        "",
        "herdr's first-run screen; taw has none",
    ),
    // [terminal]
    key(
        "terminal.default_shell",
        STR,
        "\"\"",
        "shell for new panes (empty: tmux's default-shell)",
    ),
    key(
        "terminal.shell_mode",
        choice(&["auto", "login", "non_login"]),
        "\"auto\"",
        "herdr's login-shell choice; tmux decides this for its own panes",
    ),
    key(
        "terminal.new_cwd",
        STR,
        "\"follow\"",
        "folder of new panes, tabs and workspaces made without --cwd: follow, home, current or a path",
    ),
    key(
        "terminal.kitty_graphics",
        IGNORED,
        "",
        "accepted and ignored: tmux draws no Kitty graphics in a pane",
    ),
    // [update]
    key(
        "update.manifest_check",
        BOOL,
        "true",
        "herdr's remote detection-manifest updates; taw ships its manifests in the binary",
    ),
    key(
        "update.version_check",
        IGNORED,
        "",
        "herdr's update check; taw is updated by TPM (prefix + U)",
    ),
    key(
        "update.channel",
        choice(&["stable", "preview"]),
        "\"stable\"",
        "herdr's release channel; no effect in taw",
    ),
    // [keys]
    key(
        "keys.preset",
        choice(&["modal", "search"]),
        "\"modal\"",
        "the popup's base keymap: modal (vim-like) or search (type to filter)",
    ),
    key(
        "keys.prefix",
        IGNORED,
        "",
        "herdr's prefix key; tmux's prefix is the one that counts",
    ),
    // [ui]
    key(
        "ui.depth",
        choice(&["sessions", "agents", "all"]),
        "\"agents\"",
        "what the popup lists under a session: nothing, agent panes, or every pane",
    ),
    key(
        "ui.layout",
        choice(&["tree", "flat"]),
        "\"tree\"",
        "the popup as a tree (session, window, pane) or a flat list",
    ),
    key(
        "ui.preview",
        BOOL,
        "true",
        "show the selected pane's screen in the popup",
    ),
    key(
        "ui.show_git",
        BOOL,
        "true",
        "show each session's git branch and dirty mark in the popup",
    ),
    key(
        "ui.projects_in_filter",
        BOOL,
        "false",
        "also list project folders (the n picker's) under the sessions while filtering",
    ),
    key(
        "ui.confirm_close",
        BOOL,
        "true",
        "ask before closing from the popup",
    ),
    key(
        "ui.agent_panel_sort",
        Kind::Choice {
            words: &["sessions", "attention"],
            aliases: &[
                ("priority", "attention"),
                ("spaces", "sessions"),
                ("workspaces", "sessions"),
            ],
        },
        "\"sessions\"",
        "order of agents in the flat list: by session, or most urgent first",
    ),
    key(
        "ui.status_indicators",
        choice(&["dots", "symbols"]),
        "\"dots\"",
        "state marks as dots or symbols",
    ),
    key(
        "ui.show_agent_labels_on_pane_borders",
        BOOL,
        "false",
        "herdr's pane-border labels; see docs/STATUS-LINE.md for tmux's",
    ),
    key(
        "ui.prompt_new_tab_name",
        BOOL,
        "true",
        "herdr: ask a name for a new tab",
    ),
    key(
        "ui.prompt_new_workspace_name",
        BOOL,
        "false",
        "herdr: ask a name for a new workspace",
    ),
    key(
        "ui.sidebar_width",
        Kind::Int { min: 10, max: 200 },
        "26",
        "herdr's sidebar width",
    ),
    key(
        "ui.sidebar_min_width",
        Kind::Int { min: 10, max: 200 },
        "18",
        "herdr's sidebar minimum width",
    ),
    key(
        "ui.sidebar_max_width",
        Kind::Int { min: 10, max: 200 },
        "36",
        "herdr's sidebar maximum width",
    ),
    key(
        "ui.sidebar_start_collapsed",
        BOOL,
        "false",
        "herdr's sidebar state at start",
    ),
    key(
        "ui.sidebar_collapsed_mode",
        choice(&["compact", "hidden"]),
        "\"compact\"",
        "herdr's collapsed sidebar",
    ),
    key(
        "ui.mouse_capture",
        BOOL,
        "true",
        "herdr's mouse capture; tmux's mouse option rules in tmux",
    ),
    key(
        "ui.copy_on_select",
        BOOL,
        "true",
        "herdr's copy on select; tmux's copy mode rules in tmux",
    ),
    key("ui.pane_borders", IGNORED, "", "accepted and ignored"),
    // [ui.toast]
    key(
        "ui.toast.delivery",
        choice(&["off", "herdr", "terminal", "system"]),
        "\"off\"",
        "herdr's background notifications; taw shows tmux messages (see done_delay_seconds)",
    ),
    key(
        "ui.toast.delay_seconds",
        Kind::Int { min: 0, max: 3600 },
        "1",
        "notify only when a state lasts this long",
    ),
    key(
        "ui.toast.done_delay_seconds",
        Kind::Float {
            min: 0.0,
            max: 3600.0,
        },
        "5",
        "seconds a done state waits before its toast",
    ),
    key(
        "ui.toast.herdr.position",
        choice(POSITIONS4),
        "\"bottom-right\"",
        "herdr's toast corner",
    ),
    key(
        "ui.toast.clipboard.enabled",
        BOOL,
        "true",
        "herdr's clipboard toast",
    ),
    key(
        "ui.toast.clipboard.position",
        choice(POSITIONS6),
        "\"bottom-center\"",
        "herdr's clipboard toast position",
    ),
    // [ui.sound]
    key(
        "ui.sound.enabled",
        BOOL,
        "true",
        "sounds for background state changes",
    ),
    key(
        "ui.sound.path",
        STR,
        "",
        "a sound file for every notification (relative to the config folder)",
    ),
    key("ui.sound.done_path", STR, "", "a sound file for done"),
    key(
        "ui.sound.request_path",
        STR,
        "",
        "a sound file for an agent that needs you",
    ),
    // [session]
    key(
        "session.resume_agents_on_restore",
        BOOL,
        "true",
        "resume agents' sessions when a layout is restored",
    ),
    key(
        "session.startup_per_agent_delay_ms",
        Kind::Int {
            min: 0,
            max: 600_000,
        },
        "100",
        "milliseconds between agent resumes in one restore; 0 starts them at once",
    ),
    // [sessions] (taw)
    key(
        "sessions.name",
        choice(&["directory", "full-path", "short-path"]),
        "\"directory\"",
        "how a new session is named from its folder",
    ),
    key(
        "sessions.zoxide",
        BOOL,
        "true",
        "list zoxide's folders in the new-session picker and add opened folders to zoxide",
    ),
    key(
        "sessions.project_dirs",
        Kind::StrList,
        "[]",
        "folders whose subfolders the new-session picker lists",
    ),
    key(
        "sessions.pre_create_hook",
        STR,
        "",
        "command run as <hook> <session> <dir> before a session is made; non-zero refuses",
    ),
    key(
        "sessions.post_create_hook",
        STR,
        "",
        "command run as <hook> <session> <dir> after a session is made",
    ),
    key(
        "sessions.hook_timeout_seconds",
        Kind::Float {
            min: 0.0,
            max: 3600.0,
        },
        "10",
        "how long a create hook, pre_close or pre_worktree_remove may run; 0: no limit",
    ),
    // [worktrees]
    key(
        "worktrees.directory",
        STR,
        "\"~/.herdr/worktrees\"",
        "root of <repo>/<branch> worktree checkouts",
    ),
    // [advanced]
    key(
        "advanced.scrollback_limit_bytes",
        IGNORED,
        "",
        "herdr's scrollback size; tmux's history-limit rules in tmux",
    ),
    // [experimental]
    key(
        "experimental.pane_history",
        BOOL,
        "false",
        "save each pane's screen with a session layout",
    ),
    key(
        "experimental.allow_nested",
        IGNORED,
        "",
        "herdr inside herdr; no meaning in tmux",
    ),
    key(
        "experimental.kitty_graphics",
        IGNORED,
        "",
        "accepted and ignored",
    ),
    // [detection] (taw)
    key(
        "detection.supplements",
        BOOL,
        "true",
        "add taw's own detection rules to the bundled manifests",
    ),
    // [plugins] (taw)
    key(
        "plugins.compat_herdr_version",
        STR,
        "\"0.9.3\"",
        "the herdr version plugins' min_herdr_version is checked against",
    ),
    // [hooks] (taw)
    key(
        "hooks.timeout_seconds",
        Kind::Float {
            min: 0.0,
            max: 3600.0,
        },
        "30",
        "how long an event hook may run before taw stops it; 0: no limit",
    ),
];

/// Tables whose keys are names the user chooses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dynamic {
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

pub const DYNAMIC: &[(&str, Dynamic)] = &[
    ("keys", Dynamic::KeyBindings),
    ("keys.command", Dynamic::KeyCommands),
    ("hooks", Dynamic::Hooks),
    ("machines", Dynamic::Machines),
    ("ui.sound.agents", Dynamic::SoundAgents),
    ("sandbox.agents", Dynamic::SandboxAgents),
    ("ui.sidebar.agents", Dynamic::Sidebar),
    ("ui.sidebar.sessions", Dynamic::Sidebar),
    ("theme", Dynamic::Theme),
    ("remote", Dynamic::Remote),
];

/// Table names read as another: herdr's spelling → taw's.
pub const TABLE_ALIASES: &[(&str, &str)] = &[("ui.sidebar.spaces", "ui.sidebar.sessions")];

/// The popup's actions, each a `[keys]` entry.
pub const ACTIONS: &[&str] = &[
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
];

/// herdr's spellings of popup actions.
pub const ACTION_ALIASES: &[(&str, &str)] = &[
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
pub const HERDR_ONLY_ACTIONS: &[&str] = &[
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

/// The event names `[hooks]` hears: herdr's 19 and taw's own.
pub const HOOK_EVENTS: &[&str] = &[
    "workspace.created",
    "workspace.updated",
    "workspace.closed",
    "workspace.renamed",
    "workspace.focused",
    "worktree.created",
    "worktree.opened",
    "worktree.removed",
    "tab.created",
    "tab.closed",
    "tab.renamed",
    "tab.focused",
    "pane.created",
    "pane.closed",
    "pane.focused",
    "pane.moved",
    "pane.exited",
    "pane.agent_detected",
    "pane.agent_status_changed",
    "pane.updated",
    "layout.updated",
    "agent.blocked",
    "agent.working",
    "agent.idle",
    "agent.done",
    "sandbox.started",
    "sandbox.stopped",
    "notification",
];

/// `[hooks]` names that are asked before an action and can refuse it.
pub const VETO_HOOKS: &[&str] = &["pre_close", "pre_worktree_remove"];

/// Agents `[ui.sound.agents]` knows (herdr's keys).
pub const SOUND_AGENTS: &[&str] = &[
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
pub const AGENT_TOKENS: &[&str] = &[
    "state_icon",
    "state_text",
    "workspace",
    "tab",
    "pane",
    "agent",
    "terminal_title",
    "terminal_title_stripped",
];
pub const SESSION_TOKENS: &[&str] = &[
    "state_icon",
    "state_text",
    "workspace",
    "branch",
    "git_status",
];

pub fn spec(path: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|spec| spec.path == path)
}

pub fn dynamic(path: &str) -> Option<Dynamic> {
    DYNAMIC
        .iter()
        .find(|(table, _)| *table == path)
        .map(|(_, kind)| *kind)
}

/// Whether `path` is a table that holds fixed keys (`ui`, `ui.toast`...).
pub fn is_fixed_table(path: &str) -> bool {
    KEYS.iter().any(|spec| {
        spec.path
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with('.'))
    })
}

pub fn table_alias(path: &str) -> &str {
    TABLE_ALIASES
        .iter()
        .find(|(alias, _)| *alias == path)
        .map(|(_, real)| *real)
        .unwrap_or(path)
}

pub fn action_alias(name: &str) -> &str {
    ACTION_ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map(|(_, real)| *real)
        .unwrap_or(name)
}
