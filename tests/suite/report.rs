//! Reports from integrations (`taw pane report-agent`, `report-agent-session`,
//! `release-agent`) against a real tmux with the plugin loaded: the watcher
//! takes each report in within a moment, though the pane prints nothing.

use crate::common::{TmuxServer, taw_bin};
use std::time::Duration;

fn loaded() -> TmuxServer {
    let server = TmuxServer::start();
    server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result();
    server
}

/// A program nothing names as an agent, in front of %0.
fn run_program(server: &TmuxServer) {
    server.tmux(&["send-keys", "-t", "%0", "sleep 600", "Enter"]);
    server.wait_for("sleep in front", Duration::from_secs(5), || {
        server.display("%0", "#{pane_current_command}") == "sleep"
    });
}

fn option(server: &TmuxServer, name: &str) -> String {
    server.display("%0", &format!("#{{{name}}}"))
}

fn wait_option(server: &TmuxServer, name: &str, value: &str) {
    server.wait_for(
        &format!("{name} to be {value:?}"),
        Duration::from_secs(5),
        || option(server, name) == value,
    );
}

/// For a report that must change nothing: the watcher takes a report in
/// within a moment of it (the report wakes it).
fn stays_option(server: &TmuxServer, name: &str, value: &str) {
    server.stays_for(
        &format!("{name} staying {value:?}"),
        Duration::from_millis(500),
        || option(server, name) == value,
    );
}

fn report(server: &TmuxServer, state: &str, extra: &[&str]) -> crate::common::Run {
    let mut args = vec![
        "pane",
        "report-agent",
        "%0",
        "--source",
        "custom:test",
        "--agent",
        "mybot",
        "--state",
        state,
    ];
    args.extend_from_slice(extra);
    server.taw(&args)
}

#[test]
fn reports_drive_the_state_and_the_turn() {
    let server = loaded();
    run_program(&server);
    let run = report(&server, "working", &[]);
    assert_eq!(run.result()["in_order"], true);
    wait_option(&server, "@agent_state", "working");
    assert_eq!(option(&server, "@agent_kind"), "mybot");
    let turn = option(&server, "@agent_turn");
    assert!(!turn.is_empty());

    // Idle in a pane nobody looks at ends the turn done; idle again keeps it.
    report(&server, "idle", &[]).result();
    wait_option(&server, "@agent_state", "done");
    report(&server, "idle", &[]).result();
    stays_option(&server, "@agent_state", "done");

    // A turn shorter than a look: working and idle back to back.
    report(&server, "working", &["--seq", "10"]).result();
    report(&server, "idle", &["--seq", "11"]).result();
    server.wait_for("the short turn", Duration::from_secs(5), || {
        option(&server, "@agent_turn") != turn
    });
    wait_option(&server, "@agent_state", "done");

    // Out of order: an older number, or none after numbers, is ignored.
    let late = report(&server, "working", &["--seq", "9"]);
    assert_eq!(late.result()["in_order"], false);
    let unnumbered = report(&server, "working", &[]);
    assert_eq!(unnumbered.result()["in_order"], false);
    stays_option(&server, "@agent_state", "done");

    // The program ends: the shell is back, the turn's end is the final state.
    report(&server, "working", &["--seq", "12"]).result();
    wait_option(&server, "@agent_state", "working");
    server.tmux(&["send-keys", "-t", "%0", "C-c"]);
    wait_option(&server, "@agent_kind", "");
    assert!(option(&server, "@agent_final_state").starts_with("done "));
    assert_eq!(option(&server, "@agent_reported_kind"), "");
}

