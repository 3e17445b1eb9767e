//! Telling which panes closed: tmux names no killed pane in any hook, so
//! taw keeps a roster of the panes it knew of (`@agent_wizard_panes`) and
//! compares it with the live panes. A pane whose own process exited is
//! marked first (`@agent_wizard_exited`, by tmux commands in the
//! pane-exited hook), so its going is pane.exited, never a close.
//!
//! A detection reads the roster and the live panes in one tmux call, then
//! makes its changes entry by entry, each only while the roster still
//! holds that entry (`tmux::roster::Edit`): two detections that overlap
//! report a close once, and a pane added meanwhile changes nothing of it.
//! The roster is written whole only when it starts (a compare-and-set on
//! its count of writes, `@agent_wizard_panes_generation`).

use crate::events::{Event, Occurrence};
use crate::tmux::Tmux;
use crate::tmux::roster::{self as tmux_roster, Edit};

/// How many times the start reads again when another write came first.
const ATTEMPTS: usize = 20;

/// A pane as the roster keeps it: its number and its session's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub pane: u32,
    pub session: u32,
}

/// `%N:$S` words (and anything else skipped), each pane once.
pub(crate) fn parse(text: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for word in text.split_whitespace() {
        let Some((pane, session)) = word.split_once(':') else {
            continue;
        };
        let (Some(pane), Some(session)) = (
            crate::tmux::ids::tmux_number(pane, '%'),
            crate::tmux::ids::tmux_number(session, '$'),
        ) else {
            continue;
        };
        if !entries.iter().any(|e| e.pane == pane) {
            entries.push(Entry { pane, session });
        }
    }
    entries
}

pub(crate) fn format(entries: &[Entry]) -> String {
    entries
        .iter()
        .map(|e| format!("%{}:${}", e.pane, e.session))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `%N` words of the exit marks.
pub(crate) fn parse_marks(text: &str) -> Vec<u32> {
    text.split_whitespace()
        .filter_map(|w| crate::tmux::ids::tmux_number(w, '%'))
        .collect()
}

/// What one detection found, and what it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// Panes gone with no exit mark: closed.
    pub closed: Vec<Entry>,
    /// The session the exiting pane was in, from the roster.
    pub exiting: Option<Entry>,
    /// The changes to make, each while the roster still holds its entry.
    pub edits: Vec<Edit>,
}

/// Compares the roster with the live panes. Gone panes without a mark are
/// closed; a marked one stays on the roster until the job of its own exit
/// (`exiting`) takes it off with its mark, so that job can still name its
/// session.
pub(crate) fn judge(
    roster: &[Entry],
    live: &[Entry],
    marks: &[u32],
    exiting: Option<u32>,
) -> Verdict {
    let is_live = |pane: u32| live.iter().any(|e| e.pane == pane);
    // The exiting pane is no close even with its mark gone (the bound
    // cut it in a burst of exits): its job tells an exit, never both.
    let closed: Vec<Entry> = roster
        .iter()
        .filter(|e| !is_live(e.pane) && !marks.contains(&e.pane) && Some(e.pane) != exiting)
        .copied()
        .collect();
    let exiting_entry = exiting.and_then(|p| roster.iter().find(|e| e.pane == p).copied());
    let mut edits: Vec<Edit> = closed
        .iter()
        .map(|e| Edit::Close { pane: e.pane })
        .collect();
    // A pane moved to another session: the roster learns its new one.
    edits.extend(live.iter().filter_map(|l| {
        let known = roster.iter().find(|e| e.pane == l.pane)?;
        (known.session != l.session).then_some(Edit::Move {
            pane: l.pane,
            from: known.session,
            to: l.session,
        })
    }));
    // The exit's own job takes its pane off, once the pane has gone.
    if let Some(pane) = exiting.filter(|p| !is_live(*p))
        && (marks.contains(&pane) || exiting_entry.is_some())
    {
        edits.push(Edit::Forget { pane });
    }
    Verdict {
        closed,
        exiting: exiting_entry,
        edits,
    }
}

/// One detection against the server: the closes it is the first to see,
/// as pane.closed occurrences, and, for the job of a pane's exit, the
/// session that pane was in.
pub(crate) fn detect(tmux: &Tmux, exiting: Option<u32>) -> (Vec<Occurrence>, Option<Entry>) {
    let Ok(read) = tmux_roster::read(tmux) else {
        return (Vec::new(), None);
    };
    let verdict = judge(
        &parse(&read.roster),
        &parse(&read.live),
        &parse_marks(&read.marks),
        exiting,
    );
    if verdict.edits.is_empty() {
        return (Vec::new(), verdict.exiting);
    }
    // A failed call claimed nothing: the next detection reports it.
    let claimed = tmux_roster::apply(tmux, &verdict.edits).unwrap_or_default();
    let closed = verdict
        .closed
        .iter()
        .filter(|e| claimed.contains(&e.pane))
        .map(|e| {
            Occurrence::new(Event::PaneClosed)
                .session(Some(e.session))
                .pane(Some(e.pane))
        })
        .collect();
    (closed, verdict.exiting)
}

