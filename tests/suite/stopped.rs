//! A tmux server that stops answering (`kill -STOP`): a verb ends with the
//! error code `timeout` instead of hanging, and the watchers, which wait
//! and look again, carry on once the server does (`kill -CONT`).

#![allow(clippy::disallowed_methods)]

use crate::common::{TmuxServer, taw_bin};
use std::os::unix::net::UnixDatagram;
use std::process::Command;
use std::time::{Duration, Instant};

fn signal(pid: &str, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), pid])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{name} {pid}");
}

#[test]
fn a_stopped_server_times_out_and_the_watchers_carry_on() {
    let server = TmuxServer::start();
    server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result();
    server.wait_for("the watcher", Duration::from_secs(5), || {
        !server.display("%0", "#{@agent_wizard_watcher}").is_empty()
    });
    let pid = server.display("%0", "#{pid}");
    let watcher = server.display("%0", "#{@agent_wizard_watcher}");
    let watcher_pid = watcher.split_whitespace().nth(1).unwrap().to_string();
    let nudge = server.state_dir().join("run").join(format!("{pid}-0.sock"));

    signal(&pid, "STOP");
    // The watcher is asked to look while tmux cannot answer it.
    let _ = UnixDatagram::unbound().and_then(|s| s.send_to(b"n", &nudge));
    // The verb's tmux limit made short (10 s for a person), as a debug
    // build lets a test.
    let began = Instant::now();
    let run = server.taw_with(&["pane", "list"], &[("TAW_TEST_LIMITS", "tmux=1500")]);
    let took = began.elapsed();
    signal(&pid, "CONT");
    assert_eq!(run.error_code(), "timeout", "{run:?}");
    assert!(
        took >= Duration::from_millis(1500) && took < Duration::from_secs(6),
        "answered after {took:?}"
    );
    let message = run.error_json()["error"]["message"].to_string();
    assert!(message.contains("tmux did not answer"), "{message}");

    // The same watcher is there, and still reads the pane: an agent that
    // starts in it now is seen.
    assert!(std::path::Path::new(&format!("/proc/{watcher_pid}")).exists());
    let dir = server.dir.path().join("agent-bin");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("claude");
    std::fs::write(&script, "#!/bin/sh\nprintf 'ready\\n'\nread -r line\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    server.tmux(&[
        "send-keys",
        "-t",
        "%0",
        &format!("sh {}", script.display()),
        "Enter",
    ]);
    // A busy machine (the suite beside four real agents) may take its
    // time to run the shell, the agent and the watcher's look.
    server.wait_for(
        "the agent seen after the server woke",
        Duration::from_secs(30),
        || server.display("%0", "#{@agent_kind}") == "claude",
    );
    assert_eq!(server.display("%0", "#{@agent_wizard_watcher}"), watcher);
}
