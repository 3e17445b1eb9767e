//! Driving agents: `taw agent prompt`, `send-keys`, `wait`, `start`, with
//! their refusals and the races (an agent that exits, or a mode that starts,
//! between the check and the send: nothing reaches the shell). Real Claude
//! Code from the agents lab, and a script written for herdr, at the end.

use crate::common::lab::Lab;
use crate::common::{Run, TmuxServer, repo_root, taw_bin};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A script named claude in a folder of its own (`folder`), running `body`.
fn stand_in(server: &TmuxServer, folder: &str, body: &str) -> PathBuf {
    server.stand_in(folder, "claude", body)
}

/// A stand-in agent named claude: it says it is ready and echoes each line.
fn fake_agent(server: &TmuxServer) -> PathBuf {
    stand_in(
        server,
        "agent-bin",
        "printf 'fake agent ready\\n'\nwhile IFS= read -r line; do printf 'got: %s\\n' \"$line\"; done\n",
    )
}

/// bash with `script` running in front of it, once it has said `ready`,
/// marked as the watcher would mark it.
fn run_agent(server: &TmuxServer, script: &Path, ready: &str) -> String {
    let pane = server.run_in_bash(script, ready);
    server.tmux(&["set-option", "-p", "-t", &pane, "@agent_kind", "claude"]);
    server.tmux(&["set-option", "-p", "-t", &pane, "@agent_state", "idle"]);
    pane
}

/// bash at its prompt, with the stand-in agent's folder first on its PATH.
fn shell_with_the_fake_on_path(server: &TmuxServer) -> String {
    let script = fake_agent(server);
    let bin = script.parent().unwrap().display().to_string();
    let pane = server.bash_pane("shell");
    let line = format!("PATH={bin}:$PATH");
    server.tmux(&["send-keys", "-t", &pane, &line, "Enter"]);
    server.wait_for(
        "the shell back at its prompt",
        Duration::from_secs(5),
        || ran(server, &pane, &line),
    );
    pane
}

/// Whether the shell has run `line` and is back at its prompt: the last
/// line of the pane is the prompt `line` was typed at.
fn ran(server: &TmuxServer, pane: &str, line: &str) -> bool {
    let shown = screen(server, pane);
    let lines: Vec<&str> = shown
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    match lines[..] {
        [.., typed, last] => typed
            .split_once(line)
            .is_some_and(|(prompt, _)| prompt.trim_end() == last),
        _ => false,
    }
}

/// bash with the stand-in agent running in front of it.
fn pane_with_agent(server: &TmuxServer) -> String {
    run_agent(server, &fake_agent(server), "fake agent ready")
}

/// How long a pane is watched for text or keys that must not reach it.
const NOTHING_COMES: Duration = Duration::from_millis(500);

fn screen(server: &TmuxServer, pane: &str) -> String {
    server.tmux(&["capture-pane", "-p", "-t", pane])
}

/// `agent start` of `args` with the race window open: once the command's
/// echo is on the pane, `then` runs, before the Enter.
fn start_racing(server: &TmuxServer, pane: &str, args: &[&str], then: impl FnOnce()) -> Run {
    let mut all = vec!["agent", "start"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--pane", pane]);
    with_race(server, &all, |_| {
        server.wait_for("the echo", WINDOW_OPENS, || {
            screen(server, pane)
                .lines()
                .any(|l| l.trim_end().ends_with("claude"))
        });
        then();
    })
}

/// `agent prompt` or `agent send-keys` of `args` with the race window open:
/// `then` runs once taw has made its checks, before it sends.
fn send_racing(server: &TmuxServer, args: &[&str], then: impl FnOnce()) -> Run {
    with_race(server, args, |opened| {
        server.wait_for("taw's checks made", WINDOW_OPENS, || opened.exists());
        then();
    })
}

/// The bound of the race window: taw holds it until the test says go, so
/// this is only how long a test that failed to say so waits.
const RACE_WINDOW: Duration = Duration::from_secs(30);

/// How long taw may take to reach its window (a debug build's start and
/// its tmux reads, on two busy cores).
const WINDOW_OPENS: Duration = Duration::from_secs(20);

/// Runs taw with the race window open, while `meanwhile` runs (given the
/// file taw makes once its checks are made); what it did must have come
/// inside the window, while taw had not answered yet. Then taw goes on.
fn with_race(server: &TmuxServer, args: &[&str], meanwhile: impl FnOnce(&Path)) -> Run {
    let window = RACE_WINDOW.as_millis().to_string();
    let race = tempfile::tempdir_in(server.dir.path()).unwrap();
    let race_dir = race.path().to_str().unwrap();
    std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            server.taw_with(
                args,
                &[
                    ("TAW_TEST_SEND_DELAY_MS", &window),
                    ("TAW_TEST_RACE_DIR", race_dir),
                ],
            )
        });
        meanwhile(&race.path().join("opened"));
        assert!(!run.is_finished(), "taw answered before the race was run");
        std::fs::write(race.path().join("go"), b"").unwrap();
        run.join().unwrap()
    })
}

