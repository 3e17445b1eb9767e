//! Real agents from the agents lab (`../shared/agents-lab`), run against
//! its mock model in a tmux server that lives in a loopback-only network
//! namespace: everything the server starts (the mock, the shells, the
//! agents) can reach 127.0.0.1 and nothing else.
//!
//! Without the lab, its installed agents, or a way to make a namespace,
//! these tests skip with a message, unless TAW_LAB_REQUIRED=1 (which
//! scripts/test sets once it has installed the lab) makes that a failure.
#![allow(clippy::disallowed_methods, dead_code)]

use super::{TmuxServer, taw_bin};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub const MOCK_PORT: &str = "8765";

/// How long after drawing its prompt OpenCode starts to take input: it
/// drops what is typed before, and its screen does not change when it
/// starts, so there is nothing to wait for.
pub const STILL_LOADING: Duration = Duration::from_secs(1);

/// The gap a hand leaves between a line and its Enter: an Enter that
/// comes within a few milliseconds of the text is taken for part of a
/// paste by Gemini CLI. A gap, not a wait: nothing comes in it.
const HAND_GAP: Duration = Duration::from_millis(250);

/// How long an agent has to show that it took a typed line's Enter.
const ENTER_TAKEN: Duration = Duration::from_secs(3);

/// How much longer than a test's own limit a wait here lasts: real agents
/// beside the rest of the suite on two cores can run several times slower
/// than alone (a 6 s turn of OpenCode's took 36 s in CI), and a limit only
/// costs time when something is wrong.
const PATIENCE: u32 = 4;

pub fn patient(limit: Duration) -> Duration {
    limit * PATIENCE
}

pub struct Lab {
    pub server: TmuxServer,
    pub dir: PathBuf,
    pub home: PathBuf,
    /// This test's own folder for work folders, agents' homes, scripts.
    scratch: tempfile::TempDir,
    /// A namespace of this test's own, held by a process, with the mock
    /// outside tmux: a test that kills its tmux server and starts another
    /// runs it there ([`Lab::in_namespace`]).
    held: Option<Held>,
}

/// The processes that hold a lab's own namespace: a sleeper, and the mock
/// model (its requests saved in `dump`).
pub struct Held {
    sleeper: std::process::Child,
    mock: std::process::Child,
    pub dump: PathBuf,
}

impl Held {
    pub fn pid(&self) -> u32 {
        self.sleeper.id()
    }
}

/// The lab's folder: AGENTS_LAB_DIR, else beside this checkout.
fn lab_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("AGENTS_LAB_DIR").map(PathBuf::from),
        Some(super::repo_root().join("../shared/agents-lab")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|dir| dir.join("mock_model.py").is_file())
}

/// Where install.sh put the agents.
fn lab_home() -> PathBuf {
    std::env::var_os("AGENTS_LAB_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/agents-lab")
        })
}

fn skip(why: &str) -> Option<Lab> {
    let required = std::env::var("TAW_LAB_REQUIRED").as_deref() == Ok("1")
        || std::env::var("CI").as_deref() == Ok("true");
    if required {
        panic!("the agents lab is required here, but {why}");
    }
    eprintln!("SKIPPED (agents lab): {why}");
    None
}

