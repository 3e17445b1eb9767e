//! The layers of docs/ARCHITECTURE.md, checked on the source as a reviewer
//! would read it: every `crate::` path of src/ (test code aside) is an
//! edge from its top-level module to another. No cycle among the
//! top-level modules; a front end is used only by the entry (`cli`,
//! `setup`), and never by another front end or by the core.
#![allow(clippy::disallowed_methods)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The front ends: each a way in for a person or a program, on the core.
const FRONT_ENDS: &[&str] = &["ui", "app", "web"];
/// What starts everything: the command line, and the load it runs.
const ENTRY: &[&str] = &["cli", "setup"];

/// Each top-level module and the modules it names, with where.
type Edges = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn top_level(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            match name.strip_suffix(".rs") {
                Some(stem) => Some(stem.to_string()),
                None if entry.path().is_dir() => Some(name),
                None => None,
            }
        })
        .filter(|name| name != "main" && name != "lib")
        .collect()
}

/// The production code of a file: every line but its comments and the
/// items marked `#[cfg(test)]` (a test module, a helper), each blank in
/// its place so line numbers stay true. An item ends at the line that
/// closes it at its own indentation (rustfmt's layout), or at its own
/// line when it is one line.
fn code_of(text: &str) -> String {
    let mut lines = Vec::new();
    let mut skipping: Option<String> = None;
    let mut item_started = false;
    for line in text.lines() {
        if let Some(indent) = &skipping {
            // Its other attributes and its doc come before the item.
            let head = line.trim_start();
            if !item_started && (head.starts_with("#[") || head.starts_with("//")) {
                lines.push("");
                continue;
            }
            let first = !item_started;
            item_started = true;
            let closes = line == format!("{indent}}}")
                || (first && (line.trim_end().ends_with(';') || line.trim_end().ends_with('}')));
            if closes {
                skipping = None;
            }
            lines.push("");
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed == "#[cfg(test)]" {
            skipping = Some(line[..line.len() - trimmed.len()].to_string());
            item_started = false;
            lines.push("");
            continue;
        }
        lines.push(if trimmed.starts_with("//") { "" } else { line });
    }
    lines.join("\n")
}

/// Every `.rs` file under `src`.
fn rust_files(src: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for path in std::fs::read_dir(&folder)
            .unwrap()
            .flatten()
            .map(|e| e.path())
        {
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found
}

/// Where a program is started (`Program::new("NAME"`) outside its home:
/// `file:line` of each.
fn started_outside(src: &Path, program: &str, home: &str) -> Vec<String> {
    let call = format!("Program::new(\"{program}\"");
    let mut found = Vec::new();
    for path in rust_files(src) {
        let relative = path.strip_prefix(src).unwrap().display().to_string();
        if relative.starts_with(home) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&path).unwrap());
        for (number, line) in code.lines().enumerate() {
            if line.contains(&call) {
                found.push(format!("src/{relative}:{}", number + 1));
            }
        }
    }
    found
}

#[test]
fn tmux_runs_only_from_the_tmux_layer_and_git_only_from_git_rs() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tmux = started_outside(&src, "tmux", "tmux/");
    assert!(tmux.is_empty(), "tmux started outside src/tmux/: {tmux:?}");
    let git = started_outside(&src, "git", "git.rs");
    assert!(git.is_empty(), "git started outside src/git.rs: {git:?}");
}

/// The top-level modules a piece of code names through `crate::`.
fn named(code: &str, modules: &BTreeSet<String>) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let words: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end]
                    .split(',')
                    .filter_map(|item| item.trim().split("::").next())
                    .map(str::to_string)
                    .collect()
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                vec![rest[..end].to_string()]
            };
            for word in words {
                if modules.contains(&word) {
                    found.push((word, number + 1));
                }
            }
        }
    }
    found
}

fn edges(src: &Path) -> Edges {
    let modules = top_level(src);
    let mut edges = Edges::new();
    for path in rust_files(src) {
        let relative = path.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap();
        let from = first.as_os_str().to_string_lossy();
        let from = from.strip_suffix(".rs").unwrap_or(&from).to_string();
        if !modules.contains(&from) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&path).unwrap());
        for (to, line) in named(&code, &modules) {
            if to != from {
                edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default()
                    .push(format!("{}:{line}", relative.display()));
            }
        }
    }
    edges
}

