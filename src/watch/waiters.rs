//! Waiting on a pane without polling it: a verb that waits (`pane
//! wait-output`, `agent wait`) binds a Unix datagram socket named for the
//! pane in taw's state folder, and the pane's watcher sends a byte to every
//! such socket after each look. No daemon, and no tmux state to clean up:
//! the folder's listing is the list of waiters.

use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest socket path the system takes (sun_path, less its NUL).
pub(crate) const MAX_PATH: usize = 103;

fn prefix(server: u32, pane: u32) -> String {
    format!("wait-{server}-{pane}-")
}

/// The sockets of waiters on every pane of a server (the popup).
fn any_prefix(server: u32) -> String {
    format!("wait-{server}-any-")
}

/// A verb's wait on one pane; its socket goes when it is dropped.
pub(crate) struct Waiter {
    socket: UnixDatagram,
    path: PathBuf,
}

impl Waiter {
    /// Listens for the looks at pane `%pane`. `None` when no socket can be
    /// made (a state folder path too long for a socket).
    pub(crate) fn new(state_dir: &Path, server: u32, pane: u32) -> Option<Waiter> {
        Waiter::bind(state_dir, &prefix(server, pane))
    }

    /// Listens for the looks at every pane of the server.
    pub(crate) fn any(state_dir: &Path, server: u32) -> Option<Waiter> {
        Waiter::bind(state_dir, &any_prefix(server))
    }

    fn bind(state_dir: &Path, prefix: &str) -> Option<Waiter> {
        let dir = state_dir.join("run");
        crate::paths::make_private_dir(&dir).ok()?;
        let name = format!("{prefix}{}.sock", std::process::id());
        let path = dir.join(name);
        if path.as_os_str().len() > MAX_PATH {
            return None;
        }
        // A socket left by a verb of this pid that was killed; usually none.
        let _ = std::fs::remove_file(&path);
        let socket = UnixDatagram::bind(&path).ok()?;
        Some(Waiter { socket, path })
    }

    /// Its socket's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Waits up to `timeout` for a look; true when one came.
    pub(crate) fn wait(&self, timeout: Duration) -> bool {
        let timeout = timeout.max(Duration::from_millis(1));
        if self.socket.set_read_timeout(Some(timeout)).is_err() {
            return false;
        }
        let mut byte = [0u8; 16];
        let got = self.socket.recv(&mut byte).is_ok();
        // Several looks may have come meanwhile: one read of the pane serves all.
        self.drain(|_| {});
        got
    }

    /// Takes every datagram already queued, without waiting for more.
    fn drain(&self, mut take: impl FnMut(&[u8])) {
        // Left blocking, a read here would wait out the read timeout.
        if self.socket.set_nonblocking(true).is_err() {
            return;
        }
        let mut buffer = [0u8; 32];
        while let Ok(n) = self.socket.recv(&mut buffer) {
            take(&buffer[..n]);
        }
        // Back to blocking: fcntl fails only on a bad descriptor, and this
        // one is held open, so it just worked the other way.
        let _ = self.socket.set_nonblocking(false);
    }
}

impl Waiter {
    /// A way to wake this waiter from another thread, naming no pane.
    pub(crate) fn nudge(&self) -> Nudge {
        Nudge {
            path: self.path.clone(),
        }
    }

    /// [`Waiter::wait`], answering the panes whose looks came (each once):
    /// empty when the time ran out, or a [`Nudge`] came.
    pub(crate) fn wait_panes(&self, timeout: Duration) -> Vec<u32> {
        let timeout = timeout.max(Duration::from_millis(1));
        if self.socket.set_read_timeout(Some(timeout)).is_err() {
            return Vec::new();
        }
        let mut panes = Vec::new();
        let mut take = |bytes: &[u8]| {
            let pane = std::str::from_utf8(bytes)
                .ok()
                .and_then(|t| t.strip_prefix('l'))
                .and_then(|n| n.parse::<u32>().ok());
            if let Some(pane) = pane
                && !panes.contains(&pane)
            {
                panes.push(pane);
            }
        };
        let mut buffer = [0u8; 32];
        if let Ok(n) = self.socket.recv(&mut buffer) {
            take(&buffer[..n]);
            self.drain(&mut take);
        }
        panes
    }
}

