//! The verbs that make, arrange and type into workspaces, tabs and panes,
//! run as the real `taw` against a real tmux: what each answers, what it
//! does to tmux, and its errors.

use crate::common::{TmuxServer, attach_client};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long anything asynchronous (a shell printing) may take.
const WAIT: Duration = Duration::from_secs(10);

/// A JSON string, or a panic that shows the value.
fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

/// A JSON number as f64, or a panic that shows the value.
fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// A folder in the test's temporary directory.
fn folder(server: &TmuxServer, name: &str) -> PathBuf {
    let dir = server.dir.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The path a process sees as its folder (/proc gives the canonical one).
fn canonical(path: &Path) -> String {
    std::fs::canonicalize(path).unwrap().display().to_string()
}

/// A tmux format of a target, as a number.
fn display_u32(server: &TmuxServer, target: &str, format: &str) -> u32 {
    let value = server.display(target, format);
    value
        .parse()
        .unwrap_or_else(|_| panic!("{format} of {target} is {value:?}"))
}

/// `taw pane read`'s raw text.
fn read(server: &TmuxServer, pane: &str, extra: &[&str]) -> String {
    let mut args = vec!["pane", "read", pane];
    args.extend_from_slice(extra);
    let run = server.taw(&args);
    assert_eq!(run.status, 0, "pane read failed: {run:?}");
    run.stdout
}

/// Types a command line and Enter with `taw pane run`.
fn run(server: &TmuxServer, pane: &str, command: &str) {
    // A line typed before the shell drew its prompt shares the prompt's
    // row with its output.
    server.wait_for("the shell's prompt", WAIT, || {
        !read(server, pane, &[]).trim().is_empty()
    });
    let run = server.taw(&["pane", "run", pane, command]);
    assert_eq!(run.status, 0, "pane run failed: {run:?}");
}

/// Waits with `taw pane wait-output --regex` until a line matches.
fn wait_line(server: &TmuxServer, pane: &str, regex: &str) -> Value {
    server
        .taw(&[
            "pane",
            "wait-output",
            pane,
            "--regex",
            regex,
            "--timeout",
            "10000",
        ])
        .result()
}

/// A pane's record.
fn pane_record(server: &TmuxServer, pane: &str) -> Value {
    server.taw(&["pane", "get", pane]).result()["pane"].clone()
}

/// `taw pane split`'s new pane.
fn split(server: &TmuxServer, pane: &str, direction: &str) -> Value {
    server
        .taw(&["pane", "split", pane, "--direction", direction])
        .result()["pane"]
        .clone()
}

/// The live tokens of workspace w1.
fn tokens(server: &TmuxServer) -> Value {
    server.taw(&["workspace", "get", "w1"]).result()["workspace"]["tokens"].clone()
}

/// An edges answer's left, right, up and down.
fn sides(edges: &Value) -> [bool; 4] {
    ["left", "right", "up", "down"].map(|side| {
        edges[side]
            .as_bool()
            .unwrap_or_else(|| panic!("no {side} in {edges}"))
    })
}

/// Writes a layout to a file of the test's folder; its path.
fn layout_file(server: &TmuxServer, name: &str, layout: &Value) -> PathBuf {
    let path = server.dir.path().join(name);
    std::fs::write(&path, layout.to_string()).unwrap();
    path
}

// ---------------------------------------------------------------- workspaces

#[test]
fn workspace_create_is_named_after_its_folder() {
    let server = TmuxServer::start();
    let dir = folder(&server, "proj");
    let created = server
        .taw(&["workspace", "create", "--cwd", path_str(&dir)])
        .result();
    assert_eq!(created["type"], "workspace_created");
    let workspace = &created["workspace"];
    assert_eq!(workspace["label"], "proj");
    assert_eq!(workspace["workspace_id"], "w2");
    assert_eq!(workspace["tmux_id"], "$1");
    assert_eq!(workspace["tab_count"], 1);
    assert_eq!(workspace["pane_count"], 1);
    assert_eq!(created["tab"]["workspace_id"], "w2");
    assert_eq!(created["root_pane"]["workspace_id"], "w2");
    assert_eq!(created["root_pane"]["tab_id"], created["tab"]["tab_id"]);
    assert_eq!(server.display("$1", "#{session_name}"), "proj");

    // Its first shell runs in the folder.
    let pane = text(&created["root_pane"]["pane_id"]).to_string();
    let want = canonical(&dir);
    server.wait_for("the shell in the folder", WAIT, || {
        pane_record(&server, &pane)["cwd"] == want.as_str()
    });

    // The same folder again: tmux's session gets -2, the workspace keeps
    // its label, as two of herdr's may share one.
    let again = server
        .taw(&["workspace", "create", "--cwd", path_str(&dir)])
        .result();
    assert_eq!(again["workspace"]["label"], "proj");
    assert_eq!(again["workspace"]["workspace_id"], "w3");
    assert_eq!(server.display("$2", "#{session_name}"), "proj-2");
}

#[test]
fn workspace_create_with_a_taken_label_keeps_it_and_its_env() {
    let server = TmuxServer::start();
    let dir = folder(&server, "somewhere");
    let created = server
        .taw(&[
            "workspace",
            "create",
            "--cwd",
            path_str(&dir),
            "--label",
            "main",
            "--env",
            "WS_VAR=hello",
        ])
        .result();
    assert_eq!(created["workspace"]["label"], "main");
    assert_eq!(server.display("$1", "#{session_name}"), "main-2");
    let pane = text(&created["root_pane"]["pane_id"]).to_string();
    run(&server, &pane, "echo \"ws=$WS_VAR\"");
    wait_line(&server, &pane, "^ws=hello$");

    // A free label is used as given; tmux's session has `_` for `.`, the
    // workspace its label.
    let named = server
        .taw(&[
            "workspace",
            "create",
            "--cwd",
            path_str(&dir),
            "--label",
            "my ws",
        ])
        .result();
    assert_eq!(named["workspace"]["label"], "my ws");
    let dotted = server
        .taw(&[
            "workspace",
            "create",
            "--cwd",
            path_str(&dir),
            "--label",
            "v1.2",
        ])
        .result();
    assert_eq!(dotted["workspace"]["label"], "v1.2");
    assert_eq!(server.display("$3", "#{session_name}"), "v1_2");

    // A bad --env makes nothing.
    let bad = server.taw(&[
        "workspace",
        "create",
        "--cwd",
        path_str(&dir),
        "--env",
        "NOEQUALS",
    ]);
    assert_eq!(bad.error_code(), "invalid_argument");
    assert_eq!(server.tmux(&["list-sessions"]).lines().count(), 4);
}

#[test]
fn workspace_focus_and_create_focus_move_the_client() {
    let server = TmuxServer::start();
    let _outer = attach_client(&server, "main");
    let client_session = || {
        server
            .tmux(&["list-clients", "-F", "#{client_session}"])
            .trim()
            .to_string()
    };
    let dir = folder(&server, "here");

    let quiet = server
        .taw(&[
            "workspace",
            "create",
            "--cwd",
            path_str(&dir),
            "--label",
            "quiet",
            "--no-focus",
        ])
        .result();
    assert_eq!(quiet["workspace"]["label"], "quiet");
    assert_eq!(client_session(), "main");

    server
        .taw(&[
            "workspace",
            "create",
            "--cwd",
            path_str(&dir),
            "--label",
            "shown",
            "--focus",
        ])
        .result();
    server.wait_for("the client on the new workspace", WAIT, || {
        client_session() == "shown"
    });

    let back = server.taw(&["workspace", "focus", "w1"]).result();
    assert_eq!(back["type"], "workspace_info");
    assert_eq!(back["workspace"]["workspace_id"], "w1");
    assert_eq!(back["workspace"]["label"], "main");
    server.wait_for("the client back on main", WAIT, || {
        client_session() == "main"
    });

    let by_tmux_id = server.taw(&["workspace", "focus", "$1"]).result();
    assert_eq!(by_tmux_id["workspace"]["label"], "quiet");
    server.wait_for("the client on quiet", WAIT, || client_session() == "quiet");
}

#[test]
fn workspace_rename_refuses_a_name_another_has() {
    let server = TmuxServer::start();
    server.tmux(&["new-session", "-d", "-s", "other"]);
    let renamed = server
        .taw(&["workspace", "rename", "w1", "build", "and", "test"])
        .result();
    assert_eq!(renamed["type"], "workspace_info");
    assert_eq!(renamed["workspace"]["workspace_id"], "w1");
    assert_eq!(renamed["workspace"]["label"], "build and test");
    assert_eq!(server.display("$0", "#{session_name}"), "build and test");

    let taken = server.taw(&["workspace", "rename", "w1", "other"]);
    assert_eq!(taken.error_code(), "invalid_argument");
    assert!(taken.stdout.is_empty());
    assert_eq!(server.display("$0", "#{session_name}"), "build and test");

    // Its own name again is no clash; an empty one is refused.
    server
        .taw(&["workspace", "rename", "$0", "build and test"])
        .result();
    let empty = server.taw(&["workspace", "rename", "w1", "   "]);
    assert_eq!(empty.error_code(), "invalid_argument");

    // What tmux would keep otherwise than written (`$` as `\$`, `\` as
    // `\\`): refused, for a workspace and a tab, at create and rename.
    for name in ["$abc", "a\\b"] {
        for args in [
            vec!["workspace", "rename", "w1", name],
            vec!["workspace", "create", "--label", name, "--no-focus"],
            vec!["tab", "rename", "w1:t1", name],
            vec!["tab", "create", "--workspace", "w1", "--label", name],
        ] {
            let refused = server.taw(&args);
            assert_eq!(
                refused.error_code(),
                "invalid_argument",
                "{args:?}: {refused:?}"
            );
        }
    }
    assert_eq!(server.display("$0", "#{session_name}"), "build and test");
    assert_eq!(
        server
            .tmux(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .count(),
        2
    );
    assert_eq!(
        server.tmux(&["list-windows", "-t", "$0"]).lines().count(),
        1
    );
}

#[test]
fn workspace_close_kills_the_session() {
    let server = TmuxServer::start();
    let dir = folder(&server, "doomed");
    let made = server
        .taw(&["workspace", "create", "--cwd", path_str(&dir)])
        .result();
    let id = text(&made["workspace"]["workspace_id"]).to_string();

    let closed = server.taw(&["workspace", "close", &id]).result();
    assert_eq!(closed["type"], "ok");
    assert_eq!(closed["workspace_id"], id.as_str());
    assert_ne!(server.tmux_run(&["has-session", "-t", "=doomed"]).status, 0);
    assert_eq!(server.tmux(&["list-sessions"]).lines().count(), 1);

    assert_eq!(
        server.taw(&["workspace", "close", &id]).error_code(),
        "not_found"
    );
    assert_eq!(
        server.taw(&["workspace", "get", &id]).error_code(),
        "not_found"
    );
    assert_eq!(
        server.taw(&["workspace", "close", "main"]).error_code(),
        "invalid_argument"
    );
}

#[test]
fn report_metadata_tokens_show_in_the_workspace() {
    let server = TmuxServer::start();
    assert!(tokens(&server).is_null());
    let reported = server
        .taw(&[
            "workspace",
            "report-metadata",
            "w1",
            "--source",
            "custom:ci",
            "--token",
            "branch=main",
            "--token",
            "pr=42",
        ])
        .result();
    assert_eq!(reported["type"], "ok");
    assert_eq!(reported["in_order"], true);
    assert_eq!(reported["workspace_id"], "w1");
    assert_eq!(tokens(&server), json!({ "branch": "main", "pr": "42" }));

    server
        .taw(&[
            "workspace",
            "report-metadata",
            "w1",
            "--source",
            "custom:ci",
            "--clear-token",
            "pr",
        ])
        .result();
    assert_eq!(tokens(&server), json!({ "branch": "main" }));

    // An empty value clears a token too.
    server
        .taw(&[
            "workspace",
            "report-metadata",
            "w1",
            "--source",
            "custom:ci",
            "--token",
            "branch=",
        ])
        .result();
    assert!(tokens(&server).is_null());
}

#[test]
fn report_metadata_checks_names_order_and_ttl() {
    let server = TmuxServer::start();
    let report = |extra: &[&str]| {
        let mut args = vec!["workspace", "report-metadata", "w1"];
        args.extend_from_slice(extra);
        server.taw(&args)
    };
    // herdr's codes.
    for (bad, code) in [
        (
            &["--source", "bad source!", "--token", "a=b"][..],
            "invalid_metadata_source",
        ),
        (
            &["--source", "", "--token", "a=b"],
            "invalid_metadata_source",
        ),
        (
            &["--source", "ok", "--token", "bad name=x"],
            "invalid_metadata_token",
        ),
        (
            &["--source", "ok", "--token", "noequals"],
            "invalid_metadata_token",
        ),
        (
            &["--source", "ok", "--clear-token", "x y"],
            "invalid_metadata_token",
        ),
        (
            &["--source", "ok", "--token", "a=b", "--ttl-ms", "0"],
            "invalid_metadata_ttl",
        ),
    ] {
        assert_eq!(report(bad).error_code(), code, "{bad:?}");
    }
    assert!(tokens(&server).is_null());

    // Numbered reports: an older number, or none after numbers, is ignored.
    let first = report(&[
        "--source",
        "custom:seq",
        "--seq",
        "5",
        "--token",
        "step=five",
    ]);
    assert_eq!(first.result()["in_order"], true);
    let older = report(&[
        "--source",
        "custom:seq",
        "--seq",
        "3",
        "--token",
        "step=three",
    ]);
    assert_eq!(older.result()["in_order"], false);
    let unnumbered = report(&["--source", "custom:seq", "--token", "step=none"]);
    assert_eq!(unnumbered.result()["in_order"], false);
    assert_eq!(tokens(&server), json!({ "step": "five" }));
    let newer = report(&[
        "--source",
        "custom:seq",
        "--seq",
        "6",
        "--token",
        "step=six",
    ]);
    assert_eq!(newer.result()["in_order"], true);
    assert_eq!(tokens(&server), json!({ "step": "six" }));

    // A token with a time to live goes when it runs out.
    report(&[
        "--source",
        "custom:ttl",
        "--token",
        "flash=now",
        "--ttl-ms",
        "1",
    ])
    .result();
    server.wait_for("the token to expire", WAIT, || {
        tokens(&server).get("flash").is_none()
    });
    assert_eq!(tokens(&server), json!({ "step": "six" }));
}

// ---------------------------------------------------------------------- tabs

#[test]
fn tab_create_with_label_cwd_env_and_focus() {
    let server = TmuxServer::start();
    let dir = folder(&server, "tabdir");
    let made = server
        .taw(&[
            "tab",
            "create",
            "--workspace",
            "w1",
            "--label",
            "build",
            "--cwd",
            path_str(&dir),
            "--env",
            "TAB_VAR=tabby",
        ])
        .result();
    assert_eq!(made["type"], "tab_created");
    let tab = &made["tab"];
    assert_eq!(tab["tab_id"], "w1:t2");
    assert_eq!(tab["tmux_id"], "@1");
    assert_eq!(tab["workspace_id"], "w1");
    assert_eq!(tab["label"], "build");
    assert_eq!(made["root_pane"]["tab_id"], "w1:t2");
    assert_eq!(server.display("@1", "#{window_name}"), "build");
    // Without --focus the window in front stays.
    assert_eq!(server.display("main:", "#{window_id}"), "@0");

    let pane = text(&made["root_pane"]["pane_id"]).to_string();
    run(&server, &pane, "echo \"tab=$TAB_VAR\"");
    wait_line(&server, &pane, "^tab=tabby$");
    let want = canonical(&dir);
    server.wait_for("the tab's shell in its folder", WAIT, || {
        pane_record(&server, &pane)["cwd"] == want.as_str()
    });

    let focused = server
        .taw(&["tab", "create", "--workspace", "w1", "--focus"])
        .result();
    assert_eq!(
        server.display("main:", "#{window_id}"),
        text(&focused["tab"]["tmux_id"])
    );

    let bad = server.taw(&["tab", "create", "--workspace", "w1", "--env", "1BAD=x"]);
    assert_eq!(bad.error_code(), "invalid_argument");
    assert_eq!(
        server.tmux(&["list-windows", "-t", "main"]).lines().count(),
        3
    );

    // After a closed tab's gap, a new one still goes at the end.
    server.tmux(&["kill-window", "-t", "main:1"]);
    let last = server.taw(&["tab", "create", "--workspace", "w1"]).result();
    let numbers = server.tmux(&["list-windows", "-t", "main", "-F", "#{window_id}"]);
    assert_eq!(
        numbers.lines().last(),
        Some(text(&last["tab"]["tmux_id"])),
        "{numbers}"
    );
}

/// A plugin's process makes its tab in the workspace it was run for
/// (`HERDR_WORKSPACE_ID`), as herdr's CLI does, not in the one in front;
/// `--workspace` still wins.
#[test]
fn tab_create_takes_the_workspace_a_plugin_runs_for() {
    let server = TmuxServer::start();
    server.tmux(&["new-session", "-d", "-s", "other"]);
    // As a plugin's process runs taw: the server in TAW_TMUX_SOCKET.
    let socket = server.socket_path();
    let made_in = |args: &[&str], env: &[(&str, &str)]| {
        let mut env = env.to_vec();
        env.push(("TAW_TMUX_SOCKET", socket.as_str()));
        let run = server.taw_bare(args, &env);
        run.result()["tab"]["workspace_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Whichever is in front, each lands in the one it names.
    for workspace in ["w1", "w2"] {
        let made = made_in(&["tab", "create"], &[("HERDR_WORKSPACE_ID", workspace)]);
        assert_eq!(made, workspace);
    }
    let given = &[("HERDR_WORKSPACE_ID", "w1")];
    assert_eq!(
        made_in(&["tab", "create", "--workspace", "w2"], given),
        "w2"
    );
    // taw's own twin (a [hooks] command has only it) first; a stale id
    // is passed over for the next.
    let both = &[("TAW_WORKSPACE_ID", "w2"), ("HERDR_WORKSPACE_ID", "w1")];
    assert_eq!(made_in(&["tab", "create"], both), "w2");
    let stale = &[("TAW_WORKSPACE_ID", "w9"), ("HERDR_WORKSPACE_ID", "w1")];
    assert_eq!(made_in(&["tab", "create"], stale), "w1");
    // Stale alone: the usual choice, no error.
    let stale = server.taw_bare(
        &["tab", "create"],
        &[
            ("HERDR_WORKSPACE_ID", "w9"),
            ("TAW_TMUX_SOCKET", socket.as_str()),
        ],
    );
    assert_eq!(stale.status, 0, "{stale:?}");
}

#[test]
fn tab_focus_rename_and_close() {
    let server = TmuxServer::start();
    server.tmux(&["new-window", "-d", "-t", "main:", "-n", "second"]);

    let focused = server.taw(&["tab", "focus", "w1:t2"]).result();
    assert_eq!(focused["type"], "tab_info");
    assert_eq!(focused["tab"]["tab_id"], "w1:t2");
    assert_eq!(server.display("main:", "#{window_id}"), "@1");

    let renamed = server.taw(&["tab", "rename", "@1", "logs", "#1"]).result();
    assert_eq!(renamed["type"], "tab_info");
    assert_eq!(renamed["tab"]["label"], "logs #1");
    assert_eq!(server.display("@1", "#{window_name}"), "logs #1");
    // A `#` before `[` (which tmux keeps as it is) and a run of them too.
    for name in ["w#[x]", "w##[x] ###"] {
        let renamed = server.taw(&["tab", "rename", "@1", name]).result();
        assert_eq!(renamed["tab"]["label"], name);
        assert_eq!(server.display("@1", "#{window_name}"), name);
    }
    assert_eq!(
        server.taw(&["tab", "rename", "w1:t2", "  "]).error_code(),
        "invalid_argument"
    );

    let closed = server.taw(&["tab", "close", "w1:t2"]).result();
    assert_eq!(closed["type"], "ok");
    assert_eq!(closed["tab_id"], "w1:t2");
    assert_eq!(closed["workspace_id"], "w1");
    assert_eq!(
        server.tmux(&["list-windows", "-t", "main"]).lines().count(),
        1
    );
    assert_eq!(
        server.taw(&["tab", "get", "w1:t2"]).error_code(),
        "not_found"
    );
    assert_eq!(
        server.taw(&["tab", "close", "w1:t2"]).error_code(),
        "not_found"
    );

    // The last tab of a workspace takes the workspace with it.
    server.tmux(&["new-session", "-d", "-s", "lonely"]);
    server.taw(&["tab", "close", "w2:1"]).result();
    assert_eq!(
        server.taw(&["workspace", "get", "w2"]).error_code(),
        "not_found"
    );
    assert_eq!(server.display("main:", "#{session_name}"), "main");

    // A window linked into another session: closing the tab there takes
    // it out of that session only; its programs go on in main.
    server.tmux(&["new-window", "-d", "-t", "main:", "-n", "shared"]);
    server.tmux(&["new-session", "-d", "-s", "other"]);
    server.tmux(&["link-window", "-s", "main:shared", "-t", "other:5"]);
    let shared = server.display("main:shared", "#{window_id}");
    let other = server.display("other:", "#{session_id}");
    let tab = server.taw(&["tab", "list", "--workspace", &other]).result()["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tmux_id"] == shared.as_str())
        .unwrap()["tab_id"]
        .as_str()
        .unwrap()
        .to_string();
    server.taw(&["tab", "close", &tab]).result();
    let windows = server.tmux(&["list-windows", "-a", "-F", "#{session_name} #{window_id}"]);
    assert!(windows.contains(&format!("main {shared}")), "{windows}");
    assert!(!windows.contains(&format!("other {shared}")), "{windows}");
}

// --------------------------------------------------------------------- panes

#[test]
fn pane_split_right_and_down() {
    let server = TmuxServer::start();
    let right = server
        .taw(&["pane", "split", "%0", "--direction", "right"])
        .result();
    assert_eq!(right["type"], "pane_info");
    assert_eq!(right["pane"]["pane_id"], "w1:p2");
    assert_eq!(right["pane"]["tmux_id"], "%1");
    assert_eq!(right["pane"]["tab_id"], "w1:t1");
    assert!(display_u32(&server, "%1", "#{pane_left}") > 0);
    assert_eq!(server.display("%1", "#{pane_top}"), "0");
    // The pane that was split keeps the focus.
    assert_eq!(server.display("main:", "#{pane_id}"), "%0");

    // Down, with the pane being split keeping 70%.
    let down = server
        .taw(&[
            "pane",
            "split",
            "--pane",
            "w1:p2",
            "--direction",
            "down",
            "--ratio",
            "0.7",
        ])
        .result();
    assert_eq!(down["pane"]["tmux_id"], "%2");
    assert_eq!(
        server.display("%2", "#{pane_left}"),
        server.display("%1", "#{pane_left}")
    );
    assert!(display_u32(&server, "%2", "#{pane_top}") > 0);
    assert!(
        display_u32(&server, "%1", "#{pane_height}") > display_u32(&server, "%2", "#{pane_height}")
    );
    assert_eq!(
        server.tmux(&["list-panes", "-t", "main:0"]).lines().count(),
        3
    );
}

#[test]
fn pane_split_refuses_bad_ratio_env_and_ids() {
    let server = TmuxServer::start();
    for (args, code) in [
        (
            &[
                "pane",
                "split",
                "%0",
                "--direction",
                "right",
                "--ratio",
                "0.95",
            ][..],
            "invalid_argument",
        ),
        (
            &[
                "pane",
                "split",
                "%0",
                "--direction",
                "down",
                "--ratio",
                "0.05",
            ],
            "invalid_argument",
        ),
        (
            &[
                "pane",
                "split",
                "%0",
                "--direction",
                "down",
                "--env",
                "NOEQUALS",
            ],
            "invalid_argument",
        ),
        (
            &["pane", "split", "%99", "--direction", "down"],
            "not_found",
        ),
        (
            &["pane", "split", "w1:p9", "--direction", "down"],
            "not_found",
        ),
        (
            &["pane", "split", "bogus", "--direction", "down"],
            "invalid_argument",
        ),
    ] {
        let run = server.taw(args);
        assert_eq!(run.error_code(), code, "{args:?}");
        assert!(run.stdout.is_empty());
    }
    // Nothing was made.
    assert_eq!(server.tmux(&["list-panes", "-a"]).lines().count(), 1);
}

#[test]
fn pane_split_env_and_cwd_reach_the_new_shell() {
    let server = TmuxServer::start();
    let dir = folder(&server, "splitdir");
    let made = server
        .taw(&[
            "pane",
            "split",
            "%0",
            "--direction",
            "down",
            "--cwd",
            path_str(&dir),
            "--env",
            "SPLIT_VAR=hello there",
        ])
        .result();
    let pane = text(&made["pane"]["pane_id"]).to_string();
    run(&server, &pane, "echo \"got=$SPLIT_VAR\"");
    let matched = wait_line(&server, &pane, "^got=hello there$");
    assert_eq!(matched["matched_line"], "got=hello there");
    let want = canonical(&dir);
    server.wait_for("the new shell in its folder", WAIT, || {
        pane_record(&server, &pane)["cwd"] == want.as_str()
    });
}

#[test]
fn pane_close_kills_it_once() {
    let server = TmuxServer::start();
    split(&server, "%0", "right");
    let closed = server.taw(&["pane", "close", "w1:p2"]).result();
    assert_eq!(closed["type"], "ok");
    assert_eq!(closed["pane_id"], "w1:p2");
    assert_eq!(server.tmux(&["list-panes", "-a"]).lines().count(), 1);
    assert_eq!(
        server.taw(&["pane", "close", "w1:p2"]).error_code(),
        "not_found"
    );
    assert_eq!(
        server.taw(&["pane", "close", "%1"]).error_code(),
        "not_found"
    );
    assert_eq!(
        server.taw(&["pane", "close", "p2"]).error_code(),
        "invalid_argument"
    );
}

#[test]
fn pane_rename_sets_and_clears_the_label() {
    let server = TmuxServer::start();
    let renamed = server
        .taw(&["pane", "rename", "%0", "my", "agent", "#1"])
        .result();
    assert_eq!(renamed["type"], "pane_info");
    assert_eq!(renamed["pane"]["label"], "my agent #1");
    assert_eq!(pane_record(&server, "w1:p1")["label"], "my agent #1");

    let cleared = server.taw(&["pane", "rename", "w1:p1", "--clear"]).result();
    assert!(cleared["pane"]["label"].is_null());
    assert!(pane_record(&server, "%0")["label"].is_null());

    assert_eq!(
        server.taw(&["pane", "rename", "%9", "x"]).error_code(),
        "not_found"
    );
}

#[test]
fn pane_focus_direction_moves_or_says_no_neighbor() {
    let server = TmuxServer::start();
    split(&server, "%0", "right");

    let moved = server
        .taw(&["pane", "focus", "--direction", "right", "--pane", "%0"])
        .result();
    assert_eq!(moved["type"], "pane_focus_direction");
    let focus = &moved["focus"];
    assert_eq!(focus["changed"], true);
    assert_eq!(focus["source_pane_id"], "w1:p1");
    assert_eq!(focus["focused_pane_id"], "w1:p2");
    assert!(focus["layout"]["panes"].is_array());
    assert_eq!(server.display("main:", "#{pane_id}"), "%1");

    let stuck = server
        .taw(&["pane", "focus", "--direction", "right", "--pane", "%1"])
        .result();
    assert_eq!(stuck["focus"]["changed"], false);
    assert_eq!(stuck["focus"]["reason"], "no_neighbor");
    assert!(stuck["focus"]["focused_pane_id"].is_null());
    assert_eq!(server.display("main:", "#{pane_id}"), "%1");

    let back = server
        .taw(&["pane", "focus", "--direction", "left", "--pane", "w1:p2"])
        .result();
    assert_eq!(back["focus"]["focused_pane_id"], "w1:p1");
    assert_eq!(server.display("main:", "#{pane_id}"), "%0");
}

#[test]
fn pane_neighbor_and_edges() {
    let server = TmuxServer::start();
    split(&server, "%0", "right"); // %1, the right half
    split(&server, "%1", "down"); // %2, below %1

    let neighbor = |pane: &str, direction: &str| {
        let answer = server
            .taw(&["pane", "neighbor", "--direction", direction, "--pane", pane])
            .result();
        assert_eq!(answer["type"], "pane_neighbor");
        assert_eq!(answer["neighbor"]["direction"], direction);
        answer["neighbor"]["neighbor_pane_id"].clone()
    };
    assert_eq!(neighbor("%1", "down"), "w1:p3");
    assert_eq!(neighbor("%2", "up"), "w1:p2");
    assert_eq!(neighbor("%2", "left"), "w1:p1");
    assert!(neighbor("%0", "left").is_null());
    assert!(neighbor("%0", "up").is_null());

    let edges = |pane: &str| {
        let answer = server.taw(&["pane", "edges", "--pane", pane]).result();
        assert_eq!(answer["type"], "pane_edges");
        answer["edges"].clone()
    };
    let left = edges("%0");
    assert_eq!(left["pane_id"], "w1:p1");
    assert_eq!(sides(&left), [true, false, true, true]);
    assert_eq!(sides(&edges("w1:p3")), [false, true, false, true]);
}

#[test]
fn pane_resize_grows_the_pane() {
    let server = TmuxServer::start();
    split(&server, "%0", "right");
    let before = display_u32(&server, "%0", "#{pane_width}");
    let resized = server
        .taw(&[
            "pane",
            "resize",
            "--direction",
            "right",
            "--amount",
            "0.1",
            "--pane",
            "%0",
        ])
        .result();
    assert_eq!(resized["type"], "pane_resize");
    assert_eq!(resized["resize"]["changed"], true);
    assert_eq!(resized["resize"]["pane_id"], "w1:p1");
    assert!(display_u32(&server, "%0", "#{pane_width}") > before);

    for amount in ["0", "1.5"] {
        let run = server.taw(&[
            "pane",
            "resize",
            "--direction",
            "left",
            "--pane",
            "%0",
            "--amount",
            amount,
        ]);
        assert_eq!(run.error_code(), "invalid_argument", "{amount}");
    }

    // A lone pane has nowhere to grow.
    let lone = server
        .tmux(&["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"])
        .trim()
        .to_string();
    let unchanged = server
        .taw(&["pane", "resize", "--direction", "down", "--pane", &lone])
        .result();
    assert_eq!(unchanged["resize"]["changed"], false);
    assert_eq!(unchanged["resize"]["reason"], "unchanged");
}

#[test]
fn pane_zoom_on_off_toggle_and_reasons() {
    let server = TmuxServer::start();
    let single = server.taw(&["pane", "zoom", "%0"]).result();
    assert_eq!(single["type"], "pane_zoom");
    assert_eq!(single["zoom"]["changed"], false);
    assert_eq!(single["zoom"]["reason"], "single_pane");
    assert_eq!(single["zoom"]["zoomed"], false);

    split(&server, "%0", "right");
    let on = server.taw(&["pane", "zoom", "%0"]).result();
    assert_eq!(on["zoom"]["changed"], true);
    assert_eq!(on["zoom"]["zoomed"], true);
    assert_eq!(on["zoom"]["pane_id"], "w1:p1");
    assert_eq!(server.display("main:", "#{window_zoomed_flag}"), "1");

    let again = server.taw(&["pane", "zoom", "%0", "--on"]).result();
    assert_eq!(again["zoom"]["changed"], false);
    assert_eq!(again["zoom"]["reason"], "already_zoomed");

    // Zoomed on %0, --on for %1 zooms onto %1.
    let other = server
        .taw(&["pane", "zoom", "--pane", "%1", "--on"])
        .result();
    assert_eq!(other["zoom"]["changed"], true);
    assert_eq!(other["zoom"]["zoomed"], true);
    assert_eq!(other["zoom"]["focused_pane_id"], "w1:p2");
    assert_eq!(server.display("main:", "#{pane_id}"), "%1");

    let off = server.taw(&["pane", "zoom", "w1:p2", "--off"]).result();
    assert_eq!(off["zoom"]["zoomed"], false);
    assert_eq!(off["zoom"]["zoom_changed"], true);
    assert_eq!(server.display("main:", "#{window_zoomed_flag}"), "0");
    let off_again = server.taw(&["pane", "zoom", "%1", "--off"]).result();
    assert_eq!(off_again["zoom"]["reason"], "already_unzoomed");

    let toggled = server.taw(&["pane", "zoom", "%1", "--toggle"]).result();
    assert_eq!(toggled["zoom"]["zoomed"], true);
    assert_eq!(server.display("main:", "#{window_zoomed_flag}"), "1");

    // Zoomed on %1, --off for %0: out of the zoom, onto %0, as its answer
    // says.
    let off_other = server.taw(&["pane", "zoom", "%0", "--off"]).result();
    assert_eq!(off_other["zoom"]["zoomed"], false);
    assert_eq!(off_other["zoom"]["focus_changed"], true);
    assert_eq!(off_other["zoom"]["focused_pane_id"], "w1:p1");
    assert_eq!(server.display("main:", "#{pane_id}"), "%0");
}

#[test]
fn pane_swap_by_direction_and_by_ids() {
    let server = TmuxServer::start();
    split(&server, "%0", "right");

    let swapped = server
        .taw(&["pane", "swap", "--direction", "right", "--pane", "%0"])
        .result();
    assert_eq!(swapped["type"], "pane_swap");
    assert_eq!(swapped["swap"]["changed"], true);
    assert_eq!(swapped["swap"]["source_pane_id"], "w1:p1");
    assert_eq!(swapped["swap"]["target_pane_id"], "w1:p2");
    assert!(display_u32(&server, "%0", "#{pane_left}") > 0);
    assert_eq!(server.display("%1", "#{pane_left}"), "0");

    // %0 is on the right now: nothing further right.
    let none = server
        .taw(&["pane", "swap", "--direction", "right", "--pane", "%0"])
        .result();
    assert_eq!(none["swap"]["changed"], false);
    assert_eq!(none["swap"]["reason"], "no_neighbor");
    assert!(none["swap"]["target_pane_id"].is_null());

    let same = server
        .taw(&[
            "pane",
            "swap",
            "--source-pane",
            "%0",
            "--target-pane",
            "w1:p1",
        ])
        .result();
    assert_eq!(same["swap"]["reason"], "same_pane");

    server.tmux(&["new-window", "-d", "-t", "main:"]); // %2
    let cross = server
        .taw(&["pane", "swap", "--source-pane", "%0", "--target-pane", "%2"])
        .result();
    assert_eq!(cross["swap"]["changed"], false);
    assert_eq!(cross["swap"]["reason"], "cross_tab");
    assert_eq!(server.display("%2", "#{window_id}"), "@1");

    // Neither a direction nor both panes.
    let neither = server.taw(&["pane", "swap", "--pane", "%0"]);
    assert_eq!(neither.error_code(), "invalid_argument");
    let missing = server.taw(&["pane", "swap", "--source-pane", "%0", "--target-pane", "%9"]);
    assert_eq!(missing.error_code(), "not_found");
}

#[test]
fn pane_move_into_another_tab() {
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "%0"]); // %1 in @0
    server.tmux(&["new-window", "-d", "-t", "main:"]); // %2 in @1

    let same = server
        .taw(&["pane", "move", "%1", "--tab", "w1:t1", "--split", "right"])
        .result();
    assert_eq!(same["type"], "pane_move");
    let result = &same["move_result"];
    assert_eq!(result["changed"], false);
    assert_eq!(result["reason"], "same_tab");
    assert_eq!(result["previous_pane_id"], "w1:p2");
    assert_eq!(server.display("%1", "#{window_id}"), "@0");

    let moved = server
        .taw(&["pane", "move", "w1:p2", "--tab", "@1", "--split", "right"])
        .result();
    let result = &moved["move_result"];
    assert_eq!(result["changed"], true);
    assert_eq!(result["previous_pane_id"], "w1:p2");
    assert_eq!(result["previous_tab_id"], "w1:t1");
    assert_eq!(result["pane"]["pane_id"], "w1:p2");
    assert_eq!(result["pane"]["tab_id"], "w1:t2");
    assert!(result["created_tab"].is_null());
    assert!(result["created_workspace"].is_null());
    assert!(result["closed_tab_id"].is_null());
    assert_eq!(server.display("%1", "#{window_id}"), "@1");
    assert!(display_u32(&server, "%1", "#{pane_left}") > 0);
    // Shown, as herdr does by default: active in its tab, the tab current.
    assert_eq!(
        server.display("%1", "#{pane_active} #{window_active}"),
        "1 1"
    );

    // The last pane of a tab leaves: the tab closes.
    let last = server
        .taw(&[
            "pane",
            "move",
            "%0",
            "--tab",
            "w1:t2",
            "--split",
            "down",
            "--no-focus",
        ])
        .result();
    // Not shown with --no-focus.
    assert_eq!(server.display("%1", "#{pane_active}"), "1");
    assert_eq!(server.display("%0", "#{pane_active}"), "0");
    assert_eq!(last["move_result"]["closed_tab_id"], "w1:t1");
    assert!(last["move_result"]["closed_workspace_id"].is_null());
    assert_eq!(
        server.tmux(&["list-windows", "-t", "main"]).lines().count(),
        1
    );

    let nowhere = server.taw(&["pane", "move", "%0"]);
    assert_eq!(nowhere.error_code(), "invalid_argument");
}

#[test]
fn pane_move_to_a_new_tab_and_a_new_workspace() {
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "%0"]); // %1

    let to_tab = server
        .taw(&["pane", "move", "%1", "--new-tab", "--label", "solo #1"])
        .result();
    let result = &to_tab["move_result"];
    assert_eq!(result["changed"], true);
    assert_eq!(result["created_tab"]["label"], "solo #1");
    assert_eq!(result["created_tab"]["workspace_id"], "w1");
    assert_eq!(result["pane"]["tab_id"], result["created_tab"]["tab_id"]);
    assert!(result["created_workspace"].is_null());
    assert!(result["closed_tab_id"].is_null());
    let solo_tab = text(&result["created_tab"]["tab_id"]).to_string();
    assert_eq!(
        server.tmux(&["list-windows", "-t", "main"]).lines().count(),
        2
    );

    let to_workspace = server
        .taw(&[
            "pane",
            "move",
            "%1",
            "--new-workspace",
            "--label",
            "moved",
            "--tab-label",
            "here #2",
        ])
        .result();
    let result = &to_workspace["move_result"];
    assert_eq!(result["changed"], true);
    assert_eq!(result["previous_pane_id"], "w1:p2");
    assert_eq!(result["created_workspace"]["label"], "moved");
    assert_eq!(result["created_workspace"]["workspace_id"], "w2");
    assert_eq!(result["created_tab"]["label"], "here #2");
    // The pane's public id follows its workspace.
    assert_eq!(result["pane"]["pane_id"], "w2:p2");
    assert_eq!(result["pane"]["workspace_id"], "w2");
    // The tab it had to itself is gone from w1.
    assert_eq!(result["closed_tab_id"], solo_tab.as_str());
    assert_eq!(server.display("%1", "#{session_name}"), "moved");
    assert_eq!(
        server
            .tmux(&["list-windows", "-t", "moved"])
            .lines()
            .count(),
        1
    );
}

