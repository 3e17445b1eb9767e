//! `taw pane`: tmux panes as herdr panes.

use super::{Context, calling_pane, named_pane, no_current_pane, pane_number, parse_env};
use crate::envelope::{Reply, Result, TawError};
use crate::model::resolve;
use crate::ops::metadata::{self, PaneReport};
use crate::ops::pane::arrange::{self, Direction, ZoomMode};
pub(crate) use crate::ops::pane::input::Source;
use crate::ops::pane::input::{self, ReadSpec};
use crate::ops::pane::moving::{self, Destination};
use crate::ops::pane::report::{self, Reporter, SessionRef};
use crate::ops::pane::{self as op, NewPane, clear};
use crate::tmux::Tmux;
use crate::tmux::arrange::Spawn;
use crate::tmux::ids::{self, PaneRef};
use crate::tmux::keys;
use crate::tmux::snapshot::{Pane, Snapshot};
use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    #[command(flatten)]
    Record(RecordVerb),
    /// One pane's record.
    Get {
        /// A pane id: w1:p3 or %2.
        pane: String,
    },
    #[command(flatten)]
    Change(ChangeVerb),
    #[command(flatten)]
    Arrange(ArrangeVerb),
    #[command(flatten)]
    Input(InputVerb),
    #[command(flatten)]
    Report(ReportVerb),
}

/// Verbs that read records of panes from one snapshot.
#[derive(Debug, Subcommand)]
pub(crate) enum RecordVerb {
    /// List every pane, or the panes of one workspace.
    List {
        /// Only this workspace's panes.
        #[arg(long)]
        workspace: Option<String>,
    },
    /// The pane taw runs in, else the pane in front of the last-used client.
    Current {
        /// This pane instead.
        #[arg(long, conflicts_with = "current")]
        pane: Option<String>,
        /// The pane taw runs in ($TMUX_PANE); an error outside tmux.
        #[arg(long)]
        current: bool,
    },
    /// The pane on one side, if any.
    Neighbor {
        #[arg(long, value_enum)]
        direction: Direction,
        #[command(flatten)]
        sel: PaneSel,
    },
    /// Which edges of the window a pane touches.
    Edges {
        #[command(flatten)]
        sel: PaneSel,
    },
    /// The layout of a pane's window: every pane and split with its rectangle.
    Layout {
        #[command(flatten)]
        sel: PaneSel,
    },
    /// The processes in front of a pane's terminal.
    ProcessInfo {
        #[command(flatten)]
        sel: PaneSel,
    },
}

/// Verbs that make, close, rename or clear a pane.
#[derive(Debug, Subcommand)]
pub(crate) enum ChangeVerb {
    /// Split a pane: a new one to its right or below it.
    Split(SplitArgs),
    /// Close a pane.
    Close {
        pane: String,
        /// Close even when config.toml does not parse (a `[hooks]
        /// pre_close` there cannot be asked).
        #[arg(long)]
        force: bool,
    },
    /// Give a pane a label (shown in its record), or clear it.
    Rename {
        pane: String,
        /// The label (more words after it are joined to it).
        #[arg(required_unless_present = "clear", allow_hyphen_values = true)]
        label: Option<String>,
        #[arg(hide = true)]
        more: Vec<String>,
        #[arg(long, conflicts_with = "label")]
        clear: bool,
    },
    /// Clear a pane's history, and its screen when its shell is at its prompt.
    Clear {
        id: Option<String>,
        #[command(flatten)]
        sel: PaneSel,
    },
}

/// Verbs that arrange panes: focus, size, zoom, swap, move.
#[derive(Debug, Subcommand)]
pub(crate) enum ArrangeVerb {
    /// Go to the pane on one side.
    Focus {
        #[arg(long, value_enum)]
        direction: Direction,
        #[command(flatten)]
        sel: PaneSel,
    },
    /// Grow a pane toward one side by a share of the window.
    Resize {
        #[arg(long, value_enum)]
        direction: Direction,
        #[arg(long, default_value_t = 0.05)]
        amount: f64,
        #[command(flatten)]
        sel: PaneSel,
    },
    /// Zoom a pane to the whole window, or back.
    Zoom {
        id: Option<String>,
        #[command(flatten)]
        sel: PaneSel,
        #[arg(long, conflicts_with_all = ["on", "off"])]
        toggle: bool,
        #[arg(long, conflicts_with = "off")]
        on: bool,
        #[arg(long)]
        off: bool,
    },
    /// Swap a pane with its neighbour, or two panes.
    Swap {
        #[arg(long, value_enum)]
        direction: Option<Direction>,
        #[command(flatten)]
        sel: PaneSel,
        #[arg(long)]
        source_pane: Option<String>,
        #[arg(long)]
        target_pane: Option<String>,
    },
    /// Move a pane to another tab, a tab of its own, or a workspace of its own.
    Move(MoveArgs),
}

