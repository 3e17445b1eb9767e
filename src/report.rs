//! Reports from integrations (`taw pane report-agent`, `report-agent-session`,
//! `release-agent`): who may report, in what order, and what a report may
//! carry. Pure rules; the verbs in `cli/pane.rs` apply them to pane options.

use crate::detect::agents;
use crate::envelope::{ErrorCode, TawError};

/// Of Claude Code's arguments, those that set how its session runs, to be
/// given again when it is resumed: `--effort`, `--model`,
/// `--permission-mode` and `--agent` with their values, and
/// `--dangerously-skip-permissions`. A prompt, print mode, the flags that
/// choose a session and every other flag are left out.
pub(crate) fn claude_flags(argv: &[String]) -> Vec<String> {
    const WITH_VALUE: &[&str] = &["--effort", "--model", "--permission-mode", "--agent"];
    let mut kept = Vec::new();
    let mut words = argv.iter().skip(1);
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        if word == "--dangerously-skip-permissions" {
            kept.push(word.clone());
        } else if let Some((flag, _)) = word.split_once('=')
            && WITH_VALUE.contains(&flag)
        {
            kept.push(word.clone());
        } else if WITH_VALUE.contains(&word.as_str())
            && let Some(value) = words.next()
        {
            kept.push(word.clone());
            kept.push(value.clone());
        }
    }
    kept
}

/// The longest `--source` taw keeps (herdr takes any).
pub(crate) const MAX_SOURCE_BYTES: usize = 128;
/// How many sources' sequence numbers a pane keeps, and in how much text:
/// an agent's reports in 2 KiB (the spec's), metadata in 4 KiB (32
/// metadata sources of 80 bytes fit, so none of those is ever dropped:
/// herdr refuses a 33rd instead).
pub(crate) const MAX_SOURCES: usize = 32;
pub(crate) const REPORT_SEQ_TEXT: usize = 2048;
pub(crate) const METADATA_SEQ_TEXT: usize = 4096;
/// Limits of a resume command: words, bytes a word, bytes in all.
const MAX_RESUME_WORDS: usize = 64;
const MAX_RESUME_WORD: usize = 4096;
const MAX_RESUME_TOTAL: usize = 8192;

/// What kind of reporter a source is, for the agent it reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Authority {
    /// The agent's own integration, which reports its whole lifecycle
    /// (pi, omp, mastracode, opencode, kilo, kimi): its state wins.
    Lifecycle,
    /// An official integration that reports only its session (claude,
    /// codex...): it never sets the state.
    SessionOnly,
    /// Anything else (`custom:x`...): its state wins over what the screen
    /// says, except that a question on screen is still a question.
    Custom,
}

/// The authority of `source` reporting `agent`.
pub(crate) fn authority(source: &str, agent: &str) -> Authority {
    let official = source
        .strip_prefix("herdr:")
        .or_else(|| source.strip_prefix("integration:"));
    match official.and_then(agents::lookup) {
        Some(target) if agents::lookup(agent).is_some_and(|a| a.id == target.id) => {
            if target.reports_state {
                Authority::Lifecycle
            } else {
                Authority::SessionOnly
            }
        }
        _ => Authority::Custom,
    }
}

/// The session an integration reported for the pane's agent, as taw
/// keeps it in `@agent_session`: herdr's reference (`kind` and `value`:
/// the path when there is one, else the id) and both of what was given.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct StoredSession {
    pub source: String,
    pub agent: String,
    pub kind: String,
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl StoredSession {
    /// What `@agent_session` holds (an older taw's has no `id`/`path`).
    pub(crate) fn parse(text: &str) -> Option<StoredSession> {
        serde_json::from_str(text).ok()
    }

    pub(crate) fn session_id(&self) -> Option<String> {
        self.id
            .clone()
            .or_else(|| (self.kind == "id").then(|| self.value.clone()))
    }

    pub(crate) fn session_path(&self) -> Option<String> {
        self.path
            .clone()
            .or_else(|| (self.kind == "path").then(|| self.value.clone()))
    }

    /// herdr's `agent_session` record: `{source, agent, kind, value}`.
    pub(crate) fn record(&self) -> serde_json::Value {
        serde_json::json!({
            "source": self.source,
            "agent": self.agent,
            "kind": self.kind,
            "value": self.value,
        })
    }
}