#[test]
fn pane_layout_lists_panes_and_splits() {
    let server = TmuxServer::start();
    split(&server, "%0", "right");
    let answer = server.taw(&["pane", "layout", "--pane", "%1"]).result();
    assert_eq!(answer["type"], "pane_layout");
    let layout = &answer["layout"];
    assert_eq!(layout["tab_id"], "w1:t1");
    assert_eq!(layout["workspace_id"], "w1");
    assert_eq!(layout["zoomed"], false);
    assert_eq!(layout["focused_pane_id"], "w1:p1");
    let panes = layout["panes"].as_array().unwrap();
    assert_eq!(panes.len(), 2);
    assert_eq!(panes[0]["pane_id"], "w1:p1");
    assert_eq!(panes[0]["focused"], true);
    assert_eq!(panes[0]["rect"]["x"], 0);
    assert_eq!(panes[1]["pane_id"], "w1:p2");
    assert!(panes[1]["rect"]["x"].as_u64().unwrap() > 0);
    let splits = layout["splits"].as_array().unwrap();
    assert_eq!(splits.len(), 1);
    assert_eq!(splits[0]["id"], "split_1_root");
    assert_eq!(splits[0]["direction"], "right");
    assert!(
        (number(&splits[0]["ratio"]) - 0.5).abs() < 0.05,
        "{splits:?}"
    );
}

