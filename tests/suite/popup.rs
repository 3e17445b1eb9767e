//! The popup, as a person uses it: opened over a client attached from a
//! pane of a second private server, keys typed into that client, its screen
//! read back, and where the client lands checked.

use crate::common::{Run, TmuxServer, attach_client};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// A window named `name` whose pane is marked as an agent.
fn agent(server: &TmuxServer, session: &str, name: &str, kind: &str, state: &str) -> String {
    let pane = server.new_window(session, name, "");
    for (option, value) in [
        ("@agent_kind", kind),
        ("@agent_state", state),
        ("@agent_name", name),
    ] {
        server.tmux(&["set-option", "-p", "-t", &pane, option, value]);
    }
    pane
}

struct Popup<'a> {
    server: &'a TmuxServer,
    viewer: TmuxServer,
}

impl Popup<'_> {
    fn screen(&self) -> String {
        self.viewer.tmux(&["capture-pane", "-p", "-t", "viewer"])
    }

    fn wait_for(&self, text: &str) {
        self.server
            .wait_for(&format!("{text:?} in the popup"), WAIT, || {
                self.screen().contains(text)
            });
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "viewer"];
        args.extend_from_slice(keys);
        self.viewer.tmux(&args);
    }

    fn type_text(&self, text: &str) {
        self.viewer.tmux(&["send-keys", "-t", "viewer", "-l", text]);
    }

    fn client_pane(&self) -> String {
        self.server
            .tmux(&["list-clients", "-F", "#{pane_id}"])
            .trim()
            .to_string()
    }
}

/// Opens the popup with `taw ui open` (which returns when it closes), runs
/// `steps` while it is open, and gives back what `ui open` answered.
fn with_popup(
    server: &TmuxServer,
    session: &str,
    args: &[&str],
    steps: impl FnOnce(&Popup),
) -> Run {
    let popup = Popup {
        server,
        viewer: attach_client(server, session),
    };
    std::thread::scope(|scope| {
        let opened = scope.spawn(|| {
            let mut all = vec!["ui", "open"];
            all.extend_from_slice(args);
            server.taw(&all)
        });
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            popup.wait_for("tmux-agent-wizard");
            steps(&popup);
        }));
        if let Err(panic) = outcome {
            let screen = popup.screen();
            // Close the popup, or `ui open` would wait for ever.
            let client = server.tmux(&["list-clients", "-F", "#{client_name}"]);
            let _ = server.tmux_run(&["display-popup", "-C", "-c", client.trim()]);
            let _ = opened.join();
            eprintln!("the popup showed:\n{screen}");
            std::panic::resume_unwind(panic);
        }
        opened.join().unwrap()
    })
}

fn three_agents(server: &TmuxServer) -> (String, String, String) {
    server.tmux(&["new-session", "-d", "-s", "web"]);
    let reviewer = agent(server, "main", "reviewer", "claude", "working");
    let tester = agent(server, "main", "tester", "codex", "idle");
    let asker = agent(server, "web", "asker", "claude", "blocked");
    (reviewer, tester, asker)
}

#[test]
fn it_lists_every_agent_and_enter_goes_to_one() {
    let server = TmuxServer::start();
    let (_, _, asker) = three_agents(&server);
    let run = with_popup(&server, "main", &[], |popup| {
        // Each waited for: a screen caught while the popup draws it holds
        // only its first rows.
        for text in [
            "reviewer", "main", "web", "tester", "asker", "blocked", "working",
        ] {
            popup.wait_for(text);
        }
        // Tab: the next agent that needs you; Enter goes there.
        popup.keys(&["Tab"]);
        popup.keys(&["Enter"]);
        popup
            .server
            .wait_for("the client on asker", WAIT, || popup.client_pane() == asker);
    });
    let opened = run.result();
    assert_eq!(opened["type"], "ui_open");
    assert!(opened["w"].as_u64().unwrap() > 0, "{opened}");
}

#[test]
fn the_filter_finds_an_agent_by_name() {
    let server = TmuxServer::start();
    let (_, tester, _) = three_agents(&server);
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer");
        popup.keys(&["/"]);
        popup.type_text("test");
        popup.server.wait_for("the filter to narrow", WAIT, || {
            !popup.screen().contains("reviewer working")
        });
        popup.keys(&["Enter"]);
        popup.server.wait_for("the client on tester", WAIT, || {
            popup.client_pane() == tester
        });
    })
    .result();
}

