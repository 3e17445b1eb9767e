//! Sandboxes: profiles that run an agent in a container. A profile is an
//! executable file: yours in `<config>/sandbox/`, or taw's own `default`,
//! which taw writes into `<state>/sandbox/` from the copy its build carries.
//! `taw sandbox` becomes the profile in the pane it is typed in; the
//! watcher sees the container through the process in front of the pane
//! (`detect::foreground`), and records it as `@agent_container`.

use crate::config::{Config, schema};
use crate::detect::agents::{self, Agent};
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::paths;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The profile that runs when nothing names another.
pub(crate) const DEFAULT: &str = "default";
/// taw's own default profile, as this build carries it.
const OWN_DEFAULT: &str = include_str!("default.sh");

/// A profile taw can run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Profile {
    pub name: String,
    pub path: PathBuf,
    /// A file of yours (not taw's own default).
    pub yours: bool,
}

/// `taw sandbox list`'s entry for a profile.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Listed {
    pub name: String,
    pub path: String,
    pub yours: bool,
    pub default: bool,
    pub agents: Vec<String>,
}

/// A profile taw would run but refuses, and why.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Refused {
    pub name: String,
    pub why: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SandboxList {
    pub profiles: Vec<Listed>,
    pub refused: Vec<Refused>,
}

answers!(SandboxList => "sandbox_list");

/// `taw sandbox new`'s answer: the file made, and the profile copied.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SandboxProfile {
    pub name: String,
    pub path: String,
    pub from: String,
}

answers!(SandboxProfile => "sandbox_profile");

/// A profile's name: a file name of its own, letters, digits, `.`, `_`
/// and `-`, a letter or digit first, at most 64.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// `<config>/sandbox`, the folder of your profiles; none when the config
/// folder is not a full path (a relative `TAW_CONFIG_DIR`).
fn yours_dir() -> Result<PathBuf> {
    let config = paths::config_dir();
    if !config.is_absolute() {
        return Err(TawError::invalid_argument(format!(
            "there is no folder for your profiles: the config folder {} is not a full path (TAW_CONFIG_DIR)",
            config.display()
        )));
    }
    Ok(config.join("sandbox"))
}

/// Where taw writes its own default.
fn own_default_path() -> PathBuf {
    paths::state_dir().join("sandbox").join(DEFAULT)
}

/// Your config folder and taw's state folder are one: `<config>/sandbox/default`
/// is the file taw writes its own default into.
fn folders_are_one() -> bool {
    paths::same_place(&paths::config_dir(), &paths::state_dir())
}

/// Writes taw's own default where it runs from, when the file there is not
/// this build's (missing, older, or changed by hand).
pub(crate) fn install_own_default() -> Result<PathBuf> {
    let path = own_default_path();
    if std::fs::read(&path).ok().as_deref() != Some(OWN_DEFAULT.as_bytes()) {
        paths::write_atomic_mode(&path, OWN_DEFAULT.as_bytes(), Some(0o755)).map_err(|e| {
            TawError::io(format!(
                "could not write taw's default sandbox profile {}: {e}",
                path.display()
            ))
        })?;
    }
    Ok(path)
}

/// What keeps a file from running as a profile.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unrunnable {
    /// A link to a file that is not there (or a loop of links).
    DanglingLink,
    NotAFile,
    NotExecutable,
    /// Its `#!` line: no program, a program named by a path that is not a
    /// full one, or one that cannot be run.
    Interpreter(String),
}

impl Unrunnable {
    /// In the words `taw sandbox` says it.
    pub(crate) fn why(&self, path: &Path) -> String {
        match self {
            Unrunnable::DanglingLink => {
                format!("{} is a link to a file that is not there", path.display())
            }
            Unrunnable::NotAFile => format!("{} is not a file", path.display()),
            Unrunnable::NotExecutable => format!(
                "{} is not executable (chmod +x {})",
                path.display(),
                path.display()
            ),
            Unrunnable::Interpreter(why) => format!("{}: {why}", path.display()),
        }
    }

    /// Whether the file is a profile taw would run, but for its `#!` line.
    fn is_interpreter(&self) -> bool {
        matches!(self, Unrunnable::Interpreter(_))
    }
}

