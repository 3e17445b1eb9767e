//! What `taw app` lists: each machine (this one first), its sessions and
//! their agents, from the lines of its feed. Pure.

use serde_json::Value;

/// How a machine's feed stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Link {
    Connecting,
    Online,
    /// It dropped, or never answered: why. It is tried again by itself.
    Offline(String),
}

/// One machine as the app knows it.
#[derive(Debug, Clone)]
pub(crate) struct MachineView {
    pub name: String,
    /// This machine (its panes are reached with tmux, not ssh).
    pub here: bool,
    pub link: Link,
    pub hello: Value,
    pub spaces: Vec<Value>,
    pub agents: Vec<Value>,
}

impl MachineView {
    pub(crate) fn new(name: &str, here: bool) -> MachineView {
        MachineView {
            name: name.to_string(),
            here,
            link: Link::Connecting,
            hello: Value::Null,
            spaces: Vec::new(),
            agents: Vec::new(),
        }
    }

    /// Takes in one line of its feed; a toast is given back for the app
    /// to show.
    pub(crate) fn take(&mut self, line: &Value) -> Option<String> {
        match line["type"].as_str().unwrap_or_default() {
            "hello" => {
                self.hello = line.clone();
                self.link = Link::Online;
            }
            "state" => {
                self.link = Link::Online;
                let list = |field: &str| line[field].as_array().cloned().unwrap_or_default();
                self.spaces = list("spaces");
                self.agents = list("agents");
            }
            "toast" => {
                let text = line["text"].as_str().unwrap_or_default();
                return Some(format!("{}: {text}", self.name));
            }
            _ => {}
        }
        None
    }

    pub(crate) fn drop_link(&mut self, why: &str) {
        self.link = Link::Offline(why.to_string());
    }
}

/// Where Enter goes: a pane of a machine (`None`: this one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub machine: Option<String>,
    pub pane: String,
}

impl Target {
    /// `%7` (a pane here) or `studio:%16`.
    pub(crate) fn parse(text: &str) -> Option<Target> {
        let (machine, pane) = match text.rsplit_once(':') {
            Some((machine, pane)) => (Some(machine.to_string()), pane),
            None => (None, text),
        };
        (pane.len() > 1 && pane.starts_with('%') && pane[1..].bytes().all(|b| b.is_ascii_digit()))
            .then(|| Target {
                machine,
                pane: pane.to_string(),
            })
    }

    pub(crate) fn words(&self) -> String {
        match &self.machine {
            Some(machine) => format!("{machine}:{}", self.pane),
            None => self.pane.clone(),
        }
    }
}

/// One row of the list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// 0: a machine, 1: a session, 2: an agent.
    pub depth: u8,
    pub text: String,
    /// The agent's state, for its mark and colour.
    pub state: Option<String>,
    pub target: Option<Target>,
}

/// A state's mark, as the window marks have it.
pub(crate) fn mark(state: &str) -> &'static str {
    match state {
        "blocked" => "▲",
        "done" => "✓",
        "working" => "●",
        "idle" => "○",
        _ => "·",
    }
}

/// Every row: each machine, then its sessions, each with its agents.
pub(crate) fn rows(machines: &[MachineView]) -> Vec<Row> {
    let mut rows = Vec::new();
    for machine in machines {
        let how = match &machine.link {
            Link::Connecting => "connecting".to_string(),
            Link::Online => {
                let host = machine.hello["host"].as_str().unwrap_or_default();
                let taw = machine.hello["taw"].as_str().unwrap_or_default();
                match (host.is_empty(), taw.is_empty()) {
                    (false, false) => format!("online, taw {taw} on {host}"),
                    _ => "online".to_string(),
                }
            }
            Link::Offline(why) => format!("offline: {why}"),
        };
        let title = if machine.here {
            format!("{} (this machine)", machine.name)
        } else {
            machine.name.clone()
        };
        rows.push(Row {
            depth: 0,
            text: format!("{title} — {how}"),
            state: None,
            target: None,
        });
        if matches!(machine.link, Link::Offline(_)) {
            continue;
        }
        for space in &machine.spaces {
            let id = space["workspace_id"].as_str().unwrap_or_default();
            rows.push(Row {
                depth: 1,
                text: space["label"].as_str().unwrap_or(id).to_string(),
                state: None,
                target: None,
            });
            for agent in machine
                .agents
                .iter()
                .filter(|a| a["workspace_id"].as_str() == Some(id))
            {
                let state = agent["agent_status"].as_str().unwrap_or("unknown");
                let kind = agent["agent"].as_str().unwrap_or_default();
                let name = agent["name"].as_str().unwrap_or_default();
                let pane = agent["tmux_id"].as_str().unwrap_or_default();
                let text = if name.is_empty() {
                    format!("{} {kind}  {state}", mark(state))
                } else {
                    format!("{} {name} ({kind})  {state}", mark(state))
                };
                rows.push(Row {
                    depth: 2,
                    text,
                    state: Some(state.to_string()),
                    target: Some(Target {
                        machine: (!machine.here).then(|| machine.name.clone()),
                        pane: pane.to_string(),
                    }),
                });
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn machine() -> MachineView {
        let mut far = MachineView::new("studio", false);
        far.take(&json!({"type": "hello", "taw": "0.1.0", "host": "studio.local", "protocol": 1}));
        far.take(&json!({
            "type": "state",
            "spaces": [{"workspace_id": "w1", "label": "api"}],
            "agents": [
                {"workspace_id": "w1", "agent_status": "blocked", "agent": "claude", "name": "reviewer", "tmux_id": "%16"},
                {"workspace_id": "w2", "agent_status": "idle", "agent": "codex", "tmux_id": "%3"}
            ],
        }));
        far
    }

    #[test]
    fn a_machine_lists_its_sessions_and_their_agents() {
        let here = MachineView::new("here", true);
        let rows = rows(&[here, machine()]);
        let texts: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "here (this machine) — connecting",
                "studio — online, taw 0.1.0 on studio.local",
                "api",
                "▲ reviewer (claude)  blocked",
            ]
        );
        assert_eq!(
            rows[3].target,
            Some(Target {
                machine: Some("studio".into()),
                pane: "%16".into()
            })
        );
    }

    #[test]
    fn an_offline_machine_shows_why_and_nothing_of_it() {
        let mut far = machine();
        far.drop_link("ssh: connect to host studio port 22: Connection refused");
        let rows = rows(&[far]);
        assert_eq!(rows.len(), 1);
        assert!(
            rows[0]
                .text
                .ends_with("offline: ssh: connect to host studio port 22: Connection refused")
        );
    }

    #[test]
    fn a_toast_is_given_back_with_its_machine() {
        let mut far = machine();
        assert_eq!(
            far.take(&json!({"type": "toast", "text": "Claude Code needs you in api:1"})),
            Some("studio: Claude Code needs you in api:1".into())
        );
        assert_eq!(far.take(&json!({"type": "ping"})), None);
    }

    #[test]
    fn targets() {
        assert_eq!(
            Target::parse("studio:%16"),
            Some(Target {
                machine: Some("studio".into()),
                pane: "%16".into()
            })
        );
        assert_eq!(Target::parse("%7").unwrap().machine, None);
        assert_eq!(Target::parse("studio:w1"), None);
        assert_eq!(Target::parse("%7").unwrap().words(), "%7");
    }
}
