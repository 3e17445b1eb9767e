//! The agents taw knows: herdr's canonical ids, names, aliases and the
//! executable `taw agent start` types (reference §5.5).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Agent {
    /// herdr's canonical id (`claude`, `codex`...).
    pub id: &'static str,
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// What `taw agent start` runs.
    pub executable: &'static str,
    /// The whole command `taw agent start` types, where a file that
    /// defines the agent says one (`command = [...]`); else `executable`.
    pub command: &'static [&'static str],
    /// Whether its integration reports state itself (herdr's full
    /// lifecycle sources): then the report wins over the screen.
    pub reports_state: bool,
}

const fn agent(
    id: &'static str,
    name: &'static str,
    aliases: &'static [&'static str],
    executable: &'static str,
    reports_state: bool,
) -> Agent {
    Agent {
        id,
        name,
        aliases,
        executable,
        command: &[],
        reports_state,
    }
}

pub(crate) const AGENTS: &[Agent] = &[
    agent("pi", "Pi", &["herdr:pi"], "pi", true),
    agent("claude", "Claude Code", &["claude-code"], "claude", false),
    agent("codex", "Codex", &[], "codex", false),
    agent("gemini", "Gemini CLI", &["gemini-cli"], "gemini", false),
    agent(
        "cursor",
        "Cursor Agent CLI",
        &["cursor-agent"],
        "cursor-agent",
        false,
    ),
    agent(
        "devin",
        "Devin CLI",
        &["devin-cli", "devin cli"],
        "devin",
        false,
    ),
    agent(
        "agy",
        "Antigravity CLI",
        &["antigravity", "antigravity-cli", "antigravity_cli"],
        "agy",
        false,
    ),
    agent("cline", "Cline", &[], "cline", false),
    agent("omp", "OMP", &[], "omp", true),
    agent(
        "mastracode",
        "MastraCode",
        &["mastra-code", "mastra code"],
        "mastracode",
        true,
    ),
    agent(
        "opencode",
        "OpenCode",
        &["opencode2", "open-code", "open_code"],
        "opencode",
        true,
    ),
    agent(
        "copilot",
        "GitHub Copilot CLI",
        &["github-copilot", "github_copilot", "ghcs"],
        "copilot",
        false,
    ),
    agent(
        "kimi",
        "Kimi Code CLI",
        &["kimi-code", "kimi code"],
        "kimi",
        true,
    ),
    agent("kiro", "Kiro CLI", &["kiro-cli"], "kiro-cli", false),
    agent("droid", "Droid", &[], "droid", false),
    agent("amp", "Amp", &["amp-local"], "amp", false),
    agent("grok", "Grok CLI", &["grok-build"], "grok", false),
    agent("hermes", "Hermes Agent", &["hermes-agent"], "hermes", false),
    agent(
        "kilo",
        "Kilo Code CLI",
        &["kilo-code", "kilo code"],
        "kilo",
        true,
    ),
    agent(
        "qodercli",
        "Qoder CLI",
        &["qoderclicn", "qoder", "qodercn"],
        "qodercli",
        false,
    ),
    agent("maki", "Maki", &[], "maki", false),
    // Not one of herdr's: taw reads it from its screen alone.
    agent("qwen", "Qwen Code", &["qwen-code"], "qwen", false),
    // Agents of herdr's later releases and its detection catalogue; their
    // rules are taw's own, from what each one's screen shows.
    agent(
        "muse",
        "Muse Code",
        &["muse-code", "muse-cli"],
        "muse",
        false,
    ),
    agent(
        "minimax",
        "MiniMax Code",
        &["minimax-code", "minimax code", "mcode"],
        "mcode",
        false,
    ),
    agent("reasonix", "Reasonix", &["reasonix-cli"], "reasonix", false),
    agent(
        "codebuddy",
        "CodeBuddy Code",
        &["codebuddy-code", "cbc", "workbuddy"],
        "codebuddy",
        false,
    ),
    agent(
        "commandcode",
        "Command Code",
        &["command-code", "command code", "cmdcode", "cmd"],
        "cmd",
        false,
    ),
    agent("goose", "Goose", &["goose-cli"], "goose", false),
    agent("bob", "Bob Shell", &["bobshell", "bob-shell"], "bob", false),
];

/// Programs named with their release after a fixed stem (Muse Code's
/// launcher runs `muse-bin-0.1.0-R708.1`): the stem, then a digit.
const VERSIONED: &[(&str, &str)] = &[("muse-bin-", "muse")];

/// The agent a name stands for: a canonical id or an alias, any case, with
/// an executable's extension (`.exe`, `.cmd`, `.bat`, `.ps1`, `.js`) taken
/// off. A built-in agent first, then one the user's files define (the
/// programs that run it are its aliases).
pub(crate) fn lookup(name: &str) -> Option<&'static Agent> {
    let name = normalize(name);
    if name.is_empty() {
        return None;
    }
    all()
        .find(|agent| agent.id == name || agent.aliases.contains(&name.as_str()))
        .or_else(|| {
            let (_, id) = VERSIONED.iter().find(|(stem, _)| {
                name.strip_prefix(stem)
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
            })?;
            by_id(id)
        })
}

