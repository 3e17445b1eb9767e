//! Shapes: insta snapshots of what taw prints, so that a change of shape
//! shows in review. Two kinds:
//!
//! - the `--help` of taw, of every group and of every verb, found by walking
//!   the `Commands:` sections of the binary's own help (`help__<group>__<verb>`);
//! - one JSON answer (the whole envelope) of every `result.type` taw prints,
//!   one per verb for the `ok` results, a few error envelopes, and the text
//!   answers (`pane read`, `agent explain`, `config check` without --json).
//!
//! Values that vary from run to run (the temporary folder, the taw binary,
//! the socket, pids, ttys, times, a folder outside the temporary one) are
//! replaced by `[placeholders]` in `stable`; everything else (field names,
//! their order, types and values) is exact. No snapshot shows a shell's
//! prompt or the host's name (they differ for root, and per machine).
//!
//! Snapshots live in tests/snapshots/; take new ones with
//! `INSTA_UPDATE=always cargo test --test shapes` and review the diff.
//!
//! Not snapshotted:
//! - `taw ui` (the popup itself: a full-screen program, not an answer) and
//!   `taw watch server` (the watcher: it runs for the server's life, printing
//!   nothing);
//! - the `agent` result of an `agent prompt --wait` or `agent wait` whose
//!   agent left its pane (`{"agent": null, "final_status", "released"}`):
//!   it needs a watcher to write the end of the turn as a real agent exits;
//! - `agent read` (text): the stand-in agent's screen holds bash's version
//!   in its prompt; `pane read` covers the same text answer;
//! - `taw open` for a person (no --json): it prints nothing, or attaches a
//!   terminal; `taw open --json` is snapshotted.

use crate::common::{Run, TmuxServer, attach_client, taw_bin};
use serde_json::{Value, json};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long anything asynchronous (a shell, a watcher) may take.
const WAIT: Duration = Duration::from_secs(10);

/// Keys whose number or string differs from run to run, and what stands
/// for them (a `created` or `activity` that is a bool stays).
const VOLATILE: &[(&str, &str)] = &[
    ("pid", "[pid]"),
    ("pids", "[pid]"),
    ("shell_pid", "[pid]"),
    ("foreground_process_group_id", "[pid]"),
    ("tty", "[tty]"),
    ("state_since", "[ms]"),
    ("created", "[ms]"),
    ("activity", "[ms]"),
    ("log_id", "[log]"),
    ("started_unix_ms", "[ms]"),
    ("finished_unix_ms", "[ms]"),
    ("installed_unix_ms", "[ms]"),
];

/// `value` with what varies per run replaced: the server's temporary folder
/// (as given and canonical) by `[tmp]`, the taw binary by `[taw]`, the
/// socket's path by `[socket_path]` and its name by `[socket]`, in every
/// string; the values of VOLATILE keys by their placeholder; a `cwd` or
/// `foreground_cwd` outside the temporary folder, the test's home (where
/// the tests run tmux), or null, by `[cwd]`: the record of a pane just made
/// is read before its shell is up, when tmux knows no folder yet, or the
/// server's; for the same reason a `command` of `tmux` by `sh`.
fn stable(value: Value, server: &TmuxServer) -> Value {
    let tmp = server.dir.path().display().to_string();
    let canonical = std::fs::canonicalize(server.dir.path())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| tmp.clone());
    let tmux_dir = server.dir.path().join("tmux");
    let uid = std::fs::metadata(&tmux_dir).map(|m| m.uid()).unwrap_or(0);
    let socket_path = tmux_dir
        .join(format!("tmux-{uid}"))
        .join(&server.socket)
        .display()
        .to_string();
    // Longest first: the socket's path and the binary may be under the
    // temporary folder or hold the socket's name.
    let replacements = [
        (socket_path.clone(), "[socket_path]"),
        (socket_path.replacen(&tmp, &canonical, 1), "[socket_path]"),
        (taw_bin().display().to_string(), "[taw]"),
        (canonical.clone(), "[tmp]"),
        (tmp.clone(), "[tmp]"),
        (server.socket.clone(), "[socket]"),
    ];
    fn walk(value: Value, key: Option<&str>, replacements: &[(String, &str)]) -> Value {
        if let Some(key) = key
            && let Some((_, placeholder)) = VOLATILE.iter().find(|(k, _)| *k == key)
            && (value.is_number() || value.is_string())
        {
            return Value::String(placeholder.to_string());
        }
        if matches!(
            key,
            Some("cwd" | "foreground_cwd" | "focused_pane_cwd" | "workspace_cwd")
        ) && value.is_null()
        {
            return Value::String("[cwd]".into());
        }
        // A pane just made can be read while tmux's fork has not yet become
        // its shell: its command is still tmux.
        if key == Some("command") && value == "tmux" {
            return Value::String("sh".into());
        }
        match value {
            Value::String(text) => {
                let mut text = text;
                for (from, to) in replacements {
                    if !from.is_empty() {
                        text = text.replace(from.as_str(), to);
                    }
                }
                if matches!(
                    key,
                    Some("cwd" | "foreground_cwd" | "focused_pane_cwd" | "workspace_cwd")
                ) && (!text.starts_with("[tmp]") || text == "[tmp]/home")
                {
                    text = "[cwd]".into();
                }
                Value::String(text)
            }
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(|item| walk(item, None, replacements))
                    .collect(),
            ),
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| {
                        let v = walk(v, Some(&k), replacements);
                        (k, v)
                    })
                    .collect(),
            ),
            other => other,
        }
    }
    walk(value, None, &replacements)
}

