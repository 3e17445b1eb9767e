//! Where taw keeps its files: the config folder (what the user writes) and the
//! state folder (what taw writes).

use std::env;
use std::path::{Path, PathBuf};

const APP: &str = "tmux-agent-wizard";

/// The variables that name taw's folders: a process taw starts that may
/// call taw back gets them, so it finds the same files.
pub(crate) const FOLDER_VARS: &[&str] = &["TAW_STATE_DIR", "TAW_CONFIG_DIR"];

/// Those of [`FOLDER_VARS`] this process runs with (set, not empty).
pub(crate) fn folder_vars() -> Vec<(&'static str, String)> {
    FOLDER_VARS
        .iter()
        .filter_map(|name| {
            env::var(name)
                .ok()
                .filter(|v| !v.is_empty())
                .map(|v| (*name, v))
        })
        .collect()
}

/// The config folder: `TAW_CONFIG_DIR`, else `$XDG_CONFIG_HOME/tmux-agent-wizard`,
/// else `~/.config/tmux-agent-wizard`.
pub(crate) fn config_dir() -> PathBuf {
    resolve("TAW_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")
}

/// The state folder: `TAW_STATE_DIR`, else `$XDG_STATE_HOME/tmux-agent-wizard`,
/// else `~/.local/state/tmux-agent-wizard`.
pub(crate) fn state_dir() -> PathBuf {
    resolve("TAW_STATE_DIR", "XDG_STATE_HOME", ".local/state")
}

/// The user's agent manifests, overrides and definitions:
/// `<config>/manifests/<id>.toml`.
pub(crate) fn manifests_dir() -> PathBuf {
    config_dir().join("manifests")
}

/// `config.toml` in the config folder.
pub(crate) fn config_file() -> PathBuf {
    config_dir().join("config.toml")
}

/// The folder put in front of tmux's PATH: it holds only a `taw` link.
pub(crate) fn bin_dir() -> PathBuf {
    state_dir().join("bin")
}

pub(crate) fn home_dir() -> Option<PathBuf> {
    env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

fn resolve(own: &str, xdg: &str, home_relative: &str) -> PathBuf {
    if let Some(dir) = non_empty_var(own) {
        return dir;
    }
    // The XDG spec says a relative value is to be ignored.
    if let Some(dir) = non_empty_var(xdg).filter(|dir| dir.is_absolute()) {
        return dir.join(APP);
    }
    home_dir()
        .unwrap_or_else(|| PathBuf::from("/"))
        .join(home_relative)
        .join(APP)
}

fn non_empty_var(name: &str) -> Option<PathBuf> {
    env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// A folder a person wrote in the config: `~` and `~/...` are under the
/// home folder.
pub(crate) fn expand_home(text: &str) -> PathBuf {
    let home = || home_dir().unwrap_or_else(|| PathBuf::from("/"));
    match text.strip_prefix("~/") {
        Some(rest) => home().join(rest),
        None if text == "~" => home(),
        None => PathBuf::from(text),
    }
}

/// `path` with the home folder written as `~`, for messages a person reads.
pub(crate) fn display(path: &Path) -> String {
    if let Some(home) = home_dir()
        && let Ok(rest) = path.strip_prefix(&home)
    {
        if rest.as_os_str().is_empty() {
            return "~".into();
        }
        return format!("~/{}", rest.display());
    }
    path.display().to_string()
}

/// Whether `a` and `b` name one folder or file: the same words, or the
/// same place through links.
pub(crate) fn same_place(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Writes `bytes` to `path` whole or not at all: into a file beside it,
/// synced, then renamed over it, so a reader never sees half of it and a
/// crash leaves the old file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_mode(path, bytes, None)
}

/// What only its owner may read and write: taw's own files that hold a
/// person's screens, folders, commands or logs.
pub(crate) const PRIVATE_FILE: u32 = 0o600;
/// The folders taw makes for them.
pub(crate) const PRIVATE_DIR: u32 = 0o700;

/// [`write_atomic`] for a file of taw's own: 0600, and any folder made on
/// the way 0700.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        make_private_dir(dir)?;
    }
    write_atomic_mode(path, bytes, Some(PRIVATE_FILE))
}

/// Makes `dir` and the folders above it that are missing, each 0700; one
/// already there keeps its mode.
pub(crate) fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR)
        .create(dir)
}

