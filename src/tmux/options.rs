//! Every tmux option taw reads or writes, by name, in one place.
//!
//! Three kinds: the `@agent-wizard-*` options a user sets in tmux.conf to
//! configure the plugin; the `@agent_wizard_*` global options taw keeps its
//! own bookkeeping in; and the `@agent_*` pane options that say what runs in
//! a pane, which the status line and other tools may read.

/// A user-facing plugin option and its default.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PluginOption {
    pub name: &'static str,
    /// What `taw tmux load` sets when the user set nothing. Empty for an
    /// option taw only reads (it is then never set for the user).
    pub default: &'static str,
    pub kind: OptionKind,
}

/// What an option's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OptionKind {
    /// A tmux key for a prefix binding; empty for none.
    Key,
    /// on or off (tmux's spellings: on, off, yes, no, 1, 0, true, false).
    OnOff,
    /// A number of cells, or a percentage (`90%`).
    Size,
    /// Anything: a path, a command, a format.
    Text,
    /// A number of seconds from 0 to 3600 (`5`, `2.5`).
    Seconds,
}

impl PluginOption {
    /// Why `value` is no good for this option, in words, or `None`.
    pub(crate) fn refuse(&self, value: &str) -> Option<String> {
        let value = value.trim();
        match self.kind {
            OptionKind::Key if !value.is_empty() && !crate::tmux::keys::is_tmux_key(value) => Some(
                "is not a tmux key (a, C-a, M-x, F5, Tab...), so no key was bound for it".into(),
            ),
            OptionKind::OnOff
                if !matches!(
                    value.to_ascii_lowercase().as_str(),
                    "on" | "off" | "yes" | "no" | "1" | "0" | "true" | "false"
                ) =>
            {
                Some(format!(
                    "is neither on nor off, so taw uses {}",
                    self.default
                ))
            }
            OptionKind::Size => {
                let number = value.strip_suffix('%').unwrap_or(value);
                match number.parse::<u32>() {
                    Ok(n) if n > 0 => None,
                    _ => Some(format!(
                        "is not a number of cells or a percentage (80, 90%), so taw uses {}",
                        self.default
                    )),
                }
            }
            OptionKind::Seconds if seconds(value).is_none() => Some(format!(
                "is not a number of seconds from 0 to 3600, so taw uses {}",
                self.default
            )),
            _ => None,
        }
    }
}

/// A number of seconds from 0 to 3600.
fn seconds(value: &str) -> Option<f64> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| (0.0..=3600.0).contains(n))
}

/// A seconds option's value in milliseconds, its default's for a value
/// that is no such number (as the load said).
pub(crate) fn seconds_ms(name: &str, value: &str) -> u32 {
    let default = plugin_option(name).map(|o| o.default).unwrap_or("0");
    let seconds = seconds(value).or_else(|| seconds(default)).unwrap_or(0.0);
    (seconds * 1000.0).round() as u32
}

pub(crate) const BIN: &str = "@agent-wizard-bin";
pub(crate) const PATH: &str = "@agent-wizard-path";
pub(crate) const LOGIN_LINK: &str = "@agent-wizard-login-link";
pub(crate) const HERDR_ENV: &str = "@agent-wizard-herdr-env";
pub(crate) const KEY: &str = "@agent-wizard-key";
pub(crate) const NOTIFICATION_KEY: &str = "@agent-wizard-notification-key";
pub(crate) const CLEAR_KEY: &str = "@agent-wizard-clear-key";
pub(crate) const POPUP_WIDTH: &str = "@agent-wizard-popup-width";
pub(crate) const POPUP_HEIGHT: &str = "@agent-wizard-popup-height";
pub(crate) const SOUND_COMMAND: &str = "@agent-wizard-sound-command";
pub(crate) const NOTIFY: &str = "@agent-wizard-notify";
pub(crate) const TOAST_SECONDS: &str = "@agent-wizard-toast-seconds";
pub(crate) const BELL: &str = "@agent-wizard-bell";
pub(crate) const DESKTOP: &str = "@agent-wizard-desktop";
pub(crate) const DOWNLOAD: &str = "@agent-wizard-download";
pub(crate) const DOWNLOAD_URL: &str = "@agent-wizard-download-url";
/// Where the entry script downloads releases from by default (the
/// script has the same): `<this>/v<version>/taw-<version>-<target>.tar.gz`.
pub(crate) const DEFAULT_DOWNLOAD_URL: &str =
    "https://github.com/tmux-agent-wizard/tmux-agent-wizard/releases/download";