/// Verbs that read a pane's text or type into it.
#[derive(Debug, Subcommand)]
pub(crate) enum InputVerb {
    /// Print the pane's text (the screen, or its last rows with history).
    Read(ReadArgs),
    /// Type text into the pane, as it is.
    SendText {
        pane: String,
        // Every word after the pane is text, as herdr joins them: `-S x`
        // or `--version` there is no flag of taw's.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        text: Vec<String>,
    },
    /// Send keys (herdr's names: enter, ctrl+c, alt+x...); all are checked first.
    SendKeys {
        pane: String,
        #[arg(required = true)]
        keys: Vec<String>,
    },
    /// Type a command line and Enter (pasted, bracketed if the program asked).
    Run {
        pane: String,
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// Wait until a line of the pane contains text or matches a regex.
    WaitOutput(WaitArgs),
}

/// Verbs by which an agent or a script reports on its pane.
#[derive(Debug, Subcommand)]
pub(crate) enum ReportVerb {
    /// An integration reports its agent's state (herdr's arguments).
    ReportAgent(ReportArgs),
    /// An integration reports its agent's session, not its state.
    ReportAgentSession(SessionArgs),
    /// An integration gives the pane up: its report and resume command go.
    ReleaseAgent(ReleaseArgs),
    /// Say what a pane shows (herdr's metadata): a title, a display name,
    /// labels for its states, tokens. Display only.
    ReportMetadata(MetadataArgs),
}

/// Which pane a verb is about: an id, `--pane ID`, `--current` (the pane
/// taw runs in), or else the pane taw runs in, or the one in front.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct PaneSel {
    /// The pane: %N, w1:pN, or %calling.
    #[arg(long = "pane", value_name = "ID")]
    pub pane: Option<String>,
    /// The pane taw runs in ($TMUX_PANE).
    #[arg(long, conflicts_with = "pane")]
    pub current: bool,
}

impl PaneSel {
    pub(crate) fn resolve<'a>(
        &self,
        snapshot: &'a Snapshot,
        positional: Option<&str>,
    ) -> Result<&'a Pane> {
        let calling = || {
            let id = calling_pane(snapshot).ok_or_else(no_current_pane)?;
            snapshot.pane(id, None).ok_or_else(no_current_pane)
        };
        if let Some(text) = positional.or(self.pane.as_deref()) {
            return named_pane(snapshot, text);
        }
        if self.current {
            return calling();
        }
        match calling_pane(snapshot) {
            Some(_) => calling(),
            None => snapshot
                .focused_pane()
                .ok_or_else(|| TawError::not_found("the tmux server has no pane")),
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum SplitDirection {
    Right,
    Down,
}

#[derive(Debug, Args)]
pub(crate) struct SplitArgs {
    /// The pane to split (else --pane, --current, or the pane in front).
    pub id: Option<String>,
    #[command(flatten)]
    pub sel: PaneSel,
    #[arg(long, value_enum)]
    pub direction: SplitDirection,
    /// The share the pane being split keeps (0.1 to 0.9; default 0.5).
    #[arg(long, default_value_t = 0.5)]
    pub ratio: f64,
    #[arg(long)]
    pub cwd: Option<String>,
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// herdr's right-click routing; tmux's mouse rules decide.
    #[arg(long, value_name = "herdr|pane")]
    pub right_click: Option<String>,
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long)]
    pub no_focus: bool,
}

