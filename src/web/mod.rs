//! `taw web`: the web state API (vmux's PaneState over HTTP and a
//! WebSocket) and the phone page, served by axum on tokio. A front end
//! like the others: it reads snapshots and sends input through the
//! operations the command line uses (`ops::agent::drive`'s guarded sends).
//!
//! Closed by default: loopback unless `--listen` says otherwise, and a
//! token on every request. Nothing runs while no client is connected but
//! the listening socket; with clients, a frame is built when a watcher
//! records a look (the waiters' wake-up), and once a second for what no
//! watcher tells (a window made, a session closed).

pub(crate) mod auth;
pub(crate) mod gate;
pub(crate) mod menu;
pub(crate) mod page;
mod stars;
pub(crate) mod state;

use crate::envelope::{ErrorCode, Result, TawError};
use crate::tmux::Tmux;
use crate::tmux::snapshot::Snapshot;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use state::{ActionGuard, Memory, StateFrame};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Where the server listens unless told otherwise.
pub(crate) const DEFAULT_LISTEN: &str = "127.0.0.1:8787";
/// The largest request body taken.
const BODY_LIMIT: usize = 64 * 1024;
/// With clients connected, the list is read at least this often.
fn structure_every() -> Duration {
    crate::clock::limits().structure
}

/// Who wants frames: the frame maker runs while a WebSocket is open or a
/// request came in the last [`ASKED_FOR`], and sleeps otherwise.
#[derive(Default)]
struct Interest {
    sockets: usize,
    asked_until: Option<std::time::Instant>,
}

impl Interest {
    fn wanted(&self) -> bool {
        self.sockets > 0
            || self
                .asked_until
                .is_some_and(|t| t > std::time::Instant::now())
    }
}

/// A request keeps frames made this long after it: the page's and a
/// script's next requests are answered from the kept frame.
const ASKED_FOR: Duration = Duration::from_secs(60);
/// A kept frame answers a request while it is younger than this: the
/// maker reads the server at least each `structure_every()`, and at each look
/// of a watcher.
const KEPT_FRESH: Duration = Duration::from_secs(3);

/// What every handler shares.
struct Shared {
    tmux: Tmux,
    /// `None` only when `--no-token` was asked for on a loopback address.
    token: Option<String>,
    memory: Mutex<Memory>,
    /// The newest frame, as JSON, for every WebSocket.
    frames: tokio::sync::watch::Sender<Arc<String>>,
    /// Who wants frames made (open WebSockets, recent requests), and a way
    /// to wake the frame maker.
    interest: (Mutex<Interest>, Condvar),
    /// When the frame in `frames` was read, of which generation, and how
    /// long it answers requests: [`KEPT_FRESH`], or while tmux's hooks tell
    /// every change, until the next read (which a change starts at once).
    kept: Mutex<Option<(std::time::Instant, u64, Duration)>>,
    /// Moves on at each input: a frame read before it may not show what
    /// the input did, so no request is answered from it.
    generation: std::sync::atomic::AtomicU64,
    /// Serializes input, so two taps never interleave their keys.
    sending: Mutex<()>,
    /// Each pane's screen as last read.
    screens: Mutex<HashMap<u32, String>>,
    /// The server as read last, and when it was read whole: a look's
    /// frame reads again only the looked-at panes' rows and screens, while
    /// the whole read is younger than `structure_every()`.
    last: Mutex<Option<(Snapshot, std::time::Instant)>>,
    /// For each agent's pane, the watcher's count of writes to its options
    /// when its row was last read from tmux: while the count stays, the
    /// watcher's screen and title are all a look's frame needs of it.
    rows_read_at: Mutex<HashMap<u32, u64>>,
    /// The kept frame (`frames`' newest) with no pane `changed`, once asked.
    settled: Mutex<Option<(Arc<String>, Arc<String>)>>,
    /// The change count of the newest whole read, for the listener of
    /// tmux's hooks.
    whole_reads: Arc<WholeReads>,
    /// What `/api/input` answered to each recent `idempotency_key`.
    replays: Mutex<Replays>,
    /// The names a request may address this server by.
    hosts: gate::Hosts,
    /// Each client's wrong token tries.
    tries: Mutex<gate::Tries>,
}

/// How many whole reads the frame maker made, and what the newest found:
/// after a change, the listener of tmux's hooks waits again only once a
/// read after it has been made, and only while tmux's count is still that
/// read's, so a change that comes between its waits is never lost.
#[derive(Default)]
struct WholeReads {
    newest: Mutex<WholeRead>,
    made: Condvar,
}

/// The newest whole read: how many came before it and itself, the tmux
/// server it read (its pid), and that server's change count
/// (`@agent_wizard_changes`).
#[derive(Clone, Copy, Default)]
struct WholeRead {
    number: u64,
    server: u32,
    changes: Option<u64>,
}

impl WholeReads {
    fn made(&self, server: u32, changes: Option<u64>) {
        let mut newest = self.newest.lock().unwrap_or_else(|e| e.into_inner());
        *newest = WholeRead {
            number: newest.number + 1,
            server,
            changes,
        };
        self.made.notify_all();
    }

    /// The first read after the `seen`th.
    fn after(&self, seen: u64) -> WholeRead {
        let mut newest = self.newest.lock().unwrap_or_else(|e| e.into_inner());
        while newest.number <= seen {
            newest = self.made.wait(newest).unwrap_or_else(|e| e.into_inner());
        }
        *newest
    }
}

/// A client that sends an input again with the same `idempotency_key` (its
/// network dropped the answer) gets the first answer, and nothing is sent
/// twice. The newest keys are kept, for a while.
#[derive(Default)]
struct Replays {
    /// Oldest first: the key, when, and the answer (`None` while the first
    /// request is still being sent).
    entries: std::collections::VecDeque<(String, std::time::Instant, Option<Answer>)>,
}

/// An answer kept to be given again.
type Answer = (StatusCode, Bytes);

const REPLAYS_KEPT: usize = 256;
const REPLAY_FOR: Duration = Duration::from_secs(600);
const IDEMPOTENCY_KEY_MAX: usize = 128;

impl Replays {
    fn find(&mut self, key: &str) -> Option<&Option<Answer>> {
        while self
            .entries
            .front()
            .is_some_and(|(_, at, _)| at.elapsed() > REPLAY_FOR)
        {
            self.entries.pop_front();
        }
        self.entries
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, _, answer)| answer)
    }

    fn begin(&mut self, key: &str) {
        if self.entries.len() >= REPLAYS_KEPT {
            self.entries.pop_front();
        }
        self.entries
            .push_back((key.to_string(), std::time::Instant::now(), None));
    }

    /// The first request's answer; one that sent nothing is forgotten, so
    /// trying again tries again.
    fn finish(&mut self, key: &str, answer: Option<Answer>) {
        match answer {
            Some(answer) => {
                if let Some(entry) = self.entries.iter_mut().find(|(k, _, _)| k == key) {
                    entry.2 = Some(answer);
                }
            }
            None => self.entries.retain(|(k, _, _)| k != key),
        }
    }
}

