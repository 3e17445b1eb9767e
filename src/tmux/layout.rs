//! tmux's window layouts (`#{window_layout}`): parsing them into a tree of
//! cells with their rectangles, and writing one back, checksum and all,
//! for `select-layout`.

/// A rectangle of a window, in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// How a cell's children sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Split {
    /// Side by side (tmux `{...}`; herdr's `right`).
    LeftRight,
    /// Stacked (tmux `[...]`; herdr's `down`).
    TopBottom,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cell {
    Pane {
        rect: Rect,
        pane: u32,
    },
    Split {
        rect: Rect,
        split: Split,
        children: Vec<Cell>,
    },
}

impl Cell {
    pub(crate) fn rect(&self) -> Rect {
        match self {
            Cell::Pane { rect, .. } | Cell::Split { rect, .. } => *rect,
        }
    }

    fn rect_mut(&mut self) -> &mut Rect {
        match self {
            Cell::Pane { rect, .. } | Cell::Split { rect, .. } => rect,
        }
    }

    #[cfg(test)]
    /// The panes of this cell, left to right and top to bottom.
    pub(crate) fn panes(&self) -> Vec<u32> {
        match self {
            Cell::Pane { pane, .. } => vec![*pane],
            Cell::Split { children, .. } => children.iter().flat_map(Cell::panes).collect(),
        }
    }
}

/// Parses `#{window_layout}`: `checksum,WxH,X,Y{...}`.
pub(crate) fn parse(layout: &str) -> Result<Cell, String> {
    let (_, body) = layout
        .split_once(',')
        .ok_or_else(|| format!("{layout:?} is not a tmux layout"))?;
    let mut parser = Parser {
        text: body.as_bytes(),
        at: 0,
    };
    let cell = parser.cell()?;
    if parser.at != parser.text.len() {
        return Err(format!("{layout:?}: text after the layout"));
    }
    Ok(cell)
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn number(&mut self) -> Result<u32, String> {
        let start = self.at;
        while self.at < self.text.len() && self.text[self.at].is_ascii_digit() {
            self.at += 1;
        }
        std::str::from_utf8(&self.text[start..self.at])
            .ok()
            .and_then(|digits| digits.parse().ok())
            .ok_or_else(|| format!("a number was expected at {start}"))
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.text.get(self.at) == Some(&byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("{:?} was expected at {}", byte as char, self.at))
        }
    }

    fn cell(&mut self) -> Result<Cell, String> {
        let width = self.number()?;
        self.expect(b'x')?;
        let height = self.number()?;
        self.expect(b',')?;
        let x = self.number()?;
        self.expect(b',')?;
        let y = self.number()?;
        let rect = Rect {
            x,
            y,
            width,
            height,
        };
        match self.text.get(self.at) {
            Some(b',') => {
                self.at += 1;
                let pane = self.number()?;
                Ok(Cell::Pane { rect, pane })
            }
            Some(&open @ (b'{' | b'[')) => {
                self.at += 1;
                let (split, close) = if open == b'{' {
                    (Split::LeftRight, b'}')
                } else {
                    (Split::TopBottom, b']')
                };
                let mut children = vec![self.cell()?];
                while self.text.get(self.at) == Some(&b',') {
                    self.at += 1;
                    children.push(self.cell()?);
                }
                self.expect(close)?;
                Ok(Cell::Split {
                    rect,
                    split,
                    children,
                })
            }
            _ => Err(format!("a pane or a split was expected at {}", self.at)),
        }
    }
}

/// Writes a cell back in tmux's syntax, checksum first.
pub(crate) fn render(cell: &Cell) -> String {
    let body = body(cell);
    format!("{:04x},{body}", checksum(&body))
}

fn body(cell: &Cell) -> String {
    let rect = cell.rect();
    let head = format!("{}x{},{},{}", rect.width, rect.height, rect.x, rect.y);
    match cell {
        Cell::Pane { pane, .. } => format!("{head},{pane}"),
        Cell::Split {
            split, children, ..
        } => {
            let (open, close) = match split {
                Split::LeftRight => ('{', '}'),
                Split::TopBottom => ('[', ']'),
            };
            let inner: Vec<String> = children.iter().map(body).collect();
            format!("{head}{open}{}{close}", inner.join(","))
        }
    }
}

/// tmux's layout checksum.
fn checksum(text: &str) -> u16 {
    let mut sum: u16 = 0;
    for byte in text.bytes() {
        sum = (sum >> 1) | ((sum & 1) << 15);
        sum = sum.wrapping_add(byte as u16);
    }
    sum
}

