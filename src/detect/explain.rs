//! `agent explain`: the state a screen reads as, the rule that decided, and
//! every rule tried, in herdr's explain shape.

use super::engine::{self, RuleEval};
use super::manifest::RuleState;
use super::region::Screen;
use super::registry::{Loaded, Origin};
use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct MatchedRule {
    pub id: String,
    pub priority: i32,
    pub region: String,
    pub state: &'static str,
    pub source: super::manifest::RuleSource,
}

/// herdr's explain record, with taw's `manifest_origin` and
/// `supplement_rules` beside it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Explain {
    pub agent: String,
    pub state: &'static str,
    pub manifest_source: String,
    pub manifest_version: Option<String>,
    pub manifest_origin: Origin,
    pub supplement_rules: usize,
    pub cached_remote_version: Option<String>,
    pub local_override_shadowing_remote: bool,
    pub remote_update_status: Option<String>,
    pub remote_update_error: Option<String>,
    pub matched_rule: Option<MatchedRule>,
    pub visible_idle: bool,
    pub visible_blocker: bool,
    pub visible_working: bool,
    pub screen_detection_skipped: bool,
    /// Why the screen was not read: herdr's word for an integration that
    /// reports the agent's whole lifecycle.
    pub screen_detection_skip_reason: Option<&'static str>,
    pub skip_state_update: bool,
    pub skipped_update_reason: Option<String>,
    pub fallback_reason: Option<&'static str>,
    pub warning: Option<String>,
    pub evaluated_rules: Vec<RuleEval>,
}

/// Explains how `loaded`'s rules read `screen`.
pub(crate) fn explain(loaded: &Loaded, screen: &Screen) -> Explain {
    let (verdict, evaluated_rules) = engine::explain(&loaded.manifest, screen);
    let matched_rule = verdict.rule.map(|index| {
        let rule = &loaded.manifest.rules[index];
        MatchedRule {
            id: rule.id.clone(),
            priority: rule.priority,
            region: rule.region_name.clone(),
            state: rule.state.as_str(),
            source: rule.source,
        }
    });
    let skip = verdict.state.is_none();
    Explain {
        agent: loaded.manifest.id.clone(),
        state: verdict.state.unwrap_or(RuleState::Unknown).as_str(),
        manifest_source: match (&loaded.path, loaded.origin) {
            (Some(path), _) => path.display().to_string(),
            (None, _) => "bundled".to_string(),
        },
        manifest_version: loaded.manifest.version.clone(),
        manifest_origin: loaded.origin,
        supplement_rules: loaded.supplement_rules,
        cached_remote_version: None,
        local_override_shadowing_remote: false,
        remote_update_status: None,
        remote_update_error: None,
        matched_rule,
        visible_idle: verdict.visible_idle,
        visible_blocker: verdict.visible_blocker,
        visible_working: verdict.visible_working,
        screen_detection_skipped: false,
        screen_detection_skip_reason: None,
        skip_state_update: skip,
        skipped_update_reason: skip.then(|| {
            "the winning rule marks a viewer screen; the previous state stands".to_string()
        }),
        fallback_reason: verdict.fallback_reason,
        warning: loaded.warning.clone(),
        evaluated_rules,
    }
}

/// The explanation for a person: the verdict, then each rule, matched first.
pub(crate) fn describe(explain: &Explain, verbose: bool) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "agent: {} ({} manifest{}{})\n",
        explain.agent,
        match explain.manifest_origin {
            Origin::Bundled => "bundled",
            Origin::Override => "override",
            Origin::Defined => "your own",
        },
        explain
            .manifest_version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default(),
        if explain.supplement_rules > 0 {
            format!(", {} taw rules", explain.supplement_rules)
        } else {
            String::new()
        }
    ));
    if let Some(warning) = &explain.warning {
        out.push_str(&format!("warning: {warning}\n"));
    }
    out.push_str(&format!("state: {}\n", explain.state));
    match &explain.matched_rule {
        Some(rule) => out.push_str(&format!(
            "decided by: {} (priority {}, region {}, {})\n",
            rule.id,
            rule.priority,
            rule.region,
            source_word(rule.source)
        )),
        None => out.push_str(&format!(
            "decided by: no rule matched ({})\n",
            explain.fallback_reason.unwrap_or("")
        )),
    }
    out.push_str("rules:\n");
    for rule in &explain.evaluated_rules {
        out.push_str(&format!(
            "  {} {:<32} {:>5} {:<8} {}{}\n",
            if rule.matched { "✓" } else { "·" },
            rule.id,
            rule.priority,
            rule.state,
            rule.region,
            if matches!(rule.source, super::manifest::RuleSource::Taw) {
                "  [taw]"
            } else {
                ""
            }
        ));
        if verbose {
            let found = &rule.evidence.found;
            let mut parts = Vec::new();
            if !found.contains.is_empty() {
                parts.push(format!("contains {:?}", found.contains));
            }
            if !found.regex.is_empty() {
                parts.push(format!("regex {:?}", found.regex));
            }
            if !found.line_regex.is_empty() {
                parts.push(format!("line_regex {:?}", found.line_regex));
            }
            parts.push(format!(
                "all {} any {} not {}",
                found.all_count, found.any_count, found.not_count
            ));
            out.push_str(&format!("      found: {}\n", parts.join(", ")));
            out.push_str(&format!(
                "      region ({} bytes): {}\n",
                rule.evidence.region_bytes, rule.evidence.region_preview
            ));
        }
    }
    out
}

fn source_word(source: super::manifest::RuleSource) -> &'static str {
    match source {
        super::manifest::RuleSource::Manifest => "manifest rule",
        super::manifest::RuleSource::Taw => "taw rule",
    }
}

/// Why a pane hosts no agent, in words: what is in front of its terminal
/// (`job`: the pane's own process and its terminal's foreground group, as
/// [`super::foreground::read_job`] reads them) and why that is no agent.
pub(crate) fn no_agent(
    pane: &str,
    pane_pid: u32,
    job: Option<(super::foreground::Process, Vec<super::foreground::Process>)>,
) -> String {
    use super::foreground::{self, Front};
    let Some((own, group)) = job else {
        return format!(
            "pane {pane} hosts no agent: the process table has no process {pane_pid} (the pane's own), so nothing in front of it can be named"
        );
    };
    let shown = |p: &foreground::Process| {
        let line = if p.argv.is_empty() {
            p.comm.clone()
        } else {
            p.argv.join(" ")
        };
        let line: String = line.chars().take(120).collect();
        format!("`{line}` (pid {})", p.pid)
    };
    match foreground::front_of(&own, group) {
        Front::Shell => format!(
            "pane {pane} hosts no agent: its own shell {} is at its prompt with nothing running in it",
            shown(&own)
        ),
        Front::Unknown => format!(
            "pane {pane} hosts no agent that taw can see: the process table does not say which job is in front of its terminal (its own process is {})",
            shown(&own)
        ),
        Front::Job { members, .. } => {
            let listed: Vec<String> = members.iter().take(4).map(shown).collect();
            let more = members.len().saturating_sub(4);
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let known: Vec<&str> = super::agents::AGENTS.iter().map(|a| a.executable).collect();
            format!(
                "pane {pane} hosts no agent: in front of its terminal runs {}{tail}, and neither their names nor their arguments name an agent taw knows ({}...)",
                listed.join(", "),
                known.iter().take(6).copied().collect::<Vec<_>>().join(", ")
            )
        }
    }
}