/// `text` with `stable`'s replacements.
fn stable_text(text: &str, server: &TmuxServer) -> String {
    match stable(Value::String(text.to_string()), server) {
        Value::String(text) => text,
        _ => unreachable!(),
    }
}

/// Snapshots a run's envelope: its exit status, the stream it went to,
/// and the JSON pretty-printed in taw's own key order.
fn shape(name: &str, server: &TmuxServer, run: &Run) {
    let (stream, text) = if run.stdout.trim().is_empty() {
        ("stderr", &run.stderr)
    } else {
        assert!(run.stderr.trim().is_empty(), "both streams: {run:?}");
        ("stdout", &run.stdout)
    };
    let envelope: Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("{name}: {stream} is not JSON ({e}): {run:?}"));
    let pretty = serde_json::to_string_pretty(&stable(envelope, server)).unwrap();
    let answer = format!("exit {} · {stream}\n{pretty}", run.status);
    insta::assert_snapshot!(name, answer);
}

/// Snapshots a run that answers with text (or nothing) on stdout.
fn text_shape(name: &str, server: &TmuxServer, run: &Run) {
    assert!(run.stderr.is_empty(), "{name}: {run:?}");
    let answer = format!(
        "exit {} · stdout\n{}",
        run.status,
        stable_text(&run.stdout, server)
    );
    insta::assert_snapshot!(name, answer);
}

/// `taw args...` against the server, its envelope snapshotted as `name`.
fn snap(server: &TmuxServer, name: &str, args: &[&str]) {
    shape(name, server, &server.taw(args));
}

/// A private server (`TmuxServer::start`) whose window names hold still:
/// tmux's automatic-rename names a window after what runs in front, which
/// is tmux's own process for a moment as a pane starts.
fn fresh() -> TmuxServer {
    let server = TmuxServer::start();
    server.tmux(&["set-option", "-g", "automatic-rename", "off"]);
    server.tmux(&["rename-window", "-t", "main:0", "sh"]);
    server
}

/// A folder in the test's temporary directory.
fn folder(server: &TmuxServer, name: &str) -> PathBuf {
    let dir = server.dir.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

fn screen(server: &TmuxServer, pane: &str) -> String {
    server.tmux(&["capture-pane", "-p", "-t", pane])
}

/// Waits until every pane runs `command` in front (a pane just made runs
/// tmux's own process for a moment).
fn settle(server: &TmuxServer, command: &str) {
    server.wait_for(&format!("every pane's {command}"), WAIT, || {
        server
            .tmux(&["list-panes", "-a", "-F", "#{pane_current_command}"])
            .lines()
            .all(|line| line == command)
    });
}

/// Marks a pane as the watcher marks an agent.
fn mark(server: &TmuxServer, pane: &str, kind: &str, state: &str) {
    server.tmux(&["set-option", "-p", "-t", pane, "@agent_kind", kind]);
    server.tmux(&["set-option", "-p", "-t", pane, "@agent_state", state]);
}

// ---------------------------------------------------------------------- help

/// The verbs a help text lists under `Commands:`, but `help`.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| *word != "help")
        .map(str::to_string)
        .collect()
}

