//! The machines `taw app` lists (this one first): how each one's feed
//! stands and what it last said. Pure.

use crate::machine::protocol::{FeedLine, Hello, State};
use std::collections::HashMap;

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
    pub hello: Hello,
    /// Its last `state` line, and that state as the popup's snapshot.
    pub state: State,
    pub snapshot: crate::tmux::snapshot::Snapshot,
    /// Its state's `git`: each session's checkout, by its own number.
    checkouts: HashMap<u32, crate::git::Status>,
}

impl MachineView {
    pub(crate) fn new(name: &str, here: bool) -> MachineView {
        MachineView {
            name: name.to_string(),
            here,
            link: Link::Connecting,
            hello: Hello::default(),
            state: State::default(),
            snapshot: Default::default(),
            checkouts: HashMap::new(),
        }
    }

    /// Takes in one line of its feed (machine number `index` of the list);
    /// a toast is given back for the app to show.
    pub(crate) fn take(&mut self, index: usize, line: &FeedLine) -> Option<String> {
        match line {
            FeedLine::Hello(hello) => {
                self.hello = hello.clone();
                self.link = Link::Online;
            }
            FeedLine::State(state) => {
                self.link = Link::Online;
                self.checkouts = checkouts_of(state);
                if !self.here {
                    self.snapshot = super::merged_list::snapshot_of(state, index, &self.name);
                }
                self.state = state.clone();
            }
            FeedLine::Toast(toast) => return Some(format!("{}: {}", self.name, toast.text)),
            FeedLine::Left(_) | FeedLine::Ping | FeedLine::Other => {}
        }
        None
    }

    /// The git status its feed read of a session's folder (`session`: its
    /// own number there).
    pub(crate) fn git(&self, session: u32) -> Option<crate::git::Status> {
        self.checkouts.get(&session).cloned()
    }

    /// It dropped: nothing of it is listed until it is back.
    pub(crate) fn drop_link(&mut self, why: &str) {
        self.link = Link::Offline(why.to_string());
        self.state = State::default();
        self.snapshot = Default::default();
        self.checkouts.clear();
    }
}

/// A state line's `git` entries, by session number.
fn checkouts_of(state: &State) -> HashMap<u32, crate::git::Status> {
    state
        .git
        .iter()
        .filter_map(|entry| {
            let session = crate::tmux::ids::tmux_number(&entry.tmux_id, '$')?;
            Some((session, entry.status.clone()))
        })
        .collect()
}

/// Where Enter went, or `--go` asks to open on: a pane, window or session
/// of a machine (`None`: this one), by its own id there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub machine: Option<String>,
    pub id: String,
}

impl Place {
    /// `%7` (here), or `studio:%16`; `$N` and `@N` too.
    pub(crate) fn parse(text: &str) -> Option<Place> {
        let (machine, id) = match text.rsplit_once(':') {
            Some((machine, id)) if !machine.is_empty() => (Some(machine.to_string()), id),
            Some(_) => return None,
            None => (None, text),
        };
        let fine = ['%', '$', '@']
            .into_iter()
            .any(|sigil| crate::tmux::ids::tmux_number(id, sigil).is_some());
        fine.then(|| Place {
            machine,
            id: id.to_string(),
        })
    }

    pub(crate) fn words(&self) -> String {
        match &self.machine {
            Some(machine) => format!("{machine}:{}", self.id),
            None => self.id.clone(),
        }
    }
}

/// Each machine's heading in the list: its name and how its link stands.
pub(crate) fn sections(machines: &[MachineView]) -> Vec<crate::list::rows::Section> {
    machines
        .iter()
        .enumerate()
        .map(|(index, machine)| {
            let detail = match &machine.link {
                Link::Connecting => "connecting".to_string(),
                Link::Online => {
                    let (host, taw) = (&machine.hello.host, &machine.hello.taw);
                    match (host.is_empty(), taw.is_empty()) {
                        (false, false) => format!("online, taw {taw} on {host}"),
                        _ => "online".to_string(),
                    }
                }
                Link::Offline(why) => format!("offline: {why}"),
            };
            crate::list::rows::Section {
                first: super::merged_list::first_id(index),
                title: if machine.here {
                    format!("{} (this machine)", machine.name)
                } else {
                    machine.name.clone()
                },
                detail,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(value: serde_json::Value) -> FeedLine {
        serde_json::from_value(value).unwrap()
    }

    fn machine() -> MachineView {
        let mut far = MachineView::new("studio", false);
        far.take(
            1,
            &line(json!({"type": "hello", "taw": "0.1.0", "host": "studio.local", "protocol": 1})),
        );
        far.take(1, &line(json!({
            "type": "state",
            "spaces": [{"workspace_id": "w1", "tmux_id": "$0", "label": "api"}],
            "tabs": [{"tab_id": "w1:t1", "workspace_id": "w1", "tmux_id": "@0", "label": "code"}],
            "panes": [{"workspace_id": "w1", "tab_id": "w1:t1", "tmux_id": "%16", "agent": "claude", "agent_status": "blocked"}],
            "git": [{"tmux_id": "$0", "branch": "main", "dirty": true}],
        })));
        far
    }

    #[test]
    fn a_sessions_branch_as_its_machine_read_it() {
        let far = machine();
        let git = far.git(0).unwrap();
        assert_eq!((git.short(), git.ahead), ("main*".into(), 0));
        assert_eq!(far.git(1), None);
        assert_eq!(MachineView::new("here", true).git(0), None);
    }

    #[test]
    fn each_machine_heads_the_list_with_how_it_stands() {
        let here = MachineView::new("here", true);
        let far = machine();
        assert_eq!(far.snapshot.panes.len(), 1);
        let sections = sections(&[here, far]);
        assert_eq!(sections[0].title, "here (this machine)");
        assert_eq!(sections[0].detail, "connecting");
        assert_eq!(sections[1].detail, "online, taw 0.1.0 on studio.local");
        assert_eq!(sections[1].first, super::super::merged_list::first_id(1));
    }

    #[test]
    fn an_offline_machine_says_why_and_lists_nothing() {
        let mut far = machine();
        far.drop_link("ssh: connect to host studio port 22: Connection refused");
        assert!(far.snapshot.panes.is_empty());
        assert_eq!(
            sections(&[far])[0].detail,
            "offline: ssh: connect to host studio port 22: Connection refused"
        );
    }

    #[test]
    fn a_toast_is_given_back_with_its_machine() {
        let mut far = machine();
        assert_eq!(
            far.take(
                1,
                &line(json!({"type": "toast", "text": "Claude Code needs you in api:1"}))
            ),
            Some("studio: Claude Code needs you in api:1".into())
        );
        assert_eq!(far.take(1, &line(json!({"type": "ping"}))), None);
    }

    #[test]
    fn places() {
        assert_eq!(
            Place::parse("studio:%16"),
            Some(Place {
                machine: Some("studio".into()),
                id: "%16".into()
            })
        );
        assert_eq!(Place::parse("%7").unwrap().machine, None);
        assert_eq!(Place::parse("studio:$2").unwrap().id, "$2");
        assert_eq!(Place::parse("studio:w1"), None);
        assert_eq!(Place::parse(":%1"), None);
        assert_eq!(Place::parse("%x"), None);
        assert_eq!(Place::parse("studio:@3").unwrap().words(), "studio:@3");
    }
}
