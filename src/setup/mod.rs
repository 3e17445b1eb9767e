//! `taw tmux load` and `taw tmux unload`: what the plugin puts into a tmux
//! server, and how it takes it all back out.
//!
//! Loading reads the server once ([`ServerState::read`]), works out what to
//! change ([`plan_load`], a pure function), and applies it in one tmux
//! invocation, with each key binding apart. What taw put in is recognisable afterwards without guessing:
//! its hook entries sit at indexes of its own, its key bindings carry a note
//! that starts with [`NOTE_PREFIX`], and the option defaults, PATH folder and
//! herdr variables it set are recorded in bookkeeping options.

pub(crate) mod live;
pub(crate) mod login_path;
pub(crate) mod overview;
pub(crate) mod say;
pub(crate) mod table;

use crate::envelope::TawError;
use crate::tmux::Tmux;
use crate::tmux::commands::{self as cmd, Cmd};
use crate::tmux::environment::{self, EnvValue};
use crate::tmux::format::{RowFormat, parse_rows};
use crate::tmux::options::{self, PLUGIN_OPTIONS, bookkeeping};
use crate::tmux::status;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every key binding taw makes has a note that starts so (`prefix ?` shows
/// it), which is how a later load or unload tells taw's bindings from yours.
pub(crate) const NOTE_PREFIX: &str = "agent-wizard:";

/// The value of `HERDR_PANE_ID` taw puts in the global environment: tmux
/// gives every pane the same global value, so it is a fixed word that taw's
/// pane verbs read as "the pane this runs in" ($TMUX_PANE).
pub(crate) const HERDR_PANE_WORD: &str = "%calling";

/// The herdr variables `@agent-wizard-herdr-env` puts in tmux's environment.
pub(crate) const HERDR_ENV_VARS: &[&str] = &["HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID"];

/// The oldest tmux taw loads into (README's floor): `display-message -d`,
/// `list-keys -N` and the formats taw's hooks and marks use are 3.2's.
pub(crate) const TMUX_FLOOR: (u32, u32) = (3, 2);

/// The release of a tmux version as `tmux -V` or `#{version}` say it
/// (`tmux 3.3a`, `3.2`, `tmux next-3.6`); none for a build that names no
/// number (`tmux master`, `openbsd-7.6`), which taw takes as new enough.
pub(crate) fn tmux_release(version: &str) -> Option<(u32, u32)> {
    let word = version.split_whitespace().last()?;
    let word = word.strip_prefix("next-").unwrap_or(word);
    let (major, rest) = word.split_once('.')?;
    let minor: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The refusal of a tmux older than [`TMUX_FLOOR`], for the first of
/// `versions` that is.
pub(crate) fn refuse_old_tmux(versions: &[&str]) -> Result<(), TawError> {
    let (major, minor) = TMUX_FLOOR;
    match versions
        .iter()
        .find(|version| tmux_release(version).is_some_and(|release| release < TMUX_FLOOR))
    {
        Some(old) => Err(TawError::new(
            crate::envelope::ErrorCode::TmuxTooOld,
            format!(
                "taw needs tmux {major}.{minor} or newer; this is {}",
                old.trim()
            ),
        )),
        None => Ok(()),
    }
}

/// What is in the server now, as far as loading cares.
#[derive(Debug, Clone, Default)]
pub(crate) struct ServerState {
    /// Names of the global options that are set.
    pub set_options: BTreeSet<String>,
    /// Values of the plugin and bookkeeping options ("" when unset).
    pub values: BTreeMap<String, String>,
    /// taw's hook entries: hook name and index.
    pub taw_hooks: Vec<(String, u32)>,
    /// Entries of someone else's at indexes in taw's range: left alone, and
    /// never written over.
    pub other_hooks: Vec<(String, u32)>,
    /// Whether someone else's hook entry is at the index of the one-shot
    /// hooks that show a kept message ([`say::told_hooks_taken`]).
    pub told_hooks_taken: bool,
    /// Keys of the prefix table, and whether each is taw's.
    pub prefix_keys: BTreeMap<String, bool>,
    /// Each prefix key's binding as `list-keys` prints it, and its note.
    pub prefix_listed: BTreeMap<String, FormerKey>,
    pub environment: BTreeMap<String, EnvValue>,
    /// The global status formats taw may add its marks to.
    pub formats: BTreeMap<String, String>,
    /// tmux's version (`3.3a`): what its commands can do.
    pub tmux_version: String,
    /// The server's pid: it names the watcher's socket.
    pub server_pid: u32,
    /// The attached clients' names: where the load's words go.
    pub clients: Vec<String>,
}

impl ServerState {
    /// Reads options, hooks, keys and the environment in one invocation.
    pub(crate) fn read(tmux: &Tmux) -> Result<ServerState, TawError> {
        let names: Vec<&str> = PLUGIN_OPTIONS
            .iter()
            .map(|option| option.name)
            .chain(bookkeeping::ALL.iter().copied())
            .chain(["version", "pid"])
            .collect();
        let values_format = RowFormat::of("O", &names);
        let mut cmds = vec![
            cmd::print_format(&values_format.format()),
            cmd::show_global_options(),
            cmd::show_global_hooks(false),
            cmd::show_global_hooks(true),
            cmd::list_noted_prefix_keys(),
            cmd::show_global_environment(),
            cmd::list_prefix_keys(),
            cmd::show_global_value(status::WINDOW_FORMATS[0]),
            cmd::show_global_value(status::WINDOW_FORMATS[1]),
            cmd::show_global_value(status::SUMMARY_FORMAT),
        ];
        cmds.push(cmd::list_client_names());
        let sections = tmux.run_apart(cmds)?;
        let rows = parse_rows(&sections[0], std::slice::from_ref(&values_format))
            .map_err(TawError::tmux)?;
        let mut state = ServerState::default();
        if let Some(row) = rows.first() {
            for (name, value) in names.iter().zip(&row.fields) {
                state.values.insert(name.to_string(), value.clone());
            }
        }
        state.tmux_version = state.values.remove("version").unwrap_or_default();
        state.server_pid = state
            .values
            .remove("pid")
            .and_then(|pid| pid.parse().ok())
            .unwrap_or(0);
        state.clients = sections[10].lines().map(str::to_string).collect();
        state.set_options = sections[1]
            .lines()
            .filter_map(|line| line.split_whitespace().next())
            .map(str::to_string)
            .collect();
        state.told_hooks_taken = say::told_hooks_taken(&sections[2]);
        for line in sections[2].lines().chain(sections[3].lines()) {
            let Some((hook, index)) = parse_hook_line(line) else {
                continue;
            };
            if !options::is_taw_hook_index(index) {
                continue;
            }
            let entries = if is_taw_hook_command(line) {
                &mut state.taw_hooks
            } else {
                &mut state.other_hooks
            };
            if !entries.contains(&(hook.clone(), index)) {
                entries.push((hook, index));
            }
        }
        // Every bound key is someone's; those whose note is taw's are taw's.
        state.prefix_listed = parse_bound_keys(&sections[6]);
        state.prefix_keys = state
            .prefix_listed
            .keys()
            .map(|key| (key.clone(), false))
            .collect();
        for (key, note) in parse_noted_keys(&sections[4]) {
            state
                .prefix_keys
                .insert(key.clone(), note.starts_with(NOTE_PREFIX));
            if let Some(listed) = state.prefix_listed.get_mut(&key) {
                listed.note = note;
            }
        }
        state.environment = environment::parse_shell_environment(&sections[5]);
        let names = status::WINDOW_FORMATS
            .iter()
            .chain([&status::SUMMARY_FORMAT]);
        for (name, section) in names.zip(&sections[7..10]) {
            let value = section.strip_suffix('\n').unwrap_or(section);
            state.formats.insert(name.to_string(), value.to_string());
        }
        Ok(state)
    }

    fn value(&self, name: &str) -> &str {
        self.values.get(name).map(String::as_str).unwrap_or("")
    }

    fn env(&self, name: &str) -> Option<&str> {
        match self.environment.get(name) {
            Some(EnvValue::Set(value)) => Some(value),
            _ => None,
        }
    }

    /// The value an option has for taw: the user's, else taw's default.
    pub(crate) fn option(&self, name: &str) -> String {
        if self.set_options.contains(name) {
            return self.value(name).to_string();
        }
        options::plugin_option(name)
            .map(status::default_of)
            .unwrap_or_default()
    }

    /// The value an option has for taw, checked: a bad value of the user's
    /// is left out, with one warning that names the option and the value,
    /// and its default stands in for it (for a key: no binding).
    pub(crate) fn checked(&self, name: &str, warnings: &mut Vec<String>) -> String {
        let value = self.option(name);
        let Some(option) = options::plugin_option(name) else {
            return value;
        };
        match option.refuse(&value) {
            None => value,
            Some(why) => {
                warnings.push(format!("{name} is {value:?}, which {why}"));
                match option.kind {
                    options::OptionKind::Key => String::new(),
                    _ => status::default_of(option),
                }
            }
        }
    }

    /// The bindings taw's keys had before taw took them, as the loads kept
    /// them ([`bookkeeping::FORMER_KEYS`]).
    fn former_keys(&self) -> BTreeMap<String, FormerKey> {
        serde_json::from_str(self.value(bookkeeping::FORMER_KEYS)).unwrap_or_default()
    }

    fn recorded(&self, name: &str) -> Vec<String> {
        self.value(name)
            .lines()
            .filter(|line| !line.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// Whether a `show-hooks` line is an entry taw made: it runs taw with the
/// word every taw hook carries ([`crate::tmux::callback::HOOK_MARK`]), or, as an earlier
/// taw's did, `taw -S #{q:socket_path} watch attach-all|seen`. Anything
/// else at taw's indexes is someone else's.
pub(crate) fn is_taw_hook_command(line: &str) -> bool {
    line.contains(crate::tmux::callback::HOOK_MARK)
        // The rosters' own commands, which run in tmux: no shell line.
        || line.contains(bookkeeping::PANES_GENERATION)
        || line.contains(bookkeeping::TABS)
        || line.contains(crate::tmux::CHANGED_CHANNEL)
        || (line.contains("#{q:socket_path}")
            && line.contains("watch")
            && (line.contains("attach-all") || line.contains("seen")))
}

/// `show-hooks` line `after-split-window[9100] run-shell ...` → name, index.
fn parse_hook_line(line: &str) -> Option<(String, u32)> {
    let head = line.split_whitespace().next()?;
    let (name, rest) = head.split_once('[')?;
    let index = rest.strip_suffix(']')?.parse().ok()?;
    Some((name.to_string(), index))
}

/// `list-keys` lines, `bind-key [-r] -T prefix <key> <command>`: the keys,
/// with tmux's backslash before a special character taken off.
fn parse_bound_keys(text: &str) -> BTreeMap<String, FormerKey> {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace().skip_while(|word| *word != "-T");
            words.next()?;
            words.next()?;
            let key = words.next()?;
            let key = match key.strip_prefix('\\') {
                Some(rest) if !rest.is_empty() => rest.to_string(),
                _ => key.to_string(),
            };
            let listed = FormerKey {
                line: line.to_string(),
                note: String::new(),
            };
            Some((key, listed))
        })
        .collect()
}

/// A binding as `list-keys` printed it, with its note (`-N`): what a key
/// taw takes had, kept to give it back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub(crate) struct FormerKey {
    pub line: String,
    pub note: String,
}

/// `list-keys -N` lines, `<key><spaces><note>`: every key that has a note,
/// with its note (its first line). Keys without a note are not listed.
fn parse_noted_keys(text: &str) -> BTreeMap<String, String> {
    text.lines()
        // A line that begins with a space is no key's: a note of several
        // lines goes on in lines of its own, which tmux prints as they are.
        .filter(|line| !line.starts_with(char::is_whitespace))
        .filter_map(|line| {
            let key = line.split_whitespace().next()?;
            let note = line[key.len()..].trim_start();
            Some((key.to_string(), note.to_string()))
        })
        .collect()
}

/// What loading should put in, decided by the caller.
#[derive(Debug, Clone)]
pub(crate) struct Desired {
    /// The taw binary, absolute.
    pub bin: String,
    /// taw's bin folder (holding only the `taw` link).
    pub bin_dir: String,
    /// `hook name` → the command string of each entry.
    pub hooks: Vec<(&'static str, String)>,
    /// Bindings, each named by the option that holds its key.
    pub bindings: Vec<table::Binding>,
    pub version: String,
}

/// What a load or unload did, for its result.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub(crate) struct Report {
    pub bin: Option<String>,
    pub hooks: Vec<String>,
    pub keys: Vec<String>,
    pub defaults_set: Vec<String>,
    pub path_dir: Option<String>,
    /// What login shells get: a link in a folder they keep on PATH.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub login_path: Option<login_path::LoginPath>,
    pub herdr_env: bool,
    /// The status formats taw's marks are in.
    pub status: Vec<String>,
    pub warnings: Vec<String>,
}

/// What a load does: the commands that bring the server from its state to
/// loaded, and the key bindings, which run apart (a key tmux refuses all
/// the same then costs only its binding, and a warning).
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    pub cmds: Vec<Cmd>,
    pub bindings: Vec<Cmd>,
    /// Keys taw lets go of, given back the binding they had before.
    pub given_back: Vec<GiveBack>,
}

/// A key taw lets go of, and the binding it had before taw took it: run
/// apart, so a binding tmux no longer takes is only that key unbound.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GiveBack {
    pub key: String,
    pub bind: Cmd,
}