/// herdr's rule for a session report over one the pane has: from an
/// official integration that reports sessions only (Claude's, Codex's...),
/// a new session replaces the old only when its start is said (startup,
/// resume, clear, compact, new, fork) or it is another agent's, so a
/// subagent's session never takes the place of the conversation's. A
/// source that reports the whole lifecycle, or a custom one, is taken at
/// its word; the same session again, or a first one, always is.
pub(crate) fn session_replaces(
    existing: Option<&StoredSession>,
    new: &StoredSession,
    start_source: Option<&str>,
    authority: Authority,
) -> bool {
    let Some(existing) = existing else {
        return true;
    };
    existing.agent != new.agent
        || (existing.kind == new.kind && existing.value == new.value)
        || start_source.is_some()
        || authority != Authority::SessionOnly
}

/// Checks `--source`.
pub(crate) fn check_source(source: &str) -> Result<(), TawError> {
    if source.trim().is_empty() {
        return Err(TawError::invalid_argument("--source must not be empty"));
    }
    if source.len() > MAX_SOURCE_BYTES {
        return Err(TawError::invalid_argument(format!(
            "--source is {} bytes; at most {MAX_SOURCE_BYTES}",
            source.len()
        )));
    }
    if source.chars().any(char::is_control) {
        return Err(TawError::invalid_argument(
            "--source must not hold control characters",
        ));
    }
    Ok(())
}

/// The agent label: a known agent's canonical id, else the label as given.
pub(crate) fn agent_label(agent: &str) -> Result<String, TawError> {
    let trimmed = agent.trim();
    if trimmed.is_empty() {
        return Err(TawError::new(
            ErrorCode::InvalidAgent,
            "--agent must not be empty",
        ));
    }
    if trimmed.chars().any(char::is_control) || trimmed.len() > 64 {
        return Err(TawError::invalid_argument(
            "--agent must be at most 64 bytes of printable text",
        ));
    }
    Ok(agents::lookup(trimmed)
        .map(|a| a.id.to_string())
        .unwrap_or_else(|| trimmed.to_string()))
}

/// Checks a resume command (the words after `--`); gives its JSON.
pub(crate) fn resume_json(argv: &[String]) -> Result<Option<String>, TawError> {
    if argv.is_empty() {
        return Ok(None);
    }
    let bad = |why: String| TawError::new(ErrorCode::InvalidResumeArgv, why);
    if argv[0].trim().is_empty() {
        return Err(bad("the resume command's first word is empty".into()));
    }
    if argv.len() > MAX_RESUME_WORDS {
        return Err(bad(format!(
            "the resume command has {} words; at most {MAX_RESUME_WORDS}",
            argv.len()
        )));
    }
    let total: usize = argv.iter().map(String::len).sum();
    if total > MAX_RESUME_TOTAL || argv.iter().any(|w| w.len() > MAX_RESUME_WORD) {
        return Err(bad(format!(
            "the resume command is too long to keep (at most {MAX_RESUME_TOTAL} bytes)"
        )));
    }
    if argv
        .iter()
        .any(|word| word.chars().any(|c| c.is_control() && c != '\t'))
    {
        return Err(bad(
            "the resume command holds a control character (a newline?), which could not be typed back safely".into(),
        ));
    }
    Ok(Some(serde_json::to_string(argv).unwrap_or_default()))
}

/// The sequence numbers a pane keeps: `source<TAB>seq` a line, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sequences {
    entries: Vec<(String, u64)>,
    /// The most text they take: [`REPORT_SEQ_TEXT`] or [`METADATA_SEQ_TEXT`].
    text_limit: usize,
}

impl Default for Sequences {
    fn default() -> Sequences {
        Sequences {
            entries: Vec::new(),
            text_limit: REPORT_SEQ_TEXT,
        }
    }
}

impl Sequences {
    /// An agent's reports' numbers.
    pub(crate) fn parse(text: &str) -> Sequences {
        Sequences::parse_within(text, REPORT_SEQ_TEXT)
    }

    /// Metadata reports' numbers.
    pub(crate) fn parse_metadata(text: &str) -> Sequences {
        Sequences::parse_within(text, METADATA_SEQ_TEXT)
    }

