//! `config.toml`: herdr's keys, taw's own, their defaults, ranges and aliases.
//!
//! The file is read once per taw process (taw has no daemon, so every run
//! sees the file as it is). A key taw does not know is a warning; a value of
//! the wrong type or out of range is an error that names the key and its
//! line, and the default is used in its place.

pub(crate) mod schema;

use crate::envelope::{ErrorCode, TawError};
use schema::{Dynamic, Kind};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A value as the file wrote it, with the line it is on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Value>),
    Table(Vec<Entry>),
    /// A date or time: valid TOML, never a valid taw value.
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub key: String,
    pub line: usize,
    pub value: Value,
}

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
            Value::Other(_) => "a date",
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(text) => Some(text),
            _ => None,
        }
    }

    fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(n) => serde_json::Value::from(*n),
            Value::Float(f) => serde_json::Value::from(*f),
            Value::Str(s) | Value::Other(s) => serde_json::Value::String(s.clone()),
            Value::Array(items) => items.iter().map(Value::to_json).collect(),
            Value::Table(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .map(|entry| (entry.key.clone(), entry.value.to_json()))
                    .collect(),
            ),
        }
    }
}

/// A problem found in the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Diagnostic {
    pub severity: Severity,
    /// The dotted key, or null for the file as a whole.
    pub key: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Severity {
    Error,
    Warning,
}

/// A value as taw reads it, from what the file held (or the default).
pub(crate) trait FromValue {
    fn from_value(value: Option<Value>) -> Self;
}

impl FromValue for bool {
    fn from_value(value: Option<Value>) -> bool {
        matches!(value, Some(Value::Bool(true)))
    }
}

impl FromValue for String {
    fn from_value(value: Option<Value>) -> String {
        match value {
            Some(Value::Str(text)) => text,
            _ => String::new(),
        }
    }
}

impl FromValue for i64 {
    fn from_value(value: Option<Value>) -> i64 {
        match value {
            Some(Value::Int(n)) => n,
            _ => 0,
        }
    }
}

impl FromValue for f64 {
    fn from_value(value: Option<Value>) -> f64 {
        match value {
            Some(Value::Float(f)) => f,
            Some(Value::Int(n)) => n as f64,
            _ => 0.0,
        }
    }
}