/// Why a file taw will act on could have been written by someone else
/// (group- or world-writable, or owned by another user), as ssh refuses
/// such a config; none when only its owner, this user, can write it.
pub(crate) fn written_by_others(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Some(format!("it is owned by user {}, not by you", meta.uid()));
    }
    (meta.mode() & 0o022 != 0).then(|| {
        format!(
            "its mode {:o} lets others write it (chmod go-w fixes that)",
            meta.mode() & 0o777
        )
    })
}

/// Writes a new file whole, with `mode`, where no file is: the bytes go into
/// a file beside it first, which is then linked into place, so a file that
/// came there meanwhile is never written over (`AlreadyExists`).
pub(crate) fn write_new_mode(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = dir.join(format!(".{name}.new-{}", std::process::id()));
    write_atomic_mode(&temporary, bytes, Some(mode))?;
    let linked = std::fs::hard_link(&temporary, path);
    // The link made (or not) is the outcome; the temporary name is litter.
    let _ = std::fs::remove_file(&temporary);
    linked
}

/// [`write_atomic`], the new file given `mode` before it takes the old
/// one's place.
pub(crate) fn write_atomic_mode(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNT: AtomicU32 = AtomicU32::new(0);
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    // A folder made here is private: it may be taw's state, made first.
    make_private_dir(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        // Made with its mode (never readable by others for a moment), and
        // never through a link planted at its name.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode.map_or(0o666, |mode| mode & 0o777))
            .open(&temporary)?;
        if let Some(mode) = mode {
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        // The failed write is what is reported; the temporary is litter.
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Writes a file of the user's (an agent's config) whole or not at all,
/// as [`write_atomic`] does, into the file a link names rather than over
/// the link, and with the permissions the file had.
pub(crate) fn write_user_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let target = user_file_target(path);
    let mode = std::fs::metadata(&target)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    write_atomic_mode(&target, bytes, mode)
}

/// Removes a file of the user's that taw made: the file a link names,
/// never the link (a link into a dotfiles folder stays, as it was before
/// the file was made).
pub(crate) fn remove_user_file(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(user_file_target(path))
}

/// The file `path` stands for: itself, or the file its link names (where
/// it would be, for a link to nothing).
fn user_file_target(path: &Path) -> PathBuf {
    match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(_) => match std::fs::read_link(path) {
            Ok(points) => path.parent().unwrap_or(Path::new("/")).join(points),
            Err(_) => path.to_path_buf(),
        },
    }
}

/// For a process that keeps a file a connection or a pane (`taw web`, the
/// watcher): the soft limit of open files (1024 on Debian, 256 on macOS)
/// raised to the hard one, as far as the system lets (macOS takes no more
/// than its `OPEN_MAX`, 10240).
pub(crate) fn raise_open_files_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    const MACOS_OPEN_MAX: u64 = 10240;
    let mut limit = getrlimit(Resource::Nofile);
    let mut wanted = limit.maximum;
    if cfg!(target_os = "macos") {
        wanted = Some(wanted.map_or(MACOS_OPEN_MAX, |most| most.min(MACOS_OPEN_MAX)));
    }
    // `None` is no limit.
    let below = match (limit.current, wanted) {
        (Some(current), Some(wanted)) => current < wanted,
        (Some(_), None) => true,
        (None, _) => false,
    };
    if below {
        limit.current = wanted;
        // Refused: the soft limit stays, and the callers' own caps hold.
        let _ = setrlimit(Resource::Nofile, limit);
    }
}

/// An exclusive `flock` on an open file, let go when dropped: writers of a
/// log in several processes take turns.
/// It keeps a handle of its own on the file: the lock is the open file's.
pub(crate) struct FileLock(Option<std::os::fd::OwnedFd>);

impl FileLock {
    pub(crate) fn take(file: &std::fs::File) -> FileLock {
        use std::os::fd::AsFd;
        // A lock not had (a file system without locks) leaves the writers
        // as they would be without it.
        let _ = rustix::fs::flock(file, rustix::fs::FlockOperation::LockExclusive);
        FileLock(file.as_fd().try_clone_to_owned().ok())
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Without a handle of its own, the file's close lets it go.
        if let Some(held) = &self.0 {
            let _ = rustix::fs::flock(held, rustix::fs::FlockOperation::Unlock);
        }
    }
}