#[test]
fn rename_and_close_with_its_question() {
    let server = TmuxServer::start();
    let (reviewer, tester, _) = three_agents(&server);
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer");
        // From the top (session main), two rows down: its window, then it.
        popup.keys(&["g", "j", "j"]);
        popup.keys(&["r"]);
        popup.wait_for("rename to:");
        popup.keys(&["C-u"]);
        popup.type_text("critic");
        popup.keys(&["Enter"]);
        popup.server.wait_for("the new name", WAIT, || {
            popup.server.display(&reviewer, "#{@agent_name}") == "critic"
        });
        popup.wait_for("critic");
        // Close tester, two rows further: asked first; n keeps it, y closes it.
        popup.keys(&["j", "j"]);
        popup.keys(&["x"]);
        popup.wait_for("? y/n");
        popup.keys(&["n"]);
        popup.server.wait_for("the question answered", WAIT, || {
            !popup.screen().contains("? y/n")
        });
        let panes = || popup.server.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
        popup
            .server
            .stays_for("tester kept", Duration::from_millis(500), || {
                panes().lines().any(|p| p == tester)
            });
        popup.keys(&["x"]);
        popup.wait_for("? y/n");
        popup.keys(&["y"]);
        popup.server.wait_for("tester closed", WAIT, || {
            !panes().lines().any(|p| p == tester)
        });
        popup.keys(&["q"]);
    })
    .result();
}

#[test]
fn n_opens_a_session_for_a_folder() {
    let server = TmuxServer::start();
    three_agents(&server);
    let folder = server.dir.path().join("projects").join("shop");
    std::fs::create_dir_all(&folder).unwrap();
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer");
        popup.keys(&["n"]);
        popup.wait_for("new session in:");
        popup.type_text(&folder.display().to_string());
        // The first entry is the folder itself, completed.
        popup.server.wait_for("the folder listed", WAIT, || {
            popup.screen().contains("shop")
        });
        popup.keys(&["Enter"]);
        popup
            .server
            .wait_for("the client in session shop", WAIT, || {
                popup
                    .server
                    .tmux(&["list-clients", "-F", "#{session_name}"])
                    .trim()
                    == "shop"
            });
    })
    .result();
    assert_eq!(
        server.display("shop:", "#{pane_current_path}"),
        folder.canonicalize().unwrap().display().to_string()
    );
}

#[test]
fn the_search_preset_types_to_filter() {
    let server = TmuxServer::start();
    server.write_config("[keys]\npreset = \"search\"\n");
    let (_, _, asker) = three_agents(&server);
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer");
        popup.type_text("ask");
        popup.server.wait_for("the query to narrow", WAIT, || {
            !popup.screen().contains("reviewer working")
        });
        popup.keys(&["Enter"]);
        popup
            .server
            .wait_for("the client on asker", WAIT, || popup.client_pane() == asker);
    })
    .result();
    // ctrl-d on an empty query closes it, as fzf's end of input does.
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer");
        popup.keys(&["C-d"]);
    })
    .result();
}

#[test]
fn states_change_under_your_eyes() {
    let server = TmuxServer::start();
    let (reviewer, _, _) = three_agents(&server);
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer working");
        server.tmux(&[
            "set-option",
            "-p",
            "-t",
            &reviewer,
            "@agent_state",
            "blocked",
        ]);
        popup.wait_for("reviewer blocked");
        popup.keys(&["q"]);
    })
    .result();
}

#[test]
fn with_no_client_there_is_nothing_to_open_on() {
    let server = TmuxServer::start();
    let run = server.taw(&["ui", "open"]);
    assert_eq!(run.error_code(), "tmux_error");
    assert!(run.stderr.contains("no attached client"), "{}", run.stderr);
}