pub(crate) const WINDOW_STATUS: &str = "@agent-wizard-window-status";
pub(crate) const STATUS_SUMMARY: &str = "@agent-wizard-status-summary";
pub(crate) const WINDOW_MARK: &str = "@agent-wizard-window-mark";
pub(crate) const SUMMARY: &str = "@agent-wizard-summary";
pub(crate) const AUTOSAVE: &str = "@agent-wizard-autosave";
pub(crate) const RESTORE_ON_START: &str = "@agent-wizard-restore-on-start";
pub(crate) const WEB: &str = "@agent-wizard-web";
pub(crate) const WEB_LISTEN: &str = "@agent-wizard-web-listen";

/// Stands for a default that is a format built in `status.rs`
/// (the status module builds it).
pub(crate) const BUILT_FORMAT: &str = "(built-in format)";

/// Every `@agent-wizard-*` option. `docs/OPTIONS.md` lists the same, and a
/// test keeps the two in step.
pub(crate) const PLUGIN_OPTIONS: &[PluginOption] = &[
    // the taw binary to run; empty: the plugin's own build or download,
    // else taw on PATH
    PluginOption {
        name: BIN,
        default: "",
        kind: OptionKind::Text,
    },
    // download the release of the checkout's version when there is no
    // binary of it (on/off); the entry script reads it
    PluginOption {
        name: DOWNLOAD,
        default: "on",
        kind: OptionKind::OnOff,
    },
    // where releases are downloaded from
    PluginOption {
        name: DOWNLOAD_URL,
        default: DEFAULT_DOWNLOAD_URL,
        kind: OptionKind::Text,
    },
    // put taw's bin folder in front of tmux's global PATH (on/off)
    PluginOption {
        name: PATH,
        default: "on",
        kind: OptionKind::OnOff,
    },
    // link taw into a folder login shells keep on PATH (~/.local/bin)
    // (on/off)
    PluginOption {
        name: LOGIN_LINK,
        default: "on",
        kind: OptionKind::OnOff,
    },
    // give new panes herdr's HERDR_ENV, HERDR_BIN_PATH and HERDR_PANE_ID
    // (on/off)
    PluginOption {
        name: HERDR_ENV,
        default: "off",
        kind: OptionKind::OnOff,
    },
    // save the layout (taw session save) whenever a window, pane or name
    // changes (on/off)
    PluginOption {
        name: AUTOSAVE,
        default: "on",
        kind: OptionKind::OnOff,
    },
    // restore the saved layout (taw session restore) when the plugin first
    // loads into a tmux server (on/off)
    PluginOption {
        name: RESTORE_ON_START,
        default: "off",
        kind: OptionKind::OnOff,
    },
    // serve the web state API and the phone page (taw web) while the tmux
    // server runs (on/off)
    PluginOption {
        name: WEB,
        default: "off",
        kind: OptionKind::OnOff,
    },
    // the address taw web listens on when the plugin starts it
    PluginOption {
        name: WEB_LISTEN,
        default: "127.0.0.1:8787",
        kind: OptionKind::Text,
    },
    // prefix key that opens the popup: every session, window and agent (empty:
    // not bound)
    PluginOption {
        name: KEY,
        default: "a",
        kind: OptionKind::Key,
    },
    // prefix key that goes to the next agent that needs you, else the next
    // agent (empty: not bound)
    PluginOption {
        name: NOTIFICATION_KEY,
        default: "Tab",
        kind: OptionKind::Key,
    },
    // prefix key that clears the pane's history, and its screen when its shell
    // is at its prompt (empty: not bound)
    PluginOption {
        name: CLEAR_KEY,
        default: "",
        kind: OptionKind::Key,
    },
    // the popup's width: a percentage of the client's, or a number of columns
    PluginOption {
        name: POPUP_WIDTH,
        default: "90%",
        kind: OptionKind::Size,
    },
    // the popup's height: a percentage of the client's, or a number of lines
    PluginOption {
        name: POPUP_HEIGHT,
        default: "85%",
        kind: OptionKind::Size,
    },
    // add each window's agent mark to the window list (on/off)
    PluginOption {
        name: WINDOW_STATUS,
        default: "on",
        kind: OptionKind::OnOff,
    },
    // add the agents summary to the left of status-right (on/off)
    PluginOption {
        name: STATUS_SUMMARY,
        default: "on",
        kind: OptionKind::OnOff,
    },
    // the format of a window's mark: the most urgent state of its agents
    PluginOption {
        name: WINDOW_MARK,
        default: BUILT_FORMAT,
        kind: OptionKind::Text,
    },
    // the format of the summary: agents that need you, work, are done
    PluginOption {
        name: SUMMARY,
        default: BUILT_FORMAT,
        kind: OptionKind::Text,
    },
    // show a message on the attached clients when an agent you are not looking
    // at needs you or is done (on/off)
    PluginOption {
        name: NOTIFY,
        default: "on",
        kind: OptionKind::OnOff,
    },
    // how long a notification's message stays on the status line, in
    // seconds (0: tmux's display-time)
    PluginOption {
        name: TOAST_SECONDS,
        default: "5",
        kind: OptionKind::Seconds,
    },
    // ring the client's bell when an agent needs you (on/off)
    PluginOption {
        name: BELL,
        default: "off",
        kind: OptionKind::OnOff,
    },
    // a desktop notification too (notify-send, terminal-notifier or
    // osascript); a click goes to the pane where the platform allows it
    // (on/off)
    PluginOption {
        name: DESKTOP,
        default: "off",
        kind: OptionKind::OnOff,
    },
    // a shell command run on each notification, with TAW_KIND (request or
    // done), TAW_MESSAGE and TAW_PANE set
    PluginOption {
        name: SOUND_COMMAND,
        default: "",
        kind: OptionKind::Text,
    },
];

