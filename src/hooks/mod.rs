//! The dispatcher: what happened (an [`Occurrence`] of `events`) told to
//! whoever listens: the `[hooks]` commands of config.toml and the enabled
//! plugins' `[[events]]`. [`announce`] hands occurrences over from a
//! process that must not wait (a detached `taw hooks deliver` delivers
//! them); when nothing listens it does nothing at all. [`deliver`] builds
//! the payload once (`payload.rs`, in herdr's record shapes) and runs each
//! listener (`run.rs`). The sources of tmux's hooks are in `source.rs`,
//! the pane roster that tells a close from an exit in `roster.rs`, and the
//! vetoes the core asks before it closes in `veto.rs`.

pub(crate) mod payload;
pub(crate) mod roster;
pub(crate) mod run;
pub(crate) mod source;
pub(crate) mod veto;

use crate::config::{Config, schema};
use crate::events::{Event, Occurrence};
use crate::tmux::Tmux;
use std::collections::BTreeMap;

/// The command lines `[hooks]` gives `name`, in the file's order.
pub(crate) fn hook_commands(config: &Config, name: &str) -> Vec<String> {
    config
        .table(&schema::HOOKS)
        .iter()
        .filter(|entry| entry.key == name)
        .flat_map(|entry| match &entry.value {
            crate::config::Value::Str(line) => vec![line.clone()],
            crate::config::Value::Array(items) => items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        })
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// Who listens: the `[hooks]` of the config and the plugins' `[[events]]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listeners {
    hooks: BTreeMap<Event, Vec<String>>,
    /// The `[[events]]` of the enabled plugins that run here.
    plugins: Vec<crate::plugin::EventListener>,
    /// `[hooks] timeout_seconds`.
    limit_seconds: f64,
}

impl Listeners {
    pub(crate) fn from_config(config: &Config) -> Listeners {
        let hooks = crate::events::events()
            .map(|def| (def.event, hook_commands(config, def.name)))
            .filter(|(_, commands)| !commands.is_empty())
            .collect();
        Listeners {
            hooks,
            plugins: crate::plugin::event_listeners(),
            limit_seconds: config.get(&schema::HOOKS_TIMEOUT_SECONDS),
        }
    }

    /// Whether anything listens to `name`.
    pub(crate) fn hears(&self, event: Event) -> bool {
        self.hooks.contains_key(&event) || self.plugins.iter().any(|p| p.hook.on == event.name())
    }

    /// The `[hooks]` commands of `event`.
    pub(crate) fn commands(&self, event: Event) -> &[String] {
        self.hooks.get(&event).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The tmux hooks the events listened to need, each once, in the
    /// order of the events' table.
    pub(crate) fn tmux_hooks(&self) -> Vec<&'static str> {
        let mut needed: Vec<&'static str> = Vec::new();
        for def in crate::events::events().filter(|def| self.hears(def.event)) {
            for hook in def.tmux_hooks {
                if !needed.contains(hook) {
                    needed.push(hook);
                }
            }
        }
        needed
    }

    /// Whether the pane roster must be kept: a close or an exit is told
    /// only by comparing it with the live panes.
    pub(crate) fn needs_roster(&self) -> bool {
        self.hears(Event::PaneClosed) || self.hears(Event::PaneExited)
    }
}

/// Delivers what happened to its listeners and waits for them: for a
/// process that was started to do just that (a tmux hook's job, `taw hooks
/// deliver`). Nothing is read when nothing listens.
pub(crate) fn deliver(tmux: &Tmux, listeners: &Listeners, occurrences: &[Occurrence]) -> Delivered {
    let heard: Vec<&Occurrence> = occurrences
        .iter()
        .filter(|occurrence| listeners.hears(occurrence.event))
        .collect();
    if heard.is_empty() {
        return Delivered::default();
    }
    let deliveries = match payload::build_all(tmux, &heard) {
        Ok(deliveries) => deliveries,
        Err(error) => {
            run::log_line(&format!(
                "{} not delivered: {}",
                heard[0].event.name(),
                error.message
            ));
            return Delivered::default();
        }
    };
    let limit = run::Limit::event(listeners.limit_seconds);
    // Each command line gets its occurrences in order, in a thread of its
    // own: a hook hears a turn's end before the agent leaves, and a slow
    // hook holds up no other.
    let mut queues: Vec<(String, Vec<payload::Delivery>)> = Vec::new();
    // Each plugin hook hears its occurrences in order, in a thread of its
    // own, as a [hooks] command line does.
    let mut plugin_queues: Vec<(crate::plugin::EventListener, Vec<payload::Delivery>)> = Vec::new();
    for delivery in &deliveries {
        for listener in listeners
            .plugins
            .iter()
            .filter(|p| p.hook.on == delivery.event.name())
        {
            let same =
                |(queued, _): &&mut (crate::plugin::EventListener, Vec<payload::Delivery>)| {
                    queued.plugin.manifest.plugin_id == listener.plugin.manifest.plugin_id
                        && queued.hook.command == listener.hook.command
                };
            match plugin_queues.iter_mut().find(|q| same(q)) {
                Some((_, queued)) => queued.push(delivery.clone()),
                None => plugin_queues.push((listener.clone(), vec![delivery.clone()])),
            }
        }
    }
    let plugin_limit = limit.limit;
    let plugin_runs = std::thread::spawn(move || run_plugin_queues(&plugin_queues, plugin_limit));
    let hook_runs = deliveries
        .iter()
        .map(|d| listeners.commands(d.event).len())
        .sum();
    for delivery in deliveries {
        for command in listeners.commands(delivery.event) {
            match queues.iter_mut().find(|(line, _)| line == command) {
                Some((_, queued)) => queued.push(delivery.clone()),
                None => queues.push((command.clone(), vec![delivery.clone()])),
            }
        }
    }
    let mut running = Vec::new();
    for (command, queued) in queues {
        running.push(std::thread::spawn(move || {
            for delivery in queued {
                let outcome = run::run_command(&command, &delivery, limit);
                run::log_failure(delivery.event, &command, &outcome);
            }
        }));
    }
    for handle in running {
        // A command's thread that panicked has logged nothing more to join.
        let _ = handle.join();
    }
    Delivered {
        // A thread that panicked has no runs to give.
        plugin_runs: plugin_runs.join().unwrap_or_default(),
        hook_runs,
    }
}