/// Snapshots the help of `path` and of every command under it; the paths
/// visited.
fn help_tree(server: &TmuxServer, path: &[String], visited: &mut Vec<String>) {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let run = server.taw_bare(&args, &[]);
    assert_eq!(run.status, 0, "{args:?}: {run:?}");
    assert!(run.stderr.is_empty(), "{args:?}: {run:?}");
    let name = std::iter::once("help".to_string())
        .chain(path.iter().map(|word| word.replace('-', "_")))
        .collect::<Vec<_>>()
        .join("__");
    let help = &run.stdout;
    insta::assert_snapshot!(name, help);
    visited.push(path.join(" "));
    for command in commands(&run.stdout) {
        let mut deeper = path.to_vec();
        deeper.push(command);
        help_tree(server, &deeper, visited);
    }
}

#[test]
fn help_of_every_group_and_verb() {
    let server = TmuxServer::empty();
    let mut visited = Vec::new();
    help_tree(&server, &[], &mut visited);
    // Every verb of the listing at the end of `taw --help` was visited.
    let root = server.taw_bare(&["--help"], &[]).stdout;
    let listed: Vec<String> = root
        .lines()
        .filter_map(|line| line.trim().strip_prefix("taw "))
        .filter_map(|rest| {
            let mut words = rest.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect();
    assert!(listed.len() > 60, "{listed:?}");
    for verb in &listed {
        assert!(visited.contains(verb), "{verb} has no help snapshot");
    }
    for group in ["ui", "open"] {
        assert!(visited.iter().any(|v| v == group), "{group}");
    }
}

// ---------------------------------------------------------------- workspaces

#[test]
fn workspace_answers() {
    let server = fresh();
    snap(&server, "workspace__list", &["workspace", "list"]);
    snap(&server, "workspace__get", &["workspace", "get", "w1"]);
    snap(
        &server,
        "workspace__create",
        &["workspace", "create", "--label", "proj", "--no-focus"],
    );
    snap(&server, "workspace__focus", &["workspace", "focus", "w2"]);
    snap(
        &server,
        "workspace__rename",
        &["workspace", "rename", "w2", "renamed"],
    );
    snap(
        &server,
        "workspace__report_metadata",
        &[
            "workspace",
            "report-metadata",
            "w1",
            "--source",
            "custom:ci",
            "--seq",
            "5",
            "--token",
            "branch=main",
            "--token",
            "pr=42",
        ],
    );
    snap(
        &server,
        "workspace__report_metadata_out_of_order",
        &[
            "workspace",
            "report-metadata",
            "w1",
            "--source",
            "custom:ci",
            "--seq",
            "3",
            "--token",
            "branch=old",
        ],
    );
    snap(
        &server,
        "workspace__get_with_tokens",
        &["workspace", "get", "w1"],
    );
    snap(&server, "workspace__close", &["workspace", "close", "w2"]);
}

// ---------------------------------------------------------------------- tabs

#[test]
fn tab_answers() {
    let server = fresh();
    snap(&server, "tab__list", &["tab", "list"]);
    snap(&server, "tab__get", &["tab", "get", "w1:t1"]);
    snap(
        &server,
        "tab__create",
        &[
            "tab",
            "create",
            "--workspace",
            "w1",
            "--label",
            "build",
            "--no-focus",
        ],
    );
    settle(&server, "sh");
    snap(
        &server,
        "tab__list_of_workspace",
        &["tab", "list", "--workspace", "w1"],
    );
    snap(&server, "tab__focus", &["tab", "focus", "w1:t2"]);
    snap(&server, "tab__rename", &["tab", "rename", "@1", "logs"]);
    snap(&server, "tab__close", &["tab", "close", "w1:t2"]);
}

// --------------------------------------------------------------------- panes

#[test]
fn pane_record_answers() {
    let server = fresh();
    snap(&server, "pane__list", &["pane", "list"]);
    snap(&server, "pane__get", &["pane", "get", "%0"]);
    snap(
        &server,
        "pane__split",
        &["pane", "split", "%0", "--direction", "right"],
    );
    settle(&server, "sh");
    snap(
        &server,
        "pane__list_of_workspace",
        &["pane", "list", "--workspace", "w1"],
    );
    // As if run in %1 of this server.
    let tmux_env = format!("{},1,0", server.socket_path());
    let current = server.taw_bare(
        &["pane", "current"],
        &[("TMUX", &tmux_env), ("TMUX_PANE", "%1")],
    );
    shape("pane__current", &server, &current);
    snap(
        &server,
        "pane__rename",
        &["pane", "rename", "%1", "my", "pane"],
    );
    snap(
        &server,
        "pane__rename_clear",
        &["pane", "rename", "w1:p2", "--clear"],
    );
    snap(&server, "pane__close", &["pane", "close", "w1:p2"]);
}

#[test]
fn pane_arrange_answers() {
    let server = fresh();
    server.tmux(&["split-window", "-d", "-h", "-t", "%0"]); // %1, right
    server.tmux(&["split-window", "-d", "-v", "-t", "%1"]); // %2, below %1
    settle(&server, "sh");
    snap(
        &server,
        "pane__focus",
        &["pane", "focus", "--direction", "right", "--pane", "%0"],
    );
    snap(
        &server,
        "pane__focus_no_neighbor",
        &["pane", "focus", "--direction", "up", "--pane", "%1"],
    );
    snap(
        &server,
        "pane__neighbor",
        &["pane", "neighbor", "--direction", "down", "--pane", "%1"],
    );
    snap(
        &server,
        "pane__neighbor_none",
        &["pane", "neighbor", "--direction", "left", "--pane", "%0"],
    );
    snap(&server, "pane__edges", &["pane", "edges", "--pane", "%2"]);
    snap(
        &server,
        "pane__resize",
        &[
            "pane",
            "resize",
            "--direction",
            "right",
            "--amount",
            "0.1",
            "--pane",
            "%0",
        ],
    );
    snap(&server, "pane__zoom", &["pane", "zoom", "%0", "--on"]);
    snap(
        &server,
        "pane__zoom_unchanged",
        &["pane", "zoom", "%0", "--on"],
    );
    snap(&server, "pane__zoom_off", &["pane", "zoom", "%0", "--off"]);
    snap(
        &server,
        "pane__swap",
        &["pane", "swap", "--source-pane", "%1", "--target-pane", "%2"],
    );
    snap(
        &server,
        "pane__swap_no_neighbor",
        &["pane", "swap", "--direction", "left", "--pane", "%0"],
    );
    snap(&server, "pane__layout", &["pane", "layout", "--pane", "%0"]);
    server.tmux(&["new-window", "-d", "-t", "main:"]); // %3 in @1
    settle(&server, "sh");
    snap(
        &server,
        "pane__move_to_tab",
        &["pane", "move", "%2", "--tab", "@1", "--split", "down"],
    );
    snap(
        &server,
        "pane__move_same_tab",
        &["pane", "move", "%2", "--tab", "@1", "--split", "down"],
    );
    snap(
        &server,
        "pane__move_new_tab",
        &["pane", "move", "%2", "--new-tab", "--label", "solo"],
    );
    settle(&server, "sh");
    snap(
        &server,
        "pane__move_new_workspace",
        &[
            "pane",
            "move",
            "%2",
            "--new-workspace",
            "--label",
            "moved",
            "--tab-label",
            "here",
        ],
    );
}

#[test]
fn pane_input_answers() {
    let server = fresh();
    let out = server.new_window(
        "main",
        "out",
        "printf 'alpha\\nfound-3 here\\nomega\\n'; exec sleep 600",
    ); // %1
    server.wait_for("the output and sleep in front", WAIT, || {
        screen(&server, &out).contains("omega")
            && server.display(&out, "#{pane_current_command}") == "sleep"
    });
    snap(
        &server,
        "pane__wait_output",
        &[
            "pane",
            "wait-output",
            &out,
            "--match",
            "found-3",
            "--timeout",
            "10000",
        ],
    );
    text_shape("pane__read", &server, &server.taw(&["pane", "read", &out]));
    snap(
        &server,
        "pane__process_info",
        &["pane", "process-info", "--pane", &out],
    );
    // sh does not redraw on Ctrl-L: only its history goes.
    server.wait_for("sh at its prompt", WAIT, || {
        !screen(&server, "%0").trim().is_empty()
    });
    snap(&server, "pane__clear", &["pane", "clear", "%0"]);
    // The typing verbs print nothing.
    text_shape(
        "pane__send_text",
        &server,
        &server.taw(&["pane", "send-text", "%0", "echo", "hi"]),
    );
    text_shape(
        "pane__send_keys",
        &server,
        &server.taw(&["pane", "send-keys", "%0", "enter"]),
    );
    text_shape(
        "pane__run",
        &server,
        &server.taw(&["pane", "run", "%0", "true"]),
    );
}

#[test]
fn pane_report_answers() {
    let server = fresh();
    // The agent in front as it reports (a report at the prompt is late).
    server.tmux(&["send-keys", "-t", "%0", "sleep 600", "Enter"]);
    server.wait_for("sleep in front", Duration::from_secs(5), || {
        server.display("%0", "#{pane_current_command}") == "sleep"
    });
    let report = |extra: &[&str]| {
        let mut args = vec![
            "pane",
            "report-agent",
            "%0",
            "--source",
            "custom:test",
            "--agent",
            "mybot",
        ];
        args.extend_from_slice(extra);
        server.taw(&args)
    };
    let run = report(&["--state", "working", "--seq", "5"]);
    shape("pane__report_agent", &server, &run);
    let run = report(&["--state", "idle", "--seq", "3"]);
    shape("pane__report_agent_out_of_order", &server, &run);
    let metadata = |extra: &[&str]| {
        let mut args = vec![
            "pane",
            "report-metadata",
            "%0",
            "--source",
            "custom:ui",
            "--seq",
            "2",
        ];
        args.extend_from_slice(extra);
        server.taw(&args)
    };
    let run = metadata(&[
        "--agent",
        "mybot",
        "--title",
        "Fixing the login",
        "--display-agent",
        "My Bot",
        "--state-label",
        "working=thinking",
        "--token",
        "pr=42",
    ]);
    shape("pane__report_metadata", &server, &run);
    let run = metadata(&["--agent", "claude", "--title", "x"]);
    shape("pane__report_metadata_out_of_order", &server, &run);
    snap(
        &server,
        "pane__report_metadata_ignored",
        &[
            "pane",
            "report-metadata",
            "%0",
            "--source",
            "custom:ui",
            "--seq",
            "3",
            "--applies-to-source",
            "herdr:pi",
            "--title",
            "x",
        ],
    );
    snap(&server, "pane__get_with_metadata", &["pane", "get", "%0"]);
    snap(
        &server,
        "pane__report_agent_session",
        &[
            "pane",
            "report-agent-session",
            "%0",
            "--source",
            "custom:test",
            "--agent",
            "mybot",
            "--seq",
            "6",
            "--agent-session-id",
            "abc",
            "--",
            "mybot",
            "--resume",
            "abc",
        ],
    );
    snap(
        &server,
        "pane__release_agent_not_holder",
        &[
            "pane",
            "release-agent",
            "%0",
            "--source",
            "custom:other",
            "--agent",
            "mybot",
        ],
    );
    snap(
        &server,
        "pane__release_agent",
        &[
            "pane",
            "release-agent",
            "%0",
            "--source",
            "custom:test",
            "--agent",
            "mybot",
            "--seq",
            "7",
        ],
    );
}

// -------------------------------------------------------------------- layout

#[test]
fn layout_answers() {
    let server = fresh();
    server.tmux(&["split-window", "-d", "-h", "-t", "%0"]); // %1
    server.taw(&["pane", "rename", "%1", "right"]).result();
    settle(&server, "sh");
    snap(
        &server,
        "layout__export",
        &["layout", "export", "--tab", "w1:t1"],
    );
    let pane = |label: &str| json!({ "type": "pane", "label": label, "command": ["sleep", "600"] });
    let layout = json!({
        "type": "split",
        "direction": "right",
        "ratio": 0.6,
        "first": pane("editor"),
        "second": {
            "type": "split",
            "direction": "down",
            "ratio": 0.5,
            "first": pane("logs"),
            "second": pane("tests"),
        },
    });
    let file = server.dir.path().join("layout.json");
    std::fs::write(&file, layout.to_string()).unwrap();
    snap(
        &server,
        "layout__apply",
        &[
            "layout",
            "apply",
            "--workspace",
            "w1",
            "--tab-label",
            "built",
            "--file",
            path_str(&file),
        ],
    );
    snap(
        &server,
        "layout__set_split_ratio",
        &[
            "layout",
            "set-split-ratio",
            "--tab",
            "w1:t2",
            "--path",
            "1",
            "--ratio",
            "0.3",
        ],
    );
}

// -------------------------------------------------------------------- agents

#[test]
fn agent_answers_of_marked_panes() {
    let server = fresh();
    server.tmux(&["split-window", "-d", "-t", "main:0"]); // %1
    // A screen of its own (no shell prompt, which differs for root).
    let asking = server.new_window(
        "main",
        "asking",
        &format!(
            "printf '{}'; exec sleep 600",
            BLOCKED_SCREEN.replace('\n', "\\n")
        ),
    ); // %2
    server.wait_for("the question on the screen", WAIT, || {
        screen(&server, &asking).contains("Esc to cancel")
            && server.display(&asking, "#{pane_current_command}") == "sleep"
    });
    mark(&server, "%0", "claude", "working");
    mark(&server, "%1", "codex", "done");
    mark(&server, &asking, "claude", "blocked");
    // tmux titles a pane with the host's name until a program sets one.
    server.tmux(&["select-pane", "-t", &asking, "-T", "✳ Claude Code"]);
    snap(&server, "agent__list", &["agent", "list"]);
    snap(&server, "agent__get", &["agent", "get", "w1:p1"]);
    snap(
        &server,
        "agent__rename",
        &["agent", "rename", "%0", "reviewer"],
    );
    snap(
        &server,
        "agent__rename_clear",
        &["agent", "rename", "reviewer", "--clear"],
    );
    snap(&server, "agent__focus", &["agent", "focus", "%1"]);
    snap(
        &server,
        "agent__wait",
        &[
            "agent",
            "wait",
            "%1",
            "--until",
            "idle",
            "--timeout",
            "5000",
        ],
    );
    snap(
        &server,
        "agent__explain_pane",
        &["agent", "explain", &asking, "--json"],
    );
    // A saved screen, without tmux.
    let file = server.dir.path().join("screen.txt");
    std::fs::write(&file, BLOCKED_SCREEN).unwrap();
    let explain = |extra: &[&str]| {
        let mut args = vec!["agent", "explain", "--file", path_str(&file)];
        args.extend_from_slice(&["--agent", "claude"]);
        args.extend_from_slice(extra);
        server.taw_bare(&args, &[])
    };
    shape("agent__explain_file", &server, &explain(&["--json"]));
    text_shape("agent__explain_file_text", &server, &explain(&[]));
}

/// Claude Code asking for a permission, in a few lines.
const BLOCKED_SCREEN: &str =
    " Do you want to proceed?\n ❯ 1. Yes\n   2. No\n\n Esc to cancel · Tab to amend\n";

/// A script named claude in a folder of the test's: it says it is ready
/// and echoes each line (a stand-in; no real agent runs here).
fn fake_agent(server: &TmuxServer) -> PathBuf {
    server.stand_in(
        "agent-bin",
        "claude",
        "printf 'fake agent ready\\n'\nwhile IFS= read -r line; do printf 'got: %s\\n' \"$line\"; done\n",
    )
}

#[test]
fn agent_answers_of_a_stand_in_agent() {
    let server = fresh();
    let script = fake_agent(&server);
    let bin = script.parent().unwrap().display().to_string();
    let pane = server.bash_pane("shell"); // %1
    run_line(&server, &pane, &format!("PATH={bin}:$PATH"));
    snap(
        &server,
        "agent__start",
        &[
            "agent", "start", "echoer", "--kind", "claude", "--pane", &pane,
        ],
    );
    server.wait_for("the agent ready", WAIT, || {
        screen(&server, &pane).contains("fake agent ready")
    });
    snap(
        &server,
        "agent__prompt",
        &["agent", "prompt", "echoer", "one"],
    );
    server.wait_for("the prompt", WAIT, || {
        screen(&server, &pane).contains("got: one")
    });
    snap(
        &server,
        "agent__send_keys",
        &["agent", "send-keys", "echoer", "x", "enter"],
    );
    server.wait_for("the keys", WAIT, || {
        screen(&server, &pane).contains("got: x")
    });
    // --wait: the agent takes the prompt (its turn moves, as a watcher
    // would write it) and is idle again.
    let waited = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            server.taw(&[
                "agent",
                "prompt",
                "echoer",
                "two",
                "--wait",
                "--timeout",
                "20000",
            ])
        });
        server.wait_for("the second prompt", WAIT, || {
            screen(&server, &pane).contains("got: two")
        });
        server.tmux(&["set-option", "-p", "-t", &pane, "@agent_turn", "7"]);
        server.tmux(&["set-option", "-p", "-t", &pane, "@agent_state", "idle"]);
        waiting.join().unwrap()
    });
    shape("agent__prompt_wait", &server, &waited);
}