/// The address a `--listen` names, checked.
pub(crate) fn parse_listen(text: &str) -> Result<SocketAddr> {
    // `localhost:PORT` is loopback, as a person means it.
    let text = match text.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => text.to_string(),
    };
    text.parse().map_err(|_| {
        TawError::invalid_argument(format!(
            "--listen {text:?} is not ADDRESS:PORT (such as 127.0.0.1:8787)"
        ))
    })
}

/// The page's address with the token, for a phone.
pub(crate) fn url(listen: SocketAddr) -> Result<String> {
    let token = auth::token()?;
    let host = if listen.ip().is_unspecified() {
        "127.0.0.1".to_string()
    } else {
        listen.ip().to_string()
    };
    let host = if listen.is_ipv6() && !listen.ip().is_unspecified() {
        format!("[{host}]")
    } else {
        host
    };
    Ok(format!("http://{host}:{}/?token={token}", listen.port()))
}

/// Ends this process when its tmux server exits: a thread waits on a
/// tmux channel nothing signals, which returns when the server goes.
pub(crate) fn stop_with_server(tmux: Tmux) {
    std::thread::spawn(move || {
        let channel = format!("taw-web-{}", std::process::id());
        loop {
            let started = std::time::Instant::now();
            if tmux.wait_for_exit(&channel, Duration::from_secs(3600)) {
                end(0);
            }
            // A wait tmux refused at once (not a gone server): not again
            // at once.
            if started.elapsed() < Duration::from_secs(1) {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    });
}

/// The frame maker's waiter socket, taken away as the server ends: a
/// signal's end gives no destructor its turn.
static WAITER_SOCKET: Mutex<Option<std::path::PathBuf>> = Mutex::new(None);

/// Ends the server, leaving no socket file behind, nor its address.
fn end(code: i32) -> ! {
    let socket = WAITER_SOCKET
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(socket) = socket {
        // Gone already is fine.
        let _ = std::fs::remove_file(socket);
    }
    if listening().is_some_and(|(pid, _)| pid == std::process::id()) {
        let _ = std::fs::remove_file(listening_file());
    }
    std::process::exit(code)
}

/// Where the server started last says the address it listens on, for
/// `taw web url`.
fn listening_file() -> std::path::PathBuf {
    crate::paths::state_dir().join("web").join("listening")
}

/// The pid and address in [`listening_file`].
fn listening() -> Option<(u32, SocketAddr)> {
    let text = std::fs::read_to_string(listening_file()).ok()?;
    let (pid, listen) = text.trim().split_once(' ')?;
    Some((pid.parse().ok()?, listen.parse().ok()?))
}

/// The address a running `taw web` listens on: the one started last, while
/// it runs.
pub(crate) fn running_listen() -> Option<SocketAddr> {
    listening()
        .filter(|(pid, _)| crate::detect::foreground::is_alive(*pid))
        .map(|(_, listen)| listen)
}

/// Ends the server on SIGTERM (a `kill`, a service manager) and SIGINT
/// (Ctrl-C where it was started by hand).
async fn end_on_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut interrupt)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        // No handler: the default end, without the cleanup.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => end(0),
        _ = interrupt.recv() => end(130),
    }
}

/// Runs the server until it is stopped. `no_token` is refused off
/// loopback; `allowed_hosts` are names besides its address that a
/// request's `Host` may give.
pub(crate) fn serve(
    tmux: Tmux,
    listen: SocketAddr,
    no_token: bool,
    allowed_hosts: &[String],
) -> Result<()> {
    if no_token && !listen.ip().is_loopback() {
        return Err(TawError::invalid_argument(format!(
            "{listen} is not a loopback address: taw web serves it only with its token"
        )));
    }
    let token = if no_token { None } else { Some(auth::token()?) };
    // Bound first: with port 0 the system chooses the port, which the
    // names a request may use (the `Host` gate) must carry.
    let listener = std::net::TcpListener::bind(listen)
        .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
        .map_err(|e| TawError::io(format!("taw web cannot listen on {listen}: {e}")))?;
    let listen = listener.local_addr().unwrap_or(listen);
    // Said for `taw web url`; a server that cannot say it still serves.
    let _ = crate::paths::make_private_dir(&crate::paths::state_dir().join("web"));
    let _ = crate::paths::write_atomic_mode(
        &listening_file(),
        format!("{} {listen}\n", std::process::id()).as_bytes(),
        Some(0o600),
    );
    let (frames, _) = tokio::sync::watch::channel(Arc::new(String::new()));
    let memory = Memory {
        starred: stars::load(),
        ..Memory::default()
    };
    let shared = Arc::new(Shared {
        tmux,
        token,
        memory: Mutex::new(memory),
        frames,
        interest: (Mutex::new(Interest::default()), Condvar::new()),
        kept: Mutex::new(None),
        generation: std::sync::atomic::AtomicU64::new(0),
        sending: Mutex::new(()),
        screens: Mutex::new(HashMap::new()),
        last: Mutex::new(None),
        rows_read_at: Mutex::new(HashMap::new()),
        settled: Mutex::new(None),
        whole_reads: Arc::default(),
        replays: Mutex::new(Replays::default()),
        hosts: gate::Hosts::new(listen, &crate::machine::host_name(), allowed_hosts),
        tries: Mutex::new(gate::Tries::default()),
    });
    let maker = shared.clone();
    std::thread::spawn(move || make_frames(&maker));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| TawError::io(format!("the web server cannot start: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| TawError::io(format!("taw web cannot listen on {listen}: {e}")))?;
        let app = router(shared);
        crate::paths::raise_open_files_limit();
        eprintln!("taw web: listening on http://{listen}/");
        tokio::select! {
            _ = accept(listener, app) => {}
            _ = end_on_signal() => {}
        }
        Ok(())
    })
}

/// Connections held at once: in all, and from one address. Past either,
/// an idle one makes room or the new one is closed, so a flood of
/// connections never takes the files the owner's requests need.
const MOST_CONNECTIONS: usize = 256;
const MOST_FROM_ONE_ADDRESS: usize = 64;
/// A connection that has not sent a whole request head within this is
/// closed: a slow sender's, and a kept-alive one that asks nothing more.
const HEAD_WITHIN: Duration = Duration::from_secs(10);

/// Serves each connection accepted, within the bounds above. Each request
/// knows its client, whose wrong token tries are slowed.
async fn accept(listener: tokio::net::TcpListener, app: Router) {
    let held = Arc::new(Mutex::new(gate::Connections::default()));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of files, or the connection went before it was taken: a
            // moment, then on (the files come back as connections end).
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = gate::Connections::take(&held, peer.ip()) else {
            continue;
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let (in_use, close) = (gate::InUse(slot.asked.clone()), slot.close.clone());
        tokio::spawn(async move {
            let handle = hyper::service::service_fn(
                move |mut request: hyper::Request<hyper::body::Incoming>| {
                    // The gate marks the connection in use once a request
                    // passes it.
                    request.extensions_mut().insert(in_use.clone());
                    request
                        .extensions_mut()
                        .insert(axum::extract::ConnectInfo(peer));
                    hyper::service::Service::call(&service, request)
                },
            );
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_WITHIN);
            // The slot goes with the stream: a WebSocket holds it as long
            // as it is open.
            let io = hyper_util::rt::TokioIo::new(gate::Held::new(stream, slot));
            let connection = http.serve_connection(io, handle).with_upgrades();
            // A connection that ends badly has nobody to tell; one closed
            // for another just ends.
            tokio::select! {
                _ = connection => {}
                _ = close.notified() => {}
            }
        });
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(page::index))
        .route("/app.js", get(page::script))
        .route("/manifest.webmanifest", get(page::manifest))
        .route("/icon.svg", get(page::icon))
        .route("/api/state", get(api_state))
        .route("/ws", get(websocket))
        .route("/api/input", post(api_input))
        .route("/api/key", post(api_key))
        .route("/api/text", post(api_text))
        .route("/api/select", post(api_select))
        .route("/api/star", post(api_star))
        .route("/api/rename", post(api_rename))
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            gate_request,
        ))
        .with_state(shared)
}

