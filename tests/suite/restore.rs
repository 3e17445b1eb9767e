//! `taw session save` and `taw session restore` against real tmux servers:
//! sessions, windows, panes, folders and layouts back after the server is
//! killed (names and folders with `#` and `;` as themselves), a dry run
//! that changes nothing, sessions that are open left alone, resume
//! commands typed once at each shell's prompt, and the panes left alone
//! with the command to run by hand.
#![allow(clippy::disallowed_methods)]

use crate::common::TmuxServer;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn dir(server: &TmuxServer, name: &str) -> PathBuf {
    let path = server.dir.path().join("dirs").join(name);
    std::fs::create_dir_all(&path).unwrap();
    path.canonicalize().unwrap()
}

/// Every pane: `session:window.pane name cwd WxH`, sorted.
fn shape(server: &TmuxServer) -> Vec<String> {
    let mut rows: Vec<String> = server
        .tmux(&[
            "list-panes",
            "-a",
            "-F",
            "#{session_name}:#{window_index}.#{pane_index} #{window_name} #{pane_current_path} #{pane_width}x#{pane_height} #{?pane_active,active,} #{?window_active,front,}",
        ])
        .lines()
        .map(str::to_string)
        .collect();
    rows.sort();
    rows
}

/// Three sessions: one named `C#Sharp` in a folder with `#`, split in
/// two, one pane in a folder whose name ends in `;`; a second window; a
/// second session with three panes; a third plain one.
fn three_sessions(server: &TmuxServer) {
    let hash = dir(server, "c#sharp");
    let semi = dir(server, "semi;");
    let api = dir(server, "api");
    let web = dir(server, "web");
    let s = |p: &PathBuf| p.display().to_string().replace('#', "##");
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "C##Sharp",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &s(&hash),
    ]);
    server.tmux(&[
        "split-window",
        "-h",
        "-t",
        "$0",
        "-c",
        &format!("{}\\;", semi.display().to_string().trim_end_matches(';')),
    ]);
    server.tmux(&["new-window", "-t", "$0:3", "-n", "notes", "-c", &s(&api)]);
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "api",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &s(&api),
    ]);
    server.tmux(&["split-window", "-v", "-t", "=api:", "-c", &s(&web)]);
    server.tmux(&["split-window", "-h", "-t", "=api:", "-c", &s(&api)]);
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "web",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &s(&web),
    ]);
    shells_up(server);
}

/// Kills the server. A restore right after meets it still going away,
/// which it waits out.
fn kill(server: &TmuxServer) {
    server.tmux(&["kill-server"]);
}

/// Kills the server and waits for its process to end, for a test that
/// starts the next server itself.
fn kill_and_wait(server: &TmuxServer) {
    let pid = server
        .tmux(&["display-message", "-p", "#{pid}"])
        .trim()
        .to_string();
    kill(server);
    // Gone, or a zombie its parent has not reaped yet.
    let ended = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
    };
    server.wait_for("the killed server's process to end", WAIT, ended);
}

/// Waits until every pane's shell runs in its folder: until then tmux
/// gives a pane no folder, or the server's, and a save would keep that.
/// Session `name` in `folder`, once its shell is up there.
fn session_in(server: &TmuxServer, name: &str, folder: &Path) {
    let folder = folder.display().to_string();
    server.tmux(&["new-session", "-d", "-s", name, "-c", &folder]);
    shells_up(server);
}

fn shells_up(server: &TmuxServer) {
    server.wait_for("every pane's shell in its folder", WAIT, || {
        server
            .tmux(&[
                "list-panes",
                "-a",
                "-F",
                "#{pane_current_command} #{pane_current_path}",
            ])
            .lines()
            .all(|line| {
                line.split_once(' ')
                    .is_some_and(|(command, folder)| command == "sh" && !folder.is_empty())
            })
    });
    // tmux names a window by its command a moment later: until then an
    // unnamed one is "tmux" (its process before the shell's exec).
    server.wait_for("every window named by its shell", WAIT, || {
        server
            .tmux(&[
                "list-windows",
                "-a",
                "-F",
                "#{?automatic-rename,#{==:#{window_name},#{pane_current_command}},1}",
            ])
            .lines()
            .all(|line| line == "1")
    });
}

