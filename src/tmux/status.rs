//! tmux formats for the status line that read agent options only, so a
//! redraw starts no process: a mark per window (its most urgent agent) and
//! a summary (how many agents need you, work, are done).
//!
//! The formats live in the options `@agent-wizard-window-mark` and
//! `@agent-wizard-summary`; a tmux format reaches them with `#{E:...}`.
//! With `@agent-wizard-window-status` and `@agent-wizard-status-summary` on
//! (the default), the load adds that reference to the window list and to
//! `status-right`, and the unload takes exactly it back out.

use super::options::pane::AGENT_STATE;
use super::options::{BUILT_FORMAT, PluginOption, SUMMARY, WINDOW_MARK};

/// The value taw sets for a plugin option when the user set none ("" for
/// none): its default, or the format built here.
pub(crate) fn default_of(option: &PluginOption) -> String {
    match (option.name, option.default) {
        (WINDOW_MARK, BUILT_FORMAT) => window_mark_format(),
        (SUMMARY, BUILT_FORMAT) => summary_format(),
        (_, default) => default.to_string(),
    }
}

/// Each mark sits on a background of its own, so it stands out on any status
/// bar: tmux's default one is green, and a green ✓ on it cannot be seen.
const MARK_BG: &str = "black";

/// A mark (and what follows it, a count) in its colour on [`MARK_BG`],
/// then the area's own colours again. Separate style blocks: a comma would
/// split the conditional around it.
fn badge(colour: &str, text: &str) -> String {
    format!("#[fg={colour}]#[bg={MARK_BG}]{text}#[fg=default]#[bg=default]")
}

/// The states, most urgent first, with the mark each shows.
const MARKS: &[(&str, &str, &str)] = &[
    ("blocked", "red", "▲"),
    ("done", "green", "✓"),
    ("working", "yellow", "●"),
    ("idle", "colour245", "○"),
];

/// `#{P:...}` loops over the panes of the window being drawn.
fn window_states() -> String {
    format!("#{{P:#{{{AGENT_STATE}}} }}")
}

/// The window mark: the most urgent state among the window's panes. A
/// window whose panes hold no state at all (most windows) is asked once,
/// not once a state: tmux expands the mark twice a window at every
/// redraw of the window list.
pub(crate) fn window_mark_format() -> String {
    format!("#{{?#{{P:#{{{AGENT_STATE}}}}},{},}}", most_urgent_mark())
}

/// The chain of the window's states, most urgent first: the window mark
/// as taw built it until 2026-12-07.
fn most_urgent_mark() -> String {
    let states = window_states();
    let mut format = String::new();
    for (state, colour, mark) in MARKS {
        format.push_str(&format!(
            "#{{?#{{m:*{state}*,{states}}},{},",
            badge(colour, mark)
        ));
    }
    format.push_str(&"}".repeat(MARKS.len()));
    format
}

/// Every pane's state between dots (`.working.`, `..` for a pane with
/// none), each pane once: a window in several sessions (a grouped session,
/// a linked window) only in the first of them
/// (`window_linked_sessions_list`'s first name, up to its first comma). That list is built only
/// where a window can be shared, as tmux builds it anew each time.
fn every_pane_state() -> String {
    let state = format!("#{{P:.#{{{AGENT_STATE}}}.}}");
    // The list is names joined by commas: a name with a comma is cut the
    // same way on both sides, or its window's panes would count nowhere.
    let first = "#{==:#{s/,.*//:session_name},#{s/,.*//:window_linked_sessions_list}}";
    let once = format!("#{{?{first},{state},}}");
    format!("#{{S:#{{?session_grouped,#{{W:{once}}},#{{W:#{{?window_linked,{once},{state}}}}}}}}}")
}

/// How many panes of the server are in `state`: each `.state.` made a `!`,
/// the rest dropped, the length taken. One format per pane (each `#{}`
/// tmux expands costs it about a microsecond; a pane's comparison took
/// three), the counting done by substitutions over the whole string.
fn count(state: &str) -> String {
    let states = every_pane_state();
    // A `!` a state holds (none of taw's) made something else first.
    let marked = format!("#{{s/\\.{state}\\./!/:#{{s/!/?/:{states}}}}}");
    format!("#{{n:#{{s/[^!]//:{marked}}}}}")
}

