//! Commands that make, close and arrange sessions, windows and panes.
//! Names a person gave (a label) are passed with `#` doubled: tmux expands
//! formats in new names.

use super::commands::{Cmd, escape_format};

/// What `-P -F` prints for a new pane: its session, window and pane ids.
pub(crate) const NEW_IDS: &str = "#{session_id} #{window_id} #{pane_id} #{pane_index}";

/// Where a new pane's process starts, and its environment.
#[derive(Debug, Clone, Default)]
pub(crate) struct Spawn {
    pub cwd: Option<String>,
    pub env: Vec<(String, String)>,
    /// A shell command line to run instead of the default shell.
    pub command: Option<String>,
}

impl Spawn {
    fn apply(&self, mut cmd: Cmd) -> Cmd {
        // tmux expands formats in -c: `#` is doubled.
        if let Some(cwd) = &self.cwd {
            cmd = cmd.args(["-c", &escape_format(cwd)]);
        }
        for (name, value) in &self.env {
            cmd = cmd.args(["-e", &format!("{name}={value}")]);
        }
        cmd
    }

    fn finish(&self, cmd: Cmd) -> Cmd {
        match &self.command {
            Some(command) => cmd.args(["--", command]),
            None => cmd,
        }
    }
}

/// What tmux makes of a session's name: `.` and `:` become `_`. And a
/// name taw makes from a folder is one tmux keeps as made: `$` and `\`
/// (which tmux would keep escaped, so `=name` found nothing) and control
/// characters become `-`.
pub(crate) fn session_name(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '.' | ':' => '_',
            '$' | '\\' => '-',
            c if c.is_control() => '-',
            c => c,
        })
        .collect()
}

/// `new-session -d -P`: a session, named `name` when given.
pub(crate) fn new_session(name: Option<&str>, spawn: &Spawn, size: Option<(u32, u32)>) -> Cmd {
    let mut cmd = Cmd::new("new-session").args(["-d", "-P", "-F", NEW_IDS]);
    if let Some(name) = name {
        cmd = cmd.args(["-s", &escape_format(name)]);
    }
    if let Some((width, height)) = size {
        cmd = cmd.args(["-x", &width.to_string(), "-y", &height.to_string()]);
    }
    spawn.finish(spawn.apply(cmd))
}

/// `new-window -P`: a window at the end of session `session`, after its
/// window `last` (without `-a` tmux takes the first free number, which a
/// closed window left before others); made its session's current window
/// when `shown` (else `-d`).
pub(crate) fn new_window(
    session: &str,
    last: Option<u32>,
    name: Option<&str>,
    spawn: &Spawn,
    shown: bool,
) -> Cmd {
    let mut cmd = Cmd::new("new-window");
    if !shown {
        cmd = cmd.arg("-d");
    }
    cmd = cmd.args(["-P", "-F", NEW_IDS]);
    cmd = match last {
        Some(last) => cmd.args(["-a", "-t", &format!("{session}:@{last}")]),
        None => cmd.args(["-t", &format!("{session}:")]),
    };
    if let Some(name) = name {
        cmd = cmd.args(["-n", &escape_format(name)]);
    }
    spawn.finish(spawn.apply(cmd))
}

/// `new-window -d -a -P`: a window just after window `window` in its
/// session (to take its place in the order once that one goes).
pub(crate) fn new_window_after(window: &str, name: Option<&str>, spawn: &Spawn) -> Cmd {
    let mut cmd = Cmd::new("new-window").args(["-d", "-a", "-P", "-F", NEW_IDS, "-t", window]);
    if let Some(name) = name {
        cmd = cmd.args(["-n", &escape_format(name)]);
    }
    spawn.finish(spawn.apply(cmd))
}

/// `new-session -d -P` for a restore: session `name`, its first window
/// `window` with its folder, at the saved layout's size.
pub(crate) fn new_session_named(
    name: &str,
    window: &str,
    cwd: &str,
    size: Option<(u32, u32)>,
) -> Cmd {
    let mut cmd = Cmd::new("new-session")
        .args(["-d", "-P", "-F", NEW_IDS, "-s", &escape_format(name)])
        .args(["-n", &escape_format(window), "-c", &escape_format(cwd)]);
    if let Some((width, height)) = size {
        cmd = cmd.args(["-x", &width.to_string(), "-y", &height.to_string()]);
    }
    cmd
}

