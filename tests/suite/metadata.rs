//! `taw pane report-metadata` against a real tmux: a title, a display
//! name, state labels and tokens shown in the pane's and its agent's
//! records and nothing else changed; the guards; each source's order;
//! a token's time to live; herdr's codes for what is refused; and a
//! plugin written to herdr's contract that marks its pane.

use crate::common::TmuxServer;
use serde_json::{Value, json};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// `taw pane report-metadata <pane>` with `args`.
fn report(server: &TmuxServer, pane: &str, args: &[&str]) -> crate::common::Run {
    let mut all = vec!["pane", "report-metadata", pane];
    all.extend_from_slice(args);
    server.taw(&all)
}

fn pane_record(server: &TmuxServer, pane: &str) -> Value {
    server.taw(&["pane", "get", pane]).result()["pane"].clone()
}

/// The record in `list` (a `pane list` or `agent list` array) of tmux
/// pane `pane`.
fn of<'a>(list: &'a Value, pane: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|record| record["tmux_id"] == pane)
        .unwrap_or_else(|| panic!("{pane} not in {list}"))
}

#[test]
fn a_pane_shows_what_is_reported_and_nothing_else_changes() {
    let server = TmuxServer::start();
    server.load_plugin();
    // mybot, working, its state held by custom:test.
    let pane = server.reported_agent("main", "bot", "working");
    let taken = report(
        &server,
        &pane,
        &[
            "--source",
            "custom:ui",
            "--agent",
            "mybot",
            "--applies-to-source",
            "custom:test",
            "--title",
            "  Fixing\tthe login ",
            "--display-agent",
            "My Bot",
            "--state-label",
            "working=thinking",
            "--state-label",
            "Idle=waiting for you",
            "--token",
            "branch=main",
            "--token",
            "pr=42",
        ],
    )
    .result();
    assert_eq!(taken["type"], "ok");
    assert_eq!(taken["in_order"], true);
    assert!(taken.get("ignored").is_none(), "{taken}");
    let record = pane_record(&server, &pane);
    assert_eq!(taken["pane_id"], record["pane_id"]);
    assert_eq!(record["title"], "Fixing the login");
    assert_eq!(record["display_agent"], "My Bot");
    assert_eq!(
        record["state_labels"],
        json!({ "idle": "waiting for you", "working": "thinking" })
    );
    assert_eq!(record["tokens"], json!({ "branch": "main", "pr": "42" }));
    // Display only: the agent and its state are as they were.
    assert_eq!(record["agent"], "mybot");
    assert_eq!(record["agent_status"], "working");
    let listed = server.taw(&["pane", "list"]).result();
    let listed = of(&listed["panes"], &pane);
    for field in ["title", "display_agent", "state_labels", "tokens"] {
        assert_eq!(listed[field], record[field], "{field}");
    }
    let agents = server.taw(&["agent", "list"]).result();
    let agent = of(&agents["agents"], &pane);
    for field in ["title", "display_agent", "state_labels", "tokens"] {
        assert_eq!(agent[field], record[field], "{field}");
    }
    assert_eq!(agent["agent_status"], "working");
    assert_eq!(server.display(&pane, "#{@agent_state}"), "working");

    // Another agent named: the title stays, the token is taken anyway.
    let other = report(
        &server,
        &pane,
        &[
            "--source",
            "custom:ui",
            "--agent",
            "claude",
            "--title",
            "not mine",
            "--token",
            "ci=green",
        ],
    )
    .result();
    assert_eq!(other["in_order"], true);
    assert_eq!(other["ignored"], "agent_mismatch");
    let record = pane_record(&server, &pane);
    assert_eq!(record["title"], "Fixing the login");
    assert_eq!(record["tokens"]["ci"], "green");

    // Another source said to hold the state: nothing shown changes.
    let other = report(
        &server,
        &pane,
        &[
            "--source",
            "custom:ui",
            "--applies-to-source",
            "herdr:pi",
            "--display-agent",
            "Pi",
            "--clear-state-labels",
        ],
    )
    .result();
    assert_eq!(other["ignored"], "authority_mismatch");
    let record = pane_record(&server, &pane);
    assert_eq!(record["display_agent"], "My Bot");
    assert_eq!(record["state_labels"]["working"], "thinking");

    // Each cleared; an empty title or label clears too.
    report(
        &server,
        &pane,
        &[
            "--source",
            "custom:ui",
            "--title",
            "",
            "--clear-display-agent",
            "--state-label",
            "idle=",
            "--clear-token",
            "pr",
            "--token",
            "ci=",
        ],
    )
    .result();
    let record = pane_record(&server, &pane);
    assert!(record["title"].is_null(), "{record}");
    assert!(record["display_agent"].is_null(), "{record}");
    assert_eq!(record["state_labels"], json!({ "working": "thinking" }));
    assert_eq!(record["tokens"], json!({ "branch": "main" }));
    report(
        &server,
        &pane,
        &[
            "--source",
            "custom:ui",
            "--clear-state-labels",
            "--clear-token",
            "branch",
        ],
    )
    .result();
    let record = pane_record(&server, &pane);
    assert!(record["state_labels"].is_null(), "{record}");
    assert!(record["tokens"].is_null(), "{record}");
    assert_eq!(record["agent_status"], "working");
}

