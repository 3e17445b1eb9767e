//! taw's entries in an agent's JSON config, put in and taken out as text:
//! every key, comment, blank and indent of the user's stays as it was.

use super::owner::Owner;
use crate::envelope::{ErrorCode, Result, TawError};
use crate::paths;
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::{Map, Value};
use std::path::Path;

/// How strict the agent reads its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Plain JSON, as most agents read settings.json.
    Json,
    /// JSON with comments and trailing commas (OpenCode's files).
    Jsonc,
}

/// The shape of one hook in an event's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Claude Code's: `{"matcher": "*", "hooks": [{"type": "command",
    /// "command": ..., "timeout": N}]}`, the matcher only where given.
    Grouped,
    /// The hook straight in the event's list: `{"type": "command"` when
    /// `typed`, `command_key: ..., "timeout": N}`.
    Flat {
        command_key: &'static str,
        typed: bool,
    },
}

/// A key of the agent's own that taw's hook carries.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Extra {
    Bool(bool),
    Text(&'static str),
}

/// Where the hooks live in the file and how each is written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookTable {
    /// The keys from the top to the object of event lists (`["hooks"]`).
    pub path: &'static [&'static str],
    pub shape: Shape,
    pub matcher: Option<&'static str>,
    /// The time limit's key and value, in the agent's unit.
    pub timeout: Option<(&'static str, u64)>,
    pub extra: &'static [(&'static str, Extra)],
    /// Keys the top object must have, when taw makes it (Cursor's
    /// `"version": 1`).
    pub preamble: &'static [(&'static str, i64)],
}

/// One hook taw wants: `command` run on `event`.
#[derive(Debug, Clone)]
pub(crate) struct Hook {
    pub event: &'static str,
    pub command: String,
}

/// The file parsed, its errors given with its name and line.
pub(crate) fn parse(text: &str, file: &Path, dialect: Dialect) -> Result<CstRootNode> {
    let lenient = dialect == Dialect::Jsonc;
    if text.starts_with('\u{feff}') {
        return Err(TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{} starts with a byte-order mark, which JSON does not allow; it was not changed",
                paths::display(file)
            ),
        ));
    }
    // The tree always takes comments: plain JSON is checked as such first,
    // a key given twice included (the agent would read the last).
    if !lenient
        && !text.trim().is_empty()
        && let Err(error) = serde_json::from_str::<Unique>(text)
    {
        return Err(TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{} does not parse: {error}; it was not changed",
                paths::display(file)
            ),
        ));
    }
    let options = ParseOptions {
        allow_comments: lenient,
        allow_loose_object_property_names: false,
        allow_trailing_commas: lenient,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        ..ParseOptions::default()
    };
    let root = CstRootNode::parse(text, &options).map_err(|error| {
        TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{} does not parse: {error}; it was not changed",
                paths::display(file)
            ),
        )
    })?;
    if root.value().is_some_and(|v| v.as_object().is_none()) {
        return Err(not_object(file, "its top"));
    }
    Ok(root)
}

/// Any JSON value, refused when an object has a key twice.
struct Unique;

impl<'de> serde::Deserialize<'de> for Unique {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueVisitor)
    }
}

struct UniqueVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueVisitor {
    type Value = Unique;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> std::result::Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_unit<E>(self) -> std::result::Result<Unique, E> {
        Ok(Unique)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Unique, A::Error> {
        while seq.next_element::<Unique>()?.is_some() {}
        Ok(Unique)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Unique, A::Error> {
        let mut keys = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the key {key:?} is given twice"
                )));
            }
            map.next_value::<Unique>()?;
        }
        Ok(Unique)
    }
}

fn not_object(file: &Path, what: &str) -> TawError {
    TawError::new(
        ErrorCode::InvalidConfig,
        format!(
            "{}: {what} is not a JSON object, so taw cannot add its hook; it was not changed",
            paths::display(file)
        ),
    )
}

/// The object at `path` under the top, if every step is there.
fn find(root: &CstRootNode, path: &[&str]) -> Option<CstObject> {
    let mut object = root.object_value()?;
    for key in path {
        object = object.object_value(key)?;
    }
    Some(object)
}

