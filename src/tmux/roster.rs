//! The tmux side of the pane roster (`hooks::roster`): one read of the
//! roster, its count of writes, the live panes and the exit marks; the
//! compare-and-set write; and the commands taw's hooks run inside tmux to
//! add a new pane and to mark an exit, at once, before any client's
//! command can look. And the tab roster: the windows known in each
//! session, so a move-window, which tmux tells as a link and an unlink of
//! the same window, is told as a move. And each window's layout as last
//! told, so one change that tmux fires twice is told once.

use super::Tmux;
use super::commands::{self as cmd, Cmd};
use super::options::bookkeeping::{
    EXITED, PANES, PANES_GENERATION, PANES_STARTED, PLACEHOLDERS, TABS,
};
use super::options::session::TAB_PLACES;
use super::options::window::LAYOUT_TOLD;
use crate::envelope::Result;

/// The most of the exit marks kept: the newest (some 500 marks, for a
/// burst of exits whose jobs have not run yet).
const MARKS_KEPT: usize = 4000;

/// What one read found.
#[derive(Debug, Clone, Default)]
pub(crate) struct Read {
    pub roster: String,
    pub generation: String,
    /// `%N:$S` lines, one per pane in each session it is in.
    pub live: String,
    pub marks: String,
    /// Whether the roster was started ([`PANES_STARTED`]).
    pub started: bool,
}

/// The roster and its count, then the live panes, then the marks, in one
/// tmux call: tmux runs a hook's own commands before any client's, so a
/// pane that this read finds gone had its mark set before the marks are
/// read.
pub(crate) fn read(tmux: &Tmux) -> Result<Read> {
    let sections = tmux.run_apart(vec![
        cmd::print_format(&format!("#{{{PANES}}}")),
        cmd::print_format(&format!("#{{{PANES_GENERATION}}}")),
        cmd::list_all_panes("#{pane_id}:#{session_id}"),
        cmd::print_format(&format!("#{{{EXITED}}}")),
        cmd::print_format(&format!("#{{{PANES_STARTED}}}")),
    ])?;
    let mut sections = sections.into_iter().map(|s| s.trim().to_string());
    Ok(Read {
        roster: sections.next().unwrap_or_default(),
        generation: sections.next().unwrap_or_default(),
        live: sections.next().unwrap_or_default(),
        marks: sections.next().unwrap_or_default(),
        started: sections.next().is_some_and(|s| !s.is_empty()),
    })
}

/// One change of the pane roster, made by tmux only while the roster
/// still holds the entry it is about: each change stands alone, so a new
/// pane's entry, added while a detection judged, never makes it read
/// again (a stream of panes made and killed kept every detection reading
/// again, most of its tmux calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edit {
    /// A pane closed: its entry off the roster, and the close claimed by
    /// this detection only (another that saw it finds the entry gone).
    Close { pane: u32 },
    /// A pane moved to another session: its entry names the new one.
    Move { pane: u32, from: u32, to: u32 },
    /// The job of a pane's own exit: its entry and its exit mark off.
    Forget { pane: u32 },
}

/// What tmux prints, with the pane's number, for a close this detection
/// claimed (no `%`: display-message reads it as a time field).
const CLAIMED: &str = "taw-roster-claimed";

/// The regular expression of pane `pane`'s roster word: `%P:$S` of
/// session `session`, or of any session. A tmux substitution's pattern
/// cannot hold `:` (it ends the modifier), so `.` stands for it; the
/// digits around it keep the match to that word.
fn entry_pattern(pane: u32, session: Option<u32>) -> String {
    let session = session.map_or_else(|| "[0-9]+".to_string(), |s| s.to_string());
    format!("(^| )%{pane}.[$]{session}( |$)")
}

/// `set-option -gF NAME` to its value without the words `pattern` finds.
fn without(option: &str, pattern: &str) -> Cmd {
    Cmd::new("set-option").args(["-gF", option, &format!("#{{s/{pattern}/ /:{option}}}")])
}

