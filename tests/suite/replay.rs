//! Every recorded screen of the real agents (tests/fixtures/screens, from
//! the agents lab) classified by the real binary with the bundled rules:
//! `taw agent explain --file ... --agent ... --title ... --json`.

use crate::common::{TmuxServer, repo_root};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The state a screen's name says: what a person sees the agent doing.
fn expected(name: &str) -> &'static str {
    let state = name.split('-').next().unwrap_or("");
    match state {
        "working" | "retrying" => "working",
        "blocked" | "question" | "plan" | "trust" | "apikey" => "blocked",
        // A stale screen quotes the agent's working words in its transcript.
        "idle" | "done" | "error" | "startup" | "menu" | "stale" => "idle",
        // A viewer keeps the state the pane had.
        "viewer" => "unknown",
        other => panic!("a screen named {other:?} has no expected state"),
    }
}

/// The kinds of screens a recording has, in the table's order.
const KINDS: [&str; 14] = [
    "startup", "idle", "working", "blocked", "question", "plan", "trust", "apikey", "done",
    "error", "retrying", "menu", "viewer", "stale",
];

/// One recording: an agent's release and its folder of screens. Today's
/// release (the lab's own) is the agent's folder itself, named by its
/// `VERSION` file; earlier ones, and the one of an agent the lab does not
/// have, are its subfolders (scripts/lab-versions).
fn recordings(agent: &str) -> Vec<(String, PathBuf)> {
    let folder = repo_root().join("tests/fixtures/screens").join(agent);
    let mut earlier: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().to_string(),
                entry.path(),
            )
        })
        .collect();
    earlier.sort_by_key(|(version, _)| {
        version
            .split('.')
            .map(|n| n.parse::<u32>().unwrap_or(0))
            .collect::<Vec<_>>()
    });
    // An agent the lab does not have keeps its one release in a subfolder.
    if let Ok(today) = std::fs::read_to_string(folder.join("VERSION")) {
        earlier.push((format!("{} (today's)", today.trim()), folder));
    }
    earlier
}

/// `taw agent explain --file SCREEN --agent AGENT [--title TITLE] --json`:
/// herdr's explain record, printed bare.
fn explain(server: &TmuxServer, screen: &Path, agent: &str, title: Option<&str>) -> Value {
    let mut args = vec![
        "agent",
        "explain",
        "--file",
        screen.to_str().unwrap(),
        "--agent",
        agent,
        "--json",
    ];
    if let Some(title) = title {
        args.extend(["--title", title]);
    }
    let run = server.taw_bare(&args, &[]);
    assert_eq!(run.status, 0, "{run:?}");
    serde_json::from_str(&run.stdout).unwrap()
}

/// Each screen's state and the rule that decided, as `taw agent explain`
/// reads it (three at a time: hundreds of runs of the binary).
fn read_all(
    server: &TmuxServer,
    screens: &[(&str, PathBuf)],
) -> HashMap<PathBuf, (String, String)> {
    let chunk = screens.len().div_ceil(3).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = screens
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(agent, screen)| {
                            let title =
                                std::fs::read_to_string(screen.with_extension("title")).unwrap();
                            let explain =
                                explain(server, screen, agent, Some(title.trim_end_matches('\n')));
                            let state = explain["state"].as_str().unwrap().to_string();
                            (
                                screen.clone(),
                                (state, explain["matched_rule"]["id"].to_string()),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    })
}

/// The block of docs/DETECTION.md between these lines is the table the
/// replay makes.
const TABLE_START: &str = "<!-- replay table: tests/suite/replay.rs writes it -->";
const TABLE_END: &str = "<!-- end of the replay table -->";

/// Every agent with recordings, in the table's order.
const AGENTS: [&str; 15] = [
    "claude",
    "codex",
    "opencode",
    "pi",
    "gemini",
    "qwen",
    "kilo",
    "muse",
    "omp",
    "minimax",
    "reasonix",
    "codebuddy",
    "commandcode",
    "goose",
    "bob",
];