/// Waits until the clock is in a later second than now: a layout's copy
/// is named by the second it was taken in, and a layout is "before the
/// server started" only in an earlier second than the server's start.
fn next_second() {
    let second = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    let now = second();
    while second() == now {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A bound for a loaded machine, never a time spent when all is well.
const WAIT: Duration = Duration::from_secs(30);

fn restore(server: &TmuxServer, extra: &[&str]) -> Value {
    let mut args = vec!["session", "restore"];
    args.extend_from_slice(extra);
    server.taw(&args).result()
}

/// Marks `pane` as running Codex in conversation `id`, as its integration
/// would have.
fn codex_in(server: &TmuxServer, pane: &str, id: &str) {
    let session = format!(
        "{{\"source\":\"integration:codex\",\"agent\":\"codex\",\"kind\":\"id\",\"value\":\"{id}\",\"id\":\"{id}\"}}"
    );
    server.tmux(&["set-option", "-p", "-t", pane, "@agent_kind", "codex"]);
    server.tmux(&["set-option", "-p", "-t", pane, "@agent_session", &session]);
}

#[test]
fn a_killed_server_comes_back_whole() {
    let server = TmuxServer::empty();
    three_sessions(&server);
    let before = shape(&server);
    assert!(before.iter().any(|r| r.contains("c#sharp")), "{before:?}");
    assert!(before.iter().any(|r| r.contains("semi;")), "{before:?}");
    let saved = server.taw(&["session", "save"]).result();
    assert_eq!(saved["sessions"], 3);
    assert_eq!(saved["windows"], 4);
    assert_eq!(saved["panes"], 7);
    kill(&server);

    // A dry run with no server: the plan, nothing started.
    let dry = restore(&server, &["--dry-run"]);
    assert_eq!(dry["started_server"], false);
    assert!(dry["created"].as_array().unwrap().is_empty());
    let plan = dry["plan"].to_string();
    assert!(
        plan.contains("would start a tmux server (none is running)"),
        "{plan}"
    );
    assert!(plan.contains("would create session 'C#Sharp'"), "{plan}");
    assert!(plan.contains("would create window 3 'notes'"), "{plan}");
    assert!(
        server.tmux_run(&["list-sessions"]).status != 0,
        "the dry run started a server"
    );

    let restored = restore(&server, &[]);
    assert_eq!(restored["started_server"], true, "{restored}");
    // The hint names the server restored, as taw was pointed at it.
    assert_eq!(
        restored["attach"],
        format!("tmux -L {} attach -t '=C#Sharp'", server.socket)
    );
    // A server whose tmux config loads no plugin watches no agent: said.
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains(&format!(
            "the plugin is not loaded in the server this restore started (your tmux config does not load it), so no agent there is watched: run `taw -L {} tmux load`",
            server.socket
        )),
        "{plan}"
    );
    assert_eq!(
        restored["created"],
        serde_json::json!(["C#Sharp", "api", "web"])
    );
    for key in ["snapshot_file", "snapshot_taken_unix", "server_start_unix"] {
        assert!(restored.get(key).is_some(), "{key} missing: {restored}");
    }
    // The server it started: that server's start.
    assert_eq!(
        restored["server_start_unix"].to_string(),
        server
            .tmux(&["display-message", "-p", "#{start_time}"])
            .trim(),
        "{restored}"
    );
    assert!(
        restored["snapshot_file"]
            .as_str()
            .unwrap()
            .ends_with("sessions/default.json")
    );
    assert_eq!(restored["snapshot_taken_unix"], saved["taken_unix"]);
    // The dry run's lines are the real ones with "would".
    let real: Vec<String> = restored["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    for line in dry["plan"].as_array().unwrap().iter().skip(2) {
        let line = line.as_str().unwrap().replacen("would ", "", 1);
        assert!(
            real.contains(&line),
            "{line:?} is not in the restore's plan {real:?}"
        );
    }
    assert_eq!(shape(&server), before);

    // Restored again: every session is open, nothing made.
    let again = restore(&server, &[]);
    assert!(again["created"].as_array().unwrap().is_empty());
    assert_eq!(again["skipped"].as_array().unwrap().len(), 3);
    assert_eq!(shape(&server), before);
}

#[test]
fn layouts_are_kept_with_their_earlier_copies() {
    let server = TmuxServer::start();
    for n in 0..3 {
        server.tmux(&["new-window", "-d", "-t", "main:"]);
        // One layout a second: a copy is named by when it was taken.
        if n > 0 {
            next_second();
        }
        server.taw(&["session", "save"]).result();
    }
    let copies = server.state_dir().join("session-snapshots");
    let count = std::fs::read_dir(&copies).unwrap().count();
    assert_eq!(count, 2, "the two layouts each save replaced");
    let named = server.taw(&["session", "save", "--name", "work"]).result();
    assert!(
        named["file"]
            .as_str()
            .unwrap()
            .ends_with("sessions/work.json")
    );
    let run = server.taw(&["session", "save", "--name", "../x"]);
    assert_eq!(run.error_code(), "invalid_argument");
    let run = server.taw(&["session", "restore", "--name", "nothing"]);
    assert_eq!(run.error_code(), "not_found");
}

/// A saved agent's resume command is typed once its pane's shell is at
/// its prompt, and the pane is marked as holding it; a pane whose saved
/// directory is gone is typed nothing, and the plan says what to run.
#[test]
fn resumes_are_typed_at_the_prompt_and_the_rest_is_said() {
    let server = TmuxServer::empty();
    let api = dir(&server, "api");
    let gone = dir(&server, "gone");
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &api.display().to_string(),
    ]);
    server.tmux(&[
        "split-window",
        "-t",
        "=work:",
        "-c",
        &gone.display().to_string(),
    ]);
    shells_up(&server);
    for (pane, id) in [("=work:0.0", "t-one"), ("=work:0.1", "t-two")] {
        codex_in(&server, pane, id);
    }
    server.taw(&["session", "save"]).result();
    kill(&server);
    std::fs::remove_dir(&gone).unwrap();

    // The dry run says what the restore does: nothing typed where the
    // folder is gone.
    let dry = restore(&server, &["--dry-run"]);
    let would = dry["would_type"].as_array().unwrap();
    assert_eq!(would.len(), 1, "{dry}");
    assert_eq!(would[0]["line"], "codex resume t-one");
    assert_eq!(would[0]["session"], "work");
    let dry_plan = dry["plan"].to_string();
    assert!(
        dry_plan.contains(&format!(
            "pane 1: would not type: saved directory {} is gone",
            gone.display()
        )),
        "{dry_plan}"
    );

    let restored = restore(&server, &[]);
    let plan = restored["plan"].to_string();
    assert!(plan.contains("typed: codex resume t-one"), "{plan}");
    // Where tmux really opened the pane, not a guess.
    let opened = server
        .tmux(&[
            "list-panes",
            "-t",
            "=work:0",
            "-F",
            "#{pane_index} #{pane_current_path}",
        ])
        .lines()
        .find_map(|line| line.strip_prefix("1 ").map(str::to_string))
        .unwrap();
    assert!(
        plan.contains(&format!(
            "saved directory {} is gone, so tmux opened it in {opened},",
            gone.display()
        )),
        "{plan}"
    );
    assert!(
        plan.contains(&format!("cd {} && codex resume t-two", gone.display())),
        "{plan}"
    );
    assert_eq!(
        restored["not_resumed"].as_array().unwrap().len(),
        1,
        "{restored}"
    );
    let first = server.display("=work:0.0", "#{pane_id}");
    server.wait_for("the resume typed", Duration::from_secs(10), || {
        server
            .tmux(&["capture-pane", "-p", "-t", &first])
            .contains("codex resume t-one")
    });
    server.stays_for("the resume typed once", NOTHING_MORE, || {
        server
            .tmux(&["capture-pane", "-p", "-t", &first])
            .matches("codex resume t-one")
            .count()
            == 1
    });
    assert_eq!(server.display(&first, "#{@agent_kind_hint}"), "codex");
    assert!(
        server
            .display(&first, "#{@agent_session}")
            .contains("t-one")
    );
    let second = server.display("=work:0.1", "#{pane_id}");
    assert!(
        !server
            .tmux(&["capture-pane", "-p", "-t", &second])
            .contains("codex resume")
    );

    // herdr's restore_error on the pane left alone, which is saved as it
    // was saved, until it has an agent of its own; from then, for good.
    let record = |pane: &str| server.taw(&["pane", "get", pane]).result()["pane"].clone();
    assert_eq!(
        record(&second)["restore_error"],
        "Saved directory is unavailable. Restore the directory and restart this session."
    );
    assert_eq!(record(&first)["restore_error"], Value::Null);
    let kept = server.taw(&["session", "save", "--name", "kept"]).result();
    let kept = std::fs::read_to_string(kept["file"].as_str().unwrap()).unwrap();
    assert!(
        kept.contains("t-two") && kept.contains(&gone.display().to_string()),
        "{kept}"
    );
    let report = |state: &str| {
        server
            .taw(&[
                "pane",
                "report-agent",
                &second,
                "--source",
                "custom:mine",
                "--agent",
                "mybot",
                "--state",
                state,
            ])
            .result()
    };
    report("working");
    server
        .taw(&[
            "pane",
            "release-agent",
            &second,
            "--source",
            "custom:mine",
            "--agent",
            "mybot",
        ])
        .result();
    assert_eq!(record(&second)["restore_error"], Value::Null);
    let now = server.taw(&["session", "save", "--name", "now"]).result();
    let now = std::fs::read_to_string(now["file"].as_str().unwrap()).unwrap();
    assert!(
        !now.contains("t-two") && !now.contains(&gone.display().to_string()),
        "{now}"
    );
}

