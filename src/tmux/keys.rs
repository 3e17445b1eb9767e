//! herdr's key syntax (`enter`, `ctrl+c`, `alt+x`, `shift+tab`, `C-c`...)
//! turned into tmux's key names, every key checked before any is sent.

use crate::envelope::{ErrorCode, TawError};

/// Named keys: herdr's name → tmux's.
const NAMED: &[(&str, &str)] = &[
    ("enter", "Enter"),
    ("return", "Enter"),
    ("tab", "Tab"),
    ("backtab", "BTab"),
    ("esc", "Escape"),
    ("escape", "Escape"),
    ("backspace", "BSpace"),
    ("space", "Space"),
    ("left", "Left"),
    ("right", "Right"),
    ("up", "Up"),
    ("down", "Down"),
    ("home", "Home"),
    ("end", "End"),
    ("pageup", "PageUp"),
    ("pagedown", "PageDown"),
    ("insert", "IC"),
    ("delete", "DC"),
    ("del", "DC"),
    ("minus", "-"),
    ("plus", "+"),
    ("backtick", "`"),
    ("equal", "="),
    ("comma", ","),
    ("period", "."),
    ("slash", "/"),
    ("backslash", "\\"),
    ("semicolon", ";"),
    ("quote", "'"),
];

fn invalid(spec: &str, why: &str) -> TawError {
    TawError::new(
        ErrorCode::InvalidKey,
        format!("key {spec:?}: {why}; nothing was sent"),
    )
}

/// One key in tmux's spelling.
pub(crate) fn to_tmux(spec: &str) -> Result<String, TawError> {
    let trimmed = spec.trim();
    if trimmed.is_empty() {
        return Err(invalid(spec, "empty"));
    }
    if trimmed.to_ascii_lowercase().starts_with("prefix+") {
        return Err(invalid(
            spec,
            "prefix chords are tmux's own, not keys to send",
        ));
    }
    // tmux's own chord spelling: C-c, c-c, M-x, S-Up.
    if let Some((modifier, key)) = tmux_chord(trimmed) {
        let base = base_key(key).ok_or_else(|| invalid(spec, "not a key name"))?;
        return Ok(format!("{modifier}-{base}"));
    }
    if trimmed.chars().count() == 1 {
        return Ok(trimmed.to_string());
    }
    let parts: Vec<&str> = split_chord(trimmed);
    let (key, modifiers) = parts
        .split_last()
        .ok_or_else(|| invalid(spec, "not a key"))?;
    let mut ctrl = false;
    let mut alt = false;
    let mut shift = false;
    for modifier in modifiers {
        match modifier.to_ascii_lowercase().as_str() {
            "ctrl" | "control" => ctrl = true,
            "alt" | "meta" | "option" => alt = true,
            "shift" => shift = true,
            other => {
                return Err(invalid(
                    spec,
                    &format!("{other:?} is not a modifier (ctrl, alt, shift)"),
                ));
            }
        }
    }
    let base = base_key(key).ok_or_else(|| invalid(spec, "not a key name"))?;
    let mut name = base;
    if shift {
        name = match name.as_str() {
            "Tab" => "BTab".to_string(),
            single
                if single.chars().count() == 1
                    && single.chars().all(|c| c.is_ascii_lowercase()) =>
            {
                single.to_ascii_uppercase()
            }
            other => format!("S-{other}"),
        };
    }
    if alt {
        name = format!("M-{name}");
    }
    if ctrl {
        name = format!("C-{name}");
    }
    Ok(name)
}

/// Every key of a list, or the first bad one's error.
pub(crate) fn all_to_tmux(specs: &[String]) -> Result<Vec<String>, TawError> {
    if specs.is_empty() {
        return Err(TawError::new(
            ErrorCode::InvalidKey,
            "no key given; nothing was sent",
        ));
    }
    specs.iter().map(|spec| to_tmux(spec)).collect()
}

