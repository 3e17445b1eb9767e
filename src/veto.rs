//! What is asked before taw closes something. The `[hooks] pre_close`
//! command of config.toml will answer here (it comes with the events
//! work); until then every close taw is asked to make goes ahead.

use crate::envelope::Result;

/// What is about to close: a tmux session, window or pane number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closing {
    Session(u32),
    Window(u32),
    Pane(u32),
}

/// Whether taw may close it: an error (`hook_refused`) stops the close.
pub(crate) fn may_close(_closing: &Closing) -> Result<()> {
    Ok(())
}
