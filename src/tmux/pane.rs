//! One pane: a look at it (its screen and what surrounds it, in one tmux
//! call), writing its options, and the watcher's pipe.

use super::commands::{self as cmd, Cmd, ShellWord};
use super::format::{Row, RowFormat, parse_rows};
use super::ids;
use super::options::{bookkeeping, pane as opt};
use super::{Batch, Tmux};
use crate::envelope::TawError;
use std::collections::HashMap;

/// A pane's size, cursor, scroll region and screen: what a capture's
/// plain text does not carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub width: u16,
    pub height: u16,
    pub cursor_x: u16,
    pub cursor_y: u16,
    /// The alternate screen is in front.
    pub alternate: bool,
    pub scroll_upper: u16,
    pub scroll_lower: u16,
}

/// What a look at a pane found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PaneView {
    pub pid: u32,
    pub title: String,
    pub current_command: String,
    pub in_mode: bool,
    pub dead: bool,
    pub session_name: String,
    pub window_index: String,
    pub window_name: String,
    /// What the pane's options say now.
    pub agent_kind: String,
    pub agent_state: String,
    pub agent_pid: String,
    pub config_stamp: String,
    /// What an integration reported.
    pub reported_kind: String,
    pub reported_state: String,
    pub reported_source: String,
    pub reported_turn: String,
    pub state_seq: u64,
    /// What `taw agent start` left: the kind it typed, the line it typed.
    pub kind_hint: String,
    pub typed_line: String,
    pub typed_command: String,
    /// The pane's label and the metadata reported for it (title, display
    /// name, state labels, tokens), joined: a change of it is pane.updated.
    pub described: String,
    /// The container the watcher last recorded, and the profile `taw
    /// sandbox` ran.
    pub container: String,
    pub sandbox_profile: String,
    /// The visible screen, plain text.
    pub screen: String,
    /// Attached clients: name and the pane in front of each.
    pub clients: Vec<(String, u32)>,
    /// The pane's terminal (`/dev/pts/N`).
    pub tty: String,
    /// Its size, cursor and screen, for a mirror seeded from `screen`.
    pub geometry: Geometry,
}

impl PaneView {
    /// Whether a client shows this pane as its current pane.
    pub(crate) fn looked_at(&self, pane: u32) -> bool {
        self.clients.iter().any(|(_, front)| *front == pane)
    }
}

impl PaneView {
    /// Takes in what a write of the watcher's own changed, so a view kept
    /// from an earlier look stays what tmux would now say.
    pub(crate) fn take_in(&mut self, writes: &OptionWrites) {
        let sets = writes
            .set
            .iter()
            .map(|(name, value)| (*name, value.as_str()));
        let unsets = writes.unset.iter().map(|name| (*name, ""));
        for (name, value) in sets.chain(unsets) {
            let field = match name {
                opt::AGENT_KIND => &mut self.agent_kind,
                opt::AGENT_STATE => &mut self.agent_state,
                opt::AGENT_PID => &mut self.agent_pid,
                opt::REPORTED_KIND => &mut self.reported_kind,
                opt::REPORTED_STATE => &mut self.reported_state,
                opt::REPORTED_SOURCE => &mut self.reported_source,
                opt::REPORTED_TURN => &mut self.reported_turn,
                opt::AGENT_KIND_HINT => &mut self.kind_hint,
                opt::TYPED_LINE => &mut self.typed_line,
                opt::TYPED_COMMAND => &mut self.typed_command,
                opt::CONTAINER => &mut self.container,
                opt::SANDBOX_PROFILE => &mut self.sandbox_profile,
                opt::STATE_SEQ => {
                    self.state_seq = value.parse().unwrap_or(0);
                    continue;
                }
                _ => continue,
            };
            *field = value.to_string();
        }
    }
}

fn view_format() -> RowFormat {
    RowFormat::of(
        "V",
        &[
            "pane_id",
            "pane_pid",
            "pane_title",
            "pane_current_command",
            "pane_in_mode",
            "pane_dead",
            "session_name",
            "window_index",
            "window_name",
            opt::AGENT_KIND,
            opt::AGENT_STATE,
            opt::AGENT_PID,
            bookkeeping::CONFIG_STAMP,
            opt::REPORTED_KIND,
            opt::REPORTED_STATE,
            opt::REPORTED_SOURCE,
            opt::REPORTED_TURN,
            opt::STATE_SEQ,
            opt::AGENT_KIND_HINT,
            opt::TYPED_LINE,
            opt::TYPED_COMMAND,
            opt::LABEL,
            opt::META_TITLE,
            opt::META_DISPLAY_AGENT,
            opt::CONTAINER,
            opt::SANDBOX_PROFILE,
            opt::META_STATE_LABELS,
            opt::META_TOKENS,
            "pane_tty",
            "pane_width",
            "pane_height",
            "cursor_x",
            "cursor_y",
            "alternate_on",
            "scroll_region_upper",
            "scroll_region_lower",
        ],
    )
}