#[derive(Debug, Args)]
pub(crate) struct MoveArgs {
    /// The pane to move.
    pub pane: String,
    /// Into this tab, beside or below a pane of it (see --split).
    #[arg(long, conflicts_with_all = ["new_tab", "new_workspace"], requires = "split")]
    pub tab: Option<String>,
    #[arg(long, value_enum)]
    pub split: Option<SplitDirection>,
    /// The pane of --tab to go beside (default: its active pane).
    #[arg(long)]
    pub target_pane: Option<String>,
    /// The share the target pane keeps (0.1 to 0.9).
    #[arg(long, default_value_t = 0.5)]
    pub ratio: f64,
    /// Into a tab of its own.
    #[arg(long, conflicts_with = "new_workspace")]
    pub new_tab: bool,
    /// With --new-tab: the workspace of the new tab.
    #[arg(long, requires = "new_tab")]
    pub workspace: Option<String>,
    /// The new workspace's (or with --new-tab, the new tab's) name.
    #[arg(long, allow_hyphen_values = true)]
    pub label: Option<String>,
    /// Into a workspace of its own.
    #[arg(long)]
    pub new_workspace: bool,
    /// With --new-workspace: its tab's name.
    #[arg(long, requires = "new_workspace", allow_hyphen_values = true)]
    pub tab_label: Option<String>,
    /// Show the moved pane on the client used last (the default).
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    /// Leave every client where it is.
    #[arg(long)]
    pub no_focus: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum Format {
    Text,
    Ansi,
}

/// What `pane read` and `agent read` read, and how.
#[derive(Debug, Args)]
pub(crate) struct ReadFlags {
    #[arg(long, value_enum, default_value = "recent")]
    pub source: Source,
    /// The last N lines (recent: N rows of history and screen; at most 1000).
    #[arg(long)]
    pub lines: Option<usize>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// The same as --format ansi.
    #[arg(long)]
    pub ansi: bool,
}

impl ReadFlags {
    /// The read, in colour when `also_ansi` or the flags ask for it.
    pub(crate) fn spec(&self, also_ansi: bool) -> ReadSpec {
        ReadSpec {
            source: self.source,
            lines: self.lines,
            ansi: also_ansi || self.ansi || self.format == Format::Ansi,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// The pane: %N, w1:pN, or %calling.
    pub pane: String,
    #[command(flatten)]
    pub read: ReadFlags,
    /// Colours and all, nothing taken out.
    #[arg(long)]
    pub raw: bool,
}

#[derive(Debug, Args)]
pub(crate) struct WaitArgs {
    pub pane: String,
    /// Text a line must contain.
    #[arg(
        long = "match",
        conflicts_with = "regex",
        required_unless_present = "regex",
        allow_hyphen_values = true
    )]
    pub matching: Option<String>,
    /// A regular expression a line must match.
    #[arg(long, allow_hyphen_values = true)]
    pub regex: Option<String>,
    #[arg(long, value_enum, default_value = "recent")]
    pub source: Source,
    #[arg(long)]
    pub lines: Option<usize>,
    /// Give up after this many milliseconds (no limit without it).
    #[arg(long)]
    pub timeout: Option<u64>,
    /// Match and answer with colours kept.
    #[arg(long)]
    pub raw: bool,
}

/// Who reports, about which agent in which pane: every report verb's start.
#[derive(Debug, Args)]
pub(crate) struct ReporterArgs {
    /// The pane: %N, w1:pN, or %calling (the pane this runs in).
    pane: String,
    /// Who reports (`herdr:pi`, `custom:mybot`...), at most 128 bytes.
    #[arg(long)]
    source: String,
    /// The agent: a known id (claude, pi...) or a name of your own.
    #[arg(long)]
    agent: String,
    /// This source's report number; lower or equal ones are ignored.
    #[arg(long)]
    seq: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    #[command(flatten)]
    who: ReporterArgs,
    /// idle, working, blocked or unknown.
    #[arg(long)]
    state: String,
    /// A word on what the agent does, for display.
    #[arg(long, allow_hyphen_values = true)]
    message: Option<String>,
    #[arg(long)]
    agent_session_id: Option<String>,
    #[arg(long)]
    agent_session_path: Option<String>,
    /// The command that resumes the agent's session.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct SessionArgs {
    #[command(flatten)]
    who: ReporterArgs,
    #[arg(long)]
    agent_session_id: Option<String>,
    #[arg(long)]
    agent_session_path: Option<String>,
    /// How the session began: startup, resume, clear, compact, new, fork.
    #[arg(long)]
    session_start_source: Option<String>,
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ReleaseArgs {
    #[command(flatten)]
    who: ReporterArgs,
}

#[derive(Debug, Args)]
pub(crate) struct MetadataArgs {
    /// The pane: %N, w1:pN, or %calling (the pane this runs in).
    pane: String,
    #[command(flatten)]
    report: super::workspace::TokenArgs,
    /// Show the title, display name and labels only if the pane's agent
    /// is this one (the tokens apply anyway).
    #[arg(long)]
    agent: Option<String>,
    /// Show them only if this source holds the pane's state.
    #[arg(long)]
    applies_to_source: Option<String>,
    /// A title for the pane (an empty one clears it).
    #[arg(long, conflicts_with = "clear_title", allow_hyphen_values = true)]
    title: Option<String>,
    /// Take the title off.
    #[arg(long)]
    clear_title: bool,
    /// The agent's name as the pane shows it.
    #[arg(
        long,
        conflicts_with = "clear_display_agent",
        allow_hyphen_values = true
    )]
    display_agent: Option<String>,
    /// Take the display name off.
    #[arg(long)]
    clear_display_agent: bool,
    /// A word for a state: idle, working, blocked, done or unknown, then
    /// its text (an empty text clears it).
    #[arg(
        long = "state-label",
        value_name = "STATUS=TEXT",
        conflicts_with = "clear_state_labels"
    )]
    state_labels: Vec<String>,
    /// Take every state label off.
    #[arg(long)]
    clear_state_labels: bool,
}

