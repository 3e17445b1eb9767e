//! `taw integration install|status|uninstall` against real files in a
//! private HOME: every target's entry and script go in, and come out
//! leaving the user's files byte for byte as they were; a hook that might
//! be taw's, or a file that does not parse, stops it with nothing changed.
//! The hook scripts run for real in tmux panes.
#![allow(clippy::disallowed_methods)]

use crate::common::TmuxServer;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

struct Home {
    server: TmuxServer,
}

impl Home {
    fn new() -> Home {
        Home {
            server: TmuxServer::empty(),
        }
    }

    fn path(&self) -> PathBuf {
        self.server.dir.path().join("home")
    }

    fn file(&self, relative: &str) -> PathBuf {
        self.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.file(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn dir(&self, relative: &str) {
        std::fs::create_dir_all(self.file(relative)).unwrap();
    }

    fn taw(&self, args: &[&str]) -> crate::common::Run {
        self.server.taw_bare(args, &[])
    }

    fn install(&self, target: &str) -> Value {
        self.taw(&["integration", "install", target]).result()
    }

    fn uninstall(&self, target: &str) -> Value {
        self.taw(&["integration", "uninstall", target]).result()
    }

    fn status(&self, target: &str) -> Value {
        let result = self.taw(&["integration", "status", target]).result();
        result["integrations"][0].clone()
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

/// One target's round trip: the files as the user has them, installed
/// (each `expect` found in its file, the script there with its marker),
/// uninstalled back to the same bytes.
fn round_trip(
    home: &Home,
    target: &str,
    user_files: &[(&str, &str)],
    script: &str,
    expect: &[(&str, &str)],
) {
    for (path, text) in user_files {
        home.write(path, text);
    }
    let script_folder = home.file(script).parent().unwrap().to_path_buf();
    let folder_was_there = script_folder.exists();
    let installed = home.install(target);
    assert_eq!(installed["target"], target, "{installed}");
    let script = home.file(script);
    let text = read(&script);
    assert!(
        text.contains(&format!("TAW_INTEGRATION_ID={target}")),
        "{text}"
    );
    assert!(text.contains("TAW_INTEGRATION_VERSION=1"));
    for (file, needle) in expect {
        let body = read(&home.file(file));
        let needle = needle.replace("$SCRIPT", &script.display().to_string());
        assert!(body.contains(&needle), "{file} lacks {needle:?}:\n{body}");
    }
    let status = home.status(target);
    assert_eq!(status["installed"], true, "{status}");
    assert_eq!(status["version"], 1);
    assert_eq!(status["current_version"], 1);
    assert_eq!(status["outdated"], false, "{status}");
    // Installing again changes nothing.
    let before_again: Vec<String> = user_files
        .iter()
        .map(|(p, _)| read(&home.file(p)))
        .collect();
    home.install(target);
    let after_again: Vec<String> = user_files
        .iter()
        .map(|(p, _)| read(&home.file(p)))
        .collect();
    assert_eq!(
        before_again, after_again,
        "a second install changed {target}'s files"
    );
    home.uninstall(target);
    for (path, text) in user_files {
        assert_eq!(&read(&home.file(path)), text, "{path} is not as it was");
        let saved = format!("{}.taw-backup", home.file(path).display());
        assert!(!Path::new(&saved).exists(), "{saved} is left");
    }
    assert!(!script.exists(), "{} is left", script.display());
    // A folder the install made for the script goes with it, and its mark.
    assert_eq!(
        script_folder.exists(),
        folder_was_there,
        "{}",
        script_folder.display()
    );
    let marks = walk(&home.path())
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".taw-made"))
        .collect::<Vec<_>>();
    assert!(marks.is_empty(), "marks left: {marks:?}");
    assert_eq!(home.status(target)["installed"], false);
}

/// Every file and folder under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

#[test]
fn claude_settings_keep_every_byte() {
    let home = Home::new();
    let settings = "{\n    \"model\": \"opus\",\n    \"permissions\": { \"allow\": [\"Bash(ls:*)\"] },\n    \"hooks\": {\n        \"SessionStart\": [\n            { \"matcher\": \"startup\", \"hooks\": [ { \"type\": \"command\", \"command\": \"~/bin/greet.sh\" } ] }\n        ],\n        \"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"notify-send done\" } ] } ]\n    }\n}\n";
    round_trip(
        &home,
        "claude",
        &[(".claude/settings.json", settings)],
        ".claude/hooks/taw-agent-session.sh",
        &[(
            ".claude/settings.json",
            "\"command\": \"sh '$SCRIPT' session\"",
        )],
    );
    let status = home.status("claude");
    assert_eq!(status["path"], "~/.claude/hooks/taw-agent-session.sh");
    assert_eq!(status["experimental"], false);
}

// Every other target's round trip, four targets a test: each target
// starts in a home of its own files and ends with them as they were, so
// the groups run side by side.

#[test]
fn pi_omp_opencode_and_kilo_round_trip() {
    let home = Home::new();
    home.dir(".pi/agent");
    round_trip(
        &home,
        "pi",
        &[(".pi/agent/settings.json", "{\"defaultModel\": \"m\"}\n")],
        ".pi/agent/extensions/taw-agent-state.ts",
        &[],
    );
    home.dir(".omp/agent");
    round_trip(
        &home,
        "omp",
        &[],
        ".omp/agent/extensions/taw-omp-agent-state.ts",
        &[],
    );
    round_trip(
        &home,
        "opencode",
        &[
            (
                ".config/opencode/opencode.json",
                "{\"autoupdate\": false}\n",
            ),
            (
                ".config/opencode/cli.json",
                "{\n  // mine\n  \"plugins\": [\"./mine\"],\n}\n",
            ),
        ],
        ".config/opencode/plugins/taw-agent-state.js",
        &[(".config/opencode/cli.json", "\"./taw-opencode\"")],
    );
    assert!(!home.file(".config/opencode/taw-opencode").exists());
    home.dir(".config/kilo");
    round_trip(
        &home,
        "kilo",
        &[],
        ".config/kilo/plugin/taw-agent-state.js",
        &[],
    );
}

#[test]
fn codex_copilot_devin_and_droid_round_trip() {
    let home = Home::new();
    round_trip(
        &home,
        "codex",
        &[
            (
                ".codex/hooks.json",
                "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/ding\"}]}\n    ]\n  }\n}\n",
            ),
            (
                ".codex/config.toml",
                "# my codex\nmodel = \"o3\"   # the best\n\n[features]\ncodex_hooks = true\nplugins = false\n\n[projects.\"/src\"]\ntrust_level = \"trusted\"\n",
            ),
        ],
        ".codex/taw-agent-session.sh",
        &[
            (".codex/hooks.json", "sh '$SCRIPT' session"),
            (".codex/config.toml", "hooks = true"),
        ],
    );
    round_trip(
        &home,
        "copilot",
        &[(".copilot/settings.json", "{\n  \"theme\": \"dark\"\n}\n")],
        ".copilot/hooks/taw-agent-session.sh",
        &[
            (
                ".copilot/settings.json",
                "\"bash\": \"sh '$SCRIPT' session\"",
            ),
            (".copilot/settings.json", "\"timeoutSec\": 10"),
        ],
    );
    round_trip(
        &home,
        "devin",
        &[(
            ".config/devin/config.json",
            "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}]}}",
        )],
        ".config/devin/taw-agent-session.sh",
        &[(".config/devin/config.json", "\"UserPromptSubmit\"")],
    );
    round_trip(
        &home,
        "droid",
        &[(
            ".factory/settings.json",
            "{\n  \"model\": \"droid-1\",\n  \"hooks\": {}\n}\n",
        )],
        ".factory/hooks/taw-agent-session.sh",
        &[(".factory/settings.json", "sh '$SCRIPT' session")],
    );
}

#[test]
fn kimi_hermes_qodercli_and_cursor_round_trip() {
    let home = Home::new();
    round_trip(
        &home,
        "kimi",
        &[(
            ".kimi-code/config.toml",
            "# Kimi\ndefault_model = \"kimi-k2\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"say done\"\n",
        )],
        ".kimi-code/hooks/taw-agent-state.sh",
        &[
            (".kimi-code/config.toml", "matcher = \"^AskUserQuestion$\""),
            (".kimi-code/config.toml", "# >>> taw kimi integration >>>"),
        ],
    );
    round_trip(
        &home,
        "hermes",
        &[(
            ".hermes/config.yaml",
            "# Hermes\nmodel: hermes-4\nplugins:\n  enabled:\n    - memory   # mine\n\ndisplay:\n  skin: mono\n",
        )],
        ".hermes/plugins/taw-agent-session/__init__.py",
        &[(".hermes/config.yaml", "    - taw-agent-session\n")],
    );
    assert!(!home.file(".hermes/plugins/taw-agent-session").exists());
    round_trip(
        &home,
        "qodercli",
        &[(".qoder/settings.json", "{}")],
        ".qoder/hooks/taw-agent-session.sh",
        &[(".qoder/settings.json", "\"matcher\": \"*\"")],
    );
    round_trip(
        &home,
        "cursor",
        &[(
            ".cursor/hooks.json",
            "{\n  \"version\": 1,\n  \"hooks\": {\"stop\": [{\"command\": \"say done\"}]}\n}\n",
        )],
        ".cursor/taw-agent-session.sh",
        &[(".cursor/hooks.json", "\"sessionStart\"")],
    );
}

#[test]
fn mastracode_antigravity_grok_and_letta_round_trip() {
    let home = Home::new();
    round_trip(
        &home,
        "mastracode",
        &[(
            ".mastracode/hooks.json",
            "{\n  \"Stop\": [{\"type\": \"command\", \"command\": \"say bye\"}]\n}\n",
        )],
        ".mastracode/hooks/taw-agent-state.sh",
        &[
            (".mastracode/hooks.json", "\"timeout\": 10000"),
            (".mastracode/hooks.json", "sh '$SCRIPT' blocked"),
        ],
    );
    round_trip(
        &home,
        "antigravity-cli",
        &[(
            ".gemini/config/hooks.json",
            "{\n  \"mine\": {\"PreInvocation\": [{\"type\": \"command\", \"command\": \"log\"}]}\n}\n",
        )],
        ".gemini/config/hooks/taw-agent-session.sh",
        &[(".gemini/config/hooks.json", "\"taw\": {")],
    );
    round_trip(
        &home,
        "grok",
        &[(".grok/hooks/mine.json", "{\"hooks\": {}}\n")],
        ".grok/hooks/taw-agent-session.sh",
        &[],
    );
    round_trip(
        &home,
        "letta",
        &[(".letta/settings.json", "{\n  \"agent\": \"a-1\"\n}\n")],
        ".letta/hooks/taw-agent-session.sh",
        &[(".letta/settings.json", "\"quiet\": true")],
    );
    assert_eq!(home.status("letta")["experimental"], true);
}

#[test]
fn a_file_taw_made_goes_and_a_folder_it_needs_is_asked_for() {
    let home = Home::new();
    // Mastra Code's folder is made when missing, and its hooks.json with it.
    home.install("mastracode");
    assert!(home.file(".mastracode/hooks.json").exists());
    assert!(executable(
        &home.file(".mastracode/hooks/taw-agent-state.sh")
    ));
    home.uninstall("mastracode");
    assert!(!home.file(".mastracode/hooks.json").exists());
    // The folder it made, and nothing of the user's came into it: gone.
    assert!(!home.file(".mastracode").exists());
    // One the user puts a file in stays, with the file.
    home.install("mastracode");
    home.write(".mastracode/hooks/mine.sh", "echo mine\n");
    home.uninstall("mastracode");
    assert_eq!(read(&home.file(".mastracode/hooks/mine.sh")), "echo mine\n");
    // Claude Code is not installed: its folder is not there.
    let run = home.taw(&["integration", "install", "claude"]);
    assert_eq!(run.error_code(), "integration_install_failed", "{run:?}");
    assert!(run.stderr.contains("~/.claude"), "{}", run.stderr);
    assert!(!home.file(".claude").exists());
    let run = home.taw(&["integration", "install", "nobody"]);
    assert_eq!(run.error_code(), "invalid_argument");
    // herdr's socket spelling.
    home.dir(".gemini/config");
    assert_eq!(home.install("antigravity_cli")["target"], "antigravity-cli");
}

#[test]
fn edits_made_since_the_install_stay() {
    let home = Home::new();
    let settings = home.write(".claude/settings.json", "{\n  \"model\": \"opus\"\n}\n");
    home.install("claude");
    // The user adds a key after the install.
    let text = read(&settings).replacen(
        "\"model\": \"opus\"",
        "\"model\": \"opus\",\n  \"theme\": \"light\"",
        1,
    );
    std::fs::write(&settings, &text).unwrap();
    home.uninstall("claude");
    assert_eq!(
        read(&settings),
        "{\n  \"model\": \"opus\",\n  \"theme\": \"light\"\n}\n"
    );
    assert!(!home.file(".claude/settings.json.taw-backup").exists());
}

#[test]
fn a_linked_config_stays_a_link() {
    let home = Home::new();
    let real = home.write("dotfiles/claude-settings.json", "{\"model\": \"opus\"}\n");
    home.dir(".claude");
    std::os::unix::fs::symlink(&real, home.file(".claude/settings.json")).unwrap();
    home.install("claude");
    let link = home.file(".claude/settings.json");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(read(&real).contains("taw-agent-session.sh"));
    home.uninstall("claude");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&real), "{\"model\": \"opus\"}\n");
}

