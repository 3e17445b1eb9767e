//! Real herdr plugins (the bundles in `../shared/plugins`), each doing its
//! documented job under taw, their files as their users get them: lazygit's
//! pane that a second run focuses or closes, found by its label; scratch's
//! pane toggled beside the pane it was asked for; pouch's stash, its insert,
//! and its marks on a tab and on a pane.
//!
//! How each gets here is its README's way: pouch installs from a mirror of
//! its repository (`TAW_GITHUB_URL`); scratch installs so too, its build
//! fetching the release that [`scratch_release`] built from the bundle's
//! source (`HERDR_SCRATCH_RELEASE_BASE_URL`, a `file://` folder); lazygit's
//! build downloads pinned binaries whose digests a stand-in cannot match,
//! so a clone is linked (its README's local development) and the user's
//! `panel.conf` names a stand-in `lazygit`, which its open, focus and close
//! logic needs only to find running.

// The tests run git, tar and the plugins' own programs.
#![allow(clippy::disallowed_methods)]

use crate::common::repos::{git, mirror, mirror_of};
use crate::common::{TmuxServer, installed, plugin_run_events, repo_root, taw_bin};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(15);

/// The bundle `<name>.bundle` of `../shared/plugins`, when it is there.
fn bundle(name: &str) -> Option<PathBuf> {
    let path = repo_root()
        .parent()?
        .join("shared/plugins")
        .join(format!("{name}.bundle"));
    path.exists().then_some(path)
}

/// Every pane's record.
fn panes(server: &TmuxServer) -> Vec<Value> {
    server.taw(&["pane", "list"]).result()["panes"]
        .as_array()
        .unwrap()
        .clone()
}

/// The records of the panes labelled `label`.
fn labelled(server: &TmuxServer, label: &str) -> Vec<Value> {
    panes(server)
        .into_iter()
        .filter(|p| p["label"] == label)
        .collect()
}

fn screen(server: &TmuxServer, pane: &str) -> String {
    server.tmux(&["capture-pane", "-p", "-t", pane])
}

/// Waits until `pane`'s screen shows `text`; panics with the screen.
fn wait_screen(server: &TmuxServer, pane: &str, text: &str) {
    let start = std::time::Instant::now();
    while !screen(server, pane).contains(text) {
        assert!(
            start.elapsed() < WAIT,
            "{text:?} not on {pane}'s screen:\n{}",
            screen(server, pane)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs action `action` of `plugin` (for `pane` when given) to its end,
/// and asserts it succeeded: what it printed.
fn invoke(server: &TmuxServer, plugin: &str, action: &str, pane: Option<&str>) -> String {
    let mut args = vec!["plugin", "action", "invoke", action, "--plugin", plugin];
    if let Some(pane) = pane {
        args.extend(["--pane", pane]);
    }
    let run = server.taw(&args);
    let log = run.result()["log"].clone();
    assert_eq!(log["status"], "succeeded", "{action}: {log:#}");
    log["stdout"].as_str().unwrap_or_default().to_string()
}

/// The session's active pane and window, as tmux ids.
fn in_front(server: &TmuxServer) -> (String, String) {
    let front = server.display("main:", "#{pane_id} #{window_id}");
    let (pane, window) = front.split_once(' ').unwrap();
    (pane.to_string(), window.to_string())
}

// ---- Crokily/herdr-lazygit ----------------------------------------------

/// A stand-in `lazygit`: answers the version the plugin pins, and any
/// other question (`--config`, which its key check asks) with nothing; run
/// bare, it says where it runs and waits on its terminal as lazygit would.
const FAKE_LAZYGIT: &str = r#"case "$1" in
  --version) echo "commit=, version=0.63.0, os=linux, arch=amd64"; exit 0 ;;
  --print-config-dir) echo "$HOME/.config/lazygit"; exit 0 ;;
  ?*) exit 0 ;;
esac
echo "stand-in lazygit in $PWD"
while read -r line; do :; done
"#;

