//! Layouts: herdr's split trees over tmux's own window layouts, exported,
//! applied as a new tab (or in place of one), and one split's ratio set.

use super::names::{self, Named};
use super::navigate;
use super::pane::new_pane_percent;
use super::unread;
use crate::envelope::{Result, TawError, answers};
use crate::model::Records;
use crate::text::shell_word;
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::layout;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::OptionWrites;
use crate::tmux::snapshot::{Snapshot, Window};
use crate::tmux::{Batch, Tmux};
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

/// herdr's LayoutDescription of window `@window` of `$session`, read afresh.
fn description(tmux: &Tmux, session: u32, window: u32) -> Result<Value> {
    let snapshot = Snapshot::read(tmux)?;
    let window = snapshot
        .window(session, window)
        .ok_or_else(|| TawError::not_found("the tab is gone"))?;
    Ok(Records::new(&snapshot).layout_description(window))
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
    if !(0.1..=0.9).contains(&ratio) {
        return Err(TawError::invalid_argument(format!(
            "--ratio {ratio}: from 0.1 to 0.9"
        )));
    }
    let mut cell = layout::parse(&window.layout).map_err(TawError::tmux)?;
    layout::set_ratio(&mut cell, path, ratio).map_err(|why| {
        TawError::not_found(format!(
            "tab has {why}; `taw layout export` shows its splits"
        ))
    })?;
    tmux.run_one(arrange::select_layout(
        &format!("@{}", window.id),
        &layout::render(&cell),
    ))?;
    Ok(RatioSet {
        layout: description(tmux, window.session, window.id)?,
    })
}

/// The node of a layout JSON: a LayoutDescription, an envelope of one, or
/// a bare node.
pub(crate) fn root_of(value: &Value) -> Result<Value> {
    [
        &value["result"]["layout"]["root"],
        &value["layout"]["root"],
        &value["root"],
        value,
    ]
    .into_iter()
    .find(|v| v.is_object() && v["type"].is_string())
    .cloned()
    .ok_or_else(|| {
        TawError::invalid_argument("no layout node (\"type\": \"pane\" or \"split\") found")
    })
}

/// A leaf of the tree to make: where its program starts, and its label.
struct Leaf {
    spawn: Spawn,
    label: Option<String>,
}

fn leaf_of(node: &Value) -> Result<Leaf> {
    let command = match &node["command"] {
        Value::Array(words) => {
            let words: Vec<String> = words
                .iter()
                .map(|w| w.as_str().map(shell_word))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    TawError::invalid_argument("a pane's command is a list of strings")
                })?;
            (!words.is_empty()).then(|| words.join(" "))
        }
        Value::Null => None,
        _ => {
            return Err(TawError::invalid_argument(
                "a pane's command is a list of strings",
            ));
        }
    };
    let env = match &node["env"] {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|v| (k.clone(), v.to_string()))
                    .ok_or_else(|| TawError::invalid_argument("a pane's env values are strings"))
            })
            .collect::<Result<_>>()?,
        Value::Null => Vec::new(),
        _ => return Err(TawError::invalid_argument("a pane's env is an object")),
    };
    Ok(Leaf {
        spawn: Spawn {
            cwd: node["cwd"].as_str().map(str::to_string),
            env,
            command,
        },
        label: node["label"].as_str().map(str::to_string),
    })
}

/// The first leaf of a tree: the pane a split keeps is its first child's.
fn first_leaf(node: &Value) -> Result<&Value> {
    match node["type"].as_str() {
        Some("pane") => Ok(node),
        Some("split") => first_leaf(&node["first"]),
        _ => Err(TawError::invalid_argument(
            "a layout node has \"type\": \"pane\" or \"split\"",
        )),
    }
}

/// Checks a tree before anything is made.
pub(crate) fn check_tree(root: &Value) -> Result<()> {
    check(root, 0)
}

