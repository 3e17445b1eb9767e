//! Where panes are and moving between them: `focus --direction`,
//! `neighbor`, `edges`, `resize`, `zoom`, `swap`, `layout`, and the
//! processes in front of a pane (`process-info`).

use crate::detect::foreground;
use crate::envelope::{Result, TawError, answers};
use crate::model::Records;
use crate::ops::plan::Plan;
use crate::ops::window_of;
use crate::tmux::arrange as tmux_arrange;
use crate::tmux::layout::{self, Cell, Rect};
use crate::tmux::snapshot::{Pane, Snapshot};
use crate::tmux::{Batch, Tmux, commands as cmd, ids};
use serde::Serialize;
use serde_json::Value;

/// A side of a pane (`--direction` of the verbs that take one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Direction {
    Left,
    Right,
    Up,
    Down,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Left => "left",
            Direction::Right => "right",
            Direction::Up => "up",
            Direction::Down => "down",
        }
    }
}

/// herdr's PaneLayoutSnapshot of the window `@window` of `$session` in
/// the server as read after a change.
fn layout_after(after: &Snapshot, session: u32, window: u32) -> Result<Value> {
    let window = after
        .window(session, window)
        .ok_or_else(|| TawError::not_found(format!("window @{window} is gone")))?;
    Ok(Records::new(after).pane_layout(window))
}

fn layout_in(snapshot: &Snapshot, pane: &Pane) -> Result<Value> {
    Ok(Records::new(snapshot).pane_layout(window_of(snapshot, pane)?))
}

/// The pane's rectangle and its window's.
fn pane_rect(snapshot: &Snapshot, pane: &Pane) -> Option<(Rect, Rect)> {
    let window = window_of(snapshot, pane).ok()?;
    let cell = layout::parse(&window.layout).ok()?;
    let area = cell.rect();
    let mut found = None;
    visit(&cell, &mut |id, rect| {
        if id == pane.id {
            found = Some(rect);
        }
    });
    found.map(|rect| (rect, area))
}

fn visit(cell: &Cell, f: &mut dyn FnMut(u32, Rect)) {
    match cell {
        Cell::Pane { pane, rect } => f(*pane, *rect),
        Cell::Split { children, .. } => {
            for child in children {
                visit(child, f);
            }
        }
    }
}

/// The pane next to `pane` on `side`: touching that edge, and overlapping
/// it the most (the upper or left one on a tie).
pub(crate) fn neighbor_of(snapshot: &Snapshot, pane: &Pane, side: Direction) -> Option<u32> {
    let window = window_of(snapshot, pane).ok()?;
    let cell = layout::parse(&window.layout).ok()?;
    let (rect, _) = pane_rect(snapshot, pane)?;
    let mut best: Option<(u32, u32, u32)> = None;
    visit(&cell, &mut |id, other| {
        if id == pane.id {
            return;
        }
        let touches = match side {
            Direction::Left => other.x + other.width + 1 == rect.x,
            Direction::Right => rect.x + rect.width + 1 == other.x,
            Direction::Up => other.y + other.height + 1 == rect.y,
            Direction::Down => rect.y + rect.height + 1 == other.y,
        };
        if !touches {
            return;
        }
        let (overlap, position) = match side {
            Direction::Left | Direction::Right => {
                (overlap(rect.y, rect.height, other.y, other.height), other.y)
            }
            Direction::Up | Direction::Down => {
                (overlap(rect.x, rect.width, other.x, other.width), other.x)
            }
        };
        if overlap > 0 && best.is_none_or(|(_, o, p)| overlap > o || (overlap == o && position < p))
        {
            best = Some((id, overlap, position));
        }
    });
    best.map(|(id, _, _)| id)
}

fn overlap(a: u32, a_len: u32, b: u32, b_len: u32) -> u32 {
    (a + a_len).min(b + b_len).saturating_sub(a.max(b))
}

