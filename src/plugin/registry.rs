//! The plugins taw knows: `<state>/plugins/registry.json`, a list of where
//! each plugin's manifest is, whether it is enabled, and where it came
//! from. Every read takes each manifest afresh (an edited linked plugin is
//! seen at once); a manifest that cannot be read stays listed, with the
//! reason as a warning. Written atomically.

use super::manifest::{self, Manifest};
use crate::envelope::{ErrorCode, Result, TawError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where a plugin came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Source {
    /// `local` (linked) or `github` (installed).
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subdir: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_unix_ms: Option<u64>,
}

impl Source {
    pub(crate) fn local() -> Source {
        Source {
            kind: "local".into(),
            owner: None,
            repo: None,
            subdir: None,
            requested_ref: None,
            resolved_commit: None,
            managed_path: None,
            installed_unix_ms: None,
        }
    }
}

/// One plugin as the registry keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub plugin_id: String,
    pub manifest_path: String,
    pub plugin_root: String,
    pub enabled: bool,
    pub source: Source,
}

/// herdr's InstalledPluginInfo: the entry with its manifest read now.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PluginInfo {
    #[serde(flatten)]
    pub manifest: Manifest,
    pub manifest_path: String,
    pub plugin_root: String,
    pub enabled: bool,
    pub source: Source,
}

impl PluginInfo {
    /// Whether its manifest could be read now.
    pub(crate) fn available(&self) -> bool {
        !self
            .manifest
            .warnings
            .iter()
            .any(|w| w.starts_with(UNAVAILABLE))
    }
}

const UNAVAILABLE: &str = "manifest unavailable: ";

/// `<state>/plugins`.
pub(crate) fn plugins_dir() -> PathBuf {
    crate::paths::state_dir().join("plugins")
}

fn registry_path() -> PathBuf {
    plugins_dir().join("registry.json")
}

/// The entries, in id order.
pub(crate) fn entries() -> Result<Vec<Entry>> {
    let path = registry_path();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(TawError::new(
                ErrorCode::PluginRegistryLoadFailed,
                format!("{}: cannot be read: {error}", path.display()),
            ));
        }
    };
    serde_json::from_str(&text).map_err(|error| {
        TawError::new(
            ErrorCode::PluginRegistryLoadFailed,
            format!("{}: not a registry taw wrote: {error}", path.display()),
        )
    })
}

/// Writes the entries, sorted by id, in one atomic write.
pub(crate) fn save(mut entries: Vec<Entry>) -> Result<()> {
    entries.sort_by(|a, b| a.plugin_id.cmp(&b.plugin_id));
    let path = registry_path();
    let text = serde_json::to_string_pretty(&entries).unwrap_or_default() + "\n";
    crate::paths::write_private(&path, text.as_bytes()).map_err(|error| {
        TawError::new(
            ErrorCode::PluginRegistrySaveFailed,
            format!("{}: cannot be written: {error}", path.display()),
        )
    })
}

/// The herdr version taw answers for: `[plugins] compat_herdr_version`.
pub(crate) fn compat_version() -> String {
    crate::config::Config::load_or_defaults()
        .0
        .get(&crate::config::schema::PLUGINS_COMPAT_HERDR_VERSION)
}

/// Every plugin with its manifest read now.
pub(crate) fn plugins() -> Result<Vec<PluginInfo>> {
    let compat = compat_version();
    Ok(entries()?.into_iter().map(|e| info(e, &compat)).collect())
}

/// The plugin with this id.
pub(crate) fn plugin(id: &str) -> Result<PluginInfo> {
    plugins()?
        .into_iter()
        .find(|p| p.manifest.plugin_id == id)
        .ok_or_else(|| not_found(id))
}

pub(crate) fn not_found(id: &str) -> TawError {
    TawError::new(
        ErrorCode::PluginNotFound,
        format!("no plugin {id:?}; `taw plugin list` shows them"),
    )
}

fn info(entry: Entry, compat: &str) -> PluginInfo {
    let manifest = match manifest::load(Path::new(&entry.manifest_path), compat) {
        Ok(manifest) => manifest,
        Err(error) => Manifest {
            plugin_id: entry.plugin_id.clone(),
            name: entry.plugin_id.clone(),
            version: String::new(),
            min_herdr_version: String::new(),
            description: None,
            platforms: None,
            build: Vec::new(),
            startup: Vec::new(),
            actions: Vec::new(),
            events: Vec::new(),
            panes: Vec::new(),
            link_handlers: Vec::new(),
            warnings: vec![format!("{UNAVAILABLE}{}", error.message)],
        },
    };
    PluginInfo {
        manifest,
        manifest_path: entry.manifest_path,
        plugin_root: entry.plugin_root,
        enabled: entry.enabled,
        source: entry.source,
    }
}