/// Types a line and Enter into a shell, and waits until it has run.
fn run_line(server: &TmuxServer, pane: &str, line: &str) {
    server.tmux(&[
        "send-keys",
        "-t",
        pane,
        &format!("{line}; echo line-ran"),
        "Enter",
    ]);
    server.wait_for("the line to run", WAIT, || {
        screen(server, pane).lines().any(|l| l == "line-ran")
    });
}

// ----------------------------------------------------- clients and the popup

/// A window named `name` whose pane is marked as an agent in `state`.
fn agent_window(server: &TmuxServer, name: &str, state: &str) -> String {
    let pane = server.new_window("main", name, "");
    mark(server, &pane, "claude", state);
    pane
}

#[test]
fn answers_with_an_attached_client() {
    let server = fresh();
    snap(
        &server,
        "notification__show_no_client",
        &["notification", "show", "hello"],
    );
    server.tmux(&["set-option", "-g", "@agent-wizard-notify", "off"]);
    snap(
        &server,
        "notification__show_disabled",
        &["notification", "show", "hello"],
    );
    server.tmux(&["set-option", "-gu", "@agent-wizard-notify"]);
    agent_window(&server, "blocked", "blocked"); // %1
    mark(&server, "%0", "claude", "done");
    let viewer = attach_client(&server, "main");
    snap(
        &server,
        "notification__show",
        &["notification", "show", "Build done", "--body", "all green"],
    );
    snap(&server, "watch__seen", &["watch", "seen"]);
    snap(
        &server,
        "notification__open_target",
        &["notification", "open-target"],
    );
    // `ui open` answers when the popup closes: closed from outside here.
    let opened = std::thread::scope(|scope| {
        let opening = scope.spawn(|| server.taw(&["ui", "open"]));
        server.wait_for("the popup", WAIT, || {
            screen(&viewer, "viewer").contains("tmux-agent-wizard")
        });
        let client = server.tmux(&["list-clients", "-F", "#{client_name}"]);
        server.tmux(&["display-popup", "-C", "-c", client.trim()]);
        opening.join().unwrap()
    });
    shape("ui__open", &server, &opened);
}

