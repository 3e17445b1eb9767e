//! The watcher: one for the server, started at load; it takes every pane,
//! and new ones through the hooks; `taw watch status` tells the pipes
//! apart, `attach-all --restart` renews them.

use crate::common::{TmuxServer, taw_bin};
use serde_json::Value;
use std::time::Duration;

fn load(server: &TmuxServer) -> Value {
    server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result()
}

fn status(server: &TmuxServer) -> Value {
    server.taw(&["watch", "status"]).result()
}

fn watched(server: &TmuxServer) -> u64 {
    status(server)["watched"].as_u64().unwrap()
}

#[test]
fn every_pane_gets_a_watcher_new_ones_too() {
    let server = TmuxServer::start();
    let loaded = load(&server);
    assert_eq!(loaded["watchers"]["attached"], serde_json::json!(["%0"]));
    server.wait_for("the first watcher", Duration::from_secs(5), || {
        watched(&server) == 1
    });
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    server.tmux(&["new-window", "-d", "-t", "main:"]);
    server.tmux(&["new-session", "-d", "-s", "other"]);
    server.wait_for("watchers on new panes", Duration::from_secs(10), || {
        watched(&server) == 4
    });
    let state = status(&server);
    assert_eq!(state["unwatched"], 0);
    for pane in state["panes"].as_array().unwrap() {
        assert_eq!(pane["watch"], "current");
        assert!(pane["pid"].as_u64().is_some());
    }
}

#[test]
fn older_and_foreign_pipes() {
    let server = TmuxServer::start();
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    // Someone else's pipe on %1 (tmux-logging, say): left alone.
    server.tmux(&["pipe-pane", "-O", "-t", "%1", "cat > /dev/null"]);
    load(&server);
    server.wait_for("the watcher of %0", Duration::from_secs(5), || {
        watched(&server) == 1
    });
    let state = status(&server);
    assert_eq!(state["foreign"], 1);
    // A watcher of another version: restarted by --restart only.
    server.tmux(&[
        "set-option",
        "-p",
        "-t",
        "%0",
        "@agent_wizard_watcher",
        "0.0.1 1",
    ]);
    assert_eq!(status(&server)["older"], 1);
    let plain = server.taw(&["watch", "attach-all"]).result();
    assert_eq!(plain["restarted"], serde_json::json!([]));
    let renewed = server.taw(&["watch", "attach-all", "--restart"]).result();
    assert_eq!(renewed["restarted"], serde_json::json!(["%0"]));
    assert_eq!(renewed["skipped_foreign"], serde_json::json!(["%1"]));
    server.wait_for("the new watcher", Duration::from_secs(5), || {
        status(&server)["watched"] == 1 && status(&server)["older"] == 0
    });
}

/// After an update, the watcher running is the old taw's: an attach with
/// `--restart` (what a load asks) ends it and starts one of this taw's,
/// which takes every pane. The old one here is a stand-in that answers as
/// a watcher of a taw before versions were said does.
#[test]
fn a_watcher_of_another_taw_is_replaced_by_a_restart() {
    use std::io::{BufRead, BufReader, Write};
    let server = TmuxServer::start();
    let pid = server.display("%0", "#{pid}");
    let run = server.state_dir().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let socket = run.join(format!("{pid}-watch.sock"));
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let (told, asked) = std::sync::mpsc::channel::<String>();
    let path = socket.clone();
    let old = std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut line = String::new();
            BufReader::new(&stream).read_line(&mut line).unwrap();
            let quit = line.contains("quit");
            let _ = told.send(line);
            if quit {
                let _ = stream.write_all(b"{\"answer\":\"done\"}\n");
                let _ = std::fs::remove_file(&path);
                return;
            }
            let _ = stream.write_all(
                b"{\"answer\":\"attached\",\"attached\":[],\"restarted\":[],\"skipped_foreign\":[]}\n",
            );
        }
    });
    let attached = server.taw(&["watch", "attach-all", "--restart"]).result();
    assert!(attached.get("watcher_version").is_none(), "{attached}");
    let quit = asked.try_iter().any(|line| line.contains("quit"));
    if !quit {
        // Ended here, so the test fails rather than waits.
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        let _ = stream.write_all(b"{\"ask\":\"quit\"}\n");
    }
    old.join().unwrap();
    assert!(quit, "the old watcher was never asked to quit");
    server.wait_for("this taw's watcher on %0", Duration::from_secs(10), || {
        watched(&server) == 1
    });
}

