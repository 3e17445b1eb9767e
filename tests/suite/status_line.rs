//! The status line: a mark per window and a summary, read from the agent
//! options by tmux itself, as a client draws them.

use crate::common::{TmuxServer, attach_client, taw_bin};
use std::time::Duration;

fn loaded() -> TmuxServer {
    let server = TmuxServer::start();
    server.tmux(&["new-window", "-d", "-t", "main:", "-n", "second"]);
    server.tmux(&["split-window", "-d", "-t", "main:second"]);
    server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result();
    server
}

fn set_state(server: &TmuxServer, pane: &str, state: &str) {
    server.tmux(&["set-option", "-p", "-t", pane, "@agent_state", state]);
}

/// The summary counts each pane once, though its window shows in a
/// grouped session and is linked into another.
#[test]
fn the_summary_counts_each_pane_once() {
    let server = loaded();
    server.tmux(&["new-session", "-d", "-s", "mirror", "-t", "main"]);
    server.tmux(&["new-session", "-d", "-s", "other"]);
    let other = server.display("other:", "#{pane_id}");
    server.tmux(&["link-window", "-s", "other:0", "-t", "main:7"]);
    // Not a pane a watcher follows: a state set by hand stays.
    let states = [("%0", "blocked"), (other.as_str(), "blocked")];
    server.wait_for("the watchers", Duration::from_secs(5), || {
        server
            .tmux(&["list-panes", "-a", "-F", "#{@agent_wizard_watcher}"])
            .lines()
            .all(|line| !line.is_empty())
    });
    for (pane, state) in states {
        set_state(&server, pane, state);
    }
    let summary = server.display("main:", "#{E:@agent-wizard-summary}");
    assert!(summary.contains("▲2"), "{summary}");
    // A session whose name holds a comma shares its windows too: its
    // panes count, once.
    server.tmux(&["new-session", "-d", "-s", "a,b"]);
    server.tmux(&["new-session", "-d", "-s", "view", "-t", "a,b"]);
    let comma = server.display("=a,b:", "#{pane_id}");
    server.wait_for("its watcher", Duration::from_secs(5), || {
        !server
            .display(&comma, "#{@agent_wizard_watcher}")
            .is_empty()
    });
    set_state(&server, &comma, "blocked");
    let summary = server.display("main:", "#{E:@agent-wizard-summary}");
    assert!(summary.contains("▲3"), "{summary}");
}

/// The summary's counts are numbers past nine, only of the states taw
/// writes, spelled exactly; a state no pane is in shows nothing.
#[test]
fn the_summary_counts_past_nine_and_only_exact_states() {
    let server = loaded();
    for _ in 0..10 {
        server.tmux(&["split-window", "-d", "-t", "main:second"]);
        server.tmux(&["select-layout", "-t", "main:second", "tiled"]);
    }
    server.wait_for("the watchers", Duration::from_secs(10), || {
        server
            .tmux(&["list-panes", "-a", "-F", "#{@agent_wizard_watcher}"])
            .lines()
            .all(|line| !line.is_empty())
    });
    let panes = server.tmux(&["list-panes", "-a", "-F", "#{pane_id}"]);
    let panes: Vec<&str> = panes.lines().collect();
    assert_eq!(panes.len(), 13);
    for pane in &panes[..11] {
        set_state(&server, pane, "working");
    }
    // Near misses: a `!` (what the count marks with) and a longer word.
    set_state(&server, panes[11], "work!ing");
    set_state(&server, panes[12], "workingdone");
    let summary = server.display("main:", "#{E:@agent-wizard-summary}");
    assert_eq!(
        summary,
        "#[fg=yellow]#[bg=black]●11#[fg=default]#[bg=default] "
    );
}