fn clients_format() -> RowFormat {
    RowFormat::of("C", &["client_name", "pane_id", "client_session"])
}

/// Looks at pane `%pane`: its screen, title, command, options and clients.
pub(crate) fn look(tmux: &Tmux, pane: u32) -> Result<PaneView, TawError> {
    let target = format!("%{pane}");
    let view_format = view_format();
    let clients_format = clients_format();
    let sections = tmux.run_apart(vec![
        Cmd::new("display-message").args(["-p", "-t", &target, "--", &view_format.format()]),
        Cmd::new("capture-pane").args(["-p", "-t", &target]),
        Cmd::new("list-clients").args(["-F", &clients_format.format()]),
    ])?;
    let rows =
        parse_rows(&sections[0], std::slice::from_ref(&view_format)).map_err(TawError::tmux)?;
    // display-message describes another pane when its target has gone.
    let row = rows
        .first()
        .filter(|row| row.get(0) == target)
        .ok_or_else(|| TawError::not_found(format!("pane {target} is gone")))?;
    let clients = parse_rows(&sections[2], std::slice::from_ref(&clients_format))
        .map_err(TawError::tmux)?
        .iter()
        .filter(|client| !client.get(2).is_empty())
        .filter_map(|client| {
            Some((
                client.get(0).to_string(),
                ids::tmux_number(client.get(1), '%')?,
            ))
        })
        .collect();
    let mut view = view_of_row(row);
    view.screen = sections[1].clone();
    view.clients = clients;
    Ok(view)
}

/// Every pane's view but its screen and clients, with its pipe and the
/// watcher's announcement, in one call: what a watcher that takes many
/// panes at once starts each from.
pub(crate) fn views(tmux: &Tmux) -> Result<HashMap<u32, (PipeState, PaneView)>, TawError> {
    let mut format = view_format();
    format.fields.extend(
        ["pane_dead", "pane_pipe", opt::WATCHER]
            .iter()
            .map(|name| format!("#{{{name}}}")),
    );
    let listed = list_all_panes(tmux, &format.format())?;
    let rows = parse_rows(&listed, std::slice::from_ref(&format)).map_err(TawError::tmux)?;
    let extra = format.fields.len() - 3;
    Ok(rows
        .iter()
        .filter_map(|row| {
            let id = ids::tmux_number(row.get(0), '%')?;
            let state = PipeState {
                id,
                dead: row.get(extra) == "1",
                pipe: row.get(extra + 1) == "1",
                watcher: row.get(extra + 2).to_string(),
            };
            Some((id, (state, view_of_row(row))))
        })
        .collect())
}

/// Every pane in `format`, a line each (none with no session yet).
fn list_all_panes(tmux: &Tmux, format: &str) -> Result<String, TawError> {
    tmux.run_one(super::commands::list_all_panes(format))
}

/// A view from a row of [`view_format`] (its screen and clients empty).
fn view_of_row(row: &Row) -> PaneView {
    let field = |index: usize| row.get(index + 1);
    PaneView {
        pid: field(0).parse().unwrap_or(0),
        title: field(1).to_string(),
        current_command: field(2).to_string(),
        in_mode: field(3) == "1",
        dead: field(4) == "1",
        session_name: field(5).to_string(),
        window_index: field(6).to_string(),
        window_name: field(7).to_string(),
        agent_kind: field(8).to_string(),
        agent_state: field(9).to_string(),
        agent_pid: field(10).to_string(),
        config_stamp: field(11).to_string(),
        reported_kind: field(12).to_string(),
        reported_state: field(13).to_string(),
        reported_source: field(14).to_string(),
        reported_turn: field(15).to_string(),
        state_seq: field(16).parse().unwrap_or(0),
        kind_hint: field(17).to_string(),
        typed_line: field(18).to_string(),
        typed_command: field(19).to_string(),
        described: [field(20), field(21), field(22), field(25), field(26)].join("\u{1f}"),
        container: field(23).to_string(),
        sandbox_profile: field(24).to_string(),
        screen: String::new(),
        clients: Vec::new(),
        tty: field(27).to_string(),
        geometry: Geometry {
            width: field(28).parse().unwrap_or(0),
            height: field(29).parse().unwrap_or(0),
            cursor_x: field(30).parse().unwrap_or(0),
            cursor_y: field(31).parse().unwrap_or(0),
            alternate: field(32) == "1",
            scroll_upper: field(33).parse().unwrap_or(0),
            scroll_lower: field(34).parse().unwrap_or(0),
        },
    }
}