#[test]
fn a_prompt_and_keys_reach_a_live_agent() {
    let server = TmuxServer::start();
    let pane = pane_with_agent(&server);
    let sent = server
        .taw(&["agent", "prompt", &pane, "hello there"])
        .result();
    assert_eq!(sent["type"], "ok");
    server.wait_for("the agent to get it", Duration::from_secs(5), || {
        screen(&server, &pane).contains("got: hello there")
    });
    // An escape in a prompt could end its bracketed paste and be read as
    // keys: refused, nothing sent.
    let escaping = server.taw(&["agent", "prompt", &pane, "see\u{1b}[201~\u{1b}[Z\rESCAPED"]);
    assert_eq!(escaping.error_code(), "invalid_argument");
    server
        .taw(&["agent", "send-keys", &pane, "x", "enter"])
        .result();
    server.wait_for("the keys", Duration::from_secs(5), || {
        screen(&server, &pane).contains("got: x")
    });
    assert_eq!(
        server
            .taw(&["agent", "send-keys", &pane, "bogus"])
            .error_code(),
        "invalid_key"
    );
    let read = server.taw(&["agent", "read", &pane]);
    assert_eq!(read.status, 0);
    assert!(read.stdout.contains("got: x"));
    assert!(!read.stdout.contains("ESCAPED"), "{}", read.stdout);
}

#[test]
fn an_agent_that_exits_between_check_and_send_gets_nothing_nor_does_the_shell() {
    let server = TmuxServer::start();
    let pane = pane_with_agent(&server);
    let run = send_racing(&server, &["agent", "prompt", &pane, "RACE-PROMPT"], || {
        server.tmux(&["send-keys", "-t", &pane, "C-c"]);
        server.wait_for("bash back", Duration::from_secs(5), || {
            server.display(&pane, "#{pane_current_command}") == "bash"
        });
    });
    assert_eq!(run.error_code(), "agent_not_ready", "{run:?}");
    server.stays_for("the shell not getting the prompt", NOTHING_COMES, || {
        !screen(&server, &pane).contains("RACE-PROMPT")
    });
    // Keys too.
    let pane = pane_with_agent(&server);
    let run = send_racing(
        &server,
        &["agent", "send-keys", &pane, "R", "A", "C", "E"],
        || {
            server.tmux(&["send-keys", "-t", &pane, "C-c"]);
            server.wait_for("bash back", Duration::from_secs(5), || {
                server.display(&pane, "#{pane_current_command}") == "bash"
            });
        },
    );
    assert_eq!(run.error_code(), "agent_not_ready");
    server.stays_for("the shell not getting the keys", NOTHING_COMES, || {
        !screen(&server, &pane).contains("RACE")
    });
}

#[test]
fn copy_mode_before_or_during_a_send_is_refused() {
    let server = TmuxServer::start();
    let pane = pane_with_agent(&server);
    server.tmux(&["copy-mode", "-t", &pane]);
    let run = server.taw(&["agent", "prompt", &pane, "BEFORE-TEXT"]);
    assert_eq!(run.error_code(), "shell_not_ready");
    assert!(run.stderr.contains("copy mode"), "{}", run.stderr);
    server.tmux(&["send-keys", "-t", &pane, "-X", "cancel"]);

    let run = send_racing(&server, &["agent", "prompt", &pane, "DURING-TEXT"], || {
        server.tmux(&["copy-mode", "-t", &pane]);
    });
    assert_eq!(run.error_code(), "shell_not_ready", "{run:?}");
    server.tmux(&["send-keys", "-t", &pane, "-X", "cancel"]);
    server.stays_for("neither text reaching the pane", NOTHING_COMES, || {
        let shown = screen(&server, &pane);
        !shown.contains("DURING-TEXT") && !shown.contains("BEFORE-TEXT")
    });
    // Input off (select-pane -d) is refused too.
    server.tmux(&["select-pane", "-d", "-t", &pane]);
    let run = server.taw(&["agent", "prompt", &pane, "OFF-TEXT"]);
    assert_eq!(run.error_code(), "shell_not_ready");
    assert!(run.stderr.contains("takes no input"));
}

