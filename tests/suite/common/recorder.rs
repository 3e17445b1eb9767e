//! A `[hooks]` command that records every event it hears, for the tests
//! that check which events fire, how often, and with what.
#![allow(dead_code)]

use super::TmuxServer;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// A hook command that records each event it gets: the JSON it read on
/// standard input and its TAW_* (and any HERDR_*) variables, one file
/// pair per run.
pub struct Recorder {
    pub dir: PathBuf,
    pub script: PathBuf,
}

/// One recorded run of a hook.
#[derive(Debug, Clone)]
pub struct Heard {
    pub input: Value,
    pub env: BTreeMap<String, String>,
}

impl Recorder {
    pub fn new(server: &TmuxServer) -> Recorder {
        let dir = server.dir.path().join("heard");
        std::fs::create_dir_all(&dir).unwrap();
        let script = server.dir.path().join("record.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\nf=\"$1/$TAW_EVENT.$$.$(date +%s%N)\"\ncat > \"$f.in\"\nenv | grep -E '^(TAW_|HERDR_|TMUX=|HOME=)' > \"$f.env\"\nmv \"$f.in\" \"$f.json\"\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        Recorder { dir, script }
    }

    /// The `[hooks]` line that records into this recorder.
    pub fn line(&self) -> String {
        format!("{} {}", self.script.display(), self.dir.display())
    }

    /// config.toml text hooking each of `events` to the recorder.
    pub fn config(&self, events: &[&str]) -> String {
        let mut text = String::from("[hooks]\n");
        for event in events {
            text.push_str(&format!("\"{event}\" = {:?}\n", self.line()));
        }
        text
    }

    pub fn heard(&self, event: &str) -> Vec<Heard> {
        let mut found = Vec::new();
        let mut names: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                name.ends_with(".json") && name.starts_with(&format!("{event}."))
            })
            .collect();
        // By the time the hook ran (the name's last part, in ns).
        let time = |p: &PathBuf| -> u128 {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            name.rsplit('.').next().unwrap().parse().unwrap_or(0)
        };
        names.sort_by_key(time);
        for path in names {
            let input: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let env_path = path.with_extension("env");
            let env = std::fs::read_to_string(env_path)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            found.push(Heard { input, env });
        }
        found
    }

    /// The runs of `event` whose data field `field` is `value`.
    pub fn about(&self, event: &str, field: &str, value: &str) -> Vec<Heard> {
        self.heard(event)
            .into_iter()
            .filter(|h| h.input["data"][field] == value || nested(&h.input["data"], field) == value)
            .collect()
    }

    /// Waits until exactly one run of `event` is about `value`, and checks
    /// no second one comes.
    pub fn once(&self, server: &TmuxServer, event: &str, field: &str, value: &str) -> Heard {
        server.wait_for(&format!("{event} about {value}"), WAIT, || {
            !self.about(event, field, value).is_empty()
        });
        let found = self.about(event, field, value);
        assert_eq!(
            found.len(),
            1,
            "{event} about {value} more than once: {found:#?}"
        );
        found[0].clone()
    }

    pub fn clear(&self) {
        for entry in std::fs::read_dir(&self.dir).unwrap().flatten() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `pane.pane_id` and the like: a field inside the record of the data.
pub fn nested<'a>(data: &'a Value, field: &str) -> &'a Value {
    for record in ["pane", "tab", "workspace", "layout"] {
        if !data[record][field].is_null() {
            return &data[record][field];
        }
    }
    &Value::Null
}