/// A reload puts today's default in place of an earlier release's that
/// taw filled in and nobody changed; the same text a person set stays.
/// (The window mark before 2026-12-07 was today's without its first
/// question.)
#[test]
fn a_reload_replaces_an_earlier_default_of_taws_not_a_persons() {
    let server = loaded();
    let load = || {
        server
            .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
            .result()
    };
    let mark = || server.tmux(&["show-option", "-gv", "@agent-wizard-window-mark"]);
    let today = mark().trim_end_matches('\n').to_string();
    let gate = "#{?#{P:#{@agent_state}},";
    let earlier = today
        .strip_prefix(gate)
        .and_then(|rest| rest.strip_suffix(",}"))
        .expect("today's mark asks first")
        .to_string();
    server.tmux(&["set-option", "-g", "@agent-wizard-window-mark", &earlier]);
    load();
    assert_eq!(mark().trim_end_matches('\n'), today);
    // Not recorded as taw's: a person's.
    let recorded = server.tmux(&["show-option", "-gv", "@agent_wizard_defaults_set"]);
    let without: Vec<&str> = recorded
        .lines()
        .filter(|name| *name != "@agent-wizard-window-mark")
        .collect();
    server.tmux(&["set-option", "-g", "@agent-wizard-window-mark", &earlier]);
    server.tmux(&[
        "set-option",
        "-g",
        "@agent_wizard_defaults_set",
        &without.join("\n"),
    ]);
    load();
    assert_eq!(mark().trim_end_matches('\n'), earlier);
}

#[test]
fn marks_and_summary_are_drawn() {
    let server = loaded();
    // A window that will have no flags (neither current nor last).
    server.tmux(&["new-window", "-d", "-t", "main:", "-n", "third"]);
    // The watchers have made their first look: mark the panes as they would.
    server.wait_for("the watchers", Duration::from_secs(5), || {
        server
            .tmux(&["list-panes", "-a", "-F", "#{@agent_wizard_watcher}"])
            .lines()
            .all(|line| !line.is_empty())
    });
    set_state(&server, "%0", "working");
    set_state(&server, "%1", "blocked");
    set_state(&server, "%2", "done");
    let third = server.display("main:third", "#{pane_id}");
    set_state(&server, &third, "idle");
    let mark = |window: &str| server.display(window, "#{E:@agent-wizard-window-mark}");
    let badge = |colour: &str, text: &str| {
        format!("#[fg={colour}]#[bg=black]{text}#[fg=default]#[bg=default]")
    };
    assert_eq!(mark("main:0"), badge("yellow", "●"));
    // Window 1 has a blocked and a done pane: blocked is the more urgent.
    assert_eq!(mark("main:1"), badge("red", "▲"));
    let summary = server.display("main:", "#{E:@agent-wizard-summary}");
    assert_eq!(
        summary,
        format!(
            "{} {} {} ",
            badge("red", "▲1"),
            badge("yellow", "●1"),
            badge("green", "✓1")
        )
    );

    // As a client draws it: the status line at the bottom of its terminal.
    let outer = attach_client(&server, "main");
    server.wait_for("the status line", Duration::from_secs(5), || {
        let screen = outer.tmux(&["capture-pane", "-p", "-t", "viewer"]);
        let status = screen.lines().last().unwrap_or("").to_string();
        status.contains("0:")
            && status.contains('●')
            && status.contains('▲')
            && status.contains("▲1")
            && status.contains('○')
    });
    // One space before each mark, flags or none (tmux's own format ends
    // in a space for a window with no flags).
    let screen = outer.tmux(&["capture-pane", "-p", "-t", "viewer"]);
    let status = screen.lines().last().unwrap_or("").to_string();
    assert!(status.contains("2:third ○"), "{status:?}");
    assert!(
        !status.contains("  ○") && !status.contains("  ●"),
        "{status:?}"
    );
    // Each mark as the terminal gets it, on tmux's default status bar
    // (black on green): its colour is never the colour it sits on.
    let drawn = outer.tmux(&["capture-pane", "-p", "-e", "-t", "viewer"]);
    let status = drawn.lines().last().unwrap_or("").to_string();
    let marks = colours_of(&status, &['▲', '●', '✓']);
    assert!(marks.len() >= 5, "{marks:?} in {status:?}");
    assert!(
        colours_of(&status, &['○'])
            .iter()
            .all(|(_, fg, bg)| fg != bg),
        "{status:?}"
    );
    for (mark, fg, bg) in marks {
        assert_ne!(fg, bg, "{mark} drawn in the colour it sits on: {status:?}");
    }
}

