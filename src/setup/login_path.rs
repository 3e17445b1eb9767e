//! A way for a pane's login shell to find taw. tmux starts each pane's
//! shell as a login shell, and a login profile may set PATH anew (Debian's
//! /etc/profile does, macOS's path_helper reorders it), so the entry a load
//! puts in tmux's global PATH can be gone in the pane. A link to taw in a
//! folder the user's own login shells put on PATH (`~/.local/bin`,
//! `~/bin`) is still there; where no such folder is, the load says, once,
//! what to add.

use serde::Serialize;
use std::path::{Path, PathBuf};

/// The folders a home's login shells commonly put on PATH, in the order
/// taw prefers them, each with the spellings a profile names it by.
const KEPT_FOLDERS: &[(&str, &[&str])] = &[
    (".local/bin", &[".local/bin"]),
    ("bin", &["$HOME/bin", "${HOME}/bin", "~/bin"]),
];

/// The login profiles read for those names: bash's, zsh's, fish's and the
/// Bourne shell's. (Debian's ~/.profile adds both folders when they exist.)
const PROFILES: &[&str] = &[
    ".profile",
    ".bash_profile",
    ".bash_login",
    ".bashrc",
    ".zprofile",
    ".zshenv",
    ".zshrc",
    ".config/fish/config.fish",
];

/// What the load did for login shells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "taw", rename_all = "snake_case")]
pub(crate) enum LoginPath {
    /// `link` points at taw's bin folder's taw (made now or before).
    Linked { link: String },
    /// A `taw` of the user's own is there already; taw left it alone.
    Theirs { path: String },
    /// No folder login shells keep was found: the user is told what to add.
    Nowhere { add: String },
    /// `@agent-wizard-login-link` is off.
    Off,
}

/// The folder of `home` that login shells keep on PATH: one that is on the
/// server's PATH already (the user's shell put it there), else one a
/// profile names.
pub(crate) fn kept_folder(home: &Path, server_path: &str, profiles: &[String]) -> Option<PathBuf> {
    let on_path = |folder: &Path| {
        server_path
            .split(':')
            .any(|entry| Path::new(entry) == folder)
    };
    let candidates = || {
        KEPT_FOLDERS
            .iter()
            .map(|(rel, names)| (home.join(rel), *names))
    };
    if let Some((folder, _)) = candidates().find(|(folder, _)| on_path(folder)) {
        return Some(folder);
    }
    candidates()
        .find(|(_, names)| {
            profiles
                .iter()
                .any(|text| names.iter().any(|name| text.contains(name)))
        })
        .map(|(folder, _)| folder)
}

/// Links `<folder>/taw` to `target` (taw's bin folder's link) in a folder
/// login shells keep, unless a taw of the user's is there.
pub(crate) fn ensure(home: &Path, server_path: &str, target: &Path) -> std::io::Result<LoginPath> {
    let profiles: Vec<String> = PROFILES
        .iter()
        .filter_map(|name| std::fs::read_to_string(home.join(name)).ok())
        .collect();
    let Some(folder) = kept_folder(home, server_path, &profiles) else {
        let dir = target.parent().unwrap_or(target);
        return Ok(LoginPath::Nowhere {
            add: format!("export PATH=\"{}:$PATH\"", dir.display()),
        });
    };
    let link = folder.join("taw");
    match std::fs::symlink_metadata(&link) {
        Ok(_) if std::fs::read_link(&link).is_ok_and(|to| to == target) => {}
        Ok(_) => {
            return Ok(LoginPath::Theirs {
                path: link.display().to_string(),
            });
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(&folder)?;
            super::place_link(&folder, target)?;
        }
        Err(error) => return Err(error),
    }
    Ok(LoginPath::Linked {
        link: link.display().to_string(),
    })
}

/// What the folders login shells keep hold now: the first `taw` there,
/// a link to `target` or someone else's; none when neither has one.
pub(crate) fn found(home: &Path, target: &Path) -> Option<LoginPath> {
    KEPT_FOLDERS.iter().find_map(|(rel, _)| {
        let link = home.join(rel).join("taw");
        std::fs::symlink_metadata(&link).ok()?;
        let path = link.display().to_string();
        Some(if std::fs::read_link(&link).is_ok_and(|to| to == target) {
            LoginPath::Linked { link: path }
        } else {
            LoginPath::Theirs { path }
        })
    })
}

