//! Waking a pane's watcher without output: each watcher listens on a Unix
//! datagram socket in taw's state folder, and `taw pane report-agent` (or
//! a focus hook) sends it a byte. No daemon, no polling.

use super::Wake;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// The longest socket path the system takes (sun_path, less its NUL).
const MAX_PATH: usize = 103;

/// The socket of the watcher of pane `%pane` of the server with pid `server`.
pub(crate) fn socket_path(state_dir: &Path, server: u32, pane: u32) -> Option<PathBuf> {
    let path = state_dir.join("run").join(format!("{server}-{pane}.sock"));
    (path.as_os_str().len() <= MAX_PATH).then_some(path)
}

/// Listens on `path` and turns each datagram into a nudge. A socket left
/// by a watcher that died is replaced.
pub(crate) fn listen(path: &Path, sender: mpsc::Sender<Wake>) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // Usually there is none to remove; bind says if one stays in the way.
    let _ = std::fs::remove_file(path);
    let socket = UnixDatagram::bind(path)?;
    std::thread::spawn(move || {
        let mut byte = [0u8; 16];
        while socket.recv(&mut byte).is_ok() {
            if sender.send(Wake::Nudge).is_err() {
                return;
            }
        }
    });
    Ok(())
}

/// Wakes the watcher listening on `path`, if there is one.
pub(crate) fn nudge(path: &Path) -> bool {
    UnixDatagram::unbound()
        .and_then(|socket| socket.send_to(b"n", path))
        .is_ok()
}

/// Wakes the watcher of pane `%pane` of the server `tmux` reaches, so it
/// looks now (a report, a new label: nothing the pane prints).
pub(crate) fn wake(tmux: &crate::tmux::Tmux, pane: u32) {
    if let Ok(values) = crate::tmux::pane::read_values(tmux, pane, &["pid"])
        && let Ok(server) = values[0].parse::<u32>()
        && let Some(path) = socket_path(&crate::paths::state_dir(), server, pane)
    {
        nudge(&path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nudge_arrives() {
        let dir = tempfile::tempdir().unwrap();
        let path = socket_path(dir.path(), 1, 2).unwrap();
        let (sender, receiver) = mpsc::channel();
        listen(&path, sender).unwrap();
        assert!(nudge(&path));
        assert_eq!(
            receiver.recv_timeout(std::time::Duration::from_secs(2)),
            Ok(Wake::Nudge)
        );
        assert!(!nudge(&dir.path().join("none.sock")));
    }

    #[test]
    fn too_long_a_path_has_no_socket() {
        let long = PathBuf::from("/".to_string() + &"x".repeat(120));
        assert!(socket_path(&long, 1, 2).is_none());
    }
}
