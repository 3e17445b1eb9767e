//! Agent detection: which agent runs in a pane ([`job`]), and what state its
//! screen shows ([`manifest`], [`region`], [`engine`]), with each agent's
//! rules from [`registry`].

pub mod agents;
pub mod engine;
pub mod explain;
pub mod job;
pub mod manifest;
pub mod region;
pub mod registry;