impl ReporterArgs {
    fn reporter(self, context: &Context) -> Result<Reporter> {
        Ok(Reporter {
            pane: pane_number(context, &self.pane)?,
            source: self.source,
            agent: self.agent,
            seq: self.seq,
        })
    }
}

pub(crate) fn run(context: &Context, verb: Verb) -> Result<Reply> {
    answer(context, verb)
}

fn answer(context: &Context, verb: Verb) -> Result<Reply> {
    let tmux = context.tmux();
    match verb {
        // These check what they are given before any snapshot, or need none.
        Verb::Input(verb) => input_verb(context, &tmux, verb),
        Verb::Report(verb) => report_verb(context, &tmux, verb),
        Verb::Get { pane } => get(context, &pane),
        Verb::Record(verb) => record_verb(&context.snapshot()?, verb),
        Verb::Change(verb) => change_verb(&tmux, &context.snapshot()?, verb),
        Verb::Arrange(verb) => arrange_verb(&tmux, &context.snapshot()?, verb),
    }
}

/// Reading a pane's text and typing into it.
fn input_verb(context: &Context, tmux: &Tmux, verb: InputVerb) -> Result<Reply> {
    Ok(match verb {
        InputVerb::Read(args) => {
            let pane = pane_number(context, &args.pane)?;
            let read = input::read(tmux, &context.snapshot()?, pane, args.read.spec(args.raw))?;
            Reply::Text(read.text)
        }
        InputVerb::SendText { pane, text } => {
            input::send_text(tmux, pane_number(context, &pane)?, &text.join(" "))?;
            Reply::Nothing
        }
        InputVerb::SendKeys { pane, keys } => {
            // Every key is checked before any is sent.
            let keys = keys::all_to_tmux(&keys)?;
            input::send_keys(tmux, pane_number(context, &pane)?, &keys)?;
            Reply::Nothing
        }
        InputVerb::Run { pane, command } => {
            input::run(tmux, pane_number(context, &pane)?, &command.join(" "))?;
            Reply::Nothing
        }
        InputVerb::WaitOutput(args) => {
            let matcher = input::Matcher::new(args.matching.as_deref(), args.regex.as_deref())?;
            let pane = pane_number(context, &args.pane)?;
            let spec = ReadSpec {
                source: args.source,
                lines: args.lines,
                ansi: args.raw,
            };
            Reply::of(input::wait_output(
                tmux,
                pane,
                &matcher,
                spec,
                args.timeout,
            )?)
        }
    })
}

