//! Small rules for text that several layers share: one plain line of
//! words, a word quoted for a POSIX shell, a version number.

/// One plain line: whitespace collapsed, at most `limit` characters.
pub(crate) fn one_line(text: &str, limit: usize) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .take(limit)
        .collect()
}

/// A word for a POSIX shell: as it is when every character is plain,
/// else single-quoted. Stricter than `shell_words::quote`, which leaves
/// `{a,b}` and `!` bare: these lines are also typed at a person's bash,
/// where those expand, or zsh, where a word starting with `=` is a
/// program's path (`=python3`), or fish, where one starting with `%` is a
/// process id (`%self`).
pub(crate) fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && !word.starts_with(['=', '%'])
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        word.to_string()
    } else {
        single_quoted(word)
    }
}

/// A word in single quotes whatever it holds (`'` written as `'\''`):
/// where a line must look the same for every word, such as a hook command
/// written into an agent's config, which a later taw finds again.
pub(crate) fn single_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// A version as `(major, minor, patch)`: `v1.2.3`, `1.2` (a missing part
/// is 0), `0.13.0-beta` (a pre-release or build suffix is left out of the
/// comparison), `0.14.2,` as a word of a sentence. None for anything
/// else, or more than three parts.
pub(crate) fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let core = text
        .trim()
        .trim_start_matches('v')
        .trim_end_matches([',', ')']);
    let core = core.split(['-', '+']).next()?;
    let mut parts = core.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().map_or(Some(0), |p| p.parse().ok())?;
    let patch = parts.next().map_or(Some(0), |p| p.parse().ok())?;
    if parts.next().is_some() {
        return None;
    }
    Some((major, minor, patch))
}

/// Whether `name` is a variable's name a shell and tmux take as given:
/// letters, digits and `_`, not a digit first (`A=B` or an empty name
/// would be split or dropped by tmux's environment).
pub(crate) fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// `edited` with the byte-order mark `original` began with: toml_edit
/// drops it, and a user's file keeps every byte taw does not own.
pub(crate) fn with_bom_of(original: &str, edited: String) -> String {
    const BOM: char = '\u{feff}';
    if original.starts_with(BOM) && !edited.starts_with(BOM) {
        format!("{BOM}{edited}")
    } else {
        edited
    }
}

/// FNV-1a, 64 bits: a hash that stays the same from one build and one
/// machine to the next (a fingerprint the page compares, a folder's name).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_one_bounded_line() {
        assert_eq!(one_line("  a\n\tb  c ", 80), "a b c");
        assert_eq!(one_line(&"x".repeat(100), 80).len(), 80);
    }

    #[test]
    fn words_are_quoted_only_when_they_must_be() {
        assert_eq!(shell_word("/usr/bin/taw"), "/usr/bin/taw");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("x{a,b}"), "'x{a,b}'");
        assert_eq!(shell_word("hi!"), "'hi!'");
        // zsh's `=cmd`, fish's `%self`: quoted at a word's start only.
        assert_eq!(shell_word("=python3"), "'=python3'");
        assert_eq!(shell_word("%self"), "'%self'");
        assert_eq!(shell_word("--model=o3"), "--model=o3");
        assert_eq!(shell_word(""), "''");
        assert_eq!(single_quoted("plain"), "'plain'");
        for word in ["a b", "it's", "$(x)", "x{a,b}", ""] {
            assert_eq!(shell_words::split(&shell_word(word)).unwrap(), [word]);
        }
    }

    #[test]
    fn versions() {
        assert_eq!(parse_version("0.9.3"), Some((0, 9, 3)));
        assert_eq!(parse_version("v0.14.2"), Some((0, 14, 2)));
        assert_eq!(parse_version("0.7"), Some((0, 7, 0)));
        assert_eq!(parse_version("1.2.3-beta.1"), Some((1, 2, 3)));
        assert_eq!(parse_version("0.13.0-beta"), Some((0, 13, 0)));
        assert_eq!(parse_version("0.14.2,"), Some((0, 14, 2)));
        assert_eq!(parse_version("1.2.3.4"), None);
        assert_eq!(parse_version("kimi"), None);
    }
}
