//! The command line: one module per verb group, each with its clap verbs and
//! the code that answers them.

pub(crate) mod agent;
pub(crate) mod api;
pub(crate) mod config;
pub(crate) mod hooks;
pub(crate) mod image;
pub(crate) mod integration;
pub(crate) mod layout;
pub(crate) mod machine;
pub(crate) mod manifest;
pub(crate) mod notification;
pub(crate) mod pane;
pub(crate) mod plugin;
pub(crate) mod popup;
pub(crate) mod sandbox;
pub(crate) mod session;
pub(crate) mod tab;
pub(crate) mod tmux;
pub(crate) mod ui;
pub(crate) mod watch;
pub(crate) mod web;
pub(crate) mod workspace;
pub(crate) mod worktree;

use crate::envelope::{self, Reply, Result, TawError};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{SocketFlags, Tmux};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "taw",
    version = crate::version::line(),
    about = "tmux-agent-wizard: see, reach and script the coding agents in your tmux panes",
    long_about = None,
    propagate_version = true,
    args_override_self = true,
    override_usage = "taw [-L NAME | -S PATH] <GROUP> <VERB> [ARGS]..."
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub globals: Globals,
    #[command(subcommand)]
    pub group: Group,
}

/// The flags before the group.
#[derive(Debug, clap::Args)]
pub(crate) struct Globals {
    /// The tmux server's socket name, as tmux -L.
    #[arg(short = 'L', global = true, value_name = "NAME")]
    pub socket_name: Option<String>,
    /// The tmux server's socket path, as tmux -S.
    #[arg(short = 'S', global = true, value_name = "PATH")]
    pub socket_path: Option<PathBuf>,
    /// Run the verb on a machine of [machines], over ssh (before the verb:
    /// `hooks test --machine` is that verb's own).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Group {
    /// Workspaces: tmux sessions.
    #[command(subcommand)]
    Workspace(workspace::Verb),
    /// Git worktrees: a workspace each, grouped under its repository's.
    #[command(subcommand)]
    Worktree(worktree::Verb),
    /// Tabs: tmux windows.
    #[command(subcommand)]
    Tab(tab::Verb),
    /// Panes.
    #[command(subcommand)]
    Pane(pane::Verb),
    /// Layouts: a tab's split tree.
    #[command(subcommand)]
    Layout(layout::Verb),
    /// Agents: what runs in the panes, and in what state.
    #[command(subcommand)]
    Agent(agent::Verb),
    /// Notifications on the attached clients.
    #[command(subcommand)]
    Notification(notification::Verb),
    /// Detection manifests: each agent's screen rules.
    #[command(subcommand)]
    Manifest(manifest::Verb),
    /// config.toml.
    #[command(subcommand)]
    Config(config::Verb),
    /// [hooks] of config.toml: your commands, run when an event fires.
    #[command(subcommand)]
    Hooks(hooks::Verb),
    /// herdr plugins: their manifests, registry and folders.
    #[command(subcommand)]
    Plugin(plugin::Verb),
    /// Agents' own hooks that tell taw their session and state.
    #[command(subcommand)]
    Integration(integration::Verb),
    /// The watcher that detects the agents in every pane.
    #[command(subcommand)]
    Watch(watch::Verb),
    /// Putting the plugin into a tmux server and taking it out.
    #[command(subcommand)]
    Tmux(tmux::Verb),
    /// The popup: every session, window and agent; `taw ui open` opens it.
    Ui(ui::UiArgs),
    /// The popup over a client, whichever opened it: `taw popup close`.
    #[command(subcommand)]
    Popup(popup::Verb),
    /// Sessions for directories.
    #[command(subcommand)]
    Session(session::Verb),
    /// The web state API and the phone page; `taw web url` is its address.
    Web(web::WebArgs),
    /// Open (or make) the session for a directory or zoxide's match, and go there.
    Open(session::OpenArgs),
    /// An agent in a container, in this pane; `taw sandbox list` shows the profiles.
    Sandbox(sandbox::SandboxArgs),
    /// Other machines, over ssh: [machines] in config.toml.
    #[command(subcommand)]
    Machine(machine::Verb),
    /// Images into an agent: the clipboard's PNG pasted into a pane, here or there.
    #[command(subcommand)]
    Image(image::Verb),
    /// One list of every machine's sessions and agents, live (a terminal's).
    App(machine::AppArgs),
    /// herdr's whole-state answer: `taw api snapshot`.
    #[command(subcommand)]
    Api(api::Verb),
}

