//! herdr's detection manifest format (reference §5.1): one TOML file per
//! agent, a list of rules, each a state, a priority, a region and matchers.
//! Unknown keys are errors, as in herdr, so a typo never silently disables
//! a rule.

use super::region::{Region, Screen};
use regex::Regex;
use serde::{Deserialize, Serialize};

/// The manifest features this engine has (herdr's engine 3).
pub(crate) const ENGINE_VERSION: u32 = 3;

const MAX_RULES: usize = 128;
const MAX_GATES: usize = 512;
const MAX_MATCHERS: usize = 1024;
const MAX_DIRECT_MATCHERS: usize = 32;
const MAX_MATCHER_CHARS: usize = 512;
const MAX_DEPTH: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RuleState {
    Idle,
    Working,
    Blocked,
    #[default]
    Unknown,
}

impl RuleState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RuleState::Idle => "idle",
            RuleState::Working => "working",
            RuleState::Blocked => "blocked",
            RuleState::Unknown => "unknown",
        }
    }
}

/// Where a rule came from: herdr's manifest format written by us for the
/// agent, or one of taw's own supplements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RuleSource {
    Manifest,
    Taw,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    id: String,
    version: Option<String>,
    min_engine_version: Option<u32>,
    /// herdr's date of the rules; read, and kept by nothing.
    #[serde(rename = "updated_at")]
    _updated_at: Option<String>,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    rules: Vec<RuleFile>,
    /// taw's own key: what on the idle screen moves only when a turn ends.
    turn_mark: Option<TurnMarkFile>,
    /// taw's own keys, for an agent the file defines: its display name,
    /// the programs that run it, and what `agent start` runs.
    name: Option<String>,
    #[serde(default)]
    processes: Vec<String>,
    #[serde(default)]
    command: Vec<String>,
    /// Said by a file that defines an agent under a built-in one's id.
    #[serde(default, rename = "override")]
    overrides: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnMarkFile {
    #[serde(default = "footer")]
    region: String,
    regex: String,
}

fn footer() -> String {
    "bottom_non_empty_lines(4)".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    id: String,
    #[serde(default)]
    state: RuleState,
    #[serde(default)]
    priority: i32,
    #[serde(default = "whole_recent")]
    region: String,
    #[serde(default)]
    visible_idle: bool,
    #[serde(default)]
    visible_blocker: bool,
    #[serde(default)]
    visible_working: bool,
    #[serde(default)]
    skip_state_update: bool,
    // The rule's own gate. serde cannot flatten a struct that denies
    // unknown fields, so its six keys are spelled out here.
    #[serde(default)]
    contains: Vec<String>,
    #[serde(default)]
    regex: Vec<String>,
    #[serde(default)]
    line_regex: Vec<String>,
    #[serde(default)]
    all: Vec<GateFile>,
    #[serde(default)]
    any: Vec<GateFile>,
    #[serde(default)]
    not: Vec<GateFile>,
}

fn whole_recent() -> String {
    "whole_recent".into()
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GateFile {
    #[serde(default)]
    contains: Vec<String>,
    #[serde(default)]
    regex: Vec<String>,
    #[serde(default)]
    line_regex: Vec<String>,
    #[serde(default)]
    all: Vec<GateFile>,
    #[serde(default)]
    any: Vec<GateFile>,
    #[serde(default)]
    not: Vec<GateFile>,
}

/// A compiled gate: every condition present must hold.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    /// Lower-cased needles, matched case-insensitively.
    pub contains: Vec<String>,
    pub regex: Vec<Regex>,
    pub line_regex: Vec<Regex>,
    pub all: Vec<Gate>,
    pub any: Vec<Gate>,
    pub not: Vec<Gate>,
}

#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub id: String,
    pub state: RuleState,
    pub priority: i32,
    pub region: Region,
    pub region_name: String,
    pub visible_idle: bool,
    pub visible_blocker: bool,
    pub visible_working: bool,
    pub skip_state_update: bool,
    pub gate: Gate,
    pub source: RuleSource,
}

#[derive(Debug, Clone)]
pub(crate) struct Manifest {
    pub id: String,
    pub version: Option<String>,
    pub min_engine_version: Option<u32>,
    pub aliases: Vec<String>,
    pub rules: Vec<Rule>,
    pub turn_mark: Option<TurnMark>,
    /// What a file that defines an agent says of it beside its rules.
    pub defines: Defines,
}

/// An agent a manifest defines: taw's own keys (none in herdr's files).
#[derive(Debug, Clone, Default)]
pub(crate) struct Defines {
    pub name: Option<String>,
    /// The programs that run it, as a pane's process in front is named.
    pub processes: Vec<String>,
    /// What `taw agent start` runs (default: its first program).
    pub command: Vec<String>,
    /// It knowingly takes a built-in agent's id.
    pub overrides: bool,
}