/// `ctrl++` is ctrl and the plus key: split at `+` but keep a final one.
fn split_chord(spec: &str) -> Vec<&str> {
    if let Some(head) = spec.strip_suffix("++") {
        let mut parts: Vec<&str> = head.split('+').collect();
        parts.push("+");
        return parts;
    }
    spec.split('+').collect()
}

/// `C-c`, `M-x`, `S-Up` (tmux's own) as modifier and key.
fn tmux_chord(spec: &str) -> Option<(&'static str, &str)> {
    let (head, key) = spec.split_once('-')?;
    if key.is_empty() {
        return None;
    }
    match head {
        "C" | "c" => Some(("C", key)),
        "M" | "m" => Some(("M", key)),
        "S" => Some(("S", key)),
        _ => None,
    }
}

/// A key without modifiers: a character, a named key, or F1 to F24.
fn base_key(key: &str) -> Option<String> {
    if key.chars().count() == 1 {
        return Some(key.to_string());
    }
    let lower = key.to_ascii_lowercase();
    if let Some((_, tmux)) = NAMED.iter().find(|(name, _)| *name == lower) {
        return Some(tmux.to_string());
    }
    let number = lower.strip_prefix('f')?.parse::<u8>().ok()?;
    (1..=24).contains(&number).then(|| format!("F{number}"))
}

/// tmux's own names of keys without modifiers (its key table's, as
/// `bind-key` reads them, in any case).
const TMUX_NAMES: &[&str] = &[
    "Enter", "Escape", "Tab", "BTab", "Space", "BSpace", "Up", "Down", "Left", "Right", "Home",
    "End", "IC", "Insert", "DC", "Delete", "PageUp", "PgUp", "PPage", "PageDown", "PgDn", "NPage",
    "KP/", "KP*", "KP-", "KP7", "KP8", "KP9", "KP+", "KP4", "KP5", "KP6", "KP1", "KP2", "KP3",
    "KPEnter", "KP0", "KP.", "Any",
];

/// Whether tmux takes `name` as a key for `bind-key`: modifiers (`C-`, `M-`,
/// `S-`, or `^` for ctrl) before one character, a name of its key table,
/// F1 to F24, or a `0x` code. Checked before a load changes anything, so a
/// bad key option binds nothing and stops nothing else.
pub(crate) fn is_tmux_key(name: &str) -> bool {
    let mut rest = name;
    loop {
        let lower = rest.get(..2).map(str::to_ascii_lowercase);
        match lower.as_deref() {
            Some("c-" | "m-" | "s-") if rest.len() > 2 => rest = &rest[2..],
            _ => break,
        }
    }
    if let Some(after) = rest.strip_prefix('^')
        && after.chars().count() == 1
    {
        return true;
    }
    if rest.chars().count() == 1 {
        return !rest.chars().any(char::is_control);
    }
    if TMUX_NAMES
        .iter()
        .any(|known| known.eq_ignore_ascii_case(rest))
    {
        return true;
    }
    if let Some(hex) = rest.strip_prefix("0x") {
        return u32::from_str_radix(hex, 16)
            .ok()
            .and_then(char::from_u32)
            .is_some();
    }
    rest.strip_prefix(['F', 'f'])
        .and_then(|n| n.parse::<u8>().ok())
        .is_some_and(|n| (1..=24).contains(&n))
}

