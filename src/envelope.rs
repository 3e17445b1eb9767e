//! The JSON envelope every verb answers in, the one enum of error codes, and
//! the exit statuses.
//!
//! A verb answers `{"id": "cli:<group>:<verb>", "result": {"type": ...}}` on
//! standard output with exit status 0, or `{"id": ..., "error": {"code",
//! "message"}}` on standard error with exit status 1. A usage error (clap's)
//! exits with 2 and prints no envelope.

use serde::Serialize;
use serde_json::{Map, Value, json};
use std::fmt;
use std::io::Write;

/// Exit status of a verb that answered with a result.
pub(crate) const EXIT_OK: i32 = 0;
/// Exit status of a verb that answered with an error envelope.
pub(crate) const EXIT_ERROR: i32 = 1;
/// Exit status of a usage error: the command line itself was wrong.
pub(crate) const EXIT_USAGE: i32 = 2;

/// Every error code taw answers with, spelled as herdr spells its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ErrorCode {
    /// The id, name or path given names nothing that exists.
    NotFound,
    /// An argument is malformed (an id, a value, a path).
    InvalidArgument,
    /// tmux refused a command, or could not be run.
    TmuxError,
    /// No tmux server answers on the socket.
    ServerNotRunning,
    /// The config file does not parse, or holds a bad value.
    InvalidConfig,
    /// A file of taw's (state, link, config) could not be written.
    IoError,
    /// A key that herdr's key syntax does not know (nothing was sent).
    InvalidKey,
    /// A regular expression that does not compile.
    InvalidRegex,
    /// A wait ran out of time.
    Timeout,
    /// The pane's shell is not at its prompt (or the pane is in a mode, or
    /// takes no input): nothing was typed.
    ShellNotReady,
    /// The agent's command was typed, and the shell came back without it.
    AgentNotStarted,
    /// The pane hosts no agent (now): nothing was sent.
    AgentNotReady,
    /// A prompt the agent showed no sign of taking.
    AgentPromptStalled,
    /// The agent left its pane during a wait.
    AgentNotRunning,
    /// An agent kind taw cannot start.
    UnsupportedAgentKind,
    /// A report's agent label that is empty (herdr's code).
    InvalidAgent,
    /// No live agent has that name, or the pane hosts no agent.
    AgentNotFound,
    /// A name that more than one live agent answers to.
    AgentTargetAmbiguous,
    /// A resume command after `--` that cannot be kept (herdr's code).
    InvalidResumeArgv,
    /// A resume command from a source that does not hold the pane (herdr's).
    ResumeNotAccepted,
    /// A metadata report's `--source` or `--applies-to-source` is not 1 to
    /// 80 of ASCII letters, digits and `: . _ -` (herdr's).
    InvalidMetadataSource,
    /// A metadata token's name is not 1 to 32 of `[A-Za-z0-9_-]`, or a
    /// `--token` is not NAME=VALUE (herdr's).
    InvalidMetadataToken,
    /// A metadata report's `--ttl-ms` is not 1 to 86 400 000 (herdr's).
    InvalidMetadataTtl,
    /// A metadata report that sets and clears one field, or changes
    /// nothing (herdr's).
    InvalidMetadataRequest,
    /// A `--state-label` whose key is not idle, working, blocked, done or
    /// unknown, or that is not STATUS=TEXT (herdr's).
    InvalidStateLabel,
    /// More than 16 tokens in one report, or more than 32 kept (herdr's).
    MetadataTokenLimit,
    /// A 33rd source numbering its metadata reports (herdr's).
    MetadataSequenceSourceLimit,
    /// A hook (a session's pre-create hook) said no, or took too long.
    HookRefused,
    /// No plugin has that id (or source).
    PluginNotFound,
    /// The plugin is disabled.
    PluginDisabled,
    /// The folder holds no herdr-plugin.toml.
    PluginManifestNotFound,
    /// The manifest could not be read.
    PluginManifestReadFailed,
    /// The manifest is not TOML herdr reads, or a key has the wrong type.
    PluginManifestParseFailed,
    /// The registry of plugins could not be read.
    PluginRegistryLoadFailed,
    /// The registry of plugins could not be written.
    PluginRegistrySaveFailed,
    /// A plugin's build command failed; nothing was installed.
    PluginBuildFailed,
    /// A plugin pane could not be opened.
    PluginPaneOpenFailed,
    /// The pane is no plugin's.
    PluginPaneNotFound,
    /// An integration could not be installed (the agent's folder is not
    /// there, or a file could not be written); nothing was half-written.
    IntegrationInstallFailed,
    /// An integration could not be taken out.
    IntegrationUninstallFailed,
    /// No action of that id.
    PluginActionNotFound,
    /// More than one plugin has an action of that id.
    AmbiguousPluginAction,
    /// The entry names no platform taw runs on.
    PlatformUnsupported,
    /// The tmux is older than the oldest taw works with (3.2).
    TmuxTooOld,
    /// The plugin needs a newer herdr than taw answers for.
    PluginRequiresNewerHerdr,
    InvalidPluginId,
    InvalidPluginName,
    InvalidPluginVersion,
    InvalidPluginMinHerdrVersion,
    InvalidPluginPlatform,
    InvalidPluginCommand,
    InvalidPluginActionId,
    InvalidPluginActionTitle,
    InvalidPluginPaneId,
    InvalidPluginPaneTitle,
    InvalidPluginPaneSize,
    InvalidPluginEvent,
    InvalidPluginContext,
    InvalidPluginEntrypoint,
    InvalidPluginLinkHandlerId,
    InvalidPluginLinkHandlerTitle,
    InvalidPluginLinkHandlerPattern,
    InvalidPluginLinkHandlerAction,
    InvalidPluginManifestPath,
    /// A plugin's source (a link over an installed plugin, a bad owner/repo).
    InvalidPluginSource,
    DuplicatePluginActionId,
    DuplicatePluginPaneId,
    DuplicatePluginLinkHandlerId,
    /// The folder is in no git repository, or the workspace runs no
    /// worktree (herdr's).
    NotGitWorktree,
    /// The worktree is the repository's main checkout, which git does not
    /// remove (herdr's).
    NotLinkedWorktree,
    /// No worktree of the repository is there, or its checkout is gone
    /// (herdr's).
    WorktreeNotFound,
    /// `git worktree list` failed (herdr's).
    WorktreeListFailed,
    /// git could not make the worktree, or its session could not be made
    /// (herdr's).
    WorktreeCreateFailed,
    /// The worktree's session could not be made (herdr's).
    WorktreeOpenFailed,
    /// git refused to remove the worktree (herdr's).
    WorktreeRemoveFailed,
    /// The checkout has modified or untracked files, or submodules: its
    /// removal needs --force (taw's; herdr has no such code).
    WorktreeDirty,
    /// A repository's workspace whose worktree workspaces are open closes
    /// only with --group (herdr's).
    WorkspaceGroupCloseRequired,
    /// No answer came from a machine of `[machines]`: ssh could not log in
    /// or run, no taw is there, or the far taw ended by a signal.
    MachineUnreachable,
    /// `popup close` with no client to hold a popup.
    PopupNotOpen,
    /// Something taw cannot do here (no clipboard tool, a far taw too old).
    Unsupported,
}