/// Why `path` cannot run as a profile, or `None` when it can.
pub(crate) fn check_runnable(path: &Path) -> Option<Unrunnable> {
    let Ok(own) = std::fs::symlink_metadata(path) else {
        return Some(Unrunnable::DanglingLink);
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(_) if own.file_type().is_symlink() => return Some(Unrunnable::DanglingLink),
        Err(_) => return Some(Unrunnable::NotAFile),
    };
    if !meta.is_file() {
        return Some(Unrunnable::NotAFile);
    }
    if !paths::executable(path) {
        return Some(Unrunnable::NotExecutable);
    }
    interpreter_problem(path).map(Unrunnable::Interpreter)
}

/// What is wrong with a file's `#!` line, if it has one.
fn interpreter_problem(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 512];
    let read = std::fs::File::open(path).ok()?.read(&mut head).ok()?;
    let line = head[..read].strip_prefix(b"#!")?;
    let line = line.split(|b| *b == b'\n').next().unwrap_or(line);
    let line = String::from_utf8_lossy(line);
    let Some(program) = line.split_whitespace().next() else {
        return Some("its #! line names no program".into());
    };
    if !program.starts_with('/') {
        return Some(format!(
            "its #! line names its program by a path that is not a full one: {program}"
        ));
    }
    let program_path = Path::new(program);
    if !paths::executable(program_path) {
        return Some(format!("its #! line names {program}, which you cannot run"));
    }
    None
}

/// A folder taw cannot use: a link to nothing, or a loop of links.
fn unfollowable_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
        && std::fs::metadata(path).is_err()
}

/// Your files in `<config>/sandbox/` with a profile's name, sorted; not
/// taw's own default where the two folders are one.
fn your_files() -> Vec<(String, PathBuf)> {
    let Ok(dir) = yours_dir() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_string();
            valid_name(&name).then(|| (name, entry.path()))
        })
        .filter(|(name, _)| !(name == DEFAULT && folders_are_one()))
        .collect();
    files.sort();
    files
}

/// The profile called `name`, checked: yours first, then taw's default.
pub(crate) fn find(name: &str) -> Result<Profile> {
    let not_found = || {
        TawError::not_found(format!(
            "no sandbox profile is called {name:?}; `taw sandbox list` shows them"
        ))
    };
    if !valid_name(name) {
        return Err(not_found());
    }
    if let Some((_, path)) = your_files().into_iter().find(|(n, _)| n == name) {
        if let Some(problem) = check_runnable(&path) {
            return Err(TawError::invalid_argument(format!(
                "the sandbox profile {name} cannot run: {}",
                problem.why(&path)
            )));
        }
        return Ok(Profile {
            name: name.to_string(),
            path,
            yours: true,
        });
    }
    if name == DEFAULT {
        return Ok(Profile {
            name: DEFAULT.into(),
            path: install_own_default()?,
            yours: false,
        });
    }
    Err(not_found())
}

/// The profile an agent runs under: `--profile`, else `[sandbox.agents]`,
/// else the default.
pub(crate) fn profile_for(config: &Config, agent: &Agent, asked: Option<&str>) -> String {
    if let Some(asked) = asked {
        return asked.to_string();
    }
    config
        .table(&schema::SANDBOX_AGENTS)
        .iter()
        .find(|entry| agents::lookup(&entry.key).is_some_and(|a| a.id == agent.id))
        .and_then(|entry| entry.value.as_str().map(str::to_string))
        .unwrap_or_else(|| DEFAULT.to_string())
}

