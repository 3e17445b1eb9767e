//! herdr's metadata: what a script or an integration says about a
//! workspace (tokens, kept in session options) or a pane (a title, a
//! display name, labels for its states, tokens, kept in pane options),
//! shown in their records. One home for the rules both share: the source,
//! each source's order, the tokens' names, values, limits and lifetimes.
//! Metadata is display only: it never changes a state, a wait or a
//! notification.

use crate::clock::now_ms;
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::report::{self, Sequences};
use crate::tmux::options::{pane as pane_opt, session as opt};
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Tmux, commands as cmd, ids};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The longest source, token value, title, display name or state label.
const MAX_TEXT: usize = 80;
const MAX_TOKENS_A_REPORT: usize = 16;
const MAX_TOKENS_KEPT: usize = 32;
const MAX_TTL_MS: u64 = 86_400_000;
/// The states a label may be given for, herdr's five.
const STATUSES: &[&str] = &["idle", "working", "blocked", "done", "unknown"];

/// A report of tokens, the part every metadata report has.
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

/// A report about a pane: its tokens, and what the pane shows of its
/// agent, which applies only while the guards (`agent`,
/// `applies_to_source`) hold.
#[derive(Debug, Clone, Default)]
pub(crate) struct PaneReport {
    pub pane: u32,
    pub tokens: TokenReport,
    /// Only while the pane's agent is this one.
    pub agent: Option<String>,
    /// Only while this source holds the pane's state.
    pub applies_to_source: Option<String>,
    pub title: Option<String>,
    pub clear_title: bool,
    pub display_agent: Option<String>,
    pub clear_display_agent: bool,
    /// STATUS=TEXT, for a state of the five (an empty text clears it).
    pub state_labels: Vec<String>,
    pub clear_state_labels: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TokensTaken {
    pub in_order: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PaneMetadataTaken {
    pub in_order: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<String>,
    /// Why the title, display name and labels were left as they were
    /// (`agent_mismatch`, `authority_mismatch`); the tokens were taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<&'static str>,
}

answers!(TokensTaken => "ok", PaneMetadataTaken => "ok");

fn check_source(flag: &str, source: &str) -> Result<()> {
    let ok = !source.is_empty()
        && source.len() <= MAX_TEXT
        && source
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ":._-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(TawError::new(
            ErrorCode::InvalidMetadataSource,
            format!("{flag} {source:?}: 1 to 80 of letters, digits and : . _ -"),
        ))
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
        Err(TawError::new(
            ErrorCode::InvalidMetadataToken,
            format!("token name {name:?}: 1 to 32 of letters, digits, _ and -"),
        ))
    }
}

