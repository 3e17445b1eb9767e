//! The popup: every session, window and agent with its state and a preview
//! of its screen; Enter goes there, Tab to the next agent that needs you.
//! `taw ui open` opens it in a tmux popup; `taw ui` is what runs inside.

pub mod app;
pub mod field;
pub mod keymap;
pub mod rows;