#[test]
fn each_source_in_its_order_and_each_token_its_time() {
    let server = TmuxServer::start();
    let title = |server: &TmuxServer| pane_record(server, "%0")["title"].clone();
    let numbered = |seq: &str, text: &str| {
        report(
            &server,
            "%0",
            &["--source", "custom:seq", "--seq", seq, "--title", text],
        )
    };
    assert_eq!(numbered("5", "five").result()["in_order"], true);
    let older = numbered("3", "three").result();
    assert_eq!(older["in_order"], false);
    assert!(older.get("pane_id").is_none(), "{older}");
    assert_eq!(numbered("5", "five again").result()["in_order"], false);
    let unnumbered = report(&server, "%0", &["--source", "custom:seq", "--title", "x"]);
    assert_eq!(unnumbered.result()["in_order"], false);
    assert_eq!(title(&server), "five");
    // Another source has an order of its own.
    let other = report(
        &server,
        "%0",
        &["--source", "custom:other", "--seq", "1", "--title", "other"],
    );
    assert_eq!(other.result()["in_order"], true);
    assert_eq!(title(&server), "other");
    assert_eq!(numbered("6", "six").result()["in_order"], true);
    assert_eq!(title(&server), "six");

    // Each token set has its own time to live; the rest stay.
    report(
        &server,
        "%0",
        &["--source", "custom:ttl", "--token", "keep=1"],
    )
    .result();
    report(
        &server,
        "%0",
        &[
            "--source",
            "custom:ttl",
            "--token",
            "flash=now",
            "--ttl-ms",
            // Long enough to be read back on two busy cores (300 ms
            // lapsed before the read in CI); short for the wait below.
            "4000",
        ],
    )
    .result();
    assert_eq!(
        pane_record(&server, "%0")["tokens"],
        json!({ "keep": "1", "flash": "now" })
    );
    server.wait_for("the token to lapse", WAIT, || {
        pane_record(&server, "%0")["tokens"].get("flash").is_none()
    });
    assert_eq!(pane_record(&server, "%0")["tokens"], json!({ "keep": "1" }));
    assert_eq!(title(&server), "six");
}