// --------------------------------------------------------- sessions and open

#[test]
fn session_answers() {
    let server = fresh();
    let first = folder(&server, "projects/api");
    let second = folder(&server, "oss/api");
    snap(
        &server,
        "session__open",
        &["session", "open", path_str(&first)],
    );
    snap(
        &server,
        "session__open_again",
        &["session", "open", path_str(&first)],
    );
    snap(
        &server,
        "session__open_collision",
        &["session", "open", path_str(&second)],
    );
    let site = folder(&server, "site");
    snap(&server, "open__json", &["open", "--json", path_str(&site)]);
    // Only the completed path: zoxide (when installed) has the folders
    // opened above.
    server.write_config("[sessions]\nzoxide = false\n");
    let projects = format!("{}/", path_str(first.parent().unwrap()));
    snap(
        &server,
        "session__folders",
        &["session", "folders", &projects],
    );
    server.write_config(
        "[sessions]\npre_create_hook = \"sh -c 'echo no thanks >&2; exit 3' hook\"\n",
    );
    let refused = folder(&server, "refused");
    snap(
        &server,
        "error__hook_refused",
        &["session", "open", path_str(&refused)],
    );
}

// ------------------------------------------------------- manifests and config

#[test]
fn manifest_answers() {
    let server = fresh();
    snap(&server, "manifest__list", &["manifest", "list"]);
    snap(&server, "manifest__show", &["manifest", "show", "claude"]);
    snap(&server, "manifest__reload", &["manifest", "reload"]);
}