/// `new-session -d -t`: session `name` grouped with session `first`,
/// sharing its windows.
pub(crate) fn new_session_grouped(name: &str, first: &str) -> Cmd {
    Cmd::new("new-session").args(["-d", "-s", &escape_format(name), "-t", &format!("={first}")])
}

/// `link-window -d`: window `from` (`session:index`) into session
/// `session` at number `index` too.
pub(crate) fn link_window(from: &str, session: &str, index: i64) -> Cmd {
    let (source, number) = from.rsplit_once(':').unwrap_or((from, ""));
    Cmd::new("link-window").args([
        "-d",
        "-s",
        &format!("={source}:{number}"),
        "-t",
        &format!("={session}:{index}"),
    ])
}

/// `display-message -p`: how many windows session `session` has.
pub(crate) fn window_count(session: &str) -> Cmd {
    Cmd::new("display-message").args(["-p", "-t", &format!("={session}:"), "#{session_windows}"])
}

/// `new-window -d -P` at window number `index` of session `session`.
pub(crate) fn new_window_at(session: &str, index: i64, name: &str, cwd: &str) -> Cmd {
    Cmd::new("new-window")
        .args(["-d", "-P", "-F", NEW_IDS])
        .args(["-t", &format!("={session}:{index}")])
        .args(["-n", &escape_format(name), "-c", &escape_format(cwd)])
}

/// `split-window -d -P` of `pane` in folder `cwd`, the size left to a
/// layout applied after.
pub(crate) fn split_in(pane: &str, cwd: &str) -> Cmd {
    Cmd::new("split-window")
        .args(["-d", "-P", "-F", NEW_IDS, "-t", pane])
        .args(["-c", &escape_format(cwd)])
}

/// `move-window`: window `window` to number `index` of `session`.
pub(crate) fn move_window_to(window: &str, session: &str, index: i64) -> Cmd {
    Cmd::new("move-window").args(["-s", window, "-t", &format!("={session}:{index}")])
}

/// `split-window -P`: a pane beside (`right`) or below (`down`) `pane`,
/// taking `percent` of the room; made its window's active pane when
/// `shown` (else `-d`).
pub(crate) fn split_window(
    pane: &str,
    right: bool,
    percent: u32,
    spawn: &Spawn,
    shown: bool,
) -> Cmd {
    let mut cmd = Cmd::new("split-window").arg(if right { "-h" } else { "-v" });
    if !shown {
        cmd = cmd.arg("-d");
    }
    let cmd = cmd.args([
        "-P",
        "-F",
        NEW_IDS,
        "-l",
        &format!("{percent}%"),
        "-t",
        pane,
    ]);
    spawn.finish(spawn.apply(cmd))
}

pub(crate) fn rename_session(session: &str, name: &str) -> Cmd {
    Cmd::new("rename-session").args(["-t", session, "--", &escape_format(name)])
}

pub(crate) fn rename_window(window: &str, name: &str) -> Cmd {
    Cmd::new("rename-window").args(["-t", window, "--", &escape_format(name)])
}

pub(crate) fn kill_session(session: &str) -> Cmd {
    Cmd::new("kill-session").args(["-t", session])
}

pub(crate) fn kill_window(window: &str) -> Cmd {
    Cmd::new("kill-window").args(["-t", window])
}

/// `unlink-window -k -t $S:@W`: the tab `window` out of session `session`
/// (and its group), the window ending only where no other session has it
/// linked (`kill-window` ended it in every session).
pub(crate) fn close_tab(session: u32, window: u32) -> Cmd {
    Cmd::new("unlink-window").args(["-k", "-t", &format!("${session}:@{window}")])
}

pub(crate) fn kill_pane(pane: &str) -> Cmd {
    Cmd::new("kill-pane").args(["-t", pane])
}

/// `resize-pane -L|-R|-U|-D CELLS`.
pub(crate) fn resize_pane(pane: &str, flag: &str, cells: u32) -> Cmd {
    Cmd::new("resize-pane").args(["-t", pane, flag, &cells.to_string()])
}

/// `resize-pane -Z`: zoom in or out.
pub(crate) fn toggle_zoom(pane: &str) -> Cmd {
    Cmd::new("resize-pane").args(["-Z", "-t", pane])
}

