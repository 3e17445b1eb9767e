//! herdr plugins linked from a folder, against a real tmux with the plugin
//! loaded: the registry verbs, a malformed manifest, and the environment
//! every plugin process sees (an action, a startup hook, an event hook);
//! installs from local bare repositories through `TAW_GITHUB_URL`.

// The tests make git repositories with git itself.
#![allow(clippy::disallowed_methods)]

use crate::common::repos::{bare_repo, mirror};
use crate::common::{TmuxServer, plugin_run_events};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// A plugin whose every command writes its HERDR_/TAW_ environment into
/// its state folder, as `<what>.env`.
fn env_plugin(server: &TmuxServer, id: &str) -> PathBuf {
    let dir = server.dir.path().join("plugins-src").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("herdr-plugin.toml"),
        format!(
            r#"id = "{id}"
name = "Env dump"
version = "1.0.0"
min_herdr_version = "0.7.1"
platforms = ["linux", "macos"]

[[startup]]
command = ["sh", "dump.sh", "startup"]

[[actions]]
id = "dump"
title = "Dump the environment"
command = ["sh", "dump.sh", "action"]

[[events]]
on = "tab.created"
command = ["sh", "dump.sh", "event"]

[[events]]
on = "workspace.created"
command = ["sh", "dump.sh", "workspace-event"]
"#
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("dump.sh"),
        "\"$HERDR_BIN_PATH\" workspace list > \"$HERDR_PLUGIN_STATE_DIR/$1.called\" 2>&1\nenv | grep -E '^(HERDR|TAW)_' > \"$HERDR_PLUGIN_STATE_DIR/$1.tmp\"\npwd >> \"$HERDR_PLUGIN_STATE_DIR/$1.tmp\"\nmv \"$HERDR_PLUGIN_STATE_DIR/$1.tmp\" \"$HERDR_PLUGIN_STATE_DIR/$1.env\"\necho \"ran $1\"\n",
    )
    .unwrap();
    dir
}

fn dumped(server: &TmuxServer, id: &str, what: &str) -> Option<BTreeMap<String, String>> {
    let path = server
        .state_dir()
        .join("plugins/state")
        .join(id)
        .join(format!("{what}.env"));
    let text = std::fs::read_to_string(path).ok()?;
    let mut env: BTreeMap<String, String> = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.insert(
        "PWD_SEEN".into(),
        text.lines().last().unwrap_or("").to_string(),
    );
    Some(env)
}

/// Every herdr variable has its TAW_ twin with the same value, and no
/// socket path is there.
fn check_contract(env: &BTreeMap<String, String>, root: &Path) {
    let herdrs = |name: &str| {
        name.strip_prefix("HERDR_").is_some_and(|rest| {
            rest.starts_with("PLUGIN_")
                || ["ENV", "BIN_PATH", "WORKSPACE_ID", "TAB_ID", "PANE_ID"].contains(&rest)
        })
    };
    for (name, value) in env.iter().filter(|(n, _)| herdrs(n)) {
        let twin = format!("TAW_{}", &name["HERDR_".len()..]);
        assert_eq!(env.get(&twin), Some(value), "{twin} beside {name}");
    }
    assert!(!env.contains_key("HERDR_SOCKET_PATH"), "{env:#?}");
    assert!(!env.contains_key("TAW_SOCKET_PATH"), "{env:#?}");
    assert_eq!(env["HERDR_ENV"], "1");
    assert_eq!(env["HERDR_PLUGIN_ID"], "test.envdump");
    let root = std::fs::canonicalize(root).unwrap();
    assert_eq!(env["HERDR_PLUGIN_ROOT"], root.display().to_string());
    assert_eq!(env["PWD_SEEN"], root.display().to_string());
    assert!(env["HERDR_BIN_PATH"].ends_with("/taw"));
    assert!(env["HERDR_PLUGIN_CONFIG_DIR"].ends_with("config/plugins/test.envdump"));
    assert!(env["HERDR_PLUGIN_STATE_DIR"].ends_with("state/plugins/state/test.envdump"));
    let context: Value = serde_json::from_str(&env["HERDR_PLUGIN_CONTEXT_JSON"]).unwrap();
    for field in [
        "workspace_id",
        "tab_id",
        "focused_pane_id",
        "focused_pane_cwd",
        "focused_pane_agent",
        "focused_pane_status",
        "workspace_cwd",
        "workspace_label",
        "tab_label",
        "worktree",
        "selected_text",
        "clicked_url",
        "link_handler_id",
        "invocation_source",
        "correlation_id",
    ] {
        assert!(context.get(field).is_some(), "{field} missing in {context}");
    }
    // The tab's label, as its record says it.
    assert_eq!(context["tab_label"], context["tab"]["label"], "{context}");
    // Not the caller's runtime variables: its herdr session, its pane.
    assert!(!env.contains_key("HERDR_SESSION"), "HERDR_SESSION set");
    assert_ne!(env.get("HERDR_PANE_ID").map(String::as_str), Some("w9:p9"));
    // A setting of the user's own, in tmux's environment, reaches it.
    assert_eq!(env["HERDR_ENVDUMP_SETTING"], "mine", "{env:#?}");
    // Each of taw's twins has its herdr name (a TAW_ setting of the
    // caller's own, such as the suite's, passes as it is).
    let twins = |name: &str| {
        name.strip_prefix("TAW_")
            .is_some_and(|rest| herdrs(&format!("HERDR_{rest}")))
    };
    for name in env.keys().filter(|n| twins(n)) {
        let herdr = format!("HERDR_{}", &name["TAW_".len()..]);
        assert!(
            env.contains_key(&herdr)
                || ["TAW_STATE_DIR", "TAW_CONFIG_DIR", "TAW_TMUX_SOCKET"].contains(&name.as_str()),
            "{name} has no twin"
        );
    }
    assert!(!env.contains_key("HERDR_PLUGIN_ENTRYPOINT_ID"), "{env:#?}");
}

/// What the plugin's call back through HERDR_BIN_PATH answered.
fn called(server: &TmuxServer, id: &str, what: &str) -> String {
    std::fs::read_to_string(
        server
            .state_dir()
            .join("plugins/state")
            .join(id)
            .join(format!("{what}.called")),
    )
    .unwrap_or_default()
}

/// taw, with a socket path of a herdr the caller runs in.
fn taw_in_herdr(server: &TmuxServer, args: &[&str]) -> crate::common::Run {
    server.taw_with(
        args,
        &[
            ("HERDR_SOCKET_PATH", "/tmp/herdr.sock"),
            ("TAW_SOCKET_PATH", "/tmp/herdr.sock"),
            ("HERDR_PANE_ID", "w9:p9"),
        ],
    )
}

#[test]
fn link_list_enable_disable_unlink() {
    let server = TmuxServer::start();
    server.load_plugin();
    let dir = env_plugin(&server, "test.envdump");
    let linked = server
        .taw(&["plugin", "link", dir.to_str().unwrap(), "--disabled"])
        .result();
    assert_eq!(linked["type"], "plugin_linked");
    assert_eq!(linked["plugin"]["plugin_id"], "test.envdump");
    assert_eq!(linked["plugin"]["enabled"], false);
    assert_eq!(linked["plugin"]["source"]["kind"], "local");
    let list = server.taw(&["plugin", "list"]).result();
    assert_eq!(list["plugins"].as_array().unwrap().len(), 1);
    let refused = server.taw(&["plugin", "action", "invoke", "dump"]);
    assert_eq!(refused.error_code(), "plugin_disabled");
    let enabled = server.taw(&["plugin", "enable", "test.envdump"]).result();
    assert_eq!(enabled["type"], "plugin_enabled");
    assert_eq!(enabled["plugin"]["enabled"], true);
    let actions = server.taw(&["plugin", "action", "list"]).result();
    assert_eq!(actions["actions"][0]["action_id"], "dump");
    assert_eq!(
        actions["actions"][0]["platforms"],
        serde_json::json!(["linux", "macos"])
    );
    let config_dir = server.taw(&["plugin", "config-dir", "test.envdump"]);
    assert!(
        config_dir.stdout.trim().ends_with("plugins/test.envdump"),
        "{config_dir:?}"
    );
    assert!(Path::new(config_dir.stdout.trim()).is_dir());
    // Where the user's plugins are and what they ran: the user's alone.
    let plugins = server.state_dir().join("plugins");
    assert_eq!(
        crate::common::mode_of(&plugins.join("registry.json")),
        0o600
    );
    assert_eq!(crate::common::mode_of(&plugins), 0o700);
    let disabled = server.taw(&["plugin", "disable", "test.envdump"]).result();
    assert_eq!(disabled["type"], "plugin_disabled");
    let unlinked = server.taw(&["plugin", "unlink", "test.envdump"]).result();
    assert_eq!(unlinked["removed"], true);
    assert!(
        dir.join("herdr-plugin.toml").exists(),
        "unlink keeps the files"
    );
    let again = server.taw(&["plugin", "unlink", "test.envdump"]).result();
    assert_eq!(again["removed"], false);
    assert_eq!(
        server
            .taw(&["plugin", "enable", "test.envdump"])
            .error_code(),
        "plugin_not_found"
    );
}

