//! tmux commands, built as argv words (never as one string a shell reads),
//! and the quoting for the two places where tmux itself parses a string:
//! a command stored in a hook or a key binding, and the shell line of
//! `run-shell`, which tmux expands as a format first.

/// One tmux command: its name and its arguments, each a separate word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cmd {
    words: Vec<String>,
}

impl Cmd {
    pub(crate) fn new(name: &str) -> Cmd {
        Cmd {
            words: vec![name.to_string()],
        }
    }

    pub(crate) fn arg(mut self, word: impl Into<String>) -> Cmd {
        self.words.push(word.into());
        self
    }

    pub(crate) fn args<I, S>(mut self, words: I) -> Cmd
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.words.extend(words.into_iter().map(Into::into));
        self
    }

    pub(crate) fn words(&self) -> &[String] {
        &self.words
    }

    /// The bytes it takes on tmux's command line, near enough.
    pub(crate) fn size(&self) -> usize {
        self.words.iter().map(|w| w.len() + 2).sum::<usize>() + 2
    }
}

/// `set-option -g NAME VALUE`: a global (session) option, user options included.
pub(crate) fn set_global_option(name: &str, value: &str) -> Cmd {
    Cmd::new("set-option").args(["-g", "--", name, value])
}

/// `set-option -gu NAME`: takes a global option off.
pub(crate) fn unset_global_option(name: &str) -> Cmd {
    Cmd::new("set-option").args(["-gu", "--", name])
}

/// `show-options -g`: every global session option, a line each, names first.
pub(crate) fn show_global_options() -> Cmd {
    Cmd::new("show-options").arg("-g")
}

/// `show-hooks -g` (session hooks) or `show-hooks -gw` (window and pane hooks).
pub(crate) fn show_global_hooks(window_level: bool) -> Cmd {
    Cmd::new("show-hooks").arg(if window_level { "-gw" } else { "-g" })
}

/// `set-hook -g HOOK[INDEX] COMMAND`: tmux picks the session or window
/// scope from the hook's name.
pub(crate) fn set_hook(hook: &str, index: u32, command: &str) -> Cmd {
    Cmd::new("set-hook").args(["-g", &format!("{hook}[{index}]"), command])
}

/// `set-hook -gu HOOK[INDEX]`.
pub(crate) fn unset_hook(hook: &str, index: u32) -> Cmd {
    Cmd::new("set-hook").args(["-gu", &format!("{hook}[{index}]")])
}

/// `list-clients`: one name a line (none in a server with no session,
/// see [`when_any_session`]).
pub(crate) fn list_client_names() -> Cmd {
    when_any_session(&[Cmd::new("list-clients").args(["-F", "#{client_name}"])])
}

/// `list-keys -T prefix`: the prefix table, a `bind-key` line a key.
pub(crate) fn list_prefix_keys() -> Cmd {
    Cmd::new("list-keys").args(["-T", "prefix"])
}

/// `bind-key -N NOTE -T prefix KEY COMMAND`.
pub(crate) fn bind_prefix_key(key: &str, note: &str, command: &str) -> Cmd {
    Cmd::new("bind-key").args(["-N", note, "-T", "prefix", "--", key, command])
}

/// `unbind-key -T prefix KEY`.
pub(crate) fn unbind_prefix_key(key: &str) -> Cmd {
    Cmd::new("unbind-key").args(["-T", "prefix", "--", key])
}

/// A binding given back as `list-keys` printed it (a `bind-key` line in
/// tmux's own quoting, the person's own binding), with its note: run
/// through tmux's command parser by an `if-shell` that is always true.
pub(crate) fn bind_again(listed: &str, note: &str) -> Cmd {
    let line = match (note.is_empty(), listed.strip_prefix("bind-key ")) {
        (false, Some(rest)) => format!("bind-key -N {} {rest}", quote_for_tmux(note)),
        _ => listed.to_string(),
    };
    Cmd::new("if-shell").args(["-F", "1", &line])
}

/// `show-environment -gs`: the global environment in shell syntax, which
/// quotes every value (see [`super::environment`]).
pub(crate) fn show_global_environment() -> Cmd {
    Cmd::new("show-environment").arg("-gs")
}

/// `show-environment -s -t SESSION`: a session's own environment.
pub(crate) fn show_session_environment(session: &str) -> Cmd {
    Cmd::new("show-environment").args(["-s", "-t", session])
}

