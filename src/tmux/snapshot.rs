//! One read of everything the records need: the server, its sessions,
//! windows, panes and clients, in a single tmux invocation.

use super::format::{Row, RowFormat, parse_rows, parse_rows_marked};
use super::ids;
use super::options::pane as pane_opt;
use super::{Batch, Cmd, Tmux};
use crate::envelope::TawError;

/// The server itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Server {
    pub pid: u32,
    pub socket_path: String,
    pub host: String,
    pub host_short: String,
    pub version: String,
    pub start_time: u64,
    /// `@agent_wizard_left`: where the last attach from another machine ended.
    pub left: String,
    /// `@agent_wizard_walk` and `@agent_wizard_entered`: taw app's walk,
    /// and the client of its attach.
    pub walk: String,
    pub entered: String,
    /// `@agent_wizard_worktrees_changed`: when a worktree was last removed.
    pub worktrees_changed: String,
    /// `@agent_wizard_changes`: the changes tmux's hooks have counted;
    /// `None` with no load of taw's that counts them.
    pub changes: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Session {
    /// `$N`'s N.
    pub id: u32,
    pub name: String,
    pub window_count: usize,
    pub attached: usize,
    pub activity: u64,
    pub created: u64,
    pub path: String,
    /// Metadata tokens (JSON) and their sources' sequence numbers.
    pub tokens: String,
    pub token_seqs: String,
    /// Its worktree provenance (JSON), when a worktree verb gave it one.
    pub worktree: String,
    /// The group it shares its windows with (`new-session -t`), if any.
    pub group: String,
    /// [`super::options::session::LABEL`]'s value.
    pub kept_label: String,
}

impl Session {
    /// The workspace's label: as it was given, while tmux holds the
    /// session under the name taw gave it; else the session's name.
    pub(crate) fn label(&self) -> &str {
        match self.kept_label.split_once('\t') {
            Some((name, label)) if name == self.name => label,
            _ => &self.name,
        }
    }
}

/// A window as linked into one session (a window linked into two sessions
/// is two of these).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window {
    pub session: u32,
    /// `@N`'s N.
    pub id: u32,
    pub index: i64,
    pub name: String,
    /// The session's current window.
    pub active: bool,
    pub pane_count: usize,
    pub zoomed: bool,
    pub layout: String,
    /// tmux does not rename it after its program (`automatic-rename`
    /// off: a name given by hand, by `new-window -n`, or kept by choice).
    pub named: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pane {
    pub session: u32,
    pub window: u32,
    /// `%N`'s N.
    pub id: u32,
    pub index: i64,
    /// The window's current pane.
    pub active: bool,
    pub title: String,
    pub current_path: String,
    pub current_command: String,
    pub pid: u32,
    pub tty: String,
    pub in_mode: bool,
    pub dead: bool,
    pub scroll_position: Option<u64>,
    pub history_size: u64,
    pub width: u32,
    pub height: u32,
    pub agent_state: String,
    pub agent_kind: String,
    pub agent_name: String,
    pub label: String,
    pub meta_title: String,
    pub meta_display_agent: String,
    /// Reported labels for its states (JSON) and its tokens (JSON, with
    /// each one's expiry), as `taw pane report-metadata` keeps them.
    pub meta_state_labels: String,
    pub meta_tokens: String,
    pub revision: u64,
    /// A pipe-pane is open on the pane.
    pub pipe: bool,
    /// What the pane's watcher wrote: `<version> <pid>`.
    pub watcher: String,
    pub final_state: String,
    pub state_seq: u64,
    pub state_since: u64,
    pub agent_session: String,
    pub reported_kind: String,
    pub reported_source: String,
    pub reported_state: String,
    pub agent_pid: String,
    pub turn: String,
    pub reported_turn: String,
    pub kind_hint: String,
    /// Why a restore left the pane as tmux made it (its saved folder).
    pub restore_error: String,
    /// The agent's container (`@agent_container`), the profile `taw
    /// sandbox` ran, and a sandboxed agent's kept resume.
    pub container: String,
    pub sandbox_profile: String,
    pub sandbox_resume: String,
    /// The last toast its watcher showed (`@agent_toast`).
    pub toast: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Client {
    pub name: String,
    pub session: Option<u32>,
    pub activity: u64,
    pub tty: String,
}

/// Everything at one moment.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    pub server: Server,
    pub sessions: Vec<Session>,
    pub windows: Vec<Window>,
    pub panes: Vec<Pane>,
    pub clients: Vec<Client>,
}

fn server_format() -> RowFormat {
    RowFormat::of(
        "V",
        &[
            "pid",
            "socket_path",
            "host",
            "host_short",
            "version",
            "start_time",
            crate::tmux::options::bookkeeping::LEFT,
            crate::tmux::options::bookkeeping::WALK,
            crate::tmux::options::bookkeeping::ENTERED,
            crate::tmux::options::bookkeeping::WORKTREES_CHANGED,
            crate::tmux::options::bookkeeping::CHANGES,
        ],
    )
}

fn sessions_format() -> RowFormat {
    RowFormat::of(
        "S",
        &[
            "session_id",
            "session_name",
            "session_windows",
            "session_attached",
            "session_activity",
            "session_created",
            "session_path",
            super::options::session::TOKENS,
            super::options::session::TOKEN_SEQS,
            super::options::session::WORKTREE,
            "session_group",
            super::options::session::LABEL,
        ],
    )
}

