//! herdr's layout records from a tmux window layout. tmux's splits hold any
//! number of children; herdr's hold two. A tmux split of `a, b, c` is read
//! as `a` and the split of `b, c`, the first child's ratio its share of the
//! room the two have.

use crate::tmux::ids;
use crate::tmux::layout::{Cell, Rect, Split};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct RectRecord {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl From<Rect> for RectRecord {
    fn from(rect: Rect) -> RectRecord {
        RectRecord {
            x: rect.x,
            y: rect.y,
            width: rect.width,
            height: rect.height,
        }
    }
}

/// herdr's direction of a split.
pub(crate) fn direction(split: Split) -> &'static str {
    match split {
        Split::LeftRight => "right",
        Split::TopBottom => "down",
    }
}

/// A tree to make, as `layout apply` takes it: herdr's LayoutNode. What
/// else a node holds (the ids and rectangles of an export) is not read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum LayoutInput {
    Pane(PaneInput),
    Split(SplitInput),
}

/// A pane to make: where its program starts, what it runs, its label.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub(crate) struct PaneInput {
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub label: Option<String>,
    /// The program and its arguments; the user's shell when none.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    pub env: Option<std::collections::BTreeMap<String, String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SplitDirection {
    Right,
    Down,
}

/// Two trees side by side (`right`) or one above the other (`down`), the
/// first taking `ratio` of the room (half when none).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct SplitInput {
    pub direction: SplitDirection,
    #[serde(default)]
    pub ratio: Option<f64>,
    pub first: Box<LayoutInput>,
    pub second: Box<LayoutInput>,
}

impl LayoutInput {
    /// How many splits deep the tree goes.
    pub(crate) fn depth(&self) -> usize {
        match self {
            LayoutInput::Pane(_) => 0,
            LayoutInput::Split(split) => 1 + split.first.depth().max(split.second.depth()),
        }
    }

    /// How many panes the tree has.
    pub(crate) fn panes(&self) -> usize {
        match self {
            LayoutInput::Pane(_) => 1,
            LayoutInput::Split(split) => split.first.panes() + split.second.panes(),
        }
    }

    /// The first pane of the tree: the one a split keeps is its first
    /// child's.
    pub(crate) fn first_pane(&self) -> &PaneInput {
        match self {
            LayoutInput::Pane(pane) => pane,
            LayoutInput::Split(split) => split.first.first_pane(),
        }
    }
}

/// A binary tree over a tmux layout.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Pane {
        pane: u32,
        rect: Rect,
    },
    Split {
        split: Split,
        ratio: f32,
        rect: Rect,
        first: Box<Node>,
        second: Box<Node>,
    },
}

impl Node {
    pub(crate) fn from_cell(cell: &Cell) -> Node {
        match cell {
            Cell::Pane { pane, rect } => Node::Pane {
                pane: *pane,
                rect: *rect,
            },
            Cell::Split {
                split, children, ..
            } => from_children(*split, children),
        }
    }

    pub(crate) fn rect(&self) -> Rect {
        match self {
            Node::Pane { rect, .. } | Node::Split { rect, .. } => *rect,
        }
    }

    #[cfg(test)]
    /// The split at `path` (false: first child, true: second).
    pub(crate) fn at(&self, path: &[bool]) -> Option<&Node> {
        match (path.split_first(), self) {
            (None, node) => Some(node),
            (
                Some((second, rest)),
                Node::Split {
                    first,
                    second: other,
                    ..
                },
            ) => {
                if *second {
                    other.at(rest)
                } else {
                    first.at(rest)
                }
            }
            _ => None,
        }
    }
}

fn along(split: Split, rect: Rect) -> u32 {
    match split {
        Split::LeftRight => rect.width,
        Split::TopBottom => rect.height,
    }
}