/// lazygit's `open` opens its pane (`Git`) beside the focused pane in the
/// folder of that pane; run again from elsewhere it focuses that pane, and
/// from that pane it closes it. `open-tab` does the same with a tab of its
/// own: opens it, switches to it from another tab, closes it from itself.
#[test]
fn herdr_lazygit_opens_its_pane_then_focuses_or_closes_it_by_its_label() {
    let Some(bundle) = bundle("Crokily-herdr-lazygit") else {
        eprintln!("skipped: the herdr-lazygit bundle is not in ../shared/plugins");
        return;
    };
    // Its launcher and pane are bash and python3 (its README's needs).
    if !installed("python3") || !installed("bash") {
        eprintln!("skipped: herdr-lazygit needs python3 and bash, and one is missing");
        return;
    }
    let started = std::time::Instant::now();
    let server = TmuxServer::start();
    server.load_plugin();
    let clone = server.dir.path().join("plugins-src/herdr-lazygit");
    std::fs::create_dir_all(clone.parent().unwrap()).unwrap();
    git(
        server.dir.path(),
        &[
            "clone",
            "-q",
            bundle.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    server
        .taw(&["plugin", "link", clone.to_str().unwrap()])
        .result();
    // The user's own setting (its README's "Using your own binaries").
    let fake = server.stand_in("tools", "lazygit", FAKE_LAZYGIT);
    let config = server.taw(&["plugin", "config-dir", "herdr-lazygit"]);
    let config = PathBuf::from(config.stdout.trim());
    std::fs::write(
        config.join("panel.conf"),
        format!("RUNTIME_LAZYGIT_BIN='{}'\n", fake.display()),
    )
    .unwrap();
    let home = server.display("%0", "#{pane_current_path}");
    let (first, window) = in_front(&server);

    // Open: a pane labelled Git beside the focused one, in front, running
    // lazygit in that pane's folder.
    invoke(&server, "herdr-lazygit", "open", None);
    let git_panes = labelled(&server, "Git");
    assert_eq!(git_panes.len(), 1, "{git_panes:#?}");
    let pane = git_panes[0]["tmux_id"].as_str().unwrap().to_string();
    assert_eq!(server.display(&pane, "#{window_id}"), window);
    assert_eq!(
        server.display(&pane, "#{@agent_wizard_plugin_pane}"),
        "herdr-lazygit\tlazygit"
    );
    assert_eq!(in_front(&server).0, pane, "the new pane is in front");
    wait_screen(&server, &pane, &format!("stand-in lazygit in {home}"));

    // From the other pane: the Git pane is focused, no second one opens.
    server.tmux(&["select-pane", "-t", &first]);
    invoke(&server, "herdr-lazygit", "open", None);
    assert_eq!(labelled(&server, "Git").len(), 1);
    assert_eq!(in_front(&server).0, pane, "focused, not opened again");

    // From the Git pane: it closes.
    invoke(&server, "herdr-lazygit", "open", None);
    server.wait_for("the Git pane closed", WAIT, || {
        labelled(&server, "Git").is_empty()
    });
    assert_eq!(in_front(&server).0, first);

    // open-tab: a tab of its own, switched to from another tab, closed
    // from itself.
    invoke(&server, "herdr-lazygit", "open-tab", None);
    let git_panes = labelled(&server, "Git");
    assert_eq!(git_panes.len(), 1, "{git_panes:#?}");
    let pane = git_panes[0]["tmux_id"].as_str().unwrap().to_string();
    let tab = server.display(&pane, "#{window_id}");
    assert_ne!(tab, window);
    assert_eq!(server.display(&pane, "#{window_name}"), "Git");
    assert_eq!(in_front(&server), (pane.clone(), tab.clone()));
    wait_screen(&server, &pane, "stand-in lazygit in");
    server.tmux(&["select-window", "-t", &window]);
    invoke(&server, "herdr-lazygit", "open-tab", None);
    assert_eq!(in_front(&server), (pane.clone(), tab.clone()), "switched");
    assert_eq!(labelled(&server, "Git").len(), 1);
    invoke(&server, "herdr-lazygit", "open-tab", None);
    server.wait_for("the Git tab closed", WAIT, || {
        !server
            .tmux(&["list-windows", "-a", "-F", "#{window_id}"])
            .lines()
            .any(|w| w == tab)
    });
    eprintln!("herdr-lazygit: {:?}", started.elapsed());
}

// ---- AkashJana18/herdr-scratch ------------------------------------------

/// The folder real plugins' builds are kept in: beside the test binary
/// (`target/<profile>/real-plugins`), so a suite run builds each once and
/// the next run of the same checkout not at all.
fn build_cache() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/suite-<hash>
    exe.ancestors().nth(2).unwrap().join("real-plugins")
}

/// Tail of what a failed program printed.
fn tail(output: &std::process::Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// herdr-scratch's binary built from the bundle's source at `commit`,
/// once per checkout: `<cache>/herdr-scratch-<12 hex>/herdr-scratch`.
/// cargo's dev profile without debug info (about 20 s cold on two cores,
/// against 45 s for `--release`); the binary does the same either way.
/// Err says why it could not be built (no crates to be had, no cargo).
fn scratch_binary(bundle: &Path, commit: &str) -> Result<PathBuf, String> {
    let cache = build_cache();
    let done = cache.join(format!("herdr-scratch-{}", &commit[..12]));
    let binary = done.join("herdr-scratch");
    if binary.exists() {
        return Ok(binary);
    }
    if !installed("cargo") {
        return Err("cargo is not installed".into());
    }
    std::fs::create_dir_all(&cache).unwrap();
    let source = cache.join(format!("src-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&source);
    git(
        &cache,
        &[
            "clone",
            "-q",
            bundle.to_str().unwrap(),
            source.to_str().unwrap(),
        ],
    );
    git(&source, &["checkout", "-q", commit]);
    let built = Command::new("cargo")
        .args(["build", "--locked", "--quiet"])
        .current_dir(&source)
        // One target folder for every commit: a new commit builds only
        // what changed.
        .env("CARGO_TARGET_DIR", cache.join("target"))
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    let _ = std::fs::remove_dir_all(&source);
    if !built.status.success() {
        return Err(format!(
            "cargo could not build herdr-scratch:\n{}",
            tail(&built)
        ));
    }
    // Moved in whole: a run cut short leaves no half binary to be found.
    let staging = cache.join(format!("staging-{}", std::process::id()));
    std::fs::create_dir_all(&staging).unwrap();
    std::fs::copy(
        cache.join("target/debug/herdr-scratch"),
        staging.join("herdr-scratch"),
    )
    .unwrap();
    if std::fs::rename(&staging, &done).is_err() {
        // Another run put it there first.
        let _ = std::fs::remove_dir_all(&staging);
    }
    Ok(binary)
}

/// The target triple scratch's installer asks a release for here.
fn scratch_target() -> Option<&'static str> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some("x86_64-unknown-linux-gnu"),
        ("macos", "x86_64") => Some("x86_64-apple-darwin"),
        ("macos", "aarch64") => Some("aarch64-apple-darwin"),
        _ => None,
    }
}

/// A release folder as scratch's installer reads it, holding `binary`:
/// `herdr-scratch-<target>.tar.gz` and `checksums.txt`.
fn scratch_release(server: &TmuxServer, binary: &Path, target: &str) -> PathBuf {
    let release = server.dir.path().join("release");
    std::fs::create_dir_all(&release).unwrap();
    let archive = format!("herdr-scratch-{target}.tar.gz");
    let packed = Command::new("tar")
        .arg("-czf")
        .arg(release.join(&archive))
        .arg("-C")
        .arg(binary.parent().unwrap())
        .arg("herdr-scratch")
        .output()
        .unwrap();
    assert!(packed.status.success(), "{packed:?}");
    // The line sha256sum writes is the line the installer looks for.
    let summed = Command::new("sha256sum")
        .arg(&archive)
        .current_dir(&release)
        .output()
        .unwrap();
    assert!(summed.status.success(), "{summed:?}");
    std::fs::write(release.join("checksums.txt"), &summed.stdout).unwrap();
    release
}

/// scratch's `toggle`, asked for a pane (its context's pane, which `pane
/// current` answers through `HERDR_PANE_ID`): a scratch pane opens beside
/// that pane, in front, with its own `HERDR_PANE_ID`; asked for the
/// scratch pane, it is left (kept open); asked for the first pane again,
/// from another tab too, the same scratch pane comes back in front.
#[test]
fn herdr_scratch_toggles_its_pane_beside_the_pane_it_was_asked_for() {
    let Some(bundle) = bundle("AkashJana18-herdr-scratch") else {
        eprintln!("skipped: the herdr-scratch bundle is not in ../shared/plugins");
        return;
    };
    let started = std::time::Instant::now();
    let server = TmuxServer::start();
    let commit = mirror_of(&server, &bundle, "AkashJana18", "herdr-scratch");
    let binary = match scratch_binary(&bundle, &commit) {
        Ok(binary) => binary,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let built = started.elapsed();
    server.load_plugin();
    let url = mirror(&server);
    match scratch_target() {
        // Its users' way: `plugin install`, whose build fetches the release.
        Some(target) if ["curl", "tar", "sha256sum"].iter().all(|t| installed(t)) => {
            let release = scratch_release(&server, &binary, target);
            let base = format!("file://{}", release.display());
            server
                .taw_with(
                    &["plugin", "install", "AkashJana18/herdr-scratch", "--yes"],
                    &[
                        ("TAW_GITHUB_URL", url.as_str()),
                        ("HERDR_SCRATCH_RELEASE_BASE_URL", base.as_str()),
                    ],
                )
                .result();
        }
        // Its README's local development: the clone linked, its wrapper
        // running target/release/herdr-scratch.
        _ => {
            let clone = server.dir.path().join("plugins-src/herdr-scratch");
            std::fs::create_dir_all(clone.join("..")).unwrap();
            git(
                server.dir.path(),
                &[
                    "clone",
                    "-q",
                    bundle.to_str().unwrap(),
                    clone.to_str().unwrap(),
                ],
            );
            std::fs::create_dir_all(clone.join("target/release")).unwrap();
            std::fs::copy(&binary, clone.join("target/release/herdr-scratch")).unwrap();
            server
                .taw(&["plugin", "link", clone.to_str().unwrap()])
                .result();
        }
    }
    let state = server.state_dir().join("plugins/state/herdr.scratch");
    let registry = || -> Value {
        let text = std::fs::read_to_string(state.join("registry.json")).unwrap_or_default();
        serde_json::from_str::<Value>(&text).unwrap_or(Value::Null)["scratchpads"]
            ["workspace:w1:scratch"]
            .clone()
    };
    let (first, window) = in_front(&server);
    let first_id = server.taw(&["pane", "get", &first]).result()["pane"]["pane_id"].clone();
    // Another tab in front: the toggle is for the pane it is asked for.
    let other = server.new_window("main", "other", "");
    server.tmux(&["select-window", "-t", &other]);

    let said = invoke(&server, "herdr.scratch", "toggle", Some(&first));
    assert_eq!(said.trim(), "opened scratchpad `scratch`");
    let scratch = labelled(&server, "scratch:scratch");
    assert_eq!(scratch.len(), 1, "{scratch:#?}");
    let pane = scratch[0]["tmux_id"].as_str().unwrap().to_string();
    let pane_id = scratch[0]["pane_id"].clone();
    assert_eq!(server.display(&pane, "#{window_id}"), window, "beside it");
    assert_eq!(in_front(&server), (pane.clone(), window.clone()));
    let record = registry();
    assert_eq!(record["status"], "visible", "{record:#}");
    assert_eq!(record["handle"]["pane_id"], pane_id, "{record:#}");
    assert_eq!(record["previous_focus"]["pane_id"], first_id, "{record:#}");
    // Its session knows its own pane, as a herdr plugin pane does.
    if cfg!(target_os = "linux") {
        let pid = server.display(&pane, "#{pane_pid}");
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let environ = String::from_utf8_lossy(&environ);
        let own = format!("HERDR_PANE_ID={}", pane_id.as_str().unwrap());
        assert!(environ.split('\0').any(|v| v == own), "{environ}");
    }

    // Asked for the scratch pane itself: left, still open.
    let said = invoke(&server, "herdr.scratch", "toggle", Some(&pane));
    assert_eq!(said.trim(), "left scratchpad `scratch`");
    assert_eq!(registry()["status"], "available");
    assert_eq!(labelled(&server, "scratch:scratch").len(), 1);

    // Asked for the first pane again, from the other tab: the same pane in
    // front, none opened.
    server.tmux(&["select-window", "-t", &other]);
    let said = invoke(&server, "herdr.scratch", "toggle", Some(&first));
    assert_eq!(said.trim(), "opened scratchpad `scratch`");
    assert_eq!(labelled(&server, "scratch:scratch").len(), 1);
    assert_eq!(in_front(&server), (pane.clone(), window));
    assert_eq!(registry()["status"], "visible");
    eprintln!(
        "herdr-scratch: {:?} ({built:?} of it the build or the cache)",
        started.elapsed()
    );
}

// ---- AltanS/herdr-pouch -------------------------------------------------

/// Whether pouch has a runtime here: Bun, or Node 22.6 or newer (its
/// `scripts/run.sh`).
fn pouch_runtime() -> bool {
    if installed("bun") {
        return true;
    }
    let Ok(out) = Command::new("node").arg("--version").output() else {
        return false;
    };
    let version = String::from_utf8_lossy(&out.stdout);
    let mut parts = version.trim().trim_start_matches('v').split('.');
    let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    major > 22 || (major == 22 && minor >= 6)
}

/// pouch installed from a mirror of its repository: its root.
fn pouch(server: &TmuxServer) -> Option<PathBuf> {
    let Some(bundle) = bundle("AltanS-herdr-pouch") else {
        eprintln!("skipped: the herdr-pouch bundle is not in ../shared/plugins");
        return None;
    };
    if !pouch_runtime() {
        eprintln!("skipped: herdr-pouch needs Bun or Node 22.6+, and neither is here");
        return None;
    }
    mirror_of(server, &bundle, "AltanS", "herdr-pouch");
    // herdr's variables in new panes, as pouch's command line looks for
    // them in a shell (HERDR_BIN_PATH, HERDR_PANE_ID).
    server.tmux(&["set", "-g", "@agent-wizard-herdr-env", "on"]);
    server.load_plugin();
    let url = mirror(server);
    let installed = server
        .taw_with(
            &["plugin", "install", "AltanS/herdr-pouch", "--yes"],
            &[("TAW_GITHUB_URL", url.as_str())],
        )
        .result();
    Some(PathBuf::from(
        installed["plugin"]["plugin_root"].as_str().unwrap(),
    ))
}

/// pouch's own command line (`bin/herdr-pouch`), run as from a shell of
/// this server: it calls taw as herdr, and reads the store its plugin
/// processes keep (herdr's layout is not taw's: `POUCH_STATE_DIR`, its
/// README's override, names taw's).
fn pouch_cli(server: &TmuxServer, root: &Path, args: &[&str]) -> crate::common::Run {
    let mut command = Command::new(root.join("bin/herdr-pouch"));
    server.isolate_command(&mut command);
    command
        .args(args)
        .env("HERDR_BIN_PATH", taw_bin())
        .env("TAW_TMUX_SOCKET", server.socket_path_of_server())
        .env(
            "POUCH_STATE_DIR",
            server.state_dir().join("plugins/state/herdr.pouch"),
        );
    let output = command.output().unwrap();
    crate::common::Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Waits until `plugin`'s log holds `count` finished runs for `event`.
fn wait_for_runs(server: &TmuxServer, plugin: &str, event: &str, count: usize) {
    server.wait_for(&format!("{count} {event} runs of {plugin}"), WAIT, || {
        let events = plugin_run_events(server, Some(plugin));
        events.iter().filter(|logged| *logged == event).count() >= count
    });
}

fn tab_label(server: &TmuxServer, pane: &str) -> String {
    let tab = server.taw(&["pane", "get", pane]).result()["pane"]["tab_id"].clone();
    server.taw(&["tab", "get", tab.as_str().unwrap()]).result()["tab"]["label"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// pouch stashes text for the pane its command line runs in (`herdr-pouch
/// add` at a shell, the pane named by its `HERDR_PANE_ID`); the pane alone
/// in its tab, the tab's label wears the mark; its `insert-top` types the
/// text into the pane without submitting it; a second pane in the tab (its
/// `pane.created` hook) takes the mark off the label again.
#[test]
fn herdr_pouch_stashes_for_a_pane_inserts_it_and_marks_the_tab() {
    let started = std::time::Instant::now();
    let server = TmuxServer::start();
    let Some(root) = pouch(&server) else {
        return;
    };
    let agent = server.bash_pane("agent");
    // pouch's repaint for the new pane done (see the test below).
    wait_for_runs(&server, "herdr.pouch", "pane.created", 1);
    let agent_id = server.taw(&["pane", "get", &agent]).result()["pane"]["pane_id"]
        .as_str()
        .unwrap()
        .to_string();
    let label = tab_label(&server, &agent);

    // At the pane's shell, as its README says: the pouch of this pane.
    let store = server.state_dir().join("plugins/state/herdr.pouch");
    let line = format!(
        "POUCH_STATE_DIR='{}' '{}' add 'run the tests'",
        store.display(),
        root.join("bin/herdr-pouch").display()
    );
    server.tmux(&["send-keys", "-t", &agent, "-l", &line]);
    server.tmux(&["send-keys", "-t", &agent, "Enter"]);
    wait_screen(&server, &agent, &format!("pouch://{agent_id}"));
    let listed = pouch_cli(&server, &root, &["list", "--pane", &agent_id]);
    assert!(listed.stdout.contains("run the tests"), "{listed:?}");
    // Alone in its tab: the mark goes on the tab's label.
    server.wait_for("the mark on the label", WAIT, || {
        tab_label(&server, &agent) == format!("{label} 👜")
    });

    // insert-top, for that pane: typed at its prompt, not submitted.
    server.tmux(&["send-keys", "-t", &agent, "clear", "Enter"]);
    server.wait_for("a clear screen", WAIT, || {
        !screen(&server, &agent).contains("pouch://")
    });
    let said = invoke(&server, "herdr.pouch", "insert-top", Some(&agent));
    assert!(said.contains(&format!("into {agent_id}")), "{said}");
    server.wait_for("the text at the prompt", WAIT, || {
        screen(&server, &agent)
            .lines()
            .any(|l| l.trim_end().ends_with("run the tests"))
    });
    server.stays_for("not submitted", Duration::from_millis(300), || {
        !screen(&server, &agent).contains("command not found")
    });
    // Kept: inserting consumes nothing by default.
    let listed = pouch_cli(&server, &root, &["list", "--pane", &agent_id]);
    assert!(listed.stdout.contains("run the tests"), "{listed:?}");

    // A second pane in the tab: the mark leaves the label (for the pane's
    // border, which `herdr_pouch_marks_a_pane_that_shares_its_tab` checks).
    server.tmux(&["split-window", "-d", "-t", &agent]);
    server.wait_for("the label without the mark", WAIT, || {
        tab_label(&server, &agent) == label
    });
    eprintln!("herdr-pouch: {:?}", started.elapsed());
}

/// A pane that shares its tab wears pouch's mark itself: pouch reports it
/// with `pane report-metadata --source pouch --title 👜 --token pouch=👜`,
/// which herdr shows as the pane record's `title` and `tokens`.
#[test]
fn herdr_pouch_marks_a_pane_that_shares_its_tab() {
    let server = TmuxServer::start();
    let Some(root) = pouch(&server) else {
        return;
    };
    let agent = server.bash_pane("agent");
    server.tmux(&["split-window", "-d", "-t", &agent]);
    // pouch repaints on `pane.created` (a `cli sync` of its own); one still
    // running when the pouch is emptied would paint the mark back from the
    // store it read before. As a user who waits a moment: both are done.
    wait_for_runs(&server, "herdr.pouch", "pane.created", 2);
    let agent_id = server.taw(&["pane", "get", &agent]).result()["pane"]["pane_id"]
        .as_str()
        .unwrap()
        .to_string();
    let label = tab_label(&server, &agent);
    let added = pouch_cli(
        &server,
        &root,
        &["add", "--pane", &agent_id, "run the tests"],
    );
    assert_eq!(added.status, 0, "{added:?}");
    // Two panes in the tab: its label stays as it was.
    assert_eq!(tab_label(&server, &agent), label);
    let marked = || {
        let pane = server.taw(&["pane", "get", &agent]).result()["pane"].clone();
        pane["title"] == "👜" && pane["tokens"]["pouch"] == "👜"
    };
    let start = std::time::Instant::now();
    while !marked() {
        assert!(
            start.elapsed() < WAIT,
            "the pane's record has no pouch mark (needs `taw pane report-metadata`): {:#}",
            server.taw(&["pane", "get", &agent]).result()["pane"]
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Emptied, the mark goes.
    let cleared = pouch_cli(&server, &root, &["clear", "--pane", &agent_id]);
    assert_eq!(cleared.status, 0, "{cleared:?}");
    server.wait_for("the mark gone", WAIT, || {
        let pane = server.taw(&["pane", "get", &agent]).result()["pane"].clone();
        pane["title"].is_null() && pane["tokens"]["pouch"].is_null()
    });
}