fn windows_format() -> RowFormat {
    RowFormat::of(
        "W",
        &[
            "session_id",
            "window_id",
            "window_index",
            "window_name",
            "window_active",
            "window_panes",
            "window_zoomed_flag",
            "window_layout",
            "automatic-rename",
        ],
    )
}

/// Pane fields, with the agent options read in the same call.
fn panes_format() -> RowFormat {
    RowFormat::of(
        "P",
        &[
            "session_id",
            "window_id",
            "pane_id",
            "pane_index",
            "pane_active",
            "pane_title",
            "pane_current_path",
            "pane_current_command",
            "pane_pid",
            "pane_tty",
            "pane_in_mode",
            "pane_dead",
            "scroll_position",
            "history_size",
            "pane_width",
            "pane_height",
            pane_opt::AGENT_STATE,
            pane_opt::AGENT_KIND,
            pane_opt::AGENT_NAME,
            pane_opt::LABEL,
            pane_opt::META_TITLE,
            pane_opt::META_DISPLAY_AGENT,
            pane_opt::REVISION,
            "pane_pipe",
            pane_opt::WATCHER,
            pane_opt::FINAL_STATE,
            pane_opt::STATE_SEQ,
            pane_opt::STATE_SINCE,
            pane_opt::AGENT_SESSION,
            pane_opt::REPORTED_KIND,
            pane_opt::REPORTED_SOURCE,
            pane_opt::REPORTED_STATE,
            pane_opt::AGENT_PID,
            pane_opt::TURN,
            pane_opt::REPORTED_TURN,
            pane_opt::AGENT_KIND_HINT,
            pane_opt::RESTORE_ERROR,
            pane_opt::CONTAINER,
            pane_opt::SANDBOX_PROFILE,
            pane_opt::SANDBOX_RESUME,
            pane_opt::TOAST,
            pane_opt::META_STATE_LABELS,
            pane_opt::META_TOKENS,
        ],
    )
}

/// The pane fields a list of the server (the popup) does not show: what
/// is left out of its first read.
const UNLISTED: &[&str] = &[
    "pane_tty",
    "pane_in_mode",
    "pane_dead",
    "scroll_position",
    "history_size",
    pane_opt::REVISION,
    "pane_pipe",
    pane_opt::WATCHER,
    pane_opt::FINAL_STATE,
    pane_opt::STATE_SEQ,
    pane_opt::STATE_SINCE,
    pane_opt::AGENT_SESSION,
    pane_opt::REPORTED_KIND,
    pane_opt::REPORTED_SOURCE,
    pane_opt::REPORTED_STATE,
    pane_opt::AGENT_PID,
    pane_opt::TURN,
    pane_opt::REPORTED_TURN,
    pane_opt::AGENT_KIND_HINT,
    pane_opt::RESTORE_ERROR,
    pane_opt::CONTAINER,
    pane_opt::SANDBOX_PROFILE,
    pane_opt::SANDBOX_RESUME,
    pane_opt::TOAST,
];

/// The panes an agent list shows (see [`Snapshot::read_listed_with`]), as
/// a `list-panes -f` filter: an agent, or the active pane of a window in
/// front or holding an agent. Written with tmux's conditionals, which
/// expand only the branch taken (its `||` and `&&` expand both sides), so
/// the loop over the window's panes (`#{P:…}`) runs for the active pane
/// of a window behind alone, not for every pane: a quarter of tmux's time
/// at 500 panes in windows of five.
fn listed_filter() -> String {
    let kind = pane_opt::AGENT_KIND;
    let holds_agent = format!("#{{P:#{{{kind}}}}}");
    let window_shown = format!("#{{?window_active,1,{holds_agent}}}");
    format!("#{{?#{{{kind}}},1,#{{?pane_active,{window_shown},}}}}")
}

/// The rows `row` of a window's panes an agent list shows, as
/// [`listed_filter`] picks them, for a `#{W:…}` loop: whether the window
/// holds an agent is asked once a window instead of once a pane (a
/// window of five panes looped over its panes five times), and a window
/// with no agent, not in front, loops over none. A third of tmux's time
/// for a popup's listing at 500 panes.
fn listed_in_window(row: &str) -> String {
    let kind = pane_opt::AGENT_KIND;
    format!(
        "#{{?#{{P:#{{{kind}}}}},\
         #{{P:#{{?#{{||:#{{{kind}}},#{{pane_active}}}},{row},}}}},\
         #{{?window_active,#{{P:#{{?pane_active,{row},}}}},}}}}"
    )
}

/// [`panes_format`] with the [`UNLISTED`] fields empty: the same columns,
/// parsed the same way.
fn listed_panes_format() -> RowFormat {
    let mut format = panes_format();
    for field in &mut format.fields {
        if is_unlisted(field) {
            field.clear();
        }
    }
    format
}

/// [`panes_format`] without the [`UNLISTED`] fields at all: the listing's
/// pane rows, which must fit in one environment variable.
fn compact_panes_format() -> RowFormat {
    let mut format = panes_format();
    format.fields.retain(|field| !is_unlisted(field));
    format
}

