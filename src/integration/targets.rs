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
}

pub(crate) const TARGETS: &[Target] = &[
    target("pi", "Pi", "pi", true, false),
    target("omp", "OMP", "omp", true, false),
    target("claude", "Claude Code", "claude", false, false),
    target("codex", "Codex", "codex", false, false),
    target("copilot", "GitHub Copilot CLI", "copilot", false, false),
    target("devin", "Devin CLI", "devin", false, false),
    target("droid", "Droid", "droid", false, false),
    target("kimi", "Kimi Code CLI", "kimi", true, false),
    target("opencode", "OpenCode", "opencode", true, false),
    target("kilo", "Kilo Code CLI", "kilo", true, false),
    target("hermes", "Hermes Agent", "hermes", false, false),
    target("qodercli", "Qoder CLI", "qodercli", false, false),
    target("cursor", "Cursor Agent CLI", "cursor", false, false),
    target("mastracode", "Mastra Code", "mastracode", true, false),
    target("antigravity-cli", "Antigravity CLI", "agy", false, false),
    target("grok", "Grok CLI", "grok", false, false),
    target("letta", "Letta Code", "letta", false, true),
];

const fn target(
    id: &'static str,
    name: &'static str,
    agent: &'static str,
    reports_state: bool,
    experimental: bool,
) -> Target {
    Target {
        id,
        name,
        agent,
        reports_state,
        experimental,
        version: 1,
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
    /// The folder, which must be there to install: the agent is not
    /// installed otherwise.
    fn need(&mut self, folder: PathBuf, target: &Target, how: &str) -> PathBuf {
        if !folder.is_dir() && self.cannot_install.is_none() {
            self.cannot_install = Some(format!(
                "{}'s config folder {} does not exist: install {} and run it once{how}, then install the integration again",
                target.name,
                paths::display(&folder),
                target.name
            ));
        }
        folder
    }
}

/// What installing `target` writes, where.
pub(crate) fn plan(target: &Target, env: &Env) -> Result<Plan> {
    let mut plan = Plan::default();
    match target.id {
        "pi" => {
            let agent_dir = env.folder(&["PI_CODING_AGENT_DIR"], ".pi/agent");
            extension(
                &mut plan,
                target,
                env,
                agent_dir,
                "taw-agent-state.ts",
                ", or set PI_CODING_AGENT_DIR",
            );
        }
        "omp" => {
            let agent_dir = match env.var("PI_CODING_AGENT_DIR") {
                Some(dir) => env.expand(&dir),
                None => env
                    .home
                    .join(env.var("PI_CONFIG_DIR").unwrap_or_else(|| ".omp".into()))
                    .join("agent"),
            };
            let pi_dir = env.folder(&["PI_CODING_AGENT_DIR"], ".pi/agent");
            if paths::same_place(&agent_dir, &pi_dir) {
                plan.cannot_install = Some(format!(
                    "Pi and OMP both use {}; give OMP a folder of its own (PI_CONFIG_DIR) before installing its integration",
                    paths::display(&agent_dir.join("extensions"))
                ));
            }
            extension(
                &mut plan,
                target,
                env,
                agent_dir,
                "taw-omp-agent-state.ts",
                ", or set PI_CONFIG_DIR",
            );
        }
        "claude" => {
            let folder = plan.need(
                env.folder(&["CLAUDE_CONFIG_DIR"], ".claude"),
                target,
                ", or set CLAUDE_CONFIG_DIR",
            );
            let hooks = Hooked {
                table: HookTable {
                    matcher: Some("*"),
                    ..GROUPED
                },
                runner: Runner::Shell,
                ..Hooked::session("hooks", "settings.json")
            };
            hooked(&mut plan, target, env, folder, hooks);
        }
        "codex" => {
            let folder = plan.need(
                env.folder(&["CODEX_HOME"], ".codex"),
                target,
                ", or set CODEX_HOME",
            );
            plan.edits.push(Edit::plain(
                folder.join("config.toml"),
                Change::CodexFeature,
                &env.home,
            ));
            hooked(
                &mut plan,
                target,
                env,
                folder,
                Hooked::session("", "hooks.json"),
            );
            plan.notes.push(CODEX_REVIEW.into());
        }
        "copilot" => {
            let folder = plan.need(
                env.folder(&["COPILOT_HOME"], ".copilot"),
                target,
                ", or set COPILOT_HOME",
            );
            let hooks = Hooked {
                table: HookTable {
                    shape: Shape::Flat {
                        command_key: "bash",
                        typed: true,
                    },
                    timeout: Some(("timeoutSec", 10)),
                    ..GROUPED
                },
                ..Hooked::session("hooks", "settings.json")
            };
            hooked(&mut plan, target, env, folder, hooks);
        }
        "devin" => {
            let folder = plan.need(
                env.var("XDG_CONFIG_HOME")
                    .map(|d| env.expand(&d).join("devin"))
                    .unwrap_or_else(|| env.home.join(".config/devin")),
                target,
                "",
            );
            let hooks = Hooked {
                events: &[
                    ("SessionStart", "session"),
                    ("UserPromptSubmit", "session"),
                    ("PreToolUse", "session"),
                    ("PostToolUse", "session"),
                    ("PermissionRequest", "session"),
                    ("Stop", "session"),
                ],
                ..Hooked::session("", "config.json")
            };
            hooked(&mut plan, target, env, folder, hooks);
        }
        "droid" => {
            let folder = plan.need(env.home.join(".factory"), target, "");
            hooked(
                &mut plan,
                target,
                env,
                folder,
                Hooked::session("hooks", "settings.json"),
            );
        }
        "qodercli" => {
            let folder = plan.need(
                env.folder(&["QODER_CONFIG_DIR"], ".qoder"),
                target,
                ", or set QODER_CONFIG_DIR",
            );
            let hooks = Hooked {
                table: HookTable {
                    matcher: Some("*"),
                    ..GROUPED
                },
                ..Hooked::session("hooks", "settings.json")
            };
            hooked(&mut plan, target, env, folder, hooks);
        }
        "kimi" => {
            let folder = plan.need(
                env.folder(&["KIMI_CODE_HOME"], ".kimi-code"),
                target,
                ", or set KIMI_CODE_HOME",
            );
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
        "opencode" | "kilo" => {
            let config = env
                .var("XDG_CONFIG_HOME")
                .map(|d| env.expand(&d))
                .unwrap_or_else(|| env.home.join(".config"));
            let folder = plan.need(config.join(target.id), target, "");
            let plugins = folder.join(if target.id == "opencode" {
                "plugins"
            } else {
                "plugin"
            });
            plan.files.push(OwnedFile {
                path: plugins.join("taw-agent-state.js"),
                text: fill(OPENCODE_PLUGIN, target, env),
                executable: false,
            });
            if target.id == "opencode" {
                // OpenCode 2 reads the plugins of the terminal from
                // cli.json, which only its first start makes.
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
            plan.folder = folder;
        }
        "hermes" => {
            let folder = plan.need(
                env.folder(&["HERMES_HOME"], ".hermes"),
                target,
                ", or set HERMES_HOME",
            );
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
        "cursor" => {
            let folder = plan.need(
                env.folder(&["CURSOR_CONFIG_DIR"], ".cursor"),
                target,
                ", or set CURSOR_CONFIG_DIR",
            );
            let hooks = Hooked {
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
            };
            hooked(&mut plan, target, env, folder, hooks);
        }
        "mastracode" => {
            // Mastra Code's folder is made when missing (herdr's rule).
            let folder = env.home.join(".mastracode");
            let hooks = Hooked {
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
            };
            hooked(&mut plan, target, env, folder, hooks);
        }
        "antigravity-cli" => {
            let folder = plan.need(
                env.folder(&["ANTIGRAVITY_CLI_CONFIG_DIR"], ".gemini/config"),
                target,
                ", or set ANTIGRAVITY_CLI_CONFIG_DIR",
            );
            let hooks = Hooked {
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
            };
            hooked(&mut plan, target, env, folder, hooks);
        }
        "grok" => {
            let folder = plan.need(
                env.folder(&["GROK_CONFIG_DIR", "GROK_HOME"], ".grok"),
                target,
                ", or set GROK_HOME",
            );
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
        "letta" => {
            let folder = plan.need(env.home.join(".letta"), target, "");
            let hooks = Hooked {
                table: HookTable {
                    timeout: Some(("timeout", 10_000)),
                    extra: &[("quiet", Extra::Bool(true))],
                    ..GROUPED
                },
                ..Hooked::session("hooks", "settings.json")
            };
            hooked(&mut plan, target, env, folder, hooks);
        }
        other => {
            return Err(TawError::invalid_argument(format!(
                "no integration for {other:?}"
            )));
        }
    }
    Ok(plan)
}

/// A target whose hooks are taw's script, run from entries in one JSON
/// file of the agent's.
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
    fn session(script_dir: &'static str, config: &'static str) -> Hooked {
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
        plan.need(agent_dir, target, how);
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
            let plan = plan(target, &env).unwrap();
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
        let claude = plan(find("claude").unwrap(), &env).unwrap();
        assert_eq!(
            claude.files[0].path,
            home.path().join("elsewhere/hooks/taw-agent-session.sh")
        );
        let pi = plan(find("pi").unwrap(), &env).unwrap();
        assert_eq!(
            pi.files[0].path,
            Path::new("/opt/pi/extensions/taw-agent-state.ts")
        );
        // OMP with the same folder as Pi is refused.
        let omp = plan(find("omp").unwrap(), &env).unwrap();
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