#[test]
fn targets_that_are_no_agent() {
    let server = TmuxServer::start();
    assert_eq!(
        server
            .taw(&["agent", "prompt", "nobody", "hi"])
            .error_code(),
        "agent_not_found"
    );
    assert_eq!(
        server.taw(&["agent", "prompt", "%0", "hi"]).error_code(),
        "agent_not_ready"
    );
    // The record stands but the agent has gone (no watcher took it off).
    let pane = pane_with_agent(&server);
    server.tmux(&["send-keys", "-t", &pane, "C-c"]);
    server.wait_for("bash back", Duration::from_secs(5), || {
        server.display(&pane, "#{pane_current_command}") == "bash"
    });
    let run = server.taw(&["agent", "prompt", &pane, "LATE-TEXT"]);
    assert_eq!(run.error_code(), "agent_not_ready");
    assert!(
        run.stderr.contains("no longer the pane foreground process"),
        "{}",
        run.stderr
    );
    assert!(!screen(&server, &pane).contains("LATE-TEXT"));
    // A plain shell: the message says no agent runs there.
    let shell = server.bash_pane("plain");
    let run = server.taw(&["agent", "prompt", &shell, "hi"]);
    assert_eq!(run.error_code(), "agent_not_ready");
    assert!(
        run.stderr.contains("no agent runs in pane"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_wait_ends_when_the_agent_leaves() {
    let server = TmuxServer::start();
    let pane = pane_with_agent(&server);
    server.tmux(&["set-option", "-p", "-t", &pane, "@agent_state", "working"]);
    let run = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            server.taw(&[
                "agent",
                "wait",
                &pane,
                "--until",
                "idle",
                "--timeout",
                "20000",
            ])
        });
        server.wait_for("taw agent wait to wait", Duration::from_secs(5), || {
            server.waiter_on(&pane)
        });
        server.tmux(&["kill-pane", "-t", &pane]);
        waiting.join().unwrap()
    });
    assert_eq!(run.error_code(), "agent_not_running", "{run:?}");
    // A state already reached answers at once; a timeout says so.
    let pane = pane_with_agent(&server);
    let now = server
        .taw(&["agent", "wait", &pane, "--until", "idle"])
        .result();
    assert_eq!(now["agent"]["agent_status"], "idle");
    let late = server.taw(&[
        "agent",
        "wait",
        &pane,
        "--until",
        "blocked",
        "--timeout",
        "500",
    ]);
    assert_eq!(late.error_code(), "timeout");
}

#[test]
fn start_refuses_before_typing() {
    let server = TmuxServer::start();
    let pane = server.bash_pane("shell");
    let start = |args: &[&str]| {
        let mut all = vec!["agent", "start"];
        all.extend_from_slice(args);
        server.taw(&all)
    };
    assert_eq!(
        start(&["Bad Name", "--kind", "claude", "--pane", &pane]).error_code(),
        "invalid_argument"
    );
    assert_eq!(
        start(&["x", "--kind", "nothing", "--pane", &pane]).error_code(),
        "unsupported_agent_kind"
    );
    assert_eq!(
        start(&["x", "--kind", "claude", "--pane", &pane, "--timeout", "100"]).error_code(),
        "invalid_argument"
    );
    assert_eq!(
        start(&["x", "--kind", "claude", "--pane", "%99"]).error_code(),
        "not_found"
    );
    server.tmux(&["copy-mode", "-t", &pane]);
    let run = start(&["x", "--kind", "claude", "--pane", &pane]);
    assert_eq!(run.error_code(), "shell_not_ready");
    assert!(run.stderr.contains("copy mode"));
    server.tmux(&["send-keys", "-t", &pane, "-X", "cancel"]);
    // A pane whose own process is no shell is never typed into.
    server.tmux(&["new-window", "-d", "-t", "main:", "-n", "top", "sleep 600"]);
    let busy = server.display("main:top", "#{pane_id}");
    assert_eq!(
        start(&["x", "--kind", "claude", "--pane", &busy]).error_code(),
        "shell_not_ready"
    );
    // A name another live agent holds.
    let other = pane_with_agent(&server);
    server.tmux(&["set-option", "-p", "-t", &other, "@agent_name", "taken"]);
    assert_eq!(
        start(&["taken", "--kind", "claude", "--pane", &pane]).error_code(),
        "invalid_argument"
    );
    assert!(
        screen(&server, &pane)
            .lines()
            .all(|l| !l.contains("claude")),
        "nothing was typed"
    );
}

#[test]
fn a_command_that_is_not_there_did_not_start() {
    let server = TmuxServer::start();
    let pane = server.bash_pane("shell");
    // `amp` is not installed here.
    let run = server.taw(&[
        "agent",
        "start",
        "tester",
        "--kind",
        "amp",
        "--pane",
        &pane,
        "--timeout",
        "15000",
    ]);
    assert_eq!(run.error_code(), "agent_not_started", "{run:?}");
    assert_eq!(
        server.display(&pane, "#{@agent_name}"),
        "",
        "the name is not left on the pane"
    );
}