impl Lab {
    /// A tmux server in a fresh network namespace, with the mock model in
    /// window `mock` and the plugin loaded. `None` when the lab cannot run.
    pub fn start() -> Option<Lab> {
        let Some(dir) = lab_dir() else {
            return skip("no agents lab folder (set AGENTS_LAB_DIR)");
        };
        let home = lab_home();
        if !home.join("bins.env").is_file() {
            return skip("its agents are not installed (run its install.sh)");
        }
        let unshare_ok = Command::new("unshare")
            .args(["-n", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !unshare_ok {
            return skip("no network namespace can be made here (unshare -n needs root)");
        }
        let scratch = tempfile::Builder::new()
            .prefix("taw-lab-test")
            .tempdir()
            .expect("temp dir");
        let server = TmuxServer::empty();
        let mock = format!(
            "python3 {} --port {MOCK_PORT}",
            shell_quote(&dir.join("mock_model.py").display().to_string())
        );
        let start = format!(
            "ip link set lo up && exec tmux -u -L {} -f /dev/null new-session -d -s mock -x 120 -y 40 {}",
            server.socket,
            shell_quote(&mock)
        );
        let mut command = Command::new("unshare");
        server.isolate_command(&mut command);
        let status = command
            .args(["-n", "sh", "-c", &start])
            .status()
            .expect("unshare");
        assert!(
            status.success(),
            "could not start tmux in a network namespace"
        );
        let lab = Lab {
            server,
            dir,
            home,
            scratch,
            held: None,
        };
        lab.ready();
        Some(lab)
    }

    /// A lab whose namespace outlives its tmux server: held by a process
    /// of the test's, the mock model running beside tmux, not in it (its
    /// requests saved under `held.dump`). A command run with
    /// [`Lab::in_namespace`] (a restore that starts a server) stays inside.
    pub fn start_held() -> Option<Lab> {
        let Some(dir) = lab_dir() else {
            return skip("no agents lab folder (set AGENTS_LAB_DIR)");
        };
        let home = lab_home();
        if !home.join("bins.env").is_file() {
            return skip("its agents are not installed (run its install.sh)");
        }
        if !Command::new("unshare")
            .args(["-n", "true"])
            .status()
            .is_ok_and(|s| s.success())
        {
            return skip("no network namespace can be made here (unshare -n needs root)");
        }
        let scratch = tempfile::Builder::new()
            .prefix("taw-lab-test")
            .tempdir()
            .expect("temp dir");
        let sleeper = Command::new("unshare")
            .args(["-n", "sh", "-c", "ip link set lo up && exec sleep 100000"])
            .spawn()
            .expect("unshare");
        let pid = sleeper.id().to_string();
        // Until unshare has made its namespace, the sleeper is still in
        // this one, whose loopback is up too: the mock started there then
        // (a flake: the agents, in the new one, could not connect).
        let own = |pid: &str| std::fs::read_link(format!("/proc/{pid}/ns/net")).ok();
        let ours = own("self");
        let up = Instant::now();
        while own(&pid) == ours
            || !Command::new("nsenter")
                .args(["-t", &pid, "-n", "ip", "link", "show", "lo"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("UP"))
        {
            assert!(
                up.elapsed() < Duration::from_secs(10),
                "the namespace's loopback did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let dump = scratch.path().join("requests");
        std::fs::create_dir_all(&dump).unwrap();
        let log = std::fs::File::create(scratch.path().join("mock.log")).unwrap();
        let mock = Command::new("nsenter")
            .args(["-t", &pid, "-n", "python3"])
            .arg(dir.join("mock_model.py"))
            .args(["--port", MOCK_PORT, "--dump"])
            .arg(&dump)
            .stderr(log)
            .spawn()
            .expect("the mock model");
        let server = TmuxServer::empty();
        let lab = Lab {
            server,
            dir,
            home,
            scratch,
            held: Some(Held {
                sleeper,
                mock,
                dump,
            }),
        };
        let status = lab
            .in_namespace("tmux")
            .args(["-u", "-L", &lab.server.socket, "-f", "/dev/null"])
            .args(["new-session", "-d", "-s", "mock", "-x", "120", "-y", "40"])
            .status()
            .expect("tmux");
        assert!(status.success(), "could not start tmux in the namespace");
        lab.server.tmux(&["set-option", "-g", "focus-events", "on"]);
        lab.wait("the mock model to listen", Duration::from_secs(15), || {
            std::fs::read_to_string(lab.scratch().join("mock.log"))
                .is_ok_and(|log| log.contains("listening"))
        });
        lab.server
            .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
            .result();
        Some(lab)
    }

    /// `program` run inside this lab's own namespace, with the test's
    /// private folders (only for a lab from [`Lab::start_held`]).
    pub fn in_namespace(&self, program: &str) -> Command {
        let held = self.held.as_ref().expect("a lab of its own namespace");
        let mut command = Command::new("nsenter");
        self.server.isolate_command(&mut command);
        command
            .args(["-t", &held.pid().to_string(), "-n", "--"])
            .arg(program);
        command
    }

    /// The requests the mock model was sent, oldest first (a lab from
    /// [`Lab::start_held`]).
    pub fn requests(&self) -> Vec<String> {
        let held = self.held.as_ref().expect("a lab of its own namespace");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&held.dump)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        files
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .collect()
    }

    /// The mock model listens, and the plugin is loaded.
    fn ready(&self) {
        self.server
            .tmux(&["set-option", "-g", "focus-events", "on"]);
        // A toast shows for tmux's display-time (750 ms by default): long
        // enough for a person, short for a test that reads a client's screen
        // on a busy machine.
        self.server
            .tmux(&["set-option", "-g", "display-time", "5000"]);
        // Its history counts too: the first line may have scrolled away.
        self.wait("the mock model to listen", Duration::from_secs(15), || {
            self.server
                .tmux(&["capture-pane", "-p", "-S", "-", "-t", "mock"])
                .contains("listening")
        });
        self.server
            .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
            .result();
    }

    /// This test's own folder.
    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// A new session `name` (120x40) in `folder`, once its shell has
    /// drawn its prompt; returns its pane's tmux id.
    pub fn new_session(&self, name: &str, folder: &Path) -> String {
        std::fs::create_dir_all(folder).unwrap();
        // tmux reads formats in -c: `#` doubled.
        let folder = folder.display().to_string().replace('#', "##");
        self.server.tmux(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "120",
            "-y",
            "40",
            "-c",
            &folder,
        ]);
        let pane = self.server.display(name, "#{pane_id}");
        // Let the shell draw its prompt before anything is typed.
        self.wait("the shell prompt", Duration::from_secs(10), || {
            !self.screen(&pane).trim().is_empty()
        });
        pane
    }

    /// The run script of `agent`: the lab's, or for an agent the lab does
    /// not have (Qwen Code, Kilo), this project's (scripts/lab).
    fn run_script(&self, agent: &str) -> PathBuf {
        let ours = super::repo_root().join(format!("scripts/lab/run-{agent}.sh"));
        if ours.exists() {
            ours
        } else {
            self.dir.join(format!("run-{agent}.sh"))
        }
    }

    /// `agent`'s run script, with the mock's port, the lab and the
    /// agent's scratch home.
    fn run_script_command(&self, agent: &str) -> Command {
        let upper = agent.to_uppercase();
        let mut command = Command::new(self.run_script(agent));
        command
            .env("MOCK_PORT", MOCK_PORT)
            .env("AGENTS_LAB_HOME", &self.home)
            .env(
                format!("{upper}_LAB_HOME"),
                self.scratch().join(format!("{agent}-home")),
            );
        if let Some(bin) = self.versionless_bin(agent) {
            command.env(format!("{upper}_BIN"), bin);
        }
        command
    }

    /// For an agent whose lab run script starts it once more only to print
    /// its version (OpenCode, Gemini CLI, pi: a second or two of a core
    /// each, on two cores the suite keeps busy), a stand-in that answers
    /// that and is the agent for everything else.
    fn versionless_bin(&self, agent: &str) -> Option<PathBuf> {
        const VERSION_FOR_THE_LOG_ONLY: [&str; 3] = ["opencode", "gemini", "pi"];
        if !VERSION_FOR_THE_LOG_ONLY.contains(&agent) {
            return None;
        }
        let key = format!("{}_BIN=", agent.to_uppercase());
        let bins = std::fs::read_to_string(self.home.join("bins.env")).ok()?;
        let real = bins.lines().find_map(|line| line.strip_prefix(&key))?;
        assert!(!real.contains('\''), "a lab path with a quote: {real}");
        let dir = self.scratch().join("versionless");
        std::fs::create_dir_all(&dir).unwrap();
        let stand_in = dir.join(agent);
        std::fs::write(
            &stand_in,
            format!(
                "#!/bin/sh\nif [ \"$*\" = --version ]; then echo '(not asked)'; exit 0; fi\nexec '{real}' \"$@\"\n"
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
        Some(stand_in)
    }

    /// A new session `name` (120x40) running `agent` through the lab's
    /// run script; returns the pane's tmux id.
    pub fn start_agent(&self, agent: &str, name: &str) -> String {
        let work = self.scratch().join(format!("{name}-work"));
        let pane = self.new_session(name, &work);
        let mut command = self.run_script_command(agent);
        self.server.isolate_command(&mut command);
        let status = command
            .args([&self.server.socket, &pane, &work.display().to_string()])
            .status()
            .expect("run script");
        assert!(status.success(), "run-{agent}.sh failed");
        pane
    }

    /// A folder holding `<agent>`: a script that runs the lab's agent as its
    /// run script would (its scratch home, the mock, the guards), so that
    /// `taw agent start --kind <agent>` can type the plain name. The run
    /// script is asked for its command line through a stand-in `tmux`.
    pub fn agent_on_path(&self, agent: &str) -> PathBuf {
        let dir = self.scratch().join(format!("{agent}-bin"));
        let fake = self.scratch().join("fake-tmux");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&fake).unwrap();
        let recorded = self.scratch().join(format!("{agent}-command"));
        let stand_in = fake.join("tmux");
        std::fs::write(
            &stand_in,
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -l ]; then printf '%s' \"$2\" > \"$RECORD\"; exit 0; fi; shift; done\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
        let work = self.scratch().join(format!("{agent}-work"));
        std::fs::create_dir_all(&work).unwrap();
        let path = format!(
            "{}:{}",
            fake.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let status = self
            .run_script_command(agent)
            .args(["unused", "%0", &work.display().to_string()])
            .env("PATH", path)
            .env("RECORD", &recorded)
            .status()
            .expect("run script");
        assert!(status.success());
        let line = std::fs::read_to_string(&recorded).unwrap();
        // `cd WORK && env ... BIN ARGS`: exec, so the agent is the process.
        let line = line.replacen(" && env ", " && exec env ", 1);
        let script = dir.join(agent);
        std::fs::write(&script, format!("#!/bin/sh\n{line} \"$@\"\n")).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        dir
    }

    pub fn screen(&self, pane: &str) -> String {
        self.server.tmux(&["capture-pane", "-p", "-t", pane])
    }

    /// The pane's agent options: kind, state and final state.
    pub fn agent(&self, pane: &str) -> (String, String, String) {
        let line = self.server.display(
            pane,
            "#{@agent_kind}\t#{@agent_state}\t#{@agent_final_state}",
        );
        let mut parts = line.split('\t').map(str::to_string);
        (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
        )
    }

    pub fn state(&self, pane: &str) -> String {
        self.agent(pane).1
    }

    /// Waits for the pane's @agent_state, with the screen in the message;
    /// then `taw agent list` and the status line must say the same.
    /// [`wait_state`](Self::wait_state) after a line typed with its Enter:
    /// an agent still settling (OpenCode, Codex on a busy machine) may drop the
    /// Enter and keep the line in its input, so while the state has not
    /// come the Enter is pressed again every few seconds (on an empty input
    /// it does nothing).
    pub fn wait_state_after_enter(&self, pane: &str, state: &str, limit: Duration) {
        self.pressing_enter_until(pane, limit, || self.state(pane) == state);
        self.wait_state(pane, state, Duration::from_millis(100));
    }

    /// [`wait`](Self::wait) for what a line typed with its Enter brings
    /// (the mock's reply, its request), pressing the Enter again every few
    /// seconds while it has not come, as for
    /// [`wait_state_after_enter`](Self::wait_state_after_enter); the
    /// screen is in the message when it never comes.
    pub fn wait_after_enter(
        &self,
        what: &str,
        pane: &str,
        limit: Duration,
        mut check: impl FnMut() -> bool,
    ) {
        if !self.pressing_enter_until(pane, limit, &mut check) {
            panic!(
                "timed out waiting for {what}; {pane}'s screen:\n{}\n{}",
                self.screen(pane),
                self.mock_words()
            );
        }
    }

    /// What the mock model was doing, for a failure's message: whether it
    /// still runs, and the end of its log.
    fn mock_words(&self) -> String {
        let Some(held) = &self.held else {
            let window = self.server.tmux_run(&["capture-pane", "-p", "-t", "mock"]);
            return format!("the mock's window:\n{}", window.stdout.trim_end());
        };
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", held.mock.id()));
        // The state is the field after the program's name in parentheses.
        let state = stat
            .ok()
            .and_then(|stat| stat.get(stat.rfind(')')? + 2..)?.chars().next())
            .map_or("gone".to_string(), |state| format!("state {state}"));
        let log = std::fs::read_to_string(self.scratch().join("mock.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(15)..].join("\n");
        format!(
            "the mock model (pid {}): {state}; its log ends:\n{tail}",
            held.mock.id()
        )
    }

    /// Waits patiently for `check`, pressing Enter into `pane` every 5 s
    /// meanwhile; whether it came.
    fn pressing_enter_until(
        &self,
        pane: &str,
        limit: Duration,
        mut check: impl FnMut() -> bool,
    ) -> bool {
        let limit = patient(limit);
        let start = Instant::now();
        let mut pressed = Instant::now();
        while start.elapsed() < limit {
            if check() {
                return true;
            }
            if pressed.elapsed() > Duration::from_secs(5) {
                self.key(pane, "Enter");
                pressed = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    pub fn wait_state(&self, pane: &str, state: &str, limit: Duration) {
        let limit = patient(limit);
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.state(pane) == state {
                self.check_views(pane, state);
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let explain = self.server.taw(&["agent", "explain", pane, "--verbose"]);
        let log = std::fs::read_to_string(self.server.state_dir().join("logs/watch.log"))
            .unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        panic!(
            "{pane} did not become {state} within {limit:?}: it is {:?}; screen:\n{}\n{}\nthe watcher's log, newest first:\n{}",
            self.agent(pane),
            self.screen(pane),
            explain.stdout,
            tail.join("\n")
        );
    }

    /// [`stays_state`](Self::stays_state) until `until` (at least one look).
    pub fn stays_state_until(&self, pane: &str, state: &str, until: Instant) {
        self.stays_state(pane, state, until.saturating_duration_since(Instant::now()));
    }

    /// Asserts that the pane's @agent_state is `state`, and still is
    /// `duration` later (looked at every 100 ms), with the screen in the
    /// message.
    pub fn stays_state(&self, pane: &str, state: &str, duration: Duration) {
        let start = Instant::now();
        loop {
            assert!(
                self.state(pane) == state,
                "{pane} stopped being {state} after {:?}: it is {:?}; screen:\n{}",
                start.elapsed(),
                self.agent(pane),
                self.screen(pane)
            );
            if start.elapsed() >= duration {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `taw agent list` and the window's mark agree with the pane's state.
    fn check_views(&self, pane: &str, state: &str) {
        let list = self.server.taw(&["agent", "list"]).result();
        let record = list["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|agent| agent["tmux_id"] == pane)
            .unwrap_or_else(|| panic!("{pane} is not in taw agent list: {list}"))
            .clone();
        // The state may move on between the two reads; it must not disagree
        // with what the pane says now.
        let now = self.state(pane);
        assert!(
            record["agent_status"] == state || record["agent_status"] == now,
            "taw agent list says {} for {pane}, the pane {state}",
            record["agent_status"]
        );
        let mark = self.server.display(pane, "#{E:@agent-wizard-window-mark}");
        let expected = match state {
            "blocked" => "▲",
            "done" => "✓",
            "working" => "●",
            "idle" => "○",
            _ => "",
        };
        assert!(
            mark.contains(expected) || self.state(pane) != state,
            "the window mark {mark:?} does not show {state}"
        );
    }

    pub fn wait(&self, what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
        let limit = patient(limit);
        let start = Instant::now();
        while start.elapsed() < limit {
            if check() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("timed out waiting for {what}");
    }

    /// Types a line as a person would: the text, then Enter once the agent
    /// has drawn the text in its input, and a moment later, as a hand does.
    /// Gemini CLI takes an Enter that follows the last key within a few
    /// milliseconds for a pasted newline, which a loaded machine makes likely.
    /// An agent still settling may drop the keys whole (Claude Code just
    /// after its first draw on a busy machine): with nothing of them drawn
    /// 10 s later, they are typed once more.
    pub fn type_line(&self, pane: &str, text: &str) {
        let shown = || self.screen(pane).matches(text).count();
        let before = shown();
        let typed = Instant::now();
        self.server.tmux(&["send-keys", "-t", pane, "-l", text]);
        let mut again = true;
        while shown() <= before {
            if again && typed.elapsed() > Duration::from_secs(10) {
                again = false;
                self.server.tmux(&["send-keys", "-t", pane, "-l", text]);
            }
            assert!(
                typed.elapsed() < patient(Duration::from_secs(10)),
                "{text:?} never showed in {pane}'s input; screen:\n{}",
                self.screen(pane)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(HAND_GAP);
        let before = self.screen(pane);
        self.server.tmux(&["send-keys", "-t", pane, "Enter"]);
        // An Enter that changed nothing was dropped (an agent still
        // settling keeps the line in its input): pressed once more, as a
        // person would, and as `agent prompt` does. On an empty input an
        // Enter does nothing.
        let entered = Instant::now();
        while self.screen(pane) == before {
            if entered.elapsed() > ENTER_TAKEN {
                self.server.tmux(&["send-keys", "-t", pane, "Enter"]);
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// One key, in tmux's spelling.
    pub fn key(&self, pane: &str, key: &str) {
        self.server.tmux(&["send-keys", "-t", pane, key]);
    }

    /// Answers a question the agent draws with `widget` on screen: waits
    /// for it, presses `key`, and presses again while the question stays
    /// (a key that comes while the agent still draws the widget is lost).
    pub fn answer(&self, pane: &str, widget: &str, key: &str) {
        self.wait_text(pane, widget, Duration::from_secs(20));
        let start = Instant::now();
        while self.has(pane, widget) {
            assert!(
                start.elapsed() < patient(Duration::from_secs(20)),
                "{key} never answered {widget:?}:\n{}",
                self.screen(pane)
            );
            self.key(pane, key);
            let sent = Instant::now();
            while sent.elapsed() < ENTER_TAKEN && self.has(pane, widget) {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// Moves a menu's selection down until `chosen` is on screen (the
    /// selected row as the agent draws it): a key sent while the menu is
    /// still being drawn can be lost, so it is sent again.
    pub fn choose_down(&self, pane: &str, chosen: &str) {
        let start = std::time::Instant::now();
        while !self.has(pane, chosen) {
            assert!(
                start.elapsed() < patient(Duration::from_secs(15)),
                "{chosen:?} was never chosen:\n{}",
                self.screen(pane)
            );
            self.key(pane, "Down");
            let sent = std::time::Instant::now();
            while sent.elapsed() < Duration::from_millis(1500) && !self.has(pane, chosen) {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// The pane's height in rows.
    pub fn rows(&self, pane: &str) -> String {
        self.server.display(pane, "#{pane_height}")
    }

    pub fn has(&self, pane: &str, text: &str) -> bool {
        self.screen(pane).contains(text)
    }

    /// Waits for `text` on the pane's screen, with the screen in the
    /// message when it does not come.
    pub fn wait_text(&self, pane: &str, text: &str, limit: Duration) {
        let limit = patient(limit);
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.has(pane, text) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "{pane} did not show {text:?} within {limit:?}; screen:\n{}",
            self.screen(pane)
        );
    }
}

impl Drop for Lab {
    /// A lab of its own namespace stops its server, the mock and the
    /// sleeper; any other lab's server goes with its `TmuxServer`.
    fn drop(&mut self) {
        if let Some(held) = &mut self.held {
            let _ = self.server.tmux_run(&["kill-server"]);
            let _ = held.mock.kill();
            let _ = held.mock.wait();
            let _ = held.sleeper.kill();
            let _ = held.sleeper.wait();
        }
    }
}

/// A client attached to a session of the lab's server, from a pane of a
/// second private server (the client needs a terminal; that pane is it).
pub struct Viewer {
    pub outer: TmuxServer,
}

impl Viewer {
    pub fn attach(lab: &Lab, session: &str) -> Viewer {
        Viewer {
            outer: super::attach_client(&lab.server, session),
        }
    }

    /// Moves the client to another session of the lab's server, and waits
    /// until the client shows it.
    pub fn switch(&self, lab: &Lab, session: &str) {
        let client = lab.server.tmux(&["list-clients", "-F", "#{client_name}"]);
        let client = client.lines().next().unwrap_or("").to_string();
        lab.server
            .tmux(&["switch-client", "-c", &client, "-t", &format!("={session}")]);
        lab.wait(
            &format!("the client on session {session}"),
            Duration::from_secs(10),
            || {
                lab.server
                    .tmux(&["list-clients", "-F", "#{client_session}"])
                    .lines()
                    .any(|line| line == session)
            },
        );
    }
}

pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

pub fn exists(path: &Path) -> bool {
    path.exists()
}
