//! `taw agent list|get|rename|focus|explain` and `taw manifest
//! list|show|reload` against a real tmux. Agents are marked by hand here
//! (no watcher runs), as the watcher would mark them.

use crate::common::TmuxServer;

fn with_agents() -> TmuxServer {
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    server.tmux(&["new-window", "-d", "-t", "main:"]);
    for (pane, kind, state) in [("%0", "claude", "working"), ("%1", "codex", "done")] {
        server.tmux(&["set-option", "-p", "-t", pane, "@agent_kind", kind]);
        server.tmux(&["set-option", "-p", "-t", pane, "@agent_state", state]);
    }
    server
}

#[test]
fn list_and_get_in_herdrs_shape() {
    let server = with_agents();
    let list = server.taw(&["agent", "list"]).result();
    assert_eq!(list["type"], "agent_list");
    let agents = list["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 2, "only panes that host an agent");
    let claude = &agents[0];
    for field in [
        "terminal_id",
        "name",
        "agent",
        "agent_status",
        "workspace_id",
        "tab_id",
        "pane_id",
        "focused",
        "state_change_seq",
        "revision",
    ] {
        assert!(claude.get(field).is_some(), "missing {field}: {claude}");
    }
    assert_eq!(claude["agent"], "claude");
    assert_eq!(claude["agent_status"], "working");
    let by_pane = server.taw(&["agent", "get", "w1:p2"]).result();
    assert_eq!(by_pane["type"], "agent_info");
    assert_eq!(by_pane["agent"]["agent"], "codex");
    assert_eq!(by_pane["agent"]["agent_status"], "done");
    // A pane without an agent, a name nobody has.
    assert_eq!(
        server.taw(&["agent", "get", "%2"]).error_code(),
        "agent_not_found"
    );
    assert_eq!(
        server.taw(&["agent", "get", "nobody"]).error_code(),
        "agent_not_found"
    );
}

#[test]
fn names_are_checked_unique_and_kept() {
    let server = with_agents();
    let renamed = server.taw(&["agent", "rename", "%0", "reviewer"]).result();
    assert_eq!(renamed["agent"]["name"], "reviewer");
    // The name is a target now.
    let got = server.taw(&["agent", "get", "reviewer"]).result();
    assert_eq!(got["agent"]["tmux_id"], "%0");
    // Another live agent cannot take it; a bad name is refused.
    assert_eq!(
        server
            .taw(&["agent", "rename", "%1", "reviewer"])
            .error_code(),
        "invalid_argument"
    );
    assert_eq!(
        server
            .taw(&["agent", "rename", "%1", "Bad Name"])
            .error_code(),
        "invalid_argument"
    );
    let cleared = server
        .taw(&["agent", "rename", "reviewer", "--clear"])
        .result();
    assert_eq!(cleared["agent"]["name"], serde_json::Value::Null);
}

#[test]
fn focus_goes_there_and_marks_done_seen() {
    let server = with_agents();
    let focused = server.taw(&["agent", "focus", "%1"]).result();
    assert_eq!(focused["type"], "agent_info");
    assert_eq!(server.display("%1", "#{pane_active}"), "1");
    assert_eq!(server.display("%1", "#{@agent_state}"), "idle");
    assert_eq!(focused["agent"]["agent_status"], "idle");
}

#[test]
fn explain_a_live_pane() {
    let server = with_agents();
    // herdr's explain object itself, not an envelope.
    let run = server.taw(&["agent", "explain", "%0", "--json"]);
    assert_eq!(run.status, 0, "{run:?}");
    let explained: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(explained["agent"], "claude");
    let same = server.taw(&["agent", "explain", "%0", "--format", "json"]);
    let same: serde_json::Value = serde_json::from_str(&same.stdout).unwrap();
    assert_eq!(same["agent"], "claude");
    assert!(explained["evaluated_rules"].as_array().unwrap().len() > 5);
    let plain = server.taw(&["agent", "explain", "%0"]);
    assert_eq!(plain.status, 0);
    assert!(
        plain.stdout.starts_with("agent: claude"),
        "{}",
        plain.stdout
    );
    // A pane with no agent: what is in front, and why it is no agent.
    let none = server.taw(&["agent", "explain", "%2", "--json"]);
    assert_eq!(none.error_code(), "agent_not_found");
    let why = none.error_json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(why.contains("its own shell"), "{why}");
    assert!(why.contains("at its prompt"), "{why}");
    let plain = server.taw(&["agent", "explain", "%2"]);
    assert_eq!(plain.status, 1);
    assert!(
        plain.stdout.starts_with("pane w1:p3 hosts no agent"),
        "{plain:?}"
    );
}

#[test]
fn manifests_list_show_and_overrides() {
    let server = TmuxServer::start();
    let list = server.taw(&["manifest", "list"]).result();
    let manifests = list["manifests"].as_array().unwrap();
    assert!(manifests.len() >= 19, "every agent with screen rules");
    let claude = manifests.iter().find(|m| m["agent"] == "claude").unwrap();
    assert_eq!(claude["source"], "bundled");
    assert!(claude["supplement_rules"].as_u64().unwrap() > 0);
    let codex_rules = |server: &TmuxServer| {
        server.taw(&["manifest", "show", "codex"]).result()["manifest"]["rules"]
            .as_array()
            .unwrap()
            .clone()
    };
    let rules = codex_rules(&server);
    assert!(rules.iter().any(|r| r["source"] == "taw"));
    assert!(rules.iter().any(|r| r["source"] == "manifest"));

    // An override replaces the bundled rules; supplements still follow.
    let dir = server.config_dir().join("manifests");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("codex.toml"),
        "id = \"codex\"\n[[rules]]\nid = \"mine\"\nstate = \"blocked\"\ncontains = [\"halt\"]\n",
    )
    .unwrap();
    let shown = server.taw(&["manifest", "show", "codex"]).result();
    assert_eq!(shown["manifest"]["source"], "override");
    assert_eq!(shown["manifest"]["rules"][0]["id"], "mine");
    // supplements = false: none of taw's rules.
    server.write_config("[detection]\nsupplements = false\n");
    let rules = codex_rules(&server);
    assert_eq!(rules.len(), 1);
    assert_eq!(
        server.taw(&["manifest", "show", "nobody"]).error_code(),
        "not_found"
    );
    let reloaded = server.taw(&["manifest", "reload"]).result();
    assert_eq!(reloaded["type"], "manifest_reload");
    assert!(
        !server
            .tmux(&["show-option", "-gv", "@agent_wizard_config_stamp"])
            .trim()
            .is_empty()
    );
}
