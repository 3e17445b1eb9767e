//! Making, closing and arranging panes: `taw pane split`, `close`, `rename`,
//! `focus --direction`, `neighbor`, `edges`, `resize`, `zoom`, `swap`,
//! `move`, `layout`, `process-info`.

use crate::cli::{Context, calling_pane, no_current_pane};
use crate::detect::job;
use crate::envelope::{Reply, Result, TawError};
use crate::model::{Records, resolve};
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::layout::Rect;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::OptionWrites;
use crate::tmux::snapshot::{Pane, Snapshot, Window};
use crate::tmux::{Batch, ids};
use crate::veto;
use clap::{Args, ValueEnum};
use serde_json::{Value, json};

/// Which pane a verb is about: an id, `--pane ID`, `--current` (the pane
/// taw runs in), or else the pane taw runs in, or the one in front.
#[derive(Debug, Args, Clone, Default)]
pub struct PaneSel {
    /// The pane: %N, w1:pN, or %calling.
    #[arg(long = "pane", value_name = "ID")]
    pub pane: Option<String>,
    /// The pane taw runs in ($TMUX_PANE).
    #[arg(long, conflicts_with = "pane")]
    pub current: bool,
}

impl PaneSel {
    pub fn resolve<'a>(
        &self,
        snapshot: &'a Snapshot,
        positional: Option<&str>,
    ) -> Result<&'a Pane> {
        if let Some(text) = positional.or(self.pane.as_deref()) {
            if text.trim() == crate::cli::CALLING_PANE {
                let id = calling_pane(snapshot).ok_or_else(no_current_pane)?;
                return snapshot.pane(id, None).ok_or_else(no_current_pane);
            }
            return resolve::pane(snapshot, text);
        }
        if self.current {
            let id = calling_pane(snapshot).ok_or_else(no_current_pane)?;
            return snapshot.pane(id, None).ok_or_else(no_current_pane);
        }
        match calling_pane(snapshot) {
            Some(id) => snapshot.pane(id, None).ok_or_else(no_current_pane),
            None => snapshot
                .focused_pane()
                .ok_or_else(|| TawError::not_found("the tmux server has no pane")),
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Direction {
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

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SplitDirection {
    Right,
    Down,
}

/// `K=V` pairs of `--env`.
pub fn parse_env(pairs: &[String]) -> Result<Vec<(String, String)>> {
    pairs
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !name.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                Ok((name.to_string(), value.to_string()))
            }
            _ => Err(TawError::invalid_argument(format!(
                "--env {pair:?} is not NAME=VALUE"
            ))),
        })
        .collect()
}

fn target(pane: &Pane) -> String {
    format!("%{}", pane.id)
}

fn window_of<'a>(snapshot: &'a Snapshot, pane: &Pane) -> Result<&'a Window> {
    snapshot
        .windows
        .iter()
        .find(|w| w.id == pane.window && w.session == pane.session)
        .ok_or_else(|| TawError::tmux("the pane's window is not in tmux's list"))
}

fn layout_of(context: &Context, session: u32, window: u32) -> Result<Value> {
    let snapshot = context.snapshot()?;
    let window = snapshot
        .windows
        .iter()
        .find(|w| w.id == window && w.session == session)
        .ok_or_else(|| TawError::not_found(format!("window @{window} is gone")))?;
    Ok(Records::new(&snapshot).pane_layout(window))
}

fn pane_rect(snapshot: &Snapshot, pane: &Pane) -> Option<(Rect, Rect)> {
    let window = window_of(snapshot, pane).ok()?;
    let cell = crate::tmux::layout::parse(&window.layout).ok()?;
    let area = cell.rect();
    let mut found = None;
    visit(&cell, &mut |id, rect| {
        if id == pane.id {
            found = Some(rect);
        }
    });
    found.map(|rect| (rect, area))
}

fn visit(cell: &crate::tmux::layout::Cell, f: &mut dyn FnMut(u32, Rect)) {
    match cell {
        crate::tmux::layout::Cell::Pane { pane, rect } => f(*pane, *rect),
        crate::tmux::layout::Cell::Split { children, .. } => {
            for child in children {
                visit(child, f);
            }
        }
    }
}

