//! The command that resumes an agent's conversation, from what a saved
//! layout says of it: the command its integration reported, else the one
//! each agent takes (herdr's table), with Claude Code's profile and flags.

use crate::saved::SavedAgent;
use crate::tmux::shell_quote;
use std::path::Path;

/// A command line to type at a shell's prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResumeLine {
    /// `NAME=value` words before the command.
    pub env: Vec<(String, String)>,
    pub argv: Vec<String>,
    /// A whole line as typed before (`taw agent start`'s), instead.
    pub typed: Option<String>,
}

impl ResumeLine {
    /// The line as a shell reads it, every word quoted where it needs it.
    pub(crate) fn line(&self) -> String {
        if let Some(typed) = &self.typed {
            return typed.clone();
        }
        self.env
            .iter()
            .map(|(name, value)| format!("{name}={}", shell_quote(value)))
            .chain(self.argv.iter().map(|word| shell_quote(word)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Why an agent is not resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NoResume {
    /// Its integration reported no session.
    NoSession,
    /// taw knows no command that resumes this agent.
    Unsupported,
    /// The transcript the saved path names is gone.
    TranscriptGone(String),
}

impl NoResume {
    pub(crate) fn words(&self, kind: &str) -> String {
        match self {
            NoResume::NoSession => format!("{kind} reported no session to resume"),
            NoResume::Unsupported => format!("taw knows no way to resume {kind}"),
            NoResume::TranscriptGone(path) => {
                format!("the transcript {path} of its session is gone")
            }
        }
    }
}

/// The command that resumes `agent`, with `home` the home folder
/// (Claude's default profile is `<home>/.claude`).
pub(crate) fn resume_line(
    agent: &SavedAgent,
    home: &Path,
) -> std::result::Result<ResumeLine, NoResume> {
    if !agent.resume.is_empty() {
        return Ok(ResumeLine {
            env: Vec::new(),
            argv: agent.resume.clone(),
            typed: None,
        });
    }
    let id = agent.session_id.as_deref().filter(|id| !id.is_empty());
    let path = agent.session_path.as_deref().filter(|p| !p.is_empty());
    // A saved transcript that is gone would resume nothing.
    if let Some(path) = path
        && Path::new(path).is_absolute()
        && !Path::new(path).exists()
        && matches!(agent.kind.as_str(), "claude" | "pi" | "omp")
    {
        return Err(NoResume::TranscriptGone(path.to_string()));
    }
    let plain = |words: &[&str]| ResumeLine {
        env: Vec::new(),
        argv: words.iter().map(|w| w.to_string()).collect(),
        typed: None,
    };
    let needs_id = || id.ok_or(NoResume::NoSession);
    // No session, but `taw agent start` started it: started again plain.
    if id.is_none()
        && path.is_none()
        && let Some(started) = agent.started.as_deref().filter(|s| !s.is_empty())
    {
        return Ok(ResumeLine {
            env: Vec::new(),
            argv: Vec::new(),
            typed: Some(started.to_string()),
        });
    }
    Ok(match agent.kind.as_str() {
        "claude" => {
            let id = needs_id()?;
            let mut argv = vec!["claude".to_string()];
            argv.extend(agent.agent_claude_flags.iter().cloned());
            argv.extend(["--resume".to_string(), id.to_string()]);
            let env = claude_profile(path, home)
                .map(|profile| vec![("CLAUDE_CONFIG_DIR".to_string(), profile)])
                .unwrap_or_default();
            ResumeLine {
                env,
                argv,
                typed: None,
            }
        }
        "codex" => plain(&["codex", "resume", needs_id()?]),
        "copilot" => plain(&["copilot", &format!("--resume={}", needs_id()?)]),
        "devin" => plain(&["devin", "--resume", needs_id()?]),
        "droid" => plain(&["droid", "--resume", needs_id()?]),
        "kimi" => plain(&["kimi", "--session", needs_id()?]),
        "mastracode" => plain(&["mastracode", "--thread", needs_id()?]),
        "pi" => plain(&["pi", "--session", path.or(id).ok_or(NoResume::NoSession)?]),
        "omp" => plain(&[
            "omp",
            &format!("--resume={}", path.or(id).ok_or(NoResume::NoSession)?),
        ]),
        "hermes" => plain(&["hermes", "--resume", needs_id()?]),
        "opencode" => plain(&["opencode", "--session", needs_id()?]),
        "kilo" => plain(&["kilo", "--session", needs_id()?]),
        "qodercli" => plain(&["qodercli", "--resume", needs_id()?]),
        "cursor" => plain(&["cursor-agent", "--resume", needs_id()?]),
        "agy" => plain(&["agy", "--conversation", needs_id()?]),
        "grok" => plain(&["grok", "--resume", needs_id()?]),
        "gemini" => plain(&["gemini", "--resume", needs_id()?]),
        "letta" => match needs_id()?.strip_prefix("default:") {
            Some(agent_id) => plain(&["letta", "--conversation", "default", "--agent", agent_id]),
            None => plain(&["letta", "--conversation", needs_id()?]),
        },
        _ => return Err(NoResume::Unsupported),
    })
}

/// The profile a Claude transcript belongs to: the folder above
/// `projects/` in `<profile>/projects/<project>/<id>.jsonl` (absolute,
/// exactly those levels), unless it is the default `<home>/.claude`.
fn claude_profile(path: Option<&str>, home: &Path) -> Option<String> {
    let path = Path::new(path?);
    if !path.is_absolute() || path.extension().is_none_or(|e| e != "jsonl") {
        return None;
    }
    let project = path.parent()?;
    let projects = project.parent()?;
    if projects.file_name()? != "projects" {
        return None;
    }
    let profile = projects.parent()?;
    if profile == home.join(".claude") || profile.as_os_str().is_empty() {
        return None;
    }
    Some(profile.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(kind: &str, id: Option<&str>, path: Option<&str>) -> SavedAgent {
        SavedAgent {
            kind: kind.into(),
            session_id: id.map(Into::into),
            session_path: path.map(Into::into),
            ..SavedAgent::default()
        }
    }

    #[test]
    fn each_agent_has_its_own_words() {
        let home = Path::new("/home/you");
        let line = |a: &SavedAgent| resume_line(a, home).map(|l| l.line());
        assert_eq!(
            line(&agent("codex", Some("t1"), None)),
            Ok("codex resume t1".into())
        );
        assert_eq!(
            line(&agent("copilot", Some("c 1"), None)),
            Ok("copilot '--resume=c 1'".into())
        );
        assert_eq!(
            line(&agent("opencode", Some("ses_1"), None)),
            Ok("opencode --session ses_1".into())
        );
        assert_eq!(
            line(&agent("letta", Some("default:agent-7"), None)),
            Ok("letta --conversation default --agent agent-7".into())
        );
        assert_eq!(line(&agent("codex", None, None)), Err(NoResume::NoSession));
        // Started by `taw agent start`, no session: started again plain.
        let mut started = agent("codex", None, None);
        started.started = Some("codex --model o3".into());
        assert_eq!(line(&started), Ok("codex --model o3".into()));
        assert_eq!(
            line(&agent("amp", Some("x"), None)),
            Err(NoResume::Unsupported)
        );
        // What its integration reported comes first.
        let mut reported = agent("mybot", None, None);
        reported.resume = vec!["mybot".into(), "--resume".into(), "4 2".into()];
        assert_eq!(line(&reported), Ok("mybot --resume '4 2'".into()));
    }

    #[test]
    fn claude_gets_its_profile_and_flags() {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path();
        let alt = home.join(".claude-alt/projects/-src-api");
        std::fs::create_dir_all(&alt).unwrap();
        let transcript = alt.join("abc.jsonl");
        std::fs::write(&transcript, "{}\n").unwrap();
        let mut claude = agent(
            "claude",
            Some("abc"),
            Some(&transcript.display().to_string()),
        );
        claude.agent_claude_flags = vec!["--model".into(), "opus".into()];
        let line = resume_line(&claude, home).unwrap().line();
        assert_eq!(
            line,
            format!(
                "CLAUDE_CONFIG_DIR={} claude --model opus --resume abc",
                shell_quote(&home.join(".claude-alt").display().to_string())
            )
        );
        // The default profile, and a path of another shape: no profile.
        let default = home.join(".claude/projects/p");
        std::fs::create_dir_all(&default).unwrap();
        std::fs::write(default.join("abc.jsonl"), "").unwrap();
        let plain = agent(
            "claude",
            Some("abc"),
            Some(&default.join("abc.jsonl").display().to_string()),
        );
        assert_eq!(
            resume_line(&plain, home).unwrap().line(),
            "claude --resume abc"
        );
        // A transcript that is gone.
        let gone = agent("claude", Some("abc"), Some("/nowhere/projects/p/abc.jsonl"));
        assert!(matches!(
            resume_line(&gone, home),
            Err(NoResume::TranscriptGone(_))
        ));
    }
}