/// Takes turns with every other taw process that changes what `lock`
/// guards (a registry, a saved session, the config's machines): the lock
/// file is made, with its folder, and held until the answer is dropped.
pub(crate) fn take_turn(lock: &Path) -> std::io::Result<FileLock> {
    if let Some(dir) = lock.parent() {
        make_private_dir(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(lock)?;
    Ok(FileLock::take(&file))
}

/// Appends one line to a log that several processes write: under a lock of
/// the file, so no line is lost or mixed with another; past `bound` bytes,
/// its older half goes (rewritten in place, under the lock: a rename would
/// leave the writers waiting on the old file).
pub(crate) fn append_line(path: &Path, line: &str, bound: u64) {
    use std::io::{Read, Seek, Write};
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        // A folder not made fails the open below, which says why.
        let _ = make_private_dir(dir);
    }
    // A symlink planted in its place is not followed: the line is lost
    // rather than appended (and the half kept) in whatever it points at.
    let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .mode(PRIVATE_FILE)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    else {
        return;
    };
    let _lock = FileLock::take(&file);
    // A log line not written is a line missing: no caller can do better.
    let _ = file.write_all(format!("{}\n", line.trim_end_matches('\n')).as_bytes());
    if file.metadata().map(|m| m.len()).unwrap_or(0) <= bound {
        return;
    }
    let mut text = String::new();
    if file.rewind().is_ok() && file.read_to_string(&mut text).is_ok() {
        let lines: Vec<&str> = text.lines().collect();
        let kept = lines[lines.len() / 2..].join("\n") + "\n";
        if file.set_len(0).is_ok() {
            // As for a line: a log cut short is the worst that can come.
            let _ = file.write_all(kept.as_bytes());
        }
    }
}

/// Whether this process may run the file at `path` (access(2), X_OK).
pub(crate) fn executable(path: &Path) -> bool {
    path.is_file() && rustix::fs::access(path, rustix::fs::Access::EXEC_OK).is_ok()
}

/// The program `name` as a `PATH` (a list of folders) finds it.
pub(crate) fn find_in(path_list: &std::ffi::OsStr, name: &str) -> Option<PathBuf> {
    env::split_paths(path_list)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| executable(candidate))
}

/// The program `name` as this process's `PATH` finds it.
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    find_in(&env::var_os("PATH")?, name)
}

/// A process's folder as the kernel says it (tmux's `pane_current_path`,
/// `/proc/<pid>/cwd`): one removed while a process is in it ends in
/// ` (deleted)`, the kernel's word, not the folder's.
pub(crate) fn folder_as_said(said: &str) -> String {
    match said.strip_suffix(" (deleted)") {
        Some(folder) if !Path::new(said).exists() => folder.to_string(),
        _ => said.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_makes_private_folders_and_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/sub/x");
        write_atomic_mode(&path, b"secret", Some(0o600)).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("state")), 0o700);
        // An executable keeps its bits whatever the umask took.
        write_atomic_mode(&path, b"#!/bin/sh\n", Some(0o755)).unwrap();
        assert_eq!(mode(&path), 0o755);
        assert_eq!(std::fs::read(&path).unwrap(), b"#!/bin/sh\n");
        // Nothing is left beside it.
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_log_past_its_bound_keeps_its_newer_half() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/x.log");
        for n in 0..100 {
            append_line(&path, &format!("line {n:03}"), 400);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() <= 400, "{}", text.len());
        assert!(text.ends_with("line 099\n"));
        assert!(!text.contains("line 000"));
        assert!(
            text.lines().all(|l| l.starts_with("line ")),
            "no line cut: {text}"
        );
    }

    #[test]
    fn a_log_planted_as_a_symlink_is_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        std::fs::write(&target, "mine\n").unwrap();
        let logs = dir.path().join("state/logs");
        std::fs::create_dir_all(&logs).unwrap();
        std::os::unix::fs::symlink(&target, logs.join("hooks.log")).unwrap();
        for n in 0..50 {
            append_line(&logs.join("hooks.log"), &format!("line {n}"), 100);
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
        // A folder the log makes is the user's alone.
        let fresh = dir.path().join("other/logs/x.log");
        append_line(&fresh, "one", 100);
        let mode = std::fs::metadata(fresh.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    #[test]
    fn an_atomic_write_replaces_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path().join("a")).unwrap().count(), 1);
    }

    #[test]
    fn a_removed_folder_loses_the_kernels_word() {
        let kept = tempfile::tempdir().unwrap();
        let gone = kept.path().join("gone");
        let said = format!("{} (deleted)", gone.display());
        assert_eq!(folder_as_said(&said), gone.display().to_string());
        // A folder really named so keeps its name.
        let named = kept.path().join("x (deleted)");
        std::fs::create_dir(&named).unwrap();
        let named = named.display().to_string();
        assert_eq!(folder_as_said(&named), named);
        assert_eq!(folder_as_said("/tmp"), "/tmp");
    }
}