/// An on/off option's value as taw acts on it: a value that is neither on
/// nor off is its default, as the load said (`PluginOption::refuse`).
pub(crate) fn on_off(name: &str, value: &str) -> bool {
    match plugin_option(name) {
        Some(option) if option.refuse(value).is_some() => is_on(option.default),
        _ => is_on(value),
    }
}

/// The plugin option called `name`, if it is one.
pub(crate) fn plugin_option(name: &str) -> Option<&'static PluginOption> {
    PLUGIN_OPTIONS.iter().find(|option| option.name == name)
}

/// Whether an on/off option's value means on. tmux's own flag spellings.
pub(crate) fn is_on(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "on" | "1" | "yes" | "true"
    )
}

/// Global options taw keeps for itself while loaded.
pub(crate) mod bookkeeping {
    /// Where a person went in the last `taw machine attach` to this
    /// server that ended (JSON: holder, pane, go, at): the feed's `left`.
    pub(crate) const LEFT: &str = "@agent_wizard_left";
    /// taw app's walk, as its feed here last heard it (JSON: you, stops,
    /// holder, at): the notification key of the app's attach follows it.
    pub(crate) const WALK: &str = "@agent_wizard_walk";
    /// The client of the last `taw machine attach` to this server (JSON:
    /// tty, holder): the one the walk is for.
    pub(crate) const ENTERED: &str = "@agent_wizard_entered";
    /// When a worktree was last removed here (Unix ms): the feed reads
    /// the worktrees again.
    pub(crate) const WORKTREES_CHANGED: &str = "@agent_wizard_worktrees_changed";
    /// The stop on another machine the walk's next took the person to,
    /// for the attach's end to tell the app.
    pub(crate) const HOP: &str = "@agent_wizard_hop";
    /// The taw version and binary that loaded the plugin.
    pub(crate) const LOADED: &str = "@agent_wizard_loaded";
    /// The plugin options taw gave a default, a name a line.
    pub(crate) const DEFAULTS_SET: &str = "@agent_wizard_defaults_set";
    /// The folder taw put in front of tmux's global PATH.
    pub(crate) const PATH_DIR: &str = "@agent_wizard_path_dir";
    /// Set while taw's herdr variables are in tmux's global environment.
    pub(crate) const HERDR_ENV_SET: &str = "@agent_wizard_herdr_env_set";
    /// A digest of the tmux hooks the last load set: a reload that would
    /// set the same ones leaves them.
    pub(crate) const HOOKS_SET: &str = "@agent_wizard_hooks_set";

