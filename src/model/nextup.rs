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
}
