//! The page of `taw web` in a real headless Chromium (Debian's), driven
//! through its DevTools protocol: it lists the panes, shows a blocked
//! agent's choices as buttons, a tap answers it, and a pane whose text
//! holds markup shows that text and runs nothing.
#![allow(clippy::disallowed_methods)]

use crate::common::TmuxServer;
use crate::common::web::{
    dialog_agent, dialog_agent_asking, free_port, screen, start_web, start_web_at,
};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(20);

/// Debian's chromium, headless, its whole process group stopped when
/// dropped.
struct Browser {
    child: Child,
    devtools: u16,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|name| crate::common::installed(name))
}

fn open_browser(server: &TmuxServer, url: &str) -> Option<Browser> {
    let program = chromium()?;
    let devtools = free_port();
    let profile = server.dir.path().join("chromium-profile");
    use std::os::unix::process::CommandExt;
    let child = Command::new(program)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            &format!("--user-data-dir={}", profile.display()),
            &format!("--remote-debugging-port={devtools}"),
            url,
        ])
        .env("HOME", server.dir.path().join("home"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    Some(Browser { child, devtools })
}

/// DevTools' list of targets (`GET /json/list`), once it answers.
fn devtools_list(port: u16) -> Option<Value> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(WAIT)).ok()?;
    let request =
        format!("GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    // Read up to the length the headers give: DevTools may keep the
    // connection open.
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&answer).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head.lines().find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())?
            });
            if length.is_some_and(|len| body.len() >= len) {
                return serde_json::from_str(body).ok();
            }
        }
    }
    let text = String::from_utf8_lossy(&answer).to_string();
    serde_json::from_str(text.split_once("\r\n\r\n")?.1).ok()
}

/// The DevTools socket of the browser's page.
fn page_socket(browser: &Browser) -> crate::common::web::Socket {
    let start = Instant::now();
    loop {
        let listed = devtools_list(browser.devtools);
        let url = listed.as_ref().and_then(|pages| {
            pages.as_array()?.iter().find(|p| p["type"] == "page")?["webSocketDebuggerUrl"]
                .as_str()
                .map(str::to_string)
        });
        if let Some(url) = url {
            return tungstenite::connect(url).unwrap().0;
        }
        assert!(start.elapsed() < WAIT, "chromium's DevTools did not answer");
        std::thread::sleep(Duration::from_millis(200));
    }
}

struct Page {
    socket: crate::common::web::Socket,
    next_id: u64,
}