/// The plan that brings the server from `state` to loaded with `desired`.
pub(crate) fn plan_load(state: &ServerState, desired: &Desired) -> (Plan, Report) {
    let mut report = Report {
        bin: Some(desired.bin.clone()),
        ..Report::default()
    };
    let recorded: BTreeSet<String> = state
        .recorded(bookkeeping::DEFAULTS_SET)
        .into_iter()
        .collect();
    // The order matters: the warnings are reported in it, and the commands
    // run in it.
    let mut cmds = plan_defaults(state, &recorded, &mut report);
    cmds.extend(plan_hooks(state, &desired.hooks, &mut report));
    let (bindings, letting_go, given_back) = plan_keys(state, desired, &recorded, &mut report);
    cmds.extend(letting_go);
    cmds.extend(plan_path(state, desired, &mut report));
    cmds.extend(plan_herdr_env(state, desired, &mut report));
    cmds.extend(plan_status(state, &mut report));
    // The options only the popup reads: checked here, where a person sees it.
    for option in PLUGIN_OPTIONS.iter().filter(|o| {
        matches!(
            o.name,
            options::POPUP_WIDTH
                | options::POPUP_HEIGHT
                | options::NOTIFY
                | options::TOAST_SECONDS
                | options::BELL
                | options::DESKTOP
                | options::DOWNLOAD
        )
    }) {
        state.checked(option.name, &mut report.warnings);
    }
    cmds.push(cmd::set_global_option(
        bookkeeping::LOADED,
        &crate::tmux::LoadedBy {
            version: desired.version.clone(),
            bin: desired.bin.clone(),
        }
        .value(),
    ));
    (
        Plan {
            cmds,
            bindings,
            given_back,
        },
        report,
    )
}