/// Text as metadata keeps it: on one line, no control characters, at
/// most 80 characters; none when nothing is left (which clears).
fn normalised(text: &str) -> Option<String> {
    let text = crate::text::one_line(text, MAX_TEXT).trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// A token's change: its new value, or none to take it off.
type Change = (String, Option<String>);

/// The report's source, time to live and tokens checked: the changes it
/// asks for, set ones first, then those cleared.
fn checked_changes(args: &TokenReport) -> Result<Vec<Change>> {
    check_source("--source", &args.source)?;
    if let Some(ttl) = args.ttl_ms
        && !(1..=MAX_TTL_MS).contains(&ttl)
    {
        return Err(TawError::new(
            ErrorCode::InvalidMetadataTtl,
            format!("--ttl-ms {ttl}: 1 to {MAX_TTL_MS}"),
        ));
    }
    let mut changes: Vec<Change> = Vec::new();
    for pair in &args.tokens {
        let (name, value) = pair.split_once('=').ok_or_else(|| {
            TawError::new(
                ErrorCode::InvalidMetadataToken,
                format!("--token {pair:?} is not NAME=VALUE"),
            )
        })?;
        check_name(name)?;
        changes.push((name.to_string(), normalised(value)));
    }
    for name in &args.clear {
        check_name(name)?;
        changes.push((name.clone(), None));
    }
    if changes.len() > MAX_TOKENS_A_REPORT {
        return Err(TawError::new(
            ErrorCode::MetadataTokenLimit,
            format!(
                "{} tokens in one report; at most {MAX_TOKENS_A_REPORT}",
                changes.len()
            ),
        ));
    }
    Ok(changes)
}

/// Takes the report's number into its source's: whether it comes in
/// order. A 33rd source with a number is refused, as herdr refuses it.
fn take_seq(seqs: &mut Sequences, source: &str, seq: Option<u64>) -> Result<bool> {
    if seqs.full_for(source, seq) {
        return Err(TawError::new(
            ErrorCode::MetadataSequenceSourceLimit,
            format!(
                "{} sources already number their reports here; report without --seq",
                report::MAX_SOURCES
            ),
        ));
    }
    Ok(seqs.accept(source, seq))
}

/// The tokens (`stored`, as their option holds them) once the expired
/// ones are gone and the changes are made; at most 32 of them.
fn tokens_after(
    stored: &str,
    changes: Vec<Change>,
    ttl_ms: Option<u64>,
    now: u64,
) -> Result<Map<String, Value>> {
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
    if tokens.len() > MAX_TOKENS_KEPT {
        return Err(TawError::new(
            ErrorCode::MetadataTokenLimit,
            format!("at most {MAX_TOKENS_KEPT} tokens are kept; clear some first"),
        ));
    }
    Ok(tokens)
}

/// A workspace's tokens reported.
pub(crate) fn report(
    tmux: &Tmux,
    snapshot: &Snapshot,
    session: u32,
    args: &TokenReport,
) -> Result<TokensTaken> {
    let changes = checked_changes(args)?;
    snapshot
        .session(session)
        .ok_or_else(|| TawError::not_found("the workspace closed"))?;
    // Read again in the turn: the snapshot may be older than a report
    // that ended meanwhile.
    let _turn = super::pane::report::report_turn(tmux)?;
    let target = format!("${session}");
    let kept = tmux.run_apart(vec![
        cmd::show_session_value(&target, opt::TOKENS),
        cmd::show_session_value(&target, opt::TOKEN_SEQS),
    ])?;
    let (tokens, token_seqs) = (kept[0].trim_end_matches('\n'), kept[1].trim());
    let mut seqs = Sequences::parse_metadata(token_seqs);
    if !take_seq(&mut seqs, &args.source, args.seq)? {
        return Ok(TokensTaken {
            in_order: false,
            workspace_id: None,
        });
    }
    let stored = tokens_after(tokens, changes, args.ttl_ms, now_ms())?;
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

/// A change of one shown field.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Edit {
    Set(String),
    Clear,
}

/// What a pane report changes of what the pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Presentation {
    title: Option<Edit>,
    display_agent: Option<Edit>,
    clear_labels: bool,
    /// Each state's new label, or none to take it off.
    labels: Vec<(&'static str, Option<String>)>,
}

impl Presentation {
    fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.display_agent.is_none()
            && !self.clear_labels
            && self.labels.is_empty()
    }
}

fn both(set: &str, clear: &str) -> TawError {
    TawError::new(
        ErrorCode::InvalidMetadataRequest,
        format!("{set} and {clear} in one report: set, or clear"),
    )
}

/// One field's change: set to the text (cleared when none is left of it),
/// or cleared.
fn edit(text: Option<&str>, clear: bool, flag: &str) -> Result<Option<Edit>> {
    Ok(match (text, clear) {
        (Some(_), true) => return Err(both(&format!("--{flag}"), &format!("--clear-{flag}"))),
        (Some(text), false) => Some(normalised(text).map_or(Edit::Clear, Edit::Set)),
        (None, true) => Some(Edit::Clear),
        (None, false) => None,
    })
}

