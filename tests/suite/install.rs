//! The plugin on a machine without Rust: `agent-wizard.tmux` downloads the
//! release of its checkout's version from a web server on 127.0.0.1 that
//! serves `scripts/package`'s output, checks it, installs it in the
//! plugin's folder and loads it; a tampered or hostile archive installs
//! nothing; a version bump downloads again; and what the load says
//! reaches a client that attaches afterwards (tmux's message log).

use crate::common::files::FileServer;
use crate::common::{TmuxServer, attach_client, repo_root, shown_messages, taw_bin};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the entry script and `scripts/install-binary` run, and tmux: the
/// only programs on the PATH the tests give them, so no cargo is there
/// whatever this machine has.
const TOOLS: &[&str] = &[
    "bash",
    "sh",
    "env",
    "tmux",
    "sed",
    "head",
    "tail",
    "awk",
    "date",
    "mkdir",
    "find",
    "dirname",
    "uname",
    "mktemp",
    "rm",
    "tar",
    "gzip",
    "sha256sum",
    "cut",
    "wc",
    "tr",
    "mv",
    "chmod",
    "cat",
];

/// A folder of links to `tools` (each found on this machine's PATH) and
/// `downloader`, for a PATH of its own.
fn tools_folder(dir: &Path, downloader: &str) -> PathBuf {
    let folder = dir.join(format!("tools-{downloader}"));
    std::fs::create_dir_all(&folder).unwrap();
    for tool in TOOLS.iter().chain([&downloader]) {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let path = String::from_utf8_lossy(&found.stdout).trim().to_string();
        assert!(!path.is_empty(), "{tool} is not installed here");
        let _ = std::os::unix::fs::symlink(&path, folder.join(tool));
    }
    folder
}

/// `scripts/package`'s release of this suite's taw, made once: the folder
/// that holds `v<VERSION>/`.
fn release() -> &'static Path {
    static MADE: OnceLock<tempfile::TempDir> = OnceLock::new();
    MADE.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("taw-release")
            .tempdir()
            .unwrap();
        package(dir.path(), released_taw(), None);
        dir
    })
    .path()
}

/// The taw the release holds: this suite's, stripped as a release is
/// (half the bytes to zip and unzip), or as it is where `strip` fails.
fn released_taw() -> &'static Path {
    static MADE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, taw) = MADE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let stripped = dir.path().join("taw");
        let run = Command::new("strip")
            .arg("-o")
            .arg(&stripped)
            .arg(taw_bin())
            .status();
        let taw = match run {
            Ok(status) if status.success() => stripped,
            _ => taw_bin(),
        };
        (dir, taw)
    });
    taw
}

/// Runs `scripts/package OUT --bin BIN [--version V]`.
fn package(out: &Path, bin: &Path, version: Option<&str>) {
    let mut command = Command::new(repo_root().join("scripts/package"));
    command.arg(out).arg("--bin").arg(bin);
    if let Some(version) = version {
        command.args(["--version", version]);
    }
    let run = command.output().unwrap();
    assert!(run.status.success(), "scripts/package: {run:?}");
}

/// A copy of the release folder, to serve as it is or to spoil.
fn copy_of_release(to: &Path) -> PathBuf {
    let from = release().join(format!("v{VERSION}"));
    let into = to.join(format!("v{VERSION}"));
    std::fs::create_dir_all(&into).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), into.join(entry.file_name())).unwrap();
    }
    into
}

fn archive_name(version: &str) -> String {
    let target = Command::new("sh")
        .args(["-c", "uname -m"])
        .output()
        .unwrap();
    let arch = match String::from_utf8_lossy(&target.stdout).trim() {
        "aarch64" | "arm64" => "aarch64",
        _ => "x86_64",
    };
    format!("taw-{version}-{arch}-unknown-linux-musl.tar.gz")
}

/// A plugin checkout as TPM clones it, with no build and no download:
/// the entry script, the installer, and a Cargo.toml of `version`.
fn plugin_checkout(server: &TmuxServer, version: &str) -> PathBuf {
    let dir = server.dir.path().join("plugin");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    for file in ["agent-wizard.tmux", "scripts/install-binary"] {
        std::fs::copy(repo_root().join(file), dir.join(file)).unwrap();
    }
    set_version(&dir, version);
    dir
}

fn set_version(plugin: &Path, version: &str) {
    std::fs::write(
        plugin.join("Cargo.toml"),
        format!("[package]\nname = \"tmux-agent-wizard\"\nversion = \"{version}\"\n"),
    )
    .unwrap();
}