pub(crate) fn set_global_environment(name: &str, value: &str) -> Cmd {
    Cmd::new("set-environment").args(["-g", "--", name, value])
}

pub(crate) fn unset_global_environment(name: &str) -> Cmd {
    Cmd::new("set-environment").args(["-gu", "--", name])
}

/// `detach-client -t CLIENT`: ends that client's attach.
pub(crate) fn detach_client(client: &str) -> Cmd {
    Cmd::new("detach-client").args(["-t", client])
}

/// `switch-client -c CLIENT -t TARGET`: shows the target on a client.
pub(crate) fn switch_client(client: &str, target: &str) -> Cmd {
    Cmd::new("switch-client").args(["-c", client, "-t", target])
}

/// `select-window -t TARGET`.
pub(crate) fn select_window(target: &str) -> Cmd {
    Cmd::new("select-window").args(["-t", target])
}

/// `clear-history -t PANE`: the pane's history goes, its screen stays.
pub(crate) fn clear_history(pane: &str) -> Cmd {
    Cmd::new("clear-history").args(["-t", pane])
}

/// `set-option -pu -t %N NAME`: takes a pane option off.
pub(crate) fn unset_pane_option(pane: &str, name: &str) -> Cmd {
    Cmd::new("set-option").args(["-pu", "-t", pane, "--", name])
}

/// `pipe-pane -t %N` with no command: closes the pane's pipe.
pub(crate) fn close_pipe(pane: &str) -> Cmd {
    Cmd::new("pipe-pane").args(["-t", pane])
}

/// `show-options -gqv NAME`: a global option's value alone; empty for an
/// option not set (quietly: no error in tmux's message log).
pub(crate) fn show_global_value(name: &str) -> Cmd {
    Cmd::new("show-options").args(["-gqv", "--", name])
}

/// `show-options -qv -t SESSION -- NAME`: a session option's value, empty
/// when it is not set.
pub(crate) fn show_session_value(session: &str, name: &str) -> Cmd {
    Cmd::new("show-options").args(["-qv", "-t", session, "--", name])
}

/// `list-keys -N -T prefix`: the prefix keys that have a note, with it.
pub(crate) fn list_noted_prefix_keys() -> Cmd {
    Cmd::new("list-keys").args(["-N", "-T", "prefix"])
}

/// `set-option -t $N NAME VALUE`: an option of one session.
pub(crate) fn set_session_option(session: &str, name: &str, value: &str) -> Cmd {
    Cmd::new("set-option").args(["-t", session, "--", name, value])
}

/// `set-option -u -t $N NAME`.
pub(crate) fn unset_session_option(session: &str, name: &str) -> Cmd {
    Cmd::new("set-option").args(["-u", "-t", session, "--", name])
}

/// `set-option -wu -t WINDOW NAME`.
pub(crate) fn unset_window_option(window: &str, name: &str) -> Cmd {
    Cmd::new("set-option").args(["-wu", "-t", window, "--", name])
}

/// `display-message -t TARGET -p FORMAT`: a format about a target.
pub(crate) fn print_format_at(target: &str, format: &str) -> Cmd {
    Cmd::new("display-message").args(["-t", target, "-p", "--", format])
}

/// `display-message -c CLIENT -p FORMAT`: a format as a client sees it.
pub(crate) fn print_format_for_client(client: &str, format: &str) -> Cmd {
    Cmd::new("display-message").args(["-c", client, "-p", "--", format])
}

/// `display-popup -C -c CLIENT`: the popup on that client closed (none
/// there: nothing happens).
pub(crate) fn close_popup(client: &str) -> Cmd {
    Cmd::new("display-popup").args(["-C", "-c", client])
}

/// `display-popup -c CLIENT -E` at a place and size, running `line` (which
/// tmux runs as it is: no format is expanded there); `-B` draws no border.
pub(crate) fn display_popup(
    client: &str,
    (x, y, w, h): (u32, u32, u32, u32),
    borderless: bool,
    line: &str,
) -> Cmd {
    let mut popup = Cmd::new("display-popup").args([
        "-c",
        client,
        "-E",
        "-x",
        &x.to_string(),
        "-y",
        &y.to_string(),
        "-w",
        &w.to_string(),
        "-h",
        &h.to_string(),
    ]);
    if borderless {
        popup = popup.arg("-B");
    }
    popup.arg(line)
}