impl ErrorCode {
    /// herdr's spelling of the code, as it appears in the envelope.
    pub(crate) fn as_str(self) -> String {
        match serde_json::to_value(self) {
            Ok(Value::String(name)) => name,
            _ => format!("{self:?}"),
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

/// An error a verb answers with: a code and a message that says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TawError {
    pub code: ErrorCode,
    pub message: String,
}

impl TawError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        TawError {
            code,
            message: message.into(),
        }
    }
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }
    pub(crate) fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }
    pub(crate) fn tmux(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::TmuxError, message)
    }
    pub(crate) fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::IoError, message)
    }
}

impl fmt::Display for TawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for TawError {}

pub(crate) type Result<T, E = TawError> = std::result::Result<T, E>;

/// What a verb produced, before it is printed.
#[derive(Debug)]
pub(crate) enum Reply {
    /// A result object: `kind` becomes `result.type`, `fields` the rest.
    Result { kind: &'static str, fields: Value },
    /// Text for a person (or `pane read`'s raw text), printed as it is.
    Text(String),
    /// Text whose exit status is 1 (a check that found errors).
    FailedText(String),
    /// A result whose exit status is not 0 (a check that found errors).
    Failed { kind: &'static str, fields: Value },
    /// A refusal of the command line found past clap's parse: its line on
    /// standard error, no envelope, exit status 2.
    Usage(String),
    /// Nothing to print.
    Nothing,
}

/// A typed result of an operation: its fields, and the `result.type` it
/// answers with.
pub(crate) trait Answer: Serialize {
    const TYPE: &'static str;
}

impl Reply {
    /// A result of type `kind` whose fields are the serialized `payload`,
    /// which must serialize to an object.
    pub(crate) fn result(kind: &'static str, payload: impl Serialize) -> Self {
        Reply::Result {
            kind,
            fields: serde_json::to_value(payload).unwrap_or(Value::Null),
        }
    }

    /// An operation's typed answer.
    pub(crate) fn of<A: Answer>(answer: A) -> Self {
        Reply::result(A::TYPE, answer)
    }
}

/// Declares the `result.type` of answer structs: `answers!(Foo => "foo")`.
macro_rules! answers {
    ($($answer:ty => $kind:literal),* $(,)?) => {
        $(impl $crate::envelope::Answer for $answer {
            const TYPE: &'static str = $kind;
        })*
    };
}
pub(crate) use answers;

/// Builds the result object: `{"type": kind, ...fields}`.
fn result_object(kind: &str, fields: Value) -> Value {
    let mut object = Map::new();
    object.insert("type".into(), Value::String(kind.into()));
    match fields {
        Value::Object(map) => object.extend(map),
        Value::Null => {}
        other => {
            object.insert("value".into(), other);
        }
    }
    Value::Object(object)
}

/// Prints a verb's answer under envelope id `id` and returns the exit status.
pub(crate) fn emit(id: &str, answer: Result<Reply>) -> i32 {
    match answer {
        Ok(Reply::Result { kind, fields }) => {
            print_line(&mut std::io::stdout(), &envelope_result(id, kind, fields));
            EXIT_OK
        }
        Ok(Reply::Failed { kind, fields }) => {
            print_line(&mut std::io::stdout(), &envelope_result(id, kind, fields));
            EXIT_ERROR
        }
        Ok(Reply::Text(text)) => {
            print_text(&text);
            EXIT_OK
        }
        Ok(Reply::FailedText(text)) => {
            print_text(&text);
            EXIT_ERROR
        }
        Ok(Reply::Usage(text)) => {
            // Nowhere else to say it: stderr is the last word.
            let _ = writeln!(std::io::stderr(), "{}", text.trim_end());
            EXIT_USAGE
        }
        Ok(Reply::Nothing) => EXIT_OK,
        Err(error) => {
            print_line(&mut std::io::stderr(), &envelope_error(id, &error));
            EXIT_ERROR
        }
    }
}

pub(crate) fn envelope_result(id: &str, kind: &str, fields: Value) -> Value {
    json!({ "id": id, "result": result_object(kind, fields) })
}

pub(crate) fn envelope_error(id: &str, error: &TawError) -> Value {
    json!({ "id": id, "error": { "code": error.code, "message": error.message } })
}

fn print_text(text: &str) {
    // A closed pipe (taw ... | head) is not an error worth a panic.
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    if !text.is_empty() && !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

fn print_line(out: &mut dyn Write, value: &Value) {
    // A closed pipe (taw ... | head) is not an error worth a panic.
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_snake_case() {
        assert_eq!(
            serde_json::to_value(ErrorCode::ServerNotRunning).unwrap(),
            json!("server_not_running")
        );
        assert_eq!(ErrorCode::NotFound.as_str(), "not_found");
    }

    #[test]
    fn result_envelope_puts_type_first_level() {
        let value = envelope_result("cli:pane:list", "pane_list", json!({"panes": []}));
        assert_eq!(
            value,
            json!({"id": "cli:pane:list", "result": {"type": "pane_list", "panes": []}})
        );
    }

    #[test]
    fn error_envelope_has_code_and_message() {
        let error = TawError::not_found("pane %9 not found");
        let value = envelope_error("cli:pane:get", &error);
        assert_eq!(value["error"]["code"], "not_found");
        assert_eq!(value["error"]["message"], "pane %9 not found");
    }
}