/// Takes out the links to `target` that [`ensure`] made in the folders
/// login shells keep; anything else there (a `taw` of the user's) stays.
/// The links taken out.
pub(crate) fn remove(home: &Path, target: &Path) -> Vec<PathBuf> {
    KEPT_FOLDERS
        .iter()
        .map(|(rel, _)| home.join(rel).join("taw"))
        .filter(|link| std::fs::read_link(link).is_ok_and(|to| to == target))
        .filter(|link| std::fs::remove_file(link).is_ok())
        .collect()
}

/// The words of the one-time notice when no folder fits.
pub(crate) fn notice(add: &str) -> String {
    format!("new panes' login shells may not find taw; add `{add}` to your shell's profile")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home() -> PathBuf {
        PathBuf::from("/home/ann")
    }

    #[test]
    fn a_folder_on_the_servers_path_is_kept() {
        let path = "/usr/bin:/home/ann/bin:/bin";
        assert_eq!(
            kept_folder(&home(), path, &[]),
            Some(PathBuf::from("/home/ann/bin"))
        );
    }

    #[test]
    fn a_folder_a_profile_names_is_kept() {
        let debian = "if [ -d \"$HOME/bin\" ] ; then\n    PATH=\"$HOME/bin:$PATH\"\nfi\nif [ -d \"$HOME/.local/bin\" ] ; then\n    PATH=\"$HOME/.local/bin:$PATH\"\nfi\n".to_string();
        assert_eq!(
            kept_folder(&home(), "/usr/bin:/bin", &[debian]),
            Some(PathBuf::from("/home/ann/.local/bin"))
        );
        let zsh = "path=(~/bin $path)".to_string();
        assert_eq!(
            kept_folder(&home(), "/usr/bin", &[zsh]),
            Some(PathBuf::from("/home/ann/bin"))
        );
    }

    #[test]
    fn nothing_kept_is_none() {
        let other = "export EDITOR=vi\nPATH=/opt/x/bin:$PATH".to_string();
        assert_eq!(kept_folder(&home(), "/usr/bin:/bin", &[other]), None);
        // Another home's folder is not this one's.
        assert_eq!(kept_folder(&home(), "/home/bob/.local/bin", &[]), None);
    }

    #[test]
    fn a_link_is_made_once_and_a_users_taw_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join(".profile"), "PATH=\"$HOME/.local/bin:$PATH\"\n").unwrap();
        let target = dir.path().join("state/bin/taw");
        let made = ensure(&home, "/usr/bin", &target).unwrap();
        let link = home.join(".local/bin/taw");
        assert_eq!(
            made,
            LoginPath::Linked {
                link: link.display().to_string()
            }
        );
        assert_eq!(std::fs::read_link(&link).unwrap(), target);
        assert_eq!(ensure(&home, "/usr/bin", &target).unwrap(), made);

        std::fs::remove_file(&link).unwrap();
        std::fs::write(&link, "#!/bin/sh\n").unwrap();
        assert!(matches!(
            ensure(&home, "/usr/bin", &target).unwrap(),
            LoginPath::Theirs { .. }
        ));
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "#!/bin/sh\n");
        // An unload takes out only its own link.
        assert!(remove(&home, &target).is_empty());
        assert!(link.exists());
        std::fs::remove_file(&link).unwrap();
        ensure(&home, "/usr/bin", &target).unwrap();
        assert_eq!(remove(&home, &target), vec![link.clone()]);
        assert!(std::fs::symlink_metadata(&link).is_err());
    }

    #[test]
    fn with_no_folder_the_notice_names_taws_own() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("state/bin/taw");
        let LoginPath::Nowhere { add } = ensure(dir.path(), "/usr/bin", &target).unwrap() else {
            panic!("a folder was found");
        };
        assert!(add.contains(&dir.path().join("state/bin").display().to_string()));
        assert!(!dir.path().join(".local").exists());
    }
}