/// An integration's reports about the agent in a pane.
fn report_verb(context: &Context, tmux: &Tmux, verb: ReportVerb) -> Result<Reply> {
    Ok(match verb {
        ReportVerb::ReportAgent(args) => {
            let session = SessionRef {
                id: args.agent_session_id,
                path: args.agent_session_path,
                command: args.command,
            };
            let who = args.who.reporter(context)?;
            Reply::of(report::report_agent(
                tmux,
                &who,
                &args.state,
                args.message.as_deref(),
                &session,
            )?)
        }
        ReportVerb::ReportAgentSession(args) => {
            let session = SessionRef {
                id: args.agent_session_id,
                path: args.agent_session_path,
                command: args.command,
            };
            let who = args.who.reporter(context)?;
            Reply::of(report::report_session(
                tmux,
                &who,
                args.session_start_source.as_deref(),
                &session,
            )?)
        }
        ReportVerb::ReleaseAgent(args) => {
            let who = args.who.reporter(context)?;
            Reply::of(report::release_agent(tmux, &who)?)
        }
        ReportVerb::ReportMetadata(args) => {
            let report = PaneReport {
                pane: pane_number(context, &args.pane)?,
                tokens: args.report.report(),
                agent: args.agent,
                applies_to_source: args.applies_to_source,
                title: args.title,
                clear_title: args.clear_title,
                display_agent: args.display_agent,
                clear_display_agent: args.clear_display_agent,
                state_labels: args.state_labels,
                clear_state_labels: args.clear_state_labels,
            };
            Reply::of(metadata::report_pane(tmux, &report)?)
        }
    })
}

/// `pane get`: a pane named by its ids is read alone, so the answer costs
/// the same on a server of five panes or five hundred; `%calling`, or a
/// pane the one read does not place where its id says (a window linked
/// into two sessions), reads the whole server.
fn get(context: &Context, text: &str) -> Result<Reply> {
    if let Ok(reference) = ids::parse_pane(text)
        && let PaneRef::Pane(id) | PaneRef::InWorkspace { pane: id, .. } = reference
        && let Some(snapshot) = Snapshot::read_pane(&context.tmux(), id)?
        && let Some(pane) = snapshot.pane_ref(reference)
    {
        return Ok(Reply::of(op::get(&snapshot, pane)));
    }
    let snapshot = context.snapshot()?;
    Ok(Reply::of(op::get(&snapshot, named_pane(&snapshot, text)?)))
}

/// The verbs that only read the snapshot: records, neighbours, layouts.
fn record_verb(snapshot: &Snapshot, verb: RecordVerb) -> Result<Reply> {
    Ok(match verb {
        RecordVerb::List { workspace } => {
            let session = resolve::workspace_filter(snapshot, workspace.as_deref())?;
            Reply::of(op::list(snapshot, session))
        }
        RecordVerb::Current { pane, current } => {
            let sel = PaneSel { pane, current };
            let found = sel.resolve(snapshot, None)?;
            Reply::of(op::PaneCurrent {
                pane: op::get(snapshot, found).pane,
            })
        }
        RecordVerb::Neighbor { direction, sel } => Reply::of(arrange::neighbor(
            snapshot,
            sel.resolve(snapshot, None)?,
            direction,
        )?),
        RecordVerb::Edges { sel } => {
            Reply::of(arrange::edges(snapshot, sel.resolve(snapshot, None)?)?)
        }
        RecordVerb::Layout { sel } => {
            Reply::of(arrange::layout(snapshot, sel.resolve(snapshot, None)?)?)
        }
        RecordVerb::ProcessInfo { sel } => {
            Reply::of(arrange::process_info(sel.resolve(snapshot, None)?))
        }
    })
}

/// Making, closing, naming and clearing a pane.
fn change_verb(tmux: &Tmux, snapshot: &Snapshot, verb: ChangeVerb) -> Result<Reply> {
    let one = |text: &str| PaneSel::default().resolve(snapshot, Some(text));
    Ok(match verb {
        ChangeVerb::Split(args) => {
            let env = parse_env(&args.env)?;
            let pane = args.sel.resolve(snapshot, args.id.as_deref())?;
            let new = NewPane {
                right: args.direction == SplitDirection::Right,
                ratio: args.ratio,
                spawn: Spawn {
                    cwd: args.cwd,
                    env,
                    command: None,
                },
                focus: args.focus,
            };
            Reply::of(op::split(tmux, pane, new)?)
        }
        ChangeVerb::Close { pane, force } => {
            Reply::of(op::close(tmux, snapshot, one(&pane)?, force)?)
        }
        ChangeVerb::Rename {
            pane,
            label,
            more,
            clear,
        } => {
            let label = label
                .filter(|_| !clear)
                .map(|label| super::joined(label, more));
            Reply::of(op::rename(tmux, one(&pane)?, label.as_deref())?)
        }
        ChangeVerb::Clear { id, sel } => {
            Reply::of(clear::clear(tmux, sel.resolve(snapshot, id.as_deref())?)?)
        }
    })
}

