//! `taw sandbox`: an agent in a container, for a person at a shell; `taw
//! sandbox new` and `taw sandbox list`: the profiles.

use super::Context;
use crate::config::{Config, schema};
use crate::envelope::{self, Reply, Result};
use crate::exec::Program;
use crate::sandbox::{self, KeptResume};
use crate::tmux::options::pane as opt;
use crate::tmux::pane::{self as tmux_pane, OptionWrites};
use clap::{Args, Subcommand};

const USAGE: &str = "taw sandbox [AGENT] [--profile NAME] [-- AGENT ARGS]...";

#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    override_usage = "taw sandbox [AGENT] [--profile NAME] [-- AGENT ARGS]...\n       taw sandbox new <NAME> [--from PROFILE]\n       taw sandbox list"
)]
pub(crate) struct SandboxArgs {
    #[command(subcommand)]
    pub verb: Option<Verb>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Make a profile of yours in <config>/sandbox/: a copy of taw's default, or of --from.
    New {
        /// The profile's name: letters, digits, ., _ and -.
        name: String,
        /// The profile to copy (default: default).
        #[arg(long)]
        from: Option<String>,
    },
    /// The profiles taw can run, and those it refuses, with why.
    List,
}

/// `taw sandbox [AGENT]`: the agent in a container, in this pane.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The agent (default: [sandbox] agent, claude).
    pub agent: Option<String>,
    /// The profile (default: [sandbox.agents] for the agent, else default).
    #[arg(long)]
    pub profile: Option<String>,
    /// The agent's own arguments.
    #[arg(last = true)]
    pub args: Vec<String>,
    // Placement flags of `agent start` and `taw open`, refused: the place
    // is the pane it is typed in.
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "")]
    pub split: Option<String>,
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "")]
    pub window: Option<String>,
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "")]
    pub session: Option<String>,
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "")]
    pub worktree: Option<String>,
    #[arg(long, hide = true)]
    pub here: bool,
    #[arg(long, hide = true)]
    pub no_focus: bool,
}

impl RunArgs {
    fn placement_flag(&self) -> Option<&'static str> {
        [
            (self.split.is_some(), "--split"),
            (self.window.is_some(), "--window"),
            (self.session.is_some(), "--session"),
            (self.worktree.is_some(), "--worktree"),
            (self.here, "--here"),
            (self.no_focus, "--no-focus"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

pub(crate) fn run(verb: Verb) -> Result<Reply> {
    match verb {
        Verb::New { name, from } => sandbox::create(&name, from.as_deref()).map(Reply::of),
        Verb::List => Config::load()
            .and_then(|config| sandbox::list(&config))
            .map(Reply::of),
    }
}

/// `taw sandbox [AGENT]`: becomes the profile; returns only when it starts
/// nothing, with one line on stderr (a usage error has several).
pub(crate) fn run_for_a_person(context: &Context, args: RunArgs) -> i32 {
    if let Some(flag) = args.placement_flag() {
        eprintln!(
            "error: taw sandbox takes no placement flag ({flag}): it runs the agent in the pane it is typed in\n\nUsage: {USAGE}\n\ntip: make the place first (taw pane split, taw tab create, taw worktree create), go there, and type taw sandbox in it"
        );
        return envelope::EXIT_USAGE;
    }
    let say = |why: &str| {
        eprintln!("taw sandbox: {why}");
        1
    };
    let (config, _) = Config::load_or_defaults();
    let agent = args
        .agent
        .clone()
        .unwrap_or_else(|| config.get(&schema::SANDBOX_AGENT));
    let Ok(dir) = std::env::current_dir() else {
        return say("the current folder cannot be read (was it removed?)");
    };
    let launch = match sandbox::prepare(&config, &agent, args.profile.as_deref(), &args.args, &dir)
    {
        Ok(launch) => launch,
        Err(error) => return say(&error.message),
    };
    // The pane says a container is coming, and keeps how to resume it.
    let pane = calling_pane(context);
    let tmux = context.tmux();
    if let Some(pane) = pane {
        let mut writes = OptionWrites::default();
        writes.set(opt::SANDBOX_PROFILE, launch.profile.name.as_str());
        let kept = KeptResume::from_args(launch.agent.id, &launch.profile.name, &args.args);
        writes.set(opt::SANDBOX_RESUME, kept.value());
        // Unmarked, the agent runs all the same and the watcher still sees
        // its container, only without the profile's name or a resume.
        let _ = tmux_pane::write_options(&tmux, pane, &writes);
    }
    let error = Program::new(&launch.profile.path)
        .args(&launch.args)
        .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .become_it();
    if let Some(pane) = pane {
        let mut writes = OptionWrites::default();
        writes.unset(opt::SANDBOX_PROFILE);
        writes.unset(opt::SANDBOX_RESUME);
        // The failure said below is what matters; a profile mark left on
        // goes when the watcher sees the shell in front.
        let _ = tmux_pane::write_options(&tmux, pane, &writes);
    }
    say(&format!(
        "could not run the profile {}: {error}",
        launch.profile.path.display()
    ))
}

/// The pane taw is typed in, when it runs in one of a tmux server's.
fn calling_pane(context: &Context) -> Option<u32> {
    std::env::var("TMUX").ok().filter(|v| !v.is_empty())?;
    super::pane_number(context, super::CALLING_PANE).ok()
}