/// vmux's error body: `{"detail": ...}`.
fn refuse(status: StatusCode, detail: Value) -> Response {
    (status, axum::Json(json!({ "detail": detail }))).into_response()
}

fn reason(status: StatusCode, reason: &str) -> Response {
    refuse(status, json!({ "reason": reason }))
}

/// Every request passes the gate (`gate.rs`) before a handler sees it:
/// its `Host` names this server, what may act comes from no other site,
/// a body is JSON and within the limit, and every request but the page's
/// files carries the token: the header, or `?token=` (the WebSocket, and
/// the page's first load, which keeps it).
async fn gate_request(
    State(shared): State<Arc<Shared>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Some(mut refused) = refusal(&shared, &request) {
        // A refused connection is closed: whoever was refused holds no
        // room the owner may need.
        refused.headers_mut().insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
        return refused;
    }
    // Only now is the connection in use, never to be closed for another:
    // a request with the token, or with none needed (not a page file,
    // which anyone may fetch).
    if (shared.token.is_none() || !page_file(request.uri().path()))
        && let Some(in_use) = request.extensions().get::<gate::InUse>()
    {
        in_use.mark();
    }
    let answer = next.run(request).await;
    // A body past the limit that said no length is cut by the extractor,
    // which answers in plain text: said in the API's shape.
    if answer.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return too_large();
    }
    answer
}

/// Why the gate refuses `request`, if it does.
fn refusal(shared: &Shared, request: &axum::extract::Request) -> Option<Response> {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    // A page of another site whose name was made to point here (DNS
    // rebinding) asks for that name, not this server's.
    if !shared.hosts.admits(host) {
        return Some(refuse(
            StatusCode::MISDIRECTED_REQUEST,
            json!(format!("this server does not answer to the host {host:?}")),
        ));
    }
    let may_act = request.method() != axum::http::Method::GET || request.uri().path() == "/ws";
    // A browser's request from another site: refused before anything
    // else, for what may act (the WebSocket, every POST).
    if may_act && foreign_origin(headers) {
        return Some(refuse(
            StatusCode::FORBIDDEN,
            json!("cross-origin request refused"),
        ));
    }
    if request.method() == axum::http::Method::POST
        && let Some(refused) = refuse_body(headers)
    {
        return Some(refused);
    }
    // A page of another site can make a browser send requests here
    // (`no-cors` fetches, images) but never read the answers: what it
    // sends is refused before the token is looked at, and is no try.
    if !page_file(request.uri().path()) && cross_site(headers) {
        return Some(refuse(
            StatusCode::FORBIDDEN,
            json!("cross-site request refused"),
        ));
    }
    let token = shared.token.as_ref()?;
    if page_file(request.uri().path()) {
        return None;
    }
    let client = request
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    check_token(shared, token, client, request)
}

/// The page and its files hold nothing; what they fetch asks the token.
fn page_file(path: &str) -> bool {
    matches!(
        path,
        "/" | "/app.js" | "/manifest.webmanifest" | "/icon.svg"
    )
}

fn too_large() -> Response {
    refuse(
        StatusCode::PAYLOAD_TOO_LARGE,
        json!(format!("the body is over {BODY_LIMIT} bytes")),
    )
}

/// A posted body must say it is JSON (a cross-site form cannot, without a
/// preflight this server never answers) and be within the limit.
fn refuse_body(headers: &HeaderMap) -> Option<Response> {
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if length.is_some_and(|length| length > BODY_LIMIT as u64) {
        return Some(too_large());
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    (!gate::is_json(content_type)).then(|| {
        refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            json!("a body must be JSON (Content-Type: application/json)"),
        )
    })
}

/// The token of a request, checked; a client that guessed wrong too often
/// waits before its next guess is looked at.
fn check_token(
    shared: &Shared,
    token: &str,
    client: Option<std::net::IpAddr>,
    request: &axum::extract::Request,
) -> Option<Response> {
    let now = std::time::Instant::now();
    let from_header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(gate::bearer);
    let from_query = request
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|pair| pair.strip_prefix("token=")));
    let given = from_header.or(from_query).unwrap_or_default();
    let mut tries = shared.tries.lock().unwrap_or_else(|e| e.into_inner());
    // The right token is let through even while its client waits: a
    // 256-bit token gives a guesser nothing, and the owner shares an
    // address with whatever else runs here.
    if auth::same(given, token) {
        if let Some(client) = client {
            tries.right(client);
        }
        return None;
    }
    // No token is no guess: nothing to count.
    if given.is_empty() {
        return Some(refuse(StatusCode::UNAUTHORIZED, json!("missing token")));
    }
    if let Some(client) = client
        && let Some(wait) = tries.wait(client, now)
    {
        let seconds = wait.as_secs_f64().ceil() as u64;
        let mut refused = refuse(
            StatusCode::TOO_MANY_REQUESTS,
            json!(format!("too many wrong tokens: try again in {seconds} s")),
        );
        if let Ok(value) = axum::http::HeaderValue::from_str(&seconds.to_string()) {
            refused.headers_mut().insert(header::RETRY_AFTER, value);
        }
        return Some(refused);
    }
    if let Some(client) = client {
        tries.wrong(client, now);
    }
    Some(refuse(
        StatusCode::UNAUTHORIZED,
        json!("bad or missing token"),
    ))
}

/// A browser's request made by a page of another site: its fetch
/// metadata says so (`Sec-Fetch-Site`: another site, or another port or
/// name of this one), or its Origin is not this server. What this
/// server's own page sends is `same-origin`; an address typed or a
/// bookmark, `none`; a script's request carries neither.
fn cross_site(headers: &HeaderMap) -> bool {
    let site = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    matches!(
        site.to_ascii_lowercase().as_str(),
        "cross-site" | "same-site"
    ) || foreign_origin(headers)
}

/// A browser's request from another site: an Origin that is not this
/// server's own address.
fn foreign_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let origin_host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or(origin);
    origin_host != host
}

/// Reads tmux and builds the frame: the snapshot, every pane's screen in
/// one more call.
fn read_frame(shared: &Shared) -> Result<(Snapshot, StateFrame)> {
    read_frame_of(shared, None, Duration::ZERO)
}

