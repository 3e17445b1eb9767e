//! The integrations with real agents from the agents lab: installed into
//! the agent's scratch home beside the user's own hook, comments and keys,
//! the agent run in a pane against the mock model, its reports seen on the
//! pane (its session; for OpenCode and pi their states), then uninstalled,
//! leaving the user's file byte for byte as it was. Skipped (with a
//! message) where the lab cannot run; see tests/common/lab.rs.
#![allow(clippy::disallowed_methods)]

use crate::common::lab::{Lab, STILL_LOADING, patient};
use std::path::{Path, PathBuf};
use std::time::Duration;

const SECONDS: fn(u64) -> Duration = Duration::from_secs;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `taw integration <verb> <agent>` with the agent's own folders.
fn integration(lab: &Lab, verb: &str, agent: &str, env: &[(&str, &Path)]) -> serde_json::Value {
    let env: Vec<(&str, String)> = env
        .iter()
        .map(|(k, v)| (*k, v.display().to_string()))
        .collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    lab.server
        .taw_bare(&["integration", verb, agent], &env)
        .result()
}

/// A new session `name` whose pane runs the lab's agent from `bin`.
fn run_agent(lab: &Lab, bin: &Path, agent: &str, name: &str) -> String {
    let pane = lab.new_session(name, &lab.scratch().join(format!("{agent}-work")));
    lab.type_line(&pane, &bin.join(agent).display().to_string());
    pane
}

fn option(lab: &Lab, pane: &str, name: &str) -> String {
    lab.server.display(pane, &format!("#{{{name}}}"))
}

