//! `taw notification show`: a message on the attached clients, the sound
//! command with the message in its environment, and its reasons.

use crate::common::{TmuxServer, attach_client};
use std::time::Duration;

#[test]
fn shown_on_the_client_with_its_sound() {
    let server = TmuxServer::start();
    let heard = crate::common::sounds_heard(&server);
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

/// The messages tmux's log holds, and the commands that showed them.
fn message_log(server: &TmuxServer) -> String {
    server.tmux(&["show-messages"])
}

#[test]
fn a_request_toast_stays_rings_the_bell_and_its_desktop_click_goes_there() {
    let server = TmuxServer::empty();
    // A notify-send that keeps what it was given and answers as a click
    // on the notification's default action does.
    let stand_ins = server.dir.path().join("desktop");
    std::fs::create_dir_all(&stand_ins).unwrap();
    let asked = server.dir.path().join("notify-send-args");
    let notify_send = stand_ins.join("notify-send");
    std::fs::write(
        &notify_send,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}.part' && mv '{0}.part' '{0}'\necho default\n",
            asked.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&notify_send, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The watchers run with the tmux server's own environment: the server
    // starts with the stand-in on its PATH.
    let path = format!(
        "{}:{}",
        stand_ins.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = server.tmux_run_with(
        &["new-session", "-d", "-s", "main", "-x", "120", "-y", "40"],
        &[("PATH", &path)],
    );
    assert_eq!(started.status, 0, "{started:?}");
    server.tmux(&["set-option", "-g", "@agent-wizard-bell", "on"]);
    server.tmux(&["set-option", "-g", "@agent-wizard-desktop", "on"]);
    server.load_plugin();
    let asker = server.reported_agent("main", "asker", "working");
    server.tmux(&["select-window", "-t", "main:0"]);
    let viewer = attach_client(&server, "main");
    viewer.tmux(&["set-option", "-g", "@rang", "0"]);
    viewer.tmux(&["set-hook", "-g", "alert-bell", "set-option -g @rang 1"]);
    let looking = client_pane(&server);
    assert_ne!(looking, asker);

    let report = [
        "pane",
        "report-agent",
        &asker,
        "--source",
        "custom:test",
        "--agent",
        "mybot",
        "--state",
        "blocked",
    ];
    assert_eq!(server.taw(&report).status, 0);
    // Shown for @agent-wizard-toast-seconds (5 by default), not tmux's
    // display-time.
    server.wait_for("the toast", Duration::from_secs(15), || {
        message_log(&server).contains("message: mybot needs you in main:1 (asker)")
    });
    assert!(
        message_log(&server).contains("-d 5000 \"mybot needs you in main:1 (asker)\""),
        "{}",
        message_log(&server)
    );
    server.wait_for("the bell", Duration::from_secs(10), || {
        viewer.tmux(&["show-option", "-gv", "@rang"]).trim() == "1"
    });
    server.wait_for("the desktop notification", Duration::from_secs(10), || {
        asked.exists()
    });
    let args = std::fs::read_to_string(&asked).unwrap();
    assert!(args.contains("--wait"), "{args}");
    assert!(args.contains("mybot needs you in main:1 (asker)"), "{args}");
    // Its click brought the client to the agent.
    server.wait_for("the client on the agent", Duration::from_secs(10), || {
        client_pane(&server) == asker
    });
}

#[test]
fn toast_seconds_zero_is_tmuxs_display_time_and_a_bad_value_its_default() {
    let server = TmuxServer::start();
    let _viewer = attach_client(&server, "main");
    server.tmux(&["set-option", "-g", "@agent-wizard-toast-seconds", "0"]);
    server.taw(&["notification", "show", "first"]).result();
    let log = message_log(&server);
    assert!(log.contains("message: first"), "{log}");
    assert!(!log.contains("-d 0"), "{log}");
    server.tmux(&["set-option", "-g", "@agent-wizard-toast-seconds", "soon"]);
    server.taw(&["notification", "show", "second"]).result();
    assert!(message_log(&server).contains("-d 5000 second"));
    server.tmux(&["set-option", "-g", "@agent-wizard-toast-seconds", "2.5"]);
    server.taw(&["notification", "show", "third"]).result();
    assert!(message_log(&server).contains("-d 2500 third"));
}