#[test]
fn the_filter_lists_project_folders_when_asked() {
    let server = TmuxServer::start();
    let projects = server.dir.path().join("projects");
    std::fs::create_dir_all(projects.join("garden")).unwrap();
    server.write_config(&format!(
        "[ui]\nprojects_in_filter = true\n[sessions]\nproject_dirs = [\"{}\"]\n",
        projects.display()
    ));
    three_agents(&server);
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer");
        popup.keys(&["/"]);
        popup.type_text("garden");
        popup.wait_for("projects/garden");
        popup.keys(&["Enter"]);
        popup
            .server
            .wait_for("the client in session garden", WAIT, || {
                popup
                    .server
                    .tmux(&["list-clients", "-F", "#{session_name}"])
                    .trim()
                    == "garden"
            });
    })
    .result();
}

#[test]
fn herdr_sidebar_rows_draw_the_entries() {
    let server = TmuxServer::start();
    server.write_config(concat!(
        "[ui.sidebar.agents]\n",
        "rows = [[\"state_icon\", \"agent\", \"workspace\"], [{ token = \"state_text\", rules = [{ equals = \"idle\", hide = true }] }]]\n",
        "[ui.sidebar.spaces]\n",
        "rows = [[\"workspace\", \"$ticket\"]]\n",
    ));
    three_agents(&server);
    server
        .taw(&[
            "workspace",
            "report-metadata",
            "w1",
            "--source",
            "custom:t",
            "--token",
            "ticket=JIRA-7",
        ])
        .result();
    with_popup(&server, "main", &[], |popup| {
        // The rows drawn last, waited for: a screen caught while the popup
        // draws it holds only its first rows.
        for text in ["reviewer · main", "○ tester · main", "main · JIRA-7"] {
            popup.wait_for(text);
        }
        let screen = popup.screen();
        // herdr's joins: one space after the icon, " · " between the rest;
        // the idle agent's state text is hidden by its rule.
        assert!(screen.contains("● reviewer · main"), "{screen}");
        assert!(screen.contains("working"), "{screen}");
        assert!(screen.contains("○ tester · main"), "{screen}");
        assert!(!screen.contains("idle"), "{screen}");
        assert!(screen.contains("main · JIRA-7"), "{screen}");
        popup.keys(&["q"]);
    })
    .result();
}

#[test]
fn the_notification_key_works_in_the_popup_after_the_prefix() {
    let server = TmuxServer::start();
    server.load_plugin();
    // With watchers on, the agent to go to is one they keep: reported.
    server.tmux(&["new-session", "-d", "-s", "web"]);
    let asker = server.reported_agent("web", "asker", "blocked");
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("asker");
        popup.keys(&["C-b", "Tab"]);
        popup
            .server
            .wait_for("the client on asker", WAIT, || popup.client_pane() == asker);
    })
    .result();
}

#[test]
fn opened_on_the_picker_esc_closes_it() {
    let server = TmuxServer::start();
    three_agents(&server);
    with_popup(&server, "main", &["--new-session"], |popup| {
        popup.wait_for("new session in:");
        popup.keys(&["Escape"]);
    })
    .result();
    // Opened from the list, Esc on the picker goes back to the list.
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer");
        popup.keys(&["n"]);
        popup.wait_for("new session in:");
        popup.keys(&["Escape"]);
        popup.server.wait_for("the list again", WAIT, || {
            !popup.screen().contains("new session in:")
                && popup.screen().contains("reviewer working")
        });
        popup.keys(&["q"]);
    })
    .result();
}

#[test]
fn a_popup_closed_from_outside_ends_normally() {
    let server = TmuxServer::start();
    three_agents(&server);
    let opened = with_popup(&server, "main", &[], |popup| {
        popup.wait_for("reviewer");
        let client = popup.server.tmux(&["list-clients", "-F", "#{client_name}"]);
        let closed = popup
            .server
            .taw(&["popup", "close", "--client", client.trim()])
            .result();
        assert_eq!(closed["type"], "ok");
        assert_eq!(closed["clients"], serde_json::json!([client.trim()]));
    })
    .result();
    assert_eq!(opened["type"], "ui_open");
    // No client, no popup; a client not attached is not found.
    let bare = TmuxServer::start();
    assert_eq!(bare.taw(&["popup", "close"]).error_code(), "popup_not_open");
    assert_eq!(
        bare.taw(&["popup", "close", "--client", "/dev/pts/999"])
            .error_code(),
        "not_found"
    );
}