impl Page {
    /// Calls a DevTools method on the page; its result.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let call = json!({"id": id, "method": method, "params": params});
        self.socket
            .send(tungstenite::Message::Text(call.to_string().into()))
            .unwrap();
        loop {
            let message = self.socket.read().unwrap();
            let Ok(text) = message.to_text() else {
                continue;
            };
            let answer: Value = serde_json::from_str(text).unwrap_or_default();
            if answer["id"] == id {
                assert!(answer["error"].is_null(), "{method}: {answer}");
                return answer["result"].clone();
            }
        }
    }

    /// Evaluates `expression` in the page; its value.
    fn eval(&mut self, expression: &str) -> Value {
        self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        )["result"]["value"]
            .clone()
    }

    /// A phone's screen: 390 CSS pixels wide, three device pixels each.
    fn as_phone(&mut self) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": true}),
        );
    }

    /// Saves what the page shows as `<dir>/<name>.png`.
    fn screenshot(&mut self, dir: &std::path::Path, name: &str) {
        use base64::Engine;
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    fn wait_true(&mut self, what: &str, expression: &str) {
        let start = Instant::now();
        while self.eval(expression) != Value::Bool(true) {
            assert!(
                start.elapsed() < WAIT,
                "{what}: the page shows {}",
                self.eval("document.body.innerText")
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

#[test]
fn the_page_lists_answers_and_shows_markup_as_text() {
    if !crate::common::tool_here(chromium().is_some(), "chromium") {
        return;
    }
    let server = TmuxServer::start();
    let markup = "<img src=x onerror=window.pwned=1>";
    server.tmux(&[
        "send-keys",
        "-t",
        "%0",
        &format!("echo '{markup}'"),
        "Enter",
    ]);
    let agent = dialog_agent(&server);
    let web = start_web(&server);
    let url = format!("http://127.0.0.1:{}/?token={}", web.port, web.token);
    let browser = open_browser(&server, &url).expect("chromium starts");
    let mut page = Page {
        socket: page_socket(&browser),
        next_id: 0,
    };
    page.wait_true(
        "both panes listed",
        "document.querySelectorAll('section.pane').length >= 2",
    );
    // The token came off the address bar.
    assert_eq!(page.eval("location.search"), "");
    // The blocked agent first, with its choices as buttons.
    let card = format!("document.querySelector('section.pane[data-id=\"{agent}\"]')");
    assert_eq!(
        page.eval("document.querySelector('section.pane').dataset.id"),
        agent.as_str()
    );
    page.wait_true(
        "the agent's buttons",
        &format!("{card}.querySelectorAll('.menu button').length === 3"),
    );
    assert_eq!(
        page.eval(&format!(
            "[...{card}.querySelectorAll('.menu button')].map(b => b.firstChild.textContent).join('|')"
        )),
        "Yes|Yes, and always allow|No"
    );
    // The markup is text on the page, and ran nothing.
    page.wait_true(
        "the markup shown as text",
        &format!("document.body.innerText.includes({})", json!(markup)),
    );
    assert_eq!(page.eval("document.querySelectorAll('main img').length"), 0);
    assert_eq!(page.eval("window.pwned === undefined"), true);
    // A tap on No: the agent gets the moves to it.
    page.eval(&format!(
        "{card}.querySelectorAll('.menu button')[2].click()"
    ));
    server.wait_for("the tap's keys", WAIT, || {
        screen(&server, &agent).contains("got: ^[[B^[[B")
    });
}

/// A blocked agent whose middle option is one long word (a path), wider
/// than a phone.
const LONG_OPTION: &str = "Yes, and do not ask again for touch:/srv/projects/a-rather-long-project-name/with/deeply/nested/folders/file.txt";

#[test]
fn on_a_phone_the_page_fits_shows_each_taps_result_and_comes_back_after_sleep() {
    if !crate::common::tool_here(chromium().is_some(), "chromium") {
        return;
    }
    let server = TmuxServer::start();
    let agent = dialog_agent_asking(
        &server,
        "long-bin",
        &format!(
            " Bash command\\n Run touch x\\n Do you want to proceed?\\n ❯ 1. Yes\\n   2. {LONG_OPTION}\\n   3. No\\n"
        ),
    );
    let web = start_web(&server);
    let port = web.port;
    let url = format!("http://127.0.0.1:{port}/?token={}", web.token);
    let browser = open_browser(&server, &url).expect("chromium starts");
    let mut page = Page {
        socket: page_socket(&browser),
        next_id: 0,
    };
    let shots = server.dir.path().join("screens");
    page.as_phone();
    let card = format!("document.querySelector('section.pane[data-id=\"{agent}\"]')");
    let buttons = format!("{card}.querySelectorAll('.menu button')");
    page.wait_true(
        "the agent's three buttons",
        &format!("{buttons}.length === 3"),
    );
    assert_eq!(page.eval("innerWidth"), 390);
    // Nothing wider than the screen: the long option wraps inside its button.
    assert_eq!(
        page.eval("document.documentElement.scrollWidth <= innerWidth"),
        true,
        "the page is {} wide",
        page.eval("document.documentElement.scrollWidth")
    );
    assert_eq!(
        page.eval(&format!(
            "{buttons}[1].getBoundingClientRect().right <= innerWidth"
        )),
        true
    );
    assert_eq!(
        page.eval(&format!(
            "{buttons}[1].getBoundingClientRect().height > 2 * {buttons}[0].getBoundingClientRect().height"
        )),
        true,
        "the long option is on one line"
    );
    page.screenshot(&shots, "1-blocked");

    // A tap on Yes: the stand-in gets its Enter, the card says it was sent.
    page.eval(&format!("{buttons}[0].click()"));
    let tapped = std::time::Instant::now();
    while !screen(&server, &agent).contains("got:") {
        assert!(
            tapped.elapsed() < WAIT,
            "the tap's Enter did not come; the page shows {}; the buttons are enabled: {}",
            page.eval("document.body.innerText"),
            page.eval(&format!("[...{buttons}].map(b => !b.disabled).join()"))
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    page.wait_true(
        "the tap shown as sent",
        &format!("{card}.querySelector('.result.sent')?.textContent === 'Sent: Yes'"),
    );
    page.screenshot(&shots, "2-sent");

    // A tap drawn from a screen that has moved on since: refused as stale,
    // and nothing typed.
    let typed = screen(&server, &agent);
    page.eval(&format!(
        "panes.find(p => p.id === '{agent}').action_guard.endpoint_revision = 'an-older-look'; {buttons}[2].click()"
    ));
    page.wait_true(
        "the tap shown as stale",
        &format!("{card}.querySelector('.result.stale') !== null"),
    );
    page.screenshot(&shots, "3-stale");
    // A key the server does not send for a page: refused, the reason in
    // words.
    page.eval(&format!(
        "input(panes.find(p => p.id === '{agent}'), {{operation: 'key', key: 'F12'}}, 'F12')"
    ));
    page.wait_true(
        "a refusal in words",
        &format!("{card}.querySelector('.result.refused')?.textContent === 'Not sent: that key is not sent from here'"),
    );
    page.screenshot(&shots, "4-refused");
    assert_eq!(screen(&server, &agent), typed, "a refused tap typed");

    // The phone sleeps (the page frozen), the server goes and comes back:
    // awake, the page is live again and shows what changed meanwhile.
    page.wait_true(
        "live",
        "document.getElementById('live').textContent === 'live'",
    );
    page.call("Page.setWebLifecycleState", json!({"state": "frozen"}));
    drop(web);
    server.tmux(&["rename-window", "-t", &agent, "renamed-while-asleep"]);
    let _web = start_web_at(&server, port, &[], &[]);
    page.call("Page.setWebLifecycleState", json!({"state": "active"}));
    page.wait_true(
        "the page live again, with what changed",
        "document.getElementById('live').textContent === 'live' && document.body.innerText.includes('renamed-while-asleep')",
    );
    page.screenshot(&shots, "5-back");
    // A socket the browser still calls open but that has been silent past
    // a few beats (a phone that slept through its close) is made anew, at
    // once when the page is shown again.
    page.call(
        "Emulation.setFocusEmulationEnabled",
        json!({"enabled": true}),
    );
    page.call("Page.bringToFront", json!({}));
    page.eval(
        "window.before = socket; heard = Date.now() - 31000; document.dispatchEvent(new Event('visibilitychange'))",
    );
    page.wait_true(
        "a new socket",
        "socket !== window.before && socket.readyState === WebSocket.OPEN",
    );
    if let Some(keep) = std::env::var_os("TAW_KEEP_SCREENSHOTS") {
        for entry in std::fs::read_dir(&shots).unwrap().flatten() {
            let _ = std::fs::create_dir_all(&keep);
            let _ = std::fs::copy(
                entry.path(),
                std::path::Path::new(&keep).join(entry.file_name()),
            );
        }
    }
}
