//! Running a plugin's command: its argv with no shell, in the plugin's
//! root, with the environment of `env.rs`, its outputs kept (the last
//! 64 KiB of each), and a record of the run in the plugin log that `taw
//! plugin log list` reads (bounded at 16 MiB, the older half dropped).

use super::env::{self, Invocation};
use super::registry::PluginInfo;
use crate::exec::{Failure, Program};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A program of the plugin's own: a relative path (`./bin/x`,
/// `scripts/run`) is read from the plugin's root; a bare name is found on
/// PATH and an absolute path is as it is (None for both).
pub(crate) fn own_program(root: &Path, program: &str) -> Option<PathBuf> {
    (program.contains('/') && !program.starts_with('/')).then(|| root.join(program))
}

/// The most of each output stream a run keeps.
const KEPT: usize = 64 * 1024;

/// The log's size past which its older half goes: some hundreds of runs
/// with their output.
const LOG_BOUND: u64 = 16 * 1024 * 1024;

/// herdr's PluginCommandLogInfo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct LogRecord {
    pub log_id: String,
    pub plugin_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    pub command: Vec<String>,
    /// `succeeded` or `failed`.
    pub status: String,
    pub started_unix_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_unix_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Runs `argv` for `plugin`, to its end or `limit`, and logs the run.
pub(crate) fn run(
    plugin: &PluginInfo,
    argv: &[String],
    invocation: &Invocation,
    action_id: Option<&str>,
    limit: Option<Duration>,
) -> LogRecord {
    let started = crate::clock::now_ms();
    let mut record = LogRecord {
        log_id: next_log_id(started),
        plugin_id: plugin.manifest.plugin_id.clone(),
        action_id: action_id.map(str::to_string),
        event: (invocation.event != "action").then(|| invocation.event.clone()),
        command: argv.to_vec(),
        status: "failed".into(),
        started_unix_ms: started,
        finished_unix_ms: None,
        exit_code: None,
        stdout: None,
        stderr: None,
        error: None,
    };
    let inherited: Vec<(String, String)> = match &invocation.base_env {
        Some(base) => base.clone().into_iter().collect(),
        None => std::env::vars().collect(),
    };
    let environment = match env::environment(plugin, invocation, inherited) {
        Ok(environment) => environment,
        Err(error) => {
            record.error = Some(error.message);
            append(&record);
            return record;
        }
    };
    if !std::path::Path::new(&plugin.plugin_root).is_dir() {
        record.error = Some(format!(
            "the plugin's folder {} is gone; install or link it again",
            plugin.plugin_root
        ));
        append(&record);
        return record;
    }
    let Some((program, args)) = argv.split_first() else {
        record.error = Some("the command is empty".into());
        append(&record);
        return record;
    };
    let program_path = own_program(Path::new(&plugin.plugin_root), program)
        .unwrap_or_else(|| PathBuf::from(program));
    let outcome = Program::new(&program_path)
        .args(args)
        .env_clear()
        .envs(environment)
        .current_dir(&plugin.plugin_root)
        .limit(limit)
        .stdout_tail(KEPT + 1)
        .stderr_tail(KEPT + 1)
        .output();
    record.finished_unix_ms = Some(crate::clock::now_ms());
    match outcome {
        Ok(output) => {
            record.exit_code = output.status.code();
            if output.status.success() {
                record.status = "succeeded".into();
            }
            record.stdout = Some(kept(&output.stdout));
            record.stderr = Some(kept(&output.stderr));
        }
        Err(Failure::TimedOut(limit)) => {
            record.error = Some(format!(
                "it ran past {} and was stopped",
                crate::exec::seconds(limit)
            ))
        }
        Err(Failure::NotFound) => record.error = Some(format!("{program}: no such program")),
        Err(other) => record.error = Some(other.describe(program)),
    }
    append(&record);
    record
}

/// An id no other run has: the time, this process, and a count within it.
fn next_log_id(started: u64) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNT: AtomicU32 = AtomicU32::new(0);
    format!(
        "plugin-log-{started}-{}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The last 64 KiB of a stream, after a note when there was more.
fn kept(bytes: &[u8]) -> String {
    crate::exec::tail_text(bytes, KEPT)
}

fn log_path() -> PathBuf {
    super::registry::plugins_dir().join("log.jsonl")
}

/// Adds a run to the log; past its bound, its older half goes.
fn append(record: &LogRecord) {
    if let Ok(line) = serde_json::to_string(record) {
        crate::paths::append_line(&log_path(), &line, LOG_BOUND);
    }
}

/// The newest `limit` runs (of one plugin, or all), oldest first.
pub(crate) fn log(plugin: Option<&str>, limit: usize) -> Vec<LogRecord> {
    let text = std::fs::read_to_string(log_path()).unwrap_or_default();
    let records: Vec<LogRecord> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<LogRecord>(line).ok())
        .filter(|r| plugin.is_none_or(|id| r.plugin_id == id))
        .collect();
    records[records.len().saturating_sub(limit)..].to_vec()
}
