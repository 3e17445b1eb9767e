//! Workspace metadata: herdr's tokens on a workspace, kept in session
//! options and shown in the workspace's record. Tokens are display only:
//! they never change a state, a wait or a notification.

use crate::clock::now_ms;
use crate::envelope::{Result, TawError, answers};
use crate::report::Sequences;
use crate::tmux::options::session as opt;
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Tmux, commands as cmd, ids};
use serde::Serialize;
use serde_json::{Map, Value, json};

const MAX_TOKENS_A_REPORT: usize = 16;
const MAX_TOKENS_KEPT: usize = 32;
const MAX_TTL_MS: u64 = 86_400_000;

/// A report of tokens about a workspace.
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenReport {
    pub source: String,
    /// NAME=VALUE to set (an empty value clears it).
    pub tokens: Vec<String>,
    pub clear: Vec<String>,
    pub seq: Option<u64>,
    /// Each token set expires after this many milliseconds.
    pub ttl_ms: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TokensTaken {
    pub in_order: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<String>,
}

answers!(TokensTaken => "ok");

fn check_source(source: &str) -> Result<()> {
    let ok = !source.is_empty()
        && source.len() <= 80
        && source
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ":._-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(TawError::invalid_argument(format!(
            "--source {source:?}: at most 80 of letters, digits and : . _ -"
        )))
    }
}

fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(TawError::invalid_argument(format!(
            "token name {name:?}: 1 to 32 of letters, digits, _ and -"
        )))
    }
}

/// A token's change: its new value, or none to take it off.
type Change = (String, Option<String>);

pub(crate) fn report(
    tmux: &Tmux,
    snapshot: &Snapshot,
    session: u32,
    args: &TokenReport,
) -> Result<TokensTaken> {
    let changes = checked_changes(args)?;
    let row = snapshot
        .session(session)
        .ok_or_else(|| TawError::not_found("the workspace closed"))?;
    let mut seqs = Sequences::parse(&row.token_seqs);
    if !seqs.accept(&args.source, args.seq) {
        return Ok(TokensTaken {
            in_order: false,
            workspace_id: None,
        });
    }
    let stored = tokens_after(&row.tokens, changes, args.ttl_ms);
    if stored.len() > MAX_TOKENS_KEPT {
        return Err(TawError::invalid_argument(format!(
            "a workspace keeps at most {MAX_TOKENS_KEPT} tokens"
        )));
    }
    let target = format!("${session}");
    tmux.run(&Batch::of(vec![
        cmd::set_session_option(&target, opt::TOKENS, &Value::Object(stored).to_string()),
        cmd::set_session_option(&target, opt::TOKEN_SEQS, &seqs.render()),
    ]))?;
    crate::hooks::announce_now(
        tmux,
        vec![
            crate::events::Occurrence::new(crate::events::Event::WorkspaceUpdated)
                .session(Some(session)),
        ],
    );
    Ok(TokensTaken {
        in_order: true,
        workspace_id: Some(ids::workspace_id(session)),
    })
}

/// The report's source, time to live and tokens checked: the changes it
/// asks for, set ones first, then those cleared.
fn checked_changes(args: &TokenReport) -> Result<Vec<Change>> {
    check_source(&args.source)?;
    if let Some(ttl) = args.ttl_ms
        && !(1..=MAX_TTL_MS).contains(&ttl)
    {
        return Err(TawError::invalid_argument(format!(
            "--ttl-ms {ttl}: 1 to {MAX_TTL_MS}"
        )));
    }
    let mut changes: Vec<Change> = Vec::new();
    for pair in &args.tokens {
        let (name, value) = pair.split_once('=').ok_or_else(|| {
            TawError::invalid_argument(format!("--token {pair:?} is not NAME=VALUE"))
        })?;
        check_name(name)?;
        let value = crate::text::one_line(value, 80);
        changes.push((name.to_string(), (!value.is_empty()).then_some(value)));
    }
    for name in &args.clear {
        check_name(name)?;
        changes.push((name.clone(), None));
    }
    if changes.len() > MAX_TOKENS_A_REPORT {
        return Err(TawError::invalid_argument(format!(
            "{} tokens in one report; at most {MAX_TOKENS_A_REPORT}",
            changes.len()
        )));
    }
    Ok(changes)
}

/// The workspace's tokens (`stored`, as its option holds them) once the
/// expired ones are gone and the changes are made.
fn tokens_after(stored: &str, changes: Vec<Change>, ttl_ms: Option<u64>) -> Map<String, Value> {
    let now = now_ms();
    let mut tokens = match serde_json::from_str::<Value>(stored) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    tokens.retain(|_, token| token["expires"].as_u64().is_none_or(|e| e > now));
    for (name, value) in changes {
        match value {
            Some(value) => {
                let expires = ttl_ms.map(|ttl| now + ttl);
                tokens.insert(name, json!({ "value": value, "expires": expires }));
            }
            None => {
                tokens.remove(&name);
            }
        }
    }
    tokens
}
