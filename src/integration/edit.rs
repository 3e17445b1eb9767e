//! An edit of a file of the user's (an agent's config): what taw puts in,
//! how it finds it again, and how it takes it out, leaving every other byte
//! as it was. The saved copy beside the file (`<file>.taw-backup`) holds the
//! file as it was before taw's first install, and is what uninstall gives
//! back when nothing else changed since.

use super::json::{self, Dialect, Hook, HookTable};
use super::owner::{Owner, Runner, owner};
use super::{text_file, toml, yaml};
use crate::envelope::{ErrorCode, Result, TawError};
use crate::paths;
use std::path::PathBuf;

/// What taw puts in one file.
#[derive(Debug, Clone)]
pub(crate) enum Change {
    /// Hooks in a JSON file's table of event lists.
    JsonHooks {
        dialect: Dialect,
        table: HookTable,
        hooks: Vec<Hook>,
    },
    /// A string in a JSON list (`["plugin"]` of OpenCode's tui.json).
    JsonListItem {
        dialect: Dialect,
        key: &'static str,
        item: String,
    },
    /// Codex's `[features] hooks = true`, without the old `codex_hooks`.
    /// Uninstall leaves it (another hook may need it), unless the file is
    /// given back whole from its saved copy.
    CodexFeature,
    /// A block of TOML between taw's marker lines, at the end of the file.
    TomlBlock { marker: String, body: String },
    /// A name in a YAML file's `plugins: enabled:` list (Hermes).
    YamlEnabled { name: String },
}

impl Edit {
    /// An edit that runs no script of taw's (a switch, a list's name).
    pub(crate) fn plain(path: PathBuf, change: Change, home: &std::path::Path) -> Edit {
        Edit {
            path,
            change,
            script: None,
            runner: Runner::Direct,
            home: home.to_path_buf(),
        }
    }
}

/// One file of the user's and what taw puts in it.
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    pub path: PathBuf,
    pub change: Change,
    /// The script taw's hooks run, whose path decides whose a hook is.
    pub script: Option<PathBuf>,
    pub runner: Runner,
    /// The home folder installs read `~` against.
    pub home: PathBuf,
}

/// What an uninstall does to one file, worked out before anything is
/// written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Undo {
    /// Nothing of taw's is there.
    Nothing,
    /// The file as it was before the install, from its saved copy.
    GiveBack(String),
    /// The file taw made itself, untouched since: it goes.
    Delete,
    /// The file with taw's entries taken out.
    TakeOut(String),
}

/// A file whose every line ends in CR LF: the editors work on LF and the
/// result gets its CRs back.
fn crlf(text: &str) -> bool {
    text.contains("\r\n") && text.matches('\n').count() == text.matches("\r\n").count()
}

/// Runs `edit` on `text` as LF lines, giving a CR LF file its line ends back.
fn keeping_line_ends<T>(
    text: &str,
    edit: impl FnOnce(&str) -> Result<T>,
    text_of: impl FnOnce(T) -> (String, Option<bool>),
) -> Result<(String, Option<bool>)> {
    if !crlf(text) {
        return edit(text).map(text_of);
    }
    let (out, flag) = text_of(edit(&text.replace("\r\n", "\n"))?);
    Ok((out.replace("\r\n", "\n").replace('\n', "\r\n"), flag))
}

impl Edit {
    /// The saved copy of the file as it was before taw's first install.
    pub(crate) fn saved_copy(&self) -> PathBuf {
        self.beside(".taw-backup")
    }

    /// The mark that taw made the file (there was none before its install).
    pub(crate) fn made_mark(&self) -> PathBuf {
        self.beside(".taw-made")
    }

