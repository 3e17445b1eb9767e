//! Machines: the computers of `[machines]` in config.toml, reached over
//! plain ssh. A verb runs there (`taw --machine NAME <verb>`), a machine's
//! feed tells what it has (`feed.rs`), and `taw machine` adds, removes,
//! lists, checks and attaches to them.

pub(crate) mod edit;
pub(crate) mod protocol;

use crate::config::{Config, Value, schema};
use crate::envelope::{ErrorCode, TawError};
use crate::exec::{Failure, Output, Program};
use crate::text::shell_word;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// One machine of `[machines]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Machine {
    pub name: String,
    /// What ssh is given: `me@studio.local`, a Host of ~/.ssh/config.
    pub destination: String,
    /// The taw binary there (default: `taw`, found on its PATH).
    pub taw: Option<String>,
}

/// The machines the config lists, in its order (the checker has dropped
/// the ones it refused).
pub(crate) fn machines(config: &Config) -> Vec<Machine> {
    config
        .table(&schema::MACHINES)
        .iter()
        .filter_map(|entry| {
            let (destination, taw) = match &entry.value {
                Value::Str(destination) => (destination.clone(), None),
                Value::Table(fields) => {
                    let field = |name: &str| {
                        fields
                            .iter()
                            .find(|f| f.key == name)
                            .and_then(|f| f.value.as_str().map(str::to_string))
                    };
                    (field("ssh")?, field("taw").filter(|t| !t.is_empty()))
                }
                _ => return None,
            };
            Some(Machine {
                name: entry.key.clone(),
                destination,
                taw,
            })
        })
        // The merged list gives each machine a span of ids of its own,
        // this one the first: no more fit.
        .take(MOST_MACHINES)
        .collect()
}

/// The most machines `[machines]` may list: the popup's merged list has a
/// span of ids for this one and each of these (the rest are not reached).
pub(crate) const MOST_MACHINES: usize = 255;

