//! Every agent taw can install an integration into: where its config
//! lives, what taw writes there, what the agent's hooks report.

use super::edit::{Change, Edit};
use super::json::{Dialect, Extra, Hook, HookTable, Shape};
use super::owner::Runner;
use crate::envelope::{Result, TawError};
use crate::paths;
use std::path::{Path, PathBuf};

/// One agent taw integrates with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    /// The name `taw integration install` takes (herdr's).
    pub id: &'static str,
    /// The agent's name, for messages.
    pub name: &'static str,
    /// The agent label its reports carry (herdr's canonical id).
    pub agent: &'static str,
    /// Whether its hooks report state, not only the session.
    pub reports_state: bool,
    /// herdr lists it as experimental.
    pub experimental: bool,
    /// The version of what this build installs: the marker
    /// `TAW_INTEGRATION_VERSION` in the file status reads. One more when
    /// its script or entry changes.
    pub version: u32,
    /// Where the agent keeps its config.
    folder: Folder,
    /// What taw writes in that folder.
    writes: Writes,
}

/// Where an agent's config folder is.
#[derive(Debug, Clone, Copy)]
enum Folder {
    /// The first of `vars` that is set, else `default` under the home.
    Var {
        vars: &'static [&'static str],
        default: &'static str,
    },
    /// A folder under the home, which no variable moves.
    Home(&'static str),
    /// A folder under `$XDG_CONFIG_HOME` (`~/.config` when unset).
    Xdg(&'static str),
    /// A folder under the home taw makes when missing (Mastra Code's, by
    /// herdr's rule), so it need not be there.
    Made(&'static str),
    /// OMP's: `PI_CODING_AGENT_DIR`, else `~/<PI_CONFIG_DIR or .omp>/agent`.
    Omp,
}

/// What taw writes into an agent's folder.
#[derive(Debug, Clone, Copy)]
enum Writes {
    /// Pi's extension, in the file named under `extensions/`.
    Extension { file: &'static str },
    /// taw's hook script, run from entries in one JSON file of the agent's.
    Hooks(Hooked),
    /// Codex's hooks, and the feature in config.toml that turns them on.
    Codex,
    /// Kimi's hooks: taw's script and a block of hook tables in config.toml.
    Kimi,
    /// An OpenCode plugin in `plugins` (OpenCode's folder name, Kilo's is
    /// `plugin`); OpenCode 2's plugin as well when `opencode_v2`.
    JsPlugin {
        plugins: &'static str,
        opencode_v2: bool,
    },
    /// A Hermes plugin, enabled in config.yaml.
    Hermes,
    /// Grok's: taw's script and a hooks file of taw's own.
    Grok,
}

pub(crate) const TARGETS: &[Target] = &[
    target(
        ("pi", "Pi", "pi"),
        Folder::Var {
            vars: &["PI_CODING_AGENT_DIR"],
            default: ".pi/agent",
        },
        Writes::Extension {
            file: "taw-agent-state.ts",
        },
    )
    .reporting_state(),
    target(
        ("omp", "OMP", "omp"),
        Folder::Omp,
        Writes::Extension {
            file: "taw-omp-agent-state.ts",
        },
    )
    .reporting_state(),
    target(
        ("claude", "Claude Code", "claude"),
        Folder::Var {
            vars: &["CLAUDE_CONFIG_DIR"],
            default: ".claude",
        },
        Writes::Hooks(Hooked {
            table: HookTable {
                matcher: Some("*"),
                ..GROUPED
            },
            runner: Runner::Shell,
            ..Hooked::session("hooks", "settings.json")
        }),
    ),
    target(
        ("codex", "Codex", "codex"),
        Folder::Var {
            vars: &["CODEX_HOME"],
            default: ".codex",
        },
        Writes::Codex,
    ),
    target(
        ("copilot", "GitHub Copilot CLI", "copilot"),
        Folder::Var {
            vars: &["COPILOT_HOME"],
            default: ".copilot",
        },
        Writes::Hooks(Hooked {
            table: HookTable {
                shape: Shape::Flat {
                    command_key: "bash",
                    typed: true,
                },
                timeout: Some(("timeoutSec", 10)),
                ..GROUPED
            },
            ..Hooked::session("hooks", "settings.json")
        }),
    ),
    target(
        ("devin", "Devin CLI", "devin"),
        Folder::Xdg("devin"),
        Writes::Hooks(Hooked {
            events: &[
                ("SessionStart", "session"),
                ("UserPromptSubmit", "session"),
                ("PreToolUse", "session"),
                ("PostToolUse", "session"),
                ("PermissionRequest", "session"),
                ("Stop", "session"),
            ],
            ..Hooked::session("", "config.json")
        }),
    ),
    target(
        ("droid", "Droid", "droid"),
        Folder::Home(".factory"),
        Writes::Hooks(Hooked::session("hooks", "settings.json")),
    ),
    target(
        ("kimi", "Kimi Code CLI", "kimi"),
        Folder::Var {
            vars: &["KIMI_CODE_HOME"],
            default: ".kimi-code",
        },
        Writes::Kimi,
    )
    .reporting_state(),
    target(
        ("opencode", "OpenCode", "opencode"),
        Folder::Xdg("opencode"),
        Writes::JsPlugin {
            plugins: "plugins",
            opencode_v2: true,
        },
    )
    .reporting_state(),
    target(
        ("kilo", "Kilo Code CLI", "kilo"),
        Folder::Xdg("kilo"),
        Writes::JsPlugin {
            plugins: "plugin",
            opencode_v2: false,
        },
    )
    .reporting_state(),
    target(
        ("hermes", "Hermes Agent", "hermes"),
        Folder::Var {
            vars: &["HERMES_HOME"],
            default: ".hermes",
        },
        Writes::Hermes,
    ),
    target(
        ("qodercli", "Qoder CLI", "qodercli"),
        Folder::Var {
            vars: &["QODER_CONFIG_DIR"],
            default: ".qoder",
        },
        Writes::Hooks(Hooked {
            table: HookTable {
                matcher: Some("*"),
                ..GROUPED
            },
            ..Hooked::session("hooks", "settings.json")
        }),
    ),
    target(
        ("cursor", "Cursor Agent CLI", "cursor"),
        Folder::Var {
            vars: &["CURSOR_CONFIG_DIR"],
            default: ".cursor",
        },
        Writes::Hooks(Hooked {
            table: HookTable {
                shape: Shape::Flat {
                    command_key: "command",
                    typed: false,
                },
                timeout: None,
                preamble: &[("version", 1)],
                ..GROUPED
            },
            events: &[("sessionStart", "session")],
            ..Hooked::session("", "hooks.json")
        }),
    ),
    target(
        ("mastracode", "Mastra Code", "mastracode"),
        Folder::Made(".mastracode"),
        Writes::Hooks(Hooked {
            table: HookTable {
                path: &[],
                shape: Shape::Flat {
                    command_key: "command",
                    typed: true,
                },
                timeout: Some(("timeout", 10_000)),
                extra: &[("description", Extra::Text("Tell taw the agent's state"))],
                ..GROUPED
            },
            events: &[
                ("SessionStart", "session"),
                ("UserPromptSubmit", "working"),
                ("AgentStart", "working"),
                ("PreToolUse", "working"),
                ("PermissionRequest", "blocked"),
                ("PermissionResult", "working"),
                ("SubagentStart", "working"),
                ("SubagentEnd", "working"),
                ("Interrupt", "idle"),
                ("AgentEnd", "idle"),
                ("Stop", "idle"),
            ],
            ..Hooked::session("hooks", "hooks.json")
        }),
    )
    .reporting_state(),
    target(
        ("antigravity-cli", "Antigravity CLI", "agy"),
        Folder::Var {
            vars: &["ANTIGRAVITY_CLI_CONFIG_DIR"],
            default: ".gemini/config",
        },
        Writes::Hooks(Hooked {
            table: HookTable {
                path: &["taw"],
                shape: Shape::Flat {
                    command_key: "command",
                    typed: true,
                },
                ..GROUPED
            },
            events: &[("PreInvocation", "session")],
            ..Hooked::session("hooks", "hooks.json")
        }),
    ),
    target(
        ("grok", "Grok CLI", "grok"),
        Folder::Var {
            vars: &["GROK_CONFIG_DIR", "GROK_HOME"],
            default: ".grok",
        },
        Writes::Grok,
    ),
    target(
        ("letta", "Letta Code", "letta"),
        Folder::Home(".letta"),
        Writes::Hooks(Hooked {
            table: HookTable {
                timeout: Some(("timeout", 10_000)),
                extra: &[("quiet", Extra::Bool(true))],
                ..GROUPED
            },
            ..Hooked::session("hooks", "settings.json")
        }),
    )
    .as_experimental(),
];

/// A target that reports its session only, not experimental, at version 1.
const fn target(
    (id, name, agent): (&'static str, &'static str, &'static str),
    folder: Folder,
    writes: Writes,
) -> Target {
    Target {
        id,
        name,
        agent,
        reports_state: false,
        experimental: false,
        version: 1,
        folder,
        writes,
    }
}

/// A target by the name given: its id, or herdr's socket spelling
/// (`antigravity_cli`).
pub(crate) fn find(name: &str) -> Result<&'static Target> {
    let wanted = name.trim().to_ascii_lowercase().replace('_', "-");
    TARGETS.iter().find(|t| t.id == wanted).ok_or_else(|| {
        let names: Vec<&str> = TARGETS.iter().map(|t| t.id).collect();
        TawError::invalid_argument(format!(
            "no integration for {name:?}; there is one for {}",
            names.join(", ")
        ))
    })
}

impl Target {
    /// The `--source` its reports carry.
    pub(crate) fn source(&self) -> String {
        format!("integration:{}", self.id)
    }

    pub(crate) fn current_version(&self) -> u32 {
        self.version
    }

    /// Its hooks report the agent's state too.
    const fn reporting_state(self) -> Target {
        Target {
            reports_state: true,
            ..self
        }
    }

    const fn as_experimental(self) -> Target {
        Target {
            experimental: true,
            ..self
        }
    }
}

/// A file taw owns whole: a hook script, a plugin, an extension.
#[derive(Debug, Clone)]
pub(crate) struct OwnedFile {
    pub path: PathBuf,
    pub text: String,
    pub executable: bool,
}

/// Everything an install writes, and uninstall takes out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// The agent's config folder.
    pub folder: PathBuf,
    /// taw's own files; the first is the one whose marker status reads.
    pub files: Vec<OwnedFile>,
    /// Edits of the user's files, in order.
    pub edits: Vec<Edit>,
    /// Folders taw made for its files alone, removed when left empty.
    pub own_folders: Vec<PathBuf>,
    /// What the user is to know after an install.
    pub notes: Vec<String>,
    /// Why it cannot be installed here: the agent's folder is not there.
    pub cannot_install: Option<String>,
}

/// Reads a variable of the environment.
type Vars = Box<dyn Fn(&str) -> Option<String>>;

/// Where the process is: its home folder and its variables.
pub(crate) struct Env {
    pub home: PathBuf,
    vars: Vars,
    /// The taw binary hooks fall back to when no other is found.
    pub taw: PathBuf,
}

impl Env {
    pub(crate) fn from_process() -> Result<Env> {
        let home = paths::home_dir().ok_or_else(|| {
            TawError::invalid_argument(
                "HOME is not set, so taw cannot find the agents' config folders",
            )
        })?;
        let taw = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("taw"));
        Ok(Env {
            home,
            vars: Box::new(|name| std::env::var(name).ok().filter(|v| !v.is_empty())),
            taw,
        })
    }

    #[cfg(test)]
    pub(crate) fn fixed(home: &Path, vars: &'static [(&'static str, &'static str)]) -> Env {
        Env {
            home: home.to_path_buf(),
            vars: Box::new(move |name| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }),
            taw: PathBuf::from("/opt/taw/bin/taw"),
        }
    }

    fn var(&self, name: &str) -> Option<String> {
        (self.vars)(name)
    }

    /// A folder a variable names (a leading `~/` read as the home), else
    /// `default` under the home.
    fn folder(&self, vars: &[&str], default: &str) -> PathBuf {
        for name in vars {
            if let Some(value) = self.var(name) {
                return self.expand(&value);
            }
        }
        self.home.join(default)
    }

    /// A folder a variable gives: `~/` is the home, and a relative one is
    /// taken from the folder taw runs in, so that every path in a hook is
    /// whole.
    fn expand(&self, value: &str) -> PathBuf {
        let path = match value.strip_prefix("~/") {
            Some(rest) => self.home.join(rest),
            None if value == "~" => self.home.clone(),
            None => PathBuf::from(value),
        };
        if path.is_absolute() {
            return path;
        }
        std::env::current_dir()
            .map(|dir| dir.join(&path))
            .unwrap_or(path)
    }
}

