//! `taw pane report-agent`, `report-agent-session`, `release-agent`: what
//! an agent's integration says, written into pane options, and the pane's
//! watcher woken to take it in.

use crate::cli::{Context, pane_number};
use crate::envelope::{ErrorCode, Reply, Result, TawError};
use crate::report::{self, Authority, Sequences};
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::watch::{self, nudge};
use clap::Args;
use serde_json::json;

/// Who reports, about which agent in which pane: every report verb's start.
#[derive(Debug, Args)]
pub struct Reporter {
    /// The pane: %N, w1:pN, or %calling (the pane this runs in).
    pane: String,
    /// Who reports (`herdr:pi`, `custom:mybot`...), at most 128 bytes.
    #[arg(long)]
    source: String,
    /// The agent: a known id (claude, pi...) or a name of your own.
    #[arg(long)]
    agent: String,
    /// This source's report number; lower or equal ones are ignored.
    #[arg(long)]
    seq: Option<u64>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    who: Reporter,
    /// idle, working, blocked or unknown.
    #[arg(long)]
    state: String,
    /// A word on what the agent does, for display.
    #[arg(long)]
    message: Option<String>,
    #[arg(long)]
    agent_session_id: Option<String>,
    #[arg(long)]
    agent_session_path: Option<String>,
    /// The command that resumes the agent's session.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SessionArgs {
    #[command(flatten)]
    who: Reporter,
    #[arg(long)]
    agent_session_id: Option<String>,
    #[arg(long)]
    agent_session_path: Option<String>,
    /// How the session began: startup, resume, clear, compact, new, fork.
    #[arg(long)]
    session_start_source: Option<String>,
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    #[command(flatten)]
    who: Reporter,
}

impl Reporter {
    /// Checks the source and the agent, finds the pane, reads its report,
    /// and takes the sequence number: `None` when it is out of order.
    fn begin(&self, context: &Context) -> Result<(String, u32, PaneReport, bool)> {
        report::check_source(&self.source)?;
        let agent = report::agent_label(&self.agent)?;
        let pane = pane_number(context, &self.pane)?;
        let mut current = read_report(context, pane)?;
        let in_order = current.seqs.accept(&self.source, self.seq);
        Ok((agent, pane, current, in_order))
    }
}

/// The report options of a pane, read in one call.
struct PaneReport {
    seqs: Sequences,
    kind: String,
    state: String,
    source: String,
}

const REPORT_FIELDS: &[&str] = &[
    opt::REPORT_SEQS,
    opt::REPORTED_KIND,
    opt::REPORTED_STATE,
    opt::REPORTED_SOURCE,
];

fn read_report(context: &Context, pane: u32) -> Result<PaneReport> {
    let values = tmux_pane::read_values(&context.tmux(), pane, REPORT_FIELDS)?;
    Ok(PaneReport {
        seqs: Sequences::parse(&values[0]),
        kind: values[1].clone(),
        state: values[2].clone(),
        source: values[3].clone(),
    })
}

/// The session reference an integration gave, as herdr records it.
fn session_json(
    source: &str,
    agent: &str,
    id: &Option<String>,
    path: &Option<String>,
) -> Result<Option<String>> {
    let (kind, value) = match (id, path) {
        (_, Some(path)) if !path.is_empty() => {
            if !path.starts_with('/') || path.len() > 4096 || path.chars().any(char::is_control) {
                return Err(TawError::invalid_argument(
                    "--agent-session-path must be an absolute path of at most 4096 bytes",
                ));
            }
            ("path", path)
        }
        (Some(id), _) if !id.is_empty() => {
            if id.len() > 512 || id.chars().any(char::is_control) {
                return Err(TawError::invalid_argument(
                    "--agent-session-id must be at most 512 bytes of printable text",
                ));
            }
            ("id", id)
        }
        _ => return Ok(None),
    };
    Ok(Some(
        json!({ "source": source, "agent": agent, "kind": kind, "value": value }).to_string(),
    ))
}

