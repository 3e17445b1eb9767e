//! `taw sandbox new` and `taw sandbox list`: the profiles, and every reason
//! one is refused.

use crate::common::TmuxServer;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn profiles(server: &TmuxServer) -> PathBuf {
    let dir = server.config_dir().join("sandbox");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str, mode: u32) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn list(server: &TmuxServer) -> Value {
    server.taw_bare(&["sandbox", "list"], &[]).result()
}

fn names(listed: &Value, field: &str) -> Vec<String> {
    listed[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

fn why(listed: &Value, name: &str) -> String {
    listed["refused"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not refused: {listed}"))["why"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn new_copies_a_profile_into_one_of_yours() {
    let server = TmuxServer::empty();
    server.write_config("[sandbox.agents]\nclaude = \"max\"\ncodex = \"default\"\n");
    let made = server.taw_bare(&["sandbox", "new", "max"], &[]);
    assert_eq!(made.json()["id"], "cli:sandbox:new");
    let made = made.result();
    assert_eq!(made["type"], "sandbox_profile");
    assert_eq!(made["name"], "max");
    assert_eq!(made["from"], "default");
    let path = PathBuf::from(made["path"].as_str().unwrap());
    assert_eq!(path, server.config_dir().join("sandbox/max"));
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    let own = server.state_dir().join("sandbox/default");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&own).unwrap(),
        "a copy of taw's default"
    );

    // A copy of a copy.
    let again = server
        .taw_bare(&["sandbox", "new", "max2", "--from", "max"], &[])
        .result();
    assert_eq!(again["from"], "max");

    let listed = list(&server);
    assert_eq!(listed["type"], "sandbox_list");
    assert_eq!(names(&listed, "profiles"), ["default", "max", "max2"]);
    let default = &listed["profiles"][0];
    assert_eq!(default["yours"], false);
    assert_eq!(default["default"], true);
    assert_eq!(default["path"], own.display().to_string());
    assert_eq!(default["agents"], serde_json::json!(["codex"]));
    let max = &listed["profiles"][1];
    assert_eq!(max["yours"], true);
    assert_eq!(max["default"], false);
    assert_eq!(max["agents"], serde_json::json!(["claude"]));
    assert_eq!(listed["refused"], serde_json::json!([]));
}

#[test]
fn new_refuses_and_leaves_nothing() {
    let server = TmuxServer::empty();
    let dir = profiles(&server);
    let refused = |args: &[&str], env: &[(&str, &str)], code: &str, words: &str| {
        let run = server.taw_bare(args, env);
        assert_eq!(run.error_code(), code, "{args:?}: {run:?}");
        let message = run.error_json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(words), "{args:?}: {message}");
    };
    // A name that is taken, whatever the file is.
    write(&dir.join("taken"), "#!/bin/sh\n", 0o644);
    refused(
        &["sandbox", "new", "taken"],
        &[],
        "invalid_argument",
        "taken",
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("taken")).unwrap(),
        "#!/bin/sh\n"
    );
    std::os::unix::fs::symlink("/nowhere", dir.join("link")).unwrap();
    refused(
        &["sandbox", "new", "link"],
        &[],
        "invalid_argument",
        "taken",
    );
    // No profile's name.
    for bad in ["a/b", ".hidden", "x y", ""] {
        refused(
            &["sandbox", "new", bad],
            &[],
            "invalid_argument",
            "no profile name",
        );
    }
    // A --from that names nothing, and one taw would not run.
    refused(
        &["sandbox", "new", "x", "--from", "nothing"],
        &[],
        "not_found",
        "no sandbox profile",
    );
    write(&dir.join("relative"), "#!bash\necho\n", 0o755);
    refused(
        &["sandbox", "new", "x", "--from", "relative"],
        &[],
        "invalid_argument",
        "not a full one",
    );
    assert!(!dir.join("x").exists(), "nothing was made");
    // No folder for your profiles.
    refused(
        &["sandbox", "new", "y"],
        &[("TAW_CONFIG_DIR", "relative/config")],
        "invalid_argument",
        "not a full path",
    );
    // A default where taw writes its own: the two folders are one.
    let one = server.dir.path().join("one");
    std::fs::create_dir_all(&one).unwrap();
    let one = one.display().to_string();
    refused(
        &["sandbox", "new", "default"],
        &[("TAW_CONFIG_DIR", &one), ("TAW_STATE_DIR", &one)],
        "invalid_argument",
        "are one",
    );
    // A profiles folder, or the config folder, that is a link to nothing.
    let linked = server.dir.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink("/nowhere", linked.join("sandbox")).unwrap();
    refused(
        &["sandbox", "new", "z"],
        &[("TAW_CONFIG_DIR", &linked.display().to_string())],
        "invalid_argument",
        "link taw cannot follow",
    );
    let dangling = server.dir.path().join("dangling-config");
    std::os::unix::fs::symlink("/nowhere", &dangling).unwrap();
    refused(
        &["sandbox", "new", "z"],
        &[("TAW_CONFIG_DIR", &dangling.display().to_string())],
        "invalid_argument",
        "link taw cannot follow",
    );
}

