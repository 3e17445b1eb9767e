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
];

/// The agent a name stands for: a canonical id or an alias, any case, with
/// an executable's extension (`.exe`, `.cmd`, `.bat`, `.ps1`, `.js`) taken off.
pub(crate) fn lookup(name: &str) -> Option<&'static Agent> {
    let name = normalize(name);
    if name.is_empty() {
        return None;
    }
    AGENTS
        .iter()
        .find(|agent| agent.id == name || agent.aliases.contains(&name.as_str()))
}

/// An agent by its canonical id.
/// Every agent's id, for a message that lists them: `claude, codex, ...`.
pub(crate) fn id_list() -> String {
    AGENTS.iter().map(|a| a.id).collect::<Vec<_>>().join(", ")
}

pub(crate) fn by_id(id: &str) -> Option<&'static Agent> {
    AGENTS.iter().find(|agent| agent.id == id)
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