/// `taw sandbox list`.
pub(crate) fn list(config: &Config) -> Result<SandboxList> {
    let agents_of = |name: &str| -> Vec<String> {
        config
            .table(&schema::SANDBOX_AGENTS)
            .iter()
            .filter(|entry| entry.value.as_str() == Some(name))
            .map(|entry| {
                agents::lookup(&entry.key)
                    .map(|a| a.id.to_string())
                    .unwrap_or_else(|| entry.key.clone())
            })
            .collect()
    };
    let mut profiles = Vec::new();
    let mut refused = Vec::new();
    let mut yours_default = false;
    for (name, path) in your_files() {
        let is_default = name == DEFAULT;
        yours_default |= is_default;
        match check_runnable(&path) {
            None => profiles.push(Listed {
                agents: agents_of(&name),
                path: path.display().to_string(),
                default: is_default,
                yours: true,
                name,
            }),
            // A default of yours that cannot run, and any file whose #! line
            // is wrong, are refused; another file that is not executable is
            // no profile (`taw config check` says so).
            Some(problem) if is_default || problem.is_interpreter() => refused.push(Refused {
                why: problem.why(&path),
                name,
            }),
            Some(_) => {}
        }
    }
    if !yours_default {
        let path = install_own_default()?;
        profiles.insert(
            0,
            Listed {
                name: DEFAULT.into(),
                path: path.display().to_string(),
                yours: false,
                default: true,
                agents: agents_of(DEFAULT),
            },
        );
    }
    Ok(SandboxList { profiles, refused })
}

/// What `taw config check` says of the sandbox: a file in
/// `<config>/sandbox/` that is no profile (a bad name, not executable), and
/// a profile `[sandbox.agents]` names that is not there; each with the key
/// it is about, if any.
pub(crate) fn config_warnings(config: &Config) -> Vec<(Option<String>, String)> {
    let mut warnings = Vec::new();
    let entries = yours_dir()
        .ok()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .into_iter()
        .flatten()
        .flatten();
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        // A profile being written by `taw sandbox new`.
        if name.starts_with('.') && name.contains(".new-") {
            continue;
        }
        if !valid_name(&name) {
            warnings.push(format!(
                "{} is no sandbox profile: a profile's name is letters, digits, ., _ and -, a letter or digit first",
                path.display()
            ));
        } else if name != DEFAULT
            && let Some(problem) = check_runnable(&path)
            && !problem.is_interpreter()
        {
            warnings.push(format!(
                "{} is no sandbox profile: {}",
                path.display(),
                problem.why(&path)
            ));
        }
    }
    warnings.sort();
    let mut said: Vec<(Option<String>, String)> = warnings.into_iter().map(|w| (None, w)).collect();
    for entry in config.table(&schema::SANDBOX_AGENTS) {
        let Some(profile) = entry.value.as_str() else {
            continue;
        };
        if agents::lookup(&entry.key).is_none() {
            said.push((
                Some(format!("{}.{}", schema::SANDBOX_AGENTS.path, entry.key)),
                format!("{:?} is no agent taw knows", entry.key),
            ));
        } else if find(profile).is_err_and(|e| e.code == crate::envelope::ErrorCode::NotFound) {
            said.push((
                Some(format!("{}.{}", schema::SANDBOX_AGENTS.path, entry.key)),
                format!("no sandbox profile is called {profile:?}; `taw sandbox list` shows them"),
            ));
        }
    }
    said
}

/// `taw sandbox new <name> [--from <profile>]`: a copy of a profile, yours
/// to change, made whole or not at all and never over a file.
pub(crate) fn create(name: &str, from: Option<&str>) -> Result<SandboxProfile> {
    let dir = yours_dir()?;
    if !valid_name(name) {
        return Err(TawError::invalid_argument(format!(
            "{name:?} is no profile name: letters, digits, ., _ and -, a letter or digit first, at most 64"
        )));
    }
    if name == DEFAULT && folders_are_one() {
        return Err(TawError::invalid_argument(format!(
            "a default of yours would be the file taw writes its own default into: your config folder and taw's state folder are one ({})",
            paths::config_dir().display()
        )));
    }
    for folder in [paths::config_dir(), dir.clone()] {
        if unfollowable_link(&folder) {
            return Err(TawError::invalid_argument(format!(
                "{} is a link taw cannot follow (to nothing, or a loop)",
                folder.display()
            )));
        }
    }
    let path = dir.join(name);
    let taken = || {
        TawError::invalid_argument(format!(
            "the name {name} is taken: {} is there",
            path.display()
        ))
    };
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(taken());
    }
    let from = from.unwrap_or(DEFAULT);
    let source = find(from)?;
    let bytes = std::fs::read(&source.path)
        .map_err(|e| TawError::io(format!("could not read {}: {e}", source.path.display())))?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| TawError::io(format!("could not make {}: {e}", dir.display())))?;
    paths::write_new_mode(&path, &bytes, 0o755).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            taken()
        } else {
            TawError::io(format!("could not write {}: {e}", path.display()))
        }
    })?;
    Ok(SandboxProfile {
        name: name.to_string(),
        path: path.display().to_string(),
        from: from.to_string(),
    })
}

