//! git, run as an argv through the one door for programs (`exec.rs`),
//! with a time limit and no prompt: the plugin installs, the popup's branch
//! line and the worktree verbs all come here. What git prints is parsed
//! here too, by pure functions with their tests.

use crate::envelope::{Result, TawError};
use crate::exec::{Failure, Program};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one git command may run (a clone of a plugin included).
pub(crate) const LIMIT: Duration = Duration::from_secs(120);

/// What one git run printed, and whether it succeeded.
#[derive(Debug, Clone)]
pub(crate) struct Ran {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// git's own last word on a failure (its last line of stderr).
    pub(crate) fn said(&self) -> String {
        self.stderr
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string()
    }
}

/// Runs `git <args>` in `dir`; an error only when git could not be run.
pub(crate) fn run_in(dir: &Path, args: &[&str], limit: Duration) -> Result<Ran> {
    let output = Program::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .limit(Some(limit))
        .output()
        .map_err(|failure| match failure {
            Failure::NotFound => TawError::io("git is not installed or not on PATH"),
            other => TawError::io(other.describe("git")),
        })?;
    Ok(Ran {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// Runs `git <args>` in `dir` and answers its output; a failure is an
/// `io_error` that quotes git.
pub(crate) fn output_in(dir: &Path, args: &[&str]) -> Result<String> {
    output_within(dir, args, LIMIT)
}

/// [`output_in`] with a time limit of its own (a plugin's clone).
pub(crate) fn output_within(dir: &Path, args: &[&str], limit: Duration) -> Result<String> {
    let ran = run_in(dir, args, limit)?;
    if ran.ok {
        return Ok(ran.stdout);
    }
    Err(TawError::io(format!(
        "git {} failed: {}",
        args.first().copied().unwrap_or(""),
        ran.said()
    )))
}

/// A repository, as its worktrees share it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repo {
    /// The main worktree's folder (the bare repository's, for a bare one).
    pub root: PathBuf,
    /// The git folder every worktree shares: what the repository is.
    pub common_dir: PathBuf,
    /// The checkout `dir` is in.
    pub checkout: PathBuf,
}

impl Repo {
    /// The repository's name: its main folder's.
    pub(crate) fn name(&self) -> String {
        self.root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "repo".into())
    }

    /// What tells the repository apart from every other: its shared git
    /// folder.
    pub(crate) fn key(&self) -> String {
        self.common_dir.display().to_string()
    }
}

/// The repository `dir` is in, or `None` when it is in none.
pub(crate) fn repo_of(dir: &Path) -> Result<Option<Repo>> {
    let ran = run_in(
        dir,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--git-common-dir",
            "--show-toplevel",
        ],
        LIMIT,
    )?;
    if !ran.ok {
        return Ok(None);
    }
    let mut lines = ran.stdout.lines();
    let Some(common) = lines.next().map(PathBuf::from) else {
        return Ok(None);
    };
    let checkout = lines
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| common.clone());
    // The main worktree is the first git lists.
    let listed = output_in(dir, &["worktree", "list", "--porcelain", "-z"])?;
    let root = parse_worktrees(&listed)
        .first()
        .map(|w| w.path.clone())
        .unwrap_or_else(|| checkout.clone());
    Ok(Some(Repo {
        root,
        common_dir: common,
        checkout,
    }))
}

/// One worktree, as `git worktree list --porcelain -z` says it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Worktree {
    pub path: PathBuf,
    /// The branch checked out, without `refs/heads/`.
    pub branch: Option<String>,
    pub bare: bool,
    pub detached: bool,
    pub prunable: bool,
    pub locked: bool,
}

/// Parses `git worktree list --porcelain -z`: records of NUL-ended
/// attribute lines, each record ended by an empty one. The first is the
/// main worktree.
pub(crate) fn parse_worktrees(text: &str) -> Vec<Worktree> {
    let mut found = Vec::new();
    let mut current: Option<Worktree> = None;
    for field in text.split('\0') {
        if field.is_empty() {
            found.extend(current.take());
            continue;
        }
        let (name, value) = field.split_once(' ').unwrap_or((field, ""));
        match name {
            "worktree" => {
                found.extend(current.take());
                current = Some(Worktree {
                    path: PathBuf::from(value),
                    ..Worktree::default()
                });
            }
            "branch" => {
                if let Some(w) = current.as_mut() {
                    w.branch = Some(value.strip_prefix("refs/heads/").unwrap_or(value).into());
                }
            }
            "bare" => current.iter_mut().for_each(|w| w.bare = true),
            "detached" => current.iter_mut().for_each(|w| w.detached = true),
            "prunable" => current.iter_mut().for_each(|w| w.prunable = true),
            "locked" => current.iter_mut().for_each(|w| w.locked = true),
            _ => {}
        }
    }
    found.extend(current);
    found
}

/// The worktrees of the repository `dir` is in, the main one first.
pub(crate) fn worktrees(dir: &Path) -> Result<Vec<Worktree>> {
    Ok(parse_worktrees(&output_in(
        dir,
        &["worktree", "list", "--porcelain", "-z"],
    )?))
}

/// Whether git takes `name` as a branch name (`git check-ref-format
/// --branch`); git's words when it does not.
pub(crate) fn check_branch(dir: &Path, name: &str) -> Result<std::result::Result<(), String>> {
    if name.starts_with('-') {
        return Ok(Err("a branch name cannot begin with '-'".into()));
    }
    let ran = run_in(dir, &["check-ref-format", "--branch", name], LIMIT)?;
    Ok(if ran.ok && ran.stdout.trim() == name {
        Ok(())
    } else {
        Err(ran.said())
    })
}

