//! `agent-wizard.tmux`, `taw tmux load` and `taw tmux unload` against a real
//! tmux server: what they put in is there once, and all of it comes out.

use crate::common::{
    TmuxServer, path_count, repo_root, shown_messages, taw_bin, taw_hook_lines, taw_keys,
};
use std::time::Duration;

/// Runs the TPM entry script inside the server, as TPM does.
fn run_entry_script(server: &TmuxServer) {
    let script = repo_root().join("agent-wizard.tmux");
    server.tmux(&["run-shell", &script.display().to_string()]);
}

fn loaded_server() -> TmuxServer {
    let server = TmuxServer::start();
    server.tmux(&[
        "set-option",
        "-g",
        "@agent-wizard-bin",
        &taw_bin().display().to_string(),
    ]);
    server
}

#[test]
fn entry_script_twice_leaves_one_set() {
    let server = loaded_server();
    // The user's own hook and binding, which must survive everything.
    server.tmux(&[
        "set-hook",
        "-g",
        "after-split-window[3]",
        "display-message mine",
    ]);
    server.tmux(&["bind-key", "-T", "prefix", "y", "display-message mine"]);

    run_entry_script(&server);
    let hooks_once = taw_hook_lines(&server);
    let keys_once = taw_keys(&server);
    run_entry_script(&server);

    let hooks_twice = taw_hook_lines(&server);
    assert_eq!(hooks_once.len(), hooks_twice.len(), "{hooks_twice:?}");
    let mut once = taw_keys(&server);
    once.sort();
    let mut keys = keys_once.clone();
    keys.sort();
    assert_eq!(once, keys);
    assert_eq!(keys_once, vec!["Tab", "a"]);
    assert_eq!(path_count(&server, &server.state_dir().join("bin")), 1);

    // The link in the bin folder points at the binary the option named.
    let link = std::fs::read_link(server.state_dir().join("bin/taw")).unwrap();
    assert_eq!(link, std::fs::canonicalize(taw_bin()).unwrap());

    // Option defaults are set where the user set none.
    assert_eq!(
        server
            .tmux(&["show-option", "-gv", "@agent-wizard-key"])
            .trim(),
        "a"
    );
    assert_eq!(
        server
            .tmux(&["show-option", "-gv", "@agent-wizard-path"])
            .trim(),
        "on"
    );

    // The user's hook and key are as they were.
    assert!(
        server
            .tmux(&["show-hooks", "-g", "after-split-window"])
            .contains("after-split-window[3] display-message mine")
    );
    assert!(
        server
            .tmux(&["list-keys", "-T", "prefix", "y"])
            .contains("display-message mine")
    );
}

/// A reload that would set the hooks the last load set leaves them where
/// they are (no rewrite into the other slot); an entry taken out by hand
/// comes back at the next reload, and a listener added to config.toml
/// brings its hooks with `taw config reload`.
#[test]
fn a_reload_with_the_same_hooks_leaves_them_and_mends_a_missing_one() {
    let server = loaded_server();
    run_entry_script(&server);
    let once = taw_hook_lines(&server);
    assert!(!once.is_empty());
    let digest = server.tmux(&["show-options", "-gv", "@agent_wizard_hooks_set"]);
    assert!(!digest.trim().is_empty());
    run_entry_script(&server);
    assert_eq!(
        taw_hook_lines(&server),
        once,
        "the same hooks at the same indexes"
    );

    let gone = once[0].split_whitespace().next().unwrap().to_string();
    server.tmux(&["set-hook", "-gu", &gone]);
    assert_eq!(taw_hook_lines(&server).len(), once.len() - 1);
    run_entry_script(&server);
    let mended = taw_hook_lines(&server);
    assert_eq!(mended.len(), once.len(), "{mended:?}");

    server.write_config("[hooks]\n\"pane.created\" = \"true\"\n");
    assert_eq!(server.taw(&["config", "reload"]).status, 0);
    let heard = taw_hook_lines(&server);
    assert!(heard.len() > once.len(), "{heard:?}");
    assert_ne!(
        server.tmux(&["show-options", "-gv", "@agent_wizard_hooks_set"]),
        digest
    );
}

