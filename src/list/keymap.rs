//! The popup's keys: a preset (`modal`, vim-like; `search`, type to filter
//! as in fzf), with `[keys]` entries of config.toml replacing a preset's
//! keys for their action. Keys are written in herdr's syntax (`ctrl+d`,
//! `shift+tab`, `g`), read through `crate::tmux::keys`.

use crate::config::Config;
use crate::config::schema;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Action {
    Go,
    Filter,
    NextUp,
    Rename,
    Close,
    NewSession,
    Help,
    Quit,
    Up,
    Down,
    Top,
    Bottom,
    Expand,
    Collapse,
    TogglePreview,
    NextSession,
    PreviousSession,
    Options,
    PasteImage,
}

impl Action {
    pub(crate) fn parse(name: &str) -> Option<Action> {
        Some(match schema::action_alias(name) {
            "go" => Action::Go,
            "filter" => Action::Filter,
            "next_up" => Action::NextUp,
            "rename" => Action::Rename,
            "close" => Action::Close,
            "new_session" => Action::NewSession,
            "help" => Action::Help,
            "quit" => Action::Quit,
            "up" => Action::Up,
            "down" => Action::Down,
            "top" => Action::Top,
            "bottom" => Action::Bottom,
            "expand" => Action::Expand,
            "collapse" => Action::Collapse,
            "toggle_preview" => Action::TogglePreview,
            "next_session" => Action::NextSession,
            "previous_session" => Action::PreviousSession,
            "options" => Action::Options,
            "paste_image" => Action::PasteImage,
            _ => return None,
        })
    }

    /// What the help screen says it does.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Action::Go => "go to it",
            Action::Filter => "filter",
            Action::NextUp => "next agent that needs you (else the next agent)",
            Action::Rename => "rename",
            Action::Close => "close (asks first)",
            Action::NewSession => "new session",
            Action::Help => "this help",
            Action::Quit => "close the popup",
            Action::Up => "up",
            Action::Down => "down",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::Expand => "open a session",
            Action::Collapse => "fold a session",
            Action::TogglePreview => "preview on/off",
            Action::NextSession => "next session",
            Action::PreviousSession => "previous session",
            Action::Options => "the settings in use",
            Action::PasteImage => "paste the clipboard's image into the agent",
        }
    }

    pub(crate) const ALL: [Action; 19] = [
        Action::Go,
        Action::NextUp,
        Action::Filter,
        Action::Up,
        Action::Down,
        Action::Top,
        Action::Bottom,
        Action::NextSession,
        Action::PreviousSession,
        Action::Expand,
        Action::Collapse,
        Action::Rename,
        Action::Close,
        Action::NewSession,
        Action::PasteImage,
        Action::TogglePreview,
        Action::Options,
        Action::Help,
        Action::Quit,
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Preset {
    Modal,
    Search,
}

/// A key as the popup matches it: its code and its ctrl/alt (shift is in
/// the character, or in the named key such as BackTab).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
}

impl Key {
    pub(crate) fn of(event: KeyEvent) -> Key {
        let m = event.modifiers;
        let is_char = matches!(event.code, KeyCode::Char(_));
        Key {
            code: event.code,
            ctrl: m.contains(KeyModifiers::CONTROL),
            alt: m.contains(KeyModifiers::ALT),
            shift: m.contains(KeyModifiers::SHIFT) && !is_char && event.code != KeyCode::BackTab,
        }
    }

    /// A key in herdr's syntax (or tmux's), if it names one.
    pub(crate) fn parse(spec: &str) -> Option<Key> {
        let tmux = crate::tmux::keys::to_tmux(spec).ok()?;
        Key::from_tmux(&tmux)
    }