/// With the plugin loaded, a new window or split saves the layout once
/// the changes settle; `@agent-wizard-autosave off` saves nothing.
#[test]
fn the_layout_saves_itself_when_it_changes() {
    let server = TmuxServer::start();
    server.load_plugin();
    let file = server.state_dir().join("sessions/default.json");
    server.tmux(&["new-window", "-d", "-t", "main:", "-n", "autosaved"]);
    server.wait_for("the autosave", Duration::from_secs(10), || {
        std::fs::read_to_string(&file).is_ok_and(|t| t.contains("autosaved"))
    });
    server.tmux(&["set-option", "-g", "@agent-wizard-autosave", "off"]);
    server.tmux(&["new-window", "-d", "-t", "main:", "-n", "unsaved"]);
    server.stays_for("no autosave", Duration::from_secs(2), || {
        !std::fs::read_to_string(&file)
            .unwrap_or_default()
            .contains("unsaved")
    });
    let run = server.taw(&["session", "autosave"]).result();
    assert_eq!(run["saved"], false);
}

/// With no --name, a default layout with nothing to make (saved since the
/// server started) gives way to the newest one taken before the start;
/// and `@agent-wizard-restore-on-start on` restores as the plugin first
/// loads into a server.
#[test]
fn a_restore_looks_back_to_before_the_server_started() {
    let server = TmuxServer::empty();
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "old-work",
        "-x",
        "120",
        "-y",
        "40",
    ]);
    server.taw(&["session", "save"]).result();
    kill_and_wait(&server);
    // The next server starts in a later second than that save.
    next_second();
    server.tmux(&["new-session", "-d", "-s", "fresh", "-x", "120", "-y", "40"]);
    // A save since the start (in its second or later): it holds only what
    // is open.
    server.taw(&["session", "save"]).result();
    let dry = restore(&server, &["--dry-run"]);
    let first = dry["plan"][0].as_str().unwrap();
    assert!(
        first.starts_with("would restore the layout saved at")
            && first.contains("before this tmux server started at"),
        "{dry}"
    );
    assert!(
        dry["snapshot_file"]
            .as_str()
            .unwrap()
            .contains("session-snapshots/"),
        "{dry}"
    );
    let restored = restore(&server, &[]);
    assert_eq!(
        restored["created"],
        serde_json::json!(["old-work"]),
        "{restored}"
    );
    // Everything open now: nothing to make, said so.
    let again = restore(&server, &[]);
    assert!(
        again["plan"][0]
            .as_str()
            .unwrap()
            .starts_with("nothing to restore"),
        "{again}"
    );

    // Restore on start.
    kill_and_wait(&server);
    server.tmux(&["new-session", "-d", "-s", "boot", "-x", "120", "-y", "40"]);
    server.tmux(&["set-option", "-g", "@agent-wizard-restore-on-start", "on"]);
    server.load_plugin();
    // The default layout (saved with "fresh") has that session to make.
    server.wait_for("the restore on start", Duration::from_secs(15), || {
        server
            .tmux(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .any(|s| s == "fresh")
    });
}