/// Text with the placeholders of an asset filled in.
fn fill(template: &str, target: &Target, env: &Env) -> String {
    template
        .replace("@FIND_TAW@", FIND_TAW.trim_end())
        .replace("@TARGET@", target.id)
        .replace("@NAME@", target.name)
        .replace("@AGENT@", target.agent)
        .replace("@SOURCE@", &target.source())
        .replace("@VERSION@", &target.version.to_string())
        .replace(
            "@FALLBACK@",
            &crate::text::single_quoted(&env.taw.display().to_string()),
        )
        .replace(
            "@FALLBACK_JSON@",
            &json_string(&env.taw.display().to_string()),
        )
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// The command an agent's hook runs: `sh '<script>' <action>`.
fn hook_command(script: &Path, action: &str) -> String {
    format!(
        "sh {} {action}",
        crate::text::single_quoted(&script.display().to_string())
    )
}

const HOOK_SCRIPT: &str = include_str!("assets/hook.sh");
/// How the plugins and extensions find taw: one copy for all of them.
const FIND_TAW: &str = include_str!("assets/find-taw.js");
const OPENCODE_PLUGIN: &str = include_str!("assets/opencode-plugin.js");
const OPENCODE_V2_PLUGIN: &str = include_str!("assets/opencode-v2.js");
const PI_EXTENSION: &str = include_str!("assets/pi-extension.ts");
const HERMES_MANIFEST: &str = include_str!("assets/hermes-plugin.yaml");
const HERMES_PLUGIN: &str = include_str!("assets/hermes-plugin.py");

/// The script of a shell-hook target, at `path`.
fn script(path: PathBuf, target: &Target, env: &Env) -> OwnedFile {
    OwnedFile {
        path,
        text: fill(HOOK_SCRIPT, target, env),
        executable: true,
    }
}

fn script_name(target: &Target) -> &'static str {
    if target.reports_state {
        "taw-agent-state.sh"
    } else {
        "taw-agent-session.sh"
    }
}