/// The machine called `name`; a name the config does not list is refused
/// with the names it does.
pub(crate) fn find(config: &Config, name: &str) -> std::result::Result<Machine, String> {
    let listed = machines(config);
    if let Some(machine) = listed.iter().find(|m| m.name == name) {
        return Ok(machine.clone());
    }
    Err(if listed.is_empty() {
        format!("no machine is called {name:?}: [machines] in config.toml lists none")
    } else {
        format!(
            "no machine is called {name:?}; [machines] lists {}",
            listed
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// The command line ssh runs there: `sh -c '<line>' taw <args>`, every
/// word POSIX-quoted. The line finds taw where a non-interactive login
/// leaves it off PATH (~/.local/bin, ~/.cargo/bin).
pub(crate) fn far_command(machine: &Machine, args: &[String]) -> String {
    // `~/bin/taw`, as every other path of the config is written: the far
    // shell's home, the rest quoted.
    let taw = machine
        .taw
        .as_deref()
        .map(|taw| match taw.strip_prefix("~/") {
            Some(rest) => format!("\"$HOME\"/{}", shell_word(rest)),
            None => shell_word(taw),
        })
        .unwrap_or_else(|| "taw".to_string());
    let line = format!("PATH=\"$PATH:$HOME/.local/bin:$HOME/.cargo/bin\"; exec {taw} \"$@\"");
    let mut words = vec![
        "sh".to_string(),
        "-c".to_string(),
        shell_word(&line),
        "taw".to_string(),
    ];
    words.extend(args.iter().map(|a| shell_word(a)));
    words.join(" ")
}

/// ssh to the machine running `args` with its taw. `batch`: no password
/// prompt, no terminal (BatchMode). `tty`: a terminal there (attach).
pub(crate) fn ssh(machine: &Machine, args: &[String], tty: bool) -> Program {
    let mut program = Program::new("ssh");
    if tty {
        program = program.arg("-t");
    } else {
        // A machine that went quiet (asleep, off the network) ends the
        // call within a minute, so a feed is started again instead of
        // showing what it last said for ever.
        program = program.args([
            "-o",
            "BatchMode=yes",
            "-o",
            "ConnectTimeout=10",
            "-o",
            "ServerAliveInterval=15",
            "-o",
            "ServerAliveCountMax=3",
            "-T",
        ]);
    }
    program
        .args(["--", &machine.destination])
        .arg(far_command(machine, args))
}

/// Runs a verb on the machine and reads its envelope: the result, or the
/// error as the far taw gave it (its own code, the message saying where).
/// No answer is `machine_unreachable`; a far taw that does not know the
/// verb (a usage error, no envelope) is `unsupported`, as is a result
/// that is not the record `T` (read with its defaults). `input` goes to
/// its standard input.
pub(crate) fn answer_there<T: serde::de::DeserializeOwned>(
    machine: &Machine,
    args: &[String],
    input: Option<Vec<u8>>,
    limit: Option<Duration>,
) -> Result<T, TawError> {
    let mut program = ssh(machine, args, false).limit(limit);
    if let Some(bytes) = input {
        program = program.input(bytes);
    }
    let output = program
        .output()
        .map_err(|failure| unreachable(machine, None, Some(&failure)))?;
    if output
        .status
        .code()
        .is_none_or(|code| code == 255 || code == 127)
    {
        return Err(unreachable(machine, Some(&output), None));
    }
    let read = |bytes: &[u8]| {
        serde_json::from_str::<serde_json::Value>(String::from_utf8_lossy(bytes).trim())
            .unwrap_or(serde_json::Value::Null)
    };
    let answer = read(&output.stdout);
    if output.status.success() && answer.get("result").is_some() {
        return serde_json::from_value(answer["result"].clone()).map_err(|error| {
            TawError::new(
                ErrorCode::Unsupported,
                format!(
                    "the taw on {} answered with a record this taw cannot read: {error}",
                    machine.name
                ),
            )
        });
    }
    let said = read(&output.stderr);
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
    if output.status.code() == Some(2) && said.is_null() {
        let verb = args.iter().take(2).cloned().collect::<Vec<_>>().join(" ");
        return Err(TawError::new(
            ErrorCode::Unsupported,
            format!(
                "the taw on {} is too old for `{verb}`: update it there",
                machine.name
            ),
        ));
    }
    let message = said["error"]["message"]
        .as_str()
        .map(str::to_string)
        .unwrap_or(stderr);
    let code = serde_json::from_value::<ErrorCode>(said["error"]["code"].clone())
        .unwrap_or(ErrorCode::TmuxError);
    Err(TawError::new(
        code,
        format!("on {}: {message}", machine.name),
    ))
}

/// `machine_unreachable` for an ssh that gave no answer: its last line on
/// stderr, or its status.
pub(crate) fn unreachable(
    machine: &Machine,
    output: Option<&Output>,
    failure: Option<&Failure>,
) -> TawError {
    let said = output
        .and_then(|out| {
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .rev()
                .map(str::trim)
                .find(|line| !line.is_empty())
                .map(str::to_string)
        })
        .or_else(|| failure.map(|f| f.describe("ssh")))
        .unwrap_or_else(|| {
            format!(
                "ssh exited {} without saying why",
                output.and_then(|o| o.status.code()).unwrap_or(255)
            )
        });
    TawError::new(
        ErrorCode::MachineUnreachable,
        format!(
            "{} ({}) did not answer: {said}",
            machine.name, machine.destination
        ),
    )
}

/// What the app (or `taw machine check`) last heard of each machine:
/// `<state>/machines.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Heard {
    #[serde(default)]
    pub live: bool,
    /// Unix seconds.
    #[serde(default)]
    pub last_seen: Option<u64>,
    #[serde(default)]
    pub taw_version: Option<String>,
    #[serde(default)]
    pub protocol: Option<u32>,
    /// What was heard, in words: `taw 0.1.0 on studio`, or why not.
    #[serde(default)]
    pub words: String,
}

fn heard_file() -> PathBuf {
    crate::paths::state_dir().join("machines.json")
}

pub(crate) fn read_heard() -> BTreeMap<String, Heard> {
    std::fs::read(heard_file())
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Records what was heard of one machine (whole, atomically).
pub(crate) fn record_heard(name: &str, heard: Heard) {
    let mut all = read_heard();
    all.insert(name.to_string(), heard);
    if let Ok(bytes) = serde_json::to_vec_pretty(&all) {
        // Only `machine list` reads it; the next word heard writes it again.
        let _ = crate::paths::write_private(&heard_file(), &bytes);
    }
}

fn lease_file() -> PathBuf {
    crate::paths::state_dir().join("machine-lease.json")
}

/// Records that the app `holder` holds this machine's lease, now.
pub(crate) fn record_lease(holder: &str) {
    let lease = protocol::Lease {
        holder: holder.to_string(),
        at: crate::clock::now_ms(),
    };
    // Not written, this machine speaks its own toasts too until the next
    // renewal (every 20 s) writes it.
    let _ = crate::paths::write_private(&lease_file(), protocol::kept(&lease).as_bytes());
}

/// The app that holds a fresh lease on this machine, if one does.
pub(crate) fn fresh_lease() -> Option<String> {
    let text = std::fs::read_to_string(lease_file()).ok()?;
    let lease: protocol::Lease = protocol::read_kept(&text)?;
    protocol::fresh(lease.at).then_some(lease.holder)
}

/// This machine's host name.
pub(crate) fn host_name() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// How long `taw machine check` gives one machine.
pub(crate) const CHECK_LIMIT: Duration = Duration::from_secs(20);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_far_command_quotes_every_word() {
        let machine = Machine {
            name: "lab".into(),
            destination: "lab".into(),
            taw: Some("/opt/my taw/taw".into()),
        };
        let line = far_command(
            &machine,
            &["pane".into(), "send-text".into(), "it's $(here)".into()],
        );
        assert_eq!(
            line,
            "sh -c 'PATH=\"$PATH:$HOME/.local/bin:$HOME/.cargo/bin\"; exec '\\''/opt/my taw/taw'\\'' \"$@\"' taw pane send-text 'it'\\''s $(here)'"
        );
    }

    #[test]
    fn a_taw_under_the_far_home_is_found_there() {
        let machine = Machine {
            name: "lab".into(),
            destination: "lab".into(),
            taw: Some("~/my bin/taw".into()),
        };
        let line = far_command(&machine, &["--version".into()]);
        // The far shell runs `exec "$HOME"/'my bin/taw' "$@"`.
        let run = crate::exec::Program::new("sh")
            .args(["-c", &format!("HOME=/h; set -- {line}; printf '%s' \"$3\"")])
            .output()
            .unwrap();
        let inner = String::from_utf8(run.stdout).unwrap();
        assert!(
            inner.contains("exec \"$HOME\"/'my bin/taw' \"$@\""),
            "{inner}"
        );
    }
}