#[test]
fn pane_process_info_shows_the_program_in_front() {
    let server = TmuxServer::start();
    server.tmux(&["send-keys", "-t", "%0", "sleep 600", "Enter"]);
    server.wait_for("sleep in front", WAIT, || {
        server.display("%0", "#{pane_current_command}") == "sleep"
    });
    let answer = server
        .taw(&["pane", "process-info", "--pane", "w1:p1"])
        .result();
    assert_eq!(answer["type"], "pane_process_info");
    let info = &answer["process_info"];
    assert_eq!(info["pane_id"], "w1:p1");
    let shell_pid = display_u32(&server, "%0", "#{pane_pid}");
    assert_eq!(info["shell_pid"], shell_pid);
    let processes = info["foreground_processes"].as_array().unwrap();
    let sleep = processes
        .iter()
        .find(|p| p["name"] == "sleep")
        .unwrap_or_else(|| panic!("no sleep in {processes:?}"));
    assert_eq!(sleep["argv"], json!(["sleep", "600"]));
    assert_eq!(sleep["cmdline"], "sleep 600");
    assert_ne!(sleep["pid"], shell_pid);
}

// --------------------------------------------------------------------- input

#[test]
fn pane_read_visible_lines_and_recent() {
    let server = TmuxServer::start();
    run(&server, "%0", "seq 1 100");
    wait_line(&server, "%0", "^100$");

    let visible = read(&server, "%0", &["--source", "visible"]);
    // Raw text, not a JSON envelope.
    assert!(!visible.trim_start().starts_with('{'), "{visible}");
    let lines: Vec<&str> = visible.lines().collect();
    assert!(lines.contains(&"100"), "{visible}");
    assert!(!lines.contains(&"50"), "{visible}");
    // herdr's default: the last 80 rows, history and screen.
    let default = read(&server, "%0", &[]);
    let lines: Vec<&str> = default.lines().collect();
    assert!(lines.contains(&"50") && lines.contains(&"100"), "{default}");
    assert!(!lines.contains(&"10") && lines.len() <= 80, "{default}");

    let recent = read(&server, "%0", &["--source", "recent", "--lines", "70"]);
    assert!(recent.lines().any(|l| l == "50"), "{recent}");
    assert!(recent.lines().count() <= 70);
    let unwrapped = read(
        &server,
        "w1:p1",
        &["--source", "recent-unwrapped", "--lines", "70"],
    );
    assert!(unwrapped.lines().any(|l| l == "50"), "{unwrapped}");
    // herdr takes its record's spelling of the source too.
    let underscored = read(
        &server,
        "%0",
        &["--source", "recent_unwrapped", "--lines", "70"],
    );
    assert_eq!(underscored, unwrapped);

    let last = read(&server, "%0", &["--lines", "2"]);
    assert_eq!(last.lines().count(), 2, "{last}");
    assert!(last.lines().any(|l| l == "100"), "{last}");
    // recent-unwrapped counts rendered rows, as herdr does, then joins
    // the wrapped ones: the last three rows here are the last of the 300
    // zeros' three (120 + 120 + 60), the echo's line and the prompt.
    run(&server, "%0", "clear; printf '%0300d\\n' 0; echo tail-line");
    server.wait_for("the prompt after tail-line", WAIT, || {
        let screen = read(&server, "%0", &["--source", "visible"]);
        let lines: Vec<&str> = screen.lines().collect();
        lines.len() >= 2 && lines[lines.len() - 2] == "tail-line"
    });
    let last = read(
        &server,
        "%0",
        &["--source", "recent-unwrapped", "--lines", "3"],
    );
    let lines: Vec<&str> = last.lines().collect();
    assert_eq!(lines.len(), 3, "{last}");
    assert_eq!(lines[0], "0".repeat(60), "{last}");
    assert_eq!(lines[1], "tail-line", "{last}");
}