/// A link to a file not made yet (a dotfiles folder's): the install makes
/// the file it names, and the uninstall removes that file, never the link,
/// as it was before.
#[test]
fn a_link_to_a_file_not_made_yet_stays_a_link() {
    let home = Home::new();
    home.dir("dotfiles");
    let real = home.file("dotfiles/claude-settings.json");
    home.dir(".claude");
    let link = home.file(".claude/settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    home.install("claude");
    assert!(read(&real).contains("taw-agent-session.sh"));
    home.uninstall("claude");
    let kind = std::fs::symlink_metadata(&link).unwrap().file_type();
    assert!(kind.is_symlink(), "the link went");
    assert!(!real.exists(), "taw's file stayed: {}", read(&real));
}

#[test]
fn uninstall_refuses_a_hook_that_might_be_taws() {
    let home = Home::new();
    let settings = home.write(".claude/settings.json", "{}\n");
    home.install("claude");
    let script = home.file(".claude/hooks/taw-agent-session.sh");
    let saved = home.file(".claude/settings.json.taw-backup");
    for unsure in [
        "./taw-agent-session.sh session",
        "'~/.claude/hooks/taw-agent-session.sh'",
        "$CLAUDE_HOME/hooks/taw-agent-session.sh",
        "/no/such/folder/taw-agent-session.sh",
    ] {
        let text = read(&settings).replacen(
            "\"hooks\": {",
            &format!(
                "\"hooks\": {{\n    \"Stop\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": {}}}]}}],",
                serde_json::to_string(unsure).unwrap()
            ),
            1,
        );
        std::fs::write(&settings, &text).unwrap();
        let saved_before = read(&saved);
        let run = home.taw(&["integration", "uninstall", "claude"]);
        assert_eq!(run.error_code(), "invalid_argument", "{unsure}: {run:?}");
        assert!(run.stderr.contains("settings.json"), "{}", run.stderr);
        assert_eq!(read(&settings), text, "{unsure}: the config changed");
        assert!(script.exists(), "{unsure}: the script went");
        assert_eq!(read(&saved), saved_before);
        // Put it back as the install left it.
        home.write(".claude/settings.json", "{}\n");
        std::fs::remove_file(&saved).unwrap();
        home.install("claude");
    }
    // A hook of taw's spelled with ~/ and one of another folder's script
    // of the same name are told apart.
    home.dir("elsewhere");
    let text = read(&settings).replacen(
        "\"hooks\": {",
        &format!(
            "\"hooks\": {{\n    \"Stop\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"~/.claude/hooks/taw-agent-session.sh idle\"}}, {{\"type\": \"command\", \"command\": \"{}/taw-agent-session.sh\"}}]}}],",
            home.file("elsewhere").display()
        ),
        1,
    );
    std::fs::write(&settings, &text).unwrap();
    home.uninstall("claude");
    let left = read(&settings);
    assert!(
        !left.contains(".claude/hooks/taw-agent-session.sh"),
        "{left}"
    );
    assert!(left.contains("elsewhere/taw-agent-session.sh"), "{left}");
}

