//! `taw integration hook <target> <action>`: what taw's hook scripts run.
//! The agent's hook payload comes on standard input; this reads the
//! session (and for some agents the state) out of it, as each agent spells
//! it, and reports it as `taw pane report-agent` would.

use super::targets::Target;
use serde_json::Value;

/// What a hook's payload says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Said {
    /// Nothing taw takes (another event, a subagent's, no session).
    Nothing,
    /// The agent's session began or goes on.
    Session {
        id: Option<String>,
        path: Option<String>,
        start: Option<&'static str>,
    },
    /// The agent's state, and its session when the payload names it.
    State {
        state: &'static str,
        id: Option<String>,
    },
}

/// The first of `keys` the payload has as text.
fn text(payload: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|key| payload.get(key).and_then(Value::as_str))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// herdr's start sources; anything else is dropped.
fn start_source(text: Option<String>) -> Option<&'static str> {
    let text = text?;
    ["startup", "resume", "clear", "compact", "new", "fork"]
        .into_iter()
        .find(|s| *s == text)
}

/// The hook's event, lower case without separators (`sessionstart`).
fn event(payload: &Value) -> Option<String> {
    text(
        payload,
        &["hook_event_name", "hookEventName", "event", "type"],
    )
    .map(|e| e.to_ascii_lowercase().replace(['_', '-'], ""))
}

const SESSION_IDS: &[&str] = &["session_id", "sessionId"];

/// What the hook of `target`, run with `action`, says of `payload`;
/// `var` reads the hook's environment.
pub(crate) fn read(
    target: &Target,
    action: &str,
    payload: &Value,
    var: &dyn Fn(&str) -> Option<String>,
) -> Said {
    let state = match action {
        "working" => "working",
        "blocked" => "blocked",
        "idle" => "idle",
        "session" => return read_session(target, payload, var),
        _ => return Said::Nothing,
    };
    Said::State {
        state,
        id: text(payload, SESSION_IDS),
    }
}

/// A session, when the payload names it by an id or a path.
fn session(id: Option<String>, path: Option<String>, start: Option<&'static str>) -> Said {
    if id.is_none() && path.is_none() {
        Said::Nothing
    } else {
        Said::Session { id, path, start }
    }
}

/// The start source the payload gives as `source`.
fn source(payload: &Value) -> Option<&'static str> {
    start_source(text(payload, &["source"]))
}

/// The session a `session` hook of `target` reports, as that agent spells
/// it.
fn read_session(target: &Target, payload: &Value, var: &dyn Fn(&str) -> Option<String>) -> Said {
    match target.id {
        "claude" => claude(payload),
        "codex" => codex(payload, var),
        "copilot" => session_start(payload, SESSION_IDS),
        "cursor" => session_start(payload, CURSOR_IDS),
        "antigravity-cli" => antigravity(payload, var),
        "grok" => session(
            text(payload, GROK_IDS).or_else(|| var("GROK_SESSION_ID")),
            None,
            source(payload),
        ),
        "letta" => letta(payload),
        "kimi" | "mastracode" => session(
            text(payload, SESSION_IDS),
            None,
            source(payload).or(Some("startup")),
        ),
        _ => session(
            text(payload, SESSION_IDS),
            text(payload, &["transcript_path"]),
            source(payload),
        ),
    }
}

/// Cursor's ids: the session's, else the conversation's.
const CURSOR_IDS: &[&str] = &[
    "session_id",
    "sessionId",
    "conversation_id",
    "conversationId",
];

/// Antigravity's ids, when its variables give none: the conversation's
/// first.
const ANTIGRAVITY_IDS: &[&str] = &[
    "conversationId",
    "conversation_id",
    "session_id",
    "sessionId",
];

/// Grok's ids, the camel-case spelling first.
const GROK_IDS: &[&str] = &[
    "sessionId",
    "session_id",
    "conversationId",
    "conversation_id",
];

fn claude(payload: &Value) -> Said {
    // A subagent's session is not the pane's.
    if payload.get("agent_id").is_some() {
        return Said::Nothing;
    }
    session(
        text(payload, SESSION_IDS),
        text(payload, &["transcript_path"]),
        source(payload),
    )
}