    /// Moved by `taw config reload`; long-lived taw processes read the
    /// config again when it moves.
    pub(crate) const CONFIG_STAMP: &str = "@agent_wizard_config_stamp";

    /// The format options taw added its status marks to, a name a line.
    pub(crate) const STATUS_SET: &str = "@agent_wizard_status_set";
    /// The bindings a key taw was told to take had before (JSON: key to
    /// its `list-keys` line and note), given back when taw lets it go.
    pub(crate) const FORMER_KEYS: &str = "@agent_wizard_former_keys";

    /// The pane roster, `%N:$S` words: the panes taw knew of, from which
    /// a close is told (tmux names no killed pane). Kept only while
    /// something listens to pane.closed or pane.exited.
    pub(crate) const PANES: &str = "@agent_wizard_panes";
    /// How many times the roster was written: a writer's write lands only
    /// if it is still what the writer read.
    pub(crate) const PANES_GENERATION: &str = "@agent_wizard_panes_generation";
    /// Set when the roster was first made the live panes (at load): the
    /// hooks that add a pane count their writes too, so a count alone
    /// does not say a roster was started.
    pub(crate) const PANES_STARTED: &str = "@agent_wizard_panes_started";
    /// `%N` words of panes whose process exited (pane-exited), so no
    /// detection reads their going as a close.
    pub(crate) const EXITED: &str = "@agent_wizard_exited";
    /// The tab roster, `@W:$S/` words: the windows known linked into each
    /// session, so a window a move links again into its own session is
    /// not taken for a new tab. Kept while something listens to
    /// tab.created; the newest [`super::super::roster::TABS_KEPT`] bytes.
    pub(crate) const TABS: &str = "@agent_wizard_tabs";
    /// `<pid> <unix ms>` of a restore that runs: autosave waits for it.
    pub(crate) const RESTORING: &str = "@agent_wizard_restoring";
    /// Set while an autosave is asked for: the changes of a burst start
    /// no second one (saves themselves take turns, sessions/saved.rs).
    pub(crate) const AUTOSAVE_ASKED: &str = "@agent_wizard_autosave_asked";
    /// Set when an autosave was asked for while a restore ran.
    pub(crate) const AUTOSAVE_HELD: &str = "@agent_wizard_autosave_held";
    /// The panes and windows an operation made only to hold a place
    /// (` %P @W ` words, newest first, bounded): their creation and close
    /// are no events.
    pub(crate) const PLACEHOLDERS: &str = "@agent_wizard_placeholders";

    /// How many changes tmux's hooks have told ([`super::super::CHANGED_CHANNEL`]):
    /// a listener waits only while it is still the count it read, so no
    /// change is missed between two waits (tmux drops a second signal
    /// nobody waited for).
    pub(crate) const CHANGES: &str = "@agent_wizard_changes";

    /// The global option a popup of taw's sets as its command starts, so
    /// tmux knows after the popup whether to signal its opener's channel
    /// ([`super::super::popup_channel`]); taken off then.
    pub(crate) fn popup_started(token: &str) -> String {
        format!("@agent_wizard_popup_started_{token}")
    }

    /// Where the loaded binary came from (`download`, `cargo`, `path`,
    /// `option`, as the entry script said), for `taw tmux status`.
    pub(crate) const ORIGIN: &str = "@agent_wizard_origin";
    /// What the last load said, a line each, for `taw tmux status`.
    pub(crate) const NOTES: &str = "@agent_wizard_notes";

