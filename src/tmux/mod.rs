//! The only code that runs tmux.
//!
//! [`Tmux`] knows which server to talk to; a [`Batch`] is several tmux
//! commands sent in one invocation (`a ; b ; c`), so a verb costs one round
//! trip. [`commands`] builds the commands, [`format`] the `-F` formats and
//! their parsing, [`ids`] maps tmux ids to herdr's public ids, and
//! [`snapshot`] reads sessions, windows, panes and clients in one call.

pub(crate) mod arrange;
pub(crate) mod callback;
pub(crate) mod commands;
pub(crate) mod environment;
pub(crate) mod format;
pub(crate) mod ids;
pub(crate) mod keys;
pub(crate) mod layout;
pub(crate) mod options;
pub(crate) mod pane;
pub(crate) mod roster;
pub(crate) mod servers;
pub(crate) mod snapshot;
pub(crate) mod status;

use crate::envelope::{ErrorCode, TawError};
use crate::exec::{Failure, Program};
use std::env;
use std::path::PathBuf;
use std::time::Duration;

/// The `wait-for` channel taw's hooks signal when the server changes (a
/// session, window or pane made, closed, renamed or focused, an option
/// set): a reader that keeps a view of the server waits on it instead of
/// reading again on a clock. Signalling costs tmux one command, no process.
pub(crate) const CHANGED_CHANNEL: &str = "agent_wizard_changed";

/// The `wait-for` channel a popup's opener waits on, signalled once: by
/// the popup's command as it starts (setting
/// [`options::bookkeeping::popup_started`]
/// first), or, when it never did (tmux showed no popup), by tmux after
/// the popup. Once, because tmux keeps one signal nobody waited for and a
/// second one takes it away: an opener slow to wait would miss both.
pub(crate) fn popup_channel(token: &str) -> String {
    format!("agent_wizard_popup_{token}")
}

/// The channel tmux signals once a popup of taw's has closed (or was
/// never shown): what a popup queued behind it waits on. Not
/// [`popup_channel`], whose signal comes as the popup starts.
pub(crate) fn popup_closed_channel(token: &str) -> String {
    format!("agent_wizard_popup_closed_{token}")
}

/// How long a tmux call may go unanswered: a stopped or hung server then
/// costs a call this long, and never more.
pub(crate) fn answer_limit() -> Duration {
    crate::clock::limits().tmux
}

/// The most bytes of commands one tmux invocation carries: tmux's client
/// sends its whole command line in one message of 16 KiB at most.
const COMMAND_LINE_BUDGET: usize = 12 * 1024;

pub(crate) use commands::Cmd;

/// Which tmux server to talk to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Socket {
    /// tmux's own default socket.
    Default,
    /// `-L NAME`: a named socket in tmux's socket folder.
    Name(String),
    /// `-S PATH`: a socket by its path.
    Path(PathBuf),
}

/// The socket taw was pointed at on its command line, if any.
#[derive(Debug, Clone, Default)]
pub(crate) struct SocketFlags {
    pub name: Option<String>,
    pub path: Option<PathBuf>,
}

/// `@agent_wizard_loaded`'s value, `<version> <bin>`: the taw whose load
/// is in the server, and the binary its hooks and keys run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoadedBy {
    pub version: String,
    pub bin: String,
}

impl LoadedBy {
    pub(crate) fn parse(value: &str) -> Option<LoadedBy> {
        let (version, bin) = value.trim().split_once(' ')?;
        Some(LoadedBy {
            version: version.to_string(),
            bin: bin.to_string(),
        })
    }

    /// The option's value.
    pub(crate) fn value(&self) -> String {
        format!("{} {}", self.version, self.bin)
    }
}

/// The command a hook runs to count a change
/// ([`options::bookkeeping::CHANGES`]) and signal [`CHANGED_CHANNEL`].
pub(crate) fn signal_change_command() -> String {
    let changes = options::bookkeeping::CHANGES;
    commands::command_string(&[
        Cmd::new("set-option").args(["-gF", changes, &format!("#{{e|+:#{{{changes}}},1}}")]),
        Cmd::new("wait-for").args(["-S", CHANGED_CHANNEL]),
    ])
}

/// A handle on one tmux server.
#[derive(Debug, Clone)]
pub(crate) struct Tmux {
    socket: Socket,
}