/// Each hook command of an event's list, with the node that holds it.
fn commands(table: &HookTable, list: &CstArray) -> Vec<(CstNode, Option<CstArray>, String)> {
    let mut found = Vec::new();
    for element in list.elements() {
        let Some(entry) = element.as_object() else {
            continue;
        };
        match table.shape {
            Shape::Flat { command_key, .. } => {
                if let Some(command) = string_of(&entry, command_key) {
                    found.push((element.clone(), None, command));
                }
            }
            Shape::Grouped => {
                let Some(inner) = entry.array_value("hooks") else {
                    continue;
                };
                for hook in inner.elements() {
                    if let Some(command) = hook.as_object().and_then(|h| string_of(&h, "command")) {
                        found.push((hook.clone(), Some(inner.clone()), command));
                    }
                }
            }
        }
    }
    found
}

fn string_of(object: &CstObject, key: &str) -> Option<String> {
    match object.get(key)?.value()?.to_serde_value()? {
        Value::String(text) => Some(text),
        _ => None,
    }
}

/// What taw's hooks are in `text`: every command, whose it is.
pub(crate) fn owners(
    text: &str,
    file: &Path,
    dialect: Dialect,
    table: &HookTable,
    whose: &dyn Fn(&str) -> Owner,
) -> Result<Vec<(String, String, Owner)>> {
    let root = parse(text, file, dialect)?;
    let Some(events) = find(&root, table.path) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for property in events.properties() {
        let (Some(event), Some(list)) = (
            property.name().and_then(|n| n.decoded_value().ok()),
            property.value().and_then(|v| v.as_array()),
        ) else {
            continue;
        };
        for (_, _, command) in commands(table, &list) {
            let owner = whose(&command);
            found.push((event.clone(), command, owner));
        }
    }
    Ok(found)
}

/// `text` with taw's hooks: the ones there already kept where they are
/// when they are just these, else taken out and `hooks` added at the end
/// of each event's list.
pub(crate) fn add_hooks(
    text: &str,
    file: &Path,
    dialect: Dialect,
    table: &HookTable,
    hooks: &[Hook],
    whose: &dyn Fn(&str) -> Owner,
) -> Result<String> {
    let present = owners(text, file, dialect, table, whose)?;
    let ours: Vec<_> = present
        .iter()
        .filter(|(_, _, owner)| *owner == Owner::Taw)
        .collect();
    let same = ours.len() == hooks.len()
        && hooks.iter().all(|h| {
            ours.iter()
                .any(|(e, c, _)| *e == h.event && *c == h.command)
        });
    if same {
        return Ok(text.to_string());
    }
    // taw's older hooks out, the object that holds the hooks kept where it
    // is (taken out and made again, it would move to the file's end).
    let text = if ours.is_empty() {
        text.to_string()
    } else {
        take_out_hooks(text, file, dialect, table, None, true, whose)?.0
    };
    let root = parse(&text, file, dialect)?;
    let made_top = root.value().is_none();
    let top = root.object_value_or_set();
    if made_top {
        for (key, value) in table.preamble {
            top.append(key, CstInputValue::Number(value.to_string()));
        }
    }
    let mut object = top;
    for (depth, key) in table.path.iter().enumerate() {
        // A path of no keys is the top object itself (Mastra Code's).
        object = object
            .object_value_or_create(key)
            .ok_or_else(|| not_object(file, &format!("\"{}\"", table.path[..=depth].join("."))))?;
    }
    for hook in hooks {
        let list = object.array_value_or_create(hook.event).ok_or_else(|| {
            TawError::new(
                ErrorCode::InvalidConfig,
                format!(
                    "{}: \"{}\" is not a list, so taw cannot add its hook; it was not changed",
                    paths::display(file),
                    hook.event
                ),
            )
        })?;
        list.append(input(entry(table, &hook.command)));
    }
    Ok(root.to_string())
}