impl FromValue for Vec<String> {
    fn from_value(value: Option<Value>) -> Vec<String> {
        match value {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The config as read: the values that passed, and what did not.
#[derive(Debug, Clone, Default)]
pub(crate) struct Config {
    pub path: PathBuf,
    pub exists: bool,
    /// Valid values by dotted key, aliases resolved.
    values: BTreeMap<String, Value>,
    /// The valid dynamic tables (`[keys]` bindings, `[hooks]`...) by path.
    tables: BTreeMap<String, Vec<Entry>>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Config {
    /// Reads `config.toml` from the config folder. A missing file is the
    /// defaults; an unreadable one is an error.
    pub(crate) fn load() -> Result<Config, TawError> {
        Config::load_from(&crate::paths::config_file())
    }

    pub(crate) fn load_from(path: &Path) -> Result<Config, TawError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(Config::parse(path, &text)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Config {
                path: path.to_path_buf(),
                ..Config::default()
            }),
            Err(error) => Err(TawError::new(
                ErrorCode::InvalidConfig,
                format!("cannot read {}: {error}", path.display()),
            )),
        }
    }

    /// Reads config text; never fails, the problems are in `diagnostics`.
    pub(crate) fn parse(path: &Path, text: &str) -> Config {
        let mut config = Config {
            path: path.to_path_buf(),
            exists: true,
            ..Config::default()
        };
        match toml_edit::Document::parse(text.to_string()) {
            Ok(document) => {
                let root = table_entries(document.as_table(), text);
                let mut checker = Checker {
                    config: &mut config,
                };
                checker.table("", &root);
            }
            Err(error) => config.diagnostics.push(Diagnostic {
                severity: Severity::Error,
                key: None,
                line: error.span().map(|span| line_of(text, span.start)),
                message: format!("the file is not valid TOML: {}", error.message().trim()),
            }),
        }
        config
    }

    pub(crate) fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    pub(crate) fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }

    pub(crate) fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    /// The config taw runs on, and what a person should be told about it:
    /// a file that cannot be read is the defaults, with that said, and
    /// with an error of the file as a whole in its diagnostics, so that
    /// what must not run on defaults (a veto, a sandbox) knows.
    pub(crate) fn load_or_defaults() -> (Config, Option<String>) {
        match Config::load() {
            Ok(config) => {
                let problem = config.errors_summary();
                (config, problem)
            }
            Err(error) => {
                let config = Config {
                    path: crate::paths::config_file(),
                    exists: true,
                    diagnostics: vec![Diagnostic {
                        severity: Severity::Error,
                        key: None,
                        line: None,
                        message: error.message.clone(),
                    }],
                    ..Config::default()
                };
                (
                    config,
                    Some(format!("{}; taw runs on its defaults", error.message)),
                )
            }
        }
    }

    /// Where `diagnostic` is and what it says, for a refusal that names
    /// it: `<file> line N: key: message`.
    pub(crate) fn locate(&self, diagnostic: &Diagnostic) -> String {
        format!(
            "{}{}: {}{}",
            crate::paths::display(&self.path),
            diagnostic
                .line
                .map(|line| format!(" line {line}"))
                .unwrap_or_default(),
            diagnostic
                .key
                .as_ref()
                .map(|key| format!("{key}: "))
                .unwrap_or_default(),
            diagnostic.message
        )
    }

    /// One line on the file's errors, for where a person looks (the
    /// status line at load, the popup's options page): `None` when it has
    /// none.
    pub(crate) fn errors_summary(&self) -> Option<String> {
        let first = self.errors().next()?;
        let count = self.errors().count();
        let line = first
            .line
            .map(|line| format!("line {line}: "))
            .unwrap_or_default();
        Some(format!(
            "{} has {count} error{}, so taw uses the defaults in their place ({line}{}); `taw config check` lists them",
            crate::paths::display(&self.path),
            if count == 1 { "" } else { "s" },
            first.message
        ))
    }

    /// The value of a fixed key: what the file says, else the default.
    fn value(&self, path: &str) -> Option<Value> {
        if let Some(value) = self.values.get(path) {
            return Some(value.clone());
        }
        let spec = schema::spec(path)?;
        default_value(spec)
    }

    /// The value of a key: what the file says, else its default.
    pub(crate) fn get<T: FromValue>(&self, key: &schema::Key<T>) -> T {
        T::from_value(self.value(key.spec.path))
    }

    /// The entries of a table whose keys are names (`[hooks]`, `[keys]`...).
    pub(crate) fn table(&self, table: &schema::Table) -> &[Entry] {
        self.tables
            .get(table.path)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Every key the file set, with the value taw reads, for a listing.
    pub(crate) fn set_values(&self) -> Vec<(String, serde_json::Value)> {
        let mut listed: Vec<(String, serde_json::Value)> = self
            .values
            .iter()
            .map(|(key, value)| (key.clone(), value.to_json()))
            .collect();
        for (table, entries) in &self.tables {
            for entry in entries {
                listed.push((format!("{table}.{}", entry.key), entry.value.to_json()));
            }
        }
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        listed
    }
}

fn default_value(spec: &schema::KeySpec) -> Option<Value> {
    if spec.default.is_empty() {
        return None;
    }
    let text = format!("v = {}", spec.default);
    let document = toml_edit::Document::parse(text.clone()).ok()?;
    let item = document.as_table().get("v")?;
    Some(item_value(item, &text))
}

/// Walks the file's tables against the schema.
struct Checker<'a> {
    config: &'a mut Config,
}

impl Checker<'_> {
    fn error(&mut self, key: &str, line: usize, message: String) {
        self.config.diagnostics.push(Diagnostic {
            severity: Severity::Error,
            key: Some(key.to_string()),
            line: Some(line),
            message,
        });
    }