/// A cycle through `start`, if there is one: the modules along it.
fn cycle_through(edges: &Edges, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((at, path)) = stack.pop() {
        for next in edges.get(&at).into_iter().flat_map(|to| to.keys()) {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(next.clone());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

/// Where `from` names `to`, for a failure's message.
fn places(edges: &Edges, from: &str, to: &str) -> String {
    edges[from][to].join(", ")
}

fn layering_faults(edges: &Edges) -> Vec<String> {
    let mut faults = Vec::new();
    let mut told = BTreeSet::new();
    for module in edges.keys() {
        if let Some(cycle) = cycle_through(edges, module) {
            let key: BTreeSet<String> = cycle.iter().cloned().collect();
            if told.insert(key) {
                let steps: Vec<String> = cycle
                    .windows(2)
                    .map(|pair| {
                        format!(
                            "{} -> {} ({})",
                            pair[0],
                            pair[1],
                            places(edges, &pair[0], &pair[1])
                        )
                    })
                    .collect();
                faults.push(format!("an import cycle: {}", steps.join("; ")));
            }
        }
    }
    for (from, named) in edges {
        for to in named.keys() {
            let from_entry = ENTRY.contains(&from.as_str());
            if to == "cli" || (to == "setup" && from != "cli") {
                faults.push(format!(
                    "{from} uses {to}, the entry ({})",
                    places(edges, from, to)
                ));
            } else if FRONT_ENDS.contains(&to.as_str()) && !from_entry {
                let what = if FRONT_ENDS.contains(&from.as_str()) {
                    "another front end"
                } else {
                    "a front end, from the core"
                };
                faults.push(format!(
                    "{from} uses {to}, {what} ({})",
                    places(edges, from, to)
                ));
            }
        }
    }
    faults
}

#[test]
fn the_code_keeps_its_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let faults = layering_faults(&edges(&src));
    assert!(
        faults.is_empty(),
        "docs/ARCHITECTURE.md's layers broken:\n{}",
        faults.join("\n")
    );
}

#[test]
fn the_module_table_names_every_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    for module in top_level(&root.join("src")) {
        let folder = format!("| `src/{module}/`");
        let file = format!("`src/{module}.rs`");
        assert!(
            doc.contains(&folder) || doc.contains(&file),
            "docs/ARCHITECTURE.md's module table lacks src/{module}"
        );
    }
}

#[test]
fn the_check_sees_a_cycle_and_a_front_end_used_from_below() {
    let modules: BTreeSet<String> = ["a", "b", "ui", "web", "cli"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        named(
            &code_of("use crate::{a, b::x};\nlet y = crate::ui::run();\n// crate::web\n"),
            &modules
        ),
        [
            ("a".to_string(), 1),
            ("b".to_string(), 1),
            ("ui".to_string(), 2)
        ]
    );
    let edge = |from: &str, to: &str, edges: &mut Edges| {
        edges
            .entry(from.into())
            .or_default()
            .insert(to.into(), vec![format!("src/{from}.rs:1")]);
    };
    let mut edges = Edges::new();
    edge("a", "b", &mut edges);
    edge("b", "a", &mut edges);
    edge("ui", "web", &mut edges);
    edge("a", "ui", &mut edges);
    edge("cli", "ui", &mut edges);
    let faults = layering_faults(&edges);
    assert_eq!(faults.len(), 3, "{faults:?}");
    assert!(
        faults[0].starts_with("an import cycle: a -> b"),
        "{faults:?}"
    );
    assert!(
        faults
            .iter()
            .any(|f| f.starts_with("ui uses web, another front end"))
    );
    assert!(
        faults
            .iter()
            .any(|f| f.starts_with("a uses ui, a front end, from the core"))
    );
    // A test module is left out; the production code after it is read.
    assert_eq!(
        code_of(
            "x\n#[cfg(test)]\nmod tests {\n    crate::a\n}\ncrate::b\n    #[cfg(test)]\n    fn f() {}\nz"
        ),
        "x\n\n\n\n\ncrate::b\n\n\nz"
    );
    assert_eq!(
        code_of("#[cfg(test)]\n#[allow(x)]\n/// doc\nfn g() {\n    crate::a\n}\ncrate::c"),
        "\n\n\n\n\n\ncrate::c"
    );
}