#[test]
fn unload_takes_everything_out_and_keeps_the_users() {
    let server = loaded_server();
    server.tmux(&[
        "set-hook",
        "-g",
        "after-split-window[3]",
        "display-message mine",
    ]);
    server.tmux(&["set-option", "-g", "@agent-wizard-herdr-env", "on"]);
    let path_before = server.tmux(&["show-environment", "-g", "PATH"]);
    run_entry_script(&server);
    assert_eq!(
        server
            .tmux(&["show-environment", "-g", "HERDR_PANE_ID"])
            .trim(),
        "HERDR_PANE_ID=%calling"
    );

    let unloaded = server.taw(&["tmux", "unload"]).result();
    assert_eq!(unloaded["type"], "tmux_unloaded");
    assert!(taw_hook_lines(&server).is_empty());
    assert!(taw_keys(&server).is_empty());
    assert_eq!(path_count(&server, &server.state_dir().join("bin")), 0);
    assert_eq!(
        server.tmux(&["show-environment", "-g", "PATH"]),
        path_before
    );
    // Defaults taw set are gone; the option the user set stays.
    let options = server.tmux(&["show-options", "-g"]);
    assert!(!options.contains("@agent-wizard-key"), "{options}");
    assert!(!options.contains("@agent_wizard_"), "{options}");
    assert!(options.contains("@agent-wizard-herdr-env on"), "{options}");
    assert!(options.contains("@agent-wizard-bin"), "{options}");
    let herdr = server.tmux_run(&["show-environment", "-g", "HERDR_PANE_ID"]);
    assert_ne!(herdr.status, 0, "HERDR_PANE_ID should be gone: {herdr:?}");
    assert!(
        server
            .tmux(&["show-hooks", "-g", "after-split-window"])
            .contains("after-split-window[3] display-message mine")
    );
}

#[test]
fn path_off_and_reload_takes_the_folder_out() {
    let server = loaded_server();
    run_entry_script(&server);
    let bin_dir = server.state_dir().join("bin");
    assert_eq!(path_count(&server, &bin_dir), 1);
    server.tmux(&["set-option", "-g", "@agent-wizard-path", "off"]);
    run_entry_script(&server);
    assert_eq!(path_count(&server, &bin_dir), 0);
    server.tmux(&["set-option", "-g", "@agent-wizard-path", "on"]);
    run_entry_script(&server);
    assert_eq!(path_count(&server, &bin_dir), 1);
    let path = server.tmux(&["show-environment", "-g", "PATH"]);
    assert!(
        path.starts_with(&format!("PATH={}:", bin_dir.display())),
        "{path}"
    );
}

#[test]
fn herdr_env_off_after_on_removes_only_taws_word() {
    let server = loaded_server();
    server.tmux(&["set-option", "-g", "@agent-wizard-herdr-env", "on"]);
    run_entry_script(&server);
    let bin = server.tmux(&["show-environment", "-g", "HERDR_BIN_PATH"]);
    assert_eq!(
        bin.trim(),
        format!(
            "HERDR_BIN_PATH={}",
            std::fs::canonicalize(taw_bin()).unwrap().display()
        )
    );
    server.tmux(&["set-option", "-g", "@agent-wizard-herdr-env", "off"]);
    run_entry_script(&server);
    assert_ne!(
        server
            .tmux_run(&["show-environment", "-g", "HERDR_ENV"])
            .status,
        0
    );

    // A HERDR_PANE_ID of the user's own is theirs: left alone.
    server.tmux(&["set-environment", "-g", "HERDR_PANE_ID", "w9:p9"]);
    server.tmux(&["set-environment", "-g", "HERDR_ENV", "1"]);
    run_entry_script(&server);
    assert_eq!(
        server.tmux(&["show-environment", "-g", "HERDR_ENV"]).trim(),
        "HERDR_ENV=1"
    );
    // Turned on over herdr's own values (tmux started inside herdr): they
    // stay, and an unload leaves them too.
    server.tmux(&[
        "set-environment",
        "-g",
        "HERDR_BIN_PATH",
        "/opt/herdr/bin/herdr",
    ]);
    server.tmux(&["set-option", "-g", "@agent-wizard-herdr-env", "on"]);
    run_entry_script(&server);
    server.taw(&["tmux", "unload"]).result();
    for (name, value) in [
        ("HERDR_PANE_ID", "w9:p9"),
        ("HERDR_BIN_PATH", "/opt/herdr/bin/herdr"),
        ("HERDR_ENV", "1"),
    ] {
        assert_eq!(
            server.tmux(&["show-environment", "-g", name]).trim(),
            format!("{name}={value}")
        );
    }
}

#[test]
fn key_options_bind_move_and_unbind() {
    let server = loaded_server();
    run_entry_script(&server);
    assert_eq!(taw_keys(&server), vec!["Tab", "a"]);
    server.tmux(&["set-option", "-g", "@agent-wizard-key", "C-g"]);
    server.tmux(&["set-option", "-g", "@agent-wizard-clear-key", "C-l"]);
    run_entry_script(&server);
    assert_eq!(taw_keys(&server), vec!["C-g", "Tab", "C-l"]);
    assert_ne!(
        server.tmux_run(&["list-keys", "-T", "prefix", "a"]).status,
        0
    );
    for option in [
        "@agent-wizard-key",
        "@agent-wizard-notification-key",
        "@agent-wizard-clear-key",
    ] {
        server.tmux(&["set-option", "-g", option, ""]);
    }
    run_entry_script(&server);
    assert!(taw_keys(&server).is_empty());
}