/// Hooks of `table` in `file`, each event running the script with its
/// action.
fn hooks_edit(
    file: PathBuf,
    script: &Path,
    table: HookTable,
    events: &[(&'static str, &'static str)],
    runner: Runner,
    env: &Env,
) -> Edit {
    Edit {
        path: file,
        change: Change::JsonHooks {
            dialect: Dialect::Json,
            table,
            hooks: events
                .iter()
                .map(|(event, action)| Hook {
                    event,
                    command: hook_command(script, action),
                })
                .collect(),
        },
        script: Some(script.to_path_buf()),
        runner,
        home: env.home.clone(),
    }
}

const GROUPED: HookTable = HookTable {
    path: &["hooks"],
    shape: Shape::Grouped,
    matcher: None,
    timeout: Some(("timeout", 10)),
    extra: &[],
    preamble: &[],
};

impl Plan {
    /// The folder must be there to install: the agent is not installed
    /// otherwise.
    fn need(&mut self, folder: &Path, target: &Target, how: &str) {
        if !folder.is_dir() && self.cannot_install.is_none() {
            self.cannot_install = Some(format!(
                "{}'s config folder {} does not exist: install {} and run it once{how}, then install the integration again",
                target.name,
                paths::display(folder),
                target.name
            ));
        }
    }
}