/// The pane next to `pane` on `side`: touching that edge, and overlapping
/// it the most (the upper or left one on a tie).
fn neighbor_of(snapshot: &Snapshot, pane: &Pane, side: Direction) -> Option<u32> {
    let window = window_of(snapshot, pane).ok()?;
    let cell = crate::tmux::layout::parse(&window.layout).ok()?;
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
        let overlap = match side {
            Direction::Left | Direction::Right => {
                overlap(rect.y, rect.height, other.y, other.height)
            }
            Direction::Up | Direction::Down => overlap(rect.x, rect.width, other.x, other.width),
        };
        let position = match side {
            Direction::Left | Direction::Right => other.y,
            Direction::Up | Direction::Down => other.x,
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

#[derive(Debug, Args)]
pub struct SplitArgs {
    /// The pane to split (else --pane, --current, or the pane in front).
    pub id: Option<String>,
    #[command(flatten)]
    pub sel: PaneSel,
    #[arg(long, value_enum)]
    pub direction: SplitDirection,
    /// The share the pane being split keeps (0.1 to 0.9; default 0.5).
    #[arg(long, default_value_t = 0.5)]
    pub ratio: f64,
    #[arg(long)]
    pub cwd: Option<String>,
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// herdr's right-click routing; tmux's mouse rules decide.
    #[arg(long, value_name = "herdr|pane")]
    pub right_click: Option<String>,
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long)]
    pub no_focus: bool,
}

/// Percent of the room the new pane takes, for a ratio the old one keeps.
pub fn new_pane_percent(ratio: f64) -> Result<u32> {
    if !(0.1..=0.9).contains(&ratio) {
        return Err(TawError::invalid_argument(format!(
            "--ratio {ratio} is out of range: 0.1 to 0.9"
        )));
    }
    Ok((((1.0 - ratio) * 100.0).round() as u32).clamp(10, 90))
}

pub fn split(context: &Context, args: SplitArgs) -> Result<Reply> {
    let percent = new_pane_percent(args.ratio)?;
    let env = parse_env(&args.env)?;
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = args.sel.resolve(&snapshot, args.id.as_deref())?;
    let spawn = Spawn {
        cwd: args.cwd.clone(),
        env,
        command: None,
    };
    let right = args.direction == SplitDirection::Right;
    let mut batch = Batch::new();
    batch.push(arrange::split_window(&target(pane), right, percent, &spawn));
    let output = tmux.run(&batch)?;
    let (session, _, new) = arrange::parse_new_ids(&output).ok_or_else(|| {
        TawError::tmux(format!("tmux did not say which pane it made: {output:?}"))
    })?;
    if args.focus {
        tmux.run_one(crate::tmux::commands::select_pane(&format!("%{new}")))?;
    }
    let snapshot = context.snapshot()?;
    let records = Records::new(&snapshot);
    let made = snapshot
        .pane(new, Some(session))
        .ok_or_else(|| TawError::tmux("the new pane closed at once"))?;
    Ok(Reply::result(
        "pane_info",
        json!({ "pane": records.pane(made) }),
    ))
}

pub fn close(context: &Context, id: &str) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = PaneSel::default().resolve(&snapshot, Some(id))?;
    veto::may_close(&veto::Closing::Pane(pane.id))?;
    tmux.run_one(arrange::kill_pane(&target(pane)))?;
    Ok(Reply::result(
        "ok",
        json!({ "pane_id": ids::pane_id(pane.session, pane.id) }),
    ))
}

pub fn rename(context: &Context, id: &str, label: Option<String>) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = PaneSel::default().resolve(&snapshot, Some(id))?;
    let mut writes = OptionWrites::default();
    match label.map(|l| crate::notify::one_line(&l, 80)) {
        Some(label) if !label.is_empty() => writes.set(opt::LABEL, label),
        _ => writes.unset(opt::LABEL),
    };
    crate::tmux::pane::write_options(&tmux, pane.id, &writes)?;
    let snapshot = context.snapshot()?;
    let pane = snapshot
        .pane(pane.id, Some(pane.session))
        .ok_or_else(|| TawError::not_found("the pane closed"))?;
    Ok(Reply::result(
        "pane_info",
        json!({ "pane": Records::new(&snapshot).pane(pane) }),
    ))
}

