//! Images into an agent: `image paste` reads the clipboard's PNG and hands
//! it to `image receive`, here or on a machine of `[machines]` over ssh;
//! `image receive` keeps it under `<state>/images/` and pastes its path
//! into the pane, as an agent takes a dropped file.

use crate::envelope::{ErrorCode, Result, TawError, answers};
use crate::exec::{Failure, Program};
use crate::tmux::pane::{self as tmux_pane, Buffer};
use crate::tmux::{Batch, Tmux};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Images older than this go when another comes.
const KEEP_FOR: Duration = Duration::from_secs(7 * 24 * 3600);
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
pub(crate) struct ImageReceived {
    pub pane: String,
    pub path: String,
}

answers!(ImageReceived => "image_received");

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ImagePasted {
    pub pane: String,
    pub machine: Option<String>,
    pub path: String,
}

answers!(ImagePasted => "image_pasted");

/// The path as it is pasted: a backslash before each space.
fn pasted_words(path: &Path) -> String {
    path.display().to_string().replace(' ', "\\ ")
}

/// `image-<digits>.png` or `image-<digits>-<digits>.png`: taw's own.
fn is_taws_image(name: &str) -> bool {
    let Some(middle) = name
        .strip_prefix("image-")
        .and_then(|rest| rest.strip_suffix(".png"))
    else {
        return false;
    };
    let mut parts = middle.split('-');
    let digits = |part: Option<&str>| {
        part.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let first = parts.next();
    let second = parts.next();
    digits(first) && (second.is_none() || digits(second)) && parts.next().is_none()
}

/// Removes taw's images older than a week.
fn remove_old(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_taws_image(&name) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|at| now.duration_since(at).ok())
            .is_some_and(|age| age > KEEP_FOR);
        if old {
            // One left behind goes at a later receive.
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `<state>/images/`, made private; a link there is refused.
fn images_dir() -> Result<PathBuf> {
    let dir = crate::paths::state_dir().join("images");
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(TawError::invalid_argument(format!(
            "{} is a symbolic link; taw writes images only into a folder of its own",
            dir.display()
        )));
    }
    crate::paths::make_private_dir(&dir)
        .map_err(|e| TawError::io(format!("could not make {}: {e}", dir.display())))?;
    use std::os::unix::fs::PermissionsExt;
    // Each image is written 0600 itself, so a folder left with other modes
    // shows names only, never an image's bytes.
    let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
    Ok(dir)
}

/// `taw image receive --pane P --bytes N`: `image` is kept, its path pasted.
pub(crate) fn receive(
    tmux: &Tmux,
    pane: u32,
    public: &str,
    expected: u64,
    image: &[u8],
) -> Result<ImageReceived> {
    if image.len() as u64 != expected {
        return Err(TawError::invalid_argument(format!(
            "the image did not arrive whole: {} of {expected} bytes; nothing was written or pasted",
            image.len()
        )));
    }
    if !image.starts_with(PNG_MAGIC) {
        return Err(TawError::invalid_argument(
            "what arrived is no PNG image; nothing was written or pasted",
        ));
    }
    tmux_pane::read_values(tmux, pane, &[])?;
    let dir = images_dir()?;
    remove_old(&dir);
    let stamp = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut path = dir.join(format!("image-{stamp}.png"));
    let mut n = 1;
    loop {
        match crate::paths::write_new_mode(&path, image, 0o600) {
            Ok(()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => {
                path = dir.join(format!("image-{stamp}-{n}.png"));
                n += 1;
            }
            Err(e) => {
                return Err(TawError::io(format!(
                    "could not write {}: {e}",
                    path.display()
                )));
            }
        }
    }
    let buffer = Buffer::named();
    let batch = Batch::of(vec![buffer.load(), buffer.paste(pane, true)]);
    if let Err(error) = tmux.run_with_input(&batch, pasted_words(&path).into_bytes()) {
        // Tidying only: the paste's own error is what is answered.
        let _ = std::fs::remove_file(&path);
        let _ = tmux.run_one(buffer.delete());
        return Err(error);
    }
    Ok(ImageReceived {
        pane: public.to_string(),
        path: path.display().to_string(),
    })
}

/// The clipboard tool of this machine, as argv.
fn clipboard_tool() -> Result<Vec<&'static str>> {
    if cfg!(target_os = "macos") {
        return Ok(vec!["pngpaste", "-"]);
    }
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("WAYLAND_DISPLAY") {
        return Ok(vec!["wl-paste", "--no-newline", "--type", "image/png"]);
    }
    if set("DISPLAY") {
        return Ok(vec![
            "xclip",
            "-selection",
            "clipboard",
            "-target",
            "image/png",
            "-out",
        ]);
    }
    Err(TawError::not_found(
        "no clipboard to read: neither WAYLAND_DISPLAY nor DISPLAY is set",
    ))
}

/// The clipboard's PNG.
pub(crate) fn clipboard_png() -> Result<Vec<u8>> {
    let tool = clipboard_tool()?;
    let name = tool[0];
    let output = Program::new(name)
        .args(&tool[1..])
        .limit(Some(crate::clock::limits().clipboard))
        .output()
        .map_err(|failure| match failure {
            Failure::NotFound => TawError::new(
                ErrorCode::Unsupported,
                format!("{name} is not installed: taw reads the clipboard with it"),
            ),
            Failure::TimedOut(_) => TawError::new(
                ErrorCode::Timeout,
                format!("{name} did not answer within 10 s"),
            ),
            Failure::Io(error) => TawError::new(
                ErrorCode::Unsupported,
                format!("{name} could not be run: {error}"),
            ),
        })?;
    if !output.status.success() || !output.stdout.starts_with(PNG_MAGIC) {
        return Err(TawError::not_found("no image on the clipboard"));
    }
    Ok(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_taws_own_images_are_removed() {
        assert!(is_taws_image("image-1790000000000.png"));
        assert!(is_taws_image("image-1790000000000-2.png"));
        assert!(!is_taws_image("image-.png"));
        assert!(!is_taws_image("image-12-3-4.png"));
        assert!(!is_taws_image("photo.png"));
        assert!(!is_taws_image("image-12.jpg"));
    }

    #[test]
    fn a_space_in_the_path_is_backslashed() {
        assert_eq!(pasted_words(Path::new("/a b/c d.png")), "/a\\ b/c\\ d.png");
    }
}