fn is_unlisted(field: &str) -> bool {
    field
        .strip_prefix("#{")
        .and_then(|name| name.strip_suffix('}'))
        .is_some_and(|name| UNLISTED.contains(&name))
}

/// For each field of [`panes_format`], whether a listing leaves it out:
/// worked out once for a listing's rows, not once a row (the popup's
/// first frame waits on them).
fn unlisted_fields() -> Vec<bool> {
    panes_format()
        .fields
        .iter()
        .map(|field| is_unlisted(field))
        .collect()
}

/// A compact pane row ([`compact_panes_format`]) with the unlisted fields
/// (`unlisted`, from [`unlisted_fields`]) back in their places, empty: a
/// row [`pane_from`] reads.
fn widen_compact_pane(row: Row, unlisted: &[bool]) -> Row {
    if row.tag != "P" {
        return row;
    }
    let mut listed = row.fields.into_iter();
    let fields = unlisted
        .iter()
        .map(|&left_out| {
            if left_out {
                String::new()
            } else {
                listed.next().unwrap_or_default()
            }
        })
        .collect();
    Row {
        tag: row.tag,
        fields,
    }
}

/// How a listing starts, its version and then its nonce.
const LISTING_HEAD: &str = "\u{1d}taw-listing:1:";

fn listing_head(nonce: &str) -> String {
    format!("{LISTING_HEAD}{nonce}\u{1d}")
}

fn listing_mark(nonce: &str, name: &str) -> String {
    format!("\u{1d}{nonce}:{name}\u{1d}")
}

fn clients_format() -> RowFormat {
    RowFormat::of(
        "C",
        &["client_name", "session_id", "client_activity", "client_tty"],
    )
}

impl Snapshot {
    /// Reads the whole server in one tmux invocation.
    pub(crate) fn read(tmux: &Tmux) -> Result<Snapshot, TawError> {
        let (batch, formats) = Snapshot::commands();
        let output = tmux.run(&batch)?;
        Snapshot::parse(&output, &formats)
    }

    /// The snapshot and, in the same tmux invocation, what `more` prints,
    /// each command's output apart.
    pub(crate) fn read_with(
        tmux: &Tmux,
        more: Vec<Cmd>,
    ) -> Result<(Snapshot, Vec<String>), TawError> {
        let (batch, formats) = Snapshot::commands();
        let (rows, more) = rows_and_more(tmux, batch, more)?;
        Ok((Snapshot::parse(&rows, &formats)?, more))
    }

    /// [`Snapshot::read_with`] without the pane fields a list of the
    /// server does not show ([`UNLISTED`]: left empty, their defaults):
    /// what the popup's first frame reads, a whole read following it.
    /// Each field of each pane is tmux's work (its options looked up,
    /// `/proc` read), and the first frame waits on it. With
    /// `agents_and_active`, only the panes an agent list shows are read:
    /// agents, the active pane of a window that holds one (its row), and
    /// that of each session's active window (the session's preview, the
    /// client's pane); every session and window still is. A window with
    /// no agent has no row in such a list: its panes wait for the whole
    /// read.
    pub(crate) fn read_listed_with(
        tmux: &Tmux,
        more: Vec<Cmd>,
        agents_and_active: bool,
    ) -> Result<(Snapshot, Vec<String>), TawError> {
        let filter = listed_filter();
        let (batch, formats) = Snapshot::commands_of(
            listed_panes_format(),
            agents_and_active.then_some(filter.as_str()),
        );
        let (rows, more) = rows_and_more(tmux, batch, more)?;
        Ok((Snapshot::parse(&rows, &formats)?, more))
    }

    /// The popup's first read with no tmux client of its own: a format
    /// the popup's key has tmux expand (in the context of the client that
    /// pressed it) into the popup's environment, read back by
    /// [`Snapshot::from_listing`]. Its rows are an agent list's read
    /// ([`Snapshot::read_listed_with`]) with the unlisted pane fields left
    /// out, marked with `nonce`, and one client row, the one that pressed
    /// the key (tmux 3.3 has no loop over clients; the whole read after
    /// the first frame has them all); `more` (a format) is printed after
    /// the rows. A head naming the nonce and an end frame it, so a listing
    /// cut short is known.
    pub(crate) fn listing_format(nonce: &str, more: &str) -> String {
        let row = |format: RowFormat| format.format_marked(nonce);
        let panes = row(compact_panes_format());
        format!(
            "{head}{server}#{{S:{sessions}}}#{{S:#{{W:{windows}}}}}\
             #{{S:#{{W:{listed}}}}}{client}{more_mark}{more}{end}",
            head = listing_head(nonce),
            server = row(server_format()),
            sessions = row(sessions_format()),
            windows = row(windows_format()),
            listed = listed_in_window(&panes),
            client = row(clients_format()),
            more_mark = listing_mark(nonce, "more"),
            end = listing_mark(nonce, "end"),
        )
    }