impl Tmux {
    /// Finds the server: `-S`/`-L` flags first, then `TAW_TMUX_SOCKET`, then
    /// the server taw runs inside (`$TMUX`), else tmux's default socket.
    pub(crate) fn locate(flags: &SocketFlags) -> Tmux {
        let tmux_env = env::var("TMUX").ok();
        let taw_env = env::var("TAW_TMUX_SOCKET").ok();
        Tmux {
            socket: choose_socket(flags, taw_env.as_deref(), tmux_env.as_deref()),
        }
    }

    /// The global flags that select this server, for a command line.
    pub(crate) fn socket_args(&self) -> Vec<String> {
        match &self.socket {
            Socket::Default => Vec::new(),
            Socket::Name(name) => vec!["-L".into(), name.clone()],
            Socket::Path(path) => vec!["-S".into(), path.display().to_string()],
        }
    }

    /// [`socket_args`](Self::socket_args) as a person types them after
    /// `tmux` or `taw`: ` -L NAME` or ` -S PATH`, each word quoted for a
    /// shell; nothing for tmux's default server.
    pub(crate) fn socket_words(&self) -> String {
        self.socket_args()
            .iter()
            .map(|arg| format!(" {}", crate::text::shell_word(arg)))
            .collect()
    }

    /// Runs every command of `batch` in one tmux invocation and returns what
    /// they printed. tmux stops at the first command that fails; its message
    /// becomes the error.
    pub(crate) fn run(&self, batch: &Batch) -> Result<String, TawError> {
        self.run_then(batch, Vec::new(), Some(answer_limit()), &|_| None)
    }

    /// `run`, with `input` on tmux's standard input (for `load-buffer -`,
    /// which takes text of any size and never parses it).
    pub(crate) fn run_with_input(&self, batch: &Batch, input: Vec<u8>) -> Result<String, TawError> {
        self.run_then(batch, input, Some(answer_limit()), &|_| None)
    }

    /// Runs `display-popup`, which returns when the popup closes, with the
    /// status of the command in it: a status with nothing said is the
    /// command's own. A person keeps a popup open as long as they like, so
    /// this call has no time limit.
    pub(crate) fn run_popup(&self, popup: Cmd) -> Result<(), TawError> {
        self.run_then(&Batch::of(vec![popup]), Vec::new(), None, &|code| {
            Some(match code {
                // Closed from outside (display-popup -C): tmux answers
                // 128 + SIGHUP. A normal end.
                129 => Ok(String::new()),
                code => Err(TawError::tmux(format!(
                    "the popup ended with status {code}"
                ))),
            })
        })
        .map(|_| ())
    }

    /// This process becomes a tmux client attached to `session` (taw open,
    /// outside tmux). Returns only when that failed.
    pub(crate) fn attach(&self, session: &str) -> TawError {
        let error = Program::new("tmux")
            .args(self.socket_args())
            .args(["attach-session", "-t", &format!("={session}")])
            .become_it();
        TawError::tmux(format!("could not attach: {error}"))
    }

    /// Becomes a tmux client in this terminal, on pane `%pane` (put in
    /// front by the caller); with `detach_others`, tmux's `-d`. Returns
    /// only when tmux could not be started.
    pub(crate) fn attach_pane(&self, pane: u32, detach_others: bool) -> TawError {
        let target = format!("%{pane}");
        let mut words = vec!["attach-session", "-t", &target];
        if detach_others {
            words.push("-d");
        }
        let error = Program::new("tmux")
            .args(self.socket_args())
            .args(words)
            .become_it();
        TawError::tmux(format!("could not attach: {error}"))
    }

    /// A tmux client in this terminal attached where `id` is (`%N`, `@N`
    /// or `$N`), that pane or window in front first; returns when it
    /// detaches (or the session ends), with the pane in front of that
    /// session then, if it is still there.
    pub(crate) fn attach_and_wait(&self, id: &str) -> Result<Option<String>, TawError> {
        let mut words: Vec<String> = Vec::new();
        if id.starts_with('%') {
            words.extend(
                ["select-window", "-t", id, ";", "select-pane", "-t", id, ";"].map(String::from),
            );
        } else if id.starts_with('@') {
            words.extend(["select-window", "-t", id, ";"].map(String::from));
        }
        words.extend(["attach-session", "-t", id].map(String::from));
        let status = Program::new("tmux")
            .args(self.socket_args())
            .args(words)
            .limit(None)
            .run_in_terminal()
            .map_err(|failure| TawError::tmux(failure.describe("tmux")))?;
        // A detach and a session that ended are 0; an attach tmux refused
        // (no such session, no terminal) is not.
        if !status.success() {
            return Err(TawError::tmux(format!(
                "tmux could not attach to {id} (status {})",
                status.code().unwrap_or(-1)
            )));
        }
        let front = self
            .run_one(commands::Cmd::new("list-panes").args([
                "-s",
                "-t",
                id,
                "-F",
                "#{?#{&&:#{window_active},#{pane_active}},#{pane_id},}",
            ]))
            .ok()
            .and_then(|out| {
                out.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
            });
        Ok(front)
    }