/// The values of options (or any format variables) of pane `%pane`, in
/// the order asked; `not_found` when the pane is not there.
/// The active pane of the window that pane `%pane` is in: a select-pane
/// that moved the focus from `%pane` (`select-pane -L -t %pane`) names
/// `%pane` in its hook.
pub(crate) fn active_pane_beside(tmux: &Tmux, pane: u32) -> Option<u32> {
    let output = tmux
        .run_one(Cmd::new("display-message").args([
            "-p",
            "-t",
            &format!("%{pane}"),
            "--",
            "#{P:#{?pane_active,#{pane_id},}}",
        ]))
        .ok()?;
    ids::tmux_number(output.trim(), '%')
}

pub(crate) fn read_values(tmux: &Tmux, pane: u32, names: &[&str]) -> Result<Vec<String>, TawError> {
    let target = format!("%{pane}");
    // display-message falls back to another pane when its target is gone,
    // so the row says which pane it describes.
    let mut asked = vec!["pane_id"];
    asked.extend_from_slice(names);
    let format = RowFormat::of("R", &asked);
    let output = tmux
        .run_one(Cmd::new("display-message").args(["-p", "-t", &target, "--", &format.format()]))
        .map_err(|error| pane_gone(error, &target))?;
    let rows = parse_rows(&output, std::slice::from_ref(&format)).map_err(TawError::tmux)?;
    match rows.into_iter().next() {
        Some(row) if row.get(0) == target => Ok(row.fields[1..].to_vec()),
        _ => Err(TawError::not_found(format!(
            "pane {target} not found; `taw pane list` shows the panes"
        ))),
    }
}

/// Pane option writes, all in one tmux call.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct OptionWrites {
    pub set: Vec<(&'static str, String)>,
    pub unset: Vec<&'static str>,
}

impl OptionWrites {
    /// Sets an option; the last word about a name wins.
    pub(crate) fn set(&mut self, name: &'static str, value: impl Into<String>) -> &mut Self {
        self.unset.retain(|n| *n != name);
        self.set.retain(|(n, _)| *n != name);
        self.set.push((name, value.into()));
        self
    }

    /// Takes an option off; the last word about a name wins.
    pub(crate) fn unset(&mut self, name: &'static str) -> &mut Self {
        self.set.retain(|(n, _)| *n != name);
        if !self.unset.contains(&name) {
            self.unset.push(name);
        }
        self
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.set.is_empty() && self.unset.is_empty()
    }

    pub(crate) fn commands(&self, pane: u32) -> Vec<Cmd> {
        self.commands_at(&format!("%{pane}"))
    }

    /// The writes to the pane `target` names (`@window.index`: a pane
    /// whose id is not known yet).
    pub(crate) fn commands_at(&self, target: &str) -> Vec<Cmd> {
        let mut cmds: Vec<Cmd> = self
            .set
            .iter()
            .map(|(name, value)| {
                Cmd::new("set-option").args(["-p", "-t", target, "--", name, value.as_str()])
            })
            .collect();
        cmds.extend(
            self.unset
                .iter()
                .map(|name| Cmd::new("set-option").args(["-pu", "-t", target, "--", name])),
        );
        cmds
    }
}

/// Writes pane options in one call.
pub(crate) fn write_options(tmux: &Tmux, pane: u32, writes: &OptionWrites) -> Result<(), TawError> {
    if writes.is_empty() {
        return Ok(());
    }
    tmux.run(&Batch::of(writes.commands(pane)))?;
    Ok(())
}

/// `display-message -c CLIENT -d MS MESSAGE` on each client, text shown as
/// it is, for `ms` milliseconds (0: tmux's own `display-time`).
pub(crate) fn toast(
    tmux: &Tmux,
    clients: &[String],
    message: &str,
    ms: u32,
) -> Result<(), TawError> {
    let cmds: Vec<Cmd> = clients
        .iter()
        .map(|client| match ms {
            0 => Cmd::new("display-message").args([
                "-c",
                client,
                "--",
                &cmd::escape_message(message),
            ]),
            ms => cmd::show_message_for(client, ms, message),
        })
        .collect();
    if cmds.is_empty() {
        return Ok(());
    }
    tmux.run(&Batch::of(cmds))?;
    Ok(())
}