/// One hook as the table writes it.
fn entry(table: &HookTable, command: &str) -> Value {
    let mut hook = Map::new();
    let (typed, command_key) = match table.shape {
        Shape::Grouped => (true, "command"),
        Shape::Flat { command_key, typed } => (typed, command_key),
    };
    if typed {
        hook.insert("type".into(), "command".into());
    }
    hook.insert(command_key.into(), command.into());
    if let Some((key, timeout)) = table.timeout {
        hook.insert(key.into(), timeout.into());
    }
    for (key, value) in table.extra {
        let value = match value {
            Extra::Bool(b) => Value::Bool(*b),
            Extra::Text(t) => Value::String(t.to_string()),
        };
        hook.insert(key.to_string(), value);
    }
    match table.shape {
        Shape::Flat { .. } => Value::Object(hook),
        Shape::Grouped => {
            let mut group = Map::new();
            if let Some(matcher) = table.matcher {
                group.insert("matcher".into(), matcher.into());
            }
            group.insert("hooks".into(), Value::Array(vec![Value::Object(hook)]));
            Value::Object(group)
        }
    }
}

/// A JSON value as the CST takes it.
fn input(value: Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s),
        Value::Array(items) => CstInputValue::Array(items.into_iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.into_iter().map(|(k, v)| (k, input(v))).collect())
        }
    }
}

/// `text` without taw's hooks, and whether there were any. A group, an
/// event's list or the hooks object left empty by that goes too. Fails,
/// changing nothing, when a hook might be taw's.
pub(crate) fn remove_hooks(
    text: &str,
    file: &Path,
    dialect: Dialect,
    table: &HookTable,
    before: Option<&str>,
    whose: &dyn Fn(&str) -> Owner,
) -> Result<(String, bool)> {
    take_out_hooks(text, file, dialect, table, before, false, whose)
}

/// [`remove_hooks`], the object of hooks kept even when left empty
/// (`keep_table`) where taw's hooks go back in at once.
fn take_out_hooks(
    text: &str,
    file: &Path,
    dialect: Dialect,
    table: &HookTable,
    before: Option<&str>,
    keep_table: bool,
    whose: &dyn Fn(&str) -> Owner,
) -> Result<(String, bool)> {
    // A list or an object the file had before the install stays, empty or
    // not.
    let before = before.and_then(|b| parse(b, file, dialect).ok());
    let had = |keys: &[&str]| {
        before.as_ref().is_some_and(|root| {
            let (last, parents) = match keys.split_last() {
                Some(split) => split,
                None => return true,
            };
            find(root, parents).is_some_and(|o| o.get(last).is_some())
        })
    };
    for (_, _, owner) in owners(text, file, dialect, table, whose)? {
        if let Owner::Unsure(path) = owner {
            return Err(unsure(file, &path));
        }
    }
    let root = parse(text, file, dialect)?;
    let Some(events) = find(&root, table.path) else {
        return Ok((text.to_string(), false));
    };
    let mut removed = false;
    for property in events.properties() {
        let Some(list) = property.value().and_then(|v| v.as_array()) else {
            continue;
        };
        let mut emptied = false;
        let event = property
            .name()
            .and_then(|n| n.decoded_value().ok())
            .unwrap_or_default();
        for (node, inner, command) in commands(table, &list) {
            if whose(&command) != Owner::Taw {
                continue;
            }
            removed = true;
            node.remove();
            // The group whose "hooks" taw's hook was all of.
            if let Some(inner) = inner
                && inner.elements().is_empty()
                && let Some(group) = inner
                    .parent()
                    .and_then(|p| p.parent())
                    .and_then(|g| g.as_object())
            {
                group.remove();
            }
            emptied = list.elements().is_empty();
        }
        let mut keys = table.path.to_vec();
        keys.push(&event);
        if emptied && !had(&keys) {
            property.remove();
        }
    }
    if removed
        && !keep_table
        && events.properties().is_empty()
        && !table.path.is_empty()
        && !had(table.path)
    {
        // The object of hooks, when taw's were all it held.
        if let Some(property) = events.parent().and_then(|p| p.as_object_prop()) {
            property.remove();
        }
    }
    Ok((root.to_string(), removed))
}

/// Whether a list element is `item`: the string, an object whose
/// `package` it is, or a list that starts with it (OpenCode's forms).
fn is_item(node: &CstNode, item: &str) -> bool {
    match node.to_serde_value() {
        Some(Value::String(text)) => text == item,
        Some(Value::Object(map)) => map.get("package").and_then(Value::as_str) == Some(item),
        Some(Value::Array(list)) => list.first().and_then(Value::as_str) == Some(item),
        _ => false,
    }
}