/// The most plugin commands running at once, as herdr has it: a manifest
/// with thousands of hooks on one event starts them this many at a time,
/// not thousands of processes together.
const PLUGIN_COMMANDS_AT_ONCE: usize = 32;

/// Each plugin hook's occurrences in order, at most
/// [`PLUGIN_COMMANDS_AT_ONCE`] hooks at a time, the next starting as soon
/// as one ends (a hook that hangs holds one place, not the rest); their
/// runs, in the hooks' order.
fn run_plugin_queues(
    queues: &[(crate::plugin::EventListener, Vec<payload::Delivery>)],
    limit: Option<std::time::Duration>,
) -> Vec<crate::plugin::run::LogRecord> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let runs: Vec<Mutex<Vec<crate::plugin::run::LogRecord>>> =
        queues.iter().map(|_| Mutex::new(Vec::new())).collect();
    std::thread::scope(|scope| {
        for _ in 0..PLUGIN_COMMANDS_AT_ONCE.min(queues.len()) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some((listener, queued)) = queues.get(index) else {
                        break;
                    };
                    // A hook's run that panicked has no runs to give, and
                    // its place goes on to the next hook.
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        queued
                            .iter()
                            .map(|delivery| run::run_plugin_hook(listener, delivery, limit))
                            .collect::<Vec<_>>()
                    }));
                    if let (Ok(ran), Ok(mut kept)) = (ran, runs[index].lock()) {
                        *kept = ran;
                    }
                }
            });
        }
    });
    runs.into_iter()
        .flat_map(|kept| kept.into_inner().unwrap_or_default())
        .collect()
}

/// What a delivery ran.
#[derive(Debug, Clone, Default)]
pub(crate) struct Delivered {
    /// Each plugin hook's run, as its log has it.
    pub plugin_runs: Vec<crate::plugin::run::LogRecord>,
    /// How many `[hooks]` command runs.
    pub hook_runs: usize,
}

/// Announces what happened from a process that must not wait for the
/// listeners (the watcher, a verb): when something listens, a `taw hooks
/// deliver` of its own delivers it, detached. Nothing starts otherwise.
pub(crate) fn announce(tmux: &Tmux, listeners: &Listeners, occurrences: Vec<Occurrence>) {
    let heard: Vec<Occurrence> = occurrences
        .into_iter()
        .filter(|occurrence| listeners.hears(occurrence.event))
        .collect();
    if heard.is_empty() {
        return;
    }
    let Ok(json) = serde_json::to_string(&heard) else {
        return;
    };
    if let Err(failure) = run::start_deliverer(tmux, &json) {
        run::log_line(&format!(
            "{} not delivered: {}",
            heard[0].event.name(),
            failure.describe("taw hooks deliver")
        ));
    }
}

/// [`announce`] with the listeners of the config as it is now on disk: for
/// a short-lived verb.
pub(crate) fn announce_now(tmux: &Tmux, occurrences: Vec<Occurrence>) {
    if let Ok(config) = Config::load() {
        announce(tmux, &Listeners::from_config(&config), occurrences);
    }
}

/// The result of checking a `[hooks]` name, for `taw config check`.
pub(crate) fn unknown_names(config: &Config) -> Vec<(String, Vec<String>)> {
    let mut unknown: Vec<(String, Vec<String>)> = Vec::new();
    for entry in config.table(&schema::HOOKS) {
        if entry.key == "timeout_seconds" || crate::events::is_hook_name(&entry.key) {
            continue;
        }
        let commands = hook_commands(config, &entry.key);
        unknown.push((entry.key.clone(), commands));
    }
    unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listeners_ask_only_for_the_tmux_hooks_they_need() {
        let config = Config::parse(
            std::path::Path::new("config.toml"),
            "[hooks]\n\"tab.created\" = \"true\"\n\"pane.closed\" = [\"a\", \"b\"]\n\"agent.done\" = \"\"\n",
        );
        let listeners = Listeners::from_config(&config);
        assert!(listeners.hears(Event::TabCreated));
        assert!(
            !listeners.hears(Event::AgentDone),
            "an empty line is no listener"
        );
        assert_eq!(listeners.commands(Event::PaneClosed), ["a", "b"]);
        assert_eq!(
            listeners.tmux_hooks(),
            [
                "window-linked",
                "after-kill-pane",
                "window-unlinked",
                "session-closed",
                "pane-exited"
            ]
        );
        assert!(listeners.needs_roster());
        let none = Listeners::from_config(&Config::default());
        assert!(
            !none.hears(Event::PaneClosed) && none.tmux_hooks().is_empty() && !none.needs_roster()
        );
    }
}
