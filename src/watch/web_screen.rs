//! The screen of a shell the web page follows, kept by the watcher from
//! the bytes the pane's pipe hands over: a shell's change then reaches the
//! page with no tmux call, as an agent's does from its mirror.
//!
//! The web names the panes it reads as they change; a pane with no agent
//! in front is followed from then on. A look at tmux seeds the screen from
//! its capture, and later looks check it (tmux's screen wins), but only a
//! settled look: nothing arrived while tmux was read nor [`SETTLE`] before
//! it, so no byte the capture holds is still on its way (it would be taken
//! in twice) and none it lacks was taken out. The pane's thread looks
//! again once the pane settled for a seed, and [`CHECK_QUIET`] after the
//! last bytes for a check. It is dropped once the web has not asked for [`KEEP`]:
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
/// How long the pane must have printed nothing before tmux is read for a
/// look to seed or check the screen.
pub(crate) const SETTLE: Duration = Duration::from_millis(20);
/// How long after the last bytes a screen fed since its last check is
/// checked.
pub(crate) const CHECK_QUIET: Duration = Duration::from_secs(2);
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
    /// How many bytes were handed over while followed, and when the last.
    received: u64,
    last_put: Option<Instant>,
    /// The mirror took bytes in since a look last checked it.
    unchecked: bool,
    /// The last look's title, and the title the mirror held then (one the
    /// pane sets later wins over the look's).
    title: String,
    mirror_title: Option<String>,
    /// The pane thread's count of row changes at its last look.
    writes: u64,
    /// The pane's terminal, whose size the screen must have to be answered.
    tty: String,
    /// When a difference with tmux was last said in the log.
    told_difference: Option<Instant>,
}

/// What had arrived as a look asked tmux: with the screen after it, it
/// says whether the look's capture holds exactly those bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    received: u64,
    last_put: Option<Instant>,
    at: Instant,
}

