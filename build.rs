//! Gives `taw --version` the commit of a build from a git checkout of this
//! repository (`TAW_COMMIT`, empty for a build from a crate or an archive).

use std::path::{Path, PathBuf};
use std::process::Command;

// A build script runs before the crate it builds: taw's own choke point
// for processes (crate::exec) is not there yet.
#[allow(clippy::disallowed_methods)]
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    // Only this repository's own checkout: a crate unpacked inside some
    // other repository (cargo package's check, a vendored copy) has none.
    let own_checkout = git(&manifest_dir, &["rev-parse", "--show-toplevel"])
        .and_then(|top| std::fs::canonicalize(top).ok())
        .is_some_and(|top| Some(top) == std::fs::canonicalize(&manifest_dir).ok());
    let commit = if own_checkout {
        git(&manifest_dir, &["rev-parse", "--short=12", "HEAD"]).unwrap_or_default()
    } else {
        String::new()
    };
    println!("cargo:rustc-env=TAW_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    if !own_checkout {
        return;
    }
    // A new commit moves HEAD, or the branch HEAD names.
    if let Some(git_dir) = git(&manifest_dir, &["rev-parse", "--absolute-git-dir"]) {
        let git_dir = PathBuf::from(git_dir);
        let mut watched = vec![git_dir.join("HEAD"), git_dir.join("packed-refs")];
        if let Some(branch) = git(&manifest_dir, &["symbolic-ref", "-q", "HEAD"]) {
            watched.push(git_dir.join(branch));
        }
        // A path that is not there would run this script at every build.
        for path in watched.iter().filter(|path| path.exists()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
