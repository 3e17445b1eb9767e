//! Folders for sessions (`taw session open`, `taw open`, the popup's
//! new-session picker): a directory as a session's path, the names it may
//! get per `[sessions] name`, the create hooks, and the folders the picker
//! offers. `ops::session` opens the session.

use crate::config::Config;
use crate::envelope::{Result, TawError};
use crate::exec::{Failure, Program};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The home folder, for `~` in names and messages.
fn home() -> String {
    std::env::var("HOME").unwrap_or_default()
}

/// `~/x` for a path in the home folder.
pub(crate) fn tilde(path: &Path) -> String {
    let text = path.display().to_string();
    let home = home();
    match text.strip_prefix(&home) {
        Some(rest) if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            format!("~{rest}")
        }
        _ => text,
    }
}

/// A directory as a session's path: absolute, `~` expanded, links resolved.
pub(crate) fn resolve_dir(text: &str) -> Result<PathBuf> {
    let expanded = match text.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{}{rest}", home()),
        _ => text.to_string(),
    };
    let path = PathBuf::from(&expanded);
    let path = if path.is_absolute() {
        path
    } else {
        std::env::current_dir()
            .map_err(|_| {
                TawError::invalid_argument(
                    "the current directory cannot be read; give a path from / or ~",
                )
            })?
            .join(path)
    };
    let canonical = path
        .canonicalize()
        .map_err(|_| TawError::not_found(format!("no directory {}", tilde(&path))))?;
    if !canonical.is_dir() {
        return Err(TawError::invalid_argument(format!(
            "{} is not a directory",
            tilde(&canonical)
        )));
    }
    Ok(canonical)
}

/// The names a directory may get, shortest first, per `[sessions] name`:
/// `directory` (`api`, then `work/api`, `src/work/api`...), `full-path`
/// (`~/src/work/api`) or `short-path` (`~/s/w/api`).
pub(crate) fn candidate_names(dir: &Path, style: &str) -> Vec<String> {
    let shown = tilde(dir);
    let parts: Vec<&str> = shown.split('/').filter(|p| !p.is_empty()).collect();
    let names: Vec<String> = match style {
        "full-path" => vec![shown.clone()],
        "short-path" => {
            let last = parts.len().saturating_sub(1);
            let short: Vec<String> = parts
                .iter()
                .enumerate()
                .map(|(i, part)| {
                    if i == last || *part == "~" {
                        part.to_string()
                    } else {
                        part.chars().next().map(String::from).unwrap_or_default()
                    }
                })
                .collect();
            let prefix = if shown.starts_with('/') { "/" } else { "" };
            vec![format!("{prefix}{}", short.join("/")), shown.clone()]
        }
        _ => (1..=parts.len().max(1))
            .map(|n| parts[parts.len().saturating_sub(n)..].join("/"))
            .collect(),
    };
    let mut names: Vec<String> = names
        .into_iter()
        .map(|n| crate::tmux::arrange::session_name(if n.is_empty() { "/" } else { &n }))
        .collect();
    names.dedup();
    names
}

/// Runs a create hook as `<hook> <session> <dir>`, for at most `limit`
/// (none when zero). An error says why it refused.
pub(crate) fn run_hook(
    hook: &str,
    session: &str,
    dir: &Path,
    limit: Duration,
) -> std::result::Result<(), String> {
    let words = shell_words::split(hook).map_err(|e| format!("cannot be read: {e}"))?;
    // No shell runs it: `~/` is made the home, as a shell would.
    let mut words: Vec<std::path::PathBuf> = words
        .iter()
        .map(|word| crate::paths::expand_home(word))
        .collect();
    if words.is_empty() {
        return Ok(());
    }
    let program = words.remove(0);
    let output = Program::new(&program)
        .args(&words)
        .arg(session)
        .arg(dir)
        .current_dir(dir)
        .limit((!limit.is_zero()).then_some(limit))
        .discard_stdout()
        // What it says is read as it says it, so a chatty hook never
        // fills the pipe and stalls; its last 16 KiB are kept.
        .stderr_tail(16 * 1024)
        .output()
        .map_err(|failure| match failure {
            Failure::TimedOut(_) => format!(
                "took longer than [sessions] hook_timeout_seconds ({} s)",
                limit.as_secs_f64()
            ),
            Failure::NotFound => "could not be run: no such program".to_string(),
            other => other.describe("it"),
        })?;
    if output.status.success() {
        return Ok(());
    }
    // One line: what it said, its lines joined.
    let said = String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    Err(match output.status.code() {
        Some(code) if said.is_empty() => format!("exited with status {code}"),
        Some(code) => format!("exited with status {code}: {said}"),
        None => "was killed".into(),
    })
}