/// The summary: needs you, working, done; nothing when no agent is in one.
/// tmux expands it at every status redraw (a title an agent changes, a
/// key table, any option set), so each count is expanded once: its
/// number put in its badge by a substitution, a 0 taken out by another
/// (a conditional on the count would loop over the server twice).
pub(crate) fn summary_format() -> String {
    let mut format = String::new();
    let mark = |state: &str| MARKS.iter().find(|m| m.0 == state).copied();
    for (state, colour, mark) in ["blocked", "working", "done"].into_iter().filter_map(mark) {
        let shown = badge(colour, &format!("{mark}\\1"));
        format.push_str(&format!(
            "#{{s/^0$//:#{{s/^([1-9][0-9]*)$/{shown} /:{}}}}}",
            count(state)
        ));
    }
    format
}

/// The summary as taw built it until 2026-12-07: each count a conditional
/// that looped over the server twice, three formats a pane. A load that
/// finds it in place as taw's default puts today's there
/// ([`former_defaults`]).
fn summary_counting_twice() -> String {
    let first = "#{==:#{session_name},#{s/,.*//:window_linked_sessions_list}}";
    let mut format = String::new();
    let mark = |state: &str| MARKS.iter().find(|m| m.0 == state).copied();
    for (state, colour, mark) in ["blocked", "working", "done"].into_iter().filter_map(mark) {
        let pane = format!("#{{?#{{==:#{{{AGENT_STATE}}},{state}}},x,}}");
        let n = format!("#{{n:#{{S:#{{W:#{{?{first},#{{P:{pane}}},}}}}}}}}");
        format.push_str(&format!(
            "#{{?{n},{} ,}}",
            badge(colour, &format!("{mark}{n}"))
        ));
    }
    format
}

/// What taw's default for `option` was before the present one: a value a
/// load finds recorded as taw's and equal to one of these is taw's still,
/// and gets today's (an upgrade's cheaper summary reaches a server that
/// stays up).
pub(crate) fn former_defaults(option: &PluginOption) -> Vec<String> {
    match (option.name, option.default) {
        (SUMMARY, BUILT_FORMAT) => vec![summary_counting_twice()],
        (WINDOW_MARK, BUILT_FORMAT) => vec![most_urgent_mark()],
        _ => Vec::new(),
    }
}

/// What the load puts into a format option. The window's mark has its
/// space before it only when there is a mark: a window with no agent
/// looks as it did without taw.
pub(crate) const WINDOW_TOKEN: &str =
    "#{?#{E:@agent-wizard-window-mark}, #{E:@agent-wizard-window-mark},}";
pub(crate) const SUMMARY_TOKEN: &str = "#{E:@agent-wizard-summary} ";

/// The window token after tmux's own window format, which ends in a space
/// for a window with no flags: the mark's space comes only after flags,
/// so no window shows two spaces before its mark.
pub(crate) const WINDOW_TOKEN_AFTER_FLAGS: &str =
    "#{?#{E:@agent-wizard-window-mark},#{?window_flags, ,}#{E:@agent-wizard-window-mark},}";

/// How tmux's own window formats end: the flags, or a space when none.
const TMUX_FLAGS_TAIL: &str = "#{?window_flags,#{window_flags}, }";

/// The window token for a format: the one after tmux's flags where the
/// format ends as tmux's own does, else [`WINDOW_TOKEN`].
pub(crate) fn window_token_for(value: &str) -> &'static str {
    match without_window_token(value).ends_with(TMUX_FLAGS_TAIL) {
        true => WINDOW_TOKEN_AFTER_FLAGS,
        false => WINDOW_TOKEN,
    }
}

/// `value` with whichever window token taw put there taken out (the
/// current ones first: the old one is a part of [`WINDOW_TOKEN`]).
pub(crate) fn without_window_token(value: &str) -> String {
    for token in [WINDOW_TOKEN_AFTER_FLAGS, WINDOW_TOKEN, OLD_WINDOW_TOKEN] {
        if value.contains(token) {
            return without_token(value, token);
        }
    }
    value.to_string()
}

/// The window token of earlier loads, whose space stayed with no mark: a
/// load takes it out of the formats taw recorded as its own.
pub(crate) const OLD_WINDOW_TOKEN: &str = " #{E:@agent-wizard-window-mark}";