pub fn focus_direction(context: &Context, sel: &PaneSel, direction: Direction) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = sel.resolve(&snapshot, None)?;
    let source = ids::pane_id(pane.session, pane.id);
    let focus = match neighbor_of(&snapshot, pane, direction) {
        Some(next) => {
            tmux.run_one(crate::tmux::commands::select_pane(&format!("%{next}")))?;
            json!({
                "changed": true,
                "source_pane_id": source,
                "focused_pane_id": ids::pane_id(pane.session, next),
                "layout": layout_of(context, pane.session, pane.window)?,
            })
        }
        None => json!({
            "changed": false,
            "reason": "no_neighbor",
            "source_pane_id": source,
            "focused_pane_id": null,
            "layout": layout_of(context, pane.session, pane.window)?,
        }),
    };
    Ok(Reply::result(
        "pane_focus_direction",
        json!({ "focus": focus }),
    ))
}

pub fn neighbor(context: &Context, sel: &PaneSel, direction: Direction) -> Result<Reply> {
    let snapshot = context.snapshot()?;
    let pane = sel.resolve(&snapshot, None)?;
    let next = neighbor_of(&snapshot, pane, direction);
    let window = window_of(&snapshot, pane)?;
    Ok(Reply::result(
        "pane_neighbor",
        json!({ "neighbor": {
            "pane_id": ids::pane_id(pane.session, pane.id),
            "direction": direction.name(),
            "neighbor_pane_id": next.map(|n| ids::pane_id(pane.session, n)),
            "layout": Records::new(&snapshot).pane_layout(window),
        }}),
    ))
}

pub fn edges(context: &Context, sel: &PaneSel) -> Result<Reply> {
    let snapshot = context.snapshot()?;
    let pane = sel.resolve(&snapshot, None)?;
    let (rect, area) = pane_rect(&snapshot, pane)
        .ok_or_else(|| TawError::tmux("tmux's layout of the window could not be read"))?;
    let window = window_of(&snapshot, pane)?;
    Ok(Reply::result(
        "pane_edges",
        json!({ "edges": {
            "pane_id": ids::pane_id(pane.session, pane.id),
            "left": rect.x == area.x,
            "right": rect.x + rect.width == area.x + area.width,
            "up": rect.y == area.y,
            "down": rect.y + rect.height == area.y + area.height,
            "layout": Records::new(&snapshot).pane_layout(window),
        }}),
    ))
}

pub fn resize(
    context: &Context,
    sel: &PaneSel,
    direction: Direction,
    amount: f64,
) -> Result<Reply> {
    if !(amount > 0.0 && amount <= 1.0) {
        return Err(TawError::invalid_argument(format!(
            "--amount {amount} must be above 0 and at most 1 (a share of the window)"
        )));
    }
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = sel.resolve(&snapshot, None)?;
    let window = window_of(&snapshot, pane)?;
    let before = window.layout.clone();
    let (_, area) = pane_rect(&snapshot, pane).unwrap_or_default();
    let (flag, room) = match direction {
        Direction::Left => ("-L", area.width),
        Direction::Right => ("-R", area.width),
        Direction::Up => ("-U", area.height),
        Direction::Down => ("-D", area.height),
    };
    let cells = ((room as f64 * amount).round() as u32).max(1);
    tmux.run_one(arrange::resize_pane(&target(pane), flag, cells))?;
    let after = context.snapshot()?;
    let changed = after
        .windows
        .iter()
        .find(|w| w.id == window.id && w.session == window.session)
        .is_some_and(|w| w.layout != before);
    let mut resize = json!({
        "changed": changed,
        "pane_id": ids::pane_id(pane.session, pane.id),
        "focused_pane_id": after.active_pane(pane.session, pane.window).map(|p| ids::pane_id(pane.session, p.id)),
        "layout": layout_of(context, pane.session, pane.window)?,
    });
    if !changed {
        resize["reason"] = json!("unchanged");
    }
    Ok(Reply::result("pane_resize", json!({ "resize": resize })))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoomMode {
    Toggle,
    On,
    Off,
}

pub fn zoom(context: &Context, sel: &PaneSel, id: Option<&str>, mode: ZoomMode) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = sel.resolve(&snapshot, id)?;
    let window = window_of(&snapshot, pane)?;
    let want = match mode {
        ZoomMode::Toggle => !window.zoomed,
        ZoomMode::On => true,
        ZoomMode::Off => false,
    };
    let was_active = pane.active;
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
    if reason.is_none() {
        let mut batch = Batch::new();
        if window.zoomed && !pane.active {
            // Zoomed on another pane: out first, then onto this one.
            batch.push(arrange::toggle_zoom(&target(pane)));
            if want {
                batch.push(arrange::toggle_zoom(&target(pane)));
            }
        } else if want != window.zoomed {
            batch.push(arrange::toggle_zoom(&target(pane)));
        } else {
            batch.push(crate::tmux::commands::select_pane(&target(pane)));
        }
        tmux.run(&batch)?;
    }
    let after = context.snapshot()?;
    let window_after = after
        .windows
        .iter()
        .find(|w| w.id == window.id && w.session == window.session)
        .ok_or_else(|| TawError::not_found("the window closed"))?;
    let mut zoom = json!({
        "changed": reason.is_none(),
        "zoom_changed": window_after.zoomed != window.zoomed,
        "focus_changed": reason.is_none() && !was_active,
        "pane_id": ids::pane_id(pane.session, pane.id),
        "focused_pane_id": after.active_pane(pane.session, pane.window).map(|p| ids::pane_id(pane.session, p.id)),
        "zoomed": window_after.zoomed,
        "layout": Records::new(&after).pane_layout(window_after),
    });
    if let Some(reason) = reason {
        zoom["reason"] = json!(reason);
    }
    Ok(Reply::result("pane_zoom", json!({ "zoom": zoom })))
}