/// Every word after the pane is the text, as herdr joins them: words that
/// look like flags of taw's (`--version`, `-S`) are typed, and a match
/// that begins with `-` is read as the match.
#[test]
fn typed_words_that_look_like_flags_are_text() {
    let server = TmuxServer::start();
    let ran = server.taw(&["pane", "run", "%0", "echo", "--version", "-S", "x", "-la"]);
    assert_eq!(ran.status, 0, "{ran:?}");
    assert!(
        !ran.stdout.contains("taw "),
        "taw's version, not typed: {ran:?}"
    );
    wait_line(&server, "%0", "^--version -S x -la$");
    let found = server
        .taw(&[
            "pane",
            "wait-output",
            "%0",
            "--match",
            "--version -S",
            "--timeout",
            "5000",
        ])
        .result();
    assert!(
        found["matched_line"]
            .as_str()
            .unwrap()
            .contains("--version -S"),
        "{found}"
    );
}

#[test]
fn pane_read_ansi_keeps_colours() {
    let server = TmuxServer::start();
    run(&server, "%0", "printf '\\033[31mRED\\033[0m\\n'");
    wait_line(&server, "%0", "^RED$");
    let plain = read(&server, "%0", &[]);
    assert!(plain.lines().any(|l| l == "RED"), "{plain}");
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    let coloured = read(&server, "%0", &["--ansi"]);
    assert!(coloured.contains("\u{1b}[31mRED"), "{coloured:?}");
}