/// The reference inside a token: a format that holds it already (one the
/// user wrote) gets no token of taw's.
pub(crate) fn reference(token: &str) -> &'static str {
    if token == SUMMARY_TOKEN {
        "#{E:@agent-wizard-summary}"
    } else {
        "#{E:@agent-wizard-window-mark}"
    }
}

/// The format options the window mark goes into.
pub(crate) const WINDOW_FORMATS: &[&str] =
    &["window-status-format", "window-status-current-format"];
pub(crate) const SUMMARY_FORMAT: &str = "status-right";

/// `value` with the token added (at the end for the window list, at the
/// start of status-right), unless it is there.
pub(crate) fn with_token(value: &str, token: &str, at_start: bool) -> String {
    if value.contains(reference(token)) {
        return value.to_string();
    }
    if at_start {
        format!("{token}{value}")
    } else {
        format!("{value}{token}")
    }
}

/// `value` with taw's token taken out, and nothing else changed. A
/// reference the user wrote themselves (without taw's space) stays.
pub(crate) fn without_token(value: &str, token: &str) -> String {
    value.replacen(token, "", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_balanced() {
        for format in [window_mark_format(), summary_format()] {
            let opens = format.matches("#{").count();
            let closes = format.matches('}').count();
            assert_eq!(opens, closes, "{format}");
            // A bare comma inside a style would split a conditional.
            assert!(!format.contains("#[fg=red,"), "{format}");
        }
    }

    #[test]
    fn a_window_whose_panes_hold_no_state_is_asked_once() {
        let mark = window_mark_format();
        assert!(mark.starts_with("#{?#{P:#{@agent_state}},"), "{mark}");
        assert!(mark.contains(&most_urgent_mark()), "{mark}");
        let option = crate::tmux::options::PLUGIN_OPTIONS
            .iter()
            .find(|o| o.name == WINDOW_MARK)
            .unwrap();
        assert_eq!(former_defaults(option), vec![most_urgent_mark()]);
    }

    #[test]
    fn the_summary_loops_over_the_server_once_a_count() {
        let summary = summary_format();
        // Three counts, each one loop over the sessions, no conditional
        // that would expand a count twice.
        assert_eq!(summary.matches("#{S:").count(), 3, "{summary}");
        assert!(!summary.contains("#{?#{n:"), "{summary}");
        // A pane is one format inside the loop: its state between dots.
        assert!(summary.contains("#{P:.#{@agent_state}.}"), "{summary}");
        assert!(summary.contains("#{s/\\.blocked\\./!/:"), "{summary}");
    }

    #[test]
    fn after_tmuxs_own_format_no_window_gets_two_spaces() {
        let tmuxs = "#I:#W#{?window_flags,#{window_flags}, }";
        assert_eq!(window_token_for(tmuxs), WINDOW_TOKEN_AFTER_FLAGS);
        assert_eq!(window_token_for("#I:#W#F"), WINDOW_TOKEN);
        let added = with_token(tmuxs, window_token_for(tmuxs), false);
        assert_eq!(window_token_for(&added), WINDOW_TOKEN_AFTER_FLAGS);
        assert_eq!(without_window_token(&added), tmuxs);
        for token in [WINDOW_TOKEN, OLD_WINDOW_TOKEN] {
            assert_eq!(without_window_token(&format!("{tmuxs}{token}")), tmuxs);
        }
    }

    #[test]
    fn tokens_go_in_once_and_come_out_exactly() {
        let value = "#I:#W#F";
        let added = with_token(value, WINDOW_TOKEN, false);
        assert_eq!(
            added,
            "#I:#W#F#{?#{E:@agent-wizard-window-mark}, #{E:@agent-wizard-window-mark},}"
        );
        assert_eq!(with_token(&added, WINDOW_TOKEN, false), added);
        assert_eq!(without_token(&added, WINDOW_TOKEN), value);
        let right = with_token("%H:%M", SUMMARY_TOKEN, true);
        assert_eq!(right, "#{E:@agent-wizard-summary} %H:%M");
        assert_eq!(without_token(&right, SUMMARY_TOKEN), "%H:%M");
        assert_eq!(without_token("mine", SUMMARY_TOKEN), "mine");
        // One the user placed is theirs: not added again, not taken out.
        let users = "#{E:@agent-wizard-summary}|%H";
        assert_eq!(with_token(users, SUMMARY_TOKEN, true), users);
        assert_eq!(without_token(users, SUMMARY_TOKEN), users);
    }
}
