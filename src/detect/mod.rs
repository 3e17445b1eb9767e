//! Agent detection: which agent runs in a pane ([`job`]), and what state its
//! screen shows ([`manifest`], [`region`], [`engine`]), with each agent's
//! rules from [`registry`].

pub(crate) mod agents;
pub(crate) mod engine;
pub(crate) mod explain;
pub(crate) mod foreground;
pub(crate) mod manifest;
pub(crate) mod region;
pub(crate) mod registry;