/// `display-popup -c CLIENT -E -d DIR -w W -h H LINE`: a framed popup of
/// a size tmux reads (`80%`, `30`), started in `dir`.
pub(crate) fn display_popup_sized(
    client: &str,
    (width, height): (&str, &str),
    dir: &str,
    title: &str,
    line: &str,
) -> Cmd {
    Cmd::new("display-popup").args([
        "-c",
        client,
        "-E",
        "-d",
        &escape_format(dir),
        "-w",
        width,
        "-h",
        height,
        "-T",
        &escape_shown(title),
        line,
    ])
}

/// `wait-for -S CHANNEL`: wakes whoever waits on the channel (or the
/// next to wait, when nobody does yet).
pub(crate) fn signal(channel: &str) -> Cmd {
    Cmd::new("wait-for").args(["-S", channel])
}

/// `list-panes -a -F FORMAT`: a row for every pane of the server.
pub(crate) fn list_all_panes(format: &str) -> Cmd {
    when_any_session(&[Cmd::new("list-panes").args(["-a", "-F", format])])
}

/// `cmds` (lists of the whole server: `list-windows -a`, `list-panes -a`,
/// `list-clients`) as one command that runs them only when the server has
/// a session. In a server with none (a load from tmux.conf as it starts,
/// `exit-empty` off after the last one closed) tmux refuses each with "no
/// current target" in its message log, where there is nothing to list.
/// `#{S:1}` is empty with no session; `if-shell -F` runs its commands in
/// place, so their output keeps its order in the batch.
pub(crate) fn when_any_session(cmds: &[Cmd]) -> Cmd {
    Cmd::new("if-shell").args(["-F", "#{S:1}", &command_string(cmds)])
}

/// `select-pane -t TARGET`.
pub(crate) fn select_pane(target: &str) -> Cmd {
    Cmd::new("select-pane").args(["-t", target])
}

/// `display-message -p FORMAT`: prints the expanded format.
pub(crate) fn print_format(format: &str) -> Cmd {
    Cmd::new("display-message").args(["-p", "--", format])
}

/// `display-message MESSAGE` on the status line of tmux's current client
/// (the one a key or a hook runs for). The message is a format and goes
/// through strftime, so `#` and `%` are doubled to show as themselves.
pub(crate) fn show_message(message: &str) -> Cmd {
    Cmd::new("display-message").args(["--", &escape_message(message)])
}

/// `display-message -c CLIENT -d MS MESSAGE`: a message that stays on one
/// client's status line for `ms` milliseconds (tmux's own `display-time`
/// is short for a line to read). `#` and `%` are doubled to show as
/// themselves.
pub(crate) fn show_message_for(client: &str, ms: u32, message: &str) -> Cmd {
    Cmd::new("display-message").args([
        "-c",
        client,
        "-d",
        &ms.to_string(),
        "--",
        &escape_message(message),
    ])
}