    pub(crate) const ALL: &[&str] = &[
        LOADED,
        ORIGIN,
        NOTES,
        DEFAULTS_SET,
        PATH_DIR,
        HERDR_ENV_SET,
        HOOKS_SET,
        CONFIG_STAMP,
        STATUS_SET,
        FORMER_KEYS,
        PANES,
        PANES_GENERATION,
        PANES_STARTED,
        EXITED,
        TABS,
        RESTORING,
        AUTOSAVE_ASKED,
        AUTOSAVE_HELD,
        WORKTREES_CHANGED,
        PLACEHOLDERS,
        CHANGES,
    ];
}

/// Session options: what taw keeps about a workspace.
pub(crate) mod session {
    /// Metadata tokens reported for the workspace, a JSON object.
    pub(crate) const TOKENS: &str = "@agent_wizard_tokens";
    /// Each token source's last sequence number.
    pub(crate) const TOKEN_SEQS: &str = "@agent_wizard_token_seqs";

    /// Where the session's worktree comes from (JSON, herdr's
    /// WorkspaceWorktreeInfo): its repository and checkout, and whether the
    /// checkout is a linked worktree. Set by the worktree verbs.
    pub(crate) const WORKTREE: &str = "@agent_wizard_worktree";

    /// A workspace's label as it was given, when tmux holds the session
    /// under another name (`.` and `:` made `_`, a taken name numbered):
    /// `<the session's name>\t<the label>`. Read only while the session
    /// still has that name, so a rename by hand in tmux renames the
    /// workspace. The user's words: an unload leaves it.
    pub(crate) const LABEL: &str = "@agent_wizard_label";

    /// [`LABEL`]'s value for the session tmux holds as `held`.
    pub(crate) fn label_value(held: &str, label: &str) -> String {
        format!("{held}\t{label}")
    }

    /// The session's windows in their order as taw last looked (`@W `
    /// words), from which a swap-window, which no tmux hook tells, is
    /// told as tab.moved at the session's next hook. Kept while something
    /// listens to tab.moved.
    pub(crate) const TAB_PLACES: &str = "@agent_wizard_tab_places";

    /// Every session option taw writes: what an unload takes off. The
    /// worktree a session runs stays: it is no bookkeeping.
    pub(crate) const ALL: &[&str] = &[TOKENS, TOKEN_SEQS, TAB_PLACES];
}

/// Window options taw keeps.
pub(crate) mod window {
    /// The layout `layout.updated` last told for the window: tmux fires
    /// window-layout-changed more than once for one change.
    pub(crate) const LAYOUT_TOLD: &str = "@agent_wizard_layout_told";

    /// Every window option taw writes: what an unload takes off.
    pub(crate) const ALL: &[&str] = &[LAYOUT_TOLD];
}

/// Pane options that describe the pane's agent. Detection writes them; the
/// records, the status line and the popup read them.
pub(crate) mod pane {
    /// The agent's state: idle, working, blocked, done or unknown.
    pub(crate) const AGENT_STATE: &str = "@agent_state";
    /// The agent's kind, herdr's canonical id (claude, codex...).
    pub(crate) const AGENT_KIND: &str = "@agent_kind";
    /// The agent's automation name (`taw agent rename`).
    pub(crate) const AGENT_NAME: &str = "@agent_name";
    /// A label the user gave the pane (`taw pane rename`).
    pub(crate) const LABEL: &str = "@agent_wizard_label";
    /// Metadata reported for the pane (`taw pane report-metadata`): a
    /// title and a display name (plain text), labels for its states (a
    /// JSON object, status to text), its tokens (JSON, as a session's
    /// `@agent_wizard_tokens`), and each source's last sequence number.
    pub(crate) const META_TITLE: &str = "@agent_meta_title";
    pub(crate) const META_DISPLAY_AGENT: &str = "@agent_meta_display_agent";
    pub(crate) const META_STATE_LABELS: &str = "@agent_meta_state_labels";
    pub(crate) const META_TOKENS: &str = "@agent_meta_tokens";
    pub(crate) const META_SEQS: &str = "@agent_meta_seqs";
    /// herdr's pane revision; read into a pane's record, written by no
    /// part of taw yet (so `revision` is 0).
    pub(crate) const REVISION: &str = "@agent_revision";
    /// The agent's process id.
    pub(crate) const AGENT_PID: &str = "@agent_pid";
    /// When the state last changed (Unix milliseconds).
    pub(crate) const STATE_SINCE: &str = "@agent_state_since";
    /// When the agent's last turn began (Unix milliseconds).
    pub(crate) const TURN: &str = "@agent_turn";
    /// The state an agent left with, and when: `done 1764500000000`.
    pub(crate) const FINAL_STATE: &str = "@agent_final_state";
    /// The watcher of the pane: `<taw version> <pid>`.
    pub(crate) const WATCHER: &str = "@agent_wizard_watcher";