/// An open session gets back a saved window whose agent's conversation
/// runs nowhere now, after its last window, and nothing of it is touched;
/// a conversation saved in two panes is resumed in one.
#[test]
fn an_open_session_gets_its_agent_windows_back() {
    let server = TmuxServer::empty();
    let api = dir(&server, "api");
    let at = api.display().to_string();
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "api",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &at,
    ]);
    server.tmux(&["new-window", "-d", "-t", "=api:1", "-n", "agent", "-c", &at]);
    server.tmux(&["split-window", "-d", "-t", "=api:1", "-c", &at]);
    shells_up(&server);
    for pane in ["=api:1.0", "=api:1.1"] {
        codex_in(&server, pane, "t-9");
    }
    server.taw(&["session", "save"]).result();
    // The agent's window closes; the session stays open.
    server.tmux(&["kill-window", "-t", "=api:1"]);
    let dry = restore(&server, &["--dry-run"]);
    let plan = dry["plan"].to_string();
    assert!(
        plan.contains("would add saved window 1 'agent' to open session 'api' as window 1"),
        "{plan}"
    );
    // One pane per conversation, on a dry run too.
    assert!(
        plan.contains("window 1 'agent', pane 1: would not resume: session 'api', window 1 'agent', pane 0 resumes the same session"),
        "{plan}"
    );
    assert_eq!(dry["would_type"].as_array().unwrap().len(), 1, "{dry}");
    assert!(dry["added"].as_array().unwrap().is_empty());
    let restored = restore(&server, &[]);
    assert_eq!(
        restored["added"],
        serde_json::json!(["saved window 1 'agent' as window 1 of 'api'"]),
        "{restored}"
    );
    assert!(restored["created"].as_array().unwrap().is_empty());
    let plan = restored["plan"].to_string();
    assert!(plan.contains("resumes the same session"), "{plan}");
    assert_eq!(plan.matches("typed: codex resume t-9").count(), 1, "{plan}");
    // Its conversation runs now: nothing more to add.
    let pane = server.display("=api:1.0", "#{pane_id}");
    server.wait_for("the resume typed", Duration::from_secs(10), || {
        server
            .tmux(&["capture-pane", "-p", "-t", &pane])
            .contains("codex resume t-9")
    });
    server.tmux(&["set-option", "-p", "-t", &pane, "@agent_kind", "codex"]);
    let again = restore(&server, &[]);
    assert!(again["added"].as_array().unwrap().is_empty(), "{again}");
    assert_eq!(again["skipped"], serde_json::json!(["api"]));
}

/// A saved session of one agent pane, with the layout saved; the server
/// then killed, and started again with one plain session.
fn saved_agent_pane(server: &TmuxServer) {
    let api = dir(server, "api");
    let at = api.display().to_string();
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &at,
    ]);
    server.tmux(&["split-window", "-d", "-t", "=work:", "-c", &at]);
    shells_up(server);
    codex_in(server, "=work:0.1", "t-5");
    server.taw(&["session", "save"]).result();
    kill_and_wait(server);
    server.tmux(&["new-session", "-d", "-s", "other", "-x", "120", "-y", "40"]);
}

/// The same, restored with `hook` set, which acts on the panes the
/// restore makes.
fn restore_with_hook(server: &TmuxServer, hook: &str, command: &str) -> Value {
    saved_agent_pane(server);
    server.tmux(&["set-hook", "-g", hook, command]);
    restore(server, &[])
}

/// The bound of the race tests' window between the restore's check and
/// its typing (or Enter): taw holds it until the test says go.
const RACE_WINDOW_MS: &str = "30000";

/// How long a second typing of a resume has to show: what is not typed
/// leaves no sign to wait for.
const NOTHING_MORE: Duration = Duration::from_millis(500);

/// The same, restored with the race window `variable` open: once the
/// restore is held in its window (its check made: the shell at its
/// prompt), another program replaces its shell.
fn restore_racing(server: &TmuxServer, variable: &str, ready: impl Fn(&str) -> bool) -> Value {
    saved_agent_pane(server);
    let race = tempfile::tempdir_in(server.dir.path()).unwrap();
    let race_dir = race.path().to_str().unwrap();
    std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            server.taw_with(
                &["session", "restore"],
                &[(variable, RACE_WINDOW_MS), ("TAW_TEST_RACE_DIR", race_dir)],
            )
        });
        let screen = || {
            let pane = server.tmux(&["list-panes", "-t", "=work:0", "-F", "#{pane_id}"]);
            pane.lines()
                .nth(1)
                .map(|id| server.tmux(&["capture-pane", "-p", "-t", id]))
                .unwrap_or_default()
        };
        // Inside the window: the restore saw the shell at its prompt.
        server.wait_for("the restore in its race window", WAIT, || {
            race.path().join("opened").exists() && ready(&screen())
        });
        assert!(!run.is_finished(), "the restore ended before the race");
        server.tmux(&["respawn-pane", "-k", "-t", "=work:0.1", "exec sleep 60"]);
        std::fs::write(race.path().join("go"), b"").unwrap();
        run.join().unwrap().result()
    })
}