    /// What a [`Snapshot::listing_format`] expanded to: the snapshot, and
    /// what its `more` printed. `None` for a listing cut short, of another
    /// version, or with a row taw cannot read (the popup then reads tmux).
    pub(crate) fn from_listing(text: &str) -> Option<(Snapshot, String)> {
        let rest = text.strip_prefix(LISTING_HEAD)?;
        let (nonce, rest) = rest.split_once('\u{1d}')?;
        if nonce.is_empty() || !nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let rest = rest.strip_suffix(&listing_mark(nonce, "end"))?;
        let (rows, more) = rest.rsplit_once(&listing_mark(nonce, "more"))?;
        let formats = [
            server_format(),
            sessions_format(),
            windows_format(),
            compact_panes_format(),
            clients_format(),
        ];
        let rows = parse_rows_marked(rows, &formats, nonce).ok()?;
        let unlisted = unlisted_fields();
        let rows: Vec<Row> = rows
            .into_iter()
            .map(|row| widen_compact_pane(row, &unlisted))
            .collect();
        Some((Snapshot::from_rows(&rows).ok()?, more.to_string()))
    }

    /// This snapshot with the rows of panes `ids` read again (what a
    /// watcher's look may change: its options, title, command; where each
    /// sits is kept), and, in the same tmux call, what `more` prints, each
    /// command's output apart. One call for a few panes, where a whole read
    /// lists every pane: what a look needs. A pane gone since is an error
    /// (tmux's), and the caller reads the whole server.
    pub(crate) fn with_panes_read(
        &self,
        tmux: &Tmux,
        ids: &[u32],
        more: Vec<Cmd>,
    ) -> Result<(Snapshot, Vec<String>), TawError> {
        let format = panes_format();
        let rows = format.format();
        let batch = Batch::of(
            ids.iter()
                .map(|id| super::commands::print_format_at(&format!("%{id}"), &rows))
                .collect(),
        );
        let (rows, more) = rows_and_more(tmux, batch, more)?;
        let fresh = Snapshot::parse(&rows, std::slice::from_ref(&format))?;
        let mut snapshot = self.clone();
        for new in &fresh.panes {
            for old in snapshot.panes.iter_mut().filter(|p| p.id == new.id) {
                *old = Pane {
                    session: old.session,
                    window: old.window,
                    index: old.index,
                    active: old.active,
                    ..new.clone()
                };
            }
        }
        Ok((snapshot, more))
    }

    /// What the records of one pane need, read for that pane alone: the
    /// server, every session (which one is focused), the pane's window and
    /// its row, and the clients. `display-message -t %N` expands each
    /// format in the pane's own context, so tmux's work does not grow with
    /// the server's other panes. `None` when tmux has no such pane, or when
    /// its window is linked into more than one session (which session's
    /// row answers is the whole read's to say).
    pub(crate) fn read_pane(tmux: &Tmux, pane: u32) -> Result<Option<Snapshot>, TawError> {
        let target = format!("%{pane}");
        let formats = [
            server_format(),
            sessions_format(),
            windows_format(),
            panes_format(),
            clients_format(),
        ];
        let mut batch = Batch::new();
        batch.push(Cmd::new("display-message").args(["-p", "--", &formats[0].format()]));
        batch.push(Cmd::new("list-sessions").args(["-F", &formats[1].format()]));
        for format in &formats[2..4] {
            batch.push(super::commands::print_format_at(&target, &format.format()));
        }
        batch.push(Cmd::new("list-clients").args(["-F", &formats[4].format()]));
        let linked = super::commands::print_format_at(&target, "#{pane_id} #{window_linked}");
        let (output, more) = match rows_and_more(tmux, batch, vec![linked]) {
            Ok(read) => read,
            Err(error) if super::is_pane_gone(&error) => return Ok(None),
            Err(error) => return Err(error),
        };
        // display-message prints for no pane at all when its target is not
        // there: the rows are then not the pane's.
        if more.first().map(|line| line.trim()) != Some(format!("{target} 0").as_str()) {
            return Ok(None);
        }
        Snapshot::parse(&output, &formats).map(Some)
    }

    fn commands() -> (Batch, [RowFormat; 5]) {
        Snapshot::commands_of(panes_format(), None)
    }

    /// The commands of a whole read, its panes in `panes`, and only those
    /// `pane_filter` (a tmux format) keeps.
    fn commands_of(panes: RowFormat, pane_filter: Option<&str>) -> (Batch, [RowFormat; 5]) {
        let formats = [
            server_format(),
            sessions_format(),
            windows_format(),
            panes,
            clients_format(),
        ];
        let mut batch = Batch::new();
        batch.push(Cmd::new("display-message").args(["-p", "--", &formats[0].format()]));
        batch.push(Cmd::new("list-sessions").args(["-F", &formats[1].format()]));
        let mut list_panes = Cmd::new("list-panes").args(["-a", "-F", &formats[3].format()]);
        if let Some(filter) = pane_filter {
            list_panes = list_panes.args(["-f", filter]);
        }
        batch.push(super::commands::when_any_session(&[
            Cmd::new("list-windows").args(["-a", "-F", &formats[2].format()]),
            list_panes,
            Cmd::new("list-clients").args(["-F", &formats[4].format()]),
        ]));
        (batch, formats)
    }

    fn parse(output: &str, formats: &[RowFormat]) -> Result<Snapshot, TawError> {
        let rows = parse_rows(output, formats).map_err(TawError::tmux)?;
        Snapshot::from_rows(&rows)
    }