/// Option defaults: set where the user set nothing; a default taw set
/// earlier (in `recorded`) stays taw's while it still holds the default.
fn plan_defaults(
    state: &ServerState,
    recorded: &BTreeSet<String>,
    report: &mut Report,
) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    let mut defaults_set = Vec::new();
    for option in PLUGIN_OPTIONS.iter().filter(|o| !o.default.is_empty()) {
        let is_set = state.set_options.contains(option.name);
        let default = status::default_of(option);
        if !is_set {
            cmds.push(cmd::set_global_option(option.name, &default));
            defaults_set.push(option.name.to_string());
        } else if recorded.contains(option.name) && state.value(option.name) == default {
            defaults_set.push(option.name.to_string());
        } else if recorded.contains(option.name)
            && status::former_defaults(option)
                .iter()
                .any(|former| state.value(option.name) == former)
        {
            // taw's own default of an earlier release, never changed since.
            cmds.push(cmd::set_global_option(option.name, &default));
            defaults_set.push(option.name.to_string());
        }
    }
    cmds.push(cmd::set_global_option(
        bookkeeping::DEFAULTS_SET,
        &defaults_set.join("\n"),
    ));
    report.defaults_set = defaults_set;
    cmds
}

/// Keys: each binding's key is an option; empty means not bound. Answers
/// the bindings to make, the unbinding of taw's keys no longer wanted (and
/// the record of the bindings kept), and the keys given back theirs.
fn plan_keys(
    state: &ServerState,
    desired: &Desired,
    recorded: &BTreeSet<String>,
    report: &mut Report,
) -> (Vec<Cmd>, Vec<Cmd>, Vec<GiveBack>) {
    let mut binds = Vec::new();
    let mut wanted_keys = BTreeSet::new();
    let former = state.former_keys();
    let mut still_kept = BTreeMap::new();
    for binding in &desired.bindings {
        let key = state.checked(binding.option, &mut report.warnings);
        if key.trim().is_empty() {
            continue;
        }
        // In the spelling tmux lists its keys in, which they are looked
        // up by (`space` is tmux's Space).
        let key = crate::tmux::keys::tmux_spelling(key.trim());
        let key = key.as_str();
        let user_chose =
            state.set_options.contains(binding.option) && !recorded.contains(binding.option);
        let taken_by_other = state.prefix_keys.get(key) == Some(&false);
        if taken_by_other && !user_chose {
            report.warnings.push(format!(
                "prefix + {key} is already bound, so taw left it alone; set {} to another key (or to \"\" for none)",
                binding.option
            ));
            continue;
        }
        // A key someone else had, which the user gave taw: its binding is
        // kept, to be given back when taw lets the key go (a kept one only
        // while the key is still taw's: one kept by a taw whose unload
        // forgot it is no binding of now).
        let ours = state.prefix_keys.get(key) == Some(&true);
        let had = match (taken_by_other, ours) {
            (true, _) => state.prefix_listed.get(key),
            (false, true) => former.get(key),
            (false, false) => None,
        };
        if let Some(had) = had {
            still_kept.insert(key.to_string(), had.clone());
        }
        binds.push(cmd::bind_prefix_key(
            key,
            &format!("{NOTE_PREFIX} {}", binding.note),
            &binding.command,
        ));
        wanted_keys.insert(key.to_string());
        report.keys.push(key.to_string());
    }
    let (given_back, mut letting_go) = let_go_of_keys(
        state
            .prefix_keys
            .iter()
            .filter(|(key, ours)| **ours && !wanted_keys.contains(*key))
            .map(|(key, _)| key.as_str()),
        &former,
    );
    letting_go.push(if still_kept.is_empty() {
        cmd::unset_global_option(bookkeeping::FORMER_KEYS)
    } else {
        cmd::set_global_option(
            bookkeeping::FORMER_KEYS,
            &serde_json::to_string(&still_kept).unwrap_or_default(),
        )
    });
    (binds, letting_go, given_back)
}