/// Holds the registry's lock while a change reads and writes it, so two
/// verbs at once cannot lose each other's record.
fn locked<T>(change: impl FnOnce() -> Result<T>) -> Result<T> {
    let path = plugins_dir().join(".registry.lock");
    let _turn = crate::paths::take_turn(&path).map_err(|error| {
        TawError::new(
            ErrorCode::PluginRegistrySaveFailed,
            format!("{}: {error}", path.display()),
        )
    })?;
    change()
}

/// Puts a plugin in (or replaces the entry of the same id).
pub(crate) fn register(entry: Entry) -> Result<()> {
    locked(|| register_unlocked(entry))
}

fn register_unlocked(entry: Entry) -> Result<()> {
    let mut all = entries()?;
    all.retain(|e| e.plugin_id != entry.plugin_id);
    all.push(entry);
    save(all)
}

/// Takes a plugin out; whether it was there.
pub(crate) fn unregister(id: &str) -> Result<bool> {
    locked(|| unregister_unlocked(id))
}

fn unregister_unlocked(id: &str) -> Result<bool> {
    let mut all = entries()?;
    let before = all.len();
    all.retain(|e| e.plugin_id != id);
    let removed = all.len() != before;
    if removed {
        save(all)?;
    }
    Ok(removed)
}

/// Enables or disables a plugin.
pub(crate) fn set_enabled(id: &str, enabled: bool) -> Result<()> {
    locked(|| set_enabled_unlocked(id, enabled))
}

fn set_enabled_unlocked(id: &str, enabled: bool) -> Result<()> {
    let mut all = entries()?;
    let entry = all
        .iter_mut()
        .find(|e| e.plugin_id == id)
        .ok_or_else(|| not_found(id))?;
    entry.enabled = enabled;
    save(all)
}

/// The longest folder name [`encode_id`] gives: file systems take 255
/// bytes, and an id of 120 capitals would be 360.
const FOLDER_NAME_MAX: usize = 200;

/// A plugin id as a folder name, herdr's way: `[a-z0-9._-]` kept, every
/// other byte `%XX`, a trailing dot escaped; one too long for a folder is
/// cut and ends in a hash of the whole id, so two ids never share one.
pub(crate) fn encode_id(id: &str) -> String {
    let mut out = String::new();
    for byte in id.bytes() {
        match byte {
            b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-' => out.push(byte as char),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    if out.ends_with('.') {
        out.pop();
        out.push_str("%2E");
    }
    if out.len() > FOLDER_NAME_MAX {
        // ASCII only: any byte is a boundary.
        out.truncate(FOLDER_NAME_MAX - 17);
        out.push_str(&format!("~{:016x}", crate::text::fnv1a64(id.as_bytes())));
    }
    out
}

/// `<config>/plugins/<id>`, made on demand.
pub(crate) fn config_dir(id: &str) -> Result<PathBuf> {
    make(
        crate::paths::config_dir()
            .join("plugins")
            .join(encode_id(id)),
    )
}

/// `<state>/plugins/state/<id>`, made on demand.
pub(crate) fn state_dir(id: &str) -> Result<PathBuf> {
    make(plugins_dir().join("state").join(encode_id(id)))
}

fn make(dir: PathBuf) -> Result<PathBuf> {
    crate::paths::make_private_dir(&dir)
        .map_err(|error| TawError::io(format!("cannot make {}: {error}", dir.display())))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_as_folder_names() {
        assert_eq!(encode_id("qu8n.rename"), "qu8n.rename");
        assert_eq!(encode_id("Acme:x"), "%41cme%3Ax");
        assert_eq!(encode_id("a."), "a%2E");
        // 120 capitals: 360 bytes encoded, cut to a folder's size.
        let long = "A".repeat(120);
        let folder = encode_id(&long);
        assert_eq!(folder.len(), 200);
        assert!(folder.starts_with("%41%41"), "{folder}");
        assert_ne!(folder, encode_id(&format!("{}B", "A".repeat(119))));
    }
}