/// The title, display name and labels a report asks for, checked.
fn presentation(args: &PaneReport) -> Result<Presentation> {
    if !args.state_labels.is_empty() && args.clear_state_labels {
        return Err(both("--state-label", "--clear-state-labels"));
    }
    let mut labels: Vec<(&'static str, Option<String>)> = Vec::new();
    for pair in &args.state_labels {
        let bad = |why: String| TawError::new(ErrorCode::InvalidStateLabel, why);
        let (status, text) = pair
            .split_once('=')
            .ok_or_else(|| bad(format!("--state-label {pair:?} is not STATUS=TEXT")))?;
        let status = status.trim().to_ascii_lowercase();
        let status = STATUSES
            .iter()
            .find(|known| **known == status)
            .ok_or_else(|| {
                bad(format!(
                    "--state-label {status:?}: a label is for one of {}",
                    STATUSES.join(", ")
                ))
            })?;
        labels.retain(|(s, _)| s != status);
        labels.push((status, normalised(text)));
    }
    Ok(Presentation {
        title: edit(args.title.as_deref(), args.clear_title, "title")?,
        display_agent: edit(
            args.display_agent.as_deref(),
            args.clear_display_agent,
            "display-agent",
        )?,
        clear_labels: args.clear_state_labels,
        labels,
    })
}

/// The state labels (`stored`, as their option holds them) once the
/// report's changes are made, in herdr's order of the states.
fn labels_after(stored: &str, shown: &Presentation) -> Map<String, Value> {
    let mut labels = match serde_json::from_str::<Value>(stored) {
        Ok(Value::Object(map)) if !shown.clear_labels => map,
        _ => Map::new(),
    };
    for (status, label) in &shown.labels {
        match label {
            Some(label) => labels.insert(status.to_string(), Value::String(label.clone())),
            None => labels.remove(*status),
        };
    }
    STATUSES
        .iter()
        .filter_map(|status| Some((status.to_string(), labels.get(*status)?.clone())))
        .collect()
}

/// What the pane has that the guards compare with.
struct Holder<'a> {
    /// The pane's agent, as its record names it (else the one its
    /// integration reported, before the watcher has taken it in).
    agent: &'a str,
    /// The source that holds the pane's state, if any.
    authority: &'a str,
}

/// Why the guards keep a report's title, display name and labels off
/// the pane, if they do: its agent is another (or none), or another
/// source (or none) holds its state.
fn refused(agent: Option<&str>, applies_to: Option<&str>, holder: &Holder) -> Option<&'static str> {
    if agent.is_some_and(|agent| agent != holder.agent) {
        return Some("agent_mismatch");
    }
    if applies_to.is_some_and(|source| source != holder.authority) {
        return Some("authority_mismatch");
    }
    None
}

/// The option writes for the shown fields a report changes.
fn presentation_writes(writes: &mut OptionWrites, shown: &Presentation, stored_labels: &str) {
    for (name, field) in [
        (pane_opt::META_TITLE, &shown.title),
        (pane_opt::META_DISPLAY_AGENT, &shown.display_agent),
    ] {
        match field {
            Some(Edit::Set(text)) => writes.set(name, text.as_str()),
            Some(Edit::Clear) => writes.unset(name),
            None => continue,
        };
    }
    if shown.clear_labels || !shown.labels.is_empty() {
        let labels = labels_after(stored_labels, shown);
        if labels.is_empty() {
            writes.unset(pane_opt::META_STATE_LABELS);
        } else {
            writes.set(
                pane_opt::META_STATE_LABELS,
                Value::Object(labels).to_string(),
            );
        }
    }
}

/// What a pane report reads of its pane, in one call.
const PANE_FIELDS: &[&str] = &[
    "session_id",
    pane_opt::AGENT_KIND,
    pane_opt::REPORTED_KIND,
    pane_opt::REPORTED_SOURCE,
    pane_opt::META_STATE_LABELS,
    pane_opt::META_TOKENS,
    pane_opt::META_SEQS,
];

