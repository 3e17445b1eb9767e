//! Where each agent's rules come from: the manifest bundled in the binary,
//! the user's override in `<config>/manifests/<id>.toml`, and taw's own
//! supplement rules appended after them (`[detection] supplements`). A
//! supplement rule named as a bundled rule takes that rule's place: taw's
//! closer reading of the same signal (a user's own manifest keeps its
//! rules of that name).

use super::agents;
use super::manifest::{Manifest, RuleSource};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A bundled file: agent id and text.
type Bundled = (&'static str, &'static str);

macro_rules! bundled {
    ($folder:literal: $($id:literal),* $(,)?) => {
        &[$(($id, include_str!(concat!($folder, "/", $id, ".toml")))),*]
    };
}

/// herdr-format manifests written for taw, one per agent with screen rules.
const MANIFESTS: &[Bundled] = bundled!(
    "manifests": "agy", "amp", "bob", "claude", "cline", "codebuddy", "codex", "commandcode",
    "copilot", "cursor", "devin", "droid", "gemini", "goose", "grok", "hermes", "kilo", "kimi",
    "kiro", "maki", "minimax", "muse", "omp", "opencode", "pi", "qodercli", "qwen", "reasonix",
);

/// taw's own rules, added where herdr's rules read a tmux pane wrongly.
const SUPPLEMENTS: &[Bundled] =
    bundled!("supplements": "claude", "codex", "gemini", "kilo", "opencode", "pi", "qwen");

/// Where a manifest came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Origin {
    Bundled,
    Override,
    /// An agent the user's file defines (no built-in one has its id).
    Defined,
}

/// An agent's rules as taw uses them.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub manifest: Manifest,
    pub origin: Origin,
    /// The override file, when one was read.
    pub path: Option<PathBuf>,
    /// How many of taw's supplement rules were added or took a bundled
    /// rule's place.
    pub supplement_rules: usize,
    /// Why an override was not used.
    pub warning: Option<String>,
}

/// The manifest of every agent that has one.
#[derive(Debug, Clone)]
pub(crate) struct Registry {
    pub loaded: Vec<Loaded>,
    /// The files of the manifests folder that are neither an override
    /// nor an agent's definition, each with why (a file that does not
    /// parse, one that names no programs, one named apart from its id).
    pub problems: Vec<String>,
}

impl Registry {
    /// Reads the bundled manifests, the overrides in `override_dir`, and
    /// (when `supplements`) taw's supplement rules.
    pub(crate) fn load(override_dir: &Path, supplements: bool) -> Registry {
        let mut loaded: Vec<Loaded> = MANIFESTS
            .iter()
            .map(|(id, text)| load_one(id, text, override_dir, supplements))
            .collect();
        // A built-in agent taw has no manifest for (Mastra Code) reads the
        // rules of its file, as [`Registry::one`] does for the watcher.
        loaded.extend(
            agents::AGENTS
                .iter()
                .filter(|agent| !MANIFESTS.iter().any(|(id, _)| *id == agent.id))
                .chain(agents::read_defined(override_dir))
                .filter_map(|agent| load_defined(agent.id, override_dir)),
        );
        let problems = problems(override_dir, &loaded);
        Registry { loaded, problems }
    }

    /// The registry as configured: overrides from the config folder,
    /// supplements as `[detection] supplements` says.
    pub(crate) fn from_config(config: &crate::config::Config) -> Registry {
        Registry::load(
            &crate::paths::manifests_dir(),
            config.get(&crate::config::schema::DETECTION_SUPPLEMENTS),
        )
    }

    /// One agent's rules as configured, read and compiled alone: a verb
    /// about one agent need not compile the twenty (most of `taw agent
    /// explain`'s time). `None` for an agent with no manifest.
    pub(crate) fn one(config: &crate::config::Config, agent: &str) -> Option<Loaded> {
        let id = agents::lookup(agent).map(|a| a.id).unwrap_or(agent);
        let Some((file, text)) = MANIFESTS.iter().find(|(file, _)| *file == id) else {
            return agents::by_id(id)
                .and_then(|a| load_defined(a.id, &crate::paths::manifests_dir()));
        };
        Some(load_one(
            file,
            text,
            &crate::paths::manifests_dir(),
            config.get(&crate::config::schema::DETECTION_SUPPLEMENTS),
        ))
    }

    pub(crate) fn get(&self, agent: &str) -> Option<&Loaded> {
        let id = agents::lookup(agent).map(|a| a.id).unwrap_or(agent);
        self.loaded.iter().find(|l| l.manifest.id == id)
    }
}

