//! The documentation names what the code has: every option, config key and
//! verb appears where a user looks for it.

mod common;

use common::{TmuxServer, repo_root};
use tmux_agent_wizard::config::schema;
use tmux_agent_wizard::tmux::options;

fn read(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_plugin_option_is_in_options_md() {
    let doc = read("docs/OPTIONS.md");
    for option in options::PLUGIN_OPTIONS {
        assert!(
            doc.contains(&format!("`{}`", option.name)),
            "{} missing",
            option.name
        );
    }
    for name in options::bookkeeping::ALL {
        assert!(doc.contains(&format!("`{name}`")), "{name} missing");
    }
}

#[test]
fn every_config_key_is_in_config_md() {
    let doc = read("docs/CONFIG.md");
    for key in schema::KEYS {
        assert!(
            doc.contains(&format!("`{}`", key.path)),
            "{} missing",
            key.path
        );
    }
    for name in schema::HOOK_EVENTS
        .iter()
        .chain(schema::VETO_HOOKS)
        .chain(schema::ACTIONS)
    {
        assert!(doc.contains(&format!("`{name}`")), "{name} missing");
    }
}

#[test]
fn every_verb_is_in_the_docs() {
    let server = TmuxServer::empty();
    let help = server.taw_bare(&["--help"], &[]).stdout;
    let docs = [
        "README.md",
        "docs/PARITY.md",
        "docs/DETECTION.md",
        "docs/SCRIPTING.md",
    ]
    .iter()
    .map(|path| read(path))
    .collect::<Vec<_>>()
    .join("\n");
    for line in help.lines().filter(|l| l.trim_start().starts_with("taw ")) {
        let mut words = line.split_whitespace().skip(1);
        let (group, verb) = (words.next().unwrap(), words.next().unwrap());
        assert!(
            docs.contains(&format!("{group} {verb}"))
                || docs.contains(&format!("{group} list|{verb}"))
                || docs.contains(&format!("|{verb}")),
            "`taw {group} {verb}` is in no doc"
        );
    }
}
