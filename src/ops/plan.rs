//! An operation decided before it acts. A plan is made from a snapshot and
//! the operation's arguments alone, reading no tmux: its names checked, its
//! targets found, the tmux commands it runs written, the closes the veto is
//! asked about named, and how its answer is had. [`Plan::apply`] then asks
//! the veto, runs the commands in one tmux call, reads the server once if
//! the answer needs it, and answers. Every decision is thereby tested over
//! a snapshot fixture with no server; only the apply needs one.

use crate::envelope::Result;
use crate::hooks::veto::{self, Closing};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Tmux};

/// How a planned operation's answer is had once its commands ran.
type ReadBack<A> = Box<dyn FnOnce(&str, &Snapshot) -> Result<A>>;

pub(crate) struct Plan<A> {
    /// Asked in turn before anything changes; the first refusal stops it.
    pub vetoes: Vec<Closing>,
    /// Past a veto that could not be read (`--force`).
    pub force: bool,
    /// Run in one tmux call; none when empty.
    pub batch: Batch,
    answer: Answer<A>,
}

enum Answer<A> {
    /// Known before acting (what a close answers).
    Known(A),
    /// From what the commands printed (a new thing's ids) and the server
    /// read once after them.
    ReadBack(ReadBack<A>),
}

impl<A> Plan<A> {
    /// Runs `batch`, then answers `answer`, known already.
    pub(crate) fn known(batch: Batch, answer: A) -> Plan<A> {
        Plan {
            vetoes: Vec::new(),
            force: false,
            batch,
            answer: Answer::Known(answer),
        }
    }

    /// Runs `batch`, then answers with `read`, given what tmux printed and
    /// the server read again.
    pub(crate) fn read_back(
        batch: Batch,
        read: impl FnOnce(&str, &Snapshot) -> Result<A> + 'static,
    ) -> Plan<A> {
        Plan {
            vetoes: Vec::new(),
            force: false,
            batch,
            answer: Answer::ReadBack(Box::new(read)),
        }
    }

    /// Asks the veto about `closing` first (`force`: see [`veto::may_close`]).
    pub(crate) fn vetoed(mut self, closing: Closing, force: bool) -> Plan<A> {
        self.vetoes.push(closing);
        self.force = force;
        self
    }

    /// The same plan answering `then` of its answer, given the server read
    /// after too (one read still: a known answer waits for it).
    pub(crate) fn then<B>(self, then: impl FnOnce(A, &Snapshot) -> Result<B> + 'static) -> Plan<B>
    where
        A: 'static,
    {
        let answer = self.answer;
        Plan {
            vetoes: self.vetoes,
            force: self.force,
            batch: self.batch,
            answer: Answer::ReadBack(Box::new(move |printed, after| {
                let first = match answer {
                    Answer::Known(answer) => answer,
                    Answer::ReadBack(read) => read(printed, after)?,
                };
                then(first, after)
            })),
        }
    }

    /// Asks the veto, runs the commands, answers.
    pub(crate) fn apply(self, tmux: &Tmux) -> Result<A> {
        for closing in &self.vetoes {
            veto::may_close(tmux, closing, self.force)?;
        }
        let printed = match self.batch.is_empty() {
            true => String::new(),
            false => tmux.run(&self.batch)?,
        };
        match self.answer {
            Answer::Known(answer) => Ok(answer),
            Answer::ReadBack(read) => read(&printed, &Snapshot::read(tmux)?),
        }
    }

    /// The answer as the plan would give it: `printed` standing for what
    /// tmux printed, `after` for the server read after.
    #[cfg(test)]
    pub(crate) fn answer_with(self, printed: &str, after: &Snapshot) -> Result<A> {
        match self.answer {
            Answer::Known(answer) => Ok(answer),
            Answer::ReadBack(read) => read(printed, after),
        }
    }

    /// The commands as lines of words, for the tests.
    #[cfg(test)]
    pub(crate) fn lines(&self) -> Vec<String> {
        self.batch
            .commands()
            .iter()
            .map(|cmd| cmd.words().join(" "))
            .collect()
    }
}