/// The container an agent runs in, as `@agent_container` keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Container {
    pub runtime: String,
    /// The profile `taw sandbox` ran; none for a container typed by hand.
    pub profile: Option<String>,
}

impl Container {
    pub(crate) fn parse(text: &str) -> Option<Container> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        Some(match text.split_once('/') {
            Some((runtime, profile)) => Container {
                runtime: runtime.to_string(),
                profile: (!profile.is_empty()).then(|| profile.to_string()),
            },
            None => Container {
                runtime: text.to_string(),
                profile: None,
            },
        })
    }

    pub(crate) fn value(&self) -> String {
        match &self.profile {
            Some(profile) => format!("{}/{profile}", self.runtime),
            None => self.runtime.clone(),
        }
    }
}

/// The `sandbox` field of a pane's record: `{"profile", "runtime"}`, from
/// the container the watcher saw and the profile `taw sandbox` ran (whose
/// runtime is null while it starts); null outside a sandbox.
pub(crate) fn record_field(container: &str, profile: &str) -> Option<serde_json::Value> {
    let seen = Container::parse(container);
    let profile = (!profile.is_empty()).then(|| profile.to_string());
    match (seen, profile) {
        (Some(seen), _) => Some(serde_json::json!({
            "profile": seen.profile,
            "runtime": seen.runtime,
        })),
        (None, Some(profile)) => Some(serde_json::json!({
            "profile": profile,
            "runtime": null,
        })),
        (None, None) => None,
    }
}

/// A sandboxed agent's kept resume (`@agent_sandbox_resume`, and a saved
/// layout's `sandbox`): its agent, its profile, and its session when one
/// is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KeptResume {
    pub agent: String,
    pub profile: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

impl KeptResume {
    pub(crate) fn parse(text: &str) -> Option<KeptResume> {
        serde_json::from_str(text).ok()
    }