/// A lab server whose new panes run a plain (not login) shell, so the PATH
/// a pane is made with stays.
fn lab_with_plain_shells() -> Option<Lab> {
    let lab = Lab::start()?;
    lab.server
        .tmux(&["set-option", "-g", "default-command", "exec /bin/sh"]);
    Some(lab)
}

#[test]
fn lab_real_claude_started_prompted_and_waited_for() {
    let Some(lab) = lab_with_plain_shells() else {
        return;
    };
    let bin = lab.agent_on_path("claude");
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let made = lab.server.tmux_run_with(
        &["new-session", "-d", "-s", "work", "-x", "120", "-y", "40"],
        &[("PATH", &path)],
    );
    assert_eq!(made.status, 0, "{made:?}");
    let pane = lab.server.display("work", "#{pane_id}");
    let run = lab.server.taw(&[
        "agent",
        "start",
        "reviewer",
        "--kind",
        "claude",
        "--pane",
        &pane,
        "--timeout",
        "60000",
    ]);
    assert_eq!(run.status, 0, "{run:?}\n{}", lab.screen(&pane));
    let started = run.result();
    assert_eq!(started["type"], "agent");
    assert_eq!(started["argv"], serde_json::json!(["claude"]));
    lab.wait_state(&pane, "idle", Duration::from_secs(30));
    assert_eq!(lab.server.display(&pane, "#{@agent_name}"), "reviewer");

    let prompted = lab.server.taw(&[
        "agent",
        "prompt",
        "reviewer",
        "work 2",
        "--wait",
        "--timeout",
        "60000",
    ]);
    assert_eq!(
        prompted.status,
        0,
        "{prompted:?}\n{:?}\n{}",
        lab.agent(&pane),
        lab.screen(&pane)
    );
    let done = prompted.result();
    assert_eq!(done["type"], "agent");
    assert!(
        matches!(
            done["agent"]["agent_status"].as_str(),
            Some("idle" | "done")
        ),
        "{done}"
    );
    let read = lab.server.taw(&["agent", "read", "reviewer"]);
    assert!(read.stdout.contains("Working slowly"), "{}", read.stdout);

    // A quick turn (a tenth of a second) is still seen, by the watcher's
    // look 15 ms after output to a waiting agent; agent wait answers a
    // state it is in. (A turn with no wait at all, the mock's `hello`, can
    // begin and end within one look: docs/SCRIPTING.md says so.)
    let quick = lab.server.taw(&[
        "agent",
        "prompt",
        "reviewer",
        "work 0.1",
        "--wait",
        "--timeout",
        "30000",
    ]);
    assert_eq!(
        quick.status,
        0,
        "{quick:?}\n{:?}\n{}",
        lab.agent(&pane),
        lab.screen(&pane)
    );
    let waited = lab
        .server
        .taw(&[
            "agent",
            "wait",
            "reviewer",
            "--until",
            "idle",
            "--until",
            "done",
            "--timeout",
            "10000",
        ])
        .result();
    assert_eq!(waited["agent"]["name"], "reviewer");
}

#[test]
fn lab_a_herdr_script_runs_unchanged() {
    let Some(lab) = lab_with_plain_shells() else {
        return;
    };
    if !crate::common::tool_here(
        crate::common::installed("jq"),
        "jq, which the herdr script needs",
    ) {
        return;
    }
    let claude = lab.agent_on_path("claude");
    let herdr = lab.scratch().join("herdr-bin");
    std::fs::create_dir_all(&herdr).unwrap();
    std::os::unix::fs::symlink(taw_bin(), herdr.join("herdr")).unwrap();
    let work = lab.scratch().join("script-work");
    std::fs::create_dir_all(&work).unwrap();
    let path = format!(
        "{}:{}:/usr/local/bin:/usr/bin:/bin",
        herdr.display(),
        claude.display()
    );
    let socket = lab.server.socket_path_of_server();
    let script = repo_root().join("tests/fixtures/herdr-script.sh");
    let run = lab.server.taw_script(
        &script,
        &[
            ("PATH", path.as_str()),
            ("TAW_TMUX_SOCKET", socket.as_str()),
            ("WORKDIR", work.to_str().unwrap()),
        ],
    );
    let screens = lab.server.tmux(&[
        "list-panes",
        "-a",
        "-F",
        "#{pane_id} #{@agent_state} #{pane_current_command}",
    ]);
    let first = lab
        .server
        .tmux_run(&["capture-pane", "-p", "-t", "demo:0.0"])
        .stdout;
    assert_eq!(run.status, 0, "{run:?}\n{screens}\n{first}");
    assert!(run.stdout.contains("herdr script finished"), "{run:?}");
}

