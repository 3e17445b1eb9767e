//! `taw api snapshot`: herdr's whole state in one answer, in the records
//! the list verbs print and their order, against a real tmux.

use crate::common::{TmuxServer, attach_client};
use serde_json::Value;

fn ids(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|record| record[field].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_snapshot_holds_every_record_in_herdrs_shape() {
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "main"]);
    server.tmux(&["new-window", "-d", "-t", "main"]);
    server.tmux(&["new-session", "-d", "-s", "second"]);
    let client = attach_client(&server, "second");

    let answer = server.taw(&["api", "snapshot"]);
    let whole = answer.json();
    assert_eq!(whole["id"], "cli:api:snapshot");
    assert_eq!(whole["result"]["type"], "session_snapshot");
    let snap = &whole["result"]["snapshot"];
    assert!(snap["version"].is_string());
    assert_eq!(snap["protocol"], 20);

    // The same records, in the same order, as the list verbs print.
    for (verb, field, key) in [
        (["workspace", "list"], "workspaces", "workspace_id"),
        (["tab", "list"], "tabs", "tab_id"),
        (["pane", "list"], "panes", "pane_id"),
    ] {
        let listed = server.taw(&verb).result();
        assert_eq!(ids(&snap[field], key), ids(&listed[field], key), "{field}");
    }
    assert_eq!(ids(&snap["workspaces"], "workspace_id"), ["w1", "w2"]);
    assert_eq!(snap["tabs"].as_array().unwrap().len(), 3);
    assert_eq!(snap["panes"].as_array().unwrap().len(), 4);
    assert!(snap["agents"].as_array().unwrap().is_empty());

    // A layout a tab, naming that tab's panes.
    let layouts = snap["layouts"].as_array().unwrap();
    assert_eq!(
        ids(&snap["layouts"], "tab_id"),
        ids(&snap["tabs"], "tab_id")
    );
    let first: Vec<String> = ids(&layouts[0]["panes"], "pane_id");
    assert_eq!(first.len(), 2, "{}", layouts[0]);

    // Focused: what the attached client shows.
    assert_eq!(snap["focused_workspace_id"], "w2");
    let tab = snap["focused_tab_id"].as_str().unwrap();
    let pane = snap["focused_pane_id"].as_str().unwrap();
    assert!(
        tab.starts_with("w2:t") && pane.starts_with("w2:p"),
        "{snap}"
    );
    drop(client);
}
