//! Saved layouts (`taw session save`, autosave, `taw session restore`):
//! every session, window and pane of a server with the agent in front of
//! each pane, in `<state>/sessions/<name>.json`, written whole, with the
//! earlier layouts kept in `<state>/session-snapshots/` (the newest few).

use crate::envelope::{ErrorCode, Result, TawError};
use crate::paths;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The format's version, for a later taw to read an older file.
pub(crate) const VERSION: u32 = 1;
/// How many earlier layouts `session-snapshots/` keeps.
pub(crate) const KEPT_COPIES: usize = 20;
/// The layout `taw session save` and autosave write when no name is given.
pub(crate) const DEFAULT_NAME: &str = "default";

/// One saved layout: every session of the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Layout {
    #[serde(default)]
    pub version: u32,
    /// When it was taken (Unix seconds).
    #[serde(default)]
    pub taken_unix: u64,
    #[serde(default)]
    pub sessions: Vec<SavedSession>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SavedSession {
    pub name: String,
    /// The session's own folder (tmux's session_path).
    #[serde(default)]
    pub path: String,
    /// The session of its group saved first, whose windows it shares
    /// (`new-session -t`): it has none of its own then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grouped_with: Option<String>,
    /// The workspace's label as given, where it is not the session's name
    /// (`dir: demo` for the session `dir_ demo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default)]
    pub windows: Vec<SavedWindow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SavedWindow {
    /// The window's number when it was saved.
    pub index: i64,
    #[serde(default)]
    pub name: String,
    /// tmux's layout string (`window_layout`).
    #[serde(default)]
    pub layout: String,
    #[serde(default)]
    pub active: bool,
    #[serde(default)]
    pub zoomed: bool,
    /// A window linked into this session from one saved before it
    /// (`session:index`, `link-window`): no panes of its own then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linked_from: Option<String>,
    #[serde(default)]
    pub panes: Vec<SavedPane>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SavedPane {
    /// The pane's number in its window when it was saved.
    pub index: i64,
    /// Its tmux id then (`%12`), for the plan's lines.
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub cwd: String,
    #[serde(default)]
    pub active: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<SavedAgent>,
}

/// The agent in front of a pane, and what resumes its conversation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct SavedAgent {
    /// herdr's canonical id: claude, codex...
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_path: Option<String>,
    /// The command its integration reported for resuming it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resume: Vec<String>,
    /// The flags Claude Code ran with that set how its session runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_claude_flags: Vec<String>,
    /// The command line `taw agent start` typed for it, to start it again
    /// plain when it has no session to resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    /// A sandboxed agent's kept resume: a restore types `taw sandbox` again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::sandbox::KeptResume>,
}

/// `<state>/sessions/`.
pub(crate) fn folder() -> PathBuf {
    paths::state_dir().join("sessions")
}

/// `<state>/session-snapshots/`.
pub(crate) fn copies_folder() -> PathBuf {
    paths::state_dir().join("session-snapshots")
}

/// A layout's name is a file name of its own: letters, digits, `-`, `_`
/// and `.`, not starting with a dot.
pub(crate) fn check_name(name: &str) -> Result<()> {
    let fine = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if fine {
        Ok(())
    } else {
        Err(TawError::invalid_argument(format!(
            "{name:?} is no layout name: up to 64 letters, digits, '-', '_' and '.', not starting with '.'"
        )))
    }
}

/// `<state>/sessions/<name>.json`.
pub(crate) fn file(name: &str) -> PathBuf {
    folder().join(format!("{name}.json"))
}

/// Takes `name`'s save for this process until the answer is dropped: two
/// saves (an autosave and another, or a restore's) take turns, each
/// reading the server after the one before has written, so an older
/// reading never lands over a newer one.
pub(crate) fn take_turn(name: &str) -> Result<paths::FileLock> {
    take_turn_in(&folder(), name)
}

fn take_turn_in(folder: &Path, name: &str) -> Result<paths::FileLock> {
    let lock = folder.join(format!(".{name}.lock"));
    paths::take_turn(&lock).map_err(|error| {
        TawError::new(
            ErrorCode::IoError,
            format!("could not open {}: {error}", paths::display(&lock)),
        )
    })
}

/// Writes `layout` as `name`, the layout it replaces kept as a copy in
/// `session-snapshots/` (the newest [`KEPT_COPIES`] stay).
pub(crate) fn write(name: &str, layout: &Layout) -> Result<PathBuf> {
    let path = file(name);
    let text = serde_json::to_string_pretty(layout).unwrap_or_default() + "\n";
    let failed = |what: &str, path: &Path, error: std::io::Error| {
        TawError::new(
            ErrorCode::IoError,
            format!("could not {what} {}: {error}", paths::display(path)),
        )
    };
    if let Ok(old) = std::fs::read(&path) {
        if old == text.as_bytes() {
            return Ok(path);
        }
        let taken = serde_json::from_slice::<Layout>(&old)
            .map(|l| l.taken_unix)
            .unwrap_or(0);
        if let Some(copy) = free_copy(&copies_folder(), name, taken, &old) {
            paths::write_private(&copy, &old).map_err(|e| failed("keep a copy in", &copy, e))?;
        }
        prune(name);
    }
    paths::write_private(&path, text.as_bytes()).map_err(|e| failed("write", &path, e))?;
    Ok(path)
}

/// Where to keep a copy of `name`'s layout taken at `taken` (whole
/// seconds): `<name>-<taken>.json`, or `<name>-<taken>.<n>.json` when two
/// layouts of one second differ; `None` when these bytes are kept already.
fn free_copy(folder: &Path, name: &str, taken: u64, bytes: &[u8]) -> Option<PathBuf> {
    (0..1000).find_map(|n| {
        let file = match n {
            0 => format!("{name}-{taken}.json"),
            n => format!("{name}-{taken}.{n}.json"),
        };
        let path = folder.join(file);
        match std::fs::read(&path) {
            Ok(kept) if kept == bytes => Some(None),
            Ok(_) => None,
            Err(_) => Some(Some(path)),
        }
    })?
}

/// Whether `file` is a copy of `name`'s layout: `<name>-` then the time
/// and maybe a serial, all digits, so a layout named `default-work` keeps
/// its copies apart from `default`'s.
fn is_copy_of(name: &str, file: &str) -> bool {
    let Some(rest) = file
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|rest| rest.strip_suffix(".json"))
    else {
        return false;
    };
    let (taken, serial) = rest.split_once('.').unwrap_or((rest, "0"));
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    digits(taken) && digits(serial)
}