    fn warning(&mut self, key: &str, line: usize, message: String) {
        self.config.diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            key: Some(key.to_string()),
            line: Some(line),
            message,
        });
    }

    fn table(&mut self, prefix: &str, entries: &[Entry]) {
        for entry in entries {
            let written = join(prefix, &entry.key);
            let path = schema::table_alias(&written).to_string();
            if let Some(spec) = schema::spec(&path) {
                self.fixed(spec, &written, entry);
            } else if let Some(kind) = schema::dynamic(&path) {
                match &entry.value {
                    Value::Table(children) => self.dynamic(kind, &path, children),
                    Value::Array(items) if kind == Dynamic::KeyCommands => {
                        self.key_commands(&path, entry.line, items)
                    }
                    other => self.error(
                        &written,
                        entry.line,
                        format!("must be a table, not {}", other.type_name()),
                    ),
                }
            } else if let Some(kind) = schema::dynamic(prefix).filter(|_| !prefix.is_empty()) {
                // A key of a table that also has fixed keys, such as [keys].
                let one = [entry.clone()];
                self.dynamic(kind, prefix, &one);
            } else if is_known_table(&path) {
                match &entry.value {
                    Value::Table(children) => self.table(&path, children),
                    other => self.error(
                        &written,
                        entry.line,
                        format!("must be a table, not {}", other.type_name()),
                    ),
                }
            } else {
                self.warning(
                    &written,
                    entry.line,
                    "unknown key; taw ignores it".to_string(),
                );
            }
        }
    }

    fn fixed(&mut self, spec: &schema::KeySpec, written: &str, entry: &Entry) {
        match check_kind(spec.kind, &entry.value) {
            Ok(Some(value)) => {
                self.config.values.insert(spec.path.to_string(), value);
            }
            Ok(None) => {}
            Err(message) => self.error(written, entry.line, message),
        }
    }

    fn keep(&mut self, table: &str, entry: Entry) {
        self.config
            .tables
            .entry(table.to_string())
            .or_default()
            .push(entry);
    }

    fn dynamic(&mut self, kind: Dynamic, table: &str, entries: &[Entry]) {
        for entry in entries {
            let key = join(table, &entry.key);
            // A fixed key or a table of its own inside this one ([keys]
            // holds preset; [[keys.command]] sits under [keys]).
            if schema::spec(&key).is_some() || schema::dynamic(&key).is_some() {
                self.table(table, std::slice::from_ref(entry));
                continue;
            }
            let result = match kind {
                Dynamic::KeyBindings => self.key_binding(&key, entry),
                Dynamic::KeyCommands => {
                    if let Value::Array(items) = &entry.value {
                        self.key_commands(&key, entry.line, items);
                    }
                    continue;
                }
                Dynamic::Hooks => self.hook(&key, entry),
                Dynamic::Machines => check_machine(&entry.key, &entry.value),
                Dynamic::SoundAgents => {
                    // An agent of the user's own is defined by its file.
                    let defined = crate::paths::manifests_dir()
                        .join(format!("{}.toml", entry.key))
                        .is_file();
                    if !schema::SOUND_AGENTS.contains(&entry.key.as_str()) && !defined {
                        self.warning(
                            &key,
                            entry.line,
                            "not an agent herdr's sound settings know, nor one defined in the manifests folder".into(),
                        );
                    }
                    check_kind(schema::choice(&["default", "on", "off"]), &entry.value).map(|_| ())
                }
                Dynamic::SandboxAgents => match &entry.value {
                    Value::Str(_) => Ok(()),
                    other => Err(format!("must be a profile name, not {}", other.type_name())),
                },
                Dynamic::Sidebar => {
                    let tokens = if table.ends_with(".agents") {
                        schema::AGENT_TOKENS
                    } else {
                        schema::SESSION_TOKENS
                    };
                    let mut warnings = Vec::new();
                    let result = check_sidebar(&entry.key, &entry.value, tokens, &mut warnings);
                    for warning in warnings {
                        self.warning(&key, entry.line, warning);
                    }
                    result
                }
                Dynamic::Theme | Dynamic::Remote => Ok(()),
            };
            match result {
                Ok(()) => self.keep(table, entry.clone()),
                Err(message) => self.error(&key, entry.line, message),
            }
        }
    }

    fn key_binding(&mut self, key: &str, entry: &Entry) -> Result<(), String> {
        let action = schema::action_alias(&entry.key);
        if entry.key == "open_notification_target" {
            self.warning(
                key,
                entry.line,
                "not read here: set the tmux option @agent-wizard-notification-key instead, so the key works inside the popup and out".into(),
            );
            return Ok(());
        }
        if schema::HERDR_ONLY_ACTIONS.contains(&action) {
            self.warning(
                key,
                entry.line,
                "a herdr action that tmux's own keys do; taw ignores it".into(),
            );
        } else if !schema::ACTIONS.contains(&action) {
            self.warning(
                key,
                entry.line,
                "not an action of the popup; taw ignores it".into(),
            );
        }
        let specs: Vec<&Value> = match &entry.value {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for spec in specs {
            let Some(text) = spec.as_str() else {
                return Err(format!(
                    "must be a key such as \"ctrl+g\", not {}",
                    spec.type_name()
                ));
            };
            check_key_spec(text)?;
        }
        Ok(())
    }

    fn hook(&mut self, key: &str, entry: &Entry) -> Result<(), String> {
        let name = entry.key.as_str();
        if name == "timeout_seconds" {
            return Ok(());
        }
        if !crate::events::is_hook_name(name) {
            self.warning(
                key,
                entry.line,
                "taw never fires an event of this name (docs/CONFIG.md lists them)".into(),
            );
        }
        match &entry.value {
            Value::Str(_) => Ok(()),
            Value::Array(items) if items.iter().all(|item| item.as_str().is_some()) => Ok(()),
            other => Err(format!(
                "must be a command line or a list of them, not {}",
                other.type_name()
            )),
        }
    }

    fn key_commands(&mut self, key: &str, line: usize, items: &[Value]) {
        for item in items {
            let Value::Table(fields) = item else {
                self.error(
                    key,
                    line,
                    "must be an array of tables ([[keys.command]])".into(),
                );
                return;
            };
            for field in fields {
                let known = ["key", "command", "type", "description", "width", "height"];
                if !known.contains(&field.key.as_str()) {
                    self.warning(
                        &join(key, &field.key),
                        field.line,
                        "unknown key; taw ignores it".into(),
                    );
                }
            }
            let get = |name: &str| fields.iter().find(|f| f.key == name);
            for required in ["key", "command"] {
                match get(required) {
                    Some(Entry {
                        value: Value::Str(_),
                        ..
                    }) => {}
                    Some(field) => {
                        self.error(&join(key, required), field.line, "must be a string".into())
                    }
                    None => self.error(key, line, format!("a [[keys.command]] needs {required}")),
                }
            }
            if let Some(Entry {
                value: Value::Str(text),
                line,
                ..
            }) = get("key")
                && let Err(message) = check_key_spec(text)
            {
                self.error(&join(key, "key"), *line, message);
            }
            if let Some(field) = get("type")
                && let Err(message) = check_kind(
                    schema::choice(&["shell", "pane", "popup", "plugin_action"]),
                    &field.value,
                )
            {
                self.error(&join(key, "type"), field.line, message);
            }
        }
    }
}