    fn from_rows(rows: &[Row]) -> Result<Snapshot, TawError> {
        let mut snapshot = Snapshot::default();
        for row in rows {
            match row.tag.as_str() {
                "V" => snapshot.server = server_from(row),
                "S" => snapshot.sessions.push(session_from(row)?),
                "W" => snapshot.windows.push(window_from(row)?),
                "P" => snapshot.panes.push(pane_from(row)?),
                "C" => snapshot.clients.push(client_from(row)),
                _ => {}
            }
        }
        Ok(snapshot)
    }

    pub(crate) fn session(&self, id: u32) -> Option<&Session> {
        self.sessions.iter().find(|session| session.id == id)
    }

    /// Window `@window` as linked into session `$session`.
    pub(crate) fn window(&self, session: u32, window: u32) -> Option<&Window> {
        self.windows
            .iter()
            .find(|w| w.id == window && w.session == session)
    }

    /// The window of `session` with the highest number: where a new
    /// window goes after.
    pub(crate) fn last_window(&self, session: u32) -> Option<u32> {
        self.windows_of(session)
            .max_by_key(|w| w.index)
            .map(|w| w.id)
    }

    /// herdr's label of a tab: its name when it was given one, else its
    /// place in its session from 1. A name tmux keeps setting from the
    /// program in front is no name: a plugin that names tabs
    /// (herdr-automatic-rename) takes only a number for a tab of its own.
    pub(crate) fn tab_label(&self, window: &Window) -> String {
        if window.named {
            return window.name.clone();
        }
        self.windows_of(window.session)
            .position(|w| w.id == window.id)
            .map_or_else(|| window.name.clone(), |place| (place + 1).to_string())
    }

    /// The windows of a session, in index order.
    pub(crate) fn windows_of(&self, session: u32) -> impl Iterator<Item = &Window> {
        self.windows.iter().filter(move |w| w.session == session)
    }

    /// The panes of a window as linked into a session.
    pub(crate) fn panes_of(&self, session: u32, window: u32) -> impl Iterator<Item = &Pane> {
        self.panes
            .iter()
            .filter(move |p| p.session == session && p.window == window)
    }

    /// Every pane once: a window linked into several sessions lists its
    /// panes under each; the first (lowest session in tmux's order) counts.
    /// The attached client used last.
    pub(crate) fn last_client(&self) -> Option<&Client> {
        self.last_client_on(None)
    }

    /// The row of pane `id` in the session a person sees it in: of the
    /// sessions that have it (grouped, or its window linked), the one a
    /// client showing it used last; else the first.
    pub(crate) fn pane_as_seen(&self, id: u32) -> Option<&Pane> {
        let rows: Vec<&Pane> = self.panes.iter().filter(|p| p.id == id).collect();
        let seen = self
            .clients
            .iter()
            .filter(|client| rows.iter().any(|row| Some(row.session) == client.session))
            .max_by_key(|client| client.activity)
            .and_then(|client| rows.iter().find(|row| Some(row.session) == client.session));
        seen.or(rows.first()).copied()
    }

    /// The attached client used last, of those showing `session` when one
    /// is named.
    pub(crate) fn last_client_on(&self, session: Option<u32>) -> Option<&Client> {
        self.clients
            .iter()
            .filter(|client| client.session.is_some())
            .filter(|client| session.is_none() || client.session == session)
            .max_by_key(|client| client.activity)
    }

    /// The pane a client shows: its session's current window's current pane.
    pub(crate) fn client_pane(&self, client: &Client) -> Option<&Pane> {
        let session = client.session?;
        let window = self
            .windows
            .iter()
            .find(|w| w.session == session && w.active)?;
        self.panes
            .iter()
            .find(|p| p.session == session && p.window == window.id && p.active)
    }

    pub(crate) fn unique_panes(&self) -> Vec<&Pane> {
        let mut seen = std::collections::HashSet::new();
        self.panes.iter().filter(|p| seen.insert(p.id)).collect()
    }

    /// The session a person is looking at: the one of the client used
    /// last, else (no client attached) the session tmux itself would pick,
    /// the one used last.
    pub(crate) fn focused_session(&self) -> Option<u32> {
        let from_client = self.last_client().and_then(|client| client.session);
        from_client.or_else(|| {
            self.sessions
                .iter()
                .max_by_key(|session| (session.activity, session.id))
                .map(|session| session.id)
        })
    }

    /// The current window of a session.
    pub(crate) fn active_window(&self, session: u32) -> Option<&Window> {
        self.windows_of(session).find(|w| w.active)
    }

    /// The current pane of a window.
    pub(crate) fn active_pane(&self, session: u32, window: u32) -> Option<&Pane> {
        self.panes_of(session, window).find(|p| p.active)
    }

    /// The pane a person is looking at.
    pub(crate) fn focused_pane(&self) -> Option<&Pane> {
        let session = self.focused_session()?;
        let window = self.active_window(session)?;
        self.active_pane(session, window.id)
    }

    /// Finds a pane by tmux id, preferring its row under `session` when the
    /// window is linked into more than one.
    pub(crate) fn pane(&self, id: u32, session: Option<u32>) -> Option<&Pane> {
        let mut rows = self.panes.iter().filter(|p| p.id == id);
        match session {
            Some(session) => rows.find(|p| p.session == session),
            None => rows.next(),
        }
    }