pub(crate) fn hook_limit(config: &Config) -> Duration {
    Duration::from_secs_f64(
        config
            .get(&crate::config::schema::SESSIONS_HOOK_TIMEOUT_SECONDS)
            .max(0.0),
    )
}

/// Directories for the new-session picker: zoxide's (when `[sessions]
/// zoxide`), the folders in `[sessions] project_dirs`, and, for a query
/// that is a path, the folders it completes to; fuzzy-ranked by the query.
pub(crate) fn directories(config: &Config, query: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let query = query.trim();
    let looks_like_path =
        query.starts_with('/') || query.starts_with('~') || query.starts_with('.');
    if looks_like_path {
        found.extend(complete(query));
    }
    if config.get(&crate::config::schema::SESSIONS_ZOXIDE)
        && let Ok(output) = Program::new("zoxide").args(["query", "-l"]).output()
    {
        found.extend(
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(|l| tilde(Path::new(l))),
        );
    }
    for root in config.get(&crate::config::schema::SESSIONS_PROJECT_DIRS) {
        let root = match root.strip_prefix('~') {
            Some(rest) => format!("{}{rest}", home()),
            None => root,
        };
        if let Ok(entries) = std::fs::read_dir(&root) {
            let mut dirs: Vec<String> = entries
                .flatten()
                .filter(|e| e.path().is_dir())
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| tilde(&e.path()))
                .collect();
            dirs.sort();
            found.extend(dirs);
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|d| seen.insert(d.clone()));
    if looks_like_path || query.is_empty() {
        return found;
    }
    rank(&found, query)
}

/// The folders a path typed so far completes to.
fn complete(typed: &str) -> Vec<String> {
    let expanded = match typed.strip_prefix('~') {
        Some(rest) => format!("{}{rest}", home()),
        None => typed.to_string(),
    };
    let (parent, start) = match expanded.rfind('/') {
        Some(at) => (&expanded[..=at], &expanded[at + 1..]),
        None => ("./", expanded.as_str()),
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut dirs: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            (name.starts_with(start) && (!name.starts_with('.') || start.starts_with('.')))
                .then(|| tilde(&Path::new(parent).join(&name)))
        })
        .collect();
    dirs.sort();
    dirs
}

/// Ranks `items` against `query` as fzf does; items that do not match go.
pub(crate) fn rank(items: &[String], query: &str) -> Vec<String> {
    use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
    use nucleo_matcher::{Matcher, Utf32Str};
    let mut matcher = Matcher::new(nucleo_matcher::Config::DEFAULT.match_paths());
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut buffer = Vec::new();
    let mut scored: Vec<(u32, usize)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            Some((
                pattern.score(Utf32Str::new(item, &mut buffer), &mut matcher)?,
                i,
            ))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| items[i].clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_for_a_directory() {
        let dir = Path::new("/srv/oss/api.v2");
        assert_eq!(
            candidate_names(dir, "directory"),
            ["api_v2", "oss/api_v2", "srv/oss/api_v2"]
        );
        assert_eq!(candidate_names(dir, "full-path"), ["/srv/oss/api_v2"]);
        assert_eq!(
            candidate_names(dir, "short-path"),
            ["/s/o/api_v2", "/srv/oss/api_v2"]
        );
    }

    #[test]
    fn ranking_is_fuzzy() {
        let items = vec![
            "~/src/web".to_string(),
            "~/src/api".into(),
            "~/work/apps".into(),
        ];
        assert_eq!(rank(&items, "api"), ["~/src/api"]);
        assert_eq!(rank(&items, "wa").len(), 1);
    }
}
