//! The documentation names every verb where a user looks for it. (The
//! unit tests of `config::schema` and `tmux::options` check the config keys
//! and the plugin options.)

use crate::common::{TmuxServer, repo_root};

fn read(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
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