fn is_known_table(path: &str) -> bool {
    schema::is_fixed_table(path)
        || schema::DYNAMIC.iter().any(|table| {
            table
                .path
                .strip_prefix(path)
                .is_some_and(|rest| rest.starts_with('.'))
        })
}

/// Checks a value against a kind; gives the value to keep (aliases read).
fn check_kind(kind: Kind, value: &Value) -> Result<Option<Value>, String> {
    match (kind, value) {
        (Kind::Ignored, _) => Ok(None),
        (Kind::Bool, Value::Bool(_)) | (Kind::Str, Value::Str(_)) => Ok(Some(value.clone())),
        (Kind::Int { min, max }, Value::Int(n)) => {
            if (min..=max).contains(n) {
                Ok(Some(value.clone()))
            } else {
                Err(format!("{n} is out of range: {min} to {max}"))
            }
        }
        (Kind::Float { min, max }, Value::Int(_) | Value::Float(_)) => {
            let f = match value {
                Value::Int(n) => *n as f64,
                Value::Float(f) => *f,
                _ => f64::NAN,
            };
            if f.is_finite() && f >= min && f <= max {
                Ok(Some(Value::Float(f)))
            } else {
                Err(format!("{f} is out of range: {min} to {max}"))
            }
        }
        (Kind::Choice { words, aliases }, Value::Str(text)) => {
            if words.contains(&text.as_str()) {
                return Ok(Some(value.clone()));
            }
            if let Some((_, real)) = aliases.iter().find(|(alias, _)| *alias == text) {
                return Ok(Some(Value::Str(real.to_string())));
            }
            Err(format!(
                "{text:?} is not one of {}",
                words
                    .iter()
                    .map(|w| format!("{w:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
        (Kind::StrList, Value::Array(items)) => {
            if items.iter().all(|item| item.as_str().is_some()) {
                Ok(Some(value.clone()))
            } else {
                Err("must be a list of strings".to_string())
            }
        }
        (kind, value) => Err(format!(
            "must be {}, not {}",
            expected_name(kind),
            value.type_name()
        )),
    }
}

fn expected_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Bool => "true or false",
        Kind::Str | Kind::Choice { .. } => "a string",
        Kind::Int { .. } => "an integer",
        Kind::Float { .. } => "a number",
        Kind::StrList => "a list of strings",
        Kind::Ignored => "anything",
    }
}

fn check_color(text: &str) -> Result<(), String> {
    let hex = text.strip_prefix('#').unwrap_or("");
    if (hex.len() == 3 || hex.len() == 6) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        Err(format!("{text:?} is not a colour: write #RGB or #RRGGBB"))
    }
}

/// A key spec as herdr writes it: `a`, `enter`, `ctrl+g`, `alt+x`,
/// `shift+tab`. `prefix+...` is tmux's chord and is refused.
pub(crate) fn check_key_spec(text: &str) -> Result<(), String> {
    let spec = text.trim();
    if spec.to_ascii_lowercase().starts_with("prefix+") {
        return Err(format!(
            "{spec:?}: prefix chords are tmux's own; bind them in tmux, and the popup's keys without prefix"
        ));
    }
    // The same reading of a key as the popup's (and `send-keys`').
    crate::tmux::keys::to_tmux(spec)
        .map(|_| ())
        .map_err(|error| error.message.replace("; nothing was sent", ""))
}

/// A machine's name: letters, digits, `_` and `-`, a letter or digit
/// first, at most 64 (it is written `studio:%16`, and in `--machine`).
pub(crate) fn check_machine_name(name: &str) -> std::result::Result<(), String> {
    let fine = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c));
    if fine {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is no machine name: letters, digits, _ and -, a letter or digit first"
        ))
    }
}

