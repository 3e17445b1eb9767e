//! What a request must be before any handler sees it: addressed to this
//! server by a name it answers to (no DNS rebinding), from this server's
//! own pages when it may act, with the token, and a JSON body when it
//! posts one. Failed token tries are slowed per client. The rules are
//! pure functions here; `web::gate_request` applies them.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The names a request's `Host` may give for this server.
#[derive(Debug, Clone)]
pub(crate) struct Hosts {
    listen: SocketAddr,
    /// This machine's host name, lower-case: a phone on the network may
    /// reach an every-address listen by it (also as `<name>.local`).
    machine: String,
    /// Names the user allowed (`--allow-host`), lower-case.
    allowed: Vec<String>,
}

impl Hosts {
    pub(crate) fn new(listen: SocketAddr, machine: &str, allowed: &[String]) -> Hosts {
        Hosts {
            listen,
            machine: machine.to_ascii_lowercase(),
            allowed: allowed.iter().map(|n| n.to_ascii_lowercase()).collect(),
        }
    }

    /// Whether a `Host` header names this server. An IP address is never
    /// a rebound name, so on an every-address listen any address of the
    /// port is taken; a name only when it is `localhost`, this machine's
    /// or one the user allowed.
    pub(crate) fn admits(&self, header: &str) -> bool {
        let Some((name, port)) = split_host(header) else {
            return false;
        };
        if port != self.listen.port() {
            return false;
        }
        let listen = self.listen.ip();
        if let Ok(address) = name.parse::<IpAddr>() {
            return address == listen
                || listen.is_unspecified()
                || (listen.is_loopback() && address.is_loopback());
        }
        let name = name.to_ascii_lowercase();
        if self.allowed.contains(&name) {
            return true;
        }
        let own_machine = !self.machine.is_empty()
            && (name == self.machine || name == format!("{}.local", self.machine));
        match listen.is_unspecified() {
            true => name == "localhost" || own_machine,
            false => listen.is_loopback() && name == "localhost",
        }
    }
}

/// A `Host` header's name (an IPv6 address without its brackets) and
/// port (80 when it says none).
fn split_host(header: &str) -> Option<(&str, u16)> {
    let header = header.trim();
    if let Some(rest) = header.strip_prefix('[') {
        let (address, after) = rest.split_once(']')?;
        let port = match after {
            "" => 80,
            _ => after.strip_prefix(':')?.parse().ok()?,
        };
        return Some((address, port));
    }
    match header.rsplit_once(':') {
        Some((name, port)) => Some((name, port.parse().ok()?)).filter(|(n, _)| !n.is_empty()),
        None if !header.is_empty() => Some((header, 80)),
        None => None,
    }
}

/// Whether a `Content-Type` says JSON (`application/json`, with any
/// parameters): what a cross-site form cannot send without asking first.
pub(crate) fn is_json(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// The token of an `Authorization` header: the Bearer scheme in any case
/// (RFC 7235), then the credentials.
pub(crate) fn bearer(header: &str) -> Option<&str> {
    let (scheme, credentials) = header.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credentials.trim())
}

/// Wrong tries a client may make before it must wait.
const FREE_TRIES: u32 = 5;
/// The longest a client waits after a wrong try.
const LONGEST_WAIT: Duration = Duration::from_secs(60);
/// A client's wrong tries are forgotten this long after its last one.
const FORGET_AFTER: Duration = Duration::from_secs(600);
/// Clients remembered at most (the oldest go first).
const CLIENTS_KEPT: usize = 1024;

/// Each client's wrong token tries. Past a few, a client waits longer
/// after each (1 s, 2 s, 4 s... up to a minute) before its token is looked
/// at again; a right token clears it. A client that never erred, or errs
/// rarely, never waits.
#[derive(Debug, Default)]
pub(crate) struct Tries {
    clients: HashMap<IpAddr, (u32, Instant)>,
}

impl Tries {
    /// How long `client` must still wait before its token is checked.
    pub(crate) fn wait(&self, client: IpAddr, now: Instant) -> Option<Duration> {
        let (wrong, last) = self.clients.get(&client)?;
        let over = wrong.checked_sub(FREE_TRIES)?;
        let wait = Duration::from_secs(1u64 << over.min(6)).min(LONGEST_WAIT);
        (*last + wait)
            .checked_duration_since(now)
            .filter(|left| !left.is_zero())
    }

