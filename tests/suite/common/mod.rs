//! The test harness: a private tmux server per test, taw's folders in a
//! temporary directory, and the real `taw` binary run against them.
//!
//! Every server runs with `-f /dev/null` on its own socket folder
//! (TMUX_TMPDIR), so no test can reach the user's tmux server or config,
//! and the server is killed when the test's `TmuxServer` is dropped.
#![allow(clippy::disallowed_methods, dead_code)]

pub mod files;
pub mod lab;
pub mod recorder;
pub mod repos;
pub mod web;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

pub fn taw_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_taw"))
}

/// Whether a program answers `--version` here.
pub fn installed(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok()
}

/// Whether a test's tool is here (`what`, when it is not: a program or a
/// file, and why it is missing). Missing under `CI=true`, where
/// `scripts/test` installs it, the test fails; elsewhere it is skipped,
/// saying so.
pub fn tool_here(here: bool, what: &str) -> bool {
    if here {
        return true;
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{what} is required under CI=true (scripts/test installs it)");
    }
    eprintln!("SKIPPED: {what} is not here");
    false
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What a run printed, and how it ended.
#[derive(Debug)]
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(output: Output) -> Run {
        Run {
            status: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// stdout as JSON; panics with both streams when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// stderr as JSON (an error envelope).
    pub fn error_json(&self) -> Value {
        serde_json::from_str(self.stderr.trim())
            .unwrap_or_else(|e| panic!("stderr is not JSON ({e}): {self:?}"))
    }

    /// Asserts success and gives the result object.
    pub fn result(&self) -> Value {
        assert_eq!(self.status, 0, "taw failed: {self:?}");
        self.json()["result"].clone()
    }

    /// Asserts an error envelope with exit status 1 and gives its code.
    pub fn error_code(&self) -> String {
        assert_eq!(self.status, 1, "expected an error: {self:?}");
        self.error_json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// The part of Debian's /etc/skel/.profile that makes PATH.
pub const STOCK_PROFILE: &str = "if [ -d \"$HOME/bin\" ] ; then\n    PATH=\"$HOME/bin:$PATH\"\nfi\nif [ -d \"$HOME/.local/bin\" ] ; then\n    PATH=\"$HOME/.local/bin:$PATH\"\nfi\n";

/// A private tmux server and taw folders (`tmux`, `state`, `config`,
/// `home` in `dir`), both gone on drop.
pub struct TmuxServer {
    pub socket: String,
    pub dir: tempfile::TempDir,
}

impl TmuxServer {
    /// A server with one session `main` of 120x40.
    pub fn start() -> TmuxServer {
        let server = TmuxServer::empty();
        server.tmux(&["new-session", "-d", "-s", "main", "-x", "120", "-y", "40"]);
        server
    }

    /// Folders and a socket name, no server yet.
    pub fn empty() -> TmuxServer {
        let dir = tempfile::Builder::new()
            .prefix("taw-test")
            .tempdir()
            .expect("temp dir");
        for sub in ["tmux", "state", "config", "home"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        // A home as Debian makes it: its login profile puts ~/.local/bin on
        // PATH when that folder is there (where the plugin links taw).
        std::fs::write(dir.path().join("home/.profile"), STOCK_PROFILE).unwrap();
        let socket = format!(
            "taw-test-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        );
        TmuxServer { socket, dir }
    }

    pub fn state_dir(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    pub fn config_dir(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    /// The environment every process of the test gets: private folders,
    /// and nothing of the tmux the tests may be running inside.
    pub fn isolate_command(&self, command: &mut Command) {
        self.isolate(command);
    }

    fn isolate(&self, command: &mut Command) {
        // In the test's own home, so a session made with no folder starts
        // there and never in this checkout (a git repository the worktree
        // verbs would change).
        command
            .current_dir(self.dir.path().join("home"))
            .env("TMUX_TMPDIR", self.dir.path().join("tmux"))
            .env("TAW_STATE_DIR", self.state_dir())
            .env("TAW_CONFIG_DIR", self.config_dir())
            .env("HOME", self.dir.path().join("home"))
            .env("LANG", "C.UTF-8")
            .env("SHELL", "/bin/sh")
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("TAW_TMUX_SOCKET")
            // A plugin's invocation (taw's tab create reads it, as herdr's).
            .env_remove("HERDR_WORKSPACE_ID")
            .env_remove("TAW_WORKSPACE_ID")
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_CONFIG_HOME")
            // A CI runner's `CI=true` makes Gemini CLI start headless and
            // quit: the agents must see the terminal a user has.
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS");
    }

    /// A tmux command on this server; panics when it fails.
    pub fn tmux(&self, args: &[&str]) -> String {
        let run = self.tmux_run(args);
        assert_eq!(run.status, 0, "tmux {args:?} failed: {run:?}");
        run.stdout
    }

    pub fn tmux_run(&self, args: &[&str]) -> Run {
        self.tmux_run_with(args, &[])
    }

    /// A tmux command from a client with `env` added: tmux gives a new
    /// session's panes the PATH of the client that asked for it.
    pub fn tmux_run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new("tmux");
        self.isolate(&mut command);
        command
            .args(["-u", "-L", &self.socket, "-f", "/dev/null"])
            .args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        Run::from(command.output().expect("run tmux"))
    }

    /// A format, as tmux expands it for a target.
    pub fn display(&self, target: &str, format: &str) -> String {
        self.tmux(&["display-message", "-p", "-t", target, format])
            .trim_end_matches('\n')
            .to_string()
    }

    /// Runs taw against this server with `-L`.
    pub fn taw(&self, args: &[&str]) -> Run {
        self.taw_with(args, &[])
    }

    pub fn taw_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new(taw_bin());
        self.isolate(&mut command);
        command.args(["-L", &self.socket]).args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        Run::from(command.output().expect("run taw"))
    }

    /// Runs taw without pointing it at any server.
    pub fn taw_bare(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new(taw_bin());
        self.isolate(&mut command);
        command.args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        Run::from(command.output().expect("run taw"))
    }

    /// Runs a bash script with this server's private folders and `env`
    /// (a script finds the server through `TAW_TMUX_SOCKET` in `env`).
    pub fn taw_script(&self, script: &Path, env: &[(&str, &str)]) -> Run {
        let mut command = Command::new("bash");
        self.isolate(&mut command);
        command.arg(script);
        for (name, value) in env {
            command.env(name, value);
        }
        Run::from(command.output().expect("run bash"))
    }

    /// Loads the plugin into this server with the tested binary.
    pub fn load_plugin(&self) -> Value {
        self.taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
            .result()
    }

    /// A new window of `session` named `name`, running `command` (the
    /// default shell when empty); its pane id.
    pub fn new_window(&self, session: &str, name: &str, command: &str) -> String {
        let target = format!("{session}:");
        let mut args = vec![
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-t",
            &target,
            "-n",
            name,
        ];
        if !command.is_empty() {
            args.push(command);
        }
        self.tmux(&args).trim().to_string()
    }

    /// A window named `name` of `session` whose agent the watchers keep:
    /// a program no rule names as an agent (`sleep`), and the agent
    /// `mybot` reported in it by a custom integration with `state`, as
    /// the record says once its watcher took the report. For a test with
    /// the plugin loaded, where a watcher takes off a record set by hand
    /// on a pane whose process is no agent. Its pane id.
    pub fn reported_agent(&self, session: &str, name: &str, state: &str) -> String {
        let pane = self.new_window(session, name, "exec sleep 100000");
        self.wait_for("sleep in front", Duration::from_secs(10), || {
            self.display(&pane, "#{pane_current_command}") == "sleep"
        });
        let report = [
            "pane",
            "report-agent",
            &pane,
            "--source",
            "custom:test",
            "--agent",
            "mybot",
            "--state",
            state,
        ];
        assert_eq!(self.taw(&report).status, 0, "the report of {pane}");
        self.wait_for(&format!("{pane} {state}"), Duration::from_secs(10), || {
            self.display(&pane, "#{@agent_kind} #{@agent_state}") == format!("mybot {state}")
        });
        pane
    }

    /// A new window named `name` whose own process is bash (no rc files:
    /// `exec`, since dash, the tests' shell, would otherwise wrap it),
    /// once bash is at its prompt; its pane id.
    /// A shell script `name` running `body`, in the test's folder `folder`
    /// (a stand-in agent taw knows by that name): its path.
    pub fn stand_in(&self, folder: &str, name: &str, body: &str) -> PathBuf {
        let dir = self.dir.path().join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join(name);
        std::fs::write(&script, format!("#!/bin/sh\n{body}")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    /// A bash pane with `program` typed at it, once its screen shows
    /// `ready`: the pane's id.
    pub fn run_in_bash(&self, program: &Path, ready: &str) -> String {
        let pane = self.bash_pane("agent");
        self.tmux(&[
            "send-keys",
            "-t",
            &pane,
            &program.display().to_string(),
            "Enter",
        ]);
        self.wait_for(
            &format!("{ready:?} on the screen"),
            Duration::from_secs(10),
            || {
                self.tmux(&["capture-pane", "-p", "-t", &pane])
                    .contains(ready)
            },
        );
        pane
    }

    pub fn bash_pane(&self, name: &str) -> String {
        let pane = self.new_window("main", name, "exec bash --norc --noprofile");
        self.wait_for("bash at its prompt", Duration::from_secs(5), || {
            self.display(&pane, "#{pane_current_command}") == "bash"
                && !self
                    .tmux(&["capture-pane", "-p", "-t", &pane])
                    .trim()
                    .is_empty()
        });
        pane
    }

    /// Writes config.toml.
    pub fn write_config(&self, text: &str) -> PathBuf {
        let path = self.config_dir().join("config.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Asserts that `check` holds, and still holds `duration` later (looked
    /// at every 50 ms): for what must not happen.
    pub fn stays_for(&self, what: &str, duration: Duration, mut check: impl FnMut() -> bool) {
        let start = Instant::now();
        loop {
            assert!(
                check(),
                "{what} stopped holding after {:?}",
                start.elapsed()
            );
            if start.elapsed() >= duration {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until `check` holds, up to `limit`; panics with `what` after.
    pub fn wait_for(&self, what: &str, limit: Duration, check: impl FnMut() -> bool) {
        self.wait_for_or_say(what, limit, check, String::new);
    }

    /// [`wait_for`](Self::wait_for), whose panic says what `say` tells
    /// as well (a log that may show why).
    pub fn wait_for_or_say(
        &self,
        what: &str,
        limit: Duration,
        mut check: impl FnMut() -> bool,
        say: impl FnOnce() -> String,
    ) {
        let start = Instant::now();
        while start.elapsed() < limit {
            if check() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("timed out waiting for {what}\n{}", say());
    }

    /// The watcher's log, as far as it got.
    pub fn watch_log(&self) -> String {
        self.log("watch.log")
    }

    /// One of taw's logs (`watch.log`, `hooks.log`), as far as it got,
    /// under its path.
    pub fn log(&self, name: &str) -> String {
        let path = self.state_dir().join("logs").join(name);
        let log = std::fs::read_to_string(&path).unwrap_or_default();
        format!("{}:\n{log}", path.display())
    }

    /// Whether a taw verb is waiting on `pane` (`agent wait`, `agent prompt
    /// --wait`...): a waiting verb binds a socket named for the server and
    /// the pane in the state folder's `run`, there while it waits.
    pub fn waiter_on(&self, pane: &str) -> bool {
        let prefix = format!(
            "wait-{}-{}-",
            self.display(pane, "#{pid}"),
            pane.trim_start_matches('%')
        );
        std::fs::read_dir(self.state_dir().join("run")).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|entry| entry.file_name().to_string_lossy().starts_with(&prefix))
        })
    }

    /// The socket's path, from the folder tmux uses for `-L`.
    pub fn socket_path_of_server(&self) -> String {
        self.tmux(&["display-message", "-p", "#{socket_path}"])
            .trim_end_matches('\n')
            .to_string()
    }

    pub fn socket_path(&self) -> String {
        self.display("main:", "#{socket_path}")
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = self.tmux_run(&["kill-server"]);
    }
}

/// Lines of `show-hooks` (session and window level) that are taw's: at
/// its indexes, and running taw (its mark).
/// The event of each run in the plugin log (`plugin log list`), of one
/// plugin or all: `startup`, an event's name, or null for an action. A
/// run is logged when it ends, after what it wrote.
pub fn plugin_run_events(server: &TmuxServer, plugin: Option<&str>) -> Vec<Value> {
    let mut args = vec!["plugin", "log", "list"];
    args.extend(plugin.map(|id| ["--plugin", id]).into_iter().flatten());
    server.taw(&args).result()["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["event"].clone())
        .collect()
}

pub fn taw_hook_lines(server: &TmuxServer) -> Vec<String> {
    let mut lines = Vec::new();
    for flag in ["-g", "-gw"] {
        for line in server.tmux(&["show-hooks", flag]).lines() {
            let index = line
                .split_whitespace()
                .next()
                .and_then(|head| head.split_once('['))
                .and_then(|(_, rest)| rest.strip_suffix(']'))
                .and_then(|n| n.parse::<u32>().ok());
            if index.is_some_and(|i| (9100..9200).contains(&i))
                && line.contains("AGENT_WIZARD_HOOK")
                && !lines.contains(&line.to_string())
            {
                lines.push(line.to_string());
            }
        }
    }
    lines
}

/// Keys of the prefix table whose note is taw's.
pub fn taw_keys(server: &TmuxServer) -> Vec<String> {
    server
        .tmux(&["list-keys", "-N", "-T", "prefix"])
        .lines()
        .filter(|line| line.contains("agent-wizard:"))
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

/// How many times `dir` is in tmux's global PATH.
pub fn path_count(server: &TmuxServer, dir: &Path) -> usize {
    let path = server.tmux(&["show-environment", "-g", "PATH"]);
    let value = path.trim().strip_prefix("PATH=").unwrap_or("");
    let dir = dir.display().to_string();
    value.split(':').filter(|entry| *entry == dir).count()
}

/// A client attached to `session` of `server`, from a pane of a second
/// private server: the client needs a terminal, and that pane is it.
pub fn attach_client(server: &TmuxServer, session: &str) -> TmuxServer {
    let outer = TmuxServer::empty();
    let attach = format!(
        "exec env -u TMUX tmux -u -S '{}' attach -t '={}'",
        server.socket_path_of_server(),
        session
    );
    outer.tmux(&[
        "new-session",
        "-d",
        "-s",
        "viewer",
        "-x",
        "120",
        "-y",
        "30",
        &attach,
    ]);
    server.wait_for("the client to attach", Duration::from_secs(10), || {
        !server.tmux(&["list-clients"]).trim().is_empty()
    });
    outer
}

/// The messages tmux showed on its clients, from its message log
/// (`show-messages`, which needs a client attached).
pub fn shown_messages(server: &TmuxServer) -> Vec<String> {
    server
        .tmux(&["show-messages"])
        .lines()
        .filter_map(|line| line.split_once(" message: ").map(|(_, m)| m.to_string()))
        .collect()
}

/// Sets the server's sound command to one that writes the sound's kind
/// and message (`request|Acme needs you …`) to a file: its path.
pub fn sounds_heard(server: &TmuxServer) -> PathBuf {
    let heard = server.dir.path().join("heard");
    // Written aside and moved in: the file is there only once it is whole
    // (a test waits for it to exist, then reads it).
    server.tmux(&[
        "set-option",
        "-g",
        "@agent-wizard-sound-command",
        &format!(
            "printf '%s|%s' \"$TAW_KIND\" \"$TAW_MESSAGE\" > '{heard}.part' && mv '{heard}.part' '{heard}'",
            heard = heard.display()
        ),
    ]);
    heard
}

/// A file's or folder's permission bits.
pub fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}
