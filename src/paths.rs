//! Where taw keeps its files: the config folder (what the user writes) and the
//! state folder (what taw writes).

use std::env;
use std::path::{Path, PathBuf};

const APP: &str = "tmux-agent-wizard";

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