/// The copies of `name`'s earlier layouts, newest first by the time each
/// says it was taken (never by its file's name or time).
pub(crate) fn copies(name: &str) -> Vec<(PathBuf, Layout)> {
    let Ok(entries) = std::fs::read_dir(copies_folder()) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, Layout)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| is_copy_of(name, n))
        })
        .filter_map(|p| {
            let layout = serde_json::from_slice::<Layout>(&std::fs::read(&p).ok()?).ok()?;
            Some((p, layout))
        })
        .collect();
    found.sort_by_key(|(_, layout)| std::cmp::Reverse(layout.taken_unix));
    found
}

fn prune(name: &str) {
    for (path, _) in copies(name).into_iter().skip(KEPT_COPIES) {
        // A copy that stays is pruned at the next save.
        let _ = std::fs::remove_file(path);
    }
}

/// The layout in `path`, or why it cannot be read.
pub(crate) fn read(path: &Path) -> Result<Layout> {
    let bytes = std::fs::read(path).map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            TawError::not_found(format!(
                "no saved layout at {}; `taw session save` makes one",
                paths::display(path)
            ))
        } else {
            TawError::new(
                ErrorCode::IoError,
                format!("could not read {}: {error}", paths::display(path)),
            )
        }
    })?;
    serde_json::from_slice(&bytes).map_err(|error| {
        TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{} is not a layout taw saved: {error}",
                paths::display(path)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_its_names_alone() {
        assert!(is_copy_of("default", "default-1700000000.json"));
        assert!(is_copy_of("default", "default-1700000000.2.json"));
        assert!(!is_copy_of("default", "default-work-1700000000.json"));
        assert!(!is_copy_of("default", "default-123-1700000000.json"));
        assert!(!is_copy_of("default", "default-.json"));
        assert!(!is_copy_of("default", "default-17.json.tmp"));
        assert!(is_copy_of("default-work", "default-work-1700000000.json"));
    }

    #[test]
    fn saves_of_one_name_take_turns() {
        let dir = tempfile::tempdir().unwrap();
        let turn = take_turn_in(dir.path(), "default").unwrap();
        let other = std::fs::File::open(dir.path().join(".default.lock")).unwrap();
        let try_lock =
            || rustix::fs::flock(&other, rustix::fs::FlockOperation::NonBlockingLockExclusive);
        assert!(try_lock().is_err(), "a second save went on meanwhile");
        drop(turn);
        assert!(try_lock().is_ok());
    }

    #[test]
    fn two_layouts_of_one_second_are_both_kept() {
        let dir = tempfile::tempdir().unwrap();
        let first = free_copy(dir.path(), "default", 17, b"one").unwrap();
        assert_eq!(first, dir.path().join("default-17.json"));
        std::fs::write(&first, b"one").unwrap();
        // The same bytes are kept already; other bytes get a place of their own.
        assert_eq!(free_copy(dir.path(), "default", 17, b"one"), None);
        let second = free_copy(dir.path(), "default", 17, b"two").unwrap();
        assert_eq!(second, dir.path().join("default-17.1.json"));
    }
}