/// How a group adds its verbs or arguments to its command.
type Augment = fn(clap::Command) -> clap::Command;

/// Every group of [`Group`] by its name: whether it is a group of verbs
/// (a verb required), and what adds them.
const GROUPS: &[(&str, bool, Augment)] = {
    use clap::{Args as A, Subcommand as S};
    &[
        ("workspace", true, workspace::Verb::augment_subcommands),
        ("worktree", true, worktree::Verb::augment_subcommands),
        ("tab", true, tab::Verb::augment_subcommands),
        ("pane", true, pane::Verb::augment_subcommands),
        ("layout", true, layout::Verb::augment_subcommands),
        ("agent", true, agent::Verb::augment_subcommands),
        (
            "notification",
            true,
            notification::Verb::augment_subcommands,
        ),
        ("manifest", true, manifest::Verb::augment_subcommands),
        ("config", true, config::Verb::augment_subcommands),
        ("hooks", true, hooks::Verb::augment_subcommands),
        ("plugin", true, plugin::Verb::augment_subcommands),
        ("integration", true, integration::Verb::augment_subcommands),
        ("watch", true, watch::Verb::augment_subcommands),
        ("tmux", true, tmux::Verb::augment_subcommands),
        ("ui", false, ui::UiArgs::augment_args),
        ("popup", true, popup::Verb::augment_subcommands),
        ("session", true, session::Verb::augment_subcommands),
        ("web", false, web::WebArgs::augment_args),
        ("open", false, session::OpenArgs::augment_args),
        ("sandbox", false, sandbox::SandboxArgs::augment_args),
        ("machine", true, machine::Verb::augment_subcommands),
        ("image", true, image::Verb::augment_subcommands),
        ("app", false, machine::AppArgs::augment_args),
        ("api", true, api::Verb::augment_subcommands),
    ]
};

/// [`Cli`]'s command with each group's verbs added only when clap reaches
/// that group (`Command::defer`): a verb builds its own group, not the 24.
/// It parses what the derived command parses, into the same [`Cli`]; the
/// groups' descriptions, which only help shows, are left out.
fn lean_command() -> clap::Command {
    use clap::Args;
    let mut root = Globals::augment_args(
        clap::Command::new("taw")
            .version(crate::version::line())
            .propagate_version(true)
            // herdr's parser keeps a flag's last value: a script's
            // `--workspace A ... --workspace B` means B, not an error.
            .args_override_self(true)
            .subcommand_required(true)
            .arg_required_else_help(true),
    );
    for (name, verbs, augment) in GROUPS {
        let group = clap::Command::new(*name).defer(*augment);
        root = root.subcommand(if *verbs {
            group.subcommand_required(true).arg_required_else_help(true)
        } else {
            group
        });
    }
    root
}

/// What every verb gets: how to reach tmux.
pub(crate) struct Context {
    pub flags: SocketFlags,
    /// The envelope's id, from the verb clap parsed (`cli:pane:get`).
    pub envelope: String,
}

impl Context {
    pub(crate) fn tmux(&self) -> Tmux {
        Tmux::locate(&self.flags)
    }

    /// One snapshot of the server.
    pub(crate) fn snapshot(&self) -> Result<Snapshot> {
        Snapshot::read(&self.tmux())
    }
}

/// Parses the command line, runs the verb, prints its answer; returns the
/// exit status.
pub(crate) fn run() -> i32 {
    // A verb is parsed by a command whose groups are built only when typed
    // ([`lean_command`]): the whole tree was two thirds of taw's start.
    // Anything clap has to say (help, a version, a usage error) comes from
    // the whole command as derived, the same words as ever; the listing of
    // verbs costs a build of its own, made only for the help that shows it.
    let matches = match lean_command()
        .try_get_matches()
        .or_else(|error| match error.kind() {
            // The same words from either command: said at once (the entry
            // script asks each binary it finds).
            clap::error::ErrorKind::DisplayVersion => Err(error),
            _ => Cli::command().try_get_matches(),
        })
        .or_else(|error| match error.kind() {
            clap::error::ErrorKind::DisplayHelp
            | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                Cli::command().after_help(verb_listing()).try_get_matches()
            }
            _ => Err(error),
        }) {
        Ok(matches) => matches,
        Err(error) => {
            // Nowhere else to say it when the terminal is gone; the exit
            // status still tells.
            let _ = error.print();
            return if error.use_stderr() {
                envelope::EXIT_USAGE
            } else {
                envelope::EXIT_OK
            };
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => {
            // As above: the exit status tells.
            let _ = error.print();
            return envelope::EXIT_USAGE;
        }
    };
    let context = Context {
        flags: SocketFlags {
            name: cli.globals.socket_name.clone(),
            path: cli.globals.socket_path.clone(),
        },
        envelope: envelope_of(&matches),
    };
    if let Some(name) = &cli.globals.machine {
        return machine::forward(name, args_without_machine());
    }
    let group = match cli.group {
        Group::Open(args) => return session::open_for_a_person(&context, args),
        Group::App(args) => return crate::app::run(context.tmux(), args.go),
        Group::Agent(agent::Verb::Attach { target, takeover }) => {
            return agent::attach_for_a_person(&context, &target, takeover);
        }
        Group::Sandbox(sandbox::SandboxArgs { verb: None, run }) => {
            return sandbox::run_for_a_person(&context, run);
        }
        group => group,
    };
    envelope::emit(&context.envelope, dispatch(&context, group))
}

