//! A `taw web` for a test's tmux server, and plain HTTP to it.
#![allow(clippy::disallowed_methods, dead_code)]

use super::{TmuxServer, taw_bin};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(10);

/// A `taw web` of the test's server on a free loopback port, stopped when
/// dropped.
pub struct Web {
    child: Child,
    pub port: u16,
    pub token: String,
    /// What it says on its standard error after it listens, line by line.
    said: std::sync::mpsc::Receiver<String>,
}

impl Web {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `limit` for a line of its standard error that starts
    /// with `start`; what it said meanwhile when none did.
    pub fn wait_said(&self, start: &str, limit: Duration) {
        let began = Instant::now();
        let mut heard = Vec::new();
        while let Some(left) = limit.checked_sub(began.elapsed()) {
            match self.said.recv_timeout(left) {
                Ok(line) if line.starts_with(start) => return,
                Ok(line) => heard.push(line),
                Err(_) => break,
            }
        }
        panic!(
            "taw web never said {start:?}; it said:\n{}",
            heard.join("\n")
        );
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn start_web(server: &TmuxServer) -> Web {
    start_web_with(server, &[])
}

/// [`start_web`] with more arguments for `taw web` (`--no-token`...).
pub fn start_web_with(server: &TmuxServer, more: &[&str]) -> Web {
    start_web_at(server, 0, more, &[])
}

/// [`start_web_with`] on a port of the caller's (a server started again),
/// with more in its environment. Port 0: the system chooses one, which
/// the server names on its standard error (no other test can take it in
/// between, as a port found free and then given could be).
pub fn start_web_at(server: &TmuxServer, port: u16, more: &[&str], env: &[(&str, &str)]) -> Web {
    let mut command = Command::new(taw_bin());
    server.isolate_command(&mut command);
    command.envs(env.iter().copied());
    command
        .args([
            "-L",
            &server.socket,
            "web",
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .args(more)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    // Its standard error, line by line, read in a thread of its own (read
    // to the end, so the server never blocks on a full pipe).
    let (lines, said) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.send(line);
        }
    });
    let start = Instant::now();
    let mut heard = Vec::new();
    let port = loop {
        match said.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                let bound = line
                    .strip_prefix("taw web: listening on http://")
                    .and_then(|rest| rest.trim_end_matches('/').rsplit_once(':'))
                    .and_then(|(_, port)| port.parse::<u16>().ok());
                heard.push(line);
                if let Some(bound) = bound {
                    break bound;
                }
            }
            Err(_) => {
                let ended = child.try_wait().unwrap();
                assert!(
                    ended.is_none() && start.elapsed() < WAIT,
                    "taw web did not listen (ended: {ended:?}); it said:\n{}",
                    heard.join("\n")
                );
            }
        }
    };
    assert!(TcpStream::connect(("127.0.0.1", port)).is_ok());
    // None with --no-token.
    let token = std::fs::read_to_string(server.state_dir().join("web/token"))
        .unwrap_or_default()
        .trim()
        .to_string();
    Web {
        child,
        port,
        token,
        said,
    }
}

/// The server's WebSocket, authenticated with its token.
pub type Socket = tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>;

pub fn websocket(web: &Web) -> Socket {
    let url = format!("ws://127.0.0.1:{}/ws?token={}", web.port, web.token);
    tungstenite::connect(url).unwrap().0
}

/// A `taw web` whose limits are shortened or lengthened for the test
/// (`TAW_TEST_LIMITS`, `beat=300`), and its WebSocket.
pub fn web_with_limits(server: &TmuxServer, limits: &str) -> (Web, Socket) {
    let web = start_web_at(server, 0, &[], &[("TAW_TEST_LIMITS", limits)]);
    let socket = websocket(&web);
    (web, socket)
}

/// One HTTP request; the status and the body.
pub fn http(
    web: &Web,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (u16, String) {
    http_with(web, method, path, token, body, &[])
}

/// `POST /api/input` with the token: the status and the body.
pub fn input(web: &Web, body: &Value) -> (u16, String) {
    http(web, "POST", "/api/input", Some(&web.token), Some(body))
}

/// [`http`] with more headers.
pub fn http_with(
    web: &Web,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
    headers: &[(&str, &str)],
) -> (u16, String) {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Length: {}\r\nContent-Type: application/json\r\n",
        web.port,
        body.len()
    );
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let (status, _, body) = raw(web, &request);
    (status, body)
}

/// A request written out whole (its head and body as given): the
/// status, the head and the body of the answer.
pub fn raw(web: &Web, request: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", web.port)).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (status, head.to_string(), body.to_string())
}

pub fn state(web: &Web) -> Value {
    let (status, body) = http(web, "GET", "/api/state", Some(&web.token), None);
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

pub fn pane_of<'a>(state: &'a Value, id: &str) -> &'a Value {
    state["panes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("no pane {id} in {state}"))
}

/// A stand-in agent named claude that shows a permission dialog and then
/// prints, visibly, each line of keys it gets.
pub fn dialog_agent(server: &TmuxServer) -> String {
    dialog_agent_asking(
        server,
        "agent-bin",
        " Bash command\\n Run touch x\\n Do you want to proceed?\\n ❯ 1. Yes\\n   2. Yes, and always allow\\n   3. No\\n",
    )
}

/// [`dialog_agent`] drawing `dialog` (printf's text; its last option is
/// `3. No`), from a folder of its own.
pub fn dialog_agent_asking(server: &TmuxServer, folder: &str, dialog: &str) -> String {
    let script = server.stand_in(
        folder,
        "claude",
        &format!(
            "printf '{dialog}'\nwhile IFS= read -r line; do printf 'got: %s\\n' \"$line\" | cat -v; done\n"
        ),
    );
    let pane = server.run_in_bash(&script, "3. No");
    for (option, value) in [("@agent_kind", "claude"), ("@agent_state", "blocked")] {
        server.tmux(&["set-option", "-p", "-t", &pane, option, value]);
    }
    pane
}

pub fn screen(server: &TmuxServer, pane: &str) -> String {
    server.tmux(&["capture-pane", "-p", "-t", pane])
}