/// An ssh destination: no spaces or control characters, and not starting
/// with `-`, which ssh would read as an option.
pub(crate) fn check_destination(destination: &str) -> std::result::Result<(), String> {
    if destination.trim().is_empty() {
        return Err("an empty ssh destination".into());
    }
    if destination.starts_with('-') {
        return Err(format!(
            "the ssh destination {destination:?} starts with -, which ssh reads as an option"
        ));
    }
    if destination
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "the ssh destination {destination:?} holds a space or a control character"
        ));
    }
    Ok(())
}

fn check_machine(name: &str, value: &Value) -> Result<(), String> {
    check_machine_name(name)?;
    match value {
        Value::Str(destination) => check_destination(destination),
        Value::Table(fields) => {
            for field in fields {
                match (field.key.as_str(), &field.value) {
                    ("ssh", Value::Str(destination)) => check_destination(destination)?,
                    ("taw", Value::Str(_)) => {}
                    ("ssh" | "taw", other) => {
                        return Err(format!(
                            "{} must be a string, not {}",
                            field.key,
                            other.type_name()
                        ));
                    }
                    (other, _) => return Err(format!("{other:?} is not a machine key (ssh, taw)")),
                }
            }
            if fields.iter().any(|f| f.key == "ssh") {
                Ok(())
            } else {
                Err("a [machines.<name>] table needs ssh".into())
            }
        }
        other => Err(format!(
            "must be an ssh destination or a table, not {}",
            other.type_name()
        )),
    }
}

