//! Notifications: a message on the status line of every attached client,
//! and the user's sound command. The watcher sends them when an agent needs
//! you or is done; `taw notification show` sends one by hand.

use crate::config::Config;
use crate::exec::{Detached, Program};
use crate::tmux::Tmux;
use crate::tmux::commands::print_format;
use crate::tmux::options;
use crate::tmux::pane;

/// The longest a sound command may play before it is stopped.
const SOUND_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Why a notification was or was not shown (herdr's reasons).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    Shown,
    Disabled,
    NoForegroundClient,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sound {
    None,
    Done,
    Request,
}

impl Sound {
    pub(crate) fn kind(self) -> Option<&'static str> {
        match self {
            Sound::None => None,
            Sound::Done => Some("done"),
            Sound::Request => Some("request"),
        }
    }
}

/// How toasts are given, from the tmux options, read in one call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Settings {
    /// `@agent-wizard-notify`: on by default, and for a value that is
    /// neither on nor off.
    pub enabled: bool,
    /// `@agent-wizard-toast-seconds`, in milliseconds; 0 for tmux's own
    /// `display-time`.
    pub toast_ms: u32,
    /// `@agent-wizard-bell`: the client's bell rings on a request.
    pub bell: bool,
    /// `@agent-wizard-desktop`: a desktop notification too.
    pub desktop: bool,
}

impl Settings {
    pub(crate) fn read(tmux: &Tmux) -> Settings {
        let names = [
            options::NOTIFY,
            options::TOAST_SECONDS,
            options::BELL,
            options::DESKTOP,
        ];
        let format = names
            .iter()
            .map(|name| format!("#{{{name}}}"))
            .collect::<Vec<_>>()
            .join("\t");
        let value = tmux.run_one(print_format(&format)).unwrap_or_default();
        let mut fields = value.trim_end_matches('\n').split('\t');
        let mut next = || fields.next().unwrap_or("").trim().to_string();
        let (notify, seconds, bell, desktop) = (next(), next(), next(), next());
        Settings {
            enabled: notify.is_empty() || options::on_off(options::NOTIFY, &notify),
            toast_ms: options::seconds_ms(options::TOAST_SECONDS, &seconds),
            bell: options::on_off(options::BELL, &bell),
            desktop: options::on_off(options::DESKTOP, &desktop),
        }
    }
}

/// What a notification is about.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct About<'a> {
    /// The pane, for the sound command's environment.
    pub pane: Option<u32>,
    /// The agent's id, for `[ui.sound.agents]`.
    pub agent: Option<&'a str>,
}

/// Shows `message` on `clients` and starts the sound command; the sound
/// command, when one runs, for a short-lived caller to wait for.
pub(crate) fn notify(
    tmux: &Tmux,
    config: &Config,
    clients: &[String],
    message: &str,
    sound: Sound,
    about: About,
) -> (Outcome, Option<Detached>) {
    // Under a fresh lease the app that holds it speaks this machine's
    // toasts: its sound and its hook, there. The toast still shows here.
    let leased = crate::machine::fresh_lease().is_some();
    if !leased {
        announce(tmux, config, message, sound, about, None);
    }
    let settings = Settings::read(tmux);
    if !settings.enabled {
        return (Outcome::Disabled, None);
    }
    let outcome = if clients.is_empty() {
        Outcome::NoForegroundClient
    } else {
        // A client that left meanwhile misses the toast; the sound and the
        // hook still go.
        let _ = pane::toast(tmux, clients, message, settings.toast_ms);
        if settings.bell && sound == Sound::Request {
            ring_bells(clients);
        }
        Outcome::Shown
    };
    if settings.desktop && !leased {
        start_desktop(tmux, message, about.pane);
    }
    let playing = if sound_wanted(config, about.agent) && !leased {
        play(tmux, config, sound, message, about.pane)
    } else {
        None
    };
    (outcome, playing)
}

/// Rings the bell of each client's terminal: a BEL written to its tty,
/// which the terminal turns into its sound or flash. A client whose name
/// is no terminal (a control client) has none.
fn ring_bells(clients: &[String]) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    for tty in clients.iter().filter(|name| name.starts_with("/dev/")) {
        // Non-blocking: a terminal that does not read holds nothing up.
        if let Ok(mut terminal) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
            .open(tty)
        {
            let _ = terminal.write_all(b"\x07");
        }
    }
}

/// Starts `taw notification desktop` for `message`, apart: it shows the
/// desktop notification and, when it is clicked, brings `pane` in front.
fn start_desktop(tmux: &Tmux, message: &str, pane: Option<u32>) {
    let Ok(bin) = std::env::current_exe() else {
        return;
    };
    let mut program = Program::new(bin)
        .args(tmux.socket_args())
        .args(["notification", "desktop"]);
    if let Some(pane) = pane {
        program = program.args(["--pane", &format!("%{pane}")]);
    }
    let _ = program.arg("--").arg(message).start_unwatched();
}