/// One watcher for the server: a pane that goes ends its watch (its FIFO
/// goes), and the watcher ends with its last pipe.
#[test]
fn watchers_end_with_their_panes() {
    let server = TmuxServer::start();
    load(&server);
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    server.wait_for("two watchers", Duration::from_secs(5), || {
        watched(&server) == 2
    });
    let pids: Vec<u64> = status(&server)["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pid"].as_u64().unwrap())
        .collect();
    assert_eq!(pids[0], pids[1], "one watcher for the server");
    let watcher = pids[0];
    let run = server.state_dir().join("run").join("fifos");
    let fifos = |pane: &str| -> usize {
        let server_pid = server.display("%0", "#{pid}");
        std::fs::read_dir(&run)
            .unwrap()
            .filter_map(|entry| entry.ok())
            .filter(|entry| {
                let name = entry.file_name().to_string_lossy().to_string();
                name.starts_with(&format!("{server_pid}-{pane}-")) && name.ends_with(".fifo")
            })
            .count()
    };
    assert_eq!(fifos("1"), 1);
    server.tmux(&["kill-pane", "-t", "%1"]);
    server.wait_for("the pane's FIFO to go", Duration::from_secs(5), || {
        fifos("1") == 0
    });
    assert!(std::path::Path::new(&format!("/proc/{watcher}")).exists());
    // The last pipe closed: the watcher ends.
    server.tmux(&["pipe-pane", "-t", "%0"]);
    server.wait_for("the watcher to end", Duration::from_secs(5), || {
        !std::path::Path::new(&format!("/proc/{watcher}")).exists()
    });
}

