//! The read verbs against a real tmux: workspace, tab and pane records in
//! herdr's shapes, hostile names intact, ids in both forms, and the errors.

use crate::common::TmuxServer;
use serde_json::Value;

const HOSTILE: &[&str] = &[
    "with space",
    "tab\there",
    "q\"uo'te",
    "hash #{session_name} #S",
    "semi;colon;",
    "ünïcødé 🙂",
    "$(touch pwned)",
];

/// A name as a tmux command-line word that tmux keeps as written: tmux
/// expands formats in new names, and reads a final `;` as a separator.
fn literal(name: &str) -> String {
    let name = name.replace('#', "##");
    match name.strip_suffix(';') {
        Some(head) => format!("{head}\\;"),
        None => name,
    }
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|item| item[key].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn workspaces_keep_hostile_names() {
    let server = TmuxServer::start();
    for name in HOSTILE {
        server.tmux(&["new-session", "-d", "-s", &literal(name)]);
    }
    let listed = server.taw(&["workspace", "list"]).result();
    assert_eq!(listed["type"], "workspace_list");
    let labels = names(&listed["workspaces"], "label");
    // tmux itself writes a tab in a name as \t; every other name is as given.
    let expected_tmux: Vec<String> = server
        .tmux(&["list-sessions", "-F", "#{session_name}"])
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(labels, expected_tmux);
    for name in HOSTILE.iter().filter(|n| !n.contains('\t')) {
        assert!(
            labels.iter().any(|l| l == name),
            "{name:?} missing from {labels:?}"
        );
    }
    assert!(!server.dir.path().join("home/pwned").exists());
    // herdr's fields, every one.
    let first = &listed["workspaces"][0];
    for field in [
        "workspace_id",
        "number",
        "label",
        "focused",
        "pane_count",
        "tab_count",
        "active_tab_id",
        "agent_status",
    ] {
        assert!(first.get(field).is_some(), "missing {field}: {first}");
    }
    assert_eq!(listed["workspaces"][1]["number"], 2);
}

#[test]
fn windows_and_panes_keep_hostile_names_and_titles() {
    let server = TmuxServer::start();
    for name in HOSTILE {
        server.tmux(&["new-window", "-d", "-t", "main:", "-n", &literal(name)]);
    }
    server.tmux(&["set-option", "-g", "allow-rename", "off"]);
    let tabs = server.taw(&["tab", "list", "--workspace", "w1"]).result();
    let labels = names(&tabs["tabs"], "label");
    for name in HOSTILE.iter().filter(|n| !n.contains('\t')) {
        assert!(
            labels.iter().any(|l| l == name),
            "{name:?} missing from {labels:?}"
        );
    }
    // A title set with select-pane -T, any text at all.
    let title = "⠧ Agents lab | \"work\" #{pane_id} ;";
    server.tmux(&["select-pane", "-t", "main:0.0", "-T", &literal(title)]);
    let pane = server.taw(&["pane", "get", "%0"]).result();
    assert_eq!(pane["pane"]["terminal_title"], title);
    assert_eq!(
        pane["pane"]["terminal_title_stripped"],
        "Agents lab | \"work\" #{pane_id} ;"
    );
}

/// A tab's label is herdr's: the name it was given, else its place in
/// its workspace from 1, not the program tmux names the window after
/// (herdr-automatic-rename names only a tab labelled by a number). The
/// window's name is beside it, and a rename gives the label.
#[test]
fn a_tab_is_labelled_by_its_given_name_else_its_place() {
    let server = TmuxServer::start();
    server.tmux(&["new-window", "-d", "-t", "main:5", "-n", "logs"]);
    server.tmux(&["new-window", "-d", "-t", "main:7"]);
    let tabs = server.taw(&["tab", "list", "--workspace", "w1"]).result();
    assert_eq!(names(&tabs["tabs"], "label"), ["1", "logs", "3"], "{tabs}");
    let names_now = names(&tabs["tabs"], "name");
    assert_eq!(names_now[1], "logs");
    assert!(!names_now[2].is_empty() && names_now[2] != "3", "{tabs}");
    let third = tabs["tabs"][2]["tab_id"].as_str().unwrap().to_string();
    let renamed = server.taw(&["tab", "rename", &third, "tests"]).result();
    assert_eq!(renamed["tab"]["label"], "tests");
    let got = server.taw(&["tab", "get", &third]).result();
    assert_eq!(got["tab"]["label"], "tests");
    // tmux naming it after its program again: its place again.
    server.tmux(&["set-option", "-w", "-t", "main:7", "automatic-rename", "on"]);
    let got = server.taw(&["tab", "get", &third]).result();
    assert_eq!(got["tab"]["label"], "3", "{got}");
}

#[test]
fn pane_ids_both_ways_give_the_same_record() {
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    server.tmux(&["new-session", "-d", "-s", "second"]);
    let panes = server.taw(&["pane", "list"]).result();
    assert_eq!(panes["type"], "pane_list");
    let list = panes["panes"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    for pane in list {
        let public = pane["pane_id"].as_str().unwrap();
        let tmux_id = pane["tmux_id"].as_str().unwrap();
        let by_public = server.taw(&["pane", "get", public]).result();
        let by_tmux = server.taw(&["pane", "get", tmux_id]).result();
        assert_eq!(by_public, by_tmux);
        assert_eq!(by_public["type"], "pane_info");
        assert_eq!(&by_public["pane"], pane);
        // The public number is tmux's plus one.
        let n: u64 = tmux_id[1..].parse().unwrap();
        assert!(
            public.ends_with(&format!(":p{}", n + 1)),
            "{public} {tmux_id}"
        );
    }
    // herdr's pane fields, every one, agent fields null without an agent.
    let pane = &list[0];
    for field in [
        "pane_id",
        "terminal_id",
        "workspace_id",
        "tab_id",
        "focused",
        "cwd",
        "foreground_cwd",
        "label",
        "agent",
        "title",
        "terminal_title",
        "terminal_title_stripped",
        "display_agent",
        "agent_status",
        "state_labels",
        "tokens",
        "agent_session",
        "scroll",
        "revision",
    ] {
        assert!(pane.get(field).is_some(), "missing {field}: {pane}");
    }
    assert_eq!(pane["agent"], Value::Null);
    assert_eq!(pane["agent_status"], "unknown");
    assert_eq!(pane["workspace_id"], "w1");
    assert_eq!(pane["tab_id"], "w1:t1");
    // The second session's pane is under w2.
    assert!(list[2]["pane_id"].as_str().unwrap().starts_with("w2:p"));
}

#[test]
fn tabs_and_workspaces_both_ways() {
    let server = TmuxServer::start();
    server.tmux(&["new-window", "-d", "-t", "main:", "-n", "second"]);
    let by_public = server.taw(&["tab", "get", "w1:t2"]).result();
    let by_tmux = server.taw(&["tab", "get", "@1"]).result();
    let by_position = server.taw(&["tab", "get", "w1:2"]).result();
    assert_eq!(by_public, by_tmux);
    assert_eq!(by_public, by_position);
    assert_eq!(by_public["tab"]["label"], "second");
    assert_eq!(by_public["type"], "tab_info");
    let ws = server.taw(&["workspace", "get", "w1"]).result();
    assert_eq!(ws, server.taw(&["workspace", "get", "$0"]).result());
    assert_eq!(ws, server.taw(&["workspace", "get", "1"]).result());
    assert_eq!(ws["workspace"]["tab_count"], 2);
    assert_eq!(ws["workspace"]["active_tab_id"], "w1:t1");
}

/// `pane get` reads its pane alone; a window linked into two sessions
/// still answers each session's record of it.
#[test]
fn a_pane_of_a_linked_window_has_each_sessions_record() {
    let server = TmuxServer::start();
    server.tmux(&["new-session", "-d", "-s", "second"]);
    server.tmux(&["link-window", "-s", "main:0", "-t", "second:5"]);
    // The list has the pane once, under the session tmux names first.
    let list = server.taw(&["pane", "list"]).result();
    let row = list["panes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pane| pane["tmux_id"] == "%0")
        .unwrap()
        .clone();
    assert_eq!(row["pane_id"], "w1:p1");
    assert_eq!(server.taw(&["pane", "get", "w1:p1"]).result()["pane"], row);
    assert_eq!(server.taw(&["pane", "get", "%0"]).result()["pane"], row);
    // The other session's record of it.
    let there = server.taw(&["pane", "get", "w2:p1"]).result();
    assert_eq!(there["pane"]["pane_id"], "w2:p1");
    assert_eq!(there["pane"]["workspace_id"], "w2");
    assert_eq!(there["pane"]["tab_id"], "w2:t1");
}

#[test]
fn missing_things_are_not_found_and_bad_ids_invalid() {
    let server = TmuxServer::start();
    for (verb, id) in [
        (["pane", "get"], "%99"),
        (["pane", "get"], "w1:p99"),
        (["pane", "get"], "w2:p1"),
        (["tab", "get"], "@42"),
        (["tab", "get"], "w1:t9"),
        (["workspace", "get"], "w9"),
        (["workspace", "get"], "$7"),
    ] {
        let run = server.taw(&[verb[0], verb[1], id]);
        assert_eq!(run.error_code(), "not_found", "{verb:?} {id}: {run:?}");
        let envelope = run.error_json();
        assert_eq!(envelope["id"], format!("cli:{}:{}", verb[0], verb[1]));
        assert!(envelope["error"]["message"].as_str().unwrap().contains(id));
        assert!(run.stdout.is_empty());
    }
    for (verb, id) in [
        (["pane", "get"], "bogus"),
        (["pane", "get"], "w1:x1"),
        (["tab", "get"], "w1"),
        (["workspace", "get"], "main"),
    ] {
        let run = server.taw(&[verb[0], verb[1], id]);
        assert_eq!(run.error_code(), "invalid_argument", "{verb:?} {id}");
    }
}

#[test]
fn no_server_is_server_not_running() {
    let server = TmuxServer::empty();
    for verb in [
        &["pane", "list"][..],
        &["workspace", "list"],
        &["tab", "list"],
    ] {
        let run = server.taw(verb);
        assert_eq!(run.error_code(), "server_not_running", "{run:?}");
        let message = run.error_json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(&server.socket), "{message}");
    }
}

#[test]
fn usage_errors_exit_two_without_an_envelope() {
    let server = TmuxServer::start();
    let run = server.taw(&["pane", "frobnicate"]);
    assert_eq!(run.status, 2);
    assert!(run.stdout.is_empty());
    let run = server.taw(&["pane", "get"]);
    assert_eq!(run.status, 2);
    // An unknown flag after -L: the usage shows -L as the choice it is.
    let run = server.taw(&["--bogus"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr
            .contains("Usage: taw [-L NAME | -S PATH] <GROUP> <VERB>"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("taw -L <NAME> <COMMAND>"),
        "{}",
        run.stderr
    );
}

#[test]
fn help_lists_every_verb_and_version_prints() {
    let server = TmuxServer::empty();
    let help = server.taw_bare(&["--help"], &[]);
    assert_eq!(help.status, 0);
    for verb in [
        "taw workspace list",
        "taw workspace get",
        "taw tab list",
        "taw tab get",
        "taw pane list",
        "taw pane get",
        "taw pane current",
        "taw config check",
        "taw config reload",
        "taw tmux load",
        "taw tmux unload",
    ] {
        assert!(help.stdout.contains(verb), "{verb} missing from --help");
    }
    let version = server.taw_bare(&["--version"], &[]);
    assert_eq!(version.status, 0);
    assert!(version.stdout.starts_with("taw "), "{}", version.stdout);
}

#[test]
fn pane_current_in_a_pane_and_outside() {
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    let socket = server.socket_path();
    // As if run in %1 of this server.
    let tmux_env = format!("{socket},1,0");
    let run = server.taw_bare(
        &["pane", "current"],
        &[("TMUX", &tmux_env), ("TMUX_PANE", "%1")],
    );
    let result = run.result();
    assert_eq!(result["type"], "pane_current");
    assert_eq!(result["pane"]["tmux_id"], "%1");
    // --current outside any pane says so.
    let run = server.taw(&["pane", "current", "--current"]);
    assert_eq!(run.error_code(), "not_found");
    assert!(run.stderr.contains("no current pane"));
    // Without either, the pane in front.
    let run = server.taw(&["pane", "current"]).result();
    assert_eq!(run["pane"]["focused"], true);
    // --pane names one.
    let run = server.taw(&["pane", "current", "--pane", "w1:p2"]).result();
    assert_eq!(run["pane"]["tmux_id"], "%1");
}

#[test]
fn socket_from_environment_and_flags() {
    let server = TmuxServer::start();
    let socket = server.socket_path();
    let by_env = server.taw_bare(&["workspace", "list"], &[("TAW_TMUX_SOCKET", &socket)]);
    assert_eq!(by_env.result()["workspaces"][0]["label"], "main");
    let by_path = server.taw_bare(&["-S", &socket, "workspace", "list"], &[]);
    assert_eq!(by_path.result()["workspaces"][0]["label"], "main");
    let tmux_env = format!("{socket},1,0");
    let by_tmux = server.taw_bare(&["workspace", "list"], &[("TMUX", &tmux_env)]);
    assert_eq!(by_tmux.result()["workspaces"][0]["label"], "main");
}

#[test]
fn agent_options_show_in_records_and_roll_up() {
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    server.tmux(&["set-option", "-p", "-t", "%0", "@agent_kind", "claude"]);
    server.tmux(&["set-option", "-p", "-t", "%0", "@agent_state", "working"]);
    server.tmux(&["set-option", "-p", "-t", "%1", "@agent_kind", "codex"]);
    server.tmux(&["set-option", "-p", "-t", "%1", "@agent_state", "blocked"]);
    let pane = server.taw(&["pane", "get", "%0"]).result();
    assert_eq!(pane["pane"]["agent"], "claude");
    assert_eq!(pane["pane"]["agent_status"], "working");
    let tab = server.taw(&["tab", "get", "@0"]).result();
    assert_eq!(tab["tab"]["agent_status"], "blocked");
    let ws = server.taw(&["workspace", "get", "w1"]).result();
    assert_eq!(ws["workspace"]["agent_status"], "blocked");
}