pub fn swap(
    context: &Context,
    sel: &PaneSel,
    direction: Option<Direction>,
    source: Option<&str>,
    target_pane: Option<&str>,
) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let (from, to) = match (direction, source, target_pane) {
        (Some(direction), None, None) => {
            let pane = sel.resolve(&snapshot, None)?;
            (
                pane,
                neighbor_of(&snapshot, pane, direction)
                    .and_then(|n| snapshot.pane(n, Some(pane.session))),
            )
        }
        (None, Some(a), Some(b)) => (
            resolve::pane(&snapshot, a)?,
            Some(resolve::pane(&snapshot, b)?),
        ),
        _ => {
            return Err(TawError::invalid_argument(
                "give --direction, or --source-pane and --target-pane",
            ));
        }
    };
    let source_id = ids::pane_id(from.session, from.id);
    let reason = match to {
        None => Some("no_neighbor"),
        Some(to) if to.id == from.id => Some("same_pane"),
        Some(to) if to.window != from.window => Some("cross_tab"),
        Some(_) => None,
    };
    if reason.is_none()
        && let Some(to) = to
    {
        tmux.run_one(arrange::swap_panes(&target(from), &target(to)))?;
    }
    let after = context.snapshot()?;
    let mut swap = json!({
        "changed": reason.is_none(),
        "source_pane_id": source_id,
        "target_pane_id": to.map(|t| ids::pane_id(t.session, t.id)),
        "focused_pane_id": after.active_pane(from.session, from.window).map(|p| ids::pane_id(from.session, p.id)),
        "layout": layout_of(context, from.session, from.window)?,
    });
    if let Some(reason) = reason {
        swap["reason"] = json!(reason);
    }
    Ok(Reply::result("pane_swap", json!({ "swap": swap })))
}

pub fn layout(context: &Context, sel: &PaneSel) -> Result<Reply> {
    let snapshot = context.snapshot()?;
    let pane = sel.resolve(&snapshot, None)?;
    let window = window_of(&snapshot, pane)?;
    Ok(Reply::result(
        "pane_layout",
        json!({ "layout": Records::new(&snapshot).pane_layout(window) }),
    ))
}

