//! The screen of a shell the web page follows, kept by the watcher from
//! the bytes the pane's pipe hands over: a shell's change then reaches the
//! page with no tmux call, as an agent's does from its mirror.
//!
//! The web names the panes it reads as they change; a pane with no agent
//! in front is followed from then on. The pane's next look at tmux seeds
//! the screen from its capture, and each later look checks it (tmux's
//! screen wins). It is dropped once the web has not asked for [`KEEP`]:
//! only shells that change while a page is open cost memory, and at most
//! [`MOST`] of them at once.

use super::mirror::{self, Mirror};
use super::server::Shown;
use crate::tmux::pane::PaneView;
use std::time::{Duration, Instant};

/// How long a screen is kept after the web last asked for it.
pub(crate) const KEEP: Duration = Duration::from_secs(30);
/// The most shells followed at once (a screen of 160 by 50 is some
/// 300 kB); past it, the web reads the others from tmux.
pub(crate) const MOST: usize = 64;
/// What waits for the next ask, at most; past it the screen is seeded
/// again by the next look.
const BYTES_LIMIT: usize = 256 * 1024;

#[derive(Default)]
pub(crate) struct WebScreen {
    /// When the web last asked; `None`: not followed.
    asked: Option<Instant>,
    mirror: Option<Mirror>,
    /// Printed since the mirror last took bytes in.
    bytes: Vec<u8>,
    /// Some of them were dropped: the screen waits for the next seed.
    lost: bool,
    /// The last look's title, and the title the mirror held then (one the
    /// pane sets later wins over the look's).
    title: String,
    mirror_title: Option<String>,
    /// The pane thread's count of row changes at its last look.
    writes: u64,
    /// When a difference with tmux was last said in the log.
    told_difference: Option<Instant>,
}

/// What a look did to the screen.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Checked {
    /// Not followed.
    Nothing,
    /// Seeded from tmux's screen: the first look, or the screen kept could
    /// not stand for tmux's (bytes dropped, a resize).
    Seeded,
    /// The screen matched tmux's, or the pane printed since tmux was read
    /// (the check waits for a quiet look).
    Kept,
    /// It did not match on a quiet pane: tmux's was taken.
    Differed,
}

impl WebScreen {
    pub(crate) fn followed(&self) -> bool {
        self.asked.is_some()
    }

    /// Whether the web last asked longer than [`KEEP`] before `now`.
    pub(crate) fn expired(&self, now: Instant) -> bool {
        self.asked
            .is_some_and(|asked| now.saturating_duration_since(asked) >= KEEP)
    }

    /// Drops the screen and stops following.
    pub(crate) fn forget(&mut self) {
        *self = WebScreen::default();
    }

