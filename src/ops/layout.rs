//! Layouts: herdr's split trees over tmux's own window layouts, exported,
//! applied as a new tab (or in place of one), and one split's ratio set.

use super::names::{self, Named};
use super::navigate;
use super::pane::new_pane_percent;
use super::plan::Plan;
use super::unread;
use crate::envelope::{Result, TawError, answers};
use crate::model::Records;
use crate::model::layout::{LayoutInput, PaneInput, SplitDirection, SplitInput};
use crate::text::shell_word;
use crate::tmux::arrange::{self, NewWindow, Spawn};
use crate::tmux::layout;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::OptionWrites;
use crate::tmux::snapshot::{Snapshot, Window};
use crate::tmux::{Batch, Tmux};
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct LayoutExport {
    pub layout: Value,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct LayoutApplied {
    pub layout: Value,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct RatioSet {
    pub layout: Value,
}

answers!(
    LayoutExport => "layout_export",
    LayoutApplied => "layout_apply",
    RatioSet => "layout_split_ratio_set",
);

/// herdr's LayoutDescription of window `@window` of `$session` in the
/// server as read after a change.
fn description(after: &Snapshot, session: u32, window: u32) -> Result<Value> {
    let window = after
        .window(session, window)
        .ok_or_else(|| TawError::not_found("the tab is gone"))?;
    Ok(Records::new(after).layout_description(window))
}

/// A tab's split tree, each pane with its label and folder.
pub(crate) fn export(snapshot: &Snapshot, window: &Window) -> LayoutExport {
    LayoutExport {
        layout: Records::new(snapshot).layout_description(window),
    }
}

/// Parses `--path`: 0 and 1 from the root (0 the first child).
pub(crate) fn parse_split_path(text: &str) -> Result<Vec<bool>> {
    text.chars()
        .filter(|c| !matches!(c, ',' | ' '))
        .map(|c| match c {
            '0' => Ok(false),
            '1' => Ok(true),
            _ => Err(TawError::invalid_argument(format!(
                "--path {text:?}: write 0 (first child) and 1 (second) from the root"
            ))),
        })
        .collect()
}

/// Sets the share the first child of one split takes.
pub(crate) fn set_split_ratio(
    tmux: &Tmux,
    window: &Window,
    path: &[bool],
    ratio: f64,
) -> Result<RatioSet> {
    plan_split_ratio(window, path, ratio)?.apply(tmux)
}

pub(crate) fn plan_split_ratio(
    window: &Window,
    path: &[bool],
    ratio: f64,
) -> Result<Plan<RatioSet>> {
    // herdr brings a ratio into 0.1 to 0.9 (so does a layout's); only a
    // number that is none is refused.
    if !ratio.is_finite() {
        return Err(TawError::invalid_argument(format!(
            "--ratio {ratio}: a number from 0.1 to 0.9"
        )));
    }
    let ratio = ratio.clamp(0.1, 0.9);
    let mut cell = layout::parse(&window.layout).map_err(TawError::tmux)?;
    layout::set_ratio(&mut cell, path, ratio).map_err(|why| {
        TawError::not_found(format!(
            "tab has {why}; `taw layout export` shows its splits"
        ))
    })?;
    let select = arrange::select_layout(&format!("@{}", window.id), &layout::render(&cell));
    let (session, window) = (window.session, window.id);
    Ok(Plan::read_back(Batch::of(vec![select]), move |_, after| {
        Ok(RatioSet {
            layout: description(after, session, window)?,
        })
    }))
}

/// The tree of a layout JSON: a LayoutDescription's, an envelope of one's,
/// or a bare node. Checked whole before anything is made.
pub(crate) fn tree_of(value: &Value) -> Result<LayoutInput> {
    let node = [
        &value["result"]["layout"]["root"],
        &value["layout"]["root"],
        &value["root"],
        value,
    ]
    .into_iter()
    .find(|v| v.is_object() && v["type"].is_string())
    .ok_or_else(|| {
        TawError::invalid_argument("no layout node (\"type\": \"pane\" or \"split\") found")
    })?;
    let tree = LayoutInput::deserialize(node).map_err(|e| {
        TawError::invalid_argument(format!("the layout is not a tree of panes and splits: {e}"))
    })?;
    check(&tree)?;
    Ok(tree)
}

/// What a pane of the tree starts with.
fn spawn_of(pane: &PaneInput) -> Spawn {
    let command = pane
        .command
        .as_ref()
        .filter(|words| !words.is_empty())
        .map(|words| {
            words
                .iter()
                .map(|w| shell_word(w))
                .collect::<Vec<_>>()
                .join(" ")
        });
    Spawn {
        cwd: pane.cwd.clone(),
        env: pane.env.clone().unwrap_or_default().into_iter().collect(),
        command,
    }
}

/// What `tree_of` checks beyond the shape: its depth, the labels, the
/// ratios.
fn check(tree: &LayoutInput) -> Result<()> {
    if tree.depth() > 32 {
        return Err(TawError::invalid_argument("the layout is nested too deep"));
    }
    check_node(tree)
}

fn check_node(node: &LayoutInput) -> Result<()> {
    match node {
        LayoutInput::Pane(pane) => {
            if let Some(name) = pane
                .env
                .iter()
                .flatten()
                .map(|(name, _)| name)
                .find(|name| !crate::text::is_env_name(name))
            {
                return Err(TawError::invalid_argument(format!(
                    "the layout's env {name:?} is no variable's name (letters, digits and _, not a digit first)"
                )));
            }
            match &pane.label {
                Some(label) => names::check(Named::Pane, label),
                None => Ok(()),
            }
        }
        LayoutInput::Split(split) => {
            percent_of(split)?;
            check_node(&split.first)?;
            check_node(&split.second)
        }
    }
}

/// The room a split's second child takes (its ratio clamped as herdr
/// clamps it).
fn percent_of(split: &SplitInput) -> Result<u32> {
    new_pane_percent(split.ratio.unwrap_or(0.5).clamp(0.1, 0.9))
}

/// Where a tree goes: a new tab of `session`, or in place of `replacing`.
#[derive(Debug, Clone)]
pub(crate) struct Apply<'a> {
    pub root: LayoutInput,
    pub session: u32,
    pub replacing: Option<&'a Window>,
    pub tab_label: Option<String>,
    /// The client to show the tab on; `Some(None)` selects it with none.
    pub focus: Option<Option<String>>,
}

/// Makes a tab from a split tree. Everything is checked before anything is
/// made; the tab replaced is closed (once the veto lets it) after the new
/// one is there. Two calls: the tab, then the rest of the tree in one
/// batch.
pub(crate) fn apply(tmux: &Tmux, snapshot: &Snapshot, apply: Apply) -> Result<LayoutApplied> {
    check(&apply.root)?;
    if let Some(label) = &apply.tab_label {
        names::check(Named::Tab, label)?;
    }
    if let Some(old) = apply.replacing {
        crate::hooks::veto::may_close(
            tmux,
            &crate::hooks::veto::Closing::Window {
                session: old.session,
                window: old.id,
            },
            false,
        )?;
    }
    // In place of the tab it replaces (just after it, which it leaves),
    // else at the session's end.
    let first = spawn_of(apply.root.first_pane());
    let output = tmux.run_one(match apply.replacing {
        Some(old) => {
            arrange::new_window_after(&format!("@{}", old.id), apply.tab_label.as_deref(), &first)
        }
        None => arrange::new_window(
            &format!("${}", apply.session),
            snapshot.last_window(apply.session),
            apply.tab_label.as_deref(),
            &first,
            false,
        ),
    })?;
    let made = NewWindow::parse(&output).ok_or_else(|| unread("what it made", &output))?;
    let mut rest = plan_built(&apply, made)?;
    tmux.run(&rest.batch).inspect_err(|error| {
        // A tree tmux could not make whole (no room for a pane: tmux
        // stops the batch there) leaves no half-made tab behind (a tmux
        // that did not answer is not asked); the batch's own error is
        // what is answered.
        if error.code != crate::envelope::ErrorCode::Timeout {
            let _ = tmux.run_one(arrange::kill_window(&format!("@{}", made.window)));
        }
    })?;
    // Only once the tab is whole is the old one closed and the new one
    // shown, in a call of their own: a client gone meanwhile fails the
    // showing, never the tab (nor the old one with it).
    rest.batch = finishing(snapshot, &apply, made);
    rest.apply(tmux)
}

/// The rest of the tree in the tab `made`, as tmux runs it: the tab made
/// whole ([`plan_built`]), then the tab replaced closed and the new one
/// shown ([`finishing`]); answered with the tab as read after.
#[cfg(test)]
pub(crate) fn plan_rest(
    snapshot: &Snapshot,
    apply: &Apply,
    made: NewWindow,
) -> Result<Plan<LayoutApplied>> {
    let mut plan = plan_built(apply, made)?;
    plan.batch.extend(finishing(snapshot, apply, made));
    Ok(plan)
}

/// The tab replaced closed, and the new one shown where `--focus` asks.
fn finishing(snapshot: &Snapshot, apply: &Apply, made: NewWindow) -> Batch {
    let mut batch = Batch::new();
    let window = format!("@{}", made.window);
    if let Some(old) = apply.replacing {
        // The session's current tab stays current in its new shape.
        if old.active && apply.focus.is_none() {
            batch.push(crate::tmux::commands::select_window(&window));
        }
        batch.push(arrange::close_tab(old.session, old.id));
    }
    if let Some(client) = &apply.focus {
        batch.push(crate::tmux::commands::select_window(&window));
        batch.extend(navigate::switch_unless_there(
            snapshot,
            client.as_deref(),
            made.session,
            &window,
        ));
    }
    batch
}

/// The tree's splits in the tab `made`, as one batch, in the order
/// [`splits`] walks the tree, then the labels.
fn plan_built(apply: &Apply, made: NewWindow) -> Result<Plan<LayoutApplied>> {
    let mut walk = Walk {
        made,
        order: vec![0],
        batch: Batch::new(),
        labels: Vec::new(),
    };
    walk.splits(&apply.root, 0)?;
    // Each pane now sits at the window's place of its leaf.
    debug_assert!(walk.order.iter().enumerate().all(|(at, leaf)| at == *leaf));
    let Walk {
        mut batch, labels, ..
    } = walk;
    for (leaf, label) in labels {
        let mut writes = OptionWrites::default();
        writes.set(opt::LABEL, label);
        batch.extend(writes.commands_at(&made.place(leaf)));
    }
    Ok(Plan::read_back(batch, move |_, after| {
        Ok(LayoutApplied {
            layout: description(after, made.session, made.window)?,
        })
    }))
}

/// The splits of a tree, written before any is made. tmux puts a split's
/// new pane just after the pane split in its window's order, so where
/// each pane stands at each step follows from the tree alone.
struct Walk {
    made: NewWindow,
    /// The leaves (numbered in the tree's order) made so far, in the
    /// window's order.
    order: Vec<usize>,
    batch: Batch,
    labels: Vec<(usize, String)>,
}

impl Walk {
    /// Splits the pane of leaf `first`, which runs `node`'s first pane,
    /// into the panes of `node`.
    fn splits(&mut self, node: &LayoutInput, first: usize) -> Result<()> {
        let split = match node {
            LayoutInput::Pane(leaf) => {
                if let Some(label) = &leaf.label {
                    self.labels.push((first, label.clone()));
                }
                return Ok(());
            }
            LayoutInput::Split(split) => split,
        };
        let at = self
            .order
            .iter()
            .position(|leaf| *leaf == first)
            .expect("a leaf is split only once made");
        self.batch.push(arrange::split_window(
            &self.made.place(at),
            split.direction == SplitDirection::Right,
            percent_of(split)?,
            &spawn_of(split.second.first_pane()),
            false,
        ));
        let second = first + split.first.panes();
        self.order.insert(at + 1, second);
        self.splits(&split.first, first)?;
        self.splits(&split.second, second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::ErrorCode;
    use crate::tmux::snapshot::fixture;
    use serde_json::json;

    fn refused(value: Value) -> TawError {
        tree_of(&value).err().unwrap()
    }

    #[test]
    fn a_tree_is_found_in_an_export_its_envelope_or_bare() {
        let node = json!({ "type": "pane", "cwd": "/src", "pane_id": "w1:p1" });
        for value in [
            node.clone(),
            json!({ "root": node }),
            json!({ "layout": { "root": node } }),
            json!({ "result": { "layout": { "root": node } } }),
        ] {
            let tree = tree_of(&value).unwrap();
            assert_eq!(tree.first_pane().cwd.as_deref(), Some("/src"));
        }
        assert_eq!(
            refused(json!({ "nothing": 1 })).code,
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn a_tree_of_another_shape_is_refused_whole() {
        let pane = json!({ "type": "pane" });
        for bad in [
            json!({ "type": "triangle" }),
            json!({ "type": "split", "direction": "left", "first": pane, "second": pane }),
            json!({ "type": "split", "direction": "right", "first": pane }),
            json!({ "type": "pane", "command": "not a list" }),
            json!({ "type": "pane", "env": { "A": 1 } }),
            json!({ "type": "pane", "label": "two\nlines" }),
        ] {
            assert_eq!(
                refused(bad.clone()).code,
                ErrorCode::InvalidArgument,
                "{bad}"
            );
        }
        let mut deep = pane.clone();
        for _ in 0..33 {
            deep = json!({ "type": "split", "direction": "down", "first": deep, "second": pane });
        }
        assert!(refused(deep).message.contains("too deep"));
    }

    #[test]
    fn a_panes_command_is_quoted_word_by_word() {
        let tree = tree_of(&json!({
            "type": "split",
            "direction": "right",
            "ratio": 0.95,
            "first": {
                "type": "pane",
                "command": ["echo", "two words", "it's"],
                "env": { "B": "2", "A": "1" },
            },
            "second": { "type": "pane", "command": [] },
        }))
        .unwrap();
        let LayoutInput::Split(split) = &tree else {
            panic!("{tree:?}")
        };
        // A ratio past 0.9 is taken as 0.9, as herdr clamps it.
        assert_eq!(percent_of(split).unwrap(), 10);
        let first = spawn_of(tree.first_pane());
        assert_eq!(
            first.command.as_deref(),
            Some("echo 'two words' 'it'\\''s'")
        );
        assert_eq!(
            first.env,
            vec![("A".into(), "1".into()), ("B".into(), "2".into())]
        );
        assert_eq!(spawn_of(split.second.first_pane()).command, None);
        assert_eq!(tree.depth(), 1);
    }

    #[test]
    fn a_split_path_is_zeros_and_ones_from_the_root() {
        assert_eq!(parse_split_path("0, 1 1").unwrap(), vec![false, true, true]);
        assert!(parse_split_path("").unwrap().is_empty());
        assert_eq!(
            parse_split_path("2").err().unwrap().code,
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn a_tree_is_made_in_one_batch_each_pane_found_by_its_place() {
        let pane = |label: Option<&str>| json!({ "type": "pane", "label": label });
        let tree = tree_of(&json!({
            "type": "split", "direction": "right",
            "first": { "type": "split", "direction": "down", "ratio": 0.7,
                       "first": pane(None), "second": pane(Some("b")) },
            "second": { "type": "split", "direction": "down",
                        "first": { "type": "pane", "command": ["htop"] },
                        "second": pane(Some("d")) },
        }))
        .unwrap();
        let snapshot = fixture::server();
        let old = snapshot.window(1, 2).unwrap();
        let apply = Apply {
            root: tree,
            session: 2,
            replacing: Some(old),
            tab_label: None,
            focus: Some(Some("/dev/pts/1".into())),
        };
        let made = NewWindow {
            session: 2,
            window: 9,
            first_pane: 0,
            first_index: 1,
        };
        let plan = plan_rest(&snapshot, &apply, made).unwrap();
        let ids = arrange::NEW_IDS;
        // The first pane split right (the right half running htop, its
        // first pane), its left half down, then the right half (third in
        // the window by then) down.
        assert_eq!(
            plan.lines(),
            vec![
                format!("split-window -h -d -P -F {ids} -l 50% -t @9.1 -- htop"),
                format!("split-window -v -d -P -F {ids} -l 30% -t @9.1"),
                format!("split-window -v -d -P -F {ids} -l 50% -t @9.3"),
                "set-option -p -t @9.2 -- @agent_wizard_label b".into(),
                "set-option -p -t @9.4 -- @agent_wizard_label d".into(),
                "unlink-window -k -t $1:@2".into(),
                "select-window -t @9".into(),
                "switch-client -c /dev/pts/1 -t @9".into(),
            ]
        );
        // A lone pane: nothing more to make; the tab read after answers.
        let apply = Apply {
            root: tree_of(&pane(None)).unwrap(),
            session: 1,
            replacing: None,
            tab_label: None,
            focus: None,
        };
        let made = NewWindow {
            session: 1,
            window: 1,
            first_pane: 0,
            first_index: 0,
        };
        let plan = plan_rest(&snapshot, &apply, made).unwrap();
        assert!(plan.lines().is_empty());
        let applied = plan.answer_with("", &snapshot).unwrap();
        assert_eq!(applied.layout["root"]["type"], "split");
    }

    #[test]
    fn a_split_ratio_is_set_by_one_select_layout() {
        let snapshot = fixture::server();
        let window = snapshot.window(1, 1).unwrap();
        let plan = plan_split_ratio(window, &[], 0.25).unwrap();
        let lines = plan.lines();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("select-layout -t @1 "), "{lines:?}");
        assert!(lines[0].contains("{20x24,0,0,1,59x24,21,0,2}"), "{lines:?}");
        let set = plan.answer_with("", &snapshot).unwrap();
        assert_eq!(set.layout["root"]["type"], "split");
        // A path that ends at a pane, a ratio out of range.
        let error = plan_split_ratio(window, &[false], 0.5).err().unwrap();
        assert_eq!(error.code, ErrorCode::NotFound);
        // Out of 0.1 to 0.9, brought inside it; a number that is none.
        assert!(plan_split_ratio(window, &[], 0.95).is_ok());
        let error = plan_split_ratio(window, &[], f64::NAN).err().unwrap();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
    }
}