/// A watcher killed by a signal: the next hook for a new pane starts
/// another, which takes every pane again and says so in its log.
#[test]
fn a_watcher_that_dies_is_started_again_by_the_next_hook() {
    let server = TmuxServer::start();
    load(&server);
    server.tmux(&["split-window", "-d", "-t", "main:0"]);
    server.wait_for("two watched panes", Duration::from_secs(5), || {
        watched(&server) == 2
    });
    let pid_of = |server: &TmuxServer| -> Vec<u64> {
        status(server)["panes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["pid"].as_u64())
            .collect()
    };
    let old = pid_of(&server)[0];
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &old.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    server.wait_for("the watcher to die", Duration::from_secs(5), || {
        !std::path::Path::new(&format!("/proc/{old}")).exists()
    });
    server.tmux(&["new-window", "-d", "-t", "main:"]);
    server.wait_for(
        "a new watcher on all three",
        Duration::from_secs(10),
        || {
            let pids = pid_of(&server);
            pids.len() == 3 && pids.iter().all(|pid| *pid != old && *pid == pids[0])
        },
    );
    // It watches: an agent in the old pane is seen.
    let claude = format!("{}/claude", stand_in_claude(&server));
    server.tmux(&["send-keys", "-t", "%0", &claude, "Enter"]);
    server.wait_for("the agent seen", Duration::from_secs(10), || {
        server.display("%0", "#{@agent_kind}") == "claude"
    });
    let log = std::fs::read_to_string(server.state_dir().join("logs/watch.log")).unwrap();
    assert!(
        log.contains(&format!("the watcher of pid {old}, which is not this one")),
        "{log}"
    );
}

#[test]
fn seen_marks_what_a_client_shows() {
    let server = TmuxServer::start();
    server.tmux(&["new-window", "-d", "-t", "main:"]);
    server.tmux(&["set-option", "-p", "-t", "%0", "@agent_state", "done"]);
    server.tmux(&["set-option", "-p", "-t", "%1", "@agent_state", "done"]);
    let outer = crate::common::attach_client(&server, "main");
    let seen = server.taw(&["watch", "seen"]).result();
    assert_eq!(seen["panes"], serde_json::json!(["%0"]));
    assert_eq!(server.display("%0", "#{@agent_state}"), "idle");
    assert_eq!(server.display("%1", "#{@agent_state}"), "done");
    drop(outer);
}

#[test]
fn an_agent_that_is_the_panes_own_process() {
    let server = TmuxServer::start();
    load(&server);
    // The script is the pane's process (tmux runs it with `sh -c`), and
    // names itself by its file name.
    let script = stand_in(&server, "claude", "printf 'pretend agent\\n'\nsleep 600\n");
    let pane = server.new_window("main", "agent", script.to_str().unwrap());
    server.wait_for_or_say(
        "claude to be found",
        // Through ps (the suite's second run, beside the real agents), a
        // look reads the process table with four ps runs.
        Duration::from_secs(10),
        || server.display(&pane, "#{@agent_kind}") == "claude",
        || server.watch_log(),
    );
    server.wait_for("its grace to end", Duration::from_secs(6), || {
        server.display(&pane, "#{@agent_state}") == "idle"
    });
}

#[test]
fn a_record_for_an_agent_not_in_front_is_taken_off() {
    // What `taw agent start` writes as an agent comes up, left behind by an
    // agent that exited before the watcher looked (or by an older watcher).
    let server = TmuxServer::start();
    load(&server);
    server.wait_for("the watcher", Duration::from_secs(5), || {
        watched(&server) == 1
    });
    for (name, value) in [
        ("@agent_kind", "claude"),
        ("@agent_state", "unknown"),
        ("@agent_name", "gone"),
    ] {
        server.tmux(&["set-option", "-p", "-t", "%0", name, value]);
    }
    // Output makes the watcher look.
    server.tmux(&["send-keys", "-t", "%0", "echo hi", "Enter"]);
    server.wait_for("the record to go", Duration::from_secs(5), || {
        server
            .display("%0", "#{@agent_kind}#{@agent_name}")
            .is_empty()
    });
    assert!(
        server
            .display("%0", "#{@agent_final_state}")
            .starts_with("unknown ")
    );
    assert_eq!(
        server.taw(&["agent", "list"]).result()["agents"],
        serde_json::json!([])
    );
}

/// A stand-in `claude` in a folder of its own: says it is ready, then
/// waits for a line.
/// A shell script named `name` in a folder of the test's (an agent taw
/// knows by that name): its path.
fn stand_in(server: &TmuxServer, name: &str, body: &str) -> std::path::PathBuf {
    server.stand_in("agent-bin", name, body)
}

fn stand_in_claude(server: &TmuxServer) -> String {
    let script = stand_in(
        server,
        "claude",
        "printf 'stand-in ready\\n'\nwhile IFS= read -r line; do printf 'got: %s\\n' \"$line\"; done\n",
    );
    script.parent().unwrap().display().to_string()
}

#[test]
fn an_agent_a_pane_command_starts_is_detected() {
    let server = TmuxServer::start();
    load(&server);
    let bin = stand_in_claude(&server);
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
    // The shell that runs the command line forks the agent after the
    // watcher's first look: nothing tmux tells moves when it comes.
    let mut panes = Vec::new();
    for command in [
        "sleep 0.7; claude; exec sh",
        "sh -c 'sleep 0.7; claude'",
        "claude",
    ] {
        let run = server.tmux_run_with(
            &[
                "new-window",
                "-d",
                "-P",
                "-F",
                "#{pane_id}",
                "-t",
                "main:",
                command,
            ],
            &[("PATH", &path)],
        );
        assert_eq!(run.status, 0, "{run:?}");
        panes.push(run.stdout.trim().to_string());
    }
    for pane in &panes {
        server.wait_for(
            &format!("claude in {pane}"),
            Duration::from_secs(10),
            || server.display(pane, "#{@agent_kind}") == "claude",
        );
    }
    // explain names the agent it found.
    let explained = server.taw(&["agent", "explain", &panes[0], "--json"]);
    let explained: serde_json::Value = serde_json::from_str(&explained.stdout).unwrap();
    assert_eq!(explained["agent"], "claude");
}

/// Time enough for a pane's watcher to look at a change of its screen:
/// a look that changes nothing leaves no sign to wait for.
const WATCHER_LOOKED: Duration = Duration::from_millis(500);

/// A turn over before any look could see it working (pi's is, when its
/// reply comes at once) ends done all the same: its footer's token counts
/// moved, and they move only when a turn ends.
#[test]
fn a_turn_no_look_saw_working_ends_done_by_its_turn_mark() {
    let server = TmuxServer::start();
    load(&server);
    // Clears the screen and draws a reply with the new counts in one write.
    let script = stand_in(
        &server,
        "pi",
        "n=0\nprintf '\\033[2J\\033[H welcome\\n\\n↑0 ↓0 0.0%%/128k   mock-model\\n'\n\
         while IFS= read -r line; do n=$((n + 10)); \
         printf '\\033[2J\\033[H %s\\n reply to %s\\n\\n↑%s ↓5 0.1%%/128k   mock-model\\n' \"$line\" \"$line\" \"$n\"; done\n",
    );
    let pane = at_rest(&server, "pi", &script);
    let state = || server.display(&pane, "#{@agent_kind} #{@agent_state}");
    // Typing alone moves nothing: once the typing shows, the watcher's
    // look at it (within its debounce of a change) leaves pi idle.
    server.tmux(&["send-keys", "-t", &pane, "-l", "hel"]);
    server.wait_for("the typing on the screen", Duration::from_secs(10), || {
        server
            .tmux(&["capture-pane", "-p", "-t", &pane])
            .contains("hel")
    });
    server.stays_for("pi idle", WATCHER_LOOKED, || state() == "pi idle");
    server.tmux(&["send-keys", "-t", &pane, "lo", "Enter"]);
    server.wait_for("pi done", Duration::from_secs(10), || state() == "pi done");
}

/// Codex's reply to a short prompt comes within a second (real Codex 0.169
/// in the lab, after an approved tool turn, answers `hello` in under 0.3 s):
/// no look need see it working. Its turn's summary (`Worked for <1s •
/// 05:44`) is new on the screen, and the turn ends done all the same.
#[test]
fn a_codex_turn_no_look_saw_working_ends_done_by_its_summary() {
    let server = TmuxServer::start();
    load(&server);
    // Starts after an earlier turn (its summary on the screen), then
    // clears the screen and draws the reply, its summary and the prompt in
    // one write; each turn's summary names another minute.
    let script = stand_in(
        &server,
        "codex",
        "n=40\nprintf '\\033[2J\\033[H› tool touch x\\n\\n• Ran touch x\\n\\n  Worked for 7s • 05:40\\n\\n› Ask Codex to do anything\\n\\n  mock-model default · ~/w\\n'\n\
         while IFS= read -r line; do n=$((n + 1)); \
         printf '\\033[2J\\033[H› %s\\n\\n• reply to %s\\n\\n  Worked for <1s • 05:%s\\n\\n› Ask Codex to do anything\\n\\n  mock-model default · ~/w\\n' \"$line\" \"$line\" \"$n\"; done\n",
    );
    let pane = at_rest(&server, "codex", &script);
    let state = || server.display(&pane, "#{@agent_kind} #{@agent_state}");
    let screen = || server.tmux(&["capture-pane", "-p", "-t", &pane]);
    // Someone looks at it through a turn: it ends idle.
    let window = server.display(&pane, "#{window_id}");
    let _viewer = crate::common::attach_client(&server, "main");
    server.tmux(&["select-window", "-t", &window]);
    let seq = || server.display(&pane, "#{@agent_state_seq}");
    let before = seq();
    server.tmux(&["send-keys", "-t", &pane, "hello", "Enter"]);
    server.wait_for("the first reply", Duration::from_secs(10), || {
        screen().contains("reply to hello")
    });
    // Its turn told (working, then idle), and no done after it.
    server.wait_for("the turn told, and over", Duration::from_secs(10), || {
        seq() != before && state() == "codex idle"
    });
    server.stays_for("codex idle", WATCHER_LOOKED, || state() == "codex idle");
    // The person goes to another window and a turn comes at once: nobody
    // looks, whatever the watcher's last read of the clients said.
    server.tmux(&["select-window", "-t", "main:0"]);
    server.tmux(&["send-keys", "-t", &pane, "again", "Enter"]);
    server.wait_for("codex done", Duration::from_secs(10), || {
        state() == "codex done"
    });
}

/// A window running the stand-in `script` as `agent`, once it reads at
/// rest: its pane.
fn at_rest(server: &TmuxServer, agent: &str, script: &std::path::Path) -> String {
    let pane = server.new_window("main", agent, &script.display().to_string());
    let at_rest = format!("{agent} idle");
    server.wait_for(&at_rest, Duration::from_secs(10), || {
        server.display(&pane, "#{@agent_kind} #{@agent_state}") == at_rest
    });
    pane
}

/// The watcher's pid, from the announcement on `pane`.
fn watcher_pid(server: &TmuxServer, pane: &str) -> u32 {
    let announced = server.display(pane, "#{@agent_wizard_watcher}");
    announced
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap()
}

/// A process's resident memory in kB and its CPU ticks, from /proc.
fn rss_and_ticks(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .filter_map(|field| field.parse().ok())
        .collect();
    // utime and stime: the 14th and 15th fields, the 12th and 13th after
    // the name (the state, a letter, is not a number).
    (rss, fields[10] + fields[11])
}

/// An agent that prints as fast as it can and one that prints a megabyte
/// line cost the watcher a bounded share: their mirrors drop what they
/// cannot keep up with and are seeded from tmux again, its memory stays
/// bounded, and another agent's turn is still seen.
#[test]
fn a_pane_at_full_speed_and_a_megabyte_line_leave_the_rest_watched() {
    let server = TmuxServer::start();
    load(&server);
    let flood = stand_in(
        &server,
        "codex",
        "printf 'ready\\n'\nread -r go\nexec yes 'codex is busy'\n",
    );
    let flooding = server.new_window("main", "flood", &flood.display().to_string());
    let wide = stand_in(
        &server,
        "gemini",
        "printf 'ready\\n'\nread -r go\nhead -c 1048576 /dev/zero | tr '\\0' x\nprintf '\\nwide line done\\n'\nexec cat\n",
    );
    let widening = server.new_window("main", "wide", &wide.display().to_string());
    // Claude's screens: idle; working after a line, until the line `stop`
    // (a turn of a set length could pass unseen by a look that a loaded
    // machine holds back).
    let rule = "─".repeat(60);
    let calm_script = stand_in(
        &server,
        "claude",
        &format!(
            "draw() {{ printf '\\033[H\\033[2J\\n\\n\\n%s\\n{rule}\\n❯ \\n{rule}\\n%s' \"$1\" \"$2\"; }}\n\
             draw '' '  ⏸ manual mode on · ? for shortcuts'\n\
             while IFS= read -r line; do if [ \"$line\" = stop ]; then \
             draw '' '  ⏸ manual mode on · ? for shortcuts'; else \
             draw '✽ Forming…' '  ⏸ manual mode on · esc to interrupt'; fi; done\n"
        ),
    );
    let calm = server.new_window("main", "calm", &calm_script.display().to_string());
    for (pane, kind) in [
        (&flooding, "codex"),
        (&widening, "gemini"),
        (&calm, "claude"),
    ] {
        server.wait_for(
            &format!("{kind} in {pane}"),
            Duration::from_secs(10),
            || server.display(pane, "#{@agent_kind}") == kind,
        );
    }
    let watcher = watcher_pid(&server, &calm);
    let (_, ticks_before) = rss_and_ticks(watcher);
    let started = std::time::Instant::now();
    for pane in [&flooding, &widening] {
        server.tmux(&["send-keys", "-t", pane, "Enter"]);
    }
    server.wait_for("the wide line's end", Duration::from_secs(20), || {
        server
            .tmux(&["capture-pane", "-p", "-t", &widening])
            .contains("wide line done")
    });
    // The calm agent's turn is still seen, start and end.
    let state = || server.display(&calm, "#{@agent_state}");
    server.wait_for("claude idle", Duration::from_secs(10), || state() == "idle");
    server.tmux(&["send-keys", "-t", &calm, "Enter"]);
    server.wait_for("claude working", Duration::from_secs(10), || {
        state() == "working"
    });
    server.tmux(&["send-keys", "-t", &calm, "stop", "Enter"]);
    server.wait_for("claude done", Duration::from_secs(10), || state() == "done");
    let (rss, ticks_after) = rss_and_ticks(watcher);
    let spent = started.elapsed().as_secs_f64();
    // SAFETY: sysconf reads a constant of the system.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let share = (ticks_after - ticks_before) as f64 / hz / spent;
    assert!(rss < 64 * 1024, "the watcher holds {rss} kB");
    assert!(
        share < 0.6,
        "the watcher took {:.0} % of a core",
        share * 100.0
    );
    assert_eq!(server.display(&calm, "#{@agent_kind}"), "claude");
    assert_eq!(watcher_pid(&server, &flooding), watcher);
}

/// An agent taw does not know, defined by a file alone: the programs that
/// run it and its rules. It is detected in a pane, its states read from
/// its screen, and it is an agent like the others in the records and the
/// manifest list.
#[test]
fn an_agent_defined_by_a_file_is_detected() {
    let server = TmuxServer::start();
    let script = stand_in(
        &server,
        "acme",
        "printf 'acme is thinking\\n'\nread _\nclear\nprintf 'Allow acme to run ls? [y/n]\\n'\nread _\nclear\nprintf 'acme> \\n'\nread _\n",
    );
    let manifests = server.config_dir().join("manifests");
    std::fs::create_dir_all(&manifests).unwrap();
    std::fs::write(
        manifests.join("acme.toml"),
        format!(
            r#"id = "acme"
name = "Acme Code"
processes = ["acme"]
command = ["{}"]

[[rules]]
id = "thinking"
state = "working"
contains = ["acme is thinking"]

[[rules]]
id = "asks"
state = "blocked"
priority = 10
contains = ["Allow acme to"]
"#,
            script.display()
        ),
    )
    .unwrap();
    let asked = server.dir.path().join("asked.json");
    server.write_config(&format!(
        "[hooks]\n\"agent.blocked\" = \"cat > '{}'\"\n",
        asked.display()
    ));
    // Its notification rings the sound command, as any agent's does.
    let heard = crate::common::sounds_heard(&server);
    load(&server);
    let pane = server.run_in_bash(&script, "acme is thinking");
    let state = |want: &str| {
        server.wait_for(&format!("acme {want}"), Duration::from_secs(10), || {
            server.display(&pane, "#{@agent_kind} #{@agent_state}") == format!("acme {want}")
        });
    };
    state("working");
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    state("blocked");
    // Its events are told as any agent's.
    server.wait_for("agent.blocked", Duration::from_secs(10), || {
        std::fs::read_to_string(&asked).is_ok_and(|text| text.ends_with('}'))
    });
    let event: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&asked).unwrap()).unwrap();
    assert_eq!(event["event"], "agent.blocked", "{event}");
    assert_eq!(event["focused_pane_agent"], "acme", "{event}");
    server.wait_for("the sound of its request", Duration::from_secs(10), || {
        heard.exists()
    });
    let sound = std::fs::read_to_string(&heard).unwrap();
    assert!(sound.starts_with("request|Acme Code needs you"), "{sound}");
    // The web's state has it as it has any agent: waiting for the person.
    let web = crate::common::web::start_web(&server);
    let seen = crate::common::web::state(&web);
    let row = crate::common::web::pane_of(&seen, &pane);
    assert_eq!(row["status"], "needs_input", "{row}");
    assert_eq!(row["native_agent"]["kind"], "acme", "{row}");
    assert_eq!(row["native_agent"]["status"], "blocked", "{row}");
    assert_eq!(row["question"], "Allow acme to run ls? [y/n]", "{row}");
    drop(web);
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    server.wait_for("acme at rest", Duration::from_secs(10), || {
        let read = server.display(&pane, "#{@agent_kind} #{@agent_state}");
        read == "acme idle" || read == "acme done"
    });
    let listed = server.taw(&["agent", "list"]).result();
    assert_eq!(listed["agents"][0]["agent"], "acme", "{listed}");
    let manifests = server.taw(&["manifest", "list"]).result();
    let acme = manifests["manifests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["agent"] == "acme")
        .cloned()
        .unwrap_or_else(|| panic!("{manifests}"));
    assert_eq!(acme["source_kind"], "local definition", "{acme}");
    assert_eq!(acme["name"], "Acme Code", "{acme}");
    // `agent start` types the file's command, and sees it run.
    let shell = server.bash_pane("second");
    let started = server
        .taw(&[
            "agent", "start", "--kind", "acme", "--pane", &shell, "second",
        ])
        .result();
    assert_eq!(started["agent"]["agent"], "acme", "{started}");
}