/// A key as `list-keys` prints it, from a spelling [`is_tmux_key`] takes
/// (`space`, `c-x`, `^A`, `pgup`, `c-m-z`): Space, C-x, C-a, PPage, M-C-z.
/// taw's key options are compared with the keys tmux lists in its
/// spelling; a spelling this does not know is kept as it is.
pub(crate) fn tmux_spelling(name: &str) -> String {
    let (mut ctrl, mut meta, mut shift) = (false, false, false);
    let mut rest = name;
    loop {
        match rest.get(..2).map(str::to_ascii_lowercase).as_deref() {
            Some("c-") if rest.len() > 2 => ctrl = true,
            Some("m-") if rest.len() > 2 => meta = true,
            Some("s-") if rest.len() > 2 => shift = true,
            _ => break,
        }
        rest = &rest[2..];
    }
    if let Some(after) = rest.strip_prefix('^')
        && after.chars().count() == 1
    {
        ctrl = true;
        rest = after;
    }
    let base = if rest.chars().count() == 1 {
        match ctrl {
            true => rest.to_ascii_lowercase(),
            false => rest.to_string(),
        }
    } else if let Some(known) = TMUX_NAMES.iter().find(|k| k.eq_ignore_ascii_case(rest)) {
        match *known {
            "Insert" => "IC",
            "Delete" => "DC",
            "PageUp" | "PgUp" => "PPage",
            "PageDown" | "PgDn" => "NPage",
            other => other,
        }
        .to_string()
    } else {
        match rest.strip_prefix(['F', 'f']).map(str::parse::<u8>) {
            Some(Ok(n)) => format!("F{n}"),
            _ => rest.to_string(),
        }
    };
    let mut spelled = String::new();
    for (on, prefix) in [(meta, "M-"), (ctrl, "C-"), (shift, "S-")] {
        if on {
            spelled.push_str(prefix);
        }
    }
    spelled + &base
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spellings as tmux 3.3 lists them (checked with bind-key and
    /// list-keys).
    #[test]
    fn keys_in_the_spelling_tmux_lists() {
        for (given, listed) in [
            ("space", "Space"),
            ("c-x", "C-x"),
            ("^y", "C-y"),
            ("^A", "C-a"),
            ("C-B", "C-b"),
            ("m-c-z", "M-C-z"),
            ("S-m-up", "M-S-Up"),
            ("pgup", "PPage"),
            ("insert", "IC"),
            ("f5", "F5"),
            ("a", "a"),
            ("A", "A"),
            ("Tab", "Tab"),
            ("\\", "\\"),
        ] {
            assert_eq!(tmux_spelling(given), listed, "{given}");
        }
    }

    #[test]
    fn herdr_keys_in_tmux_spelling() {
        for (herdr, tmux) in [
            ("a", "a"),
            ("enter", "Enter"),
            ("Esc", "Escape"),
            ("escape", "Escape"),
            ("ctrl+c", "C-c"),
            ("control+j", "C-j"),
            ("C-c", "C-c"),
            ("c-c", "C-c"),
            ("alt+x", "M-x"),
            ("shift+tab", "BTab"),
            ("shift+a", "A"),
            ("shift+up", "S-Up"),
            ("ctrl+alt+x", "C-M-x"),
            ("minus", "-"),
            ("backtick", "`"),
            ("f5", "F5"),
            ("ctrl++", "C-+"),
            (";", ";"),
            ("-", "-"),
        ] {
            assert_eq!(to_tmux(herdr).unwrap(), tmux, "{herdr}");
        }
    }

    #[test]
    fn tmux_key_names() {
        for good in [
            "a", "A", "Tab", "C-a", "M-x", "C-M-Up", "F5", "f12", "^a", "KPEnter", "é", ";", "0x41",
        ] {
            assert!(is_tmux_key(good), "{good}");
        }
        for bad in [
            "NotAKey!!",
            "",
            "C-",
            "F99",
            "ab",
            "prefix+a",
            "C-notakey",
            "0x110000",
            "0x",
        ] {
            assert!(!is_tmux_key(bad), "{bad}");
        }
    }

    #[test]
    fn bad_keys_are_refused_before_any_is_sent() {
        for bad in ["", "prefix+c", "hyper+x", "ctrl+nothing", "f99", "enterr"] {
            let error = to_tmux(bad).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidKey, "{bad}");
        }
        let error = all_to_tmux(&["enter".into(), "bogus-key".into()]).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidKey);
        assert!(all_to_tmux(&[]).is_err());
    }
}