/// Makes the edits in one tmux call. The panes whose close this call
/// claimed.
pub(crate) fn apply(tmux: &Tmux, edits: &[Edit]) -> Result<Vec<u32>> {
    let mut batch = super::Batch::new();
    for edit in edits {
        let (entry, then) = match *edit {
            Edit::Close { pane } => {
                let entry = entry_pattern(pane, None);
                let then = vec![
                    without(PANES, &entry),
                    cmd::print_format(&format!("{CLAIMED} {pane}")),
                ];
                (entry, then)
            }
            Edit::Move { pane, from, to } => {
                let entry = entry_pattern(pane, Some(from));
                let moved = Cmd::new("set-option").args([
                    "-gF",
                    PANES,
                    &format!("#{{s/{entry}/ /:{PANES}}} %{pane}:${to}"),
                ]);
                (entry, vec![moved])
            }
            Edit::Forget { pane } => {
                batch.push(without(PANES, &entry_pattern(pane, None)));
                batch.push(without(EXITED, &format!("(^| )%{pane}( |$)")));
                continue;
            }
        };
        let test = format!("#{{m/r:{entry},#{{{PANES}}}}}");
        batch.push(Cmd::new("if-shell").args(["-F", &test, &cmd::command_string(&then)]));
    }
    let output = tmux.run(&batch)?;
    Ok(output
        .lines()
        .filter_map(|line| line.strip_prefix(CLAIMED)?.trim().parse().ok())
        .collect())
}

/// What tmux prints when a compare-and-set write landed.
const LANDED: &str = "taw-roster-written";

/// Starts the roster: writes it and the marks, counts the write and
/// marks the roster started, only if the count is still `generation`: one
/// `if-shell -F`, so nothing comes between the test and the write.
/// Whether it landed.
pub(crate) fn write_if_unchanged(
    tmux: &Tmux,
    generation: &str,
    roster: &str,
    marks: &str,
) -> Result<bool> {
    let next = generation.trim().parse::<u64>().unwrap_or(0) + 1;
    let writes = [
        cmd::set_global_option(PANES, roster),
        cmd::set_global_option(EXITED, marks),
        cmd::set_global_option(PANES_GENERATION, &next.to_string()),
        cmd::set_global_option(PANES_STARTED, "1"),
        cmd::print_format(LANDED),
    ];
    let test = format!(
        "#{{==:#{{{PANES_GENERATION}}},{}}}",
        cmd::format_literal(generation.trim())
    );
    let output =
        tmux.run_one(Cmd::new("if-shell").args(["-F", &test, &cmd::command_string(&writes)]))?;
    Ok(output.lines().any(|line| line == LANDED))
}

/// How much of the placeholder list is kept (newest first).
const PLACEHOLDERS_KEPT: usize = 400;

/// Marks the current window and pane of `session` (a new session's first,
/// made to hold a place until a pane is moved in) as placeholders, in the
/// same tmux call that makes them, before any hook's process can read:
/// their creation and close are no events. The list keeps its newest
/// words; a word the bound cut loses its closing space and matches
/// nothing.
pub(crate) fn mark_placeholder(session: &str) -> Cmd {
    Cmd::new("set-option").args([
        "-gF",
        "-t",
        session,
        PLACEHOLDERS,
        &format!(" #{{pane_id}} #{{window_id}} #{{={PLACEHOLDERS_KEPT}:{PLACEHOLDERS}}}"),
    ])
}

/// The placeholder list as tmux holds it.
pub(crate) fn placeholders(tmux: &Tmux) -> Result<String> {
    tmux.run_one(cmd::print_format(&format!("#{{{PLACEHOLDERS}}}")))
}

/// Whether `id` (`%P` or `@W`) is in a placeholder list.
pub(crate) fn is_placeholder(list: &str, id: &str) -> bool {
    list.contains(&format!(" {id} "))
}

/// What tmux prints when a window's new layout was claimed.
const LAYOUT_CLAIMED: &str = "taw-layout-claimed";

