//! `taw web` with real agents from the agents lab: Claude Code's
//! permission dialog is needs_input with its question and menu, a stale
//! guard gets 409 and nothing is typed, and the option's id with the fresh
//! guard makes Claude go on. Every other agent's prompt is answered the
//! same way at the end of its own test in agents_lab.rs, which brings it
//! there anyway ([`answer_from_the_web`]): an agent started once, not
//! twice, in a suite whose time goes mostly to starting agents.

use crate::common::lab::Lab;
use crate::common::web::{input, pane_of, start_web, state};
use serde_json::json;
use std::path::Path;
use std::time::Duration;

const SECONDS: fn(u64) -> Duration = Duration::from_secs;

/// What a refused input would have done shows within this: what is not
/// typed leaves no sign to wait for.
const NOT_TYPED: Duration = Duration::from_secs(1);

#[test]
fn lab_claude_codes_dialog_answered_from_the_web() {
    let Some(lab) = Lab::start() else { return };
    let pane = lab.start_agent("claude", "web-claude");
    lab.wait_state(&pane, "idle", SECONDS(40));
    lab.type_line(&pane, "tool touch web-note.txt");
    lab.wait_state(&pane, "blocked", SECONDS(20));
    let web = start_web(&lab.server);

    let now = state(&web);
    let record = pane_of(&now, &pane);
    assert_eq!(record["kind"], "claude-code");
    assert_eq!(record["status"], "needs_input");
    assert!(
        record["question"]
            .as_str()
            .unwrap()
            .contains("Do you want to proceed?"),
        "{record}"
    );
    let menu = record["menu"].as_array().unwrap();
    assert!(menu.len() >= 2, "{record}");
    assert_eq!(menu[0]["label"], "Yes");
    assert_eq!(menu[0]["selected"], true);
    assert_eq!(menu.last().unwrap()["label"], "No");
    assert_eq!(record["actionable"], true);
    let guard = record["action_guard"].clone();
    let yes = menu[0]["id"].as_str().unwrap().to_string();

    // An older revision: refused, and the dialog still waits.
    let mut stale = guard.clone();
    stale["endpoint_revision"] = json!("0:0:0");
    let (status, body) = input(
        &web,
        &json!({"id": pane, "operation": "select", "option_id": yes, "expected": stale}),
    );
    assert_eq!(status, 409, "{body}");
    lab.stays_state(&pane, "blocked", NOT_TYPED);
    assert!(lab.has(&pane, "Do you want to proceed?"));

    // The fresh one: Claude runs the command and goes on.
    let (status, body) = input(
        &web,
        &json!({"id": pane, "operation": "select", "option_id": yes, "expected": guard}),
    );
    assert_eq!(status, 200, "{body}");
    let note = lab.scratch().join("web-claude-work/web-note.txt");
    lab.wait("the command Claude ran", SECONDS(30), || note.exists());
    lab.wait("Claude past its dialog", SECONDS(30), || {
        lab.state(&pane) != "blocked"
    });
}

/// An agent blocked on its permission prompt (the agents lab's tests
/// bring each there): the state API reads its question and menu from the
/// real screen, and its highlighted choice, whose label begins with
/// `first`, sent with the guard, lets it go on: `made`, the file its
/// command makes, comes.
pub(crate) fn answer_from_the_web(lab: &Lab, pane: &str, first: &str, made: &Path) {
    let agent = lab.agent(pane).0;
    let web = &start_web(&lab.server);
    // An agent may still be drawing its dialog when its menu first shows:
    // the server then refuses the choice (`prompt_changed`), and a client
    // reads the screen again and chooses again, as the page does.
    let mut tries = 0;
    loop {
        let mut record = serde_json::Value::Null;
        lab.wait(&format!("{agent}'s menu"), SECONDS(10), || {
            record = pane_of(&state(web), pane).clone();
            !record["menu"].as_array().unwrap().is_empty()
        });
        assert_eq!(record["status"], "needs_input", "{agent}: {record}");
        let menu = record["menu"].as_array().unwrap();
        assert!(
            menu[0]["label"].as_str().unwrap().starts_with(first),
            "{agent}: {record}"
        );
        assert_eq!(menu[0]["selected"], true, "{agent}: {record}");
        assert!(record["question"].is_string(), "{agent}: {record}");
        let (status, body) = input(
            web,
            &json!({
                "id": pane,
                "operation": "select",
                "option_id": menu[0]["id"],
                "expected": record["action_guard"],
            }),
        );
        let redrawn = body.contains("prompt_changed") || body.contains("options_changed");
        if status == 409 && redrawn && tries < 3 {
            tries += 1;
            continue;
        }
        assert_eq!(status, 200, "{agent}: {body}");
        break;
    }
    lab.wait(&format!("the command {agent} ran"), SECONDS(30), || {
        made.exists()
    });
}