/// Each agent's rules, read and compiled the first time they are asked
/// for, and shared by every pane of the watcher (a clone shares them): a
/// shell compiles none, and twenty panes of one agent compile its rules
/// once. Kept by the config's stamp, so a config changed is read afresh.
#[derive(Debug, Default, Clone)]
pub(crate) struct OnDemand {
    loaded: LoadedRules,
}

type LoadedRules = std::sync::Arc<
    std::sync::Mutex<std::collections::HashMap<(String, String), Option<std::sync::Arc<Loaded>>>>,
>;

impl OnDemand {
    /// `agent`'s rules as `config` (of stamp `stamp`) says (see
    /// [`Registry::one`]).
    pub(crate) fn get(
        &self,
        config: &crate::config::Config,
        stamp: &str,
        agent: &str,
    ) -> Option<std::sync::Arc<Loaded>> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        loaded
            .entry((stamp.to_string(), agent.to_string()))
            .or_insert_with(|| Registry::one(config, agent).map(std::sync::Arc::new))
            .clone()
    }
}

/// The `.toml` files of the manifests folder `dir`, by name.
pub(crate) fn manifest_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// Why each file of `dir` that no loaded agent took is not used.
fn problems(dir: &Path, loaded: &[Loaded]) -> Vec<String> {
    manifest_files(dir)
        .into_iter()
        .filter(|path| !loaded.iter().any(|l| l.path.as_deref() == Some(path.as_path())))
        .filter(|path| {
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
            !MANIFESTS.iter().any(|(id, _)| Some(*id) == stem.as_deref())
        })
        .map(|path| {
            let why = match std::fs::read_to_string(&path) {
                Err(error) => format!("cannot be read: {error}"),
                Ok(text) => match Manifest::parse(&text, RuleSource::Manifest) {
                    Err(error) => format!("does not parse: {}", one_line(&error)),
                    Ok(manifest)
                        if path.file_stem().is_none_or(|s| *s != *manifest.id) =>
                    {
                        format!("names agent {:?}: it must be {}.toml", manifest.id, manifest.id)
                    }
                    Ok(manifest) if manifest.defines.processes.is_empty() => format!(
                        "no agent of taw's has id {:?}, and the file names no processes = [...] that run one",
                        manifest.id
                    ),
                    Ok(manifest) => format!(
                        "defines {:?}, which another agent's name or alias takes",
                        manifest.id
                    ),
                },
            };
            format!("{} {why}; it defines no agent", path.display())
        })
        .collect()
}

/// A parse error on one line: TOML's names the line and column first and
/// says what is wrong last, with the line quoted between.
fn one_line(error: &str) -> String {
    let lines: Vec<&str> = error
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match (lines.first(), lines.last()) {
        (Some(first), Some(last)) if lines.len() > 1 => format!("{first}: {last}"),
        _ => error.trim().to_string(),
    }
}

/// The rules of an agent the user's file `<id>.toml` defines.
fn load_defined(id: &str, dir: &Path) -> Option<Loaded> {
    let path = dir.join(format!("{id}.toml"));
    let text = std::fs::read_to_string(&path).ok()?;
    let mut manifest = Manifest::parse(&text, RuleSource::Manifest).ok()?;
    manifest.id = id.to_string();
    // A built-in agent's rules from the user's file are an override.
    let built_in = agents::AGENTS.iter().any(|agent| agent.id == id);
    Some(Loaded {
        manifest,
        origin: if built_in {
            Origin::Override
        } else {
            Origin::Defined
        },
        path: Some(path),
        supplement_rules: 0,
        warning: None,
    })
}