#[test]
fn bad_reports_apply_nothing() {
    let server = loaded();
    run_program(&server);
    let long = "s".repeat(129);
    let run = server.taw(&[
        "pane",
        "report-agent",
        "%0",
        "--source",
        &long,
        "--agent",
        "x",
        "--state",
        "idle",
    ]);
    assert_eq!(run.error_code(), "invalid_argument");
    let run = report(&server, "working", &["--", "mybot", "--resume", "a\nb"]);
    assert_eq!(run.error_code(), "invalid_resume_argv");
    let run = report(&server, "sleepy", &[]);
    assert_eq!(run.error_code(), "invalid_argument");
    assert_eq!(option(&server, "@agent_reported_kind"), "");
    assert_eq!(option(&server, "@agent_report_seqs"), "");
    // An empty label: herdr's code.
    let run = server.taw(&[
        "pane",
        "report-agent",
        "%0",
        "--source",
        "s",
        "--agent",
        " ",
        "--state",
        "idle",
    ]);
    assert_eq!(run.error_code(), "invalid_agent");
    // A session path taw would not keep is left out; the state stands.
    let run = report(
        &server,
        "working",
        &["--agent-session-path", "sessions/a.jsonl"],
    );
    assert_eq!(run.status, 0, "{run:?}");
    assert_eq!(option(&server, "@agent_reported_state"), "working");
    assert_eq!(option(&server, "@agent_session"), "");
    let run = server.taw(&[
        "pane",
        "report-agent",
        "%99",
        "--source",
        "s",
        "--agent",
        "x",
        "--state",
        "idle",
    ]);
    assert_eq!(run.error_code(), "not_found");
}

