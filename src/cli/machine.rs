//! `taw machine`: the machines of `[machines]`, over ssh; and `taw
//! --machine NAME <verb>`, a verb run on one of them.

use super::Context;
use crate::config::Config;
use crate::envelope::{self, Reply, Result, TawError};
use crate::machine::{self, Heard, Machine, edit, protocol};
use clap::Subcommand;
use serde_json::json;

/// `taw app [--go TARGET]`.
#[derive(Debug, clap::Args)]
pub(crate) struct AppArgs {
    /// Open on `last` (where Enter went last), a pane here (%7) or a far one (studio:%16).
    #[arg(long, value_name = "TARGET")]
    pub go: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// The machines of [machines], as the app last heard them (no ssh).
    List,
    /// Put a machine into config.toml's [machines], keeping every other line.
    Add {
        /// Its name: letters, digits, _ and -.
        name: String,
        /// What ssh is given: user@host, or a Host of your ssh config.
        destination: String,
        /// The taw binary there (default: taw, on its PATH).
        #[arg(long)]
        taw: Option<String>,
    },
    /// Take a machine out of config.toml, and nothing else.
    Remove { name: String },
    /// Try every machine (or one) at once over ssh: one line each.
    Check {
        name: Option<String>,
        /// The envelope instead of the lines.
        #[arg(long)]
        json: bool,
    },
    /// JSON lines for the app to read over ssh: hello, state, toast, ping.
    Feed {
        /// The protocol the app speaks (1, the only one).
        #[arg(long, default_value_t = protocol::PROTOCOL)]
        protocol: u32,
        /// hello and one state, then done.
        #[arg(long)]
        once: bool,
    },
    /// Become tmux on that machine, attached to %N, $N or @N (its own ids).
    Attach {
        /// The machine's name in [machines].
        #[arg(value_name = "MACHINE")]
        name: String,
        /// A pane (%N), a session ($N) or a window (@N) of that machine.
        id: String,
        /// The app that attaches (its lease holder), told in the feed's `left`.
        #[arg(long, hide = true)]
        holder: Option<String>,
    },
    /// What `machine attach` runs there: tmux attached to the id.
    #[command(hide = true)]
    Enter {
        id: String,
        #[arg(long)]
        holder: Option<String>,
    },
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    match verb {
        Verb::List => list(),
        Verb::Add {
            name,
            destination,
            taw,
        } => edit::add(
            &crate::paths::config_file(),
            &name,
            &destination,
            taw.as_deref(),
        )
        .map(Reply::of),
        Verb::Remove { name } => edit::remove(&crate::paths::config_file(), &name).map(Reply::of),
        Verb::Check { name, json } => check(name, json),
        Verb::Feed { once, .. } => {
            let status = crate::ops::feed::run(&context.tmux(), once);
            Ok(exit_with(status))
        }
        Verb::Attach { name, id, holder } => attach(&name, &id, holder.as_deref()),
        Verb::Enter { id, holder } => enter(context, &id, holder.as_deref()),
    }
}

fn exit_with(status: i32) -> Reply {
    if status == 0 {
        Reply::Nothing
    } else {
        Reply::FailedText(String::new())
    }
}

fn list() -> Result<Reply> {
    let config = Config::load()?;
    let heard = machine::read_heard();
    let machines: Vec<serde_json::Value> = machine::machines(&config)
        .into_iter()
        .map(|m| {
            let last = heard.get(&m.name).cloned().unwrap_or_default();
            json!({
                "name": m.name,
                "destination": m.destination,
                "taw": m.taw,
                "live": last.live,
                "last_seen": last.last_seen,
                "taw_version": last.taw_version,
                "protocol": last.protocol,
                "words": last.words,
            })
        })
        .collect();
    Ok(Reply::result("machine_list", json!({"machines": machines})))
}

