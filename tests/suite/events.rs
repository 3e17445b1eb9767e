//! Events and `[hooks]` against a real tmux with the plugin loaded: each
//! hand action and each verb fires its events once, with herdr's payload;
//! closes under load are each told once; a pre_close veto keeps what it
//! refuses; `taw hooks test|list|log`.

use crate::common::recorder::Recorder;
use crate::common::{TmuxServer, attach_client};
use serde_json::Value;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

fn loaded_with(server: &TmuxServer, config: &str) {
    server.write_config(config);
    server.load_plugin();
}

fn public_pane(server: &TmuxServer, pane: &str) -> String {
    let record = server.taw(&["pane", "get", pane]).result();
    record["pane"]["pane_id"].as_str().unwrap().to_string()
}

const ALL: &[&str] = &[
    "workspace.created",
    "workspace.closed",
    "workspace.renamed",
    "workspace.focused",
    "workspace.updated",
    "tab.created",
    "tab.closed",
    "tab.renamed",
    "tab.focused",
    "tab.moved",
    "pane.created",
    "pane.closed",
    "pane.exited",
    "pane.focused",
    "pane.moved",
    "layout.updated",
    "pane.updated",
];

/// How long a second telling of an event has to come before a test says
/// there is none: hooks run within tens of milliseconds of their event,
/// and a second run would come as soon. What must not happen leaves no
/// sign to wait for.
const NO_SECOND: Duration = Duration::from_millis(300);

/// A server with the plugin loaded, and every event of [`ALL`] recorded.
fn recorded_server() -> (TmuxServer, Recorder) {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    loaded_with(&server, &recorder.config(ALL));
    (server, recorder)
}

/// Nothing ran what a name held, and nothing is heard twice (focus and
/// pane updates may be, and a tab moved back), for [`NO_SECOND`].
fn nothing_twice_nor_run(server: &TmuxServer, recorder: &Recorder) {
    let twice = || {
        ALL.iter().find_map(|event| {
            let mut seen = std::collections::BTreeSet::new();
            recorder.heard(event).iter().find_map(|h| {
                let key = h.input["data"].to_string();
                // A tab moved back where it was is told as it was the
                // first time (the tests of moves count them exactly).
                let may_repeat = matches!(
                    *event,
                    "tab.focused" | "pane.focused" | "pane.updated" | "tab.moved"
                );
                (!seen.insert(key.clone()) && !may_repeat).then(|| format!("{event} twice: {key}"))
            })
        })
    };
    server.stays_for("nothing heard twice, nothing run", NO_SECOND, || {
        if let Some(twice) = twice() {
            panic!("{twice}");
        }
        !server.dir.path().join("home/pwned").exists() && !recorder.dir.join("pwned").exists()
    });
}

/// Splits, windows, renames, focus and a close by hand.
#[test]
fn hand_actions_fire_each_event_once() {
    let (server, recorder) = recorded_server();

    // A split by hand: pane.created with the pane's record.
    let split = server.tmux(&["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main"]);
    let split = split.trim();
    let created = recorder.once(&server, "pane.created", "tmux_id", split);
    assert_eq!(created.input["data"]["type"], "pane_created");
    assert_eq!(created.input["event"], "pane.created");
    assert_eq!(created.env["TAW_PANE"], split);
    assert_eq!(created.env["TAW_SESSION"], "=main:");
    assert!(created.env["TMUX"].contains(&server.socket_path_of_server()));
    assert_eq!(created.input["workspace_label"], "main");
    let window = server.display(split, "#{window_id}");
    recorder.once(
        &server,
        "layout.updated",
        "tab_id",
        server.taw(&["tab", "get", &window]).result()["tab"]["tab_id"]
            .as_str()
            .unwrap(),
    );

    // One select-layout, which tmux tells twice: one layout.updated.
    let before = recorder.heard("layout.updated").len();
    server.tmux(&["select-layout", "-t", split, "even-vertical"]);
    server.wait_for("layout.updated", WAIT, || {
        recorder.heard("layout.updated").len() > before
    });
    server.stays_for("one layout.updated", NO_SECOND, || {
        recorder.heard("layout.updated").len() == before + 1
    });

    // A window by hand: tab.created and its first pane.
    let pane = server.new_window("main", "second", "");
    let window = server.display(&pane, "#{window_id}");
    let tab = recorder.once(&server, "tab.created", "tmux_id", &window);
    assert_eq!(tab.input["data"]["tab"]["label"], "second");
    recorder.once(&server, "pane.created", "tmux_id", &pane);

    // Renames, focus.
    server.tmux(&["rename-window", "-t", &window, "renamed $(touch pwned) $3"]);
    let renamed = recorder.once(&server, "tab.renamed", "label", "renamed $(touch pwned) $3");
    assert_eq!(renamed.input["data"]["type"], "tab_renamed");
    server.tmux(&["select-window", "-t", &window]);
    let first_window = window.clone();
    let first_tab = server.taw(&["tab", "get", &first_window]).result()["tab"]["tab_id"]
        .as_str()
        .unwrap()
        .to_string();
    recorder.once(&server, "tab.focused", "tab_id", &first_tab);
    server.tmux(&["select-pane", "-t", split]);
    let split_id = public_pane(&server, split);
    recorder.once(&server, "pane.focused", "pane_id", &split_id);

    // A close by hand: pane.closed with the ids it had.
    server.tmux(&["kill-pane", "-t", split]);
    let closed = recorder.once(&server, "pane.closed", "pane_id", &split_id);
    assert_eq!(closed.input["data"]["workspace_id"], "w1");
    assert_eq!(closed.env["TAW_PANE"], split);

    nothing_twice_nor_run(&server, &recorder);
}