fn capture_all(shared: &Shared, panes: &[u32], ansi: bool) -> Result<Vec<String>> {
    let commands = panes
        .iter()
        .map(|p| {
            crate::tmux::pane::capture_cmd(*p, crate::tmux::pane::ReadSource::Visible, 0, ansi)
        })
        .collect();
    shared.tmux.run_apart(commands)
}

/// [`read_frame`], reading again only the screens of `changed` panes (and
/// those not read before), the others as they were last read: what the
/// frame maker does when watchers say which panes they looked at. A look's
/// frame stands on a whole read younger than `structure_lasts`.
fn read_frame_of(
    shared: &Shared,
    changed: Option<&[u32]>,
    structure_lasts: Duration,
) -> Result<(Snapshot, StateFrame)> {
    if let Some(looked) = changed.filter(|c| !c.is_empty())
        && let Some(frame) = look_frame(shared, looked, structure_lasts)
    {
        return Ok(frame);
    }
    let mut tries = 0;
    loop {
        let snapshot = Snapshot::read(&shared.tmux)?;
        let mut kept = shared.screens.lock().unwrap_or_else(|e| e.into_inner());
        // A watched pane's screen is read again when its watcher looked; a
        // pane no watcher follows (the plugin not loaded), each time.
        let panes: Vec<u32> = snapshot
            .unique_panes()
            .iter()
            .filter(|p| {
                changed.is_none_or(|c| c.contains(&p.id)) || !p.pipe || !kept.contains_key(&p.id)
            })
            .map(|p| p.id)
            .collect();
        let texts = match capture_all(shared, &panes, false) {
            Ok(texts) => texts,
            // A pane closed between the two reads: read again.
            Err(_) if tries < 3 => {
                tries += 1;
                continue;
            }
            Err(error) => return Err(error),
        };
        let live: std::collections::HashSet<u32> = snapshot.panes.iter().map(|p| p.id).collect();
        kept.retain(|p, _| live.contains(p));
        kept.extend(panes.into_iter().zip(texts));
        let screens = kept.clone();
        drop(kept);
        *shared.last.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((snapshot.clone(), std::time::Instant::now()));
        shared
            .whole_reads
            .made(snapshot.server.pid, snapshot.server.changes);
        return Ok(frame_of(shared, snapshot, &screens));
    }
}

/// A look's frame: the server as last read, with only the looked-at panes'
/// rows and screens read again. A pane whose screen the watcher keeps (an
/// agent's, or a shell's the web asked for before) and whose watcher wrote
/// nothing since its row was read is taken from the watcher (its screen
/// and title); the others from tmux, in one call. `None` when there is no
/// whole read younger than `structure_lasts`, a pane is new to it, or tmux
/// refused (a pane gone): the caller reads the whole server.
fn look_frame(
    shared: &Shared,
    looked: &[u32],
    structure_lasts: Duration,
) -> Option<(Snapshot, StateFrame)> {
    let (last, read_at) = shared
        .last
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()?;
    if read_at.elapsed() >= structure_lasts
        || !looked
            .iter()
            .all(|id| last.panes.iter().any(|p| p.id == *id))
    {
        return None;
    }
    // An agent's screen from its watcher's last look; a shell's from the
    // screen the watcher keeps for the web once asked for it.
    let shown = crate::watch::server::shown(last.server.pid, looked);
    let (rows, captures) = {
        let mut rows_read_at = shared
            .rows_read_at
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let rows: Vec<u32> = looked
            .iter()
            .copied()
            .filter(|pane| match shown.get(pane) {
                Some(seen) => rows_read_at.insert(*pane, seen.writes) != Some(seen.writes),
                None => true,
            })
            .collect();
        let captures: Vec<u32> = looked
            .iter()
            .copied()
            .filter(|pane| !shown.contains_key(pane))
            .collect();
        (rows, captures)
    };
    let commands = captures
        .iter()
        .map(|p| {
            crate::tmux::pane::capture_cmd(*p, crate::tmux::pane::ReadSource::Visible, 0, false)
        })
        .collect();
    let (mut snapshot, texts) = if rows.is_empty() && captures.is_empty() {
        (last, Vec::new())
    } else {
        last.with_panes_read(&shared.tmux, &rows, commands).ok()?
    };
    for pane in snapshot.panes.iter_mut() {
        if let Some(seen) = shown.get(&pane.id) {
            pane.title = seen.title.clone();
        }
    }
    let mut kept = shared.screens.lock().unwrap_or_else(|e| e.into_inner());
    kept.extend(captures.into_iter().zip(texts));
    kept.extend(shown.into_values().map(|seen| (seen.pane, seen.screen)));
    let screens = kept.clone();
    drop(kept);
    *shared.last.lock().unwrap_or_else(|e| e.into_inner()) = Some((snapshot.clone(), read_at));
    Some(frame_of(shared, snapshot, &screens))
}

/// The frame of a snapshot and the screens as read.
fn frame_of(
    shared: &Shared,
    snapshot: Snapshot,
    screens: &HashMap<u32, String>,
) -> (Snapshot, StateFrame) {
    // OpenCode, and Kilo built on it, mark their choice by colour: their
    // blocked panes are read with their escapes too.
    let coloured: Vec<u32> = snapshot
        .unique_panes()
        .iter()
        .filter(|p| {
            matches!(p.agent_kind.as_str(), "opencode" | "kilo") && p.agent_state == "blocked"
        })
        .map(|p| p.id)
        .collect();
    let ansi: HashMap<u32, String> = if coloured.is_empty() {
        HashMap::new()
    } else {
        capture_all(shared, &coloured, true)
            .map(|texts| coloured.into_iter().zip(texts).collect())
            .unwrap_or_default()
    };
    let now = crate::clock::now_ms() as f64 / 1000.0;
    let mut memory = shared.memory.lock().unwrap_or_else(|e| e.into_inner());
    let frame = state::build(&snapshot, screens, &mut memory, now, &|pane, lines| {
        let asked = menu::read(lines);
        match ansi.get(&pane.id) {
            Some(ansi) if asked.menu.is_empty() => menu::read_across(lines, ansi),
            _ => asked,
        }
    });
    (snapshot, frame)
}

fn frame_json(frame: &StateFrame) -> String {
    serde_json::to_string(frame).unwrap_or_default()
}

/// How often the frame maker reads the server whole while tmux's hooks
/// tell it every change and a watcher follows every pane: only to catch
/// what no hook tells (tmux renaming a window by its program).
const TOLD_EVERY: Duration = Duration::from_secs(60);

