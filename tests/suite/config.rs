//! `taw config check` and `taw config reload` on good, bad and unknown keys.

use crate::common::TmuxServer;

#[test]
fn no_file_is_the_defaults() {
    let server = TmuxServer::empty();
    let run = server.taw(&["config", "check", "--json"]);
    let result = run.result();
    assert_eq!(result["type"], "config_check");
    assert_eq!(result["exists"], false);
    assert_eq!(result["status"], "ok");
    let plain = server.taw(&["config", "check"]);
    assert_eq!(plain.status, 0);
    assert!(
        plain.stdout.contains("no file; taw uses its defaults"),
        "{}",
        plain.stdout
    );
}

#[test]
fn good_keys_pass_and_are_listed() {
    let server = TmuxServer::empty();
    server.write_config(
        "# my settings\n[ui]\ndepth = \"all\"\nagent_panel_sort = \"priority\"\n\n[ui.sidebar.spaces]\nrows = [[\"state_icon\", \"workspace\"]]\n\n[hooks]\n\"agent.done\" = \"~/bin/log\"\n\n[server]\nallow_unelevated_clients = true\nheadless_cols = 120\n",
    );
    let result = server.taw(&["config", "check", "--json"]).result();
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(result["values"]["ui.depth"], "all");
    // herdr's spelling is read as taw's.
    assert_eq!(result["values"]["ui.agent_panel_sort"], "attention");
    assert!(
        result["values"].get("ui.sidebar.sessions.rows").is_some(),
        "{result}"
    );
    let plain = server.taw(&["config", "check"]);
    assert_eq!(plain.status, 0);
    assert!(
        plain.stdout.contains("ui.depth = \"all\""),
        "{}",
        plain.stdout
    );
    assert!(plain.stdout.contains("0 errors, 0 warnings"));
}

#[test]
fn bad_values_are_errors_with_key_and_line() {
    let server = TmuxServer::empty();
    server.write_config("[ui]\ndepth = \"everything\"\n\n[ui.toast]\ndone_delay_seconds = -1\n\n[keys]\nfilter = \"prefix+g\"\n");
    let run = server.taw(&["config", "check", "--json"]);
    assert_eq!(run.status, 1, "{run:?}");
    let result = run.json()["result"].clone();
    assert_eq!(result["status"], "errors");
    let diagnostics = result["diagnostics"].as_array().unwrap();
    let found: Vec<(String, u64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["key"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("ui.depth".to_string(), 2),
            ("ui.toast.done_delay_seconds".to_string(), 5),
            ("keys.filter".to_string(), 8)
        ]
    );
    let plain = server.taw(&["config", "check"]);
    assert_eq!(plain.status, 1);
    assert!(
        plain
            .stdout
            .contains("error: line 2: ui.depth: \"everything\" is not one of"),
        "{}",
        plain.stdout
    );
}

#[test]
fn unknown_keys_are_warnings() {
    let server = TmuxServer::empty();
    // herdr's pane_history too: taw keeps no screen, and says so.
    server.write_config("[ui]\nshiny = true\n\n[hooks]\n\"agent.finished\" = \"true\"\n\n[experimental]\npane_history = true\n");
    let result = server.taw(&["config", "check", "--json"]).result();
    assert_eq!(result["status"], "warnings");
    let keys: Vec<&str> = result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        vec![
            "ui.shiny",
            "hooks.agent.finished",
            "experimental.pane_history"
        ]
    );
}

#[test]
fn broken_toml_is_one_error_with_a_line() {
    let server = TmuxServer::empty();
    server.write_config("[ui]\ndepth = \"agents\"\nlayout = \n");
    let run = server.taw(&["config", "check", "--json"]);
    assert_eq!(run.status, 1);
    let diagnostics = run.json()["result"]["diagnostics"].clone();
    assert_eq!(diagnostics.as_array().unwrap().len(), 1);
    assert_eq!(diagnostics[0]["line"], 3);
}

#[test]
fn reload_checks_and_moves_the_stamp() {
    let server = TmuxServer::start();
    server.write_config("[ui]\ndepth = \"all\"\n");
    let result = server.taw(&["config", "reload"]).result();
    assert_eq!(result["type"], "config_reload");
    assert_eq!(result["status"], "ok");
    let stamp = server.tmux(&["show-option", "-gv", "@agent_wizard_config_stamp"]);
    assert!(stamp.trim().parse::<u64>().is_ok(), "{stamp}");
    server.write_config("[ui]\ndepth = 3\n");
    let run = server.taw(&["config", "reload"]);
    assert_eq!(run.status, 1);
    assert_eq!(run.json()["result"]["status"], "errors");
}

/// The manifests folder is checked with the config: a file that defines
/// no agent is a warning naming the file, its line and why.
#[test]
fn a_manifest_that_defines_nothing_is_a_warning() {
    let server = TmuxServer::empty();
    let manifests = server.config_dir().join("manifests");
    std::fs::create_dir_all(&manifests).unwrap();
    std::fs::write(manifests.join("acme.toml"), "id = \"acme\"\n[[rules]\n").unwrap();
    let result = server.taw(&["config", "check", "--json"]).result();
    assert_eq!(result["status"], "warnings", "{result}");
    let message = result["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("acme.toml does not parse"), "{message}");
    assert!(message.contains("line 2"), "{message}");
    let plain = server.taw(&["config", "check"]);
    assert!(
        plain.stdout.contains("acme.toml does not parse"),
        "{}",
        plain.stdout
    );
}

#[test]
fn a_sound_setting_for_an_agent_of_ones_own_is_no_warning() {
    let server = TmuxServer::empty();
    let manifests = server.config_dir().join("manifests");
    std::fs::create_dir_all(&manifests).unwrap();
    std::fs::write(
        manifests.join("acme.toml"),
        "id = \"acme\"\nprocesses = [\"acme\"]\n\n[[rules]]\nid = \"asks\"\nstate = \"blocked\"\ncontains = [\"Allow acme to\"]\n",
    )
    .unwrap();
    server.write_config("[ui.sound.agents]\nacme = \"off\"\n");
    let result = server.taw(&["config", "check", "--json"]).result();
    assert_eq!(result["status"], "ok", "{result}");
    // A name neither herdr's nor defined is still a warning.
    server.write_config("[ui.sound.agents]\nacme = \"off\"\nzork = \"on\"\n");
    let result = server.taw(&["config", "check", "--json"]).result();
    assert_eq!(result["status"], "warnings", "{result}");
    let message = result["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("not an agent"), "{message}");
    assert_eq!(
        result["diagnostics"].as_array().unwrap().len(),
        1,
        "{result}"
    );
}