/// `[ui.sidebar.*]`: rows, rows_by_agent, row_gap, each row a list of
/// tokens, each token a name or `{ token, fg, bold, dim, rules }`.
fn check_sidebar(
    key: &str,
    value: &Value,
    tokens: &[&str],
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    match key {
        "row_gap" => match value {
            Value::Int(n) if (0..=10).contains(n) => Ok(()),
            _ => Err("must be an integer from 0 to 10".into()),
        },
        "rows" => check_rows(value, tokens, warnings),
        "rows_by_agent" => match value {
            Value::Table(agents) => {
                for agent in agents {
                    check_rows(&agent.value, tokens, warnings)
                        .map_err(|message| format!("{}: {message}", agent.key))?;
                }
                Ok(())
            }
            other => Err(format!(
                "must be a table of agent = rows, not {}",
                other.type_name()
            )),
        },
        "hide" => {
            warnings.push("hide belongs in a token's rule, where it takes the token out".into());
            Ok(())
        }
        other => {
            warnings.push(format!(
                "{other:?} is not a sidebar key (rows, rows_by_agent, row_gap)"
            ));
            Ok(())
        }
    }
}

fn check_rows(value: &Value, tokens: &[&str], warnings: &mut Vec<String>) -> Result<(), String> {
    let Value::Array(rows) = value else {
        return Err("rows must be a list of rows, each a list of tokens".into());
    };
    if rows.len() > 16 {
        return Err("at most 16 rows".into());
    }
    for row in rows {
        let Value::Array(items) = row else {
            return Err("each row must be a list of tokens".into());
        };
        if items.len() > 16 {
            return Err("at most 16 tokens in a row".into());
        }
        for item in items {
            check_token(item, tokens, warnings)?;
        }
    }
    Ok(())
}

fn check_token(item: &Value, tokens: &[&str], warnings: &mut Vec<String>) -> Result<(), String> {
    let check_name = |name: &str| -> Result<(), String> {
        if name.starts_with('$') && name.len() > 1 || tokens.contains(&name) {
            Ok(())
        } else {
            Err(format!(
                "{name:?} is not a token here ({})",
                tokens.join(", ")
            ))
        }
    };
    match item {
        Value::Str(name) => check_name(name),
        Value::Table(fields) => {
            let name = fields
                .iter()
                .find(|f| f.key == "token")
                .and_then(|f| f.value.as_str())
                .ok_or("a token table needs token = \"name\"")?;
            check_name(name)?;
            for field in fields {
                match (field.key.as_str(), &field.value) {
                    ("token", _) => {}
                    ("fg", Value::Str(color)) => check_color(color)?,
                    ("bold" | "dim", Value::Bool(_)) => {}
                    ("rules", Value::Array(rules)) => {
                        if matches!(name, "state_icon" | "git_status") {
                            return Err(format!("{name} takes no rules"));
                        }
                        if rules.len() > 16 {
                            return Err("at most 16 rules a token".into());
                        }
                        for rule in rules {
                            check_rule(rule, warnings)?;
                        }
                    }
                    ("rule", _) => {
                        warnings.push("\"rule\" is not a token key: write rules = [...]".into())
                    }
                    ("hide", _) => warnings.push("hide belongs in a rule, not on the token".into()),
                    (other, value) if ["fg", "bold", "dim", "rules"].contains(&other) => {
                        return Err(format!("{other} cannot be {}", value.type_name()));
                    }
                    (other, _) => warnings.push(format!("{other:?} is not a token key")),
                }
            }
            Ok(())
        }
        other => Err(format!(
            "a token is a name or a table, not {}",
            other.type_name()
        )),
    }
}