/// A text of the idle screen that changes only when a turn has ended (a
/// usage counter in the footer): a turn over between two looks, whose
/// working screen no look caught, still ends.
#[derive(Debug, Clone)]
pub(crate) struct TurnMark {
    pub region: Region,
    pub region_name: String,
    pub regex: Regex,
}

impl TurnMark {
    /// The mark on `screen`, if it shows one: the newest (lowest) match,
    /// where each turn leaves one (Reasonix's `TURN` summaries).
    pub(crate) fn read(&self, screen: &Screen) -> Option<String> {
        let text = self.region.select(screen);
        self.regex
            .find_iter(&text)
            .last()
            .map(|m| m.as_str().to_string())
    }
}

/// Counts kept while compiling, for herdr's limits.
#[derive(Default)]
struct Budget {
    gates: usize,
    matchers: usize,
}

impl Manifest {
    /// Parses and checks a manifest; `source` marks every rule's origin.
    pub(crate) fn parse(text: &str, source: RuleSource) -> Result<Manifest, String> {
        let file: ManifestFile = toml_edit::de::from_str(text).map_err(|e| e.to_string())?;
        let id = file.id.trim().to_string();
        if id.is_empty() {
            return Err("id must not be empty".into());
        }
        if let Some(version) = &file.version
            && !is_dotted_version(version)
        {
            return Err(format!(
                "version {version:?} must be numbers separated by dots"
            ));
        }
        if let Some(engine) = file.min_engine_version
            && engine > ENGINE_VERSION
        {
            return Err(format!(
                "min_engine_version {engine} is newer than this engine ({ENGINE_VERSION})"
            ));
        }
        // herdr refuses a manifest of no rules (and keeps its own): taken,
        // it would leave the agent with none, never blocked. An agent of
        // the user's own that names its programs may read its state by
        // them alone.
        if file.rules.is_empty() && file.processes.is_empty() {
            return Err("a manifest must hold at least one [[rules]]".into());
        }
        if file.rules.len() > MAX_RULES {
            return Err(format!("{} rules; at most {MAX_RULES}", file.rules.len()));
        }
        let mut budget = Budget::default();
        let mut rules = Vec::new();
        for rule in file.rules {
            let id = rule.id.trim().to_string();
            let context = |message: String| format!("rule {id:?}: {message}");
            if id.is_empty() {
                return Err("a rule has an empty id".into());
            }
            let region = Region::parse(&rule.region).map_err(context)?;
            let visible = rule.visible_idle || rule.visible_blocker || rule.visible_working;
            if rule.skip_state_update && (rule.state != RuleState::Unknown || visible) {
                return Err(context(
                    "skip_state_update needs state = \"unknown\" and no visible_* flag".into(),
                ));
            }
            let own = GateFile {
                contains: rule.contains,
                regex: rule.regex,
                line_regex: rule.line_regex,
                all: rule.all,
                any: rule.any,
                not: rule.not,
            };
            let gate = compile_gate(own, 0, true, &mut budget).map_err(context)?;
            if let Some(refused) = gate
                .not
                .iter()
                .find(|not| refuses_what_it_needs(&gate, not))
            {
                return Err(context(format!(
                    "it can never match: it needs {:?} on the screen, and its not gate refuses any screen that shows {:?}",
                    gate.contains, refused.contains
                )));
            }
            rules.push(Rule {
                id,
                state: rule.state,
                priority: rule.priority,
                region,
                region_name: rule.region.trim().to_string(),
                visible_idle: rule.visible_idle,
                visible_blocker: rule.visible_blocker,
                visible_working: rule.visible_working,
                skip_state_update: rule.skip_state_update,
                gate,
                source,
            });
        }
        if budget.gates > MAX_GATES {
            return Err(format!("{} gates; at most {MAX_GATES}", budget.gates));
        }
        if budget.matchers > MAX_MATCHERS {
            return Err(format!(
                "{} matchers; at most {MAX_MATCHERS}",
                budget.matchers
            ));
        }
        let turn_mark = match file.turn_mark {
            None => None,
            Some(mark) => Some(TurnMark {
                region: Region::parse(&mark.region).map_err(|e| format!("turn_mark: {e}"))?,
                region_name: mark.region.trim().to_string(),
                regex: Regex::new(&mark.regex).map_err(|e| format!("turn_mark: {e}"))?,
            }),
        };
        if let Some(bad) = file
            .processes
            .iter()
            .chain(&file.command)
            .find(|word| word.trim().is_empty())
        {
            return Err(format!(
                "processes and command hold program names and words, and one is {bad:?}"
            ));
        }
        Ok(Manifest {
            id,
            version: file.version,
            min_engine_version: file.min_engine_version,
            aliases: file.aliases,
            rules,
            turn_mark,
            defines: Defines {
                name: file
                    .name
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty()),
                processes: file.processes,
                command: file.command,
                overrides: file.overrides,
            },
        })
    }

    /// Whether `name` is this manifest's id or one of its aliases.
    pub(crate) fn answers_to(&self, name: &str) -> bool {
        self.id.eq_ignore_ascii_case(name)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
}

