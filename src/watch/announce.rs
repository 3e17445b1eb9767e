//! What the watcher announces for the changes it records: the status
//! event for each, herdr's pane.agent_detected when an agent comes or
//! goes, and taw's agent.* for a change of state. Pure: the watcher
//! delivers what this returns.

use super::tracker::Change;
use crate::events::{Event, Occurrence};
use crate::model::AgentStatus;

/// The state the pane's agent.* events last announced: only a change from
/// it is a new one. Unknown is no state of its own, so an agent read as
/// unknown for a moment fires the event of the state it comes back to only
/// when that differs, and a new agent in the same state fires none.
#[derive(Debug, Clone, Default)]
pub(crate) struct Announcer {
    last_known: Option<AgentStatus>,
}

impl Announcer {
    /// For a watcher that takes over a recorded state.
    pub(crate) fn resume(state: Option<AgentStatus>) -> Announcer {
        Announcer {
            last_known: state.filter(|s| *s != AgentStatus::Unknown),
        }
    }

    /// The occurrences of one change of the pane's agent, `kind` being
    /// the agent in front (for a change of state).
    pub(crate) fn occurrences(
        &mut self,
        pane: u32,
        kind: Option<&str>,
        change: &Change,
    ) -> Vec<Occurrence> {
        let mut found = Vec::new();
        match change {
            Change::Started { kind, state, .. } => {
                found.push(
                    Occurrence::new(Event::PaneAgentDetected)
                        .pane(Some(pane))
                        .data("agent", *kind),
                );
                found.push(status(pane, *state, Some(kind)));
                found.extend(self.agent_event(pane, kind, *state));
            }
            Change::State { to, .. } => {
                found.push(status(pane, *to, kind));
                if let Some(kind) = kind {
                    found.extend(self.agent_event(pane, kind, *to));
                }
            }
            Change::Exited { kind, from, last } => {
                // A turn the exit cut short ends first.
                if matches!(from, AgentStatus::Working | AgentStatus::Blocked) {
                    found.push(status(pane, *last, Some(kind)));
                    found.extend(self.agent_event(pane, kind, *last));
                }
                found.push(status(pane, AgentStatus::Unknown, None));
                found.push(
                    Occurrence::new(Event::PaneAgentDetected)
                        .pane(Some(pane))
                        .data("released", true)
                        .data("final_status", last.as_str()),
                );
            }
        }
        found
    }

    fn agent_event(&mut self, pane: u32, kind: &str, state: AgentStatus) -> Option<Occurrence> {
        let event = match state {
            AgentStatus::Blocked => Event::AgentBlocked,
            AgentStatus::Working => Event::AgentWorking,
            AgentStatus::Idle => Event::AgentIdle,
            AgentStatus::Done => Event::AgentDone,
            AgentStatus::Unknown => return None,
        };
        if self.last_known == Some(state) {
            return None;
        }
        let previous = self.last_known.replace(state);
        let mut occurrence = Occurrence::new(event)
            .pane(Some(pane))
            .data("agent", kind)
            .data("agent_status", state.as_str())
            .var("TAW_AGENT", kind)
            .var("TAW_STATE", state.as_str());
        if let Some(previous) = previous {
            occurrence = occurrence
                .data("previous_status", previous.as_str())
                .var("TAW_PREVIOUS_STATE", previous.as_str());
        }
        Some(occurrence)
    }
}

fn status(pane: u32, state: AgentStatus, kind: Option<&str>) -> Occurrence {
    let occurrence = Occurrence::new(Event::PaneAgentStatusChanged)
        .pane(Some(pane))
        .data("agent_status", state.as_str());
    match kind {
        Some(kind) => occurrence.data("agent", kind),
        None => occurrence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentStatus::*;

    fn names(found: &[Occurrence]) -> Vec<String> {
        found.iter().map(|o| o.event.name().to_string()).collect()
    }

    #[test]
    fn a_turn_is_working_then_done() {
        let mut a = Announcer::default();
        let started = Change::Started {
            kind: "claude",
            pid: Some(4),
            state: Unknown,
        };
        assert_eq!(
            names(&a.occurrences(1, Some("claude"), &started)),
            ["pane.agent_detected", "pane.agent_status_changed"]
        );
        let to = |from, to| Change::State { from, to };
        assert_eq!(
            names(&a.occurrences(1, Some("claude"), &to(Unknown, Idle))),
            ["pane.agent_status_changed", "agent.idle"]
        );
        let working = a.occurrences(1, Some("claude"), &to(Idle, Working));
        assert_eq!(
            names(&working),
            ["pane.agent_status_changed", "agent.working"]
        );
        assert_eq!(working[1].vars["TAW_PREVIOUS_STATE"], "idle");
        assert_eq!(
            names(&a.occurrences(1, Some("claude"), &to(Working, Done))),
            ["pane.agent_status_changed", "agent.done"]
        );
    }

    #[test]
    fn unknown_is_no_change_of_state() {
        let mut a = Announcer::resume(Some(Idle));
        let to = |from, to| Change::State { from, to };
        assert_eq!(
            names(&a.occurrences(1, Some("pi"), &to(Idle, Unknown))),
            ["pane.agent_status_changed"]
        );
        assert_eq!(
            names(&a.occurrences(1, Some("pi"), &to(Unknown, Idle))),
            ["pane.agent_status_changed"]
        );
        assert_eq!(
            names(&a.occurrences(1, Some("pi"), &to(Unknown, Blocked))),
            ["pane.agent_status_changed", "agent.blocked"]
        );
    }

    #[test]
    fn an_exit_mid_turn_ends_the_turn_first() {
        let mut a = Announcer::resume(Some(Working));
        let exit = Change::Exited {
            kind: "codex",
            from: Working,
            last: Done,
        };
        let found = a.occurrences(2, None, &exit);
        assert_eq!(
            names(&found),
            [
                "pane.agent_status_changed",
                "agent.done",
                "pane.agent_status_changed",
                "pane.agent_detected"
            ]
        );
        assert_eq!(found[0].data["agent_status"], "done");
        assert_eq!(found[2].data["agent_status"], "unknown");
        // Leaving when idle is the status event alone.
        let mut a = Announcer::resume(Some(Idle));
        let exit = Change::Exited {
            kind: "codex",
            from: Idle,
            last: Idle,
        };
        assert_eq!(
            names(&a.occurrences(2, None, &exit)),
            ["pane.agent_status_changed", "pane.agent_detected"]
        );
        // A new agent in the same state: the status event alone.
        let started = Change::Started {
            kind: "claude",
            pid: None,
            state: Idle,
        };
        assert_eq!(
            names(&a.occurrences(2, None, &started)),
            ["pane.agent_detected", "pane.agent_status_changed"]
        );
    }
}