pub fn process_info(context: &Context, sel: &PaneSel) -> Result<Reply> {
    let snapshot = context.snapshot()?;
    let pane = sel.resolve(&snapshot, None)?;
    let read = job::read_job(pane.pid);
    let (group, processes) = match &read {
        Some((shell, group)) => {
            let mut members: Vec<&job::Process> = group.iter().collect();
            if shell.tpgid > 0 && shell.tpgid as u32 == shell.pgid && members.is_empty() {
                members.push(shell);
            }
            let processes: Vec<Value> = members
                .iter()
                .map(|p| {
                    json!({
                        "pid": p.pid,
                        "name": p.comm,
                        "argv0": p.argv.first(),
                        "argv": p.argv,
                        "cmdline": p.argv.join(" "),
                        "cwd": std::fs::read_link(format!("/proc/{}/cwd", p.pid)).ok().map(|c| c.display().to_string()),
                    })
                })
                .collect();
            (Some(shell.tpgid).filter(|g| *g > 0), processes)
        }
        None => (None, Vec::new()),
    };
    Ok(Reply::result(
        "pane_process_info",
        json!({ "process_info": {
            "pane_id": ids::pane_id(pane.session, pane.id),
            "shell_pid": pane.pid,
            "foreground_process_group_id": group,
            "tty": pane.tty,
            "foreground_processes": processes,
        }}),
    ))
}

#[derive(Debug, Args)]
pub struct MoveArgs {
    /// The pane to move.
    pub pane: String,
    /// Into this tab, beside or below a pane of it (see --split).
    #[arg(long, conflicts_with_all = ["new_tab", "new_workspace"], requires = "split")]
    pub tab: Option<String>,
    #[arg(long, value_enum)]
    pub split: Option<SplitDirection>,
    /// The pane of --tab to go beside (default: its active pane).
    #[arg(long)]
    pub target_pane: Option<String>,
    /// The share the target pane keeps (0.1 to 0.9).
    #[arg(long, default_value_t = 0.5)]
    pub ratio: f64,
    /// Into a tab of its own.
    #[arg(long, conflicts_with = "new_workspace")]
    pub new_tab: bool,
    /// With --new-tab: the workspace of the new tab.
    #[arg(long, requires = "new_tab")]
    pub workspace: Option<String>,
    /// The new workspace's (or with --new-tab, the new tab's) name.
    #[arg(long)]
    pub label: Option<String>,
    /// Into a workspace of its own.
    #[arg(long)]
    pub new_workspace: bool,
    /// With --new-workspace: its tab's name.
    #[arg(long, requires = "new_workspace")]
    pub tab_label: Option<String>,
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long)]
    pub no_focus: bool,
}

/// The window pane `%pane` is in now, in session `$session`.
fn window_now(context: &Context, pane: u32, session: u32) -> Result<u32> {
    context
        .snapshot()?
        .pane(pane, Some(session))
        .map(|p| p.window)
        .ok_or_else(|| TawError::tmux(format!("pane %{pane} is not where it was moved")))
}