/// What one machine answered to `taw machine feed --once`.
fn try_machine(machine: &Machine) -> (Heard, Option<protocol::Hello>, Option<TawError>) {
    let args: Vec<String> = ["machine", "feed", "--once", "--protocol", "1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let ran = machine::ssh(machine, &args, false)
        .limit(Some(machine::CHECK_LIMIT))
        .output();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (hello, error) = match &ran {
        Ok(output) if output.status.success() => {
            match protocol::read_hello(&String::from_utf8_lossy(&output.stdout)) {
                Some(hello) => (Some(hello), None),
                None => (
                    None,
                    Some(TawError::new(
                        crate::envelope::ErrorCode::Unsupported,
                        format!(
                            "{} answered, but not as a taw feed (a taw older than its machine verbs?)",
                            machine.name
                        ),
                    )),
                ),
            }
        }
        Ok(output) => (
            None,
            Some(machine::unreachable(machine, Some(output), None)),
        ),
        Err(failure) => (
            None,
            Some(machine::unreachable(machine, None, Some(failure))),
        ),
    };
    let heard = Heard {
        live: hello.is_some(),
        last_seen: hello.as_ref().map(|_| now),
        taw_version: hello.as_ref().map(|h| h.taw.clone()),
        protocol: hello.as_ref().map(|h| h.protocol),
        words: match (&hello, &error) {
            (Some(hello), _) => describe(hello),
            (None, Some(error)) => error.message.clone(),
            (None, None) => String::new(),
        },
    };
    (heard, hello, error)
}

fn describe(hello: &protocol::Hello) -> String {
    format!(
        "taw {} (protocol {}) on {}, {}",
        hello.taw,
        hello.protocol,
        if hello.host.is_empty() {
            "?"
        } else {
            &hello.host
        },
        if hello.server.is_empty() {
            "no tmux server running".to_string()
        } else {
            format!(
                "tmux server {}",
                hello.server.split(' ').next().unwrap_or_default()
            )
        }
    )
}

fn check(name: Option<String>, as_json: bool) -> Result<Reply> {
    let config = Config::load()?;
    let machines = match &name {
        Some(name) => vec![machine::find(&config, name).map_err(TawError::not_found)?],
        None => machine::machines(&config),
    };
    // Every machine at once.
    let runs: Vec<_> = machines
        .iter()
        .cloned()
        .map(|m| std::thread::spawn(move || (try_machine(&m), m)))
        .collect();
    let mut lines = Vec::new();
    let mut entries = Vec::new();
    let mut all_fine = true;
    for run in runs {
        let Ok(((heard, hello, error), m)) = run.join() else {
            continue;
        };
        machine::record_heard(&m.name, heard.clone());
        all_fine &= hello.is_some();
        lines.push(match &hello {
            Some(_) => format!("{}: reachable: {}", m.name, heard.words),
            None => format!("{}: unreachable: {}", m.name, heard.words),
        });
        entries.push(json!({
            "name": m.name,
            "destination": m.destination,
            "reachable": hello.is_some(),
            "taw_version": hello.as_ref().map(|h| h.taw.clone()),
            "protocol": hello.as_ref().map(|h| h.protocol),
            "host": hello.as_ref().map(|h| h.host.clone()),
            "server": hello.as_ref().map(|h| h.server.clone()),
            "error": error.map(|e| json!({"code": e.code.as_str(), "message": e.message})),
        }));
    }
    if as_json {
        let fields = json!({"machines": entries});
        return Ok(if all_fine {
            Reply::result("machine_check", fields)
        } else {
            Reply::Failed {
                kind: "machine_check",
                fields,
            }
        });
    }
    if lines.is_empty() {
        lines.push("no machines: `taw machine add <name> <ssh destination>` adds one".into());
    }
    let text = lines.join("\n") + "\n";
    Ok(if all_fine {
        Reply::Text(text)
    } else {
        Reply::FailedText(text)
    })
}

/// `taw machine attach <machine> <id>`: ssh with a terminal, running
/// `taw machine enter <id>` there.
fn attach(name: &str, id: &str, holder: Option<&str>) -> Result<Reply> {
    check_id(id)?;
    let config = Config::load()?;
    let machine = machine::find(&config, name).map_err(TawError::not_found)?;
    let mut args: Vec<String> = vec!["machine".into(), "enter".into(), id.into()];
    if let Some(holder) = holder {
        args.extend(["--holder".into(), holder.into()]);
    }
    let error = machine::ssh(&machine, &args, true).limit(None).become_it();
    Err(TawError::new(
        crate::envelope::ErrorCode::MachineUnreachable,
        format!("could not run ssh: {error}"),
    ))
}

fn check_id(id: &str) -> Result<()> {
    let fine = ['%', '$', '@']
        .into_iter()
        .any(|sigil| crate::tmux::ids::tmux_number(id, sigil).is_some());
    if fine {
        Ok(())
    } else {
        Err(TawError::invalid_argument(format!(
            "{id:?} is no id of that machine's: %N (a pane), $N (a session) or @N (a window)"
        )))
    }
}

/// The far side of an attach: the pane (or window) in front, and tmux
/// attached to its session; when that ends, where the person went is left
/// for the feed to tell (`left`).
fn enter(context: &Context, id: &str, holder: Option<&str>) -> Result<Reply> {
    use crate::tmux::commands::{set_global_option, show_global_value, unset_global_option};
    use crate::tmux::options::bookkeeping::{ENTERED, HOP, LEFT};
    check_id(id)?;
    let tmux = context.tmux();
    // The client about to attach has this terminal: the walk is for it.
    if let Some(holder) = holder {
        let entered = protocol::Entered {
            tty: terminal_name(),
            holder: holder.to_string(),
        };
        // Not kept, the attach still goes on: only the notification key of
        // this client then does not follow the app's walk.
        let _ = tmux.run(&crate::tmux::Batch::of(vec![
            set_global_option(ENTERED, &protocol::kept(&entered)),
            unset_global_option(HOP),
        ]));
    }
    let went = tmux.attach_and_wait(id)?;
    // The walk's next went to another machine's stop: that is where to go.
    let hop = tmux
        .run_one(show_global_value(HOP))
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty() && holder.is_some());
    let left = protocol::Left {
        holder: holder.unwrap_or_default().to_string(),
        pane: id.to_string(),
        go: hop
            .clone()
            .or(went.clone())
            .unwrap_or_else(|| id.to_string()),
        at: Some(crate::clock::now_ms()),
    };
    // The person is back in the app already; not kept, its feed only does
    // not learn where they went, and the app stays where it was.
    let _ = tmux.run(&crate::tmux::Batch::of(vec![
        set_global_option(LEFT, &protocol::kept(&left)),
        unset_global_option(HOP),
    ]));
    // The feed wakes as a watcher's look would wake it.
    if let Ok(snapshot) = context.snapshot() {
        let pane = went
            .as_deref()
            .and_then(|p| crate::tmux::ids::tmux_number(p, '%'))
            .unwrap_or(0);
        crate::watch::waiters::notify_all(&crate::paths::state_dir(), snapshot.server.pid, pane);
    }
    Ok(Reply::Nothing)
}