#[test]
fn send_text_send_keys_and_run_print_nothing() {
    let server = TmuxServer::start();
    let typed = server.taw(&["pane", "send-text", "%0", "echo", "sum-$((40+2))"]);
    assert_eq!(typed.status, 0, "{typed:?}");
    assert!(
        typed.stdout.is_empty() && typed.stderr.is_empty(),
        "{typed:?}"
    );
    let keys = server.taw(&["pane", "send-keys", "w1:p1", "enter"]);
    assert_eq!(keys.status, 0, "{keys:?}");
    assert!(keys.stdout.is_empty() && keys.stderr.is_empty(), "{keys:?}");
    wait_line(&server, "%0", "^sum-42$");

    let ran = server.taw(&["pane", "run", "%0", "echo", "ran-$((6*7))"]);
    assert_eq!(ran.status, 0, "{ran:?}");
    assert!(ran.stdout.is_empty() && ran.stderr.is_empty(), "{ran:?}");
    wait_line(&server, "%0", "^ran-42$");

    // A bad key anywhere in the list: invalid_key, and not even `x` goes.
    let bad = server.taw(&["pane", "send-keys", "%0", "x", "bogus"]);
    assert_eq!(bad.error_code(), "invalid_key");
    assert!(bad.stdout.is_empty());
    server.taw(&["pane", "send-text", "%0", "MARK"]);
    server.wait_for("MARK typed", WAIT, || {
        read(&server, "%0", &[]).contains("MARK")
    });
    let screen = read(&server, "%0", &[]);
    assert!(!screen.contains("xMARK"), "{screen}");
}