#[test]
fn a_config_with_errors_is_said_on_the_options_page() {
    let server = TmuxServer::start();
    server.write_config("[ui]\ndepth = \"everything\"\n");
    let run = with_popup(&server, "main", &[], |popup| {
        popup.keys(&["o"]);
        popup.wait_for("config.toml has 1 error");
        popup.wait_for("defaults");
        popup.keys(&["q"]);
        popup.wait_for("tmux-agent-wizard");
        popup.keys(&["q"]);
    });
    assert_eq!(run.status, 0, "{run:?}");
}

#[test]
fn a_pre_close_that_says_no_keeps_what_x_would_close() {
    let server = TmuxServer::start();
    server.write_config("[hooks]\npre_close = \"echo not now >&2; exit 1\"\n");
    let (_, tester, _) = three_agents(&server);
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("tester");
        popup.keys(&["g", "j", "j", "j", "j"]);
        popup.keys(&["x"]);
        popup.wait_for("? y/n");
        popup.keys(&["y"]);
        popup.wait_for("not now");
        let panes = || popup.server.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
        popup
            .server
            .stays_for("tester kept", Duration::from_millis(500), || {
                panes().lines().any(|p| p == tester)
            });
        popup.keys(&["q"]);
    })
    .result();
}

/// Worktree sessions under their repository's, a closed worktree beside
/// them; n makes a worktree, x removes the closed one (asked again for its
/// changes), and x on the repository's session closes the group on a yes.
#[test]
fn worktrees_in_the_popup() {
    let server = TmuxServer::start();
    let repo = crate::common::repos::repo(&server, "api");
    let worktrees = server.dir.path().join("wt");
    server.write_config(&format!(
        "[worktrees]\ndirectory = {:?}\n",
        worktrees.display().to_string()
    ));
    server.tmux(&[
        "new-session",
        "-d",
        "-s",
        "api",
        "-c",
        &repo.display().to_string(),
    ]);
    let api = server.display("=api:", "#{session_id}");
    for branch in ["feat/a", "feat/b"] {
        server
            .taw(&["worktree", "create", branch, "--workspace", &api])
            .result();
    }
    server.tmux(&["kill-session", "-t", "=api/feat-a"]);
    std::fs::write(worktrees.join("api/feat-a/notes.txt"), "mine\n").unwrap();
    let sessions = || {
        let mut names: Vec<String> = server
            .tmux(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .map(str::to_string)
            .collect();
        names.sort();
        names
    };

    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("closed worktree");
        let screen = popup.screen();
        let at = |text: &str| screen.find(text).unwrap_or(usize::MAX);
        // tmux lists sessions by name: api first, its worktrees under it.
        assert!(
            at("│api  ") < at("⎇ feat/a") && at("⎇ feat/a") < at("│api/feat-b"),
            "{screen}"
        );
        popup.keys(&["g", "n"]);
        popup.wait_for("new worktree of api");
        popup.type_text("feat/c");
        popup.keys(&["Enter"]);
        popup.server.wait_for("the client in api/feat-c", WAIT, || {
            popup
                .server
                .tmux(&["list-clients", "-F", "#{session_name}"])
                .trim()
                == "api/feat-c"
        });
    })
    .result();
    assert!(worktrees.join("api/feat-c").is_dir());

    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("closed worktree");
        popup.keys(&["g", "j", "x"]);
        popup.wait_for("remove worktree feat/a");
        popup.keys(&["y"]);
        popup.wait_for("remove anyway? uncommitted changes are lost");
        popup.keys(&["y"]);
        popup.server.wait_for("feat/a removed", WAIT, || {
            !worktrees.join("api/feat-a").exists()
        });
        // The repository's session: its worktree sessions go too, on a yes.
        popup.keys(&["g", "x"]);
        popup.wait_for("Close them too?");
        popup.keys(&["y"]);
        popup
            .server
            .wait_for("the group closed", WAIT, || sessions() == ["main"]);
        popup.keys(&["q"]);
    })
    .result();
}