/// Keys of taw's it no longer binds: those given back the binding they had
/// before taw took them, and the unbinding of the rest.
fn let_go_of_keys<'a>(
    keys: impl Iterator<Item = &'a str>,
    former: &BTreeMap<String, FormerKey>,
) -> (Vec<GiveBack>, Vec<Cmd>) {
    let mut given_back = Vec::new();
    let mut unbinds = Vec::new();
    for key in keys {
        match former.get(key) {
            Some(had) => given_back.push(GiveBack {
                key: key.to_string(),
                bind: cmd::bind_again(&had.line, &had.note),
            }),
            None => unbinds.push(cmd::unbind_prefix_key(key)),
        }
    }
    (given_back, unbinds)
}

/// PATH: taw's bin folder in front, once; out again when switched off.
fn plan_path(state: &ServerState, desired: &Desired, report: &mut Report) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    let path_on = options::is_on(&state.checked(options::PATH, &mut report.warnings));
    let previous_dir = state.value(bookkeeping::PATH_DIR).to_string();
    // The folder in PATH before taw ever put it there (the user's profile
    // adds it, as the login notice asks): theirs, never taken out.
    let users_own = previous_dir.is_empty()
        && state
            .env("PATH")
            .is_some_and(|path| path.split(':').any(|dir| dir == desired.bin_dir));
    if let Some(path) = state.env("PATH") {
        let mut new_path = path.to_string();
        if !previous_dir.is_empty() && previous_dir != desired.bin_dir {
            new_path = environment::path_without(&new_path, &previous_dir);
        }
        if path_on {
            new_path = environment::path_with_front(&new_path, &desired.bin_dir);
            report.path_dir = Some(desired.bin_dir.clone());
        } else {
            new_path = environment::path_without(&new_path, &desired.bin_dir);
        }
        if new_path != path {
            cmds.push(cmd::set_global_environment("PATH", &new_path));
        }
    } else {
        report.warnings.push(
            "tmux's global environment has no PATH, so taw did not add its bin folder".into(),
        );
    }
    let added = report.path_dir.as_deref().filter(|_| !users_own);
    cmds.push(cmd::set_global_option(
        bookkeeping::PATH_DIR,
        added.unwrap_or(""),
    ));
    cmds
}

/// herdr's environment for agents that report to herdr, in when its
/// option is on.
fn plan_herdr_env(state: &ServerState, desired: &Desired, report: &mut Report) -> Vec<Cmd> {
    if !options::is_on(&state.checked(options::HERDR_ENV, &mut report.warnings)) {
        return remove_herdr_env(state);
    }
    // herdr's own values (tmux started inside herdr): theirs, left as they
    // are, and so never unset by an unload either.
    if let Some(pane) = state
        .env("HERDR_PANE_ID")
        .filter(|pane| *pane != HERDR_PANE_WORD)
    {
        report.warnings.push(format!(
            "tmux's global environment holds herdr's own HERDR_PANE_ID ({pane}): taw left herdr's variables as they are"
        ));
        return Vec::new();
    }
    report.herdr_env = true;
    vec![
        cmd::set_global_environment("HERDR_ENV", "1"),
        cmd::set_global_environment("HERDR_BIN_PATH", &desired.bin),
        cmd::set_global_environment("HERDR_PANE_ID", HERDR_PANE_WORD),
        cmd::set_global_option(bookkeeping::HERDR_ENV_SET, "1"),
    ]
}

/// The status marks: in when their option is on, out when it is off.
fn plan_status(state: &ServerState, report: &mut Report) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    let mut status_set = Vec::new();
    let wanted = [
        (
            options::WINDOW_STATUS,
            status::WINDOW_FORMATS,
            status::WINDOW_TOKEN,
            false,
        ),
        (
            options::STATUS_SUMMARY,
            &[status::SUMMARY_FORMAT][..],
            status::SUMMARY_TOKEN,
            true,
        ),
    ];
    let ours_before = state.recorded(bookkeeping::STATUS_SET);
    for (option, names, token, at_start) in wanted {
        let on = options::is_on(&state.checked(option, &mut report.warnings));
        for name in names {
            let Some(value) = state.formats.get(*name) else {
                continue;
            };
            let mut next = value.clone();
            let mut token = token;
            if token == status::WINDOW_TOKEN {
                // A format taw marked before gets the token this load
                // would put in (an older load's may differ).
                if ours_before.iter().any(|n| n == name) {
                    next = status::without_window_token(&next);
                }
                token = status::window_token_for(&next);
            }
            next = if on {
                status::with_token(&next, token, at_start)
            } else {
                status::without_token(&next, token)
            };
            if next.contains(token) {
                status_set.push(name.to_string());
            }
            if &next != value {
                cmds.push(cmd::set_global_option(name, &next));
            }
        }
    }
    cmds.push(cmd::set_global_option(
        bookkeeping::STATUS_SET,
        &status_set.join("\n"),
    ));
    report.status = status_set;
    cmds
}

