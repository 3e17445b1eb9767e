//! `taw plugin install <owner>/<repo>[/subdir]`: a GitHub plugin fetched
//! into a folder of its own commit, `plugins/github/<owner>/<repo>@<12
//! hex>` under the state folder, shown (the trust preview), built only
//! once you say yes, and registered. A built tree is never moved. GitHub
//! is `https://github.com`, or `TAW_GITHUB_URL` (a mirror; the tests'
//! `file://` folder of bare repositories).

use super::manifest::{self, Manifest};
use super::registry::{self, Entry, Source};
use super::{env, run};
use crate::envelope::{ErrorCode, Result, TawError};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest a git call may take (a fetch of a large repository).
const GIT_LIMIT: Duration = Duration::from_secs(300);

/// The longest a build command may run.
const BUILD_LIMIT: Duration = Duration::from_secs(1800);

/// What `install` was asked for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    pub owner: String,
    pub repo: String,
    pub subdir: Option<String>,
    /// A branch, a tag, or a full commit (a pin); None: the default branch.
    pub git_ref: Option<String>,
}

/// Reads `owner/repo[/subdir...][@<40-hex>]`: GitHub's shorthand only.
pub(crate) fn parse_source(text: &str, git_ref: Option<&str>) -> Result<Request> {
    let bad = |why: &str| {
        TawError::new(
            ErrorCode::InvalidPluginSource,
            format!("{text:?}: {why}; give owner/repo (or owner/repo/subdir), as on GitHub"),
        )
    };
    if text.contains(':') {
        return Err(bad("a URL or a host is not taken"));
    }
    let (path, pin) = match text.split_once('@') {
        Some((path, pin)) => (path, Some(pin.to_string())),
        None => (text, None),
    };
    if pin.is_some() && git_ref.is_some() {
        return Err(bad("both @<commit> and --ref"));
    }
    if let Some(git_ref) = git_ref
        && (git_ref.is_empty()
            || git_ref.starts_with('-')
            || git_ref.chars().any(|c| c.is_whitespace() || c.is_control()))
    {
        return Err(TawError::new(
            ErrorCode::InvalidPluginSource,
            format!("--ref {git_ref:?}: a branch, a tag or a commit"),
        ));
    }
    if let Some(pin) = &pin
        && !is_full_commit(pin)
    {
        return Err(TawError::new(
            ErrorCode::InvalidPluginSource,
            format!("@{pin}: give the full 40-character commit, or a branch or tag with --ref"),
        ));
    }
    let segments: Vec<&str> = path.split('/').collect();
    if segments.len() < 2 {
        return Err(bad("no repository"));
    }
    let valid = |s: &&str| {
        !s.is_empty()
            && *s != "."
            && *s != ".."
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    };
    if !segments.iter().all(valid) {
        return Err(bad("each part is letters, digits and `. _ -`"));
    }
    Ok(Request {
        owner: segments[0].to_string(),
        repo: segments[1].to_string(),
        subdir: (segments.len() > 2).then(|| segments[2..].join("/")),
        git_ref: pin.or_else(|| git_ref.map(str::to_string)),
    })
}