#[test]
fn wait_output_matches_text_and_regex() {
    let server = TmuxServer::start();
    run(&server, "%0", "echo found-$((1+2)) here");
    let matched = server
        .taw(&[
            "pane",
            "wait-output",
            "%0",
            "--match",
            "found-3",
            "--timeout",
            "10000",
        ])
        .result();
    assert_eq!(matched["type"], "output_matched");
    assert_eq!(matched["pane_id"], "w1:p1");
    assert_eq!(matched["matched_line"], "found-3 here");
    // herdr's default, recent, read unwrapped.
    assert_eq!(matched["read"]["source"], "recent_unwrapped");
    assert!(text(&matched["read"]["text"]).contains("found-3 here"));

    let by_regex = server
        .taw(&[
            "pane",
            "wait-output",
            "w1:p1",
            "--regex",
            "^found-[0-9]+ here$",
            "--timeout",
            "10000",
        ])
        .result();
    assert_eq!(by_regex["matched_line"], "found-3 here");
}

#[test]
fn wait_output_times_out_and_refuses_a_bad_regex() {
    let server = TmuxServer::start();
    let timed_out = server.taw(&[
        "pane",
        "wait-output",
        "%0",
        "--match",
        "never-printed",
        "--timeout",
        "200",
    ]);
    assert_eq!(timed_out.error_code(), "timeout");
    assert!(timed_out.stdout.is_empty());

    let bad = server.taw(&["pane", "wait-output", "%0", "--regex", "("]);
    assert_eq!(bad.error_code(), "invalid_regex");
}

#[test]
fn wait_output_on_a_pane_killed_while_waiting_is_not_found() {
    // No watcher here, so wait-output binds no waiter's socket and nothing
    // shows that it waits: it reads the pane at once (then every 250 ms),
    // and this is time enough for that first read.
    const FIRST_READ_MADE: Duration = Duration::from_millis(300);
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "%0"]); // %1
    let answer = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            server.taw(&[
                "pane",
                "wait-output",
                "%1",
                "--match",
                "never-printed",
                "--timeout",
                "20000",
            ])
        });
        std::thread::sleep(FIRST_READ_MADE);
        assert!(!waiting.is_finished(), "wait-output ended before the kill");
        server.tmux(&["kill-pane", "-t", "%1"]);
        waiting.join().unwrap()
    });
    assert_eq!(answer.error_code(), "not_found");
}

// --------------------------------------------------------------------- clear

#[test]
fn pane_clear_with_bash_at_its_prompt_clears_the_screen() {
    let server = TmuxServer::start();
    let pane = server.bash_pane("b");
    run(&server, &pane, "seq 1 5");
    server.wait_for("the output and the prompt after it", WAIT, || {
        let screen = read(&server, &pane, &["--source", "visible"]);
        screen.lines().any(|l| l == "5")
            && screen.lines().last().is_some_and(|l| l.starts_with("bash"))
    });

    let cleared = server.taw(&["pane", "clear", &pane]).result();
    assert_eq!(cleared["type"], "ok");
    assert_eq!(cleared["pane_id"], "w1:p2");
    assert_eq!(cleared["history_cleared"], true);
    assert_eq!(cleared["screen_cleared"], true, "{cleared}");
    assert!(cleared["note"].is_null());
    server.wait_for("the old output off the screen", WAIT, || {
        !read(&server, &pane, &["--source", "visible"])
            .lines()
            .any(|l| l == "3")
    });
    assert!(
        read(&server, &pane, &["--source", "visible"])
            .lines()
            .count()
            <= 1
    );
}