/// What a look did to the screen.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Checked {
    /// Not followed.
    Nothing,
    /// Seeded from tmux's screen: the first settled look, or the screen
    /// kept could not stand for tmux's (bytes dropped, a resize).
    Seeded,
    /// The look was not settled: no screen to answer until one is.
    Unsettled,
    /// The screen matched tmux's, or the look was not settled to check it.
    Kept,
    /// It did not match on a settled look: tmux's was taken.
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
    pub(crate) fn put(&mut self, bytes: &[u8], now: Instant) {
        if !self.followed() {
            return;
        }
        self.received += bytes.len() as u64;
        self.last_put = Some(now);
        let room = BYTES_LIMIT.saturating_sub(self.bytes.len());
        if bytes.len() > room {
            self.lost = true;
        }
        self.bytes
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// What has arrived, as a look asks tmux at `now`.
    pub(crate) fn mark(&self, now: Instant) -> Mark {
        Mark {
            received: self.received,
            last_put: self.last_put,
            at: now,
        }
    }

    /// The web asks for pane `pane`: followed from now, and its screen
    /// answered when one is kept that can stand for tmux's (`size_of`
    /// says a terminal's rows and columns: a pane resized since the last
    /// look is tmux's to answer, which reflows it).
    pub(crate) fn ask(
        &mut self,
        pane: u32,
        now: Instant,
        size_of: impl Fn(&str) -> Option<(u16, u16)>,
    ) -> Option<Shown> {
        self.asked = Some(now);
        if self.lost {
            return None;
        }
        let mirror = self.mirror.as_mut()?;
        if !self.bytes.is_empty() {
            mirror.feed(&std::mem::take(&mut self.bytes));
            self.unchecked = true;
        }
        if !mirror.trusted() || size_of(&self.tty) != Some(mirror.size()) {
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

    /// A look at tmux saw `view`, asked at `mark`, the pane thread's row
    /// count at `writes`: the screen is seeded, or checked and seeded again
    /// where it differs, when the look was settled.
    pub(crate) fn look(
        &mut self,
        view: &PaneView,
        writes: u64,
        mark: Mark,
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
        self.tty = view.tty.clone();
        let settled = self.received == mark.received
            && mark
                .last_put
                .is_none_or(|last| mark.at.saturating_duration_since(last) >= SETTLE);
        let size = (view.geometry.height.max(1), view.geometry.width.max(1));
        let checked = match &mut self.mirror {
            None => Checked::Seeded,
            Some(mirror) => {
                if !self.bytes.is_empty() {
                    mirror.feed(&std::mem::take(&mut self.bytes));
                    self.unchecked = true;
                }
                if self.lost || !mirror.trusted() || mirror.size() != size {
                    Checked::Seeded
                } else if !settled {
                    Checked::Kept
                } else if mirror::same_text(&mirror.text(), &view.screen) {
                    self.unchecked = false;
                    Checked::Kept
                } else {
                    Checked::Differed
                }
            }
        };
        match checked {
            Checked::Seeded | Checked::Differed if settled => {
                // Everything that came had come before tmux was read: the
                // capture holds it.
                self.bytes.clear();
                self.lost = false;
                self.unchecked = false;
                self.mirror = Mirror::seed(&view.screen, view.geometry);
            }
            Checked::Seeded => {
                // Bytes on their way: no screen until a settled look.
                self.bytes.clear();
                self.lost = false;
                self.mirror = None;
                self.mirror_title = None;
                return Checked::Unsettled;
            }
            _ => {}
        }
        self.mirror_title = self
            .mirror
            .as_ref()
            .and_then(|m| m.title().map(str::to_string));
        checked
    }

    /// When the pane's thread should look at tmux again without output:
    /// once the pane settled, when there is no screen yet; a while after
    /// the last bytes, when the screen took some in since its last check.
    pub(crate) fn look_again(&self) -> Option<Instant> {
        if !self.followed() {
            return None;
        }
        let last = self.last_put?;
        if self.mirror.is_none() {
            Some(last + SETTLE)
        } else if self.unchecked || !self.bytes.is_empty() {
            Some(last + CHECK_QUIET)
        } else {
            None
        }
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

    /// The size of every terminal in these tests: the views' 4 by 20.
    fn size(_: &str) -> Option<(u16, u16)> {
        Some((4, 20))
    }

    /// A settled look at `view` a second after `now`: nothing came while
    /// tmux was read, the last bytes long before.
    fn settled_look(web: &mut WebScreen, view: &PaneView, now: Instant) -> Checked {
        let at = now + Duration::from_secs(1);
        let mark = web.mark(at);
        web.look(view, 0, mark, at)
    }

    /// Pane 1's screen, asked for and seeded by a settled look: `$ `.
    fn seeded(now: Instant) -> WebScreen {
        let mut web = WebScreen::default();
        web.ask(1, now, size);
        settled_look(&mut web, &view("$ ", "host"), now);
        web
    }

    #[test]
    fn a_pane_never_asked_for_keeps_nothing() {
        let now = Instant::now();
        let mut web = WebScreen::default();
        web.put(b"hello", now);
        assert_eq!(
            settled_look(&mut web, &view("$ ", "host"), now),
            Checked::Nothing
        );
        assert!(web.bytes.is_empty() && web.mirror.is_none());
        assert_eq!(web.look_again(), None);
    }

    #[test]
    fn asked_then_seeded_by_a_look_it_answers_what_the_pane_printed_since() {
        let now = Instant::now();
        let mut web = WebScreen::default();
        assert_eq!(web.ask(3, now, size), None, "nothing kept before a look");
        web.put(b"before the look", now);
        let mark = web.mark(now + SETTLE);
        assert_eq!(web.look(&view("$ ", "host"), 5, mark, now), Checked::Seeded);
        web.put(b"ls\r\nfile\r\n$ ", now);
        let shown = web.ask(3, now, size).unwrap();
        assert_eq!(shown.pane, 3);
        assert_eq!(
            shown.screen.lines().collect::<Vec<_>>(),
            ["$ ls", "file", "$"]
        );
        assert_eq!((shown.title.as_str(), shown.writes), ("host", 5));
    }

    /// Bytes that came while tmux was read, or just before, may or may not
    /// be in its capture: no screen then, and a look again once settled.
    #[test]
    fn an_unsettled_look_seeds_nothing_and_asks_for_another() {
        let now = Instant::now();
        let mut web = WebScreen::default();
        web.ask(1, now, size);
        web.put(b"echo a", now);
        let mark = web.mark(now + SETTLE / 2);
        assert_eq!(
            web.look(&view("$ ", "host"), 0, mark, now),
            Checked::Unsettled
        );
        assert_eq!(web.ask(1, now, size), None);
        assert_eq!(web.look_again(), Some(now + SETTLE));

        let mark = web.mark(now + SETTLE);
        web.put(b"\r\na\r\n$ ", now + SETTLE);
        assert_eq!(
            web.look(&view("$ echo a", "host"), 0, mark, now),
            Checked::Unsettled
        );
        let shown = settled_look(&mut web, &view("$ echo a\na\n$ ", "host"), now);
        assert_eq!(shown, Checked::Seeded);
        assert_eq!(web.ask(1, now, size).unwrap().screen.lines().count(), 3);
        assert_eq!(web.look_again(), None);
    }

    #[test]
    fn a_settled_look_that_differs_takes_tmuxs_screen() {
        let now = Instant::now();
        let mut web = seeded(now);
        web.put(b"echo hi\r\nhi\r\n$ ", now);
        assert_eq!(
            web.look_again(),
            Some(now + CHECK_QUIET),
            "bytes taken in are checked once quiet"
        );
        assert_eq!(
            settled_look(&mut web, &view("$ echo hi\nhi\n$ ", "host"), now),
            Checked::Kept
        );
        assert_eq!(web.look_again(), None);
        assert_eq!(
            settled_look(&mut web, &view("cleared", "host"), now),
            Checked::Differed
        );
        assert_eq!(web.ask(1, now, size).unwrap().screen.trim_end(), "cleared");
        assert_eq!(
            settled_look(&mut web, &view("cleared", "host"), now),
            Checked::Kept
        );
        let mut once = |at| web.tell_difference(Duration::from_secs(60), at);
        assert!(once(now));
        assert!(!once(now + Duration::from_secs(59)));
        assert!(once(now + Duration::from_secs(60)));
    }

    #[test]
    fn a_look_while_the_pane_prints_keeps_its_screen_unchecked() {
        let now = Instant::now();
        let mut web = seeded(now);
        let later = now + Duration::from_secs(5);
        web.put(b"seq 3\r\n1\r\n2\r\n3\r\n$ ", later);
        // tmux was read before the last lines came.
        let mark = web.mark(later);
        let behind = view("$ seq 3\n1\n2", "host");
        assert_eq!(web.look(&behind, 0, mark, later), Checked::Kept);
        let screen = web.ask(1, later, size).unwrap().screen;
        assert!(screen.trim_end().ends_with("2\n3\n$"), "{screen}");
        assert_eq!(web.look_again(), Some(later + CHECK_QUIET));
    }

    #[test]
    fn a_title_the_pane_sets_wins_over_the_last_looks() {
        let now = Instant::now();
        let mut web = seeded(now);
        web.put(b"\x1b]2;building\x07", now);
        assert_eq!(web.ask(1, now, size).unwrap().title, "building");
        // tmux's title, set by a command, is the next look's word.
        settled_look(&mut web, &view("$ ", "renamed"), now);
        assert_eq!(web.ask(1, now, size).unwrap().title, "renamed");
    }

    #[test]
    fn a_pane_resized_since_the_look_is_tmuxs_to_answer() {
        let now = Instant::now();
        let mut web = seeded(now);
        assert!(web.ask(1, now, size).is_some());
        assert_eq!(web.ask(1, now, |_| Some((10, 20))), None);
        assert_eq!(web.ask(1, now, |_| None), None);
    }

    #[test]
    fn too_much_output_waits_for_the_next_seed() {
        let now = Instant::now();
        let mut web = seeded(now);
        web.put(&vec![b'y'; BYTES_LIMIT + 1], now);
        assert_eq!(web.ask(1, now, size), None);
        assert_eq!(
            settled_look(&mut web, &view("y", "host"), now),
            Checked::Seeded
        );
        assert_eq!(web.ask(1, now, size).unwrap().screen.trim_end(), "y");
    }

    #[test]
    fn a_screen_not_asked_for_a_while_is_dropped() {
        let asked = Instant::now();
        let mut web = seeded(asked);
        assert!(!web.expired(asked + KEEP / 2));
        assert!(web.expired(asked + KEEP));
        let mark = web.mark(asked + KEEP);
        assert_eq!(
            web.look(&view("$ ", "host"), 0, mark, asked + KEEP),
            Checked::Nothing
        );
        assert!(!web.followed() && web.mirror.is_none());
    }
}