/// Each of `marks` in a line of a terminal's output, with the foreground
/// and background colour it is drawn in (`None`: the terminal's default;
/// `Some(n)`: colour n of the 256, the 16 named ones as 0-15).
fn colours_of(line: &str, marks: &[char]) -> Vec<(char, Option<u8>, Option<u8>)> {
    let (mut fg, mut bg) = (None, None);
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("\u{1b}[") {
            let end = after.find('m').unwrap_or(after.len());
            let codes: Vec<u16> = after[..end]
                .split(';')
                .map(|code| code.parse().unwrap_or(0))
                .collect();
            let mut i = 0;
            while i < codes.len() {
                match codes[i] {
                    0 => (fg, bg) = (None, None),
                    n @ 30..=37 => fg = Some((n - 30) as u8),
                    n @ 90..=97 => fg = Some((n - 90 + 8) as u8),
                    39 => fg = None,
                    n @ 40..=47 => bg = Some((n - 40) as u8),
                    n @ 100..=107 => bg = Some((n - 100 + 8) as u8),
                    49 => bg = None,
                    38 | 48 if codes.get(i + 1) == Some(&5) => {
                        let colour = codes.get(i + 2).map(|n| *n as u8);
                        match codes[i] {
                            38 => fg = colour,
                            _ => bg = colour,
                        }
                        i += 2;
                    }
                    _ => {}
                }
                i += 1;
            }
            rest = &after[(end + 1).min(after.len())..];
            continue;
        }
        if marks.contains(&c) {
            found.push((c, fg, bg));
        }
        rest = &rest[c.len_utf8()..];
    }
    found
}

#[test]
fn no_agents_draw_nothing_and_options_switch_it_off() {
    let server = loaded();
    assert_eq!(
        server.display("main:0", "#{E:@agent-wizard-window-mark}"),
        ""
    );
    // A window with no agent is drawn as it was without taw: no space.
    for format in ["window-status-format", "window-status-current-format"] {
        let value = server.tmux(&["show-options", "-gv", format]);
        let value = value.trim_end_matches('\n');
        // After tmux's own format, whose flags end in a space when there
        // are none, the mark's space comes only after flags.
        let token =
            "#{?#{E:@agent-wizard-window-mark},#{?window_flags, ,}#{E:@agent-wizard-window-mark},}";
        assert!(value.contains(token), "{format}: {value}");
        let without = value.replace(token, "");
        assert_eq!(
            server.display("main:0", value),
            server.display("main:0", &without),
            "{format}"
        );
    }
    assert_eq!(server.display("main:", "#{E:@agent-wizard-summary}"), "");
    let format = server.tmux(&["show-option", "-gv", "window-status-format"]);
    assert!(
        format.contains("#{E:@agent-wizard-window-mark}"),
        "{format}"
    );
    server.tmux(&["set-option", "-g", "@agent-wizard-window-status", "off"]);
    server.tmux(&["set-option", "-g", "@agent-wizard-status-summary", "off"]);
    server
        .taw(&["tmux", "load", "--bin", &taw_bin().display().to_string()])
        .result();
    let format = server.tmux(&["show-option", "-gv", "window-status-format"]);
    assert!(!format.contains("agent-wizard"), "{format}");
    let right = server.tmux(&["show-option", "-gv", "status-right"]);
    assert!(!right.contains("agent-wizard"), "{right}");
}

#[test]
fn unload_gives_the_formats_back_as_they_were() {
    let server = TmuxServer::start();
    server.tmux(&["set-option", "-g", "status-right", "mine #{host}"]);
    let before: Vec<String> = [
        "window-status-format",
        "window-status-current-format",
        "status-right",
    ]
    .iter()
    .map(|name| server.tmux(&["show-option", "-gv", name]))
    .collect();
    let bin = taw_bin().display().to_string();
    server.taw(&["tmux", "load", "--bin", &bin]).result();
    server.taw(&["tmux", "load", "--bin", &bin]).result();
    let right = server.tmux(&["show-option", "-gv", "status-right"]);
    assert_eq!(right.matches("agent-wizard-summary").count(), 1, "{right}");
    server.taw(&["tmux", "unload"]).result();
    let after: Vec<String> = [
        "window-status-format",
        "window-status-current-format",
        "status-right",
    ]
    .iter()
    .map(|name| server.tmux(&["show-option", "-gv", name]))
    .collect();
    assert_eq!(before, after);
}
