//! The loop the popup (`ui`) and taw app (`app`) both run, and what goes
//! around it: the keys read on a thread of their own, a worker that does
//! the list's slow asks (repeated asks folded into one), and the actions
//! under way that an end waits for. A front end says only what a message
//! and an effect mean to it ([`Front`]).

use super::Effect;
use super::terminal::{self, Input};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};
use std::thread::JoinHandle;

/// A front end of the list, as [`serve`] drives it.
pub(crate) trait Front {
    type Msg;
    /// Draws a frame.
    fn draw(&mut self) -> std::io::Result<()>;
    /// What the first frame leaves to fetch.
    fn after_first_frame(&mut self) {}
    /// One message in: what the list then asks for, or `None` to end.
    fn take(&mut self, msg: Self::Msg) -> Option<Vec<Effect>>;
    /// What a batch of messages asks for as a whole, once it is taken.
    fn after_batch(&mut self) -> Vec<Effect> {
        Vec::new()
    }
    /// Carries out one effect; false when it ends the loop.
    fn carry_out(&mut self, effect: Effect) -> bool;
}

/// Runs `front` until it ends or nobody sends it anything: `first`
/// carried out, a frame, then the messages that came (each one's effects
/// carried out as it is taken), a frame again, and so on.
pub(crate) fn serve<F: Front>(
    front: &mut F,
    rx: &Receiver<F::Msg>,
    first: Vec<Effect>,
) -> std::io::Result<()> {
    let mut effects = first;
    let mut first_frame = true;
    loop {
        if !carry_out_all(front, effects) {
            return Ok(());
        }
        front.draw()?;
        if std::mem::take(&mut first_frame) {
            front.after_first_frame();
        }
        let Ok(msg) = rx.recv() else { return Ok(()) };
        for msg in std::iter::once(msg).chain(rx.try_iter()) {
            let Some(effects) = front.take(msg) else {
                return Ok(());
            };
            if !carry_out_all(front, effects) {
                return Ok(());
            }
        }
        effects = front.after_batch();
    }
}

fn carry_out_all<F: Front>(front: &mut F, effects: Vec<Effect>) -> bool {
    effects.into_iter().all(|effect| front.carry_out(effect))
}

/// Hands each key and resize of the terminal to `tx` (see
/// [`terminal::spawn_keys`] for `gate`).
pub(crate) fn spawn_keys<M: From<Input> + Send + 'static>(
    tx: Sender<M>,
    gate: Option<Arc<terminal::KeyGate>>,
) {
    terminal::spawn_keys(gate, move |input| tx.send(input.into()).is_ok());
}

/// What a front end asks its worker for. `Place` says where the picker's
/// folders are looked for (taw app: which machine; the popup: here).
pub(crate) enum Job<Place> {
    /// A new read of the list.
    Refresh,
    Preview(u32),
    /// The new-session picker's folders for a query.
    Directories(Place, String),
    /// The filter's project folders for a query.
    Projects(String),
    /// The closed worktrees of these repositories' sessions.
    Worktrees(Vec<u32>),
}

/// The jobs of one wake-up of the worker, repeated asks folded into one.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Asked<Place> {
    pub refresh: bool,
    /// The newest pane asked for.
    pub preview: Option<u32>,
    /// The newest query.
    pub directories: Option<(Place, String)>,
    /// The filter's list (an empty query) and the newest completion.
    pub projects: Vec<String>,
    /// The newest repositories.
    pub worktrees: Option<Vec<u32>>,
}

impl<Place> Asked<Place> {
    fn of(jobs: impl IntoIterator<Item = Job<Place>>) -> Self {
        let mut asked = Asked {
            refresh: false,
            preview: None,
            directories: None,
            projects: Vec::new(),
            worktrees: None,
        };
        for job in jobs {
            match job {
                Job::Refresh => asked.refresh = true,
                Job::Preview(pane) => asked.preview = Some(pane),
                Job::Directories(place, query) => asked.directories = Some((place, query)),
                Job::Projects(query) => {
                    asked.projects.retain(String::is_empty);
                    asked.projects.push(query);
                }
                Job::Worktrees(heads) => asked.worktrees = Some(heads),
            }
        }
        asked
    }
}