fn check(node: &Value, depth: usize) -> Result<()> {
    if depth > 32 {
        return Err(TawError::invalid_argument("the layout is nested too deep"));
    }
    match node["type"].as_str() {
        Some("pane") => match leaf_of(node)?.label {
            Some(label) => names::check(Named::Pane, &label),
            None => Ok(()),
        },
        Some("split") => {
            match node["direction"].as_str() {
                Some("right" | "down") => {}
                _ => {
                    return Err(TawError::invalid_argument(
                        "a split's direction is right or down",
                    ));
                }
            }
            let ratio = node["ratio"].as_f64().unwrap_or(0.5);
            new_pane_percent(ratio.clamp(0.1, 0.9))?;
            check(&node["first"], depth + 1)?;
            check(&node["second"], depth + 1)
        }
        _ => Err(TawError::invalid_argument(
            "a layout node has \"type\": \"pane\" or \"split\"",
        )),
    }
}

/// Makes the panes of `node` in pane `%pane`, which already runs the
/// node's first leaf.
fn build(tmux: &Tmux, node: &Value, pane: u32, labels: &mut Vec<(u32, String)>) -> Result<()> {
    if node["type"] == "pane" {
        if let Some(label) = leaf_of(node)?.label {
            labels.push((pane, label));
        }
        return Ok(());
    }
    let right = node["direction"] == "right";
    let percent = new_pane_percent(node["ratio"].as_f64().unwrap_or(0.5).clamp(0.1, 0.9))?;
    let second = leaf_of(first_leaf(&node["second"])?)?;
    let output = tmux.run_one(arrange::split_window(
        &format!("%{pane}"),
        right,
        percent,
        &second.spawn,
        false,
    ))?;
    let (_, _, new) =
        arrange::parse_new_ids(&output).ok_or_else(|| unread("which pane it made", &output))?;
    build(tmux, &node["first"], pane, labels)?;
    build(tmux, &node["second"], new, labels)
}

/// Where a tree goes: a new tab of `session`, or in place of `replacing`.
#[derive(Debug, Clone)]
pub(crate) struct Apply<'a> {
    pub root: Value,
    pub session: u32,
    pub replacing: Option<&'a Window>,
    pub tab_label: Option<String>,
    /// The client to show the tab on; `Some(None)` selects it with none.
    pub focus: Option<Option<String>>,
}

/// Makes a tab from a split tree. Everything is checked before anything is
/// made; the tab replaced is closed (once the veto lets it) after the new
/// one is there.
pub(crate) fn apply(tmux: &Tmux, apply: Apply) -> Result<LayoutApplied> {
    check(&apply.root, 0)?;
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
    let root = &apply.root;
    let first = leaf_of(first_leaf(root)?)?;
    let output = tmux.run_one(arrange::new_window(
        &format!("${}", apply.session),
        apply.tab_label.as_deref(),
        &first.spawn,
        false,
    ))?;
    let (session, window, pane) =
        arrange::parse_new_ids(&output).ok_or_else(|| unread("what it made", &output))?;
    let mut labels = Vec::new();
    if let Err(error) = build(tmux, root, pane, &mut labels) {
        // A tree tmux could not make whole (no room for a pane) leaves no
        // half-made tab behind (a tmux that did not answer is not asked);
        // the build's own error is what is answered.
        if error.code != crate::envelope::ErrorCode::Timeout {
            let _ = tmux.run_one(arrange::kill_window(&format!("@{window}")));
        }
        return Err(error);
    }
    let mut batch = Batch::new();
    for (pane, label) in labels {
        let mut writes = OptionWrites::default();
        writes.set(opt::LABEL, label);
        batch.extend(writes.commands(pane));
    }
    if let Some(old) = apply.replacing {
        batch.push(arrange::kill_window(&format!("@{}", old.id)));
    }
    tmux.run(&batch)?;
    if let Some(client) = &apply.focus {
        navigate::to_window(tmux, window, client.as_deref())?;
    }
    Ok(LayoutApplied {
        layout: description(tmux, session, window)?,
    })
}
