//! `taw layout export|apply|set-split-ratio`: herdr's split trees over
//! tmux's own window layouts.

use super::pane::arrange::new_pane_percent;
use super::workspace::last_client;
use super::{Context, calling_pane, envelope_id};
use crate::envelope::{Reply, Result, TawError};
use crate::model::{Records, resolve};
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::commands as cmd;
use crate::tmux::layout;
use crate::tmux::options::pane as opt;
use crate::tmux::pane::OptionWrites;
use crate::tmux::snapshot::{Snapshot, Window};
use crate::tmux::{Batch, Tmux, shell_quote};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use std::io::Read;

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// A tab's split tree, each pane with its label and folder (herdr's LayoutDescription).
    Export(Which),
    /// Make a tab from a split tree (JSON: a LayoutDescription or its root).
    Apply(ApplyArgs),
    /// Set the ratio of one split of a tab.
    SetSplitRatio(RatioArgs),
}

/// The tab a verb is about: `--tab`, the tab of `--pane`, or the tab taw
/// runs in, else the one in front.
#[derive(Debug, Args)]
pub struct Which {
    #[arg(long, conflicts_with = "pane")]
    pub tab: Option<String>,
    #[arg(long)]
    pub pane: Option<String>,
}

impl Which {
    fn window<'a>(&self, snapshot: &'a Snapshot) -> Result<&'a Window> {
        if let Some(tab) = &self.tab {
            return resolve::tab(snapshot, tab);
        }
        let pane = match &self.pane {
            Some(pane) => resolve::pane(snapshot, pane)?,
            None => match calling_pane(snapshot).and_then(|id| snapshot.pane(id, None)) {
                Some(pane) => pane,
                None => snapshot
                    .focused_pane()
                    .ok_or_else(|| TawError::not_found("the tmux server has no pane"))?,
            },
        };
        snapshot
            .windows
            .iter()
            .find(|w| w.id == pane.window && w.session == pane.session)
            .ok_or_else(|| TawError::not_found("the pane's tab is gone"))
    }
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// The workspace of the new tab (default: the one taw runs in, or in front).
    #[arg(long)]
    pub workspace: Option<String>,
    /// Replace this tab (its programs end) instead of making a new one.
    #[arg(long)]
    pub tab: Option<String>,
    /// The new tab's name.
    #[arg(long)]
    pub tab_label: Option<String>,
    /// Show the tab on the client used last.
    #[arg(long)]
    pub focus: bool,
    /// The JSON, from a file or - for standard input.
    #[arg(long, default_value = "-")]
    pub file: String,
}

#[derive(Debug, Args)]
pub struct RatioArgs {
    #[command(flatten)]
    pub which: Which,
    /// The split: 0 and 1 from the root (0 the first child, 1 the second);
    /// empty for the root.
    #[arg(long, default_value = "")]
    pub path: String,
    /// The first child's share, 0.1 to 0.9.
    #[arg(long)]
    pub ratio: f64,
}

pub fn run(context: &Context, verb: Verb) -> (String, Result<Reply>) {
    match verb {
        Verb::Export(which) => (envelope_id("layout", "export"), export(context, &which)),
        Verb::Apply(args) => (envelope_id("layout", "apply"), apply(context, args)),
        Verb::SetSplitRatio(args) => (
            envelope_id("layout", "set-split-ratio"),
            set_ratio(context, args),
        ),
    }
}

fn description(context: &Context, session: u32, window: u32) -> Result<Value> {
    let snapshot = context.snapshot()?;
    let window = snapshot
        .windows
        .iter()
        .find(|w| w.id == window && w.session == session)
        .ok_or_else(|| TawError::not_found("the tab is gone"))?;
    Ok(Records::new(&snapshot).layout_description(window))
}

fn export(context: &Context, which: &Which) -> Result<Reply> {
    let snapshot = context.snapshot()?;
    let window = which.window(&snapshot)?;
    Ok(Reply::result(
        "layout_export",
        json!({ "layout": Records::new(&snapshot).layout_description(window) }),
    ))
}