    pub(crate) fn pane_ref(&self, reference: ids::PaneRef) -> Option<&Pane> {
        match reference {
            ids::PaneRef::Pane(id) => self.pane(id, None),
            ids::PaneRef::InWorkspace { session, pane } => self.pane(pane, Some(session)),
        }
    }
}

fn server_from(row: &Row) -> Server {
    Server {
        pid: number(row.get(0)),
        socket_path: row.get(1).to_string(),
        host: row.get(2).to_string(),
        host_short: row.get(3).to_string(),
        version: row.get(4).to_string(),
        start_time: number(row.get(5)),
        left: row.get(6).to_string(),
        walk: row.get(7).to_string(),
        entered: row.get(8).to_string(),
        worktrees_changed: row.get(9).to_string(),
        changes: row.get(10).parse().ok(),
    }
}

fn session_from(row: &Row) -> Result<Session, TawError> {
    Ok(Session {
        id: id_of(row.get(0), '$')?,
        name: row.get(1).to_string(),
        window_count: number(row.get(2)),
        attached: number(row.get(3)),
        activity: number(row.get(4)),
        created: number(row.get(5)),
        path: row.get(6).to_string(),
        tokens: row.get(7).to_string(),
        token_seqs: row.get(8).to_string(),
        worktree: row.get(9).to_string(),
        group: row.get(10).to_string(),
        kept_label: row.get(11).to_string(),
    })
}

fn window_from(row: &Row) -> Result<Window, TawError> {
    Ok(Window {
        session: id_of(row.get(0), '$')?,
        id: id_of(row.get(1), '@')?,
        index: row.get(2).parse().unwrap_or(0),
        name: row.get(3).to_string(),
        active: flag(row.get(4)),
        pane_count: number(row.get(5)),
        zoomed: flag(row.get(6)),
        layout: row.get(7).to_string(),
        named: !flag(row.get(8)),
    })
}

fn pane_from(row: &Row) -> Result<Pane, TawError> {
    Ok(Pane {
        session: id_of(row.get(0), '$')?,
        window: id_of(row.get(1), '@')?,
        id: id_of(row.get(2), '%')?,
        index: row.get(3).parse().unwrap_or(0),
        active: flag(row.get(4)),
        title: row.get(5).to_string(),
        current_path: crate::paths::folder_as_said(row.get(6)),
        current_command: row.get(7).to_string(),
        pid: number(row.get(8)),
        tty: row.get(9).to_string(),
        in_mode: flag(row.get(10)),
        dead: flag(row.get(11)),
        scroll_position: row.get(12).parse().ok(),
        history_size: number(row.get(13)),
        width: number(row.get(14)),
        height: number(row.get(15)),
        agent_state: row.get(16).to_string(),
        agent_kind: row.get(17).to_string(),
        agent_name: row.get(18).to_string(),
        label: row.get(19).to_string(),
        meta_title: row.get(20).to_string(),
        meta_display_agent: row.get(21).to_string(),
        revision: number(row.get(22)),
        pipe: flag(row.get(23)),
        watcher: row.get(24).to_string(),
        final_state: row.get(25).to_string(),
        state_seq: number(row.get(26)),
        state_since: number(row.get(27)),
        agent_session: row.get(28).to_string(),
        reported_kind: row.get(29).to_string(),
        reported_source: row.get(30).to_string(),
        reported_state: row.get(31).to_string(),
        agent_pid: row.get(32).to_string(),
        turn: row.get(33).to_string(),
        reported_turn: row.get(34).to_string(),
        kind_hint: row.get(35).to_string(),
        restore_error: row.get(36).to_string(),
        container: row.get(37).to_string(),
        sandbox_profile: row.get(38).to_string(),
        sandbox_resume: row.get(39).to_string(),
        toast: row.get(40).to_string(),
        meta_state_labels: row.get(41).to_string(),
        meta_tokens: row.get(42).to_string(),
    })
}

fn client_from(row: &Row) -> Client {
    Client {
        name: row.get(0).to_string(),
        session: ids::tmux_number(row.get(1), '$'),
        activity: number(row.get(2)),
        tty: row.get(3).to_string(),
    }
}

fn id_of(text: &str, sigil: char) -> Result<u32, TawError> {
    ids::tmux_number(text, sigil)
        .ok_or_else(|| TawError::tmux(format!("tmux printed {text:?} where an id was expected")))
}

fn number<T: std::str::FromStr + Default>(text: &str) -> T {
    text.trim().parse().unwrap_or_default()
}

fn flag(text: &str) -> bool {
    // tmux prints a flag option as 1 or 0; `on` read the same, in case.
    text == "1" || text == "on"
}

/// Runs `batch` (rows of a snapshot's formats) and then `more`, in one tmux
/// invocation: the rows' text, and each command of `more`'s output apart.
fn rows_and_more(
    tmux: &Tmux,
    mut batch: Batch,
    more: Vec<Cmd>,
) -> Result<(String, Vec<String>), TawError> {
    let count = more.len();
    for (index, cmd) in more.into_iter().enumerate() {
        batch.push(super::commands::print_format(
            &super::format::section_marker(index),
        ));
        batch.push(cmd);
    }
    let output = tmux.run(&batch)?;
    // The rows come before the first marker.
    let first = super::format::section_marker(0);
    let (rows, rest) = match output.find(&format!("{first}\n")) {
        Some(at) if count > 0 => output.split_at(at),
        _ => (output.as_str(), ""),
    };
    Ok((rows.to_string(), super::format::split_sections(rest, count)))
}