fn check_rule(rule: &Value, warnings: &mut Vec<String>) -> Result<(), String> {
    let Value::Table(fields) = rule else {
        return Err("a rule is a table such as { contains = \"x\", fg = \"#f00\" }".into());
    };
    let conditions = ["equals", "contains", "starts_with", "gt", "lt"];
    let count = fields
        .iter()
        .filter(|f| conditions.contains(&f.key.as_str()))
        .count();
    if count != 1 {
        return Err(
            "a rule has exactly one condition: equals, contains, starts_with, gt or lt".into(),
        );
    }
    for field in fields {
        match (field.key.as_str(), &field.value) {
            ("equals" | "contains" | "starts_with", Value::Str(_)) => {}
            ("gt" | "lt", Value::Int(_)) => {}
            ("gt" | "lt", Value::Float(f)) if f.is_finite() => {}
            ("ignore_case" | "bold" | "dim" | "hide", Value::Bool(_)) => {}
            ("fg", Value::Str(color)) => check_color(color)?,
            (key, value)
                if conditions.contains(&key)
                    || ["ignore_case", "bold", "dim", "hide", "fg"].contains(&key) =>
            {
                return Err(format!("{key} cannot be {}", value.type_name()));
            }
            (other, _) => warnings.push(format!("{other:?} is not a rule key")),
        }
    }
    Ok(())
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn span_line(span: Option<std::ops::Range<usize>>, text: &str) -> usize {
    span.map(|span| line_of(text, span.start)).unwrap_or(0)
}

/// Converts a parsed table into entries with lines.
fn table_entries(table: &dyn toml_edit::TableLike, text: &str) -> Vec<Entry> {
    table
        .iter()
        .map(|(key, item)| {
            let line = table
                .key(key)
                .and_then(|k| k.span())
                .or_else(|| item.span())
                .map(|span| line_of(text, span.start))
                .unwrap_or_else(|| span_line(item.span(), text));
            Entry {
                key: key.to_string(),
                line,
                value: item_value(item, text),
            }
        })
        .collect()
}

fn item_value(item: &toml_edit::Item, text: &str) -> Value {
    match item {
        toml_edit::Item::Value(value) => value_of(value, text),
        toml_edit::Item::Table(table) => Value::Table(table_entries(table, text)),
        toml_edit::Item::ArrayOfTables(tables) => Value::Array(
            tables
                .iter()
                .map(|table| Value::Table(table_entries(table, text)))
                .collect(),
        ),
        toml_edit::Item::None => Value::Other(String::new()),
    }
}

fn value_of(value: &toml_edit::Value, text: &str) -> Value {
    match value {
        toml_edit::Value::String(s) => Value::Str(s.value().clone()),
        toml_edit::Value::Integer(n) => Value::Int(*n.value()),
        toml_edit::Value::Float(f) => Value::Float(*f.value()),
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::Other(d.value().to_string()),
        toml_edit::Value::Array(items) => {
            Value::Array(items.iter().map(|item| value_of(item, text)).collect())
        }
        toml_edit::Value::InlineTable(table) => Value::Table(table_entries(table, text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_destinations() {
        assert!(check_machine_name("studio").is_ok());
        assert!(check_machine_name("lab-2").is_ok());
        assert!(check_machine_name("a:b").is_err());
        assert!(check_machine_name("").is_err());
        assert!(check_destination("me@studio.local").is_ok());
        assert!(check_destination("ssh://me@host:2222").is_ok());
        assert!(check_destination("-oProxyCommand=x").is_err());
        assert!(check_destination("a b").is_err());
        assert!(check_destination(" ").is_err());
    }

    fn check(text: &str) -> Config {
        Config::parse(Path::new("/x/config.toml"), text)
    }

    #[test]
    fn defaults_without_a_file() {
        let config = check("");
        assert!(config.diagnostics.is_empty());
        assert_eq!(config.get(&schema::UI_DEPTH), "agents");
        assert!(config.get(&schema::UI_PREVIEW));
        assert_eq!(config.get(&schema::UI_TOAST_DONE_DELAY_SECONDS), 5.0);
        assert_eq!(config.get(&schema::HOOKS_TIMEOUT_SECONDS), 30.0);
        assert_eq!(config.get(&schema::SESSION_STARTUP_PER_AGENT_DELAY_MS), 100);
        assert_eq!(
            config.get(&schema::SESSIONS_PROJECT_DIRS),
            Vec::<String>::new()
        );
    }

    #[test]
    fn good_values_are_read() {
        let config = check(
            "[ui]\ndepth = \"all\"\nagent_panel_sort = \"priority\"\n[ui.toast]\ndone_delay_seconds = 2\n[sessions]\nproject_dirs = [\"~/src\"]\n",
        );
        assert!(config.diagnostics.is_empty(), "{:?}", config.diagnostics);
        assert_eq!(config.get(&schema::UI_DEPTH), "all");
        assert_eq!(config.get(&schema::UI_AGENT_PANEL_SORT), "attention");
        assert_eq!(config.get(&schema::UI_TOAST_DONE_DELAY_SECONDS), 2.0);
        assert_eq!(config.get(&schema::SESSIONS_PROJECT_DIRS), vec!["~/src"]);
    }

    #[test]
    fn bad_values_name_key_and_line() {
        let config = check(
            "# top\n[ui]\ndepth = \"everything\"\npreview = 3\n[ui.toast]\ndone_delay_seconds = 9000\n",
        );
        let errors: Vec<_> = config.errors().collect();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert_eq!(errors[0].key.as_deref(), Some("ui.depth"));
        assert_eq!(errors[0].line, Some(3));
        assert_eq!(errors[1].key.as_deref(), Some("ui.preview"));
        assert_eq!(errors[1].line, Some(4));
        assert_eq!(errors[2].line, Some(6));
        // The default stands in for a bad value.
        assert_eq!(config.get(&schema::UI_DEPTH), "agents");
    }

    #[test]
    fn unknown_keys_warn() {
        let config = check("[ui]\nbogus = 1\n[nothing]\nx = 2\n");
        assert!(!config.has_errors());
        let warnings: Vec<_> = config.warnings().map(|w| w.key.clone().unwrap()).collect();
        assert_eq!(warnings, vec!["ui.bogus", "nothing"]);
    }

    #[test]
    fn syntax_error_has_a_line() {
        let config = check("[ui]\ndepth = \n");
        let errors: Vec<_> = config.errors().collect();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, Some(2));
    }

    #[test]
    fn hooks_keys_and_machines() {
        let config = check(
            "[hooks]\ntimeout_seconds = 5\n\"agent.done\" = \"~/bin/log\"\n\"agent.finished\" = [\"true\"]\npre_close = 3\n[keys]\npreset = \"search\"\ngoto = \"ctrl+g\"\nnew_tab = \"prefix+c\"\n[machines]\nstudio = \"me@studio\"\n[machines.lab]\nssh = \"lab\"\ntaw = \"/opt/taw\"\n",
        );
        let errors: Vec<_> = config.errors().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(errors, vec!["hooks.pre_close", "keys.new_tab"]);
        let warnings: Vec<_> = config.warnings().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(warnings, vec!["hooks.agent.finished", "keys.new_tab"]);
        assert_eq!(config.get(&schema::HOOKS_TIMEOUT_SECONDS), 5.0);
        assert_eq!(config.get(&schema::KEYS_PRESET), "search");
        assert_eq!(config.table(&schema::MACHINES).len(), 2);
        assert_eq!(config.table(&schema::HOOKS).len(), 2);
    }

    #[test]
    fn sidebar_alias_and_rules() {
        let config = check(
            "[ui.sidebar.spaces]\nrows = [[\"state_icon\", \"workspace\"], [{ token = \"branch\", fg = \"#abc\", rules = [{ contains = \"main\", dim = true }] }]]\n[ui.sidebar.agents]\nrows = [[\"nope\"]]\n",
        );
        let errors: Vec<_> = config.errors().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(errors, vec!["ui.sidebar.agents.rows"]);
        assert_eq!(config.table(&schema::SIDEBAR_SESSIONS).len(), 1);
    }

    #[test]
    fn key_specs() {
        for good in [
            "a",
            "ctrl+g",
            "alt+x",
            "shift+tab",
            "enter",
            "f5",
            "ctrl++",
            "?",
        ] {
            assert!(check_key_spec(good).is_ok(), "{good}");
        }
        for bad in ["", "prefix+x", "hyper+x", "ctrl+nothing"] {
            assert!(check_key_spec(bad).is_err(), "{bad}");
        }
    }
}