fn active_id(snapshot: &Snapshot, session: u32, window: u32) -> Option<String> {
    snapshot
        .active_pane(session, window)
        .map(|p| ids::pane_id(session, p.id))
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct FocusMove {
    pub changed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    pub source_pane_id: String,
    pub focused_pane_id: Option<String>,
    pub layout: Value,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct FocusAnswer {
    pub focus: FocusMove,
}

/// Goes to the pane on one side, if there is one.
pub(crate) fn focus_direction(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    side: Direction,
) -> Result<FocusAnswer> {
    plan_focus_direction(snapshot, pane, side).apply(tmux)
}

pub(crate) fn plan_focus_direction(
    snapshot: &Snapshot,
    pane: &Pane,
    side: Direction,
) -> Plan<FocusAnswer> {
    let next = neighbor_of(snapshot, pane, side);
    let batch = Batch::of(
        next.map(|next| cmd::select_pane(&format!("%{next}")))
            .into_iter()
            .collect(),
    );
    let (session, window) = (pane.session, pane.window);
    let source_pane_id = ids::pane_id(session, pane.id);
    Plan::read_back(batch, move |_, after| {
        Ok(FocusAnswer {
            focus: FocusMove {
                changed: next.is_some(),
                reason: next.is_none().then_some("no_neighbor"),
                source_pane_id,
                focused_pane_id: next.map(|next| ids::pane_id(session, next)),
                layout: layout_after(after, session, window)?,
            },
        })
    })
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Neighbor {
    pub pane_id: String,
    pub direction: &'static str,
    pub neighbor_pane_id: Option<String>,
    pub layout: Value,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct NeighborAnswer {
    pub neighbor: Neighbor,
}

pub(crate) fn neighbor(
    snapshot: &Snapshot,
    pane: &Pane,
    side: Direction,
) -> Result<NeighborAnswer> {
    let next = neighbor_of(snapshot, pane, side);
    Ok(NeighborAnswer {
        neighbor: Neighbor {
            pane_id: ids::pane_id(pane.session, pane.id),
            direction: side.name(),
            neighbor_pane_id: next.map(|n| ids::pane_id(pane.session, n)),
            layout: layout_in(snapshot, pane)?,
        },
    })
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Edges {
    pub pane_id: String,
    pub left: bool,
    pub right: bool,
    pub up: bool,
    pub down: bool,
    pub layout: Value,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct EdgesAnswer {
    pub edges: Edges,
}

/// Which edges of its window a pane touches.
pub(crate) fn edges(snapshot: &Snapshot, pane: &Pane) -> Result<EdgesAnswer> {
    let (rect, area) = pane_rect(snapshot, pane)
        .ok_or_else(|| TawError::tmux("tmux's layout of the window could not be read"))?;
    Ok(EdgesAnswer {
        edges: Edges {
            pane_id: ids::pane_id(pane.session, pane.id),
            left: rect.x == area.x,
            right: rect.x + rect.width == area.x + area.width,
            up: rect.y == area.y,
            down: rect.y + rect.height == area.y + area.height,
            layout: layout_in(snapshot, pane)?,
        },
    })
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Resize {
    pub changed: bool,
    pub pane_id: String,
    pub focused_pane_id: Option<String>,
    pub layout: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ResizeAnswer {
    pub resize: Resize,
}

/// Grows a pane toward one side by `amount`, a share of the window.
pub(crate) fn resize(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    side: Direction,
    amount: f64,
) -> Result<ResizeAnswer> {
    plan_resize(snapshot, pane, side, amount)?.apply(tmux)
}

pub(crate) fn plan_resize(
    snapshot: &Snapshot,
    pane: &Pane,
    side: Direction,
    amount: f64,
) -> Result<Plan<ResizeAnswer>> {
    if !(amount > 0.0 && amount <= 1.0) {
        return Err(TawError::invalid_argument(format!(
            "--amount {amount} must be above 0 and at most 1 (a share of the window)"
        )));
    }
    let window = window_of(snapshot, pane)?;
    let before = window.layout.clone();
    let (_, area) = pane_rect(snapshot, pane).unwrap_or_default();
    let (flag, room) = match side {
        Direction::Left => ("-L", area.width),
        Direction::Right => ("-R", area.width),
        Direction::Up => ("-U", area.height),
        Direction::Down => ("-D", area.height),
    };
    let cells = ((room as f64 * amount).round() as u32).max(1);
    let resize = tmux_arrange::resize_pane(&format!("%{}", pane.id), flag, cells);
    let (session, window, pane) = (pane.session, window.id, pane.id);
    Ok(Plan::read_back(Batch::of(vec![resize]), move |_, after| {
        let changed = after
            .window(session, window)
            .is_some_and(|w| w.layout != before);
        Ok(ResizeAnswer {
            resize: Resize {
                changed,
                pane_id: ids::pane_id(session, pane),
                focused_pane_id: active_id(after, session, window),
                layout: layout_after(after, session, window)?,
                reason: (!changed).then_some("unchanged"),
            },
        })
    }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ZoomMode {
    Toggle,
    On,
    Off,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Zoom {
    pub changed: bool,
    pub zoom_changed: bool,
    pub focus_changed: bool,
    pub pane_id: String,
    pub focused_pane_id: Option<String>,
    pub zoomed: bool,
    pub layout: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ZoomAnswer {
    pub zoom: Zoom,
}

/// Zooms a pane to the whole window, or back.
pub(crate) fn zoom(
    tmux: &Tmux,
    snapshot: &Snapshot,
    pane: &Pane,
    mode: ZoomMode,
) -> Result<ZoomAnswer> {
    plan_zoom(snapshot, pane, mode)?.apply(tmux)
}

pub(crate) fn plan_zoom(
    snapshot: &Snapshot,
    pane: &Pane,
    mode: ZoomMode,
) -> Result<Plan<ZoomAnswer>> {
    let window = window_of(snapshot, pane)?;
    let target = format!("%{}", pane.id);
    let want = match mode {
        ZoomMode::Toggle => !window.zoomed,
        ZoomMode::On => true,
        ZoomMode::Off => false,
    };
    let reason = if window.pane_count < 2 {
        Some("single_pane")
    } else if want == window.zoomed && pane.active {
        Some(if want {
            "already_zoomed"
        } else {
            "already_unzoomed"
        })
    } else {
        None
    };
    let mut batch = Batch::new();
    if reason.is_none() {
        if window.zoomed && !pane.active {
            // Zoomed on another pane: out first, then onto this one, or
            // (unzoomed) onto it as the unzoomed case goes: tmux's unzoom
            // leaves the focus where it was.
            batch.push(tmux_arrange::toggle_zoom(&target));
            batch.push(if want {
                tmux_arrange::toggle_zoom(&target)
            } else {
                cmd::select_pane(&target)
            });
        } else if want != window.zoomed {
            batch.push(tmux_arrange::toggle_zoom(&target));
        } else {
            batch.push(cmd::select_pane(&target));
        }
    }
    let (session, window, zoomed) = (window.session, window.id, window.zoomed);
    let (id, active) = (pane.id, pane.active);
    Ok(Plan::read_back(batch, move |_, after| {
        let window_after = after
            .window(session, window)
            .ok_or_else(|| TawError::not_found("the window closed"))?;
        Ok(ZoomAnswer {
            zoom: Zoom {
                changed: reason.is_none(),
                zoom_changed: window_after.zoomed != zoomed,
                focus_changed: reason.is_none() && !active,
                pane_id: ids::pane_id(session, id),
                focused_pane_id: active_id(after, session, window),
                zoomed: window_after.zoomed,
                layout: Records::new(after).pane_layout(window_after),
                reason,
            },
        })
    }))
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Swap {
    pub changed: bool,
    pub source_pane_id: String,
    pub target_pane_id: Option<String>,
    pub focused_pane_id: Option<String>,
    pub layout: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SwapAnswer {
    pub swap: Swap,
}

/// Swaps two panes of one tab; `to` is `None` when there is no neighbour.
pub(crate) fn swap(tmux: &Tmux, from: &Pane, to: Option<&Pane>) -> Result<SwapAnswer> {
    plan_swap(from, to).apply(tmux)
}

pub(crate) fn plan_swap(from: &Pane, to: Option<&Pane>) -> Plan<SwapAnswer> {
    let reason = match to {
        None => Some("no_neighbor"),
        Some(to) if to.id == from.id => Some("same_pane"),
        Some(to) if to.window != from.window => Some("cross_tab"),
        Some(_) => None,
    };
    let mut batch = Batch::new();
    if reason.is_none()
        && let Some(to) = to
    {
        batch.push(tmux_arrange::swap_panes(
            &format!("%{}", from.id),
            &format!("%{}", to.id),
        ));
    }
    let (session, window) = (from.session, from.window);
    let source_pane_id = ids::pane_id(session, from.id);
    let target_pane_id = to.map(|t| ids::pane_id(t.session, t.id));
    Plan::read_back(batch, move |_, after| {
        Ok(SwapAnswer {
            swap: Swap {
                changed: reason.is_none(),
                source_pane_id,
                target_pane_id,
                focused_pane_id: active_id(after, session, window),
                layout: layout_after(after, session, window)?,
                reason,
            },
        })
    })
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct LayoutAnswer {
    pub layout: Value,
}

/// The layout of a pane's window: every pane and split with its rectangle.
pub(crate) fn layout(snapshot: &Snapshot, pane: &Pane) -> Result<LayoutAnswer> {
    Ok(LayoutAnswer {
        layout: layout_in(snapshot, pane)?,
    })
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ForegroundProcess {
    pub pid: u32,
    pub name: String,
    pub argv0: Option<String>,
    pub argv: Vec<String>,
    pub cmdline: String,
    pub cwd: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ProcessInfo {
    pub pane_id: String,
    pub shell_pid: u32,
    pub foreground_process_group_id: Option<i64>,
    pub tty: String,
    pub foreground_processes: Vec<ForegroundProcess>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ProcessInfoAnswer {
    pub process_info: ProcessInfo,
}

/// The processes in front of a pane's terminal, once the pane runs its
/// program (a plugin that names a new tab by it asks at once).
pub(crate) fn process_info(pane: &Pane) -> ProcessInfoAnswer {
    let (group, processes) = match foreground::read_started_job(pane.pid) {
        Some((shell, group)) => {
            let mut members: Vec<&foreground::Process> = group.iter().collect();
            if shell.tpgid > 0 && shell.tpgid as u32 == shell.pgid && members.is_empty() {
                members.push(&shell);
            }
            let processes = members
                .iter()
                .map(|p| ForegroundProcess {
                    pid: p.pid,
                    name: p.comm.clone(),
                    argv0: p.argv.first().cloned(),
                    argv: p.argv.clone(),
                    cmdline: p.argv.join(" "),
                    cwd: foreground::process_cwd(p.pid),
                })
                .collect();
            (Some(shell.tpgid).filter(|g| *g > 0), processes)
        }
        None => (None, Vec::new()),
    };
    ProcessInfoAnswer {
        process_info: ProcessInfo {
            pane_id: ids::pane_id(pane.session, pane.id),
            shell_pid: pane.pid,
            foreground_process_group_id: group,
            tty: pane.tty.clone(),
            foreground_processes: processes,
        },
    }
}

answers!(
    FocusAnswer => "pane_focus_direction",
    NeighborAnswer => "pane_neighbor",
    EdgesAnswer => "pane_edges",
    ResizeAnswer => "pane_resize",
    ZoomAnswer => "pane_zoom",
    SwapAnswer => "pane_swap",
    LayoutAnswer => "pane_layout",
    ProcessInfoAnswer => "pane_process_info",
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::ErrorCode;
    use crate::tmux::snapshot::fixture;

    /// The fixture's server with tab `@1` in three: `%1` on the left,
    /// `%2` above `%5` on the right.
    fn three() -> Snapshot {
        let mut snapshot = fixture::server();
        snapshot.windows[0].pane_count = 3;
        snapshot.windows[0].layout =
            "c0de,80x24,0,0{40x24,0,0,1,39x24,41,0[39x12,41,0,2,39x11,41,13,5]}".into();
        let mut below = fixture::pane(1, 1, 5, "", "", "");
        below.active = false;
        snapshot.panes.push(below);
        snapshot
    }

    fn pane(snapshot: &Snapshot, id: u32) -> Pane {
        snapshot.pane(id, None).unwrap().clone()
    }

    #[test]
    fn a_neighbour_touches_the_side_and_overlaps_the_most() {
        let s = three();
        assert_eq!(neighbor_of(&s, &pane(&s, 1), Direction::Right), Some(2));
        assert_eq!(neighbor_of(&s, &pane(&s, 1), Direction::Left), None);
        assert_eq!(neighbor_of(&s, &pane(&s, 2), Direction::Down), Some(5));
        assert_eq!(neighbor_of(&s, &pane(&s, 5), Direction::Up), Some(2));
        assert_eq!(neighbor_of(&s, &pane(&s, 5), Direction::Left), Some(1));
        assert_eq!(neighbor_of(&s, &pane(&s, 2), Direction::Right), None);
        assert_eq!(neighbor_of(&s, &pane(&s, 4), Direction::Up), None);
    }

    #[test]
    fn edges_say_which_sides_of_the_window_a_pane_touches() {
        let s = three();
        let edges = edges(&s, &pane(&s, 2)).unwrap().edges;
        assert_eq!(
            (edges.left, edges.right, edges.up, edges.down),
            (false, true, true, false)
        );
        let whole = super::edges(&s, &pane(&s, 4)).unwrap().edges;
        assert!(whole.left && whole.right && whole.up && whole.down);
        let mut unreadable = three();
        unreadable.windows[0].layout = "junk".into();
        let error = super::edges(&unreadable, &pane(&unreadable, 1))
            .err()
            .unwrap();
        assert_eq!(error.code, ErrorCode::TmuxError);
    }

    #[test]
    fn focus_goes_to_the_neighbour_or_says_there_is_none() {
        let s = three();
        let plan = plan_focus_direction(&s, &pane(&s, 1), Direction::Right);
        assert_eq!(plan.lines(), vec!["select-pane -t %2"]);
        let focus = plan.answer_with("", &s).unwrap().focus;
        assert!(focus.changed);
        assert_eq!(focus.focused_pane_id, Some(ids::pane_id(1, 2)));
        let plan = plan_focus_direction(&s, &pane(&s, 1), Direction::Up);
        assert!(plan.lines().is_empty());
        let focus = plan.answer_with("", &s).unwrap().focus;
        assert_eq!(
            (focus.changed, focus.reason, focus.focused_pane_id),
            (false, Some("no_neighbor"), None)
        );
    }

    #[test]
    fn resize_takes_a_share_of_the_window_and_says_if_nothing_moved() {
        let s = three();
        let plan = plan_resize(&s, &pane(&s, 1), Direction::Right, 0.25).unwrap();
        assert_eq!(plan.lines(), vec!["resize-pane -t %1 -R 20"]);
        let unchanged = plan.answer_with("", &s).unwrap().resize;
        assert_eq!(
            (unchanged.changed, unchanged.reason),
            (false, Some("unchanged"))
        );
        let mut after = three();
        after.windows[0].layout =
            "c0de,80x24,0,0{60x24,0,0,1,19x24,61,0[19x12,61,0,2,19x11,61,13,5]}".into();
        let plan = plan_resize(&s, &pane(&s, 1), Direction::Down, 0.01).unwrap();
        assert_eq!(plan.lines(), vec!["resize-pane -t %1 -D 1"]);
        let resized = plan.answer_with("", &after).unwrap().resize;
        assert!(resized.changed && resized.reason.is_none());
        assert_eq!(resized.focused_pane_id, Some(ids::pane_id(1, 1)));
        for bad in [0.0, 1.5, f64::NAN] {
            let error = plan_resize(&s, &pane(&s, 1), Direction::Up, bad)
                .err()
                .unwrap();
            assert_eq!(error.code, ErrorCode::InvalidArgument);
        }
    }

    #[test]
    fn zoom_gives_its_reason_when_there_is_nothing_to_do() {
        let s = three();
        let reason = |s: &Snapshot, id, mode| {
            let plan = plan_zoom(s, &pane(s, id), mode).unwrap();
            (
                plan.lines().len(),
                plan.answer_with("", s).unwrap().zoom.reason,
            )
        };
        assert_eq!(reason(&s, 1, ZoomMode::Off), (0, Some("already_unzoomed")));
        assert_eq!(reason(&s, 4, ZoomMode::Toggle), (0, Some("single_pane")));
        let mut zoomed = three();
        zoomed.windows[0].zoomed = true;
        assert_eq!(
            reason(&zoomed, 1, ZoomMode::On),
            (0, Some("already_zoomed"))
        );
    }

    #[test]
    fn zoom_onto_another_pane_leaves_the_zoom_first() {
        let s = three();
        assert_eq!(
            plan_zoom(&s, &pane(&s, 1), ZoomMode::Toggle)
                .unwrap()
                .lines(),
            vec!["resize-pane -Z -t %1"]
        );
        assert_eq!(
            plan_zoom(&s, &pane(&s, 2), ZoomMode::Off).unwrap().lines(),
            vec!["select-pane -t %2"]
        );
        let mut zoomed = three();
        zoomed.windows[0].zoomed = true;
        assert_eq!(
            plan_zoom(&zoomed, &pane(&zoomed, 2), ZoomMode::On)
                .unwrap()
                .lines(),
            vec!["resize-pane -Z -t %2", "resize-pane -Z -t %2"]
        );
        // Out of the zoom, and onto the pane, as in a tab not zoomed.
        let plan = plan_zoom(&zoomed, &pane(&zoomed, 2), ZoomMode::Off).unwrap();
        assert_eq!(
            plan.lines(),
            vec!["resize-pane -Z -t %2", "select-pane -t %2"]
        );
        let zoom = plan.answer_with("", &s).unwrap().zoom;
        assert!(zoom.changed && zoom.zoom_changed && zoom.focus_changed && !zoom.zoomed);
    }

    #[test]
    fn a_swap_stays_within_one_tab() {
        let s = three();
        let (one, two, far) = (pane(&s, 1), pane(&s, 2), pane(&s, 4));
        let plan = plan_swap(&one, Some(&two));
        assert_eq!(plan.lines(), vec!["swap-pane -d -s %1 -t %2"]);
        assert!(plan.answer_with("", &s).unwrap().swap.changed);
        for (to, why) in [
            (None, "no_neighbor"),
            (Some(&one), "same_pane"),
            (Some(&far), "cross_tab"),
        ] {
            let plan = plan_swap(&one, to);
            assert!(plan.lines().is_empty());
            assert_eq!(plan.answer_with("", &s).unwrap().swap.reason, Some(why));
        }
    }
}
