//! A pane's screen kept by the watcher itself, from the bytes its pipe
//! hands over: a look at an agent that redraws reads this, not tmux.
//!
//! Seeded from tmux's own capture (its text, cursor, scroll region and
//! screen), then fed every byte the pane prints. The watcher compares it
//! with tmux's capture now and then; the capture wins.

pub(crate) use crate::tmux::pane::Geometry;
use std::time::Instant;

pub(crate) struct Mirror {
    parser: vt100::Parser,
    /// Seeded while the alternate screen was in front: the screen behind
    /// it is not known, so leaving it makes the mirror untrustworthy.
    seeded_alternate: bool,
    /// Bytes were dropped (the pane printed faster than it is read).
    lost: bool,
    /// The last time a difference with tmux was logged.
    pub last_told_difference: Option<Instant>,
}

/// The most cells a mirror keeps: vt100 holds every cell of its screen
/// (tens of bytes each) from the start, and a pane may be 10,000 × 10,000.
const MIRROR_CELLS_MAX: usize = 1 << 20;

impl Mirror {
    /// A mirror of a screen whose plain text (`capture-pane -p`) is
    /// `text`, its geometry `at`; none for a screen too narrow for a wide
    /// character (vt100 panics printing one in a single column) or too
    /// large to hold: tmux's capture is read instead.
    pub(crate) fn seed(text: &str, at: Geometry) -> Option<Mirror> {
        let rows = at.height.max(1);
        let columns = at.width;
        if columns < 2 || usize::from(rows) * usize::from(columns) > MIRROR_CELLS_MAX {
            return None;
        }
        let parser = vt100::Parser::new(rows, columns, 0);
        let mut bytes: Vec<u8> = Vec::with_capacity(text.len() + 16 * usize::from(rows));
        if at.alternate {
            bytes.extend_from_slice(b"\x1b[?1049h");
        }
        bytes.extend_from_slice(b"\x1b[H\x1b[2J");
        for (row, line) in text.split('\n').take(usize::from(rows)).enumerate() {
            // Only printable text is drawn: a capture carries no control
            // characters, and one that did must not move the cursor here.
            let line: String = line.chars().filter(|c| !c.is_control()).collect();
            bytes.extend_from_slice(format!("\x1b[{};1H", row + 1).as_bytes());
            bytes.extend_from_slice(line.as_bytes());
        }
        if at.scroll_lower > at.scroll_upper && at.scroll_lower < rows {
            bytes.extend_from_slice(
                format!("\x1b[{};{}r", at.scroll_upper + 1, at.scroll_lower + 1).as_bytes(),
            );
        }
        bytes
            .extend_from_slice(format!("\x1b[{};{}H", at.cursor_y + 1, at.cursor_x + 1).as_bytes());
        let mut mirror = Mirror {
            parser,
            seeded_alternate: at.alternate,
            lost: false,
            last_told_difference: None,
        };
        mirror.feed(&bytes);
        Some(mirror)
    }

    /// Takes in what the pane printed. The parser is another crate's, fed
    /// what any program prints: should it fail on some bytes, the mirror
    /// is no longer trusted (tmux is read, and a new one seeded) and the
    /// watcher goes on.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        let parser = &mut self.parser;
        let fed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parser.process(bytes)));
        if fed.is_err() {
            self.lost = true;
        }
    }

    /// Some of what the pane printed was not taken in.
    pub(crate) fn lose(&mut self) {
        self.lost = true;
    }

    /// Whether the mirror can stand for tmux's screen: nothing dropped, and
    /// not back from an alternate screen it was seeded in.
    pub(crate) fn trusted(&self) -> bool {
        !self.lost && (!self.seeded_alternate || self.parser.screen().alternate_screen())
    }

    /// Rows and columns.
    pub(crate) fn size(&self) -> (u16, u16) {
        self.parser.screen().size()
    }

    /// The screen as `capture-pane -p` prints it: a line a row, with no
    /// trailing blanks.
    pub(crate) fn text(&self) -> String {
        let screen = self.parser.screen();
        let (_, columns) = screen.size();
        let rows: Vec<String> = screen
            .rows(0, columns)
            .map(|row| row.trim_end().to_string())
            .collect();
        rows.join("\n")
    }

    /// The title the pane set since the seed, if it set one.
    pub(crate) fn title(&self) -> Option<&str> {
        let title = self.parser.screen().title();
        (!title.is_empty()).then_some(title)
    }
}