/// `pipe-pane -O -t %N 'LINE'`: the pane's output goes to the command,
/// and the watcher's announcement goes on the pane in the same step.
/// Without `restart`, both are done only where no pipe is, tested by tmux
/// in the same step (`if-shell -F`), so a pipe someone opened meanwhile
/// (tmux-logging's) is never replaced. (`pipe-pane -o` would not do: it
/// closes a pipe that is there.) `restart` closes the pipe first.
pub(crate) fn pipe_commands(
    pane: u32,
    words: &[ShellWord],
    announcement: &str,
    restart: bool,
) -> Vec<Cmd> {
    let target = format!("%{pane}");
    let line = cmd::shell_line(words);
    let open = [
        Cmd::new("pipe-pane").args(["-O", "-t", &target, &line]),
        Cmd::new("set-option").args(["-p", "-t", &target, "--", opt::WATCHER, announcement]),
    ];
    if restart {
        let mut cmds = vec![Cmd::new("pipe-pane").args(["-t", &target])];
        cmds.extend(open);
        cmds
    } else {
        vec![Cmd::new("if-shell").args([
            "-F",
            "-t",
            &target,
            "#{?pane_pipe,0,1}",
            &cmd::command_string(&open),
        ])]
    }
}

/// A pane's pipe, as a watcher's attach needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PipeState {
    pub id: u32,
    pub dead: bool,
    /// tmux pipes its output somewhere.
    pub pipe: bool,
    /// `@agent_wizard_watcher`: who piped it, if taw did.
    pub watcher: String,
}

/// Every pane's pipe and watcher announcement, each pane once (a linked
/// window lists its panes in every session), in one call: a server of
/// 500 panes answers it in a fraction of a whole read's time.
pub(crate) fn pipes(tmux: &Tmux) -> Result<Vec<PipeState>, TawError> {
    let format = format!(
        "#{{pane_id}} #{{pane_dead}} #{{pane_pipe}} #{{{}}}",
        opt::WATCHER
    );
    let listed = list_all_panes(tmux, &format)?;
    let mut seen = std::collections::HashSet::new();
    Ok(listed
        .lines()
        .filter_map(|line| {
            let mut words = line.splitn(4, ' ');
            let id = ids::tmux_number(words.next()?, '%')?;
            let dead = words.next()? == "1";
            let pipe = words.next()? == "1";
            let watcher = words.next().unwrap_or("").to_string();
            Some(PipeState {
                id,
                dead,
                pipe,
                watcher,
            })
        })
        .filter(|state| seen.insert(state.id))
        .collect())
}

/// Takes a watcher's announcement off the pane if it is still `value` (a
/// watcher started after it keeps its own): one tmux command, so nothing
/// can come between the test and the removal.
pub(crate) fn retire_watcher(tmux: &Tmux, pane: u32, value: &str) -> Result<(), TawError> {
    let target = format!("%{pane}");
    let test = format!(
        "#{{==:#{{{}}},{}}}",
        opt::WATCHER,
        cmd::format_literal(value)
    );
    let unset = format!("set-option -pu -t {target} {}", opt::WATCHER);
    tmux.run_one(Cmd::new("if-shell").args(["-F", "-t", &target, &test, &unset]))?;
    Ok(())
}

/// What part of a pane's text to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadSource {
    /// The screen as it is.
    Visible,
    /// The last rows, history included.
    Recent,
    /// The same, with lines tmux wrapped joined again.
    RecentUnwrapped,
}

/// The pane's text: `rows` counts rows of history and screen for the recent
/// sources; `ansi` keeps colours and attributes as escape sequences.
pub(crate) fn capture(
    tmux: &Tmux,
    pane: u32,
    source: ReadSource,
    rows: usize,
    ansi: bool,
) -> Result<String, TawError> {
    let target = format!("%{pane}");
    tmux.run_one(capture_cmd(pane, source, rows, ansi))
        .map_err(|error| pane_gone(error, &target))
}

/// tmux's word that a pane is not there, as taw's `not_found`.
fn pane_gone(error: TawError, target: &str) -> TawError {
    if crate::tmux::is_pane_gone(&error) {
        TawError::not_found(format!(
            "pane {target} not found; `taw pane list` shows the panes"
        ))
    } else {
        error
    }
}

