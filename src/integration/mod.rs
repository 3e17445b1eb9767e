//! Agent integrations: `taw integration install|status|uninstall`. Each
//! agent's own hooks (a script, a plugin, an extension taw writes into its
//! config) tell taw its session, and for some agents its state, through
//! `taw pane report-agent`; the screen stays taw's eye for the rest.
//!
//! `targets` says what each agent gets where; `edit` with `json`, `toml`
//! and `yaml` changes the user's files keeping every byte of theirs;
//! `owner` tells taw's hooks from the user's; `hook` reads an agent's
//! hook payload for the scripts.

pub(crate) mod edit;
pub(crate) mod hook;
pub(crate) mod json;
pub(crate) mod owner;
pub(crate) mod targets;
pub(crate) mod toml;
pub(crate) mod yaml;

use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::paths;
use edit::Undo;
use serde::Serialize;
use std::path::{Path, PathBuf};
use targets::{Env, OwnedFile, Plan, Target};

/// A text file, or `None` when there is none.
pub(crate) fn text_file(path: &Path) -> Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            TawError::new(
                ErrorCode::InvalidConfig,
                format!(
                    "{} is not UTF-8 text; it was not changed",
                    paths::display(path)
                ),
            )
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(TawError::new(
            ErrorCode::IoError,
            format!("could not read {}: {error}", paths::display(path)),
        )),
    }
}

