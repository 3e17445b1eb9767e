//! tmux ids (`$N`, `@N`, `%N`) and herdr's public ids (`w1`, `w1:t2`,
//! `w1:p3`).
//!
//! A public id is computed from the tmux id, so it needs no state and every
//! taw process agrees on it: the number is tmux's number plus one (herdr
//! counts from 1, tmux from 0), written in herdr's bijective base-32. tmux
//! never reuses a number while its server runs, so neither do we. A tab's
//! and a pane's id start with the id of the workspace (session) they are in.

const ALPHABET: &[u8; 32] = b"123456789ABCDEFGHJKMNPQRSTVWXYZ0";

/// herdr's bijective base-32 for `n >= 1`: 1 → `1`, 31 → `Z`, 32 → `0`,
/// 33 → `11`.
pub(crate) fn encode(mut n: u64) -> String {
    let mut digits = Vec::new();
    while n > 0 {
        n -= 1;
        digits.push(ALPHABET[(n % 32) as usize]);
        n /= 32;
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// The inverse of [`encode`]; lower-case letters are read as upper-case.
pub(crate) fn decode(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 12 {
        return None;
    }
    let mut n: u64 = 0;
    for byte in text.bytes() {
        let byte = byte.to_ascii_uppercase();
        let digit = ALPHABET.iter().position(|&c| c == byte)? as u64 + 1;
        n = n.checked_mul(32)?.checked_add(digit)?;
    }
    Some(n)
}

/// The public id of session `$n`.
pub(crate) fn workspace_id(session: u32) -> String {
    format!("w{}", encode(session as u64 + 1))
}

/// The public id of window `@n` in session `$s`.
pub(crate) fn tab_id(session: u32, window: u32) -> String {
    format!("{}:t{}", workspace_id(session), encode(window as u64 + 1))
}

/// The public id of pane `%n` in session `$s`.
pub(crate) fn pane_id(session: u32, pane: u32) -> String {
    format!("{}:p{}", workspace_id(session), encode(pane as u64 + 1))
}

/// herdr's terminal id: opaque, stable while the pane's terminal lives,
/// unchanged by a move. A tmux pane keeps its id when it moves, so that is it.
pub(crate) fn terminal_id(pane: u32) -> String {
    format!("term_{pane:x}")
}

/// A tmux id's number: `$3` with sigil `$` is 3.
pub(crate) fn tmux_number(text: &str, sigil: char) -> Option<u32> {
    let digits = text.strip_prefix(sigil)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A reference to a workspace, as a person or a script wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorkspaceRef {
    /// `$N`, or the public `wN` (which names session `$(N-1)`).
    Session(u32),
    /// A 1-based position in the list (`2`, or herdr's legacy `w_2`).
    Position(usize),
}

/// A reference to a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TabRef {
    /// `@N`: the window, in whichever session.
    Window(u32),
    /// `w1:t2`: window `@1` seen from session `$0`.
    InWorkspace { session: u32, window: u32 },
    /// `w1:2` or `t_w1_2`: the second tab of the workspace.
    Position {
        workspace: WorkspaceRef,
        index: usize,
    },
}

/// A reference to a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PaneRef {
    /// `%N`.
    Pane(u32),
    /// `w1:p3`: pane `%2` in session `$0`.
    InWorkspace { session: u32, pane: u32 },
}

/// Why a reference could not be read.
pub(crate) type IdError = String;

pub(crate) fn parse_workspace(text: &str) -> Result<WorkspaceRef, IdError> {
    let text = text.trim();
    if let Some(n) = tmux_number(text, '$') {
        return Ok(WorkspaceRef::Session(n));
    }
    if let Some(index) = text.strip_prefix("w_").and_then(parse_position) {
        return Ok(WorkspaceRef::Position(index));
    }
    if let Some(index) = parse_position(text) {
        return Ok(WorkspaceRef::Position(index));
    }
    if let Some(session) = public_number(text.strip_prefix('w')) {
        return Ok(WorkspaceRef::Session(session));
    }
    Err(format!(
        "{text:?} is not a workspace id: use a public id such as w1, a tmux session id such as $0, or a position such as 1"
    ))
}

pub(crate) fn parse_tab(text: &str) -> Result<TabRef, IdError> {
    let text = text.trim();
    if let Some(n) = tmux_number(text, '@') {
        return Ok(TabRef::Window(n));
    }
    let bad = || {
        format!(
            "{text:?} is not a tab id: use a public id such as w1:t2, a tmux window id such as @1, or a workspace and position such as w1:2"
        )
    };
    if let Some(rest) = text.strip_prefix("t_") {
        // herdr's legacy t_<workspace>_<position>.
        let (workspace, index) = rest.rsplit_once('_').ok_or_else(bad)?;
        let workspace = parse_workspace(workspace).map_err(|_| bad())?;
        let index = parse_position(index).ok_or_else(bad)?;
        return Ok(TabRef::Position { workspace, index });
    }
    let (workspace, tab) = text.split_once(':').ok_or_else(bad)?;
    let workspace = parse_workspace(workspace).map_err(|_| bad())?;
    if let Some(index) = parse_position(tab) {
        return Ok(TabRef::Position { workspace, index });
    }
    match (workspace, public_number(tab.strip_prefix('t'))) {
        (WorkspaceRef::Session(session), Some(window)) => {
            Ok(TabRef::InWorkspace { session, window })
        }
        _ => Err(bad()),
    }
}

pub(crate) fn parse_pane(text: &str) -> Result<PaneRef, IdError> {
    let text = text.trim();
    if let Some(n) = tmux_number(text, '%') {
        return Ok(PaneRef::Pane(n));
    }
    let bad = || {
        format!(
            "{text:?} is not a pane id: use a public id such as w1:p3 or a tmux pane id such as %2"
        )
    };
    // herdr's older spelling, `w1-3`, is `w1:p3`.
    let (workspace, pane) = match text.split_once(':') {
        Some((workspace, pane)) => (workspace, pane.strip_prefix('p')),
        None => text
            .split_once('-')
            .map(|(w, p)| (w, Some(p)))
            .ok_or_else(bad)?,
    };
    match (
        parse_workspace(workspace).map_err(|_| bad())?,
        public_number(pane),
    ) {
        (WorkspaceRef::Session(session), Some(pane)) => Ok(PaneRef::InWorkspace { session, pane }),
        _ => Err(bad()),
    }
}

/// `wN`/`tN`/`pN`'s number as the tmux number it stands for.
fn public_number(encoded: Option<&str>) -> Option<u32> {
    let n = decode(encoded?)?;
    u32::try_from(n.checked_sub(1)?).ok()
}

fn parse_position(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|&n: &usize| n >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base32_matches_herdr() {
        assert_eq!(encode(1), "1");
        assert_eq!(encode(9), "9");
        assert_eq!(encode(10), "A");
        assert_eq!(encode(31), "Z");
        assert_eq!(encode(32), "0");
        assert_eq!(encode(33), "11");
        for n in 1..5000 {
            assert_eq!(decode(&encode(n)), Some(n));
        }
        assert_eq!(decode("a"), Some(10));
        assert_eq!(decode(""), None);
        assert_eq!(decode("I"), None);
    }

    #[test]
    fn public_ids_from_tmux_ids() {
        assert_eq!(workspace_id(0), "w1");
        assert_eq!(tab_id(0, 1), "w1:t2");
        assert_eq!(pane_id(2, 31), "w3:p0");
        assert_eq!(terminal_id(255), "term_ff");
    }

    #[test]
    fn both_forms_parse() {
        assert_eq!(parse_pane("%12"), Ok(PaneRef::Pane(12)));
        assert_eq!(
            parse_pane("w1:p3"),
            Ok(PaneRef::InWorkspace {
                session: 0,
                pane: 2
            })
        );
        // herdr's older spelling of it.
        assert_eq!(parse_pane("w1-3"), parse_pane("w1:p3"));
        assert!(parse_pane("w1-").is_err());
        assert!(parse_pane("-3").is_err());
        assert_eq!(parse_workspace("$4"), Ok(WorkspaceRef::Session(4)));
        assert_eq!(parse_workspace("w5"), Ok(WorkspaceRef::Session(4)));
        assert_eq!(parse_workspace("2"), Ok(WorkspaceRef::Position(2)));
        assert_eq!(parse_workspace("w_2"), Ok(WorkspaceRef::Position(2)));
        assert_eq!(parse_tab("@7"), Ok(TabRef::Window(7)));
        assert_eq!(
            parse_tab("w1:t8"),
            Ok(TabRef::InWorkspace {
                session: 0,
                window: 7
            })
        );
        assert_eq!(
            parse_tab("w2:3"),
            Ok(TabRef::Position {
                workspace: WorkspaceRef::Session(1),
                index: 3
            })
        );
        assert_eq!(
            parse_tab("t_w2_3"),
            Ok(TabRef::Position {
                workspace: WorkspaceRef::Session(1),
                index: 3
            })
        );
    }

    #[test]
    fn malformed_ids_are_refused() {
        for bad in [
            "", "%", "%x", "w", "wI", "w1:p", "w1:x3", "p3", "$-1", "w0:t", "%1 2", "0",
        ] {
            assert!(parse_pane(bad).is_err(), "pane {bad:?} should not parse");
        }
        assert!(parse_workspace("main").is_err());
        assert!(parse_workspace("0").is_err());
        assert!(parse_tab("w1").is_err());
        assert!(parse_tab("w1:t").is_err());
    }
}
