//! The terminal the list is drawn on, as the popup and taw app both take
//! it: raw mode on the alternate screen, put back on every way out (a
//! drop, a panic), and the keys read on a thread of their own.

use crossterm::event::{self, Event, KeyEvent, KeyEventKind};
use crossterm::execute;
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub(crate) type Screen = Terminal<CrosstermBackend<std::io::Stdout>>;

/// Puts the terminal back when dropped.
pub(crate) struct Taken;

impl Drop for Taken {
    fn drop(&mut self) {
        leave();
    }
}

/// Takes the terminal: raw mode, the alternate screen, and a panic hook
/// that puts it back before the panic is told.
pub(crate) fn take() -> std::io::Result<(Taken, Screen)> {
    let taken = Taken;
    enter()?;
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        leave();
        previous_hook(info);
    }));
    Ok((
        taken,
        Terminal::new(CrosstermBackend::new(std::io::stdout()))?,
    ))
}

/// Raw mode on the alternate screen (again, after a program had it).
pub(crate) fn enter() -> std::io::Result<()> {
    terminal::enable_raw_mode()?;
    execute!(std::io::stdout(), EnterAlternateScreen)
}

/// The terminal as it was, for a program to run in or on the way out.
pub(crate) fn leave() {
    // Nothing more can be done for a terminal that will not be put back.
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// What the key thread hands the loop.
pub(crate) enum Input {
    Key(KeyEvent),
    Resize,
}

/// Lets a program have the terminal while the key thread reads on: while
/// held, the thread reads nothing. A read of the terminal by both would
/// take bytes from the program: tmux, whose read of its terminal then
/// finds nothing, drops its client as lost (an attach that ended at once,
/// when the outer terminal answered tmux's queries into the app's poll).
#[derive(Default)]
pub(crate) struct KeyGate {
    held: AtomicBool,
    /// Taken by the key thread through each poll and read of the terminal.
    reading: Mutex<()>,
}

impl KeyGate {
    /// Stops the key thread's reads, and waits until the one under way has
    /// ended: a poll of at most [`POLL`], or the rest of a key sequence
    /// that arrived in part.
    pub(crate) fn hold(&self) {
        self.held.store(true, Ordering::SeqCst);
        // A thread that panicked left no read under way.
        drop(self.reading.lock());
    }

    /// The key thread reads again.
    pub(crate) fn release(&self) {
        self.held.store(false, Ordering::SeqCst);
    }

    fn is_held(&self) -> bool {
        self.held.load(Ordering::SeqCst)
    }
}

/// How long the key thread waits on the terminal before it looks whether
/// its gate is held.
const POLL: Duration = Duration::from_millis(100);

/// Reads the keys on a thread of its own, handing each to `send` until it
/// says no one hears. With a gate, nothing is read while it is held (a
/// program run in the terminal has the keys): the thread then looks at it
/// every [`POLL`]; without, it waits on the terminal alone.
pub(crate) fn spawn_keys(
    gate: Option<Arc<KeyGate>>,
    send: impl Fn(Input) -> bool + Send + 'static,
) {
    std::thread::spawn(move || {
        loop {
            let event = match &gate {
                None => event::read(),
                Some(gate) => {
                    if gate.is_held() {
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    }
                    let _reading = gate.reading.lock();
                    // Held between the look above and the lock: the holder
                    // went on once it had the lock, and has the terminal.
                    if gate.is_held() || !event::poll(POLL).unwrap_or(false) {
                        continue;
                    }
                    event::read()
                }
            };
            let input = match event {
                Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => Input::Key(key),
                Ok(Event::Resize(..)) => Input::Resize,
                Ok(_) => continue,
                Err(_) => return,
            };
            if !send(input) {
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::KeyGate;
    use std::sync::Arc;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    #[test]
    fn a_hold_waits_for_the_read_under_way_and_stops_the_next() {
        let gate = Arc::new(KeyGate::default());
        let (started, reading) = mpsc::channel();
        let reader = {
            let gate = gate.clone();
            // A read under way, as the key thread holds the lock through it.
            std::thread::spawn(move || {
                let _reading = gate.reading.lock();
                started.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(150));
            })
        };
        reading.recv().unwrap();
        let asked = Instant::now();
        gate.hold();
        assert!(asked.elapsed() >= Duration::from_millis(100));
        // The key thread's next look, under the lock, finds it held.
        assert!(gate.is_held());
        reader.join().unwrap();
        gate.release();
        assert!(!gate.is_held());
    }
}