/// Every agent: the built-in ones, then those the user's files define.
pub(crate) fn all() -> impl Iterator<Item = &'static Agent> {
    AGENTS.iter().chain(defined())
}

/// Every agent's id, for a message that lists them: `claude, codex, ...`.
pub(crate) fn id_list() -> String {
    all().map(|a| a.id).collect::<Vec<_>>().join(", ")
}

/// An agent by its canonical id.
pub(crate) fn by_id(id: &str) -> Option<&'static Agent> {
    all().find(|agent| agent.id == id)
}

/// The agents the user's files define, read once a process (and again by
/// [`reload_defined`]: a watcher whose config moved).
static DEFINED: std::sync::RwLock<Option<Vec<&'static Agent>>> = std::sync::RwLock::new(None);

fn defined() -> Vec<&'static Agent> {
    if let Some(list) = DEFINED.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return list.clone();
    }
    let list = read_defined(&crate::paths::manifests_dir());
    *DEFINED.write().unwrap_or_else(|e| e.into_inner()) = Some(list.clone());
    list
}

/// Reads the user's definitions again.
pub(crate) fn reload_defined() {
    *DEFINED.write().unwrap_or_else(|e| e.into_inner()) = None;
}

/// The agents defined in `dir`: each `<id>.toml` whose id no built-in
/// agent has and that names the programs that run it. A file that does
/// not parse defines nothing (`taw manifest list` and `config check` say
/// why). Kept for the life of the process: a process reads few.
pub(crate) fn read_defined(dir: &std::path::Path) -> Vec<&'static Agent> {
    let leak = |text: &str| -> &'static str { Box::leak(text.to_string().into_boxed_str()) };
    let mut found: Vec<&'static Agent> = Vec::new();
    for path in super::registry::manifest_files(dir) {
        let Some(manifest) = std::fs::read_to_string(&path).ok().and_then(|text| {
            super::manifest::Manifest::parse(&text, super::manifest::RuleSource::Manifest).ok()
        }) else {
            continue;
        };
        let defines = &manifest.defines;
        let id = normalize(&manifest.id);
        // Found by its id, as an override is: `<id>.toml`.
        if path.file_stem().is_none_or(|stem| stem != id.as_str()) {
            continue;
        }
        let taken = AGENTS
            .iter()
            .any(|a| a.id == id || a.aliases.contains(&id.as_str()))
            || found.iter().any(|a| a.id == id);
        if defines.processes.is_empty() || taken {
            continue;
        }
        let names: Vec<&'static str> = defines
            .processes
            .iter()
            .chain(&manifest.aliases)
            .map(|name| leak(&normalize(name)))
            .filter(|name| *name != id)
            .collect();
        let executable = defines.command.first().unwrap_or(&defines.processes[0]);
        found.push(Box::leak(Box::new(Agent {
            id: leak(&id),
            name: leak(defines.name.as_deref().unwrap_or(&manifest.id)),
            aliases: Box::leak(names.into_boxed_slice()),
            executable: leak(executable),
            command: Box::leak(
                defines
                    .command
                    .iter()
                    .map(|word| leak(word))
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            ),
            reports_state: false,
        })));
    }
    found
}

/// Lower-case, trimmed, one executable extension off.
pub(crate) fn normalize(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    for extension in [".exe", ".cmd", ".bat", ".ps1", ".js", ".mjs", ".cjs"] {
        if let Some(stem) = lower.strip_suffix(extension)
            && !stem.is_empty()
        {
            return stem.to_string();
        }
    }
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_versioned_program_is_its_agent() {
        assert_eq!(lookup("muse-bin-0.1.0-R708.1").unwrap().id, "muse");
        assert_eq!(lookup("muse").unwrap().id, "muse");
        assert!(lookup("muse-bin-").is_none());
        assert!(lookup("muse-binary").is_none());
    }

    #[test]
    fn lookup_by_id_alias_and_extension() {
        assert_eq!(lookup("claude").unwrap().id, "claude");
        assert_eq!(lookup("Claude-Code").unwrap().id, "claude");
        assert_eq!(lookup("cursor-agent.exe").unwrap().id, "cursor");
        assert_eq!(lookup("claude.js").unwrap().id, "claude");
        assert!(lookup("bash").is_none());
        assert!(lookup("").is_none());
    }

    #[test]
    fn ids_and_aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for agent in AGENTS {
            assert!(seen.insert(agent.id), "{}", agent.id);
            for alias in agent.aliases {
                assert!(seen.insert(alias), "{alias}");
            }
        }
    }
}
