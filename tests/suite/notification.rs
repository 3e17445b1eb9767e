//! `taw notification show`: a message on the attached clients, the sound
//! command with the message in its environment, and its reasons.

use crate::common::{TmuxServer, attach_client};
use std::time::Duration;

#[test]
fn shown_on_the_client_with_its_sound() {
    let server = TmuxServer::start();
    let heard = server.dir.path().join("heard");
    server.tmux(&[
        "set-option",
        "-g",
        "@agent-wizard-sound-command",
        &format!(
            "printf '%s|%s' \"$TAW_KIND\" \"$TAW_MESSAGE\" > '{}'",
            heard.display()
        ),
    ]);
    let outer = attach_client(&server, "main");
    let run = server.taw(&[
        "notification",
        "show",
        "Build   done #{session_name}",
        "--body",
        "all\ngreen; $(touch pwned)",
        "--sound",
        "done",
    ]);
    let result = run.result();
    assert_eq!(result["type"], "notification_show");
    assert_eq!(result["shown"], true);
    assert_eq!(result["reason"], "shown");
    server.wait_for("the message on the client", Duration::from_secs(5), || {
        outer
            .tmux(&["capture-pane", "-p", "-t", "viewer"])
            .contains("Build done #{session_name}: all green; $(touch pwned)")
    });
    server.wait_for("the sound command", Duration::from_secs(5), || {
        heard.exists()
    });
    assert_eq!(
        std::fs::read_to_string(&heard).unwrap(),
        "done|Build done #{session_name}: all green; $(touch pwned)"
    );
    assert!(!server.dir.path().join("home/pwned").exists());
}

#[test]
fn reasons_when_not_shown() {
    let server = TmuxServer::start();
    let run = server.taw(&["notification", "show", "hello"]).result();
    assert_eq!(run["shown"], false);
    assert_eq!(run["reason"], "no_foreground_client");
    server.tmux(&["set-option", "-g", "@agent-wizard-notify", "off"]);
    let run = server.taw(&["notification", "show", "hello"]).result();
    assert_eq!(run["reason"], "disabled");
    let empty = server.taw(&["notification", "show", "   "]);
    assert_eq!(empty.error_code(), "invalid_argument");
}

#[test]
fn sound_settings_from_config() {
    let server = TmuxServer::start();
    let heard = server.dir.path().join("heard");
    server.tmux(&[
        "set-option",
        "-g",
        "@agent-wizard-sound-command",
        &format!("printf '%s' \"$TAW_SOUND\" > '{}'", heard.display()),
    ]);
    server.write_config("[ui.sound]\ndone_path = \"sounds/done.mp3\"\n");
    server
        .taw(&["notification", "show", "x", "--sound", "done"])
        .result();
    server.wait_for("the sound command", Duration::from_secs(5), || {
        heard.exists()
    });
    assert_eq!(
        std::fs::read_to_string(&heard).unwrap(),
        server
            .config_dir()
            .join("sounds/done.mp3")
            .display()
            .to_string()
    );
    std::fs::remove_file(&heard).unwrap();
    server.write_config("[ui.sound]\nenabled = false\n");
    server
        .taw(&["notification", "show", "x", "--sound", "done"])
        .result();
    server.stays_for(
        "ui.sound.enabled = false running no sound command",
        Duration::from_secs(1),
        || !heard.exists(),
    );
}

/// A window named `name` whose pane is marked as an agent in `state`.
fn agent_window(server: &TmuxServer, name: &str, state: &str) -> String {
    let pane = server.new_window("main", name, "");
    server.tmux(&["set-option", "-p", "-t", &pane, "@agent_kind", "claude"]);
    server.tmux(&["set-option", "-p", "-t", &pane, "@agent_state", state]);
    pane
}

fn client_pane(server: &TmuxServer) -> String {
    server
        .tmux(&["list-clients", "-F", "#{pane_id}"])
        .trim()
        .to_string()
}

#[test]
fn open_target_goes_to_the_next_agent_that_needs_you() {
    let server = TmuxServer::start();
    assert_eq!(
        server.taw(&["notification", "open-target"]).error_code(),
        "not_found"
    );
    let working = agent_window(&server, "working", "working");
    let blocked = agent_window(&server, "blocked", "blocked");
    let idle = agent_window(&server, "idle", "idle");
    let done = agent_window(&server, "done", "done");
    let _viewer = attach_client(&server, "main");

    let went = server.taw(&["notification", "open-target"]).result();
    assert_eq!(went["pane_id"], blocked.as_str());
    assert_eq!(went["target"], "needs_you");
    assert_eq!(client_pane(&server), blocked);
    // From there, the next that needs you: the done one, which is seen.
    let went = server.taw(&["notification", "open-target"]).result();
    assert_eq!(went["pane_id"], done.as_str());
    assert_eq!(client_pane(&server), done);
    assert_eq!(server.display(&done, "#{@agent_state}"), "idle");
    // Round again to the blocked one; with none that needs you, the next
    // agent after the current pane, of any kind (here an idle one).
    assert_eq!(
        server.taw(&["notification", "open-target"]).result()["pane_id"],
        blocked.as_str()
    );
    server.tmux(&[
        "set-option",
        "-p",
        "-t",
        &blocked,
        "@agent_state",
        "working",
    ]);
    let went = server.taw(&["notification", "open-target"]).result();
    assert_eq!(
        (went["pane_id"].as_str(), went["target"].as_str()),
        (Some(idle.as_str()), Some("idle"))
    );
    // Only work left: the next, from the rest.
    for pane in [&idle, &done] {
        server.tmux(&["set-option", "-p", "-t", pane, "@agent_state", "working"]);
    }
    let went = server.taw(&["notification", "open-target"]).result();
    assert_eq!(went["target"], "rest");
    assert_ne!(went["pane_id"], idle.as_str());
    let _ = working;
}

#[test]
fn the_notification_key_moves_the_client_it_was_pressed_on() {
    let server = TmuxServer::start();
    server.load_plugin();
    // Its watcher keeps a reported agent (one set by hand it takes off).
    let blocked = server.reported_agent("main", "blocked", "blocked");
    let viewer = attach_client(&server, "main");
    // prefix (C-b), then Tab, typed into the attached client.
    viewer.tmux(&["send-keys", "-t", "viewer", "C-b", "Tab"]);
    server.wait_for(
        "the client on the blocked agent",
        Duration::from_secs(10),
        || client_pane(&server) == blocked,
    );
}