/// A window moved by hand within its session (move-window, prefix + .,
/// swap-window) is one tab.moved for each window whose place among the
/// session's windows changed, with herdr's payload, and no create or
/// close: a window there before the plugin loaded and one made after
/// alike. A new index with the same order moves nothing, as herdr's tabs
/// have no index. One moved to another session is a new tab there and a
/// close here.
#[test]
fn a_window_moved_by_hand_fires_tab_moved_once() {
    let server = TmuxServer::start();
    let older = server.new_window("main", "older", "");
    let older = server.display(&older, "#{window_id}");
    let recorder = Recorder::new(&server);
    loaded_with(&server, &recorder.config(ALL));
    let newer = server.new_window("main", "newer", "");
    let newer = server.display(&newer, "#{window_id}");
    let tab_of = |window: &str| {
        server.taw(&["tab", "get", window]).result()["tab"]["tab_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let newer_tab = tab_of(&newer);
    recorder.once(&server, "tab.created", "tab_id", &newer_tab);

    // main:0, older, newer → older, main:0, newer. A tab's id is its
    // place: it is the one the tab has after the move.
    server.tmux(&["move-window", "-b", "-s", &older, "-t", "main:0"]);
    let older_tab = tab_of(&older);
    let moved = recorder.once(&server, "tab.moved", "tab_id", &older_tab);
    assert_eq!(moved.input["data"]["type"], "tab_moved");
    assert_eq!(moved.input["data"]["workspace_id"], "w1");
    assert_eq!(moved.input["data"]["insert_index"], 0);
    let tabs = moved.input["data"]["tabs"].as_array().unwrap();
    assert_eq!(tabs.len(), 3);
    assert_eq!(tabs[0]["tab_id"], older_tab.as_str());

    // A swap of the two apart: both moved, main:0 between them did not.
    // tmux 3.3 runs no hook for a swap-window: it is told at the
    // session's next one, here a window selected.
    let first = server.display("main:1", "#{window_id}");
    server.tmux(&["swap-window", "-s", &older, "-t", &newer]);
    server.tmux(&["select-window", "-t", &first]);
    server.wait_for("both told", WAIT, || recorder.heard("tab.moved").len() == 3);
    let told: Vec<(String, Value)> = recorder.heard("tab.moved")[1..]
        .iter()
        .map(|h| {
            (
                h.input["tab_id"].as_str().unwrap().to_string(),
                h.input["data"]["insert_index"].clone(),
            )
        })
        .collect();
    assert!(told.contains(&(tab_of(&newer), 0.into())), "{told:?}");
    assert!(told.contains(&(tab_of(&older), 2.into())), "{told:?}");
    // Back, with -d.
    server.tmux(&["swap-window", "-d", "-s", &older, "-t", &newer]);
    server.tmux(&["select-window", "-t", &newer]);
    server.wait_for("the swap told", WAIT, || {
        recorder.heard("tab.moved").len() == 5
    });
    // A new index, the same order: no move.
    server.tmux(&["move-window", "-s", &newer, "-t", "main:7"]);
    server.stays_for("no tab made, closed or moved", NO_SECOND, || {
        recorder.heard("tab.created").len() == 1
            && recorder.heard("tab.closed").is_empty()
            && recorder.heard("tab.moved").len() == 5
    });

    // To another session: a tab there, a close here, no move.
    server.tmux(&["new-session", "-d", "-s", "other"]);
    let newer_tab = tab_of(&newer);
    server.tmux(&["move-window", "-s", &newer, "-t", "other:"]);
    recorder.once(&server, "tab.closed", "tab_id", &newer_tab);
    server.wait_for("the tab in the other session", WAIT, || {
        recorder
            .heard("tab.created")
            .iter()
            .any(|h| h.input["data"]["tab"]["tmux_id"] == newer.as_str())
    });
    assert_eq!(recorder.heard("tab.moved").len(), 5);
    nothing_twice_nor_run(&server, &recorder);
    // And back, once the unlink is told: a tab made in main again (the
    // roster had kept it as main's, and took the return for a move), the
    // one tab.created told twice, as the tab was made there twice.
    let made_of_newer = || {
        recorder
            .heard("tab.created")
            .iter()
            .filter(|h| h.input["data"]["tab"]["tmux_id"] == newer.as_str())
            .count()
    };
    let before = made_of_newer();
    let closes = recorder.heard("tab.closed").len();
    server.tmux(&["move-window", "-s", &newer, "-t", "main:"]);
    server.wait_for("the tab back in main", WAIT, || {
        made_of_newer() == before + 1 && recorder.heard("tab.closed").len() == closes + 1
    });
    assert_eq!(recorder.heard("tab.moved").len(), 5);
}

/// A process that ends: pane.exited and its tab's close, never pane.closed.
#[test]
fn a_process_that_ends_by_hand_fires_pane_exited_once() {
    let (server, recorder) = recorded_server();
    // It ends when the test says, once its ids are read.
    let go = server.dir.path().join("go");
    let exits = server.new_window(
        "main",
        "exits",
        &format!("until [ -e '{}' ]; do sleep 0.05; done", go.display()),
    );
    let exits_id = public_pane(&server, &exits);
    let exits_window = server.display(&exits, "#{window_id}");
    let exits_tab = server.taw(&["tab", "get", &exits_window]).result()["tab"]["tab_id"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::write(&go, "").unwrap();
    recorder.once(&server, "pane.exited", "pane_id", &exits_id);
    recorder.once(&server, "tab.closed", "tab_id", &exits_tab);
    assert!(
        recorder
            .about("pane.closed", "pane_id", &exits_id)
            .is_empty()
    );
    nothing_twice_nor_run(&server, &recorder);
}

/// A session by hand, with a name a shell would run: as itself.
#[test]
fn a_session_by_hand_fires_each_event_once() {
    let (server, recorder) = recorded_server();
    let name = "s$(touch pwned)`id`$3";
    server.tmux(&["new-session", "-d", "-s", name]);
    let made = recorder.once(&server, "workspace.created", "label", name);
    assert_eq!(made.env["TAW_SESSION"], format!("={name}:"));
    let workspace = made.input["data"]["workspace"]["workspace_id"]
        .as_str()
        .unwrap()
        .to_string();
    server.tmux(&["rename-session", "-t", name, "other"]);
    recorder.once(&server, "workspace.renamed", "workspace_id", &workspace);
    let first = server.tmux(&["list-panes", "-t", "other", "-F", "#{pane_id}"]);
    let first_id = public_pane(&server, first.trim());
    server.tmux(&["kill-session", "-t", "other"]);
    recorder.once(&server, "workspace.closed", "workspace_id", &workspace);
    recorder.once(&server, "pane.closed", "pane_id", &first_id);
    nothing_twice_nor_run(&server, &recorder);
}

/// A session whose name a shell would expand (`~` a home folder, `{a,b}`
/// two words where /bin/sh is bash) is told closed under its own name:
/// tmux hands the name over through a shell line.
#[test]
fn a_closed_sessions_name_reaches_its_event_as_it_is() {
    let (server, recorder) = recorded_server();
    for name in ["~", "{a,b}"] {
        server.tmux(&["new-session", "-d", "-s", name]);
        let made = recorder.once(&server, "workspace.created", "label", name);
        let workspace = made.input["data"]["workspace"]["workspace_id"]
            .as_str()
            .unwrap()
            .to_string();
        server.tmux(&["kill-session", "-t", &format!("={name}")]);
        let closed = recorder.once(&server, "workspace.closed", "workspace_id", &workspace);
        assert_eq!(closed.input["workspace_label"], name, "{:#?}", closed.input);
    }
    nothing_twice_nor_run(&server, &recorder);
}

/// A client going to another session: workspace.focused.
#[test]
fn a_client_going_to_another_session_fires_workspace_focused_once() {
    let (server, recorder) = recorded_server();
    server.tmux(&["new-session", "-d", "-s", "elsewhere"]);
    let viewer = attach_client(&server, "main");
    let client = server.tmux(&["list-clients", "-F", "#{client_name}"]);
    server.tmux(&["switch-client", "-c", client.trim(), "-t", "elsewhere"]);
    let elsewhere_session = server.display("elsewhere:", "#{session_id}");
    let elsewhere = server
        .taw(&["workspace", "get", &elsewhere_session])
        .result();
    let elsewhere_id = elsewhere["workspace"]["workspace_id"].as_str().unwrap();
    recorder.once(&server, "workspace.focused", "workspace_id", elsewhere_id);
    drop(viewer);
    nothing_twice_nor_run(&server, &recorder);
}

/// In sessions grouped, `agent focus` brings the agent in front in the
/// client's own session: no switch, so no `workspace.focused` (the first
/// session's row was taken for the pane's, and the client was switched to
/// the session it showed).
#[test]
fn a_grouped_session_makes_no_pane_and_a_focus_there_switches_nothing() {
    let (server, recorder) = recorded_server();
    let pane = server.reported_agent("main", "agent", "idle");
    server.tmux(&["new-session", "-d", "-t", "main", "-s", "view"]);
    server.tmux(&["select-window", "-t", "view:0"]);
    let _viewer = crate::common::attach_client(&server, "view");
    server.wait_for("the attach's workspace.focused", WAIT, || {
        !recorder.heard("workspace.focused").is_empty()
    });
    // The grouped session made no pane: its workspace.created alone.
    server.wait_for("view's workspace.created", WAIT, || {
        recorder.heard("workspace.created").len() == 1
    });
    let focused_before = recorder.heard("workspace.focused").len();
    server.taw(&["agent", "focus", &pane]).result();
    assert_eq!(server.display("view:", "#{pane_id}"), pane);
    let clients = server.tmux(&["list-clients", "-F", "#{session_name}"]);
    assert_eq!(clients.trim(), "view");
    server.stays_for("no workspace.focused", NO_SECOND, || {
        recorder.heard("workspace.focused").len() == focused_before
    });
    let made: Vec<_> = recorder
        .heard("pane.created")
        .iter()
        .map(|h| h.input["data"]["pane"]["tmux_id"].clone())
        .collect();
    assert_eq!(made, vec![serde_json::Value::from(pane.as_str())]);
}

/// A pane made between the install of the roster's hooks and the
/// roster's start (a script making panes as taw loads) left a count the
/// start took for a roster already kept: every pane made before was then
/// unknown, and its close told nothing. The start has its own mark.
#[test]
fn a_pane_made_as_the_roster_starts_leaves_the_others_known() {
    let server = TmuxServer::start();
    let older = server.new_window("main", "older", "");
    let newer = server.new_window("main", "newer", "");
    // What the pane's hook entry wrote before the start, as it runs it.
    let session = server.display(&newer, "#{session_id}");
    server.tmux(&[
        "set-option",
        "-g",
        "@agent_wizard_panes",
        &format!(" {newer}:{session}"),
    ]);
    server.tmux(&["set-option", "-g", "@agent_wizard_panes_generation", "1"]);
    let recorder = Recorder::new(&server);
    loaded_with(&server, &recorder.config(&["pane.closed"]));
    let older_id = public_pane(&server, &older);
    server.tmux(&["kill-pane", "-t", &older]);
    recorder.once(&server, "pane.closed", "pane_id", &older_id);
}

/// A workspace made by a verb, with no focus: its id.
fn workspace_made(server: &TmuxServer, label: &str) -> String {
    let made = server
        .taw(&["workspace", "create", "--label", label, "--no-focus"])
        .result();
    made["workspace"]["workspace_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The workspace verbs: create, report-metadata, rename, close.
#[test]
fn workspace_verbs_fire_each_event_once() {
    let (server, recorder) = recorded_server();
    let workspace = workspace_made(&server, "api");
    let heard = recorder.once(&server, "workspace.created", "workspace_id", &workspace);
    assert_eq!(heard.input["data"]["workspace"]["label"], "api");
    server
        .taw(&[
            "workspace",
            "report-metadata",
            &workspace,
            "--source",
            "t",
            "--token",
            "build=green",
        ])
        .result();
    recorder.once(&server, "workspace.updated", "workspace_id", &workspace);
    server
        .taw(&["workspace", "rename", &workspace, "web"])
        .result();
    recorder.once(&server, "workspace.renamed", "label", "web");
    server.taw(&["workspace", "close", &workspace]).result();
    recorder.once(&server, "workspace.closed", "workspace_id", &workspace);
    nothing_twice_nor_run(&server, &recorder);
}

/// The tab and pane verbs, in a workspace of their own, which closes
/// last: the pane and the tab closed before it are told closed once.
#[test]
fn tab_and_pane_verbs_fire_each_event_once() {
    let (server, recorder) = recorded_server();
    let workspace = workspace_made(&server, "api");
    let tab = server
        .taw(&[
            "tab",
            "create",
            "--workspace",
            &workspace,
            "--label",
            "build",
        ])
        .result();
    let tab_id = tab["tab"]["tab_id"].as_str().unwrap().to_string();
    recorder.once(&server, "tab.created", "tab_id", &tab_id);
    server.taw(&["tab", "rename", &tab_id, "tests"]).result();
    recorder.once(&server, "tab.renamed", "label", "tests");

    let root = tab["root_pane"]["pane_id"].as_str().unwrap().to_string();
    let split = server
        .taw(&["pane", "split", &root, "--direction", "right"])
        .result();
    let pane_id = split["pane"]["pane_id"].as_str().unwrap().to_string();
    recorder.once(&server, "pane.created", "pane_id", &pane_id);
    // Focus moves: a pane (the split is made without the focus, so the
    // split pane is selected first), then the other tab of the workspace.
    let split_tmux = split["pane"]["tmux_id"].as_str().unwrap().to_string();
    server.tmux(&["select-pane", "-t", &split_tmux]);
    recorder.once(&server, "pane.focused", "pane_id", &pane_id);
    server
        .taw(&["pane", "focus", "--pane", &pane_id, "--direction", "left"])
        .result();
    recorder.once(&server, "pane.focused", "pane_id", &root);
    let active =
        server.taw(&["workspace", "get", &workspace]).result()["workspace"]["active_tab_id"]
            .as_str()
            .unwrap()
            .to_string();
    let other = server
        .taw(&["tab", "list", "--workspace", &workspace])
        .result()["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tab_id"].as_str().unwrap().to_string())
        .find(|t| *t != active)
        .unwrap();
    server.taw(&["tab", "focus", &other]).result();
    recorder.once(&server, "tab.focused", "tab_id", &other);
    // A label: the pane's watcher tells pane.updated.
    server.taw(&["pane", "rename", &root, "helper"]).result();
    server.wait_for("pane.updated with the label", WAIT, || {
        recorder
            .heard("pane.updated")
            .iter()
            .any(|h| h.input["data"]["pane"]["label"] == "helper")
    });
    // Metadata reported for it: the same, with what it shows now.
    server
        .taw(&[
            "pane",
            "report-metadata",
            &root,
            "--source",
            "custom:ui",
            "--title",
            "reviewing",
            "--token",
            "pr=42",
        ])
        .result();
    server.wait_for("pane.updated with the metadata", WAIT, || {
        recorder.heard("pane.updated").iter().any(|h| {
            let pane = &h.input["data"]["pane"];
            pane["title"] == "reviewing" && pane["tokens"]["pr"] == "42"
        })
    });

    server.taw(&["pane", "close", &pane_id]).result();
    recorder.once(&server, "pane.closed", "pane_id", &pane_id);
    server.taw(&["tab", "close", &tab_id]).result();
    recorder.once(&server, "tab.closed", "tab_id", &tab_id);
    server.taw(&["workspace", "close", &workspace]).result();
    recorder.once(&server, "workspace.closed", "workspace_id", &workspace);
    server.stays_for("each close told once", NO_SECOND, || {
        recorder.about("pane.closed", "pane_id", &pane_id).len() == 1
            && recorder.about("tab.closed", "tab_id", &tab_id).len() == 1
    });
}

#[test]
fn a_hundred_closes_from_ten_loops_are_each_told_once() {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    loaded_with(&server, &recorder.config(&["pane.closed", "pane.exited"]));
    let killed = std::sync::Mutex::new(Vec::new());
    let exited = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..10 {
            scope.spawn(|| {
                for _ in 0..10 {
                    let pane = server.new_window("main", "k", "sleep 60");
                    server.tmux(&["kill-pane", "-t", &pane]);
                    killed.lock().unwrap().push(pane);
                }
            });
        }
        for _ in 0..2 {
            scope.spawn(|| {
                for _ in 0..5 {
                    let pane = server.new_window("main", "e", "sleep 0.2");
                    exited.lock().unwrap().push(pane);
                }
            });
        }
    });
    let killed = killed.into_inner().unwrap();
    let exited = exited.into_inner().unwrap();
    let panes_of = |event: &str| -> Vec<String> {
        recorder
            .heard(event)
            .iter()
            .map(|h| h.env.get("TAW_PANE").cloned().unwrap_or_default())
            .collect()
    };
    server.wait_for(
        "100 pane.closed and 10 pane.exited",
        Duration::from_secs(30),
        || panes_of("pane.closed").len() >= 100 && panes_of("pane.exited").len() >= 10,
    );
    server.stays_for("no pane told of twice", BURST_QUIET, || {
        panes_of("pane.closed").len() == 100 && panes_of("pane.exited").len() == 10
    });
    let mut closed = panes_of("pane.closed");
    closed.sort();
    let mut expected = killed.clone();
    expected.sort();
    assert_eq!(closed, expected, "each killed pane once, and no other");
    let mut told_exits = panes_of("pane.exited");
    told_exits.sort();
    let mut expected = exited.clone();
    expected.sort();
    assert_eq!(told_exits, expected);
}

/// After a hundred and ten hooks at once, how long a second telling has
/// to trail the last: the hooks queue behind each other, so longer than
/// [`NO_SECOND`].
const BURST_QUIET: Duration = Duration::from_millis(500);

/// Time enough for a pane's watcher to take a report and run what it
/// fires.
const REPORT_TAKEN: Duration = Duration::from_millis(500);

/// With remain-on-exit the pane stays: pane.exited, and no close.
#[test]
fn a_pane_that_stays_after_its_program_ends_is_told_exited_once() {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    loaded_with(&server, &recorder.config(&["pane.closed", "pane.exited"]));
    let panes_of = |event: &str| -> Vec<String> {
        recorder
            .heard(event)
            .iter()
            .map(|h| h.env.get("TAW_PANE").cloned().unwrap_or_default())
            .collect()
    };
    server.tmux(&["set-option", "-gw", "remain-on-exit", "on"]);
    let stays = server.new_window("main", "stays", "sleep 0.2");
    server.wait_for("pane.exited of a pane that stays", WAIT, || {
        panes_of("pane.exited").contains(&stays)
    });
    assert_eq!(server.display(&stays, "#{pane_dead}"), "1");
    server.stays_for("one pane.exited, no pane.closed", NO_SECOND, || {
        !panes_of("pane.closed").contains(&stays)
            && panes_of("pane.exited")
                .iter()
                .filter(|p| **p == stays)
                .count()
                == 1
    });
}

fn refusing_config(recorder: &Recorder) -> String {
    format!(
        "{}\"pre_close\" = \"echo \\\"not while $TAW_CLOSING $TAW_PANE runs\\\" >&2; exit 1\"\n",
        recorder.config(&["pane.closed"])
    )
}

#[test]
fn a_pre_close_that_says_no_keeps_everything() {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    loaded_with(&server, &refusing_config(&recorder));
    let pane = server.new_window("main", "keep", "");
    let window = server.display(&pane, "#{window_id}");
    for (args, what) in [
        (vec!["pane", "close", pane.as_str()], "pane"),
        (vec!["tab", "close", window.as_str()], "window"),
        (vec!["workspace", "close", "w1"], "session"),
    ] {
        let run = server.taw(&args);
        assert_eq!(run.error_code(), "hook_refused", "{run:?}");
        let message = run.error_json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains("pre_close"), "{message}");
        assert!(message.contains(&format!("not while {what}")), "{message}");
    }
    server.stays_for("everything kept", Duration::from_millis(300), || {
        server
            .tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
            .lines()
            .any(|p| p == pane)
    });
    assert!(recorder.heard("pane.closed").is_empty());
    // A veto past [sessions] hook_timeout_seconds refuses too.
    server
        .write_config("[sessions]\nhook_timeout_seconds = 0.3\n[hooks]\npre_close = \"sleep 5\"\n");
    let started = std::time::Instant::now();
    let slow = server.taw(&["pane", "close", &pane]);
    assert_eq!(slow.error_code(), "hook_refused");
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(
        slow.error_json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("hook_timeout_seconds"),
        "{slow:?}"
    );
    // A veto that answers yes lets it go.
    server.write_config("[hooks]\npre_close = \"true\"\n");
    server.taw(&["pane", "close", &pane]).result();
}

/// A config.toml that does not parse, or whose `[hooks]` has an error,
/// may hold a veto taw cannot read: every close is refused, saying the
/// file and line, and `--force` closes anyway. The popup's close is the
/// same operation.
#[test]
fn a_config_that_hides_its_veto_closes_nothing_unforced() {
    let server = TmuxServer::start();
    let pane = server.new_window("main", "keep", "");
    let window = server.display(&pane, "#{window_id}");
    // The third cannot be read at all: a byte of Latin-1 in a comment.
    for broken in [
        &b"[hooks]\npre_close = \"exit 1\"\n[ui\n"[..],
        b"[hooks]\npre_close = 3\n",
        b"[hooks]\npre_close = \"exit 1\"\n# caf\xe9\n",
    ] {
        std::fs::write(server.config_dir().join("config.toml"), broken).unwrap();
        let readable = std::str::from_utf8(broken).is_ok();
        for args in [
            vec!["pane", "close", pane.as_str()],
            vec!["tab", "close", window.as_str()],
            vec!["workspace", "close", "w1"],
        ] {
            let run = server.taw(&args);
            assert_eq!(run.error_code(), "invalid_config", "{run:?}");
            let message = run.error_json()["error"]["message"]
                .as_str()
                .unwrap()
                .to_string();
            if readable {
                assert!(message.contains("config.toml line "), "{message}");
            } else {
                assert!(message.contains("cannot read"), "{message}");
            }
            assert!(message.contains("--force"), "{message}");
        }
        assert!(
            server
                .tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
                .lines()
                .any(|p| p == pane)
        );
    }
    server.taw(&["pane", "close", &pane, "--force"]).result();
    server.wait_for("the pane closed", Duration::from_secs(5), || {
        !server
            .tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
            .lines()
            .any(|p| p == pane)
    });
    // An error elsewhere in the file hides no veto.
    server.write_config("[ui]\ndepth = 3\n");
    let other = server.new_window("main", "other", "");
    server.taw(&["pane", "close", &other]).result();
}

#[test]
fn a_hook_that_fails_or_hangs_is_logged_and_holds_nothing_up() {
    let server = TmuxServer::start();
    loaded_with(
        &server,
        "[hooks]\ntimeout_seconds = 0.5\n\"pane.created\" = [\"echo broken >&2; exit 6\", \"sleep 30\"]\n",
    );
    let started = std::time::Instant::now();
    server
        .taw(&["pane", "split", "%0", "--direction", "right"])
        .result();
    assert!(started.elapsed() < Duration::from_secs(5));
    server.wait_for("two lines in the log", WAIT, || {
        server.taw(&["hooks", "log"]).result()["count"] == 2
    });
    let log = server.taw(&["hooks", "log", "--lines", "5"]).result();
    let lines: Vec<String> = log["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l
                .contains("pane.created failed (exit status 6): echo broken >&2; exit 6 | broken")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("pane.created timed out: sleep 30")),
        "{lines:?}"
    );
    assert!(log["path"].as_str().unwrap().ends_with("logs/hooks.log"));
    // What the hooks ran, and what they printed: the user's alone.
    let path = std::path::PathBuf::from(log["path"].as_str().unwrap());
    assert_eq!(crate::common::mode_of(&path), 0o600);
    assert_eq!(crate::common::mode_of(path.parent().unwrap()), 0o700);
}

