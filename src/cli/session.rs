//! `taw session open <path>`: the session for a directory, made when there
//! is none, and the client moved onto it. `taw open [terms]` is the same
//! for a person at a shell (tmux-session-wizard's `t`). `taw session save`
//! and `restore`: every session's layout and agents, kept and made again.

use super::Context;
use crate::config::Config;
use crate::envelope::{self, Reply, Result, TawError};
use crate::exec::Program;
use crate::ops::session::{self as op, Opened};
use crate::sessions::folders;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Open the session for a directory (made when none has it), and go there.
    Open {
        /// The directory.
        path: String,
        /// Make or find the session and move no client (taw app's, on a far machine).
        #[arg(long)]
        no_focus: bool,
    },
    /// The folders the new-session picker offers for a query.
    Folders {
        /// What is typed, as one argument: a path to complete, or text to rank by.
        #[arg(default_value = "")]
        query: String,
    },
    /// Save every session, window and pane, with each pane's agent and what resumes it.
    Save {
        /// The layout's name (default: default).
        #[arg(long)]
        name: Option<String>,
    },
    /// Save the default layout once changes settle (tmux's hooks run this; not for a person).
    #[command(hide = true)]
    Autosave,
    /// The tmux servers of your socket folder, as herdr lists its named sessions.
    List {
        /// herdr's JSON line: {"sessions": [...]}.
        #[arg(long)]
        json: bool,
    },
    /// Make the saved sessions that are not open again, and resume their agents' conversations.
    Restore {
        /// The layout's name (default: default).
        #[arg(long)]
        name: Option<String>,
        /// Say what would be made and typed; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::Open { path, no_focus } => open(context, &path, no_focus),
        Verb::Folders { query } => folders(&query),
        Verb::Save { name } => crate::ops::save::save(
            &context.tmux(),
            name.as_deref()
                .unwrap_or(crate::sessions::saved::DEFAULT_NAME),
        )
        .map(Reply::of),
        Verb::Autosave => crate::ops::save::autosave(&context.tmux()).map(Reply::of),
        Verb::List { json } => Ok(list(json)),
        Verb::Restore { name, dry_run } => restore(context, name, dry_run),
    }
}

fn restore(context: &Context, name: Option<String>, dry_run: bool) -> Result<Reply> {
    let config = Config::load()?;
    let delay = config.get(&crate::config::schema::SESSION_STARTUP_PER_AGENT_DELAY_MS);
    let args = crate::ops::restore::Restore {
        name,
        dry_run,
        delay: std::time::Duration::from_millis(delay.max(0) as u64),
        resume: config.get(&crate::config::schema::SESSION_RESUME_AGENTS_ON_RESTORE),
        home: crate::paths::home_dir().unwrap_or_else(|| PathBuf::from("/")),
    };
    crate::ops::restore::restore(&context.tmux(), &args).map(Reply::of)
}

/// `session list`: herdr prints its sessions as they are, with no
/// envelope: one JSON line with `--json`, else a table.
fn list(json: bool) -> Reply {
    let servers = crate::tmux::servers::list();
    if json {
        let line = serde_json::json!({ "sessions": servers });
        return Reply::Text(format!("{line}\n"));
    }
    let mut text = format!(
        "{:<20} {:<8} {:<48} {}\n",
        "name", "status", "directory", "socket"
    );
    for server in servers {
        let status = if server.running { "running" } else { "stopped" };
        text.push_str(&format!(
            "{:<20} {:<8} {:<48} {}\n",
            server.name, status, server.session_dir, server.socket_path
        ));
    }
    Reply::Text(text)
}

/// The picker's folders, as `session_folders`: the query and its list.
fn folders(query: &str) -> Result<Reply> {
    // A config that does not parse lists the defaults' folders, as the
    // picker does.
    let (config, _) = Config::load_or_defaults();
    Ok(Reply::of(crate::ops::session::Folders {
        query: query.to_string(),
        folders: folders::directories(&config, query),
    }))
}

fn open(context: &Context, path: &str, no_focus: bool) -> Result<Reply> {
    let dir = folders::resolve_dir(path)?;
    let config = Config::load()?;
    let client = match no_focus {
        true => None,
        false => context.snapshot()?.last_client().map(|c| c.name.clone()),
    };
    Ok(Reply::of(op::open(
        &context.tmux(),
        &config,
        &dir,
        client.as_deref(),
    )?))
}

