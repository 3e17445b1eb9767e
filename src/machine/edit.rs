//! `taw machine add` and `remove`: one machine put into config.toml or
//! taken out, every other byte of the file kept, written whole or not at
//! all.

use super::Machine;
use crate::config::Config;
use crate::config::{check_destination, check_machine_name as check_name};
use crate::envelope::{Result, TawError, answers};
use crate::paths;
use serde::Serialize;
use std::path::Path;
use toml_edit::DocumentMut;

const NOTE: &str = "taw app shows the change the next time it opens";

#[derive(Debug, Clone, Serialize)]
pub(crate) struct MachineAdded {
    pub machine: Machine,
    pub config: String,
    pub note: String,
}

answers!(MachineAdded => "machine_added");

#[derive(Debug, Clone, Serialize)]
pub(crate) struct MachineRemoved {
    pub removed: String,
    pub config: String,
    pub note: String,
}

answers!(MachineRemoved => "machine_removed");

fn parse(text: &str, file: &Path) -> Result<DocumentMut> {
    text.parse::<DocumentMut>().map_err(|error| {
        let line = error
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1)
            .map(|line| format!("line {line}: "))
            .unwrap_or_default();
        TawError::invalid_argument(format!(
            "{} does not parse ({line}{}); it was not changed",
            paths::display(file),
            error.message().trim()
        ))
    })
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    toml_edit::Value::from(text).to_string().trim().to_string()
}

/// Whether the file's own words name the machine (a line or a table under
/// `[machines]`), whatever the checker thought of it.
fn named(document: &DocumentMut, name: &str) -> bool {
    document
        .get("machines")
        .and_then(|m| m.as_table_like())
        .is_some_and(|machines| machines.contains_key(name))
}

/// Whether the document has a `[machines]` table of its own header.
fn has_dotted_machines(document: &DocumentMut) -> bool {
    document
        .get("machines")
        .and_then(|m| m.as_table())
        .is_some_and(|table| table.is_dotted())
}

/// The config's text: none when there is no file; an unreadable one is an
/// error, never taken for an empty one.
fn read(file: &Path) -> Result<String> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(error) => Err(TawError::new(
            crate::envelope::ErrorCode::IoError,
            format!("could not read {}: {error}", paths::display(file)),
        )),
    }
}

/// Held from the read to the write: two adds at once would each write
/// the file as it was plus their own machine, and one would be lost. The
/// lock file is beside the config (`.config.toml.lock`), in taw's folder.
fn take_turn(file: &Path) -> Result<paths::FileLock> {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let lock = file.with_file_name(format!(".{name}.lock"));
    paths::take_turn(&lock).map_err(|error| {
        TawError::io(format!(
            "could not open {}: {error}; nothing was changed",
            paths::display(&lock)
        ))
    })
}

fn has_machines_header(document: &DocumentMut) -> bool {
    document
        .get("machines")
        .and_then(|m| m.as_table())
        .is_some_and(|table| !table.is_implicit() && !table.is_dotted())
}