fn dispatch(context: &Context, group: Group) -> Result<Reply> {
    match group {
        Group::Workspace(verb) => workspace::run(context, verb),
        Group::Worktree(verb) => worktree::run(context, verb),
        Group::Tab(verb) => tab::run(context, verb),
        Group::Pane(verb) => pane::run(context, verb),
        Group::Agent(verb) => agent::run(context, verb),
        Group::Layout(verb) => layout::run(context, verb),
        Group::Manifest(verb) => manifest::run(context, verb),
        Group::Notification(verb) => notification::run(context, verb),
        Group::Config(verb) => config::run(context, verb),
        Group::Hooks(verb) => hooks::run(context, verb),
        Group::Plugin(verb) => plugin::run(context, verb),
        Group::Integration(verb) => integration::run(context, verb),
        Group::Tmux(verb) => tmux::run(context, verb),
        Group::Watch(verb) => watch::run(context, verb),
        Group::Ui(args) => ui::run(context, args),
        Group::Popup(verb) => popup::run(context, verb),
        Group::Session(verb) => session::run(context, verb),
        Group::Web(args) => web::run(context, args),
        Group::Machine(verb) => machine::run(context, verb),
        Group::Image(verb) => image::run(context, verb),
        Group::Api(verb) => api::run(context, verb),
        Group::Sandbox(sandbox::SandboxArgs {
            verb: Some(verb), ..
        }) => sandbox::run(verb),
        // `run` hands `taw open` and `taw sandbox` to their own answers
        // before this.
        Group::Open(_) | Group::Sandbox(_) | Group::App(_) => Ok(Reply::Nothing),
    }
}

/// This process's arguments without the `--machine NAME` before the verb:
/// what runs there (a verb's own `--machine` goes along).
fn args_without_machine() -> Vec<String> {
    let mut args = Vec::new();
    let mut words = std::env::args().skip(1);
    let mut taken = false;
    while let Some(word) = words.next() {
        if !taken && word == "--machine" {
            words.next();
            taken = true;
            continue;
        }
        if !taken && word.starts_with("--machine=") {
            taken = true;
            continue;
        }
        args.push(word);
    }
    args
}

/// The envelope's id of the verb clap parsed: the names of its group,
/// its verb and theirs below it as typed (`cli:pane:get`,
/// `cli:plugin:log:list`); `cli:<group>` for a group with none.
fn envelope_of(matches: &clap::ArgMatches) -> String {
    let mut id = String::from("cli");
    let mut level = matches;
    while let Some((name, below)) = level.subcommand() {
        id.push(':');
        id.push_str(name);
        level = below;
    }
    // herdr's own spelling where it is not the verb's (scripts compare the
    // id: herdr 0.9 answers `pane process-info` as `process_info`).
    match id.as_str() {
        "cli:pane:process-info" => "cli:pane:process_info".to_string(),
        _ => id,
    }
}

/// Every verb, one a line, for `taw --help`.
fn verb_listing() -> String {
    let mut lines = vec!["Verbs:".to_string()];
    let root = Cli::command();
    for group in root.get_subcommands() {
        for verb in group.get_subcommands().filter(|verb| !verb.is_hide_set()) {
            let about = verb.get_about().map(|a| a.to_string()).unwrap_or_default();
            lines.push(format!(
                "  taw {} {:<10} {about}",
                group.get_name(),
                verb.get_name()
            ));
        }
    }
    lines.push(String::new());
    lines.push("Ids: a workspace is w1 or $0, a tab w1:t2 or @1, a pane w1:p3 or %2.".into());
    lines.push(
        "JSON answers go to stdout (exit 0); errors to stderr (exit 1); usage errors exit 2."
            .into(),
    );
    lines.join("\n")
}

