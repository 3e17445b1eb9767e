//! Choosing a state from a screen (reference §5.3): every rule is tried on
//! its region; the highest priority that matches wins, the earliest in the
//! file on a tie; no match on a known agent's screen is idle.

use super::manifest::{Evidence, Manifest, RuleSource, RuleState};
use super::region::{Region, Screen};
use serde::Serialize;
use std::collections::HashMap;

/// herdr's reason for the idle given when no rule matched.
pub(crate) const IDLE_FALLBACK: &str = "default_known_agent_idle_fallback";

/// The decision for one screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Verdict {
    /// The state; `None` when the winning rule says the screen is a viewer
    /// (a transcript, a picker) and the previous state should stand.
    pub state: Option<RuleState>,
    /// Index of the winning rule in the manifest.
    #[serde(skip)]
    pub rule: Option<usize>,
    pub visible_idle: bool,
    pub visible_blocker: bool,
    pub visible_working: bool,
    pub fallback_reason: Option<&'static str>,
}

/// One rule as `agent explain` shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct RuleEval {
    pub id: String,
    pub priority: i32,
    pub region: String,
    pub state: &'static str,
    pub source: RuleSource,
    pub matched: bool,
    pub evidence: RuleEvidence,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct RuleEvidence {
    #[serde(flatten)]
    pub found: Evidence,
    pub region_bytes: usize,
    pub region_preview: String,
}

/// Region texts, each computed once per screen.
struct Regions<'a> {
    screen: &'a Screen,
    cache: HashMap<Region, (String, String)>,
}

impl<'a> Regions<'a> {
    fn new(screen: &'a Screen) -> Regions<'a> {
        Regions {
            screen,
            cache: HashMap::new(),
        }
    }

    fn get(&mut self, region: Region) -> &(String, String) {
        self.cache.entry(region).or_insert_with(|| {
            let text = region.select(self.screen);
            let lower = text.to_lowercase();
            (text, lower)
        })
    }
}

/// Classifies a screen.
pub(crate) fn classify(manifest: &Manifest, screen: &Screen) -> Verdict {
    let mut regions = Regions::new(screen);
    let mut best: Option<usize> = None;
    for (index, rule) in manifest.rules.iter().enumerate() {
        if best.is_some_and(|b| manifest.rules[b].priority >= rule.priority) {
            continue;
        }
        let (text, lower) = regions.get(rule.region);
        if rule.gate.matches(text, lower) {
            best = Some(index);
        }
    }
    verdict(manifest, best)
}

/// Classifies a screen and reports every rule, as `agent explain` does.
pub(crate) fn explain(manifest: &Manifest, screen: &Screen) -> (Verdict, Vec<RuleEval>) {
    let mut regions = Regions::new(screen);
    let mut evaluations = Vec::new();
    let mut best: Option<usize> = None;
    for (index, rule) in manifest.rules.iter().enumerate() {
        let (text, lower) = regions.get(rule.region);
        let matched = rule.gate.matches(text, lower);
        if matched && best.is_none_or(|b| manifest.rules[b].priority < rule.priority) {
            best = Some(index);
        }
        evaluations.push(RuleEval {
            id: rule.id.clone(),
            priority: rule.priority,
            region: rule.region_name.clone(),
            state: rule.state.as_str(),
            source: rule.source,
            matched,
            evidence: RuleEvidence {
                found: rule.gate.evidence(text, lower),
                region_bytes: text.len(),
                region_preview: preview(text),
            },
        });
    }
    (verdict(manifest, best), evaluations)
}

fn verdict(manifest: &Manifest, best: Option<usize>) -> Verdict {
    let Some(index) = best else {
        return Verdict {
            state: Some(RuleState::Idle),
            rule: None,
            visible_idle: false,
            visible_blocker: false,
            visible_working: false,
            fallback_reason: Some(IDLE_FALLBACK),
        };
    };
    let rule = &manifest.rules[index];
    Verdict {
        state: if rule.skip_state_update {
            None
        } else {
            Some(rule.state)
        },
        rule: Some(index),
        visible_idle: rule.visible_idle && rule.state == RuleState::Idle,
        visible_blocker: rule.visible_blocker && rule.state == RuleState::Blocked,
        visible_working: rule.visible_working && rule.state == RuleState::Working,
        fallback_reason: None,
    }
}

/// The last 240 characters of a region, on one line, for a person to read.
fn preview(text: &str) -> String {
    let flat: String = text
        .split('\n')
        .map(str::trim_end)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ⏎ ");
    let count = flat.chars().count();
    if count <= 240 {
        flat
    } else {
        format!("…{}", flat.chars().skip(count - 240).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest::parse(
            r#"
id = "x"
[[rules]]
id = "work"
state = "working"
priority = 100
region = "bottom_non_empty_lines(2)"
contains = ["esc to interrupt"]
[[rules]]
id = "ask"
state = "blocked"
priority = 300
visible_blocker = true
contains = ["do you want to proceed?"]
[[rules]]
id = "ask-again"
state = "idle"
priority = 300
contains = ["do you want"]
[[rules]]
id = "viewer"
state = "unknown"
priority = 50
skip_state_update = true
contains = ["transcript"]
"#,
            RuleSource::Manifest,
        )
        .unwrap()
    }

    fn screen(text: &str) -> Screen {
        Screen::from_text(text, "")
    }

    #[test]
    fn highest_priority_wins_and_first_on_ties() {
        let m = manifest();
        let v = classify(&m, &screen("Do you want to proceed?\n\nesc to interrupt"));
        assert_eq!(v.state, Some(RuleState::Blocked));
        assert!(v.visible_blocker);
        assert_eq!(m.rules[v.rule.unwrap()].id, "ask");
    }

    #[test]
    fn no_match_is_idle_fallback_and_skip_keeps() {
        let m = manifest();
        let v = classify(&m, &screen("nothing here"));
        assert_eq!(v.state, Some(RuleState::Idle));
        assert_eq!(v.fallback_reason, Some(IDLE_FALLBACK));
        assert_eq!(classify(&m, &screen("a transcript")).state, None);
        // Region: the working phrase above the last two non-empty lines is out.
        let v = classify(&m, &screen("esc to interrupt\na\nb"));
        assert_eq!(v.state, Some(RuleState::Idle));
    }

    #[test]
    fn explain_lists_every_rule() {
        let m = manifest();
        let (verdict, rules) = explain(&m, &screen("x\nesc to interrupt"));
        assert_eq!(verdict.state, Some(RuleState::Working));
        assert_eq!(rules.len(), 4);
        assert!(rules[0].matched);
        assert_eq!(rules[0].evidence.found.contains, vec!["esc to interrupt"]);
        assert!(!rules[1].matched);
    }
}