#[test]
fn pane_clear_takes_back_a_ctrl_l_typed_as_text() {
    // bash's own `read` is the shell in front, and echoes Ctrl-L as ^L.
    let server = TmuxServer::start();
    let pane = server.bash_pane("b");
    run(&server, &pane, "read answer; echo \"got [$answer]\"");
    // bash took the line: the cursor at the start of the line below it, and
    // no prompt after it.
    server.wait_for("the read in front", WAIT, || {
        let shown = read(&server, &pane, &[]);
        server.display(&pane, "#{cursor_x}") == "0"
            && shown
                .lines()
                .rfind(|l| !l.trim().is_empty())
                .is_some_and(|l| l.contains("read answer"))
    });
    let cleared = server.taw(&["pane", "clear", &pane]).result();
    assert_eq!(cleared["screen_cleared"], false, "{cleared}");
    assert!(
        text(&cleared["note"]).contains("took Ctrl-L as text"),
        "{cleared}"
    );
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    server.wait_for("the read to end", WAIT, || {
        read(&server, &pane, &[]).contains("got []")
    });
}

#[test]
fn pane_clear_with_a_program_in_front_keeps_the_screen() {
    let server = TmuxServer::start();
    let pane = server.bash_pane("b");
    run(&server, &pane, "sleep 600");
    server.wait_for("sleep in front", WAIT, || {
        server.display(&pane, "#{pane_current_command}") == "sleep"
    });
    let kept = server.taw(&["pane", "clear", "--pane", &pane]).result();
    assert_eq!(kept["type"], "ok");
    assert_eq!(kept["screen_cleared"], false);
    assert!(kept["note"].is_string(), "{kept}");
    assert!(read(&server, &pane, &[]).contains("sleep 600"));

    // sh does not redraw on Ctrl-L: only its history goes.
    let sh = server.taw(&["pane", "clear", "%0"]).result();
    assert_eq!(sh["history_cleared"], true);
    assert_eq!(sh["screen_cleared"], false);
    assert!(sh["note"].is_string(), "{sh}");
}

// -------------------------------------------------------------------- layout

#[test]
fn layout_export_describes_the_split_tree() {
    let server = TmuxServer::start();
    split(&server, "%0", "right"); // %1
    split(&server, "%1", "down"); // %2
    server
        .taw(&["pane", "rename", "%1", "top", "right"])
        .result();

    let exported = server.taw(&["layout", "export", "--tab", "w1:t1"]).result();
    assert_eq!(exported["type"], "layout_export");
    let layout = &exported["layout"];
    assert_eq!(layout["tab_id"], "w1:t1");
    assert_eq!(layout["workspace_id"], "w1");
    let root = &layout["root"];
    assert_eq!(root["type"], "split");
    assert_eq!(root["direction"], "right");
    assert!((number(&root["ratio"]) - 0.5).abs() < 0.05, "{root}");
    assert_eq!(root["first"]["type"], "pane");
    assert_eq!(root["first"]["pane_id"], "w1:p1");
    assert!(root["first"]["label"].is_null());
    let mut keys: Vec<&str> = root["first"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["cwd", "label", "pane_id", "type"]);
    let second = &root["second"];
    assert_eq!(second["type"], "split");
    assert_eq!(second["direction"], "down");
    assert_eq!(second["first"]["pane_id"], "w1:p2");
    assert_eq!(second["first"]["label"], "top right");
    assert_eq!(second["second"]["pane_id"], "w1:p3");

    // --pane names the same tab.
    let by_pane = server.taw(&["layout", "export", "--pane", "%2"]).result();
    assert_eq!(by_pane["layout"], exported["layout"]);
}

#[test]
fn layout_apply_builds_a_tab_from_a_file() {
    let server = TmuxServer::start();
    let dir = folder(&server, "applied");
    let layout = json!({
        "type": "split",
        "direction": "right",
        "ratio": 0.6,
        "first": {
            "type": "pane",
            "label": "editor",
            "command": ["sh", "-c", "echo from-$((2+3)); exec sleep 600"],
        },
        "second": {
            "type": "split",
            "direction": "down",
            "ratio": 0.5,
            "first": {
                "type": "pane",
                "label": "env",
                "env": { "LAYOUT_VAR": "xyz" },
                "command": ["sh", "-c", "echo var=$LAYOUT_VAR; exec sleep 600"],
            },
            "second": {
                "type": "pane",
                "label": "here",
                "cwd": path_str(&dir),
                "command": ["sh", "-c", "exec sleep 600"],
            },
        },
    });
    let file = layout_file(&server, "layout.json", &layout);
    let applied = server
        .taw(&[
            "layout",
            "apply",
            "--workspace",
            "w1",
            "--tab-label",
            "built",
            "--file",
            path_str(&file),
        ])
        .result();
    assert_eq!(applied["type"], "layout_apply");
    let described = &applied["layout"];
    assert_eq!(described["workspace_id"], "w1");
    assert_eq!(described["tab_id"], "w1:t2");
    assert_eq!(server.display("@1", "#{window_name}"), "built");
    // Without --focus the window in front stays.
    assert_eq!(server.display("main:", "#{window_id}"), "@0");
    assert_eq!(server.tmux(&["list-panes", "-t", "@1"]).lines().count(), 3);

    let root = &described["root"];
    assert_eq!(root["type"], "split");
    assert_eq!(root["direction"], "right");
    assert!((number(&root["ratio"]) - 0.6).abs() < 0.05, "{root}");
    assert_eq!(root["first"]["label"], "editor");
    assert_eq!(root["second"]["direction"], "down");
    assert_eq!(root["second"]["first"]["label"], "env");
    assert_eq!(root["second"]["second"]["label"], "here");

    // Each pane runs its command, with its environment, in its folder.
    let editor = text(&root["first"]["pane_id"]).to_string();
    wait_line(&server, &editor, "^from-5$");
    let env_pane = text(&root["second"]["first"]["pane_id"]).to_string();
    wait_line(&server, &env_pane, "^var=xyz$");
    let want = canonical(&dir);
    server.wait_for("the third pane in its folder", WAIT, || {
        let exported = server.taw(&["layout", "export", "--tab", "w1:t2"]).result();
        exported["layout"]["root"]["second"]["second"]["cwd"] == want.as_str()
    });
}

/// `--tab` builds the new tab in the old one's place in the order, and
/// a tab that was the session's current one stays so in its new shape.
#[test]
fn layout_apply_over_a_tab_takes_its_place() {
    let server = TmuxServer::start();
    server.new_window("main", "middle", "");
    server.new_window("main", "last", "");
    let windows = || server.tmux(&["list-windows", "-t", "main", "-F", "#{window_id}"]);
    let before: Vec<String> = windows().lines().map(str::to_string).collect();
    assert_eq!(before.len(), 3);
    let middle = before[1].clone();
    server.tmux(&["select-window", "-t", &middle]);
    let layout = json!({
        "type": "split",
        "direction": "right",
        "first": { "type": "pane" },
        "second": { "type": "pane" },
    });
    let file = layout_file(&server, "two.json", &layout);
    let applied = server
        .taw(&[
            "layout",
            "apply",
            "--tab",
            &middle,
            "--file",
            path_str(&file),
        ])
        .result();
    let made = text(&applied["layout"]["tab_id"]).to_string();
    let after: Vec<String> = windows().lines().map(str::to_string).collect();
    assert_eq!(after.len(), 3, "{after:?}");
    assert_eq!((&after[0], &after[2]), (&before[0], &before[2]), "{made}");
    assert!(!before.contains(&after[1]), "{after:?}");
    assert_eq!(server.display("main:", "#{window_id}"), after[1]);
    assert_eq!(
        server
            .tmux(&["list-panes", "-t", &after[1]])
            .lines()
            .count(),
        2
    );
}