/// After taw moved a pane (perhaps to another session): the roster learns
/// where it is, and a close found on the way is told.
pub(crate) fn refresh(tmux: &Tmux) {
    let Ok(read) = tmux_roster::read(tmux) else {
        return;
    };
    if read.generation.trim().is_empty() {
        return;
    }
    let (closed, _) = detect(tmux, None);
    super::announce_now(tmux, without_placeholders(tmux, closed));
}

/// What an operation made only to hold a place (the first window of a
/// session a pane moves into) is not told made nor closed.
pub(crate) fn without_placeholders(tmux: &Tmux, mut found: Vec<Occurrence>) -> Vec<Occurrence> {
    let placeholder_kind = |event: Event| {
        matches!(
            event,
            Event::PaneCreated | Event::PaneClosed | Event::TabCreated | Event::TabClosed
        )
    };
    if !found.iter().any(|o| placeholder_kind(o.event)) {
        return found;
    }
    let Ok(list) = crate::tmux::roster::placeholders(tmux) else {
        return found;
    };
    found.retain(|o| {
        let named = |id: Option<String>| {
            id.is_some_and(|id| crate::tmux::roster::is_placeholder(&list, &id))
        };
        !(placeholder_kind(o.event)
            && (named(o.pane.map(|p| format!("%{p}"))) || named(o.window.map(|w| format!("@{w}")))))
    });
    found
}

/// Makes the roster the live panes, when it was not started yet (at
/// load). Its own mark says so, not the count: the hooks that add a pane
/// count too, and a pane made between the hooks' install and this left
/// a count that kept the roster at that one pane.
pub(crate) fn start(tmux: &Tmux) {
    for _ in 0..ATTEMPTS {
        let Ok(read) = tmux_roster::read(tmux) else {
            return;
        };
        if read.started {
            return;
        }
        let live = format(&parse(&read.live));
        if !matches!(
            tmux_roster::write_if_unchanged(tmux, &read.generation, &live, &read.marks),
            Ok(false)
        ) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(pane: u32, session: u32) -> Entry {
        Entry { pane, session }
    }

    #[test]
    fn parses_and_formats() {
        let entries = parse("%1:$0 junk %2:$1 %1:$3 %x:$1");
        assert_eq!(entries, vec![e(1, 0), e(2, 1)]);
        assert_eq!(format(&entries), "%1:$0 %2:$1");
        assert_eq!(parse_marks("%4 x %5"), vec![4, 5]);
    }

    #[test]
    fn a_gone_pane_is_closed_and_a_moved_one_follows() {
        let v = judge(&[e(1, 0), e(2, 0)], &[e(1, 0), e(3, 0)], &[], None);
        assert_eq!(v.closed, vec![e(2, 0)]);
        assert_eq!(v.edits, vec![Edit::Close { pane: 2 }]);
        // Nothing gone: nothing to change.
        let v = judge(&[e(1, 0)], &[e(1, 0), e(3, 0)], &[], None);
        assert!(v.closed.is_empty() && v.edits.is_empty());
        // A pane that moved to another session: its new one is written.
        let v = judge(&[e(1, 0), e(2, 0)], &[e(1, 0), e(2, 5)], &[], None);
        assert!(v.closed.is_empty());
        let moved = Edit::Move {
            pane: 2,
            from: 0,
            to: 5,
        };
        assert_eq!(v.edits, vec![moved]);
    }

    #[test]
    fn an_exit_is_no_close_and_its_job_takes_it_off() {
        // Another detection sees the marked pane gone: no close, it stays.
        let v = judge(&[e(1, 0), e(2, 4)], &[e(1, 0)], &[2], None);
        assert!(v.closed.is_empty() && v.edits.is_empty());
        // A close beside it leaves the marked pane to its own job.
        let v = judge(&[e(1, 0), e(2, 4), e(3, 0)], &[e(1, 0)], &[2], None);
        assert_eq!(v.closed, vec![e(3, 0)]);
        assert_eq!(v.edits, vec![Edit::Close { pane: 3 }]);
        // The exit's own job names the session and takes pane and mark off.
        let v = judge(&[e(1, 0), e(2, 4)], &[e(1, 0)], &[2, 7], Some(2));
        assert_eq!(v.exiting, Some(e(2, 4)));
        assert_eq!(v.edits, vec![Edit::Forget { pane: 2 }]);
        // Its mark cut off by the bound, the exit's own job still tells no
        // close, and takes the pane off.
        let v = judge(&[e(1, 0), e(2, 4)], &[e(1, 0)], &[], Some(2));
        assert!(v.closed.is_empty());
        assert_eq!(v.edits, vec![Edit::Forget { pane: 2 }]);
        // A pane that died and stays (remain-on-exit) is live: nothing to do.
        let v = judge(&[e(1, 0)], &[e(1, 0)], &[], Some(1));
        assert_eq!(v.exiting, Some(e(1, 0)));
        assert!(v.edits.is_empty());
    }
}