/// What installing `target` writes, where.
pub(crate) fn plan(target: &Target, env: &Env) -> Plan {
    let mut plan = Plan::default();
    let folder = target.folder.path(env);
    let how = target.folder.how_to_move();
    if let Folder::Omp = target.folder {
        refuse_pi_folder(&mut plan, env, &folder);
    }
    // An extension checks its own folder: the agent's may be missing when
    // the extensions' is there.
    let checks_own = matches!(target.writes, Writes::Extension { .. });
    if target.folder.must_exist() && !checks_own {
        plan.need(&folder, target, &how);
    }
    match target.writes {
        Writes::Extension { file } => extension(&mut plan, target, env, folder, file, &how),
        Writes::Hooks(hooks) => hooked(&mut plan, target, env, folder, hooks),
        Writes::Codex => codex(&mut plan, target, env, folder),
        Writes::Kimi => kimi(&mut plan, target, env, folder),
        Writes::JsPlugin {
            plugins,
            opencode_v2,
        } => js_plugin(&mut plan, target, env, folder, plugins, opencode_v2),
        Writes::Hermes => hermes(&mut plan, target, env, folder),
        Writes::Grok => grok(&mut plan, target, env, folder),
    }
    plan
}

impl Folder {
    fn path(&self, env: &Env) -> PathBuf {
        match *self {
            Folder::Var { vars, default } => env.folder(vars, default),
            Folder::Home(path) | Folder::Made(path) => env.home.join(path),
            Folder::Xdg(name) => env
                .var("XDG_CONFIG_HOME")
                .map(|dir| env.expand(&dir))
                .unwrap_or_else(|| env.home.join(".config"))
                .join(name),
            Folder::Omp => match env.var("PI_CODING_AGENT_DIR") {
                Some(dir) => env.expand(&dir),
                None => env
                    .home
                    .join(env.var("PI_CONFIG_DIR").unwrap_or_else(|| ".omp".into()))
                    .join("agent"),
            },
        }
    }