/// `taw machine add <name> <destination> [--taw <path>]`.
pub(crate) fn add(
    file: &Path,
    name: &str,
    destination: &str,
    taw: Option<&str>,
) -> Result<MachineAdded> {
    check_name(name).map_err(TawError::invalid_argument)?;
    check_destination(destination).map_err(TawError::invalid_argument)?;
    if let Some(taw) = taw
        && (taw.trim().is_empty() || taw.chars().any(char::is_control))
    {
        return Err(TawError::invalid_argument(format!(
            "--taw {taw:?} is no path to a taw binary"
        )));
    }
    let _turn = take_turn(file)?;
    let text = read(file)?;
    let document = parse(&text, file)?;
    let listed = super::machines(&Config::parse(file, &text));
    if named(&document, name) || listed.iter().any(|m| m.name == name) {
        return Err(TawError::invalid_argument(format!(
            "a machine called {name} is in {} already; `taw machine remove {name}` takes it out",
            paths::display(file)
        )));
    }
    let new_text = match taw {
        // A table of its own, at the end.
        Some(taw) => append(
            &text,
            &format!(
                "[machines.{name}]\nssh = {}\ntaw = {}\n",
                toml_string(destination),
                toml_string(taw)
            ),
        ),
        // Under its header, or beside dotted `machines.x` keys (a header
        // after those would make the file no TOML).
        None if has_machines_header(&document) || has_dotted_machines(&document) => {
            let mut document = document;
            document["machines"][name] = toml_edit::value(destination);
            crate::text::with_bom_of(&text, document.to_string())
        }
        None => append(
            &text,
            &format!("[machines]\n{name} = {}\n", toml_string(destination)),
        ),
    };
    // The file must read back with the machine in it, or it stays as it was.
    parse(&new_text, file)?;
    let machine = super::machines(&Config::parse(file, &new_text))
        .into_iter()
        .find(|m| m.name == name)
        .ok_or_else(|| {
            TawError::invalid_argument(format!(
                "{} has a [machines] taw cannot add {name} to (an inline table?); it was not changed",
                paths::display(file)
            ))
        })?;
    write(file, &new_text)?;
    Ok(MachineAdded {
        machine,
        config: file.display().to_string(),
        note: NOTE.into(),
    })
}

/// `taw machine remove <name>`: its line, or its table, and nothing else.
pub(crate) fn remove(file: &Path, name: &str) -> Result<MachineRemoved> {
    let _turn = take_turn(file)?;
    let text = read(file)?;
    let mut document = parse(&text, file)?;
    if !named(&document, name) {
        return Err(TawError::not_found(format!(
            "no machine is called {name:?} in {}; `taw machine list` shows them",
            paths::display(file)
        )));
    }
    if let Some(machines) = document
        .get_mut("machines")
        .and_then(|m| m.as_table_like_mut())
    {
        machines.remove(name);
    }
    let new_text = crate::text::with_bom_of(&text, document.to_string());
    if named(&parse(&new_text, file)?, name) {
        return Err(TawError::invalid_argument(format!(
            "{name} could not be taken out of {}; it was not changed",
            paths::display(file)
        )));
    }
    write(file, &new_text)?;
    Ok(MachineRemoved {
        removed: name.to_string(),
        config: file.display().to_string(),
        note: NOTE.into(),
    })
}

/// `text` with `block` after it, a blank line between.
fn append(text: &str, block: &str) -> String {
    let mut out = text.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(block);
    out
}

