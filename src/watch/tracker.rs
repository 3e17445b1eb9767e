//! The state machine of one pane's agent, as a pure function of what each
//! look at the pane saw and when. The watcher feeds it observations and
//! writes what it publishes; tests feed it made-up ones.
//!
//! - A new agent reads `unknown` for a grace period while it draws.
//! - Working and blocked are published at once.
//! - Idle after working is held back until it has lasted a moment (or the
//!   screen shows the idle prompt outright), so a spinner's pause does not
//!   flap the state.
//! - A turn that ends (working or blocked, then idle) in a pane nobody is
//!   looking at is `done`; in a pane someone looks at, `idle`. `done`
//!   stays until someone looks.
//! - When the agent leaves the pane, its last state (with its turn ended)
//!   is its final state.

use crate::model::AgentStatus;

/// Timings, in milliseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    /// How long a new agent reads unknown.
    pub grace: u64,
    /// How long idle after work must last before it is believed.
    pub idle_hold: u64,
    /// Or how many looks in a row must say idle.
    pub idle_confirmations: u32,
    /// How soon to look again while idle is being confirmed.
    pub confirm_interval: u64,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            grace: 3000,
            idle_hold: 700,
            idle_confirmations: 3,
            confirm_interval: 120,
        }
    }
}

/// What the rules made of the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reading {
    /// `None`: the screen is a viewer (a transcript); keep the state.
    pub state: Option<AgentStatus>,
    /// The screen shows the idle prompt outright: no need to wait.
    pub visible_idle: bool,
    /// The agent's own integration said it: no grace, no waiting.
    pub reported: bool,
}

/// What in front of the pane says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Front {
    /// The process table could not say: change nothing.
    Unknown,
    /// No agent: the shell, or another program.
    NoAgent,
    /// An agent of `kind` (its pid when known), and its screen's reading.
    Agent {
        kind: &'static str,
        pid: Option<u32>,
        reading: Reading,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Observation {
    pub now: u64,
    pub front: Front,
    /// Someone is looking at the pane.
    pub looking: bool,
}

/// What changed, for the watcher to write and announce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// An agent came into the pane.
    Started {
        kind: &'static str,
        pid: Option<u32>,
        state: AgentStatus,
    },
    /// The agent's state changed.
    State { from: AgentStatus, to: AgentStatus },
    /// The agent left; `from` was its state, `last` is its final one (a
    /// turn it was in ended: done, or idle for a pane looked at).
    Exited {
        kind: &'static str,
        from: AgentStatus,
        last: AgentStatus,
    },
}