#[test]
fn config_answers() {
    let server = fresh();
    let check = |name: &str| {
        shape(name, &server, &server.taw(&["config", "check", "--json"]));
        text_shape(
            &format!("{name}_text"),
            &server,
            &server.taw(&["config", "check"]),
        );
    };
    check("config__check_no_file");
    server.write_config("[ui]\ndepth = \"all\"\nagent_panel_sort = \"priority\"\n");
    check("config__check");
    snap(&server, "config__reload", &["config", "reload"]);
    server.write_config("[ui]\nshiny = true\n");
    check("config__check_warnings");
    server.write_config("[ui]\ndepth = \"everything\"\n\n[keys]\nfilter = \"prefix+g\"\n");
    check("config__check_errors");
    snap(&server, "config__reload_errors", &["config", "reload"]);
}

#[test]
fn sandbox_answers() {
    let server = fresh();
    server.write_config("[sandbox.agents]\nclaude = \"max\"\n");
    snap(&server, "sandbox__new", &["sandbox", "new", "max"]);
    let dir = server.config_dir().join("sandbox");
    std::fs::write(dir.join("relative"), "#!bash\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.join("relative"), std::fs::Permissions::from_mode(0o755)).unwrap();
    snap(&server, "sandbox__list", &["sandbox", "list"]);
    snap(&server, "sandbox__new_taken", &["sandbox", "new", "max"]);
}

#[test]
fn hooks_answers() {
    let server = fresh();
    server.write_config(
        "[hooks]\n\"agent.done\" = \"echo heard; echo a warning >&2\"\n\"agent.finished\" = \"true\"\npre_close = [\"true\"]\n",
    );
    snap(&server, "hooks__list", &["hooks", "list"]);
    snap(&server, "hooks__test", &["hooks", "test", "agent.done"]);
    snap(&server, "hooks__test_veto", &["hooks", "test", "pre_close"]);
    snap(
        &server,
        "hooks__test_nothing_hooked",
        &["hooks", "test", "tab.created"],
    );
    snap(&server, "hooks__log_empty", &["hooks", "log"]);
    snap(
        &server,
        "hooks__test_not_an_event",
        &["hooks", "test", "agent.finished"],
    );
}

#[test]
fn plugin_answers() {
    let server = fresh();
    let dir = server.dir.path().join("plugin");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("herdr-plugin.toml"),
        "id = \"acme.hello\"\nname = \"Hello\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.7.1\"\nplatforms = [\"linux\", \"macos\"]\n[[actions]]\nid = \"say\"\ntitle = \"Say hello\"\ncommand = [\"echo\", \"hello\"]\n[[events]]\non = \"tab.made\"\ncommand = [\"true\"]\n",
    )
    .unwrap();
    let path = dir.display().to_string();
    snap(&server, "plugin__link", &["plugin", "link", &path]);
    snap(&server, "plugin__list", &["plugin", "list"]);
    snap(
        &server,
        "plugin__disable",
        &["plugin", "disable", "acme.hello"],
    );
    snap(
        &server,
        "plugin__enable",
        &["plugin", "enable", "acme.hello"],
    );
    snap(
        &server,
        "plugin__action_list",
        &["plugin", "action", "list"],
    );
    snap(
        &server,
        "plugin__action_invoke",
        &["plugin", "action", "invoke", "say", "--pane", "%0"],
    );
    snap(&server, "plugin__log_list", &["plugin", "log", "list"]);
    snap(&server, "plugin__startup", &["plugin", "startup"]);
    snap(
        &server,
        "plugin__event",
        &["plugin", "event", "tab.created"],
    );
    snap(
        &server,
        "plugin__unlink",
        &["plugin", "unlink", "acme.hello"],
    );
    snap(
        &server,
        "plugin__not_found",
        &["plugin", "enable", "acme.hello"],
    );
}