#[test]
fn list_refuses_what_cannot_run_and_leaves_out_what_is_no_profile() {
    let server = TmuxServer::empty();
    let dir = profiles(&server);
    write(&dir.join("good"), "#!/bin/sh\nexec \"$@\"\n", 0o755);
    write(&dir.join("relative"), "#!bash\n", 0o755);
    write(&dir.join("missing"), "#!/no/such/interpreter\n", 0o755);
    write(&dir.join("off"), "#!/bin/sh\n", 0o644);
    write(&dir.join(".hidden"), "#!/bin/sh\n", 0o755);
    write(&dir.join("bad name"), "#!/bin/sh\n", 0o755);

    let listed = list(&server);
    assert_eq!(names(&listed, "profiles"), ["default", "good"]);
    assert_eq!(names(&listed, "refused"), ["missing", "relative"]);
    assert!(why(&listed, "relative").contains("not a full one: bash"));
    assert!(why(&listed, "missing").contains("/no/such/interpreter, which you cannot run"));

    // `taw config check` says what is no profile.
    let check = server.taw_bare(&["config", "check", "--json"], &[]).json();
    let said = check["result"]["diagnostics"].to_string();
    assert!(said.contains("off is no sandbox profile"), "{said}");
    assert!(said.contains("bad name is no sandbox profile"), "{said}");

    // A default of yours that cannot run is refused, and taw's own does not
    // stand in for it.
    for (make, words) in [
        (
            Box::new(|p: &Path| write(p, "#!/bin/sh\n", 0o644)) as Box<dyn Fn(&Path)>,
            "not executable",
        ),
        (
            Box::new(|p: &Path| std::os::unix::fs::symlink("/nowhere", p).unwrap()),
            "a link to a file that is not there",
        ),
        (
            Box::new(|p: &Path| std::fs::create_dir(p).unwrap()),
            "not a file",
        ),
    ] {
        let path = dir.join("default");
        make(&path);
        let listed = list(&server);
        assert_eq!(names(&listed, "profiles"), ["good"], "{words}");
        assert!(why(&listed, "default").contains(words), "{listed}");
        let run = server.taw_bare(&["sandbox", "claude"], &[]);
        assert_eq!(run.status, 1);
        assert!(run.stderr.contains(words), "{}", run.stderr);
        if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
    // A default of yours that runs is the default.
    write(&dir.join("default"), "#!/bin/sh\n", 0o755);
    let listed = list(&server);
    assert_eq!(names(&listed, "profiles"), ["default", "good"]);
    assert_eq!(listed["profiles"][0]["yours"], true);
    assert_eq!(listed["profiles"][0]["default"], true);
}