#[test]
fn a_malformed_manifest_names_file_key_and_rule_and_registers_nothing() {
    let server = TmuxServer::start();
    let dir = server.dir.path().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("herdr-plugin.toml"),
        "id = \"bad\"\nname = \"Bad\"\nversion = \"1\"\nmin_herdr_version = \"0.7.1\"\n[[actions]]\nid = \"go\"\ntitle = \"Go\"\ncommand = []\n",
    )
    .unwrap();
    let run = server.taw(&["plugin", "link", dir.to_str().unwrap()]);
    assert_eq!(run.error_code(), "invalid_plugin_command");
    let message = run.error_json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("herdr-plugin.toml"), "{message}");
    assert!(message.contains("actions[0].command"), "{message}");
    std::fs::write(
        dir.join("herdr-plugin.toml"),
        "id = \"bad\"\nname = \"Bad\"\nversion = \"1\"\nmin_herdr_version = \"9.0.0\"\n",
    )
    .unwrap();
    assert_eq!(
        server
            .taw(&["plugin", "link", dir.to_str().unwrap()])
            .error_code(),
        "plugin_requires_newer_herdr"
    );
    // [plugins] compat_herdr_version raises what taw answers for.
    server.write_config("[plugins]\ncompat_herdr_version = \"9.1.0\"\n");
    server
        .taw(&["plugin", "link", dir.to_str().unwrap()])
        .result();
    server.write_config("");
    let list = server.taw(&["plugin", "list"]).result();
    let warnings = list["plugins"][0]["warnings"].to_string();
    assert!(warnings.contains("manifest unavailable"), "{warnings}");
    let empty = server.dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert_eq!(
        server
            .taw(&["plugin", "link", empty.to_str().unwrap()])
            .error_code(),
        "plugin_manifest_not_found"
    );
}