#[test]
fn v_pastes_the_clipboards_image_into_the_agent_and_says_why_not_on_the_client() {
    use std::os::unix::fs::PermissionsExt;
    let server = TmuxServer::start();
    // A stand-in xclip, which the popup's paste finds on tmux's PATH.
    let tools = server.dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    let clip = server.dir.path().join("clip.png");
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend([7u8; 64]);
    std::fs::write(&clip, &png).unwrap();
    let tool = tools.join("xclip");
    let with_image = format!("#!/bin/sh\ncat {}\n", clip.display());
    std::fs::write(&tool, &with_image).unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", tools.display(), std::env::var("PATH").unwrap());
    server.tmux(&["set-environment", "-g", "PATH", &path]);
    // The test's client has no DISPLAY for its attach to bring (tmux's
    // update-environment); a desktop's would.
    server.tmux(&["set-environment", "-t", "main", "DISPLAY", ":99"]);
    server.tmux(&["set-option", "-g", "update-environment", ""]);
    let pane = server.new_window("main", "asker", "exec cat");
    for (option, value) in [
        ("@agent_kind", "claude"),
        ("@agent_state", "blocked"),
        ("@agent_name", "asker"),
    ] {
        server.tmux(&["set-option", "-p", "-t", &pane, option, value]);
    }
    let pasted = || {
        server
            .tmux(&["capture-pane", "-p", "-t", &pane])
            .contains("image-")
    };
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("asker");
        popup.keys(&["Tab"]);
        popup.keys(&["v"]);
        popup
            .server
            .wait_for("the image's path in the agent", WAIT, pasted);
        // A session row takes no image.
        popup.keys(&["g"]);
        popup.keys(&["v"]);
        popup.wait_for("the clipboard's image goes into an agent's row");
        // No image on the clipboard: said on the popup's client.
        std::fs::write(&tool, "#!/bin/sh\nexit 1\n").unwrap();
        popup.keys(&["Tab"]);
        popup.keys(&["v"]);
        popup.keys(&["q"]);
        // Said by the paste's own process once it has failed, after the
        // popup has gone: slow on a machine the suite keeps busy.
        let start = std::time::Instant::now();
        while !popup.screen().contains("taw image paste:") {
            // What went instead, for a failure: the images made, what the
            // agent's pane got.
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no word of the failed paste on the client; images: {:?}; the agent's pane:\n{}",
                std::fs::read_dir(popup.server.state_dir().join("images"))
                    .map(|d| d.count())
                    .unwrap_or(0),
                popup.server.tmux(&["capture-pane", "-p", "-t", &pane])
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    });
}

/// The popup's width on the viewer's screen: its top line, corner to
/// corner.
fn popup_width(screen: &str) -> usize {
    let top = screen
        .lines()
        .find(|line| line.contains("tmux-agent-wizard"))
        .unwrap_or_else(|| panic!("no popup on the screen:\n{screen}"));
    top.trim().chars().count()
}