/// The terminal on standard input (`/dev/pts/3`), as tmux names a
/// client's tty; empty without one.
fn terminal_name() -> String {
    rustix::termios::ttyname(std::io::stdin(), Vec::new())
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The verbs that need a terminal here, refused with `--machine`.
fn refused_remotely(args: &[String]) -> Option<String> {
    // The verb's words: not the flags, nor the value of -L and -S.
    let mut words: Vec<&str> = Vec::new();
    let mut given = args.iter().map(String::as_str);
    while let Some(word) = given.next() {
        if word == "-L" || word == "-S" {
            given.next();
        } else if !word.starts_with('-') {
            words.push(word);
        }
    }
    let json = args.iter().any(|a| a == "--json");
    let group = words.first().copied().unwrap_or_default();
    let verb = words.get(1).copied().unwrap_or_default();
    let refused = match group {
        "ui" | "app" | "machine" => true,
        "agent" => verb == "attach",
        "open" => !json,
        _ => false,
    };
    refused.then(|| {
        format!(
            "taw --machine: `taw {group}{}` needs a terminal here and cannot run on another machine{}",
            if group == "agent" { " attach" } else { "" },
            if group == "open" { " without --json" } else { "" }
        )
    })
}

/// `taw --machine NAME <verb> ...`: the verb run on that machine over ssh,
/// its answer printed as it gave it; `machine_unreachable` when no answer
/// came. No retry and no time limit: Ctrl-C ends it.
pub(crate) fn forward(name: &str, args: Vec<String>) -> i32 {
    if let Some(why) = refused_remotely(&args) {
        eprintln!("{why}");
        return envelope::EXIT_USAGE;
    }
    let config = match Config::load() {
        Ok(config) => config,
        Err(error) => return envelope::emit("cli:machine", Err(error)),
    };
    let machine = match machine::find(&config, name) {
        Ok(machine) => machine,
        Err(why) => {
            eprintln!("taw --machine: {why}");
            return envelope::EXIT_USAGE;
        }
    };
    let ran = machine::ssh(&machine, &args, false).limit(None).output();
    match ran {
        // 255: ssh's own failure (or a far taw ended by a signal); 127: the
        // far shell found no taw to run.
        Ok(output)
            if output
                .status
                .code()
                .is_some_and(|code| code != 255 && code != 127) =>
        {
            use std::io::Write;
            // An output that is closed has nobody left to tell.
            let _ = std::io::stdout().write_all(&output.stdout);
            let _ = std::io::stderr().write_all(&output.stderr);
            output.status.code().unwrap_or(1)
        }
        Ok(output) => envelope::emit(
            "cli:machine",
            Err(machine::unreachable(&machine, Some(&output), None)),
        ),
        Err(failure) => envelope::emit(
            "cli:machine",
            Err(machine::unreachable(&machine, None, Some(&failure))),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn the_verbs_that_need_a_terminal_here_are_refused() {
        assert!(refused_remotely(&words("ui open")).is_some());
        assert!(refused_remotely(&words("app")).is_some());
        assert!(refused_remotely(&words("machine list")).is_some());
        assert!(refused_remotely(&words("agent attach x")).is_some());
        assert!(refused_remotely(&words("open api")).is_some());
        assert!(refused_remotely(&words("open api --json")).is_none());
        assert!(refused_remotely(&words("agent list")).is_none());
        assert!(refused_remotely(&words("pane list")).is_none());
        assert!(refused_remotely(&words("-L sock ui open")).is_some());
        assert!(refused_remotely(&words("-S /tmp/s pane list")).is_none());
    }
}