/// A program that comes in front of the shell after the restore found it
/// at its prompt is typed nothing, and the plan says what to run.
#[test]
fn a_program_in_front_when_the_resume_is_typed_is_said() {
    let server = TmuxServer::empty();
    let restored = restore_racing(&server, "TAW_TEST_TYPE_DELAY_MS", |screen| {
        !screen.trim().is_empty()
    });
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("had another program in front of its shell when its command was to be typed, so nothing was typed; resume it with: codex resume t-5"),
        "{plan}"
    );
    assert_eq!(restored["not_resumed"].as_array().unwrap().len(), 1);
    let screen = server.tmux(&["capture-pane", "-p", "-t", "=work:0.1"]);
    assert!(!screen.contains("codex resume"), "{screen}");
}

/// One that comes in front between the typing and the Enter gets no
/// Enter, and the plan says the line may be left.
#[test]
fn a_program_in_front_before_the_enter_is_said() {
    let server = TmuxServer::empty();
    let restored = restore_racing(&server, "TAW_TEST_SEND_DELAY_MS", |screen| {
        screen.contains("codex resume t-5")
    });
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("had another program in front of its shell when its command was to be run, and it may be left on the pane's line: clear the line first; resume it with: codex resume t-5"),
        "{plan}"
    );
    assert_eq!(restored["not_resumed"].as_array().unwrap().len(), 1);
}

#[test]
fn a_pane_in_a_mode_is_left_alone_and_said() {
    let server = TmuxServer::empty();
    let restored = restore_with_hook(&server, "after-split-window", "copy-mode");
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("is in copy mode; resume it with: codex resume t-5"),
        "{plan}"
    );
    assert_eq!(restored["not_resumed"].as_array().unwrap().len(), 1);
}

/// With resuming turned off, the dry run says what the restore does:
/// nothing typed, and the command to run by hand.
#[test]
fn a_dry_run_with_resuming_off_types_nothing() {
    let server = TmuxServer::empty();
    server.write_config("[session]\nresume_agents_on_restore = false\n");
    saved_agent_pane(&server);
    let dry = restore(&server, &["--dry-run"]);
    assert!(dry["would_type"].as_array().unwrap().is_empty(), "{dry}");
    let plan = dry["plan"].to_string();
    assert!(
        plan.contains("would not resume, as [session] resume_agents_on_restore is false; resume it with: codex resume t-5"),
        "{plan}"
    );
}

/// A pane left with its agent not resumed keeps that agent: the next
/// save still holds it, and a second restore finds its conversation there
/// and adds no window again. Both ways: a pane in a mode, and resuming
/// turned off.
#[test]
fn a_pane_left_alone_keeps_its_agent_for_later_saves() {
    for how in ["a mode", "resume off"] {
        let server = TmuxServer::empty();
        let restored = if how == "a mode" {
            restore_with_hook(&server, "after-split-window", "copy-mode")
        } else {
            server.write_config("[session]\nresume_agents_on_restore = false\n");
            saved_agent_pane(&server);
            restore(&server, &[])
        };
        assert_eq!(
            restored["not_resumed"].as_array().unwrap().len(),
            1,
            "{how}: {restored}"
        );
        server.taw(&["session", "save", "--name", "later"]).result();
        let later =
            std::fs::read_to_string(server.state_dir().join("sessions/later.json")).unwrap();
        assert!(later.contains("t-5"), "{how}: the agent was lost: {later}");
        let windows = || {
            server
                .tmux(&["list-windows", "-t", "=work"])
                .lines()
                .count()
        };
        let before = windows();
        let again = restore(&server, &[]);
        assert_eq!(windows(), before, "{how}: {again}");
    }
}

#[test]
fn a_pane_with_its_input_off_is_left_alone_and_said() {
    let server = TmuxServer::empty();
    let restored = restore_with_hook(&server, "after-split-window", "select-pane -d");
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("takes no input; resume it with: codex resume t-5"),
        "{plan}"
    );
    assert_eq!(restored["not_resumed"].as_array().unwrap().len(), 1);
}

/// In a window with synchronize-panes on, what is typed would go to every
/// pane: the guarded send holds it back.
#[test]
fn a_synchronized_window_is_typed_nothing() {
    let server = TmuxServer::empty();
    let restored = restore_with_hook(
        &server,
        "after-split-window",
        "set-window-option synchronize-panes on",
    );
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("is in a window with synchronize-panes on, where what is typed goes to every pane; resume it with: codex resume t-5"),
        "{plan}"
    );
    let screen = server.tmux(&["capture-pane", "-p", "-t", "=work:0.0"]);
    assert!(!screen.contains("codex resume"), "{screen}");
}

/// A pane that is somewhere else than its saved folder, which is there,
/// is typed nothing, and the plan says where it is.
#[test]
fn a_pane_opened_elsewhere_is_left_alone_and_said() {
    let server = TmuxServer::empty();
    let restored = restore_with_hook(&server, "after-split-window", "send-keys 'cd /' Enter");
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("tmux opened it in / and not in its saved directory "),
        "{plan}"
    );
    assert!(
        plan.contains("so nothing was typed; resume it with: cd "),
        "{plan}"
    );
    assert_eq!(restored["not_resumed"].as_array().unwrap().len(), 1);
}

#[test]
fn a_pane_closed_first_is_said() {
    let server = TmuxServer::empty();
    let restored = restore_with_hook(&server, "after-split-window", "kill-pane");
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("closed before its command was typed; resume it with: cd "),
        "{plan}"
    );
}