/// Claims the window's layout now as the one told, unless it is already:
/// one `if-shell -F`, so of two hooks fired for one change only the first
/// claims it. Whether this call claimed it (false for a window gone).
pub(crate) fn claim_layout(tmux: &Tmux, window: u32) -> Result<bool> {
    let target = format!("@{window}");
    let claim = [
        Cmd::new("set-option").args(["-wF", "-t", &target, LAYOUT_TOLD, "#{window_layout}"]),
        cmd::print_format(LAYOUT_CLAIMED),
    ];
    let test = format!("#{{==:#{{{LAYOUT_TOLD}}},#{{window_layout}}}}");
    let output = tmux.run_one(Cmd::new("if-shell").args([
        "-F",
        "-t",
        &target,
        &test,
        "",
        &cmd::command_string(&claim),
    ]))?;
    Ok(output.lines().any(|line| line == LAYOUT_CLAIMED))
}

/// The command string that adds the pane a hook is about (`#{pane_id}` of
/// after-split-window, after-new-window, session-created) to the roster
/// and counts the write.
pub(crate) fn add_pane_command() -> String {
    format!(
        "set-option -gF {PANES} {} ; {}",
        cmd::quote_for_tmux(&format!("#{{{PANES}}} #{{pane_id}}:#{{session_id}}")),
        count_write_command()
    )
}

/// The command string of the pane-exited hook: marks `#{hook_pane}` (the
/// newest [`MARKS_KEPT`] characters kept) and counts the write.
pub(crate) fn mark_exit_command() -> String {
    format!(
        "set-option -gF {EXITED} {} ; {}",
        cmd::quote_for_tmux(&format!("#{{=-{MARKS_KEPT}:#{{{EXITED}}} #{{hook_pane}}}}")),
        count_write_command()
    )
}

fn count_write_command() -> String {
    format!(
        "set-option -gF {PANES_GENERATION} {}",
        cmd::quote_for_tmux(&format!("#{{e|+:#{{{PANES_GENERATION}}},1}}"))
    )
}

/// The most of the tab roster kept: the newest (window ids are never
/// used again, so what falls off is the oldest windows').
pub(crate) const TABS_KEPT: usize = 8000;

/// A window-linked hook's format: `1` when the tab roster knew the window
/// in that session already (a move within it), else `0`. Expanded by tmux
/// as the hook runs, before [`add_tab_command`] writes the roster.
pub(crate) static TAB_KNOWN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("#{{?#{{m:*#{{hook_window}}:#{{hook_session}}/*,#{{{TABS}}}}},1,0}}")
});

/// The command string that adds a window-linked hook's window and session
/// to the tab roster.
pub(crate) fn add_tab_command() -> String {
    format!(
        "set-option -gF {TABS} {}",
        cmd::quote_for_tmux(&format!(
            "#{{={}:#{{{TABS}}}#{{hook_window}}:#{{hook_session}}/}}",
            -(TABS_KEPT as i64)
        ))
    )
}

/// Whether session `session` shares its windows with another (made by
/// `new-session -t`): its panes were there before it.
pub(crate) fn session_grouped(tmux: &Tmux, session: u32) -> Result<bool> {
    let out = tmux.run_one(cmd::print_format_at(
        &format!("${session}"),
        "#{session_grouped}",
    ))?;
    Ok(out.trim() == "1")
}

/// Takes a window's word for `session` off the tab roster, once it is
/// linked there no more: a window that comes back to that session later
/// is a tab made there again, not a move. (tmux's substitution takes no
/// `:` or `/` in its pattern: `.` and `[^0-9]` stand for them.)
pub(crate) fn forget_tab(tmux: &Tmux, window: u32, session: u32) -> Result<()> {
    tmux.run_one(without(TABS, &format!("@{window}.[$]{session}[^0-9]")))
        .map(drop)
}

/// Writes every window now linked into a session on the tab roster: a
/// listener that starts knows the tabs there were.
pub(crate) fn start_tabs(tmux: &Tmux) -> Result<()> {
    let words: String = live_links(tmux)?
        .iter()
        .map(|link| format!("{link}/"))
        .collect();
    tmux.run_one(cmd::set_global_option(TABS, &words))
        .map(|_| ())
}