/// No hook entry of taw's runs an event's job or keeps the roster.
fn assert_no_event_hooks(server: &TmuxServer) {
    let hooks = crate::common::taw_hook_lines(server);
    assert!(
        hooks
            .iter()
            .all(|h| !h.contains("'hooks'") && !h.contains("@agent_wizard_panes")),
        "{hooks:#?}"
    );
}

#[test]
fn no_listener_no_tmux_hooks() {
    let server = TmuxServer::start();
    server.load_plugin();
    assert_no_event_hooks(&server);
    // A reload with a listener puts its hooks in; taking it out takes them out.
    let recorder = Recorder::new(&server);
    server.write_config(&recorder.config(&["pane.closed"]));
    server.taw(&["config", "reload"]).result();
    let hooks = crate::common::taw_hook_lines(&server);
    assert!(
        hooks.iter().any(|h| h.starts_with("after-kill-pane")),
        "{hooks:#?}"
    );
    let pane = server.new_window("main", "x", "");
    let pane_id = public_pane(&server, &pane);
    server.tmux(&["kill-pane", "-t", &pane]);
    recorder.once(&server, "pane.closed", "pane_id", &pane_id);
    server.write_config("");
    server.taw(&["config", "reload"]).result();
    assert_no_event_hooks(&server);
    assert_eq!(server.display("%0", "#{@agent_wizard_panes}"), "");
}