/// The commands that take out everything taw put in.
pub(crate) fn plan_unload(state: &ServerState) -> (Plan, Report) {
    let mut cmds = Vec::new();
    let mut report = Report::default();
    for name in state.recorded(bookkeeping::DEFAULTS_SET) {
        let still_default = options::plugin_option(&name)
            .is_some_and(|option| state.value(&name) == status::default_of(option));
        if still_default {
            cmds.push(cmd::unset_global_option(&name));
            report.defaults_set.push(name);
        }
    }
    for (hook, index) in &state.taw_hooks {
        cmds.push(cmd::unset_hook(hook, *index));
        report.hooks.push(format!("{hook}[{index}]"));
    }
    let ours: Vec<&str> = state
        .prefix_keys
        .iter()
        .filter(|(_, ours)| **ours)
        .map(|(key, _)| key.as_str())
        .collect();
    report.keys = ours.iter().map(|key| key.to_string()).collect();
    let (given_back, unbinds) = let_go_of_keys(ours.into_iter(), &state.former_keys());
    cmds.extend(unbinds);
    let dir = state.value(bookkeeping::PATH_DIR);
    if !dir.is_empty()
        && let Some(path) = state.env("PATH")
    {
        let new_path = environment::path_without(path, dir);
        if new_path != path {
            cmds.push(cmd::set_global_environment("PATH", &new_path));
        }
        report.path_dir = Some(dir.to_string());
    }
    let ours = state.recorded(bookkeeping::STATUS_SET);
    for (name, value) in state.formats.iter().filter(|(name, _)| ours.contains(name)) {
        let next = if name == status::SUMMARY_FORMAT {
            status::without_token(value, status::SUMMARY_TOKEN)
        } else {
            status::without_window_token(value)
        };
        if &next != value {
            cmds.push(cmd::set_global_option(name, &next));
            report.status.push(name.clone());
        }
    }
    let herdr = remove_herdr_env(state);
    report.herdr_env = !herdr.is_empty();
    cmds.extend(herdr);
    for name in bookkeeping::ALL {
        if state.set_options.contains(*name) {
            cmds.push(cmd::unset_global_option(name));
        }
    }
    // A message still kept for the first client to attach, and its hooks.
    cmds.extend(say::forget(!state.told_hooks_taken));
    let plan = Plan {
        cmds,
        bindings: Vec::new(),
        given_back,
    };
    (plan, report)
}

/// Points `<bin_dir>/taw` at `bin`, replacing the link in one rename so a
/// pane never finds the folder without it.
pub(crate) fn install_link(bin_dir: &Path, bin: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(bin_dir)?;
    place_link(bin_dir, bin)
}

/// Points `<dir>/taw` at `target` in one rename.
fn place_link(bin_dir: &Path, bin: &Path) -> std::io::Result<()> {
    let link = bin_dir.join("taw");
    if std::fs::read_link(&link).is_ok_and(|target| target == bin) {
        return Ok(());
    }
    let temporary = bin_dir.join(format!(".taw.{}", std::process::id()));
    // A link left by a load that died with this pid; none is the usual case.
    let _ = std::fs::remove_file(&temporary);
    std::os::unix::fs::symlink(bin, &temporary)?;
    std::fs::rename(&temporary, &link).inspect_err(|_| {
        // The rename's error is the one to tell; this is tidying up.
        let _ = std::fs::remove_file(&temporary);
    })
}

/// Takes herdr's variables out while `HERDR_PANE_ID` is still taw's word;
/// a value of the user's own is left alone.
fn remove_herdr_env(state: &ServerState) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    if state.env("HERDR_PANE_ID") == Some(HERDR_PANE_WORD) {
        for name in HERDR_ENV_VARS {
            cmds.push(cmd::unset_global_environment(name));
        }
    }
    if state.set_options.contains(bookkeeping::HERDR_ENV_SET) {
        cmds.push(cmd::unset_global_option(bookkeeping::HERDR_ENV_SET));
    }
    cmds
}