/// Writes each session's windows, in order, as its tab places: a
/// listener that starts compares what comes with them.
pub(crate) fn start_places(tmux: &Tmux) -> Result<()> {
    let sessions = tmux.run_one(cmd::print_format("#{S:#{session_id} }"))?;
    let writes: Vec<Cmd> = sessions
        .split_whitespace()
        .map(|session| Cmd::new("set-option").args(["-F", "-t", session, TAB_PLACES, PLACES_NOW]))
        .collect();
    if writes.is_empty() {
        return Ok(());
    }
    tmux.run(&super::Batch::of(writes)).map(|_| ())
}

/// A session's windows in their order, as tmux expands it for the session.
const PLACES_NOW: &str = "#{W:#{window_id} }";

/// The windows of session `$session` whose place among its windows changed
/// since its tab places were written: the fewest whose moves explain the
/// new order (a swap of two windows apart moves both; a move-window, the
/// one). The places then hold the new order. Two hooks that look at once
/// both read; only the one whose write lands (the places still what it
/// read) answers the moves, so each is told once.
pub(crate) fn moved_tabs(tmux: &Tmux, session: u32, hint: Option<u32>) -> Result<Vec<u32>> {
    let target = format!("${session}");
    let Ok(read) = tmux.run_one(cmd::print_format_at(
        &target,
        &format!("#{{{TAB_PLACES}}}|{PLACES_NOW}"),
    )) else {
        // The session has gone: nothing of it moves.
        return Ok(Vec::new());
    };
    let (before, now) = read
        .trim_end_matches('\n')
        .split_once('|')
        .unwrap_or_default();
    if before == now {
        return Ok(Vec::new());
    }
    let landed = tmux.run_one(Cmd::new("if-shell").args([
        "-F",
        "-t",
        &target,
        &format!("#{{==:#{{{TAB_PLACES}}},{}}}", cmd::format_literal(before)),
        &cmd::command_string(&[
            cmd::set_session_option(&target, TAB_PLACES, now),
            cmd::print_format("landed"),
        ]),
    ]))?;
    if landed.trim() != "landed" || before.is_empty() {
        return Ok(Vec::new());
    }
    Ok(moved_windows(&window_ids(before), &window_ids(now), hint))
}