/// A stand-in agent that drops its first line, as a settling agent drops
/// an Enter, and says what it took after.
const DROPS_FIRST_LINE: &str = "printf 'fake agent ready\\n'\nIFS= read -r first\nwhile IFS= read -r line; do printf 'took: %s\\n' \"$first$line\"; done\n";

#[test]
fn a_dropped_enter_is_pressed_once_more() {
    // The stand-in drops its first line as a settling agent drops an
    // Enter: nothing changes on its screen, so the waiting prompt presses
    // Enter again 2 s later, and the line goes through. No watcher: the
    // test marks the work the agent shows.
    let server = TmuxServer::start();
    let script = stand_in(&server, "dropping-bin", DROPS_FIRST_LINE);
    let pane = run_agent(&server, &script, "fake agent ready");
    let run = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            server.taw(&[
                "agent",
                "prompt",
                &pane,
                "look again",
                "--wait",
                "--timeout",
                "20000",
            ])
        });
        server.wait_for("the Enter pressed again", Duration::from_secs(10), || {
            screen(&server, &pane).contains("took: look again")
        });
        server.tmux(&["set-option", "-p", "-t", &pane, "@agent_state", "working"]);
        // Longer than a look without a watcher's wake-up (2 s): the prompt
        // waits through it for the turn's end.
        server.stays_for(
            "the prompt waiting on the turn",
            Duration::from_millis(2500),
            || !waiting.is_finished(),
        );
        // The turn ends as a watcher ends one: idle, and its turn stamp
        // moved, which tells a prompt that looked only now (a loaded
        // machine) that the turn came and went.
        server.tmux(&["set-option", "-p", "-t", &pane, "@agent_turn", "1"]);
        server.tmux(&["set-option", "-p", "-t", &pane, "@agent_state", "idle"]);
        waiting.join().unwrap()
    });
    assert_eq!(run.status, 0, "{run:?}\n{}", screen(&server, &pane));
    // Pressed once more, not again and again.
    assert_eq!(screen(&server, &pane).matches("took:").count(), 1);
}

/// A prompt sent, not waited for, to a stand-in that drops its first
/// line: the Enter goes again, and the line goes through once. The pane.
fn prompt_past_a_dropped_enter(server: &TmuxServer, script_body: &str, text: &str) -> String {
    let script = stand_in(server, "dropping-bin", script_body);
    let pane = run_agent(server, &script, "fake agent ready");
    let run = server.taw(&["agent", "prompt", &pane, text]);
    assert_eq!(run.status, 0, "{run:?}");
    server.wait_for("the Enter pressed again", Duration::from_secs(10), || {
        screen(server, &pane).contains(&format!("took: {text}"))
    });
    server.stays_for("the line taken once", Duration::from_millis(500), || {
        screen(server, &pane).matches("took:").count() == 1
    });
    pane
}

#[test]
fn a_dropped_enter_is_pressed_once_more_without_waiting_too() {
    let server = TmuxServer::start();
    prompt_past_a_dropped_enter(&server, DROPS_FIRST_LINE, "send it");
}

/// A stand-in that drops its first line and, as it does, draws on its
/// screen's top line (Claude Code drawing its effort line late): a change
/// above the prompt, which is not the prompt taken.
const DROPS_FIRST_LINE_AND_DRAWS_ABOVE: &str = "printf 'fake agent ready\\n'\nIFS= read -r first\nprintf '\\033%s\\033[1;1Hmedium effort\\033%s' 7 8\nwhile IFS= read -r line; do printf 'took: %s\\n' \"$first$line\"; done\n";

#[test]
fn an_enter_dropped_while_the_agent_draws_above_is_pressed_again() {
    let server = TmuxServer::start();
    let pane = prompt_past_a_dropped_enter(&server, DROPS_FIRST_LINE_AND_DRAWS_ABOVE, "look again");
    assert!(screen(&server, &pane).contains("medium effort"));
}

/// A stand-in that, once the first byte of a paste comes, is busy for
/// 3 s, then reads all that came since at once and drops an Enter among
/// it (Claude Code reading a paste and its Enter together on a busy
/// machine); later Enters are taken.
const DRAWS_LATE_AND_DROPS_AN_EARLY_ENTER: &str = "stty -icanon -icrnl -echo min 1 time 0\ncr=$(printf '\\r')\nprintf 'fake agent ready\\n'\nfirst=$(dd bs=1 count=1 2>/dev/null)\nsleep 3\nrest=$(dd bs=4096 count=1 2>/dev/null)\ntext=\"$first${rest%\"$cr\"}\"\nprintf '> %s\\n' \"$text\"\nwhile :; do chunk=$(dd bs=4096 count=1 2>/dev/null); case \"$chunk\" in *\"$cr\"*) printf 'took: %s\\n' \"$text\";; esac; done\n";