#[test]
fn agent_events_follow_the_state() {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    let mut config = recorder.config(&[
        "pane.agent_status_changed",
        "pane.agent_detected",
        "agent.working",
        "agent.idle",
        "agent.done",
        "agent.blocked",
        "notification",
    ]);
    config.push_str("[ui.toast]\ndone_delay_seconds = 0\n");
    loaded_with(&server, &config);
    server.tmux(&["send-keys", "-t", "%0", "sleep 600", "Enter"]);
    server.wait_for("sleep in front", WAIT, || {
        server.display("%0", "#{pane_current_command}") == "sleep"
    });
    let report = |state: &str| {
        server
            .taw(&[
                "pane",
                "report-agent",
                "%0",
                "--source",
                "custom:test",
                "--agent",
                "mybot",
                "--state",
                state,
            ])
            .result();
    };
    report("working");
    let working = recorder.once(&server, "agent.working", "agent", "mybot");
    assert_eq!(working.env["TAW_STATE"], "working");
    assert_eq!(working.env["TAW_AGENT"], "mybot");
    report("idle");
    let done = recorder.once(&server, "agent.done", "agent", "mybot");
    assert_eq!(done.env["TAW_PREVIOUS_STATE"], "working");
    let toast = recorder.once(&server, "notification", "kind", "done");
    assert_eq!(toast.env["TAW_KIND"], "done");
    assert!(
        toast.env["TAW_MESSAGE"].contains("is done in main"),
        "{:?}",
        toast.env
    );
    // The same report again: nothing.
    report("idle");
    // The watcher takes a report that changes nothing without a sign:
    // the time it takes a report, and its hooks a run, passes with none.
    server.stays_for("no second agent.done, no agent.idle", REPORT_TAKEN, || {
        recorder.heard("agent.done").len() == 1 && recorder.heard("agent.idle").is_empty()
    });
    // Working, and the program ends mid-turn: its turn ends done first.
    report("working");
    server.wait_for("a second agent.working", WAIT, || {
        recorder.heard("agent.working").len() == 2
    });
    server.tmux(&["send-keys", "-t", "%0", "C-c"]);
    server.wait_for("the turn's end", WAIT, || {
        recorder.heard("agent.done").len() == 2
    });
    server.wait_for("the agent released", WAIT, || {
        recorder
            .heard("pane.agent_detected")
            .iter()
            .any(|h| h.input["data"]["released"] == true)
    });
    let statuses: Vec<String> = recorder
        .heard("pane.agent_status_changed")
        .iter()
        .map(|h| {
            h.input["data"]["agent_status"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert!(
        statuses.ends_with(&["done".to_string(), "unknown".to_string()]),
        "{statuses:?}"
    );
}

#[test]
fn hooks_test_runs_the_hook_against_the_sample() {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    server.write_config(&recorder.config(&["agent.done", "pane.closed"]));
    let run = server.taw(&["hooks", "test", "agent.done"]);
    let result = run.result();
    assert_eq!(result["type"], "hooks_test");
    assert_eq!(result["kind"], "event");
    assert_eq!(result["count"], 1);
    assert_eq!(result["limit_seconds"], 30.0);
    assert_eq!(result["env"]["TAW_TEST"], "1");
    assert_eq!(result["env"]["TAW_PANE"], "%999999");
    assert_eq!(result["env"]["TAW_SESSION"], "=taw-hooks-test:");
    assert!(
        result["env"]
            .as_object()
            .unwrap()
            .keys()
            .all(|k| k.starts_with("TAW_"))
    );
    assert_eq!(result["input"]["event"], "agent.done");
    assert_eq!(result["hooks"][0]["ok"], true);
    assert_eq!(result["real_pane"], Value::Null);
    let heard = recorder.heard("agent.done");
    assert_eq!(heard.len(), 1);
    assert_eq!(heard[0].env["TAW_TEST"], "1");

    // With a real pane; a going-away event needs --force.
    let real = server
        .taw(&["hooks", "test", "agent.done", "--pane", "%0"])
        .result();
    assert_eq!(real["real_pane"], "%0");
    assert_eq!(real["env"]["TAW_SESSION"], "=main:");
    let refused = server.taw(&["hooks", "test", "pane.closed", "--pane", "%0"]);
    assert_eq!(refused.status, 2);
    assert!(refused.stdout.is_empty());
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    assert!(recorder.heard("pane.closed").is_empty());
    let forced = server
        .taw(&["hooks", "test", "pane.closed", "--pane", "%0", "--force"])
        .result();
    assert_eq!(forced["hooks"][0]["ok"], true);
    assert_eq!(
        server
            .taw(&["hooks", "test", "pane.closed", "--force"])
            .status,
        2
    );
    let missing = server.taw(&["hooks", "test", "pane.closed", "--pane", "%77", "--force"]);
    assert_eq!(missing.error_code(), "not_found");
    assert_eq!(
        server
            .taw(&["hooks", "test", "agent.finished"])
            .error_code(),
        "invalid_argument"
    );
    assert_eq!(
        server
            .taw(&["hooks", "test", "notification", "--machine", "nowhere"])
            .status,
        2
    );
    // A [machines] name: TAW_MACHINE, and machine in the JSON.
    let mut config = recorder.config(&["notification"]);
    config.push_str("[machines]\nstudio = \"me@studio\"\n");
    server.write_config(&config);
    let far = server
        .taw(&["hooks", "test", "notification", "--machine", "studio"])
        .result();
    assert_eq!(far["env"]["TAW_MACHINE"], "studio");
    assert_eq!(far["input"]["data"]["machine"], "studio");
    assert_eq!(far["hooks"][0]["ok"], true);
    // A veto's test says it is one, with the veto's limit.
    let veto = server.taw(&["hooks", "test", "pre_close"]).result();
    assert_eq!(veto["kind"], "veto");
    assert_eq!(veto["count"], 0);
    assert_eq!(veto["limit_seconds"], 10.0);
    assert!(veto["note"].as_str().unwrap().contains("pre_close"));
}

#[test]
fn hooks_list_and_config_check_name_what_taw_never_fires() {
    let server = TmuxServer::start();
    server
        .write_config("[hooks]\n\"agent.done\" = \"~/bin/log\"\n\"agent.finished\" = [\"true\"]\n");
    let list = server.taw(&["hooks", "list"]).result();
    assert_eq!(list["timeout_seconds"], 30.0);
    assert_eq!(list["veto_timeout_seconds"], 10.0);
    let done = list["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "agent.done")
        .unwrap();
    assert_eq!(done["commands"], serde_json::json!(["~/bin/log"]));
    assert_eq!(done["kind"], "event");
    assert!(
        list["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "pre_close" && h["kind"] == "veto")
    );
    assert_eq!(
        list["unknown"],
        serde_json::json!([{"name": "agent.finished", "commands": ["true"]}])
    );
    let check = server.taw(&["config", "check"]);
    assert!(check.stdout.contains("agent.finished"), "{check:?}");
}

#[test]
fn a_pane_moved_to_another_session_closes_there() {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    loaded_with(&server, &recorder.config(&["pane.closed", "pane.moved"]));
    server.tmux(&["new-session", "-d", "-s", "other"]);
    let pane = server.new_window("main", "mover", "");
    server.new_window("main", "stays", "");
    let window = server.display("other:0", "#{window_id}");
    server
        .taw(&[
            "pane",
            "move",
            &pane,
            "--tab",
            &window,
            "--split",
            "right",
            "--no-focus",
        ])
        .result();
    let moved_id = public_pane(&server, &pane);
    assert!(!moved_id.starts_with("w1:"), "{moved_id}");
    let moved = recorder.once(&server, "pane.moved", "pane_id", &moved_id);
    assert!(
        moved.input["data"]["previous_pane_id"]
            .as_str()
            .unwrap()
            .starts_with("w1:")
    );
    assert!(!moved.input["data"]["closed_tab_id"].is_null());
    server.tmux(&["kill-pane", "-t", &pane]);
    let closed = recorder.once(&server, "pane.closed", "pane_id", &moved_id);
    assert_eq!(closed.env["TAW_SESSION"], "=other:");
}

#[test]
fn notification_show_fires_the_notification_event() {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    loaded_with(&server, &recorder.config(&["notification"]));
    server
        .taw(&[
            "notification",
            "show",
            "Deploy  done",
            "--body",
            "$(touch pwned)",
            "--sound",
            "request",
        ])
        .result();
    let heard = recorder.once(&server, "notification", "kind", "request");
    assert_eq!(heard.env["TAW_MESSAGE"], "Deploy done: $(touch pwned)");
    assert_eq!(heard.env["TAW_KIND"], "request");
    assert!(!heard.env.contains_key("TAW_PANE"));
    assert!(!server.dir.path().join("home/pwned").exists());
}

/// What a move within the session in front and a move to a new workspace
/// tell, with a client attached: `tab focus` there tells no
/// `workspace.focused` (tmux tells every switch-client, even to the
/// session it shows); a pane moved to a new workspace is one `pane.moved`
/// and that workspace's `workspace.created`, never the creation and close
/// of the window and pane the new session first holds.
#[test]
fn moves_tell_what_moved_and_nothing_of_what_held_a_place() {
    let (server, recorder) = recorded_server();
    let _viewer = crate::common::attach_client(&server, "main");
    // The attach is a session change of its client's: its workspace.focused
    // comes first, however late a busy machine delivers it.
    server.wait_for("the attach's workspace.focused", WAIT, || {
        !recorder.heard("workspace.focused").is_empty()
    });
    let pane = server.new_window("main", "second", "");
    let window = server.display(&pane, "#{window_id}");
    let tab = server.taw(&["tab", "get", &window]).result()["tab"]["tab_id"]
        .as_str()
        .unwrap()
        .to_string();
    recorder.once(&server, "tab.created", "tab_id", &tab);
    let focused_before = recorder.heard("workspace.focused").len();
    server.taw(&["tab", "focus", &tab]).result();
    recorder.once(&server, "tab.focused", "tab_id", &tab);
    server.stays_for("no workspace.focused", NO_SECOND, || {
        recorder.heard("workspace.focused").len() == focused_before
    });

    let split = server.tmux(&["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", &pane]);
    let split = split.trim().to_string();
    recorder.once(&server, "pane.created", "tmux_id", &split);
    let (created, closed, tabs_made, tabs_closed) = (
        recorder.heard("pane.created").len(),
        recorder.heard("pane.closed").len(),
        recorder.heard("tab.created").len(),
        recorder.heard("tab.closed").len(),
    );
    let moved = server
        .taw(&[
            "pane",
            "move",
            &split,
            "--new-workspace",
            "--label",
            "moved",
        ])
        .result();
    let workspace = moved["move_result"]["pane"]["workspace_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{moved}"))
        .to_string();
    recorder.once(&server, "workspace.created", "workspace_id", &workspace);
    recorder.once(&server, "pane.moved", "tmux_id", &split);
    server.stays_for("nothing of the placeholder", NO_SECOND, || {
        recorder.heard("pane.created").len() == created
            && recorder.heard("pane.closed").len() == closed
            && recorder.heard("tab.closed").len() == tabs_closed
            && recorder.heard("tab.created").len() <= tabs_made + 1
    });
    nothing_twice_nor_run(&server, &recorder);
}

/// A `[hooks]` command gets nothing of herdr's environment, even with
/// `@agent-wizard-herdr-env` on (which puts it into tmux's for agents), and
/// reads the context's fields taw has nothing for as nulls, not missing.
#[test]
fn hooks_get_no_herdr_variables_and_null_fields_as_nulls() {
    let server = TmuxServer::start();
    let recorder = Recorder::new(&server);
    server.tmux(&["set-option", "-g", "@agent-wizard-herdr-env", "on"]);
    loaded_with(&server, &recorder.config(&["pane.created"]));
    let global = server.tmux(&["show-environment", "-g"]);
    assert!(global.contains("HERDR_ENV=1"), "{global}");
    let split = server.tmux(&["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main"]);
    let created = recorder.once(&server, "pane.created", "tmux_id", split.trim());
    let herdr: Vec<&String> = created
        .env
        .keys()
        .filter(|k| k.starts_with("HERDR_"))
        .collect();
    assert!(herdr.is_empty(), "{herdr:?}");
    for field in [
        "worktree",
        "selected_text",
        "clicked_url",
        "link_handler_id",
        "focused_pane_agent",
    ] {
        assert_eq!(
            created.input.get(field),
            Some(&Value::Null),
            "{field}: {}",
            created.input
        );
    }
    assert_eq!(created.input["event"], "pane.created");
}
