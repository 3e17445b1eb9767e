//! A restore with real agents from the agents lab: Claude Code and Codex
//! each have a turn (Claude a second one after `/clear`, at the effort
//! `/effort` set), the layout is saved, the tmux server killed and
//! restored; every session, window, pane and folder is back, each agent's
//! resume command was typed once with its session id, and the mock model's
//! next request holds the earlier turn. The lab's namespace is held by the
//! test, so the server the restore starts is inside it too.
#![allow(clippy::disallowed_methods)]

mod common;

use common::lab::Lab;
use common::taw_bin;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const SECONDS: fn(u64) -> Duration = Duration::from_secs;

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

/// Waits for a request to the mock whose text holds `new`; it must hold
/// `earlier` too (the resumed conversation).
fn next_request_holds(lab: &Lab, new: &str, earlier: &str) {
    let mut found = None;
    lab.wait(&format!("a request with {new:?}"), SECONDS(60), || {
        found = lab.requests().into_iter().rev().find(|r| r.contains(new));
        found.is_some()
    });
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
    lab.key(&codex, "Down");
    lab.wait("Trust all chosen", SECONDS(10), || {
        lab.has(&codex, "› 2. Trust all")
    });
    lab.key(&codex, "Enter");
    lab.wait_state(&claude, "idle", SECONDS(40));
    lab.wait_state(&codex, "idle", SECONDS(40));
    lab.type_line(&claude, "/effort low");
    lab.wait("Claude's effort set", SECONDS(20), || {
        lab.has(&claude, "Set effort level to low")
    });
    lab.type_line(&claude, "kiwi claude one");
    lab.type_line(&codex, "kiwi codex one");
    for (pane, text) in [(&claude, "kiwi claude one"), (&codex, "kiwi codex one")] {
        lab.wait("the mock's reply", SECONDS(30), || {
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
    lab.wait("the mock's reply", SECONDS(30), || {
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
                start.elapsed() < SECONDS(40),
                "{text:?} is not on {pane}:\n{}\nplan: {plan:?}",
                lab.screen(pane)
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    shown(&claude, "fig claude two");
    shown(&codex, "kiwi codex one");
    std::thread::sleep(SECONDS(2));
    lab.type_line(&claude, "plum claude two");
    next_request_holds(&lab, "plum claude two", "fig claude two");
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
    next_request_holds(&lab, "plum codex two", "kiwi codex one");
}
