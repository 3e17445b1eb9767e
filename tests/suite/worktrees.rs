//! `taw worktree` against real git repositories the tests make and a real
//! tmux with the plugin loaded: two worktrees side by side, each in its
//! own session grouped under the repository's; the group closed only
//! with --group; a worktree opened again, a dirty one removed only with
//! --force, one whose folder went by hand removed all the same; each
//! event once; a pre_worktree_remove that says no keeps the worktree; a
//! plugin on worktree.created sets the new checkout up.
use crate::common::TmuxServer;
use crate::common::recorder::Recorder;
use crate::common::repos::{bare_repo, git, mirror, repo};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// The folder worktrees go under in these tests.
fn worktrees_dir(server: &TmuxServer) -> PathBuf {
    server.dir.path().join("wt")
}

fn config(server: &TmuxServer, more: &str) -> String {
    format!(
        "[worktrees]\ndirectory = {:?}\n{more}",
        worktrees_dir(server).display().to_string()
    )
}

/// A session `name` in `folder`; its workspace id.
fn session_in(server: &TmuxServer, name: &str, folder: &Path) -> String {
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &folder.display().to_string(),
    ]);
    workspace_of(server, name)
}

fn workspace_of(server: &TmuxServer, name: &str) -> String {
    let id = server.display(&format!("={name}:"), "#{session_id}");
    let record = server.taw(&["workspace", "get", &id]).result();
    record["workspace"]["workspace_id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn sessions(server: &TmuxServer) -> Vec<String> {
    server
        .tmux(&["list-sessions", "-F", "#{session_name}"])
        .lines()
        .map(str::to_string)
        .collect()
}

const EVENTS: &[&str] = &[
    "worktree.created",
    "worktree.opened",
    "worktree.removed",
    "workspace.updated",
    "workspace.closed",
];

#[test]
fn two_worktrees_side_by_side_under_their_repository() {
    let server = TmuxServer::start();
    let api = repo(&server, "api");
    let recorder = Recorder::new(&server);
    server.write_config(&config(&server, &recorder.config(EVENTS)));
    server.load_plugin();
    let repo_ws = session_in(&server, "api", &api);

    // Two worktrees, each in a session of its own.
    let a = server
        .taw(&["worktree", "create", "feat/a", "--workspace", &repo_ws])
        .result();
    let b = server
        .taw(&[
            "worktree",
            "create",
            "--branch",
            "feat/b",
            "--workspace",
            &repo_ws,
            "--label",
            "bee",
        ])
        .result();
    assert_eq!(a["type"], "worktree_created");
    let a_path = worktrees_dir(&server).join("api/feat-a");
    let b_path = worktrees_dir(&server).join("api/feat-b");
    assert_eq!(
        a["worktree"]["path"],
        a_path.canonicalize().unwrap().display().to_string()
    );
    assert_eq!(a["worktree"]["branch"], "feat/a");
    assert_eq!(a["worktree"]["is_linked_worktree"], true);
    assert_eq!(a["workspace"]["label"], "api/feat-a");
    assert_eq!(a["workspace"]["worktree"]["is_linked_worktree"], true);
    assert_eq!(
        a["workspace"]["worktree"]["repo_root"],
        api.display().to_string()
    );
    assert_eq!(b["workspace"]["label"], "bee");
    let a_ws = a["workspace"]["workspace_id"].as_str().unwrap().to_string();
    let b_ws = b["workspace"]["workspace_id"].as_str().unwrap().to_string();
    assert_eq!(
        server.display("=api/feat-a:", "#{pane_current_path}"),
        a_path.canonicalize().unwrap().display().to_string()
    );
    assert_eq!(git(&api, &["branch", "--list", "feat/a"]), "+ feat/a");

    // The repository's session heads the group now.
    let repo_record = server.taw(&["workspace", "get", &repo_ws]).result();
    assert_eq!(
        repo_record["workspace"]["worktree"]["is_linked_worktree"],
        false
    );
    recorder.once(&server, "workspace.updated", "workspace_id", &repo_ws);
    let created = recorder.once(&server, "worktree.created", "workspace_id", &a_ws);
    assert_eq!(created.input["data"]["worktree"]["branch"], "feat/a");
    assert_eq!(
        created.input["worktree"]["checkout_path"],
        a["worktree"]["path"]
    );
    assert_eq!(
        created.env.get("TAW_WORKTREE").map(String::as_str),
        a["worktree"]["path"].as_str()
    );
    recorder.once(&server, "worktree.created", "workspace_id", &b_ws);

    // A command in each.
    for (session, file) in [("=api/feat-a:", "a.txt"), ("=bee:", "b.txt")] {
        server.tmux(&[
            "send-keys",
            "-t",
            session,
            &format!("echo hi > {file}"),
            "Enter",
        ]);
    }
    server.wait_for("each command's file", WAIT, || {
        a_path.join("a.txt").exists() && b_path.join("b.txt").exists()
    });

    let listed = server
        .taw(&["worktree", "list", "--workspace", &repo_ws])
        .result();
    let worktrees = listed["worktrees"].as_array().unwrap();
    assert_eq!(worktrees.len(), 3, "{listed}");
    assert_eq!(worktrees[0]["is_linked_worktree"], false);
    assert_eq!(worktrees[0]["open_workspace_id"], repo_ws.as_str());
    assert_eq!(worktrees[1]["open_workspace_id"], a_ws.as_str());
    assert_eq!(listed["source"]["repo_name"], "api");

    // The repository's session closes only with its group.
    let refused = server.taw(&["workspace", "close", &repo_ws]);
    assert_eq!(refused.error_code(), "workspace_group_close_required");
    let message = refused.error_json()["error"]["message"].to_string();
    assert!(
        message.contains(&a_ws) && message.contains(&b_ws),
        "{message}"
    );
    assert_eq!(sessions(&server).len(), 4);
    // Its last tab, or that tab's last pane, would end it as much.
    let repo_session = server.taw(&["workspace", "get", &repo_ws]).result()["workspace"]["tmux_id"]
        .as_str()
        .unwrap()
        .to_string();
    let tab = server.display(&format!("{repo_session}:"), "#{window_id}");
    let pane = server.display(&format!("{repo_session}:"), "#{pane_id}");
    assert_eq!(
        server.taw(&["tab", "close", &tab]).error_code(),
        "workspace_group_close_required"
    );
    assert_eq!(
        server.taw(&["pane", "close", &pane]).error_code(),
        "workspace_group_close_required"
    );
    assert_eq!(sessions(&server).len(), 4);
    let closed = server
        .taw(&["workspace", "close", &repo_ws, "--group"])
        .result();
    let mut ids: Vec<String> = closed["worktree_workspace_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    ids.sort();
    let mut want = vec![a_ws.clone(), b_ws.clone()];
    want.sort();
    assert_eq!(ids, want);
    assert_eq!(sessions(&server), ["main"]);
    for ws in [&repo_ws, &a_ws, &b_ws] {
        recorder.once(&server, "workspace.closed", "workspace_id", ws);
    }

    // Opened again: a new session in the checkout, then found open.
    let opened = server
        .taw(&[
            "worktree",
            "open",
            "--branch",
            "feat/a",
            "--cwd",
            &api.display().to_string(),
        ])
        .result();
    assert_eq!(opened["type"], "worktree_opened");
    assert_eq!(opened["already_open"], false);
    assert!(opened.get("workspace").is_none());
    let session_id = opened["session_id"].as_str().unwrap().to_string();
    assert_eq!(
        server.display(&format!("{session_id}:"), "#{session_name}"),
        "api/feat-a"
    );
    let again = server
        .taw(&[
            "worktree",
            "open",
            "--path",
            &a_path.display().to_string(),
            "--cwd",
            &api.display().to_string(),
        ])
        .result();
    assert_eq!(again["already_open"], true);
    assert_eq!(again["session_id"], session_id.as_str());
    let opened_ws = workspace_of(&server, "api/feat-a");
    server.wait_for("two worktree.opened", WAIT, || {
        recorder
            .about("worktree.opened", "workspace_id", &opened_ws)
            .len()
            == 2
    });
    // Each verb's events go out through a process of its own: two verbs'
    // may be heard in either order.
    let mut told: Vec<bool> = recorder
        .about("worktree.opened", "workspace_id", &opened_ws)
        .iter()
        .map(|h| h.input["data"]["already_open"].as_bool().unwrap())
        .collect();
    told.sort();
    assert_eq!(told, [false, true]);

    // A dirty checkout goes only with --force; its branch stays.
    let dirty = server.taw(&["worktree", "remove", "--workspace", &opened_ws]);
    assert_eq!(dirty.error_code(), "worktree_dirty");
    assert!(a_path.join("a.txt").exists());
    assert!(sessions(&server).contains(&"api/feat-a".to_string()));
    let removed = server
        .taw(&["worktree", "remove", "--workspace", &opened_ws, "--force"])
        .result();
    assert_eq!(removed["type"], "worktree_removed");
    assert_eq!(removed["forced"], true);
    assert_eq!(removed["workspace_id"], opened_ws.as_str());
    assert!(!a_path.exists());
    assert!(!sessions(&server).contains(&"api/feat-a".to_string()));
    assert_eq!(git(&api, &["branch", "--list", "feat/a"]), "feat/a");
    let told = recorder.once(&server, "worktree.removed", "workspace_id", &opened_ws);
    assert_eq!(told.input["data"]["forced"], true);
    assert_eq!(told.input["data"]["worktree"]["branch"], "feat/a");
    recorder.once(&server, "workspace.closed", "workspace_id", &opened_ws);

    // A checkout deleted by hand: left out of the list, not opened, and
    // its removal finishes. Another one whose folder is missing too (an
    // unmounted disk's) keeps its record: only the one named goes.
    let other = server.dir.path().join("elsewhere-c");
    git(
        &api,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feat/c",
            "--",
            &other.display().to_string(),
        ],
    );
    std::fs::remove_dir_all(&other).unwrap();
    std::fs::remove_dir_all(&b_path).unwrap();
    let listed = server
        .taw(&["worktree", "list", "--cwd", &api.display().to_string()])
        .result();
    assert_eq!(listed["worktrees"].as_array().unwrap().len(), 1, "{listed}");
    let gone = server.taw(&[
        "worktree",
        "open",
        "--branch",
        "feat/b",
        "--cwd",
        &api.display().to_string(),
    ]);
    assert_eq!(gone.error_code(), "worktree_not_found");
    assert!(
        gone.error_json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is gone"),
    );
    assert_eq!(sessions(&server), ["main"]);
    // Gone, its repository must be named.
    let unnamed = server.taw(&[
        "worktree",
        "remove",
        "--path",
        &b_path.display().to_string(),
    ]);
    assert_eq!(unnamed.error_code(), "invalid_argument");
    let finished = server
        .taw(&[
            "worktree",
            "remove",
            "--path",
            &b_path.display().to_string(),
            "--cwd",
            &api.display().to_string(),
        ])
        .result();
    assert_eq!(finished["forced"], false);
    assert!(!git(&api, &["worktree", "list"]).contains("feat-b"));
    assert!(git(&api, &["worktree", "list"]).contains("elsewhere-c"));
    server.wait_for("worktree.removed of the gone one", WAIT, || {
        recorder.heard("worktree.removed").len() == 2
    });
}

#[test]
fn a_pre_worktree_remove_that_says_no_keeps_the_worktree() {
    let server = TmuxServer::start();
    let api = repo(&server, "api");
    server.write_config(&config(
        &server,
        "[hooks]\npre_worktree_remove = \"echo \\\"keep $TAW_WORKTREE\\\" >&2; exit 1\"\n",
    ));
    let made = server
        .taw(&[
            "worktree",
            "create",
            "feat/keep",
            "--cwd",
            &api.display().to_string(),
        ])
        .result();
    let ws = made["workspace"]["workspace_id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = made["worktree"]["path"].as_str().unwrap().to_string();
    for force in [false, true] {
        let mut args = vec!["worktree", "remove", "--workspace", &ws];
        if force {
            args.push("--force");
        }
        let refused = server.taw(&args);
        assert_eq!(refused.error_code(), "hook_refused");
        let message = refused.error_json()["error"]["message"].to_string();
        assert!(message.contains(&format!("keep {path}")), "{message}");
        assert!(Path::new(&path).is_dir());
        assert!(sessions(&server).contains(&"api/feat-keep".to_string()));
    }
}

#[test]
fn what_git_would_refuse_is_refused_first() {
    let server = TmuxServer::start();
    let api = repo(&server, "api");
    server.write_config(&config(&server, ""));
    let cwd = api.display().to_string();
    let create = |args: &[&str]| {
        let mut all = vec!["worktree", "create", "--cwd", &cwd];
        all.extend_from_slice(args);
        server.taw(&all)
    };
    assert_eq!(create(&["bad..name"]).error_code(), "invalid_argument");
    assert_eq!(create(&["--branch=-x"]).error_code(), "invalid_argument");
    assert_eq!(create(&[]).error_code(), "invalid_argument");
    // A label tmux would not keep as written (it stores `$` as `\$`):
    // refused before the checkout or its session is made.
    let sessions_before = server.tmux(&["list-sessions", "-F", "#{session_name}"]);
    let dollar = create(&["dollar", "--label", "$abc"]);
    assert_eq!(dollar.error_code(), "invalid_argument", "{dollar:?}");
    assert!(dollar.stderr.contains("\\$"), "{dollar:?}");
    assert_eq!(
        server.tmux(&["list-sessions", "-F", "#{session_name}"]),
        sessions_before
    );
    assert!(!git(&api, &["worktree", "list"]).contains("dollar"));
    assert!(!git(&api, &["branch", "--list", "dollar"]).contains("dollar"));
    // The branch checked out in the main checkout is not checked out twice.
    let twice = create(&["main"]);
    assert_eq!(twice.error_code(), "worktree_create_failed");
    // An existing branch is checked out, with no new commit.
    git(&api, &["branch", "old"]);
    let old = create(&["old"]).result();
    assert_eq!(old["worktree"]["branch"], "old");
    // A path of its own, and a base for a new branch.
    let mine = server.dir.path().join("mine");
    let based = create(&[
        "fresh",
        "--base",
        "old",
        "--path",
        &mine.display().to_string(),
    ])
    .result();
    assert_eq!(
        based["worktree"]["path"],
        mine.canonicalize().unwrap().display().to_string()
    );
    assert_eq!(
        create(&["again", "--path", &mine.display().to_string()]).error_code(),
        "worktree_create_failed"
    );
    // No repository; the main checkout is not removed.
    let plain = server.dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let none = server.taw(&["worktree", "list", "--cwd", &plain.display().to_string()]);
    assert_eq!(none.error_code(), "not_git_worktree");
    let main_checkout = server.taw(&["worktree", "remove", "--path", &cwd]);
    assert_eq!(main_checkout.error_code(), "not_linked_worktree");
    assert!(api.join("README").exists());
    // A workspace that runs no worktree.
    let main_ws = workspace_of(&server, "main");
    assert_eq!(
        server
            .taw(&["worktree", "remove", "--workspace", &main_ws])
            .error_code(),
        "not_git_worktree"
    );
}

/// tdi/herdr-worktree-setup's kind: a plugin on worktree.created finds the
/// new checkout in its event and sets it up there.
#[test]
fn a_plugin_on_worktree_created_sets_the_checkout_up() {
    let server = TmuxServer::start();
    let api = repo(&server, "api");
    server.write_config(&config(&server, ""));
    let manifest = r#"id = "acme.setup"
name = "Worktree setup"
version = "1.0.0"
min_herdr_version = "0.7.1"
platforms = ["linux", "macos"]

[[events]]
on = "worktree.created"
command = ["sh", "setup.sh"]
"#;
    let script = "cd \"$(printf '%s' \"$HERDR_PLUGIN_EVENT_JSON\" | jq -r .data.worktree.path)\" || exit 1\necho ready > .setup-ran\nprintf '%s' \"$HERDR_PLUGIN_EVENT_JSON\" > \"$HERDR_PLUGIN_STATE_DIR/event.json\"\n";
    bare_repo(
        &server,
        "acme",
        "setup",
        &[("herdr-plugin.toml", manifest), ("setup.sh", script)],
    );
    server
        .taw_with(
            &["plugin", "install", "acme/setup", "--yes"],
            &[("TAW_GITHUB_URL", &mirror(&server))],
        )
        .result();
    server.load_plugin();
    let made = server
        .taw(&[
            "worktree",
            "create",
            "feat/setup",
            "--cwd",
            &api.display().to_string(),
        ])
        .result();
    let checkout = PathBuf::from(made["worktree"]["path"].as_str().unwrap());
    server.wait_for("the plugin's setup in the checkout", WAIT, || {
        checkout.join(".setup-ran").exists()
    });
    // The script writes the event after its mark: wait for it whole.
    let state = server.state_dir().join("plugins");
    let kept = || {
        let file = walk(&state, "event.json")?;
        serde_json::from_str::<Value>(&std::fs::read_to_string(file).ok()?).ok()
    };
    server.wait_for("the event the plugin kept", WAIT, || kept().is_some());
    let event = kept().unwrap();
    assert_eq!(event["event"], "worktree_created");
    assert_eq!(event["data"]["type"], "worktree_created");
    assert_eq!(event["data"]["worktree"]["branch"], "feat/setup");
    assert_eq!(
        event["data"]["workspace"]["worktree"]["checkout_path"],
        made["worktree"]["path"]
    );
}

fn walk(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = walk(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// `workspace close --group` asks pre_close about every session of the
/// group before it closes any: one refusal keeps them all.
#[test]
fn one_refusal_keeps_the_whole_group_open() {
    let server = TmuxServer::start();
    let api = repo(&server, "api");
    server.write_config(&config(
        &server,
        "[hooks]\npre_close = \"case \\\"$TAW_SESSION\\\" in *feat-b*) exit 1;; esac\"\n",
    ));
    let repo_ws = session_in(&server, "api", &api);
    for branch in ["feat/a", "feat/b"] {
        server
            .taw(&["worktree", "create", branch, "--workspace", &repo_ws])
            .result();
    }
    let refused = server.taw(&["workspace", "close", &repo_ws, "--group"]);
    assert_eq!(refused.error_code(), "hook_refused");
    let mut open = sessions(&server);
    open.sort();
    assert_eq!(open, ["api", "api/feat-a", "api/feat-b", "main"]);
}