/// The worker: each wake-up's jobs, folded, go to `work`, one wake-up at
/// a time, so a slow call never stops the keys, until `work` says no one
/// hears (false) or the front end is gone.
pub(crate) fn spawn_worker<Place: Send + 'static>(
    jobs: Receiver<Job<Place>>,
    mut work: impl FnMut(Asked<Place>) -> bool + Send + 'static,
) {
    std::thread::spawn(move || {
        while let Ok(job) = jobs.recv() {
            if !work(Asked::of(std::iter::once(job).chain(jobs.try_iter()))) {
                return;
            }
        }
    });
}

/// The actions under way, each on a thread of its own: an end waits for
/// them, so that a key pressed just before it (a paste, a close) is still
/// carried out.
#[derive(Default)]
pub(crate) struct Actions(Vec<JoinHandle<()>>);

impl Actions {
    pub(crate) fn push(&mut self, action: JoinHandle<()>) {
        self.0.retain(|running| !running.is_finished());
        self.0.push(action);
    }

    /// Waits for every one (each bounded by its own time limits).
    pub(crate) fn finish(&mut self) {
        for action in self.0.drain(..) {
            // A panicked action has nothing more to finish.
            let _ = action.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_asks_fold_into_the_newest() {
        let asked = Asked::of([
            Job::Preview(1),
            Job::Directories(0, "/a".into()),
            Job::Projects(String::new()),
            Job::Projects("pro".into()),
            Job::Worktrees(vec![1]),
            Job::Preview(2),
            Job::Projects("proj".into()),
            Job::Directories(1, "/ab".into()),
            Job::Worktrees(vec![1, 2]),
        ]);
        assert_eq!(
            asked,
            Asked {
                refresh: false,
                preview: Some(2),
                directories: Some((1, "/ab".into())),
                // The list stays; of the completions, the newest.
                projects: vec![String::new(), "proj".into()],
                worktrees: Some(vec![1, 2]),
            }
        );
        assert!(Asked::of([Job::<()>::Refresh, Job::Refresh]).refresh);
    }

    /// A front end that ends where its script says.
    struct Script {
        drawn: usize,
        firsts: usize,
        carried: Vec<Effect>,
    }

    impl Front for Script {
        type Msg = Option<Effect>;
        fn draw(&mut self) -> std::io::Result<()> {
            self.drawn += 1;
            Ok(())
        }
        fn after_first_frame(&mut self) {
            self.firsts += 1;
        }
        fn take(&mut self, msg: Option<Effect>) -> Option<Vec<Effect>> {
            msg.map(|effect| vec![effect])
        }
        fn carry_out(&mut self, effect: Effect) -> bool {
            let go_on = effect != Effect::Quit;
            self.carried.push(effect);
            go_on
        }
    }

    #[test]
    fn the_loop_carries_out_each_effect_until_one_ends_it() {
        let (tx, rx) = std::sync::mpsc::channel();
        for msg in [
            Some(Effect::Preview(1)),
            Some(Effect::Quit),
            Some(Effect::Preview(2)),
        ] {
            tx.send(msg).unwrap();
        }
        let mut front = Script {
            drawn: 0,
            firsts: 0,
            carried: Vec::new(),
        };
        serve(&mut front, &rx, vec![Effect::Preview(0)]).unwrap();
        assert_eq!(
            front.carried,
            [Effect::Preview(0), Effect::Preview(1), Effect::Quit]
        );
        assert_eq!((front.drawn, front.firsts), (1, 1));
        // A message that ends it, and a sender gone, end it too.
        tx.send(None).unwrap();
        serve(&mut front, &rx, Vec::new()).unwrap();
        drop(tx);
        serve(&mut front, &rx, Vec::new()).unwrap();
        assert_eq!((front.drawn, front.firsts), (3, 3));
    }
}