/// A server with no client, a PATH without cargo, and the release's
/// address as `@agent-wizard-download-url`.
fn server_for(files: &FileServer) -> TmuxServer {
    let server = TmuxServer::start();
    let tools = tools_folder(server.dir.path(), "curl");
    server.tmux(&[
        "set-environment",
        "-g",
        "PATH",
        &tools.display().to_string(),
    ]);
    server.tmux(&[
        "set-option",
        "-g",
        "@agent-wizard-download-url",
        &files.url(),
    ]);
    server
}

fn run_entry_script(server: &TmuxServer, plugin: &Path) {
    server.tmux(&[
        "run-shell",
        &plugin.join("agent-wizard.tmux").display().to_string(),
    ]);
}

fn option(server: &TmuxServer, name: &str) -> String {
    server
        .tmux(&["show-option", "-gqv", name])
        .trim_end()
        .to_string()
}

fn load_log(server: &TmuxServer) -> String {
    std::fs::read_to_string(server.state_dir().join("logs/load.log")).unwrap_or_default()
}

#[test]
fn a_machine_without_rust_loads_the_released_binary() {
    let files = FileServer::start(release().to_path_buf());
    let server = server_for(&files);
    let plugin = plugin_checkout(&server, VERSION);
    run_entry_script(&server, &plugin);
    let installed = plugin.join("bin/taw");
    server.wait_for("the download and the load", Duration::from_secs(60), || {
        option(&server, "@agent_wizard_loaded") == format!("{VERSION} {}", installed.display())
    });
    assert_eq!(option(&server, "@agent_wizard_origin"), "download");
    // The same bytes as the release's taw.
    assert_eq!(
        std::fs::read(&installed).unwrap(),
        std::fs::read(released_taw()).unwrap()
    );
    let status = server.taw(&["tmux", "status"]);
    assert!(status.stdout.contains("(downloaded release)"), "{status:?}");

    // Nobody was attached: the first client to attach is told.
    assert_eq!(
        option(&server, "@agent_wizard_told"),
        format!("agent-wizard: taw {VERSION} is downloaded and loaded")
    );
    let _viewer = attach_client(&server, "main");
    server.wait_for("the message", Duration::from_secs(10), || {
        shown_messages(&server)
            .iter()
            .any(|m| m == &format!("agent-wizard: taw {VERSION} is downloaded and loaded"))
    });
    assert!(option(&server, "@agent_wizard_told").is_empty());
    assert!(load_log(&server).contains(&format!("taw {VERSION} is downloaded and loaded")));

    // Loading again uses it: nothing is fetched.
    run_entry_script(&server, &plugin);
    assert!(!load_log(&server).contains("is loaded while"));

    // An unload takes out the link it made for login shells, and the
    // one-shot hooks.
    let link = server.dir.path().join("home/.local/bin/taw");
    assert!(std::fs::symlink_metadata(&link).is_ok());
    let unloaded = server.taw(&["tmux", "unload"]);
    assert_eq!(unloaded.status, 0, "{unloaded:?}");
    assert!(std::fs::symlink_metadata(&link).is_err());
    assert!(
        !server
            .tmux(&["show-hooks", "-g", "client-attached"])
            .contains("9099")
    );
}

#[test]
fn a_tampered_archive_is_refused_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let copy = copy_of_release(dir.path());
    // One byte of the archive changed after its sum was taken.
    let archive = copy.join(archive_name(VERSION));
    let mut bytes = std::fs::read(&archive).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&archive, bytes).unwrap();
    let files = FileServer::start(dir.path().to_path_buf());
    let server = server_for(&files);
    let plugin = plugin_checkout(&server, VERSION);
    run_entry_script(&server, &plugin);
    server.wait_for("the refusal", Duration::from_secs(60), || {
        option(&server, "@agent_wizard_told").contains("no taw for this machine")
    });
    assert!(!plugin.join("bin/taw").exists());
    assert!(option(&server, "@agent_wizard_loaded").is_empty());
    let log = load_log(&server);
    assert!(log.contains("does not match its SHA-256"), "{log}");
    let _viewer = attach_client(&server, "main");
    server.wait_for("the messages", Duration::from_secs(10), || {
        let said = shown_messages(&server);
        said.iter()
            .any(|m| m.contains("does not match its SHA-256"))
            && said.iter().any(|m| {
                m.starts_with("agent-wizard: no taw for this machine") && m.chars().count() <= 80
            })
    });
}