fn load_one(id: &str, text: &str, override_dir: &Path, supplements: bool) -> Loaded {
    let bundled = Manifest::parse(text, RuleSource::Manifest)
        .unwrap_or_else(|e| panic!("bundled manifest {id} is broken: {e}"));
    let mut loaded = Loaded {
        manifest: bundled,
        origin: Origin::Bundled,
        path: None,
        supplement_rules: 0,
        warning: None,
    };
    let path = override_dir.join(format!("{id}.toml"));
    match std::fs::read_to_string(&path) {
        Ok(text) => match Manifest::parse(&text, RuleSource::Manifest) {
            // A definition under a built-in agent's id shadows it only when
            // it says so.
            Ok(manifest)
                if !manifest.defines.processes.is_empty() && !manifest.defines.overrides =>
            {
                loaded.warning = Some(format!(
                    "{} defines an agent under the id of taw's own {id} (processes = [...]): say override = true to replace its rules, or choose another id; the bundled rules are used",
                    path.display()
                ));
            }
            Ok(manifest)
                if manifest.answers_to(id)
                    || agents::lookup(&manifest.id).is_some_and(|a| a.id == id) =>
            {
                loaded.manifest = manifest;
                loaded.manifest.id = id.to_string();
                loaded.origin = Origin::Override;
                loaded.path = Some(path);
            }
            Ok(manifest) => {
                loaded.warning = Some(format!(
                    "{} names agent {:?}, not {id}; the bundled rules are used",
                    path.display(),
                    manifest.id
                ));
            }
            Err(error) => {
                loaded.warning = Some(format!(
                    "{} is not used: {}",
                    path.display(),
                    one_line(&error)
                ));
            }
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => {
            loaded.warning = Some(format!("{} cannot be read: {error}", path.display()));
        }
    }
    if supplements && let Some((_, text)) = SUPPLEMENTS.iter().find(|(s, _)| *s == id) {
        let extra = Manifest::parse(text, RuleSource::Taw)
            .unwrap_or_else(|e| panic!("taw's supplement for {id} is broken: {e}"));
        for rule in extra.rules {
            let named = loaded.manifest.rules.iter().position(|r| r.id == rule.id);
            match named {
                Some(at) if loaded.origin == Origin::Bundled => loaded.manifest.rules[at] = rule,
                // The user's own manifest names it: theirs stands.
                Some(_) => continue,
                None => loaded.manifest.rules.push(rule),
            }
            loaded.supplement_rules += 1;
        }
        if loaded.manifest.turn_mark.is_none() {
            loaded.manifest.turn_mark = extra.turn_mark;
        }
    }
    loaded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_manifest_and_supplement_parses() {
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::load(dir.path(), true);
        assert_eq!(registry.loaded.len(), MANIFESTS.len());
        // `one` finds a manifest by its file's name.
        for ((file, _), loaded) in MANIFESTS.iter().zip(&registry.loaded) {
            assert_eq!(*file, loaded.manifest.id);
        }
        for loaded in &registry.loaded {
            assert!(
                agents::by_id(&loaded.manifest.id).is_some(),
                "{}",
                loaded.manifest.id
            );
            assert!(loaded.warning.is_none());
        }
        assert!(registry.get("claude").unwrap().supplement_rules > 0);
        let plain = Registry::load(dir.path(), false);
        assert_eq!(plain.get("claude").unwrap().supplement_rules, 0);
    }

    /// An agent's bundled rules (with taw's), and `text` as its screen.
    fn bundled_and_screen<'a>(
        registry: &'a Registry,
        agent: &str,
        text: &str,
    ) -> (&'a Manifest, crate::detect::region::Screen) {
        let loaded = registry
            .loaded
            .iter()
            .find(|l| l.manifest.id == agent)
            .unwrap();
        let screen = crate::detect::region::Screen::from_text(text, "");
        (&loaded.manifest, screen)
    }

    #[test]
    fn codex_and_claude_turns_leave_their_marks() {
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::load(dir.path(), true);
        let mark = |agent: &str, text: &str| {
            let (manifest, screen) = bundled_and_screen(&registry, agent, text);
            manifest.turn_mark.as_ref().unwrap().read(&screen)
        };
        // Codex 0.169 in the agents lab: a tool turn, then `hello`.
        let tool = "› tool touch x\n• Ran touch x\n  └ (no output)\n\n\
                    • The command finished. Mock turn complete.\n\n  Worked for 7s • 05:44\n\n\
                    › Ask Codex to do anything\n\n  mock-model default · ~/work\n";
        let hello = format!(
            "{tool}› hello\n\n• Hello from the agents-lab mock model.\n\n  Worked for <1s • 05:44\n\n\
             › Ask Codex to do anything\n\n  mock-model default · ~/work\n"
        );
        assert_eq!(
            mark("codex", tool).as_deref(),
            Some("  Worked for 7s • 05:44")
        );
        assert_eq!(
            mark("codex", &hello).as_deref(),
            Some("  Worked for <1s • 05:44")
        );
        assert_eq!(mark("codex", "› Ask Codex to do anything\n"), None);
        let claude = "> hello\n\n● Hello.\n\n✻ Sautéed for 3s\n\n───\n❯ \n───\n";
        assert_eq!(mark("claude", claude).as_deref(), Some("✻ Sautéed for 3s"));
        // The spinner of a turn under way is no mark.
        assert_eq!(
            mark("claude", "✻ Sautéing… (3s · esc to interrupt)\n───\n❯ \n"),
            None
        );
    }

    #[test]
    fn earlier_releases_screens_read_as_their_state() {
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::load(dir.path(), true);
        let state = |agent: &str, text: &str| {
            let (manifest, screen) = bundled_and_screen(&registry, agent, text);
            let verdict = crate::detect::engine::classify(manifest, &screen);
            verdict.state.map(|s| format!("{s:?}").to_lowercase())
        };
        let rule = "─".repeat(60);
        // Claude Code: a task's name and the ellipsis, nothing after, above
        // an empty prompt box: working. A message ending in an ellipsis
        // there is not.
        let claude =
            |above: &str| format!("> tidy\n\n{above}\n\n{rule}\n❯ \n{rule}\n  ? for shortcuts\n");
        assert_eq!(
            state("claude", &claude("✳ Simplifying recompute_tangents…")).as_deref(),
            Some("working")
        );
        assert_eq!(
            state("claude", &claude("● I will look at it…")).as_deref(),
            Some("idle")
        );
        assert_eq!(
            state("claude", &claude("✻ Sautéed for 3s")).as_deref(),
            Some("idle")
        );
        // Codex: its status header cut right after the bracket opens.
        let codex = |status: &str| {
            format!("› work 6\n\n{status}\n\n› Ask Codex to do anything\n\n  100% context left\n")
        };
        assert_eq!(
            state("codex", &codex("• Working (")).as_deref(),
            Some("working")
        );
        assert_eq!(
            state("codex", &codex("◦ Working (1m 1")).as_deref(),
            Some("working")
        );
        assert_eq!(
            state("codex", &codex("• I ran it (see the log")).as_deref(),
            Some("idle")
        );
        // A request under review with no prompt drawn below its status.
        let review = "› review it\n\n• Reviewing approval request (3s • esc to interrupt)\n";
        assert_eq!(state("codex", review).as_deref(), Some("working"));
        // Claude Code: the interrupt hint alone under the prompt box
        // (`ctrl+c to interrupt`), and a question that says only `Esc to
        // cancel` under its numbered choices.
        let footer = format!("> do x\n\n● On it.\n\n{rule}\n❯ \n{rule}\n  ctrl+c to interrupt\n");
        assert_eq!(state("claude", &footer).as_deref(), Some("working"));
        let asks = format!(
            "{rule}\n Bash command\n\n   rm -rf build\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n\n Esc to cancel\n"
        );
        assert_eq!(state("claude", &asks).as_deref(), Some("blocked"));
        // OpenCode: its palette's hint alone as its footer, at rest.
        let opencode = "\n  hello\n\n  Hello from mock.\n\n\n  ctrl+p commands\n";
        assert_eq!(state("opencode", opencode).as_deref(), Some("idle"));
        // pi: `Working...` alone above its editor; quoted higher up, not.
        let pi = |lines: &str| format!("{lines}\n{rule}\n\n{rule}\n~/w  ↑1 ↓2\n");
        assert_eq!(
            state("pi", &pi(" hello\n\nWorking...")).as_deref(),
            Some("working")
        );
        assert_eq!(
            state("pi", &pi("Working...\n\n reply done")).as_deref(),
            Some("idle")
        );
    }

    #[test]
    fn an_override_replaces_the_bundled_rules() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("codex.toml"),
            "id = \"codex\"\n[[rules]]\nid = \"mine\"\nstate = \"blocked\"\ncontains = [\"halt\"]\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("claude.toml"),
            "id = \"claude\"\nbogus = 1\n",
        )
        .unwrap();
        let registry = Registry::load(dir.path(), false);
        let codex = registry.get("codex").unwrap();
        assert_eq!(codex.origin, Origin::Override);
        assert_eq!(codex.manifest.rules.len(), 1);
        let claude = registry.get("claude").unwrap();
        assert_eq!(claude.origin, Origin::Bundled);
        assert!(claude.warning.as_deref().unwrap().contains("not used"));
    }

    #[test]
    fn a_supplement_rule_named_as_a_bundled_one_takes_its_place_not_a_users() {
        let dir = tempfile::tempdir().unwrap();
        // The sources of pi's rules named `working_spinner`.
        let sources = |registry: &Registry| -> Vec<RuleSource> {
            let pi = registry.get("pi").unwrap();
            let named = pi
                .manifest
                .rules
                .iter()
                .filter(|r| r.id == "working_spinner");
            named.map(|r| r.source).collect()
        };
        let bundled = sources(&Registry::load(dir.path(), false));
        assert_eq!(bundled, vec![RuleSource::Manifest]);
        // Still one rule of that name: taw's.
        let supplemented = sources(&Registry::load(dir.path(), true));
        assert_eq!(supplemented, vec![RuleSource::Taw]);
        std::fs::write(
            dir.path().join("pi.toml"),
            "id = \"pi\"\n[[rules]]\nid = \"working_spinner\"\nstate = \"working\"\ncontains = [\"busy\"]\n",
        )
        .unwrap();
        let users = sources(&Registry::load(dir.path(), true));
        assert_eq!(users, vec![RuleSource::Manifest]);
    }

    #[test]
    fn a_file_defines_an_agent_and_shadows_one_only_when_it_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let rule = "[[rules]]\nid = \"busy\"\nstate = \"working\"\ncontains = [\"busy\"]\n";
        std::fs::write(
            dir.path().join("acme.toml"),
            format!("id = \"acme\"\nname = \"Acme\"\nprocesses = [\"acme-cli\"]\n{rule}"),
        )
        .unwrap();
        // Named apart from its id: not found, as an override would not be.
        std::fs::write(
            dir.path().join("other.toml"),
            format!("id = \"zeta\"\nprocesses = [\"zeta\"]\n{rule}"),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("codex.toml"),
            format!("id = \"codex\"\nprocesses = [\"codex\"]\n{rule}"),
        )
        .unwrap();
        let defined = agents::read_defined(dir.path());
        assert_eq!(defined.len(), 1);
        assert_eq!(defined[0].id, "acme");
        assert_eq!(defined[0].name, "Acme");
        assert_eq!(defined[0].aliases, ["acme-cli"]);
        assert_eq!(defined[0].executable, "acme-cli");
        let registry = Registry::load(dir.path(), false);
        let acme = registry
            .loaded
            .iter()
            .find(|l| l.manifest.id == "acme")
            .unwrap();
        assert_eq!(acme.origin, Origin::Defined);
        // What defines nothing is said, each file with why.
        assert_eq!(registry.problems.len(), 1, "{:?}", registry.problems);
        assert!(registry.problems[0].contains("it must be zeta.toml"));
        std::fs::write(
            dir.path().join("broken.toml"),
            "id = \"broken\"\n[[rules]\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("lonely.toml"),
            format!("id = \"lonely\"\n{rule}"),
        )
        .unwrap();
        // No rule and no program: herdr refuses a manifest of no rules.
        std::fs::write(dir.path().join("empty.toml"), "id = \"empty\"\n").unwrap();
        let problems = Registry::load(dir.path(), false).problems;
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(
            problems[0].contains("broken.toml does not parse"),
            "{problems:?}"
        );
        assert!(
            problems[1]
                .contains("empty.toml does not parse: a manifest must hold at least one [[rules]]"),
            "{problems:?}"
        );
        assert!(problems[2].contains("names no processes"), "{problems:?}");
        let codex = registry.get("codex").unwrap();
        assert_eq!(codex.origin, Origin::Bundled);
        assert!(
            codex
                .warning
                .as_deref()
                .unwrap()
                .contains("override = true")
        );
        std::fs::write(
            dir.path().join("codex.toml"),
            format!("id = \"codex\"\noverride = true\nprocesses = [\"codex\"]\n{rule}"),
        )
        .unwrap();
        let registry = Registry::load(dir.path(), false);
        assert_eq!(registry.get("codex").unwrap().origin, Origin::Override);
        // Mastra Code has no bundled manifest: its file's rules are used,
        // by the registry as by the watcher, and no problem is told.
        std::fs::write(
            dir.path().join("mastracode.toml"),
            format!("id = \"mastracode\"\n{rule}"),
        )
        .unwrap();
        let registry = Registry::load(dir.path(), false);
        let mastra = registry.get("mastracode").unwrap();
        assert_eq!(mastra.origin, Origin::Override);
        assert!(
            !registry.problems.iter().any(|p| p.contains("mastracode")),
            "{:?}",
            registry.problems
        );
        // An override of no rules is refused: the bundled rules stay.
        std::fs::write(
            dir.path().join("codex.toml"),
            "id = \"codex\"\nversion = \"1\"\n",
        )
        .unwrap();
        let registry = Registry::load(dir.path(), false);
        assert_eq!(registry.get("codex").unwrap().origin, Origin::Bundled);
    }
}
