//! The command that resumes an agent's conversation, from what a saved
//! layout says of it: the command its integration reported, else the one
//! each agent takes (herdr's table), with Claude Code's profile and flags.

use crate::sessions::saved::SavedAgent;
use crate::text::shell_word;
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
            .map(|(name, value)| format!("{name}={}", shell_word(value)))
            .chain(self.argv.iter().map(|word| shell_word(word)))
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
    /// The saved id would read as an option of the agent's command.
    FlagLikeId(String),
}

impl NoResume {
    pub(crate) fn words(&self, kind: &str) -> String {
        match self {
            NoResume::NoSession => format!("{kind} reported no session to resume"),
            NoResume::Unsupported => format!("taw knows no way to resume {kind}"),
            NoResume::TranscriptGone(path) => {
                format!("the transcript {path} of its session is gone")
            }
            NoResume::FlagLikeId(id) => {
                format!("its session id {id:?} would read as an option, not an id")
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
    // In its container again; the pane's own `taw` word is put in when
    // the line is typed.
    if let Some(kept) = &agent.sandbox {
        return Ok(ResumeLine {
            env: Vec::new(),
            argv: Vec::new(),
            typed: Some(kept.line("taw")),
        });
    }
    if !agent.resume.is_empty() {
        return Ok(ResumeLine {
            env: Vec::new(),
            argv: agent.resume.clone(),
            typed: None,
        });
    }
    let id = agent.session_id.as_deref().filter(|id| !id.is_empty());
    let path = agent.session_path.as_deref().filter(|p| !p.is_empty());
    // An id is a word after an option or a subcommand: one that starts
    // with `-` would be taken as another option (an edited file's, say).
    if let Some(id) = id.filter(|id| id.starts_with('-')) {
        return Err(NoResume::FlagLikeId(id.to_string()));
    }
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
            let effort = path
                .filter(|p| claude_transcript_profile(p).is_some())
                .and_then(|p| last_turn_effort(Path::new(p)));
            argv.extend(with_effort(&agent.agent_claude_flags, effort));
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
        "muse" => plain(&["muse", "resume", needs_id()?]),
        "reasonix" => plain(&["reasonix", "--resume", needs_id()?]),
        "codebuddy" => plain(&["codebuddy", "--resume", needs_id()?]),
        "commandcode" => plain(&["cmd", "--resume", needs_id()?]),
        "goose" => plain(&["goose", "session", "--resume", "--session-id", needs_id()?]),
        "bob" => plain(&["bob", "--resume", needs_id()?]),
        "letta" => match needs_id()?.strip_prefix("default:") {
            Some(agent_id) => plain(&["letta", "--conversation", "default", "--agent", agent_id]),
            None => plain(&["letta", "--conversation", needs_id()?]),
        },
        _ => return Err(NoResume::Unsupported),
    })
}

/// The profile to name for a Claude transcript, unless it is the
/// default `<home>/.claude`.
fn claude_profile(path: Option<&str>, home: &Path) -> Option<String> {
    let profile = claude_transcript_profile(path?)?;
    (profile != home.join(".claude")).then(|| profile.display().to_string())
}

/// The profile a Claude transcript belongs to: the folder above
/// `projects/` in `<profile>/projects/<project>/<id>.jsonl` (absolute,
/// exactly those levels).
fn claude_transcript_profile(path: &str) -> Option<&Path> {
    let path = Path::new(path);
    if !path.is_absolute() || path.extension().is_none_or(|e| e != "jsonl") {
        return None;
    }
    let projects = path.parent()?.parent()?;
    if projects.file_name()? != "projects" {
        return None;
    }
    projects.parent().filter(|p| !p.as_os_str().is_empty())
}

/// How much of a transcript's end is read for its last turn's effort.
const EFFORT_TAIL_BYTES: u64 = 2 * 1024 * 1024;

/// The effort level the last turn of a Claude transcript ran at: that of
/// the last assistant record giving one in the file's last 2 MiB, its
/// `perTurnEffort`, or its `effort` when that is null. `/effort` changes
/// it inside a session, where no command line shows it.
fn last_turn_effort(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    // Asked before opening: a FIFO at that path would hold the open.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let start = meta.len().saturating_sub(EFFORT_TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut tail = Vec::new();
    file.take(EFFORT_TAIL_BYTES).read_to_end(&mut tail).ok()?;
    let mut lines = tail.split(|b| *b == b'\n');
    if start > 0 {
        lines.next(); // begun before the tail: not a whole record
    }
    let lines: Vec<&[u8]> = lines.collect();
    lines.into_iter().rev().find_map(turn_effort)
}

/// The effort one transcript line gives, if it is a turn record with one.
fn turn_effort(line: &[u8]) -> Option<String> {
    let record: serde_json::Value = serde_json::from_slice(line).ok()?;
    if record.get("type")?.as_str()? != "assistant" {
        return None;
    }
    let level = match record.get("perTurnEffort") {
        Some(serde_json::Value::String(level)) => level,
        None | Some(serde_json::Value::Null) => record.get("effort")?.as_str()?,
        Some(_) => return None,
    };
    // A level is a short word; anything else is no level to type.
    let word = !level.is_empty()
        && level.len() <= 32
        && level
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    word.then(|| level.to_string())
}

/// Claude's saved flags with `--effort` set to `effort` when its
/// transcript gave one (in place of a saved one, else first).
fn with_effort(flags: &[String], effort: Option<String>) -> Vec<String> {
    let Some(effort) = effort else {
        return flags.to_vec();
    };
    let mut out = Vec::with_capacity(flags.len() + 2);
    let mut words = flags.iter();
    let mut placed = false;
    while let Some(word) = words.next() {
        if word == "--effort" {
            words.next();
            out.extend(["--effort".to_string(), effort.clone()]);
            placed = true;
        } else if word.starts_with("--effort=") {
            out.push(format!("--effort={effort}"));
            placed = true;
        } else {
            out.push(word.clone());
        }
    }
    if !placed {
        out.splice(0..0, ["--effort".to_string(), effort]);
    }
    out
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
        // An id that would be read as an option resumes nothing.
        assert_eq!(
            line(&agent("codex", Some("--dangerously-bypass"), None)),
            Err(NoResume::FlagLikeId("--dangerously-bypass".into()))
        );
        // The agents added in issue 39.
        let lines = [
            ("muse", "muse resume u1"),
            ("reasonix", "reasonix --resume u1"),
            ("codebuddy", "codebuddy --resume u1"),
            ("commandcode", "cmd --resume u1"),
            ("goose", "goose session --resume --session-id u1"),
            ("bob", "bob --resume u1"),
        ];
        for (kind, want) in lines {
            assert_eq!(line(&agent(kind, Some("u1"), None)), Ok(want.into()));
        }
        assert_eq!(
            line(&agent("minimax", Some("u1"), None)),
            Err(NoResume::Unsupported)
        );
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
                shell_word(&home.join(".claude-alt").display().to_string())
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
        // The effort of the last turn, from the transcript, over the
        // saved one; none said there: the saved one.
        let turns = [
            r#"{"type":"assistant","effort":"high","perTurnEffort":"high"}"#,
            r#"{"type":"assistant","effort":"low","perTurnEffort":null}"#,
            r#"{"type":"system","effort":"max"}"#,
            "not json",
        ];
        std::fs::write(&transcript, turns.join("\n")).unwrap();
        claude.agent_claude_flags = vec![
            "--effort".into(),
            "max".into(),
            "--model".into(),
            "x".into(),
        ];
        let typed = resume_line(&claude, home).unwrap().argv;
        assert_eq!(typed[..5], ["claude", "--effort", "low", "--model", "x"]);
        claude.agent_claude_flags = vec!["--effort=max".into()];
        let typed = resume_line(&claude, home).unwrap().argv;
        assert_eq!(typed[1], "--effort=low");
        claude.agent_claude_flags = vec!["--model".into(), "x".into()];
        let typed = resume_line(&claude, home).unwrap().argv;
        assert_eq!(typed[1..5], ["--effort", "low", "--model", "x"]);
        std::fs::write(&transcript, r#"{"type":"assistant"}"#).unwrap();
        claude.agent_claude_flags = vec!["--effort".into(), "max".into()];
        let typed = resume_line(&claude, home).unwrap().argv;
        assert_eq!(typed[1..3], ["--effort", "max"]);
        // Only the file's last 2 MiB are read.
        let mut long = String::from(r#"{"type":"assistant","perTurnEffort":"low"}"#);
        long.push('\n');
        long.push_str(&format!("{{\"pad\":\"{}\"}}\n", "x".repeat(3 << 20)));
        std::fs::write(&transcript, long).unwrap();
        let typed = resume_line(&claude, home).unwrap().argv;
        assert_eq!(typed[1..3], ["--effort", "max"]);
        // A level that is no word is not typed.
        std::fs::write(
            &transcript,
            r#"{"type":"assistant","perTurnEffort":"a; rm"}"#,
        )
        .unwrap();
        let typed = resume_line(&claude, home).unwrap().argv;
        assert_eq!(typed[1..3], ["--effort", "max"]);
        // A transcript that is gone.
        let gone = agent("claude", Some("abc"), Some("/nowhere/projects/p/abc.jsonl"));
        assert!(matches!(
            resume_line(&gone, home),
            Err(NoResume::TranscriptGone(_))
        ));
    }
}