/// `text` with `item` in the top object's list `key` (made when missing).
pub(crate) fn add_list_item(
    text: &str,
    file: &Path,
    dialect: Dialect,
    key: &str,
    item: &str,
) -> Result<String> {
    let root = parse(text, file, dialect)?;
    let top = root.object_value_or_set();
    let list = top.array_value_or_create(key).ok_or_else(|| {
        TawError::new(
            ErrorCode::InvalidConfig,
            format!(
                "{}: \"{key}\" is not a list, so taw cannot add {item:?}; it was not changed",
                paths::display(file)
            ),
        )
    })?;
    if list.elements().iter().any(|e| is_item(e, item)) {
        return Ok(text.to_string());
    }
    list.append(CstInputValue::String(item.to_string()));
    Ok(root.to_string())
}

/// `text` without `item` in the top object's list `key`, and whether it was
/// there; a list left empty goes.
pub(crate) fn remove_list_item(
    text: &str,
    file: &Path,
    dialect: Dialect,
    key: &str,
    item: &str,
    before: Option<&str>,
) -> Result<(String, bool)> {
    let had = before
        .and_then(|b| parse(b, file, dialect).ok())
        .and_then(|root| root.object_value())
        .is_some_and(|top| top.get(key).is_some());
    let root = parse(text, file, dialect)?;
    let Some(property) = root.object_value().and_then(|top| top.get(key)) else {
        return Ok((text.to_string(), false));
    };
    let Some(list) = property.value().and_then(|v| v.as_array()) else {
        return Ok((text.to_string(), false));
    };
    let ours: Vec<CstNode> = list
        .elements()
        .into_iter()
        .filter(|e| is_item(e, item))
        .collect();
    if ours.is_empty() {
        return Ok((text.to_string(), false));
    }
    for node in ours {
        node.remove();
    }
    if list.elements().is_empty() && !had {
        property.remove();
    }
    Ok((root.to_string(), true))
}

