//! "Next up": the agent to go to next, for the popup's Tab and for
//! `taw notification open-target`. The next agent after the current pane
//! (in tmux's order, wrapping) that needs you (blocked, or done: a turn
//! that ended while you looked away); with none that does, the next agent
//! of any kind, which is `idle` or one of the rest (working, unknown, not
//! read yet).

use super::AgentStatus;
use serde::Serialize;

/// Which group the chosen agent came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Group {
    NeedsYou,
    Idle,
    Rest,
}

impl Group {
    pub(crate) fn of(state: AgentStatus) -> Group {
        match state {
            AgentStatus::Blocked | AgentStatus::Done => Group::NeedsYou,
            AgentStatus::Idle => Group::Idle,
            AgentStatus::Working | AgentStatus::Unknown => Group::Rest,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Group::NeedsYou => "needs_you",
            Group::Idle => "idle",
            Group::Rest => "rest",
        }
    }
}

/// Every pane in tmux's order as `(pane id, its agent's state)`, `None`
/// for a pane with no agent; `current` is the pane the client shows. The
/// answer: the agent pane to go to, and its group.
pub(crate) fn next_up(
    panes: &[(u32, Option<AgentStatus>)],
    current: Option<u32>,
) -> Option<(u32, Group)> {
    if panes.is_empty() {
        return None;
    }
    // Start just after the current pane (at the top without one), and come
    // round to it last.
    let start = current
        .and_then(|id| panes.iter().position(|(pane, _)| *pane == id))
        .map_or(0, |at| at + 1);
    let in_turn = || (0..panes.len()).map(move |i| panes[(start + i) % panes.len()]);
    let agents = || in_turn().filter_map(|(pane, state)| Some((pane, Group::of(state?))));
    agents()
        .find(|(_, group)| *group == Group::NeedsYou)
        .or_else(|| agents().next())
}

/// A stop of taw app's walk: the agents that need you on every machine,
/// in the app's order, each named as the app names it (`studio:%16`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// A pane of this machine.
    Here(u32),
    /// Another machine's pane, as the app names it.
    There(String),
}

/// The walk's next stop after the current pane of this machine (`you`
/// is this machine's name in the app): the one after it, coming round;
/// from a pane that is not a stop, the first. None for an empty walk, or
/// one whose only stop is the current pane.
pub(crate) fn walk_next(stops: &[String], you: &str, current: Option<u32>) -> Option<Stop> {
    let here = |stop: &str| {
        stop.strip_prefix(you)
            .and_then(|rest| rest.strip_prefix(':'))
            .and_then(|id| crate::tmux::ids::tmux_number(id, '%'))
    };
    let at = current.and_then(|pane| stops.iter().position(|s| here(s) == Some(pane)));
    let next = match at {
        Some(at) => (1..stops.len())
            .map(|i| &stops[(at + i) % stops.len()])
            .next()?,
        None => stops.first()?,
    };
    Some(match here(next) {
        Some(pane) => Stop::Here(pane),
        None => Stop::There(next.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentStatus::*;

    fn agents(list: &[(u32, AgentStatus)]) -> Vec<(u32, Option<AgentStatus>)> {
        list.iter()
            .map(|(pane, state)| (*pane, Some(*state)))
            .collect()
    }

    #[test]
    fn the_next_that_needs_you_after_the_current_wrapping() {
        let panes = agents(&[(1, Blocked), (2, Idle), (3, Done), (4, Working)]);
        assert_eq!(next_up(&panes, Some(1)), Some((3, Group::NeedsYou)));
        assert_eq!(next_up(&panes, Some(3)), Some((1, Group::NeedsYou)));
        // The current pane is last in turn: the only one that needs you.
        let panes = agents(&[(1, Blocked), (2, Idle)]);
        assert_eq!(next_up(&panes, Some(1)), Some((1, Group::NeedsYou)));
    }

    #[test]
    fn else_the_next_agent_of_any_kind() {
        let panes = agents(&[(1, Working), (2, Idle), (3, Unknown)]);
        assert_eq!(next_up(&panes, Some(2)), Some((3, Group::Rest)));
        assert_eq!(next_up(&panes, Some(1)), Some((2, Group::Idle)));
        assert_eq!(next_up(&panes, None), Some((1, Group::Rest)));
        let panes = agents(&[(1, Working), (2, Unknown)]);
        assert_eq!(next_up(&panes, Some(1)), Some((2, Group::Rest)));
        assert_eq!(next_up(&[], Some(1)), None);
        assert_eq!(next_up(&[(1, None)], Some(1)), None);
    }

    #[test]
    fn from_a_pane_with_no_agent_the_next_in_tmux_order() {
        let panes = [(5, Some(Done)), (6, None), (7, Some(Blocked))];
        assert_eq!(next_up(&panes, Some(6)), Some((7, Group::NeedsYou)));
    }

    #[test]
    fn the_walk_goes_on_to_the_next_stop_on_any_machine() {
        let stops: Vec<String> = ["mac:%3", "studio:%16", "studio:%2", "laptop:%9"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(walk_next(&stops, "studio", Some(16)), Some(Stop::Here(2)));
        assert_eq!(
            walk_next(&stops, "studio", Some(2)),
            Some(Stop::There("laptop:%9".into()))
        );
        // From a pane that is no stop: the walk's first.
        assert_eq!(
            walk_next(&stops, "studio", Some(40)),
            Some(Stop::There("mac:%3".into()))
        );
        // studio:%1 is not studio:%16.
        assert_eq!(
            walk_next(&stops, "studio", Some(1)),
            Some(Stop::There("mac:%3".into()))
        );
        assert_eq!(walk_next(&["studio:%2".into()], "studio", Some(2)), None);
        assert_eq!(walk_next(&[], "studio", Some(2)), None);
    }
}