fn is_full_commit(text: &str) -> bool {
    text.len() == 40 && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// 7 to 39 hex characters: what a short commit looks like.
fn looks_like_short_commit(text: &str) -> bool {
    (7..40).contains(&text.len()) && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// Where GitHub is.
fn github_base() -> String {
    std::env::var("TAW_GITHUB_URL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "https://github.com".into())
        .trim_end_matches('/')
        .to_string()
}

fn clone_url(request: &Request) -> String {
    format!("{}/{}/{}.git", github_base(), request.owner, request.repo)
}

/// The folder of one repository's commits.
fn repo_dir(request: &Request) -> PathBuf {
    registry::plugins_dir().join("github").join(&request.owner)
}

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    crate::git::output_within(dir, args, GIT_LIMIT)
}

/// What the trust preview shows: every command that will run.
pub(crate) fn preview(manifest: &Manifest, source: &str, commit: &str) -> String {
    let mut lines = vec![
        format!(
            "Plugin {} ({} {})",
            manifest.plugin_id, manifest.name, manifest.version
        ),
        format!("  source: {source}"),
        format!("  commit: {commit}"),
        format!(
            "  {} build, {} startup, {} actions, {} event hooks, {} panes, {} link handlers",
            manifest.build.len(),
            manifest.startup.len(),
            manifest.actions.len(),
            manifest.events.len(),
            manifest.panes.len(),
            manifest.link_handlers.len()
        ),
    ];
    let words = |argv: &[String]| shell_words::join(argv);
    for command in &manifest.build {
        lines.push(format!("  build:   {}", words(&command.command)));
    }
    for command in &manifest.startup {
        lines.push(format!("  startup: {}", words(&command.command)));
    }
    for action in &manifest.actions {
        lines.push(format!(
            "  action {}: {}",
            action.id,
            words(&action.command)
        ));
    }
    for hook in &manifest.events {
        lines.push(format!("  on {}: {}", hook.on, words(&hook.command)));
    }
    for pane in &manifest.panes {
        lines.push(format!("  pane {}: {}", pane.id, words(&pane.command)));
    }
    for warning in &manifest.warnings {
        lines.push(format!("  warning: {warning}"));
    }
    lines
        .iter()
        .map(|line| visible(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text as it can be shown on a terminal: a control character (an escape
/// sequence, a carriage return that would draw over what came before) is
/// written as `\u{1b}` and the like, so the preview shows every byte that
/// will run and hides none.
pub(crate) fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// How a person answered the preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Consent {
    /// `--yes`.
    Given,
    /// Ask on the terminal.
    Ask,
}

/// Why an install stopped with no envelope: the person said no, or there
/// is nobody to ask.
#[derive(Debug)]
pub(crate) enum Stopped {
    Declined,
    NoTerminal,
    Failed(TawError),
}

impl From<TawError> for Stopped {
    fn from(error: TawError) -> Stopped {
        Stopped::Failed(error)
    }
}

fn ask(preview: &str) -> std::result::Result<bool, Stopped> {
    use std::io::{BufRead, IsTerminal, Write};
    eprintln!("{preview}");
    if !std::io::stdin().is_terminal() {
        return Err(Stopped::NoTerminal);
    }
    eprint!("Install this plugin? [y/N] ");
    // Unflushed, the question may show late; it is still asked.
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    // An answer that cannot be read is left empty: a no.
    let _ = std::io::stdin().lock().read_line(&mut answer);
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
}

/// Installs a plugin; on any stop, the folder this run made goes.
pub(crate) fn install(
    request: &Request,
    consent: Consent,
    updating: Option<&str>,
) -> std::result::Result<registry::PluginInfo, Stopped> {
    let dir = repo_dir(request);
    crate::paths::make_private_dir(&dir)
        .map_err(|e| TawError::io(format!("cannot make {}: {e}", dir.display())))?;
    clean_leftovers(&dir, &request.repo)?;
    let url = clone_url(request);
    // A ref that looks like a short commit and that the remote does not
    // name is refused before any fetch.
    if let Some(git_ref) = &request.git_ref
        && looks_like_short_commit(git_ref)
    {
        let named = git(&dir, &["ls-remote", "--", &url, git_ref])?;
        if named.trim().is_empty() {
            return Err(TawError::new(
                ErrorCode::InvalidPluginSource,
                format!("{git_ref}: give the full 40-character commit, or a branch or tag"),
            )
            .into());
        }
    }
    let fetching = dir.join(format!(".fetch-{}@{}", request.repo, std::process::id()));
    let made = fetch(&fetching, &url, request.git_ref.as_deref())
        .and_then(|commit| place(&dir, &request.repo, &fetching, &commit).map(|f| (f, commit)));
    let (folder, commit) = match made {
        Ok(made) => made,
        Err(error) => {
            // Best effort: the fetch's error is the one to tell.
            let _ = std::fs::remove_dir_all(&fetching);
            return Err(error.into());
        }
    };
    let outcome = finish(request, consent, &folder, &commit, updating);
    if outcome.is_err() {
        // Best effort: why the install stopped is the one to tell, and the
        // next install clears a folder no record names.
        let _ = std::fs::remove_dir_all(&folder);
    }
    outcome
}

/// The rest of an install, once the plugin is in `folder` at `commit`:
/// the manifest checked and shown, consent, the build, the record.
fn finish(
    request: &Request,
    consent: Consent,
    folder: &Path,
    commit: &str,
    updating: Option<&str>,
) -> std::result::Result<registry::PluginInfo, Stopped> {
    let root = match &request.subdir {
        Some(subdir) => folder.join(subdir),
        None => folder.to_path_buf(),
    };
    // A subdir that is a link out of the fetched commit would make another
    // folder the plugin's.
    let real = |path: &Path| std::fs::canonicalize(path).ok();
    if request.subdir.is_some()
        && let (Some(fetched), Some(real_root)) = (real(folder), real(&root))
        && !real_root.starts_with(&fetched)
    {
        return Err(TawError::new(
            ErrorCode::InvalidPluginManifestPath,
            format!(
                "{} leads out of the fetched repository {}: a plugin is refused whose folder is not its own",
                root.display(),
                folder.display()
            ),
        )
        .into());
    }
    let manifest_path = root.join(manifest::FILE_NAME);
    let manifest = manifest::load(&manifest_path, &registry::compat_version())?;
    super::check_within(&manifest_path, &manifest)?;
    let id = manifest.plugin_id.clone();
    refuse_if_linked(&id)?;
    refuse_if_another(&id, request, updating)?;
    let shown = preview(&manifest, &source_words(request), commit);
    match consent {
        Consent::Given => eprintln!("{shown}"),
        Consent::Ask => {
            if !ask(&shown)? {
                return Err(Stopped::Declined);
            }
        }
    }
    let entry = github_entry(request, &id, &manifest_path, &root, folder, commit);
    let plugin = registry::PluginInfo {
        manifest: manifest.clone(),
        manifest_path: entry.manifest_path.clone(),
        plugin_root: entry.plugin_root.clone(),
        enabled: true,
        source: entry.source.clone(),
    };
    build(&plugin)?;
    // The build may not change what was shown.
    let after = manifest::load(&manifest_path, &registry::compat_version())?;
    if after != manifest {
        return Err(TawError::new(
            ErrorCode::PluginBuildFailed,
            "the build changed herdr-plugin.toml: what was shown is not what would run",
        )
        .into());
    }
    // What the build made is checked as what came with it.
    super::check_within(&manifest_path, &after)?;
    registry::config_dir(&id)?;
    registry::state_dir(&id)?;
    register_in_place_of_earlier(entry, &id, folder)?;
    Ok(registry::plugin(&id).unwrap_or(plugin))
}

/// A plugin linked from a folder is not replaced by an install.
fn refuse_if_linked(id: &str) -> Result<()> {
    if registry::entries()?
        .iter()
        .any(|e| e.plugin_id == id && e.source.kind == "local")
    {
        return Err(TawError::new(
            ErrorCode::InvalidPluginSource,
            format!("{id} is linked from a folder; `taw plugin unlink {id}` first"),
        ));
    }
    Ok(())
}

/// An install must not take another plugin's place: its id may be one
/// installed from another repository (whose record and folder it would
/// replace), and an update must keep the id it updates (else both would
/// run, the old one never updated again).
fn refuse_if_another(id: &str, request: &Request, updating: Option<&str>) -> Result<()> {
    if let Some(was) = updating
        && was != id
    {
        return Err(TawError::new(
            ErrorCode::InvalidPluginSource,
            format!(
                "the update's manifest names the id {id}, not {was}: `taw plugin uninstall {was}`, then install {id}"
            ),
        ));
    }
    // GitHub's names ignore case.
    let named = |given: &Option<String>, asked: &str| {
        given
            .as_deref()
            .is_some_and(|g| g.eq_ignore_ascii_case(asked))
    };
    let same = |e: &Entry| {
        named(&e.source.owner, &request.owner)
            && named(&e.source.repo, &request.repo)
            && e.source.subdir == request.subdir
    };
    if let Some(other) = registry::entries()?
        .iter()
        .find(|e| e.plugin_id == id && e.source.kind == "github" && !same(e))
    {
        return Err(TawError::new(
            ErrorCode::InvalidPluginSource,
            format!(
                "{id} is installed from github:{}/{}{}; `taw plugin uninstall {id}` first",
                other.source.owner.as_deref().unwrap_or_default(),
                other.source.repo.as_deref().unwrap_or_default(),
                other
                    .source
                    .subdir
                    .as_deref()
                    .map(|s| format!("/{s}"))
                    .unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

/// Where the plugin comes from, as the preview says it:
/// `github:owner/repo/subdir (ref r)`.
fn source_words(request: &Request) -> String {
    format!(
        "github:{}/{}{}{}",
        request.owner,
        request.repo,
        request
            .subdir
            .as_ref()
            .map(|s| format!("/{s}"))
            .unwrap_or_default(),
        request
            .git_ref
            .as_ref()
            .map(|r| format!(" (ref {r})"))
            .unwrap_or_default()
    )
}

/// The registry's record of a plugin installed from GitHub.
fn github_entry(
    request: &Request,
    id: &str,
    manifest_path: &Path,
    root: &Path,
    folder: &Path,
    commit: &str,
) -> Entry {
    Entry {
        plugin_id: id.to_string(),
        manifest_path: manifest_path.display().to_string(),
        plugin_root: root.display().to_string(),
        enabled: true,
        source: Source {
            kind: "github".into(),
            owner: Some(request.owner.clone()),
            repo: Some(request.repo.clone()),
            subdir: request.subdir.clone(),
            requested_ref: request.git_ref.clone(),
            resolved_commit: Some(commit.to_string()),
            managed_path: Some(folder.display().to_string()),
            installed_unix_ms: Some(crate::clock::now_ms()),
        },
    }
}

/// Registers `entry`; then the folder an earlier install of this plugin
/// used goes, unless another record still names it. Folders are told
/// apart by what they are on disk, so `Owner/repo` and `owner/repo` are
/// one folder where the disk ignores case. Nothing after the registration
/// fails the install: the record names this folder now, and it must stay.
fn register_in_place_of_earlier(entry: Entry, id: &str, folder: &Path) -> Result<()> {
    let earlier = registry::entries()?
        .into_iter()
        .find(|e| e.plugin_id == id)
        .and_then(|e| e.source.managed_path)
        .filter(|p| !same_folder(Path::new(p), folder));
    registry::register(entry)?;
    if let Some(earlier) = earlier
        && !registry::entries().unwrap_or_default().iter().any(|e| {
            e.source
                .managed_path
                .as_deref()
                .is_some_and(|p| same_folder(Path::new(p), Path::new(&earlier)))
        })
    {
        // A folder left is only disk space: the install stands.
        let _ = std::fs::remove_dir_all(&earlier);
    }
    Ok(())
}

/// Whether two paths are one folder on disk (by file identity; two paths
/// that do not exist are compared as written).
fn same_folder(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => a == b,
    }
}

/// Runs the `[[build]]` commands in order; the first that fails stops the
/// install with `plugin_build_failed` and the last lines it printed.
fn build(plugin: &registry::PluginInfo) -> Result<()> {
    for command in &plugin.manifest.build {
        if !manifest::runs_here(&command.platforms, &plugin.manifest.platforms) {
            continue;
        }
        let invocation = env::Invocation {
            event: "build".into(),
            ..env::Invocation::default()
        };
        let record = run::run(
            plugin,
            &command.command,
            &invocation,
            None,
            Some(BUILD_LIMIT),
        );
        if record.status != "succeeded" {
            let printed = format!(
                "{}{}",
                record.stdout.unwrap_or_default(),
                record.stderr.unwrap_or_default()
            );
            let tail: Vec<&str> = printed.lines().rev().take(20).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            let why = record
                .error
                .or_else(|| record.exit_code.map(|c| format!("exit status {c}")))
                .unwrap_or_else(|| "it failed".into());
            return Err(TawError::new(
                ErrorCode::PluginBuildFailed,
                format!(
                    "build `{}` failed ({why}); nothing was installed. It printed:\n{}",
                    shell_words::join(&command.command),
                    tail.join("\n")
                ),
            ));
        }
    }
    Ok(())
}

/// Fetches `git_ref` (or the default branch) into `into`; the commit.
fn fetch(into: &Path, url: &str, git_ref: Option<&str>) -> Result<String> {
    // Mostly not there: this process's id is in its name.
    let _ = std::fs::remove_dir_all(into);
    crate::paths::make_private_dir(into)
        .map_err(|e| TawError::io(format!("cannot make {}: {e}", into.display())))?;
    git(into, &["init", "-q"])?;
    git(
        into,
        &[
            "fetch",
            "-q",
            "--depth",
            "1",
            url,
            git_ref.unwrap_or("HEAD"),
        ],
    )?;
    git(into, &["checkout", "-q", "--detach", "FETCH_HEAD"])?;
    Ok(git(into, &["rev-parse", "HEAD"])?.trim().to_string())
}

/// Moves a fetched tree to its commit's folder, `<repo>@<12 hex>`, or
/// `-<n>` after it (the smallest free n from 2) when that one is taken; the
/// build then runs there and the tree never moves again.
fn place(dir: &Path, repo: &str, fetched: &Path, commit: &str) -> Result<PathBuf> {
    let short = &commit[..commit.len().min(12)];
    let base = format!("{repo}@{short}");
    let mut candidate = dir.join(&base);
    let mut n = 2;
    while candidate.exists() {
        candidate = dir.join(format!("{base}-{n}"));
        n += 1;
    }
    std::fs::rename(fetched, &candidate).map_err(|e| {
        TawError::io(format!(
            "cannot move the fetched tree to {}: {e}",
            candidate.display()
        ))
    })?;
    Ok(candidate)
}

/// Folders of this repository that no record names (a run killed at its
/// prompt, a fetch cut short) go; the records' folders stay.
fn clean_leftovers(dir: &Path, repo: &str) -> Result<()> {
    let named: Vec<PathBuf> = registry::entries()?
        .into_iter()
        .filter_map(|e| e.source.managed_path.map(PathBuf::from))
        .collect();
    let Ok(read) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in read.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let ours =
            name.starts_with(&format!("{repo}@")) || name.starts_with(&format!(".fetch-{repo}@"));
        if !ours {
            continue;
        }
        let path = entry.path();
        if !named.iter().any(|n| same_folder(n, &path)) {
            // Tried again at the next install or update.
            let _ = std::fs::remove_dir_all(&path);
        }
    }
    Ok(())
}

/// How one plugin's update went.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct UpdateOutcome {
    pub plugin_id: String,
    /// `updated`, `unchanged`, `linked` (left alone), `declined` or `failed`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The commit the remote has at `git_ref` (its default branch when None):
/// a tag's commit (the peeled `^{}` line of an annotated tag), else the
/// tag's or the branch's own line; only a ref of exactly that name counts.
fn remote_commit(dir: &Path, url: &str, git_ref: Option<&str>) -> Result<Option<String>> {
    let Some(name) = git_ref else {
        let listed = git(dir, &["ls-remote", "--", url, "HEAD"])?;
        return Ok(pick_ref(&listed, &["HEAD"]));
    };
    let listed = git(dir, &["ls-remote", "--", url, name])?;
    Ok(pick_ref(
        &listed,
        &[
            &format!("refs/tags/{name}^{{}}"),
            &format!("refs/tags/{name}"),
            &format!("refs/heads/{name}"),
            name,
        ],
    ))
}

/// The commit of the first of `wanted` that `ls-remote`'s lines name.
fn pick_ref(listed: &str, wanted: &[&str]) -> Option<String> {
    let lines: Vec<(&str, &str)> = listed
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .collect();
    wanted.iter().find_map(|want| {
        lines
            .iter()
            .find(|(_, name)| name == want)
            .map(|(sha, _)| sha.to_string())
    })
}

/// `taw plugin update [id|source...]`: each GitHub plugin named (all when
/// none is) asks the remote for the commit at its recorded ref, and is
/// fetched, shown, built and switched to only when that commit is new. A
/// pinned plugin whose folder is there asks GitHub nothing. Whatever goes
/// wrong leaves the installed copy as it was.
pub(crate) fn update(targets: &[String], consent: Consent) -> Result<Vec<UpdateOutcome>> {
    let entries = registry::entries()?;
    let matches = |entry: &Entry, target: &str| {
        entry.plugin_id == target
            || parse_source(target, None).ok().is_some_and(|r| {
                entry.source.owner.as_deref() == Some(r.owner.as_str())
                    && entry.source.repo.as_deref() == Some(r.repo.as_str())
                    && entry.source.subdir == r.subdir
            })
    };
    if let Some(missing) = targets
        .iter()
        .find(|t| !entries.iter().any(|e| matches(e, t)))
    {
        return Err(registry::not_found(missing));
    }
    let named = |entry: &Entry| targets.is_empty() || targets.iter().any(|t| matches(entry, t));
    let mut outcomes = Vec::new();
    for entry in entries.iter().filter(|e| named(e)) {
        let mut outcome = UpdateOutcome {
            plugin_id: entry.plugin_id.clone(),
            status: "unchanged",
            from: entry.source.resolved_commit.clone(),
            to: None,
            error: None,
        };
        if entry.source.kind != "github" {
            outcome.status = "linked";
            outcomes.push(outcome);
            continue;
        }
        let (Some(owner), Some(repo)) = (&entry.source.owner, &entry.source.repo) else {
            outcome.status = "failed";
            outcome.error = Some("its record names no repository".into());
            outcomes.push(outcome);
            continue;
        };
        let request = Request {
            owner: owner.clone(),
            repo: repo.clone(),
            subdir: entry.source.subdir.clone(),
            git_ref: entry.source.requested_ref.clone(),
        };
        let present = entry
            .source
            .managed_path
            .as_deref()
            .is_some_and(|p| Path::new(p).is_dir());
        let dir = repo_dir(&request);
        // A folder that cannot be made fails the first git run in it, which
        // says so.
        let _ = crate::paths::make_private_dir(&dir);
        // What a run killed at its prompt left goes, whatever comes next.
        if let Err(error) = clean_leftovers(&dir, &request.repo) {
            outcome.status = "failed";
            outcome.error = Some(error.message);
            outcomes.push(outcome);
            continue;
        }
        let pinned = request.git_ref.as_deref().is_some_and(is_full_commit);
        if pinned && present {
            outcomes.push(outcome);
            continue;
        }
        let latest = match remote_commit(&dir, &clone_url(&request), request.git_ref.as_deref()) {
            Ok(latest) => latest,
            Err(error) => {
                outcome.status = "failed";
                outcome.error = Some(error.message);
                outcomes.push(outcome);
                continue;
            }
        };
        if present && latest.is_some() && latest == entry.source.resolved_commit {
            outcomes.push(outcome);
            continue;
        }
        match install(&request, consent, Some(&entry.plugin_id)) {
            Ok(installed) => {
                outcome.status = "updated";
                outcome.to = installed.source.resolved_commit;
            }
            Err(Stopped::Declined) => outcome.status = "declined",
            Err(Stopped::NoTerminal) => {
                outcome.status = "failed";
                outcome.error = Some("no terminal to ask on; add --yes".into());
            }
            Err(Stopped::Failed(error)) => {
                outcome.status = "failed";
                outcome.error = Some(error.message);
            }
        }
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// `taw plugin uninstall <id | owner/repo[/subdir]>`: the record, and the
/// folder an install made.
pub(crate) fn uninstall(target: &str) -> Result<super::Unlinked> {
    let entries = registry::entries()?;
    let entry = entries
        .iter()
        .find(|e| e.plugin_id == target)
        .or_else(|| {
            let request = parse_source(target, None).ok()?;
            entries.iter().find(|e| {
                e.source.owner.as_deref() == Some(request.owner.as_str())
                    && e.source.repo.as_deref() == Some(request.repo.as_str())
                    && e.source.subdir == request.subdir
            })
        })
        .cloned()
        .ok_or_else(|| registry::not_found(target))?;
    registry::unregister(&entry.plugin_id)?;
    if let Some(path) = &entry.source.managed_path
        && !registry::entries()?
            .iter()
            .any(|e| e.source.managed_path.as_deref() == Some(path.as_str()))
    {
        // The record is gone, which is what `removed` says; a folder left
        // is only disk space.
        let _ = std::fs::remove_dir_all(path);
    }
    Ok(super::Unlinked {
        plugin_id: entry.plugin_id,
        removed: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources() {
        let r = parse_source("qu8n/herdr-automatic-rename", None).unwrap();
        assert_eq!(
            (r.owner.as_str(), r.repo.as_str()),
            ("qu8n", "herdr-automatic-rename")
        );
        assert_eq!(r.subdir, None);
        let r = parse_source("o/r/plugins/x", Some("main")).unwrap();
        assert_eq!(r.subdir.as_deref(), Some("plugins/x"));
        assert_eq!(r.git_ref.as_deref(), Some("main"));
        let pin = "a".repeat(40);
        assert_eq!(
            parse_source(&format!("o/r@{pin}"), None).unwrap().git_ref,
            Some(pin)
        );
        for bad in [
            "https://github.com/o/r",
            "git@github.com:o/r",
            "o",
            "o/..",
            "o/r@abc1234",
            "o/r x",
        ] {
            assert_eq!(
                parse_source(bad, None).unwrap_err().code.as_str(),
                "invalid_plugin_source",
                "{bad}"
            );
        }
        assert!(parse_source("o/r", Some("--upload-pack=x")).is_err());
        assert!(looks_like_short_commit("abc1234"));
        let listed = "aaa\trefs/heads/a/dev\nbbb\trefs/tags/dev\nccc\trefs/tags/dev^{}\nddd\trefs/heads/dev\n";
        assert_eq!(
            pick_ref(
                listed,
                &["refs/tags/dev^{}", "refs/tags/dev", "refs/heads/dev"]
            )
            .as_deref(),
            Some("ccc")
        );
        assert_eq!(pick_ref(listed, &["refs/heads/main"]), None);
        assert!(!looks_like_short_commit("main"));
    }
}
