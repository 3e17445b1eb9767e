//! The targets a client starred, kept in `<state>/web/stars.json` (a JSON
//! list, written whole), so a star outlives the server and a starred
//! target that is not running shows as offline.

use crate::envelope::{Result, TawError};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn file() -> PathBuf {
    crate::paths::state_dir().join("web").join("stars.json")
}

/// The starred targets; none when the file is missing or unreadable.
pub(crate) fn load() -> BTreeSet<String> {
    std::fs::read(file())
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

pub(crate) fn save(starred: &BTreeSet<String>) -> Result<()> {
    let path = file();
    let json = serde_json::to_vec_pretty(starred).unwrap_or_default();
    crate::paths::write_private(&path, &json)
        .map_err(|e| TawError::io(format!("{} cannot be written: {e}", path.display())))
}