// ------------------------------------------------------ the plugin, watchers

#[test]
fn plugin_and_watch_answers() {
    let server = fresh();
    snap(
        &server,
        "tmux__load",
        &["tmux", "load", "--bin", &taw_bin().display().to_string()],
    );
    server.wait_for("the watcher of %0", WAIT, || {
        server.taw(&["watch", "status"]).result()["watched"] == 1
    });
    snap(&server, "watch__status", &["watch", "status"]);
    snap(&server, "watch__attach_all", &["watch", "attach-all"]);
    snap(&server, "tmux__unload", &["tmux", "unload"]);
}

// -------------------------------------------------------------------- errors

#[test]
fn error_envelopes() {
    let server = fresh();
    snap(&server, "error__not_found", &["pane", "get", "%99"]);
    snap(
        &server,
        "error__invalid_argument",
        &["pane", "get", "bogus"],
    );
    snap(
        &server,
        "error__invalid_key",
        &["pane", "send-keys", "%0", "bogus"],
    );
    snap(
        &server,
        "error__invalid_regex",
        &["pane", "wait-output", "%0", "--regex", "("],
    );
    snap(
        &server,
        "error__timeout",
        &[
            "pane",
            "wait-output",
            "%0",
            "--match",
            "never-printed",
            "--timeout",
            "100",
        ],
    );
    snap(&server, "error__agent_not_found", &["agent", "get", "%0"]);
    let none = TmuxServer::empty();
    snap(&none, "error__server_not_running", &["pane", "list"]);
}