/// Sessions, windows and panes for the tests of what reads a snapshot.
#[cfg(test)]
pub(crate) mod fixture {
    use super::{Client, Pane, Session, Snapshot, Window};

    /// A small server for the tests of what an operation plans:
    /// workspace `$1` "api" with tab `@1` split in two (`%1` left, active,
    /// `%2` right) and tab `@2` (`%3`, a Claude agent, done), workspace
    /// `$2` "web" with tab `@3` (`%4`); client `/dev/pts/1` shows `$1`.
    pub(crate) fn server() -> Snapshot {
        let mut split = window(1, 1, "editor");
        split.pane_count = 2;
        split.layout = "c0de,80x24,0,0{40x24,0,0,1,39x24,41,0,2}".into();
        let mut second = window(1, 2, "agent");
        second.active = false;
        second.layout = "c0de,80x24,0,0,3".into();
        let mut web = window(2, 3, "shell");
        web.layout = "c0de,80x24,0,0,4".into();
        let mut api = session(1, "api");
        api.window_count = 2;
        api.attached = 1;
        let mut right = pane(1, 1, 2, "", "", "");
        right.active = false;
        Snapshot {
            sessions: vec![api, session(2, "web")],
            windows: vec![split, second, web],
            panes: vec![
                pane(1, 1, 1, "", "", ""),
                right,
                pane(1, 2, 3, "claude", "done", "claude"),
                pane(2, 3, 4, "", "", ""),
            ],
            clients: vec![Client {
                name: "/dev/pts/1".into(),
                session: Some(1),
                activity: 1,
                tty: "/dev/pts/1".into(),
            }],
            ..Snapshot::default()
        }
    }

    pub(crate) fn session(id: u32, name: &str) -> Session {
        Session {
            id,
            name: name.into(),
            window_count: 1,
            attached: 0,
            activity: 0,
            created: 0,
            path: format!("/home/u/{name}"),
            tokens: String::new(),
            token_seqs: String::new(),
            worktree: String::new(),
            group: String::new(),
            kept_label: String::new(),
        }
    }

    pub(crate) fn window(session: u32, id: u32, name: &str) -> Window {
        Window {
            session,
            id,
            index: id as i64,
            name: name.into(),
            active: true,
            pane_count: 1,
            zoomed: false,
            layout: String::new(),
            named: true,
        }
    }

