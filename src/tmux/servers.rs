//! The tmux servers of this user's socket folder: herdr's named sessions
//! are servers of their own, and so are tmux's (`tmux -L NAME`). Each
//! socket there is a server; it runs when a connect to it is answered.

use super::commands::Cmd;
use super::{SocketFlags, Tmux};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One tmux server, in herdr's `session list` fields and what tmux has
/// beside them.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ServerInfo {
    /// The socket's name: what `tmux -L` takes.
    pub name: String,
    /// tmux's default server (`default`, what `tmux` with no -L reaches).
    pub default: bool,
    pub running: bool,
    pub socket_path: String,
    /// The folder the socket is in (herdr's session folder).
    pub session_dir: String,
    /// Its sessions (taw's workspaces), by name; none when it does not run.
    pub workspaces: Vec<String>,
    /// How many clients are attached to it.
    pub clients: usize,
}

/// tmux's socket folder for this user: `$TMUX_TMPDIR/tmux-UID`, `/tmp`
/// when that is unset.
pub(crate) fn socket_dir() -> PathBuf {
    let base = std::env::var_os("TMUX_TMPDIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    base.join(format!("tmux-{}", rustix::process::getuid().as_raw()))
}

/// Every server of the socket folder, `default` first, then by name. A
/// folder that is not there has none.
pub(crate) fn list() -> Vec<ServerInfo> {
    let dir = socket_dir();
    let mut servers: Vec<ServerInfo> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            use std::os::unix::fs::FileTypeExt;
            entry.file_type().is_ok_and(|t| t.is_socket())
        })
        .filter_map(|entry| Some(server(&dir, &entry.file_name().into_string().ok()?)))
        .collect();
    servers.sort_by(|a, b| (!a.default, &a.name).cmp(&(!b.default, &b.name)));
    servers
}

fn server(dir: &Path, name: &str) -> ServerInfo {
    let path = dir.join(name);
    let mut info = ServerInfo {
        name: name.to_string(),
        default: name == "default",
        running: std::os::unix::net::UnixStream::connect(&path).is_ok(),
        socket_path: path.display().to_string(),
        session_dir: dir.display().to_string(),
        workspaces: Vec::new(),
        clients: 0,
    };
    if info.running {
        let tmux = Tmux::locate(&SocketFlags {
            name: None,
            path: Some(path),
        });
        let read = tmux.run_apart(vec![
            Cmd::new("list-sessions").args(["-F", "#{session_name}"]),
            super::commands::list_client_names(),
        ]);
        if let Ok(sections) = read {
            info.workspaces = lines(&sections[0]);
            info.clients = lines(&sections[1]).len();
        }
    }
    info
}

fn lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}