/// The hook entries: the new ones go into the free slot first, then the
/// old ones come off, so no hook is ever without taw's entry. An index
/// someone else's entry holds is skipped.
pub(crate) fn plan_hooks(
    state: &ServerState,
    hooks: &[(&'static str, String)],
    report: &mut Report,
) -> Vec<Cmd> {
    let digest = hooks_digest(hooks);
    // A reload of the same hooks, every one still in place: nothing to
    // write (a rewrite is some 70 commands, a tmux call of their own on a
    // server of many panes).
    if let Some(slot) = only_slot(&state.taw_hooks)
        && state.option(bookkeeping::HOOKS_SET) == digest
    {
        let mut warnings = Vec::new();
        let in_place = hooks_in_slot(state, hooks, slot, &mut warnings);
        let there: BTreeSet<(String, u32)> = state.taw_hooks.iter().cloned().collect();
        if warnings.is_empty() && in_place.entries == there {
            report.hooks.extend(in_place.names);
            return Vec::new();
        }
    }
    let in_slot = hooks_in_slot(
        state,
        hooks,
        free_hook_slot(&state.taw_hooks),
        &mut report.warnings,
    );
    let mut cmds = in_slot.cmds;
    report.hooks.extend(in_slot.names);
    for (hook, index) in &state.taw_hooks {
        if !in_slot.entries.contains(&(hook.clone(), *index)) {
            cmds.push(cmd::unset_hook(hook, *index));
        }
    }
    // Last: a batch cut short leaves the hooks to be written again.
    cmds.push(cmd::set_global_option(bookkeeping::HOOKS_SET, &digest));
    cmds
}

/// The entries `hooks` take in slot `slot`, past the indexes someone
/// else's hooks hold.
struct HooksInSlot {
    cmds: Vec<Cmd>,
    entries: BTreeSet<(String, u32)>,
    /// `hook[index]`, in the order of the hooks.
    names: Vec<String>,
}

fn hooks_in_slot(
    state: &ServerState,
    hooks: &[(&'static str, String)],
    slot: u32,
    warnings: &mut Vec<String>,
) -> HooksInSlot {
    let mut placed = HooksInSlot {
        cmds: Vec::new(),
        entries: BTreeSet::new(),
        names: Vec::new(),
    };
    let mut per_hook: BTreeMap<&str, u32> = BTreeMap::new();
    for (hook, command) in hooks {
        let offset = per_hook.entry(hook).or_insert(0);
        let first = options::HOOK_INDEX_BASE + slot * options::HOOK_SLOT_SIZE;
        let free = (*offset..options::HOOK_SLOT_SIZE)
            .map(|n| (n, first + n))
            .find(|(_, index)| !state.other_hooks.contains(&(hook.to_string(), *index)));
        let Some((n, index)) = free else {
            warnings.push(format!(
                "every index taw uses for {hook} holds a hook of someone else's, so taw added none"
            ));
            continue;
        };
        *offset = n + 1;
        placed.cmds.push(cmd::set_hook(hook, index, command));
        placed.entries.insert((hook.to_string(), index));
        placed.names.push(format!("{hook}[{index}]"));
    }
    placed
}

/// What the hooks taw sets are, in a word kept in the server: a load that
/// finds the same word, and its entries in place, writes none again.
fn hooks_digest(hooks: &[(&'static str, String)]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    hooks.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// The one slot all of taw's entries are in; `None` when there are none,
/// or they are in both (a load cut short).
fn only_slot(entries: &[(String, u32)]) -> Option<u32> {
    let slot_of = |index: u32| (index - options::HOOK_INDEX_BASE) / options::HOOK_SLOT_SIZE;
    let first = slot_of(entries.first()?.1);
    entries
        .iter()
        .all(|(_, index)| slot_of(*index) == first)
        .then_some(first)
}

/// The slot (0 or 1) with none of taw's entries in it; slot 0 when both
/// hold some (a load that was cut short), whose leftovers then come off.
fn free_hook_slot(entries: &[(String, u32)]) -> u32 {
    let in_slot = |slot: u32| {
        entries
            .iter()
            .any(|(_, index)| (index - options::HOOK_INDEX_BASE) / options::HOOK_SLOT_SIZE == slot)
    };
    if in_slot(0) && !in_slot(1) { 1 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reload takes off every hook entry taw set before: an entry it did
    /// not know as its own stayed, and ran before the new ones (the tab
    /// roster's, which made every new tab look known, so no tab.created).
    #[test]
    fn every_hook_entry_taw_sets_is_known_as_taws() {
        let mut text = String::from("[hooks]\n");
        for def in crate::events::events() {
            text.push_str(&format!("\"{}\" = \"true\"\n", def.name));
        }
        let config = crate::config::Config::parse(std::path::Path::new("config.toml"), &text);
        let listeners = crate::hooks::Listeners::from_config(&config);
        let callback = crate::tmux::callback::Callback::current("/opt/taw".into());
        let hooks = table::hooks(&callback, &listeners);
        assert!(hooks.len() > 20, "{}", hooks.len());
        for (hook, command) in hooks {
            assert!(is_taw_hook_command(&command), "{hook}: {command}");
        }
    }

    fn desired() -> Desired {
        Desired {
            bin: "/opt/taw".into(),
            bin_dir: "/state/bin".into(),
            hooks: vec![("after-split-window", "run-shell -b 'x'".into())],
            bindings: vec![table::Binding {
                option: options::KEY,
                note: "agents",
                command: "choose-tree".into(),
            }],
            version: "0.1.0".into(),
        }
    }

    fn words(cmds: &[Cmd]) -> Vec<String> {
        cmds.iter().map(|c| c.words().join(" ")).collect()
    }

    #[test]
    fn a_tmux_under_the_floor_is_refused() {
        assert_eq!(tmux_release("tmux 3.3a"), Some((3, 3)));
        assert_eq!(tmux_release("3.2"), Some((3, 2)));
        assert_eq!(tmux_release("tmux next-3.6"), Some((3, 6)));
        assert_eq!(tmux_release("tmux 10.0"), Some((10, 0)));
        assert_eq!(tmux_release("tmux master"), None);
        assert!(refuse_old_tmux(&["tmux 3.2", "3.6a", "tmux master"]).is_ok());
        let refused = refuse_old_tmux(&["tmux 3.4", "3.1c"]).unwrap_err();
        assert_eq!(refused.code, crate::envelope::ErrorCode::TmuxTooOld);
        assert!(refused.message.contains("3.2 or newer; this is 3.1c"));
        assert!(refuse_old_tmux(&["tmux 2.9a"]).is_err());
    }

    #[test]
    fn parses_hook_and_key_lines() {
        assert_eq!(
            parse_hook_line("after-split-window[9100] run-shell -b \"x\""),
            Some(("after-split-window".into(), 9100))
        );
        assert_eq!(parse_hook_line("pane-exited"), None);
        let keys = parse_noted_keys("C-a     agent-wizard: agents\n\"       Split window\n");
        assert_eq!(keys["C-a"], "agent-wizard: agents");
        assert_eq!(keys["\""], "Split window");
        let listing = "bind-key    -T prefix \\\"      split-window\nbind-key -r -T prefix Up select-pane -U\n";
        let bound = parse_bound_keys(listing);
        assert_eq!(bound.keys().collect::<Vec<_>>(), ["\"", "Up"]);
        assert_eq!(bound["Up"].line, "bind-key -r -T prefix Up select-pane -U");
        // A note of several lines: its next line is no key (and, its first
        // word a character of two bytes, cut no key in two).
        let keys = parse_noted_keys("F7      first\n \u{e9}\n");
        assert_eq!(keys.keys().collect::<Vec<_>>(), ["F7"]);
    }

    #[test]
    fn first_load_sets_defaults_hooks_keys_and_path() {
        let mut state = ServerState::default();
        state
            .environment
            .insert("PATH".into(), EnvValue::Set("/usr/bin".into()));
        let (plan, report) = plan_load(&state, &desired());
        let cmds: Vec<Cmd> = plan.cmds.into_iter().chain(plan.bindings).collect();
        let lines = words(&cmds);
        assert!(lines.contains(&"set-option -g -- @agent-wizard-path on".to_string()));
        assert!(
            lines.contains(&"set-hook -g after-split-window[9100] run-shell -b 'x'".to_string())
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("bind-key -N agent-wizard: agents -T prefix -- a"))
        );
        assert!(lines.contains(&"set-environment -g -- PATH /state/bin:/usr/bin".to_string()));
        assert_eq!(report.keys, vec!["a"]);
        assert!(!report.herdr_env);
    }

    #[test]
    fn reload_uses_the_other_slot_and_removes_the_old() {
        let state = ServerState {
            taw_hooks: vec![
                ("after-split-window".into(), 9100),
                ("pane-exited".into(), 9100),
            ],
            ..ServerState::default()
        };
        let (plan, _) = plan_load(&state, &desired());
        let cmds: Vec<Cmd> = plan.cmds.into_iter().chain(plan.bindings).collect();
        let lines = words(&cmds);
        let set = lines
            .iter()
            .position(|l| l.contains("after-split-window[9150] run-shell"))
            .unwrap();
        let unset = lines
            .iter()
            .position(|l| l == "set-hook -gu after-split-window[9100]")
            .unwrap();
        assert!(set < unset, "new entry goes in before the old comes off");
        assert!(lines.contains(&"set-hook -gu pane-exited[9100]".to_string()));
    }

    /// A reload of the hooks the last load set, all in place, writes
    /// none; one the hooks moved since (a listener added, an entry taken
    /// out by hand) writes them all again, in the other slot.
    #[test]
    fn a_reload_of_the_same_hooks_in_place_writes_none() {
        let desired = desired();
        let (first, _) = plan_load(&ServerState::default(), &desired);
        let digest_set = words(&first.cmds)
            .into_iter()
            .find(|l| l.contains(bookkeeping::HOOKS_SET))
            .expect("the load keeps its hooks' digest");
        let digest = digest_set.rsplit(' ').next().unwrap().to_string();
        let mut loaded = ServerState {
            taw_hooks: vec![("after-split-window".into(), 9100)],
            ..ServerState::default()
        };
        loaded.set_options.insert(bookkeeping::HOOKS_SET.into());
        loaded
            .values
            .insert(bookkeeping::HOOKS_SET.into(), digest.clone());
        let hooks_of = |state: &ServerState, desired: &Desired| {
            let (plan, report) = plan_load(state, desired);
            let hooks: Vec<String> = words(&plan.cmds)
                .into_iter()
                .filter(|l| l.starts_with("set-hook") || l.contains(bookkeeping::HOOKS_SET))
                .collect();
            (hooks, report.hooks)
        };
        let (written, named) = hooks_of(&loaded, &desired);
        assert!(written.is_empty(), "{written:?}");
        assert_eq!(named, vec!["after-split-window[9100]"]);

        let mut more = desired.clone();
        more.hooks.push(("pane-exited", "run-shell -b 'y'".into()));
        let (written, _) = hooks_of(&loaded, &more);
        assert!(
            written
                .iter()
                .any(|l| l.contains("after-split-window[9150]"))
        );
        assert!(written.iter().any(|l| l.contains("pane-exited[9150]")));
        assert!(written.contains(&"set-hook -gu after-split-window[9100]".to_string()));

        let taken_out = ServerState {
            taw_hooks: Vec::new(),
            ..loaded.clone()
        };
        let (written, _) = hooks_of(&taken_out, &desired);
        assert!(
            written
                .iter()
                .any(|l| l.contains("after-split-window[9100] run-shell"))
        );
        assert_eq!(written.last(), Some(&digest_set));
    }

    #[test]
    fn a_foreign_binding_on_the_default_key_is_left_alone() {
        let mut state = ServerState::default();
        state.prefix_keys.insert("a".into(), false);
        let (plan, report) = plan_load(&state, &desired());
        let cmds: Vec<Cmd> = plan.cmds.into_iter().chain(plan.bindings).collect();
        assert!(!words(&cmds).iter().any(|l| l.starts_with("bind-key")));
        assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    }

    /// A key the user gave taw that tmux (or they) had bound keeps its
    /// binding, given back, note and all, when taw lets the key go: at
    /// the load that binds another key, and at an unload.
    #[test]
    fn a_key_given_to_taw_gets_its_binding_back_when_taw_lets_it_go() {
        let mut state = ServerState::default();
        state.set_options.insert(options::KEY.into());
        state.values.insert(options::KEY.into(), "w".into());
        state.prefix_keys.insert("w".into(), false);
        let choose = FormerKey {
            line: "bind-key -T prefix w choose-tree -Zw".into(),
            note: "Choose a window from a list".into(),
        };
        state.prefix_listed.insert("w".into(), choose.clone());
        let (plan, _) = plan_load(&state, &desired());
        let lines = words(&plan.cmds);
        let kept = lines
            .iter()
            .find(|l| l.contains(bookkeeping::FORMER_KEYS))
            .unwrap();
        assert!(
            kept.starts_with("set-option -g") && kept.contains("choose-tree -Zw"),
            "{kept}"
        );
        assert!(
            words(&plan.bindings)[0].contains("-- w"),
            "{:?}",
            plan.bindings
        );

        // Loaded: w is taw's, and its former binding kept.
        state.prefix_keys.insert("w".into(), true);
        state.set_options.insert(bookkeeping::FORMER_KEYS.into());
        state.values.insert(
            bookkeeping::FORMER_KEYS.into(),
            serde_json::to_string(&BTreeMap::from([("w".to_string(), choose)])).unwrap(),
        );
        let given_back =
            "if-shell -F 1 bind-key -N \"Choose a window from a list\" -T prefix w choose-tree -Zw";
        let given = |plan: &Plan| -> Vec<String> {
            plan.given_back
                .iter()
                .map(|g| format!("{} {}", g.key, g.bind.words().join(" ")))
                .collect()
        };
        let given_back = format!("w {given_back}");
        // A reload keeps it; a load with another key gives w back.
        let (plan, _) = plan_load(&state, &desired());
        assert!(given(&plan).is_empty());
        assert!(
            words(&plan.cmds)
                .iter()
                .any(|l| l.contains("choose-tree -Zw"))
        );
        state.values.insert(options::KEY.into(), "g".into());
        let (plan, _) = plan_load(&state, &desired());
        let lines = words(&plan.cmds);
        assert_eq!(given(&plan), std::slice::from_ref(&given_back));
        assert!(
            !lines
                .iter()
                .any(|l| l.starts_with("unbind-key") && l.ends_with(" w"))
        );
        assert!(
            lines.contains(&format!("set-option -gu -- {}", bookkeeping::FORMER_KEYS)),
            "{lines:#?}"
        );
        // An unload gives it back too.
        state.values.insert(options::KEY.into(), "w".into());
        let (plan, _) = plan_unload(&state);
        assert_eq!(given(&plan), [given_back]);
        assert!(
            !words(&plan.cmds)
                .iter()
                .any(|l| l.starts_with("unbind-key"))
        );
    }

    #[test]
    fn user_set_options_are_kept_and_path_off_removes_the_folder() {
        let mut state = ServerState::default();
        state.set_options.insert(options::PATH.into());
        state.values.insert(options::PATH.into(), "off".into());
        state
            .environment
            .insert("PATH".into(), EnvValue::Set("/state/bin:/usr/bin".into()));
        let (plan, report) = plan_load(&state, &desired());
        let cmds: Vec<Cmd> = plan.cmds.into_iter().chain(plan.bindings).collect();
        let lines = words(&cmds);
        assert!(!lines.iter().any(|l| l.contains("@agent-wizard-path on")));
        assert!(lines.contains(&"set-environment -g -- PATH /usr/bin".to_string()));
        assert!(!report.defaults_set.contains(&options::PATH.to_string()));
    }

    #[test]
    fn unload_leaves_user_values() {
        let mut state = ServerState::default();
        state.set_options.extend([
            options::KEY.to_string(),
            bookkeeping::DEFAULTS_SET.to_string(),
        ]);
        state.values.insert(options::KEY.into(), "g".into());
        state
            .values
            .insert(bookkeeping::DEFAULTS_SET.into(), "@agent-wizard-key".into());
        state
            .environment
            .insert("HERDR_PANE_ID".into(), EnvValue::Set("mine".into()));
        let (plan, _) = plan_unload(&state);
        let lines = words(&plan.cmds);
        assert!(!lines.iter().any(|l| l.contains("-gu -- @agent-wizard-key")));
        assert!(!lines.iter().any(|l| l.contains("HERDR_PANE_ID")));
        assert!(lines.contains(&"set-option -gu -- @agent_wizard_defaults_set".to_string()));
    }

    #[test]
    fn an_earlier_default_of_taws_gives_way_to_todays_and_a_persons_stays() {
        let summary = PLUGIN_OPTIONS
            .iter()
            .find(|o| o.name == options::SUMMARY)
            .unwrap();
        let former = status::former_defaults(summary);
        assert_eq!(former.len(), 1);
        assert_ne!(former[0], status::default_of(summary));
        let loaded_with = |value: &str, recorded: bool| {
            let mut state = ServerState::default();
            state.set_options.insert(options::SUMMARY.into());
            state.values.insert(options::SUMMARY.into(), value.into());
            if recorded {
                state.set_options.insert(bookkeeping::DEFAULTS_SET.into());
                state
                    .values
                    .insert(bookkeeping::DEFAULTS_SET.into(), options::SUMMARY.into());
            }
            let (plan, report) = plan_load(&state, &desired());
            let set = words(&plan.cmds)
                .into_iter()
                .any(|l| l.starts_with(&format!("set-option -g -- {} ", options::SUMMARY)));
            (
                set,
                report.defaults_set.contains(&options::SUMMARY.to_string()),
            )
        };
        assert_eq!(loaded_with(&former[0], true), (true, true));
        // The same text a person set (not recorded as taw's) is theirs.
        assert_eq!(loaded_with(&former[0], false), (false, false));
        assert_eq!(loaded_with("mine", true), (false, false));
    }

    #[test]
    fn an_earlier_window_token_is_replaced_not_doubled() {
        let mut state = ServerState::default();
        let old = format!("#I:#W{}", status::OLD_WINDOW_TOKEN);
        state
            .formats
            .insert(status::WINDOW_FORMATS[0].to_string(), old);
        state.set_options.insert(bookkeeping::STATUS_SET.into());
        state.values.insert(
            bookkeeping::STATUS_SET.into(),
            status::WINDOW_FORMATS[0].to_string(),
        );
        let (plan, _) = plan_load(&state, &desired());
        let cmds: Vec<Cmd> = plan.cmds.into_iter().chain(plan.bindings).collect();
        let set = words(&cmds)
            .into_iter()
            .find(|l| l.contains(status::WINDOW_FORMATS[0]))
            .unwrap();
        assert!(
            set.ends_with(&format!("#I:#W{}", status::WINDOW_TOKEN)),
            "{set}"
        );
    }

    #[test]
    fn a_users_hook_at_taws_index_is_kept_and_stepped_over() {
        let state = ServerState {
            other_hooks: vec![("after-split-window".into(), 9100)],
            ..ServerState::default()
        };
        let (plan, report) = plan_load(&state, &desired());
        let cmds: Vec<Cmd> = plan.cmds.into_iter().chain(plan.bindings).collect();
        let lines = words(&cmds);
        assert!(!lines.iter().any(|l| l.contains("after-split-window[9100]")));
        assert!(
            report
                .hooks
                .contains(&"after-split-window[9101]".to_string())
        );
        assert!(is_taw_hook_command(
            "x[9100] run-shell -b \"AGENT_WIZARD_HOOK=1 exec taw\""
        ));
        assert!(!is_taw_hook_command("x[9100] display-message mine"));
    }
}
