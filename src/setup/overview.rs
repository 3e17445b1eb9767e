//! `taw tmux status`: one screen on the plugin in this server: what is
//! loaded, which binary and where it came from, the config file, the
//! status marks, the PATH entries, the web server, the watchers, and what
//! the last load said.

use super::{ServerState, login_path, say};
use crate::config::Config;
use crate::envelope::{Result, answers};
use crate::paths;
use crate::tmux::options::{self, bookkeeping};
use crate::tmux::snapshot::Snapshot;
use crate::tmux::{LoadedBy, Tmux, status};
use crate::watch::attach::{self, Watch};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Overview {
    /// This taw's `--version` words.
    pub taw: String,
    pub tmux: String,
    /// The load in the server: version and binary; none when not loaded.
    pub loaded: Option<Loaded>,
    pub config: ConfigState,
    /// Each status format taw put its mark in, and whether it is still there.
    pub marks: Vec<Mark>,
    /// taw's bin folder in tmux's global PATH, when it is.
    pub path_dir: Option<String>,
    pub login_link: Option<login_path::LoginPath>,
    pub web: Web,
    /// Panes with a watcher of this taw, of another taw, and none.
    pub watchers: Watchers,
    /// What the last load said, a line each.
    pub said: Vec<String>,
    pub log: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Loaded {
    pub version: String,
    pub bin: String,
    /// `download`, `cargo`, `path` or `option`, as the entry script said.
    pub origin: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ConfigState {
    pub path: String,
    pub exists: bool,
    /// What is wrong with it, in a line; none when nothing is.
    pub problem: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Mark {
    pub format: String,
    pub present: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Web {
    pub on: bool,
    pub listen: String,
    pub listening: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Watchers {
    pub current: usize,
    pub older: usize,
    pub none: usize,
}

answers!(Overview => "tmux_status");

/// Reads it all.
pub(crate) fn read(tmux: &Tmux) -> Result<Overview> {
    let state = ServerState::read(tmux)?;
    let loaded_value = state.option(bookkeeping::LOADED);
    let loaded = LoadedBy::parse(&loaded_value).map(|by| Loaded {
        version: by.version,
        bin: by.bin,
        origin: Some(state.option(bookkeeping::ORIGIN)).filter(|o| !o.is_empty()),
    });
    let config = match Config::load() {
        Ok(config) => ConfigState {
            path: paths::display(&config.path),
            exists: config.path.exists(),
            problem: config.errors_summary(),
        },
        Err(error) => ConfigState {
            path: paths::display(&paths::config_file()),
            exists: true,
            problem: Some(error.message),
        },
    };
    let marks = state
        .option(bookkeeping::STATUS_SET)
        .lines()
        .filter(|name| !name.is_empty())
        .map(|name| Mark {
            format: name.to_string(),
            present: state
                .formats
                .get(name)
                .is_some_and(|value| value.contains(mark_word(name))),
        })
        .collect();
    let path_dir = Some(state.option(bookkeeping::PATH_DIR)).filter(|d| !d.is_empty());
    let login_link = match (&path_dir, paths::home_dir()) {
        (Some(_), Some(home)) => login_path::found(&home, &paths::bin_dir().join("taw")),
        _ => None,
    };
    let listen = state.option(options::WEB_LISTEN);
    let web = Web {
        on: options::is_on(&state.option(options::WEB)),
        listening: crate::web::parse_listen(&listen).is_ok_and(|address| {
            std::net::TcpStream::connect_timeout(&address, std::time::Duration::from_millis(200))
                .is_ok()
        }),
        listen,
    };
    let mut watchers = Watchers::default();
    for pane in Snapshot::read(tmux)?.unique_panes() {
        match attach::watch_of(pane) {
            Watch::Current => watchers.current += 1,
            Watch::Older => watchers.older += 1,
            _ => watchers.none += 1,
        }
    }
    Ok(Overview {
        taw: crate::version::line().to_string(),
        tmux: tmux
            .client_version()
            .unwrap_or_else(|_| state.tmux_version.clone()),
        loaded,
        config,
        marks,
        path_dir,
        login_link,
        web,
        watchers,
        said: state
            .option(bookkeeping::NOTES)
            .lines()
            .map(str::to_string)
            .collect(),
        log: paths::display(&say::load_log()),
    })
}

/// The word every mark of a format holds.
fn mark_word(format: &str) -> &'static str {
    if format == status::SUMMARY_FORMAT {
        "@agent-wizard-summary"
    } else {
        "@agent-wizard-window-mark"
    }
}

/// The screen: a line a thing, with what to do where something is off.
pub(crate) fn text(overview: &Overview) -> String {
    let mut out = Vec::new();
    let row = |out: &mut Vec<String>, name: &str, value: String| {
        out.push(format!("{name:<11} {value}"));
    };
    row(&mut out, "taw", overview.taw.clone());
    row(&mut out, "tmux", overview.tmux.clone());
    match &overview.loaded {
        None => row(
            &mut out,
            "loaded",
            "no: taw is not loaded into this server (run-shell agent-wizard.tmux, or taw tmux load)"
                .into(),
        ),
        Some(loaded) => {
            let from = match loaded.origin.as_deref() {
                Some("download") => " (downloaded release)",
                Some("cargo") => " (built with cargo)",
                Some("path") => " (taw on PATH)",
                Some("option") => " (@agent-wizard-bin)",
                _ => "",
            };
            row(&mut out, "loaded", format!("taw {}", loaded.version));
            row(&mut out, "binary", format!("{}{from}", loaded.bin));
        }
    }
    let config = &overview.config;
    row(
        &mut out,
        "config",
        match (&config.problem, config.exists) {
            (Some(problem), _) => problem.clone(),
            (None, true) => format!("{}: read, no errors", config.path),
            (None, false) => format!("{}: none, taw runs on its defaults", config.path),
        },
    );
    if overview.marks.is_empty() {
        row(&mut out, "marks", "none in the status line".into());
    }
    for mark in &overview.marks {
        row(
            &mut out,
            "marks",
            if mark.present {
                format!("in {}", mark.format)
            } else {
                format!(
                    "gone from {}: something set it after taw's load (a theme?); load taw after it, or taw tmux load again",
                    mark.format
                )
            },
        );
    }
    row(
        &mut out,
        "PATH",
        match &overview.path_dir {
            Some(dir) => format!("{dir} in front of tmux's global PATH (new panes)"),
            None => "taw's bin folder is not in tmux's PATH (@agent-wizard-path)".into(),
        },
    );
    if let Some(link) = &overview.login_link {
        row(
            &mut out,
            "login link",
            match link {
                login_path::LoginPath::Linked { link } => format!("{link} (for login shells)"),
                login_path::LoginPath::Theirs { path } => {
                    format!("{path} is a taw of someone else's; login shells may run it")
                }
                login_path::LoginPath::Nowhere { add } => {
                    format!("none; add `{add}` to your shell's profile")
                }
                login_path::LoginPath::Off => "off (@agent-wizard-login-link)".into(),
            },
        );
    }
    let web = &overview.web;
    row(
        &mut out,
        "web",
        match (web.on, web.listening) {
            (true, true) => format!("on, serving http://{}", web.listen),
            (true, false) => format!("on, but nothing listens at {}", web.listen),
            (false, true) => format!("off, but something listens at {}", web.listen),
            (false, false) => "off (@agent-wizard-web)".into(),
        },
    );
    let watchers = &overview.watchers;
    let mut watched = format!("{} panes watched", watchers.current);
    if watchers.older > 0 {
        watched.push_str(&format!(
            ", {} by an older taw (taw watch attach-all --restart)",
            watchers.older
        ));
    }
    if watchers.none > 0 {
        watched.push_str(&format!(", {} not watched", watchers.none));
    }
    row(&mut out, "watchers", watched);
    if overview.said.is_empty() {
        row(&mut out, "last load", "said nothing".into());
    }
    for line in &overview.said {
        row(&mut out, "last load", line.clone());
    }
    row(&mut out, "log", overview.log.clone());
    out.push(String::new());
    out.join("\n")
}
