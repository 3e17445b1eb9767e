//! Real git repositories the tests make: bare ones under `<dir>/gh` to
//! install plugins from through `TAW_GITHUB_URL`.
#![allow(dead_code)]

use super::TmuxServer;
use std::path::Path;

/// A bare repository `<dir>/gh/<owner>/<repo>.git` holding `files`, one
/// commit; the commit's id.
pub fn bare_repo(server: &TmuxServer, owner: &str, repo: &str, files: &[(&str, &str)]) -> String {
    let work = server.dir.path().join("src-repos").join(owner).join(repo);
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    for (name, text) in files {
        std::fs::write(work.join(name), text).unwrap();
    }
    let git = |dir: &Path, args: &[&str]| {
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
    };
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "plugin"]);
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
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    git(&work, &["rev-parse", "HEAD"])
}

pub fn mirror(server: &TmuxServer) -> String {
    format!("file://{}", server.dir.path().join("gh").display())
}