/// Writes config.toml whole, into the file a link names (a dotfiles
/// repository's) rather than over the link, with its mode. A write that
/// fails (a full disk) is an I/O error, the file as it was.
fn write(file: &Path, text: &str) -> Result<()> {
    paths::write_user_file(file, text.as_bytes()).map_err(|error| {
        TawError::io(format!(
            "could not write {}: {error}; it was not changed",
            paths::display(file)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_stays() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(&config, "\u{feff}# mine\n[machines]\na = \"host-a\"\n").unwrap();
        let added = add(&config, "b", "host-b", None).unwrap();
        assert_eq!(added.machine.destination, "host-b");
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.starts_with("\u{feff}# mine\n"), "{text:?}");
        remove(&config, "a").unwrap();
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.starts_with("\u{feff}# mine\n"), "{text:?}");
        assert!(!text.contains("host-a"), "{text:?}");
    }

    #[test]
    fn adds_at_once_each_keep_their_machine() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(&config, "# mine\n").unwrap();
        std::thread::scope(|scope| {
            for n in 0..8 {
                let config = &config;
                scope.spawn(move || {
                    add(config, &format!("m{n}"), &format!("host{n}"), None).unwrap();
                });
            }
        });
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.starts_with("# mine\n"), "{text}");
        for n in 0..8 {
            assert!(text.contains(&format!("m{n} = \"host{n}\"")), "{text}");
        }
        remove(&config, "m3").unwrap();
        assert!(!std::fs::read_to_string(&config).unwrap().contains("m3 ="));
    }

    #[test]
    fn a_linked_config_is_written_through_its_link() {
        let dir = tempfile::tempdir().unwrap();
        let dotfiles = dir.path().join("dotfiles/taw.toml");
        std::fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
        std::fs::write(&dotfiles, "# mine\n").unwrap();
        let link = dir.path().join("config.toml");
        std::os::unix::fs::symlink(&dotfiles, &link).unwrap();
        write(&link, "# mine\n[machines.a]\n").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(&dotfiles).unwrap(),
            "# mine\n[machines.a]\n"
        );
    }

    fn config(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        if !text.is_empty() {
            std::fs::write(&file, text).unwrap();
        }
        (dir, file)
    }

    #[test]
    fn add_keeps_every_byte_and_appends() {
        let before = "# my config\n[ui]  # the popup\ndepth = \"all\"   # everything\n";
        let (_dir, file) = config(before);
        add(&file, "studio", "me@studio.local", None).unwrap();
        let after = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            after,
            format!("{before}\n[machines]\nstudio = \"me@studio.local\"\n")
        );
        add(&file, "lab", "lab", Some("/opt/taw/taw")).unwrap();
        let after = std::fs::read_to_string(&file).unwrap();
        assert!(after.starts_with(before));
        assert!(after.ends_with("[machines.lab]\nssh = \"lab\"\ntaw = \"/opt/taw/taw\"\n"));
        // Into a [machines] of its own header, as a line.
        add(&file, "third", "t.example", None).unwrap();
        let after = std::fs::read_to_string(&file).unwrap();
        assert!(
            after.contains("studio = \"me@studio.local\"\nthird = \"t.example\"\n"),
            "{after}"
        );
        assert!(after.starts_with(before));
    }

    #[test]
    fn a_machine_goes_beside_dotted_machine_keys() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let before = "machines.studio = \"me@studio\"\n";
        std::fs::write(&file, before).unwrap();
        add(&file, "lab", "lab", None).unwrap();
        let after = std::fs::read_to_string(&file).unwrap();
        assert!(after.starts_with(before), "{after}");
        let listed = super::super::machines(&Config::parse(&file, &after));
        assert_eq!(listed.len(), 2, "{after}");
    }

    #[test]
    fn add_refuses_and_leaves_the_file() {
        let before = "[machines]\nstudio = \"me@studio\"\n";
        let (_dir, file) = config(before);
        for (name, destination) in [
            ("studio", "other"),
            ("bad name", "x"),
            ("x", "-oProxyCommand=evil"),
            ("x", ""),
        ] {
            assert!(
                add(&file, name, destination, None).is_err(),
                "{name} {destination}"
            );
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
        let broken = "[ui\n";
        let (_dir, file) = config(broken);
        let error = add(&file, "x", "y", None).unwrap_err();
        assert!(
            error.message.contains("does not parse"),
            "{}",
            error.message
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
    }

    #[test]
    fn remove_takes_out_the_line_or_the_table_alone() {
        let before = "# top\n[machines]\nstudio = \"s\" # mine\nlab2 = \"l\"\n\n[machines.lab]\nssh = \"lab\"\ntaw = \"/t\"\n\n[ui]\ndepth = \"all\"\n";
        let (_dir, file) = config(before);
        remove(&file, "lab").unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "# top\n[machines]\nstudio = \"s\" # mine\nlab2 = \"l\"\n\n[ui]\ndepth = \"all\"\n"
        );
        remove(&file, "lab2").unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "# top\n[machines]\nstudio = \"s\" # mine\n\n[ui]\ndepth = \"all\"\n"
        );
        let error = remove(&file, "nothing").unwrap_err();
        assert_eq!(error.code, crate::envelope::ErrorCode::NotFound);
    }
}