    pub(crate) fn value(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// What `taw sandbox` keeps for the agent it runs: a session id when
    /// its words resume one by id (as a restore types them), else none.
    pub(crate) fn from_args(agent: &str, profile: &str, args: &[String]) -> KeptResume {
        let by_id: &[&str] = match agent {
            "claude" | "gemini" => &["--resume"],
            "codex" => &["resume"],
            "opencode" | "kilo" | "pi" => &["--session"],
            _ => &[],
        };
        let session_id = args
            .windows(2)
            .find(|pair| by_id.contains(&pair[0].as_str()) && !pair[1].starts_with('-'))
            .map(|pair| pair[1].clone())
            .filter(|id| !(agent == "gemini" && id == "latest"));
        KeptResume {
            agent: agent.to_string(),
            profile: profile.to_string(),
            session_id,
        }
    }

    /// The words after `--`: the session by its id, else the agent's
    /// "the last conversation in this folder".
    pub(crate) fn agent_args(&self) -> Vec<String> {
        let id = self.session_id.as_deref().filter(|id| !id.is_empty());
        let words: Vec<&str> = match (self.agent.as_str(), id) {
            ("claude", Some(id)) => vec!["--resume", id],
            ("claude", None) => vec!["--continue"],
            ("codex", Some(id)) => vec!["resume", id],
            ("codex", None) => vec!["resume", "--last"],
            ("gemini", Some(id)) => vec!["--resume", id],
            ("gemini", None) => vec!["--resume", "latest"],
            ("opencode" | "kilo", Some(id)) => vec!["--session", id],
            ("opencode" | "kilo" | "pi" | "qwen", None) => vec!["--continue"],
            ("pi", Some(id)) => vec!["--session", id],
            _ => Vec::new(),
        };
        words.into_iter().map(str::to_string).collect()
    }

    /// The `taw sandbox` line that resumes it, `taw` being `taw_word`.
    pub(crate) fn line(&self, taw_word: &str) -> String {
        let mut words = vec![
            taw_word.to_string(),
            "sandbox".into(),
            self.agent.clone(),
            "--profile".into(),
            self.profile.clone(),
        ];
        let args = self.agent_args();
        if !args.is_empty() {
            words.push("--".into());
            words.extend(args);
        }
        words
            .iter()
            .map(|w| crate::text::shell_word(w))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The word that runs taw in a pane whose shell is process `shell_pid`:
/// `taw` when the PATH it started with finds a taw, else this taw's full
/// path. A login shell (`-bash`) is given the full path: its profile may
/// set PATH anew (Debian's /etc/profile does).
pub(crate) fn taw_word(shell_pid: u32) -> String {
    let own = std::env::current_exe().ok();
    let login = std::fs::read(format!("/proc/{shell_pid}/cmdline"))
        .is_ok_and(|cmdline| cmdline.starts_with(b"-"));
    let path = std::fs::read(format!("/proc/{shell_pid}/environ"))
        .ok()
        .filter(|_| !login)
        .and_then(|environ| {
            environ
                .split(|b| *b == 0)
                .find_map(|var| var.strip_prefix(b"PATH="))
                .map(|p| String::from_utf8_lossy(p).into_owned())
        });
    if let Some(path) = path
        && paths::find_in(std::ffi::OsStr::new(&path), "taw").is_some()
    {
        return "taw".into();
    }
    own.map(|p| p.display().to_string())
        .unwrap_or_else(|| "taw".into())
}

/// What a profile gets to mount for an agent: its config folders (a
/// trailing `/`: made when missing) and files, under `home`.
fn agent_mounts(agent: &str, home: &Path) -> Vec<String> {
    let var_or = |var: &str, default: &str| {
        std::env::var(var)
            .ok()
            .filter(|v| Path::new(v).is_absolute())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(default))
    };
    let folder = |path: PathBuf| format!("{}/", path.display());
    let file = |rest: &str| home.join(rest).display().to_string();
    match agent {
        "claude" => vec![
            folder(var_or("CLAUDE_CONFIG_DIR", ".claude")),
            file(".claude.json"),
        ],
        "codex" => vec![folder(var_or("CODEX_HOME", ".codex"))],
        "gemini" => vec![folder(home.join(".gemini"))],
        "qwen" => vec![folder(home.join(".qwen"))],
        "pi" => vec![folder(home.join(".pi"))],
        "opencode" => vec![
            folder(home.join(".config/opencode")),
            folder(home.join(".local/share/opencode")),
        ],
        "kilo" => vec![
            folder(home.join(".config/kilo")),
            folder(home.join(".local/share/kilo")),
        ],
        "amp" => vec![
            folder(home.join(".config/amp")),
            folder(home.join(".local/share/amp")),
        ],
        _ => Vec::new(),
    }
}

/// The npm package taw's default image installs for an agent.
fn agent_package(agent: &str) -> Option<&'static str> {
    Some(match agent {
        "claude" => "@anthropic-ai/claude-code",
        "codex" => "@openai/codex",
        "gemini" => "@google/gemini-cli",
        "qwen" => "@qwen-code/qwen-code",
        "pi" => "@mariozechner/pi-coding-agent",
        "opencode" => "opencode-ai",
        "amp" => "@sourcegraph/amp",
        _ => return None,
    })
}

/// Variables a profile passes into the container when they are set: the
/// terminal's, and the agents' keys and endpoints.
const PASSED_VARIABLES: &[&str] = &[
    "TERM",
    "COLORTERM",
    "LANG",
    "LC_ALL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
];

/// The container runtime `[sandbox] runtime` names, found on PATH: for
/// `auto`, Docker, else Podman. None when it is not installed.
pub(crate) fn runtime(config: &Config) -> Option<String> {
    let asked = config.get(&schema::SANDBOX_RUNTIME);
    let candidates: Vec<&str> = match asked.as_str() {
        "auto" | "" => vec!["docker", "podman"],
        other => vec![other],
    };
    candidates
        .into_iter()
        .find(|name| paths::find_program(name).is_some())
        .map(str::to_string)
}

/// Everything `taw sandbox` hands the profile it becomes.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub agent: &'static Agent,
    pub profile: Profile,
    /// The profile's arguments: the agent's program, then its own.
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Whether `dir` is `home` or a folder above it (`/` included), as the
/// file system has them.
fn holds_home(dir: &Path, home: &Path) -> bool {
    let real = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    real(home).starts_with(real(dir))
}

/// A config.toml with an error of the file as a whole (it does not parse,
/// it cannot be read) or of `[sandbox]`: taw would start on defaults the
/// person did not choose (the network on where they turned it off, the
/// default profile where they named a stricter one), so it does not.
fn refuse_defaults_not_given(config: &Config) -> Result<()> {
    let error = config.errors().find(|error| match &error.key {
        None => true,
        Some(key) => key == "sandbox" || key.starts_with("sandbox."),
    });
    match error {
        None => Ok(()),
        Some(error) => Err(TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{}; the sandbox does not start on defaults you did not choose. Mend the file (`taw config check`)",
                config.locate(error)
            ),
        )),
    }
}