    /// The end of the message when the folder is missing: the variable
    /// that moves it (of several, the last).
    fn how_to_move(&self) -> String {
        match self {
            Folder::Var { vars, .. } => match vars.last() {
                Some(var) => format!(", or set {var}"),
                None => String::new(),
            },
            Folder::Omp => ", or set PI_CONFIG_DIR".into(),
            Folder::Home(_) | Folder::Xdg(_) | Folder::Made(_) => String::new(),
        }
    }

    fn must_exist(&self) -> bool {
        !matches!(self, Folder::Made(_))
    }
}

/// OMP cannot share Pi's folder: one extension would be both agents'.
fn refuse_pi_folder(plan: &mut Plan, env: &Env, omp_dir: &Path) {
    let pi_dir = env.folder(&["PI_CODING_AGENT_DIR"], ".pi/agent");
    if paths::same_place(omp_dir, &pi_dir) {
        plan.cannot_install = Some(format!(
            "Pi and OMP both use {}; give OMP a folder of its own (PI_CONFIG_DIR) before installing its integration",
            paths::display(&omp_dir.join("extensions"))
        ));
    }
}

/// A target whose hooks are taw's script, run from entries in one JSON
/// file of the agent's.
#[derive(Debug, Clone, Copy)]
struct Hooked {
    /// The script's folder under the agent's (`""`: the folder itself).
    script_dir: &'static str,
    /// The file of the agent's the entries go in.
    config: &'static str,
    table: HookTable,
    /// Each event and the action its hook runs the script with.
    events: &'static [(&'static str, &'static str)],
    runner: Runner,
}

impl Hooked {
    /// herdr's usual: a `SessionStart` hook that reports the session.
    const fn session(script_dir: &'static str, config: &'static str) -> Hooked {
        Hooked {
            script_dir,
            config,
            table: GROUPED,
            events: &[("SessionStart", "session")],
            runner: Runner::Direct,
        }
    }
}

/// The script and its entries, in `folder`.
fn hooked(plan: &mut Plan, target: &Target, env: &Env, folder: PathBuf, hooks: Hooked) {
    let path = folder.join(hooks.script_dir).join(script_name(target));
    plan.edits.push(hooks_edit(
        folder.join(hooks.config),
        &path,
        hooks.table,
        hooks.events,
        hooks.runner,
        env,
    ));
    plan.files.push(script(path, target, env));
    plan.folder = folder;
}

/// Codex's hooks, after the edit of config.toml that turns its hooks
/// feature on (the order its edits were always made in).
fn codex(plan: &mut Plan, target: &Target, env: &Env, folder: PathBuf) {
    plan.edits.push(Edit::plain(
        folder.join("config.toml"),
        Change::CodexFeature,
        &env.home,
    ));
    hooked(plan, target, env, folder, Hooked::session("", "hooks.json"));
    plan.notes.push(CODEX_REVIEW.into());
}