/// The entry script with no taw to run keeps its message for the first
/// client by hooks at index 9099, unless an entry of someone else's is
/// there: that one stays as it was, and the message is in the log only.
#[test]
fn the_entry_script_leaves_a_users_hook_at_its_index_alone() {
    let empty = tempfile::tempdir().unwrap();
    let files = FileServer::start(empty.path().to_path_buf());
    let server = server_for(&files);
    let mine = "client-attached[9099] display-message mine";
    server.tmux(&[
        "set-hook",
        "-g",
        "client-attached[9099]",
        "display-message mine",
    ]);
    let plugin = plugin_checkout(&server, VERSION);
    run_entry_script(&server, &plugin);
    // Two messages: the fetch begins, then it failed.
    server.wait_for(
        "the messages kept in the log",
        Duration::from_secs(60),
        || {
            let log = load_log(&server);
            log.contains("no taw for this machine") && log.matches("kept here only").count() == 2
        },
    );
    assert!(option(&server, "@agent_wizard_told").is_empty());
    let hooks = server.tmux(&["show-hooks", "-g", "client-attached"]);
    assert!(hooks.contains(mine), "{hooks}");
    assert!(
        !server
            .tmux(&["show-hooks", "-g", "client-session-changed"])
            .contains("[9099]")
    );
}

#[test]
fn a_version_bump_downloads_again_and_runs_the_old_one_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    copy_of_release(dir.path());
    // The next version: a taw that says it is 99.0.0.
    let next = dir.path().join("next-taw");
    std::fs::write(
        &next,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'taw 99.0.0'; exit 0; fi\nexec '{}' \"$@\"\n",
            taw_bin().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&next, std::fs::Permissions::from_mode(0o755)).unwrap();
    package(dir.path(), &next, Some("99.0.0"));
    let files = FileServer::start(dir.path().to_path_buf());
    let server = server_for(&files);
    let plugin = plugin_checkout(&server, VERSION);
    run_entry_script(&server, &plugin);
    server.wait_for("the first download", Duration::from_secs(60), || {
        option(&server, "@agent_wizard_origin") == "download"
    });

    // `prefix + U` pulled the next tag.
    set_version(&plugin, "99.0.0");
    run_entry_script(&server, &plugin);
    assert!(
        load_log(&server).contains(&format!(
            "taw {VERSION} is loaded while taw 99.0.0 is fetched"
        )),
        "{}",
        load_log(&server)
    );
    server.wait_for("the new version's load", Duration::from_secs(60), || {
        option(&server, "@agent_wizard_notes").contains("taw 99.0.0 is downloaded and loaded")
    });
    let said = Command::new(plugin.join("bin/taw"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&said.stdout).trim(), "taw 99.0.0");
}

/// Runs `scripts/install-binary URL VERSION DEST` with `path` as PATH:
/// its status, what it said, and how long it took.
fn install_binary(url: &str, dest: &Path, path: &Path) -> (i32, String, Duration) {
    let began = Instant::now();
    let run = Command::new(repo_root().join("scripts/install-binary"))
        .args([url, VERSION])
        .arg(dest)
        .env("PATH", path)
        .output()
        .unwrap();
    (
        run.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&run.stderr).to_string(),
        began.elapsed(),
    )
}

/// A release of `VERSION` whose archive holds `files` (made by `make` in
/// a folder of its own), with a true SHA256SUMS line.
fn hostile_release(dir: &Path, name: &str, tar_args: &[&str], make: impl Fn(&Path)) -> PathBuf {
    let root = dir.join(name);
    let release = root.join(format!("v{VERSION}"));
    let stage = root.join("stage");
    std::fs::create_dir_all(&release).unwrap();
    std::fs::create_dir_all(&stage).unwrap();
    make(&stage);
    let archive = release.join(archive_name(VERSION));
    let made = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(&stage)
        .args(tar_args)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let sum = Command::new("sha256sum").arg(&archive).output().unwrap();
    let sum = String::from_utf8_lossy(&sum.stdout);
    std::fs::write(
        release.join("SHA256SUMS"),
        format!(
            "{}  {}\n",
            sum.split_whitespace().next().unwrap(),
            archive_name(VERSION)
        ),
    )
    .unwrap();
    root
}