#[test]
fn the_key_opens_the_popup_on_its_client_at_the_size_the_options_say() {
    let server = TmuxServer::start();
    // No toast for the blocked agent: the test reads the client's
    // messages for what the key's own cleanup might say.
    server.tmux(&["set-option", "-g", "@agent-wizard-notify", "off"]);
    server.load_plugin();
    server.tmux(&["new-session", "-d", "-s", "web"]);
    let asker = server.reported_agent("web", "asker", "blocked");
    server.tmux(&["set-option", "-g", "@agent-wizard-popup-width", "60"]);
    // The popup says where its first frame's rows came from.
    let noted = server.dir.path().join("first-frame");
    server.tmux(&[
        "set-environment",
        "-g",
        "TAW_BENCH_FIRST_FRAME",
        noted.to_str().unwrap(),
    ]);
    let popup = Popup {
        server: &server,
        viewer: attach_client(&server, "main"),
    };
    popup.keys(&["C-b", "a"]);
    popup.wait_for("tmux-agent-wizard");
    popup.wait_for("asker");
    assert_eq!(popup_width(&popup.screen()), 60, "{}", popup.screen());
    // From the listing the key's tmux wrote, which no pane inherits after.
    server.wait_for("the first frame noted", WAIT, || {
        std::fs::read_to_string(&noted).is_ok_and(|note| note.contains(' '))
    });
    let note = std::fs::read_to_string(&noted).unwrap();
    assert!(note.ends_with(" listing"), "{note}");
    server.wait_for("the listing out of the session", WAIT, || {
        server
            .tmux_run(&["show-environment", "-t", "main", "TAW_POPUP_LISTING"])
            .status
            != 0
    });
    let global = server.tmux_run(&["show-environment", "-g", "TAW_POPUP_LISTING"]);
    assert_ne!(global.status, 0, "{}", global.stdout);
    // taw in it knows its client: Enter takes that client to the agent.
    popup.keys(&["Tab"]);
    popup.keys(&["Enter"]);
    server.wait_for("the client on asker", WAIT, || popup.client_pane() == asker);
    // A size tmux would refuse gives way to the default, 90% of 120.
    server.tmux(&["set-option", "-g", "@agent-wizard-popup-width", "wide"]);
    popup.keys(&["C-b", "a"]);
    popup.wait_for("tmux-agent-wizard");
    assert_eq!(popup_width(&popup.screen()), 108, "{}", popup.screen());
    popup.keys(&["q"]);
    server.wait_for("the popup closed", WAIT, || {
        !popup.screen().contains("tmux-agent-wizard")
    });
    // Wider than the client, in cells or in per cent: the client's width.
    for wide in ["500", "150%"] {
        server.tmux(&["set-option", "-g", "@agent-wizard-popup-width", wide]);
        popup.keys(&["C-b", "a"]);
        popup.wait_for("tmux-agent-wizard");
        assert_eq!(
            popup_width(&popup.screen()),
            120,
            "{wide}: {}",
            popup.screen()
        );
        popup.keys(&["q"]);
        server.wait_for("the popup closed", WAIT, || {
            !popup.screen().contains("tmux-agent-wizard")
        });
    }
    // The key's own cleanup after the popup closed said nothing.
    server.wait_for("the popup closed", WAIT, || {
        !popup.screen().contains("tmux-agent-wizard")
    });
    let client = server.tmux(&["list-clients", "-F", "#{client_name}"]);
    let messages = server.tmux(&["show-messages", "-t", client.trim()]);
    // (The test's own show-environment calls above are command clients.)
    let key_said = format!("{} message: ", client.trim());
    assert!(!messages.contains(&key_said), "{messages}");
}

/// A server whose list would not fit in one variable (here a pane title
/// of 130,000 bytes, which a program sets with one escape sequence): the
/// key leaves its listing empty, so the popup's start is never refused,
/// and the popup reads tmux instead.
#[test]
fn a_list_too_big_for_the_environment_is_read_from_tmux() {
    let server = TmuxServer::start();
    server.load_plugin();
    server.tmux(&["new-session", "-d", "-s", "web"]);
    server.reported_agent("web", "asker", "blocked");
    let noted = server.dir.path().join("first-frame");
    server.tmux(&[
        "set-environment",
        "-g",
        "TAW_BENCH_FIRST_FRAME",
        noted.to_str().unwrap(),
    ]);
    server.tmux(&[
        "send-keys",
        "-t",
        "main",
        "printf '\\033]2;%s\\033\\\\' \"$(head -c 130000 /dev/zero | tr '\\0' x)\"",
        "Enter",
    ]);
    server.wait_for("the long title", WAIT, || {
        server.display("main", "#{n:pane_title}").trim() == "130000"
    });
    let popup = Popup {
        server: &server,
        viewer: attach_client(&server, "main"),
    };
    popup.keys(&["C-b", "a"]);
    popup.wait_for("tmux-agent-wizard");
    popup.wait_for("asker");
    server.wait_for("the first frame noted", WAIT, || {
        std::fs::read_to_string(&noted).is_ok_and(|note| note.contains(' '))
    });
    let note = std::fs::read_to_string(&noted).unwrap();
    assert!(note.ends_with(" read"), "{note}");
    // Taken out before the popup started, not left for a pane to inherit.
    let kept = server.tmux_run(&["show-environment", "-t", "main", "TAW_POPUP_LISTING"]);
    assert_ne!(kept.status, 0, "{}", kept.stdout);
    popup.keys(&["q"]);
}

