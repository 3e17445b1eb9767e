//! Every recorded screen of the real agents (tests/fixtures/screens, from
//! the agents lab) classified by the real binary with the bundled rules:
//! `taw agent explain --file ... --agent ... --title ... --json`.

mod common;

use common::{TmuxServer, repo_root};

/// The state a screen's name says: what a person sees the agent doing.
fn expected(name: &str) -> &'static str {
    let state = name.split('-').next().unwrap_or("");
    match state {
        "working" | "retrying" => "working",
        "blocked" | "question" | "plan" | "trust" | "apikey" => "blocked",
        "idle" | "done" | "error" | "startup" => "idle",
        other => panic!("a screen named {other:?} has no expected state"),
    }
}

#[test]
fn every_recorded_screen_reads_as_its_state() {
    let server = TmuxServer::empty();
    let root = repo_root().join("tests/fixtures/screens");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for agent in ["claude", "codex", "opencode", "pi", "gemini"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(agent))
            .unwrap()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "txt"))
            .collect();
        files.sort();
        for screen in files {
            let name = screen.file_stem().unwrap().to_str().unwrap().to_string();
            let title = std::fs::read_to_string(screen.with_extension("title")).unwrap();
            let run = server.taw_bare(
                &[
                    "agent",
                    "explain",
                    "--file",
                    screen.to_str().unwrap(),
                    "--agent",
                    agent,
                    "--title",
                    title.trim_end_matches('\n'),
                    "--json",
                ],
                &[],
            );
            let explain = run.result()["explain"].clone();
            let state = explain["state"].as_str().unwrap().to_string();
            if state != expected(&name) {
                wrong.push(format!(
                    "{agent}/{name}: read as {state}, is {} (rule {})",
                    expected(&name),
                    explain["matched_rule"]["id"]
                ));
            }
            checked += 1;
        }
    }
    assert!(checked >= 70, "only {checked} screens found");
    assert!(
        wrong.is_empty(),
        "screens read wrong:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn supplements_off_leaves_herdrs_rules_alone() {
    let server = TmuxServer::empty();
    server.write_config("[detection]\nsupplements = false\n");
    let screen = repo_root().join("tests/fixtures/screens/claude/working-1.txt");
    let run = server.taw_bare(
        &[
            "agent",
            "explain",
            "--file",
            screen.to_str().unwrap(),
            "--agent",
            "claude",
            "--json",
        ],
        &[],
    );
    let explain = run.result()["explain"].clone();
    assert_eq!(explain["supplement_rules"], 0);
    // Without taw's footer rule, Claude's fixed title hides the work.
    assert_eq!(explain["state"], "idle");
    let on = TmuxServer::empty();
    let run = on.taw_bare(
        &[
            "agent",
            "explain",
            "--file",
            screen.to_str().unwrap(),
            "--agent",
            "claude",
            "--json",
        ],
        &[],
    );
    let explain = run.result()["explain"].clone();
    assert_eq!(explain["state"], "working");
    assert_eq!(explain["matched_rule"]["source"], "taw");
}

#[test]
fn explain_reads_standard_input_and_refuses_unknown_agents() {
    let server = TmuxServer::empty();
    let run = server.taw_bare(
        &[
            "agent",
            "explain",
            "--file",
            "/nonexistent",
            "--agent",
            "claude",
        ],
        &[],
    );
    assert_eq!(run.error_code(), "not_found");
    let screen = repo_root().join("tests/fixtures/screens/codex/idle-1.txt");
    let run = server.taw_bare(
        &[
            "agent",
            "explain",
            "--file",
            screen.to_str().unwrap(),
            "--agent",
            "nobody",
        ],
        &[],
    );
    assert_eq!(run.error_code(), "not_found");
    let plain = server.taw_bare(
        &[
            "agent",
            "explain",
            "--file",
            screen.to_str().unwrap(),
            "--agent",
            "codex",
            "--title",
            "⠧ Agents lab | work",
        ],
        &[],
    );
    assert_eq!(plain.status, 0);
    assert!(plain.stdout.contains("state: working"), "{}", plain.stdout);
    assert!(
        plain.stdout.contains("decided by: title_spinner"),
        "{}",
        plain.stdout
    );
}