#[test]
fn resume_commands_sessions_and_release() {
    let server = loaded();
    run_program(&server);
    report(
        &server,
        "idle",
        &[
            "--agent-session-id",
            "abc",
            "--",
            "mybot",
            "--resume",
            "abc",
        ],
    )
    .result();
    assert_eq!(
        option(&server, "@agent_resume"),
        r#"["mybot","--resume","abc"]"#
    );
    assert!(option(&server, "@agent_session").contains(r#""value":"abc""#));

    // Another source may report a session, but not the resume command.
    let run = server.taw(&[
        "pane",
        "report-agent-session",
        "%0",
        "--source",
        "custom:other",
        "--agent",
        "mybot",
        "--agent-session-id",
        "def",
        "--",
        "mybot",
        "--resume",
        "def",
    ]);
    assert_eq!(run.error_code(), "resume_not_accepted");
    assert!(option(&server, "@agent_session").contains(r#""value":"def""#));
    assert_eq!(
        option(&server, "@agent_resume"),
        r#"["mybot","--resume","abc"]"#
    );

    // An id that would be read as an option of the agent is not kept (the
    // rest of the report stands, as herdr leaves out a field it would not
    // keep), nor is a start source herdr does not know.
    let run = server.taw(&[
        "pane",
        "report-agent-session",
        "%0",
        "--source",
        "custom:other",
        "--agent",
        "mybot",
        "--agent-session-id=--yolo",
        "--session-start-source",
        "select",
    ]);
    assert_eq!(run.status, 0, "{run:?}");
    assert!(option(&server, "@agent_session").contains(r#""value":"def""#));

    // A release by a source that does not hold the pane changes nothing.
    let run = server.taw(&[
        "pane",
        "release-agent",
        "%0",
        "--source",
        "custom:other",
        "--agent",
        "mybot",
    ]);
    assert_eq!(run.result()["released"], false);
    let run = server.taw(&[
        "pane",
        "release-agent",
        "%0",
        "--source",
        "custom:test",
        "--agent",
        "mybot",
    ]);
    assert_eq!(run.result()["released"], true);
    assert_eq!(option(&server, "@agent_resume"), "");
    assert_eq!(option(&server, "@agent_reported_kind"), "");
    wait_option(&server, "@agent_kind", "");
}

#[test]
fn calling_pane_is_the_pane_taw_runs_in() {
    let server = loaded();
    run_program(&server);
    let tmux_env = format!("{},1,0", server.socket_path());
    let run = server.taw_bare(
        &[
            "pane",
            "report-agent",
            "%calling",
            "--source",
            "s",
            "--agent",
            "x",
            "--state",
            "idle",
        ],
        &[("TMUX", &tmux_env), ("TMUX_PANE", "%0")],
    );
    assert_eq!(run.result()["in_order"], true);
    assert_eq!(option(&server, "@agent_reported_kind"), "x");
    let run = server.taw(&[
        "pane",
        "report-agent",
        "%calling",
        "--source",
        "s",
        "--agent",
        "x",
        "--state",
        "idle",
    ]);
    assert_eq!(run.error_code(), "not_found");
    assert!(run.stderr.contains("no current pane"), "{}", run.stderr);
}

#[test]
fn a_session_only_integration_keeps_its_session_until_a_new_start() {
    let server = loaded();
    let claude = |id: &str, extra: &[&str]| {
        let mut args = vec![
            "pane",
            "report-agent-session",
            "%0",
            "--source",
            "herdr:claude",
            "--agent",
            "claude",
            "--agent-session-id",
            id,
            "--agent-session-path",
        ];
        let path = format!("/home/me/.claude/projects/x/{id}.jsonl");
        args.push(&path);
        args.extend_from_slice(extra);
        server.taw(&args).result();
    };
    claude("first", &["--session-start-source", "startup"]);
    let pane = server.taw(&["pane", "get", "%0"]).result();
    assert_eq!(pane["pane"]["agent_session_id"], "first");
    assert_eq!(
        pane["pane"]["agent_session_path"],
        "/home/me/.claude/projects/x/first.jsonl"
    );
    assert_eq!(pane["pane"]["agent_session"]["kind"], "path");
    // A subagent's session, with no start said: the conversation's stays.
    claude("subagent", &[]);
    let pane = server.taw(&["pane", "get", "%0"]).result();
    assert_eq!(pane["pane"]["agent_session_id"], "first");
    // /clear starts a new one: it takes the place.
    claude("second", &["--session-start-source", "clear"]);
    let pane = server.taw(&["pane", "get", "%0"]).result();
    assert_eq!(pane["pane"]["agent_session_id"], "second");
}

/// An integration starts each report without waiting for the one before:
/// reports of one source at once take turns, and the highest number's is
/// the one left, whatever order they ran in.
#[test]
fn reports_at_once_leave_the_newest() {
    let server = TmuxServer::start();
    run_program(&server);
    for round in 0..3u64 {
        let first = round * 100 + 1;
        std::thread::scope(|scope| {
            for n in first..first + 16 {
                let server = &server;
                scope.spawn(move || {
                    let state = if n % 2 == 0 { "working" } else { "idle" };
                    let seq = n.to_string();
                    let run = report(server, state, &["--seq", &seq]);
                    assert_eq!(run.status, 0, "{run:?}");
                });
            }
        });
        // The last number is even: working.
        let last = first + 15;
        let seqs = option(&server, "@agent_report_seqs");
        assert_eq!(seqs, format!("custom:test\t{last}"));
        assert_eq!(
            option(&server, "@agent_reported_state"),
            "working",
            "{seqs}"
        );
    }
}

/// A report that comes once its agent has gone (a hook that outlived it,
/// with the pane's shell back at its prompt) keeps its session for a
/// restore, but not the agent's word that it is there: the next program
/// in front, one nothing names, is not taken for that agent.
#[test]
fn a_report_after_its_agent_left_names_no_later_program() {
    let server = loaded();
    let run = report(&server, "working", &["--agent-session-id", "late-1"]);
    assert_eq!(run.status, 0, "{run:?}");
    assert_eq!(run.result()["in_order"], true);
    assert!(
        option(&server, "@agent_session").contains("late-1"),
        "{}",
        option(&server, "@agent_session")
    );
    assert_eq!(option(&server, "@agent_reported_kind"), "");
    assert_eq!(option(&server, "@agent_reported_state"), "");
    run_program(&server);
    stays_option(&server, "@agent_kind", "");
    // The same report with the program in front is the agent's own.
    let run = report(&server, "working", &["--seq", "2"]);
    assert_eq!(run.status, 0, "{run:?}");
    wait_option(&server, "@agent_kind", "mybot");
    assert_eq!(option(&server, "@agent_state"), "working");
}