    fn parse_within(text: &str, text_limit: usize) -> Sequences {
        let entries = text
            .lines()
            .filter_map(|line| {
                let (source, seq) = line.rsplit_once('\t')?;
                Some((source.to_string(), seq.parse().ok()?))
            })
            .collect();
        Sequences {
            entries,
            text_limit,
        }
    }

    pub(crate) fn render(&self) -> String {
        self.entries
            .iter()
            .map(|(source, seq)| format!("{source}\t{seq}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Whether a report from `source` with `seq` comes in order, and if so
    /// records it: herdr's rule, a number higher than the source's last;
    /// no number at all from a source that has sent one is out of order.
    pub(crate) fn accept(&mut self, source: &str, seq: Option<u64>) -> bool {
        let last = self.entries.iter().position(|(s, _)| s == source);
        match (seq, last) {
            (None, Some(_)) => false,
            (None, None) => true,
            (Some(seq), Some(index)) => {
                if seq <= self.entries[index].1 {
                    return false;
                }
                let mut entry = self.entries.remove(index);
                entry.1 = seq;
                self.entries.push(entry);
                // A longer number can take the text past its limit.
                self.trim();
                true
            }
            (Some(seq), None) => {
                self.entries.push((source.to_string(), seq));
                self.trim();
                true
            }
        }
    }

    /// Whether a report from `source` with `seq` would be a source more
    /// than the 32 kept: herdr refuses a metadata report so, where an
    /// agent report drops the oldest source.
    pub(crate) fn full_for(&self, source: &str, seq: Option<u64>) -> bool {
        seq.is_some()
            && self.entries.len() >= MAX_SOURCES
            && !self.entries.iter().any(|(s, _)| s == source)
    }

    /// The last 32 sources, in at most the text limit: the oldest go
    /// first (never the newest).
    fn trim(&mut self) {
        while self.entries.len() > 1
            && (self.entries.len() > MAX_SOURCES || self.render().len() > self.text_limit)
        {
            self.entries.remove(0);
        }
    }
}

/// The states a report may carry.
pub(crate) fn parse_state(state: &str) -> Result<&'static str, TawError> {
    match state {
        "idle" => Ok("idle"),
        "working" => Ok("working"),
        "blocked" => Ok("blocked"),
        "unknown" => Ok("unknown"),
        other => Err(TawError::invalid_argument(format!(
            "--state {other:?} is not one of idle, working, blocked, unknown"
        ))),
    }
}

#[cfg(test)]
mod session_tests {
    use super::*;

    fn session(agent: &str, id: &str) -> StoredSession {
        StoredSession {
            source: "herdr:claude".into(),
            agent: agent.into(),
            kind: "id".into(),
            value: id.into(),
            id: Some(id.into()),
            path: None,
        }
    }

    #[test]
    fn a_new_session_replaces_only_by_herdrs_rule() {
        let old = session("claude", "a");
        let new = session("claude", "b");
        assert!(session_replaces(None, &new, None, Authority::SessionOnly));
        assert!(!session_replaces(
            Some(&old),
            &new,
            None,
            Authority::SessionOnly
        ));
        assert!(session_replaces(
            Some(&old),
            &new,
            Some("clear"),
            Authority::SessionOnly
        ));
        assert!(session_replaces(
            Some(&old),
            &new,
            None,
            Authority::Lifecycle
        ));
        assert!(session_replaces(Some(&old), &new, None, Authority::Custom));
        assert!(session_replaces(
            Some(&old),
            &session("codex", "b"),
            None,
            Authority::SessionOnly
        ));
        assert!(session_replaces(
            Some(&old),
            &old.clone(),
            None,
            Authority::SessionOnly
        ));
        assert_eq!(new.session_id().as_deref(), Some("b"));
        assert_eq!(new.session_path(), None);
        let older =
            StoredSession::parse(r#"{"source":"s","agent":"pi","kind":"path","value":"/x"}"#)
                .unwrap();
        assert_eq!(older.session_path().as_deref(), Some("/x"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_follow_herdrs_order() {
        let mut seqs = Sequences::default();
        assert!(seqs.accept("a", None));
        assert!(seqs.accept("a", Some(5)));
        assert!(!seqs.accept("a", Some(5)));
        assert!(!seqs.accept("a", Some(4)));
        assert!(!seqs.accept("a", None), "unsequenced after sequenced");
        assert!(seqs.accept("a", Some(6)));
        assert!(seqs.accept("b", Some(1)));
        let round = Sequences::parse(&seqs.render());
        assert_eq!(round, seqs);
    }

    #[test]
    fn at_most_32_sources_oldest_first_out() {
        let mut seqs = Sequences::default();
        for n in 0..40 {
            assert!(seqs.accept(&format!("source-{n}"), Some(1)));
        }
        assert_eq!(seqs.entries.len(), 32);
        assert_eq!(seqs.entries[0].0, "source-8");
        // Long source names fill the 2 KiB first.
        let mut seqs = Sequences::default();
        for n in 0..40 {
            assert!(seqs.accept(&format!("{n}{}", "x".repeat(126)), Some(1)));
        }
        assert!(seqs.render().len() <= REPORT_SEQ_TEXT);
        assert!(seqs.entries.len() < 32);
        // A number grown longer keeps the text within it too.
        let newest = seqs.entries.last().unwrap().0.clone();
        let before = seqs.entries.len();
        assert!(seqs.accept(&newest, Some(u64::MAX)));
        assert!(seqs.render().len() <= REPORT_SEQ_TEXT);
        assert!(seqs.entries.len() <= before);
        assert_eq!(seqs.entries.last().unwrap(), &(newest, u64::MAX));
    }

    #[test]
    fn a_33rd_numbered_source_is_full() {
        let mut seqs = Sequences::parse_metadata("");
        for n in 0..32 {
            let source = format!("{n:0>80}");
            assert!(!seqs.full_for(&source, Some(1)));
            assert!(seqs.accept(&source, Some(1)));
        }
        assert_eq!(seqs.entries.len(), 32, "80-byte sources all fit");
        assert!(seqs.full_for("another", Some(1)));
        assert!(!seqs.full_for("another", None), "no number, nothing kept");
        assert!(!seqs.full_for(&format!("{:0>80}", 5), Some(2)));
    }

    #[test]
    fn authorities() {
        assert_eq!(authority("herdr:pi", "pi"), Authority::Lifecycle);
        assert_eq!(
            authority("integration:opencode", "opencode"),
            Authority::Lifecycle
        );
        assert_eq!(authority("herdr:claude", "claude"), Authority::SessionOnly);
        assert_eq!(authority("custom:x", "claude"), Authority::Custom);
        assert_eq!(authority("herdr:pi", "claude"), Authority::Custom);
    }

    #[test]
    fn claudes_flags_that_shape_its_session() {
        let argv: Vec<String> = [
            "claude",
            "--model",
            "opus",
            "-p",
            "--effort=max",
            "--resume",
            "abc",
            "--dangerously-skip-permissions",
            "--permission-mode",
            "plan",
            "--verbose",
            "--",
            "--model",
            "x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            claude_flags(&argv),
            [
                "--model",
                "opus",
                "--effort=max",
                "--dangerously-skip-permissions",
                "--permission-mode",
                "plan"
            ]
        );
    }

    #[test]
    fn resume_commands() {
        assert_eq!(resume_json(&[]).unwrap(), None);
        let ok = resume_json(&["claude".into(), "--resume".into(), "a b".into()]).unwrap();
        assert_eq!(ok.as_deref(), Some(r#"["claude","--resume","a b"]"#));
        let newline = resume_json(&["x".into(), "a\nb".into()]).unwrap_err();
        assert_eq!(newline.code, ErrorCode::InvalidResumeArgv);
        assert!(resume_json(&["".into()]).is_err());
        assert!(resume_json(&vec!["x".to_string(); 100]).is_err());
    }

    #[test]
    fn sources_and_labels() {
        assert!(check_source(&"s".repeat(128)).is_ok());
        assert!(check_source(&"s".repeat(129)).is_err());
        assert!(check_source("").is_err());
        assert_eq!(agent_label("Claude-Code").unwrap(), "claude");
        assert_eq!(agent_label("mybot").unwrap(), "mybot");
        assert!(agent_label(" ").is_err());
    }
}