/// A session's row shows its folder's branch, `*` when it has changes:
/// read once the list is drawn, as git takes its time.
#[test]
fn a_sessions_row_shows_its_folders_branch() {
    let server = TmuxServer::start();
    let folder = crate::common::repos::repo(&server, "shop");
    crate::common::repos::git(&folder, &["switch", "-q", "-c", "trunk-line"]);
    std::fs::write(folder.join("README"), "changed\n").unwrap();
    let folder = folder.to_str().unwrap();
    server.tmux(&["new-session", "-d", "-s", "shop", "-c", folder]);
    agent(&server, "shop", "builder", "claude", "idle");
    with_popup(&server, "main", &[], |popup| {
        popup.wait_for("builder");
        popup.wait_for("trunk-line*");
        popup.keys(&["q"]);
    })
    .result();
}

/// The popup's key has tmux list the panes an agent list shows (its
/// first frame's rows): each agent, the active pane of a window holding
/// one, and that of each session's window in front; no other. Its
/// listing, expanded as the key expands it, and the filter of the read
/// without a listing, against `list-panes -f` of that rule written
/// plainly, over windows of each kind.
#[test]
fn the_keys_listing_holds_the_panes_an_agent_list_shows() {
    let server = TmuxServer::start();
    server.load_plugin();
    let split = |target: &str| {
        server
            .tmux(&["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target])
            .trim()
            .to_string()
    };
    // An agent the watcher records: a pane whose own process is `claude`.
    let claude = server.stand_in("agent-bin", "claude", "sleep 600\n");
    let agent_beside = |target: &str| {
        let pane = server
            .tmux(&[
                "split-window",
                "-d",
                "-P",
                "-F",
                "#{pane_id}",
                "-t",
                target,
                claude.to_str().unwrap(),
            ])
            .trim()
            .to_string();
        server.wait_for("the agent recorded", Duration::from_secs(10), || {
            server.display(&pane, "#{@agent_kind}") == "claude"
        });
        pane
    };
    // main: its window in front, two panes, no agent.
    split("main:0");
    // work: in front a window of shells; behind it one with an agent in
    // a pane not active, one with none, and one whose active pane is the
    // agent.
    server.tmux(&["new-session", "-d", "-s", "work"]);
    split("work:0");
    let holding = server.new_window("work", "holding", "sh");
    split(&holding);
    agent_beside(&holding);
    let quiet = server.new_window("work", "quiet", "sh");
    split(&quiet);
    let own = server.new_window("work", "own", "sh");
    let agent = agent_beside(&own);
    server.tmux(&["select-pane", "-t", &agent]);
    // The listing the key expands, printed instead of kept.
    let binding = server.tmux(&["list-keys", "-T", "prefix", "a"]);
    let set = "set-environment -F TAW_POPUP_LISTING ";
    let start = binding.find(set).expect("the key's listing") + set.len();
    let end = start
        + binding[start..]
            .find(" \\; ")
            .expect("the key's next command");
    let script = server.dir.path().join("listing.conf");
    std::fs::write(
        &script,
        format!("display-message -p {}\n", &binding[start..end]),
    )
    .unwrap();
    let listing = server.tmux(&["source-file", script.to_str().unwrap()]);
    let mut listed: Vec<String> = listing
        .split('\u{1e}')
        .filter_map(|row| {
            let fields: Vec<&str> = row.split('\u{1f}').collect();
            // P, its nonce, then session, window and pane ids between nonces.
            (fields.first() == Some(&"P")).then(|| fields[6].to_string())
        })
        .collect();
    listed.sort();
    let filtered = |filter: &str| {
        let mut panes: Vec<String> = server
            .tmux(&["list-panes", "-a", "-f", filter, "-F", "#{pane_id}"])
            .lines()
            .map(str::to_string)
            .collect();
        panes.sort();
        panes
    };
    let shown = filtered(
        "#{||:#{@agent_kind},#{&&:#{pane_active},#{||:#{window_active},#{P:#{@agent_kind}}}}}",
    );
    assert_eq!(listed, shown, "{listing:?}");
    // The popup's read without a listing (`taw ui open`) filters with
    // tmux's conditionals instead, the filter its unit test names
    // (snapshot.rs, the_listed_filter_reads_agents_and_the_active_panes_shown).
    let lazy = "#{?#{@agent_kind},1,#{?pane_active,#{?window_active,1,#{P:#{@agent_kind}}},}}";
    assert_eq!(filtered(lazy), shown);
    // An agent behind, the active pane beside it, the agent that is its
    // window's active pane, and each session's pane in front.
    assert_eq!(shown.len(), 5, "{shown:?}");
}