#[test]
fn a_hostile_archive_installs_nothing_and_keeps_what_was_there() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tools_folder(dir.path(), "curl");
    // A taw that passes the version check: each case is refused for what
    // it is, and a few bytes to pack instead of a release's megabytes.
    let passing = format!("#!/bin/sh\necho 'taw {VERSION}'\n");
    let with_taw = |stage: &Path| {
        std::fs::write(stage.join("taw"), &passing).unwrap();
        std::fs::set_permissions(stage.join("taw"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    };
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            hostile_release(dir.path(), "second-file", &["taw", "README"], |stage| {
                with_taw(stage);
                std::fs::write(stage.join("README"), "hello").unwrap();
            }),
            "one file called taw",
        ),
        (
            hostile_release(dir.path(), "link", &["taw"], |stage| {
                std::os::unix::fs::symlink("/bin/sh", stage.join("taw")).unwrap();
            }),
            "one file called taw",
        ),
        (
            hostile_release(
                dir.path(),
                "outside",
                &["-P", "--transform", "s|^|../|", "taw"],
                with_taw,
            ),
            "one file called taw",
        ),
        (
            hostile_release(dir.path(), "not-taw", &["taw"], |stage| {
                std::fs::write(stage.join("taw"), "#!/bin/sh\necho 'taw 0.0.1'\n").unwrap();
                std::fs::set_permissions(stage.join("taw"), std::fs::Permissions::from_mode(0o755))
                    .unwrap();
            }),
            "says it is version '0.0.1'",
        ),
        (
            hostile_release(dir.path(), "no-line", &["taw"], with_taw),
            "has no line for",
        ),
    ];
    // The last one's sums name another file.
    let no_line = cases[4].0.join(format!("v{VERSION}/SHA256SUMS"));
    std::fs::write(&no_line, "0000  taw-other.tar.gz\n").unwrap();

    for (root, said) in cases {
        let files = FileServer::start(root.clone());
        let dest = root.join("installed");
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::write(dest.join("taw"), "the taw that worked before").unwrap();
        let (status, stderr, _) = install_binary(&files.url(), &dest, &tools);
        assert_eq!(status, 1, "{}: {stderr}", root.display());
        assert!(stderr.contains(said), "{}: {stderr}", root.display());
        assert_eq!(
            std::fs::read_to_string(dest.join("taw")).unwrap(),
            "the taw that worked before"
        );
        // Nothing of the download is left beside it.
        let left: Vec<_> = std::fs::read_dir(&dest).unwrap().collect();
        assert_eq!(left.len(), 1, "{}: {left:?}", root.display());
    }
    // Nothing was written outside the folder either.
    assert!(!dir.path().join("taw").exists());
}

#[test]
fn an_unreachable_address_fails_in_time_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tools_folder(dir.path(), "curl");
    // A port nothing listens on.
    let port = crate::common::web::free_port();
    let url = format!("http://127.0.0.1:{port}");
    let (status, stderr, took) = install_binary(&url, &dir.path().join("bin"), &tools);
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.contains(&format!("could not download {url}/v{VERSION}/")),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
    // A release that is not there is said the same way.
    let files = FileServer::start(dir.path().to_path_buf());
    let (status, stderr, _) = install_binary(&files.url(), &dir.path().join("bin"), &tools);
    assert_eq!(status, 1);
    assert!(stderr.contains("could not download"), "{stderr}");
}

#[test]
fn wget_downloads_where_there_is_no_curl() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tools_folder(dir.path(), "wget");
    let files = FileServer::start(release().to_path_buf());
    let dest = dir.path().join("bin");
    let (status, stderr, _) = install_binary(&files.url(), &dest, &tools);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(
        std::fs::read(dest.join("taw")).unwrap(),
        std::fs::read(released_taw()).unwrap()
    );
    // A tampered download is refused by this way too.
    let spoiled = tempfile::tempdir().unwrap();
    let copy = copy_of_release(spoiled.path());
    std::fs::write(copy.join(archive_name(VERSION)), "short").unwrap();
    let files = FileServer::start(spoiled.path().to_path_buf());
    let (status, stderr, _) = install_binary(&files.url(), &dest, &tools);
    assert_eq!(status, 1);
    assert!(stderr.contains("does not match its SHA-256"), "{stderr}");
}

#[test]
fn a_tmux_older_than_the_floor_is_refused() {
    let server = TmuxServer::start();
    let stand_ins = server.dir.path().join("old-tmux");
    std::fs::create_dir_all(&stand_ins).unwrap();
    let real = Command::new("sh")
        .args(["-c", "command -v tmux"])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let tmux = stand_ins.join("tmux");
    std::fs::write(
        &tmux,
        format!("#!/bin/sh\nif [ \"$1\" = -V ]; then echo 'tmux 3.1c'; exit 0; fi\nexec '{real}' \"$@\"\n"),
    )
    .unwrap();
    std::fs::set_permissions(&tmux, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        stand_ins.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let refused = server.taw_with(&["tmux", "load"], &[("PATH", &path)]);
    assert_eq!(refused.error_code(), "tmux_too_old", "{refused:?}");
    assert!(
        refused
            .error_json()
            .to_string()
            .contains("taw needs tmux 3.2 or newer; this is tmux 3.1c"),
        "{refused:?}"
    );
    assert!(option(&server, "@agent_wizard_loaded").is_empty());
    assert!(
        !server
            .tmux(&["show-hooks", "-g", "after-split-window"])
            .contains("AGENT_WIZARD_HOOK")
    );
}