/// A shell that is still busy 15 s after its pane was made (here a
/// command the hook typed runs in front of it) is typed nothing.
#[test]
fn a_shell_that_never_reaches_its_prompt_is_said() {
    let server = TmuxServer::empty();
    saved_agent_pane(&server);
    server.tmux(&[
        "set-hook",
        "-g",
        "after-split-window",
        "send-keys 'sleep 60' Enter",
    ]);
    // A shell's 15 s to come to its prompt made 3 s, as a debug build
    // lets a test.
    let restored = server
        .taw_with(
            &["session", "restore"],
            &[("TAW_TEST_LIMITS", "prompt=3000")],
        )
        .result();
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("did not reach its prompt; resume it with: codex resume t-5"),
        "{plan}"
    );
    assert_eq!(restored["not_resumed"].as_array().unwrap().len(), 1);
}

/// A session that closes while it is being made is given up on, saying
/// which windows it made and which not; the sessions after it are made.
#[test]
fn a_session_closed_under_the_restore_does_not_stop_the_others() {
    let server = TmuxServer::empty();
    server.tmux(&["new-session", "-d", "-s", "alpha", "-x", "120", "-y", "40"]);
    server.tmux(&["new-window", "-d", "-t", "=alpha:1", "-n", "two"]);
    server.tmux(&["new-session", "-d", "-s", "beta", "-x", "120", "-y", "40"]);
    server.taw(&["session", "save"]).result();
    kill_and_wait(&server);
    server.tmux(&["new-session", "-d", "-s", "other", "-x", "120", "-y", "40"]);
    server.tmux(&[
        "set-hook",
        "-g",
        "session-created",
        "if -F '#{==:#{session_name},alpha}' 'kill-session -t =alpha'",
    ]);
    let restored = restore(&server, &[]);
    let plan = restored["plan"].to_string();
    assert!(plan.contains("stopped restoring session 'alpha'"), "{plan}");
    assert!(plan.contains("not made: window 1 'two'"), "{plan}");
    assert_eq!(
        restored["created"],
        serde_json::json!(["beta"]),
        "{restored}"
    );
}

/// A window that cannot hold all its saved panes (here 60 in 120x40)
/// comes back with those tmux made room for, and the plan says how many.
#[test]
fn a_window_with_fewer_panes_is_said() {
    let server = TmuxServer::empty();
    let folder = dir(&server, "many");
    let panes: Vec<Value> = (0..60)
        .map(|i| serde_json::json!({"index": i, "cwd": folder.display().to_string(), "active": i == 0}))
        .collect();
    let layout = serde_json::json!({
        "version": 1,
        "taken_unix": 1,
        "sessions": [{"name": "crowd", "path": folder.display().to_string(), "windows": [
            {"index": 0, "name": "many", "layout": "", "active": true, "panes": panes}
        ]}]
    });
    let file = server.state_dir().join("sessions/default.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, layout.to_string()).unwrap();
    let restored = restore(&server, &[]);
    let plan = restored["plan"].to_string();
    assert!(
        plan.contains("window 0 'many' of session 'crowd' has "),
        "{plan}"
    );
    assert!(plan.contains("of its 60 panes"), "{plan}");
    assert_eq!(restored["created"], serde_json::json!(["crowd"]));
}

/// With the plugin loaded, the windows a restore makes ask for autosaves,
/// which wait for it: once it is done, the layout saved holds what it
/// made, and nothing holds autosave off any more.
#[test]
fn autosave_waits_for_a_restore_and_then_saves() {
    let server = TmuxServer::empty();
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "made-again",
        "-x",
        "120",
        "-y",
        "40",
    ]);
    server.tmux(&["split-window", "-d", "-t", "=made-again:"]);
    shells_up(&server);
    // Two agents, resumed 1.5 s apart: the restore outlasts the autosave
    // its own split asks for.
    for (pane, id) in [("=made-again:0.0", "t-a"), ("=made-again:0.1", "t-b")] {
        codex_in(&server, pane, id);
    }
    server.write_config("[session]\nstartup_per_agent_delay_ms = 1500\n");
    server.taw(&["session", "save"]).result();
    kill_and_wait(&server);
    server.tmux(&["new-session", "-d", "-s", "first", "-x", "120", "-y", "40"]);
    server.load_plugin();
    // The layout now holds only "first"; the restore reads the one before.
    server.taw(&["session", "save", "--name", "later"]).result();
    let restored = restore(&server, &[]);
    assert_eq!(
        restored["created"],
        serde_json::json!(["made-again"]),
        "{restored}"
    );
    // The hooks asked for a save while it ran: it saved once, at its end.
    assert!(
        restored["plan"]
            .to_string()
            .contains("saved the layout as 'default', the agents resumed"),
        "{restored}"
    );
    assert_eq!(server.display("first:", "#{@agent_wizard_restoring}"), "");
    let file = server.state_dir().join("sessions/default.json");
    server.wait_for(
        "the layout saved with what the restore made",
        Duration::from_secs(10),
        || {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            text.contains("made-again") && text.contains("\"first\"")
        },
    );
    // With the agents it resumed.
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("t-a") && text.contains("t-b"), "{text}");
}