/// What one observation led to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub changes: Vec<Change>,
    /// Look again at this time even if the pane prints nothing.
    pub wake_at: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Track {
    pub kind: &'static str,
    pub pid: Option<u32>,
    /// When the agent was first seen.
    pub since: u64,
    pub state: AgentStatus,
    pub state_since: u64,
    /// Idle seen after work: when first, and how many looks in a row.
    pending_idle: Option<(u64, u32)>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Tracker {
    pub timing: Timing,
    pub agent: Option<Track>,
}

impl Tracker {
    pub(crate) fn new(timing: Timing) -> Tracker {
        Tracker {
            timing,
            agent: None,
        }
    }

    /// A tracker that takes over an agent already published (a watcher
    /// started again), so a done stays done and no grace is replayed.
    pub(crate) fn resume(
        timing: Timing,
        kind: &'static str,
        pid: Option<u32>,
        state: AgentStatus,
        now: u64,
    ) -> Tracker {
        Tracker {
            timing,
            agent: Some(Track {
                kind,
                pid,
                since: now.saturating_sub(timing.grace),
                state,
                state_since: now,
                pending_idle: None,
            }),
        }
    }

    pub(crate) fn state(&self) -> Option<AgentStatus> {
        self.agent.as_ref().map(|track| track.state)
    }

    pub(crate) fn observe(&mut self, observation: Observation) -> Outcome {
        let now = observation.now;
        let mut outcome = Outcome::default();
        match observation.front {
            Front::Unknown => {}
            Front::NoAgent => {
                if let Some(track) = self.agent.take() {
                    outcome.changes.push(Change::Exited {
                        kind: track.kind,
                        from: track.state,
                        last: turn_end(track.state, observation.looking),
                    });
                }
            }
            Front::Agent { kind, pid, reading } => {
                let same = self.agent.as_ref().is_some_and(|track| {
                    track.kind == kind && (track.pid.is_none() || pid.is_none() || track.pid == pid)
                });
                if !same {
                    if let Some(old) = self.agent.take() {
                        outcome.changes.push(Change::Exited {
                            kind: old.kind,
                            from: old.state,
                            last: turn_end(old.state, observation.looking),
                        });
                    }
                    self.agent = Some(Track {
                        kind,
                        pid,
                        since: now,
                        state: AgentStatus::Unknown,
                        state_since: now,
                        pending_idle: None,
                    });
                    outcome.changes.push(Change::Started {
                        kind,
                        pid,
                        state: AgentStatus::Unknown,
                    });
                    // A report is the agent's own word: taken in at once.
                    if !reading.reported {
                        outcome.wake_at = Some(now + self.timing.grace);
                        return outcome;
                    }
                }
                let timing = self.timing;
                let track = self.agent.as_mut().expect("tracked");
                if track.pid.is_none() {
                    track.pid = pid;
                }
                if now < track.since + timing.grace && !reading.reported {
                    outcome.wake_at = Some(track.since + timing.grace);
                    return outcome;
                }
                if let Some(next) = next_state(
                    track,
                    reading,
                    observation.looking,
                    now,
                    timing,
                    &mut outcome,
                ) {
                    let from = track.state;
                    if next != from {
                        track.state = next;
                        track.state_since = now;
                        outcome.changes.push(Change::State { from, to: next });
                    }
                }
            }
        }
        outcome
    }

    /// Someone looked at the pane: a done becomes idle.
    pub(crate) fn seen(&mut self, now: u64) -> Option<Change> {
        let track = self.agent.as_mut()?;
        if track.state != AgentStatus::Done {
            return None;
        }
        track.state = AgentStatus::Idle;
        track.state_since = now;
        Some(Change::State {
            from: AgentStatus::Done,
            to: AgentStatus::Idle,
        })
    }
}

/// The state a reading leads to, or `None` to keep the current one.
fn next_state(
    track: &mut Track,
    reading: Reading,
    looking: bool,
    now: u64,
    timing: Timing,
    outcome: &mut Outcome,
) -> Option<AgentStatus> {
    let read = reading.state?;
    match read {
        AgentStatus::Working | AgentStatus::Blocked => {
            track.pending_idle = None;
            Some(read)
        }
        AgentStatus::Idle | AgentStatus::Done => {
            let busy = matches!(track.state, AgentStatus::Working | AgentStatus::Blocked);
            if !busy {
                track.pending_idle = None;
                return Some(match track.state {
                    // A done stays done until someone looks; looking ends it.
                    AgentStatus::Done if !looking => AgentStatus::Done,
                    _ => AgentStatus::Idle,
                });
            }
            if !reading.visible_idle {
                let (first, count) = track
                    .pending_idle
                    .map_or((now, 1), |(first, count)| (first, count + 1));
                track.pending_idle = Some((first, count));
                let held = now.saturating_sub(first) >= timing.idle_hold;
                if !held && count < timing.idle_confirmations {
                    outcome.wake_at = Some(now + timing.confirm_interval);
                    return None;
                }
            }
            track.pending_idle = None;
            Some(turn_end(track.state, looking))
        }
        AgentStatus::Unknown => {
            track.pending_idle = None;
            None
        }
    }
}

/// The state a turn ends in: idle for a pane someone looks at, done for
/// one nobody does. A state that was no turn stays as it was.
pub(crate) fn turn_end(state: AgentStatus, looking: bool) -> AgentStatus {
    match state {
        AgentStatus::Working | AgentStatus::Blocked if looking => AgentStatus::Idle,
        AgentStatus::Working | AgentStatus::Blocked => AgentStatus::Done,
        AgentStatus::Unknown => AgentStatus::Idle,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentStatus::*;

    fn agent(state: AgentStatus) -> Front {
        Front::Agent {
            kind: "claude",
            pid: Some(42),
            reading: Reading {
                state: Some(state),
                visible_idle: false,
                reported: false,
            },
        }
    }

    fn visible_idle() -> Front {
        Front::Agent {
            kind: "claude",
            pid: Some(42),
            reading: Reading {
                state: Some(Idle),
                visible_idle: true,
                reported: false,
            },
        }
    }

    fn look(tracker: &mut Tracker, now: u64, front: Front, looking: bool) -> Outcome {
        tracker.observe(Observation {
            now,
            front,
            looking,
        })
    }

    #[test]
    fn a_new_agent_is_unknown_through_its_grace() {
        let mut t = Tracker::default();
        let out = look(&mut t, 0, agent(Idle), false);
        assert_eq!(
            out.changes,
            vec![Change::Started {
                kind: "claude",
                pid: Some(42),
                state: Unknown
            }]
        );
        assert_eq!(out.wake_at, Some(3000));
        let out = look(&mut t, 1000, agent(Working), false);
        assert!(out.changes.is_empty());
        assert_eq!(t.state(), Some(Unknown));
        let out = look(&mut t, 3000, agent(Idle), false);
        assert_eq!(
            out.changes,
            vec![Change::State {
                from: Unknown,
                to: Idle
            }]
        );
    }

    #[test]
    fn a_turn_ends_done_when_nobody_looks_and_idle_when_someone_does() {
        for (looking, end) in [(false, Done), (true, Idle)] {
            let mut t = Tracker::default();
            look(&mut t, 0, agent(Idle), looking);
            look(&mut t, 3000, agent(Idle), looking);
            look(&mut t, 4000, agent(Working), looking);
            assert_eq!(t.state(), Some(Working));
            // The idle prompt shown outright ends the turn at once.
            let out = look(&mut t, 9000, visible_idle(), looking);
            assert_eq!(
                out.changes,
                vec![Change::State {
                    from: Working,
                    to: end
                }]
            );
        }
    }

    #[test]
    fn idle_after_work_is_held_back_against_flapping() {
        let mut t = Tracker::default();
        look(&mut t, 0, agent(Idle), false);
        look(&mut t, 3000, agent(Working), false);
        // A spinner's pause: one idle look, then work again.
        let out = look(&mut t, 3100, agent(Idle), false);
        assert!(out.changes.is_empty());
        assert_eq!(out.wake_at, Some(3220));
        look(&mut t, 3200, agent(Working), false);
        assert_eq!(t.state(), Some(Working));
        // Idle that lasts: three looks in a row.
        look(&mut t, 5000, agent(Idle), false);
        look(&mut t, 5120, agent(Idle), false);
        let out = look(&mut t, 5240, agent(Idle), false);
        assert_eq!(
            out.changes,
            vec![Change::State {
                from: Working,
                to: Done
            }]
        );
        // Or long enough between two looks.
        let mut t = Tracker::default();
        look(&mut t, 0, agent(Idle), false);
        look(&mut t, 3000, agent(Working), false);
        look(&mut t, 4000, agent(Idle), false);
        let out = look(&mut t, 4800, agent(Idle), false);
        assert_eq!(
            out.changes,
            vec![Change::State {
                from: Working,
                to: Done
            }]
        );
    }

    #[test]
    fn blocked_is_at_once_and_done_stays_until_seen() {
        let mut t = Tracker::default();
        look(&mut t, 0, agent(Idle), false);
        look(&mut t, 3000, agent(Working), false);
        let out = look(&mut t, 3100, agent(Blocked), false);
        assert_eq!(
            out.changes,
            vec![Change::State {
                from: Working,
                to: Blocked
            }]
        );
        look(&mut t, 5000, visible_idle(), false);
        assert_eq!(t.state(), Some(Done));
        // More idle screens while nobody looks: still done.
        let out = look(&mut t, 6000, visible_idle(), false);
        assert!(out.changes.is_empty());
        assert_eq!(
            t.seen(7000),
            Some(Change::State {
                from: Done,
                to: Idle
            })
        );
        assert_eq!(t.seen(7100), None);
        // Or a look that finds someone looking.
        let mut t = Tracker::default();
        look(&mut t, 0, agent(Idle), false);
        look(&mut t, 3000, agent(Working), false);
        look(&mut t, 4000, visible_idle(), false);
        let out = look(&mut t, 5000, visible_idle(), true);
        assert_eq!(
            out.changes,
            vec![Change::State {
                from: Done,
                to: Idle
            }]
        );
    }

    #[test]
    fn an_agent_that_exits_leaves_its_final_state() {
        let mut t = Tracker::default();
        look(&mut t, 0, agent(Idle), false);
        look(&mut t, 3000, agent(Working), false);
        let out = look(&mut t, 4000, Front::NoAgent, false);
        assert_eq!(
            out.changes,
            vec![Change::Exited {
                kind: "claude",
                from: Working,
                last: Done
            }]
        );
        assert_eq!(t.state(), None);
        // Unknown front changes nothing.
        let mut t = Tracker::default();
        look(&mut t, 0, agent(Idle), false);
        assert!(look(&mut t, 100, Front::Unknown, false).changes.is_empty());
        assert_eq!(t.state(), Some(Unknown));
    }

    #[test]
    fn another_agent_in_the_pane_is_a_new_one() {
        let mut t = Tracker::default();
        look(&mut t, 0, agent(Idle), false);
        look(&mut t, 3000, agent(Working), false);
        let codex = Front::Agent {
            kind: "codex",
            pid: Some(50),
            reading: Reading {
                state: Some(Idle),
                visible_idle: false,
                reported: false,
            },
        };
        let out = look(&mut t, 4000, codex, true);
        assert_eq!(
            out.changes,
            vec![
                Change::Exited {
                    kind: "claude",
                    from: Working,
                    last: Idle
                },
                Change::Started {
                    kind: "codex",
                    pid: Some(50),
                    state: Unknown
                }
            ]
        );
    }

    #[test]
    fn a_report_is_taken_in_during_the_grace() {
        let mut t = Tracker::default();
        let reported = |state| Front::Agent {
            kind: "pi",
            pid: None,
            reading: Reading {
                state: Some(state),
                visible_idle: true,
                reported: true,
            },
        };
        let out = look(&mut t, 0, reported(Working), false);
        assert_eq!(
            out.changes,
            vec![
                Change::Started {
                    kind: "pi",
                    pid: None,
                    state: Unknown
                },
                Change::State {
                    from: Unknown,
                    to: Working
                }
            ]
        );
        assert!(
            look(&mut t, 100, reported(Working), false)
                .changes
                .is_empty()
        );
        let out = look(&mut t, 200, reported(Idle), false);
        assert_eq!(
            out.changes,
            vec![Change::State {
                from: Working,
                to: Done
            }]
        );
    }

    #[test]
    fn a_viewer_screen_keeps_the_state() {
        let mut t = Tracker::default();
        look(&mut t, 0, agent(Idle), false);
        look(&mut t, 3000, agent(Working), false);
        let viewer = Front::Agent {
            kind: "claude",
            pid: Some(42),
            reading: Reading {
                state: None,
                visible_idle: false,
                reported: false,
            },
        };
        assert!(look(&mut t, 4000, viewer, false).changes.is_empty());
        assert_eq!(t.state(), Some(Working));
    }
}
