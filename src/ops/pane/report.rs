//! `pane report-agent`, `report-agent-session`, `release-agent`: what an
//! agent's integration says, written into pane options, and the pane's
//! watcher woken to take it in.

use crate::clock::now_ms;
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::report::{self, Authority, Sequences, StoredSession};
use crate::tmux::Tmux;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::watch::nudge;
use serde::Serialize;

/// Who reports, about which agent in which pane.
#[derive(Debug, Clone)]
pub(crate) struct Reporter {
    pub pane: u32,
    /// `herdr:pi`, `custom:mybot`...
    pub source: String,
    /// A known id (claude, pi...) or a name of the integration's own.
    pub agent: String,
    /// The source's report number; lower or equal ones are ignored.
    pub seq: Option<u64>,
}

/// The agent's own session, as an integration gives it.
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionRef {
    pub id: Option<String>,
    pub path: Option<String>,
    /// The command that resumes it.
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Reported {
    pub in_order: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Released {
    pub in_order: bool,
    pub released: bool,
}

answers!(Reported => "ok", Released => "ok");

/// Reports to one server take turns, from the read of the sequence
/// numbers they are checked against to their write: an integration starts
/// each report without waiting for the one before, and two of one source
/// at once could each pass the check, the older written last and winning.
/// The turn is a lock file for the server's socket in taw's state.
pub(crate) fn report_turn(tmux: &Tmux) -> Result<crate::paths::FileLock> {
    let key = crate::text::fnv1a64(tmux.socket_args().join("\0").as_bytes());
    let lock = crate::paths::state_dir()
        .join("locks")
        .join(format!("reports-{key:016x}.lock"));
    crate::paths::take_turn(&lock).map_err(|error| {
        TawError::io(format!(
            "could not open {}: {error}; nothing was reported",
            crate::paths::display(&lock)
        ))
    })
}

/// The report options of a pane, read in one call.
struct PaneReport {
    seqs: Sequences,
    kind: String,
    state: String,
    source: String,
    /// The session the pane has now.
    session: Option<StoredSession>,
    /// The pane's own shell is at its prompt: a report that comes now is
    /// late, its agent gone (a hook that outlived it).
    shell_at_prompt: bool,
}

const REPORT_FIELDS: &[&str] = &[
    opt::REPORT_SEQS,
    opt::REPORTED_KIND,
    opt::REPORTED_STATE,
    opt::REPORTED_SOURCE,
    opt::AGENT_SESSION,
    "pane_pid",
];

impl Reporter {
    /// Checks the source and the agent, reads the pane's report, and takes
    /// the sequence number: the agent's label, the report, and whether it
    /// is in order.
    fn begin(&self, tmux: &Tmux) -> Result<(String, PaneReport, bool)> {
        report::check_source(&self.source)?;
        let agent = report::agent_label(&self.agent)?;
        let values = tmux_pane::read_values(tmux, self.pane, REPORT_FIELDS)?;
        let mut current = PaneReport {
            seqs: Sequences::parse(&values[0]),
            kind: values[1].clone(),
            state: values[2].clone(),
            source: values[3].clone(),
            session: StoredSession::parse(&values[4]),
            shell_at_prompt: values[5]
                .parse()
                .is_ok_and(crate::detect::foreground::shell_at_prompt),
        };
        let in_order = current.seqs.accept(&self.source, self.seq);
        Ok((agent, current, in_order))
    }
}

/// The session an integration gave: the id and the path, with herdr's
/// reference (the path when there is one, else the id). As herdr does, a
/// field it would not keep is left out and the rest of the report stands:
/// a path that is not absolute or is over 4096 bytes, an id over 512
/// bytes, either with a control character, and (taw's own rule) an id
/// that begins with `-`, which a resume would hand the agent as an option.
fn stored_session(source: &str, agent: &str, session: &SessionRef) -> Option<StoredSession> {
    let path = session.path.clone().filter(|path| {
        path.starts_with('/') && path.len() <= 4096 && !path.chars().any(char::is_control)
    });
    let id = session.id.clone().filter(|id| {
        !id.is_empty()
            && id.len() <= 512
            && !id.chars().any(char::is_control)
            && !id.starts_with('-')
    });
    let (kind, value) = match (&path, &id) {
        (Some(path), _) => ("path", path.clone()),
        (None, Some(id)) => ("id", id.clone()),
        (None, None) => return None,
    };
    Some(StoredSession {
        source: source.to_string(),
        agent: agent.to_string(),
        kind: kind.to_string(),
        value,
        id,
        path,
    })
}

/// The session to write, when herdr's rule lets it replace the pane's.
fn session_write(
    current: &PaneReport,
    new: Option<StoredSession>,
    start_source: Option<&str>,
    authority: Authority,
) -> Option<String> {
    let new = new?;
    report::session_replaces(current.session.as_ref(), &new, start_source, authority)
        .then(|| serde_json::to_string(&new).unwrap_or_default())
}

/// The session-shaping flags of the Claude Code process in front of the
/// pane, when one is.
fn claude_flags_in_front(tmux: &Tmux, pane: u32) -> Option<Vec<String>> {
    use crate::detect::foreground;
    let pid: u32 = tmux_pane::read_values(tmux, pane, &["pane_pid"])
        .ok()?
        .first()?
        .parse()
        .ok()?;
    let (own, group) = foreground::read_job(pid)?;
    let foreground::Front::Job { members, .. } = foreground::front_of(&own, group) else {
        return None;
    };
    let found = foreground::identify(&members, &foreground::resolve_link_on_disk)?;
    if found.agent.id != "claude" {
        return None;
    }
    let process = members.iter().find(|p| p.pid == found.pid)?;
    Some(report::claude_flags(&process.argv))
}

/// Writes, then wakes the pane's watcher so it takes the report in now.
fn apply(tmux: &Tmux, pane: u32, writes: &OptionWrites) -> Result<()> {
    tmux_pane::write_options(tmux, pane, writes)?;
    nudge::wake(tmux, pane);
    Ok(())
}

/// An integration reports its agent's state.
pub(crate) fn report_agent(
    tmux: &Tmux,
    who: &Reporter,
    state: &str,
    message: Option<&str>,
    session: &SessionRef,
) -> Result<Reported> {
    let state = report::parse_state(state)?;
    let resume = report::resume_json(&session.command)?;
    let _turn = report_turn(tmux)?;
    let (agent, current, in_order) = who.begin(tmux)?;
    let source = &who.source;
    let session = stored_session(source, &agent, session);
    if !in_order {
        return Ok(Reported { in_order: false });
    }
    let session = session_write(&current, session, None, report::authority(source, &agent));
    let now = now_ms();
    let mut writes = OptionWrites::default();
    writes.set(opt::REPORT_SEQS, current.seqs.render());
    // A late report keeps its session for a restore, but no word that the
    // agent is there: the next program in front (vim) would be it.
    let present = !current.shell_at_prompt;
    if present {
        writes.set(opt::REPORTED_KIND, agent.as_str());
    }
    for name in opt::LEFT_BY_RESTORE {
        writes.unset(name);
    }
    if present && report::authority(source, &agent) != Authority::SessionOnly {
        let same_holder = current.source == *source && current.kind == agent;
        let previous = if same_holder {
            current.state.as_str()
        } else {
            ""
        };
        if state != previous {
            writes.set(opt::REPORTED_STATE, state);
            writes.set(opt::REPORTED_AT, now.to_string());
            // A turn begins with work, or with a wait it was not already in.
            if matches!(state, "working" | "blocked") {
                writes.set(opt::REPORTED_TURN, now.to_string());
            }
        }
        writes.set(opt::REPORTED_SOURCE, source.as_str());
        match message {
            Some(message) => writes.set(opt::REPORTED_MESSAGE, crate::text::one_line(message, 240)),
            None => writes.unset(opt::REPORTED_MESSAGE),
        };
    }
    if let Some(session) = session {
        writes.set(opt::AGENT_SESSION, session);
    }
    if let Some(resume) = resume {
        writes.set(opt::RESUME, resume);
    }
    apply(tmux, who.pane, &writes)?;
    Ok(Reported { in_order: true })
}

/// An integration reports its agent's session, not its state.
pub(crate) fn report_session(
    tmux: &Tmux,
    who: &Reporter,
    start_source: Option<&str>,
    session: &SessionRef,
) -> Result<Reported> {
    let resume = report::resume_json(&session.command)?;
    // herdr's six; another word is dropped, as herdr drops it, and the
    // report stands without it.
    let start_source = start_source
        .map(str::trim)
        .filter(|start| ["startup", "resume", "clear", "compact", "new", "fork"].contains(start));
    let _turn = report_turn(tmux)?;
    let (agent, current, in_order) = who.begin(tmux)?;
    let source = &who.source;
    let session = stored_session(source, &agent, session);
    if !in_order {
        return Ok(Reported { in_order: false });
    }
    let session = session_write(
        &current,
        session,
        start_source,
        report::authority(source, &agent),
    );
    let mut writes = OptionWrites::default();
    writes.set(opt::REPORT_SEQS, current.seqs.render());
    if !current.shell_at_prompt && (current.kind.is_empty() || current.kind == agent) {
        writes.set(opt::REPORTED_KIND, agent.as_str());
    }
    for name in opt::LEFT_BY_RESTORE {
        writes.unset(name);
    }
    if let Some(session) = session {
        writes.set(opt::AGENT_SESSION, session);
    }
    // Claude's flags that shape its session, read from the Claude process
    // in front of the pane, for a resume to give them again.
    if agent == "claude"
        && let Some(flags) = claude_flags_in_front(tmux, who.pane)
    {
        writes.set(
            opt::CLAUDE_FLAGS,
            serde_json::to_string(&flags).unwrap_or_default(),
        );
    }
    // The resume command is taken only from the source that holds the pane.
    let holds = current.source.is_empty() || current.source == *source;
    if holds && let Some(resume) = &resume {
        writes.set(opt::RESUME, resume.as_str());
    }
    apply(tmux, who.pane, &writes)?;
    if resume.is_some() && !holds {
        return Err(TawError::new(
            ErrorCode::ResumeNotAccepted,
            format!(
                "the resume command was not kept: {} holds the pane, not {source}",
                current.source
            ),
        ));
    }
    Ok(Reported { in_order: true })
}

/// An integration gives the pane up: its report and resume command go.
pub(crate) fn release_agent(tmux: &Tmux, who: &Reporter) -> Result<Released> {
    let _turn = report_turn(tmux)?;
    let (agent, current, in_order) = who.begin(tmux)?;
    if !in_order {
        return Ok(Released {
            in_order: false,
            released: false,
        });
    }
    let mut writes = OptionWrites::default();
    writes.set(opt::REPORT_SEQS, current.seqs.render());
    let holds =
        current.kind == agent && (current.source == who.source || current.source.is_empty());
    if holds {
        for name in opt::REPORT {
            writes.unset(name);
        }
        writes.unset(opt::RESUME);
    }
    apply(tmux, who.pane, &writes)?;
    Ok(Released {
        in_order: true,
        released: holds,
    })
}