/// `@W` words as window numbers, each once, in order.
fn window_ids(words: &str) -> Vec<u32> {
    let mut ids: Vec<u32> = Vec::new();
    for id in words
        .split_whitespace()
        .filter_map(|w| super::ids::tmux_number(w, '@'))
    {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// Of the windows in both orders, those that are not in the longest run
/// kept in their old order: the fewest whose moves turn `before` into
/// `now`. Of runs as long, the one that keeps more windows at their old
/// place, then one without `hint` (the window the hook names: the one a
/// move-window moved, the one a swap selected). Windows made or closed
/// between the two move nobody.
fn moved_windows(before: &[u32], now: &[u32], hint: Option<u32>) -> Vec<u32> {
    let common: Vec<u32> = before.iter().copied().filter(|w| now.contains(w)).collect();
    let ranked: Vec<(u32, usize)> = now
        .iter()
        .filter_map(|w| common.iter().position(|b| b == w).map(|rank| (*w, rank)))
        .collect();
    // best[i]: (windows kept, of them at their old place, not the hint) of
    // the best run
    // ending at i, and the one before it. A session's windows are few.
    let mut best: Vec<((usize, usize, usize), Option<usize>)> = Vec::with_capacity(ranked.len());
    for (i, (window, rank)) in ranked.iter().enumerate() {
        let own = (
            1,
            usize::from(*rank == i),
            usize::from(Some(*window) != hint),
        );
        let mut chosen = (own, None);
        for (j, ((kept, placed, unhinted), _)) in best.iter().enumerate() {
            let through = (kept + own.0, placed + own.1, unhinted + own.2);
            if ranked[j].1 < *rank && through > chosen.0 {
                chosen = (through, Some(j));
            }
        }
        best.push(chosen);
    }
    let mut kept = vec![false; ranked.len()];
    let last = (0..best.len()).max_by_key(|&i| (best[i].0, std::cmp::Reverse(i)));
    let mut next = last;
    while let Some(i) = next {
        kept[i] = true;
        next = best[i].1;
    }
    ranked
        .iter()
        .zip(kept)
        .filter(|(_, kept)| !kept)
        .map(|((w, _), _)| *w)
        .collect()
}

/// Whether window `@window` is linked into session `$session` now.
pub(crate) fn window_in_session(tmux: &Tmux, window: u32, session: u32) -> Result<bool> {
    let wanted = format!("@{window}:${session}");
    Ok(live_links(tmux)?.contains(&wanted))
}

/// `@W:$S`, for every window in each session it is linked into.
fn live_links(tmux: &Tmux) -> Result<Vec<String>> {
    let live = tmux.run_one(cmd::when_any_session(&[Cmd::new("list-windows").args([
        "-a",
        "-F",
        "#{window_id}:#{session_id}",
    ])]))?;
    Ok(live.split_whitespace().map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fewest_windows_that_explain_a_new_order_moved() {
        // A swap of two windows apart: both; of neighbours: one of them.
        assert_eq!(moved_windows(&[1, 2, 3], &[3, 2, 1], None), [3, 1]);
        assert_eq!(moved_windows(&[1, 2, 3, 4], &[1, 4, 3, 2], None), [4, 2]);
        assert_eq!(moved_windows(&[1, 2], &[2, 1], None).len(), 1);
        // Of neighbours, the one the hook names.
        assert_eq!(moved_windows(&[1, 2, 3], &[2, 1, 3], Some(2)), [2]);
        assert_eq!(moved_windows(&[1, 2, 3], &[2, 1, 3], Some(1)), [1]);
        // The first moved to the end: it alone.
        assert_eq!(moved_windows(&[1, 2, 3], &[2, 3, 1], None), [1]);
        // Made and closed windows move nobody.
        assert_eq!(
            moved_windows(&[1, 2, 3], &[1, 3, 4], None),
            Vec::<u32>::new()
        );
        assert_eq!(moved_windows(&[], &[1, 2], None), Vec::<u32>::new());
        assert_eq!(window_ids("@3 @1 @3 x "), [3, 1]);
    }

    #[test]
    fn a_placeholder_is_found_by_its_whole_id_only() {
        let list = " %12 @7  %3 @2 %12";
        assert!(is_placeholder(list, "%12"));
        assert!(is_placeholder(list, "@7"));
        assert!(is_placeholder(list, "%3"));
        assert!(!is_placeholder(list, "%1"));
        assert!(!is_placeholder(list, "@1"));
        // The last word, cut by the bound: no closing space.
        assert!(!is_placeholder(" %3 @2 %12", "%12"));
    }

    #[test]
    fn an_entrys_pattern_finds_that_word_only() {
        let pattern = regex::Regex::new(&entry_pattern(12, Some(3))).unwrap();
        assert!(pattern.is_match("%1:$0 %12:$3 %4:$3"));
        assert!(pattern.is_match("%12:$3"));
        for other in ["%123:$3", "%12:$34", "%112:$3", "%12:$4"] {
            assert!(!pattern.is_match(other), "{other}");
        }
        let any = regex::Regex::new(&entry_pattern(12, None)).unwrap();
        assert!(any.is_match(" %12:$40 "));
        // tmux ends a substitution's pattern at a `:`.
        assert!(!entry_pattern(12, None).contains(':'));
    }

    #[test]
    fn the_tab_rosters_reader_and_writer_name_the_same_option() {
        assert_eq!(
            TAB_KNOWN.as_str(),
            "#{?#{m:*#{hook_window}:#{hook_session}/*,#{@agent_wizard_tabs}},1,0}"
        );
        let add = add_tab_command();
        assert!(add.starts_with(&format!("set-option -gF {TABS} ")), "{add}");
        assert!(add.contains("#{=-8000:"), "{add}");
    }
}