#[test]
fn a_taken_default_key_is_left_alone() {
    let server = loaded_server();
    server.tmux(&["bind-key", "-T", "prefix", "a", "display-message mine"]);
    run_entry_script(&server);
    assert_eq!(taw_keys(&server), vec!["Tab"]);
    assert!(
        server
            .tmux(&["list-keys", "-T", "prefix", "a"])
            .contains("display-message mine")
    );
    // The load says why (and shows it on the attached clients).
    let loaded = server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result();
    let warnings = loaded["warnings"].to_string();
    assert!(
        warnings.contains("prefix + a is already bound"),
        "{warnings}"
    );
}

#[test]
fn a_key_chosen_in_tmux_conf_is_bound_over_another() {
    let server = loaded_server();
    server.tmux(&["bind-key", "-T", "prefix", "a", "display-message mine"]);
    // As tmux.conf would, before the plugin loads.
    server.tmux(&["set-option", "-g", "@agent-wizard-key", "a"]);
    run_entry_script(&server);
    assert_eq!(taw_keys(&server), vec!["Tab", "a"]);
}

/// A key given to taw that tmux binds (`w`, tmux's own window chooser)
/// gets its binding back, note and all, when taw lets it go: after a load
/// with another key, and after an unload.
#[test]
fn a_key_given_to_taw_gets_tmuxs_binding_back() {
    let server = loaded_server();
    let listed = |key: &str| server.tmux(&["list-keys", "-T", "prefix", key]);
    let noted = |key: &str| server.tmux(&["list-keys", "-N", "-T", "prefix", key]);
    let before = (listed("w"), noted("w"));
    assert!(before.0.contains("choose-tree"), "{before:?}");
    server.tmux(&["set-option", "-g", "@agent-wizard-key", "w"]);
    run_entry_script(&server);
    assert!(!listed("w").contains("choose-tree"), "{}", listed("w"));
    // A reload keeps it taw's, and the binding it had still kept.
    run_entry_script(&server);
    assert!(noted("w").contains("agent-wizard"), "{}", noted("w"));
    server.tmux(&["set-option", "-g", "@agent-wizard-key", "C-g"]);
    run_entry_script(&server);
    assert_eq!((listed("w"), noted("w")), before);
    // Given to taw again, then the plugin unloaded.
    server.tmux(&["set-option", "-g", "@agent-wizard-key", "w"]);
    run_entry_script(&server);
    server.taw(&["tmux", "unload"]).result();
    assert_eq!((listed("w"), noted("w")), before);

    // `space` is tmux's Space: its binding comes back too.
    let space = listed("Space");
    server.tmux(&["set-option", "-g", "@agent-wizard-key", "space"]);
    run_entry_script(&server);
    assert!(
        !listed("Space").contains("next-layout"),
        "{}",
        listed("Space")
    );
    server.taw(&["tmux", "unload"]).result();
    assert_eq!(listed("Space"), space);

    // A binding tmux no longer takes leaves that key unbound, says so,
    // and the rest of the unload is done.
    server.tmux(&["set-option", "-g", "@agent-wizard-key", "w"]);
    run_entry_script(&server);
    server.tmux(&[
        "set-option",
        "-g",
        "@agent_wizard_former_keys",
        r#"{"w":{"line":"bind-key -T prefix w no-such-command","note":""}}"#,
    ]);
    let unloaded = server.taw(&["tmux", "unload"]).result();
    assert!(unloaded.to_string().contains("prefix + w"), "{unloaded}");
    let gone = server.tmux_run(&["list-keys", "-T", "prefix", "w"]);
    assert_ne!(gone.status, 0, "{gone:?}");
    let loaded = server.tmux_run(&["show-option", "-gv", "@agent_wizard_loaded"]);
    assert!(loaded.stdout.trim().is_empty(), "{loaded:?}");
}

#[test]
fn load_reports_what_it_did() {
    let server = TmuxServer::start();
    let loaded = server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result();
    assert_eq!(loaded["type"], "tmux_loaded");
    assert_eq!(loaded["keys"], serde_json::json!(["a", "Tab"]));
    assert_eq!(
        loaded["path_dir"],
        server.state_dir().join("bin").display().to_string()
    );
    let bad = server.taw(&["tmux", "load", "--bin", "/nonexistent/taw"]);
    assert_eq!(bad.error_code(), "invalid_argument");
}

/// A copy of the plugin's entry script in a folder of its own, with no
/// build, so the script has to build one.
fn plugin_without_build(server: &TmuxServer) -> std::path::PathBuf {
    let dir = server.dir.path().join("plugin");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::copy(
        repo_root().join("agent-wizard.tmux"),
        dir.join("agent-wizard.tmux"),
    )
    .unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\n").unwrap();
    // Nothing to download (no machine here reaches the release's address):
    // cargo is the way these tests take.
    server.tmux(&["set-option", "-g", "@agent-wizard-download", "off"]);
    std::fs::write(dir.join("Cargo.lock"), "").unwrap();
    dir
}