/// Makes frames while a WebSocket is open: at every look of a watcher and
/// every change tmux's hooks tell, and, where they cannot tell all (a pane
/// no watcher follows, the plugin not loaded), at least once a second;
/// none while no client listens.
fn make_frames(shared: &Shared) {
    let server = Snapshot::read(&shared.tmux)
        .map(|s| s.server.pid)
        .unwrap_or(0);
    let Following {
        mut server,
        mut waiter,
        mut told,
    } = follow(shared, server);
    let mut last = String::new();
    // The panes whose watchers looked; `None`: read every screen.
    let mut changed: Option<Vec<u32>> = None;
    let mut pace = Pace::default();
    // Whether the last read failed: said once, on the web's standard error.
    let mut unanswered = false;
    loop {
        {
            let (interest, wake) = &shared.interest;
            let mut interest = interest.lock().unwrap_or_else(|e| e.into_inner());
            while !interest.wanted() {
                *shared.kept.lock().unwrap_or_else(|e| e.into_inner()) = None;
                interest = wake.wait(interest).unwrap_or_else(|e| e.into_inner());
                last.clear();
                changed = None;
                pace = Pace::default();
            }
        }
        if let Some(panes) = &changed {
            pace.read(panes);
        }
        let generation = shared.generation.load(std::sync::atomic::Ordering::SeqCst);
        let began = std::time::Instant::now();
        // While hooks tell every change, the structure as last read holds
        // until they do: a look's frame need not read it again.
        let all_told = told.load(std::sync::atomic::Ordering::SeqCst) && every_pane_watched(shared);
        let every = if all_told {
            TOLD_EVERY
        } else {
            structure_every()
        };
        if changed.as_deref() == Some(&[]) {
            crate::ops::race::race_window(crate::ops::race::Race::ToldRead);
        }
        let read = read_frame_of(shared, changed.as_deref(), every);
        // tmux started again at the same socket: its panes are new ones,
        // whatever their numbers, and its watchers tell another waiter.
        if let Ok((snapshot, _)) = &read
            && snapshot.server.pid != server
        {
            forget_server(shared);
            Following {
                server,
                waiter,
                told,
            } = follow(shared, snapshot.server.pid);
            changed = None;
            continue;
        }
        let (snapshot, frame) = match read {
            Ok(read) => {
                if unanswered {
                    eprintln!("taw web: tmux answers again");
                    unanswered = false;
                }
                read
            }
            Err(error) => {
                if !unanswered {
                    eprintln!("taw web: tmux does not answer ({error}); asking each second");
                    unanswered = true;
                }
                // No look nor hook of a server gone wakes the maker, so
                // it asks again each second, whatever its hooks' pace was.
                std::thread::sleep(structure_every());
                changed = None;
                continue;
            }
        };
        pace.working = snapshot
            .panes
            .iter()
            .filter(|p| p.agent_state == crate::model::AgentStatus::Working.as_str())
            .map(|p| p.id)
            .collect();
        let json = frame_json(&frame);
        // An unchanged pane set is not sent again.
        if json != last {
            last = json.clone();
            shared.frames.send_replace(Arc::new(json));
        }
        let fresh_for = if all_told { every } else { KEPT_FRESH };
        *shared.kept.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((began, generation, fresh_for));
        changed = match &waiter {
            // No look in that time, or a change a hook told: the structure
            // is read again, and only the screens no watcher follows.
            Some(waiter) => Some(pace.next(waiter, every)),
            None => {
                std::thread::sleep(structure_every());
                None
            }
        };
    }
}

/// The tmux server the frame maker follows: its pid, the waiter its
/// watchers wake, and whether its hooks tell every change.
struct Following {
    server: u32,
    waiter: Option<crate::watch::waiters::Waiter>,
    told: Arc<std::sync::atomic::AtomicBool>,
}

/// Listens for the looks of server `server`'s watchers, and for its
/// hooks' changes where this taw's load is in it.
fn follow(shared: &Shared, server: u32) -> Following {
    let waiter = crate::watch::waiters::Waiter::any(&crate::paths::state_dir(), server);
    *WAITER_SOCKET.lock().unwrap_or_else(|e| e.into_inner()) =
        waiter.as_ref().map(|w| w.path().to_path_buf());
    let told = Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Some(waiter) = &waiter
        && hooks_tell_changes(&shared.tmux)
    {
        told.store(true, std::sync::atomic::Ordering::SeqCst);
        let (tmux, nudge, told) = (shared.tmux.clone(), waiter.nudge(), told.clone());
        let reads = shared.whole_reads.clone();
        std::thread::spawn(move || hear_changes(&tmux, server, &nudge, &told, &reads));
    }
    Following {
        server,
        waiter,
        told,
    }
}

/// What was read of a server that is gone.
fn forget_server(shared: &Shared) {
    shared
        .screens
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
    *shared.last.lock().unwrap_or_else(|e| e.into_inner()) = None;
    shared
        .rows_read_at
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
    let mut memory = shared.memory.lock().unwrap_or_else(|e| e.into_inner());
    memory.screens.clear();
    memory.interacted.clear();
}

/// A working agent's pane that printed again since its last read waits
/// for the next tick of this: a spinner redrawn ten times a second is four
/// frames a second, and twenty spinners share those four frames rather
/// than keep the frame maker busy with eighty. Any other pane (a shell, an
/// agent that stopped) is read at once.
const READ_AGAIN_AFTER: Duration = Duration::from_millis(250);

/// When each pane's screen was last read, and the panes held back.
struct Pace {
    /// Where the ticks count from.
    epoch: std::time::Instant,
    read_at: HashMap<u32, std::time::Instant>,
    held: Vec<u32>,
    /// The panes whose agent works, as last read.
    working: std::collections::HashSet<u32>,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            epoch: std::time::Instant::now(),
            read_at: HashMap::new(),
            held: Vec::new(),
            working: Default::default(),
        }
    }
}

/// The first tick after `at` of ticks every [`READ_AGAIN_AFTER`] from `epoch`.
fn tick_after(epoch: std::time::Instant, at: std::time::Instant) -> std::time::Instant {
    let step = READ_AGAIN_AFTER.as_millis();
    let ticks = at.saturating_duration_since(epoch).as_millis() / step + 1;
    epoch + READ_AGAIN_AFTER * ticks as u32
}

impl Pace {
    fn read(&mut self, panes: &[u32]) {
        let now = std::time::Instant::now();
        for pane in panes {
            self.read_at.insert(*pane, now);
        }
    }

    /// The panes to read next: those the watchers named that are due, and
    /// those held until now. Empty when `every` passed with none (the whole
    /// server is read then).
    fn next(&mut self, waiter: &crate::watch::waiters::Waiter, every: Duration) -> Vec<u32> {
        let started = std::time::Instant::now();
        loop {
            let due_at = |pane: &u32| {
                self.read_at
                    .get(pane)
                    .filter(|_| self.working.contains(pane))
                    .map(|at| tick_after(self.epoch, *at))
                    .unwrap_or(started)
            };
            let wait = match self.held.iter().map(due_at).min() {
                Some(at) => at.saturating_duration_since(std::time::Instant::now()),
                None => every.saturating_sub(started.elapsed()),
            };
            let named = waiter.wait_panes(wait);
            if named.is_empty() && self.held.is_empty() {
                return named;
            }
            for pane in named {
                if !self.held.contains(&pane) {
                    self.held.push(pane);
                }
            }
            let now = std::time::Instant::now();
            let (due, held): (Vec<u32>, Vec<u32>) =
                self.held.iter().partition(|pane| due_at(pane) <= now);
            self.held = held;
            if !due.is_empty() {
                return due;
            }
        }
    }
}

/// Whether this taw's load is in the server: its hooks signal
/// [`crate::tmux::CHANGED_CHANNEL`] at every change.
fn hooks_tell_changes(tmux: &Tmux) -> bool {
    tmux.loaded()
        .is_some_and(|by| by.version == env!("CARGO_PKG_VERSION"))
}