    /// A pane; an agent's when `kind` is not empty.
    pub(crate) fn pane(
        session: u32,
        window: u32,
        id: u32,
        kind: &str,
        state: &str,
        name: &str,
    ) -> Pane {
        Pane {
            session,
            window,
            id,
            active: true,
            agent_kind: kind.into(),
            agent_state: state.into(),
            agent_name: name.into(),
            current_command: "zsh".into(),
            ..Pane::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pane_is_seen_in_the_session_its_client_shows() {
        let mut snapshot = fixture::server();
        // `%4` in `$1` too (a grouped session's row of it).
        let mut again = snapshot.pane(4, None).unwrap().clone();
        again.session = 1;
        snapshot.panes.push(again);
        // The client shows `$1`: that row, not the first.
        assert_eq!(snapshot.pane_as_seen(4).unwrap().session, 1);
        snapshot.clients[0].session = Some(2);
        assert_eq!(snapshot.pane_as_seen(4).unwrap().session, 2);
        // No client shows it: the first row.
        snapshot.clients.clear();
        assert_eq!(snapshot.pane_as_seen(4).unwrap().session, 2);
        assert!(snapshot.pane_as_seen(99).is_none());
    }

    /// herdr's tab label: a name given by hand, else the tab's place in
    /// its session from 1 (never tmux's index, never the program's name).
    #[test]
    fn a_tab_is_labelled_by_its_given_name_else_its_place() {
        let unnamed = |session, id, index, name: &str| Window {
            index,
            named: false,
            ..fixture::window(session, id, name)
        };
        let snapshot = Snapshot {
            windows: vec![
                unnamed(0, 0, 0, "bash"),
                Window {
                    index: 3,
                    ..fixture::window(0, 3, "logs")
                },
                unnamed(0, 5, 7, "claude"),
                unnamed(1, 2, 1, "zsh"),
            ],
            ..Snapshot::default()
        };
        let labels: Vec<String> = snapshot
            .windows
            .iter()
            .map(|w| snapshot.tab_label(w))
            .collect();
        assert_eq!(labels, ["1", "logs", "3", "1"]);
    }

    #[test]
    fn the_listed_filter_reads_agents_and_the_active_panes_shown() {
        assert_eq!(
            listed_filter(),
            "#{?#{@agent_kind},1,#{?pane_active,#{?window_active,1,#{P:#{@agent_kind}}},}}"
        );
    }

    /// What tmux prints for `format` marked with `nonce`: each field's
    /// value as `value` gives it for the field's expression.
    fn printed(format: &RowFormat, nonce: &str, value: &dyn Fn(&str) -> String) -> String {
        let mut row = format.format_marked(nonce);
        for field in &format.fields {
            row = row.replacen(field.as_str(), &value(field), 1);
        }
        row
    }

    /// A listing as the key's tmux would expand it: a session, a window,
    /// two panes (one an agent with a hostile title), the client.
    fn listing(nonce: &str) -> String {
        let value = |field: &str| -> String {
            match field {
                "#{session_id}" => "$3".into(),
                "#{window_id}" => "@4".into(),
                "#{session_name}" => "main".into(),
                "#{pid}" => "77".into(),
                "#{client_name}" => "/dev/pts/9".into(),
                _ => String::new(),
            }
        };
        let pane = |id: &'static str, title: &'static str, kind: &'static str| {
            move |field: &str| -> String {
                match field {
                    "#{pane_id}" => id.into(),
                    "#{pane_title}" => title.into(),
                    "#{@agent_kind}" => kind.into(),
                    "#{@agent_state}" if !kind.is_empty() => "blocked".into(),
                    _ => value(field),
                }
            }
        };
        let mut text = listing_head(nonce);
        text += &printed(&server_format(), nonce, &value);
        text += &printed(&sessions_format(), nonce, &value);
        text += &printed(&windows_format(), nonce, &value);
        let panes = compact_panes_format();
        text += &printed(&panes, nonce, &pane("%5", "a\tb, #{c} }\u{1d}", "claude"));
        text += &printed(&panes, nonce, &pane("%6", "", ""));
        text += &printed(&clients_format(), nonce, &value);
        text += &listing_mark(nonce, "more");
        text += "C-b\t\t\ta";
        text += &listing_mark(nonce, "end");
        text
    }

    #[test]
    fn a_listing_reads_back_as_the_snapshot_it_lists() {
        let (snapshot, more) = Snapshot::from_listing(&listing("0a1b2c3d")).unwrap();
        assert_eq!(more, "C-b\t\t\ta");
        assert_eq!(snapshot.server.pid, 77);
        assert_eq!(snapshot.sessions.len(), 1);
        assert_eq!(snapshot.sessions[0].name, "main");
        assert_eq!(snapshot.windows.len(), 1);
        let ids: Vec<u32> = snapshot.panes.iter().map(|p| p.id).collect();
        assert_eq!(ids, [5, 6]);
        let agent = &snapshot.panes[0];
        assert_eq!(agent.title, "a\tb, #{c} }\u{1d}");
        assert_eq!(agent.agent_kind, "claude");
        assert_eq!(agent.agent_state, "blocked");
        assert_eq!(snapshot.clients.len(), 1);
        assert_eq!(snapshot.clients[0].name, "/dev/pts/9");
    }

    #[test]
    fn the_listing_leaves_out_every_unlisted_field_and_no_other() {
        assert!(is_unlisted("#{pane_tty}"));
        assert!(!is_unlisted("#{pane_id}"));
        assert!(!is_unlisted("pane_tty"));
        let left_out = unlisted_fields().iter().filter(|&&out| out).count();
        assert_eq!(left_out, UNLISTED.len());
        assert_eq!(
            compact_panes_format().fields.len() + left_out,
            panes_format().fields.len()
        );
    }

    #[test]
    fn a_listing_cut_short_or_of_another_kind_is_not_read() {
        let whole = listing("0a1b2c3d");
        // Cut short (a variable tmux could not hold whole).
        assert!(Snapshot::from_listing(&whole[..whole.len() - 3]).is_none());
        // Another version of the listing.
        let other = whole.replacen("taw-listing:1:", "taw-listing:2:", 1);
        assert!(Snapshot::from_listing(&other).is_none());
        // A head whose nonce is not the rows'.
        let forged = whole.replacen("0a1b2c3d", "ffffffff", 1);
        assert!(Snapshot::from_listing(&forged).is_none());
        assert!(Snapshot::from_listing("").is_none());
    }

    #[test]
    fn the_listing_asks_for_the_listed_rows_in_tmuxs_loops() {
        let format = Snapshot::listing_format("0a1b2c3d", "#{prefix}");
        assert!(format.starts_with(&listing_head("0a1b2c3d")), "{format}");
        assert!(format.ends_with(&format!("#{{prefix}}{}", listing_mark("0a1b2c3d", "end"))));
        // Panes only where an agent list shows them, with no unlisted field.
        let row = compact_panes_format().format_marked("0a1b2c3d");
        assert!(format.contains(&format!("#{{S:#{{W:{}}}}}", listed_in_window(&row))));
        assert!(!format.contains("#{pane_tty}"));
        assert!(format.contains("#{S:#{W:W"));
    }

    #[test]
    fn the_listed_read_leaves_out_only_unlisted_fields_in_their_places() {
        let whole = panes_format();
        let listed = listed_panes_format();
        assert_eq!(whole.fields.len(), listed.fields.len());
        let left_out = listed.fields.iter().filter(|f| f.is_empty()).count();
        // Every name is one of the whole read's fields.
        assert_eq!(left_out, UNLISTED.len());
        for (whole, listed) in whole.fields.iter().zip(&listed.fields) {
            assert!(listed.is_empty() || listed == whole);
        }
    }
}
