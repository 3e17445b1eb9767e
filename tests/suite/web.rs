//! `taw web` against a real tmux: the state API as vmux's clients read
//! it, the token on every endpoint, a stand-in agent's dialog as a menu,
//! a guarded choice sent and a stale one refused with nothing typed, and
//! the WebSocket's frames as the screen changes.
#![allow(clippy::disallowed_methods)]

use crate::common::TmuxServer;
use crate::common::web::{
    dialog_agent, http, input, pane_of, raw, screen, start_web, start_web_with, state,
    web_with_limits, websocket,
};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How long a test waits for what must come: a bound for a loaded
/// machine, never a time the test spends when all is well.
const WAIT: Duration = Duration::from_secs(30);
/// Past this, a head the server should have cut off at 10 s was held.
const HEAD_HELD: Duration = Duration::from_secs(20);

/// The pause between two commands a person types.
const TYPING_PAUSE: Duration = Duration::from_millis(150);

/// What is typed shows on the stand-in agent's screen within this; what
/// is not typed leaves no sign to wait for.
const NOT_TYPED: Duration = Duration::from_millis(300);

#[test]
fn without_the_token_every_endpoint_answers_401() {
    let server = TmuxServer::start();
    let web = start_web(&server);
    let any = json!({"id": "%0", "key": "Enter"});
    for (method, path) in [
        ("GET", "/api/state"),
        ("GET", "/ws"),
        ("POST", "/api/input"),
        ("POST", "/api/key"),
        ("POST", "/api/text"),
        ("POST", "/api/select"),
        ("POST", "/api/star"),
    ] {
        for token in [None, Some("not-the-token")] {
            let (status, body) = http(&web, method, path, token, Some(&any));
            assert_eq!(status, 401, "{method} {path}: {body}");
        }
        // A right token between: past a few wrong tries in a row a client
        // waits (the gate test below).
        state(&web);
    }
    // Another site's page may not act, token or not.
    let (status, _) = crate::common::web::http_with(
        &web,
        "POST",
        "/api/key",
        Some(&web.token),
        Some(&any),
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(status, 403);
    // The page itself holds nothing, and asks the token for what it reads.
    let (status, body) = http(&web, "GET", "/", None, None);
    assert_eq!(status, 200);
    assert!(body.contains("app.js"));
    let mode = std::fs::metadata(server.state_dir().join("web/token")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(mode.permissions().mode() & 0o777, 0o600);
}

#[test]
fn a_dialog_is_a_menu_and_only_a_fresh_guard_answers_it() {
    let server = TmuxServer::start();
    let agent = dialog_agent(&server);
    let web = start_web(&server);
    let now = state(&web);
    let shell = pane_of(&now, "%0");
    assert_eq!(shell["kind"], "shell");
    assert_eq!(shell["actionable"], false);
    let pane = pane_of(&now, &agent);
    assert_eq!(pane["kind"], "claude-code");
    assert_eq!(pane["status"], "needs_input");
    let question = pane["question"].as_str().unwrap();
    assert!(
        question.ends_with("Run touch x\nDo you want to proceed?"),
        "{question}"
    );
    let labels: Vec<&str> = pane["menu"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Yes", "Yes, and always allow", "No"]);
    assert_eq!(pane["menu"][0]["selected"], true);
    assert_eq!(pane["actionable"], true);
    let guard = pane["action_guard"].clone();
    let no = pane["menu"][2]["id"].as_str().unwrap().to_string();

    // A guard from another prompt: 409, and nothing typed.
    let mut stale = guard.clone();
    stale["prompt_fingerprint"] = json!("fnv1a64:0000000000000000");
    let (status, body) = input(
        &web,
        &json!({"id": agent, "operation": "select", "option_id": no, "expected": stale}),
    );
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("prompt_changed"), "{body}");
    // A key no client may send.
    let (status, _) = input(
        &web,
        &json!({"id": agent, "operation": "key", "key": "C-b", "expected": guard}),
    );
    assert_eq!(status, 400);
    // A shell is never typed into.
    let (status, body) = http(
        &web,
        "POST",
        "/api/key",
        Some(&web.token),
        Some(&json!({"id": "%0", "key": "Enter"})),
    );
    assert_eq!(status, 409, "{body}");
    server.stays_for("nothing typed", NOT_TYPED, || {
        !screen(&server, &agent).contains("got:")
    });

    // The fresh guard: option 3 is two rows down from the highlight.
    let (status, body) = input(
        &web,
        &json!({"id": agent, "operation": "select", "option_id": no, "expected": guard}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["delivery"],
        "accepted"
    );
    server.wait_for("the choice typed", WAIT, || {
        screen(&server, &agent).contains("got: ^[[B^[[B")
    });
    let after = state(&web);
    assert!(pane_of(&after, &agent)["interacted"].as_f64().unwrap() > 0.0);
}

#[test]
fn the_websocket_sends_hello_then_a_frame_at_each_change() {
    let server = TmuxServer::start();
    server.load_plugin();
    let web = start_web(&server);
    let mut socket = websocket(&web);
    let mut next = || -> Value {
        let message = socket.read().unwrap();
        serde_json::from_str(message.to_text().unwrap()).unwrap()
    };
    assert_eq!(next()["type"], "hello");
    let first = next();
    assert_eq!(first["type"], "state");
    server.tmux(&["send-keys", "-t", "%0", "echo web-frame-marker", "Enter"]);
    let start = Instant::now();
    loop {
        let frame = next();
        if frame.to_string().contains("web-frame-marker") {
            assert_eq!(frame["type"], "state");
            break;
        }
        assert!(start.elapsed() < WAIT, "no frame with the change");
    }
}

/// The shell of the server's first pane draws its prompt, and tmux names
/// the window after it, a moment after the server starts: on a busy
/// machine after the web's first frame, which then rightly changes. A
/// name of its own keeps the window's; the prompt is waited for.
fn settle_first_pane(server: &TmuxServer) {
    server.tmux(&["rename-window", "-t", "%0", "work"]);
    server.wait_for("the shell's prompt", Duration::from_secs(10), || {
        !server
            .tmux(&["capture-pane", "-p", "-t", "%0"])
            .trim()
            .is_empty()
    });
}

/// A watcher's look alone brings the frame: with the whole server read
/// only each minute here, the look's own read (the looked-at pane's row
/// and screen, on the server as read before) shows the change, and the
/// pane where it was.
#[test]
fn a_look_alone_brings_its_frame() {
    let server = TmuxServer::start();
    settle_first_pane(&server);
    server.load_plugin();
    let (_web, mut socket) = web_with_limits(&server, "structure=60000");
    let mut next = || -> Value {
        let message = socket.read().unwrap();
        serde_json::from_str(message.to_text().unwrap()).unwrap()
    };
    assert_eq!(next()["type"], "hello");
    let first = next();
    let before = pane_of(&first, "%0").clone();
    server.tmux(&["send-keys", "-t", "%0", "echo look-frame-marker", "Enter"]);
    let start = Instant::now();
    loop {
        let frame = next();
        if frame.to_string().contains("look-frame-marker") {
            let after = pane_of(&frame, "%0");
            assert_eq!(after["target"], before["target"], "{after}");
            assert_eq!(after["name"], before["name"], "{after}");
            break;
        }
        assert!(start.elapsed() < WAIT, "no frame with the change");
    }
}

/// An agent's looks reach the page from its watcher (the screen it keeps
/// from the pane's bytes, the title the agent set), and a state the
/// watcher writes comes with them: the pane's row is read again then.
#[test]
fn an_agents_screen_title_and_state_come_with_its_looks() {
    let server = TmuxServer::start();
    settle_first_pane(&server);
    server.load_plugin();
    let claude = server.stand_in(
        "agent-bin",
        "claude",
        "printf 'stand-in ready\\n'\nwhile IFS= read -r line; do printf '\\033]2;%s\\007got: %s\\n' \"$line\" \"$line\"; done\n",
    );
    server.tmux(&[
        "send-keys",
        "-t",
        "%0",
        &claude.display().to_string(),
        "Enter",
    ]);
    server.wait_for("the agent seen", WAIT, || {
        server.display("%0", "#{@agent_kind}") == "claude"
    });
    let (_web, mut socket) = web_with_limits(&server, "structure=60000");
    let mut next = || -> Value {
        let message = socket.read().unwrap();
        serde_json::from_str(message.to_text().unwrap()).unwrap()
    };
    assert_eq!(next()["type"], "hello");
    let mut wait_pane = |what: &str, check: &dyn Fn(&Value) -> bool| {
        let start = Instant::now();
        loop {
            let frame = next();
            if frame["type"] == "state" && check(pane_of(&frame, "%0")) {
                return;
            }
            assert!(start.elapsed() < WAIT, "no frame with {what}: {frame}");
        }
    };
    for line in ["first-line", "second-line"] {
        server.tmux(&["send-keys", "-t", "%0", line, "Enter"]);
        let got = format!("got: {line}");
        wait_pane(line, &|pane| {
            pane["lines"].to_string().contains(&got) && pane["title"] == line
        });
    }
    let report = [
        "pane",
        "report-agent",
        "%0",
        "--source",
        "custom:test",
        "--agent",
        "claude",
        "--state",
        "blocked",
    ];
    assert_eq!(server.taw(&report).status, 0);
    wait_pane("its state", &|pane| pane["status"] == "needs_input");
    server.tmux(&["send-keys", "-t", "%0", "third-line", "Enter"]);
    wait_pane("the screen after the state", &|pane| {
        pane["lines"].to_string().contains("got: third-line") && pane["status"] == "needs_input"
    });
}

/// A shell's changes reach the page from the screen its watcher keeps
/// once the web has asked for it: after the first few, the web captures
/// the pane no more (its tmux calls are counted by a stand-in), every
/// change still shows, a title the shell sets comes with it, and the
/// screen the page ends with is tmux's, no look having found it otherwise.
#[test]
fn a_shells_screen_the_watcher_keeps_brings_its_changes() {
    let server = TmuxServer::start();
    settle_first_pane(&server);
    server.load_plugin();
    let real = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|dir| std::path::Path::new(dir).join("tmux"))
        .find(|path| path.is_file())
        .expect("tmux on PATH");
    let calls = server.state_dir().join("web-tmux-calls");
    let stand_in = server.stand_in(
        "web-bin",
        "tmux",
        &format!(
            "printf '%s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            calls.display(),
            real.display()
        ),
    );
    let path = format!(
        "{}:{}",
        stand_in.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let web = crate::common::web::start_web_at(
        &server,
        0,
        &[],
        &[("TAW_TEST_LIMITS", "structure=60000"), ("PATH", &path)],
    );
    let mut socket = websocket(&web);
    let mut next = || -> Value {
        let message = socket.read().unwrap();
        serde_json::from_str(message.to_text().unwrap()).unwrap()
    };
    assert_eq!(next()["type"], "hello");
    assert_eq!(next()["type"], "state");
    let captures = || {
        std::fs::read_to_string(&calls)
            .unwrap_or_default()
            .lines()
            .filter(|call| call.contains("capture-pane"))
            .count()
    };
    let mut change = |typed: &str, shows: &str| -> (Value, bool) {
        // A person's pace: the watcher seeds a shell's screen only from a
        // look at a pane that printed nothing for a moment (the web reads
        // tmux until then), which commands typed back to back never give.
        std::thread::sleep(TYPING_PAUSE);
        let before = captures();
        server.tmux(&["send-keys", "-t", "%0", typed, "Enter"]);
        let start = Instant::now();
        loop {
            let frame = next();
            if frame["type"] == "state"
                && pane_of(&frame, "%0")["lines"].to_string().contains(shows)
            {
                return (frame, captures() == before);
            }
            assert!(start.elapsed() < WAIT, "no frame with {shows}: {frame}");
        }
    };
    // Kept from a look after the web first asked: a busy machine's look
    // may come after the next change or two.
    let mut uncaptured = 0;
    for n in 0..20 {
        let (_, none) = change(&format!("echo kept-{n}"), &format!("\"kept-{n}\""));
        uncaptured = if none { uncaptured + 1 } else { 0 };
        if uncaptured == 3 {
            break;
        }
    }
    assert_eq!(uncaptured, 3, "the web captured the shell at each change");
    change(
        "printf '\\033]2;%s\\007' kept-title; echo titled",
        "\"titled\"",
    );
    let (mut last, _) = change("clear; seq 1 80; echo scrolled", "\"scrolled\"");
    // The title set by the shell, then the screen tmux has, once quiet.
    let start = Instant::now();
    loop {
        let pane = pane_of(&last, "%0");
        let tmux_lines: Vec<String> = {
            let mut lines: Vec<String> = server
                .tmux(&["capture-pane", "-p", "-t", "%0"])
                .lines()
                .map(|l| l.trim_end().to_string())
                .collect();
            while lines.last().is_some_and(String::is_empty) {
                lines.pop();
            }
            lines
        };
        if pane["title"] == "kept-title" && pane["lines"] == json!(tmux_lines) {
            break;
        }
        assert!(
            start.elapsed() < WAIT,
            "the page's screen is not tmux's: {pane}\n{tmux_lines:?}"
        );
        last = next();
    }
    assert!(
        !server.watch_log().contains("differed"),
        "{}",
        server.watch_log()
    );
}

/// A `taw web` started by hand follows tmux started again at the same
/// socket: the new server's panes come in its frames, with their own
/// screens, and its watchers' looks wake it. SIGTERM ends it and takes
/// its socket away.
#[test]
fn a_web_follows_tmux_started_again_and_leaves_no_socket() {
    let server = TmuxServer::start();
    server.load_plugin();
    let web = start_web(&server);
    let mut socket = websocket(&web);
    let mut wait_frame = |what: &str, check: &dyn Fn(&str) -> bool| {
        let start = Instant::now();
        loop {
            let message = socket.read().unwrap();
            let text = message.to_text().unwrap_or("").to_string();
            if check(&text) {
                return;
            }
            assert!(start.elapsed() < 2 * WAIT, "no frame with {what}: {text}");
        }
    };
    server.tmux(&["send-keys", "-t", "%0", "echo before-the-restart", "Enter"]);
    wait_frame("the first server's screen", &|f| {
        f.contains("before-the-restart")
    });
    let run = server.state_dir().join("run");
    let own_sockets = || {
        std::fs::read_dir(&run)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| {
                        let name = e.file_name().to_string_lossy().to_string();
                        name.starts_with("wait-") && name.ends_with(&format!("-{}.sock", web.pid()))
                    })
                    .count()
            })
            .unwrap_or(0)
    };
    // The frame maker listens once its first read of the server is done;
    // on a busy machine the socket's first frame may be read before that.
    server.wait_for("the web's waiter", WAIT, || own_sockets() == 1);

    server.tmux(&["kill-server"]);
    // The old server goes a moment after it is told to.
    server.wait_for("a new server at the same socket", WAIT, || {
        server
            .tmux_run(&["new-session", "-d", "-s", "again", "-x", "120", "-y", "40"])
            .status
            == 0
    });
    server.load_plugin();
    // The new server's first pane is %0 again: its screen, not the old one.
    wait_frame("the new server's session", &|f| {
        f.contains("again:") && !f.contains("before-the-restart")
    });
    server.wait_for("a watcher on the new pane", WAIT, || {
        server.display("%0", "#{pane_pipe}") == "1"
    });
    server.tmux(&["send-keys", "-t", "%0", "echo after-the-restart", "Enter"]);
    wait_frame("the new server's screen", &|f| {
        f.contains("after-the-restart")
    });
    assert_eq!(own_sockets(), 1, "one waiter, for the new server");

    let killed = std::process::Command::new("kill")
        .args(["-TERM", &web.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    server.wait_for("the web to take its socket away", WAIT, || {
        own_sockets() == 0
    });
}

/// `taw web url` gives the address a running server listens on (one on a
/// port of the system's choosing too), else the one the plugin starts
/// it on; the folders the server makes are the user's alone.
#[test]
fn the_url_is_the_running_servers_and_its_folders_are_private() {
    let server = TmuxServer::start();
    server.tmux(&[
        "set-option",
        "-g",
        "@agent-wizard-web-listen",
        "127.0.0.1:9123",
    ]);
    let url = server.taw(&["web", "url"]);
    assert!(
        url.stdout.starts_with("http://127.0.0.1:9123/?token="),
        "{url:?}"
    );
    let web = start_web(&server);
    let url = server.taw(&["web", "url"]);
    assert!(
        url.stdout.starts_with(&format!(
            "http://127.0.0.1:{}/?token={}",
            web.port, web.token
        )),
        "{url:?}"
    );
    // Told, it says what it is told.
    let url = server.taw(&["web", "url", "--listen", "127.0.0.1:7000"]);
    assert!(url.stdout.starts_with("http://127.0.0.1:7000/"), "{url:?}");
    for folder in ["web", "run"] {
        // The server's feed makes `run` when it starts following tmux,
        // which may come just after the server says its port.
        let path = server.state_dir().join(folder);
        server.wait_for(folder, WAIT, || path.exists());
        let mode = crate::common::mode_of(&server.state_dir().join(folder));
        assert_eq!(mode & 0o777, 0o700, "{folder}: {mode:o}");
    }
    drop(web);
    let url = server.taw(&["web", "url"]);
    assert!(url.stdout.starts_with("http://127.0.0.1:9123/"), "{url:?}");
}

/// `changed` is a hint of the pass that saw the change: the kept state
/// answered again later says no pane changed, though its screen is the
/// same.
#[test]
fn changed_is_a_passing_hint() {
    let server = TmuxServer::start();
    settle_first_pane(&server);
    server.load_plugin();
    let (web, mut socket) = web_with_limits(&server, "structure=60000");
    let mut next =
        || -> Value { serde_json::from_str(socket.read().unwrap().to_text().unwrap()).unwrap() };
    assert_eq!(next()["type"], "hello");
    assert_eq!(next()["type"], "state");
    server.tmux(&["send-keys", "-t", "%0", "echo hint-marker", "Enter"]);
    let start = Instant::now();
    loop {
        let frame = next();
        if frame["type"] == "state" {
            let pane = pane_of(&frame, "%0");
            if pane["changed"] == true && pane["lines"].to_string().contains("hint-marker") {
                break;
            }
        }
        assert!(start.elapsed() < WAIT, "no pass said the screen changed");
    }
    server.wait_for("the hint gone", WAIT, || {
        let state = state(&web);
        let pane = pane_of(&state, "%0");
        pane["changed"] == false && pane["lines"].to_string().contains("hint-marker")
    });
}

/// Waits until a watcher follows every pane of `server`.
fn every_pane_watched(server: &TmuxServer) {
    server.wait_for("a watcher on every pane", WAIT, || {
        server
            .tmux(&["list-panes", "-a", "-F", "#{pane_pipe}"])
            .lines()
            .all(|pipe| pipe == "1")
    });
}

/// What no screen shows, tmux's hooks tell: with the whole server read
/// only each minute here, a window renamed and a window closed by hand
/// each come in a frame, woken by the plugin's change channel.
#[test]
fn a_change_no_screen_shows_comes_from_tmuxs_hooks() {
    let server = TmuxServer::start();
    server.load_plugin();
    let other = server.new_window("main", "other", "");
    let (_web, mut socket) = web_with_limits(&server, "structure=60000");
    let mut next = || -> Value {
        let message = socket.read().unwrap();
        serde_json::from_str(message.to_text().unwrap()).unwrap()
    };
    assert_eq!(next()["type"], "hello");
    assert!(next().to_string().contains(&other));
    every_pane_watched(&server);
    server.tmux(&["rename-window", "-t", &other, "renamed-by-hand"]);
    let start = Instant::now();
    while !next().to_string().contains("renamed-by-hand") {
        assert!(start.elapsed() < WAIT, "no frame with the new name");
    }
    server.tmux(&["kill-window", "-t", &other]);
    let start = Instant::now();
    while next().to_string().contains(&other) {
        assert!(start.elapsed() < WAIT, "no frame without the closed window");
    }
}

/// A server with the plugin and a window "first", and its `taw web`
/// whose race windows (`env`) hold it until the test makes `go` in
/// `race`.
struct Held {
    server: TmuxServer,
    first: String,
    race: std::path::PathBuf,
    web: crate::common::web::Web,
}

fn held_web(env: &[(&str, &str)]) -> Held {
    let server = TmuxServer::start();
    server.load_plugin();
    let first = server.new_window("main", "first", "");
    let race = server.dir.path().join("race");
    std::fs::create_dir_all(&race).unwrap();
    let mut env = env.to_vec();
    env.push(("TAW_TEST_RACE_DIR", race.to_str().unwrap()));
    let web = crate::common::web::start_web_at(&server, 0, &[], &env);
    Held {
        server,
        first,
        race,
        web,
    }
}

/// Changes that come while the web's listener of tmux's hooks is between
/// two waits are still read. tmux drops the second of two signals nobody
/// waited for, so the listener waits only while tmux's change count is
/// the one its last read found. Here a pane's title (which no hook tells)
/// changes, then two options are set, whose hooks' two signals cancel
/// out.
#[test]
fn changes_between_two_waits_of_the_hooks_listener_are_read() {
    let Held {
        server,
        first,
        race,
        web,
    } = held_web(&[
        ("TAW_TEST_LIMITS", "structure=60000"),
        ("TAW_TEST_CHANGE_WAIT_DELAY_MS", "20000"),
    ]);
    let mut socket = crate::common::web::websocket(&web);
    let mut next = || -> String { socket.read().unwrap().to_text().unwrap().to_string() };
    assert!(next().contains("hello"));
    assert!(next().contains(&first));
    every_pane_watched(&server);
    server.tmux(&["rename-window", "-t", &first, "first-renamed"]);
    let start = Instant::now();
    while !next().contains("first-renamed") {
        assert!(start.elapsed() < WAIT, "no frame with the rename");
    }
    // The listener, held after the change it heard, waits on nothing now;
    // the rename's autosave is done, so its option writes signal no more.
    server.wait_for("the listener held", WAIT, || race.join("opened").exists());
    server.wait_for("the autosave done", WAIT, || {
        server
            .display("main", "#{@agent_wizard_autosave_asked}")
            .is_empty()
    });
    let pane = server.display(&first, "#{pane_id}");
    server.tmux(&["select-pane", "-t", &pane, "-T", "titled-while-held"]);
    server.tmux(&["set-option", "-g", "@taw_test_one", "1"]);
    server.tmux(&["set-option", "-g", "@taw_test_two", "1"]);
    std::fs::write(race.join("go"), b"").unwrap();
    let start = Instant::now();
    while !next().contains("titled-while-held") {
        assert!(start.elapsed() < WAIT, "no frame with the title");
    }
}

/// A server that goes while the web reads it after a change its hooks
/// told is followed to the one started again at its socket within the
/// second's reads: the listener of the server gone, waiting for a read
/// after its change, does not hold the frame maker to the hooks' pace
/// (a minute) meanwhile.
#[test]
fn a_server_gone_while_a_told_change_is_read_is_followed_again() {
    let Held {
        server,
        first,
        race,
        web,
    } = held_web(&[("TAW_TEST_TOLD_READ_DELAY_MS", "20000")]);
    let mut socket = crate::common::web::websocket(&web);
    if let tungstenite::stream::MaybeTlsStream::Plain(stream) = socket.get_mut() {
        stream
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
    }
    // The newest frame within `WAIT` that `check` takes.
    let mut frame_with = |what: &str, check: &dyn Fn(&str) -> bool| {
        let start = Instant::now();
        loop {
            if let Ok(message) = socket.read()
                && check(message.to_text().unwrap_or(""))
            {
                return;
            }
            assert!(start.elapsed() < WAIT, "no frame with {what}");
        }
    };
    // The told reads pass until the test holds one.
    std::fs::write(race.join("go"), b"").unwrap();
    frame_with("the first window", &|f| f.contains(&first));
    every_pane_watched(&server);
    // A whole read with every pane watched: the hooks' pace from here.
    server.tmux(&["rename-window", "-t", &first, "renamed-once"]);
    frame_with("the rename", &|f| f.contains("renamed-once"));
    server.wait_for("the autosave done", WAIT, || {
        server
            .display("main", "#{@agent_wizard_autosave_asked}")
            .is_empty()
    });
    std::fs::remove_file(race.join("go")).unwrap();
    let _ = std::fs::remove_file(race.join("opened"));
    // A hook tells the next rename; the frame maker is held before its read.
    server.tmux(&["rename-window", "-t", &first, "renamed-before-the-end"]);
    server.wait_for("the told read held", WAIT, || race.join("opened").exists());
    server.tmux(&["kill-server"]);
    server.wait_for("the server gone", WAIT, || {
        server.tmux_run(&["has-session"]).status != 0
    });
    std::fs::write(race.join("go"), b"").unwrap();
    // Its read of the server gone fails; a new one starts at the socket.
    web.wait_said("taw web: tmux does not answer", WAIT);
    server.tmux(&["new-session", "-d", "-s", "again", "-x", "120", "-y", "40"]);
    frame_with("the new server's session", &|f| {
        f.contains("again:") && !f.contains("renamed-before-the-end")
    });
}

/// `@agent-wizard-web on`: the plugin's load starts the server, and it
/// stops when the tmux server exits.
#[test]
fn the_plugin_serves_the_web_while_its_server_runs() {
    let server = TmuxServer::start();
    let port = crate::common::web::free_port();
    server.tmux(&["set-option", "-g", "@agent-wizard-web", "on"]);
    server.tmux(&[
        "set-option",
        "-g",
        "@agent-wizard-web-listen",
        &format!("127.0.0.1:{port}"),
    ]);
    server.load_plugin();
    let up = || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
    server.wait_for("taw web listening", WAIT, up);
    server.tmux(&["kill-server"]);
    server.wait_for("taw web gone with the server", WAIT, || !up());
}

/// Stars outlive the server, a starred target not running is an offline
/// placeholder, and a rename names the agent by the verbs' rule.
#[test]
fn stars_placeholders_and_renames() {
    let server = TmuxServer::start();
    let agent = dialog_agent(&server);
    let web = start_web(&server);
    let target = pane_of(&state(&web), &agent)["target"]
        .as_str()
        .unwrap()
        .to_string();
    for (target, starred) in [(target.as_str(), true), ("gone:1.0", true)] {
        let (status, _) = http(
            &web,
            "POST",
            "/api/star",
            Some(&web.token),
            Some(&json!({"target": target, "starred": starred})),
        );
        assert_eq!(status, 200);
    }
    let stars = server.state_dir().join("web/stars.json");
    assert_eq!(crate::common::mode_of(&stars), 0o600);
    let now = state(&web);
    assert_eq!(pane_of(&now, &agent)["starred"], true);
    let gone = pane_of(&now, "cfg:gone:1.0");
    assert_eq!(gone["status"], "offline");
    assert_eq!(gone["actionable"], false);
    let (status, _) = http(
        &web,
        "POST",
        "/api/key",
        Some(&web.token),
        Some(&json!({"id": "cfg:gone:1.0", "key": "Enter"})),
    );
    assert_eq!(status, 409);
    let (status, body) = http(
        &web,
        "POST",
        "/api/rename",
        Some(&web.token),
        Some(&json!({"id": agent, "name": "reviewer"})),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(server.display(&agent, "#{@agent_name}"), "reviewer");
    let (status, _) = http(
        &web,
        "POST",
        "/api/rename",
        Some(&web.token),
        Some(&json!({"id": agent, "name": "Not An Agent Name"})),
    );
    assert_eq!(status, 400);
    drop(web);
    // Kept: a new server starts with them.
    let again = start_web(&server);
    assert_eq!(pane_of(&state(&again), &agent)["starred"], true);
}

/// Text without Enter reaches the agent byte for byte: a newline stays a
/// newline and a carriage return a carriage return (tmux's paste would
/// make the one the other). The agent reads its terminal with CR left as
/// it is, so only a newline ends its line.
#[test]
fn text_without_enter_keeps_its_line_ends() {
    let server = TmuxServer::start();
    let script = server.stand_in(
        "agent-raw",
        "claude",
        "stty -icrnl\nprintf ' Do you want to proceed?\\n ❯ 1. Yes\\n   2. No\\n'\nwhile IFS= read -r line; do printf 'got: %s\\n' \"$line\" | cat -v; done\n",
    );
    let agent = server.run_in_bash(&script, "2. No");
    for (option, value) in [("@agent_kind", "claude"), ("@agent_state", "blocked")] {
        server.tmux(&["set-option", "-p", "-t", &agent, option, value]);
    }
    let web = start_web(&server);
    let guard = pane_of(&state(&web), &agent)["action_guard"].clone();
    let (status, body) = input(
        &web,
        &json!({"id": agent, "operation": "text", "text": "one\rtwo\n", "enter": false, "expected": guard}),
    );
    assert_eq!(status, 200, "{body}");
    server.wait_for("the line, its CR kept", WAIT, || {
        screen(&server, &agent).contains("got: one^Mtwo")
    });
}

/// Text reaches the agent as it is, with Enter or without; `taw web url`
/// gives the page's address with its token; no token is refused off
/// loopback.
#[test]
fn text_url_and_the_token_rule() {
    let server = TmuxServer::start();
    let agent = dialog_agent(&server);
    let web = start_web(&server);
    let guard = pane_of(&state(&web), &agent)["action_guard"].clone();
    let (status, body) = input(
        &web,
        &json!({"id": agent, "operation": "text", "text": "it's $HOME; `x`", "enter": false, "expected": guard}),
    );
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(
        &web,
        "POST",
        "/api/text",
        Some(&web.token),
        Some(&json!({"id": agent, "text": " and more", "enter": true})),
    );
    assert_eq!(status, 200, "{body}");
    server.wait_for("the text, byte for byte", WAIT, || {
        screen(&server, &agent).contains("got: it's $HOME; `x` and more")
    });
    let (status, _) = http(
        &web,
        "POST",
        "/api/text",
        Some(&web.token),
        Some(&json!({"id": agent, "text": ""})),
    );
    assert_eq!(status, 400);

    // Sent again with the same idempotency key (its answer was lost): the
    // first answer again, and the text typed once.
    let guard = pane_of(&state(&web), &agent)["action_guard"].clone();
    let once = json!({"id": agent, "operation": "text", "text": "only once", "enter": true,
        "expected": guard, "idempotency_key": "tap-7"});
    let first = input(&web, &once);
    assert_eq!(first.0, 200, "{}", first.1);
    server.wait_for("the text", WAIT, || {
        screen(&server, &agent).contains("got: only once")
    });
    let again = input(&web, &once);
    assert_eq!(again, first);
    server.stays_for("the text typed once", NOT_TYPED, || {
        screen(&server, &agent).matches("got: only once").count() == 1
    });
    // A client gone before its answer (a phone's fetch aborted): the text
    // is typed, and the same key sent again gets that answer, not a
    // refusal as still in flight.
    let guard = pane_of(&state(&web), &agent)["action_guard"].clone();
    let dropped = json!({"id": agent, "operation": "text", "text": "dropped", "enter": true,
        "expected": guard, "idempotency_key": "tap-8"});
    {
        use std::io::Write;
        let body = dropped.to_string();
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", web.port)).unwrap();
        write!(
            stream,
            "POST /api/input HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            web.port,
            web.token,
            body.len()
        )
        .unwrap();
        // Gone while the text is on its way (Enter follows it 0.1 s later).
        std::thread::sleep(Duration::from_millis(40));
        stream.shutdown(std::net::Shutdown::Both).unwrap();
    }
    // Whether the server had begun it or not, the key is answered, in
    // time, and the text typed once.
    let mut answers = Vec::new();
    server.wait_for("an answer for the dropped request's key", WAIT, || {
        let (status, body) = input(&web, &dropped);
        answers.push((status, body));
        status == 200
    });
    server.wait_for("the dropped request's text", WAIT, || {
        screen(&server, &agent).contains("got: dropped")
    });
    server.stays_for("the dropped request's text typed once", NOT_TYPED, || {
        screen(&server, &agent).matches("got: dropped").count() == 1
    });
    assert!(
        answers
            .iter()
            .all(|(status, _)| *status == 200 || *status == 409),
        "{answers:?}"
    );
    let long = json!({"id": agent, "operation": "text", "text": "x", "expected": guard,
        "idempotency_key": "k".repeat(129)});
    let (status, body) = input(&web, &long);
    assert_eq!(status, 400);
    assert!(body.contains("idempotency_key_too_long"), "{body}");

    // The address alone for a person or `$(taw web url)`; the envelope
    // with --json; `localhost:PORT` is loopback.
    let address = format!("http://127.0.0.1:{}/?token={}", web.port, web.token);
    let url = server.taw(&["web", "url", "--listen", &format!("127.0.0.1:{}", web.port)]);
    assert_eq!(url.status, 0, "{url:?}");
    assert_eq!(url.stdout, format!("{address}\n"));
    let local = server.taw(&["web", "url", "--listen", &format!("localhost:{}", web.port)]);
    assert_eq!(local.stdout, format!("{address}\n"));
    let url = server
        .taw(&[
            "web",
            "url",
            "--json",
            "--listen",
            &format!("127.0.0.1:{}", web.port),
        ])
        .result();
    assert_eq!(url["url"], address);
    let open = server.taw(&["web", "--listen", "0.0.0.0:1", "--no-token"]);
    assert_eq!(open.error_code(), "invalid_argument");
}

/// The gate before every handler: a request must name this server in its
/// `Host` (a rebound name of another site is refused, WebSocket too, even
/// with no token), post JSON (a cross-site form's `text/plain` types
/// nothing), stay within the body limit (said as JSON), and a client that
/// guesses tokens waits longer after each wrong one past the first few,
/// while the scheme's case does not matter.
#[test]
fn the_gate_refuses_rebound_names_forms_large_bodies_and_guesses() {
    let server = TmuxServer::start();
    let agent = dialog_agent(&server);
    let open = start_web_with(&server, &["--no-token", "--allow-host", "phone.example"]);
    let get = |web: &crate::common::web::Web, host: &str, more: &str| {
        raw(
            web,
            &format!("GET /api/state HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{more}\r\n"),
        )
    };
    for host in ["attacker.example", "localhost.attacker.example"] {
        let (status, _, body) = get(&open, &format!("{host}:{}", open.port), "");
        let detail: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(status, 421, "{host}: {body}");
        assert!(detail["detail"].is_string(), "{body}");
    }
    let (status, _, _) = get(&open, &format!("127.0.0.1:{}", open.port + 1), "");
    assert_eq!(status, 421);
    // A name of the user's own (--allow-host) is taken too.
    for host in [
        "127.0.0.1",
        "localhost",
        "LOCALHOST",
        "[::1]",
        "phone.example",
    ] {
        let (status, _, body) = get(&open, &format!("{host}:{}", open.port), "");
        assert_eq!(status, 200, "{host}: {body}");
    }
    let upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    let ws = |host: &str| {
        raw(
            &open,
            &format!(
                "GET /ws HTTP/1.1\r\nHost: {host}:{}\r\n{upgrade}\r\n",
                open.port
            ),
        )
        .0
    };
    assert_eq!(ws("attacker.example"), 421);

    // Only JSON is taken: the legacy key call with a form's body presses
    // nothing.
    let before = screen(&server, &agent);
    let key = json!({"id": agent, "key": "Enter"}).to_string();
    for content_type in ["Content-Type: text/plain\r\n", ""] {
        let (status, _, body) = raw(
            &open,
            &format!(
                "POST /api/key HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n{content_type}Content-Length: {}\r\n\r\n{key}",
                open.port,
                key.len()
            ),
        );
        assert_eq!(status, 415, "{body}");
        assert!(body.starts_with("{\"detail\""), "{body}");
    }
    server.stays_for("the screen untouched", NOT_TYPED, || {
        screen(&server, &agent) == before
    });

    // Over the limit, with its length said or sent in chunks: JSON too.
    let big = "x".repeat(65 * 1024);
    let said = format!(
        "POST /api/text HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{big}",
        open.port,
        big.len()
    );
    let chunked = format!(
        "POST /api/text HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{big}\r\n0\r\n\r\n",
        open.port,
        big.len()
    );
    for request in [said, chunked] {
        let (status, _, body) = raw(&open, &request);
        assert_eq!(status, 413, "{body}");
        let detail: Value = serde_json::from_str(&body).unwrap();
        assert!(detail["detail"].is_string(), "{body}");
    }
    drop(open);

    // The token: its scheme in any case; a few wrong tries cost nothing,
    // then each makes the client wait longer, and the right one clears it.
    let web = start_web(&server);
    let with = |authorization: &str| {
        raw(
            &web,
            &format!(
                "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nAuthorization: {authorization}\r\n\r\n",
                web.port
            ),
        )
    };
    assert_eq!(with(&format!("bearer {}", web.token)).0, 200);
    assert_eq!(with(&format!("BEARER {}", web.token)).0, 200);
    for _ in 0..4 {
        assert_eq!(with("Bearer wrong").0, 401);
    }
    assert_eq!(with(&format!("Bearer {}", web.token)).0, 200);
    for _ in 0..5 {
        assert_eq!(with("Bearer wrong").0, 401);
    }
    let (status, head, body) = with("Bearer wrong");
    assert_eq!(status, 429, "{body}");
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 1"),
        "{head}"
    );
    // Within the wait the right token goes through (the owner shares the
    // address of whoever guesses), and ends the wait.
    assert_eq!(with(&format!("Bearer {}", web.token)).0, 200);
    assert_eq!(with("Bearer wrong").0, 401);
}

/// Connections that ask nothing never keep the owner out: hundreds held
/// idle (more than the server holds at once) give way to the owner's
/// request as it comes, a slow sender's head is cut off, and the server
/// may open as many files as the system lets it.
#[test]
fn idle_and_slow_connections_never_keep_the_owner_out() {
    use std::io::{Read, Write};
    let server = TmuxServer::start();
    let web = start_web(&server);
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", web.pid())).unwrap();
    let files: Vec<&str> = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        files[3], files[4],
        "the soft limit is the hard one: {limits}"
    );
    let connect = || std::net::TcpStream::connect(("127.0.0.1", web.port)).unwrap();
    let idle: Vec<std::net::TcpStream> = (0..300).map(|_| connect()).collect();
    let owner = || {
        raw(
            &web,
            &format!(
                "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nAuthorization: Bearer {}\r\n\r\n",
                web.port, web.token
            ),
        )
        .0
    };
    let asked = Instant::now();
    for _ in 0..3 {
        assert_eq!(owner(), 200);
    }
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "the owner waited {:?}",
        asked.elapsed()
    );
    // A slow sender (a header line now and then, never the blank line),
    // the newest connection, is closed once its time is up.
    let mut slow = connect();
    slow.write_all(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let start = Instant::now();
    let closed = loop {
        let _ = slow.write_all(b"X-Slow: 1\r\n");
        let mut byte = [0u8; 512];
        match slow.read(&mut byte) {
            Ok(_) => break true,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => break true,
        }
        if start.elapsed() > HEAD_HELD {
            break false;
        }
    };
    assert!(closed, "the slow head was held past {HEAD_HELD:?}");
    drop(idle);
}

/// A request the gate refuses (no token, a name this server does not
/// answer to) is answered with its connection closed, and never marks it
/// in use: a stranger's 64 connections from the owner's address, each
/// refused and kept alive as long as it likes, leave the owner room.
#[test]
fn refused_requests_hold_no_room() {
    use std::io::{Read, Write};
    let server = TmuxServer::start();
    let web = start_web(&server);
    let stranger: Vec<std::net::TcpStream> = (0..64)
        .map(|n| {
            let mut stream = std::net::TcpStream::connect(("127.0.0.1", web.port)).unwrap();
            stream.set_read_timeout(Some(WAIT)).unwrap();
            let host = if n % 2 == 0 {
                format!("127.0.0.1:{}", web.port)
            } else {
                "elsewhere.example".to_string()
            };
            stream
                .write_all(format!("GET /api/state HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
                .unwrap();
            let mut head = Vec::new();
            let mut chunk = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let read = stream.read(&mut chunk).unwrap();
                assert!(read > 0, "closed before an answer");
                head.extend_from_slice(&chunk[..read]);
            }
            let head = String::from_utf8_lossy(&head).to_lowercase();
            assert!(head.starts_with("http/1.1 4"), "{head}");
            assert!(head.contains("connection: close"), "{head}");
            stream
        })
        .collect();
    let owner = raw(
        &web,
        &format!(
            "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nAuthorization: Bearer {}\r\n\r\n",
            web.port, web.token
        ),
    );
    assert_eq!(owner.0, 200, "{owner:?}");
    drop(stranger);
}

/// A page of another site, open in the owner's browser, sends requests
/// here it cannot read: with its fetch metadata or Origin they are refused
/// before the token is looked at; with neither (an older browser's image)
/// they carry no token. Neither counts as a guess: the owner, at the same
/// address, is answered throughout.
#[test]
fn a_hostile_page_cannot_lock_the_owner_out() {
    let server = TmuxServer::start();
    let web = start_web(&server);
    let get = |path: &str, more: &str| {
        raw(
            &web,
            &format!(
                "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n{more}\r\n",
                web.port
            ),
        )
        .0
    };
    let owner = format!("Authorization: Bearer {}\r\n", web.token);
    let hostile = [
        "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\n",
        "Sec-Fetch-Site: same-site\r\n",
        "Origin: http://attacker.example\r\n",
        "Origin: null\r\n",
    ];
    for round in 0..10 {
        for more in hostile {
            assert_eq!(get("/api/state", more), 403, "{more}");
            assert_eq!(get("/api/state?token=guess", more), 403, "{more}");
        }
        // An image from a browser that sends no fetch metadata.
        assert_eq!(get("/api/state", ""), 401);
        assert_eq!(get(&format!("/api/state?round={round}"), &owner), 200);
    }
    // The page itself still loads from a link on another site.
    assert_eq!(
        get(
            "/",
            "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: navigate\r\n"
        ),
        200
    );
    // Its own page's requests, and a typed address, are the owner's.
    for own in [
        "Sec-Fetch-Site: same-origin\r\n",
        "Sec-Fetch-Site: none\r\n",
    ] {
        assert_eq!(get("/api/state", &format!("{own}{owner}")), 200);
    }
}

/// Requests after the first are answered from the frame the server keeps
/// (a few milliseconds, not a read of every pane); it follows the server
/// within a few seconds, and at once after an input.
#[test]
fn the_kept_state_follows_the_server() {
    let server = TmuxServer::start();
    let web = start_web(&server);
    let first = state(&web);
    assert_eq!(first["panes"].as_array().unwrap().len(), 1);
    let pane = server.new_window("main", "later", "");
    server.wait_for("the new pane in the state", WAIT, || {
        state(&web)["panes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == pane.as_str())
    });
    let agent = dialog_agent(&server);
    server.wait_for("the agent in the state", WAIT, || {
        state(&web)["panes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == agent.as_str() && p["actionable"] == true)
    });
    let guard = pane_of(&state(&web), &agent)["action_guard"].clone();
    let (status, body) = input(
        &web,
        &json!({"id": agent, "operation": "select", "option_id": pane_of(&state(&web), &agent)["menu"][2]["id"], "expected": guard}),
    );
    assert_eq!(status, 200, "{body}");
    // The very next request knows of the tap.
    assert!(
        pane_of(&state(&web), &agent)["interacted"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}

/// With nothing to send, the WebSocket beats (every 25 s; here 300 ms),
/// so a page can tell a live socket from one that died while it slept.
#[test]
fn a_quiet_websocket_beats() {
    let server = TmuxServer::start();
    // A shell that draws its prompt after the first frame would bring a
    // second one.
    settle_first_pane(&server);
    let (_web, mut socket) = web_with_limits(&server, "beat=300");
    let mut kinds = Vec::new();
    while kinds.len() < 4 {
        let message = socket.read().unwrap();
        let frame: Value = serde_json::from_str(message.to_text().unwrap()).unwrap();
        kinds.push(frame["type"].as_str().unwrap().to_string());
    }
    assert_eq!(kinds, ["hello", "state", "beat", "beat"]);
}

/// A client's WebSocket message is only read to see it go: one over
/// 64 KiB ends the socket instead of taking the server's memory; a small
/// one leaves it beating.
#[test]
fn a_huge_websocket_message_ends_the_socket() {
    let server = TmuxServer::start();
    settle_first_pane(&server);
    let (_web, mut socket) = web_with_limits(&server, "beat=300");
    let types = |socket: &mut crate::common::web::Socket, up_to: usize| {
        let mut seen = Vec::new();
        while seen.len() < up_to {
            match socket.read() {
                Ok(tungstenite::Message::Text(text)) => {
                    let frame: Value = serde_json::from_str(&text).unwrap();
                    seen.push(frame["type"].as_str().unwrap().to_string());
                }
                Ok(tungstenite::Message::Close(_)) | Err(_) => {
                    seen.push("closed".to_string());
                    break;
                }
                Ok(_) => {}
            }
        }
        seen
    };
    assert_eq!(types(&mut socket, 2), ["hello", "state"]);
    socket.send(tungstenite::Message::text("small")).unwrap();
    assert_eq!(types(&mut socket, 1), ["beat"]);
    let _ = socket.send(tungstenite::Message::text("x".repeat(200 * 1024)));
    let after = types(&mut socket, 20);
    assert_eq!(
        after.last().map(String::as_str),
        Some("closed"),
        "{after:?}"
    );
}

/// The WebSocket's first state frame comes once: the frame the socket
/// read for its client is not sent again when the frame maker, woken by
/// that client, makes the same.
#[test]
fn the_websockets_first_frame_comes_once() {
    let server = TmuxServer::start();
    settle_first_pane(&server);
    let web = start_web(&server);
    let mut socket = websocket(&web);
    if let tungstenite::stream::MaybeTlsStream::Plain(stream) = socket.get_mut() {
        stream
            .set_read_timeout(Some(Duration::from_millis(2500)))
            .unwrap();
    }
    let mut next = || socket.read().ok().map(|m| m.to_text().unwrap().to_string());
    let hello: Value = serde_json::from_str(&next().unwrap()).unwrap();
    assert_eq!(hello["type"], "hello");
    let first_text = next().unwrap();
    let first: Value = serde_json::from_str(&first_text).unwrap();
    assert_eq!(first["type"], "state");
    // Nothing changes: nothing more comes (the frame maker runs each
    // second, so 2.5 s sees two of its rounds).
    let again = next();
    assert_eq!(again, None, "after the first frame:\n{first_text}");
}