/// Waits on the change channel of tmux server `server` and wakes the
/// frame maker at each change: after each, once the maker has read the
/// server whole again, and while tmux's change count is the one that read
/// found. When the server goes, or refuses, the maker goes back to reading
/// each second; when the maker has read another server at the socket
/// (tmux started again), that one's listener takes over.
fn hear_changes(
    tmux: &Tmux,
    server: u32,
    nudge: &crate::watch::waiters::Nudge,
    told: &std::sync::atomic::AtomicBool,
    reads: &WholeReads,
) {
    // The wait is renewed now and then, so that a server that hangs is
    // not waited on for ever.
    const WAIT: Duration = Duration::from_secs(3600);
    let mut read = reads.after(0);
    loop {
        if read.server != server {
            told.store(false, std::sync::atomic::Ordering::SeqCst);
            return;
        }
        match tmux.wait_for_change(WAIT, read.changes) {
            Ok(true) => {
                nudge.send();
                read = reads.after(read.number);
                crate::ops::race::race_window(crate::ops::race::Race::ChangeWait);
            }
            Ok(false) => {}
            Err(_) => {
                told.store(false, std::sync::atomic::Ordering::SeqCst);
                nudge.send();
                return;
            }
        }
    }
}

/// Whether a watcher follows every pane of the server as last read (each
/// screen's change is told by its watcher's look).
fn every_pane_watched(shared: &Shared) -> bool {
    shared
        .last
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .is_some_and(|(snapshot, _)| snapshot.panes.iter().all(|p| p.pipe))
}

/// The frame the maker keeps, while it is fresh and no input came since
/// it was read. `changed` is a hint of the pass that saw the change: past
/// [`CHANGED_LASTS`] the kept frame says no pane changed.
fn kept_frame(shared: &Shared) -> Option<Arc<String>> {
    let kept = *shared.kept.lock().unwrap_or_else(|e| e.into_inner());
    let (read_at, generation, fresh_for) = kept?;
    let current = shared.generation.load(std::sync::atomic::Ordering::SeqCst);
    let json = (generation == current && read_at.elapsed() < fresh_for)
        .then(|| shared.frames.borrow().clone())
        .filter(|json| !json.is_empty())?;
    if read_at.elapsed() < CHANGED_LASTS {
        return Some(json);
    }
    let mut settled = shared.settled.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((of, calm)) = &*settled
        && Arc::ptr_eq(of, &json)
    {
        return Some(calm.clone());
    }
    let calm = Arc::new(settle(&json));
    *settled = Some((json, calm.clone()));
    Some(calm)
}

/// How long a frame's `changed` holds when it is answered again: about a
/// pass of a server that reads its panes each second or two.
const CHANGED_LASTS: Duration = Duration::from_secs(2);

/// A frame's JSON with every pane's `changed` false.
fn settle(json: &str) -> String {
    let Ok(mut frame) = serde_json::from_str::<Value>(json) else {
        return json.to_string();
    };
    if let Some(panes) = frame.get_mut("panes").and_then(Value::as_array_mut) {
        for pane in panes {
            if let Some(changed) = pane.get_mut("changed") {
                *changed = Value::Bool(false);
            }
        }
    }
    serde_json::to_string(&frame).unwrap_or_else(|_| json.to_string())
}

/// A request wants frames for a while: the maker wakes, or keeps on.
fn asked(shared: &Shared) {
    let (interest, wake) = &shared.interest;
    let mut interest = interest.lock().unwrap_or_else(|e| e.into_inner());
    let asleep = !interest.wanted();
    interest.asked_until = Some(std::time::Instant::now() + ASKED_FOR);
    if asleep {
        wake.notify_all();
    }
}

/// What an input changes is in no frame read before it.
fn moved_on(shared: &Shared) {
    shared
        .generation
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// The state: from the frame the maker keeps (a few milliseconds), else
/// read now (the first request in a while, or the first after an input).
async fn api_state(State(shared): State<Arc<Shared>>) -> Response {
    asked(&shared);
    if let Some(json) = kept_frame(&shared) {
        return (
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            json.as_str().to_string(),
        )
            .into_response();
    }
    match tokio::task::spawn_blocking(move || read_frame(&shared)).await {
        Ok(Ok((_, frame))) => axum::Json(frame).into_response(),
        Ok(Err(error)) => refuse(StatusCode::SERVICE_UNAVAILABLE, json!(error.message)),
        Err(_) => refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!("the state was not read"),
        ),
    }
}

/// The most a client's WebSocket message may hold: it is only read to see
/// it go, so tungstenite's 64 MiB would only be memory a client could take.
const SOCKET_MESSAGE_MAX: usize = 64 * 1024;

async fn websocket(State(shared): State<Arc<Shared>>, upgrade: WebSocketUpgrade) -> Response {
    upgrade
        .max_message_size(SOCKET_MESSAGE_MAX)
        .max_frame_size(SOCKET_MESSAGE_MAX)
        .on_upgrade(move |socket| serve_socket(shared, socket))
}

/// One WebSocket: hello, the state now, then each new frame. What the
/// client sends is only read to see it go.
async fn serve_socket(shared: Arc<Shared>, mut socket: WebSocket) {
    let mut frames = shared.frames.subscribe();
    {
        let (interest, wake) = &shared.interest;
        interest.lock().unwrap_or_else(|e| e.into_inner()).sockets += 1;
        wake.notify_all();
    }
    let sid = format!("{:08x}", crate::clock::now_ms() as u32 ^ std::process::id());
    let hello = json!({"type": "hello", "sid": sid}).to_string();
    let first = {
        let shared = shared.clone();
        tokio::task::spawn_blocking(move || read_frame(&shared).map(|(_, f)| frame_json(&f)))
            .await
            .ok()
            .and_then(|r| r.ok())
    };
    let mut open = socket.send(Message::Text(hello.into())).await.is_ok();
    // The frame maker, woken by this client, makes the same frame this
    // socket just read: what was sent is never sent again.
    let mut sent = Arc::new(String::new());
    if open && let Some(first) = first {
        open = socket
            .send(Message::Text(first.as_str().into()))
            .await
            .is_ok();
        sent = Arc::new(first);
    }
    if open {
        // A page that hears nothing for longer than a few beats knows its
        // socket died (a phone that slept) and makes a new one.
        let beat = crate::clock::limits().beat;
        let mut beats = tokio::time::interval_at(tokio::time::Instant::now() + beat, beat);
        loop {
            tokio::select! {
                _ = beats.tick() => {
                    let beat = Message::Text(r#"{"type":"beat"}"#.into());
                    if socket.send(beat).await.is_err() {
                        break;
                    }
                }
                changed = frames.changed() => {
                    if changed.is_err() {
                        break;
                    }
                    let frame = frames.borrow_and_update().clone();
                    if frame.is_empty() || frame == sent {
                        continue;
                    }
                    if socket.send(Message::Text(frame.as_str().into())).await.is_err() {
                        break;
                    }
                    sent = frame;
                }
                got = socket.recv() => {
                    match got {
                        Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                        Some(Ok(_)) => {}
                    }
                }
            }
        }
    }
    let (interest, _) = &shared.interest;
    let mut interest = interest.lock().unwrap_or_else(|e| e.into_inner());
    interest.sockets = interest.sockets.saturating_sub(1);
}

/// What `/api/input` is given.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    id: String,
    operation: String,
    #[serde(default)]
    expected: Option<ActionGuard>,
    #[serde(default)]
    option_id: Option<String>,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    enter: bool,
    #[serde(default)]
    idempotency_key: Option<String>,
}

