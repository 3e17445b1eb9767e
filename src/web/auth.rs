//! Who may use the web state API: the holder of a random token made at
//! first start and kept in `<state>/web/token` (mode 0600), sent as
//! `Authorization: Bearer <token>` or, for a WebSocket or the page's first
//! load, `?token=`. Compared in constant time.

use crate::envelope::{Result, TawError};
use std::path::PathBuf;

/// The token file.
pub(crate) fn token_file() -> PathBuf {
    crate::paths::state_dir().join("web").join("token")
}

/// The token, made (32 random bytes, as hex) when there is none yet.
pub(crate) fn token() -> Result<String> {
    let path = token_file();
    if let Ok(text) = std::fs::read_to_string(&path) {
        let text = text.trim().to_string();
        if text.len() >= 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(text);
        }
    }
    let mut bytes = [0u8; 32];
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| TawError::io(format!("no random bytes for the web token: {e}")))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent() {
        crate::paths::make_private_dir(dir)
            .map_err(|e| TawError::io(format!("{} cannot be made: {e}", dir.display())))?;
    }
    crate::paths::write_atomic_mode(&path, format!("{token}\n").as_bytes(), Some(0o600))
        .map_err(|e| TawError::io(format!("{} cannot be written: {e}", path.display())))?;
    Ok(token)
}

/// Whether `given` is `token`, in time that does not depend on where
/// they differ.
pub(crate) fn same(given: &str, token: &str) -> bool {
    let (a, b) = (given.as_bytes(), token.as_bytes());
    let mut differ = a.len() ^ b.len();
    for (i, byte) in b.iter().enumerate() {
        differ |= usize::from(a.get(i).copied().unwrap_or(0) ^ byte);
    }
    differ == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abd", "abc"));
        assert!(!same("ab", "abc"));
        assert!(!same("abcd", "abc"));
        assert!(!same("", "abc"));
    }
}