#[derive(Debug, Args)]
pub(crate) struct OpenArgs {
    /// A directory, or words zoxide finds one by.
    pub terms: Vec<String>,
    /// Print the session_open result and attach nothing.
    #[arg(long)]
    pub json: bool,
}

/// A failure of `taw open`: the error, and the exit status a person gets.
struct Failure(TawError, i32);

/// `taw open`: prints nothing when it works (or the result with --json).
pub(crate) fn open_for_a_person(context: &Context, args: OpenArgs) -> i32 {
    let inside = std::env::var("TMUX").is_ok_and(|v| !v.is_empty());
    if args.json {
        let answer = find_and_open(context, &args, inside).map_err(|f| f.0);
        return envelope::emit("cli:open", answer.map(Reply::of));
    }
    match find_and_open(context, &args, inside) {
        Ok(opened) => {
            if inside || opened.switched {
                return envelope::EXIT_OK;
            }
            let error = context.tmux().attach(&opened.session);
            eprintln!("taw open: {}", error.message);
            1
        }
        // The popup opened and closed: nothing to say.
        Err(Failure(_, 0)) => envelope::EXIT_OK,
        Err(Failure(error, status)) => {
            eprintln!("taw open: {}", error.message);
            status
        }
    }
}

fn usage(why: &str, status: i32) -> Failure {
    Failure(TawError::invalid_argument(why), status)
}

fn find_and_open(
    context: &Context,
    args: &OpenArgs,
    inside: bool,
) -> std::result::Result<Opened, Failure> {
    use std::io::IsTerminal;
    if args.terms.is_empty() {
        if args.json {
            return Err(usage(
                "--json needs terms: a directory or words for zoxide",
                1,
            ));
        }
        if !inside {
            return Err(usage(
                "give a directory or words for zoxide: outside tmux there is no popup for the picker",
                2,
            ));
        }
        // Inside tmux: the popup with the picker open.
        return match super::ui::open(context, None, true) {
            Ok(_) => Err(usage("", 0)),
            Err(error) => Err(Failure(error, 1)),
        };
    }
    if !inside && !args.json && !std::io::stdin().is_terminal() {
        return Err(usage(
            "this is not a terminal to attach; use --json to open without attaching",
            2,
        ));
    }
    // A relative path needs the current directory, which can have been
    // removed under the shell: that is a use that cannot work (exit 2).
    let joined = args.terms.join(" ");
    if joined.starts_with('.') && std::env::current_dir().is_err() {
        return Err(usage(
            "the current directory cannot be read; give a path from / or ~, or words for zoxide",
            2,
        ));
    }
    let dir = find_dir(&args.terms).map_err(|error| Failure(error, 1))?;
    let config = Config::load().map_err(|e| Failure(e, 1))?;
    let tmux = context.tmux();
    // Inside tmux: the client showing the pane this runs in.
    let client = if inside {
        context.snapshot().ok().and_then(|snapshot| {
            let session = super::calling_pane(&snapshot)
                .and_then(|pane| snapshot.pane_as_seen(pane))
                .map(|pane| pane.session);
            snapshot.last_client_on(session).map(|c| c.name.clone())
        })
    } else {
        None
    };
    op::open(&tmux, &config, &dir, client.as_deref()).map_err(|e| Failure(e, 1))
}

/// The directory terms name: a path when it is one, else zoxide's match.
fn find_dir(terms: &[String]) -> Result<PathBuf> {
    let joined = terms.join(" ");
    let as_path = joined.starts_with('/')
        || joined.starts_with('~')
        || joined.starts_with('.')
        || terms.len() == 1 && std::path::Path::new(&joined).is_dir();
    if as_path {
        return folders::resolve_dir(&joined);
    }
    let output = Program::new("zoxide")
        .arg("query")
        .arg("--")
        .args(terms)
        .output()
        .map_err(|_| {
            TawError::not_found(format!(
                "no directory matches {joined:?} (zoxide is not installed)"
            ))
        })?;
    let found = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if !output.status.success() || found.is_empty() {
        return Err(TawError::not_found(format!(
            "no directory and no zoxide entry matches {joined:?}"
        )));
    }
    folders::resolve_dir(&found)
}
