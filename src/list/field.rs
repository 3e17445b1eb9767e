//! A one-line text field with herdr's fixed editing keys (readline's):
//! ctrl-a/e, ctrl-b/f, alt-b/f, ctrl-d, backspace, alt-d, alt-backspace,
//! ctrl-backspace, ctrl-w, ctrl-u, ctrl-k, ctrl-y. Not `[keys]` entries.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Field {
    chars: Vec<char>,
    /// The cursor, a character index.
    cursor: usize,
    /// What the last kill took, for ctrl-y.
    killed: String,
}

/// What a key did to the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edit {
    /// The text changed.
    Changed,
    /// Only the cursor moved (or nothing happened that matters).
    Moved,
    /// Not an editing key: the caller's to handle.
    NotMine,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric()
}

impl Field {
    pub(crate) fn with(text: &str) -> Field {
        let chars: Vec<char> = text.chars().collect();
        Field {
            cursor: chars.len(),
            chars,
            killed: String::new(),
        }
    }

    pub(crate) fn text(&self) -> String {
        self.chars.iter().collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    #[cfg(test)]
    pub(crate) fn cursor(&self) -> usize {
        self.cursor
    }

    /// The columns the text before the cursor takes (a wide character two).
    pub(crate) fn cursor_column(&self) -> usize {
        use unicode_width::UnicodeWidthChar;
        self.chars[..self.cursor]
            .iter()
            .map(|c| c.width().unwrap_or(0))
            .sum()
    }

    pub(crate) fn clear(&mut self) {
        self.chars.clear();
        self.cursor = 0;
    }

    fn word_left(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && !is_word(self.chars[at - 1]) {
            at -= 1;
        }
        while at > 0 && is_word(self.chars[at - 1]) {
            at -= 1;
        }
        at
    }

    fn word_right(&self) -> usize {
        let mut at = self.cursor;
        while at < self.chars.len() && !is_word(self.chars[at]) {
            at += 1;
        }
        while at < self.chars.len() && is_word(self.chars[at]) {
            at += 1;
        }
        at
    }

    fn kill(&mut self, from: usize, to: usize) -> Edit {
        if from == to {
            return Edit::Moved;
        }
        self.killed = self.chars.drain(from..to).collect();
        self.cursor = from;
        Edit::Changed
    }

    fn insert(&mut self, text: &str) -> Edit {
        for c in text.chars() {
            self.chars.insert(self.cursor, c);
            self.cursor += 1;
        }
        Edit::Changed
    }

    /// Applies an editing key.
    pub(crate) fn key(&mut self, key: KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let len = self.chars.len();
        let moved = |field: &mut Field, to: usize| {
            field.cursor = to;
            Edit::Moved
        };
        match key.code {
            KeyCode::Char('a') if ctrl => moved(self, 0),
            KeyCode::Char('e') if ctrl => moved(self, len),
            KeyCode::Char('b') if ctrl => moved(self, self.cursor.saturating_sub(1)),
            KeyCode::Char('f') if ctrl => moved(self, (self.cursor + 1).min(len)),
            KeyCode::Char('b') if alt => moved(self, self.word_left()),
            KeyCode::Char('f') if alt => moved(self, self.word_right()),
            KeyCode::Char('d') if ctrl => {
                let to = (self.cursor + 1).min(len);
                self.kill(self.cursor, to)
            }
            KeyCode::Char('d') if alt => self.kill(self.cursor, self.word_right()),
            KeyCode::Char('w') if ctrl => self.kill(self.word_left(), self.cursor),
            // Most terminals send ctrl+backspace as ^H: herdr's word delete.
            KeyCode::Char('h') if ctrl => self.kill(self.word_left(), self.cursor),
            KeyCode::Backspace if ctrl || alt => self.kill(self.word_left(), self.cursor),
            KeyCode::Backspace => self.kill(self.cursor.saturating_sub(1), self.cursor),
            KeyCode::Char('u') if ctrl => self.kill(0, self.cursor),
            KeyCode::Char('k') if ctrl => self.kill(self.cursor, len),
            KeyCode::Char('y') if ctrl => {
                let text = self.killed.clone();
                self.insert(&text)
            }
            KeyCode::Delete => self.kill(self.cursor, (self.cursor + 1).min(len)),
            KeyCode::Left => moved(self, self.cursor.saturating_sub(1)),
            KeyCode::Right => moved(self, (self.cursor + 1).min(len)),
            KeyCode::Home => moved(self, 0),
            KeyCode::End => moved(self, len),
            KeyCode::Char(c) if !ctrl && !alt => self.insert(&c.to_string()),
            _ => Edit::NotMine,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(field: &mut Field, code: KeyCode, modifiers: KeyModifiers) -> Edit {
        field.key(KeyEvent::new(code, modifiers))
    }

    fn typed(text: &str) -> Field {
        let mut field = Field::default();
        for c in text.chars() {
            press(&mut field, KeyCode::Char(c), KeyModifiers::NONE);
        }
        field
    }

    #[test]
    fn typing_moving_and_deleting() {
        let mut field = typed("hello world");
        assert_eq!(field.text(), "hello world");
        press(&mut field, KeyCode::Char('a'), KeyModifiers::CONTROL);
        press(&mut field, KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(field.text(), "ello world");
        press(&mut field, KeyCode::Char('e'), KeyModifiers::CONTROL);
        press(&mut field, KeyCode::Char('w'), KeyModifiers::CONTROL);
        assert_eq!(field.text(), "ello ");
        press(&mut field, KeyCode::Char('y'), KeyModifiers::CONTROL);
        assert_eq!(field.text(), "ello world");
        press(&mut field, KeyCode::Char('b'), KeyModifiers::ALT);
        assert_eq!(field.cursor(), 5);
        press(&mut field, KeyCode::Char('k'), KeyModifiers::CONTROL);
        assert_eq!(field.text(), "ello ");
        press(&mut field, KeyCode::Backspace, KeyModifiers::ALT);
        assert_eq!(field.text(), "");
        assert_eq!(
            press(&mut field, KeyCode::Enter, KeyModifiers::NONE),
            Edit::NotMine
        );
    }

    #[test]
    fn words_and_unicode() {
        let mut field = typed("één twee");
        press(&mut field, KeyCode::Char('a'), KeyModifiers::CONTROL);
        press(&mut field, KeyCode::Char('d'), KeyModifiers::ALT);
        assert_eq!(field.text(), " twee");
        press(&mut field, KeyCode::Char('u'), KeyModifiers::CONTROL);
        assert_eq!(field.text(), " twee");
    }
}