/// The refusal of a hook that might be taw's.
pub(crate) fn unsure(file: &Path, path: &str) -> TawError {
    TawError::invalid_argument(format!(
        "{} has a hook that runs {path:?}, which taw cannot tell is its own script or not; \
         nothing was changed. Remove that hook by hand if it is taw's, and try again",
        paths::display(file)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: HookTable = HookTable {
        path: &["hooks"],
        shape: Shape::Grouped,
        matcher: Some("*"),
        timeout: Some(("timeout", 10)),
        extra: &[],
        preamble: &[],
    };

    fn whose(command: &str) -> Owner {
        if command.starts_with("/taw/hooks/taw-agent-session.sh") {
            Owner::Taw
        } else if command.contains("taw-agent-session.sh") {
            Owner::Unsure(command.to_string())
        } else {
            Owner::Other
        }
    }

    fn ours() -> Vec<Hook> {
        vec![Hook {
            event: "SessionStart",
            command: "/taw/hooks/taw-agent-session.sh session".into(),
        }]
    }

    fn round_trip(before: &str) -> String {
        let file = Path::new("settings.json");
        let with = add_hooks(before, file, Dialect::Json, &CLAUDE, &ours(), &whose).unwrap();
        assert!(with.contains("taw-agent-session.sh session"), "{with}");
        // Installing again changes nothing.
        assert_eq!(
            add_hooks(&with, file, Dialect::Json, &CLAUDE, &ours(), &whose).unwrap(),
            with
        );
        let (without, removed) =
            remove_hooks(&with, file, Dialect::Json, &CLAUDE, None, &whose).unwrap();
        assert!(removed);
        without
    }

    #[test]
    fn the_users_hooks_and_keys_stay_byte_for_byte() {
        let before = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"matcher\": \"startup\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}\n    ],\n    \"Stop\": []\n  },\n  \"env\": {\"A\": \"1\"}\n}\n";
        assert_eq!(round_trip(before), before);
        let tabs = "{\n\t\"theme\": \"dark\",\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}\n\t\t]\n\t}\n}";
        assert_eq!(round_trip(tabs), tabs);
    }

    #[test]
    fn a_new_set_of_hooks_leaves_the_hooks_object_in_its_place() {
        let file = Path::new("settings.json");
        let before = "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"/taw/hooks/taw-agent-session.sh old\"}]}\n    ]\n  },\n  \"model\": \"opus\"\n}\n";
        let with = add_hooks(before, file, Dialect::Json, &CLAUDE, &ours(), &whose).unwrap();
        assert!(!with.contains(" old"), "{with}");
        assert!(with.contains("taw-agent-session.sh session"), "{with}");
        let hooks = with.find("\"hooks\"").unwrap();
        let model = with.find("\"model\"").unwrap();
        assert!(hooks < model, "{with}");
    }

    #[test]
    fn what_taw_made_goes_with_its_hook() {
        let before = "{\n  \"model\": \"opus\"\n}\n";
        let with = add_hooks(
            before,
            Path::new("s.json"),
            Dialect::Json,
            &CLAUDE,
            &ours(),
            &whose,
        )
        .unwrap();
        let value: Value = serde_json::from_str(&with).unwrap();
        assert_eq!(value["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 10);
        assert_eq!(value["hooks"]["SessionStart"][0]["matcher"], "*");
        let (without, _) = remove_hooks(
            &with,
            Path::new("s.json"),
            Dialect::Json,
            &CLAUDE,
            None,
            &whose,
        )
        .unwrap();
        assert_eq!(without, before);
    }

    #[test]
    fn a_list_item_in_and_out() {
        let file = Path::new("cli.json");
        for before in [
            "{\n  // mine\n  \"theme\": \"x\",\n}\n",
            "{\n  \"plugins\": [\"./mine\", [\"pkg\", {}]]\n}",
        ] {
            let with =
                add_list_item(before, file, Dialect::Jsonc, "plugins", "./taw-opencode").unwrap();
            assert!(with.contains("\"./taw-opencode\""), "{with}");
            assert_eq!(
                add_list_item(&with, file, Dialect::Jsonc, "plugins", "./taw-opencode").unwrap(),
                with
            );
            let (without, removed) = remove_list_item(
                &with,
                file,
                Dialect::Jsonc,
                "plugins",
                "./taw-opencode",
                None,
            )
            .unwrap();
            assert!(removed);
            assert_eq!(without, before);
        }
        assert!(add_list_item("{\"plugins\": 1}", file, Dialect::Jsonc, "plugins", "x").is_err());
    }

    #[test]
    fn a_hook_that_might_be_taws_refuses_the_removal() {
        let text = "{\"hooks\": {\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./taw-agent-session.sh\"}]}]}}";
        let error = remove_hooks(
            text,
            Path::new("s.json"),
            Dialect::Json,
            &CLAUDE,
            None,
            &whose,
        )
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
        assert!(error.message.contains("./taw-agent-session.sh"));
    }

    #[test]
    fn a_file_that_does_not_parse_names_its_line() {
        let error = add_hooks(
            "{\n  \"a\": 1,\n  \"b\" 2\n}",
            Path::new("/x/settings.json"),
            Dialect::Json,
            &CLAUDE,
            &ours(),
            &whose,
        )
        .unwrap_err();
        assert!(error.message.contains("line 3"), "{}", error.message);
        let error = add_hooks(
            "{\"hooks\": []}",
            Path::new("s.json"),
            Dialect::Json,
            &CLAUDE,
            &ours(),
            &whose,
        )
        .unwrap_err();
        assert!(error.message.contains("not a JSON object"));
        // Comments are JSONC's, not JSON's.
        assert!(
            add_hooks(
                "// c\n{}",
                Path::new("s.json"),
                Dialect::Json,
                &CLAUDE,
                &ours(),
                &whose
            )
            .is_err()
        );
        let jsonc = "// mine\n{\n  \"a\": 1, // one\n}\n";
        let with = add_hooks(
            jsonc,
            Path::new("s.json"),
            Dialect::Jsonc,
            &CLAUDE,
            &ours(),
            &whose,
        )
        .unwrap();
        let (without, _) = remove_hooks(
            &with,
            Path::new("s.json"),
            Dialect::Jsonc,
            &CLAUDE,
            None,
            &whose,
        )
        .unwrap();
        assert_eq!(without, jsonc);
    }
}