/// Kimi's hook tables in its config.toml, running taw's script.
fn kimi(plan: &mut Plan, target: &Target, env: &Env, folder: PathBuf) {
    let path = folder.join("hooks").join(script_name(target));
    plan.edits.push(Edit {
        path: folder.join("config.toml"),
        change: Change::TomlBlock {
            marker: "taw kimi integration".into(),
            body: kimi_hooks(&path),
        },
        script: Some(path.clone()),
        runner: Runner::Direct,
        home: env.home.clone(),
    });
    plan.files.push(script(path, target, env));
    plan.notes
        .push("Kimi Code 0.14.0 or newer runs these hooks".into());
    plan.folder = folder;
}

/// OpenCode's (or Kilo's) plugin, and OpenCode 2's when `opencode_v2`.
fn js_plugin(
    plan: &mut Plan,
    target: &Target,
    env: &Env,
    folder: PathBuf,
    plugins: &str,
    opencode_v2: bool,
) {
    plan.files.push(OwnedFile {
        path: folder.join(plugins).join("taw-agent-state.js"),
        text: fill(OPENCODE_PLUGIN, target, env),
        executable: false,
    });
    if opencode_v2 {
        v2_plugin(plan, target, env, &folder);
    }
    plan.folder = folder;
}

/// OpenCode 2 reads the plugins of the terminal from cli.json, which only
/// its first start makes.
fn v2_plugin(plan: &mut Plan, target: &Target, env: &Env, folder: &Path) {
    let v2 = folder.join("taw-opencode");
    plan.files.push(OwnedFile {
        path: v2.join("tui.js"),
        text: fill(OPENCODE_V2_PLUGIN, target, env),
        executable: false,
    });
    plan.own_folders.push(v2);
    let cli = folder.join("cli.json");
    if cli.exists() {
        plan.edits.push(Edit::plain(
            cli,
            Change::JsonListItem {
                dialect: Dialect::Jsonc,
                key: "plugins",
                item: OPENCODE_V2_ENTRY.into(),
            },
            &env.home,
        ));
    } else {
        plan.notes.push(OPENCODE_V2_NOTE.into());
    }
}

/// Hermes's plugin folder, and the entry in config.yaml that enables it.
fn hermes(plan: &mut Plan, target: &Target, env: &Env, folder: PathBuf) {
    let plugin = folder.join("plugins").join(HERMES_PLUGIN_NAME);
    plan.files.push(OwnedFile {
        path: plugin.join("__init__.py"),
        text: fill(HERMES_PLUGIN, target, env),
        executable: false,
    });
    plan.files.push(OwnedFile {
        path: plugin.join("plugin.yaml"),
        text: fill(HERMES_MANIFEST, target, env),
        executable: false,
    });
    plan.own_folders.push(plugin);
    plan.edits.push(Edit::plain(
        folder.join("config.yaml"),
        Change::YamlEnabled {
            name: HERMES_PLUGIN_NAME.into(),
        },
        &env.home,
    ));
    plan.notes
        .push("restart Hermes so that it loads the plugin".into());
    plan.folder = folder;
}

/// Grok's hooks: taw's script and, beside it, a hooks file all taw's.
fn grok(plan: &mut Plan, target: &Target, env: &Env, folder: PathBuf) {
    let path = folder.join("hooks").join(script_name(target));
    let hooks = serde_json::json!({
        "hooks": {"SessionStart": [{"hooks": [{
            "type": "command",
            "command": hook_command(&path, "session"),
            "timeout": 10,
        }]}]}
    });
    plan.files.push(script(path, target, env));
    plan.files.push(OwnedFile {
        path: folder.join("hooks").join("taw.json"),
        text: serde_json::to_string_pretty(&hooks).unwrap_or_default() + "\n",
        executable: false,
    });
    plan.folder = folder;
}

/// Pi's and OMP's extension in `<agent_dir>/extensions/`, a folder made
/// when only its parent is there.
fn extension(
    plan: &mut Plan,
    target: &Target,
    env: &Env,
    agent_dir: PathBuf,
    file: &str,
    how: &str,
) {
    let extensions = agent_dir.join("extensions");
    if !extensions.is_dir() {
        plan.need(&agent_dir, target, how);
    }
    plan.files.push(OwnedFile {
        path: extensions.join(file),
        text: fill(PI_EXTENSION, target, env),
        executable: false,
    });
    plan.folder = extensions;
}