/// A command an agent reported for itself is typed in place of taw's
/// own, with the agent's word that it is there, and kept for the next
/// save.
#[test]
fn a_reported_resume_command_is_typed_with_the_agents_word() {
    let server = TmuxServer::empty();
    let api = dir(&server, "api");
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "bots",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &api.display().to_string(),
    ]);
    shells_up(&server);
    let first = server.display("=bots:0.0", "#{pane_id}");
    // The agent in front as it reports (a report at the prompt is late).
    server.tmux(&["send-keys", "-t", &first, "sleep 600", "Enter"]);
    server.wait_for("sleep in front", Duration::from_secs(5), || {
        server.display(&first, "#{pane_current_command}") == "sleep"
    });
    server
        .taw(&[
            "pane",
            "report-agent",
            &first,
            "--source",
            "custom:mybot",
            "--agent",
            "mybot",
            "--state",
            "idle",
            "--",
            "mybot-resume",
            "--from",
            "x y",
        ])
        .result();
    server.taw(&["session", "save"]).result();
    kill(&server);
    let restored = restore(&server, &[]);
    let plan = restored["plan"].to_string();
    assert!(plan.contains("typed: mybot-resume --from 'x y'"), "{plan}");
    let pane = server.display("=bots:0.0", "#{pane_id}");
    assert_eq!(server.display(&pane, "#{@agent_reported_kind}"), "mybot");
    assert_eq!(
        server.display(&pane, "#{@agent_resume}"),
        r#"["mybot-resume","--from","x y"]"#
    );
    let saved = server.taw(&["session", "save", "--name", "after"]).result();
    assert_eq!(saved["agents"], 1, "{saved}");
}

/// A folder removed while a pane is in it is saved as its own path, not
/// with the ` (deleted)` the kernel shows tmux, and the pane's record says
/// it so too.
#[test]
fn a_folder_removed_while_open_is_saved_without_the_kernels_word() {
    let server = TmuxServer::empty();
    let going = dir(&server, "going");
    session_in(&server, "work", &going);
    std::fs::remove_dir(&going).unwrap();
    let said = server.display("=work:0.0", "#{pane_current_path}");
    assert!(said.ends_with(" (deleted)"), "tmux says {said}");
    server.taw(&["session", "save"]).result();
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(server.state_dir().join("sessions/default.json")).unwrap(),
    )
    .unwrap();
    let text = saved.to_string();
    assert!(text.contains(&format!("\"{}\"", going.display())), "{text}");
    assert!(!text.contains("(deleted)"), "{text}");
    let listed = server.taw(&["pane", "list"]).result().to_string();
    assert!(!listed.contains("(deleted)"), "{listed}");
}

/// An agent known only by the resume command its integration reported
/// (no session id) that still runs is not started twice: a restore in the
/// running server neither adds its saved window again nor types its
/// command.
#[test]
fn a_live_agent_known_by_its_reported_command_is_not_started_twice() {
    let server = TmuxServer::empty();
    let api = dir(&server, "api");
    session_in(&server, "work", &api);
    let pane = server.display("=work:0.0", "#{pane_id}");
    server.tmux(&["set-option", "-p", "-t", &pane, "@agent_kind", "opencode"]);
    let reported = |words: &str| {
        server.tmux(&["set-option", "-p", "-t", &pane, "@agent_resume", words]);
    };
    reported(r#"["opencode","--continue"]"#);
    let saved = server.taw(&["session", "save"]).result();
    assert_eq!(saved["panes"], 1, "{saved}");
    let layout = std::fs::read_to_string(server.state_dir().join("sessions/default.json")).unwrap();
    assert!(layout.contains("--continue"), "{layout}");

    let dry = restore(&server, &["--dry-run"]);
    assert_eq!(dry["would_type"], serde_json::json!([]), "{dry}");
    let restored = restore(&server, &[]);
    assert_eq!(restored["added"], serde_json::json!([]), "{restored}");
    assert_eq!(
        server
            .tmux(&["list-windows", "-t", "=work", "-F", "#{window_id}"])
            .lines()
            .count(),
        1
    );
    // Another command is another conversation: its window would come back.
    reported(r#"["opencode","--continue","x"]"#);
    let dry = restore(&server, &["--dry-run"]);
    assert_eq!(dry["would_type"].as_array().unwrap().len(), 1, "{dry}");
}

/// Saved layouts hold folders and commands: written 0600 in folders made
/// 0700, their earlier copies too; and a layout another user could have
/// written (group- or world-writable, or another's) is refused by restore
/// before anything is made or typed, as ssh refuses such a config.
#[test]
fn layouts_are_private_and_one_others_could_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let server = TmuxServer::empty();
    let api = dir(&server, "api");
    session_in(&server, "work", &api);
    server.taw(&["session", "save"]).result();
    // A layout that changed keeps the one before as a copy.
    server.tmux(&[
        "new-window",
        "-d",
        "-t",
        "=work:",
        "-c",
        &api.display().to_string(),
    ]);
    shells_up(&server);
    server.taw(&["session", "save"]).result();
    let sessions = server.state_dir().join("sessions");
    let copies = server.state_dir().join("session-snapshots");
    assert_eq!(
        crate::common::mode_of(&sessions.join("default.json")),
        0o600
    );
    assert_eq!(crate::common::mode_of(&sessions), 0o700);
    assert_eq!(crate::common::mode_of(&copies), 0o700);
    for copy in std::fs::read_dir(&copies).unwrap().flatten() {
        assert_eq!(crate::common::mode_of(&copy.path()), 0o600);
    }
    kill(&server);
    let file = sessions.join("default.json");
    for mode in [0o620, 0o602] {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        let refused = server.taw(&["session", "restore"]);
        assert_eq!(refused.error_code(), "invalid_config", "{refused:?}");
        assert!(
            refused.stderr.contains("lets others write it"),
            "{refused:?}"
        );
        assert!(
            server.tmux_run(&["list-sessions"]).status != 0,
            "a refused restore started a server"
        );
    }
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    // Another user's, where this test may give it away (as root).
    let me = std::fs::metadata(&file).map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid()
    });
    if std::os::unix::fs::chown(&file, Some(65534), None).is_ok() {
        let refused = server.taw(&["session", "restore"]);
        assert_eq!(refused.error_code(), "invalid_config", "{refused:?}");
        assert!(
            refused.stderr.contains("owned by user 65534"),
            "{refused:?}"
        );
        std::os::unix::fs::chown(&file, me.ok(), None).unwrap();
    }
    let restored = restore(&server, &[]);
    assert_eq!(
        restored["created"],
        serde_json::json!(["work"]),
        "{restored}"
    );
}