    /// tmux's spelling (`C-d`, `M-x`, `S-Up`, `BTab`, `Enter`, `a`), as
    /// tmux's options (`prefix`) and taw's key options write it.
    pub(crate) fn from_tmux(name: &str) -> Option<Key> {
        let mut key = Key {
            code: KeyCode::Null,
            ctrl: false,
            alt: false,
            shift: false,
        };
        let mut rest = name;
        loop {
            if let Some(r) = rest.strip_prefix("C-").filter(|r| !r.is_empty()) {
                key.ctrl = true;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("M-").filter(|r| !r.is_empty()) {
                key.alt = true;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("S-").filter(|r| !r.is_empty()) {
                key.shift = true;
                rest = r;
            } else {
                break;
            }
        }
        key.code = match rest {
            "Enter" => KeyCode::Enter,
            "Tab" => KeyCode::Tab,
            "BTab" => KeyCode::BackTab,
            "Escape" => KeyCode::Esc,
            "BSpace" => KeyCode::Backspace,
            "Space" => KeyCode::Char(' '),
            "Left" => KeyCode::Left,
            "Right" => KeyCode::Right,
            "Up" => KeyCode::Up,
            "Down" => KeyCode::Down,
            "Home" => KeyCode::Home,
            "End" => KeyCode::End,
            "PageUp" | "PPage" => KeyCode::PageUp,
            "PageDown" | "NPage" => KeyCode::PageDown,
            "IC" => KeyCode::Insert,
            "DC" => KeyCode::Delete,
            other if other.chars().count() == 1 => {
                let c = other.chars().next()?;
                // A terminal sends ctrl+letter as the lower-case letter.
                KeyCode::Char(if key.ctrl { c.to_ascii_lowercase() } else { c })
            }
            other => {
                let n: u8 = other.strip_prefix('F')?.parse().ok()?;
                KeyCode::F(n)
            }
        };
        if matches!(key.code, KeyCode::Char(_)) {
            key.shift = false;
        }
        Some(key)
    }
}

/// The keys of every action.
#[derive(Debug, Clone)]
pub(crate) struct Keymap {
    pub preset: Preset,
    bindings: Vec<(Key, Action)>,
    /// Keys a `[keys]` entry bound, which answer before the text field's.
    configured: Vec<Key>,
}

fn preset_keys(preset: Preset) -> Vec<(&'static str, Action)> {
    use Action::*;
    match preset {
        Preset::Modal => vec![
            ("enter", Go),
            ("/", Filter),
            ("tab", NextUp),
            ("r", Rename),
            ("x", Close),
            ("n", NewSession),
            ("?", Help),
            ("q", Quit),
            ("esc", Quit),
            ("ctrl+c", Quit),
            ("k", Up),
            ("up", Up),
            ("ctrl+p", Up),
            ("j", Down),
            ("down", Down),
            ("ctrl+n", Down),
            ("g", Top),
            ("home", Top),
            ("G", Bottom),
            ("end", Bottom),
            ("l", Expand),
            ("right", Expand),
            ("h", Collapse),
            ("left", Collapse),
            ("p", TogglePreview),
            ("J", NextSession),
            ("]", NextSession),
            ("K", PreviousSession),
            ("[", PreviousSession),
            ("o", Options),
            ("v", PasteImage),
        ],
        Preset::Search => vec![
            ("enter", Go),
            ("tab", NextUp),
            ("ctrl+r", Rename),
            ("ctrl+x", Close),
            ("ctrl+o", NewSession),
            ("f1", Help),
            ("esc", Quit),
            ("ctrl+c", Quit),
            ("ctrl+g", Quit),
            ("up", Up),
            ("ctrl+p", Up),
            ("ctrl+k", Up),
            ("down", Down),
            ("ctrl+n", Down),
            ("ctrl+j", Down),
            ("pageup", PreviousSession),
            ("pagedown", NextSession),
            ("alt+p", TogglePreview),
            ("ctrl+v", PasteImage),
        ],
    }
}

impl Keymap {
    pub(crate) fn new(preset: Preset, overrides: &[(Action, Vec<String>)]) -> Keymap {
        let overridden: Vec<Action> = overrides.iter().map(|(a, _)| *a).collect();
        let mut bindings: Vec<(Key, Action)> = preset_keys(preset)
            .into_iter()
            .filter(|(_, action)| !overridden.contains(action))
            .filter_map(|(spec, action)| Some((Key::parse(spec)?, action)))
            .collect();
        let mut configured = Vec::new();
        for (action, specs) in overrides {
            for spec in specs {
                if let Some(key) = Key::parse(spec) {
                    // A key given to an action here is no other action's.
                    bindings.retain(|(bound, _)| *bound != key);
                    bindings.insert(0, (key, *action));
                    configured.push(key);
                }
            }
        }
        Keymap {
            preset,
            bindings,
            configured,
        }
    }

    /// From config.toml: `[keys] preset` and the per-action entries.
    pub(crate) fn from_config(config: &Config) -> Keymap {
        let preset = if config.get(&crate::config::schema::KEYS_PRESET) == "search" {
            Preset::Search
        } else {
            Preset::Modal
        };
        let overrides: Vec<(Action, Vec<String>)> = config
            .table(&crate::config::schema::KEY_BINDINGS)
            .iter()
            .filter_map(|entry| {
                let action = Action::parse(&entry.key)?;
                let specs = match &entry.value {
                    crate::config::Value::Array(items) => items
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect(),
                    other => other.as_str().map(str::to_string).into_iter().collect(),
                };
                Some((action, specs))
            })
            .collect();
        Keymap::new(preset, &overrides)
    }

    pub(crate) fn action(&self, event: KeyEvent) -> Option<Action> {
        let key = Key::of(event);
        self.bindings
            .iter()
            .find(|(bound, _)| *bound == key)
            .map(|(_, action)| *action)
    }

    /// Whether a `[keys]` entry bound this key (it then answers before the
    /// text field's own editing keys).
    pub(crate) fn is_configured(&self, event: KeyEvent) -> bool {
        self.configured.contains(&Key::of(event))
    }

    /// The keys of an action, as written for the help screen.
    pub(crate) fn keys_of(&self, action: Action) -> Vec<String> {
        self.bindings
            .iter()
            .filter(|(_, a)| *a == action)
            .map(|(key, _)| describe(*key))
            .collect()
    }
}

/// A key as a person reads it: `ctrl+d`, `enter`, `G`.
pub(crate) fn describe(key: Key) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "enter".into(),
        KeyCode::Tab => "tab".into(),
        KeyCode::BackTab => "shift+tab".into(),
        KeyCode::Esc => "esc".into(),
        KeyCode::Backspace => "backspace".into(),
        KeyCode::Left => "left".into(),
        KeyCode::Right => "right".into(),
        KeyCode::Up => "up".into(),
        KeyCode::Down => "down".into(),
        KeyCode::Home => "home".into(),
        KeyCode::End => "end".into(),
        KeyCode::PageUp => "pageup".into(),
        KeyCode::PageDown => "pagedown".into(),
        KeyCode::Delete => "delete".into(),
        KeyCode::Insert => "insert".into(),
        KeyCode::F(n) => format!("f{n}"),
        _ => "?".into(),
    };
    let mut name = base;
    if key.shift {
        name = format!("shift+{name}");
    }
    if key.alt {
        name = format!("alt+{name}");
    }
    if key.ctrl {
        name = format!("ctrl+{name}");
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn herdr_and_tmux_spellings() {
        let key = Key::parse("ctrl+d").unwrap();
        assert_eq!((key.code, key.ctrl), (KeyCode::Char('d'), true));
        assert_eq!(Key::parse("shift+tab").unwrap().code, KeyCode::BackTab);
        assert_eq!(Key::parse("G").unwrap().code, KeyCode::Char('G'));
        assert_eq!(
            Key::parse("M-x").unwrap(),
            Key::of(event(KeyCode::Char('x'), KeyModifiers::ALT))
        );
        assert!(Key::parse("prefix+a").is_none());
        assert_eq!(describe(Key::parse("ctrl+r").unwrap()), "ctrl+r");
    }

    #[test]
    fn presets_and_overrides() {
        let modal = Keymap::new(Preset::Modal, &[]);
        assert_eq!(
            modal.action(event(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(Action::Down)
        );
        // Shift comes with an upper-case letter from some terminals.
        assert_eq!(
            modal.action(event(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(Action::Bottom)
        );
        let search = Keymap::new(Preset::Search, &[]);
        assert_eq!(
            search.action(event(KeyCode::Char('j'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            search.action(event(KeyCode::Char('n'), KeyModifiers::CONTROL)),
            Some(Action::Down)
        );
        // An entry replaces the preset's keys for its action, and takes its
        // key from any other action.
        let mine = Keymap::new(
            Preset::Modal,
            &[
                (Action::Rename, vec!["e".into()]),
                (Action::Close, vec!["ctrl+d".into()]),
            ],
        );
        assert_eq!(
            mine.action(event(KeyCode::Char('r'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            mine.action(event(KeyCode::Char('e'), KeyModifiers::NONE)),
            Some(Action::Rename)
        );
        assert!(mine.is_configured(event(KeyCode::Char('d'), KeyModifiers::CONTROL)));
        assert_eq!(mine.keys_of(Action::Close), ["ctrl+d"]);
    }
}