fn is_dotted_version(version: &str) -> bool {
    !version.is_empty()
        && version
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

fn compile_gate(
    file: GateFile,
    depth: usize,
    positive: bool,
    budget: &mut Budget,
) -> Result<Gate, String> {
    if depth > MAX_DEPTH {
        return Err(format!("gates nest deeper than {MAX_DEPTH}"));
    }
    budget.gates += 1;
    let direct = file.contains.len() + file.regex.len() + file.line_regex.len();
    if direct > MAX_DIRECT_MATCHERS {
        return Err(format!(
            "{direct} matchers in one gate; at most {MAX_DIRECT_MATCHERS}"
        ));
    }
    budget.matchers += direct;
    let has_positive = direct > 0 || !file.all.is_empty() || !file.any.is_empty();
    if positive && !has_positive {
        return Err("a gate needs contains, regex, line_regex, all or any".into());
    }
    if !positive && direct == 0 && file.all.is_empty() && file.any.is_empty() && file.not.is_empty()
    {
        return Err("a not gate needs a matcher".into());
    }
    for matcher in file
        .contains
        .iter()
        .chain(&file.regex)
        .chain(&file.line_regex)
    {
        if matcher.chars().count() > MAX_MATCHER_CHARS {
            return Err(format!(
                "a matcher is longer than {MAX_MATCHER_CHARS} characters"
            ));
        }
    }
    let compile = |patterns: Vec<String>| -> Result<Vec<Regex>, String> {
        patterns
            .iter()
            .map(|p| Regex::new(p).map_err(|e| format!("regex {p:?}: {e}")))
            .collect()
    };
    let nested = |gates: Vec<GateFile>, positive: bool, budget: &mut Budget| {
        gates
            .into_iter()
            .map(|gate| compile_gate(gate, depth + 1, positive, budget))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(Gate {
        contains: file.contains.iter().map(|c| c.to_lowercase()).collect(),
        regex: compile(file.regex)?,
        line_regex: compile(file.line_regex)?,
        all: nested(file.all, true, budget)?,
        any: nested(file.any, true, budget)?,
        not: nested(file.not, false, budget)?,
    })
}

/// What a gate's matchers found, for `agent explain`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub(crate) struct Evidence {
    pub contains: Vec<String>,
    pub regex: Vec<String>,
    pub line_regex: Vec<String>,
    pub all_count: usize,
    pub any_count: usize,
    pub not_count: usize,
}

/// Whether `not`, a gate of `gate`'s `not`, holds on every screen `gate`'s
/// own needles hold on: a text only of needles, each inside one `gate`
/// needs. Then `gate` can never match.
fn refuses_what_it_needs(gate: &Gate, not: &Gate) -> bool {
    let only_needles = not.regex.is_empty()
        && not.line_regex.is_empty()
        && not.all.is_empty()
        && not.any.is_empty()
        && not.not.is_empty();
    only_needles
        && !not.contains.is_empty()
        && not.contains.iter().all(|refused| {
            gate.contains
                .iter()
                .any(|needed| needed.contains(refused.as_str()))
        })
}

impl Gate {
    /// Whether the gate holds on `text` (`lower` is `text` lower-cased).
    pub(crate) fn matches(&self, text: &str, lower: &str) -> bool {
        self.contains
            .iter()
            .all(|needle| lower.contains(needle.as_str()))
            && self.regex.iter().all(|re| re.is_match(text))
            && self
                .line_regex
                .iter()
                .all(|re| text.lines().any(|line| re.is_match(line)))
            && self.all.iter().all(|gate| gate.matches(text, lower))
            && (self.any.is_empty() || self.any.iter().any(|gate| gate.matches(text, lower)))
            && !self.not.iter().any(|gate| gate.matches(text, lower))
    }

    /// The matchers of this gate that hold, and how many nested gates do.
    pub(crate) fn evidence(&self, text: &str, lower: &str) -> Evidence {
        Evidence {
            contains: self
                .contains
                .iter()
                .filter(|needle| lower.contains(needle.as_str()))
                .cloned()
                .collect(),
            regex: self
                .regex
                .iter()
                .filter(|re| re.is_match(text))
                .map(|re| re.as_str().to_string())
                .collect(),
            line_regex: self
                .line_regex
                .iter()
                .filter(|re| text.lines().any(|line| re.is_match(line)))
                .map(|re| re.as_str().to_string())
                .collect(),
            all_count: self.all.iter().filter(|g| g.matches(text, lower)).count(),
            any_count: self.any.iter().filter(|g| g.matches(text, lower)).count(),
            not_count: self.not.iter().filter(|g| g.matches(text, lower)).count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
id = "myagent"
version = "2026.1.1"
min_engine_version = 1
aliases = ["my-agent"]

[[rules]]
id = "approval_dialog"
state = "blocked"
priority = 300
region = "bottom_non_empty_lines(6)"
visible_blocker = true
contains = ["Approve?"]
any = [{ contains = ["[y/n]"] }, { line_regex = ['^\s*> allow'] }]
"#;

    #[test]
    fn parses_herdrs_format() {
        let manifest = Manifest::parse(SAMPLE, RuleSource::Manifest).unwrap();
        assert_eq!(manifest.id, "myagent");
        assert!(manifest.answers_to("MY-AGENT"));
        let rule = &manifest.rules[0];
        assert_eq!(rule.state, RuleState::Blocked);
        assert_eq!(rule.region, Region::BottomNonEmptyLines(6));
        assert_eq!(rule.gate.contains, vec!["approve?"]);
        let text = "Approve? [y/n]";
        assert!(rule.gate.matches(text, &text.to_lowercase()));
        let text = "approve?\n  > allow";
        assert!(rule.gate.matches(text, &text.to_lowercase()));
        let text = "approve? nothing";
        assert!(!rule.gate.matches(text, &text.to_lowercase()));
    }

    #[test]
    fn a_rule_that_can_never_match_is_an_error() {
        let never = "id = \"x\"\n[[rules]]\nid = \"r\"\ncontains = [\"Esc to stop\"]\nnot = [{ contains = [\"esc\"] }]\n";
        let error = Manifest::parse(never, RuleSource::Manifest).unwrap_err();
        assert!(error.contains("can never match"), "{error}");
        let fine = "id = \"x\"\n[[rules]]\nid = \"r\"\ncontains = [\"esc to stop\"]\nnot = [{ contains = [\"transcript\"] }]\n";
        assert!(Manifest::parse(fine, RuleSource::Manifest).is_ok());
    }

    #[test]
    fn unknown_keys_and_bad_rules_are_errors() {
        let unknown = "id = \"x\"\ncolour = 1\n[[rules]]\nid = \"r\"\ncontains = [\"a\"]\n";
        assert!(Manifest::parse(unknown, RuleSource::Manifest).is_err());
        let typo = "id = \"x\"\n[[rules]]\nid = \"r\"\ncontain = [\"a\"]\n";
        assert!(Manifest::parse(typo, RuleSource::Manifest).is_err());
        let empty_gate = "id = \"x\"\n[[rules]]\nid = \"r\"\nstate = \"idle\"\n";
        assert!(Manifest::parse(empty_gate, RuleSource::Manifest).is_err());
        let bad_regex = "id = \"x\"\n[[rules]]\nid = \"r\"\nregex = [\"(\"]\n";
        assert!(Manifest::parse(bad_regex, RuleSource::Manifest).is_err());
        let skip = "id = \"x\"\n[[rules]]\nid = \"r\"\nstate = \"idle\"\nskip_state_update = true\ncontains = [\"a\"]\n";
        assert!(Manifest::parse(skip, RuleSource::Manifest).is_err());
        let engine =
            "id = \"x\"\nmin_engine_version = 9\n[[rules]]\nid = \"r\"\ncontains = [\"a\"]\n";
        assert!(Manifest::parse(engine, RuleSource::Manifest).is_err());
    }

    #[test]
    fn not_gates_exclude() {
        let text = "id = \"x\"\n[[rules]]\nid = \"r\"\nstate = \"working\"\ncontains = [\"esc to interrupt\"]\nnot = [{ contains = [\"interrupted\"] }]\n";
        let manifest = Manifest::parse(text, RuleSource::Manifest).unwrap();
        let gate = &manifest.rules[0].gate;
        let on = "Working (esc to interrupt)";
        assert!(gate.matches(on, &on.to_lowercase()));
        let off = "esc to interrupt\nConversation interrupted";
        assert!(!gate.matches(off, &off.to_lowercase()));
    }
}