/// `K=V` pairs of `--env`.
pub(crate) fn parse_env(pairs: &[String]) -> Result<Vec<(String, String)>> {
    pairs
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if crate::text::is_env_name(name) => {
                Ok((name.to_string(), value.to_string()))
            }
            _ => Err(TawError::invalid_argument(format!(
                "--env {pair:?} is not NAME=VALUE"
            ))),
        })
        .collect()
}

/// The pane taw is called for, as herdr reads it: `HERDR_PANE_ID` when it
/// names a pane of this server (a plugin's process is given the pane it
/// runs for, or its own), else the pane taw runs in.
pub(crate) fn calling_pane(snapshot: &Snapshot) -> Option<u32> {
    let named = ["HERDR_PANE_ID", "TAW_PANE_ID"]
        .into_iter()
        .find_map(|name| {
            let id = std::env::var(name).ok()?;
            // `%calling`, tmux's environment's word, is the pane taw runs in.
            (id.trim() != CALLING_PANE)
                .then(|| crate::model::resolve::pane(snapshot, &id).ok())
                .flatten()
                .map(|pane| pane.id)
        });
    named.or_else(|| running_pane(snapshot))
}

/// The client a person typed taw on, when taw runs in a pane of this
/// server: of the clients showing that pane's session, the one used last.
pub(crate) fn terminal_client(snapshot: &Snapshot) -> Option<&str> {
    let pane = snapshot.pane_as_seen(running_pane(snapshot)?)?;
    snapshot
        .last_client_on(Some(pane.session))
        .map(|client| client.name.as_str())
}

/// The pane taw runs in, when it runs in a pane of this server.
fn running_pane(snapshot: &Snapshot) -> Option<u32> {
    let pane = std::env::var("TMUX_PANE").ok()?;
    let id = crate::tmux::ids::tmux_number(&pane, '%')?;
    // $TMUX_PANE names a pane of the server in $TMUX; taw may be pointed at
    // another server, where the same number is another pane.
    let tmux_env = std::env::var("TMUX").ok()?;
    let socket = tmux_env.split(',').next()?;
    if socket != snapshot.server.socket_path {
        return None;
    }
    snapshot.pane(id, None).map(|pane| pane.id)
}

/// herdr's `HERDR_PANE_ID` as taw puts it in tmux's environment: a fixed
/// word that stands for the pane the process runs in.
pub(crate) const CALLING_PANE: &str = "%calling";

/// The pane a verb's pane id names. herdr gives every pane its own id in
/// `HERDR_PANE_ID`, so a script passes that to any verb; here the pane's
/// variable is `%calling`, which every verb that takes a pane id takes as
/// the pane it is called for ([`calling_pane`]).
pub(crate) fn named_pane<'a>(
    snapshot: &'a crate::tmux::snapshot::Snapshot,
    text: &str,
) -> Result<&'a crate::tmux::snapshot::Pane> {
    if text.trim() == CALLING_PANE {
        return calling_pane(snapshot)
            .and_then(|id| snapshot.pane(id, None))
            .ok_or_else(no_current_pane);
    }
    crate::model::resolve::pane(snapshot, text)
}

/// The pane of the agent a target names: an agent's name, a pane id, or
/// `%calling` ([`named_pane`]).
pub(crate) fn named_agent<'a>(
    snapshot: &'a crate::tmux::snapshot::Snapshot,
    text: &str,
) -> Result<&'a crate::tmux::snapshot::Pane> {
    if text.trim() == CALLING_PANE {
        let pane = named_pane(snapshot, text)?;
        return crate::model::resolve::agent(snapshot, &format!("%{}", pane.id));
    }
    crate::model::resolve::agent(snapshot, text)
}

/// The tmux number of the pane a verb names: `%calling` (the pane taw runs
/// in), `%N` (checked by the verb's own tmux call), or a public id.
pub(crate) fn pane_number(context: &Context, text: &str) -> Result<u32> {
    if text.trim() == CALLING_PANE {
        let pane = std::env::var("TMUX_PANE").map_err(|_| no_current_pane())?;
        return crate::tmux::ids::tmux_number(&pane, '%').ok_or_else(no_current_pane);
    }
    if let Some(n) = crate::tmux::ids::tmux_number(text.trim(), '%') {
        return Ok(n);
    }
    let snapshot = context.snapshot()?;
    crate::model::resolve::pane(&snapshot, text).map(|pane| pane.id)
}