    pub(crate) fn wrong(&mut self, client: IpAddr, now: Instant) {
        self.clients
            .retain(|_, (_, last)| now.saturating_duration_since(*last) < FORGET_AFTER);
        if self.clients.len() >= CLIENTS_KEPT
            && let Some(oldest) = self
                .clients
                .iter()
                .min_by_key(|(_, (_, last))| *last)
                .map(|(client, _)| *client)
        {
            self.clients.remove(&oldest);
        }
        let entry = self.clients.entry(client).or_insert((0, now));
        *entry = (entry.0 + 1, now);
    }

    pub(crate) fn right(&mut self, client: IpAddr) {
        self.clients.remove(&client);
    }
}

/// The connections held: each with its address, whether it has asked
/// anything yet, and a way to close it.
#[derive(Debug, Default)]
pub(crate) struct Connections {
    next: u64,
    open: Vec<Open>,
}

#[derive(Debug)]
struct Open {
    id: u64,
    address: IpAddr,
    asked: Arc<AtomicBool>,
    close: Arc<tokio::sync::Notify>,
}

impl Connections {
    /// A slot for a new connection from `address`, given back when
    /// dropped. Past [`super::MOST_CONNECTIONS`] in all or
    /// [`super::MOST_FROM_ONE_ADDRESS`] from it, the oldest connection that
    /// has asked nothing yet (of that address, when that is the bound) is
    /// closed for it: idle connections never keep out one that asks. `None`
    /// when every connection there is in use.
    pub(crate) fn take(held: &Arc<Mutex<Connections>>, address: IpAddr) -> Option<Slot> {
        let mut connections = held.lock().unwrap_or_else(|e| e.into_inner());
        let id = connections.admit(
            address,
            super::MOST_CONNECTIONS,
            super::MOST_FROM_ONE_ADDRESS,
        )?;
        let open = connections.open.last()?;
        Some(Slot {
            held: held.clone(),
            id,
            asked: open.asked.clone(),
            close: open.close.clone(),
        })
    }

    /// Makes room for one more from `address` (closing an idle one if
    /// needed) and counts it: its id.
    fn admit(&mut self, address: IpAddr, most: usize, most_from_one: usize) -> Option<u64> {
        let from = self.open.iter().filter(|o| o.address == address).count();
        if self.open.len() >= most || from >= most_from_one {
            let same_address = from >= most_from_one;
            let idle = self.open.iter().position(|o| {
                !o.asked.load(Ordering::Acquire) && (!same_address || o.address == address)
            })?;
            let closed = self.open.remove(idle);
            closed.close.notify_one();
        }
        self.next += 1;
        self.open.push(Open {
            id: self.next,
            address,
            asked: Arc::new(AtomicBool::new(false)),
            close: Arc::new(tokio::sync::Notify::new()),
        });
        Some(self.next)
    }

    fn release(&mut self, id: u64) {
        self.open.retain(|o| o.id != id);
    }
}

/// A request's mark on its connection: once a request passes the gate,
/// the connection is in use and never closed for another.
#[derive(Debug, Clone)]
pub(crate) struct InUse(pub Arc<AtomicBool>);

impl InUse {
    pub(crate) fn mark(&self) {
        self.0.store(true, Ordering::Release);
    }
}

/// One connection's place in [`Connections`].
pub(crate) struct Slot {
    held: Arc<Mutex<Connections>>,
    id: u64,
    /// Set by its first request the gate lets through ([`InUse`]): it is
    /// in use, never closed for another.
    pub asked: Arc<AtomicBool>,
    /// Told when the connection is closed for another.
    pub close: Arc<tokio::sync::Notify>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut connections = self.held.lock().unwrap_or_else(|e| e.into_inner());
        connections.release(self.id);
    }
}

/// A connection's stream with its slot: both go when it closes, after a
/// WebSocket's life as much as a request's.
pub(crate) struct Held {
    stream: tokio::net::TcpStream,
    _slot: Slot,
}

impl Held {
    pub(crate) fn new(stream: tokio::net::TcpStream, slot: Slot) -> Held {
        Held {
            stream,
            _slot: slot,
        }
    }
}