/// What a client asks to send, checked.
enum Send {
    Select(String),
    Key(String),
    Text { text: String, enter: bool },
}

/// Why an input was not sent.
struct Refusal(StatusCode, &'static str);

fn parse_body<T: for<'de> Deserialize<'de>>(body: &Bytes) -> std::result::Result<T, Box<Response>> {
    serde_json::from_slice(body).map_err(|e| {
        Box::new(refuse(
            StatusCode::BAD_REQUEST,
            json!({"reason": "bad_request", "message": e.to_string()}),
        ))
    })
}

/// Sends `what` to pane `id`, only when the pane is actionable now and,
/// with a guard, its prompt and options are still the ones the guard
/// names. Blocking: it reads tmux and types.
fn deliver(
    shared: &Shared,
    id: &str,
    what: Send,
    expected: Option<&ActionGuard>,
) -> std::result::Result<(), Refusal> {
    let _one_at_a_time = shared.sending.lock().unwrap_or_else(|e| e.into_inner());
    let (_, frame) = read_frame(shared)
        .map_err(|_| Refusal(StatusCode::SERVICE_UNAVAILABLE, "endpoint_stale"))?;
    let Some(pane) = frame.panes.iter().find(|p| p.id == id) else {
        return Err(Refusal(StatusCode::NOT_FOUND, "unknown_pane"));
    };
    if !pane.actionable || pane.stale {
        return Err(Refusal(StatusCode::CONFLICT, "capability_unavailable"));
    }
    if let (Some(expected), Some(now)) = (expected, &pane.action_guard) {
        check_guard(expected, now, &what)?;
    }
    match send_to_pane(&shared.tmux, pane, id, what)? {
        Ok(()) => {
            if let Some(n) = crate::tmux::ids::tmux_number(id, '%') {
                let mut memory = shared.memory.lock().unwrap_or_else(|e| e.into_inner());
                memory
                    .interacted
                    .insert(n, crate::clock::now_ms() as f64 / 1000.0);
            }
            Ok(())
        }
        // The agent went, or a mode came, between the check and the send.
        Err(error) if error.code != ErrorCode::Timeout => {
            Err(Refusal(StatusCode::CONFLICT, "endpoint_stale"))
        }
        Err(_) => Err(Refusal(StatusCode::CONFLICT, "delivery_unknown")),
    }
}

/// Whether the guard a client sent still holds for `what`: the same
/// revision, and the prompt and options it saw when `what` answers them.
fn check_guard(
    expected: &ActionGuard,
    now: &ActionGuard,
    what: &Send,
) -> std::result::Result<(), Refusal> {
    let asks_prompt = matches!(what, Send::Select(_) | Send::Text { .. })
        || matches!(what, Send::Key(k) if k == "Enter");
    // Text with a line's end in it may answer a menu as Enter does.
    let asks_options = matches!(what, Send::Select(_))
        || matches!(what, Send::Key(k) if k == "Enter")
        || matches!(what, Send::Text { enter: true, .. })
        || matches!(what, Send::Text { text, .. } if text.contains(['\r', '\n']));
    if expected.endpoint_revision != now.endpoint_revision {
        return Err(Refusal(StatusCode::CONFLICT, "revision_stale"));
    }
    if asks_prompt && expected.prompt_fingerprint != now.prompt_fingerprint {
        return Err(Refusal(StatusCode::CONFLICT, "prompt_changed"));
    }
    if asks_options && expected.options_fingerprint != now.options_fingerprint {
        return Err(Refusal(StatusCode::CONFLICT, "options_changed"));
    }
    Ok(())
}

/// Types `what` into the pane: a refusal when it names no choice of the
/// menu or a key not allowed, else what the send did.
fn send_to_pane(
    tmux: &Tmux,
    pane: &state::PaneState,
    id: &str,
    what: Send,
) -> std::result::Result<Result<()>, Refusal> {
    use crate::ops::agent::drive;
    Ok(match what {
        Send::Select(option) => {
            let Some(index) = pane
                .menu
                .iter()
                .position(|o| o.id == option || (!o.key.is_empty() && o.key == option))
            else {
                return Err(Refusal(StatusCode::CONFLICT, "options_changed"));
            };
            let keys = menu::keys_to_choose(&pane.menu, index, pane.menu_across);
            drive::send_keys(tmux, id, &keys).map(|_| ())
        }
        Send::Key(key) => {
            if !state::SAFE_KEYS.contains(&key.as_str()) {
                return Err(Refusal(StatusCode::BAD_REQUEST, "key_not_allowed"));
            }
            drive::send_keys(tmux, id, &[key]).map(|_| ())
        }
        Send::Text { text, enter: true } => drive::prompt(
            tmux,
            id,
            drive::Prompt {
                text,
                wait: None,
                timeout: None,
            },
        )
        .map(|_| ()),
        Send::Text { text, enter: false } => drive::type_text(tmux, id, &text).map(|_| ()),
    })
}

async fn run_delivery(
    shared: Arc<Shared>,
    id: String,
    what: Send,
    expected: Option<ActionGuard>,
    answer: Value,
) -> Response {
    let sender = shared.clone();
    let done =
        tokio::task::spawn_blocking(move || deliver(&sender, &id, what, expected.as_ref())).await;
    moved_on(&shared);
    match done {
        Ok(Ok(())) => axum::Json(answer).into_response(),
        Ok(Err(Refusal(status, why))) => reason(status, why),
        Err(_) => reason(StatusCode::INTERNAL_SERVER_ERROR, "delivery_unknown"),
    }
}

async fn api_input(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let input: Input = match parse_body(&body) {
        Ok(input) => input,
        Err(response) => return *response,
    };
    let what = match (
        input.operation.as_str(),
        input.option_id,
        input.key,
        input.text,
    ) {
        ("select", Some(option), None, None) => Send::Select(option),
        ("key", None, Some(key), None) => Send::Key(key),
        ("text", None, None, Some(text)) if !text.is_empty() => Send::Text {
            text,
            enter: input.enter,
        },
        ("text", None, None, _) => return reason(StatusCode::BAD_REQUEST, "text_required"),
        _ => return reason(StatusCode::BAD_REQUEST, "bad_operation"),
    };
    let Some(expected) = input.expected else {
        return reason(StatusCode::CONFLICT, "revision_stale");
    };
    let key = input.idempotency_key.filter(|key| !key.is_empty());
    if let Some(key) = &key {
        if key.len() > IDEMPOTENCY_KEY_MAX {
            return reason(StatusCode::BAD_REQUEST, "idempotency_key_too_long");
        }
        let mut replays = shared.replays.lock().unwrap();
        match replays.find(key) {
            Some(Some((status, body))) => return answer_again(*status, body.clone()),
            Some(None) => return reason(StatusCode::CONFLICT, "duplicate_in_flight"),
            None => replays.begin(key),
        }
    }
    // A task of its own: a client gone mid-request drops this handler, not
    // the delivery, whose answer is still kept for the key (else the key
    // would stay in flight and every retry be refused).
    let delivery = tokio::spawn(async move {
        let response = run_delivery(
            shared.clone(),
            input.id,
            what,
            Some(expected),
            json!({"ok": true, "delivery": "accepted"}),
        )
        .await;
        let Some(key) = key else {
            return response;
        };
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(body, 64 * 1024)
            .await
            .unwrap_or_default();
        let sent = parts
            .status
            .is_success()
            .then(|| (parts.status, body.clone()));
        shared.replays.lock().unwrap().finish(&key, sent);
        Response::from_parts(parts, axum::body::Body::from(body))
    });
    delivery
        .await
        .unwrap_or_else(|_| reason(StatusCode::INTERNAL_SERVER_ERROR, "delivery_unknown"))
}

/// The answer a repeated `idempotency_key` gets: the first one, marked.
fn answer_again(status: StatusCode, body: Bytes) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response.headers_mut().insert(
        "idempotent-replay",
        header::HeaderValue::from_static("true"),
    );
    response
}