#[test]
fn a_config_that_does_not_parse_is_left_alone() {
    let home = Home::new();
    let broken = "{\n  \"model\": \"opus\",\n  \"hooks\" {}\n}\n";
    let settings = home.write(".claude/settings.json", broken);
    let run = home.taw(&["integration", "install", "claude"]);
    assert_eq!(run.error_code(), "invalid_config", "{run:?}");
    assert!(
        run.stderr.contains("~/.claude/settings.json"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("line 3"), "{}", run.stderr);
    assert_eq!(read(&settings), broken);
    assert!(!home.file(".claude/hooks/taw-agent-session.sh").exists());
    let toml = home.write(".kimi-code/config.toml", "default_model = \n");
    let run = home.taw(&["integration", "install", "kimi"]);
    assert_eq!(run.error_code(), "invalid_config");
    assert!(run.stderr.contains("line 1"), "{}", run.stderr);
    assert_eq!(read(&toml), "default_model = \n");
    let yaml = home.write(".hermes/config.yaml", "plugins: [\n");
    let run = home.taw(&["integration", "install", "hermes"]);
    assert_eq!(run.error_code(), "invalid_config");
    assert_eq!(read(&yaml), "plugins: [\n");
}

#[test]
fn status_says_what_is_out_of_date() {
    let home = Home::new();
    home.dir(".claude");
    home.dir(".codex");
    home.dir(".config/opencode");
    let all = home.taw(&["integration", "status"]).result();
    let entries = all["integrations"].as_array().unwrap();
    assert_eq!(entries.len(), 17);
    for entry in entries {
        for key in [
            "agent",
            "installed",
            "path",
            "version",
            "current_version",
            "outdated",
            "note",
            "experimental",
        ] {
            assert!(entry.get(key).is_some(), "{key} missing in {entry}");
        }
    }
    // OpenCode 2 has not run: a note, not out of date.
    let opencode = home.status("opencode");
    assert_eq!(opencode["outdated"], false);
    assert!(
        opencode["note"].as_str().unwrap().contains("cli.json"),
        "{opencode}"
    );
    home.install("opencode");
    home.write(".config/opencode/cli.json", "{}\n");
    let opencode = home.status("opencode");
    assert_eq!(opencode["outdated"], true, "{opencode}");
    // Codex: always the note on reviewing the hook.
    let installed = home.install("codex");
    let messages = installed["details"]["messages"].to_string();
    assert!(messages.contains("Hooks need review"), "{messages}");
    assert!(
        home.status("codex")["note"]
            .as_str()
            .unwrap()
            .contains("Hooks need review")
    );
    // An older script, and an entry taken out by hand.
    home.install("claude");
    let script = home.file(".claude/hooks/taw-agent-session.sh");
    std::fs::write(
        &script,
        read(&script).replace("TAW_INTEGRATION_VERSION=1", "TAW_INTEGRATION_VERSION=0"),
    )
    .unwrap();
    let claude = home.status("claude");
    assert_eq!(claude["version"], 0);
    assert_eq!(claude["outdated"], true);
    assert!(
        claude["note"]
            .as_str()
            .unwrap()
            .contains("taw integration install claude")
    );
    let outdated = home
        .taw(&["integration", "status", "--outdated-only"])
        .result();
    let names: Vec<&str> = outdated["integrations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["agent"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["claude", "opencode"]);
    home.install("claude");
    std::fs::write(home.file(".claude/settings.json"), "{}\n").unwrap();
    assert_eq!(home.status("claude")["outdated"], true);
}

/// The hook script, run in a pane of a server with the plugin loaded, puts
/// the session on the pane; outside tmux, or with no taw, it does nothing.
#[test]
fn the_hook_script_reports_from_a_pane() {
    let home = Home::new();
    home.dir(".claude");
    home.install("claude");
    let script = home.file(".claude/hooks/taw-agent-session.sh");
    let server = &home.server;
    server.tmux(&["new-session", "-d", "-s", "main", "-x", "120", "-y", "40"]);
    server.load_plugin();
    let pane = server.bash_pane("hook");
    let payload = home.write("payload.json", "{\"session_id\": \"s-42\", \"transcript_path\": \"/tmp/s-42.jsonl\", \"source\": \"startup\", \"hook_event_name\": \"SessionStart\"}");
    let line = format!(
        "PATH=/usr/bin:/bin sh '{}' session < '{}'; echo status=$?",
        script.display(),
        payload.display()
    );
    server.tmux(&["send-keys", "-t", &pane, "-l", &line]);
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    server.wait_for("the hook's report", Duration::from_secs(10), || {
        server.display(&pane, "#{@agent_session}").contains("s-42")
    });
    let record = server.taw(&["pane", "get", &pane]).result();
    assert_eq!(record["pane"]["agent_session_id"], "s-42", "{record}");
    assert_eq!(record["pane"]["agent_session_path"], "/tmp/s-42.jsonl");
    // The script's report is in before it exits: its status comes after.
    server.wait_for("the script's status", Duration::from_secs(10), || {
        server
            .tmux(&["capture-pane", "-p", "-t", &pane])
            .contains("status=0")
    });
    // Outside tmux, with no taw: nothing, status 0, no output.
    let mut command = std::process::Command::new("sh");
    server.isolate_command(&mut command);
    let run = command
        .arg(&script)
        .arg("session")
        .env("PATH", "/usr/bin:/bin")
        .stdin(std::fs::File::open(&payload).unwrap())
        .output()
        .unwrap();
    assert!(run.status.success());
    assert!(run.stdout.is_empty() && run.stderr.is_empty());
}

/// Kimi Code runs taw's hooks from 0.14.0 on: an older one is refused, one
/// whose version cannot be told is installed with a warning.
#[test]
fn an_agent_too_old_for_its_hooks_is_refused() {
    let home = Home::new();
    let config = home.write(".kimi-code/config.toml", "default_model = \"k2\"\n");
    let bin = home.file("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let kimi = bin.join("kimi");
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let install = |version: &str| {
        std::fs::write(
            &kimi,
            format!("#!/bin/sh\necho 'kimi, version {version}'\n"),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&kimi, std::fs::Permissions::from_mode(0o755)).unwrap();
        home.server
            .taw_bare(&["integration", "install", "kimi"], &[("PATH", &path)])
    };
    let run = install("0.13.2");
    assert_eq!(run.error_code(), "integration_install_failed", "{run:?}");
    assert!(run.stderr.contains("0.13.2 is too old"), "{}", run.stderr);
    assert_eq!(read(&config), "default_model = \"k2\"\n");
    let run = install("0.14.0");
    assert_eq!(run.status, 0, "{run:?}");
    home.uninstall("kimi");
    std::fs::remove_file(&kimi).unwrap();
    let run = home
        .server
        .taw_bare(&["integration", "install", "kimi"], &[("PATH", &path)]);
    let messages = run.result()["details"]["messages"].to_string();
    assert!(
        messages.contains("could not tell Kimi Code CLI's version"),
        "{messages}"
    );
}

/// `target` installed in a home with `dirs` and the user's `written`
/// files, and each of `files` (the program, its arguments, the file)
/// parsed by the program of the language it is in, where that program is
/// installed.
fn installed_files_parse(
    target: &str,
    dirs: &[&str],
    written: &[(&str, &str)],
    files: &[(&str, &[&str], &str)],
) {
    let home = Home::new();
    for dir in dirs {
        home.dir(dir);
    }
    for (path, text) in written {
        home.write(path, text);
    }
    home.install(target);
    for (program, args, file) in files {
        let here = crate::common::installed(program);
        if !crate::common::tool_here(here, &format!("{program}, to check {file}")) {
            continue;
        }
        let run = std::process::Command::new(program)
            .args(*args)
            .arg(home.file(file))
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{file} does not parse: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
}

// What taw writes parses in the language it is in: the shell scripts, the
// JavaScript plugins (node), the Python plugin (python3). A test a target.

#[test]
fn claudes_hook_script_parses() {
    installed_files_parse(
        "claude",
        &[".claude"],
        &[],
        &[("sh", &["-n"], ".claude/hooks/taw-agent-session.sh")],
    );
}

#[test]
fn opencodes_plugins_parse() {
    installed_files_parse(
        "opencode",
        &[".config/opencode"],
        // OpenCode 2's cli.json: its plugin goes in too.
        &[(".config/opencode/cli.json", "{}\n")],
        &[
            (
                "node",
                &["--check"],
                ".config/opencode/plugins/taw-agent-state.js",
            ),
            ("node", &["--check"], ".config/opencode/taw-opencode/tui.js"),
        ],
    );
}

#[test]
fn kilos_plugin_parses() {
    installed_files_parse(
        "kilo",
        &[".config/kilo"],
        &[],
        &[(
            "node",
            &["--check"],
            ".config/kilo/plugin/taw-agent-state.js",
        )],
    );
}

#[test]
fn hermes_plugin_parses() {
    installed_files_parse(
        "hermes",
        &[".hermes"],
        &[],
        &[(
            "python3",
            &["-m", "py_compile"],
            ".hermes/plugins/taw-agent-session/__init__.py",
        )],
    );
}

/// The cases a careless editor gets wrong: CR LF lines, a private file and
/// its saved copy, the user's own empty lists, a file that only looks
/// like one taw made, a script deleted under its hook, Kimi's hooks.
#[test]
fn edge_cases_keep_the_users_bytes() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new();
    // CR LF, kept through a give-back and through a take-out.
    let crlf = "{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"Stop\": []\r\n  }\r\n}\r\n";
    let settings = home.write(".claude/settings.json", crlf);
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o600)).unwrap();
    home.install("claude");
    let with = read(&settings);
    assert!(!with.replace("\r\n", "").contains('\n'), "{with:?}");
    let saved = home.file(".claude/settings.json.taw-backup");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&settings), 0o600);
    assert_eq!(
        mode(&saved),
        0o600,
        "the saved copy is not as private as the file"
    );
    // The user edits after the install: taken out, the empty "Stop" list
    // the user had stays, the CRs too.
    std::fs::write(&settings, with.replacen("\"opus\"", "\"sonnet\"", 1)).unwrap();
    home.uninstall("claude");
    assert_eq!(read(&settings), crlf.replacen("\"opus\"", "\"sonnet\"", 1));

    // A config that only looks like one taw made is not removed.
    let config = home.write(".codex/config.toml", "[features]\nhooks = true\n");
    home.install("codex");
    home.uninstall("codex");
    assert_eq!(read(&config), "[features]\nhooks = true\n");
    // Hooks the user turned off: turned on, and said so.
    std::fs::write(&config, "[features]\nhooks = false\n").unwrap();
    let installed = home.install("codex");
    let messages = installed["details"]["messages"].to_string();
    assert!(messages.contains("hooks were turned off"), "{messages}");
    assert!(read(&config).contains("hooks = true"));
    home.uninstall("codex");

    // The script deleted under its hook: out of date, with a note.
    home.install("claude");
    std::fs::remove_file(home.file(".claude/hooks/taw-agent-session.sh")).unwrap();
    let status = home.status("claude");
    assert_eq!(status["installed"], false);
    assert_eq!(status["outdated"], true, "{status}");
    assert!(
        status["note"].as_str().unwrap().contains("is gone"),
        "{status}"
    );
    home.uninstall("claude");

    // Kimi: a hook of the user's that might run taw's script refuses the
    // uninstall; one of taw's whose markers a formatter dropped goes.
    let kimi = home.write(".kimi-code/config.toml", "default_model = \"k2\"\n");
    home.install("kimi");
    let script = home.file(".kimi-code/hooks/taw-agent-state.sh");
    let text = read(&kimi);
    std::fs::write(
        &kimi,
        format!("{text}\n[[hooks]]\nevent = \"Stop\"\ncommand = \"sh ./hooks/taw-agent-state.sh idle\"\n"),
    )
    .unwrap();
    let before = read(&kimi);
    let run = home.taw(&["integration", "uninstall", "kimi"]);
    assert_eq!(run.error_code(), "invalid_argument", "{run:?}");
    assert_eq!(read(&kimi), before);
    assert!(script.exists());
    let unmarked: String = text
        .lines()
        .filter(|l| !l.starts_with("# "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&kimi, &unmarked).unwrap();
    home.uninstall("kimi");
    let left = read(&kimi);
    assert!(!left.contains("taw-agent-state.sh"), "{left}");
    assert!(left.starts_with("default_model = \"k2\"\n"), "{left}");
}