/// A session `api` in `folder` whose window 1 `agent` runs Codex in
/// conversation `t-7`, saved, then the window closed.
fn agent_window_saved_and_closed(server: &TmuxServer, folder: &Path) {
    let at = folder.display().to_string();
    server.tmux(&["new-window", "-d", "-t", "=api:1", "-n", "agent", "-c", &at]);
    shells_up(server);
    codex_in(server, "=api:1.0", "t-7");
    server.taw(&["session", "save"]).result();
    server.tmux(&["kill-window", "-t", "=api:1"]);
}

fn api_session(server: &TmuxServer) {
    let home = dir(server, "api").display().to_string();
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "api",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &home,
    ]);
}

/// With the plugin not loaded (no watcher marks the agent), a second
/// restore sees the conversation the first one resumed running by the
/// restore's own mark, and starts it again nowhere.
#[test]
fn a_second_restore_without_the_plugin_starts_nothing_twice() {
    let server = TmuxServer::empty();
    // On the login shells' PATH: the test home's profile puts
    // ~/.local/bin there. tmux names a pane's program by its first word,
    // so the stand-in's is `codex`.
    server.stand_in(
        "home/.local/bin",
        "codex",
        "exec bash -c 'exec -a codex sleep 600'\n",
    );
    api_session(&server);
    agent_window_saved_and_closed(&server, &dir(&server, "api"));
    let first = restore(&server, &[]);
    assert_eq!(first["added"].as_array().unwrap().len(), 1, "{first}");
    let pane = server.display("=api:1.0", "#{pane_id}");
    server.wait_for("the resumed agent in front", WAIT, || {
        server.display(&pane, "#{pane_current_command}") == "codex"
    });
    assert_eq!(server.display(&pane, "#{@agent_kind}"), "");
    let again = restore(&server, &[]);
    assert!(again["added"].as_array().unwrap().is_empty(), "{again}");
    assert!(
        again["plan"].to_string().matches("typed:").count() == 0,
        "{again}"
    );
}

/// A saved agent window whose folder is gone comes back once, its pane
/// saying so (restore_error); the next restore sees it there.
#[test]
fn a_window_whose_folder_is_gone_is_added_once() {
    let server = TmuxServer::empty();
    api_session(&server);
    let gone = dir(&server, "gone-later");
    agent_window_saved_and_closed(&server, &gone);
    std::fs::remove_dir_all(&gone).unwrap();
    let first = restore(&server, &[]);
    assert_eq!(first["added"].as_array().unwrap().len(), 1, "{first}");
    let windows = || {
        server
            .tmux(&["list-windows", "-t", "=api", "-F", "#{window_id}"])
            .lines()
            .count()
    };
    assert_eq!(windows(), 2);
    let pane = server.display("=api:1.0", "#{pane_id}");
    assert!(!server.display(&pane, "#{@agent_restore_error}").is_empty());
    for _ in 0..2 {
        let again = restore(&server, &[]);
        assert!(again["added"].as_array().unwrap().is_empty(), "{again}");
        assert_eq!(windows(), 2);
    }
}

/// Sessions of a group come back as a group, a window linked into two
/// sessions as one window in both: not copies. A second restore adds
/// nothing.
#[test]
fn a_group_and_a_linked_window_come_back_as_they_were() {
    let server = TmuxServer::empty();
    api_session(&server);
    server.tmux(&["new-window", "-d", "-t", "=api:1", "-n", "two"]);
    server.tmux(&["new-session", "-d", "-s", "mirror", "-t", "=api"]);
    server.tmux(&["new-session", "-d", "-s", "other", "-x", "120", "-y", "40"]);
    server.tmux(&["link-window", "-d", "-s", "=api:1", "-t", "=other:5"]);
    shells_up(&server);
    server.taw(&["session", "save"]).result();
    let windows = |server: &TmuxServer| {
        let listed = server.tmux(&["list-windows", "-a", "-F", "#{window_id}"]);
        listed
            .lines()
            .collect::<std::collections::HashSet<_>>()
            .len()
    };
    assert_eq!(windows(&server), 3);
    kill_and_wait(&server);
    let restored = restore(&server, &[]);
    assert_eq!(
        restored["created"],
        serde_json::json!(["api", "mirror", "other"]),
        "{restored}"
    );
    let group = server.display("=mirror:", "#{session_group}");
    assert!(!group.is_empty(), "{restored}");
    assert_eq!(server.display("=api:", "#{session_group}"), group);
    assert_eq!(
        server.display("=other:5", "#{window_id}"),
        server.display("=api:1", "#{window_id}"),
        "{restored}"
    );
    assert_eq!(windows(&server), 3, "{restored}");
    let again = restore(&server, &[]);
    assert!(again["created"].as_array().unwrap().is_empty(), "{again}");
    assert_eq!(windows(&server), 3);
}