/// `swap-pane -d`: the two panes change places, the active pane stays.
pub(crate) fn swap_panes(source: &str, target: &str) -> Cmd {
    Cmd::new("swap-pane").args(["-d", "-s", source, "-t", target])
}

/// `join-pane`: `source` goes beside or below `target`.
pub(crate) fn join_pane(source: &str, target: &str, right: bool, percent: u32, focus: bool) -> Cmd {
    let mut cmd = Cmd::new("join-pane").args([
        if right { "-h" } else { "-v" },
        "-l",
        &format!("{percent}%"),
        "-s",
        source,
        "-t",
        target,
    ]);
    if !focus {
        cmd = cmd.arg("-d");
    }
    cmd
}

/// `break-pane -d -P`: the pane into a window of its own, in `session`.
pub(crate) fn break_pane(pane: &str, session: &str, name: Option<&str>) -> Cmd {
    let mut cmd = Cmd::new("break-pane").args([
        "-d",
        "-P",
        "-F",
        NEW_IDS,
        "-s",
        pane,
        "-t",
        &format!("{session}:"),
    ]);
    // break-pane takes its -n as it is: no format is expanded there.
    if let Some(name) = name {
        cmd = cmd.args(["-n", name]);
    }
    cmd
}

/// `kill-window -a`: every other window of the session `target` is in.
pub(crate) fn kill_other_windows(target: &str) -> Cmd {
    Cmd::new("kill-window").args(["-a", "-t", target])
}

/// `select-layout -t WINDOW LAYOUT`.
pub(crate) fn select_layout(window: &str, layout: &str) -> Cmd {
    Cmd::new("select-layout").args(["-t", window, layout])
}

/// The ids `-P -F NEW_IDS` printed: session, window and pane numbers.
pub(crate) fn parse_new_ids(output: &str) -> Option<(u32, u32, u32)> {
    let mut words = output.split_whitespace();
    let session = super::ids::tmux_number(words.next()?, '$')?;
    let window = super::ids::tmux_number(words.next()?, '@')?;
    let pane = super::ids::tmux_number(words.next()?, '%')?;
    Some((session, window, pane))
}

/// The number (`pane-base-index` onwards) of the pane `-P -F NEW_IDS`
/// printed.
pub(crate) fn parse_new_pane_index(output: &str) -> Option<u32> {
    output.split_whitespace().nth(3)?.parse().ok()
}

/// A window just made, as `-P -F NEW_IDS` printed it: its session, its
/// id, its first pane's, and the number tmux gave that pane
/// (`pane-base-index`), from which the panes not made yet are named by
/// their place (their ids come only once made).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NewWindow {
    pub session: u32,
    pub window: u32,
    pub first_pane: u32,
    pub first_index: u32,
}

impl NewWindow {
    pub(crate) fn parse(printed: &str) -> Option<NewWindow> {
        let (session, window, first_pane) = parse_new_ids(printed)?;
        Some(NewWindow {
            session,
            window,
            first_pane,
            first_index: parse_new_pane_index(printed)?,
        })
    }

    /// The target of the pane at place `at` of the window (0 the first).
    pub(crate) fn place(&self, at: usize) -> String {
        format!("@{}.{}", self.window, self.first_index as usize + at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_names_have_their_hashes_doubled() {
        let cmd = new_session(Some("a#b"), &Spawn::default(), None);
        assert!(cmd.words().contains(&"a##b".to_string()));
        assert_eq!(parse_new_ids("$1 @2 %3 0\n"), Some((1, 2, 3)));
        let made = NewWindow::parse("$1 @7 %20 1\n").unwrap();
        assert_eq!((made.session, made.first_pane), (1, 20));
        assert_eq!(
            (made.place(0), made.place(2)),
            ("@7.1".into(), "@7.3".into())
        );
        assert_eq!(parse_new_pane_index("$1 @2 %3 1\n"), Some(1));
        assert_eq!(parse_new_ids("junk"), None);
    }

    #[test]
    fn spawn_options_come_before_the_command() {
        let spawn = Spawn {
            cwd: Some("/w".into()),
            env: vec![("A".into(), "1".into())],
            command: Some("htop".into()),
        };
        let words = new_window("$0", None, None, &spawn, false).words().to_vec();
        let dash = words.iter().position(|w| w == "--").unwrap();
        assert!(words.iter().position(|w| w == "-c").unwrap() < dash);
        assert_eq!(words.last().unwrap(), "htop");
    }
}