/// Waits for the pane's record to carry the session the integration
/// reported; returns the record.
fn wait_session(lab: &Lab, pane: &str, limit: Duration) -> serde_json::Value {
    lab.wait("the integration's session on the pane", limit, || {
        option(lab, pane, "@agent_session").contains("integration:")
    });
    let record = lab.server.taw(&["pane", "get", pane]).result();
    assert!(
        record["pane"]["agent_session_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
            || record["pane"]["agent_session_path"].is_string(),
        "{record}"
    );
    record
}

/// Waits for the state the integration reported (not the screen's).
fn wait_reported(lab: &Lab, pane: &str, state: &str, limit: Duration) {
    let limit = patient(limit);
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if option(lab, pane, "@agent_reported_state") == state {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "the integration did not report {state} within {limit:?}: {:?} from {:?}; screen:\n{}",
        option(lab, pane, "@agent_reported_state"),
        option(lab, pane, "@agent_reported_source"),
        lab.screen(pane)
    );
}

fn quit(lab: &Lab, pane: &str, keys: &[&str]) {
    for key in keys {
        if lab.agent(pane).0.is_empty() {
            break;
        }
        if key.starts_with('/') {
            lab.type_line(pane, key);
        } else {
            lab.key(pane, key);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    lab.wait("the agent to exit", SECONDS(20), || {
        lab.agent(pane).0.is_empty()
    });
}

#[test]
fn lab_claude_code_reports_its_session() {
    let Some(lab) = Lab::start() else { return };
    let bin = lab.agent_on_path("claude");
    let home: PathBuf = lab.scratch().join("claude-home");
    let settings = home.join(".claude/settings.json");
    let mark = lab.scratch().join("user-hook-ran");
    let user = format!(
        "{{\n    \"includeCoAuthoredBy\": false,\n    \"hooks\": {{\n        \"SessionStart\": [\n            {{ \"matcher\": \"startup\", \"hooks\": [ {{ \"type\": \"command\", \"command\": \"touch {}\" }} ] }}\n        ]\n    }}\n}}\n",
        mark.display()
    );
    std::fs::write(&settings, &user).unwrap();
    let installed = integration(&lab, "install", "claude", &[("HOME", &home)]);
    assert_eq!(installed["target"], "claude");

    let pane = run_agent(&lab, &bin, "claude", "claude-int");
    let record = wait_session(&lab, &pane, SECONDS(40));
    assert!(
        record["pane"]["agent_session_path"]
            .as_str()
            .is_some_and(|p| p.ends_with(".jsonl")),
        "{record}"
    );
    assert!(mark.exists(), "the user's own hook did not run");
    lab.wait_state(&pane, "idle", SECONDS(30));
    quit(&lab, &pane, &["/exit"]);

    integration(&lab, "uninstall", "claude", &[("HOME", &home)]);
    assert_eq!(read(&settings), user);
    assert!(!home.join(".claude/hooks/taw-agent-session.sh").exists());
}

#[test]
fn lab_codex_reports_its_session_once_its_hook_is_trusted() {
    let Some(lab) = Lab::start() else { return };
    let bin = lab.agent_on_path("codex");
    let home = lab.scratch().join("codex-home");
    let config = home.join("config.toml");
    let user_config = format!(
        "# the lab's config, with a comment of the user's\n{}",
        read(&config)
    );
    std::fs::write(&config, &user_config).unwrap();
    let hooks = home.join("hooks.json");
    let mark = lab.scratch().join("user-hook-ran");
    let user_hooks = format!(
        "{{\n  \"hooks\": {{\n    \"SessionStart\": [\n      {{\"hooks\": [{{\"type\": \"command\", \"command\": \"touch {}\"}}]}}\n    ]\n  }}\n}}\n",
        mark.display()
    );
    std::fs::write(&hooks, &user_hooks).unwrap();
    let installed = integration(&lab, "install", "codex", &[("CODEX_HOME", &home)]);
    assert!(
        installed["details"]["messages"]
            .to_string()
            .contains("Hooks need review")
    );

    // Codex asks once to review the new hooks; trust them, start again.
    let pane = run_agent(&lab, &bin, "codex", "codex-int");
    lab.wait("Codex's hook review", SECONDS(40), || {
        lab.screen(&pane).to_lowercase().contains("review")
    });
    lab.choose_down(&pane, "› 2. Trust all");
    lab.key(&pane, "Enter");
    // Codex may work a moment after the trust; unseen, that turn ends done.
    lab.wait("Codex ready after the trust", SECONDS(40), || {
        matches!(lab.state(&pane).as_str(), "idle" | "done")
    });
    // Codex begins its session, and runs SessionStart, at the first prompt.
    lab.type_line(&pane, "hello");
    wait_session(&lab, &pane, SECONDS(40));
    assert!(mark.exists(), "the user's own hook did not run");
    quit(&lab, &pane, &["C-c", "C-c", "C-c"]);

    integration(&lab, "uninstall", "codex", &[("CODEX_HOME", &home)]);
    assert_eq!(read(&hooks), user_hooks);
    // Codex wrote its trust into config.toml; every line of the user's is
    // still there, in order.
    let now = read(&config);
    let mut at = 0;
    for line in user_config.lines() {
        let found = now[at..]
            .find(line)
            .unwrap_or_else(|| panic!("{line:?} is gone:\n{now}"));
        at += found + line.len();
    }
}

#[test]
fn lab_opencode_reports_its_states() {
    let Some(lab) = Lab::start() else { return };
    let bin = lab.agent_on_path("opencode");
    let home = lab.scratch().join("opencode-home");
    let config = home.join(".config");
    let folder = config.join("opencode");
    // The user's own plugin, and OpenCode 2's cli.json with a comment.
    let plugin = folder.join("plugins/mine.js");
    std::fs::create_dir_all(plugin.parent().unwrap()).unwrap();
    std::fs::write(&plugin, "export const Mine = async () => ({});\n").unwrap();
    let cli = folder.join("cli.json");
    let user_cli = "{\n  // OpenCode 2's plugins\n  \"plugins\": [\"./mine\"]\n}\n";
    std::fs::write(&cli, user_cli).unwrap();
    let opencode_json = read(&folder.join("opencode.json"));
    let env = [
        ("HOME", home.as_path()),
        ("XDG_CONFIG_HOME", config.as_path()),
    ];
    integration(&lab, "install", "opencode", &env);
    assert!(read(&cli).contains("./taw-opencode"));

    let pane = run_agent(&lab, &bin, "opencode", "opencode-int");
    lab.wait("OpenCode's prompt", SECONDS(40), || {
        lab.agent(&pane).0 == "opencode" && lab.has(&pane, "ctrl+p commands")
    });
    // OpenCode drops what is typed while it still loads.
    std::thread::sleep(STILL_LOADING);
    lab.type_line(&pane, "work 4");
    wait_reported(&lab, &pane, "working", SECONDS(20));
    wait_session(&lab, &pane, SECONDS(10));
    wait_reported(&lab, &pane, "idle", SECONDS(30));
    lab.type_line(&pane, "ask");
    wait_reported(&lab, &pane, "blocked", SECONDS(30));
    lab.wait_state(&pane, "blocked", SECONDS(10));
    lab.answer(&pane, "enter submit", "Enter");
    wait_reported(&lab, &pane, "idle", SECONDS(30));
    quit(&lab, &pane, &["C-c", "C-c", "C-d"]);

    integration(&lab, "uninstall", "opencode", &env);
    assert_eq!(read(&cli), user_cli);
    assert_eq!(read(&folder.join("opencode.json")), opencode_json);
    assert!(plugin.exists());
    assert!(!folder.join("plugins/taw-agent-state.js").exists());
}

#[test]
fn lab_pi_reports_its_states() {
    let Some(lab) = Lab::start() else { return };
    let bin = lab.agent_on_path("pi");
    let home = lab.scratch().join("pi-home");
    // An extension of the user's own, beside which taw's goes.
    let mine = home.join(".pi/agent/extensions/mine.ts");
    let user_extension = "// mine\nexport default function (pi: any) {\n  pi.on(\"agent_start\", async () => {});\n}\n";
    std::fs::create_dir_all(mine.parent().unwrap()).unwrap();
    std::fs::write(&mine, user_extension).unwrap();
    integration(&lab, "install", "pi", &[("HOME", &home)]);
    assert!(
        home.join(".pi/agent/extensions/taw-agent-state.ts")
            .exists()
    );

    let pane = run_agent(&lab, &bin, "pi", "pi-int");
    wait_session(&lab, &pane, SECONDS(40));
    lab.type_line(&pane, "work 4");
    wait_reported(&lab, &pane, "working", SECONDS(20));
    wait_reported(&lab, &pane, "idle", SECONDS(30));
    lab.type_line(&pane, "ask");
    wait_reported(&lab, &pane, "blocked", SECONDS(30));
    lab.wait_state(&pane, "blocked", SECONDS(10));
    lab.key(&pane, "Enter");
    wait_reported(&lab, &pane, "idle", SECONDS(30));
    quit(&lab, &pane, &["C-c", "C-c", "C-d"]);

    integration(&lab, "uninstall", "pi", &[("HOME", &home)]);
    assert_eq!(read(&mine), user_extension);
    assert!(
        !home
            .join(".pi/agent/extensions/taw-agent-state.ts")
            .exists()
    );
}