    /// What an integration reported: the agent, its state, the source
    /// that holds the pane, when, and the stamp of the last turn it began.
    pub(crate) const REPORTED_KIND: &str = "@agent_reported_kind";
    pub(crate) const REPORTED_STATE: &str = "@agent_reported_state";
    pub(crate) const REPORTED_SOURCE: &str = "@agent_reported_source";
    pub(crate) const REPORTED_AT: &str = "@agent_reported_at";
    pub(crate) const REPORTED_TURN: &str = "@agent_reported_turn";
    pub(crate) const REPORTED_MESSAGE: &str = "@agent_reported_message";
    /// Each reporting source's last sequence number, `source<TAB>seq` a line.
    pub(crate) const REPORT_SEQS: &str = "@agent_report_seqs";
    /// The agent's own session: `{"source","agent","kind","value"}`.
    pub(crate) const AGENT_SESSION: &str = "@agent_session";
    /// The command that resumes the agent's session, a JSON array.
    pub(crate) const RESUME: &str = "@agent_resume";
    /// The flags Claude Code ran with that set how its session runs, a
    /// JSON array (read by `taw pane report-agent-session`).
    pub(crate) const CLAUDE_FLAGS: &str = "@agent_claude_flags";
    /// herdr's words for a pane a restore left as tmux made it, because
    /// tmux did not open it in its saved folder.
    pub(crate) const RESTORE_ERROR: &str = "@agent_restore_error";
    /// That pane as the layout saved it (JSON): saved so again until it
    /// closes or has an agent of its own.
    pub(crate) const RESTORE_SAVED: &str = "@agent_restore_saved";
    /// What a restore left on a pane it did not resume: taken off for good
    /// once the pane has an agent of its own (the watcher names one, `taw
    /// agent start` starts one, an agent reports its state or session).
    pub(crate) const LEFT_BY_RESTORE: &[&str] = &[RESTORE_ERROR, RESTORE_SAVED];
    /// The command line `taw agent start` typed, kept for a restore to
    /// start the agent again when it has no session to resume.
    pub(crate) const STARTED_COMMAND: &str = "@agent_started_command";

    /// The container the agent in front runs in, as the watcher saw it:
    /// `<runtime>` for one typed by hand, `<runtime>/<profile>` for one
    /// `taw sandbox` started.
    pub(crate) const CONTAINER: &str = "@agent_container";
    /// The profile `taw sandbox` ran in the pane: the container is coming
    /// (or is there); taken off when the pane's shell is back.
    pub(crate) const SANDBOX_PROFILE: &str = "@agent_sandbox_profile";
    /// A sandboxed agent's kept resume (JSON: agent, profile, session), which
    /// a restore types as `taw sandbox` again.
    pub(crate) const SANDBOX_RESUME: &str = "@agent_sandbox_resume";
    /// The last toast the watcher showed for the pane (JSON: at, kind,
    /// text, agent, location): what a machine's feed tells the app.
    pub(crate) const TOAST: &str = "@agent_toast";

