//! `taw sandbox`: an agent in a container, seen through it. Every machine
//! runs these with a stand-in runtime named `docker` on the pane's PATH,
//! which runs the agent's command as its child as a container would; the
//! last test runs the real Podman, in an image it builds from busybox,
//! where the machine has Podman (`scripts/test` installs it).
// The tests run podman and tar themselves.
#![allow(clippy::disallowed_methods)]

use crate::common::recorder::Recorder;
use crate::common::{TmuxServer, repo_root, taw_bin};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const SECONDS: fn(u64) -> Duration = Duration::from_secs;

/// How long a second telling of an event has to come: what is not told
/// leaves no sign to wait for.
const NO_SECOND: Duration = Duration::from_millis(500);

/// A stand-in Claude Code: its idle screen from the fixtures, its question
/// once a line is typed, and an exit on `quit`.
fn stand_in_claude(server: &TmuxServer) -> PathBuf {
    let screens = repo_root().join("tests/fixtures/screens/claude");
    server.stand_in(
        "box-bin",
        "claude",
        &format!(
            "show() {{ printf '\\033[2J\\033[H%s' \"$(cat \"{dir}/$1\")\"; }}\n\
             show idle-1.txt\n\
             while IFS= read -r line; do\n\
               [ \"$line\" = quit ] && exit 0\n\
               show blocked-1.txt\n\
             done\n",
            dir = screens.display()
        ),
    )
}

/// A stand-in `docker`: it logs its words, answers `image inspect` and
/// `build` (an image is there once it was built), and runs what follows the image of a `run` as its child, as
/// the client of a container runtime waits for its container. bash's
/// `exec -a` gives it the name `docker`, which is how taw tells one.
fn stand_in_docker(server: &TmuxServer) -> (PathBuf, PathBuf) {
    let log = server.dir.path().join("docker.log");
    // bash, for `exec -a`.
    let script = server.stand_in("box-bin", "docker", "");
    std::fs::write(
        &script,
        format!(
            "#!/bin/bash\n\
             [ -z \"$STAND_IN\" ] && STAND_IN=1 exec -a docker /bin/bash \"$0\" \"$@\"\n\
             printf '%s\\n' \"$*\" >> {log}\n\
             case $1 in\n\
             image) [ -f {log}.built ]; exit ;;\n\
             build) cat \"$5\" >> {log}; touch {log}.built; exit 0 ;;\n\
             run) shift ;;\n\
             *) exit 1 ;;\n\
             esac\n\
             while [ $# -gt 0 ]; do case $1 in -v|-w|-e) shift 2 ;; -*) shift ;; *) break ;; esac; done\n\
             shift\n\
             \"$@\"\n",
            log = log.display()
        ),
    )
    .unwrap();
    (script, log)
}

/// The server, the plugin loaded, the stand-ins on a PATH of their own.
struct Box {
    server: TmuxServer,
    recorder: Recorder,
    bin: PathBuf,
    docker_log: PathBuf,
    /// More variables for the panes' shells (NAME=value).
    env: Vec<String>,
}

impl Box {
    fn new(config: &str) -> Box {
        let server = TmuxServer::start();
        let recorder = Recorder::new(&server);
        let (docker, docker_log) = stand_in_docker(&server);
        stand_in_claude(&server);
        let bin = docker.parent().unwrap().to_path_buf();
        server.write_config(&format!(
            "{}{config}",
            recorder.config(&[
                "sandbox.started",
                "sandbox.stopped",
                "agent.blocked",
                "agent.idle"
            ])
        ));
        server.load_plugin();
        Box {
            server,
            recorder,
            bin,
            docker_log,
            env: Vec::new(),
        }
    }

    /// The PATH a pane gets: the stand-ins, taw, then the system's.
    fn path(&self) -> String {
        format!(
            "{}:{}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            self.bin.display(),
            taw_bin().parent().unwrap().display()
        )
    }

