//! What `taw tmux load` and `unload` do to a live server: read it, plan
//! (`plan_load`, `plan_unload`), apply the plan in one call (a load's key
//! bindings each apart), say what went wrong on the status line, and start
//! or stop the watchers.

use super::login_path::{self, LoginPath};
use super::{Desired, Report, ServerState, install_link, plan_load, plan_unload, say, table};
use crate::config::Config;
use crate::detect::foreground;
use crate::envelope::{Result, TawError, answers};
use crate::hooks::Listeners;
use crate::paths;
use crate::tmux::commands as cmd;
use crate::tmux::options::{
    bookkeeping, pane as pane_opt, session as session_opt, window as window_opt,
};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{Batch, Cmd, Tmux};
use crate::watch::attach::{self, Attached, Watch};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long an unload waits for the watchers it stopped to end.
const WATCHERS_END: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Loaded {
    #[serde(flatten)]
    pub report: Report,
    pub watchers: Attached,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Unloaded {
    #[serde(flatten)]
    pub report: Report,
    /// The panes whose watcher was stopped.
    pub watchers_stopped: Vec<String>,
    /// The links to taw the load made for login shells (`~/.local/bin/taw`).
    pub login_links_removed: Vec<String>,
}

answers!(Loaded => "tmux_loaded", Unloaded => "tmux_unloaded");

/// How long the watcher goes on starting batches of pipes before it
/// answers a load (a batch under way ends first: a server of 50 panes or
/// fewer is always piped whole). A server of more has the rest piped right
/// after, while the load is done: at 500 panes a batch takes tmux about
/// 100 ms, and tmux's `run-shell` of the plugin holds the config's load.
const ATTACH_BUDGET: std::time::Duration = std::time::Duration::from_millis(100);

/// Puts the plugin into the server: every option checked first, then one
/// tmux call and the key bindings, then a watcher on every pane.
pub(crate) fn load(tmux: &Tmux, bin: Option<PathBuf>) -> Result<Loaded> {
    let bin = resolve_bin(bin)?;
    super::refuse_old_tmux(&[&tmux.client_version()?])?;
    let state = ServerState::read(tmux)?;
    super::refuse_old_tmux(&[&state.tmux_version])?;
    let first_load = state
        .option(crate::tmux::options::bookkeeping::LOADED)
        .is_empty();
    let bin_dir = paths::bin_dir();
    let callback = crate::tmux::callback::Callback::current(bin.display().to_string());
    let listeners = Listeners::from_config(&Config::load_or_defaults().0);
    let desired = Desired {
        bin: bin.display().to_string(),
        bin_dir: bin_dir.display().to_string(),
        hooks: table::hooks(&callback, &listeners),
        bindings: table::bindings(&callback, &state.tmux_version),
        version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let (mut plan, mut report) = plan_load(&state, &desired);
    let from_entry = FromEntryScript::read();
    plan.cmds.push(match &from_entry.origin {
        Some(origin) => cmd::set_global_option(bookkeeping::ORIGIN, origin),
        None => cmd::unset_global_option(bookkeeping::ORIGIN),
    });
    if report.path_dir.is_some() {
        install_link(&bin_dir, &bin).map_err(|e| {
            TawError::io(format!(
                "cannot make the link {}/taw: {e}",
                bin_dir.display()
            ))
        })?;
        report.login_path = Some(login_link(&state, &bin_dir, &mut report.warnings));
    }
    let mut cmds = plan.cmds;
    // An autosave that was waiting when its process died would hold the
    // next ones off: a load lets it go.
    cmds.push(cmd::unset_global_option(
        crate::tmux::options::bookkeeping::AUTOSAVE_ASKED,
    ));
    cmds.extend(roster_left_out(&state, &listeners));
    if let Some(warning) = config_warning() {
        report.warnings.push(warning);
    }
    // The news first: what a person waited for, then what to look at.
    let lines = |report: &Report| -> Vec<String> {
        from_entry
            .news
            .iter()
            .chain(&report.warnings)
            .cloned()
            .collect()
    };
    let said = lines(&report);
    say::log_lines(&said);
    // One tmux call for it all, the keys, then what the load says, last: a
    // key tmux refuses stops the call there (as a client gone does its
    // message), and the keys are then bound each apart, and the words
    // said again (the rest is the same when it runs again).
    let whole: Vec<Cmd> = cmds
        .iter()
        .chain(plan.given_back.iter().map(|given| &given.bind))
        .chain(&plan.bindings)
        .cloned()
        .chain(say::said(
            &said,
            &state.clients,
            &report.status,
            !state.told_hooks_taken,
        ))
        .collect();
    let mut say_again = tmux.run(&Batch::of(whole)).is_err();
    if say_again {
        tmux.run(&Batch::of(cmds))?;
        give_back_keys(tmux, &plan.given_back, &mut report.warnings);
        bind_keys(tmux, &plan.bindings, &mut report);
    }
    if let Err(error) = keep_roster(tmux, &listeners) {
        report.warnings.push(format!(
            "tmux did not take the pane roster out: {}",
            error.message
        ));
    }
    let lines = lines(&report);
    if lines != said {
        say::log_lines(&lines[said.len().min(lines.len())..]);
        say_again = true;
    }
    if say_again {
        // The warnings are in the answer too; this is where a person looks.
        let _ = say::say_again(tmux, &lines, &state.clients, &report.status);
    }
    // Every pane gets a watcher; those of an older taw are started again.
    let watchers = attach::attach_all(
        tmux,
        &callback,
        true,
        false,
        Some(state.server_pid),
        Some(ATTACH_BUDGET),
    )?;
    start_with_server(tmux, &state, first_load, &mut report);
    Ok(Loaded { report, watchers })
}

/// taw for login shells, which may set PATH anew: a link in a folder they
/// keep, or, the first time none is found, a word on what to add.
fn login_link(state: &ServerState, bin_dir: &Path, warnings: &mut Vec<String>) -> LoginPath {
    use crate::tmux::options::{LOGIN_LINK, is_on};
    if !is_on(&state.checked(LOGIN_LINK, warnings)) {
        return LoginPath::Off;
    }
    let Some(home) = paths::home_dir() else {
        return LoginPath::Off;
    };
    let server_path = state.env("PATH").unwrap_or_default();
    match login_path::ensure(&home, server_path, &bin_dir.join("taw")) {
        Ok(LoginPath::Nowhere { add }) => {
            // Said once: the answer of every load has it.
            let told = paths::state_dir().join("login-path-told");
            if !told.exists() && paths::write_private(&told, add.as_bytes()).is_ok() {
                warnings.push(login_path::notice(&add));
            }
            LoginPath::Nowhere { add }
        }
        Ok(LoginPath::Theirs { path }) => {
            // Said once, as the notice above; the answer has it each time.
            let told = paths::state_dir().join("login-link-theirs-told");
            if !told.exists() && paths::write_private(&told, path.as_bytes()).is_ok() {
                warnings.push(format!(
                    "{path} is a taw of someone else's, so login shells may run it rather than this one"
                ));
            }
            LoginPath::Theirs { path }
        }
        Ok(done) => done,
        Err(error) => {
            warnings.push(format!(
                "taw could not link itself for login shells: {error}"
            ));
            LoginPath::Off
        }
    }
}

/// Each key apart: one tmux refuses all the same (the check knows tmux's
/// names, not every build's) costs only its binding, and a warning.
/// Gives keys back their former bindings, each apart: one tmux no longer
/// takes (a command it has dropped since) leaves that key unbound, and
/// says so.
fn give_back_keys(tmux: &Tmux, given_back: &[super::GiveBack], warnings: &mut Vec<String>) {
    for given in given_back {
        if let Err(error) = tmux.run_one(given.bind.clone()) {
            let _ = tmux.run_one(cmd::unbind_prefix_key(&given.key));
            warnings.push(format!(
                "tmux did not take back the binding prefix + {} had before taw: {}; the key is left unbound",
                given.key, error.message
            ));
        }
    }
}

fn bind_keys(tmux: &Tmux, bindings: &[Cmd], report: &mut Report) {
    for binding in bindings {
        if let Err(error) = tmux.run_one(binding.clone()) {
            let key = binding.words().get(6).cloned().unwrap_or_default();
            report.keys.retain(|k| *k != key);
            report
                .warnings
                .push(format!("tmux did not bind {key}: {}", error.message));
        }
    }
}

/// Says why a load failed where a person looks (the clients, else the
/// first to attach).
pub(crate) fn say_failure(tmux: &Tmux, error: &TawError) {
    let line = format!("loading failed: {}", error.message);
    if error.code == crate::envelope::ErrorCode::TmuxTooOld {
        // An old tmux has no display-message -d, which say uses: its
        // plain message, on the clients there are.
        let _ = tmux.run_one(cmd::show_message(&format!("agent-wizard: {line}")));
        return;
    }
    let clients: Vec<String> = Snapshot::read(tmux)
        .map(|snapshot| snapshot.clients.into_iter().map(|c| c.name).collect())
        .unwrap_or_default();
    let _ = say::say(tmux, &[line], &clients, &[]);
}

/// What the entry script (`agent-wizard.tmux`) tells the load it runs, in
/// its environment, which an older taw it runs meanwhile ignores.
#[derive(Debug, Default)]
struct FromEntryScript {
    /// Where the binary came from: `download`, `cargo`, `path`, `option`.
    origin: Option<String>,
    /// What to say with the load's own words ("taw 0.2.0 is downloaded
    /// and loaded").
    news: Option<String>,
}

impl FromEntryScript {
    fn read() -> FromEntryScript {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .map(|value| crate::text::one_line(&value, 300))
                .filter(|value| !value.trim().is_empty())
        };
        FromEntryScript {
            origin: var("TAW_LOAD_ORIGIN"),
            news: var("TAW_LOAD_NEWS"),
        }
    }
}

/// What runs as the server comes up (a first load), and `taw web` when
/// it is on.
fn start_with_server(tmux: &Tmux, state: &ServerState, first_load: bool, report: &mut Report) {
    // herdr runs its plugins' startup commands as its server comes up; the
    // first load into a server is taw's coming up (a reload is not).
    if first_load && crate::plugin::has_startup() {
        crate::plugin::start_startup(tmux);
    }
    // tmux-continuum's restore on start: the layout back as the server
    // comes up, in a process of its own (it waits for shells).
    if first_load && state.option(crate::tmux::options::RESTORE_ON_START) == "on" {
        report
            .warnings
            .extend(start_apart(tmux, &["session", "restore"]));
    }
    if state.option(crate::tmux::options::WEB) == "on" {
        let listen = state.option(crate::tmux::options::WEB_LISTEN);
        report.warnings.extend(start_web(tmux, &listen));
    }
}

/// Starts `taw web` for this server, apart, unless something listens on
/// its address already (a reload, or one started before): it stops when
/// the server does. A warning when it cannot be started.
fn start_web(tmux: &Tmux, listen: &str) -> Option<String> {
    let listen = if listen.trim().is_empty() {
        crate::web::DEFAULT_LISTEN
    } else {
        listen.trim()
    };
    let Ok(address) = crate::web::parse_listen(listen) else {
        return None;
    };
    if std::net::TcpStream::connect_timeout(&address, std::time::Duration::from_millis(200)).is_ok()
    {
        return None;
    }
    start_apart(tmux, &["web", "--listen", listen, "--with-server"])
}

/// Starts this taw with `args` for this server, apart, not waited for. A
/// warning when it cannot be started.
fn start_apart(tmux: &Tmux, args: &[&str]) -> Option<String> {
    let started = match std::env::current_exe() {
        Ok(bin) => crate::exec::Program::new(bin)
            .args(tmux.socket_args())
            .args(args)
            .start_unwatched()
            .map_err(|failure| failure.describe("taw")),
        Err(error) => Err(format!("taw cannot find its own binary: {error}")),
    };
    started
        .err()
        .map(|why| format!("taw {} was not started: {why}", args.join(" ")))
}

/// Puts in the tmux hooks the events of the config as it is now need, and
/// takes out those no listener needs any more: what `taw config reload`
/// does to a loaded server. The new entries go in before the old come
/// out, so no event is lost in between. The hooks it set.
pub(crate) fn rehook(tmux: &Tmux, config: &Config) -> Result<Vec<String>> {
    let state = ServerState::read(tmux)?;
    let loaded = state.option(crate::tmux::options::bookkeeping::LOADED);
    if loaded.is_empty() {
        return Ok(Vec::new());
    }
    // The binary the load put in the hooks.
    let bin = resolve_bin(crate::tmux::LoadedBy::parse(&loaded).map(|by| PathBuf::from(by.bin)))?;
    let callback = crate::tmux::callback::Callback::current(bin.display().to_string());
    let listeners = Listeners::from_config(config);
    let mut report = Report::default();
    let mut cmds = super::plan_hooks(&state, &table::hooks(&callback, &listeners), &mut report);
    cmds.extend(roster_left_out(&state, &listeners));
    tmux.run(&Batch::of(cmds))?;
    keep_roster(tmux, &listeners)?;
    Ok(report.hooks)
}

/// Who listens changed outside config.toml (a plugin linked, enabled,
/// disabled): the tmux hooks are planned again and the watchers read their
/// listeners again. Nothing to do where no server runs or taw is not loaded.
pub(crate) fn listeners_changed(tmux: &Tmux) {
    let config = Config::load_or_defaults().0;
    if rehook(tmux, &config).is_ok() {
        let stamp = crate::clock::now_ms().to_string();
        // As the rehook, a stamp tmux did not take is for the next change:
        // the watchers keep their listeners until then.
        let _ = tmux.run_one(cmd::set_global_option(
            crate::tmux::options::bookkeeping::CONFIG_STAMP,
            &stamp,
        ));
    }
}

/// Starts the pane roster and the tab roster when a listener needs them,
/// and takes them away when none does: a roster left behind would be
/// taken as kept, stale, by the next listener that needs one.
fn keep_roster(tmux: &Tmux, listeners: &Listeners) -> Result<()> {
    if listeners.hears(crate::events::Event::TabCreated) {
        crate::tmux::roster::start_tabs(tmux)?;
    }
    if listeners.hears(crate::events::Event::TabMoved) {
        crate::tmux::roster::start_places(tmux)?;
    }
    if listeners.needs_roster() {
        crate::hooks::roster::start(tmux);
    }
    Ok(())
}

/// The rosters no listener needs, taken out where they are set.
fn roster_left_out(state: &ServerState, listeners: &Listeners) -> Vec<Cmd> {
    use crate::tmux::options::bookkeeping::{EXITED, PANES, PANES_GENERATION, PANES_STARTED, TABS};
    let mut gone = Vec::new();
    if !listeners.hears(crate::events::Event::TabCreated) {
        gone.push(TABS);
    }
    if !listeners.needs_roster() {
        gone.extend([PANES, PANES_GENERATION, PANES_STARTED, EXITED]);
    }
    gone.into_iter()
        .filter(|name| state.set_options.contains(*name))
        .map(cmd::unset_global_option)
        .collect()
}

/// What a person is told at load about a config.toml with errors: taw runs
/// on the defaults in their place.
fn config_warning() -> Option<String> {
    Config::load_or_defaults().1
}

/// Takes out everything taw put in: hooks, keys, option defaults, PATH,
/// herdr's variables, the status marks, and then the watchers (their pipes
/// closed) and every option taw wrote on a pane or a session.
pub(crate) fn unload(tmux: &Tmux) -> Result<Unloaded> {
    let state = ServerState::read(tmux)?;
    let (plan, mut report) = plan_unload(&state);
    // The hooks go first, so none starts a watcher while the rest goes.
    tmux.run(&Batch::of(plan.cmds))?;
    give_back_keys(tmux, &plan.given_back, &mut report.warnings);
    let mut stopped: Vec<String> = Vec::new();
    // A watcher started just before the hooks went may announce itself
    // only now: each round looks again, until one finds none.
    for _ in 0..3 {
        let found = stop_watchers(tmux, &Snapshot::read(tmux)?)?;
        let new: Vec<String> = found.into_iter().filter(|p| !stopped.contains(p)).collect();
        if new.is_empty() {
            break;
        }
        stopped.extend(new);
    }
    clear_options(tmux, &Snapshot::read(tmux)?)?;
    let login_links_removed = match paths::home_dir() {
        Some(home) => login_path::remove(&home, &paths::bin_dir().join("taw"))
            .into_iter()
            .map(|link| link.display().to_string())
            .collect(),
        None => Vec::new(),
    };
    Ok(Unloaded {
        report,
        watchers_stopped: stopped,
        login_links_removed,
    })
}

/// Closes the pipe of every pane a watcher of taw's announced itself on,
/// and waits (3 s at the most, in all) for those watchers to end: one in
/// the middle of a look writes that look first. The panes stopped.
fn stop_watchers(tmux: &Tmux, snapshot: &Snapshot) -> Result<Vec<String>> {
    let mut panes = Vec::new();
    let mut groups = Vec::new();
    let mut pids = Vec::new();
    for pane in snapshot.unique_panes() {
        if matches!(attach::watch_of(pane), Watch::Current | Watch::Older) {
            panes.push(format!("%{}", pane.id));
            groups.push(Batch::of(vec![cmd::close_pipe(&format!("%{}", pane.id))]));
            pids.extend(
                pane.watcher
                    .split_whitespace()
                    .nth(1)
                    .and_then(|p| p.parse::<u32>().ok()),
            );
        }
    }
    for ran in tmux.run_groups(&groups) {
        match ran {
            Err(error) if !crate::tmux::is_pane_gone(&error) => return Err(error),
            _ => {}
        }
    }
    let began = Instant::now();
    while pids.iter().any(|pid| foreground::is_alive(*pid)) && began.elapsed() < WATCHERS_END {
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(panes)
}

/// Takes every option taw writes off every pane and session, a group a
/// pane, so one that closed meanwhile stops no other.
fn clear_options(tmux: &Tmux, snapshot: &Snapshot) -> Result<()> {
    let mut groups: Vec<Batch> = snapshot
        .unique_panes()
        .into_iter()
        .map(|pane| {
            let target = format!("%{}", pane.id);
            Batch::of(
                pane_opt::ALL
                    .iter()
                    // A pipe still open has a watcher that announced itself
                    // too late to be stopped: its announcement stays, so
                    // `taw watch status` shows it and another unload stops it.
                    .filter(|name| !(pane.pipe && **name == pane_opt::WATCHER))
                    .map(|name| cmd::unset_pane_option(&target, name))
                    .collect(),
            )
        })
        .collect();
    // Each window's and each session's options, a group a target.
    let unset_all = |target: String, names: &[&str], unset: fn(&str, &str) -> crate::tmux::Cmd| {
        Batch::of(names.iter().map(|name| unset(&target, name)).collect())
    };
    groups.extend(snapshot.windows.iter().map(|window| {
        unset_all(
            format!("@{}", window.id),
            window_opt::ALL,
            cmd::unset_window_option,
        )
    }));
    groups.extend(snapshot.sessions.iter().map(|session| {
        unset_all(
            format!("${}", session.id),
            session_opt::ALL,
            cmd::unset_session_option,
        )
    }));
    for ran in tmux.run_groups(&groups) {
        match ran {
            // A pane or session that closed has no options left to take off.
            Err(error) if !crate::tmux::is_target_gone(&error) => return Err(error),
            _ => {}
        }
    }
    Ok(())
}

/// The binary hooks run: absolute, resolved, and there.
fn resolve_bin(bin: Option<PathBuf>) -> Result<PathBuf> {
    let bin = match bin {
        Some(bin) => bin,
        None => std::env::current_exe()
            .map_err(|e| TawError::io(format!("cannot tell where this taw is: {e}")))?,
    };
    let resolved = std::fs::canonicalize(&bin).map_err(|e| {
        TawError::invalid_argument(format!(
            "the taw binary {} cannot be used: {e}",
            bin.display()
        ))
    })?;
    if !is_executable(&resolved) {
        return Err(TawError::invalid_argument(format!(
            "{} is not an executable file",
            resolved.display()
        )));
    }
    Ok(resolved)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