/// A recording's screens, by name.
fn screens_of(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

/// The table's first two lines: its head and the line under it.
fn table_head() -> String {
    let mut head = String::from("| agent | release |");
    for kind in KINDS {
        head.push_str(&format!(" {kind} |"));
    }
    head.push_str("\n| --- | --- |");
    head.push_str(&" --- |".repeat(KINDS.len()));
    head
}

/// The replay table's rows of `agents`, one a release: how many of each
/// kind of screen read as their state, of how many. Panics naming every
/// screen read wrong.
fn rows_of(agents: &[&str]) -> Vec<String> {
    let server = TmuxServer::empty();
    let mut every = Vec::new();
    for agent in agents {
        for (_, folder) in recordings(agent) {
            every.extend(screens_of(&folder).into_iter().map(|file| (*agent, file)));
        }
    }
    let readings = read_all(&server, &every);
    let mut wrong = Vec::new();
    let mut rows = Vec::new();
    for agent in agents {
        for (version, folder) in recordings(agent) {
            // Per kind of screen: how many read right, of how many.
            let mut tally = [(0, 0); KINDS.len()];
            for screen in screens_of(&folder) {
                let name = screen.file_stem().unwrap().to_str().unwrap().to_string();
                let kind = name.split('-').next().unwrap_or("");
                let slot = KINDS
                    .iter()
                    .position(|k| *k == kind)
                    .unwrap_or_else(|| panic!("{}: no such kind of screen", screen.display()));
                let (state, rule) = &readings[&screen];
                tally[slot].1 += 1;
                if state == expected(&name) {
                    tally[slot].0 += 1;
                } else {
                    wrong.push(format!(
                        "{agent} {version} {name}: read as {state}, is {} (rule {rule})",
                        expected(&name),
                    ));
                }
            }
            let mut row = format!("| {agent} | {version} |");
            for (right, of) in tally {
                if of == 0 {
                    row.push_str(" |");
                } else {
                    row.push_str(&format!(" {right}/{of} |"));
                }
            }
            rows.push(row);
        }
    }
    assert!(
        wrong.is_empty(),
        "screens read wrong:\n{}",
        wrong.join("\n")
    );
    rows
}

/// docs/DETECTION.md, and where its replay table starts and ends in it.
fn docs_table() -> (PathBuf, String, usize, usize) {
    let path = repo_root().join("docs/DETECTION.md");
    let docs = std::fs::read_to_string(&path).unwrap();
    let start = docs
        .find(TABLE_START)
        .expect("the replay table's first line")
        + TABLE_START.len();
    let end = docs.find(TABLE_END).expect("the replay table's last line");
    (path, docs, start, end)
}

/// Every screen of `agents` reads as its state, and the docs' table rows
/// of those agents are the replay's (with TAW_UPDATE_DOCS=1, the whole
/// table is written by [`the_docs_replay_table_is_the_replays`]).
fn replay(agents: &[&str]) {
    let rows = rows_of(agents);
    if std::env::var("TAW_UPDATE_DOCS").as_deref() == Ok("1") {
        return;
    }
    let (_, docs, start, end) = docs_table();
    let written: Vec<&str> = docs[start..end]
        .lines()
        .filter(|line| {
            agents
                .iter()
                .any(|agent| line.starts_with(&format!("| {agent} |")))
        })
        .collect();
    assert_eq!(
        written,
        rows,
        "docs/DETECTION.md's replay table is not the replay's (TAW_UPDATE_DOCS=1 writes it):\n{}",
        rows.join("\n")
    );
}

// One test per agent (the three with one release each together): each
// reads its screens with a few hundred runs of the binary, side by side.

#[test]
fn every_recorded_screen_of_every_claude_release_reads_as_its_state() {
    replay(&["claude"]);
}

#[test]
fn every_recorded_screen_of_every_codex_release_reads_as_its_state() {
    replay(&["codex"]);
}

#[test]
fn every_recorded_screen_of_every_opencode_release_reads_as_its_state() {
    replay(&["opencode"]);
}

#[test]
fn every_recorded_screen_of_every_gemini_release_reads_as_its_state() {
    replay(&["gemini"]);
}

#[test]
fn every_recorded_screen_of_pi_qwen_kilo_and_reasonix_reads_as_its_state() {
    replay(&["pi", "qwen", "kilo", "reasonix"]);
}

/// The agents the lab cannot run (no package that runs against its mock
/// model, or none on npm at all): screens written after what each one
/// draws (tests/fixtures/screens/README.md).
#[test]
fn every_written_screen_of_the_agents_the_lab_cannot_run_reads_as_its_state() {
    replay(&[
        "muse",
        "omp",
        "minimax",
        "codebuddy",
        "commandcode",
        "goose",
        "bob",
    ]);
}

/// The docs' replay table has the head, and a row for each release of
/// each agent in order and no other (the rows' cells are checked by the
/// tests above); there are screens enough. With TAW_UPDATE_DOCS=1 it
/// reads every screen and writes the whole table.
#[test]
fn the_docs_replay_table_is_the_replays() {
    let screens: usize = AGENTS
        .iter()
        .flat_map(|agent| recordings(agent))
        .map(|(_, folder)| screens_of(&folder).len())
        .sum();
    assert!(screens >= 70, "only {screens} screens found");
    let (path, docs, start, end) = docs_table();
    if std::env::var("TAW_UPDATE_DOCS").as_deref() == Ok("1") {
        let table = format!("{}\n{}", table_head(), rows_of(&AGENTS).join("\n"));
        if docs[start..end].trim() != table {
            let updated = format!("{}\n{}\n{}", &docs[..start], table, &docs[end..]);
            std::fs::write(&path, updated).unwrap();
        }
        return;
    }
    let written: Vec<&str> = docs[start..end].trim().lines().collect();
    let head = table_head();
    let head: Vec<&str> = head.lines().collect();
    assert_eq!(written[..2], head[..], "the replay table's head");
    let releases: Vec<String> = AGENTS
        .iter()
        .flat_map(|agent| {
            recordings(agent)
                .into_iter()
                .map(move |(version, _)| format!("| {agent} | {version} |"))
        })
        .collect();
    assert_eq!(
        written.len() - 2,
        releases.len(),
        "the replay table's rows: {written:#?}"
    );
    for (row, release) in written[2..].iter().zip(&releases) {
        assert!(
            row.starts_with(release.as_str()),
            "the replay table's row {row:?} is not {release:?}'s"
        );
    }
}

#[test]
fn supplements_off_leaves_herdrs_rules_alone() {
    let server = TmuxServer::empty();
    server.write_config("[detection]\nsupplements = false\n");
    let screen = repo_root().join("tests/fixtures/screens/claude/working-1.txt");
    let explained = explain(&server, &screen, "claude", None);
    assert_eq!(explained["supplement_rules"], 0);
    // Without taw's footer rule, Claude's fixed title hides the work.
    assert_eq!(explained["state"], "idle");
    let explain = explain(&TmuxServer::empty(), &screen, "claude", None);
    assert_eq!(explain["state"], "working");
    assert_eq!(explain["matched_rule"]["source"], "taw");
}

#[test]
fn explain_reads_standard_input_and_refuses_unknown_agents() {
    let server = TmuxServer::empty();
    let run = server.taw_bare(
        &[
            "agent",
            "explain",
            "--file",
            "/nonexistent",
            "--agent",
            "claude",
        ],
        &[],
    );
    assert_eq!(run.error_code(), "not_found");
    let screen = repo_root().join("tests/fixtures/screens/codex/idle-1.txt");
    let run = server.taw_bare(
        &[
            "agent",
            "explain",
            "--file",
            screen.to_str().unwrap(),
            "--agent",
            "nobody",
        ],
        &[],
    );
    assert_eq!(run.error_code(), "not_found");
    let plain = server.taw_bare(
        &[
            "agent",
            "explain",
            "--file",
            screen.to_str().unwrap(),
            "--agent",
            "codex",
            "--title",
            "⠧ Agents lab | work",
        ],
        &[],
    );
    assert_eq!(plain.status, 0);
    assert!(plain.stdout.contains("state: working"), "{}", plain.stdout);
    assert!(
        plain.stdout.contains("decided by: title_spinner"),
        "{}",
        plain.stdout
    );
}

/// What no recording shows, but other releases draw: a recorded screen
/// with its status line put in another release's words. Each is read by a
/// structural rule, not by its exact text.
#[test]
fn structural_rules_read_other_releases_status_lines() {
    let server = TmuxServer::empty();
    let root = repo_root().join("tests/fixtures/screens");
    let codex = std::fs::read_to_string(root.join("codex/working-1.txt")).unwrap();
    let claude = std::fs::read_to_string(root.join("claude/idle-2.txt")).unwrap();
    let codex_status = "◦ Working (1s • esc to interrupt)";
    let claude_done = "✻ Cooked for 8s · done 1:31 PM";
    let cases = [
        ("codex", codex.replace(codex_status, "• Reviewing approval request (3s • esc to interrupt)"), "working"),
        ("codex", codex.replace(codex_status, "• Booting MCP server: github (0s • esc to interrupt)"), "working"),
        ("codex", codex.replace(codex_status, "• Working (12s • esc to interr…"), "working"),
        ("codex", codex.replace(codex_status, "• Working (1m 02s • esc to interrupt) · 1 background terminal running · /ps to view"), "working"),
        ("codex", codex.replace(codex_status, "• Ran ls"), "idle"),
        ("claude", claude.replace(claude_done, "✽ Tempering…"), "working"),
        ("claude", claude.replace(claude_done, "· Channelling… (esc to interrupt · ctrl+t to show todos)"), "working"),
        ("claude", claude.replace(claude_done, "* Thinking… (12s · ↓ 340 tokens · esc to interrupt)\n  ⎿  Tip: Use /memory to edit"), "working"),
        ("claude", claude.clone(), "idle"),
        ("claude", claude.replace(claude_done, "⏺ I looked at the notes, and then…"), "idle"),
    ];
    let file = server.dir.path().join("screen.txt");
    for (agent, screen, state) in cases {
        std::fs::write(&file, &screen).unwrap();
        let title = if agent == "claude" {
            "✳ Claude Code"
        } else {
            ""
        };
        let explain = explain(&server, &file, agent, Some(title));
        assert_eq!(
            explain["state"], state,
            "{agent}:\n{screen}\n{}",
            explain["matched_rule"]
        );
    }
}

/// A recorded screen of `agent` at `release` (`""`: today's), with each
/// `(from, to)` put in: a layout the lab's mock does not bring about,
/// drawn on a real release's screen.
fn drawn(agent: &str, release: &str, screen: &str, changes: &[(&str, &str)]) -> String {
    let path = repo_root()
        .join("tests/fixtures/screens")
        .join(agent)
        .join(release)
        .join(screen);
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in changes {
        assert!(text.contains(from), "{from:?} is not on {}", path.display());
        text = text.replacen(from, to, 1);
    }
    text
}

/// Reads each `(agent, title, screen, state)` and says every one that read
/// otherwise.
fn read_as(cases: &[(&str, &str, String, &str)]) {
    let server = TmuxServer::empty();
    let file = server.dir.path().join("screen.txt");
    let mut wrong = Vec::new();
    for (agent, title, screen, state) in cases {
        std::fs::write(&file, screen).unwrap();
        let explain = explain(&server, &file, agent, Some(title));
        if explain["state"] != *state {
            wrong.push(format!(
                "{agent} read {} (rule {}), not {state}:\n{screen}",
                explain["state"], explain["matched_rule"]["id"]
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// Claude Code's layouts of other releases and rarer moments (issue 29),
/// each drawn on the screens of two releases: work sent to the
/// background, the spinner with its detail or a task's name, the older
/// interrupt hint; and what must stay idle: the footer's count of a
/// shell left running, an earlier turn's summary.
#[test]
fn claude_layouts_of_other_releases_read_as_their_state() {
    let releases = [
        ("2.1.123", "✻ Cogitated for 8s", "  ? for shortcuts"),
        (
            "",
            "✻ Cooked for 8s · done 1:31 PM",
            "  ⏸ manual mode on · ? for shortcuts",
        ),
    ];
    let title = "✳ Claude Code";
    let mut cases = Vec::new();
    for (release, summary, footer) in releases {
        let line = |text: &str| drawn("claude", release, "idle-2.txt", &[(summary, text)]);
        for working in [
            "✻ Waiting for 1 background agent to finish",
            "✻ Waiting for 2 background agents to finish",
            "✻ Cogitated for 6s · 1 shell still running",
            "✻ Brewed for 4m 9s · 3 local agents still running",
            "✻ Churned for 2m 4s · done 1:03 PM · 2 shells, 1 monitor still running",
            "● Thundering… (2m 53s · ↓ 10.8k tokens)",
            "✳ Simplifying recompute_tangents… (2m 18s · ↓ 4.8k tokens)",
            "✻ Compacting conversation… (8s)",
            "✻ Germinating… (esc to interrupt · 12m 7s · ↓ 0 tokens)",
            "✶ Pondering… (1m 41s · almost done thinking with medium effort)\n  ⎿  Tip: Run /install-github-app to tag @claude right from your Github issues\n     and PRs",
            "✻ Pouncing… (ctrl+c to interrupt)",
        ] {
            cases.push(("claude", title, line(working), "working"));
        }
        // The footer's own words: the older interrupt hint says work; a
        // server the user left running is counted at rest.
        let footer_says = |text: &str| drawn("claude", release, "idle-2.txt", &[(footer, text)]);
        for (text, state) in [
            ("  ⏵⏵ accept edits on · ctrl+c to interrupt", "working"),
            (
                "  ⏵⏵ auto mode on · 1 shell · ← for agents · ↓ to manage",
                "idle",
            ),
        ] {
            cases.push(("claude", title, footer_says(text), state));
        }
        // An earlier turn's summary, with a newer turn after it.
        cases.push((
            "claude",
            title,
            line("✻ Crunched for 7s · 1 shell still running\n\n❯ and now?\n\n● Nothing more to do.\n\n✻ Baked for 2s"),
            "idle",
        ));
        // The transcript viewer of releases before ctrl+o.
        let viewer = drawn("claude", release, "viewer-1.txt", &[]);
        let footer_line = viewer
            .lines()
            .find(|l| l.contains("Showing detailed transcript"))
            .unwrap()
            .to_string();
        cases.push((
            "claude",
            title,
            viewer.replacen(
                &footer_line,
                "  Showing detailed transcript · Ctrl+R to toggle",
                1,
            ),
            "unknown",
        ));
        // A message that gives a time in brackets after an ellipsis.
        cases.push((
            "claude",
            title,
            line("⏺ It stopped there… (12s in, the tests had passed)"),
            "idle",
        ));
        // A question whose footer a narrow pane wraps, or a release words
        // with `Esc to cancel` alone: its numbered choice tells it.
        let hints = "Enter to select · ↑/↓ to navigate · Esc to cancel";
        for footer in [
            "Enter to select · ↑/↓ to\nnavigate · Esc to cancel",
            "Enter to select ·\n↑/↓ to navigate ·\nEsc to cancel",
            "Esc to cancel",
        ] {
            let question = drawn("claude", release, "question-1.txt", &[(hints, footer)]);
            cases.push(("claude", title, question, "blocked"));
        }
    }
    read_as(&cases);
}

/// Codex's status line without its hint, and a background terminal left
/// running, on two releases' screens; a message giving a time in
/// brackets is not a status.
#[test]
fn codex_layouts_of_other_releases_read_as_their_state() {
    let releases = [
        ("0.77.0", "◦ Working (2s • esc to interrupt)"),
        ("0.151.0", "◦ Working (1s • esc to interrupt)"),
        ("", "◦ Working (1s • esc to interrupt)"),
    ];
    let mut cases = Vec::new();
    for (release, status) in releases {
        let line = |text: &str| drawn("codex", release, "working-1.txt", &[(status, text)]);
        for (text, state) in [
            ("◦ Working (1m 16s)", "working"),
            ("• Working (5s)", "working"),
            (
                "• Analyzing (1h 06m 33s) · 1 background terminal running",
                "working",
            ),
            ("  1 background terminal running · /ps to view", "working"),
            (
                "  1 background terminal running · /ps to view · /stop to close",
                "working",
            ),
            (
                "• Waiting for background terminal (41s • esc to interrupt) · 1 background terminal running · /ps to view",
                "working",
            ),
            ("• Working (15m 42s • esc to interru…", "working"),
            (
                "• Waiting for background terminal (0s • esc to …",
                "working",
            ),
            ("• Booting MCP server: codex_apps (0s • e…", "working"),
            // Messages queued for the next turn sit between the status and
            // the prompt (recorded on today's release, working-3).
            (
                "◦ Working (5s • esc to interrupt)\n\n• Queued follow-up inputs\n  ↳ then say hello\n    shift+← edit last queued message",
                "working",
            ),
            ("• I sped the build up (3s faster than before)", "idle"),
        ] {
            // No title: tmux shows none of Codex's when the terminal's
            // title is not passed on, and the screen alone must tell.
            cases.push(("codex", "", line(text), state));
        }
    }
    read_as(&cases);
}

/// OpenCode's footer at rest says idle whatever the transcript above it
/// holds; its working footer still says working. Three releases.
#[test]
fn opencode_footer_at_rest_outweighs_the_transcript() {
    let mut cases = Vec::new();
    for release in ["1.3.2", "1.15.4", ""] {
        let idle = drawn("opencode", release, "idle-1.txt", &[]);
        let top = idle.lines().find(|l| !l.trim().is_empty()).unwrap();
        let stale = idle.replacen(top, &format!("{top}  press esc to interrupt ■■■■■■"), 1);
        cases.push(("opencode", "", stale, "idle"));
        cases.push(("opencode", "", idle.clone(), "idle"));
        let working = drawn("opencode", release, "working-1.txt", &[]);
        cases.push(("opencode", "", working, "working"));
    }
    read_as(&cases);
}

/// Screens of Cursor Agent and Grok drawn by hand after real captures
/// others published (the lab has neither agent): the spinners of two
/// releases each are work, whatever else the footer shows or hides; a
/// running command whose output says "yes" is no question.
#[test]
fn cursor_and_grok_spinners_read_as_work() {
    let rule = "▄".repeat(60);
    let low = "▀".repeat(60);
    let cursor_2026_06 = |status: &str, output: &str, hint: &str| {
        format!(
            "  $ ./run-checks.sh 0ms\n{output}\n\n {status}\n {rule}\n  → Add a follow-up{hint}\n {low}\n  1 task\n  Composer 2.5 Fast\n"
        )
    };
    let cursor_2026_04 = |status: &str| {
        format!(
            "  Cursor Agent\n  v2026.04.17-479fd04\n\n  Read notes.md\n\n  {status}\n\n  → Add a follow-up\n  Composer 2 Fast · 3.9%\n"
        )
    };
    let grok = |status: &str, body: &str, footer: &str| {
        format!(
            "  ◆ Ran read the notes\n{body}\n    {status}\n  ╭{w}╮\n  │ ❯{s}│\n  ╰{w2} Grok 4.6 (high) · always-approve ─╯\n  {footer}\n",
            w = "─".repeat(50),
            s = " ".repeat(49),
            w2 = "─".repeat(20),
        )
    };
    // Cursor shows no title here: the screen alone must tell.
    let cursor = |screen: String, state| ("cursor", "", screen, state);
    let busy = "Shift+Tab:mode  │  Esc:cancel  │  Ctrl+b:send to bg  │  Ctrl+x:shortcuts";
    let resting = "Shift+Tab:mode  │  Ctrl+x:shortcuts";
    let cases = vec![
        // Cursor 2026.06: the two-cell spinner, with the stop hint and
        // without it (a narrow pane cuts it).
        cursor(
            cursor_2026_06("⠀⠞ Running  22 tokens", "", "              ctrl+c to stop"),
            "working",
        ),
        cursor(cursor_2026_06("⠀⠞ Running  22 tokens", "", ""), "working"),
        cursor(
            cursor_2026_06("⠠⠜ Generating  5.52k tokens", "    yes\n    yes", ""),
            "working",
        ),
        cursor(cursor_2026_06("", "    yes\n    done", ""), "idle"),
        // Cursor 2026.04: the hexagon spinner of a tool.
        ("cursor", "", cursor_2026_04("⬢ Reading…"), "working"),
        ("cursor", "", cursor_2026_04("⬡ Grepping.."), "working"),
        (
            "cursor",
            "",
            cursor_2026_04("⬢ Read 3 files, 1 search 1s"),
            "idle",
        ),
        // Grok Build 1.0.13: the spinner with its stop button, and the
        // busy footer; a command's "yes" in the gutter is still work.
        (
            "grok",
            "",
            grok(
                "⠸ Foreground sleep for 60 seconds… 13s                27s ⇣34.7k [↓][stop]",
                "",
                busy,
            ),
            "working",
        ),
        (
            "grok",
            "",
            grok(
                "⠸ Running yes | head… 2s                3s ⇣1.2k [↓][stop]",
                "  ┃  ◆ Run yes | head -2\n  ┃  y\n  ┃  yes, proceeding",
                busy,
            ),
            "working",
        ),
        // Grok before 0.2: a tool spinner with its time and no button.
        (
            "grok",
            "",
            grok(
                "⠼ Run git -C /home/u/p log --oneline 1.0s",
                "",
                "Ctrl+c:cancel  │  Ctrl+Enter:interject",
            ),
            "working",
        ),
        // Grok 1.0.34 titles the pane with its project and prompt at rest
        // too: the resting footer says idle.
        (
            "grok",
            "notes · fix the tests · 7f3a21",
            grok("Worked for 12s", "", resting),
            "idle",
        ),
        // What a turn left running.
        (
            "grok",
            "notes · fix the tests · 7f3a21",
            grok(
                "◎ 1 command still running · send a message to interrupt",
                "",
                resting,
            ),
            "working",
        ),
        (
            "grok",
            "",
            grok(
                "○ 1 subagent still running · send a message to interrupt",
                "",
                resting,
            ),
            "working",
        ),
    ];
    let cases: Vec<(&str, &str, String, &str)> = cases;
    read_as(&cases);
}