pub fn move_pane(context: &Context, args: MoveArgs) -> Result<Reply> {
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let pane = PaneSel::default().resolve(&snapshot, Some(&args.pane))?;
    let source_window = window_of(&snapshot, pane)?;
    let source_session_windows = snapshot.windows_of(pane.session).count();
    let previous = json!({
        "previous_pane_id": ids::pane_id(pane.session, pane.id),
        "previous_workspace_id": ids::workspace_id(pane.session),
        "previous_tab_id": ids::tab_id(pane.session, pane.window),
    });
    let refused = |reason: &str| -> Result<Reply> {
        let records = Records::new(&snapshot);
        let mut result = previous.clone();
        result["changed"] = json!(false);
        result["reason"] = json!(reason);
        result["pane"] = json!(records.pane(pane));
        result["target_layout"] = records.pane_layout(source_window);
        result["focused_pane_id"] = json!(
            snapshot
                .active_pane(pane.session, pane.window)
                .map(|p| ids::pane_id(pane.session, p.id))
        );
        Ok(Reply::result("pane_move", json!({ "move_result": result })))
    };
    let label = args
        .label
        .as_deref()
        .map(|l| crate::notify::one_line(l, 80))
        .filter(|l| !l.is_empty());
    let mut created_workspace = None;
    let mut created_tab = None;
    // Where the pane ends: its session and window.
    let (session, window) = if let Some(tab) = &args.tab {
        let target_window = resolve::tab(&snapshot, tab)?;
        if target_window.id == pane.window {
            return refused("same_tab");
        }
        if target_window.zoomed {
            return refused("zoomed_tab");
        }
        let target_pane = match &args.target_pane {
            Some(target) => {
                let target = resolve::pane(&snapshot, target)?;
                if target.window != target_window.id {
                    return Err(TawError::invalid_argument("--target-pane is not in --tab"));
                }
                target
            }
            None => snapshot
                .active_pane(target_window.session, target_window.id)
                .ok_or_else(|| TawError::not_found("the tab has no pane"))?,
        };
        let percent = new_pane_percent(args.ratio)?;
        let right = args.split == Some(SplitDirection::Right);
        tmux.run_one(arrange::join_pane(
            &target(pane),
            &target(target_pane),
            right,
            percent,
            args.focus,
        ))?;
        (target_window.session, target_window.id)
    } else if args.new_tab {
        let session = match &args.workspace {
            Some(workspace) => resolve::workspace(&snapshot, workspace)?,
            None => pane.session,
        };
        tmux.run_one(arrange::break_pane(
            &target(pane),
            &format!("${session}"),
            label.as_deref(),
        ))?;
        // break-pane prints nothing when it moves a window's only pane:
        // the pane's id says where it went.
        let window = window_now(context, pane.id, session)?;
        created_tab = Some((session, window));
        (session, window)
    } else if args.new_workspace {
        let name = crate::cli::workspace::free_session_name(
            &snapshot,
            label.as_deref().unwrap_or("workspace"),
        );
        let output = tmux.run_one(arrange::new_session(Some(&name), &Spawn::default(), None))?;
        let (session, placeholder, _) = arrange::parse_new_ids(&output)
            .ok_or_else(|| TawError::tmux(format!("tmux did not say what it made: {output:?}")))?;
        let tab_label = args
            .tab_label
            .as_deref()
            .map(|l| crate::notify::one_line(l, 80));
        tmux.run(&Batch::of(vec![
            arrange::break_pane(&target(pane), &format!("${session}"), tab_label.as_deref()),
            arrange::kill_window(&format!("@{placeholder}")),
        ]))?;
        let window = window_now(context, pane.id, session)?;
        created_workspace = Some(session);
        created_tab = Some((session, window));
        (session, window)
    } else {
        return Err(TawError::invalid_argument(
            "say where: --tab T --split right|down, --new-tab, or --new-workspace",
        ));
    };
    if args.focus {
        let mut batch = Batch::new();
        batch.push(crate::tmux::commands::select_window(&format!("@{window}")));
        batch.push(crate::tmux::commands::select_pane(&target(pane)));
        if let Some(client) = crate::cli::workspace::last_client(&snapshot) {
            batch.push(crate::tmux::commands::switch_client(client, &target(pane)));
        }
        tmux.run(&batch)?;
    }
    let after = context.snapshot()?;
    let records = Records::new(&after);
    let moved = after
        .pane(pane.id, Some(session))
        .ok_or_else(|| TawError::tmux("the pane is not where it was moved"))?;
    let target_window = after
        .windows
        .iter()
        .find(|w| w.id == window && w.session == session)
        .ok_or_else(|| TawError::tmux("the target tab is gone"))?;
    let source_left = after
        .windows
        .iter()
        .find(|w| w.id == source_window.id && w.session == source_window.session);
    let source_session_left = after.session(pane.session).is_some();
    let mut result = previous;
    result["changed"] = json!(true);
    result["pane"] = json!(records.pane(moved));
    result["source_layout"] = source_left
        .map(|w| records.pane_layout(w))
        .unwrap_or(Value::Null);
    result["target_layout"] = records.pane_layout(target_window);
    result["created_workspace"] = json!(created_workspace.and_then(|s| records.workspace_by_id(s)));
    result["created_tab"] = json!(created_tab.and_then(|(s, w)| {
        after
            .windows
            .iter()
            .find(|x| x.id == w && x.session == s)
            .map(|x| records.tab(x))
    }));
    result["closed_workspace_id"] = json!(
        (!source_session_left
            || (source_session_windows == 1
                && source_left.is_none()
                && after.session(pane.session).is_none()))
        .then(|| ids::workspace_id(pane.session))
    );
    result["closed_tab_id"] = json!(
        source_left
            .is_none()
            .then(|| ids::tab_id(pane.session, pane.window))
    );
    result["focused_pane_id"] = json!(
        after
            .active_pane(session, window)
            .map(|p| ids::pane_id(session, p.id))
    );
    Ok(Reply::result("pane_move", json!({ "move_result": result })))
}