/// The `notification` event, at the moment a toast is due: whether or not
/// toasts are on or a client is attached to show it (a hook that pushes
/// to a phone is for when nobody is there). One plain line of words.
fn announce(
    tmux: &Tmux,
    config: &Config,
    message: &str,
    sound: Sound,
    about: About,
    machine: Option<&str>,
) {
    let listeners = crate::hooks::Listeners::from_config(config);
    if !listeners.hears(crate::events::Event::Notification) {
        return;
    }
    let message = crate::text::one_line(message, usize::MAX);
    let mut occurrence = crate::events::Occurrence::new(crate::events::Event::Notification)
        .pane(about.pane)
        .data("message", message.clone())
        .var("TAW_MESSAGE", message);
    if let Some(kind) = sound.kind() {
        occurrence = occurrence.data("kind", kind).var("TAW_KIND", kind);
    }
    if let Some(agent) = about.agent {
        occurrence = occurrence.data("agent", agent);
    }
    if let Some(machine) = machine {
        occurrence = occurrence
            .data("machine", machine)
            .var("TAW_MACHINE", machine);
    }
    crate::hooks::announce(tmux, &listeners, vec![occurrence]);
}

/// A far machine's toast, spoken by the app that holds its lease: the
/// sound command and the `notification` hook here, with TAW_MACHINE.
pub(crate) fn speak_for(
    tmux: &Tmux,
    config: &Config,
    machine: &str,
    message: &str,
    sound: Sound,
    agent: Option<&str>,
) -> Option<Detached> {
    let about = About { pane: None, agent };
    announce(tmux, config, message, sound, about, Some(machine));
    if sound_wanted(config, agent) {
        play(tmux, config, sound, message, None)
    } else {
        None
    }
}

/// `[ui.sound] enabled` and the agent's `[ui.sound.agents]` entry (herdr
/// mutes droid unless told otherwise).
fn sound_wanted(config: &Config, agent: Option<&str>) -> bool {
    if !config.get(&crate::config::schema::UI_SOUND_ENABLED) {
        return false;
    }
    let Some(agent) = agent else { return true };
    let herdr_key = match agent {
        "opencode" => "open_code",
        "copilot" => "github_copilot",
        other => other,
    };
    let setting = config
        .table(&crate::config::schema::SOUND_AGENTS_TABLE)
        .iter()
        .find(|entry| entry.key == herdr_key)
        .and_then(|entry| match &entry.value {
            crate::config::Value::Str(word) => Some(word.clone()),
            _ => None,
        });
    match setting.as_deref() {
        Some("off") => false,
        Some("on") => true,
        _ => agent != "droid",
    }
}

/// The sound file for a kind: `[ui.sound] done_path` or `request_path`,
/// else `path`, relative to the config folder.
fn sound_file(config: &Config, kind: &str) -> Option<String> {
    let specific = match kind {
        "done" => config.get(&crate::config::schema::UI_SOUND_DONE_PATH),
        _ => config.get(&crate::config::schema::UI_SOUND_REQUEST_PATH),
    };
    let path = if specific.is_empty() {
        config.get(&crate::config::schema::UI_SOUND_PATH)
    } else {
        specific
    };
    if path.is_empty() {
        return None;
    }
    let path = std::path::PathBuf::from(path);
    let path = if path.is_absolute() {
        path
    } else {
        crate::paths::config_dir().join(path)
    };
    Some(path.display().to_string())
}

/// Runs the user's `@agent-wizard-sound-command`, when set, with the
/// notification in its environment (never in its command line).
fn play(
    tmux: &Tmux,
    config: &Config,
    sound: Sound,
    message: &str,
    pane: Option<u32>,
) -> Option<Detached> {
    let kind = sound.kind()?;
    let Ok(command) = tmux.run_one(print_format(&format!("#{{{}}}", options::SOUND_COMMAND)))
    else {
        return None;
    };
    let command = command.trim_end_matches('\n').to_string();
    if command.trim().is_empty() {
        return None;
    }
    let mut child = Program::new("/bin/sh")
        .arg("-c")
        .arg(&command)
        .env("TAW_KIND", kind)
        .env("TAW_MESSAGE", message)
        .limit(Some(SOUND_LIMIT));
    if let Some(pane) = pane {
        child = child.env("TAW_PANE", format!("%{pane}"));
    }
    if let Some(file) = sound_file(config, kind) {
        child = child.env("TAW_SOUND", file);
    }
    child.start_detached().ok()
}
