//! The terminal the list is drawn on, as the popup and taw app both take
//! it: raw mode on the alternate screen, put back on every way out (a
//! drop, a panic), and the keys read on a thread of their own.

use crossterm::event::{self, Event, KeyEvent, KeyEventKind};
use crossterm::execute;
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Reads the keys on a thread of its own, handing each to `send` until it
/// says no one hears. With `paused`, nothing is read while it is set (a
/// program run in the terminal has the keys): the thread then looks at it
/// every 100 ms; without, it waits on the terminal alone.
pub(crate) fn spawn_keys(
    paused: Option<Arc<AtomicBool>>,
    send: impl Fn(Input) -> bool + Send + 'static,
) {
    std::thread::spawn(move || {
        loop {
            let event = match &paused {
                None => event::read(),
                Some(paused) => {
                    if paused.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(50));
                        continue;
                    }
                    if !event::poll(Duration::from_millis(100)).unwrap_or(false)
                        || paused.load(Ordering::Relaxed)
                    {
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