#[test]
fn with_no_binary_cargo_builds_then_the_plugin_loads() {
    let server = TmuxServer::start();
    let plugin = plugin_without_build(&server);
    // A cargo that "builds" by copying the real binary into place.
    let fake = server.dir.path().join("fakebin");
    std::fs::create_dir_all(&fake).unwrap();
    let cargo = fake.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\nsleep 0.5\nmkdir -p target/release && cp '{}' target/release/taw\n",
            taw_bin().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    server.tmux(&[
        "set-environment",
        "-g",
        "PATH",
        &format!("{}:/usr/bin:/bin", fake.display()),
    ]);
    let outer = crate::common::attach_client(&server, "main");
    server.tmux(&[
        "run-shell",
        &plugin.join("agent-wizard.tmux").display().to_string(),
    ]);
    server.wait_for(
        "the build and the load",
        std::time::Duration::from_secs(15),
        || {
            server
                .tmux(&["show-option", "-gqv", "@agent_wizard_loaded"])
                .contains("plugin/target/release/taw")
        },
    );
    server.wait_for(
        "the message that it is built",
        std::time::Duration::from_secs(5),
        || {
            outer
                .tmux(&["capture-pane", "-p", "-t", "viewer"])
                .contains("is built and loaded")
        },
    );
    assert_eq!(taw_keys(&server), vec!["Tab", "a"]);
}

#[test]
fn with_no_binary_and_no_cargo_it_says_so() {
    let server = TmuxServer::start();
    let plugin = plugin_without_build(&server);
    server.tmux(&["set-environment", "-g", "PATH", "/usr/bin:/bin"]);
    let outer = crate::common::attach_client(&server, "main");
    server.tmux(&[
        "run-shell",
        &plugin.join("agent-wizard.tmux").display().to_string(),
    ]);
    server.wait_for("the message", std::time::Duration::from_secs(5), || {
        outer
            .tmux(&["capture-pane", "-p", "-t", "viewer"])
            .contains("no taw for this machine: no download, no cargo")
    });
    assert!(
        server
            .tmux(&["show-option", "-gqv", "@agent_wizard_loaded"])
            .is_empty()
    );
}