/// Focus, size, zoom, and where a pane sits.
fn arrange_verb(tmux: &Tmux, snapshot: &Snapshot, verb: ArrangeVerb) -> Result<Reply> {
    Ok(match verb {
        ArrangeVerb::Focus { direction, sel } => {
            let pane = sel.resolve(snapshot, None)?;
            Reply::of(arrange::focus_direction(tmux, snapshot, pane, direction)?)
        }
        ArrangeVerb::Resize {
            direction,
            amount,
            sel,
        } => {
            let pane = sel.resolve(snapshot, None)?;
            Reply::of(arrange::resize(tmux, snapshot, pane, direction, amount)?)
        }
        ArrangeVerb::Zoom {
            id, sel, on, off, ..
        } => {
            let mode = if on {
                ZoomMode::On
            } else if off {
                ZoomMode::Off
            } else {
                ZoomMode::Toggle
            };
            let pane = sel.resolve(snapshot, id.as_deref())?;
            Reply::of(arrange::zoom(tmux, snapshot, pane, mode)?)
        }
        ArrangeVerb::Swap {
            direction,
            sel,
            source_pane,
            target_pane,
        } => {
            let (from, to) = swap_ends(snapshot, direction, &sel, source_pane, target_pane)?;
            Reply::of(arrange::swap(tmux, from, to)?)
        }
        ArrangeVerb::Move(args) => move_verb(tmux, snapshot, args)?,
    })
}

/// The two panes a swap exchanges: a pane and its neighbour on one side
/// (none when it has none there), or the two named.
fn swap_ends<'a>(
    snapshot: &'a Snapshot,
    direction: Option<Direction>,
    sel: &PaneSel,
    source_pane: Option<String>,
    target_pane: Option<String>,
) -> Result<(&'a Pane, Option<&'a Pane>)> {
    match (direction, source_pane, target_pane) {
        (Some(direction), None, None) => {
            let pane = sel.resolve(snapshot, None)?;
            let next = arrange::neighbor_of(snapshot, pane, direction)
                .and_then(|n| snapshot.pane(n, Some(pane.session)));
            Ok((pane, next))
        }
        (None, Some(a), Some(b)) => {
            Ok((named_pane(snapshot, &a)?, Some(named_pane(snapshot, &b)?)))
        }
        _ => Err(TawError::invalid_argument(
            "give --direction, or --source-pane and --target-pane",
        )),
    }
}

fn move_verb(tmux: &Tmux, snapshot: &Snapshot, args: MoveArgs) -> Result<Reply> {
    let pane = PaneSel::default().resolve(snapshot, Some(&args.pane))?;
    let destination = if let Some(tab) = &args.tab {
        Destination::Tab {
            window: resolve::tab(snapshot, tab)?,
            right: args.split == Some(SplitDirection::Right),
            beside: args
                .target_pane
                .as_deref()
                .map(|t| named_pane(snapshot, t))
                .transpose()?,
            ratio: args.ratio,
        }
    } else if args.new_tab {
        Destination::NewTab {
            session: match &args.workspace {
                Some(workspace) => resolve::workspace(snapshot, workspace)?,
                None => pane.session,
            },
            label: args.label,
        }
    } else if args.new_workspace {
        Destination::NewWorkspace {
            label: args.label,
            tab_label: args.tab_label,
        }
    } else {
        return Err(TawError::invalid_argument(
            "say where: --tab T --split right|down, --new-tab, or --new-workspace",
        ));
    };
    // The moved pane is shown on the client used last, if any, unless
    // --no-focus: herdr's default, and tmux's own for break-pane and
    // join-pane.
    let focus = (!args.no_focus).then(|| snapshot.last_client().map(|c| c.name.clone()));
    Ok(Reply::of(moving::move_pane(
        tmux,
        snapshot,
        pane,
        destination,
        focus,
    )?))
}