#[test]
fn an_agent_slow_to_draw_a_paste_gets_its_enter_once_it_has() {
    let server = TmuxServer::start();
    let pane =
        prompt_past_a_dropped_enter(&server, DRAWS_LATE_AND_DROPS_AN_EARLY_ENTER, "slow to show");
    assert!(screen(&server, &pane).contains("> slow to show"));
}

#[test]
fn a_prompt_nothing_takes_up_is_stalled() {
    // No watcher here: the agent's state stays idle after the prompt.
    let server = TmuxServer::start();
    let pane = pane_with_agent(&server);
    // The look for activity (5 s for a person) made 1.5 s, as a debug
    // build lets a test.
    let short = [("TAW_TEST_LIMITS", "activity=1500")];
    let run = server.taw_with(&["agent", "prompt", &pane, "anyone?", "--wait"], &short);
    assert_eq!(run.error_code(), "agent_prompt_stalled", "{run:?}");
    // A --timeout shorter than the look for activity is a timeout.
    let again = [
        "agent",
        "prompt",
        &pane,
        "again?",
        "--wait",
        "--timeout",
        "800",
    ];
    let run = server.taw_with(&again, &short);
    assert_eq!(run.error_code(), "timeout", "{run:?}");
}

#[test]
fn a_long_prompt_arrives_whole_in_pieces() {
    let server = TmuxServer::start();
    let out = server.dir.path().join("received");
    // Not line by line: a terminal's line holds about 4 KiB.
    let script = stand_in(
        &server,
        "long-bin",
        &format!(
            "stty -icanon -echo\nprintf 'ready\\n'\ncat > '{}'\n",
            out.display()
        ),
    );
    let pane = run_agent(&server, &script, "ready");
    let text: String = (0..2000).map(|i| format!("{:04} ", i % 10000)).collect();
    assert!(text.len() > 9000);
    server.taw(&["agent", "prompt", &pane, &text]).result();
    server.wait_for("the whole prompt", Duration::from_secs(10), || {
        std::fs::read_to_string(&out).is_ok_and(|got| got.ends_with('\n') || got.ends_with('\r'))
    });
    let got = std::fs::read_to_string(&out).unwrap();
    assert_eq!(got.trim_end_matches(['\r', '\n']), text);
}

/// A stand-in agent that, as real agents do, turns on bracketed paste and
/// reads its terminal raw; it keeps every byte it is given in `out`.
fn raw_agent(server: &TmuxServer, out: &Path) -> String {
    let script = stand_in(
        server,
        "raw-bin",
        &format!(
            "stty raw -echo\nprintf '\\033[?2004hraw agent ready\\r\\n'\ncat > '{}'\n",
            out.display()
        ),
    );
    run_agent(server, &script, "raw agent ready")
}

/// What the agent was pasted, once the Enter after the paste came: the
/// bytes between the bracketed paste's marks, with the paste's CR line
/// ends read back as the LF the prompt was written with.
fn pasted(server: &TmuxServer, out: &Path) -> String {
    server.wait_for("the paste and its Enter", Duration::from_secs(20), || {
        std::fs::read(out).is_ok_and(|got| got.ends_with(b"\x1b[201~\r"))
    });
    let got = std::fs::read(out).unwrap();
    let got = String::from_utf8(got).expect("the agent got UTF-8");
    let start = got.find("\x1b[200~").expect("a bracketed paste") + 6;
    let end = got.rfind("\x1b[201~").unwrap();
    assert_eq!(got.matches("\x1b[200~").count(), 1, "one paste, not pieces");
    got[start..end].replace('\r', "\n")
}

#[test]
fn a_prompt_of_many_lines_arrives_byte_for_byte() {
    let server = TmuxServer::start();
    let out = server.dir.path().join("received");
    let pane = raw_agent(&server, &out);
    let text = "Fix this:\n# Task\nwrite code\n    def f():\n        return 1\n#notacomment\nend with a backslash \\\n\tand a tab, $HOME, 'quotes' \"and\" #{pane_id} ; ~/x — ünïcödé ✓\nlast";
    server.taw(&["agent", "prompt", &pane, text]).result();
    assert_eq!(pasted(&server, &out), text);
}