    /// `run`, with `silent` answering for a failure tmux said nothing about
    /// (given the exit status), when it knows what it means.
    fn run_then(
        &self,
        batch: &Batch,
        input: Vec<u8>,
        limit: Option<Duration>,
        silent: &dyn Fn(i32) -> Option<Result<String, TawError>>,
    ) -> Result<String, TawError> {
        if batch.is_empty() {
            return Ok(String::new());
        }
        // tmux takes a command line of about 16 KiB: a longer batch goes in
        // invocations of its own, one after the other, in order (each with
        // its own time limit). One with standard input is never split.
        if input.is_empty() && batch.size() > COMMAND_LINE_BUDGET {
            let mut printed = String::new();
            for chunk in &batch.chunks(COMMAND_LINE_BUDGET) {
                printed.push_str(&self.run_then(chunk, Vec::new(), limit, silent)?);
            }
            return Ok(printed);
        }
        let (stdout, failure) = self.invoke(batch, input, limit)?;
        let Some((status, stderr)) = failure else {
            return Ok(stdout);
        };
        if stderr.trim().is_empty()
            && let Some(answer) = silent(status)
        {
            return answer;
        }
        Err(self.classify_failure(stderr.trim()))
    }

    /// Runs `batch` in as few calls as its size allows; when a command
    /// fails, tmux runs none after it. What the commands before printed,
    /// and the failure, if one came: a caller keeps what was made.
    pub(crate) fn run_as_far_as(&self, batch: &Batch) -> (String, Option<TawError>) {
        let mut printed = String::new();
        for chunk in &batch.chunks(COMMAND_LINE_BUDGET) {
            match self.invoke(chunk, Vec::new(), Some(answer_limit())) {
                Ok((stdout, failure)) => {
                    printed.push_str(&stdout);
                    if let Some((_, stderr)) = failure {
                        return (printed, Some(self.classify_failure(stderr.trim())));
                    }
                }
                Err(error) => return (printed, Some(error)),
            }
        }
        (printed, None)
    }

    /// One tmux invocation: what it printed, and its status and standard
    /// error when it failed.
    fn invoke(
        &self,
        batch: &Batch,
        input: Vec<u8>,
        limit: Option<Duration>,
    ) -> Result<(String, Option<(i32, String)>), TawError> {
        // -u: tmux would otherwise replace non-ASCII output with '_' when the
        // locale does not say UTF-8.
        let mut program = Program::new("tmux")
            .arg("-u")
            .args(self.socket_args())
            .args(batch.argv())
            .limit(limit);
        if !input.is_empty() {
            program = program.input(input);
        }
        let output = program.output().map_err(|failure| match failure {
            Failure::NotFound => {
                TawError::tmux("tmux is not installed or not on PATH; install tmux 3.2 or newer")
            }
            Failure::TimedOut(limit) => TawError::new(
                ErrorCode::Timeout,
                format!(
                    "tmux did not answer within {} on {}: its server may be stopped or hung (what was asked may still happen when it wakes)",
                    crate::exec::seconds(limit),
                    self.describe()
                ),
            ),
            other => TawError::tmux(other.describe("tmux")),
        })?;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        if output.status.success() {
            return Ok((stdout, None));
        }
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        Ok((stdout, Some((output.status.code().unwrap_or(-1), stderr))))
    }

    /// Runs each group (the commands for one pane, say) so that one whose
    /// pane or session has gone stops no other: groups go together while
    /// they all work, and apart when one's target has gone (so a group must
    /// be one that can run twice). Any other failure (a server that does not
    /// answer) is every group's. What each group's run answered.
    pub(crate) fn run_groups(&self, groups: &[Batch]) -> Vec<Result<(), TawError>> {
        let mut together = Batch::new();
        for group in groups {
            together.extend(group.commands.iter().cloned());
        }
        match self.run(&together) {
            Ok(_) => groups.iter().map(|_| Ok(())).collect(),
            Err(error) if is_target_gone(&error) => groups
                .iter()
                .map(|group| self.run(group).map(|_| ()))
                .collect(),
            Err(error) => groups.iter().map(|_| Err(error.clone())).collect(),
        }
    }

