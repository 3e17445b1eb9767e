//! A restore with real agents from the agents lab: Claude Code and Codex
//! each have a turn (Claude a second one after `/clear`, at the effort
//! `/effort` set), the layout is saved, the tmux server killed and
//! restored; every session, window, pane and folder is back, each agent's
//! resume command was typed once with its session id, and the mock model's
//! next request holds the earlier turn. The lab's namespace is held by the
//! test, so the server the restore starts is inside it too. A second
//! test does the same for OpenCode, pi and Gemini CLI.
#![allow(clippy::disallowed_methods)]

use crate::common::lab::{Lab, STILL_LOADING, patient};
use crate::common::taw_bin;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const SECONDS: fn(u64) -> Duration = Duration::from_secs;

/// A resumed agent has drawn its earlier turn a while before it takes
/// input, and what is typed sooner can be lost; its screen shows no
/// change when it is ready, so there is nothing to wait for.
const RESUMED_SETTLES: Duration = Duration::from_secs(2);

fn pane_of(lab: &Lab, target: &str) -> String {
    lab.server.display(target, "#{pane_id}")
}

fn cwds(lab: &Lab) -> Vec<String> {
    let mut rows: Vec<String> = lab
        .server
        .tmux(&[
            "list-panes",
            "-a",
            "-F",
            "#{session_name}:#{window_index}.#{pane_index} #{window_name} #{pane_current_path}",
        ])
        .lines()
        .filter(|l| !l.starts_with("mock:"))
        .map(str::to_string)
        .collect();
    rows.sort();
    rows
}

/// Waits for a request to the mock whose text holds `new`, typed into
/// `pane`; it must hold `earlier` too (the resumed conversation).
fn next_request_holds(lab: &Lab, pane: &str, new: &str, earlier: &str) {
    let mut found = None;
    lab.wait_after_enter(
        &format!("a request with {new:?}"),
        pane,
        SECONDS(60),
        || {
            found = lab.requests().into_iter().rev().find(|r| r.contains(new));
            found.is_some()
        },
    );
    let request = found.unwrap();
    assert!(
        request.contains(earlier),
        "the request after the resume does not hold the earlier turn {earlier:?}"
    );
}

fn taw_env(lab: &Lab, args: &[&str], env: &[(&str, &Path)]) -> Value {
    let mut command = std::process::Command::new(taw_bin());
    lab.server.isolate_command(&mut command);
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "taw {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout).unwrap()["result"].clone()
}