#[test]
fn a_prompt_of_60_kb_arrives_byte_for_byte() {
    let server = TmuxServer::start();
    let out = server.dir.path().join("received");
    let pane = raw_agent(&server, &out);
    let text: String = (0..600)
        .map(|i| {
            let indent = " ".repeat(i % 9);
            let tail = if i % 7 == 0 { " \\" } else { "" };
            format!(
                "{indent}{}line {i:03}: {} é ✓{tail}\n",
                if i % 5 == 0 { "# " } else { "" },
                "x".repeat(80)
            )
        })
        .collect();
    assert!(text.len() >= 60_000, "{}", text.len());
    server.taw(&["agent", "prompt", &pane, &text]).result();
    assert_eq!(pasted(&server, &out), text);
}

#[test]
fn two_agents_with_one_name_are_ambiguous() {
    let server = TmuxServer::start();
    let first = pane_with_agent(&server);
    let second = pane_with_agent(&server);
    for pane in [&first, &second] {
        server.tmux(&["set-option", "-p", "-t", pane, "@agent_name", "twin"]);
    }
    for verb in [
        vec!["agent", "prompt", "twin", "hi"],
        vec!["agent", "send-keys", "twin", "x"],
        vec!["agent", "wait", "twin"],
        vec!["agent", "read", "twin"],
    ] {
        assert_eq!(
            server.taw(&verb).error_code(),
            "agent_target_ambiguous",
            "{verb:?}"
        );
    }
}

#[test]
fn start_with_copy_mode_before_the_enter_sends_no_enter() {
    let server = TmuxServer::start();
    let pane = shell_with_the_fake_on_path(&server);
    // The command is typed (its echo seen) before the window opens.
    let run = start_racing(&server, &pane, &["late", "--kind", "claude"], || {
        server.tmux(&["copy-mode", "-t", &pane]);
    });
    assert_eq!(run.error_code(), "shell_not_ready", "{run:?}");
    assert!(
        run.stderr.contains("copy mode") && run.stderr.contains("left on its line"),
        "{}",
        run.stderr
    );
    assert_eq!(
        server.display(&pane, "#{pane_in_mode}"),
        "1",
        "left in its mode"
    );
    assert_eq!(server.display(&pane, "#{@agent_name}"), "", "not marked");
    server.tmux(&["send-keys", "-t", &pane, "-X", "cancel"]);
    server.stays_for("the Enter held back", NOTHING_COMES, || {
        !screen(&server, &pane).contains("fake agent ready")
    });
}

#[test]
fn start_records_the_echoed_row_and_the_agent_answers_by_name_at_once() {
    let server = TmuxServer::start();
    let pane = shell_with_the_fake_on_path(&server);
    let started = server
        .taw(&[
            "agent", "start", "echoer", "--kind", "claude", "--pane", &pane,
        ])
        .result();
    assert_eq!(started["agent"]["name"], "echoer");
    let typed = server.display(&pane, "#{@agent_typed_line}");
    assert!(
        typed.starts_with("bash") && typed.ends_with(" claude"),
        "{typed}"
    );
    assert_eq!(server.display(&pane, "#{@agent_typed_command}"), "claude");
    // No watcher here: the pane is marked by start itself.
    assert_eq!(
        server.display(&pane, "#{@agent_kind} #{@agent_state}"),
        "claude unknown"
    );
    server
        .taw(&["agent", "prompt", "echoer", "right away"])
        .result();
    server.wait_for("the prompt", Duration::from_secs(5), || {
        screen(&server, &pane).contains("got: right away")
    });
}

/// What a person left half-typed on the shell's line is cleared first:
/// the agent's command is never run as arguments of it.
#[test]
fn start_clears_a_half_typed_line_first() {
    let server = TmuxServer::start();
    let pane = shell_with_the_fake_on_path(&server);
    server.tmux(&["send-keys", "-t", &pane, "-l", "echo LEFT-OVER "]);
    server.wait_for("the half-typed line", Duration::from_secs(5), || {
        screen(&server, &pane).contains("echo LEFT-OVER")
    });
    server
        .taw(&[
            "agent", "start", "fresh", "--kind", "claude", "--pane", &pane,
        ])
        .result();
    let typed = server.display(&pane, "#{@agent_typed_line}");
    assert!(!typed.contains("LEFT-OVER"), "{typed}");
    assert!(typed.ends_with(" claude"), "{typed}");
}