/// A text given as words, joined with spaces as herdr joins them: the
/// first may begin with `-` (it is text), the rest may not (a flag after
/// them is still a flag).
pub(crate) fn joined(first: String, more: Vec<String>) -> String {
    std::iter::once(first)
        .chain(more)
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn no_current_pane() -> TawError {
    TawError::not_found(
        "no current pane: taw is not running in a pane of this tmux server ($TMUX_PANE is not set); name a pane with --pane",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_is_named_by_the_verb_clap_parsed() {
        let id = |args: &[&str]| envelope_of(&lean_command().try_get_matches_from(args).unwrap());
        assert_eq!(id(&["taw", "pane", "get", "%1"]), "cli:pane:get");
        assert_eq!(
            id(&["taw", "pane", "send-text", "%1", "hi"]),
            "cli:pane:send-text"
        );
        assert_eq!(id(&["taw", "-L", "x", "pane", "list"]), "cli:pane:list");
        assert_eq!(id(&["taw", "plugin", "log", "list"]), "cli:plugin:log:list");
        assert_eq!(id(&["taw", "tmux", "load"]), "cli:tmux:load");
    }

    /// Each command below `command`, by its path, with its whole help.
    fn helps(command: &mut clap::Command, path: &str, into: &mut Vec<(String, String)>) {
        // `help` is clap's own, made of the descriptions: its words always
        // come from the derived command.
        for sub in command
            .get_subcommands_mut()
            .filter(|sub| sub.get_name() != "help")
        {
            let path = format!("{path} {}", sub.get_name());
            into.push((path.clone(), sub.render_long_help().to_string()));
            helps(sub, &path, into);
        }
    }

    /// The lean command is the derived one with the groups' descriptions
    /// left out: the same groups, the same settings, and every verb with
    /// the same arguments, usage and help.
    #[test]
    fn the_lean_command_parses_what_the_derived_one_does() {
        let mut lean = lean_command();
        let mut derived = Cli::command();
        lean.build();
        derived.build();
        let names = |c: &clap::Command| {
            c.get_subcommands()
                .filter(|s| s.get_name() != "help")
                .map(|s| s.get_name().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&lean), names(&derived));
        for (l, d) in lean
            .get_subcommands()
            .zip(derived.get_subcommands())
            .filter(|(l, _)| l.get_name() != "help")
        {
            assert_eq!(
                (
                    l.is_subcommand_required_set(),
                    l.is_arg_required_else_help_set(),
                    l.is_args_conflicts_with_subcommands_set(),
                    l.get_overridden_usage().map(|u| u.to_string()),
                    names(l),
                ),
                (
                    d.is_subcommand_required_set(),
                    d.is_arg_required_else_help_set(),
                    d.is_args_conflicts_with_subcommands_set(),
                    d.get_overridden_usage().map(|u| u.to_string()),
                    names(d),
                ),
                "group {}",
                l.get_name()
            );
        }
        let (mut lean_helps, mut derived_helps) = (Vec::new(), Vec::new());
        for (l, d) in lean
            .get_subcommands_mut()
            .zip(derived.get_subcommands_mut())
            .filter(|(l, _)| l.get_name() != "help")
        {
            let path = format!("taw {}", l.get_name());
            helps(l, &path, &mut lean_helps);
            helps(d, &path, &mut derived_helps);
        }
        assert!(lean_helps.len() > 100, "{}", lean_helps.len());
        for (l, d) in lean_helps.iter().zip(&derived_helps) {
            assert_eq!(l, d);
        }
        assert_eq!(lean_helps.len(), derived_helps.len());
        lean.debug_assert();
    }

    /// A version is said from the lean command: the same words.
    #[test]
    fn the_lean_command_says_the_same_version() {
        for args in [&["taw", "--version"][..], &["taw", "pane", "--version"][..]] {
            let lean = lean_command().try_get_matches_from(args).unwrap_err();
            let derived = Cli::command().try_get_matches_from(args).unwrap_err();
            assert_eq!(lean.kind(), clap::error::ErrorKind::DisplayVersion);
            assert_eq!(lean.to_string(), derived.to_string());
        }
    }

    /// What a command line parses into, written out.
    fn parsed(args: &[&str]) -> String {
        let matches = lean_command().try_get_matches_from(args).unwrap();
        format!("{:?}", Cli::from_arg_matches(&matches).unwrap())
    }

    /// A flag given twice keeps its last value, as herdr's parser does;
    /// a flag that gathers (`--env`) keeps every one.
    #[test]
    fn a_flag_given_twice_keeps_its_last_value() {
        let parse = parsed;
        let twice = parse(&[
            "taw",
            "tab",
            "list",
            "--workspace",
            "w1",
            "--workspace",
            "w2",
        ]);
        assert_eq!(twice, parse(&["taw", "tab", "list", "--workspace", "w2"]));
        let envs = parse(&["taw", "tab", "create", "--env", "A=1", "--env", "B=2"]);
        assert!(envs.contains("A=1") && envs.contains("B=2"), "{envs}");
    }

    /// Text that begins with `-` is text, as herdr takes the word after
    /// a flag or a target whatever it is; the flags after it still count.
    #[test]
    fn text_that_begins_with_a_hyphen_is_text() {
        let parse = parsed;
        let prompt = parse(&["taw", "agent", "prompt", "bot", "- fix it", "--wait"]);
        assert!(prompt.contains(r#"text: "- fix it""#), "{prompt}");
        assert!(prompt.contains("wait: true"), "{prompt}");
        let words = parse(&[
            "taw",
            "agent",
            "prompt",
            "bot",
            "fix",
            "it",
            "--timeout",
            "5",
        ]);
        assert!(
            words.contains(r#"more: ["it"]"#) && words.contains("Some(5)"),
            "{words}"
        );
        for args in [
            &["taw", "tab", "rename", "w1:t1", "-x"][..],
            &["taw", "workspace", "rename", "w1", "-x"][..],
            &["taw", "pane", "rename", "%1", "-x"][..],
            &["taw", "tab", "create", "--label", "-x"][..],
            &["taw", "workspace", "create", "--label", "-x"][..],
            &[
                "taw",
                "pane",
                "report-metadata",
                "%1",
                "--source",
                "s",
                "--title",
                "-x",
            ][..],
        ] {
            assert!(parse(args).contains(r#""-x""#), "{args:?}: {}", parse(args));
        }
        // A flag after the words is still a flag, -L and --help too.
        let matches = lean_command()
            .try_get_matches_from([
                "taw",
                "workspace",
                "rename",
                "w1",
                "-x",
                "api",
                "-L",
                "work",
            ])
            .unwrap();
        let cli = format!("{:?}", Cli::from_arg_matches(&matches).unwrap());
        assert!(cli.contains(r#"label: "-x", more: ["api"]"#), "{cli}");
        assert!(cli.contains(r#"socket_name: Some("work")"#), "{cli}");
        let help =
            lean_command().try_get_matches_from(["taw", "tab", "rename", "w1:t1", "x", "--help"]);
        assert_eq!(
            help.unwrap_err().kind(),
            clap::error::ErrorKind::DisplayHelp
        );
        // herdr's older `agent wait --status`.
        let wait = parse(&["taw", "agent", "wait", "bot", "--status", "idle"]);
        assert!(wait.contains("until: [Idle]"), "{wait}");
        // A flag the verb knows is still that flag.
        let clear = parse(&["taw", "pane", "rename", "%1", "--clear"]);
        assert!(clear.contains("clear: true"), "{clear}");
    }

    #[test]
    fn a_verb_parses_into_the_same_cli() {
        for args in [
            &["taw", "-L", "x", "pane", "get", "%3"][..],
            &["taw", "pane", "get", "%3", "-S", "/tmp/s"][..],
            &["taw", "--machine", "box", "workspace", "list"][..],
            &["taw", "web", "--listen", "127.0.0.1:1"][..],
            &["taw", "ui"][..],
            &[
                "taw",
                "tab",
                "list",
                "--workspace",
                "w1",
                "--workspace",
                "w2",
            ][..],
            &[
                "taw",
                "pane",
                "list",
                "--workspace",
                "w1",
                "--workspace",
                "w2",
            ][..],
        ] {
            let lean = lean_command().try_get_matches_from(args).unwrap();
            let derived = Cli::command().try_get_matches_from(args).unwrap();
            assert_eq!(
                format!("{:?}", Cli::from_arg_matches(&lean).unwrap()),
                format!("{:?}", Cli::from_arg_matches(&derived).unwrap()),
            );
        }
    }
}