/// Two screens' text the same, but for blanks at row ends and empty rows
/// at the bottom.
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    fn rows(text: &str) -> Vec<&str> {
        let mut rows: Vec<&str> = text.split('\n').map(str::trim_end).collect();
        while rows.last() == Some(&"") {
            rows.pop();
        }
        rows
    }
    rows(a) == rows(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(width: u16, height: u16, x: u16, y: u16) -> Geometry {
        Geometry {
            width,
            height,
            cursor_x: x,
            cursor_y: y,
            alternate: false,
            scroll_upper: 0,
            scroll_lower: height - 1,
        }
    }

    #[test]
    fn a_seed_reads_back_as_its_capture() {
        let capture = "$ claude\n✻ Working… (3s)\n\n❯ 漢字 wide\n";
        let mirror = Mirror::seed(capture, at(20, 6, 2, 3)).unwrap();
        assert!(same_text(&mirror.text(), capture), "{:?}", mirror.text());
        assert_eq!(mirror.size(), (6, 20));
    }

    #[test]
    fn bytes_after_the_seed_move_from_the_seeded_cursor() {
        let mut mirror = Mirror::seed("line one\n$ ", at(20, 4, 2, 1)).unwrap();
        mirror.feed(b"echo hi\r\nhi\r\n$ ");
        assert_eq!(mirror.text(), "line one\n$ echo hi\nhi\n$");
        // A spinner redrawn in place.
        mirror.feed(b"\x1b[1;1H\x1b[2K\xe2\x9c\xbd Forming");
        assert!(mirror.text().starts_with("✽ Forming\n"));
    }

    #[test]
    fn a_title_set_by_the_pane_is_read() {
        let mut mirror = Mirror::seed("", at(10, 2, 0, 0)).unwrap();
        assert_eq!(mirror.title(), None);
        mirror.feed(b"\x1b]2;my title\x07");
        assert_eq!(mirror.title(), Some("my title"));
    }

    #[test]
    fn leaving_an_alternate_screen_it_was_seeded_in_is_not_trusted() {
        let mut geometry = at(10, 3, 0, 0);
        geometry.alternate = true;
        let mut mirror = Mirror::seed("full screen", geometry).unwrap();
        assert!(mirror.trusted());
        mirror.feed(b"\x1b[?1049l");
        assert!(!mirror.trusted());
        let mut plain = Mirror::seed("x", at(10, 3, 1, 0)).unwrap();
        plain.feed(b"\x1b[?1049hin\x1b[?1049l");
        assert!(plain.trusted());
        assert_eq!(plain.text().lines().next(), Some("x"));
        plain.lose();
        assert!(!plain.trusted());
    }

    #[test]
    fn a_megabyte_line_wraps_within_the_screen() {
        let mut mirror = Mirror::seed("", at(40, 5, 0, 0)).unwrap();
        mirror.feed(&vec![b'x'; 1 << 20]);
        assert_eq!(mirror.text().lines().count(), 5);
    }

    #[test]
    fn a_screen_too_narrow_or_too_large_gets_no_mirror() {
        assert!(Mirror::seed("x", at(1, 5, 0, 0)).is_none());
        assert!(Mirror::seed("", at(10_000, 10_000, 0, 0)).is_none());
        assert!(Mirror::seed("ok", at(2, 5, 0, 0)).is_some());
    }

    #[test]
    fn bytes_the_parser_fails_on_leave_the_mirror_untrusted_not_the_watcher_down() {
        // One column and a wide character: vt100 0.15 panics there.
        let mut mirror = Mirror {
            parser: vt100::Parser::new(5, 1, 0),
            seeded_alternate: false,
            lost: false,
            last_told_difference: None,
        };
        mirror.feed("字".as_bytes());
        assert!(!mirror.trusted());
    }

    #[test]
    fn blanks_at_row_ends_and_bottom_rows_are_no_difference() {
        assert!(same_text("a  \nb\n\n", "a\nb"));
        assert!(!same_text("a\nb", "a\nc"));
    }
}