    /// The agent `taw agent start` typed into the pane, for an agent run
    /// under a script or a wrapper that no process names.
    pub(crate) const AGENT_KIND_HINT: &str = "@agent_kind_hint";
    /// The row `taw agent start` typed its command on, as the shell echoed
    /// it: the watcher reads the rows below it while it is on the screen.
    pub(crate) const TYPED_LINE: &str = "@agent_typed_line";
    /// The command line itself, to know that row again when a transient
    /// prompt has rewritten it.
    pub(crate) const TYPED_COMMAND: &str = "@agent_typed_command";
    /// Both: they come and go together.
    pub(crate) const TYPED: &[&str] = &[TYPED_LINE, TYPED_COMMAND];
    /// Counts the agent's state changes (herdr's state_change_seq).
    pub(crate) const STATE_SEQ: &str = "@agent_state_seq";

    /// What an agent's record is made of: taken off when it leaves.
    pub(crate) const RECORD: &[&str] = &[
        AGENT_KIND,
        AGENT_STATE,
        AGENT_PID,
        STATE_SINCE,
        TURN,
        STATE_SEQ,
        AGENT_NAME,
    ];
    /// `<plugin id>\t<entrypoint>` on a pane `taw plugin pane open` made.
    pub(crate) const PLUGIN_PANE: &str = "@agent_wizard_plugin_pane";
    /// Every pane option taw writes: what an unload takes off.
    pub(crate) const ALL: &[&str] = &[
        PLUGIN_PANE,
        AGENT_STATE,
        AGENT_KIND,
        AGENT_NAME,
        LABEL,
        META_TITLE,
        META_DISPLAY_AGENT,
        META_STATE_LABELS,
        META_TOKENS,
        META_SEQS,
        REVISION,
        AGENT_PID,
        STATE_SINCE,
        TURN,
        FINAL_STATE,
        WATCHER,
        REPORTED_KIND,
        REPORTED_STATE,
        REPORTED_SOURCE,
        REPORTED_AT,
        REPORTED_TURN,
        REPORTED_MESSAGE,
        REPORT_SEQS,
        AGENT_SESSION,
        RESUME,
        CLAUDE_FLAGS,
        RESTORE_ERROR,
        RESTORE_SAVED,
        STARTED_COMMAND,
        AGENT_KIND_HINT,
        TYPED_LINE,
        TYPED_COMMAND,
        STATE_SEQ,
        CONTAINER,
        SANDBOX_PROFILE,
        SANDBOX_RESUME,
        TOAST,
    ];

    /// What a report said: taken off when its agent leaves or is released.
    pub(crate) const REPORT: &[&str] = &[
        REPORTED_KIND,
        REPORTED_STATE,
        REPORTED_SOURCE,
        REPORTED_AT,
        REPORTED_TURN,
        REPORTED_MESSAGE,
    ];
}

/// Where taw's hook entries live in each hook's array: its own indexes,
/// far above what a person writes, in two slots so a reload can put the new
/// entries in before it takes the old ones off.
pub(crate) const HOOK_INDEX_BASE: u32 = 9100;
pub(crate) const HOOK_SLOT_SIZE: u32 = 50;
pub(crate) const HOOK_SLOTS: u32 = 2;

/// Whether a hook array index is one of taw's.
pub(crate) fn is_taw_hook_index(index: u32) -> bool {
    (HOOK_INDEX_BASE..HOOK_INDEX_BASE + HOOK_SLOT_SIZE * HOOK_SLOTS).contains(&index)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/OPTIONS.md names every plugin, bookkeeping and pane option.
    #[test]
    fn every_plugin_option_is_in_options_md() {
        let doc = include_str!("../../docs/OPTIONS.md");
        for option in PLUGIN_OPTIONS {
            assert!(
                doc.contains(&format!("`{}`", option.name)),
                "{} missing",
                option.name
            );
        }
        for name in bookkeeping::ALL.iter().chain(pane::ALL).chain(window::ALL) {
            assert!(doc.contains(&format!("`{name}`")), "{name} missing");
        }
    }

    #[test]
    fn hook_indexes_are_ours_only_in_range() {
        assert!(is_taw_hook_index(9100));
        assert!(is_taw_hook_index(9199));
        assert!(!is_taw_hook_index(9200));
        assert!(!is_taw_hook_index(0));
    }

    #[test]
    fn flags() {
        assert!(is_on("on"));
        assert!(is_on("ON "));
        assert!(!is_on("off"));
        assert!(!is_on(""));
    }
}