/// Whether the local branch `name` exists.
pub(crate) fn has_branch(dir: &Path, name: &str) -> Result<bool> {
    let reference = format!("refs/heads/{name}");
    Ok(run_in(dir, &["show-ref", "--verify", "--quiet", &reference], LIMIT)?.ok)
}

/// Why a checkout is not clean, in words: modified or untracked files, or
/// submodules (which `git worktree remove` refuses to take without
/// `--force`). `None` when it is clean.
pub(crate) fn dirt(checkout: &Path) -> Result<Option<String>> {
    let status = output_in(
        checkout,
        &[
            "status",
            "--porcelain=v1",
            "--untracked-files=all",
            "--ignore-submodules=none",
        ],
    )?;
    let changed = status.lines().filter(|l| !l.trim().is_empty()).count();
    if changed > 0 {
        return Ok(Some(format!(
            "{changed} modified or untracked file{}",
            if changed == 1 { "" } else { "s" }
        )));
    }
    if checkout.join(".gitmodules").exists() {
        return Ok(Some("submodules".into()));
    }
    Ok(None)
}

/// A branch name as one folder name: `feat/x` is `feat-x`; anything but
/// letters, digits, `-`, `_` and `.` becomes `-`, and no name is `.` or
/// `..` or starts with a dot.
pub(crate) fn branch_slug(branch: &str) -> String {
    let mut slug: String = branch
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    while slug.starts_with('.') {
        slug.replace_range(0..1, "-");
    }
    if slug.is_empty() {
        slug.push('-');
    }
    slug
}

/// A session folder's checkout, as `git status --branch` tells it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub(crate) struct Status {
    pub branch: String,
    pub dirty: bool,
    pub ahead: u32,
    pub behind: u32,
}

impl Status {
    /// `main*`: the branch, `*` when the checkout has changes.
    pub(crate) fn short(&self) -> String {
        format!("{}{}", self.branch, if self.dirty { "*" } else { "" })
    }

    /// `↑1 ↓2`: commits ahead of and behind its upstream, when not zero.
    pub(crate) fn counts(&self) -> String {
        let mut parts = Vec::new();
        if self.ahead > 0 {
            parts.push(format!("↑{}", self.ahead));
        }
        if self.behind > 0 {
            parts.push(format!("↓{}", self.behind));
        }
        parts.join(" ")
    }

    /// Reads `git status --porcelain=v1 --branch` output.
    pub(crate) fn parse(text: &str) -> Option<Status> {
        let mut lines = text.lines();
        let head = lines.next()?.strip_prefix("## ")?;
        let (names, tracking) = match head.split_once(" [") {
            Some((names, rest)) => (names, rest.trim_end_matches(']')),
            None => (head, ""),
        };
        let branch = names
            .split("...")
            .next()
            .unwrap_or(names)
            .trim_start_matches("No commits yet on ")
            .to_string();
        let count = |word: &str| {
            tracking
                .split(", ")
                .find_map(|part| part.strip_prefix(word))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0)
        };
        Some(Status {
            branch,
            dirty: lines.next().is_some(),
            ahead: count("ahead "),
            behind: count("behind "),
        })
    }

    /// The checkout at `path`; none where git cannot tell within `limit`.
    pub(crate) fn read(path: &Path, limit: Duration) -> Option<Status> {
        let ran = run_in(
            path,
            &[
                "status",
                "--porcelain=v1",
                "--branch",
                "--untracked-files=no",
            ],
            limit,
        )
        .ok()?;
        if !ran.ok {
            return None;
        }
        Status::parse(&ran.stdout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worktree_lists() {
        let text = "worktree /src/api\0HEAD 1a2b\0branch refs/heads/main\0\0worktree /wt/api/feat-x\0HEAD 3c4d\0branch refs/heads/feat/x\0locked\0\0worktree /wt/api/old\0HEAD 5e6f\0detached\0prunable gitdir file points to non-existent location\0\0";
        let found = parse_worktrees(text);
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].path, PathBuf::from("/src/api"));
        assert_eq!(found[0].branch.as_deref(), Some("main"));
        assert_eq!(found[1].branch.as_deref(), Some("feat/x"));
        assert!(found[1].locked && !found[1].detached);
        assert!(found[2].detached && found[2].prunable && found[2].branch.is_none());
        let bare = parse_worktrees("worktree /srv/repo.git\0bare\0\0");
        assert!(bare[0].bare);
        assert!(parse_worktrees("").is_empty());
    }

    #[test]
    fn branch_slugs() {
        assert_eq!(branch_slug("feat/x"), "feat-x");
        assert_eq!(branch_slug("fix-1.2"), "fix-1.2");
        assert_eq!(branch_slug("../../etc"), "-.-..-etc");
        assert_eq!(branch_slug(".hidden"), "-hidden");
        assert_eq!(branch_slug("a b;c"), "a-b-c");
    }

    #[test]
    fn status_headers() {
        let git =
            Status::parse("## main...origin/main [ahead 2, behind 1]\n M src/x.rs\n").unwrap();
        assert_eq!(
            (git.short(), git.counts()),
            ("main*".into(), "↑2 ↓1".into())
        );
        let git = Status::parse("## No commits yet on trunk\n").unwrap();
        assert_eq!((git.short(), git.counts()), ("trunk".into(), String::new()));
        assert!(Status::parse("fatal").is_none());
    }
}
