//! `taw notification show`: a message on the attached clients, the sound
//! command with the message in its environment, and its reasons.

mod common;

use common::{TmuxServer, attach_client};
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
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !heard.exists(),
        "ui.sound.enabled = false runs no sound command"
    );
}
