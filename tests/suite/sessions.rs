//! `taw session open` and `taw open`: a session for a folder, its name when
//! a shorter one is taken, the create hooks, and where the client lands.

use crate::common::{TmuxServer, attach_client};
use std::path::PathBuf;

fn folder(server: &TmuxServer, path: &str) -> PathBuf {
    let dir = server.dir.path().join(path);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

fn sessions(server: &TmuxServer) -> Vec<String> {
    server
        .tmux(&["list-sessions", "-F", "#{session_name}"])
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_folder_gets_its_name_or_a_longer_one() {
    let server = TmuxServer::start();
    let first = folder(&server, "work/api");
    let second = folder(&server, "oss/api");
    let opened = server
        .taw(&["session", "open", first.to_str().unwrap()])
        .result();
    assert_eq!(opened["type"], "session_open");
    assert_eq!(opened["session"], "api");
    assert_eq!(opened["created"], true);
    assert!(opened["collision"].is_null());
    assert_eq!(opened["switched"], false, "no client is attached");
    // tmux reads the folder from the pane's process, which a busy machine
    // may not have started yet.
    server.wait_for(
        "the new pane's folder",
        std::time::Duration::from_secs(10),
        || server.display("api:", "#{pane_current_path}") == first.display().to_string(),
    );
    let other = server
        .taw(&["session", "open", second.to_str().unwrap()])
        .result();
    assert_eq!(other["session"], "oss/api");
    assert!(
        other["collision"]
            .as_str()
            .unwrap()
            .starts_with("\"api\" is taken by"),
        "{other}"
    );
    // The same folder again is the same session.
    let again = server
        .taw(&["session", "open", first.to_str().unwrap()])
        .result();
    assert_eq!(
        (again["session"].as_str(), again["created"].as_bool()),
        (Some("api"), Some(false))
    );
    assert_eq!(sessions(&server), ["api", "main", "oss/api"]);
}

#[test]
fn names_by_path_and_bad_folders() {
    let server = TmuxServer::start();
    server.write_config("[sessions]\nname = \"full-path\"\n");
    let dir = folder(&server, "deep/er.d");
    let opened = server
        .taw(&["session", "open", dir.to_str().unwrap()])
        .result();
    assert!(
        opened["session"].as_str().unwrap().ends_with("/deep/er_d"),
        "{opened}"
    );
    // A folder whose name tmux would keep escaped: a name it keeps as made.
    let odd = folder(&server, "cost$5\\x");
    let opened = server
        .taw(&["session", "open", odd.to_str().unwrap()])
        .result();
    let name = opened["session"].as_str().unwrap().to_string();
    assert!(name.ends_with("/cost-5-x"), "{opened}");
    let listed = server.tmux(&["list-sessions", "-F", "#{session_name}"]);
    assert!(listed.lines().any(|l| l == name), "{listed}");
    let made = server
        .taw(&["workspace", "create", "--cwd", odd.to_str().unwrap()])
        .result();
    assert_eq!(made["workspace"]["label"], "cost$5\\x", "{made}");
    let missing = server.dir.path().join("nothing-here");
    assert_eq!(
        server
            .taw(&["session", "open", missing.to_str().unwrap()])
            .error_code(),
        "not_found"
    );
}

#[test]
fn the_create_hooks() {
    let server = TmuxServer::start();
    let log = server.dir.path().join("hook.log");
    server.write_config(
        "[sessions]\npre_create_hook = \"sh -c 'echo no thanks >&2; exit 3' hook\"\n",
    );
    let dir = folder(&server, "refused");
    let run = server.taw(&["session", "open", dir.to_str().unwrap()]);
    assert_eq!(run.error_code(), "hook_refused");
    assert!(run.stderr.contains("no thanks"), "{}", run.stderr);
    assert_eq!(sessions(&server), ["main"], "nothing was made");

    server.write_config(
        "[sessions]\npre_create_hook = \"sh -c 'sleep 5' hook\"\nhook_timeout_seconds = 0.3\n",
    );
    let run = server.taw(&["session", "open", dir.to_str().unwrap()]);
    assert_eq!(run.error_code(), "hook_refused");
    assert!(run.stderr.contains("took longer"), "{}", run.stderr);

    server.write_config(&format!(
        "[sessions]\npost_create_hook = \"sh -c 'echo \\\"$1 $2\\\" > {}' hook\"\n",
        log.display()
    ));
    server
        .taw(&["session", "open", dir.to_str().unwrap()])
        .result();
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged.trim(), format!("refused {}", dir.display()));

    // No shell runs a hook: its `~/` is the home all the same.
    let bin = server.dir.path().join("home/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let check = bin.join("check");
    std::fs::write(
        &check,
        format!("#!/bin/sh\necho \"home $1\" > '{}'\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&check, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    server.write_config("[sessions]\npre_create_hook = \"~/bin/check\"\n");
    let homed = folder(&server, "homed");
    server
        .taw(&["session", "open", homed.to_str().unwrap()])
        .result();
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged.trim(), "home homed");
}

#[test]
fn the_client_is_moved_there() {
    let server = TmuxServer::start();
    let _viewer = attach_client(&server, "main");
    let dir = folder(&server, "shop");
    let opened = server
        .taw(&["session", "open", dir.to_str().unwrap()])
        .result();
    assert_eq!(opened["switched"], true);
    assert_eq!(
        server
            .tmux(&["list-clients", "-F", "#{session_name}"])
            .trim(),
        "shop"
    );
}

#[test]
fn no_focus_makes_the_session_and_moves_no_client() {
    let server = TmuxServer::start();
    let _viewer = attach_client(&server, "main");
    let dir = folder(&server, "quiet");
    let opened = server
        .taw(&["session", "open", "--no-focus", dir.to_str().unwrap()])
        .result();
    assert_eq!(opened["switched"], false);
    let id = opened["session_id"].as_str().unwrap().to_string();
    assert_eq!(server.display(&id, "#{session_name}"), "quiet");
    assert_eq!(
        server
            .tmux(&["list-clients", "-F", "#{session_name}"])
            .trim(),
        "main"
    );
    // Found again: the same id.
    let again = server
        .taw(&["session", "open", "--no-focus", dir.to_str().unwrap()])
        .result();
    assert_eq!(
        (again["created"].as_bool(), again["session_id"].as_str()),
        (Some(false), Some(id.as_str()))
    );
}

/// Runs `taw -S <server's socket> <rest>` (a shell line) in a terminal
/// outside tmux: the pane of another private server, session `term`.
fn in_a_terminal(server: &TmuxServer, rest: &str) -> TmuxServer {
    let outer = TmuxServer::empty();
    let line = format!(
        "env -u TMUX TAW_STATE_DIR='{}' TAW_CONFIG_DIR='{}' '{}' -S '{}' {rest}",
        server.state_dir().display(),
        server.config_dir().display(),
        crate::common::taw_bin().display(),
        server.socket_path_of_server(),
    );
    outer.tmux(&[
        "new-session",
        "-d",
        "-s",
        "term",
        "-x",
        "150",
        "-y",
        "30",
        &line,
    ]);
    outer
}

#[test]
fn machine_enter_says_when_tmux_refuses_the_attach() {
    let server = TmuxServer::start();
    let outer = in_a_terminal(&server, "machine enter '$999'; echo status=$?; sleep 30");
    let screen = || outer.tmux(&["capture-pane", "-p", "-t", "term:"]);
    outer.wait_for(
        "machine enter to end",
        std::time::Duration::from_secs(10),
        || screen().contains("status="),
    );
    let shown = screen();
    assert!(shown.contains("tmux_error"), "{shown}");
    assert!(shown.contains("could not attach to $999"), "{shown}");
    assert!(!shown.contains("status=0"), "{shown}");
}

#[test]
fn taw_open_for_a_person_and_for_a_script() {
    let server = TmuxServer::start();
    let dir = folder(&server, "site");
    // --json: the result under cli:open, and nothing attached.
    let run = server.taw(&["open", "--json", dir.to_str().unwrap()]);
    assert_eq!(run.json()["id"], "cli:open");
    assert_eq!(run.result()["session"], "site");
    assert_eq!(
        server.taw(&["open", "--json"]).error_code(),
        "invalid_argument"
    );
    assert_eq!(
        server
            .taw_with(
                &["open", "--json", "no-such-place-anywhere"],
                &[("PATH", "/usr/bin:/bin")]
            )
            .error_code(),
        "not_found"
    );
    // For a person outside tmux: no words, or no terminal, is a usage error.
    let run = server.taw(&["open"]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.starts_with("taw open: "), "{}", run.stderr);
    let run = server.taw(&["open", dir.to_str().unwrap()]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("not a terminal"), "{}", run.stderr);
    // Inside tmux it prints nothing and moves the client.
    let _viewer = attach_client(&server, "main");
    let other = folder(&server, "blog");
    let tmux = format!("{},1,0", server.socket_path_of_server());
    let run = server.taw_with(&["open", other.to_str().unwrap()], &[("TMUX", &tmux)]);
    assert_eq!((run.status, run.stdout.as_str()), (0, ""), "{run:?}");
    assert_eq!(
        server
            .tmux(&["list-clients", "-F", "#{session_name}"])
            .trim(),
        "blog"
    );
}

#[test]
fn taw_open_outside_tmux_attaches_the_terminal() {
    let server = TmuxServer::start();
    let dir = folder(&server, "attached");
    let _outer = in_a_terminal(&server, &format!("open '{}'", dir.display()));
    server.wait_for(
        "a client on the new session",
        std::time::Duration::from_secs(10),
        || {
            server
                .tmux(&["list-clients", "-F", "#{session_name}"])
                .trim()
                == "attached"
        },
    );
}

/// herdr's `agent attach`: typed in a pane, it moves the client showing
/// that pane onto the agent's pane (a done agent seen); from a terminal
/// outside tmux, that terminal becomes a client there, and with
/// `--takeover` the other clients of that session go; with no terminal
/// it says so, with status 2.
#[test]
fn agent_attach_takes_the_terminal_to_the_agent() {
    let server = TmuxServer::start();
    server.tmux(&["new-session", "-d", "-s", "agents"]);
    let agent = server.display("=agents:0.0", "#{pane_id}");
    server.tmux(&["set-option", "-p", "-t", &agent, "@agent_kind", "claude"]);
    server.tmux(&["set-option", "-p", "-t", &agent, "@agent_state", "done"]);
    let _viewer = attach_client(&server, "main");
    let client_session = || {
        server
            .tmux(&["list-clients", "-F", "#{client_session}"])
            .lines()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(client_session(), ["main"]);

    // Typed at a shell in a pane the client shows.
    let here = server.display("=main:0.0", "#{pane_id}");
    let line = format!(
        "TAW_STATE_DIR='{}' TAW_CONFIG_DIR='{}' '{}' agent attach {agent}",
        server.state_dir().display(),
        server.config_dir().display(),
        crate::common::taw_bin().display(),
    );
    server.tmux(&["send-keys", "-t", &here, "-l", &line]);
    server.tmux(&["send-keys", "-t", &here, "Enter"]);
    server.wait_for(
        "the client on the agent",
        std::time::Duration::from_secs(10),
        || client_session() == ["agents"],
    );
    assert_eq!(server.display(&agent, "#{@agent_state}"), "idle");

    // From a terminal outside tmux, taking the session over.
    let outer = in_a_terminal(&server, &format!("agent attach {agent} --takeover"));
    server.wait_for(
        "the terminal attached alone",
        std::time::Duration::from_secs(10),
        || {
            let clients = server.tmux(&["list-clients", "-F", "#{client_session} #{client_tty}"]);
            clients.lines().count() == 1 && clients.starts_with("agents ")
        },
    );
    // The client left is the terminal's: the viewer was detached.
    drop(outer);
    // No terminal: said, status 2; no agent: said, status 1.
    let none = server.taw(&["agent", "attach", &agent]);
    assert_eq!(none.status, 2, "{none:?}");
    assert!(none.stderr.contains("not a terminal"), "{none:?}");
    let nobody = server.taw(&["agent", "attach", "nobody"]);
    assert_eq!(nobody.status, 1, "{nobody:?}");
    assert!(
        nobody.stderr.starts_with("taw agent attach: "),
        "{nobody:?}"
    );
}