fn codex(payload: &Value, var: &dyn Fn(&str) -> Option<String>) -> Said {
    let id = text(payload, SESSION_IDS);
    // A Codex started by a Codex (a tool call) inherits its thread.
    if let (Some(thread), Some(id)) = (var("CODEX_THREAD_ID"), &id)
        && thread != *id
    {
        return Said::Nothing;
    }
    if text(payload, &["transcript_path"]).is_none() {
        return Said::Nothing;
    }
    session(id, None, source(payload))
}

/// Copilot's and Cursor's hooks, which may be another event than the
/// session's start.
fn session_start(payload: &Value, ids: &[&str]) -> Said {
    if event(payload).is_some_and(|e| e != "sessionstart") {
        return Said::Nothing;
    }
    session(text(payload, ids), None, source(payload))
}

fn antigravity(payload: &Value, var: &dyn Fn(&str) -> Option<String>) -> Said {
    let id = var("AGY_SESSION_ID")
        .or_else(|| var("ANTIGRAVITY_SESSION_ID"))
        .or_else(|| text(payload, ANTIGRAVITY_IDS));
    session(id, None, None)
}

/// Letta's conversation, told apart per agent when it is the default one.
fn letta(payload: &Value) -> Said {
    let id = text(payload, &["conversation_id"]).map(|id| {
        match (id.as_str(), text(payload, &["agent_id"])) {
            ("default", Some(agent)) => format!("default:{agent}"),
            _ => id,
        }
    });
    let new = payload.get("is_new_session").and_then(Value::as_bool);
    session(id, None, new.map(|new| if new { "new" } else { "resume" }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integration::targets;
    use serde_json::json;

    fn no_vars(_: &str) -> Option<String> {
        None
    }

    fn read_for(target: &str, action: &str, payload: Value) -> Said {
        read(targets::find(target).unwrap(), action, &payload, &no_vars)
    }

    #[test]
    fn claude_says_its_session_and_not_a_subagents() {
        assert_eq!(
            read_for(
                "claude",
                "session",
                json!({"session_id": "abc", "transcript_path": "/h/.claude/p/abc.jsonl", "source": "resume", "hook_event_name": "SessionStart"})
            ),
            Said::Session {
                id: Some("abc".into()),
                path: Some("/h/.claude/p/abc.jsonl".into()),
                start: Some("resume"),
            }
        );
        assert_eq!(
            read_for(
                "claude",
                "session",
                json!({"session_id": "x", "agent_id": "sub"})
            ),
            Said::Nothing
        );
        // A start source herdr does not know is dropped, the session kept.
        assert_eq!(
            read_for(
                "claude",
                "session",
                json!({"session_id": "x", "source": "weird"})
            ),
            Said::Session {
                id: Some("x".into()),
                path: None,
                start: None
            }
        );
    }

    #[test]
    fn codex_skips_an_inherited_thread() {
        let payload = json!({"session_id": "t1", "transcript_path": "/x", "source": "startup"});
        let target = targets::find("codex").unwrap();
        let inherited = |name: &str| (name == "CODEX_THREAD_ID").then(|| "t0".to_string());
        assert_eq!(read(target, "session", &payload, &inherited), Said::Nothing);
        assert!(matches!(
            read(target, "session", &payload, &no_vars),
            Said::Session { .. }
        ));
    }

    #[test]
    fn each_agent_spells_its_session() {
        assert!(matches!(
            read_for("cursor", "session", json!({"conversation_id": "c9"})),
            Said::Session { id: Some(id), .. } if id == "c9"
        ));
        assert_eq!(
            read_for(
                "cursor",
                "session",
                json!({"hook_event_name": "stop", "session_id": "c"})
            ),
            Said::Nothing
        );
        assert_eq!(
            read_for(
                "letta",
                "session",
                json!({"conversation_id": "default", "agent_id": "agent-7", "is_new_session": true})
            ),
            Said::Session {
                id: Some("default:agent-7".into()),
                path: None,
                start: Some("new")
            }
        );
        assert_eq!(
            read_for("kimi", "blocked", json!({"session_id": "k"})),
            Said::State {
                state: "blocked",
                id: Some("k".into())
            }
        );
        assert_eq!(read_for("droid", "session", json!({})), Said::Nothing);
        assert_eq!(
            read_for("droid", "bogus", json!({"session_id": "d"})),
            Said::Nothing
        );
    }
}