/// The watchers `taw watch status` lists: pane and pid.
fn watcher_pids(server: &TmuxServer) -> Vec<(String, u64)> {
    server.taw(&["watch", "status"]).result()["panes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| Some((p["tmux_id"].as_str()?.to_string(), p["pid"].as_u64()?)))
        .collect()
}

#[test]
fn unload_stops_the_watchers_and_leaves_nothing_of_taws() {
    let server = loaded_server();
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    run_entry_script(&server);
    server.wait_for("two watchers", std::time::Duration::from_secs(10), || {
        watcher_pids(&server).len() == 2
    });
    let pids: Vec<u64> = watcher_pids(&server)
        .into_iter()
        .map(|(_, pid)| pid)
        .collect();
    // Options of taw's on a pane and a session.
    server.taw(&["pane", "rename", "%0", "mine"]).result();
    server
        .taw(&[
            "workspace",
            "report-metadata",
            "w1",
            "--source",
            "t",
            "--token",
            "a=b",
        ])
        .result();
    server.tmux(&["set-option", "-p", "-t", "%1", "@agent_kind", "claude"]);
    server.tmux(&["set-option", "-p", "-t", "%1", "@agent_state", "done"]);

    let unloaded = server.taw(&["tmux", "unload"]).result();
    assert_eq!(
        unloaded["watchers_stopped"],
        serde_json::json!(["%0", "%1"])
    );
    for pane in ["%0", "%1"] {
        assert_eq!(server.display(pane, "#{pane_pipe}"), "0", "{pane}'s pipe");
        let options = server.tmux(&["show-options", "-p", "-t", pane]);
        assert!(!options.contains("@agent"), "{pane}: {options}");
    }
    let session = server.tmux(&["show-options", "-t", "main"]);
    assert!(!session.contains("@agent_wizard"), "{session}");
    server.wait_for(
        "the watchers to end",
        std::time::Duration::from_secs(5),
        || {
            pids.iter()
                .all(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists())
        },
    );
    // Nothing of taw's acts on the server any more: output in a pane, a
    // split, and no watcher comes or writes.
    server.tmux(&["send-keys", "-t", "%0", "echo hello", "Enter"]);
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    server.stays_for("no watcher", std::time::Duration::from_millis(1500), || {
        server
            .tmux(&[
                "list-panes",
                "-a",
                "-F",
                "#{pane_pipe}#{@agent_wizard_watcher}#{@agent_state}",
            ])
            .lines()
            .all(|line| line == "0")
    });
}

#[test]
fn load_leaves_a_users_hooks_at_taws_indexes() {
    let server = loaded_server();
    let mine = [
        ("after-split-window[9100]", "display-message mine-split"),
        ("pane-focus-in[9150]", "display-message mine-focus"),
        ("after-new-window[9151]", "display-message mine-window"),
    ];
    for (hook, command) in mine {
        server.tmux(&["set-hook", "-g", hook, command]);
    }
    let shown = |server: &TmuxServer| {
        format!(
            "{}{}",
            server.tmux(&["show-hooks", "-g"]),
            server.tmux(&["show-hooks", "-gw"])
        )
    };
    for _ in 0..3 {
        run_entry_script(&server);
        let hooks = shown(&server);
        for (hook, command) in mine {
            assert!(
                hooks.contains(&format!("{hook} {command}")),
                "{hook}: {hooks}"
            );
        }
        // taw's own entry for the hook went beside the user's.
        assert!(
            taw_hook_lines(&server)
                .iter()
                .any(|l| l.starts_with("after-split-window[")),
            "{hooks}"
        );
    }
    server.taw(&["tmux", "unload"]).result();
    let hooks = shown(&server);
    for (hook, command) in mine {
        assert!(
            hooks.contains(&format!("{hook} {command}")),
            "{hook}: {hooks}"
        );
    }
    assert!(taw_hook_lines(&server).is_empty());
}

#[test]
fn a_bad_option_is_left_out_and_the_rest_loads() {
    let server = loaded_server();
    server.tmux(&["set-option", "-g", "@agent-wizard-key", "NotAKey!!"]);
    server.tmux(&["set-option", "-g", "@agent-wizard-notify", "maybe"]);
    let loaded = server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result();
    let warnings = loaded["warnings"].to_string();
    assert!(
        warnings.contains("@agent-wizard-key is \\\"NotAKey!!\\\", which is not a tmux key"),
        "{warnings}"
    );
    assert!(warnings.contains("@agent-wizard-notify"), "{warnings}");
    // Everything else is in: hooks, the other keys, the marks, watchers.
    assert!(!taw_hook_lines(&server).is_empty());
    assert_eq!(taw_keys(&server), ["Tab"]);
    let right = server.tmux(&["show-options", "-gv", "status-right"]);
    assert!(right.contains("@agent-wizard-summary"), "{right}");
    assert_eq!(loaded["watchers"]["attached"], serde_json::json!(["%0"]));
    // Through the entry script too: it loads, and says nothing of JSON.
    run_entry_script(&server);
    assert!(!taw_hook_lines(&server).is_empty());
}

#[test]
fn a_config_that_does_not_parse_is_said_at_load() {
    let server = loaded_server();
    server.write_config("[ui\nlayout = \"flat\"\n");
    let loaded = server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result();
    let warnings = loaded["warnings"].to_string();
    assert!(warnings.contains("config.toml has 1 error"), "{warnings}");
    assert!(warnings.contains("taw config check"), "{warnings}");
    // The plugin runs on the defaults.
    assert!(!taw_hook_lines(&server).is_empty());
}

#[test]
fn a_server_of_many_panes_loads_and_unloads_whole() {
    let server = loaded_server();
    // 40 panes: one tmux command line could not hold a call for each.
    for n in 1..40 {
        server.tmux(&["new-window", "-d", "-t", "main:", "-n", &format!("w{n}")]);
    }
    run_entry_script(&server);
    // 40 watchers start at once beside the rest of the suite: on a busy
    // machine that takes a while, so a miss says what each pane had.
    let limit = std::time::Duration::from_secs(60);
    let started = std::time::Instant::now();
    while watcher_pids(&server).len() != 40 {
        if started.elapsed() > limit {
            panic!(
                "not every pane got a watcher in {limit:?}: {}\nserver messages:\n{}",
                server.taw(&["watch", "status"]).result(),
                server.tmux(&["show-messages"]),
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    for pane in ["%0", "%39"] {
        server.tmux(&["set-option", "-p", "-t", pane, "@agent_kind", "claude"]);
    }
    let unloaded = server.taw(&["tmux", "unload"]).result();
    assert_eq!(unloaded["watchers_stopped"].as_array().unwrap().len(), 40);
    let left = server.tmux(&[
        "list-panes",
        "-a",
        "-F",
        "#{pane_pipe}#{@agent_wizard_watcher}#{@agent_kind}",
    ]);
    assert!(left.lines().all(|line| line == "0"), "{left}");
}

/// A load answers once the watcher has piped its first batch (50 panes)
/// whatever its time: a server of that many panes or fewer is watched
/// whole when the load ends; of more, each pane is piped or said pending.
#[test]
fn a_load_answers_with_its_first_batch_piped_and_the_rest_pending() {
    let server = TmuxServer::start();
    let piped = |answer: &serde_json::Value, field: &str| -> usize {
        answer["watchers"][field]
            .as_array()
            .map_or(0, |panes| panes.len())
    };
    for n in 1..50 {
        server.tmux(&["new-window", "-d", "-t", "main:", "-n", &format!("w{n}")]);
    }
    let answer = server.load_plugin();
    assert_eq!(piped(&answer, "attached"), 50, "{answer}");
    assert_eq!(piped(&answer, "pending"), 0, "{answer}");
    server.taw(&["tmux", "unload"]).result();
    for n in 50..80 {
        server.tmux(&["new-window", "-d", "-t", "main:", "-n", &format!("w{n}")]);
    }
    let answer = server.load_plugin();
    let (attached, pending) = (piped(&answer, "attached"), piped(&answer, "pending"));
    assert!(attached >= 50, "{answer}");
    assert_eq!(attached + pending, 80, "{answer}");
    // The panes said pending are piped right after, by the same watcher.
    server.wait_for("every pane piped", Duration::from_secs(20), || {
        server
            .tmux(&["list-panes", "-a", "-F", "#{pane_pipe}"])
            .lines()
            .all(|pipe| pipe == "1")
    });
    let watchers = server.tmux(&["list-panes", "-a", "-F", "#{@agent_wizard_watcher}"]);
    let pids: std::collections::BTreeSet<_> = watchers
        .lines()
        .map(|announced| announced.split(' ').nth(1).unwrap_or(announced))
        .collect();
    assert_eq!(pids.len(), 1, "{watchers}");
}

/// What a new pane's login shell (`sh -l`, as tmux starts it) finds for
/// `taw`, and what it answers: Debian's /etc/profile sets PATH anew.
fn login_shell_finds(server: &TmuxServer) -> String {
    let out = server.dir.path().join("found");
    let line = format!(
        "command -v taw > {0}; taw --version >> {0} 2>&1; echo end >> {0}",
        out.display()
    );
    let pane = server.new_window("main", "login", "");
    // Typed before the shell reads, the line waits in the terminal.
    server.tmux(&["send-keys", "-t", &pane, "-l", &line]);
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    server.wait_for("the shell's answer", Duration::from_secs(20), || {
        std::fs::read_to_string(&out).is_ok_and(|text| text.contains("end"))
    });
    std::fs::read_to_string(&out).unwrap()
}

#[test]
fn a_new_panes_login_shell_finds_taw() {
    // The test's home is Debian's: its ~/.profile adds ~/.local/bin.
    let server = loaded_server();
    run_entry_script(&server);
    let home = server.dir.path().join("home");
    let link = home.join(".local/bin/taw");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        server.state_dir().join("bin/taw")
    );
    let found = login_shell_finds(&server);
    assert!(
        found.starts_with(&format!("{}\n", link.display())),
        "{found}"
    );
    assert!(found.contains(env!("CARGO_PKG_VERSION")), "{found}");
    // A taw of the user's own there is left as it is.
    std::fs::remove_file(&link).unwrap();
    std::fs::write(&link, "#!/bin/sh\necho mine\n").unwrap();
    let loaded = server.load_plugin();
    assert_eq!(loaded["login_path"]["taw"], "theirs", "{loaded}");
    assert_eq!(
        std::fs::read_to_string(&link).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
}

#[test]
fn with_no_folder_login_shells_keep_the_load_says_so_once() {
    let server = loaded_server();
    let home = server.dir.path().join("home");
    std::fs::remove_file(home.join(".profile")).unwrap();
    let first = server.load_plugin();
    assert_eq!(first["login_path"]["taw"], "nowhere", "{first}");
    let add = first["login_path"]["add"].as_str().unwrap().to_string();
    assert!(
        add.contains(&server.state_dir().join("bin").display().to_string()),
        "{add}"
    );
    let said = |loaded: &serde_json::Value| {
        loaded["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains(&add))
    };
    assert!(said(&first), "{first}");
    let second = server.load_plugin();
    assert_eq!(second["login_path"]["taw"], "nowhere");
    assert!(!said(&second), "{second}");
    assert!(!home.join(".local").exists());
    // Never a word that taw is on a login shell's PATH: it is not.
    let found = login_shell_finds(&server);
    assert!(found.contains("taw: not found"), "{found}");
}

#[test]
fn a_taw_of_someone_elses_in_the_login_folder_is_said_once_and_kept() {
    let server = loaded_server();
    let theirs = server.dir.path().join("home/.local/bin/taw");
    std::fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    std::fs::write(&theirs, "#!/bin/sh\necho mine\n").unwrap();
    let said = |loaded: &serde_json::Value| {
        loaded["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("is a taw of someone else's"))
    };
    let first = server.load_plugin();
    assert_eq!(first["login_path"]["taw"], "theirs", "{first}");
    assert!(said(&first), "{first}");
    let second = server.load_plugin();
    assert!(!said(&second), "{second}");
    // An unload leaves it as it was.
    assert_eq!(server.taw(&["tmux", "unload"]).status, 0);
    assert_eq!(
        std::fs::read_to_string(&theirs).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
}

#[test]
fn login_link_off_makes_no_link() {
    let server = loaded_server();
    server.tmux(&["set-option", "-g", "@agent-wizard-login-link", "off"]);
    let loaded = server.load_plugin();
    assert_eq!(loaded["login_path"]["taw"], "off", "{loaded}");
    assert!(!server.dir.path().join("home/.local/bin/taw").exists());
}

/// scripts/try as a new user runs it, with no terminal to attach (it then
/// prints how to), on a private socket folder: every command its welcome
/// pane suggests runs there and in the server's other windows.
#[test]
fn scripts_try_gives_panes_where_the_welcome_commands_run() {
    let mut server = TmuxServer::empty();
    server.socket = "taw-try".into();
    let mut command = std::process::Command::new(repo_root().join("scripts/try"));
    server.isolate_command(&mut command);
    let run = command
        .env("TAW_BIN", taw_bin())
        .env("TMPDIR", server.dir.path())
        .env("SHELL", "/bin/bash")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stderr).to_string();
    assert!(run.status.success(), "{said}");
    assert!(said.contains("tmux -L taw-try attach -t '$"), "{said}");
    let welcome = server.tmux(&["list-panes", "-a", "-F", "#{pane_id} #{window_name}"]);
    let panes: Vec<&str> = welcome
        .lines()
        .filter(|line| line.ends_with(" welcome") || line.ends_with(" shell"))
        .map(|line| line.split(' ').next().unwrap())
        .collect();
    assert_eq!(panes.len(), 2, "{welcome}");
    server.wait_for("the welcome text", Duration::from_secs(20), || {
        server
            .tmux(&["capture-pane", "-p", "-t", panes[0]])
            .contains("taw --help")
    });
    let commands = [
        "taw agent list",
        "taw agent explain %1",
        "taw pane list",
        "taw config check",
        "taw --help",
    ];
    for pane in panes {
        let out = server.dir.path().join(format!("ran-{}", &pane[1..]));
        let line = commands
            .iter()
            .map(|c| {
                format!(
                    "{c} >/dev/null 2>>{0}; echo \"{c}: $?\" >> {0}",
                    out.display()
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        server.tmux(&["send-keys", "-t", pane, "-l", &line]);
        server.tmux(&["send-keys", "-t", pane, "Enter"]);
        server.wait_for("the commands to run", Duration::from_secs(30), || {
            std::fs::read_to_string(&out).is_ok_and(|t| t.contains("taw --help: "))
        });
        let ran = std::fs::read_to_string(&out).unwrap();
        assert!(!ran.contains("not found"), "{pane}: {ran}");
        // Each ran (explain answers an error for a pane with no agent).
        for command in commands {
            assert!(
                ran.contains(&format!("{command}: 0")) || command.contains("explain"),
                "{pane}: {ran}"
            );
        }
        assert!(!ran.contains(": 127"), "{pane}: {ran}");
    }
}

#[test]
fn a_config_with_errors_and_a_theme_are_said_to_the_first_client_to_attach() {
    let server = TmuxServer::start();
    server.write_config("[ui]\nsidebar_width = \"wide\"\n");
    let loaded = server.taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()]);
    assert_eq!(loaded.status, 0, "{loaded:?}");
    // A theme loaded after taw sets the window list anew.
    server.tmux(&["set-option", "-g", "window-status-format", "#I:#W"]);
    let _viewer = crate::common::attach_client(&server, "main");
    server.wait_for("the messages", Duration::from_secs(10), || {
        let shown = shown_messages(&server);
        shown.iter().any(|m| m.contains("config.toml has 1 error"))
            && shown
                .iter()
                .any(|m| m.contains("a theme took taw's marks out of the status line"))
    });
    for message in shown_messages(&server) {
        if message.starts_with("agent-wizard: ") && !message.contains("; ") {
            assert!(message.chars().count() <= 80, "{message}");
        }
    }
    // Said once: the hooks are gone.
    assert!(
        !server
            .tmux(&["show-hooks", "-g", "client-attached"])
            .contains("[9099]")
    );
    let status = server.taw(&["tmux", "status"]);
    assert!(
        status.stdout.contains("gone from window-status-format"),
        "{status:?}"
    );
    assert!(
        status.stdout.contains("config.toml has 1 error"),
        "{status:?}"
    );
    let json = server.taw(&["tmux", "status", "--json"]).result();
    assert_eq!(json["type"], "tmux_status");
    assert_eq!(json["marks"][0]["present"], false);
}

/// A hook entry of the user's at the index of taw's one-shot hooks is
/// theirs: a load with something to say keeps no message for the first
/// client then (the log and `taw tmux status` have it), and neither it
/// nor an unload sets or takes out that entry.
#[test]
fn the_users_hook_at_the_one_shot_index_is_left_alone() {
    let server = TmuxServer::start();
    let mine = "display-message mine";
    server.tmux(&["set-hook", "-g", "client-attached[9099]", mine]);
    server.write_config("[ui]\nsidebar_width = \"wide\"\n");
    let bin = taw_bin().display().to_string();
    let loaded = server.taw(&["tmux", "load", "--bin", &bin]);
    assert_eq!(loaded.status, 0, "{loaded:?}");
    let hooks = || server.tmux(&["show-hooks", "-g", "client-attached"]);
    assert!(
        hooks().contains(&format!("client-attached[9099] {mine}")),
        "{}",
        hooks()
    );
    assert!(
        !server
            .tmux(&["show-hooks", "-g", "client-session-changed"])
            .contains("[9099]")
    );
    let status = server.taw(&["tmux", "status"]);
    assert!(
        status.stdout.contains("config.toml has 1 error"),
        "{status:?}"
    );
    server.taw(&["tmux", "unload"]).result();
    assert!(
        hooks().contains(&format!("client-attached[9099] {mine}")),
        "{}",
        hooks()
    );
}

/// taw's own reads raise no error in tmux's message log: an option not
/// set is read quietly, and the panes of a server with no session yet
/// are none rather than "no current target".
#[test]
fn taws_own_reads_leave_no_error_in_tmuxs_messages() {
    let server = TmuxServer::start();
    let outer = crate::common::attach_client(&server, "main");
    // Before the load none of taw's options is set.
    server.taw(&["web", "url"]);
    server.load_plugin();
    for verbs in [
        &["session", "save"][..],
        &["session", "restore"][..],
        &["watch", "attach-all"][..],
        &["pane", "list"][..],
        &["web", "url"][..],
    ] {
        server.taw(verbs);
    }
    server.tmux(&["new-window", "-d"]);
    server.taw(&["watch", "attach-all"]);
    let messages = crate::common::shown_messages(&server);
    for error in ["invalid option", "no current target"] {
        assert!(
            !messages.iter().any(|m| m.contains(error)),
            "{error}: {messages:?}"
        );
    }
    drop(outer);
}

/// A load from tmux.conf runs before the server has a session: neither
/// the entry script's message nor taw's load asks tmux for clients in a
/// way that logs "no current target".
#[test]
fn a_load_before_any_session_leaves_no_error_in_tmuxs_messages() {
    let server = TmuxServer::empty();
    server.tmux(&["start-server", ";", "set-option", "-g", "exit-empty", "off"]);
    let script = repo_root().join("agent-wizard.tmux");
    let script = script.display().to_string();
    // A binary that is not there: the script tells, and keeps it for the
    // first client.
    server.tmux(&["set-option", "-g", "@agent-wizard-bin", "/nowhere/taw"]);
    server.tmux(&["run-shell", &script]);
    server.tmux(&[
        "set-option",
        "-g",
        "@agent-wizard-bin",
        &taw_bin().display().to_string(),
    ]);
    server.tmux(&["run-shell", &script]);
    server.wait_for("the load", Duration::from_secs(20), || {
        !server
            .tmux(&["show-option", "-gqv", "@agent_wizard_loaded"])
            .trim()
            .is_empty()
    });
    // Reads of the whole server find nothing, and say so without an error.
    for verbs in [&["pane", "list"][..], &["workspace", "list"][..]] {
        let run = server.taw(verbs);
        assert_eq!(run.status, 0, "{run:?}");
    }
    server.tmux(&["new-session", "-d", "-s", "main", "-x", "120", "-y", "40"]);
    let outer = crate::common::attach_client(&server, "main");
    server.wait_for("the kept message", Duration::from_secs(10), || {
        shown_messages(&server)
            .iter()
            .any(|m| m.contains("@agent-wizard-bin is not an executable file"))
    });
    let messages = shown_messages(&server);
    assert!(
        !messages.iter().any(|m| m.contains("no current target")),
        "{messages:?}"
    );
    drop(outer);
}

/// A verb a hook or key of the plugin's runs ends with 0 though it
/// failed: tmux would show a `run-shell` that ended otherwise in view mode
/// over a pane, swallowing the keys sent there. Run by hand, it fails.
#[test]
fn a_failing_verb_run_by_a_hook_leaves_no_pane_in_a_mode() {
    let server = TmuxServer::start();
    let by_hand = server.taw(&["pane", "get", "%999"]);
    assert_ne!(by_hand.status, 0);
    let by_hook = server.taw_with(&["pane", "get", "%999"], &[("AGENT_WIZARD_HOOK", "1")]);
    assert_eq!(by_hook.status, 0, "{by_hook:?}");
    let line = format!(
        "AGENT_WIZARD_HOOK=1 exec '{}' -L '{}' pane get %999 >/dev/null 2>&1",
        taw_bin().display(),
        server.socket
    );
    server.tmux(&["run-shell", &line]);
    assert_eq!(server.display("%0", "#{pane_in_mode}"), "0");
    server.tmux(&[
        "send-keys",
        "-t",
        "%0",
        "echo keys-reach-the-shell",
        "Enter",
    ]);
    server.wait_for("the keys at the shell", Duration::from_secs(5), || {
        server
            .tmux(&["capture-pane", "-p", "-t", "%0"])
            .contains("keys-reach-the-shell\n")
    });
}