#[test]
fn lab_claude_and_codex_resume_after_the_server_is_killed() {
    let Some(lab) = Lab::start_held() else { return };
    let claude_bin = lab.agent_on_path("claude");
    let codex_bin = lab.agent_on_path("codex");
    let claude_home = lab.scratch().join("claude-home");
    let codex_home = lab.scratch().join("codex-home");
    taw_env(
        &lab,
        &["integration", "install", "claude"],
        &[("HOME", &claude_home)],
    );
    taw_env(
        &lab,
        &["integration", "install", "codex"],
        &[("CODEX_HOME", &codex_home)],
    );
    let claude_work = lab.scratch().join("claude-work");
    let codex_work = lab.scratch().join("codex-work");
    let notes = lab.scratch().join("notes#1");
    std::fs::create_dir_all(&notes).unwrap();
    let at = |p: &Path| p.display().to_string().replace('#', "##");

    // Three sessions: Claude's (split), Codex's, and one in a folder with
    // a # in its name, in two panes.
    for (name, folder) in [
        ("claude-s", &claude_work),
        ("codex-s", &codex_work),
        ("notes", &notes),
    ] {
        lab.new_session(name, folder);
    }
    lab.server.tmux(&[
        "split-window",
        "-d",
        "-t",
        "=claude-s:",
        "-c",
        &at(&claude_work),
    ]);
    lab.server.tmux(&[
        "split-window",
        "-h",
        "-d",
        "-t",
        "=notes:",
        "-c",
        &at(&notes),
    ]);
    let claude = pane_of(&lab, "=claude-s:0.0");
    let codex = pane_of(&lab, "=codex-s:0.0");
    // Started at one effort and set to another inside the session: the
    // resume gives the level its last turn ran at, from its transcript.
    lab.type_line(
        &claude,
        &format!("{} --effort high", claude_bin.join("claude").display()),
    );
    lab.type_line(&codex, &codex_bin.join("codex").display().to_string());

    // Codex asks to review the new hooks once: trusted.
    lab.wait("Codex's hook review", SECONDS(40), || {
        lab.screen(&codex).contains("Hooks need review")
    });
    lab.choose_down(&codex, "› 2. Trust all");
    lab.key(&codex, "Enter");
    lab.wait_state(&claude, "idle", SECONDS(40));
    // Done when the review was read as a question nobody has seen
    // answered; idle when it went by between two looks.
    lab.wait("Codex at its prompt", SECONDS(40), || {
        matches!(lab.state(&codex).as_str(), "idle" | "done")
    });
    lab.type_line(&claude, "/effort low");
    lab.wait("Claude's effort set", SECONDS(20), || {
        lab.has(&claude, "Set effort level to low")
    });
    lab.type_line(&claude, "kiwi claude one");
    lab.type_line(&codex, "kiwi codex one");
    for (pane, text) in [(&claude, "kiwi claude one"), (&codex, "kiwi codex one")] {
        lab.wait_after_enter("the mock's reply", pane, SECONDS(30), || {
            lab.has(pane, &format!("Mock reply to: {text}"))
        });
        lab.wait("the session the integration reported", SECONDS(20), || {
            lab.server
                .display(pane, "#{@agent_session}")
                .contains("integration:")
        });
    }
    let session_id = |pane: &str| {
        lab.server.taw(&["pane", "get", pane]).result()["pane"]["agent_session_id"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // A /clear starts a new conversation, which Claude's hook reports:
    // the id saved is the new one, never the stale one.
    let cleared_id = session_id(&claude);
    lab.type_line(&claude, "/clear");
    lab.wait("the new session reported", SECONDS(20), || {
        let now = session_id(&claude);
        !now.is_empty() && now != cleared_id
    });
    lab.type_line(&claude, "fig claude two");
    lab.wait_after_enter("the mock's reply", &claude, SECONDS(30), || {
        lab.has(&claude, "Mock reply to: fig claude two")
    });
    let claude_id = session_id(&claude);
    let codex_id = lab.server.taw(&["pane", "get", &codex]).result()["pane"]["agent_session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let saved = lab.server.taw(&["session", "save"]).result();
    assert_eq!(saved["agents"], 2, "{saved}");
    let before = cwds(&lab);
    lab.server.tmux(&["kill-server"]);

    // The restore starts the server inside the namespace, with the
    // agents on PATH as a person's shell would have them: the tmux config
    // it reads (the user's own) runs shells that keep the server's PATH,
    // where a login shell would take the system's.
    // The person's home is Claude's (its default profile, ~/.claude).
    std::fs::write(
        claude_home.join(".tmux.conf"),
        "set -g default-command \"exec /bin/sh\"\n",
    )
    .unwrap();
    let path = format!(
        "{}:{}:{}",
        claude_bin.display(),
        codex_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = lab
        .in_namespace(&taw_bin().display().to_string())
        .args(["-L", &lab.server.socket, "session", "restore"])
        .env("PATH", &path)
        .env("HOME", &claude_home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let restored: Value = serde_json::from_slice::<Value>(&out.stdout).unwrap()["result"].clone();
    assert_eq!(restored["started_server"], true, "{restored}");
    assert!(
        restored["not_resumed"].as_array().unwrap().is_empty(),
        "{restored}"
    );
    assert_eq!(cwds(&lab), before);
    let plan: Vec<String> = restored["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    let typed = |needle: &str| {
        plan.iter()
            .filter(|l| l.contains("typed:") && l.contains(needle))
            .count()
    };
    // With the flags Claude ran with, read from its process by the
    // session report, the effort its last turn ran at, and no profile:
    // its home's ~/.claude is the default.
    assert_eq!(
        typed(&format!(
            ": claude --permission-mode default --effort low --resume {claude_id}"
        )),
        1,
        "claude's id {claude_id}: {plan:?}"
    );
    assert_eq!(
        typed(&format!("codex resume {codex_id}")),
        1,
        "codex's id {codex_id}: {plan:?}"
    );

    // Each agent is back in its conversation: the next request holds
    // the turn before the kill.
    let claude = pane_of(&lab, "=claude-s:0.0");
    let codex = pane_of(&lab, "=codex-s:0.0");
    let shown = |pane: &str, text: &str| {
        let start = std::time::Instant::now();
        while !lab.has(pane, text) {
            assert!(
                start.elapsed() < patient(SECONDS(40)),
                "{text:?} is not on {pane}:\n{}\nplan: {plan:?}",
                lab.screen(pane)
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    shown(&claude, "fig claude two");
    shown(&codex, "kiwi codex one");
    std::thread::sleep(RESUMED_SETTLES);
    lab.type_line(&claude, "plum claude two");
    next_request_holds(&lab, &claude, "plum claude two", "fig claude two");
    let last = lab
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.contains("plum claude two"))
        .unwrap();
    assert!(
        !last.contains("kiwi claude one"),
        "the conversation before /clear was resumed"
    );
    lab.type_line(&codex, "plum codex two");
    next_request_holds(&lab, &codex, "plum codex two", "kiwi codex one");
}

/// The first file under `dir` (at any depth) whose name ends in `suffix`.
fn find_file(dir: &Path, suffix: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, suffix) {
                return Some(found);
            }
        } else if path.display().to_string().ends_with(suffix) {
            return Some(path);
        }
    }
    None
}

/// OpenCode and pi (their sessions from their integrations) and Gemini
/// CLI (its session id reported by hand: it has no integration) each
/// have a turn; after the server is killed, the restore types each one's
/// own resume command, and its next request holds the earlier turn.
#[test]
fn lab_opencode_pi_and_gemini_resume_after_the_server_is_killed() {
    let Some(lab) = Lab::start_held() else { return };
    let agents = ["opencode", "pi", "gemini"];
    let bins: Vec<_> = agents.iter().map(|a| lab.agent_on_path(a)).collect();
    let opencode_home = lab.scratch().join("opencode-home");
    taw_env(
        &lab,
        &["integration", "install", "opencode"],
        &[
            ("HOME", &opencode_home),
            ("XDG_CONFIG_HOME", &opencode_home.join(".config")),
        ],
    );
    taw_env(
        &lab,
        &["integration", "install", "pi"],
        &[("HOME", &lab.scratch().join("pi-home"))],
    );
    let mut panes = Vec::new();
    for (agent, bin) in agents.iter().zip(&bins) {
        let pane = lab.new_session(
            &format!("{agent}-s"),
            &lab.scratch().join(format!("{agent}-work")),
        );
        lab.type_line(&pane, &bin.join(agent).display().to_string());
        panes.push(pane);
    }
    let [opencode, pi, gemini] = [&panes[0], &panes[1], &panes[2]];
    lab.wait("OpenCode's prompt", SECONDS(40), || {
        lab.has(opencode, "ctrl+p commands")
    });
    lab.wait_state(pi, "idle", SECONDS(40));
    lab.wait_state(gemini, "idle", SECONDS(40));
    // OpenCode drops what is typed while it still loads.
    std::thread::sleep(STILL_LOADING);
    // One agent at a time: OpenCode asked while the mock streams another
    // agent's reply has been told it cannot connect (a failed CI run).
    for (agent, pane) in agents.iter().zip(&panes) {
        lab.type_line(pane, &format!("kiwi {agent} one"));
        lab.wait_after_enter("the mock's reply", pane, SECONDS(30), || {
            lab.has(pane, &format!("Mock reply to: kiwi {agent} one"))
        });
    }
    for pane in [opencode, pi] {
        lab.wait("the session the integration reported", SECONDS(20), || {
            lab.server
                .display(pane, "#{@agent_session}")
                .contains("integration:")
        });
    }
    // Gemini keeps its conversation in a file whose first record names
    // its id (`.gemini/tmp/<project>/chats/session-*.jsonl`).
    let chats = lab.scratch().join("gemini-home/.gemini/tmp");
    let mut gemini_id = String::new();
    lab.wait("Gemini's saved conversation", SECONDS(20), || {
        let Some(file) = find_file(&chats, ".jsonl") else {
            return false;
        };
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let first = text.lines().next().unwrap_or_default();
        let record: Value = serde_json::from_str(first).unwrap_or_default();
        gemini_id = record["sessionId"].as_str().unwrap_or_default().to_string();
        !gemini_id.is_empty()
    });
    lab.server
        .taw(&[
            "pane",
            "report-agent-session",
            gemini,
            "--source",
            "custom:lab",
            "--agent",
            "gemini",
            "--agent-session-id",
            &gemini_id,
        ])
        .result();
    let saved = lab.server.taw(&["session", "save"]).result();
    assert_eq!(saved["agents"], 3, "{saved}");
    let session = |pane: &str| lab.server.taw(&["pane", "get", pane]).result()["pane"].clone();
    let opencode_id = session(opencode)["agent_session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let pi_session = session(pi);
    let pi_ref = pi_session["agent_session_path"]
        .as_str()
        .or(pi_session["agent_session_id"].as_str())
        .unwrap()
        .to_string();
    lab.server.tmux(&["kill-server"]);

    let home = lab.scratch().join("person");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".tmux.conf"),
        "set -g default-command \"exec /bin/sh\"\n",
    )
    .unwrap();
    let mut path: Vec<String> = bins.iter().map(|b| b.display().to_string()).collect();
    path.push(std::env::var("PATH").unwrap_or_default());
    let out = lab
        .in_namespace(&taw_bin().display().to_string())
        .args(["-L", &lab.server.socket, "session", "restore"])
        .env("PATH", path.join(":"))
        .env("HOME", &home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let restored: Value = serde_json::from_slice::<Value>(&out.stdout).unwrap()["result"].clone();
    let plan = restored["plan"].to_string();
    for line in [
        format!("typed: opencode --session {opencode_id}"),
        format!("typed: pi --session {pi_ref}"),
        format!("typed: gemini --resume {gemini_id}"),
    ] {
        assert_eq!(plan.matches(&line).count(), 1, "{line}: {plan}");
    }
    for (agent, name) in agents.iter().zip(["opencode-s", "pi-s", "gemini-s"]) {
        let pane = pane_of(&lab, &format!("={name}:0.0"));
        let earlier = format!("kiwi {agent} one");
        lab.wait(
            &format!("{agent} back in its conversation"),
            SECONDS(40),
            || lab.has(&pane, &earlier),
        );
        std::thread::sleep(RESUMED_SETTLES);
        let next = format!("plum {agent} two");
        lab.type_line(&pane, &next);
        next_request_holds(&lab, &pane, &next, &earlier);
    }
}