impl tokio::io::AsyncRead for Held {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Held {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_connection_makes_room_for_one_that_asks() {
        let mut held = Connections::default();
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = held.admit(a, 3, 2).unwrap();
        let second = held.admit(a, 3, 2).unwrap();
        // The first asked something: the second, idle, is closed for a third.
        held.open[0].asked.store(true, Ordering::Release);
        let close_second = held.open[1].close.clone();
        let third = held.admit(a, 3, 2).unwrap();
        assert!(futures_ready(close_second.notified()));
        let ids: Vec<u64> = held.open.iter().map(|o| o.id).collect();
        assert_eq!(ids, [first, third]);
        // Both from `a` in use: another from `a` is refused; from `b` it
        // fits within all three.
        held.open[1].asked.store(true, Ordering::Release);
        assert_eq!(held.admit(a, 3, 2), None);
        let from_b = held.admit(b, 3, 2).unwrap();
        // All three held and in use: nothing more.
        held.open[2].asked.store(true, Ordering::Release);
        assert_eq!(held.admit(b, 3, 2), None);
        held.release(from_b);
        held.release(first);
        held.release(second);
        held.release(third);
        assert!(held.open.is_empty());
    }

    /// Whether a future is ready at its first poll.
    fn futures_ready(future: impl std::future::Future) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        future.as_mut().poll(&mut cx).is_ready()
    }

    fn hosts(listen: &str) -> Hosts {
        Hosts::new(listen.parse().unwrap(), "Studio", &["phone.example".into()])
    }

    #[test]
    fn a_loopback_listen_answers_to_loopback_names_of_its_port() {
        let hosts = hosts("127.0.0.1:8787");
        for good in [
            "127.0.0.1:8787",
            "localhost:8787",
            "LocalHost:8787",
            "[::1]:8787",
            "phone.example:8787",
        ] {
            assert!(hosts.admits(good), "{good}");
        }
        for bad in [
            "attacker.example:8787",
            "127.0.0.1:8788",
            "localhost",
            "studio:8787",
            "10.0.0.2:8787",
            "",
            ":8787",
            "[::1]8787",
            "localhost:port",
        ] {
            assert!(!hosts.admits(bad), "{bad}");
        }
    }

    #[test]
    fn an_every_address_listen_answers_to_addresses_and_the_machines_name() {
        let every = hosts("0.0.0.0:8787");
        for good in [
            "192.168.1.20:8787",
            "[fe80::1]:8787",
            "studio:8787",
            "studio.local:8787",
            "localhost:8787",
        ] {
            assert!(every.admits(good), "{good}");
        }
        for bad in ["attacker.example:8787", "studio.attacker.example:8787"] {
            assert!(!every.admits(bad), "{bad}");
        }
        // One address: that address, and the names allowed.
        let one = hosts("192.168.1.20:80");
        assert!(one.admits("192.168.1.20"));
        assert!(one.admits("phone.example"));
        assert!(!one.admits("192.168.1.21"));
        assert!(!one.admits("localhost"));
        assert!(!one.admits("studio"));
    }

    #[test]
    fn json_is_any_spelling_of_application_json() {
        assert!(is_json(Some("application/json")));
        assert!(is_json(Some("Application/JSON; charset=utf-8")));
        for other in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("application/jsonp"),
        ] {
            assert!(!is_json(other), "{other:?}");
        }
    }

    #[test]
    fn bearer_in_any_case() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer abc"), Some("abc"));
        assert_eq!(bearer("BEARER  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearerabc"), None);
    }

    #[test]
    fn wrong_tries_wait_longer_each_time_and_a_right_one_clears() {
        let mut tries = Tries::default();
        let client: IpAddr = "10.0.0.9".parse().unwrap();
        let other: IpAddr = "10.0.0.10".parse().unwrap();
        let start = Instant::now();
        for _ in 0..FREE_TRIES {
            assert_eq!(tries.wait(client, start), None);
            tries.wrong(client, start);
        }
        assert_eq!(tries.wait(client, start), Some(Duration::from_secs(1)));
        assert_eq!(tries.wait(other, start), None);
        let later = start + Duration::from_secs(1);
        assert_eq!(tries.wait(client, later), None);
        tries.wrong(client, later);
        assert_eq!(tries.wait(client, later), Some(Duration::from_secs(2)));
        for _ in 0..20 {
            tries.wrong(client, later);
        }
        assert_eq!(tries.wait(client, later), Some(LONGEST_WAIT));
        tries.right(client);
        assert_eq!(tries.wait(client, later), None);
        // Forgotten a while after the last wrong try.
        tries.wrong(other, start);
        tries.wrong(client, start + FORGET_AFTER);
        assert!(!tries.clients.contains_key(&other));
    }
}