fn set_ratio(context: &Context, args: RatioArgs) -> Result<Reply> {
    let path: Vec<bool> = args
        .path
        .chars()
        .filter(|c| !matches!(c, ',' | ' '))
        .map(|c| match c {
            '0' => Ok(false),
            '1' => Ok(true),
            _ => Err(TawError::invalid_argument(format!(
                "--path {:?}: write 0 (first child) and 1 (second) from the root",
                args.path
            ))),
        })
        .collect::<Result<_>>()?;
    if !(0.1..=0.9).contains(&args.ratio) {
        return Err(TawError::invalid_argument(format!(
            "--ratio {}: from 0.1 to 0.9",
            args.ratio
        )));
    }
    let ratio = args.ratio;
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let window = args.which.window(&snapshot)?;
    let mut cell = layout::parse(&window.layout).map_err(TawError::tmux)?;
    layout::set_ratio(&mut cell, &path, ratio).map_err(|why| {
        TawError::not_found(format!(
            "tab has {why}; `taw layout export` shows its splits"
        ))
    })?;
    tmux.run_one(arrange::select_layout(
        &format!("@{}", window.id),
        &layout::render(&cell),
    ))?;
    Ok(Reply::result(
        "layout_split_ratio_set",
        json!({ "layout": description(context, window.session, window.id)? }),
    ))
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
                .map(|w| w.as_str().map(shell_quote))
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
fn check(node: &Value, depth: usize) -> Result<()> {
    if depth > 32 {
        return Err(TawError::invalid_argument("the layout is nested too deep"));
    }
    match node["type"].as_str() {
        Some("pane") => leaf_of(node).map(|_| ()),
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
    ))?;
    let (_, _, new) = arrange::parse_new_ids(&output).ok_or_else(|| {
        TawError::tmux(format!("tmux did not say which pane it made: {output:?}"))
    })?;
    build(tmux, &node["first"], pane, labels)?;
    build(tmux, &node["second"], new, labels)
}

fn apply(context: &Context, args: ApplyArgs) -> Result<Reply> {
    let mut text = String::new();
    if args.file == "-" {
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            TawError::io(format!("cannot read the layout from standard input: {e}"))
        })?;
    } else {
        text = std::fs::read_to_string(&args.file)
            .map_err(|e| TawError::not_found(format!("cannot read {}: {e}", args.file)))?;
    }
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| TawError::invalid_argument(format!("the layout is not JSON: {e}")))?;
    // A LayoutDescription, an envelope of one, or a bare node.
    let root = [
        &value["result"]["layout"]["root"],
        &value["layout"]["root"],
        &value["root"],
        &value,
    ]
    .into_iter()
    .find(|v| v.is_object() && v["type"].is_string())
    .ok_or_else(|| {
        TawError::invalid_argument("no layout node (\"type\": \"pane\" or \"split\") found")
    })?
    .clone();
    check(&root, 0)?;
    let tmux = context.tmux();
    let snapshot = Snapshot::read(&tmux)?;
    let replacing = args
        .tab
        .as_deref()
        .map(|tab| resolve::tab(&snapshot, tab))
        .transpose()?;
    // The tab replaced is closed: asked before anything is made.
    if let Some(old) = replacing {
        crate::veto::may_close(&crate::veto::Closing::Window(old.id))?;
    }
    let session = match (&args.workspace, replacing) {
        (Some(workspace), _) => resolve::workspace(&snapshot, workspace)?,
        (None, Some(window)) => window.session,
        (None, None) => match calling_pane(&snapshot).and_then(|id| snapshot.pane(id, None)) {
            Some(pane) => pane.session,
            None => snapshot
                .focused_session()
                .ok_or_else(|| TawError::not_found("the tmux server has no session"))?,
        },
    };
    let first = leaf_of(first_leaf(&root)?)?;
    let name = args
        .tab_label
        .as_deref()
        .map(|l| crate::notify::one_line(l, 80))
        .filter(|l| !l.is_empty());
    let output = tmux.run_one(arrange::new_window(
        &format!("${session}"),
        name.as_deref(),
        &first.spawn,
    ))?;
    let (session, window, pane) = arrange::parse_new_ids(&output)
        .ok_or_else(|| TawError::tmux(format!("tmux did not say what it made: {output:?}")))?;
    let mut labels = Vec::new();
    build(&tmux, &root, pane, &mut labels)?;
    let mut batch = Batch::new();
    for (pane, label) in labels {
        let mut writes = OptionWrites::default();
        writes.set(opt::LABEL, crate::notify::one_line(&label, 80));
        batch.extend(writes.commands(pane));
    }
    if let Some(old) = replacing {
        batch.push(arrange::kill_window(&format!("@{}", old.id)));
    }
    if args.focus {
        batch.push(cmd::select_window(&format!("@{window}")));
        if let Some(client) = last_client(&snapshot) {
            batch.push(cmd::switch_client(client, &format!("@{window}")));
        }
    }
    tmux.run(&batch)?;
    Ok(Reply::result(
        "layout_apply",
        json!({ "layout": description(context, session, window)? }),
    ))
}