    fn beside(&self, suffix: &str) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(suffix);
        self.path.with_file_name(name)
    }

    fn whose(&self, command: &str) -> Owner {
        match &self.script {
            Some(script) => owner(command, script, &self.home, self.runner),
            None => Owner::Other,
        }
    }

    /// `text` (none: no file yet) with taw's entry in it.
    pub(crate) fn apply(&self, text: Option<&str>) -> Result<String> {
        keeping_line_ends(text.unwrap_or(""), |t| self.apply_lf(t), |t| (t, None))
            .map(|(text, _)| text)
    }

    fn apply_lf(&self, text: &str) -> Result<String> {
        let file = &self.path;
        match &self.change {
            Change::JsonHooks {
                dialect,
                table,
                hooks,
            } => json::add_hooks(text, file, *dialect, table, hooks, &|c| self.whose(c)),
            Change::JsonListItem { dialect, key, item } => {
                json::add_list_item(text, file, *dialect, key, item)
            }
            Change::CodexFeature => toml::codex_feature(text, file),
            Change::TomlBlock { marker, body } => {
                toml::add_block(text, file, marker, body, &|c| self.whose(c))
            }
            Change::YamlEnabled { name } => yaml::add_enabled(text, file, name),
        }
    }

    /// What the install turns on that the user had turned off, to be told
    /// (Codex's hooks switch).
    pub(crate) fn overrides(&self, text: Option<&str>) -> Option<String> {
        match self.change {
            Change::CodexFeature if text.is_some_and(toml::codex_hooks_turned_off) => {
                Some(format!(
                    "Codex's hooks were turned off in {}; taw turned them on, so every hook of Codex's runs again, yours too (uninstall leaves them on)",
                    paths::display(&self.path)
                ))
            }
            _ => None,
        }
    }

    /// Whether taw's entry is in `text` as this build writes it.
    pub(crate) fn present(&self, text: &str) -> bool {
        self.apply(Some(text)).is_ok_and(|applied| applied == text)
    }

    /// Whether `text` holds an entry of taw's (in any version).
    pub(crate) fn holds_taws(&self, text: &str) -> bool {
        self.take_out(text).is_ok_and(|(_, removed)| removed)
    }

    /// `text` without taw's entry, and whether it had one. Fails, changing
    /// nothing, when an entry might be taw's.
    fn take_out(&self, text: &str) -> Result<(String, bool)> {
        let before = text_file(&self.saved_copy()).ok().flatten();
        let before = before.map(|b| b.replace("\r\n", "\n"));
        keeping_line_ends(
            text,
            |t| self.take_out_lf(t, before.as_deref()),
            |(t, removed)| (t, Some(removed)),
        )
        .map(|(text, removed)| (text, removed.unwrap_or(false)))
    }

    /// `take_out` on LF text; `before` is the file as it was before the
    /// install, whose keys stay even when taw's entry was all they held.
    fn take_out_lf(&self, text: &str, before: Option<&str>) -> Result<(String, bool)> {
        let file = &self.path;
        match &self.change {
            Change::JsonHooks { dialect, table, .. } => {
                json::remove_hooks(text, file, *dialect, table, before, &|c| self.whose(c))
            }
            Change::JsonListItem { dialect, key, item } => {
                json::remove_list_item(text, file, *dialect, key, item, before)
            }
            Change::CodexFeature => {
                toml::parse(text, file)?;
                Ok((text.to_string(), false))
            }
            Change::TomlBlock { marker, .. } => {
                toml::remove_block(text, file, marker, &|c| self.whose(c))
            }
            Change::YamlEnabled { name } => yaml::remove_enabled(text, file, name, before),
        }
    }

    /// What uninstall is to do to this file now.
    pub(crate) fn plan_undo(&self) -> Result<Undo> {
        let Some(current) = text_file(&self.path)? else {
            return Ok(Undo::Nothing);
        };
        let (taken_out, removed) = self.take_out(&current)?;
        match text_file(&self.saved_copy())? {
            // Nothing changed since the install: the file as it was.
            Some(saved)
                if saved != current && self.apply(Some(&saved)).is_ok_and(|a| a == current) =>
            {
                return Ok(Undo::GiveBack(saved));
            }
            // Only a file taw made, as it made it, goes.
            None if self.made_mark().exists()
                && self.apply(None).is_ok_and(|made| made == current) =>
            {
                return Ok(Undo::Delete);
            }
            _ => {}
        }
        Ok(if removed {
            Undo::TakeOut(taken_out)
        } else {
            Undo::Nothing
        })
    }

    /// Carries out `undo`; the saved copy goes once the file is given back
    /// or taw's entries are out of it.
    pub(crate) fn undo(&self, undo: &Undo) -> Result<()> {
        let written = match undo {
            Undo::Nothing => return Ok(()),
            Undo::GiveBack(text) | Undo::TakeOut(text) => {
                paths::write_user_file(&self.path, text.as_bytes())
            }
            Undo::Delete => paths::remove_user_file(&self.path),
        };
        written.map_err(|e| self.failure("write", &e))?;
        for kept in [self.saved_copy(), self.made_mark()] {
            match std::fs::remove_file(kept) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(self.failure("remove the saved copy of", &e));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Puts `applied` in place of `current`, keeping the file as it was in
    /// the saved copy when it held nothing of taw's yet.
    pub(crate) fn write(&self, current: Option<&str>, applied: &str) -> Result<()> {
        if current == Some(applied) {
            return Ok(());
        }
        match current {
            // A file taw makes: marked so, so that uninstall may remove it.
            None => paths::write_atomic(&self.made_mark(), b"")
                .map_err(|e| self.failure("mark as taw's", &e))?,
            Some(current) => {
                // The file as it was without taw: as it is, or with taw's old
                // entry taken out when no copy was kept.
                let saved = self.saved_copy();
                let before = match self.take_out(current) {
                    Ok((_, false)) | Err(_) => Some(current.to_string()),
                    Ok((taken_out, true)) => (!saved.exists()).then_some(taken_out),
                };
                if let Some(before) = before {
                    // The copy is as private as the file.
                    let mode = std::fs::metadata(&self.path).ok().map(|m| {
                        std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777
                    });
                    paths::write_atomic_mode(&saved, before.as_bytes(), mode)
                        .map_err(|e| self.failure("save a copy of", &e))?;
                }
            }
        }
        paths::write_user_file(&self.path, applied.as_bytes())
            .map_err(|e| self.failure("write", &e))
    }

    fn failure(&self, what: &str, error: &std::io::Error) -> TawError {
        TawError::new(
            ErrorCode::IoError,
            format!("could not {what} {}: {error}", paths::display(&self.path)),
        )
    }
}