#[derive(Deserialize)]
struct KeyBody {
    id: String,
    key: String,
}

#[derive(Deserialize)]
struct TextBody {
    id: String,
    text: String,
    #[serde(default)]
    enter: bool,
}

/// Bounds on the stars a client may keep: each is in every frame (a
/// star on nothing running is listed too) and in stars.json.
const STARS_MAX: usize = 500;
const STAR_TARGET_MAX: usize = 256;

#[derive(Deserialize)]
struct StarBody {
    target: String,
    starred: bool,
}

/// Why a star is not taken: a target too long, or one more than the bound.
fn star_refusal(starred: &std::collections::BTreeSet<String>, star: &StarBody) -> Option<Refusal> {
    if star.target.len() > STAR_TARGET_MAX {
        return Some(Refusal(StatusCode::BAD_REQUEST, "target_too_long"));
    }
    (star.starred && !starred.contains(&star.target) && starred.len() >= STARS_MAX)
        .then_some(Refusal(StatusCode::CONFLICT, "too_many_stars"))
}

/// vmux's legacy calls, with the same checks but for the guard they do
/// not carry.
async fn api_key(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    match parse_body::<KeyBody>(&body) {
        Ok(b) => run_delivery(shared, b.id, Send::Key(b.key), None, json!({"ok": true})).await,
        Err(response) => *response,
    }
}

async fn api_select(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    match parse_body::<KeyBody>(&body) {
        Ok(b) => run_delivery(shared, b.id, Send::Select(b.key), None, json!({"ok": true})).await,
        Err(response) => *response,
    }
}

async fn api_text(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    match parse_body::<TextBody>(&body) {
        Ok(b) if b.text.is_empty() => reason(StatusCode::BAD_REQUEST, "text_required"),
        Ok(b) => {
            let what = Send::Text {
                text: b.text,
                enter: b.enter,
            };
            run_delivery(shared, b.id, what, None, json!({"ok": true})).await
        }
        Err(response) => *response,
    }
}

async fn api_star(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    match parse_body::<StarBody>(&body) {
        Ok(b) => {
            let mut memory = shared.memory.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(Refusal(status, why)) = star_refusal(&memory.starred, &b) {
                return reason(status, why);
            }
            if b.starred {
                memory.starred.insert(b.target);
            } else {
                memory.starred.remove(&b.target);
            }
            moved_on(&shared);
            match stars::save(&memory.starred) {
                Ok(()) => axum::Json(json!({"ok": true})).into_response(),
                Err(error) => refuse(StatusCode::INTERNAL_SERVER_ERROR, json!(error.message)),
            }
        }
        Err(response) => *response,
    }
}

#[derive(Deserialize)]
struct RenameBody {
    id: String,
    name: String,
}

/// taw's own call: a pane's name (an agent's name for an agent, else the
/// pane's label; empty takes it off), by the rule every verb follows.
async fn api_rename(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let b = match parse_body::<RenameBody>(&body) {
        Ok(b) => b,
        Err(response) => return *response,
    };
    let renamer = shared.clone();
    let done = tokio::task::spawn_blocking(move || -> Result<()> {
        let shared = renamer;
        let snapshot = Snapshot::read(&shared.tmux)?;
        let pane = crate::tmux::ids::tmux_number(&b.id, '%')
            .and_then(|n| snapshot.pane(n, None))
            .ok_or_else(|| TawError::not_found("unknown pane"))?;
        let name = Some(b.name.as_str()).filter(|n| !n.is_empty());
        if pane.agent_kind.is_empty() {
            crate::ops::pane::rename(&shared.tmux, pane, name).map(|_| ())
        } else {
            crate::ops::agent::rename(&shared.tmux, &snapshot, pane, name).map(|_| ())
        }
    })
    .await;
    moved_on(&shared);
    match done {
        Ok(Ok(())) => axum::Json(json!({"ok": true})).into_response(),
        Ok(Err(error)) if error.code == ErrorCode::NotFound => {
            reason(StatusCode::NOT_FOUND, "unknown_pane")
        }
        Ok(Err(error)) => refuse(
            StatusCode::BAD_REQUEST,
            json!({"reason": error.code.as_str(), "message": error.message}),
        ),
        Err(_) => reason(StatusCode::INTERNAL_SERVER_ERROR, "rename_unknown"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(options: &str) -> ActionGuard {
        ActionGuard {
            endpoint_revision: "r1".into(),
            prompt_fingerprint: "p1".into(),
            options_fingerprint: options.into(),
        }
    }

    #[test]
    fn stars_are_bounded_in_length_and_number() {
        let star = |target: &str, starred| StarBody {
            target: target.into(),
            starred,
        };
        let mut starred = std::collections::BTreeSet::new();
        let long = "x".repeat(STAR_TARGET_MAX + 1);
        assert_eq!(
            star_refusal(&starred, &star(&long, true)).unwrap().1,
            "target_too_long"
        );
        for n in 0..STARS_MAX {
            assert!(star_refusal(&starred, &star(&n.to_string(), true)).is_none());
            starred.insert(n.to_string());
        }
        assert_eq!(
            star_refusal(&starred, &star("one more", true)).unwrap().1,
            "too_many_stars"
        );
        // One already there, or a star taken off, is always fine.
        assert!(star_refusal(&starred, &star("7", true)).is_none());
        assert!(star_refusal(&starred, &star("one more", false)).is_none());
    }

    #[test]
    fn text_with_a_lines_end_asks_the_options_as_enter_does() {
        let (expected, now) = (guard("o1"), guard("o2"));
        let text = |text: &str, enter| Send::Text {
            text: text.into(),
            enter,
        };
        assert!(check_guard(&expected, &now, &text("plain", false)).is_ok());
        for sent in [text("plain", true), text("a\nb", false), text("\r", false)] {
            let refused = check_guard(&expected, &now, &sent).unwrap_err();
            assert_eq!(refused.1, "options_changed");
        }
    }
}