/// Kimi's hook tables: one per event (and tool), each running the script
/// with the state it means.
fn kimi_hooks(script: &Path) -> String {
    const ASK: &str = "^AskUserQuestion$";
    let entries: &[(&str, Option<&str>, &str)] = &[
        ("SessionStart", None, "session"),
        ("UserPromptSubmit", None, "working"),
        ("PreToolUse", Some("^(?!AskUserQuestion$).*$"), "working"),
        ("PreToolUse", Some(ASK), "blocked"),
        ("PostToolUse", Some(ASK), "working"),
        ("PostToolUseFailure", Some(ASK), "working"),
        ("SubagentStart", None, "working"),
        ("PreCompact", None, "working"),
        ("PermissionRequest", None, "blocked"),
        ("PermissionResult", None, "working"),
        ("Stop", None, "idle"),
        ("Interrupt", None, "idle"),
    ];
    let mut body = String::new();
    for (event, matcher, action) in entries {
        body.push_str("[[hooks]]\n");
        body.push_str(&format!("event = {}\n", toml_string(event)));
        if let Some(matcher) = matcher {
            body.push_str(&format!("matcher = {}\n", toml_string(matcher)));
        }
        body.push_str(&format!(
            "command = {}\ntimeout = 10\n",
            toml_string(&hook_command(script, action))
        ));
    }
    body
}

fn toml_string(text: &str) -> String {
    toml_edit::Value::from(text).to_string().trim().to_string()
}

pub(crate) const CODEX_REVIEW: &str = "Codex runs no new hook until it is trusted: at its next start it says \"Hooks need review\"; choose \"Trust all and continue\" (or review the hooks and trust taw's), or Codex will not report its session to taw";
pub(crate) const OPENCODE_V2_ENTRY: &str = "./taw-opencode";
pub(crate) const OPENCODE_V2_NOTE: &str = "OpenCode 2 has not run here yet (no cli.json): start opencode2 once, then install this integration again so that OpenCode 2 reports too";
pub(crate) const HERMES_PLUGIN_NAME: &str = "taw-agent-session";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_plans_files_that_carry_its_marker() {
        let home = tempfile::tempdir().unwrap();
        let env = Env::fixed(home.path(), &[]);
        for target in TARGETS {
            let plan = plan(target, &env);
            assert!(
                plan.cannot_install.is_some() || target.id == "mastracode",
                "{}",
                target.id
            );
            let main = plan
                .files
                .first()
                .expect("a file whose marker status reads");
            assert!(
                main.text
                    .contains(&format!("TAW_INTEGRATION_ID={}", target.id)),
                "{}",
                target.id
            );
            assert_eq!(
                crate::integration::marker_version(&main.text),
                Some(target.current_version()),
                "{}",
                target.id
            );
            assert!(main.path.starts_with(home.path()));
            for file in &plan.files {
                assert!(
                    !file.text.contains("@TARGET@")
                        && !file.text.contains("@FALLBACK")
                        && !file.text.contains("@FIND_TAW@")
                );
            }
            for edit in &plan.edits {
                if let Some(script) = &edit.script {
                    assert!(
                        plan.files.iter().any(|f| &f.path == script),
                        "{}",
                        target.id
                    );
                }
            }
        }
    }

    #[test]
    fn variables_choose_the_folders() {
        let home = tempfile::tempdir().unwrap();
        let env = Env::fixed(
            home.path(),
            &[
                ("CLAUDE_CONFIG_DIR", "~/elsewhere"),
                ("PI_CODING_AGENT_DIR", "/opt/pi"),
            ],
        );
        let claude = plan(find("claude").unwrap(), &env);
        assert_eq!(
            claude.files[0].path,
            home.path().join("elsewhere/hooks/taw-agent-session.sh")
        );
        let pi = plan(find("pi").unwrap(), &env);
        assert_eq!(
            pi.files[0].path,
            Path::new("/opt/pi/extensions/taw-agent-state.ts")
        );
        // OMP with the same folder as Pi is refused.
        let omp = plan(find("omp").unwrap(), &env);
        assert!(omp.cannot_install.unwrap().contains("Pi and OMP"));
        assert_eq!(find("antigravity_cli").unwrap().agent, "agy");
        assert!(find("nobody").is_err());
    }

    #[test]
    fn hook_commands_quote_the_script() {
        assert_eq!(
            hook_command(Path::new("/h/it's/taw-agent-session.sh"), "session"),
            "sh '/h/it'\\''s/taw-agent-session.sh' session"
        );
    }
}