/// Sets the sizes along a split: `sizes` (one per child, borders not
/// counted) become the children's widths (side by side) or heights
/// (stacked); positions follow, one cell of border between children, and
/// each child's own children are scaled to fit.
pub(crate) fn resize_children(cell: &mut Cell, sizes: &[u32]) {
    let Cell::Split {
        rect,
        split,
        children,
    } = cell
    else {
        return;
    };
    let (mut position, split) = match split {
        Split::LeftRight => (rect.x, *split),
        Split::TopBottom => (rect.y, *split),
    };
    for (child, &size) in children.iter_mut().zip(sizes) {
        let mut target = child.rect();
        match split {
            Split::LeftRight => {
                target.x = position;
                target.width = size;
            }
            Split::TopBottom => {
                target.y = position;
                target.height = size;
            }
        }
        fit(child, target);
        position += size + 1;
    }
}

/// Gives a cell a new rectangle, scaling its children in proportion.
pub(crate) fn fit(cell: &mut Cell, target: Rect) {
    let old = cell.rect();
    *cell.rect_mut() = target;
    if let Cell::Split {
        split, children, ..
    } = cell
    {
        let along = |r: Rect| match split {
            Split::LeftRight => r.width,
            Split::TopBottom => r.height,
        };
        let borders = children.len().saturating_sub(1) as u32;
        let old_room = along(old).saturating_sub(borders).max(1);
        let new_room = along(target).saturating_sub(borders);
        let mut sizes: Vec<u32> = children
            .iter()
            .map(|child| (along(child.rect()) as u64 * new_room as u64 / old_room as u64) as u32)
            .map(|size| size.max(1))
            .collect();
        // The rounding's remainder goes to the last child.
        let used: u32 = sizes.iter().sum();
        if let Some(last) = sizes.last_mut() {
            *last = (*last + new_room).saturating_sub(used).max(1);
        }
        let split = *split;
        let mut position = match split {
            Split::LeftRight => target.x,
            Split::TopBottom => target.y,
        };
        for (child, size) in children.iter_mut().zip(sizes) {
            let mut rect = target;
            match split {
                Split::LeftRight => {
                    rect.x = position;
                    rect.width = size;
                }
                Split::TopBottom => {
                    rect.y = position;
                    rect.height = size;
                }
            }
            fit(child, rect);
            position += size + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What tmux 3.3a printed for a 160x49 window split right, then down.
    const THREE: &str = "c075,160x49,0,0{80x49,0,0,0,79x49,81,0[79x24,81,0,1,79x24,81,25,2]}";

    #[test]
    fn parses_and_writes_back() {
        let cell = parse(THREE).unwrap();
        assert_eq!(cell.panes(), vec![0, 1, 2]);
        let Cell::Split {
            split, children, ..
        } = &cell
        else {
            panic!()
        };
        assert_eq!(*split, Split::LeftRight);
        assert_eq!(
            children[1].rect(),
            Rect {
                x: 81,
                y: 0,
                width: 79,
                height: 49
            }
        );
        assert_eq!(render(&cell), THREE);
        assert_eq!(
            render(&parse("b25d,80x24,0,0,0").unwrap()),
            "b25d,80x24,0,0,0"
        );
    }

    #[test]
    fn refuses_what_is_not_a_layout() {
        for bad in [
            "",
            "abc",
            "1234,80x24",
            "1234,80x24,0,0{",
            "1234,80x24,0,0,1x",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resizing_keeps_the_sizes_whole() {
        let mut cell = parse(THREE).unwrap();
        resize_children(&mut cell, &[40, 119]);
        let Cell::Split { children, .. } = &cell else {
            panic!()
        };
        assert_eq!(children[0].rect().width, 40);
        assert_eq!(
            children[1].rect(),
            Rect {
                x: 41,
                y: 0,
                width: 119,
                height: 49
            }
        );
        let Cell::Split {
            children: inner, ..
        } = &children[1]
        else {
            panic!()
        };
        assert!(
            inner
                .iter()
                .all(|c| c.rect().width == 119 && c.rect().x == 41)
        );
        // The rendered layout parses again with the same tree.
        assert_eq!(parse(&render(&cell)).unwrap(), cell);
    }
}

/// A split of herdr's binary view over a tmux layout: the split between
/// child `index` of an n-ary split and the children after it.
fn binary_child(cell: &Cell, index: usize, second: bool) -> Option<(&Cell, usize)> {
    let Cell::Split { children, .. } = cell else {
        return None;
    };
    if !second {
        return Some((&children[index], 0));
    }
    if index + 2 == children.len() {
        Some((&children[index + 1], 0))
    } else {
        Some((cell, index + 1))
    }
}

/// The cell and index of the binary split at `path`, as positions from the
/// root (each a child index), so the caller can reach it mutably.
fn locate(root: &Cell, path: &[bool]) -> Option<(Vec<usize>, usize)> {
    let mut cell = root;
    let mut index = 0;
    let mut trail: Vec<usize> = Vec::new();
    for &second in path {
        if !matches!(cell, Cell::Split { .. }) {
            return None;
        }
        let (next, next_index) = binary_child(cell, index, second)?;
        if !std::ptr::eq(next, cell) {
            let Cell::Split { children, .. } = cell else {
                return None;
            };
            let position = children.iter().position(|c| std::ptr::eq(c, next))?;
            trail.push(position);
        }
        cell = next;
        index = next_index;
    }
    matches!(cell, Cell::Split { .. }).then_some((trail, index))
}

fn cell_at_mut<'a>(root: &'a mut Cell, trail: &[usize]) -> Option<&'a mut Cell> {
    let mut cell = root;
    for &position in trail {
        let Cell::Split { children, .. } = cell else {
            return None;
        };
        cell = children.get_mut(position)?;
    }
    Some(cell)
}

/// Sets the ratio of herdr's binary split at `path` (false: first child,
/// true: second): the first side gets `ratio` of the room, the children on
/// the second side share the rest in the proportions they had.
pub(crate) fn set_ratio(root: &mut Cell, path: &[bool], ratio: f64) -> Result<(), String> {
    let (trail, index) = locate(root, path).ok_or_else(|| format!("no split at path {path:?}"))?;
    let cell = cell_at_mut(root, &trail).ok_or("no split at that path")?;
    let Cell::Split {
        split, children, ..
    } = &*cell
    else {
        return Err("no split at that path".into());
    };
    let along = |r: Rect| match split {
        Split::LeftRight => r.width,
        Split::TopBottom => r.height,
    };
    let sizes: Vec<u32> = children.iter().map(|c| along(c.rect())).collect();
    let rest = &sizes[index..];
    let borders = rest.len() as u32 - 1;
    let room = rest.iter().sum::<u32>() + borders;
    // The first side, the border after it, the rest with its own borders.
    let first = ((room - 1) as f64 * ratio).round().max(1.0) as u32;
    let second_room = room.saturating_sub(first + 1);
    let second_borders = borders.saturating_sub(1);
    let old_second: u32 = rest[1..].iter().sum();
    let mut new_sizes: Vec<u32> = sizes[..index].to_vec();
    new_sizes.push(first);
    let free = second_room.saturating_sub(second_borders);
    let mut given = 0;
    for (i, size) in rest[1..].iter().enumerate() {
        let share = if i + 2 == rest.len() {
            free.saturating_sub(given)
        } else {
            (*size as u64 * free as u64 / old_second.max(1) as u64) as u32
        };
        given += share;
        new_sizes.push(share.max(1));
    }
    resize_children(cell, &new_sizes);
    Ok(())
}

#[cfg(test)]
mod ratio_tests {
    use super::*;

    #[test]
    fn set_ratio_on_the_root_and_a_nested_split() {
        let mut cell =
            parse("c075,160x49,0,0{80x49,0,0,0,79x49,81,0[79x24,81,0,1,79x24,81,25,2]}").unwrap();
        set_ratio(&mut cell, &[], 0.25).unwrap();
        let Cell::Split { children, .. } = &cell else {
            panic!()
        };
        assert_eq!(children[0].rect().width, 40);
        assert_eq!(children[1].rect().width, 119);
        set_ratio(&mut cell, &[true], 0.75).unwrap();
        let Cell::Split { children, .. } = &cell else {
            panic!()
        };
        let Cell::Split {
            children: inner, ..
        } = &children[1]
        else {
            panic!()
        };
        assert_eq!(inner[0].rect().height, 36);
        assert_eq!(inner[1].rect().height, 12);
        assert!(
            set_ratio(&mut cell, &[false], 0.5).is_err(),
            "a pane has no split"
        );
        // Three side by side: the root split is a | (b, c).
        let mut three = parse("0000,100x10,0,0{30x10,0,0,0,30x10,31,0,1,38x10,62,0,2}").unwrap();
        set_ratio(&mut three, &[], 0.5).unwrap();
        let Cell::Split { children, .. } = &three else {
            panic!()
        };
        let widths: Vec<u32> = children.iter().map(|c| c.rect().width).collect();
        assert_eq!(widths[0], 50);
        assert_eq!(widths[1] + widths[2] + 1, 49);
        set_ratio(&mut three, &[true], 0.5).unwrap();
    }
}