/// Prepares `taw sandbox <agent> [--profile P] [-- args]`: the agent, the
/// profile checked, the runtime, the profile's arguments and variables.
pub(crate) fn prepare(
    config: &Config,
    agent: &str,
    profile: Option<&str>,
    args: &[String],
    dir: &Path,
) -> Result<Launch> {
    refuse_defaults_not_given(config)?;
    let image = config.get(&schema::SANDBOX_IMAGE);
    // The profile passes it to the runtime as a word of its own: one that
    // begins with `-` would be read as an option.
    if image.starts_with('-') || image.chars().any(char::is_whitespace) {
        return Err(TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "[sandbox] image {image:?} is no image name (it begins with - or holds a space)"
            ),
        ));
    }
    let agent = agents::lookup(agent).ok_or_else(|| {
        TawError::invalid_argument(format!(
            "{agent:?} is no agent taw knows: {}",
            agents::id_list()
        ))
    })?;
    let Some(dir_text) = dir.to_str() else {
        return Err(TawError::invalid_argument(format!(
            "{} is not UTF-8 text, which the sandbox cannot mount as it is: start it in a folder named in UTF-8",
            dir.display()
        )));
    };
    let name = profile_for(config, agent, profile);
    let profile = find(&name)?;
    let runtime = runtime(config);
    if runtime.is_none() && !profile.yours {
        let asked = config.get(&schema::SANDBOX_RUNTIME);
        return Err(TawError::invalid_argument(if asked == "auto" {
            "no container runtime: install Docker or Podman".to_string()
        } else {
            format!("no container runtime: {asked} ([sandbox] runtime) is not installed")
        }));
    }
    let home = paths::home_dir().unwrap_or_else(|| PathBuf::from("/root"));
    if !profile.yours && holds_home(dir, &home) {
        return Err(TawError::invalid_argument(format!(
            "the sandbox mounts the folder it starts in, and {} is your home or holds it (your keys and every other file would be in the container): start it in a project's folder",
            dir.display()
        )));
    }
    let mut passed: Vec<String> = PASSED_VARIABLES.iter().map(|v| v.to_string()).collect();
    passed.extend(config.get(&schema::SANDBOX_ENV));
    let passed: Vec<String> = passed
        .into_iter()
        .filter(|name| crate::text::is_env_name(name) && std::env::var_os(name).is_some())
        .collect();
    let network = config.get(&schema::SANDBOX_NETWORK);
    let mut env = vec![
        ("TAW_SANDBOX_PROFILE".to_string(), profile.name.clone()),
        ("TAW_SANDBOX_AGENT".to_string(), agent.id.to_string()),
        ("TAW_SANDBOX_DIR".to_string(), dir_text.to_string()),
        (
            "TAW_SANDBOX_MOUNTS".to_string(),
            agent_mounts(agent.id, &home).join("\n"),
        ),
        ("TAW_SANDBOX_ENV".to_string(), passed.join(" ")),
        ("TAW_SANDBOX_IMAGE".to_string(), image),
        (
            "TAW_SANDBOX_PACKAGE".to_string(),
            agent_package(agent.id).unwrap_or_default().to_string(),
        ),
        ("TAW_SANDBOX_NETWORK".to_string(), network),
        (
            "TAW_RUNTIME".to_string(),
            runtime.clone().unwrap_or_default(),
        ),
    ];
    env.retain(|(name, _)| !name.is_empty());
    let mut profile_args = vec![agent.executable.to_string()];
    profile_args.extend(args.iter().cloned());
    Ok(Launch {
        agent,
        profile,
        args: profile_args,
        env,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_that_holds_the_home_is_told() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("src/api");
        std::fs::create_dir_all(&project).unwrap();
        assert!(holds_home(home.path(), home.path()));
        assert!(holds_home(Path::new("/"), home.path()));
        assert!(holds_home(home.path().parent().unwrap(), home.path()));
        assert!(!holds_home(&project, home.path()));
    }

    #[test]
    fn names_are_file_names_of_their_own() {
        assert!(valid_name("max"));
        assert!(valid_name("no-net.2"));
        assert!(!valid_name(""));
        assert!(!valid_name(".hidden"));
        assert!(!valid_name("a/b"));
        assert!(!valid_name("-x"));
        assert!(!valid_name(&"a".repeat(65)));
    }

    #[test]
    fn a_container_keeps_its_runtime_and_profile() {
        let seen = Container::parse("podman/max").unwrap();
        assert_eq!(seen.runtime, "podman");
        assert_eq!(seen.profile.as_deref(), Some("max"));
        assert_eq!(seen.value(), "podman/max");
        let by_hand = Container::parse("docker").unwrap();
        assert_eq!(by_hand.profile, None);
        assert_eq!(Container::parse(""), None);
    }

    #[test]
    fn the_record_field_says_profile_and_runtime() {
        assert_eq!(record_field("", ""), None);
        assert_eq!(
            record_field("", "max").unwrap(),
            serde_json::json!({"profile": "max", "runtime": null})
        );
        assert_eq!(
            record_field("docker", "").unwrap(),
            serde_json::json!({"profile": null, "runtime": "docker"})
        );
        assert_eq!(
            record_field("podman/default", "default").unwrap(),
            serde_json::json!({"profile": "default", "runtime": "podman"})
        );
    }

    #[test]
    fn a_kept_resume_continues_or_resumes_by_id() {
        let mut kept = KeptResume {
            agent: "claude".into(),
            profile: "max".into(),
            session_id: None,
        };
        assert_eq!(
            kept.line("taw"),
            "taw sandbox claude --profile max -- --continue"
        );
        kept.session_id = Some("abc".into());
        assert_eq!(
            kept.line("/opt/my taw/taw"),
            "'/opt/my taw/taw' sandbox claude --profile max -- --resume abc"
        );
        let parsed = KeptResume::parse(&kept.value()).unwrap();
        assert_eq!(parsed, kept);
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            KeptResume::from_args("claude", "max", &words(&["--resume", "abc"])).session_id,
            Some("abc".into())
        );
        assert_eq!(
            KeptResume::from_args("codex", "max", &words(&["resume", "--last"])).session_id,
            None
        );
        assert_eq!(
            KeptResume::from_args("gemini", "d", &words(&["--resume", "latest"])).session_id,
            None
        );
        let other = KeptResume {
            agent: "droid".into(),
            profile: "default".into(),
            session_id: None,
        };
        assert_eq!(other.line("taw"), "taw sandbox droid --profile default");
    }

    #[test]
    fn a_profile_is_refused_for_its_interpreter() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str, mode: u32| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            path
        };
        assert_eq!(check_runnable(&write("ok", "#!/bin/sh\n", 0o755)), None);
        assert_eq!(
            check_runnable(&write("off", "#!/bin/sh\n", 0o644)),
            Some(Unrunnable::NotExecutable)
        );
        let relative = check_runnable(&write("rel", "#!bash\n", 0o755)).unwrap();
        assert!(
            relative
                .why(Path::new("x"))
                .contains("not a full one: bash")
        );
        let missing = check_runnable(&write("gone", "#!/no/such/sh -e\n", 0o755)).unwrap();
        assert!(
            missing
                .why(Path::new("x"))
                .contains("/no/such/sh, which you cannot run")
        );
        let empty = check_runnable(&write("empty", "#!\n", 0o755)).unwrap();
        assert!(empty.why(Path::new("x")).contains("names no program"));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("nothing"), &link).unwrap();
        assert_eq!(check_runnable(&link), Some(Unrunnable::DanglingLink));
        assert_eq!(check_runnable(dir.path()), Some(Unrunnable::NotAFile));
    }
}