    /// Takes in what the pane printed, while followed.
    pub(crate) fn put(&mut self, bytes: &[u8]) {
        if !self.followed() {
            return;
        }
        let room = BYTES_LIMIT.saturating_sub(self.bytes.len());
        if bytes.len() > room {
            self.lost = true;
        }
        self.bytes
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// The web asks for pane `pane`: followed from now, and its screen
    /// answered when one is kept that can stand for tmux's.
    pub(crate) fn ask(&mut self, pane: u32, now: Instant) -> Option<Shown> {
        self.asked = Some(now);
        if self.lost {
            return None;
        }
        let mirror = self.mirror.as_mut()?;
        mirror.feed(&std::mem::take(&mut self.bytes));
        if !mirror.trusted() {
            return None;
        }
        let title = match mirror.title() {
            Some(set) if Some(set) != self.mirror_title.as_deref() => set.to_string(),
            _ => self.title.clone(),
        };
        Some(Shown {
            pane,
            screen: mirror.text(),
            title,
            writes: self.writes,
        })
    }

    /// A look at tmux saw `view`, the pane thread's row count at `writes`:
    /// the screen is seeded, or checked and seeded again where it differs.
    /// `quiet`: the pane printed nothing since tmux was read (else the
    /// screen kept may be ahead of tmux's, and is kept).
    pub(crate) fn look(
        &mut self,
        view: &PaneView,
        writes: u64,
        quiet: bool,
        now: Instant,
    ) -> Checked {
        if !self.followed() {
            return Checked::Nothing;
        }
        if self.expired(now) {
            self.forget();
            return Checked::Nothing;
        }
        self.title = view.title.clone();
        self.writes = writes;
        let checked = match &mut self.mirror {
            None => Checked::Seeded,
            Some(mirror) => {
                mirror.feed(&std::mem::take(&mut self.bytes));
                let size = (view.geometry.height.max(1), view.geometry.width.max(1));
                if self.lost || !mirror.trusted() || mirror.size() != size {
                    Checked::Seeded
                } else if !quiet || mirror::same_text(&mirror.text(), &view.screen) {
                    Checked::Kept
                } else {
                    Checked::Differed
                }
            }
        };
        if checked != Checked::Kept {
            // What came before this capture is in it.
            self.bytes.clear();
            self.lost = false;
            self.mirror = Some(Mirror::seed(&view.screen, view.geometry));
        }
        self.mirror_title = self
            .mirror
            .as_ref()
            .and_then(|m| m.title().map(str::to_string));
        checked
    }

    /// Whether a difference is to be said in the log now: once in
    /// `every`.
    pub(crate) fn tell_difference(&mut self, every: Duration, now: Instant) -> bool {
        let tell = self
            .told_difference
            .is_none_or(|at| now.saturating_duration_since(at) >= every);
        if tell {
            self.told_difference = Some(now);
        }
        tell
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::pane::Geometry;

    fn view(screen: &str, title: &str) -> PaneView {
        PaneView {
            title: title.to_string(),
            screen: screen.to_string(),
            geometry: Geometry {
                width: 20,
                height: 4,
                cursor_x: 2,
                cursor_y: 0,
                alternate: false,
                scroll_upper: 0,
                scroll_lower: 3,
            },
            ..PaneView::default()
        }
    }

    /// Pane 1's screen, asked for and seeded by a look at `now`: `$ `.
    fn seeded(now: Instant) -> WebScreen {
        let mut web = WebScreen::default();
        web.ask(1, now);
        web.look(&view("$ ", "host"), 0, true, now);
        web
    }

    #[test]
    fn a_pane_never_asked_for_keeps_nothing() {
        let mut web = WebScreen::default();
        web.put(b"hello");
        assert_eq!(
            web.look(&view("$ ", "host"), 0, true, Instant::now()),
            Checked::Nothing
        );
        assert!(web.bytes.is_empty() && web.mirror.is_none());
    }

    #[test]
    fn asked_then_seeded_by_a_look_it_answers_what_the_pane_printed_since() {
        let now = Instant::now();
        let mut web = WebScreen::default();
        assert_eq!(web.ask(3, now), None, "nothing kept before a look");
        web.put(b"before the look");
        assert_eq!(web.look(&view("$ ", "host"), 5, true, now), Checked::Seeded);
        web.put(b"ls\r\nfile\r\n$ ");
        let shown = web.ask(3, now).unwrap();
        assert_eq!(shown.pane, 3);
        assert_eq!(
            shown.screen.lines().collect::<Vec<_>>(),
            ["$ ls", "file", "$"]
        );
        assert_eq!((shown.title.as_str(), shown.writes), ("host", 5));
    }

    #[test]
    fn a_look_that_differs_takes_tmuxs_screen() {
        let now = Instant::now();
        let mut web = seeded(now);
        web.put(b"echo hi\r\nhi\r\n$ ");
        assert_eq!(
            web.look(&view("$ echo hi\nhi\n$ ", "host"), 0, true, now),
            Checked::Kept
        );
        assert_eq!(
            web.look(&view("cleared", "host"), 0, true, now),
            Checked::Differed
        );
        assert_eq!(web.ask(1, now).unwrap().screen.trim_end(), "cleared");
        assert_eq!(
            web.look(&view("cleared", "host"), 0, true, now),
            Checked::Kept
        );
    }

    #[test]
    fn a_pane_printing_since_tmux_was_read_keeps_its_screen_till_a_quiet_look() {
        let now = Instant::now();
        let mut web = seeded(now);
        web.put(b"seq 3\r\n1\r\n2\r\n3\r\n$ ");
        // tmux was read before the last lines came.
        let behind = view("$ seq 3\n1\n2", "host");
        assert_eq!(web.look(&behind, 0, false, now), Checked::Kept);
        assert!(
            web.ask(1, now)
                .unwrap()
                .screen
                .trim_end()
                .ends_with("2\n3\n$")
        );
        assert_eq!(web.look(&behind, 0, true, now), Checked::Differed);
        let mut once = |at| web.tell_difference(Duration::from_secs(60), at);
        assert!(once(now));
        assert!(!once(now + Duration::from_secs(59)));
        assert!(once(now + Duration::from_secs(60)));
    }

    #[test]
    fn a_title_the_pane_sets_wins_over_the_last_looks() {
        let now = Instant::now();
        let mut web = seeded(now);
        web.put(b"\x1b]2;building\x07");
        assert_eq!(web.ask(1, now).unwrap().title, "building");
        // tmux's title, set by a command, is the next look's word.
        web.look(&view("$ ", "renamed"), 1, true, now);
        assert_eq!(web.ask(1, now).unwrap().title, "renamed");
    }

    #[test]
    fn too_much_output_waits_for_the_next_seed() {
        let now = Instant::now();
        let mut web = seeded(now);
        web.put(&vec![b'y'; BYTES_LIMIT + 1]);
        assert_eq!(web.ask(1, now), None);
        assert_eq!(web.look(&view("y", "host"), 0, true, now), Checked::Seeded);
        assert_eq!(web.ask(1, now).unwrap().screen.trim_end(), "y");
    }

    #[test]
    fn a_screen_not_asked_for_a_while_is_dropped() {
        let asked = Instant::now();
        let mut web = seeded(asked);
        assert!(!web.expired(asked + KEEP / 2));
        assert!(web.expired(asked + KEEP));
        assert_eq!(
            web.look(&view("$ ", "host"), 0, true, asked + KEEP),
            Checked::Nothing
        );
        assert!(!web.followed() && web.mirror.is_none());
    }
}