fn from_children(split: Split, children: &[Cell]) -> Node {
    if children.len() == 1 {
        return Node::from_cell(&children[0]);
    }
    let first = Node::from_cell(&children[0]);
    let second = from_children(split, &children[1..]);
    let (a, b) = (first.rect(), second.rect());
    let rect = Rect {
        x: a.x,
        y: a.y,
        width: match split {
            Split::LeftRight => b.x + b.width - a.x,
            Split::TopBottom => a.width,
        },
        height: match split {
            Split::LeftRight => a.height,
            Split::TopBottom => b.y + b.height - a.y,
        },
    };
    let room = (along(split, a) + along(split, b)).max(1);
    Node::Split {
        split,
        ratio: along(split, a) as f32 / room as f32,
        rect,
        first: Box::new(first),
        second: Box::new(second),
    }
}

/// How a pane is described in a layout export: its session, label, folder.
pub(crate) struct PaneFacts {
    pub session: u32,
    pub label: Option<String>,
    pub cwd: Option<String>,
}

/// herdr's LayoutNode.
pub(crate) fn layout_node(node: &Node, facts: &dyn Fn(u32) -> PaneFacts) -> Value {
    match node {
        Node::Pane { pane, .. } => {
            let f = facts(*pane);
            json!({
                "type": "pane",
                "pane_id": ids::pane_id(f.session, *pane),
                "label": f.label,
                "cwd": f.cwd,
            })
        }
        Node::Split {
            split,
            ratio,
            first,
            second,
            ..
        } => json!({
            "type": "split",
            "direction": direction(*split),
            "ratio": round(*ratio),
            "first": layout_node(first, facts),
            "second": layout_node(second, facts),
        }),
    }
}

/// herdr's split records: every split with its id, direction, ratio, rect.
pub(crate) fn splits(node: &Node, tab_number: u64) -> Vec<Value> {
    let mut out = Vec::new();
    collect_splits(node, tab_number, &mut String::new(), &mut out);
    out
}

fn collect_splits(node: &Node, tab: u64, path: &mut String, out: &mut Vec<Value>) {
    if let Node::Split {
        split,
        ratio,
        rect,
        first,
        second,
    } = node
    {
        let id = if path.is_empty() {
            format!("split_{tab}_root")
        } else {
            format!("split_{tab}_{path}")
        };
        out.push(json!({
            "id": id,
            "direction": direction(*split),
            "ratio": round(*ratio),
            "rect": RectRecord::from(*rect),
        }));
        path.push('0');
        collect_splits(first, tab, path, out);
        path.pop();
        path.push('1');
        collect_splits(second, tab, path, out);
        path.pop();
    }
}

/// Ratios to three places, so a record reads 0.5 and not 0.50310558.
fn round(ratio: f32) -> f64 {
    (ratio as f64 * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::layout::parse;

    #[test]
    fn an_n_ary_split_reads_as_binary() {
        let cell =
            parse("c075,160x49,0,0{80x49,0,0,0,79x49,81,0[79x24,81,0,1,79x24,81,25,2]}").unwrap();
        let node = Node::from_cell(&cell);
        let Node::Split {
            split,
            ratio,
            first,
            second,
            ..
        } = &node
        else {
            panic!()
        };
        assert_eq!(*split, Split::LeftRight);
        assert!((ratio - 80.0 / 159.0).abs() < 0.001);
        assert!(matches!(**first, Node::Pane { pane: 0, .. }));
        assert!(matches!(
            **second,
            Node::Split {
                split: Split::TopBottom,
                ..
            }
        ));
        let ids: Vec<String> = splits(&node, 1)
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids, vec!["split_1_root", "split_1_1"]);
        assert!(matches!(
            node.at(&[true, false]),
            Some(Node::Pane { pane: 1, .. })
        ));
        // Three side by side: a, then the split of b and c.
        let cell = parse("0000,100x10,0,0{30x10,0,0,0,30x10,31,0,1,38x10,62,0,2}").unwrap();
        let Node::Split { second, .. } = Node::from_cell(&cell) else {
            panic!()
        };
        let Node::Split { rect, ratio, .. } = *second else {
            panic!()
        };
        assert_eq!(
            rect,
            Rect {
                x: 31,
                y: 0,
                width: 69,
                height: 10
            }
        );
        assert!((ratio - 30.0 / 68.0).abs() < 0.001);
    }
}
