//! Real git repositories the tests make: working ones for the worktree
//! verbs, and bare ones under `<dir>/gh` to install plugins from through
//! `TAW_GITHUB_URL`.
#![allow(clippy::disallowed_methods, dead_code)]

use super::TmuxServer;
use std::path::{Path, PathBuf};

/// `git <args>` in `dir`, as a test's author; its output. Panics when git
/// fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository `<dir>/src/<name>` with one commit on `main`, by its
/// real path.
pub fn repo(server: &TmuxServer, name: &str) -> PathBuf {
    let dir = server.dir.path().join("src").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("README"), "hello\n").unwrap();
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "first"]);
    dir.canonicalize().unwrap()
}

/// A bare repository `<dir>/gh/<owner>/<repo>.git` holding `files`, one
/// commit; the commit's id.
pub fn bare_repo(server: &TmuxServer, owner: &str, repo: &str, files: &[(&str, &str)]) -> String {
    let work = server.dir.path().join("src-repos").join(owner).join(repo);
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    for (name, text) in files {
        std::fs::write(work.join(name), text).unwrap();
    }
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "plugin"]);
    mirror_of(server, &work, owner, repo);
    git(&work, &["rev-parse", "HEAD"])
}

/// A bare clone of `source` (a repository or a bundle) at
/// `<dir>/gh/<owner>/<repo>.git`, where [`mirror`] serves it as GitHub
/// would, in place of any earlier one: its HEAD commit.
pub fn mirror_of(server: &TmuxServer, source: &Path, owner: &str, repo: &str) -> String {
    let bare = server
        .dir
        .path()
        .join("gh")
        .join(owner)
        .join(format!("{repo}.git"));
    let _ = std::fs::remove_dir_all(&bare);
    std::fs::create_dir_all(bare.parent().unwrap()).unwrap();
    git(
        server.dir.path(),
        &[
            "clone",
            "-q",
            "--bare",
            source.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    git(&bare, &["rev-parse", "HEAD"])
}

pub fn mirror(server: &TmuxServer) -> String {
    format!("file://{}", server.dir.path().join("gh").display())
}