/// Wakes a [`Waiter`] as a look would, naming no pane: its reader reads
/// everything again.
pub(crate) struct Nudge {
    path: PathBuf,
}

impl Nudge {
    pub(crate) fn send(&self) {
        // A waiter gone (its reader left) has nothing to wake.
        if let Ok(sender) = UnixDatagram::unbound() {
            let _ = sender.send_to(b"s", &self.path);
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        // Already gone is fine: there is nothing else to clean up.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Tells every waiter of pane `%pane` that the pane was looked at. A socket
/// nobody listens on any more (its verb was killed) is removed.
pub(crate) fn notify_all(state_dir: &Path, server: u32, pane: u32) {
    notify(state_dir, server, pane, true);
}

/// Tells the waiters on every pane (the web server, the popup) that pane
/// `%pane` printed.
pub(crate) fn notify_every_pane_waiter(state_dir: &Path, server: u32, pane: u32) {
    notify(state_dir, server, pane, false);
}

fn notify(state_dir: &Path, server: u32, pane: u32, pane_waiters_too: bool) {
    let dir = state_dir.join("run");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let prefix = if pane_waiters_too {
        prefix(server, pane)
    } else {
        any_prefix(server)
    };
    let any = any_prefix(server);
    let Ok(sender) = UnixDatagram::unbound() else {
        return;
    };
    // A waiter that is not reading (the web server with no page open) has
    // a full queue after a few looks: its byte is dropped, never waited
    // for, or the watcher would stop looking. The bytes already queued wake
    // it all the same.
    if sender.set_nonblocking(true).is_err() {
        return;
    }
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with(&prefix) && !name.starts_with(&any) {
            continue;
        }
        let path = entry.path();
        // The pane's number, for a waiter on every pane (the web server
        // reads again only the panes that changed).
        if let Err(error) = sender.send_to(format!("l{pane}").as_bytes(), &path)
            && error.kind() == std::io::ErrorKind::ConnectionRefused
        {
            // Another watcher may have removed it first.
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiter_that_does_not_read_never_holds_the_watcher() {
        let dir = tempfile::tempdir().unwrap();
        let _idle = Waiter::any(dir.path(), 7).unwrap();
        let start = std::time::Instant::now();
        // Far more looks than a datagram queue holds.
        for _ in 0..500 {
            notify_all(dir.path(), 7, 3);
        }
        assert!(start.elapsed() < Duration::from_secs(5));
        assert!(_idle.wait(Duration::from_millis(10)));
    }

    #[test]
    fn a_look_wakes_the_waiter() {
        let dir = tempfile::tempdir().unwrap();
        let waiter = Waiter::new(dir.path(), 7, 3).unwrap();
        assert!(!waiter.wait(Duration::from_millis(20)));
        notify_all(dir.path(), 7, 3);
        notify_all(dir.path(), 7, 3);
        assert!(waiter.wait(Duration::from_secs(2)));
        // Both notifications were taken by one wait.
        assert!(!waiter.wait(Duration::from_millis(20)));
        // Another pane's look wakes nobody here.
        notify_all(dir.path(), 7, 4);
        assert!(!waiter.wait(Duration::from_millis(20)));
        // A waiter on every pane hears both, and which panes they were.
        let any = Waiter::any(dir.path(), 7).unwrap();
        notify_all(dir.path(), 7, 4);
        assert!(any.wait(Duration::from_secs(2)));
        notify_all(dir.path(), 7, 4);
        notify_all(dir.path(), 7, 9);
        notify_all(dir.path(), 7, 4);
        assert_eq!(any.wait_panes(Duration::from_secs(2)), [4, 9]);
        notify_all(dir.path(), 8, 4);
        assert!(!any.wait(Duration::from_millis(20)));
        let path = waiter.path.clone();
        drop(waiter);
        assert!(!path.exists());
    }
}