/// `capture-pane -p` of pane `%pane`: what [`capture`] runs, for a caller
/// that reads many panes in one call.
pub(crate) fn capture_cmd(pane: u32, source: ReadSource, rows: usize, ansi: bool) -> Cmd {
    let target = format!("%{pane}");
    let mut command = Cmd::new("capture-pane").args(["-p", "-t", &target]);
    if ansi {
        command = command.arg("-e");
    }
    match source {
        ReadSource::Visible => command,
        ReadSource::Recent => command.args(["-S", &format!("-{rows}")]),
        ReadSource::RecentUnwrapped => command.args(["-J", "-S", &format!("-{rows}")]),
    }
}

/// The rows `top` to `bottom` of a pane (0 the screen's first row, below
/// 0 its history), with the rows tmux wrapped joined again.
pub(crate) fn capture_joined(
    tmux: &Tmux,
    pane: u32,
    (top, bottom): (i64, i64),
    ansi: bool,
) -> Result<String, TawError> {
    let target = format!("%{pane}");
    let command = capture_cmd(pane, ReadSource::Visible, 0, ansi).args([
        "-J",
        "-S",
        &top.to_string(),
        "-E",
        &bottom.to_string(),
    ]);
    tmux.run_one(command)
        .map_err(|error| pane_gone(error, &target))
}

/// `send-keys`: keys in tmux's spelling.
pub(crate) fn send_keys(pane: u32, keys: &[String]) -> Cmd {
    let target = format!("%{pane}");
    Cmd::new("send-keys")
        .args(["-t", target.as_str(), "--"])
        .args(keys.iter().map(String::as_str))
}

/// A paste buffer of taw's own, named for this process and a count, so
/// no two sends share one. Its text is loaded from tmux's standard input
/// (`Tmux::run_with_input`): tmux never parses it, and it may be of any
/// size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Buffer {
    name: String,
}

impl Buffer {
    pub(crate) fn named() -> Buffer {
        static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Buffer {
            name: format!("taw-{}-{n}", std::process::id()),
        }
    }

    /// `load-buffer -b NAME -`: the buffer takes what comes on standard input.
    pub(crate) fn load(&self) -> Cmd {
        Cmd::new("load-buffer").args(["-b", &self.name, "-"])
    }

    /// `paste-buffer -d`: pasted into `pane` (bracketed when its program
    /// turned that on, with `bracketed`), and the buffer deleted.
    pub(crate) fn paste(&self, pane: u32, bracketed: bool) -> Cmd {
        let mut cmd = Cmd::new("paste-buffer");
        if bracketed {
            cmd = cmd.arg("-p");
        }
        cmd.args(["-d", "-b", &self.name, "-t", &format!("%{pane}")])
    }

    /// `paste-buffer -r -d`: the bytes as they are, as typing them would
    /// give them (no bracketed paste, newlines not turned into CR).
    pub(crate) fn paste_raw(&self, pane: u32) -> Cmd {
        Cmd::new("paste-buffer").args(["-r", "-d", "-b", &self.name, "-t", &format!("%{pane}")])
    }

    /// The paste, bracketed as the program asked, then Enter a moment
    /// later, as a hand would press it. Gemini CLI reads an Enter that
    /// comes within 30 ms of the last text as a newline typed into a paste,
    /// not a submission; tmux waits (`run-shell -d`, no shell run) without
    /// holding taw or the server.
    pub(crate) fn paste_then_enter(&self, pane: u32) -> Vec<Cmd> {
        vec![
            self.paste(pane, true),
            Cmd::new("run-shell").args(["-d", "0.1"]),
            Cmd::new("send-keys").args(["-t", &format!("%{pane}"), "Enter"]),
        ]
    }

    /// `delete-buffer`, for a paste that was held back.
    pub(crate) fn delete(&self) -> Cmd {
        Cmd::new("delete-buffer").args(["-b", &self.name])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_word_about_an_option_wins() {
        let mut writes = OptionWrites::default();
        writes
            .unset("@a")
            .set("@a", "1")
            .set("@b", "x")
            .unset("@b")
            .set("@c", "1")
            .set("@c", "2");
        assert_eq!(
            writes.set,
            vec![("@a", "1".to_string()), ("@c", "2".to_string())]
        );
        assert_eq!(writes.unset, vec!["@b"]);
    }
}