    /// A bash pane at its prompt in `dir`.
    fn pane(&self, name: &str, dir: &Path) -> String {
        // tmux gives a new pane the PATH of the client that asked for it,
        // over `-e`: env sets it, and becomes bash.
        let command = format!(
            "exec env PATH={} {} bash --norc --noprofile",
            self.path(),
            self.env.join(" ")
        );
        let pane =
            self.server
                .new_window("main", name, &format!("cd {} && {command}", dir.display()));
        self.server.wait_for("bash at its prompt", SECONDS(5), || {
            self.server.display(&pane, "#{pane_current_command}") == "bash"
                && !self.screen(&pane).trim().is_empty()
        });
        pane
    }

    fn screen(&self, pane: &str) -> String {
        self.server.tmux(&["capture-pane", "-p", "-t", pane])
    }

    fn type_line(&self, pane: &str, line: &str) {
        self.server.tmux(&["send-keys", "-t", pane, "-l", line]);
        self.server.tmux(&["send-keys", "-t", pane, "Enter"]);
    }

    fn option(&self, pane: &str, name: &str) -> String {
        self.server.display(pane, &format!("#{{{name}}}"))
    }

    fn wait_option(&self, pane: &str, name: &str, value: &str) {
        let start = std::time::Instant::now();
        while self.option(pane, name) != value {
            assert!(
                start.elapsed() < SECONDS(15),
                "{name} is {:?}, not {value:?}; the pane shows:\n{}",
                self.option(pane, name),
                self.screen(pane)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn record(&self, pane: &str) -> Value {
        self.server.taw(&["pane", "get", pane]).result()["pane"].clone()
    }

    fn heard_once(&self, event: &str) -> crate::common::recorder::Heard {
        self.server
            // Told by a deliverer the watcher starts as it ends: slow on
            // a machine the suite keeps busy.
            .wait_for_or_say(
                &format!("{event} heard"),
                SECONDS(30),
                || !self.recorder.heard(event).is_empty(),
                || {
                    format!(
                        "{}\n{}",
                        self.server.watch_log(),
                        self.server.log("hooks.log")
                    )
                },
            );
        // Nothing more comes.
        self.server
            .stays_for(&format!("{event} heard once"), NO_SECOND, || {
                self.recorder.heard(event).len() == 1
            });
        self.recorder.heard(event)[0].clone()
    }

    fn folder(&self, name: &str) -> PathBuf {
        let dir = self.server.dir.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

#[test]
fn taw_sandbox_runs_the_agent_in_a_container_the_watcher_sees_through() {
    let lab = Box::new("[sandbox]\nruntime = \"docker\"\nimage = \"taw-test\"\n");
    let work = lab.folder("work");
    let pane = lab.pane("box", &work);
    lab.type_line(&pane, "taw sandbox claude");
    lab.wait_option(&pane, "@agent_container", "docker/default");
    lab.wait_option(&pane, "@agent_kind", "claude");
    lab.wait_option(&pane, "@agent_state", "idle");

    // The records say where it runs.
    let sandbox = serde_json::json!({"profile": "default", "runtime": "docker"});
    assert_eq!(lab.record(&pane)["sandbox"], sandbox);
    let agents = lab.server.taw(&["agent", "list"]).result();
    let agent = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["tmux_id"] == pane.as_str())
        .unwrap()
        .clone();
    assert_eq!(agent["sandbox"], sandbox);
    assert_eq!(agent["agent"], "claude");

    // The default profile mounts the agent's folder and its config, and
    // nothing else; variables go in by name.
    let log = std::fs::read_to_string(&lab.docker_log).unwrap();
    let run = log.lines().find(|l| l.starts_with("run ")).unwrap();
    let dir = std::fs::canonicalize(&work).unwrap().display().to_string();
    let home = lab.server.dir.path().join("home").display().to_string();
    assert!(
        run.contains(&format!("--workdir={dir} --volume={dir}:{dir}")),
        "{run}"
    );
    assert!(
        run.contains(&format!("--volume={home}/.claude:{home}/.claude")),
        "{run}"
    );
    assert!(
        !run.contains(".claude.json"),
        "no file that is not there: {run}"
    );
    let volumes = run.matches("--volume=").count();
    assert_eq!(volumes, 2, "{run}");
    assert!(run.contains("--env=TERM"), "{run}");
    assert!(
        run.contains("--label=org.tmux-agent-wizard.profile=default"),
        "{run}"
    );
    assert!(run.ends_with(" taw-test claude"), "{run}");
    assert!(
        Path::new(&home).join(".claude").is_dir(),
        "a config folder is made before it is mounted"
    );

    // sandbox.started, once, with what came.
    let started = lab.heard_once("sandbox.started");
    assert_eq!(started.env["TAW_SANDBOX"], "default");
    assert_eq!(started.env["TAW_RUNTIME"], "docker");
    assert_eq!(started.env["TAW_PANE"], pane);
    assert_eq!(started.input["data"]["sandbox"], sandbox);
    assert_eq!(started.input["data"]["agent"], "claude");

    // Its screen is read through the container.
    lab.type_line(&pane, "ask");
    lab.wait_option(&pane, "@agent_state", "blocked");
    let blocked = lab.heard_once("agent.blocked");
    assert_eq!(blocked.env["TAW_SANDBOX"], "default");
    assert_eq!(blocked.env["TAW_RUNTIME"], "docker");

    // It exits: the container has left the pane.
    lab.type_line(&pane, "quit");
    lab.wait_option(&pane, "@agent_container", "");
    let stopped = lab.heard_once("sandbox.stopped");
    assert_eq!(stopped.env["TAW_SANDBOX"], "default");
    assert_eq!(stopped.input["data"]["sandbox"], sandbox);
    lab.wait_option(&pane, "@agent_sandbox_profile", "");
    assert_eq!(lab.record(&pane)["sandbox"], Value::Null);
    assert_eq!(lab.recorder.heard("sandbox.started").len(), 1);
}

#[test]
fn a_container_typed_by_hand_is_seen_and_its_pane_closing_stops_it() {
    let lab = Box::new("");
    let work = lab.folder("work");
    let pane = lab.pane("by-hand", &work);
    lab.type_line(&pane, "docker run -it --rm -v /x/codex:/x/codex img claude");
    lab.wait_option(&pane, "@agent_container", "docker");
    lab.wait_option(&pane, "@agent_kind", "claude");
    assert_eq!(
        lab.record(&pane)["sandbox"],
        serde_json::json!({"profile": null, "runtime": "docker"})
    );
    let started = lab.heard_once("sandbox.started");
    assert_eq!(started.env["TAW_SANDBOX"], "");
    assert_eq!(started.env["TAW_RUNTIME"], "docker");
    assert_eq!(started.input["data"]["sandbox"]["profile"], Value::Null);

    // A watcher started again announces no container that was there.
    let before = lab.option(&pane, "@agent_wizard_watcher");
    lab.server
        .taw(&["watch", "attach-all", "--restart", "--all"])
        .result();
    lab.server.wait_for("a new watcher", SECONDS(10), || {
        let now = lab.option(&pane, "@agent_wizard_watcher");
        !now.is_empty() && now != before
    });
    lab.type_line(&pane, "ask");
    lab.wait_option(&pane, "@agent_state", "blocked");
    assert_eq!(lab.recorder.heard("sandbox.started").len(), 1);
    assert!(lab.recorder.heard("sandbox.stopped").is_empty());

    // The pane goes with the container in front.
    lab.server.tmux(&["kill-pane", "-t", &pane]);
    let stopped = lab.heard_once("sandbox.stopped");
    assert_eq!(stopped.env["TAW_RUNTIME"], "docker");
    assert_eq!(stopped.env["TAW_PANE"], pane);
}

#[test]
fn a_runtime_that_changes_in_front_is_a_stop_then_a_start() {
    let lab = Box::new("");
    // A stand-in podman: the docker one, under podman's name.
    let docker = lab.bin.join("docker");
    let podman = lab.bin.join("podman");
    let script = std::fs::read_to_string(&docker)
        .unwrap()
        .replace("exec -a docker", "exec -a podman");
    std::fs::write(&podman, script).unwrap();
    make_executable(&podman);
    let work = lab.folder("work");
    let pane = lab.pane("both", &work);
    // One line: podman's container follows docker's, with no prompt
    // between them for a look to see.
    lab.type_line(
        &pane,
        "docker run -it --rm img claude; podman run -it --rm img claude",
    );
    lab.wait_option(&pane, "@agent_container", "docker");
    lab.wait_option(&pane, "@agent_kind", "claude");
    lab.heard_once("sandbox.started");
    lab.type_line(&pane, "quit");
    lab.wait_option(&pane, "@agent_container", "podman");
    let stopped = lab.heard_once("sandbox.stopped");
    assert_eq!(stopped.env["TAW_RUNTIME"], "docker");
    lab.server
        .wait_for("podman's start heard", SECONDS(10), || {
            lab.recorder.heard("sandbox.started").len() == 2
        });
    let started = lab.recorder.heard("sandbox.started");
    assert_eq!(started[1].env["TAW_RUNTIME"], "podman");
    assert_eq!(
        lab.record(&pane)["sandbox"],
        serde_json::json!({"profile": null, "runtime": "podman"})
    );
}

#[test]
fn a_container_in_front_when_its_tmux_server_ends_is_stopped() {
    let lab = Box::new("");
    let work = lab.folder("work");
    let pane = lab.pane("by-hand", &work);
    lab.type_line(&pane, "docker run -it --rm img claude");
    lab.wait_option(&pane, "@agent_container", "docker");
    lab.heard_once("sandbox.started");
    lab.server.tmux(&["kill-server"]);
    let stopped = lab.heard_once("sandbox.stopped");
    assert_eq!(stopped.env["TAW_RUNTIME"], "docker");
    assert_eq!(stopped.env["TAW_SANDBOX"], "");
    assert_eq!(stopped.env["TAW_PANE"], pane);
    // Its session as its watcher knew it, the server gone.
    assert_eq!(stopped.env["TAW_SESSION"], "=main:");
    assert_eq!(stopped.input["data"]["agent"], "claude");
}

#[test]
fn agent_start_sandbox_types_taw_sandbox_and_returns_once_it_runs_there() {
    let lab = Box::new("[sandbox]\nruntime = \"docker\"\nimage = \"taw-test\"\n");
    let work = lab.folder("work");
    let pane = lab.pane("started", &work);
    let started = lab
        .server
        .taw(&[
            "agent",
            "start",
            "boxed",
            "--kind",
            "claude",
            "--pane",
            &pane,
            "--sandbox",
            "--profile",
            "default",
            "--",
            "--model",
            "x",
        ])
        .result();
    assert_eq!(
        started["argv"],
        serde_json::json!([
            "taw",
            "sandbox",
            "claude",
            "--profile",
            "default",
            "--",
            "--model",
            "x"
        ])
    );
    assert_eq!(
        started["agent"]["sandbox"],
        serde_json::json!({"profile": "default", "runtime": "docker"})
    );
    assert_eq!(started["agent"]["name"], "boxed");
    let log = std::fs::read_to_string(&lab.docker_log).unwrap();
    assert!(log.contains(" taw-test claude --model x"), "{log}");
    // Its kept resume, for a restore.
    let kept: Value = serde_json::from_str(&lab.option(&pane, "@agent_sandbox_resume")).unwrap();
    assert_eq!(
        kept,
        serde_json::json!({"agent": "claude", "profile": "default"})
    );

    // A profile that is not there types nothing.
    let other = lab.pane("other", &work);
    let run = lab.server.taw(&[
        "agent",
        "start",
        "nothing",
        "--kind",
        "claude",
        "--pane",
        &other,
        "--sandbox",
        "--profile",
        "nope",
    ]);
    assert_eq!(run.error_code(), "not_found");
    assert!(!lab.screen(&other).contains("sandbox"));
    // --profile needs --sandbox.
    let run = lab.server.taw(&[
        "agent",
        "start",
        "x",
        "--kind",
        "claude",
        "--pane",
        &other,
        "--profile",
        "default",
    ]);
    assert_eq!(run.status, 2);
}

#[test]
fn a_sandboxed_agent_is_saved_by_its_kept_resume_and_restored_in_its_container() {
    let lab = Box::new("[sandbox]\nruntime = \"docker\"\nimage = \"taw-test\"\n");
    // The layout restored is the one saved by hand: an autosave of the
    // layout with the window closed would race the restore.
    lab.server
        .tmux(&["set-option", "-g", "@agent-wizard-autosave", "off"]);
    let work = lab.folder("work");
    let pane = lab.pane("kept", &work);
    lab.type_line(&pane, "taw sandbox claude -- --resume abc");
    lab.wait_option(&pane, "@agent_container", "docker/default");
    lab.wait_option(&pane, "@agent_kind", "claude");
    lab.server.taw(&["session", "save"]).result();
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(lab.server.state_dir().join("sessions/default.json")).unwrap(),
    )
    .unwrap();
    let agent = saved["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["windows"].as_array().unwrap().clone())
        .flat_map(|w| w["panes"].as_array().unwrap().clone())
        .find_map(|p| p["agent"].as_object().cloned())
        .unwrap();
    assert_eq!(
        agent["sandbox"],
        serde_json::json!({"agent": "claude", "profile": "default", "session_id": "abc"})
    );
    assert!(
        agent.get("session_id").is_none(),
        "no plain option: {agent:?}"
    );

    // The session goes; a restore types `taw sandbox` again there.
    lab.server.tmux(&["kill-window", "-t", &pane]);
    let dry = lab
        .server
        .taw(&["session", "restore", "--dry-run"])
        .result();
    let lines: Vec<&str> = dry["would_type"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["line"].as_str().unwrap())
        .collect();
    assert_eq!(
        lines,
        ["taw sandbox claude --profile default -- --resume abc"]
    );
    // The window it makes runs the shell the pane did.
    let command = format!("exec env PATH={} bash --norc --noprofile", lab.path());
    lab.server
        .tmux(&["set-option", "-g", "default-command", &command]);
    let restored = lab.server.taw(&["session", "restore"]).result();
    assert_eq!(restored["added"].as_array().unwrap().len(), 1, "{restored}");
    let again = lab.server.display("main:kept", "#{pane_id}");
    lab.wait_option(&again, "@agent_container", "docker/default");
    lab.wait_option(&again, "@agent_kind", "claude");
    let kept: Value = serde_json::from_str(&lab.option(&again, "@agent_sandbox_resume")).unwrap();
    assert_eq!(kept["session_id"], "abc");
    assert_eq!(lab.option(&again, "@agent_session"), "", "no plain option");
}

#[test]
fn taw_sandbox_refuses_placement_flags_and_says_why_it_starts_nothing() {
    let server = TmuxServer::start();
    // A placement flag: a usage error, with the tip.
    let run = server.taw_bare(&["sandbox", "claude", "--split", "right"], &[]);
    assert_eq!(run.status, 2, "{run:?}");
    assert!(run.stderr.contains("Usage: taw sandbox"), "{}", run.stderr);
    assert!(run.stderr.contains("tip:"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    for flag in [
        "--window",
        "--here",
        "--no-focus",
        "--session",
        "--worktree",
    ] {
        assert_eq!(server.taw_bare(&["sandbox", flag], &[]).status, 2, "{flag}");
    }

    let one_line = |run: &crate::common::Run| {
        assert_eq!(run.status, 1, "{run:?}");
        assert!(run.stdout.is_empty(), "no envelope: {run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{:?}", run.stderr);
        assert!(run.stderr.starts_with("taw sandbox: "), "{:?}", run.stderr);
        run.stderr.clone()
    };
    // No runtime installed.
    server.write_config("[sandbox]\nruntime = \"no-such-runtime\"\n");
    let said = one_line(&server.taw_bare(&["sandbox", "claude"], &[]));
    assert!(said.contains("no-such-runtime"), "{said}");
    // An agent taw does not know, and a profile that is not there.
    server.write_config("");
    let said = one_line(&server.taw_bare(&["sandbox", "nobody"], &[]));
    assert!(said.contains("no agent taw knows"), "{said}");
    let said = one_line(&server.taw_bare(&["sandbox", "claude", "--profile", "gone"], &[]));
    assert!(said.contains("no sandbox profile"), "{said}");
    // A profile that cannot run.
    let dir = server.config_dir().join("sandbox");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad"), "#!sh\n").unwrap();
    make_executable(&dir.join("bad"));
    let said = one_line(&server.taw_bare(&["sandbox", "claude", "--profile", "bad"], &[]));
    assert!(said.contains("not a full one"), "{said}");
    // A config whose [sandbox] has an error, or that does not parse, or an
    // image that would be read as an option: nothing runs on defaults the
    // person did not choose.
    for (config, word) in [
        ("[sandbox]\nnetwork = false\n", "sandbox.network"),
        ("[sandbox\nnetwork = \"off\"\n", "config.toml line"),
        ("[sandbox]\nimage = \"--privileged\"\n", "no image name"),
    ] {
        server.write_config(config);
        let said = one_line(&server.taw_bare(&["sandbox", "claude"], &[]));
        assert!(said.contains(word), "{config}: {said}");
    }
    // A copy of the default keeps its refusal of the home (where the
    // test runs taw), which is its script's own.
    server.write_config("");
    server.taw(&["sandbox", "new", "mine"]).result();
    let said = one_line(&server.taw_bare(&["sandbox", "claude", "--profile", "mine"], &[]));
    assert!(said.contains("is your home or holds it"), "{said}");
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Podman's own files for the test: its storage and its settings, in the
/// test's folder. runc, cgroupfs and the lower limits let it run inside a
/// container that allows less than a machine does (hybrid cgroups, no
/// raising of limits).
fn podman_env(root: &Path) -> Vec<(String, String)> {
    let storage = root.join("storage.conf");
    std::fs::write(
        &storage,
        format!(
            "[storage]\ndriver = \"vfs\"\ngraphroot = \"{0}/graph\"\nrunroot = \"{0}/run\"\n",
            root.display()
        ),
    )
    .unwrap();
    let containers = root.join("containers.conf");
    std::fs::write(
        &containers,
        format!(
            "[containers]\ndefault_ulimits = [\"nofile=1024:1024\", \"nproc=1000:1000\"]\n\
             [engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n\
             tmp_dir = \"{}/libpod\"\n",
            root.display()
        ),
    )
    .unwrap();
    vec![
        (
            "CONTAINERS_STORAGE_CONF".into(),
            storage.display().to_string(),
        ),
        ("CONTAINERS_CONF".into(), containers.display().to_string()),
    ]
}

fn podman(env: &[(String, String)], args: &[&str]) -> std::process::Output {
    std::process::Command::new("podman")
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("run podman")
}

/// An image of busybox and a stand-in Claude Code, made from files here
/// and imported: no registry.
fn build_image(root: &Path, env: &[(String, String)]) -> Result<(), String> {
    let busybox = ["/bin/busybox", "/usr/bin/busybox"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .ok_or("busybox is not installed (Debian's busybox-static)")?;
    let rootfs = root.join("rootfs");
    for dir in ["bin", "usr/local/bin", "screens", "tmp", "root", "etc"] {
        std::fs::create_dir_all(rootfs.join(dir)).unwrap();
    }
    std::fs::copy(&busybox, rootfs.join("bin/busybox")).unwrap();
    for applet in ["sh", "cat", "printf", "sleep", "true"] {
        std::os::unix::fs::symlink("busybox", rootfs.join("bin").join(applet)).unwrap();
    }
    let screens = repo_root().join("tests/fixtures/screens/claude");
    for screen in ["idle-1.txt", "blocked-1.txt"] {
        std::fs::copy(screens.join(screen), rootfs.join("screens").join(screen)).unwrap();
    }
    let claude = rootfs.join("usr/local/bin/claude");
    std::fs::write(
        &claude,
        "#!/bin/sh
show() { printf '\\033[2J\\033[H%s' \"$(cat \"/screens/$1\")\"; }
\
         show idle-1.txt
while IFS= read -r line; do
  [ \"$line\" = quit ] && exit 0
  show blocked-1.txt
done
",
    )
    .unwrap();
    make_executable(&claude);
    std::fs::write(rootfs.join("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n").unwrap();
    let tar = root.join("rootfs.tar");
    let packed = std::process::Command::new("tar")
        .args(["-C", &rootfs.display().to_string(), "-cf"])
        .arg(&tar)
        .arg(".")
        .status()
        .unwrap();
    assert!(packed.success());
    let imported = podman(
        env,
        &[
            "import",
            &tar.display().to_string(),
            "localhost/taw-test:latest",
        ],
    );
    if !imported.status.success() {
        return Err(format!(
            "podman import: {}",
            String::from_utf8_lossy(&imported.stderr)
        ));
    }
    let ran = podman(
        env,
        &[
            "run",
            "--rm",
            "--network=none",
            "localhost/taw-test:latest",
            "/bin/true",
        ],
    );
    if !ran.status.success() {
        return Err(format!(
            "podman run: {}",
            String::from_utf8_lossy(&ran.stderr)
        ));
    }
    Ok(())
}

#[test]
fn taw_sandbox_in_a_real_podman_container() {
    // Elsewhere the stand-in runtime's tests cover sandboxes.
    if !crate::common::tool_here(crate::common::installed("podman"), "podman") {
        return;
    }
    let mut lab = Box::new(
        "[sandbox]\nruntime = \"podman\"\nimage = \"localhost/taw-test:latest\"\nnetwork = \"off\"\n",
    );
    let root = lab.folder("podman");
    let env = podman_env(&root);
    if let Err(why) = build_image(&root, &env) {
        panic!("Podman is installed but runs no container here: {why}");
    }
    lab.env = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let work = lab.folder("work");
    let pane = lab.pane("podman", &work);
    lab.type_line(&pane, "taw sandbox claude");
    let start = std::time::Instant::now();
    while lab.option(&pane, "@agent_container") != "podman/default" {
        assert!(
            start.elapsed() < SECONDS(60),
            "no container seen; the pane shows:\n{}",
            lab.screen(&pane)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    lab.wait_option(&pane, "@agent_kind", "claude");
    lab.wait_option(&pane, "@agent_state", "idle");
    let sandbox = serde_json::json!({"profile": "default", "runtime": "podman"});
    assert_eq!(lab.record(&pane)["sandbox"], sandbox);
    let started = lab.heard_once("sandbox.started");
    assert_eq!(started.env["TAW_RUNTIME"], "podman");
    assert_eq!(started.input["data"]["sandbox"], sandbox);

    lab.type_line(&pane, "ask");
    lab.wait_option(&pane, "@agent_state", "blocked");
    let blocked = lab.heard_once("agent.blocked");
    assert_eq!(blocked.env["TAW_RUNTIME"], "podman");

    lab.type_line(&pane, "quit");
    let start = std::time::Instant::now();
    while !lab.option(&pane, "@agent_container").is_empty() {
        assert!(start.elapsed() < SECONDS(30), "the container did not leave");
        std::thread::sleep(Duration::from_millis(100));
    }
    let stopped = lab.heard_once("sandbox.stopped");
    assert_eq!(stopped.input["data"]["sandbox"], sandbox);
    assert_eq!(lab.recorder.heard("sandbox.started").len(), 1);
    let _ = podman(&env, &["rmi", "-f", "localhost/taw-test:latest"]);
}

#[test]
fn with_no_image_the_default_profile_builds_one_once_with_the_network_it_is_given() {
    let mut lab = Box::new(
        "[sandbox]\nruntime = \"docker\"\nnetwork = \"off\"\nenv = [\"MY_TOKEN\", \"NOT_SET\"]\n",
    );
    lab.env = vec!["MY_TOKEN=secret-value".into()];
    let work = lab.folder("work");
    let pane = lab.pane("build", &work);
    for _ in 0..2 {
        lab.type_line(&pane, "taw sandbox claude");
        lab.wait_option(&pane, "@agent_container", "docker/default");
        lab.type_line(&pane, "quit");
        lab.wait_option(&pane, "@agent_container", "");
    }
    let log = std::fs::read_to_string(&lab.docker_log).unwrap();
    let builds: Vec<&str> = log.lines().filter(|l| l.starts_with("build ")).collect();
    assert_eq!(builds.len(), 1, "built once: {log}");
    assert!(
        builds[0].starts_with("build -t taw-sandbox-claude -f "),
        "{log}"
    );
    assert!(
        log.contains("npm install -g @anthropic-ai/claude-code"),
        "{log}"
    );
    let runs: Vec<&str> = log.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(runs.len(), 2, "{log}");
    for run in runs {
        assert!(run.ends_with(" taw-sandbox-claude claude"), "{run}");
        assert!(run.contains("--network=none"), "{run}");
        assert!(run.contains("--env=MY_TOKEN"), "{run}");
        assert!(
            !run.contains("NOT_SET"),
            "a variable that is not set is not passed: {run}"
        );
        assert!(!run.contains("secret-value"), "values never show: {run}");
    }
}
