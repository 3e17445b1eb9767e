//! `-F` formats for `list-*` commands, and the parsing of what they print.
//!
//! Names, titles and paths can hold almost anything: spaces, tabs, quotes,
//! `#`, `;`, newlines in a path, a title a program chose to confuse us. So a
//! row's fields are joined by a separator no text can forge: control
//! characters tmux prints as they are, followed by a nonce chosen afresh by
//! each taw process. A row ends with another such marker. Several commands
//! can share one invocation because each row starts with its command's tag.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// This process's nonce: every row it asks tmux for is marked with it.
pub(crate) fn nonce() -> &'static str {
    static NONCE: OnceLock<String> = OnceLock::new();
    NONCE.get_or_init(|| {
        // RandomState is seeded from the system's randomness once per process.
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        // Hex only: no character tmux's format parser or a shell cares about.
        format!("{:016x}", hasher.finish())
    })
}

fn field_separator(nonce: &str) -> String {
    format!("\u{1f}{nonce}\u{1f}")
}

fn row_end(nonce: &str) -> String {
    format!("\u{1e}{nonce}\u{1e}")
}

/// The line printed before section `index` of [`super::Tmux::run_apart`].
pub(crate) fn section_marker(index: usize) -> String {
    format!("\u{1d}{}:{index}\u{1d}", nonce())
}

/// Splits output at the section markers into `count` sections.
pub(crate) fn split_sections(output: &str, count: usize) -> Vec<String> {
    let mut sections = vec![String::new(); count];
    let mut current: Option<usize> = None;
    // A marker is `GS nonce : index GS`: known by its prefix, and its index
    // read, rather than every line compared with every marker.
    let prefix = format!("\u{1d}{}:", nonce());
    for line in output.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let marked = bare
            .strip_prefix(prefix.as_str())
            .and_then(|rest| rest.strip_suffix('\u{1d}'))
            .and_then(|index| index.parse::<usize>().ok())
            .filter(|index| *index < count && bare == section_marker(*index));
        if let Some(index) = marked {
            current = Some(index);
            continue;
        }
        if let Some(index) = current {
            sections[index].push_str(line);
        }
    }
    sections
}

/// The fields one command prints per row, and the tag its rows carry.
#[derive(Debug, Clone)]
pub(crate) struct RowFormat {
    pub tag: &'static str,
    /// tmux format expressions, one per field (`#{pane_id}`...).
    pub fields: Vec<String>,
}

impl RowFormat {
    /// A format of tmux variables: `pane_id` becomes `#{pane_id}`. An
    /// option's name (`@agent_state`) reads the option.
    pub(crate) fn of(tag: &'static str, variables: &[&str]) -> RowFormat {
        RowFormat {
            tag,
            fields: variables
                .iter()
                .map(|name| format!("#{{{name}}}"))
                .collect(),
        }
    }

    /// The `-F` argument: tag, then each field, separated, then the row end.
    pub(crate) fn format(&self) -> String {
        self.format_marked(nonce())
    }

    /// [`RowFormat::format`] marked with another nonce: a format that
    /// another process (a key binding's popup) expands and reads.
    pub(crate) fn format_marked(&self, nonce: &str) -> String {
        let separator = field_separator(nonce);
        let mut format = String::from(self.tag);
        for field in &self.fields {
            format.push_str(&separator);
            format.push_str(field);
        }
        format.push_str(&row_end(nonce));
        format
    }
}

/// One row: its fields in the order of its [`RowFormat`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    pub tag: String,
    pub fields: Vec<String>,
}

impl Row {
    pub(crate) fn get(&self, index: usize) -> &str {
        self.fields.get(index).map(String::as_str).unwrap_or("")
    }
}

/// Splits what one invocation printed into rows. Text outside rows (a
/// command that prints something of its own) is left out; a row with the
/// wrong number of fields for its tag is an error, since it means tmux
/// printed something we do not understand.
pub(crate) fn parse_rows(output: &str, formats: &[RowFormat]) -> Result<Vec<Row>, String> {
    parse_rows_marked(output, formats, nonce())
}

/// [`parse_rows`] of rows marked with `nonce` ([`RowFormat::format_marked`]).
pub(crate) fn parse_rows_marked(
    output: &str,
    formats: &[RowFormat],
    nonce: &str,
) -> Result<Vec<Row>, String> {
    let separator = field_separator(nonce);
    let end = row_end(nonce);
    let mut rows = Vec::new();
    for chunk in output.split(&end) {
        // Each row is followed by the newline tmux prints after it.
        let chunk = chunk.strip_prefix('\n').unwrap_or(chunk);
        if !chunk.contains(&separator) {
            continue;
        }
        let mut parts = chunk.split(&separator);
        let head = parts.next().unwrap_or("");
        // Anything a command printed before this row sits before its tag.
        let Some(format) = formats.iter().find(|format| head.ends_with(format.tag)) else {
            return Err(format!("tmux printed a row of an unknown kind: {head:?}"));
        };
        let fields: Vec<String> = parts.map(str::to_string).collect();
        if fields.len() != format.fields.len() {
            return Err(format!(
                "tmux printed {} fields for a {} row, {} were asked for",
                fields.len(),
                format.tag,
                format.fields.len()
            ));
        }
        rows.push(Row {
            tag: format.tag.to_string(),
            fields,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panes() -> RowFormat {
        RowFormat::of("P", &["pane_id", "pane_title"])
    }
    fn sessions() -> RowFormat {
        RowFormat::of("S", &["session_id"])
    }

    /// What tmux would print for these rows: the format with each field's
    /// expression replaced by its value, then a newline.
    fn printed(format: &RowFormat, values: &[&str]) -> String {
        let mut line = format.format();
        for (field, value) in format.fields.iter().zip(values) {
            line = line.replacen(field.as_str(), value, 1);
        }
        line + "\n"
    }

    #[test]
    fn parses_hostile_text() {
        let title = "a\tb \"c\" 'd' #{e} ;\nf\u{1f}g\u{1e}h ünï";
        let output = printed(&sessions(), &["$0"])
            + &printed(&panes(), &["%1", title])
            + &printed(&panes(), &["%2", ""]);
        let rows = parse_rows(&output, &[sessions(), panes()]).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].tag, "S");
        assert_eq!(rows[1].fields, vec!["%1".to_string(), title.to_string()]);
        assert_eq!(rows[2].get(1), "");
    }

    #[test]
    fn wrong_field_count_is_an_error() {
        let output = printed(&sessions(), &["$0"]);
        let short = RowFormat::of("S", &["session_id", "session_name"]);
        assert!(parse_rows(&output, &[short]).is_err());
    }

    #[test]
    fn sections_split_at_markers() {
        let output = format!(
            "{}\na\nb\n{}\n{}\nc\n",
            section_marker(0),
            section_marker(1),
            section_marker(2)
        );
        assert_eq!(split_sections(&output, 3), vec!["a\nb\n", "", "c\n"]);
    }

    #[test]
    fn empty_output_has_no_rows() {
        assert_eq!(parse_rows("", &[panes()]).unwrap(), vec![]);
    }
}