/// What an install or an uninstall did, one line a step (herdr's shape).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Done {
    pub target: String,
    pub details: Details,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Details {
    pub messages: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Installed(pub Done);

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Uninstalled(pub Done);

/// One integration's state, as `taw integration status` lists it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Status {
    pub agent: String,
    pub installed: bool,
    pub path: String,
    pub version: Option<u32>,
    pub current_version: u32,
    pub outdated: bool,
    pub note: Option<String>,
    pub experimental: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Statuses {
    pub integrations: Vec<Status>,
}

answers!(
    Installed => "integration_installed",
    Uninstalled => "integration_uninstalled",
    Statuses => "integration_status",
);

/// The version marker of a file taw wrote: `TAW_INTEGRATION_VERSION=<n>`
/// in a comment near its top.
pub(crate) fn marker_version(text: &str) -> Option<u32> {
    text.lines().take(40).find_map(|line| {
        let line = line.trim().trim_start_matches(['#', '/', ' ']).trim();
        line.strip_prefix("TAW_INTEGRATION_VERSION=")?
            .trim()
            .parse()
            .ok()
    })
}

fn failed(code: ErrorCode, what: &str, path: &Path, error: &std::io::Error) -> TawError {
    TawError::new(
        code,
        format!("could not {what} {}: {error}", paths::display(path)),
    )
}

/// Writes one of taw's files whole, executable when it is a script.
fn write_owned(file: &OwnedFile) -> Result<()> {
    let mode = if file.executable { 0o755 } else { 0o644 };
    paths::write_atomic_mode(&file.path, file.text.as_bytes(), Some(mode))
        .map_err(|e| failed(ErrorCode::IntegrationInstallFailed, "write", &file.path, &e))
}

/// The files an install changed, as they were, so that a failure part way
/// puts them back.
#[derive(Default)]
struct Journal(Vec<(PathBuf, Option<Vec<u8>>)>);

impl Journal {
    fn remember(&mut self, path: &Path) {
        if self.0.iter().any(|(p, _)| p == path) {
            return;
        }
        match std::fs::read(path) {
            Ok(bytes) => self.0.push((path.to_path_buf(), Some(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.0.push((path.to_path_buf(), None))
            }
            // Unreadable: nothing to put back, and never to be removed.
            Err(_) => {}
        }
    }

    /// Puts every file back as it was; the ones that could not be, with
    /// why.
    fn put_back(self) -> Vec<String> {
        let mut left = Vec::new();
        for (path, bytes) in self.0.into_iter().rev() {
            let undone = match bytes {
                Some(bytes) => paths::write_user_file(&path, &bytes),
                None => paths::remove_user_file(&path),
            };
            match undone {
                // A file the failed run never wrote is as it was.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => left.push(format!("{}: {e}", paths::display(&path))),
                Ok(()) => {}
            }
        }
        left
    }
}

/// `taw integration install <target>`.
pub(crate) fn install(target: &Target) -> Result<Installed> {
    let env = Env::from_process()?;
    let plan = targets::plan(target, &env);
    if let Some(missing) = &plan.cannot_install {
        return Err(TawError::new(
            ErrorCode::IntegrationInstallFailed,
            missing.clone(),
        ));
    }
    let warning = check_version(target)?;
    // Every edit worked out first: a file that does not parse stops the
    // install before anything is written.
    let mut edits = Vec::new();
    for edit in &plan.edits {
        let current = text_file(&edit.path)?;
        let applied = edit.apply(current.as_deref())?;
        edits.push((edit, current, applied));
    }
    let mut journal = Journal::default();
    let mut messages = Vec::new();
    let made = folders_to_make(&plan);
    let written: Result<()> = (|| {
        for folder in &made {
            let mark = made_mark(folder);
            journal.remember(&mark);
            paths::write_atomic(&mark, MADE_MARK_TEXT.as_bytes())
                .map_err(|e| failed(ErrorCode::IntegrationInstallFailed, "write", &mark, &e))?;
        }
        for file in &plan.files {
            journal.remember(&file.path);
            write_owned(file)?;
            messages.push(format!("wrote {}", paths::display(&file.path)));
        }
        for (edit, current, applied) in &edits {
            if current.as_deref() == Some(applied.as_str()) {
                messages.push(format!(
                    "{} has taw's entry already",
                    paths::display(&edit.path)
                ));
                continue;
            }
            journal.remember(&edit.path);
            journal.remember(&edit.saved_copy());
            journal.remember(&edit.made_mark());
            edit.write(current.as_deref(), applied)?;
            messages.push(match current {
                Some(_) => format!(
                    "added taw's entry to {} (as it was before: {})",
                    paths::display(&edit.path),
                    paths::display(&edit.saved_copy())
                ),
                None => format!("made {} with taw's entry", paths::display(&edit.path)),
            });
            messages.extend(edit.overrides(current.as_deref()));
        }
        Ok(())
    })();
    if let Err(mut error) = written {
        let left = journal.put_back();
        // Deepest first; a folder that holds anything stays.
        for folder in made.iter().rev() {
            let _ = std::fs::remove_dir(folder);
        }
        // Else the person would think their files are as they were.
        if !left.is_empty() {
            error.message = format!(
                "{}; and these could not be put back as they were: {}",
                error.message,
                left.join("; ")
            );
        }
        return Err(error);
    }
    messages.extend(plan.notes.iter().cloned());
    messages.extend(warning);
    Ok(Installed(Done {
        target: target.id.to_string(),
        details: Details { messages },
    }))
}

/// The oldest release of an agent whose hooks taw's entry works with
/// (herdr's rule: Kimi Code's hooks as taw writes them came in 0.14.0).
const OLDEST: &[(&str, &str, (u64, u64, u64))] = &[("kimi", "kimi", (0, 14, 0))];

/// Refuses an agent older than its hooks need; a warning when its version
/// cannot be told.
fn check_version(target: &Target) -> Result<Option<String>> {
    let Some((_, program, oldest)) = OLDEST.iter().find(|(id, ..)| *id == target.id) else {
        return Ok(None);
    };
    let wanted = format!("{}.{}.{}", oldest.0, oldest.1, oldest.2);
    let output = crate::exec::Program::new(program)
        .arg("--version")
        .limit(Some(std::time::Duration::from_secs(5)))
        .output();
    let version = output.ok().and_then(|out| {
        let text = format!(
            "{} {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        text.split_whitespace()
            .filter(|word| word.contains('.'))
            .find_map(crate::text::parse_version)
    });
    match version {
        Some(found) if found < *oldest => Err(TawError::new(
            ErrorCode::IntegrationInstallFailed,
            format!(
                "{} {}.{}.{} is too old: taw's hooks need {wanted} or newer; upgrade it, then install again",
                target.name, found.0, found.1, found.2
            ),
        )),
        Some(_) => Ok(None),
        None => Ok(Some(format!(
            "could not tell {}'s version from `{program} --version`: its hooks need {wanted} or newer",
            target.name
        ))),
    }
}

/// What a mark beside a folder an install made says to whoever opens it.
const MADE_MARK_TEXT: &str = "taw made the folder beside this file for its integration; `taw integration uninstall` removes both when the folder is empty\n";

/// The mark, beside `folder`, that an install made it.
fn made_mark(folder: &Path) -> PathBuf {
    let mut name = folder.file_name().unwrap_or_default().to_os_string();
    name.push(".taw-made");
    folder.with_file_name(name)
}

/// The folders that taw's files go in, up to the agent's own, shallowest
/// first; the folders wholly taw's are not among them.
fn made_for_files(plan: &Plan) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = Vec::new();
    for file in &plan.files {
        let mut at = file.path.parent();
        let mut chain = Vec::new();
        while let Some(folder) = at.filter(|f| f.starts_with(&plan.folder)) {
            if !plan.own_folders.iter().any(|own| own == folder) {
                chain.push(folder.to_path_buf());
            }
            at = folder.parent().filter(|_| folder != plan.folder);
        }
        for folder in chain.into_iter().rev() {
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
    }
    folders
}

/// Of those, the ones not there yet: what this install makes.
fn folders_to_make(plan: &Plan) -> Vec<PathBuf> {
    made_for_files(plan)
        .into_iter()
        .filter(|folder| !folder.exists())
        .collect()
}

/// `taw integration uninstall <target>`: taw's entries out of the agent's
/// files (or each file given back whole), its own files gone. A hook that
/// might be taw's stops it before anything changes.
pub(crate) fn uninstall(target: &Target) -> Result<Uninstalled> {
    let env = Env::from_process()?;
    let plan = targets::plan(target, &env);
    let mut undos = Vec::new();
    for edit in &plan.edits {
        undos.push((edit, edit.plan_undo()?));
    }
    let mut messages = Vec::new();
    for (edit, undo) in &undos {
        edit.undo(undo)?;
        let shown = paths::display(&edit.path);
        messages.push(match undo {
            // Codex's switch stays on: another hook may need it.
            Undo::Nothing
                if matches!(edit.change, edit::Change::CodexFeature) && edit.path.exists() =>
            {
                format!("left {shown} as it is, Codex's hooks on")
            }
            Undo::Nothing => continue,
            Undo::GiveBack(_) => format!("gave {shown} back as it was before the install"),
            Undo::Delete => format!("removed {shown}, which taw had made"),
            Undo::TakeOut(_) => format!("took taw's entry out of {shown}"),
        });
    }
    for file in &plan.files {
        match std::fs::remove_file(&file.path) {
            Ok(()) => messages.push(format!("removed {}", paths::display(&file.path))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(failed(
                    ErrorCode::IntegrationUninstallFailed,
                    "remove",
                    &file.path,
                    &e,
                ));
            }
        }
    }
    for folder in &plan.own_folders {
        // Python leaves its compiled copies beside the plugin; mostly there
        // are none.
        let _ = std::fs::remove_dir_all(folder.join("__pycache__"));
        // Fails when the folder holds files not taw's: then it stays, as
        // it should.
        let _ = std::fs::remove_dir(folder);
    }
    // The folders an install made for taw's files (Claude Code's hooks/),
    // deepest first, when nothing else came into them.
    for folder in made_for_files(&plan).iter().rev() {
        let mark = made_mark(folder);
        if !mark.exists() {
            continue;
        }
        if std::fs::remove_dir(folder).is_ok() {
            messages.push(format!(
                "removed {}, which taw had made",
                paths::display(folder)
            ));
        }
        if !folder.exists() {
            let _ = std::fs::remove_file(&mark);
        }
    }
    if messages.is_empty() {
        messages.push(format!(
            "nothing of taw's was installed for {}",
            target.name
        ));
    }
    Ok(Uninstalled(Done {
        target: target.id.to_string(),
        details: Details { messages },
    }))
}

/// `taw integration status [target] [--outdated-only]`.
pub(crate) fn status(only: Option<&Target>, outdated_only: bool) -> Result<Statuses> {
    let env = Env::from_process()?;
    let mut integrations = Vec::new();
    for target in targets::TARGETS {
        if only.is_some_and(|o| o.id != target.id) {
            continue;
        }
        let status = status_of(target, &targets::plan(target, &env));
        if !outdated_only || status.outdated {
            integrations.push(status);
        }
    }
    Ok(Statuses { integrations })
}

fn status_of(target: &Target, plan: &Plan) -> Status {
    let main = plan.files.first();
    let text = main.and_then(|f| text_file(&f.path).ok().flatten());
    let installed = text.is_some();
    // A config that still runs taw's script, which is gone.
    let entry_left = plan.edits.iter().any(|edit| {
        edit.script.is_some()
            && text_file(&edit.path)
                .ok()
                .flatten()
                .is_some_and(|text| edit.holds_taws(&text))
    });
    let version = text.as_deref().and_then(marker_version);
    let current = target.current_version();
    let mut stale = Vec::new();
    if installed {
        match version {
            Some(v) if v >= current => {}
            Some(v) => stale.push(format!("its version is {v}, this taw installs {current}")),
            None => stale.push("it has no version marker".to_string()),
        }
        for file in plan.files.iter().skip(1) {
            if !file.path.exists() {
                stale.push(format!("{} is missing", paths::display(&file.path)));
            }
        }
        for edit in &plan.edits {
            let present = text_file(&edit.path)
                .ok()
                .flatten()
                .is_some_and(|text| edit.present(&text));
            if !present {
                stale.push(format!("{} lacks taw's entry", paths::display(&edit.path)));
            }
        }
    }
    if !installed && entry_left {
        stale.push(format!(
            "{} is gone, and a hook still runs it",
            main.map(|f| paths::display(&f.path)).unwrap_or_default()
        ));
    }
    let outdated = !stale.is_empty();
    let mut notes = Vec::new();
    if outdated {
        notes.push(format!(
            "{}; run taw integration install {}",
            stale.join(", "),
            target.id
        ));
    }
    if installed && target.id == "codex" {
        notes.push(targets::CODEX_REVIEW.to_string());
    }
    if target.id == "opencode" && !plan.folder.join("cli.json").exists() {
        notes.push(targets::OPENCODE_V2_NOTE.to_string());
    }
    Status {
        agent: target.id.to_string(),
        installed,
        path: main.map(|f| paths::display(&f.path)).unwrap_or_default(),
        version,
        current_version: current,
        outdated,
        note: (!notes.is_empty()).then(|| notes.join(". ")),
        experimental: target.experimental,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_markers_are_read() {
        assert_eq!(
            marker_version("#!/bin/sh\n# TAW_INTEGRATION_VERSION=3\n"),
            Some(3)
        );
        assert_eq!(marker_version("// TAW_INTEGRATION_VERSION=2\n"), Some(2));
        assert_eq!(marker_version("nothing\n"), None);
    }
}
