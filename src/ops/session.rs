//! Opening a session for a directory (`session open`, `taw open`, the
//! popup's new-session picker): the session that already has the path, or
//! a new one named per `[sessions] name`, with a longer name when a
//! shorter one is taken, after the pre-create hook says yes.

use super::navigate;
use crate::config::Config;
use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::exec::Program;
use crate::sessions::folders::{self, tilde};
use crate::tmux::Tmux;
use crate::tmux::arrange::{self, Spawn};
use crate::tmux::commands as cmd;
use crate::tmux::snapshot::Snapshot;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What opening did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Opened {
    /// The name the session has.
    pub session: String,
    /// False when a session already had the path.
    pub created: bool,
    /// Why a shorter name was not used, when it was taken.
    pub collision: Option<String>,
    /// False when there was no client to move.
    pub switched: bool,
    /// The session's tmux id (`$N`), which `taw app` attaches to; null
    /// when tmux did not say it.
    pub session_id: Option<String>,
}

/// `session folders`: the folders the new-session picker offers for a
/// query (taw app asks a far machine for its own).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Folders {
    pub query: String,
    pub folders: Vec<String>,
}

answers!(Opened => "session_open", Folders => "session_folders");

/// Opens the session for `dir` (a resolved directory), and moves `client`
/// onto it.
pub(crate) fn open(
    tmux: &Tmux,
    config: &Config,
    dir: &Path,
    client: Option<&str>,
) -> Result<Opened> {
    let snapshot = Snapshot::read(tmux)?;
    let same_dir = |path: &str| {
        Path::new(path)
            .canonicalize()
            .map(|p| p == dir)
            .unwrap_or(path == dir.to_string_lossy())
    };
    if let Some(session) = snapshot.sessions.iter().find(|s| same_dir(&s.path)) {
        navigate::to_session(tmux, session.id, client)?;
        remember(config, dir);
        return Ok(Opened {
            session: session.name.clone(),
            created: false,
            collision: None,
            switched: client.is_some(),
            session_id: Some(format!("${}", session.id)),
        });
    }
    let names = folders::candidate_names(dir, &config.get(&crate::config::schema::SESSIONS_NAME));
    let (name, collision) = free_name(&snapshot, &names);
    let limit = folders::hook_limit(config);
    let pre = config.get(&crate::config::schema::SESSIONS_PRE_CREATE_HOOK);
    if !pre.trim().is_empty() {
        folders::run_hook(&pre, &name, dir, limit).map_err(|why| {
            TawError::new(
                ErrorCode::HookRefused,
                format!("the pre-create hook {pre:?} refused session {name}: it {why}; nothing was created"),
            )
        })?;
    }
    let spawn = Spawn {
        cwd: Some(dir.to_string_lossy().into_owned()),
        ..Spawn::default()
    };
    let made = tmux.run_one(arrange::new_session(Some(&name), &spawn, None))?;
    let session_id = arrange::parse_new_ids(&made).map(|(session, _, _)| format!("${session}"));
    let post = config.get(&crate::config::schema::SESSIONS_POST_CREATE_HOOK);
    if !post.trim().is_empty() {
        // A failing post hook does not undo the session, nor fail the open.
        let _ = folders::run_hook(&post, &name, dir, limit);
    }
    if let Some(client) = client {
        tmux.run_one(cmd::switch_client(client, &format!("={name}")))?;
    }
    remember(config, dir);
    Ok(Opened {
        session: name,
        created: true,
        collision,
        switched: client.is_some(),
        session_id,
    })
}

/// The first of `names` no session has, with why a shorter one was not
/// used; when every one is taken, a number after the longest.
fn free_name(snapshot: &Snapshot, names: &[String]) -> (String, Option<String>) {
    let taken = |name: &str| snapshot.sessions.iter().find(|s| s.name == name);
    let mut collision = None;
    for name in names {
        match taken(name) {
            Some(other) => {
                collision.get_or_insert_with(|| {
                    format!("\"{name}\" is taken by {}", tilde(Path::new(&other.path)))
                });
            }
            None => return (name.clone(), collision),
        }
    }
    let base = names.last().cloned().unwrap_or_else(|| "session".into());
    let numbered = (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|n| taken(n).is_none())
        .unwrap_or(base);
    (numbered, collision)
}

/// `zoxide add` after an open, when `[sessions] zoxide` is on.
fn remember(config: &Config, dir: &Path) {
    if config.get(&crate::config::schema::SESSIONS_ZOXIDE) {
        // Ranking the folder for next time is a nicety; the session is open.
        let _ = Program::new("zoxide")
            .args(["add", "--"])
            .arg(dir)
            .discard_stdout()
            .discard_stderr()
            .output();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::snapshot::fixture;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_shortest_free_name_is_taken_and_the_clash_before_it_said() {
        let snapshot = fixture::server();
        assert_eq!(
            free_name(&snapshot, &names(&["shop", "src/shop"])),
            ("shop".into(), None)
        );
        let (name, collision) = free_name(&snapshot, &names(&["api", "work/api"]));
        assert_eq!(name, "work/api");
        assert_eq!(
            collision.as_deref(),
            Some("\"api\" is taken by /home/u/api")
        );
    }

    #[test]
    fn with_every_name_taken_the_longest_gets_a_number() {
        let mut snapshot = fixture::server();
        snapshot.sessions.push(fixture::session(3, "web-2"));
        let (name, collision) = free_name(&snapshot, &names(&["api", "web"]));
        assert_eq!(name, "web-3");
        // The first clash is the one told.
        assert!(collision.unwrap().starts_with("\"api\""));
        assert_eq!(free_name(&snapshot, &[]).0, "session-2");
    }
}