#[test]
fn what_is_refused_has_herdrs_codes_and_changes_nothing() {
    let server = TmuxServer::start();
    let many: Vec<String> = (0..17).map(|n| format!("t{n}=v")).collect();
    let mut too_many = vec!["--source", "custom:t"];
    for pair in &many {
        too_many.extend(["--token", pair.as_str()]);
    }
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--source", "bad source", "--title", "x"],
            "invalid_metadata_source",
        ),
        (
            vec![
                "--source",
                "custom:t",
                "--applies-to-source",
                "no/slash",
                "--title",
                "x",
            ],
            "invalid_metadata_source",
        ),
        (
            vec!["--source", "custom:t", "--token", "bad name=x"],
            "invalid_metadata_token",
        ),
        (
            vec!["--source", "custom:t", "--clear-token", "a.b"],
            "invalid_metadata_token",
        ),
        (
            vec!["--source", "custom:t", "--state-label", "sleeping=zzz"],
            "invalid_state_label",
        ),
        (
            vec!["--source", "custom:t", "--state-label", "idle"],
            "invalid_state_label",
        ),
        (
            vec!["--source", "custom:t", "--token", "a=b", "--ttl-ms", "0"],
            "invalid_metadata_ttl",
        ),
        (
            vec![
                "--source", "custom:t", "--token", "a=b", "--ttl-ms", "86400001",
            ],
            "invalid_metadata_ttl",
        ),
        (vec!["--source", "custom:t"], "invalid_metadata_request"),
        (too_many, "metadata_token_limit"),
    ];
    for (args, code) in &cases {
        let run = report(&server, "%0", args);
        assert_eq!(run.error_code(), *code, "{args:?}");
        let message = run.error_json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(!message.is_empty(), "{args:?}");
    }
    // Setting and clearing one field is the command line's own mistake.
    let both = report(
        &server,
        "%0",
        &["--source", "custom:t", "--title", "a", "--clear-title"],
    );
    assert_eq!(both.status, 2, "{both:?}");
    let record = pane_record(&server, "%0");
    for field in ["title", "display_agent", "state_labels", "tokens"] {
        assert!(record[field].is_null(), "{field}: {record}");
    }
    assert!(server.display("%0", "#{@agent_meta_seqs}").is_empty());

    // 32 tokens kept, not a 33rd.
    for block in 0..2 {
        let pairs: Vec<String> = (0..16).map(|n| format!("k{block}_{n}=v")).collect();
        let mut args = vec!["--source", "custom:t"];
        for pair in &pairs {
            args.extend(["--token", pair.as_str()]);
        }
        report(&server, "%0", &args).result();
    }
    let over = report(
        &server,
        "%0",
        &["--source", "custom:t", "--token", "one=more"],
    );
    assert_eq!(over.error_code(), "metadata_token_limit");
    assert_eq!(
        pane_record(&server, "%0")["tokens"]
            .as_object()
            .unwrap()
            .len(),
        32
    );

    // 32 sources may number their reports, not a 33rd.
    for n in 0..32 {
        let source = format!("custom:s{n}");
        let run = report(
            &server,
            "%0",
            &["--source", &source, "--seq", "1", "--title", &source],
        );
        assert_eq!(run.result()["in_order"], true, "{source}");
    }
    let last = report(
        &server,
        "%0",
        &["--source", "custom:s32", "--seq", "1", "--title", "late"],
    );
    assert_eq!(last.error_code(), "metadata_sequence_source_limit");
    assert_eq!(pane_record(&server, "%0")["title"], "custom:s31");
}

/// A plugin of the test's own, written to herdr's contract: its action
/// marks the pane it is run for through `$HERDR_BIN_PATH` and
/// `$HERDR_PANE_ID`, as it would under herdr.
#[test]
fn a_plugin_marks_its_pane_as_under_herdr() {
    let server = TmuxServer::start();
    server.load_plugin();
    let dir = server.dir.path().join("plugins-src/marker");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("herdr-plugin.toml"),
        r#"id = "acme.marker"
name = "Marker"
version = "1.0.0"
min_herdr_version = "0.7.1"

[[actions]]
id = "mark"
title = "Mark this pane reviewed"
command = ["sh", "-c", "\"$HERDR_BIN_PATH\" pane report-metadata \"$HERDR_PANE_ID\" --source plugin:acme.marker --title reviewed --state-label idle=ready --token checked=yes"]
"#,
    )
    .unwrap();
    server
        .taw(&["plugin", "link", dir.to_str().unwrap()])
        .result();
    let pane = server.new_window("main", "work", "");
    let invoked = server
        .taw(&["plugin", "action", "invoke", "mark", "--pane", &pane])
        .result();
    assert_eq!(invoked["log"]["status"], "succeeded", "{invoked}");
    let record = pane_record(&server, &pane);
    assert_eq!(record["title"], "reviewed");
    assert_eq!(record["state_labels"], json!({ "idle": "ready" }));
    assert_eq!(record["tokens"], json!({ "checked": "yes" }));
    // Only the pane it ran for.
    assert!(pane_record(&server, "%0")["title"].is_null());
}