#[test]
fn every_plugin_process_sees_the_environment_contract() {
    let server = TmuxServer::start();
    server.load_plugin();
    let dir = env_plugin(&server, "test.envdump");
    // A user's own HERDR_* setting (herdr strips only its runtime ones).
    server.tmux(&["set-environment", "-g", "HERDR_ENVDUMP_SETTING", "mine"]);
    taw_in_herdr(&server, &["plugin", "link", dir.to_str().unwrap()]).result();
    let pane = server.new_window("main", "work", "");
    let window = server.display(&pane, "#{window_id}");
    let pane_record = server.taw(&["pane", "get", &pane]).result();
    let pane_id = pane_record["pane"]["pane_id"].as_str().unwrap().to_string();

    // An action with --pane: that pane's ids, its tab's, its workspace's.
    let invoked = taw_in_herdr(
        &server,
        &["plugin", "action", "invoke", "dump", "--pane", &pane],
    )
    .result();
    assert_eq!(invoked["type"], "plugin_action_invoked");
    assert_eq!(invoked["log"]["status"], "succeeded");
    assert_eq!(invoked["log"]["stdout"], "ran action\n");
    let action = dumped(&server, "test.envdump", "action").unwrap();
    check_contract(&action, &dir);
    assert_eq!(action["HERDR_PLUGIN_EVENT"], "action");
    assert_eq!(action["HERDR_PLUGIN_ACTION_ID"], "dump");
    assert_eq!(action["HERDR_PANE_ID"], pane_id);
    assert_eq!(action["HERDR_WORKSPACE_ID"], "w1");
    assert!(!action.contains_key("HERDR_PLUGIN_EVENT_JSON"));
    // Its call back reaches this tmux server, though taw ran with -L.
    assert!(
        called(&server, "test.envdump", "action").contains("\"workspace_id\":\"w1\""),
        "{}",
        called(&server, "test.envdump", "action")
    );
    let context: Value = serde_json::from_str(&action["HERDR_PLUGIN_CONTEXT_JSON"]).unwrap();
    assert_eq!(context["focused_pane_id"], pane_id);
    assert_eq!(context["pane"]["pane_id"], pane_id);
    assert_eq!(context["invocation_source"], "cli");

    // A startup hook: no pane, tab or workspace.
    let startup = taw_in_herdr(&server, &["plugin", "startup"]).result();
    assert_eq!(startup["runs"][0]["status"], "succeeded");
    let started = dumped(&server, "test.envdump", "startup").unwrap();
    check_contract(&started, &dir);
    assert_eq!(started["HERDR_PLUGIN_EVENT"], "startup");
    assert!(!started.contains_key("HERDR_PLUGIN_ACTION_ID"));
    for name in ["HERDR_PANE_ID", "HERDR_TAB_ID", "HERDR_WORKSPACE_ID"] {
        assert!(!started.contains_key(name), "{name} in a startup hook");
    }
    assert!(called(&server, "test.envdump", "startup").contains("\"workspace_id\":\"w1\""));

    // An event hook, from a window made by hand: herdr's envelope.
    let made = server.new_window("main", "hand", "");
    let made_window = server.display(&made, "#{window_id}");
    server.wait_for("the tab.created hook", WAIT, || {
        dumped(&server, "test.envdump", "event")
            .is_some_and(|env| env["HERDR_PLUGIN_EVENT_JSON"].contains(&made_window))
    });
    let event = dumped(&server, "test.envdump", "event").unwrap();
    check_contract(&event, &dir);
    assert_eq!(event["HERDR_PLUGIN_EVENT"], "tab.created");
    assert!(!event.contains_key("HERDR_PLUGIN_ACTION_ID"));
    let envelope: Value = serde_json::from_str(&event["HERDR_PLUGIN_EVENT_JSON"]).unwrap();
    assert_eq!(envelope["event"], "tab_created");
    assert_eq!(envelope["data"]["type"], "tab_created");
    assert_eq!(envelope["data"]["tab"]["tmux_id"], made_window);
    assert!(event.contains_key("HERDR_TAB_ID"));
    assert_ne!(window, made_window);
    // A tab's event has the tab's pane, as herdr's context gives it.
    let made_id = server.taw(&["pane", "get", &made]).result()["pane"]["pane_id"].clone();
    assert_eq!(event["HERDR_PANE_ID"], made_id.as_str().unwrap());

    // A workspace's event has its tab and pane too.
    server.tmux(&["new-session", "-d", "-s", "extra"]);
    server.wait_for("the workspace.created hook", WAIT, || {
        dumped(&server, "test.envdump", "workspace-event").is_some()
    });
    let event = dumped(&server, "test.envdump", "workspace-event").unwrap();
    let extra_pane = server.display("=extra:", "#{pane_id}");
    let extra = server.taw(&["pane", "get", &extra_pane]).result();
    assert_eq!(
        event["HERDR_WORKSPACE_ID"],
        extra["pane"]["workspace_id"].as_str().unwrap()
    );
    assert_eq!(
        event["HERDR_TAB_ID"],
        extra["pane"]["tab_id"].as_str().unwrap()
    );
    assert_eq!(
        event["HERDR_PANE_ID"],
        extra["pane"]["pane_id"].as_str().unwrap()
    );

    // The log has each run (logged when it ends, after its dump).
    let events = || plugin_run_events(&server, Some("test.envdump"));
    let logged = |events: &[Value]| {
        events.contains(&Value::String("tab.created".into()))
            && events.contains(&Value::String("startup".into()))
    };
    let start = std::time::Instant::now();
    while !logged(&events()) {
        assert!(start.elapsed() < WAIT, "{:?}", events());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn plugin_event_fires_plugin_hooks_and_the_hooks_of_that_name() {
    let server = TmuxServer::start();
    let dir = env_plugin(&server, "test.envdump");
    let heard = server.dir.path().join("heard");
    server.write_config(&format!(
        "[hooks]\n\"tab.created\" = \"echo $TAW_EVENT > '{}'\"\n",
        heard.display()
    ));
    server
        .taw(&["plugin", "link", dir.to_str().unwrap()])
        .result();
    let fired = server
        .taw(&["plugin", "event", "tab.created", "--pane", "%0"])
        .result();
    assert_eq!(fired["type"], "plugin_event_fired");
    assert_eq!(fired["delivered"][0]["plugin_id"], "test.envdump");
    assert_eq!(fired["delivered"][0]["status"], "succeeded");
    assert_eq!(fired["hooks"], 1);
    assert_eq!(
        std::fs::read_to_string(&heard).unwrap().trim(),
        "tab.created"
    );
    assert_eq!(
        server.taw(&["plugin", "event", "tab.made"]).error_code(),
        "invalid_argument"
    );
}

/// The order events tmux cannot tell by itself (a session order) or tells
/// from a hand move (tab.moved) are taken by `taw plugin event`, with
/// herdr's payloads.
#[test]
fn plugin_event_takes_the_move_events_in_herdrs_shape() {
    let server = TmuxServer::start();
    let out = server.dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mut config = String::from("[hooks]\n");
    for event in ["tab.moved", "workspace.moved", "workspace.reordered"] {
        config.push_str(&format!(
            "\"{event}\" = \"cat > '{}'\"\n",
            out.join(event).display()
        ));
    }
    server.write_config(&config);
    server.tmux(&["new-session", "-d", "-s", "second"]);
    let read = |event: &str| -> Value {
        let fired = server
            .taw(&["plugin", "event", event, "--pane", "%0"])
            .result();
        assert_eq!(fired["hooks"], 1, "{fired}");
        let text = std::fs::read_to_string(out.join(event)).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["data"].clone()
    };
    let tab = read("tab.moved");
    assert_eq!(tab["type"], "tab_moved");
    assert_eq!(tab["tab_id"], "w1:t1");
    assert_eq!(tab["workspace_id"], "w1");
    assert_eq!(tab["insert_index"], 0);
    assert_eq!(tab["tabs"][0]["tab_id"], "w1:t1");
    let moved = read("workspace.moved");
    assert_eq!(moved["type"], "workspace_moved");
    assert_eq!(moved["workspace_id"], "w1");
    assert_eq!(moved["insert_index"], 0);
    assert_eq!(moved["workspaces"].as_array().unwrap().len(), 2);
    let reordered = read("workspace.reordered");
    assert_eq!(reordered["type"], "workspace_reordered");
    assert_eq!(reordered["workspace_ids"], serde_json::json!(["w1"]));
    assert_eq!(reordered["before_workspace_id"], "w2");
    assert_eq!(reordered["workspaces"].as_array().unwrap().len(), 2);
}

fn manifest_with_build(build: &str) -> String {
    format!(
        "id = \"acme.tool\"\nname = \"Tool\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.7.1\"\nplatforms = [\"linux\", \"macos\"]\n[[build]]\ncommand = [\"sh\", \"-c\", {build:?}]\n[[actions]]\nid = \"hello\"\ntitle = \"Hello\"\ncommand = [\"cat\", \"built\"]\n"
    )
}

fn github_folders(server: &TmuxServer) -> Vec<String> {
    std::fs::read_dir(server.state_dir().join("plugins/github/acme"))
        .map(|read| {
            read.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn install_from_a_mirror_with_the_trust_preview() {
    let server = TmuxServer::start();
    let commit = bare_repo(
        &server,
        "acme",
        "tool",
        &[("herdr-plugin.toml", &manifest_with_build("echo ok > built"))],
    );
    let url = mirror(&server);
    let env = [("TAW_GITHUB_URL", url.as_str())];
    // A folder left by a killed install is cleaned at the next one.
    let left = server
        .state_dir()
        .join("plugins/github/acme/tool@0123456789ab");
    std::fs::create_dir_all(&left).unwrap();

    // No terminal and no --yes: the preview, exit 2, nothing left.
    let asked = server.taw_with(&["plugin", "install", "acme/tool"], &env);
    assert_eq!(asked.status, 2, "{asked:?}");
    assert!(asked.stdout.is_empty());
    assert!(
        asked.stderr.contains("Plugin acme.tool"),
        "{}",
        asked.stderr
    );
    assert!(
        asked.stderr.contains(&commit),
        "the preview names the commit"
    );
    assert!(
        asked.stderr.contains("build:   sh -c 'echo ok > built'"),
        "{}",
        asked.stderr
    );
    assert!(
        github_folders(&server).is_empty(),
        "{:?}",
        github_folders(&server)
    );
    assert!(
        server.taw(&["plugin", "list"]).result()["plugins"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // --yes: built in its commit's folder, registered.
    let installed = server
        .taw_with(&["plugin", "install", "acme/tool", "--yes"], &env)
        .result();
    assert_eq!(installed["type"], "plugin_installed");
    let source = &installed["plugin"]["source"];
    assert_eq!(source["kind"], "github");
    assert_eq!(source["resolved_commit"], commit);
    let folder = format!("tool@{}", &commit[..12]);
    assert_eq!(github_folders(&server), vec![folder.clone()]);
    let invoked = server
        .taw(&["plugin", "action", "invoke", "hello"])
        .result();
    assert_eq!(invoked["log"]["stdout"], "ok\n");

    // Again at the same commit: a folder of its own run, the old one gone.
    server
        .taw_with(&["plugin", "install", "acme/tool", "--yes"], &env)
        .result();
    assert_eq!(github_folders(&server), vec![format!("{folder}-2")]);

    // A pin, and a short commit the remote does not name.
    let pinned = server
        .taw_with(
            &["plugin", "install", &format!("acme/tool@{commit}"), "--yes"],
            &env,
        )
        .result();
    assert_eq!(pinned["plugin"]["source"]["requested_ref"], commit);
    let short = server.taw_with(
        &[
            "plugin",
            "install",
            "acme/tool",
            "--ref",
            &commit[..9],
            "--yes",
        ],
        &env,
    );
    assert_eq!(short.error_code(), "invalid_plugin_source");
    assert!(
        short.stderr.contains("give the full 40-character commit"),
        "{short:?}"
    );

    // Uninstall: the record and the folder.
    server.taw(&["plugin", "uninstall", "acme/tool"]).result();
    assert!(github_folders(&server).is_empty());
}

#[test]
fn a_build_that_fails_installs_nothing_and_shows_its_last_lines() {
    let server = TmuxServer::start();
    bare_repo(
        &server,
        "acme",
        "tool",
        &[(
            "herdr-plugin.toml",
            &manifest_with_build("echo compiling; echo 'error: no compiler' >&2; exit 3"),
        )],
    );
    let url = mirror(&server);
    let run = server.taw_with(
        &["plugin", "install", "acme/tool", "--yes"],
        &[("TAW_GITHUB_URL", url.as_str())],
    );
    // The preview comes first on stderr, then the error's envelope.
    assert_eq!(run.status, 1, "{run:?}");
    let envelope: Value = serde_json::from_str(run.stderr.lines().last().unwrap()).unwrap();
    assert_eq!(envelope["error"]["code"], "plugin_build_failed", "{run:?}");
    let message = envelope["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("error: no compiler"), "{message}");
    assert!(message.contains("exit status 3"), "{message}");
    assert!(github_folders(&server).is_empty());
    assert!(
        server.taw(&["plugin", "list"]).result()["plugins"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// A plugin of ours that relies on what herdr-automatic-rename relies on:
/// its startup and its tab and workspace events call the herdr CLI named by
/// `HERDR_BIN_PATH`, read its JSON with jq, and rename every workspace and
/// tab `[N] name`, N its place (a tab's record's `number` is its id's).
const NUMBERS_MANIFEST: &str = r#"id = "numbers"
name = "Numbers"
version = "1.0.0"
min_herdr_version = "0.7.1"
platforms = ["linux", "macos"]

[[startup]]
command = ["sh", "number.sh"]

[[events]]
on = "tab.created"
command = ["sh", "number.sh"]

[[events]]
on = "tab.moved"
command = ["sh", "number.sh"]

[[events]]
on = "workspace.created"
command = ["sh", "number.sh"]
"#;

const NUMBERS_SCRIPT: &str = r#"bin="$HERDR_BIN_PATH"
tab="$(printf '\t')"
# Each workspace by its place in the list, each tab by its place in its
# workspace.
rename() {
	while IFS="$tab" read -r id n label; do
		bare="$(printf '%s' "$label" | sed 's/^\[[0-9]*\] //')"
		[ "[$n] $bare" = "$label" ] || "$bin" "$1" rename "$id" "[$n] $bare" >/dev/null
	done
}
"$bin" workspace list |
	jq -r '.result.workspaces | to_entries[] | "\(.value.workspace_id)\t\(.key + 1)\t\(.value.label)"' |
	rename workspace
"$bin" tab list |
	jq -r '.result.tabs | group_by(.workspace_id)[] | to_entries[] | "\(.value.tab_id)\t\(.key + 1)\t\(.value.label)"' |
	rename tab
"#;

#[test]
fn a_plugin_numbers_tabs_and_workspaces_through_the_herdr_cli() {
    if !crate::common::tool_here(crate::common::installed("jq"), "jq") {
        return;
    }
    let server = TmuxServer::start();
    bare_repo(
        &server,
        "acme",
        "numbers",
        &[
            ("herdr-plugin.toml", NUMBERS_MANIFEST),
            ("number.sh", NUMBERS_SCRIPT),
        ],
    );
    let url = mirror(&server);
    server.load_plugin();
    let install = server.taw_with(
        &["plugin", "install", "acme/numbers", "--yes"],
        &[("TAW_GITHUB_URL", url.as_str())],
    );
    // Its startup did not run, and the person is told how to run it.
    let startup = &install.result()["startup"];
    assert_eq!(startup["ran"], false, "{startup}");
    let run_now = startup["run_now"].as_str().unwrap();
    assert!(
        run_now.starts_with("taw plugin startup --plugin "),
        "{run_now}"
    );
    assert!(install.stderr.contains(run_now), "{}", install.stderr);
    server.taw(&["plugin", "startup"]).result();
    let names = || {
        (
            server.tmux(&["list-windows", "-t", "$0", "-F", "#{window_name}"]),
            server.tmux(&["list-sessions", "-F", "#{session_name}"]),
        )
    };
    server.wait_for("the startup's numbers", WAIT, || {
        let (windows, sessions) = names();
        windows.starts_with("[1] ") && sessions.lines().any(|s| s == "[1] main")
    });
    // A tab and a workspace made: their events number them.
    server.tmux(&["new-window", "-d", "-t", "$0:", "-n", "second"]);
    server.tmux(&["new-session", "-d", "-s", "other"]);
    server.wait_for(
        "the new tab and workspace numbered",
        Duration::from_secs(20),
        || {
            let (windows, sessions) = names();
            windows.lines().any(|w| w == "[2] second") && sessions.lines().any(|s| s == "[2] other")
        },
    );
    // A window moved to the end by hand: its tab.moved numbers them again.
    let first = server.tmux(&["display-message", "-p", "-t", "$0:0", "#{window_id}"]);
    server.tmux(&["move-window", "-s", first.trim(), "-t", "$0:9"]);
    server.wait_for("the tabs numbered again", Duration::from_secs(20), || {
        let (windows, _) = names();
        let rows: Vec<&str> = windows.lines().collect();
        rows.len() == 2 && rows[0] == "[1] second" && rows[1].starts_with("[2] ")
    });
    // Swapped back by hand (`swap-window`, which tmux tells at the
    // session's next hook: a window selected): numbered again.
    let second = server.tmux(&["display-message", "-p", "-t", "$0:1", "#{window_id}"]);
    server.tmux(&["swap-window", "-d", "-s", first.trim(), "-t", second.trim()]);
    server.tmux(&["select-window", "-t", first.trim()]);
    server.wait_for(
        "the tabs numbered after the swap",
        Duration::from_secs(20),
        || {
            let (windows, _) = names();
            let rows: Vec<&str> = windows.lines().collect();
            rows.len() == 2 && rows[0].starts_with("[1] ") && rows[1] == "[2] second"
        },
    );
}

#[test]
fn update_fetches_only_a_new_commit_and_switches_to_it() {
    let server = TmuxServer::start();
    let first = bare_repo(
        &server,
        "acme",
        "tool",
        &[(
            "herdr-plugin.toml",
            &manifest_with_build("echo one > built"),
        )],
    );
    let url = mirror(&server);
    let env = [("TAW_GITHUB_URL", url.as_str())];
    server
        .taw_with(&["plugin", "install", "acme/tool", "--yes"], &env)
        .result();
    // The folders taw made are the user's alone.
    for folder in ["plugins", "plugins/github", "plugins/github/acme"] {
        let mode = crate::common::mode_of(&server.state_dir().join(folder));
        assert_eq!(mode & 0o777, 0o700, "{folder}: {mode:o}");
    }
    // Nothing new: unchanged, the same folder.
    let same = server
        .taw_with(&["plugin", "update", "--yes"], &env)
        .result();
    assert_eq!(same["plugins"][0]["status"], "unchanged");
    assert_eq!(
        github_folders(&server),
        vec![format!("tool@{}", &first[..12])]
    );
    // A new commit: fetched beside, built, switched to, the old folder gone.
    let second = bare_repo(
        &server,
        "acme",
        "tool",
        &[(
            "herdr-plugin.toml",
            &manifest_with_build("echo two > built"),
        )],
    );
    assert_ne!(first, second);
    let asked = server.taw_with(&["plugin", "update"], &env);
    assert_eq!(
        asked.status, 1,
        "no terminal: that plugin failed, {asked:?}"
    );
    assert_eq!(
        github_folders(&server),
        vec![format!("tool@{}", &first[..12])]
    );
    let updated = server
        .taw_with(&["plugin", "update", "acme.tool", "--yes"], &env)
        .result();
    assert_eq!(updated["plugins"][0]["status"], "updated");
    assert_eq!(updated["plugins"][0]["from"], first);
    assert_eq!(updated["plugins"][0]["to"], second);
    assert_eq!(
        github_folders(&server),
        vec![format!("tool@{}", &second[..12])]
    );
    let invoked = server
        .taw(&["plugin", "action", "invoke", "hello"])
        .result();
    assert_eq!(invoked["log"]["stdout"], "two\n");
    // A linked plugin is left alone, as herdr 0.9.4's update leaves one:
    // listed as linked, named or not, its folder as it was.
    let local = linked_plugin(
        &server,
        "local",
        "acme.local",
        "[[actions]]\nid = \"hi\"\ntitle = \"Hi\"\ncommand = [\"true\"]\n",
    );
    for named in [&[][..], &["acme.local"][..]] {
        let mut args = vec!["plugin", "update", "--yes"];
        args.extend_from_slice(named);
        let answer = server.taw_with(&args, &env).result();
        let local_row = answer["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["plugin_id"] == "acme.local")
            .cloned()
            .unwrap();
        assert_eq!(local_row["status"], "linked", "{answer}");
        assert!(local.join("herdr-plugin.toml").is_file());
    }
    // A pin whose folder is there asks GitHub nothing: the mirror may go.
    server
        .taw_with(
            &["plugin", "install", &format!("acme/tool@{second}"), "--yes"],
            &env,
        )
        .result();
    std::fs::remove_dir_all(server.dir.path().join("gh")).unwrap();
    let pinned = server
        .taw_with(&["plugin", "update", "--yes"], &env)
        .result();
    let tool = pinned["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["plugin_id"] == "acme.tool")
        .cloned()
        .unwrap();
    assert_eq!(tool["status"], "unchanged", "{pinned}");
    assert_eq!(
        server
            .taw_with(&["plugin", "update", "acme.nothing"], &env)
            .error_code(),
        "plugin_not_found"
    );
}

/// Installs `acme/<repo>` as a user would: a bare repository of `files`,
/// served as GitHub's through `TAW_GITHUB_URL`, installed with `--yes`.
fn install_own(server: &TmuxServer, repo: &str, files: &[(&str, &str)]) {
    bare_repo(server, "acme", repo, files);
    let url = mirror(server);
    server
        .taw_with(
            &["plugin", "install", &format!("acme/{repo}"), "--yes"],
            &[("TAW_GITHUB_URL", url.as_str())],
        )
        .result();
}

/// A plugin with 40 hooks on one event: each runs, at most 32 at once (as
/// herdr bounds its plugin commands), never 40 processes together; the
/// threads of one delivery make the plugins' program folder side by side.
#[test]
fn a_plugins_many_hooks_run_32_at_a_time() {
    let server = TmuxServer::start();
    server.load_plugin();
    let events: String = (0..40)
        .map(|n| format!("[[events]]\non = \"workspace.created\"\ncommand = [\"sh\", \"hook.sh\", \"{n}\"]\n\n"))
        .collect();
    let dir = server.dir.path().join("plugins-src/many");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("hook.sh"),
        "mkdir \"run.$1\"\nls -d run.* | wc -l >> counts\nif [ \"$1\" = 0 ]; then sleep 8; else sleep 1; fi\nrmdir \"run.$1\"\necho \"$1\" >> done\n",
    )
    .unwrap();
    linked_plugin(&server, "many", "test.many", &events);
    server
        .taw(&["workspace", "create", "--label", "more", "--no-focus"])
        .result();
    let done = dir.join("done");
    server.wait_for("every hook's run", WAIT, || {
        std::fs::read_to_string(&done).is_ok_and(|t| t.lines().count() >= 40)
    });
    let counts = std::fs::read_to_string(dir.join("counts")).unwrap();
    let most = counts
        .lines()
        .filter_map(|l| l.trim().parse::<usize>().ok())
        .max()
        .unwrap();
    assert!(most <= 32, "{most} at once: {counts}");
    // A place frees as a hook ends: the last eight start while the slow
    // first one still runs, and end before it.
    let done = std::fs::read_to_string(&done).unwrap();
    assert_eq!(done.lines().last(), Some("0"), "{done}");
}

/// An install never takes another plugin's place: an id installed from
/// another repository is refused (its record and folder stay), and an
/// update whose manifest names another id is refused (the old one kept,
/// no second one registered).
#[test]
fn an_install_or_update_never_takes_another_plugins_place() {
    let server = TmuxServer::start();
    let manifest = |id: &str| {
        format!("id = \"{id}\"\nname = \"X\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.7.1\"\n")
    };
    bare_repo(
        &server,
        "acme",
        "one",
        &[("herdr-plugin.toml", &manifest("acme.x"))],
    );
    bare_repo(
        &server,
        "other",
        "two",
        &[("herdr-plugin.toml", &manifest("acme.x"))],
    );
    let url = mirror(&server);
    let env = [("TAW_GITHUB_URL", url.as_str())];
    server
        .taw_with(&["plugin", "install", "acme/one", "--yes"], &env)
        .result();
    let taken = server.taw_with(&["plugin", "install", "other/two", "--yes"], &env);
    assert_eq!(taken.error_code(), "invalid_plugin_source", "{taken:?}");
    let listed = server.taw(&["plugin", "list"]).result().to_string();
    assert!(listed.contains("\"repo\":\"one\""), "{listed}");
    // The same repository, its manifest now naming another id.
    bare_repo(
        &server,
        "acme",
        "one",
        &[("herdr-plugin.toml", &manifest("acme.y"))],
    );
    let updated = server.taw_with(&["plugin", "update", "acme.x", "--yes"], &env);
    assert_eq!(updated.status, 1, "{updated:?}");
    let listed = server.taw(&["plugin", "list"]).result().to_string();
    assert!(
        listed.contains("acme.x") && !listed.contains("acme.y"),
        "{listed}"
    );
}

/// A plugin's subdir that is a link out of the fetched repository is
/// refused: the folder shown and trusted would not be the commit's.
#[test]
fn a_subdir_linked_out_of_the_repository_is_refused() {
    use crate::common::repos::{git, mirror, mirror_of};
    let server = TmuxServer::start();
    let elsewhere = server.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(
        elsewhere.join("herdr-plugin.toml"),
        "id = \"acme.else\"\nname = \"Else\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.7.1\"\n",
    )
    .unwrap();
    let work = server.dir.path().join("src-repos/acme/linked");
    std::fs::create_dir_all(&work).unwrap();
    std::os::unix::fs::symlink(&elsewhere, work.join("sub")).unwrap();
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "plugin"]);
    mirror_of(&server, &work, "acme", "linked");
    let url = mirror(&server);
    let run = server.taw_with(
        &["plugin", "install", "acme/linked/sub", "--yes"],
        &[("TAW_GITHUB_URL", url.as_str())],
    );
    assert_eq!(run.error_code(), "invalid_plugin_manifest_path", "{run:?}");
    let listed = server.taw(&["plugin", "list"]).result();
    assert!(!listed.to_string().contains("acme.else"), "{listed}");
}

/// A plugin of id `id` in `plugins-src/<folder>`, its manifest's head and
/// then `rest`, linked; its folder.
fn linked_plugin(server: &TmuxServer, folder: &str, id: &str, rest: &str) -> PathBuf {
    let dir = server.dir.path().join("plugins-src").join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("herdr-plugin.toml"),
        format!(
            "id = \"{id}\"\nname = \"{folder}\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.7.1\"\n\n{rest}"
        ),
    )
    .unwrap();
    server
        .taw(&["plugin", "link", dir.to_str().unwrap()])
        .result();
    dir
}

#[test]
fn actions_are_found_by_id_and_run_for_a_workspace() {
    let server = TmuxServer::start();
    let action = |id: &str| {
        format!(
            "[[actions]]\nid = \"go\"\ntitle = \"Go\"\ncommand = [\"sh\", \"-c\", \"echo $HERDR_WORKSPACE_ID $HERDR_PANE_ID {id}\"]\n"
        )
    };
    linked_plugin(&server, "one", "acme.one", &action("one"));
    linked_plugin(&server, "two", "acme.two", &action("two"));
    // `go` is both plugins': name one.
    let both = server.taw(&["plugin", "action", "invoke", "go"]);
    assert_eq!(both.error_code(), "ambiguous_plugin_action");
    let qualified = server
        .taw(&[
            "plugin",
            "action",
            "invoke",
            "acme.two.go",
            "--workspace",
            "w1",
        ])
        .result();
    assert_eq!(qualified["log"]["stdout"], "w1 w1:p1 two\n");
    let chosen = server
        .taw(&[
            "plugin", "action", "invoke", "go", "--plugin", "acme.one", "--tab", "@0",
        ])
        .result();
    assert_eq!(chosen["log"]["stdout"], "w1 w1:p1 one\n");
    assert_eq!(
        server
            .taw(&["plugin", "action", "invoke", "nope"])
            .error_code(),
        "plugin_action_not_found"
    );
    linked_plugin(
        &server,
        "elsewhere",
        "acme.elsewhere",
        "[[actions]]\nid = \"win\"\ntitle = \"Win\"\nplatforms = [\"windows\"]\ncommand = [\"true\"]\n",
    );
    assert_eq!(
        server
            .taw(&["plugin", "action", "invoke", "win"])
            .error_code(),
        "platform_unsupported"
    );
}

/// A pane's program named by a relative path is the plugin's own, found
/// in its folder as an action's is, whatever folder the pane opens in: a
/// `bin/tool` of the `--cwd` folder is never run.
#[test]
fn a_plugin_panes_own_program_is_found_in_its_folder_not_its_cwd() {
    use std::os::unix::fs::PermissionsExt;
    let server = TmuxServer::start();
    server.load_plugin();
    let ran = server.dir.path().join("ran");
    let tool = |dir: &std::path::Path, who: &str| {
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        let path = dir.join("bin/tool");
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\necho {who} \"$PWD\" > '{}'\nexec sleep 300\n",
                ran.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let project = server.dir.path().join("project");
    tool(&project, "impostor");
    let dir = server.dir.path().join("plugins-src/tooled");
    tool(&dir, "own");
    linked_plugin(
        &server,
        "tooled",
        "test.tooled",
        "[[panes]]\nid = \"side\"\ntitle = \"Side\"\nplacement = \"split\"\ncommand = [\"./bin/tool\"]\n",
    );
    server
        .taw(&[
            "plugin",
            "pane",
            "open",
            "--plugin",
            "test.tooled",
            "--entrypoint",
            "side",
            "--target-pane",
            "%0",
            "--cwd",
            project.to_str().unwrap(),
            "--no-focus",
        ])
        .result();
    server.wait_for("the pane's program", WAIT, || {
        std::fs::read_to_string(&ran).is_ok_and(|t| t.ends_with('\n'))
    });
    let said = std::fs::read_to_string(&ran).unwrap();
    assert_eq!(said, format!("own {}\n", project.display()));
}

/// A `tab` placement opens a window whatever its entry's title: a title
/// tmux would not keep as a window's name (`$`, `\`) leaves the window
/// unnamed instead of refusing to open.
#[test]
fn a_tab_placement_opens_whatever_its_title() {
    let server = TmuxServer::start();
    linked_plugin(
        &server,
        "costs",
        "test.costs",
        "[[panes]]\nid = \"bill\"\ntitle = \"Cost $5 \\\\ month\"\nplacement = \"tab\"\ncommand = [\"sleep\", \"300\"]\n",
    );
    let before = server.tmux(&["list-windows", "-a", "-F", "#{window_id}"]);
    let opened = server
        .taw(&[
            "plugin",
            "pane",
            "open",
            "--plugin",
            "test.costs",
            "--entrypoint",
            "bill",
            "--target-pane",
            "%0",
            "--no-focus",
        ])
        .result();
    let pane = opened["plugin_pane"]["pane"]["pane_id"].as_str().unwrap();
    // The pane's label, an option of taw's, holds it as written.
    assert_eq!(opened["plugin_pane"]["pane"]["label"], "Cost $5 \\ month");
    let after = server.tmux(&["list-windows", "-a", "-F", "#{window_id}"]);
    assert_eq!(after.lines().count(), before.lines().count() + 1, "{after}");
    let listed = server.taw(&["pane", "get", pane]).result();
    assert_eq!(listed["pane"]["pane_id"], pane);
}

#[test]
fn plugin_panes_open_focus_and_close() {
    let server = TmuxServer::start();
    server.load_plugin();
    let dir = linked_plugin(
        &server,
        "panes",
        "test.panes",
        r#"[[panes]]
id = "side"
title = "Side"
placement = "side"
command = ["sh", "-c", "\"$HERDR_BIN_PATH\" pane current > current.json; env | grep -E '^(HERDR|TAW)_' > pane.env; pwd >> pane.env; exec sleep 300"]
"#,
    );
    // Another tab in front: the pane comes in front with its tab, as
    // herdr's CLI focuses a plugin pane unless told --no-focus.
    let elsewhere = server.new_window("main", "elsewhere", "");
    server.tmux(&["select-window", "-t", &elsewhere]);
    let opened = server
        .taw_with(
            &[
                "plugin",
                "pane",
                "open",
                "--plugin",
                "test.panes",
                "--entrypoint",
                "side",
                "--target-pane",
                "%0",
                "--env",
                "EXTRA=1 2",
                "--env",
                "HERDR_PLUGIN_ID=evil",
            ],
            &[("HERDR_SOCKET_PATH", "/tmp/herdr.sock")],
        )
        .result();
    assert_eq!(opened["type"], "plugin_pane_opened");
    assert_eq!(opened["plugin_pane"]["plugin_id"], "test.panes");
    assert_eq!(opened["plugin_pane"]["entrypoint"], "side");
    let pane = opened["plugin_pane"]["pane"]["tmux_id"]
        .as_str()
        .unwrap()
        .to_string();
    let env_file = dir.join("pane.env");
    server.wait_for("the pane's command", WAIT, || {
        std::fs::read_to_string(&env_file).is_ok_and(|t| {
            t.lines()
                .last()
                .is_some_and(|l| l.ends_with("plugins-src/panes"))
        })
    });
    let text = std::fs::read_to_string(&env_file).unwrap();
    assert!(text.contains("HERDR_PLUGIN_ID=test.panes"), "{text}");
    assert!(text.contains("TAW_PLUGIN_ID=test.panes"), "{text}");
    // Its own ids, as herdr gives a plugin pane; its context still names
    // the pane it was opened for.
    let own = opened["plugin_pane"]["pane"]["pane_id"].as_str().unwrap();
    assert_ne!(own, "w1:p1");
    assert!(text.contains(&format!("HERDR_PANE_ID={own}\n")), "{text}");
    assert!(text.contains(&format!("TAW_PANE_ID={own}\n")), "{text}");
    assert!(text.contains("HERDR_TAB_ID=w1:t1\n"), "{text}");
    assert!(text.contains("HERDR_WORKSPACE_ID=w1\n"), "{text}");
    assert!(text.contains("HERDR_PLUGIN_ENTRYPOINT_ID=side\n"), "{text}");
    assert!(text.contains("\"focused_pane_id\":\"w1:p1\""), "{text}");
    // `pane current` in it answers it (its HERDR_PANE_ID).
    let current: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("current.json")).unwrap()).unwrap();
    assert_eq!(current["result"]["pane"]["pane_id"], own);
    // Labelled with its entry's title, as herdr labels it.
    assert_eq!(opened["plugin_pane"]["pane"]["label"], "Side");
    assert_eq!(
        server.taw(&["pane", "get", &pane]).result()["pane"]["label"],
        "Side"
    );
    assert!(!text.contains("SOCKET_PATH"), "{text}");
    assert!(!text.contains("HERDR_PLUGIN_ACTION_ID"), "{text}");
    assert!(!text.contains("TAW_STRAY"), "{text}");
    assert!(!text.contains("evil"), "taw's own variables win: {text}");
    assert!(
        text.lines().last().unwrap().ends_with("plugins-src/panes"),
        "{text}"
    );
    // Beside %0, in its window, in front.
    assert_eq!(
        server.display(&pane, "#{window_id}"),
        server.display("%0", "#{window_id}")
    );
    assert_eq!(server.display("main:", "#{pane_id}"), pane);
    // --no-focus: made beside it, the front as it was.
    server.tmux(&["select-window", "-t", &elsewhere]);
    let unfocused = server
        .taw(&[
            "plugin",
            "pane",
            "open",
            "--plugin",
            "test.panes",
            "--entrypoint",
            "side",
            "--target-pane",
            "%0",
            "--no-focus",
        ])
        .result();
    let quiet = unfocused["plugin_pane"]["pane"]["tmux_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(server.display("main:", "#{pane_id}"), elsewhere);
    assert_eq!(server.display(&quiet, "#{pane_active}"), "0");
    server.tmux(&["kill-pane", "-t", &quiet]);
    let focused = server.taw(&["plugin", "pane", "focus", &pane]).result();
    assert_eq!(focused["type"], "plugin_pane_focused");
    assert_eq!(server.display(&pane, "#{pane_active}"), "1");
    // A pane that is no plugin's is refused; a plugin's closes, unasked.
    server.write_config("[hooks]\npre_close = \"exit 1\"\n");
    assert_eq!(
        server.taw(&["plugin", "pane", "close", "%0"]).error_code(),
        "plugin_pane_not_found"
    );
    let closed = server.taw(&["plugin", "pane", "close", &pane]).result();
    assert_eq!(closed["type"], "plugin_pane_closed");
    server.wait_for("the pane gone", WAIT, || {
        !server
            .tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
            .lines()
            .any(|p| p == pane)
    });
    let missing = server.taw(&[
        "plugin",
        "pane",
        "open",
        "--plugin",
        "test.panes",
        "--entrypoint",
        "nope",
        "--target-pane",
        "%0",
    ]);
    assert_eq!(missing.error_code(), "invalid_plugin_entrypoint");
}

#[test]
fn an_overlay_opens_as_a_popup_over_the_client() {
    let server = TmuxServer::start();
    let dir = linked_plugin(
        &server,
        "popup",
        "test.popup",
        r#"[[panes]]
id = "peek"
title = "Peek"
command = ["sh", "-c", "echo \"$HERDR_PLUGIN_EVENT\" > shown; exec sleep 300"]
"#,
    );
    let viewer = crate::common::attach_client(&server, "main");
    let shown = server
        .taw(&[
            "plugin",
            "pane",
            "open",
            "--plugin",
            "test.popup",
            "--entrypoint",
            "peek",
            "--target-pane",
            "%0",
        ])
        .result();
    assert_eq!(shown["type"], "ok");
    server.wait_for("the popup's command", WAIT, || {
        std::fs::read_to_string(dir.join("shown")).is_ok_and(|t| t.trim() == "action")
    });
    let client = server.tmux(&["list-clients", "-F", "#{client_name}"]);
    server.tmux(&["display-popup", "-C", "-c", client.trim()]);
    drop(viewer);
}

#[test]
fn the_first_load_runs_the_startup_commands_and_a_reload_does_not() {
    let server = TmuxServer::start();
    let dir = env_plugin(&server, "test.envdump");
    server
        .taw(&["plugin", "link", dir.to_str().unwrap()])
        .result();
    server.load_plugin();
    server.wait_for("the startup hook", WAIT, || {
        dumped(&server, "test.envdump", "startup").is_some()
    });
    // The run is logged when it ends, after its dump; other hooks of the
    // plugin (a tab made) may be logged meanwhile: only startups count.
    let startups = || {
        let events = plugin_run_events(&server, None);
        events.iter().filter(|event| *event == "startup").count()
    };
    server.wait_for("the startup run logged", WAIT, || startups() == 1);
    server.load_plugin();
    server.stays_for("no second startup", Duration::from_millis(700), || {
        startups() == 1
    });
}

#[test]
fn at_a_terminal_n_installs_nothing_and_y_installs() {
    let server = TmuxServer::start();
    bare_repo(
        &server,
        "acme",
        "tool",
        &[("herdr-plugin.toml", &manifest_with_build("echo ok > built"))],
    );
    let url = mirror(&server);
    let done = server.dir.path().join("done");
    // The install runs in a pane: a terminal to ask on.
    let line = |answer: &str| {
        format!(
            "TAW_GITHUB_URL='{url}' '{}' plugin install acme/tool > /dev/null; echo $? > '{}-{answer}'",
            crate::common::taw_bin().display(),
            done.display()
        )
    };
    for (answer, installed) in [("n", false), ("y", true)] {
        let pane = server.new_window("main", answer, "");
        server.wait_for("a prompt", WAIT, || {
            !server
                .tmux(&["capture-pane", "-p", "-t", &pane])
                .trim()
                .is_empty()
        });
        server.tmux(&["send-keys", "-t", &pane, "-l", &line(answer)]);
        server.tmux(&["send-keys", "-t", &pane, "Enter"]);
        let marker = PathBuf::from(format!("{}-{answer}", done.display()));
        server.wait_for("the question", WAIT, || {
            server
                .tmux(&["capture-pane", "-p", "-t", &pane])
                .contains("Install this plugin? [y/N]")
                || marker.exists()
        });
        server.tmux(&["send-keys", "-t", &pane, answer, "Enter"]);
        server.wait_for("the install to end", WAIT, || {
            std::fs::read_to_string(&marker).is_ok_and(|text| !text.trim().is_empty())
        });
        let status = std::fs::read_to_string(&marker).unwrap();
        assert_eq!(status.trim(), if installed { "0" } else { "1" });
        let listed = server.taw(&["plugin", "list"]).result()["plugins"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(listed, usize::from(installed));
        assert_eq!(github_folders(&server).len(), usize::from(installed));
    }
}

/// What real herdr plugins rely on (issue 25): a build sees a user's own
/// HERDR_* setting and no socket path; `pane current` answers the pane
/// HERDR_PANE_ID names; the worktree verbs take herdr's `--json`; a
/// failed action exits 1; an action of a plugin whose manifest no longer
/// reads says why; a popup gets its entrypoint's id and no pane id.
#[test]
fn herdrs_contract_where_real_plugins_lean_on_it() {
    let server = TmuxServer::start();
    bare_repo(
        &server,
        "acme",
        "tool",
        &[(
            "herdr-plugin.toml",
            &manifest_with_build("env | grep -E '^(HERDR|TAW)_' > build.env; echo ok > built"),
        )],
    );
    let url = mirror(&server);
    server
        .taw_with(
            &["plugin", "install", "acme/tool", "--yes"],
            &[
                ("TAW_GITHUB_URL", url.as_str()),
                ("HERDR_TOOL_DOWNLOAD_URL", "file:///mirror"),
                ("HERDR_SOCKET_PATH", "/tmp/herdr.sock"),
            ],
        )
        .result();
    let build = walk_for(&server.state_dir().join("plugins"), "build.env").expect("the build ran");
    let built = std::fs::read_to_string(build).unwrap();
    assert!(
        built.contains("HERDR_TOOL_DOWNLOAD_URL=file:///mirror\n"),
        "{built}"
    );
    assert!(!built.contains("SOCKET_PATH"), "{built}");

    // `pane current` under a HERDR_PANE_ID names that pane, not the
    // focused one; `%calling` is the pane taw runs in.
    let other = server.new_window("main", "other", "");
    let other_id = server.taw(&["pane", "get", &other]).result()["pane"]["pane_id"].clone();
    let id = other_id.as_str().unwrap();
    let current = server
        .taw_with(&["pane", "current"], &[("HERDR_PANE_ID", id)])
        .result();
    assert_eq!(current["pane"]["pane_id"], other_id);
    let focused = server
        .taw_with(&["pane", "current"], &[("HERDR_PANE_ID", "%calling")])
        .result();
    assert_ne!(focused["pane"]["pane_id"], other_id);
    // In a pane, `%calling` (the HERDR_PANE_ID tmux's environment gives
    // it) names that pane for every verb that takes a pane id, as the
    // pane's own id does under herdr (pouch's `herdr-pouch add`).
    let tmux_env = format!("{},1,0", server.socket_path_of_server());
    let in_pane = [("TMUX", tmux_env.as_str()), ("TMUX_PANE", other.as_str())];
    let got = server
        .taw_with(&["pane", "get", "%calling"], &in_pane)
        .result();
    assert_eq!(got["pane"]["pane_id"], other_id);
    let agentless = server.taw_with(&["agent", "get", "%calling"], &in_pane);
    assert_eq!(agentless.error_code(), "agent_not_found");

    // --json on the worktree verbs.
    let repo = server.dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    for args in [
        vec!["init", "-q", "-b", "main"],
        vec![
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "one",
        ],
    ] {
        let ran = std::process::Command::new("git")
            .args(&args)
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(ran.status.success(), "{ran:?}");
    }
    let cwd = repo.display().to_string();
    let listed = server
        .taw(&["worktree", "list", "--cwd", &cwd, "--json"])
        .result();
    assert_eq!(listed["type"], "worktree_list");

    // A failed action: exit 1, the envelope saying why.
    linked_plugin(
        &server,
        "fails",
        "acme.fails",
        "[[actions]]\nid = \"no\"\ntitle = \"No\"\ncommand = [\"sh\", \"-c\", \"echo nope >&2; exit 3\"]\n\n[[panes]]\nid = \"peek\"\ntitle = \"Peek\"\ncommand = [\"sh\", \"-c\", \"env > peek.env; exec sleep 300\"]\n",
    );
    let failed = server.taw(&["plugin", "action", "invoke", "acme.fails.no"]);
    assert_eq!(failed.status, 1, "{failed:?}");
    let log = &failed.json()["result"]["log"];
    assert_eq!(log["status"], "failed");
    assert_eq!(log["exit_code"], 3);

    // A popup: its entrypoint's id, no pane id of its own or the target's.
    let dir = server.dir.path().join("plugins-src/fails");
    let _viewer = crate::common::attach_client(&server, "main");
    server
        .taw(&[
            "plugin",
            "pane",
            "open",
            "--plugin",
            "acme.fails",
            "--entrypoint",
            "peek",
            "--placement",
            "popup",
            "--target-pane",
            "%0",
        ])
        .result();
    // Whole: the shell makes the file before `env` writes it.
    server.wait_for("the popup's command", WAIT, || {
        std::fs::read_to_string(dir.join("peek.env"))
            .is_ok_and(|t| t.contains("HERDR_WORKSPACE_ID="))
    });
    let peek = std::fs::read_to_string(dir.join("peek.env")).unwrap();
    assert!(peek.contains("HERDR_PLUGIN_ENTRYPOINT_ID=peek\n"), "{peek}");
    assert!(!peek.contains("HERDR_PANE_ID="), "{peek}");
    assert!(peek.contains("HERDR_WORKSPACE_ID=w1\n"), "{peek}");

    // Its manifest broken, an action named in it says why.
    std::fs::write(dir.join("herdr-plugin.toml"), "id = ").unwrap();
    assert_eq!(
        server
            .taw(&["plugin", "action", "invoke", "acme.fails.no"])
            .error_code(),
        "plugin_manifest_parse_failed"
    );
}

fn walk_for(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = walk_for(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// A plugin is its folder: one whose manifest, or a program of its own a
/// command names, is a link (or `..`) out of it is refused at link and at
/// install, and nothing is registered.
#[test]
fn a_manifest_or_program_that_leads_out_of_the_plugin_is_refused() {
    let server = TmuxServer::start();
    let head =
        "id = \"acme.out\"\nname = \"out\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.7.1\"\n";
    let outside = server.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("herdr-plugin.toml"), head).unwrap();
    std::fs::write(outside.join("run"), "#!/bin/sh\necho out\n").unwrap();

    // Its manifest a link to another folder's, named by the folder or
    // by the file.
    let linked = server.dir.path().join("plugins-src/linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(
        outside.join("herdr-plugin.toml"),
        linked.join("herdr-plugin.toml"),
    )
    .unwrap();
    for path in [linked.clone(), linked.join("herdr-plugin.toml")] {
        let refused = server.taw(&["plugin", "link", path.to_str().unwrap()]);
        assert_eq!(
            refused.error_code(),
            "invalid_plugin_manifest_path",
            "{refused:?}"
        );
    }
    // A program of its own that is a link out, or a way out with `..`, or
    // a link out to a file nobody made yet (another user could).
    for (name, program, target) in [
        ("viaLink", "./run", outside.join("run")),
        ("viaDots", "../../outside/run", outside.join("run")),
        ("viaDangling", "./run", outside.join("not-yet")),
    ] {
        let dir = server.dir.path().join("plugins-src").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("herdr-plugin.toml"),
            format!(
                "{head}\n[[actions]]\nid = \"go\"\ntitle = \"Go\"\ncommand = [\"{program}\"]\n"
            ),
        )
        .unwrap();
        std::os::unix::fs::symlink(&target, dir.join("run")).unwrap();
        let refused = server.taw(&["plugin", "link", dir.to_str().unwrap()]);
        assert_eq!(
            refused.error_code(),
            "invalid_plugin_command",
            "{refused:?}"
        );
    }

    // Installed from a repository whose manifest is a link out.
    let work = server.dir.path().join("src-repos/acme/out");
    std::fs::create_dir_all(&work).unwrap();
    std::os::unix::fs::symlink(
        outside.join("herdr-plugin.toml"),
        work.join("herdr-plugin.toml"),
    )
    .unwrap();
    let git = crate::common::repos::git;
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "plugin"]);
    crate::common::repos::mirror_of(&server, &work, "acme", "out");
    let url = mirror(&server);
    let refused = server.taw_with(
        &["plugin", "install", "acme/out", "--yes"],
        &[("TAW_GITHUB_URL", url.as_str())],
    );
    assert_eq!(
        refused.error_code(),
        "invalid_plugin_manifest_path",
        "{refused:?}"
    );
    assert_eq!(
        server.taw(&["plugin", "list"]).result()["plugins"],
        serde_json::json!([])
    );
}

const BY_NAME_MANIFEST: &str = r#"id = "acme.byname"
name = "By name"
version = "1.0.0"
min_herdr_version = "0.7.1"

[[build]]
command = ["sh", "by-name.sh", "build"]

[[startup]]
command = ["sh", "by-name.sh", "startup"]

[[actions]]
id = "list"
title = "List the workspaces"
command = ["herdr", "workspace", "list"]

[[events]]
on = "tab.created"
command = ["sh", "by-name.sh", "event"]

[[panes]]
id = "side"
title = "Side"
placement = "side"
command = ["sh", "by-name.sh", "pane", "wait"]

[[panes]]
id = "peek"
title = "Peek"
placement = "overlay"
command = ["sh", "by-name.sh", "overlay", "wait"]
"#;

/// Runs `herdr` and `taw` by name, as herdr's plugins do, and says where
/// it found them.
const BY_NAME_SCRIPT: &str = r#"out="${HERDR_PLUGIN_STATE_DIR:-.}/$1"
{
	command -v herdr
	command -v taw
	herdr workspace list >/dev/null && echo answered
} > "$out.tmp" 2>&1
mv "$out.tmp" "$out.found"
[ "$2" = wait ] && exec sleep 300
exit 0
"#;

/// herdr runs a plugin's commands with herdr itself on PATH, and plugins
/// run it by name: every plugin process of taw's finds `herdr` (and
/// `taw`) as this taw, first on its PATH, in a folder that holds nothing
/// else; the user's panes and [hooks] do not.
#[test]
fn every_plugin_process_runs_herdr_by_name() {
    let server = TmuxServer::start();
    let viewer = crate::common::attach_client(&server, "main");
    server.write_config("[hooks]\n\"tab.created\" = \"echo \\\"$PATH\\\" > hook-path\"\n");
    server.load_plugin();
    install_own(
        &server,
        "byname",
        &[
            ("herdr-plugin.toml", BY_NAME_MANIFEST),
            ("by-name.sh", BY_NAME_SCRIPT),
        ],
    );
    let programs = std::fs::canonicalize(server.state_dir())
        .unwrap()
        .join("plugins/bin");
    let mut names: Vec<String> = std::fs::read_dir(&programs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["herdr", "taw"]);
    let taw = std::fs::canonicalize(crate::common::taw_bin()).unwrap();
    for name in &names {
        assert_eq!(std::fs::canonicalize(programs.join(name)).unwrap(), taw);
    }
    let expected = format!(
        "{}\n{}\nanswered\n",
        programs.join("herdr").display(),
        programs.join("taw").display()
    );
    let state = server.state_dir().join("plugins/state/acme.byname");
    let found = |what: &str| {
        std::fs::read_to_string(state.join(format!("{what}.found"))).unwrap_or_default()
    };
    // The build finds them too (taw's own answer there is not asked: a
    // build runs for no tmux server).
    assert!(
        found("build").starts_with(&expected[..expected.len() - "answered\n".len()]),
        "{}",
        found("build")
    );

    server.taw(&["plugin", "startup"]).result();
    assert_eq!(found("startup"), expected);
    let action = server
        .taw(&["plugin", "action", "invoke", "acme.byname.list"])
        .result();
    assert_eq!(action["log"]["status"], "succeeded", "{action}");
    assert!(
        action["log"]["stdout"]
            .as_str()
            .unwrap()
            .contains("\"workspaces\""),
        "{action}"
    );
    server.tmux(&["new-window", "-d", "-t", "main:"]);
    server.wait_for("the event hook", WAIT, || found("event") == expected);
    for (entry, what) in [("side", "pane"), ("peek", "overlay")] {
        server
            .taw(&[
                "plugin",
                "pane",
                "open",
                "--plugin",
                "acme.byname",
                "--entrypoint",
                entry,
                "--target-pane",
                "%0",
            ])
            .result();
        server.wait_for(what, WAIT, || found(what) == expected);
    }
    // None of it reaches tmux's environment, a user's pane or [hooks].
    let hook_path = server.dir.path().join("home/hook-path");
    server.wait_for("the user's hook", WAIT, || {
        std::fs::read_to_string(&hook_path).is_ok_and(|text| text.ends_with('\n'))
    });
    let hook_path = std::fs::read_to_string(hook_path).unwrap();
    assert!(!hook_path.contains("plugins/bin"), "{hook_path}");
    assert!(
        !server
            .tmux(&["show-environment", "-g", "PATH"])
            .contains("plugins/bin")
    );
    drop(viewer);
}

/// A navigator's sessions source: `herdr session list --json`, herdr's
/// line with no envelope, from a plugin's action. Every tmux server of the
/// user's socket folder is a session: its name, whether it runs, its
/// socket, its workspaces and clients.
#[test]
fn session_list_answers_herdrs_line_from_a_plugin() {
    let server = TmuxServer::start();
    // Another server in the same socket folder.
    let other = format!("{}-other", server.socket);
    server.tmux(&["-L", &other, "new-session", "-d", "-s", "work"]);
    // A socket nobody answers on: a server that died.
    let folder = std::fs::canonicalize(server.socket_path())
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    drop(std::os::unix::net::UnixListener::bind(folder.join("gone")).unwrap());
    let viewer = crate::common::attach_client(&server, "main");
    install_own(
        &server,
        "navigator",
        &[(
            "herdr-plugin.toml",
            "id = \"acme.navigator\"\nname = \"Navigator\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.9.0\"\n\n[[actions]]\nid = \"sessions\"\ntitle = \"Sessions\"\ncommand = [\"herdr\", \"session\", \"list\", \"--json\"]\n",
        )],
    );
    let invoked = server
        .taw(&["plugin", "action", "invoke", "acme.navigator.sessions"])
        .result();
    let stdout = invoked["log"]["stdout"].as_str().unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let listed: Value = serde_json::from_str(stdout).unwrap();
    let sessions = listed["sessions"].as_array().unwrap();
    let find = |name: &str| {
        sessions
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} in {listed}"))
    };
    let mine = find(&server.socket);
    assert_eq!(mine["running"], true);
    assert_eq!(mine["default"], false);
    assert_eq!(mine["workspaces"], serde_json::json!(["main"]));
    assert_eq!(mine["clients"], 1);
    assert_eq!(
        mine["socket_path"],
        folder.join(&server.socket).display().to_string()
    );
    assert_eq!(mine["session_dir"], folder.display().to_string());
    assert_eq!(find(&other)["workspaces"], serde_json::json!(["work"]));
    let gone = find("gone");
    assert_eq!(gone["running"], false);
    assert_eq!(gone["workspaces"], serde_json::json!([]));
    // For a person: herdr's table.
    let table = server.taw(&["session", "list"]).stdout;
    assert!(table.starts_with("name "), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("gone ") && l.contains(" stopped ")),
        "{table}"
    );
    server.tmux(&["-L", &other, "kill-server"]);
    drop(viewer);
}

/// A navigator's workspaces: it makes one labelled `dir: <folder>` and
/// finds it again by that label. tmux holds the session as `dir_ demo`;
/// the label stays as given in every record, event and context, a rename
/// keeps it too, and a rename by hand in tmux renames the workspace.
#[test]
fn a_workspace_label_is_kept_as_given() {
    let server = TmuxServer::start();
    let made = server.dir.path().join("made.json");
    server.write_config(&format!(
        "[hooks]\n\"workspace.created\" = \"cat > '{}'\"\n",
        made.display()
    ));
    let demo = server.dir.path().join("demo");
    std::fs::create_dir_all(&demo).unwrap();
    server.load_plugin();
    install_own(
        &server,
        "dirs",
        &[
            (
                "herdr-plugin.toml",
                "id = \"acme.dirs\"\nname = \"Dirs\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.9.0\"\n\n[[actions]]\nid = \"open\"\ntitle = \"Open\"\ncommand = [\"sh\", \"open.sh\"]\n",
            ),
            (
                "open.sh",
                "herdr workspace create --cwd \"$DEMO\" --label \"dir: $(basename \"$DEMO\")\" --no-focus >/dev/null\nherdr workspace list\n",
            ),
        ],
    );
    server.tmux(&["set-environment", "-g", "DEMO", demo.to_str().unwrap()]);
    let invoked = server
        .taw(&["plugin", "action", "invoke", "acme.dirs.open"])
        .result();
    let listed: Value = serde_json::from_str(invoked["log"]["stdout"].as_str().unwrap()).unwrap();
    let workspaces = listed["result"]["workspaces"].as_array().unwrap();
    let made_one = workspaces
        .iter()
        .find(|w| w["label"] == "dir: demo")
        .unwrap_or_else(|| panic!("{listed}"));
    let session = made_one["tmux_id"].as_str().unwrap().to_string();
    assert!(
        server
            .tmux(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .any(|s| s == "dir_ demo")
    );
    // The event and its context say the label.
    // Written by the hook's `cat` as it reads: whole once it parses.
    let read_made = || {
        std::fs::read_to_string(&made)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
    };
    server.wait_for("workspace.created", WAIT, || read_made().is_some());
    let event = read_made().unwrap();
    assert_eq!(event["data"]["workspace"]["label"], "dir: demo", "{event}");
    assert_eq!(event["workspace_label"], "dir: demo", "{event}");
    // Renamed by taw: kept as given; by hand in tmux: tmux's name.
    server
        .taw(&["workspace", "rename", &session, "project:", "api.v2"])
        .result();
    let get =
        |id: &str| server.taw(&["workspace", "get", id]).result()["workspace"]["label"].clone();
    assert_eq!(get(&session), "project: api.v2");
    // Saved and made again by a restore: the label comes back.
    // (A layout of its own: autosave rewrites the default one as the
    // session closes.)
    server
        .taw(&["session", "save", "--name", "labels"])
        .result();
    server.tmux(&["kill-session", "-t", &session]);
    server
        .taw(&["session", "restore", "--name", "labels"])
        .result();
    let session = server.display("project_ api_v2:", "#{session_id}");
    assert_eq!(get(&session), "project: api.v2");
    server.tmux(&["rename-session", "-t", "project_ api_v2", "mine"]);
    assert_eq!(get(&session), "mine");
    // A label taken by another workspace: both keep it.
    let again = server
        .taw(&[
            "workspace",
            "create",
            "--label",
            "main",
            "--cwd",
            demo.to_str().unwrap(),
            "--no-focus",
        ])
        .result();
    assert_eq!(again["workspace"]["label"], "main");
}

/// A picker in an overlay hands over to a viewer in another: tmux shows
/// one popup a client, so the viewer opens once the picker has closed,
/// and the picker is told it is queued. An overlay asked for while one is
/// open, from outside it, is refused: tmux would show nothing.
#[test]
fn an_overlay_opened_from_an_overlay_opens_when_it_closes() {
    let server = TmuxServer::start();
    let viewer = crate::common::attach_client(&server, "main");
    server.load_plugin();
    install_own(
        &server,
        "preview",
        &[
            (
                "herdr-plugin.toml",
                "id = \"acme.preview\"\nname = \"Preview\"\nversion = \"1.0.0\"\nmin_herdr_version = \"0.9.0\"\n\n[[panes]]\nid = \"picker\"\ntitle = \"Pick\"\nplacement = \"overlay\"\ncommand = [\"sh\", \"picker.sh\"]\n\n[[panes]]\nid = \"viewer\"\ntitle = \"View\"\nplacement = \"overlay\"\ncommand = [\"sh\", \"viewer.sh\"]\n",
            ),
            (
                "picker.sh",
                "herdr plugin pane open --plugin acme.preview --entrypoint viewer > \"$HERDR_PLUGIN_STATE_DIR/handed.json\" 2>&1\n",
            ),
            (
                "viewer.sh",
                "echo shown > \"$HERDR_PLUGIN_STATE_DIR/viewer\"\nexec sleep 300\n",
            ),
        ],
    );
    let state = server.state_dir().join("plugins/state/acme.preview");
    let open_with = |entry: &str, env: &[(&str, &str)]| {
        server.taw_with(
            &[
                "plugin",
                "pane",
                "open",
                "--plugin",
                "acme.preview",
                "--entrypoint",
                entry,
            ],
            env,
        )
    };
    let open = |entry: &str| open_with(entry, &[]);
    // The picker's opener is slow to wait for its start (a busy machine):
    // the picker has started and handed over before it waits, and the
    // viewer still waits for the picker to close.
    let picked = open_with("picker", &[("TAW_TEST_POPUP_WAIT_DELAY_MS", "1000")]).result();
    assert_eq!(picked["type"], "ok");
    assert_eq!(picked["queued"], false);
    server.wait_for_or_say(
        "the viewer, after the picker",
        WAIT,
        || state.join("viewer").exists(),
        || {
            let handed = std::fs::read_to_string(state.join("handed.json"));
            let waiting = std::process::Command::new("pgrep")
                .args(["-af", "after-popup"])
                .output()
                .map(|out| String::from_utf8_lossy(&out.stdout).into_owned());
            format!(
                "handed: {handed:?}\nclients: {}\nwaiting for a popup to close: {waiting:?}",
                server.tmux(&["list-clients", "-F", "#{client_name} #{client_flags}"])
            )
        },
    );
    let handed: Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("handed.json")).unwrap()).unwrap();
    assert_eq!(handed["result"]["type"], "ok", "{handed}");
    assert_eq!(handed["result"]["queued"], true, "{handed}");
    // What told tmux the picker had started is gone with it: the one
    // left is the open viewer's.
    let options = server.tmux(&["show-options", "-g"]);
    assert_eq!(
        options.matches("@agent_wizard_popup_started_").count(),
        1,
        "{options}"
    );
    // The viewer is open: another overlay from outside it shows nothing,
    // and says so.
    let refused = open("viewer");
    assert_eq!(
        refused.error_code(),
        "plugin_pane_open_failed",
        "{refused:?}"
    );
    let client = server.tmux(&["list-clients", "-F", "#{client_name}"]);
    server.tmux(&["display-popup", "-C", "-c", client.trim()]);
    drop(viewer);
}

/// A plugin that names the tabs nobody named, as herdr-automatic-rename
/// does: it takes a label that is a number (herdr's label of an unnamed
/// tab, its place) for one it may name, and any other for a name given by
/// hand. Under tmux a window tmux names after its program is unnamed; one
/// made with a name is not.
#[test]
fn a_plugin_names_only_the_tabs_nobody_named() {
    let server = TmuxServer::start();
    server.load_plugin();
    let dir = server.dir.path().join("plugins-src").join("test.namer");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("herdr-plugin.toml"),
        r#"id = "test.namer"
name = "Namer"
version = "1.0.0"
min_herdr_version = "0.7.1"
platforms = ["linux", "macos"]

[[events]]
on = "tab.created"
command = ["sh", "name.sh"]
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("name.sh"),
        "label=$(\"$HERDR_BIN_PATH\" tab get \"$HERDR_TAB_ID\" | sed -n 's/.*\"label\":\"\\([^\"]*\\)\".*/\\1/p')\n\
         case \"$label\" in ''|*[!0-9]*) exit 0 ;; esac\n\
         \"$HERDR_BIN_PATH\" tab rename \"$HERDR_TAB_ID\" \"named-$label\"\n",
    )
    .unwrap();
    server
        .taw(&["plugin", "link", dir.to_str().unwrap()])
        .result();
    let new_window = |name: &[&str]| {
        let mut args = vec![
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{window_id}",
            "-t",
            "main:",
        ];
        args.extend_from_slice(name);
        server.tmux(&args).trim().to_string()
    };
    let window = new_window(&[]);
    let window = window.as_str();
    server.wait_for("the plugin's name", WAIT, || {
        server.display(window, "#{window_name}") == "named-2"
    });
    let named = new_window(&["-n", "mine"]);
    let named = named.as_str();
    // The plugin ran for it and left it alone.
    server.wait_for("the plugin's run for the named tab", WAIT, || {
        plugin_run_events(&server, Some("test.namer"))
            .iter()
            .filter(|e| e.as_str() == Some("tab.created"))
            .count()
            >= 2
    });
    assert_eq!(server.display(named, "#{window_name}"), "mine");
}