/// A word of a shell line that `run-shell` will run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ShellWord {
    /// Text taken as it is.
    Literal(String),
    /// A tmux format variable (`hook_pane`, `client_name`...), expanded by
    /// tmux when the line runs and shell-quoted by tmux's `q:` modifier.
    /// Only ids and names go here: tmux's quoting does not cover newlines.
    Format(&'static str),
    /// `NAME='value'`: an environment variable for the command.
    Assign(&'static str, String),
    /// A word of taw's own, such as `exec`, written as it is. Only static
    /// text can be one, so no outside text gets in unquoted.
    Keyword(&'static str),
}

/// The shell line for `run-shell`: each literal single-quoted for the
/// shell, then every `#` doubled because `run-shell` expands formats first.
pub(crate) fn shell_line(words: &[ShellWord]) -> String {
    words
        .iter()
        .map(|word| match word {
            ShellWord::Literal(text) => escape_format(&crate::text::single_quoted(text)),
            // `q:` leaves `~` and `{` to the shell: the empty quotes keep
            // a leading `~` from being a home folder, and each `{` is
            // escaped, so a name like `{a,b}` stays one word where
            // /bin/sh is bash.
            ShellWord::Format(name) => format!(r"''#{{s/\{{/\\{{/:#{{q:{name}}}}}"),
            ShellWord::Assign(name, value) => {
                format!(
                    "{name}={}",
                    escape_format(&crate::text::single_quoted(value))
                )
            }
            ShellWord::Keyword(word) => word.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A shell line for a command tmux runs as it is, with no format expansion
/// (`display-popup`'s): literals quoted, and no format allowed.
pub(crate) fn plain_shell_line(words: &[ShellWord]) -> String {
    words
        .iter()
        .filter_map(|word| match word {
            ShellWord::Literal(text) => Some(crate::text::single_quoted(text)),
            ShellWord::Format(_) => None,
            ShellWord::Assign(name, value) => {
                Some(format!("{name}={}", crate::text::single_quoted(value)))
            }
            ShellWord::Keyword(word) => Some(word.to_string()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `run-shell -b LINE` as a command string, for a hook or a key binding.
/// `-b`: a hook must never hold tmux's command queue while taw runs.
pub(crate) fn run_shell_background(words: &[ShellWord]) -> String {
    format!("run-shell -b {}", quote_for_tmux(&shell_line(words)))
}

/// `run-shell -C COMMAND` as a command string: tmux expands the formats in
/// COMMAND (`shell_line`'s words), then runs it as a tmux command.
pub(crate) fn run_tmux_command(command: &str) -> String {
    format!("run-shell -C {}", quote_for_tmux(command))
}

/// A key's command string: `format` expanded in the key's context (the
/// client that pressed it) into its session's environment variable `name`,
/// then `popup` (a `display-popup`, whose process takes the session's
/// environment as it starts), then `name` out of that session again when
/// the popup closes (tmux holds the key's commands until then; the popup
/// takes it out sooner, [`unset_session_environment`]). A value of `limit`
/// bytes or more (an exec refuses a variable over 128 KiB) is taken out
/// before the popup starts: tmux measures it where it is (a format finds
/// the session's variables). No option is set on the way: tmux redraws
/// every client after any `set-option`, a status line's formats and all,
/// which costs more than the listing itself on a large server.
pub(crate) fn with_expanded_environment(
    name: &str,
    format: &str,
    limit: usize,
    popup: &str,
) -> String {
    let set = command_string(&[Cmd::new("set-environment").args(["-F", "--", name, format])]);
    let unset = command_string(&[Cmd::new("set-environment").args(["-u", "--", name])]);
    // `name` is taw's own variable name, a format key as it stands.
    debug_assert!(name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'));
    let bounded = format!("#{{?#{{e|<:#{{n:{name}}},{limit}}},,{unset} ; }}");
    // The session as it was when the key was pressed: the popup may take
    // the client elsewhere. `#{q:}` keeps its `$` from tmux's parser.
    let after = format!(
        "set-environment -u -t #{{q:session_id}} -- {}",
        quote_for_tmux(name)
    );
    format!(
        "{set} ; {}",
        run_tmux_command(&format!("{bounded}{popup} ; {after}"))
    )
}

/// `set-environment -u -t $N NAME`: a variable out of a session's environment.
pub(crate) fn unset_session_environment(session: u32, name: &str) -> Cmd {
    Cmd::new("set-environment").args(["-u", "-t", &format!("${session}"), "--", name])
}

/// `if-shell -F FORMAT COMMAND` as a command string: runs COMMAND only when
/// FORMAT expands to something other than empty or 0.
pub(crate) fn if_format(format: &str, command: &str) -> String {
    format!(
        "if-shell -F {} {}",
        quote_for_tmux(format),
        quote_for_tmux(command)
    )
}

/// Quotes one word for tmux's command parser (a hook's or binding's
/// command string, an if-shell branch): double quotes, with `\`, `"`, `$`
/// and `~` escaped (tmux expands variables and a leading `~` there) and
/// every control character written as an escape, so no byte of the word
/// is read as a line break, a comment, a continuation or an expansion.
pub(crate) fn quote_for_tmux(word: &str) -> String {
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('"');
    for c in word.chars() {
        match c {
            '\\' | '"' | '$' | '~' => {
                quoted.push('\\');
                quoted.push(c);
            }
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            '\u{1b}' => quoted.push_str("\\e"),
            c if c.is_ascii_control() => quoted.push_str(&format!("\\{:03o}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// Doubles `#` so tmux's format expansion gives back the text as it was
/// (a name, a folder). A run of `#` just before `[` is left as it is:
/// tmux keeps such a run whole (a style's mark, for whatever draws it),
/// so doubled it would stay doubled.
pub(crate) fn escape_format(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len() + 8);
    let mut hashes = 0;
    for c in text.chars() {
        if c == '#' {
            hashes += 1;
            continue;
        }
        let kept = if c == '[' { hashes } else { hashes * 2 };
        escaped.extend(std::iter::repeat_n('#', kept));
        hashes = 0;
        escaped.push(c);
    }
    escaped.extend(std::iter::repeat_n('#', hashes * 2));
    escaped
}

/// Text tmux draws as it is (an option's value a format puts in): every
/// `#` doubled, so a `#[` shows as itself instead of styling what follows.
pub(crate) fn escape_drawn(text: &str) -> String {
    text.replace('#', "##")
}

/// Text tmux expands as a format and then draws (a popup's title): each
/// pass halves a run of `#`, so it is escaped for both.
pub(crate) fn escape_shown(text: &str) -> String {
    escape_format(&escape_drawn(text))
}

/// A message `display-message` shows: expanded and drawn, with `%`
/// doubled too, as tmux runs a message through strftime (`50%s` would
/// show a time).
pub(crate) fn escape_message(text: &str) -> String {
    escape_shown(text).replace('%', "%%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_line_quotes_literals_and_formats() {
        let line = shell_line(&[
            ShellWord::Literal("/opt/my taw#1/taw".into()),
            ShellWord::Literal("it's".into()),
            ShellWord::Format("hook_pane"),
        ]);
        assert_eq!(
            line,
            r#"'/opt/my taw##1/taw' 'it'\''s' ''#{s/\{/\\{/:#{q:hook_pane}}"#
        );
    }

    #[test]
    fn assignments_are_quoted_values() {
        let line = shell_line(&[ShellWord::Assign("TAW_STATE_DIR", "/a b".into())]);
        assert_eq!(line, "TAW_STATE_DIR='/a b'");
    }

    #[test]
    fn tmux_quoting_keeps_every_byte() {
        assert_eq!(quote_for_tmux("a'b"), r#""a'b""#);
        assert_eq!(quote_for_tmux("plain"), r#""plain""#);
        assert_eq!(
            quote_for_tmux("~/x $HOME \\ \"q\" #{a};"),
            r#""\~/x \$HOME \\ \"q\" #{a};""#
        );
        assert_eq!(
            quote_for_tmux("one\n  two\n# three\\\nend\t\u{1}"),
            r#""one\n  two\n# three\\\nend\t\001""#
        );
    }

    #[test]
    fn a_run_of_hashes_before_a_bracket_is_left_whole() {
        assert_eq!(escape_format("a#b"), "a##b");
        assert_eq!(escape_format("#[x] ##[y] a##"), "#[x] ##[y] a####");
        assert_eq!(escape_drawn("#[x]"), "##[x]");
        // Expanded, then drawn: each halves a run of `#` (a run before `[`
        // is kept whole by the expansion).
        assert_eq!(escape_shown("c##d #[x] ##[y]"), "c########d ##[x] ####[y]");
        assert_eq!(escape_message("50%s #[x]"), "50%%s ##[x]");
    }

    #[test]
    fn options_end_flags_before_values() {
        assert_eq!(
            set_global_option("@x", "-v").words(),
            &["set-option", "-g", "--", "@x", "-v"]
        );
    }
}

/// Text made safe as a literal inside a format (`#{==:...,TEXT}`): `#`, `,`
/// and `}` escaped as tmux reads them there.
pub(crate) fn format_literal(text: &str) -> String {
    escape_format(text).replace(',', "#,").replace('}', "#}")
}

/// Commands as one command string for tmux's parser (an if-shell branch),
/// every word quoted.
pub(crate) fn command_string(cmds: &[Cmd]) -> String {
    cmds.iter()
        .map(|cmd| {
            cmd.words()
                .iter()
                .map(|word| quote_for_tmux(word))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(" ; ")
}

/// What a guarded send prints when it held the commands back.
pub(crate) const HELD_BACK: &str = "taw-held-back";

/// `if-shell -F`: `cmds` run only while pane `target` still has `command`
/// in front (the name the check saw), is in no mode, takes input, and its
/// window does not copy keys to every pane (synchronize-panes); otherwise tmux prints [`HELD_BACK`] and what it found, runs `refused`
/// (a buffer to delete), and runs none of `cmds`. One tmux command, so
/// nothing can come between the test and the send.
pub(crate) fn guarded(target: &str, command: &str, cmds: &[Cmd], refused: &[Cmd]) -> Cmd {
    let test = format!(
        "#{{&&:#{{==:#{{pane_current_command}},{}}},#{{&&:#{{?pane_in_mode,0,1}},#{{&&:#{{?pane_input_off,0,1}},#{{?synchronize-panes,0,1}}}}}}}}",
        format_literal(command)
    );
    let found = format!(
        "{HELD_BACK} #{{pane_in_mode}} #{{pane_input_off}} #{{?synchronize-panes,1,0}} #{{pane_mode}}|#{{pane_current_command}}"
    );
    let mut otherwise = vec![Cmd::new("display-message").args(["-p", "-t", target, &found])];
    otherwise.extend_from_slice(refused);
    Cmd::new("if-shell").args([
        "-F",
        "-t",
        target,
        &test,
        &command_string(cmds),
        &command_string(&otherwise),
    ])
}

/// `if-shell -F`: `cmds` run only while pane option `option` of `target`
/// is empty, in one tmux command, so a writer that sets it first (the
/// watcher) wins.
pub(crate) fn unless_set(target: &str, option: &str, cmds: &[Cmd]) -> Cmd {
    Cmd::new("if-shell").args([
        "-F",
        "-t",
        target,
        &format!("#{{{option}}}"),
        "",
        &command_string(cmds),
    ])
}

/// `if-shell -F`: `cmds` run only while global option `option` is empty,
/// in one tmux command.
pub(crate) fn unless_global_set(option: &str, cmds: &[Cmd]) -> Cmd {
    Cmd::new("if-shell").args(["-F", &format!("#{{{option}}}"), "", &command_string(cmds)])
}

/// What a guarded send found when it held back: in a mode, input off, the
/// window's panes synchronized, the mode's name, and the command in front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldBack {
    pub in_mode: bool,
    pub input_off: bool,
    pub synchronized: bool,
    pub mode: String,
    pub command: String,
}

/// Reads a guarded send's output: `None` when it sent.
pub(crate) fn held_back(output: &str) -> Option<HeldBack> {
    let line = output.lines().find_map(|l| l.strip_prefix(HELD_BACK))?;
    let (flags, command) = line.trim_start().split_once('|').unwrap_or((line, ""));
    let mut words = flags.split_whitespace();
    Some(HeldBack {
        in_mode: words.next() == Some("1"),
        input_off: words.next() == Some("1"),
        synchronized: words.next() == Some("1"),
        mode: words.next().unwrap_or("").to_string(),
        command: command.to_string(),
    })
}

#[cfg(test)]
mod guard_tests {
    use super::*;

    #[test]
    fn guarded_commands_quote_their_words() {
        let send = Cmd::new("send-keys").args(["-l", "-t", "%1", "it's; #{x}"]);
        let cmd = guarded("%1", "claude", &[send], &[]);
        let words = cmd.words();
        assert_eq!(words[0], "if-shell");
        assert!(words[4].contains("#{==:#{pane_current_command},claude}"));
        assert_eq!(words[5], r#""send-keys" "-l" "-t" "%1" "it's; #{x}""#);
        assert_eq!(format_literal("a,b}#"), "a#,b#}##");
    }

    #[test]
    fn a_global_option_set_holds_commands_back() {
        let cmd = unless_global_set("@started_1-2", &[signal("popup_1-2")]);
        assert_eq!(
            cmd.words(),
            [
                "if-shell",
                "-F",
                "#{@started_1-2}",
                "",
                r#""wait-for" "-S" "popup_1-2""#
            ]
        );
    }

    #[test]
    fn reads_what_a_held_send_found() {
        assert_eq!(held_back("sent\n"), None);
        let found = held_back("taw-held-back 1 0 0 copy-mode|bash\n").unwrap();
        assert!(found.in_mode);
        assert!(!found.input_off);
        assert_eq!(found.mode, "copy-mode");
        assert_eq!(found.command, "bash");
        let found = held_back("taw-held-back 0 0 1 |zsh").unwrap();
        assert_eq!(found.command, "zsh");
        assert!(found.synchronized);
    }
}