/// Writes, then wakes the pane's watcher so it takes the report in now.
fn apply(context: &Context, pane: u32, writes: &OptionWrites) -> Result<()> {
    let tmux = context.tmux();
    tmux_pane::write_options(&tmux, pane, writes)?;
    if let Ok(values) = tmux_pane::read_values(&tmux, pane, &["pid"])
        && let Ok(server) = values[0].parse::<u32>()
        && let Some(path) = nudge::socket_path(&crate::paths::state_dir(), server, pane)
    {
        nudge::nudge(&path);
    }
    Ok(())
}

pub fn report_agent(context: &Context, args: ReportArgs) -> Result<Reply> {
    let state = report::parse_state(&args.state)?;
    let resume = report::resume_json(&args.command)?;
    let (agent, pane, current, in_order) = args.who.begin(context)?;
    let source = &args.who.source;
    let session = session_json(
        source,
        &agent,
        &args.agent_session_id,
        &args.agent_session_path,
    )?;
    if !in_order {
        return Ok(Reply::result("ok", json!({ "in_order": false })));
    }
    let now = watch::now_ms();
    let mut writes = OptionWrites::default();
    writes.set(opt::REPORT_SEQS, current.seqs.render());
    writes.set(opt::REPORTED_KIND, agent.as_str());
    if report::authority(source, &agent) != Authority::SessionOnly {
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
        match &args.message {
            Some(message) => {
                writes.set(opt::REPORTED_MESSAGE, crate::notify::one_line(message, 240))
            }
            None => writes.unset(opt::REPORTED_MESSAGE),
        };
    }
    if let Some(session) = session {
        writes.set(opt::AGENT_SESSION, session);
    }
    if let Some(resume) = resume {
        writes.set(opt::RESUME, resume);
    }
    apply(context, pane, &writes)?;
    Ok(Reply::result("ok", json!({ "in_order": true })))
}

pub fn report_session(context: &Context, args: SessionArgs) -> Result<Reply> {
    let resume = report::resume_json(&args.command)?;
    if let Some(start) = &args.session_start_source
        && !["startup", "resume", "clear", "compact", "new", "fork"].contains(&start.as_str())
    {
        return Err(TawError::invalid_argument(format!(
            "--session-start-source {start:?} is not one of startup, resume, clear, compact, new, fork"
        )));
    }
    let (agent, pane, current, in_order) = args.who.begin(context)?;
    let source = &args.who.source;
    let session = session_json(
        source,
        &agent,
        &args.agent_session_id,
        &args.agent_session_path,
    )?;
    if !in_order {
        return Ok(Reply::result("ok", json!({ "in_order": false })));
    }
    let mut writes = OptionWrites::default();
    writes.set(opt::REPORT_SEQS, current.seqs.render());
    if current.kind.is_empty() || current.kind == agent {
        writes.set(opt::REPORTED_KIND, agent.as_str());
    }
    if let Some(session) = session {
        writes.set(opt::AGENT_SESSION, session);
    }
    // The resume command is taken only from the source that holds the pane.
    let holds = current.source.is_empty() || current.source == *source;
    if holds && let Some(resume) = &resume {
        writes.set(opt::RESUME, resume.as_str());
    }
    apply(context, pane, &writes)?;
    if resume.is_some() && !holds {
        return Err(TawError::new(
            ErrorCode::ResumeNotAccepted,
            format!(
                "the resume command was not kept: {} holds the pane, not {source}",
                current.source
            ),
        ));
    }
    Ok(Reply::result("ok", json!({ "in_order": true })))
}

pub fn release_agent(context: &Context, args: ReleaseArgs) -> Result<Reply> {
    let (agent, pane, current, in_order) = args.who.begin(context)?;
    if !in_order {
        return Ok(Reply::result(
            "ok",
            json!({ "in_order": false, "released": false }),
        ));
    }
    let mut writes = OptionWrites::default();
    writes.set(opt::REPORT_SEQS, current.seqs.render());
    let holds =
        current.kind == agent && (current.source == args.who.source || current.source.is_empty());
    if holds {
        for name in opt::REPORT {
            writes.unset(name);
        }
        writes.unset(opt::RESUME);
    }
    apply(context, pane, &writes)?;
    Ok(Reply::result(
        "ok",
        json!({ "in_order": true, "released": holds }),
    ))
}