    /// Runs commands in one invocation and gives back what each printed, apart:
    /// a marker line no output can forge is printed before each.
    pub(crate) fn run_apart(&self, cmds: Vec<Cmd>) -> Result<Vec<String>, TawError> {
        let count = cmds.len();
        let mut batch = Batch::new();
        for (index, cmd) in cmds.into_iter().enumerate() {
            batch.push(commands::print_format(&format::section_marker(index)));
            batch.push(cmd);
        }
        let output = self.run(&batch)?;
        Ok(format::split_sections(&output, count))
    }

    /// Starts commands and goes on without waiting for them: a popup,
    /// which tmux answers only once it closes (the commands after it run
    /// then).
    pub(crate) fn start(&self, cmds: Vec<Cmd>) -> Result<(), TawError> {
        Program::new("tmux")
            .arg("-u")
            .args(self.socket_args())
            .args(Batch::of(cmds).argv())
            .start_unwatched()
            .map_err(|failure| TawError::tmux(failure.describe("tmux")))
    }

    /// What `tmux -V` says of the tmux taw runs (`tmux 3.3a`): the
    /// client's, which may be newer than a server started before an
    /// upgrade.
    pub(crate) fn client_version(&self) -> Result<String, TawError> {
        let output = Program::new("tmux")
            .arg("-V")
            .limit(Some(answer_limit()))
            .output()
            .map_err(|failure| TawError::tmux(failure.describe("tmux -V")))?;
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    /// Whose load is in the server (`@agent_wizard_loaded`); `None` when
    /// none is, or no server runs.
    pub(crate) fn loaded(&self) -> Option<LoadedBy> {
        let value = self
            .run_one(commands::print_format(&format!(
                "#{{{}}}",
                options::bookkeeping::LOADED
            )))
            .ok()?;
        LoadedBy::parse(&value)
    }

    /// Waits, up to `limit`, for tmux's hooks to say that something changed
    /// ([`CHANGED_CHANNEL`]), or, with `since` (the change count a read
    /// found), returns at once when the count has moved past it: the test
    /// and the wait are one tmux command, so a change in between is never
    /// lost. `Ok(true)` when something changed, `Ok(false)` when the time
    /// ran out; an error when the server is gone or refused.
    pub(crate) fn wait_for_change(
        &self,
        limit: Duration,
        since: Option<u64>,
    ) -> Result<bool, TawError> {
        let Some(since) = since else {
            return self.wait_for(CHANGED_CHANNEL, Some(limit));
        };
        let wait = Cmd::new("wait-for").arg(CHANGED_CHANNEL);
        let unchanged = format!("#{{==:#{{{}}},{since}}}", options::bookkeeping::CHANGES);
        let batch = Batch::of(vec![Cmd::new("if-shell").args([
            "-F",
            &unchanged,
            &commands::command_string(&[wait]),
        ])]);
        match self.run_then(&batch, Vec::new(), Some(limit), &|_| None) {
            Ok(_) => Ok(true),
            Err(error) if error.code == crate::envelope::ErrorCode::Timeout => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Waits on the `wait-for` channel `channel` until it is signalled
    /// (`Ok(true)`; at once when it was, with nobody waiting, since), or
    /// `limit` runs out (`Ok(false)`); with none, as long as it takes.
    pub(crate) fn wait_for(
        &self,
        channel: &str,
        limit: Option<Duration>,
    ) -> Result<bool, TawError> {
        match self.run_then(
            &Batch::of(vec![Cmd::new("wait-for").arg(channel)]),
            Vec::new(),
            limit,
            &|_| None,
        ) {
            Ok(_) => Ok(true),
            Err(error) if error.code == crate::envelope::ErrorCode::Timeout => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Waits, up to `limit`, on a `wait-for` channel nothing signals: it
    /// ends early only when the server exits, which is how a process that
    /// lives as long as its server learns that it is gone, without asking.
    /// `Ok` when the server is gone.
    pub(crate) fn wait_for_exit(&self, channel: &str, limit: Duration) -> bool {
        let gone = self
            .run_then(
                &Batch::of(vec![Cmd::new("wait-for").arg(channel)]),
                Vec::new(),
                Some(limit),
                &|_| None,
            )
            .is_err_and(|error| error.code != crate::envelope::ErrorCode::Timeout);
        gone && self.run_one(commands::print_format("#{pid}")).is_err()
    }

    /// Runs one command.
    pub(crate) fn run_one(&self, cmd: Cmd) -> Result<String, TawError> {
        self.run(&Batch::of(vec![cmd]))
    }

    fn classify_failure(&self, stderr: &str) -> TawError {
        if is_no_server_message(stderr) {
            return TawError::new(
                ErrorCode::ServerNotRunning,
                format!(
                    "no tmux server is running on {}; start one with `tmux{}` or point taw at another with -L NAME, -S PATH or TAW_TMUX_SOCKET",
                    self.describe(),
                    self.socket_words()
                ),
            );
        }
        let first_line = stderr.lines().next().unwrap_or("").trim();
        if first_line.is_empty() {
            TawError::tmux("tmux failed without saying why")
        } else {
            TawError::tmux(format!("tmux said: {first_line}"))
        }
    }

    /// The socket in words, for messages.
    pub(crate) fn describe(&self) -> String {
        match &self.socket {
            Socket::Default => "tmux's default socket".into(),
            Socket::Name(name) => format!("socket name {name:?}"),
            Socket::Path(path) => format!("socket {}", path.display()),
        }
    }
}

/// The socket rule of [`Tmux::locate`], as a pure function.
pub(crate) fn choose_socket(
    flags: &SocketFlags,
    taw_socket_env: Option<&str>,
    tmux_env: Option<&str>,
) -> Socket {
    if let Some(path) = &flags.path {
        return Socket::Path(path.clone());
    }
    if let Some(name) = &flags.name {
        return Socket::Name(name.clone());
    }
    if let Some(value) = taw_socket_env.filter(|value| !value.is_empty()) {
        // A bare name (no slash) is a socket name, as with tmux -L.
        return if value.contains('/') {
            Socket::Path(PathBuf::from(value))
        } else {
            Socket::Name(value.to_string())
        };
    }
    if let Some(value) = tmux_env.filter(|value| !value.is_empty()) {
        // $TMUX is "<socket path>,<server pid>,<session index>".
        let path = value.split(',').next().unwrap_or(value);
        if !path.is_empty() {
            return Socket::Path(PathBuf::from(path));
        }
    }
    Socket::Default
}

/// The pid of the server.
pub(crate) fn server_pid(tmux: &Tmux) -> Result<u32, TawError> {
    let out = tmux.run_one(commands::print_format("#{pid}"))?;
    out.trim()
        .parse()
        .map_err(|_| TawError::tmux(format!("tmux printed {out:?} for its pid")))
}

/// The path of the server's socket: how a process tmux did not start
/// (with no `$TMUX`) finds this server.
pub(crate) fn socket_path(tmux: &Tmux) -> Result<String, TawError> {
    let out = tmux.run_one(commands::print_format("#{socket_path}"))?;
    Ok(out.trim().to_string())
}

/// Whether tmux refused because the pane or session it was given has gone.
pub(crate) fn is_target_gone(error: &TawError) -> bool {
    is_pane_gone(error) || error.message.contains("can't find session")
}

/// Whether tmux refused because the pane it was given has gone (tmux says
/// it two ways, depending on the command).
pub(crate) fn is_pane_gone(error: &TawError) -> bool {
    error.message.contains("can't find pane") || error.message.contains("no such pane")
}

/// Whether tmux failed because its server has gone or is going: none
/// runs, or it exited while it was asked (`kill-server` a moment before).
pub(crate) fn is_server_gone(error: &TawError) -> bool {
    error.code == crate::envelope::ErrorCode::ServerNotRunning
        || error.message.contains("server exited unexpectedly")
        || error.message.contains("lost server")
}

fn is_no_server_message(stderr: &str) -> bool {
    stderr.starts_with("no server running on")
        || (stderr.starts_with("error connecting to")
            && (stderr.contains("No such file or directory")
                || stderr.contains("Connection refused")))
}

/// Several tmux commands run in one invocation.
#[derive(Debug, Default, Clone)]
pub(crate) struct Batch {
    commands: Vec<Cmd>,
}

/// Its commands, to go on in another batch.
impl IntoIterator for Batch {
    type Item = Cmd;
    type IntoIter = std::vec::IntoIter<Cmd>;

    fn into_iter(self) -> Self::IntoIter {
        self.commands.into_iter()
    }
}

impl Batch {
    pub(crate) fn new() -> Batch {
        Batch::default()
    }

    pub(crate) fn of(commands: Vec<Cmd>) -> Batch {
        Batch { commands }
    }

    pub(crate) fn push(&mut self, cmd: Cmd) -> &mut Batch {
        self.commands.push(cmd);
        self
    }

    pub(crate) fn extend(&mut self, cmds: impl IntoIterator<Item = Cmd>) -> &mut Batch {
        self.commands.extend(cmds);
        self
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    #[cfg(test)]
    pub(crate) fn commands(&self) -> &[Cmd] {
        &self.commands
    }

    /// The bytes of its command line, near enough.
    fn size(&self) -> usize {
        self.commands.iter().map(Cmd::size).sum()
    }

    /// The batch in batches whose command lines each fit `budget` bytes (a
    /// command longer than that alone is a batch of its own).
    fn chunks(&self, budget: usize) -> Vec<Batch> {
        let mut chunks = vec![Batch::new()];
        let mut size = 0;
        for cmd in &self.commands {
            let cost = cmd.size();
            if size + cost > budget && !chunks.last().is_some_and(|c| c.is_empty()) {
                chunks.push(Batch::new());
                size = 0;
            }
            size += cost;
            if let Some(last) = chunks.last_mut() {
                last.push(cmd.clone());
            }
        }
        chunks
    }

    /// The argv after `tmux [-S path]`: each command's words, separated by
    /// a lone `;` word.
    pub(crate) fn argv(&self) -> Vec<String> {
        let mut argv = Vec::new();
        for (index, cmd) in self.commands.iter().enumerate() {
            if index > 0 {
                argv.push(";".into());
            }
            argv.extend(cmd.words().iter().map(|word| escape_argv_word(word)));
        }
        argv
    }
}

/// tmux reads a command-line word that ends in `;` as the end of a command,
/// and one that ends in `\;` as a word ending in `;`. So a word of ours that
/// ends in `;` gets a backslash before it.
fn escape_argv_word(word: &str) -> String {
    match word.strip_suffix(';') {
        Some(head) => format!("{head}\\;"),
        None => word.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_environment() {
        let flags = SocketFlags {
            name: Some("x".into()),
            path: None,
        };
        assert_eq!(
            choose_socket(&flags, Some("/s"), Some("/t,1,0")),
            Socket::Name("x".into())
        );
        let flags = SocketFlags {
            name: Some("x".into()),
            path: Some("/p".into()),
        };
        assert_eq!(choose_socket(&flags, None, None), Socket::Path("/p".into()));
    }

    #[test]
    fn taw_socket_env_then_tmux_env_then_default() {
        let none = SocketFlags::default();
        assert_eq!(
            choose_socket(&none, Some("/run/s"), Some("/t,1,0")),
            Socket::Path("/run/s".into())
        );
        assert_eq!(
            choose_socket(&none, Some("work"), None),
            Socket::Name("work".into())
        );
        assert_eq!(
            choose_socket(&none, None, Some("/tmp/tmux-0/default,123,4")),
            Socket::Path("/tmp/tmux-0/default".into())
        );
        assert_eq!(choose_socket(&none, Some(""), Some("")), Socket::Default);
    }

    #[test]
    fn trailing_semicolons_are_escaped() {
        assert_eq!(escape_argv_word("a;"), "a\\;");
        assert_eq!(escape_argv_word("a\\;"), "a\\\\;");
        assert_eq!(escape_argv_word("a;b"), "a;b");
        assert_eq!(escape_argv_word(";"), "\\;");
    }

    #[test]
    fn batch_separates_commands() {
        let batch = Batch::of(vec![
            Cmd::new("list-sessions"),
            Cmd::new("set-option").arg("-g").arg("@x").arg("v;"),
        ]);
        assert_eq!(
            batch.argv(),
            vec!["list-sessions", ";", "set-option", "-g", "@x", "v\\;"]
        );
    }

    #[test]
    fn no_server_messages() {
        assert!(is_no_server_message("no server running on /tmp/tmux-0/x"));
        assert!(is_no_server_message(
            "error connecting to /tmp/x (No such file or directory)"
        ));
        assert!(!is_no_server_message("can't find pane: %9"));
    }
}