#[test]
fn layout_set_split_ratio_moves_one_split() {
    let server = TmuxServer::start();
    // down( right( a, down(b, c) ), d ): path 01 is the split of b and c.
    let pane = |label: &str| json!({ "type": "pane", "label": label });
    let layout = json!({
        "type": "split",
        "direction": "down",
        "ratio": 0.5,
        "first": {
            "type": "split",
            "direction": "right",
            "ratio": 0.5,
            "first": pane("a"),
            "second": {
                "type": "split",
                "direction": "down",
                "ratio": 0.5,
                "first": pane("b"),
                "second": pane("c"),
            },
        },
        "second": pane("d"),
    });
    let file = layout_file(&server, "four.json", &layout);
    let applied = server
        .taw(&[
            "layout",
            "apply",
            "--workspace",
            "w1",
            "--file",
            path_str(&file),
        ])
        .result();
    let tab = text(&applied["layout"]["tab_id"]).to_string();
    let a = text(&applied["layout"]["root"]["first"]["first"]["pane_id"]).to_string();

    let set_ratio = |path: &str, ratio: &str| {
        server.taw(&[
            "layout",
            "set-split-ratio",
            "--tab",
            &tab,
            "--path",
            path,
            "--ratio",
            ratio,
        ])
    };
    let set = set_ratio("01", "0.3").result();
    assert_eq!(set["type"], "layout_split_ratio_set");
    let ratio = number(&set["layout"]["root"]["first"]["second"]["ratio"]);
    assert!((ratio - 0.3).abs() < 0.08, "{ratio}");
    let exported = server.taw(&["layout", "export", "--tab", &tab]).result();
    assert_eq!(
        exported["layout"]["root"]["first"]["second"]["ratio"],
        set["layout"]["root"]["first"]["second"]["ratio"]
    );
    assert_eq!(
        exported["layout"]["root"]["first"]["second"]["first"]["label"],
        "b"
    );

    // No --path is the root; --pane names the tab.
    let root = server
        .taw(&["layout", "set-split-ratio", "--pane", &a, "--ratio", "0.7"])
        .result();
    let ratio = number(&root["layout"]["root"]["ratio"]);
    assert!((ratio - 0.7).abs() < 0.05, "{ratio}");

    // A path that ends at a pane and a path that is not 0s and 1s are
    // refused; a ratio out of 0.1 to 0.9 is brought inside it, as herdr
    // does, and only a number that is none is refused.
    assert_eq!(set_ratio("00", "0.5").error_code(), "not_found");
    assert_eq!(set_ratio("2", "0.5").error_code(), "invalid_argument");
    let clamped = set_ratio("", "0.95").result();
    let ratio = number(&clamped["layout"]["root"]["ratio"]);
    assert!((ratio - 0.9).abs() < 0.05, "{ratio}");
    assert_eq!(set_ratio("", "NaN").error_code(), "invalid_argument");
}

#[test]
fn layout_apply_refuses_bad_input_and_makes_nothing() {
    let server = TmuxServer::start();
    let not_json = server.dir.path().join("not.json");
    std::fs::write(&not_json, "{ not json").unwrap();
    let triangle = layout_file(&server, "triangle.json", &json!({ "type": "triangle" }));
    let sideways = layout_file(
        &server,
        "sideways.json",
        &json!({
            "type": "split",
            "direction": "left",
            "first": { "type": "pane" },
            "second": { "type": "pane" },
        }),
    );
    let bad_command = layout_file(
        &server,
        "command.json",
        &json!({ "type": "pane", "command": "not a list" }),
    );
    // tmux would split `A=B` at its `=`, and keep an empty name.
    let bad_env = layout_file(
        &server,
        "env.json",
        &json!({
            "type": "split",
            "direction": "right",
            "first": { "type": "pane" },
            "second": { "type": "pane", "env": { "A=B": "x" } },
        }),
    );
    let empty_env = layout_file(
        &server,
        "empty-env.json",
        &json!({ "type": "pane", "env": { "": "x" } }),
    );
    for file in [
        &not_json,
        &triangle,
        &sideways,
        &bad_command,
        &bad_env,
        &empty_env,
    ] {
        let run = server.taw(&["layout", "apply", "--file", path_str(file)]);
        assert_eq!(run.error_code(), "invalid_argument", "{}", file.display());
    }
    let missing = server.dir.path().join("missing.json");
    let run = server.taw(&["layout", "apply", "--file", path_str(&missing)]);
    assert_eq!(run.error_code(), "not_found");
    assert_eq!(server.tmux(&["list-windows", "-a"]).lines().count(), 1);
}

// -------------------------------------------------------------------- errors

#[test]
fn missing_ids_are_not_found_and_malformed_ids_invalid() {
    let server = TmuxServer::start();
    let not_found: &[&[&str]] = &[
        &["workspace", "focus", "w9"],
        &["workspace", "rename", "w9", "x"],
        &["workspace", "close", "$7"],
        &[
            "workspace",
            "report-metadata",
            "w9",
            "--source",
            "s",
            "--token",
            "a=b",
        ],
        &["tab", "create", "--workspace", "w9"],
        &["tab", "focus", "@42"],
        &["tab", "rename", "w1:t9", "x"],
        &["tab", "close", "@42"],
        &["pane", "close", "%99"],
        &["pane", "rename", "w1:p99", "x"],
        &["pane", "focus", "--direction", "left", "--pane", "%99"],
        &["pane", "neighbor", "--direction", "left", "--pane", "%99"],
        &["pane", "edges", "--pane", "%99"],
        &["pane", "resize", "--direction", "left", "--pane", "%99"],
        &["pane", "zoom", "%99"],
        &["pane", "move", "%99", "--new-tab"],
        &["pane", "move", "%0", "--tab", "@42", "--split", "right"],
        &["pane", "layout", "--pane", "%99"],
        &["pane", "process-info", "--pane", "%99"],
        &["pane", "read", "%99"],
        &["pane", "read", "w1:p99"],
        &["pane", "send-text", "%99", "hi"],
        &["pane", "send-keys", "%99", "enter"],
        &["pane", "run", "w2:p1", "true"],
        &[
            "pane",
            "wait-output",
            "%99",
            "--match",
            "x",
            "--timeout",
            "100",
        ],
        &["pane", "clear", "%99"],
        &["layout", "export", "--tab", "@42"],
        &["layout", "export", "--pane", "%99"],
        &[
            "layout",
            "set-split-ratio",
            "--pane",
            "%99",
            "--ratio",
            "0.5",
        ],
    ];
    for args in not_found {
        let run = server.taw(args);
        assert_eq!(run.error_code(), "not_found", "{args:?}: {run:?}");
        assert!(run.stdout.is_empty(), "{args:?}");
        let envelope = run.error_json();
        // herdr's own spelling of one verb's id.
        let id = format!("cli:{}:{}", args[0], args[1]).replace("process-info", "process_info");
        assert_eq!(envelope["id"], id);
    }
    let invalid: &[&[&str]] = &[
        &["workspace", "focus", "main"],
        &["workspace", "close", "0"],
        &["tab", "focus", "w1"],
        &["tab", "close", "w1:t"],
        &["pane", "close", "bogus"],
        &["pane", "zoom", "w1:x1"],
        &["pane", "read", "bogus"],
        &["pane", "send-text", "p1", "hi"],
        &["pane", "move", "%0", "--tab", "w1", "--split", "right"],
        &["layout", "export", "--tab", "w1"],
    ];
    for args in invalid {
        let run = server.taw(args);
        assert_eq!(run.error_code(), "invalid_argument", "{args:?}: {run:?}");
    }
    // Nothing was made or closed on the way.
    assert_eq!(server.tmux(&["list-panes", "-a"]).lines().count(), 1);
}

/// One rule for names, every verb alike: kept byte for byte, or refused
/// with invalid_argument and nothing renamed; never cut.
#[test]
fn names_are_kept_as_given_or_refused_never_cut() {
    let server = TmuxServer::start();
    let long = "x".repeat(81);
    let refused = [
        vec!["workspace", "rename", "w1", "two\nlines"],
        vec!["workspace", "rename", "w1", &long],
        vec!["workspace", "rename", "w1", "   "],
        vec!["tab", "rename", "w1:t1", "tab\there"],
        vec!["pane", "rename", "%0", "label\n"],
        vec!["workspace", "create", "--label", "a\nb"],
        vec!["tab", "create", "--label", &long],
    ];
    for args in &refused {
        let run = server.taw(args);
        assert_eq!(run.error_code(), "invalid_argument", "{args:?}");
    }
    let message = server
        .taw(&["tab", "rename", "w1:t1", "two\nlines"])
        .error_json()["error"]["message"]
        .to_string();
    assert!(message.contains("a newline"), "{message}");
    // Nothing was renamed or made.
    assert_eq!(server.display("$0", "#{session_name}"), "main");
    assert_eq!(server.tmux(&["list-sessions"]).lines().count(), 1);
    assert_eq!(
        server.tmux(&["list-windows", "-t", "main"]).lines().count(),
        1
    );
    assert_eq!(server.display("%0", "#{@agent_wizard_label}"), "");
    // Kept as given: spaces, # and 80 characters.
    let name = format!("  build #2 {}", "y".repeat(69));
    assert_eq!(name.chars().count(), 80);
    let renamed = server.taw(&["tab", "rename", "w1:t1", &name]).result();
    assert_eq!(renamed["tab"]["label"], name.as_str());
    assert_eq!(server.display("@0", "#{window_name}"), name);
    let labelled = server.taw(&["pane", "rename", "%0", "é ✓ #x"]).result();
    assert_eq!(labelled["pane"]["label"], "é ✓ #x");
}
