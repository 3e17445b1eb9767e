//! Which taw this is: the version, and the commit of a build from git.

/// `taw --version`'s words after the name: the version, and the commit of
/// a build from a git checkout (`0.1.0 (c0d766c1a2b3)`; `build.rs` finds
/// it). The plugin's entry script compares the first word with its
/// checkout's version.
pub(crate) fn line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| match env!("TAW_COMMIT") {
        "" => env!("CARGO_PKG_VERSION").to_string(),
        commit => format!("{} ({commit})", env!("CARGO_PKG_VERSION")),
    })
}