/// A pane's metadata reported: every argument checked before anything is
/// read; its tokens taken whenever the report is in order, and its title,
/// display name and labels only when the guards hold. The pane's watcher
/// is woken, to tell `pane.updated` to whoever listens.
pub(crate) fn report_pane(tmux: &Tmux, args: &PaneReport) -> Result<PaneMetadataTaken> {
    let changes = checked_changes(&args.tokens)?;
    if let Some(source) = &args.applies_to_source {
        check_source("--applies-to-source", source)?;
    }
    let agent = args.agent.as_deref().map(report::agent_label).transpose()?;
    let shown = presentation(args)?;
    if changes.is_empty() && shown.is_empty() {
        return Err(TawError::new(
            ErrorCode::InvalidMetadataRequest,
            "nothing to set or clear: give a title, a display agent, a state label or a token",
        ));
    }
    let _turn = super::pane::report::report_turn(tmux)?;
    let values = tmux_pane::read_values(tmux, args.pane, PANE_FIELDS)?;
    let mut seqs = Sequences::parse_metadata(&values[6]);
    if !take_seq(&mut seqs, &args.tokens.source, args.tokens.seq)? {
        return Ok(PaneMetadataTaken {
            in_order: false,
            pane_id: None,
            ignored: None,
        });
    }
    let had_tokens = !changes.is_empty();
    let tokens = tokens_after(&values[5], changes, args.tokens.ttl_ms, now_ms())?;
    let mut writes = OptionWrites::default();
    writes.set(pane_opt::META_SEQS, seqs.render());
    if had_tokens {
        if tokens.is_empty() {
            writes.unset(pane_opt::META_TOKENS);
        } else {
            writes.set(pane_opt::META_TOKENS, Value::Object(tokens).to_string());
        }
    }
    let holder = Holder {
        agent: if values[1].is_empty() {
            &values[2]
        } else {
            &values[1]
        },
        authority: &values[3],
    };
    let ignored = if shown.is_empty() {
        None
    } else {
        refused(agent.as_deref(), args.applies_to_source.as_deref(), &holder)
    };
    if ignored.is_none() {
        presentation_writes(&mut writes, &shown, &values[4]);
    }
    tmux_pane::write_options(tmux, args.pane, &writes)?;
    crate::watch::nudge::wake(tmux, args.pane);
    Ok(PaneMetadataTaken {
        in_order: true,
        pane_id: ids::tmux_number(&values[0], '$').map(|session| ids::pane_id(session, args.pane)),
        ignored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(pairs: &[&str]) -> TokenReport {
        TokenReport {
            source: "custom:t".into(),
            tokens: pairs.iter().map(|p| p.to_string()).collect(),
            ..TokenReport::default()
        }
    }

    fn code(result: Result<impl std::fmt::Debug>) -> ErrorCode {
        result.unwrap_err().code
    }

    #[test]
    fn sources_names_ttls_and_limits_have_herdrs_codes() {
        let mut bad = tokens(&["a=b"]);
        bad.source = "no spaces".into();
        assert_eq!(
            code(checked_changes(&bad)),
            ErrorCode::InvalidMetadataSource
        );
        bad.source = "s".repeat(81);
        assert_eq!(
            code(checked_changes(&bad)),
            ErrorCode::InvalidMetadataSource
        );
        bad.source = "s".repeat(80);
        assert!(checked_changes(&bad).is_ok());
        bad.ttl_ms = Some(0);
        assert_eq!(code(checked_changes(&bad)), ErrorCode::InvalidMetadataTtl);
        bad.ttl_ms = Some(MAX_TTL_MS + 1);
        assert_eq!(code(checked_changes(&bad)), ErrorCode::InvalidMetadataTtl);
        for pair in [
            "bad name=x",
            "noequals",
            "=x",
            &format!("{}=x", "n".repeat(33)),
        ] {
            assert_eq!(
                code(checked_changes(&tokens(&[pair]))),
                ErrorCode::InvalidMetadataToken,
                "{pair}"
            );
        }
        let many: Vec<String> = (0..17).map(|n| format!("t{n}=v")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(
            code(checked_changes(&tokens(&many))),
            ErrorCode::MetadataTokenLimit
        );
        assert_eq!(checked_changes(&tokens(&many[..16])).unwrap().len(), 16);
    }

    #[test]
    fn values_are_one_line_of_80_and_empty_clears() {
        let changes = checked_changes(&tokens(&[
            "a=  two\twords \u{7} ",
            &format!("b={}", "x".repeat(100)),
            "c=   ",
        ]))
        .unwrap();
        assert_eq!(changes[0], ("a".into(), Some("two words".into())));
        assert_eq!(changes[1].1.as_ref().unwrap().chars().count(), 80);
        assert_eq!(changes[2], ("c".into(), None));
    }

    #[test]
    fn each_token_set_has_its_own_expiry_and_lapsed_ones_go() {
        let stored =
            tokens_after("", vec![("a".into(), Some("1".into()))], Some(100), 1000).unwrap();
        assert_eq!(stored["a"]["expires"], 1100);
        let stored = Value::Object(stored).to_string();
        let later =
            tokens_after(&stored, vec![("b".into(), Some("2".into()))], None, 1050).unwrap();
        assert_eq!(later["a"]["expires"], 1100, "a keeps its own");
        assert!(later["b"]["expires"].is_null());
        let later = Value::Object(later).to_string();
        let lapsed = tokens_after(&later, vec![], None, 1100).unwrap();
        assert!(!lapsed.contains_key("a"));
        assert!(lapsed.contains_key("b"));
        let full: Map<String, Value> = (0..32)
            .map(|n| (format!("t{n}"), json!({"value": "v", "expires": null})))
            .collect();
        let full = Value::Object(full).to_string();
        let over = tokens_after(&full, vec![("one_more".into(), Some("v".into()))], None, 0);
        assert_eq!(code(over), ErrorCode::MetadataTokenLimit);
        assert!(tokens_after(&full, vec![("t0".into(), Some("w".into()))], None, 0).is_ok());
    }

    #[test]
    fn a_33rd_sequenced_source_is_refused() {
        let mut seqs = Sequences::parse_metadata("");
        for n in 0..32 {
            assert!(take_seq(&mut seqs, &format!("s{n}"), Some(1)).unwrap());
        }
        assert_eq!(
            code(take_seq(&mut seqs, "s32", Some(1))),
            ErrorCode::MetadataSequenceSourceLimit
        );
        assert!(
            take_seq(&mut seqs, "s32", None).unwrap(),
            "unnumbered is fine"
        );
        assert!(
            !take_seq(&mut seqs, "s0", Some(1)).unwrap(),
            "not above its last"
        );
    }

    fn pane_report() -> PaneReport {
        PaneReport {
            tokens: TokenReport {
                source: "custom:t".into(),
                ..TokenReport::default()
            },
            ..PaneReport::default()
        }
    }

    #[test]
    fn shown_fields_set_clear_and_refuse_both() {
        let mut args = pane_report();
        args.title = Some("  Fixing\nthe login  ".into());
        args.clear_display_agent = true;
        args.state_labels = vec![
            "Working=thinking".into(),
            "done=".into(),
            "idle=a".into(),
            "idle=b".into(),
        ];
        let shown = presentation(&args).unwrap();
        assert_eq!(shown.title, Some(Edit::Set("Fixing the login".into())));
        assert_eq!(shown.display_agent, Some(Edit::Clear));
        assert_eq!(
            shown.labels,
            [
                ("working", Some("thinking".into())),
                ("done", None),
                ("idle", Some("b".into()))
            ]
        );
        args.title = Some(" ".into());
        assert_eq!(presentation(&args).unwrap().title, Some(Edit::Clear));
        args.clear_title = true;
        assert_eq!(code(presentation(&args)), ErrorCode::InvalidMetadataRequest);
        let mut args = pane_report();
        args.state_labels = vec!["sleeping=zzz".into()];
        assert_eq!(code(presentation(&args)), ErrorCode::InvalidStateLabel);
        args.state_labels = vec!["idle".into()];
        assert_eq!(code(presentation(&args)), ErrorCode::InvalidStateLabel);
        args.state_labels = vec!["idle=x".into()];
        args.clear_state_labels = true;
        assert_eq!(code(presentation(&args)), ErrorCode::InvalidMetadataRequest);
        assert!(presentation(&pane_report()).unwrap().is_empty());
    }

    #[test]
    fn labels_merge_in_the_states_order() {
        let mut args = pane_report();
        args.state_labels = vec!["working=busy".into(), "blocked=asks".into()];
        let shown = presentation(&args).unwrap();
        let labels = labels_after(r#"{"working":"old","idle":"rests"}"#, &shown);
        assert_eq!(
            Value::Object(labels).to_string(),
            r#"{"idle":"rests","working":"busy","blocked":"asks"}"#
        );
        args.state_labels = vec!["idle=".into()];
        let labels = labels_after(r#"{"idle":"rests"}"#, &presentation(&args).unwrap());
        assert!(labels.is_empty());
        let mut args = pane_report();
        args.clear_state_labels = true;
        assert!(labels_after(r#"{"idle":"rests"}"#, &presentation(&args).unwrap()).is_empty());
    }

    #[test]
    fn guards_compare_the_agent_and_the_authority() {
        let holder = Holder {
            agent: "pi",
            authority: "herdr:pi",
        };
        assert_eq!(refused(None, None, &holder), None);
        assert_eq!(refused(Some("pi"), Some("herdr:pi"), &holder), None);
        assert_eq!(
            refused(Some("claude"), None, &holder),
            Some("agent_mismatch")
        );
        assert_eq!(
            refused(None, Some("custom:x"), &holder),
            Some("authority_mismatch")
        );
        let nobody = Holder {
            agent: "",
            authority: "",
        };
        assert_eq!(refused(Some("pi"), None, &nobody), Some("agent_mismatch"));
        assert_eq!(
            refused(None, Some("herdr:pi"), &nobody),
            Some("authority_mismatch")
        );
    }
}