/// Kimi's hook script reports the agent's state, not only its session:
/// run in a pane, each action lands as the integration's state.
#[test]
fn a_state_hook_reports_from_a_pane() {
    let home = Home::new();
    home.write(".kimi-code/config.toml", "");
    home.install("kimi");
    let script = home.file(".kimi-code/hooks/taw-agent-state.sh");
    let server = &home.server;
    server.tmux(&["new-session", "-d", "-s", "main", "-x", "120", "-y", "40"]);
    // No plugin, so no watcher: no Kimi runs in the pane, and a watcher
    // would take the reports of an agent that is not there off again.
    // The script reaches taw through the taw that installed it.
    let pane = server.bash_pane("kimi");
    let payload = home.write(
        "payload.json",
        "{\"session_id\": \"k-1\", \"hook_event_name\": \"PreToolUse\"}",
    );
    for state in ["blocked", "working", "idle"] {
        let line = format!(
            "PATH=/usr/bin:/bin sh '{}' {state} < '{}'",
            script.display(),
            payload.display()
        );
        server.tmux(&["send-keys", "-t", &pane, "-l", &line]);
        server.tmux(&["send-keys", "-t", &pane, "Enter"]);
        server.wait_for(
            &format!("the reported {state}"),
            Duration::from_secs(10),
            || server.display(&pane, "#{@agent_reported_state}") == state,
        );
    }
    assert_eq!(
        server.display(&pane, "#{@agent_reported_source}"),
        "integration:kimi"
    );
    assert!(server.display(&pane, "#{@agent_session}").contains("k-1"));
}