#[test]
fn a_report_does_not_make_a_shell_an_agent() {
    // Claude left with no watcher; its report stands; bash is in front.
    let server = TmuxServer::start();
    let pane = server.bash_pane("shell");
    for (name, value) in [
        ("@agent_kind", "claude"),
        ("@agent_state", "idle"),
        ("@agent_reported_kind", "claude"),
        ("@agent_name", "ghost"),
    ] {
        server.tmux(&["set-option", "-p", "-t", &pane, name, value]);
    }
    let run = server.taw(&["agent", "prompt", "ghost", "echo TYPED-INTO-SHELL"]);
    assert_eq!(run.error_code(), "agent_not_ready", "{run:?}");
    let run = server.taw(&["agent", "send-keys", "ghost", "x"]);
    assert_eq!(run.error_code(), "agent_not_ready");
    assert!(
        run.stderr.contains("not an active named agent"),
        "{}",
        run.stderr
    );
    server.stays_for("the shell not getting the prompt", NOTHING_COMES, || {
        !screen(&server, &pane).contains("TYPED-INTO-SHELL")
    });
}

#[test]
fn a_prompt_wait_ends_when_the_agent_process_goes() {
    // No watcher: the record stands after the agent exits.
    let server = TmuxServer::start();
    let pane = pane_with_agent(&server);
    let run = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            server.taw(&[
                "agent",
                "prompt",
                &pane,
                "bye",
                "--wait",
                "--timeout",
                "20000",
            ])
        });
        // Sent, and waiting for the agent to take it up (a moment alone;
        // over 5 s once, in the ps run beside the whole suite).
        server.wait_for("the prompt's wait", Duration::from_secs(15), || {
            server.waiter_on(&pane)
        });
        server.tmux(&["send-keys", "-t", &pane, "C-c"]);
        waiting.join().unwrap()
    });
    assert_eq!(run.error_code(), "agent_not_running", "{run:?}");
}

#[test]
fn messages_name_panes_by_their_public_ids() {
    let server = TmuxServer::start();
    let pane = pane_with_agent(&server);
    server.tmux(&["copy-mode", "-t", &pane]);
    let run = server.taw(&["agent", "send-keys", &pane, "x"]);
    assert_eq!(run.error_code(), "shell_not_ready");
    assert!(run.stderr.contains("pane w1:p"), "{}", run.stderr);
    assert!(
        !run.stderr.contains(&format!("pane {pane}")),
        "{}",
        run.stderr
    );
}

#[test]
fn start_in_a_pane_that_closes_is_not_found() {
    let server = TmuxServer::start();
    let pane = server.bash_pane("shell");
    let run = start_racing(&server, &pane, &["closing", "--kind", "claude"], || {
        server.tmux(&["kill-pane", "-t", &pane]);
    });
    assert_eq!(run.error_code(), "not_found", "{run:?}");
}

#[test]
fn a_synchronized_window_is_typed_nothing() {
    let server = TmuxServer::start();
    let pane = pane_with_agent(&server);
    server.tmux(&["split-window", "-d", "-t", &pane]);
    server.tmux(&["set-option", "-w", "-t", &pane, "synchronize-panes", "on"]);
    for args in [
        vec!["agent", "prompt", pane.as_str(), "SYNC-TEXT"],
        vec!["agent", "send-keys", pane.as_str(), "x", "enter"],
    ] {
        let run = server.taw(&args);
        assert_eq!(run.error_code(), "shell_not_ready", "{args:?}");
        assert!(run.stderr.contains("synchronize-panes"), "{}", run.stderr);
    }
    server.stays_for("nothing typed", NOTHING_COMES, || {
        !screen(&server, &pane).contains("SYNC-TEXT")
    });
}

#[test]
fn send_text_of_any_size_arrives_byte_for_byte_and_an_empty_run_is_enter() {
    let server = TmuxServer::start();
    let out = server.dir.path().join("received");
    let pane = raw_agent(&server, &out);
    // Past what one tmux command line holds; newlines and tabs as they are.
    let big: String = (0..1200).map(|i| format!("{i:04}\tline é ✓\n")).collect();
    assert!(big.len() > 16 * 1024, "{}", big.len());
    let run = server.taw(&["pane", "send-text", &pane, &big]);
    assert_eq!(run.status, 0, "{run:?}");
    server.wait_for("the whole text", Duration::from_secs(10), || {
        std::fs::read(&out).is_ok_and(|got| got.len() >= big.len())
    });
    assert_eq!(std::fs::read_to_string(&out).unwrap(), big);
    // An empty command line is Enter alone, as herdr sends it.
    let enter = server.taw(&["pane", "run", &pane, ""]);
    assert_eq!(enter.status, 0, "{enter:?}");
    server.wait_for("the Enter", Duration::from_secs(10), || {
        std::fs::read(&out).is_ok_and(|got| got.len() == big.len() + 1)
    });
    assert_eq!(std::fs::read(&out).unwrap().last(), Some(&b'\r'));
}
