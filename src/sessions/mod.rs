//! Sessions as a person keeps them: the folders a session is opened for
//! (`folders.rs`: a directory as a session's path, its names, the create
//! hooks, the picker's folders), the layouts saved of a server
//! (`saved.rs`), and the command that resumes an agent's conversation
//! from a saved layout (`resume.rs`). The operations on them are
//! `ops::session`, `ops::save` and `ops::restore`.

pub(crate) mod folders;
pub(crate) mod resume;
pub(crate) mod saved;
