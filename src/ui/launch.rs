//! `taw ui open`: the popup opened over a client, with `display-popup`,
//! at the size the plugin options say, centred.

use crate::envelope::{Result, TawError, answers};
use crate::tmux::Tmux;
use crate::tmux::callback::Callback;
use crate::tmux::commands::{self as cmd, ShellWord};
use crate::tmux::snapshot::Snapshot;
use serde::Serialize;

/// The geometry the popup was opened with.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct UiOpened {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

answers!(UiOpened => "ui_open");

const DEFAULT_WIDTH_PERCENT: u32 = 90;
const DEFAULT_HEIGHT_PERCENT: u32 = 85;

/// The popup's size on a client: a percentage of its width or height
/// (`80%`), or a number of cells, from the plugin options.
fn size(spec: &str, whole: u32, default_percent: u32) -> u32 {
    let spec = spec.trim();
    let cells = match spec.strip_suffix('%').map(str::parse::<u32>) {
        Some(Ok(percent)) => whole * percent.min(100) / 100,
        _ => match spec.parse::<u32>() {
            Ok(cells) => cells,
            Err(_) => whole * default_percent / 100,
        },
    };
    cells.clamp(10.min(whole), whole)
}

/// tmux 3.3 and later draw a popup without a border (`-B`).
fn frameless(version: &str) -> bool {
    let digits: String = version
        .trim_start_matches("next-")
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = digits.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= (3, 3)
}

/// The geometry of the popup on a client of `width` x `height`: centred.
/// tmux takes `-y` as the line below the popup.
pub(crate) fn geometry(
    width: u32,
    height: u32,
    w_spec: &str,
    h_spec: &str,
) -> (u32, u32, u32, u32) {
    let w = size(w_spec, width, DEFAULT_WIDTH_PERCENT);
    let h = size(h_spec, height, DEFAULT_HEIGHT_PERCENT);
    let x = (width - w) / 2;
    let top = (height - h) / 2;
    (x, top + h, w, h)
}

/// Opens the popup over `client` and returns when it closes. One read of
/// that client (its size, the size options, the server's socket and
/// version) rather than of the whole server: the popup reads the server
/// itself, and the key is waiting.
pub(crate) fn open(tmux: &Tmux, client: &str, new_session: bool) -> Result<UiOpened> {
    let format = format!(
        "#{{client_session}}\t#{{client_width}}\t#{{client_height}}\t#{{{}}}\t#{{{}}}\t#{{version}}\t#{{socket_path}}",
        crate::tmux::options::POPUP_WIDTH,
        crate::tmux::options::POPUP_HEIGHT
    );
    let no_client = no_attached_client;
    let output = tmux
        .run_one(cmd::print_format_for_client(client, &format))
        .map_err(|_| no_client())?;
    let line = output.lines().next().unwrap_or("");
    let fields: Vec<&str> = line.splitn(7, '\t').collect();
    let [session, width, height, w_spec, h_spec, version, socket] = fields[..] else {
        return Err(no_client());
    };
    if session.is_empty() {
        return Err(no_client());
    }
    let width = width.parse().unwrap_or(80);
    let height = height.parse().unwrap_or(24);
    let (x, y, w, h) = geometry(width, height, w_spec, h_spec);
    let bin = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "taw".into());
    let mut args = vec![
        ShellWord::Literal("ui".into()),
        ShellWord::Literal("--client".into()),
        ShellWord::Literal(client.to_string()),
    ];
    if new_session {
        args.push(ShellWord::Literal("--new-session".into()));
    }
    // display-popup runs its command as it is: no format is expanded there.
    let line = cmd::plain_shell_line(&Callback::current(bin).words_for(socket, &args));
    let popup = cmd::display_popup(client, (x, y, w, h), frameless(version), &line);
    tmux.run_popup(popup)?;
    Ok(UiOpened { x, y, w, h })
}

/// The popup key's command. From tmux 3.3 on tmux opens the popup itself
/// on the client that pressed the key, taw running in it with no shell
/// (`-e` gives it the load's folders): no `taw ui open` and no tmux client
/// start before it. `run-shell -C` expands the client's name, the socket
/// and the size options, then runs the `display-popup`; a size option that
/// is not a number of cells or a percentage gives way to the default.
/// Before 3.3 (no `-e`, no `-B`) the key runs `taw ui open`.
pub(crate) fn key_command(callback: &Callback, tmux_version: &str) -> String {
    let client = ShellWord::Format("client_name");
    if !frameless(tmux_version) {
        let open = [
            ShellWord::Literal("ui".into()),
            ShellWord::Literal("open".into()),
            ShellWord::Literal("--client".into()),
            client,
        ];
        return callback.run(&open);
    }
    // As `taw ui open` reads them: a percentage at most 100, cells at most
    // the client's (tmux refuses a popup larger than its client, and the
    // key's commands after it would not run).
    let size = |option: &str, default: u32, whole: &str| {
        let value = format!("#{{{option}}}");
        let percent = format!("#{{?#{{e|>:#{{s/%//:{option}}},100}},100%,{value}}}");
        let cells = format!("#{{?#{{e|>:{value},#{{{whole}}}}},#{{{whole}}},{value}}}");
        format!(
            "#{{?#{{m/r:^[1-9][0-9]*%$,{value}}},{percent},#{{?#{{m/r:^[1-9][0-9]*$,{value}}},{cells},{default}%}}}}"
        )
    };
    let mut env = vec![ShellWord::Keyword(crate::tmux::callback::HOOK_MARK)];
    env.extend(
        callback
            .env
            .iter()
            .map(|(name, value)| ShellWord::Assign(name, value.clone())),
    );
    let program = [
        ShellWord::Literal(callback.bin.clone()),
        ShellWord::Literal("-S".into()),
        ShellWord::Format("socket_path"),
        ShellWord::Literal("ui".into()),
        ShellWord::Literal("--client".into()),
        client,
    ];
    let mut popup = format!(
        "display-popup -E -B -w {} -h {}",
        size(
            crate::tmux::options::POPUP_WIDTH,
            DEFAULT_WIDTH_PERCENT,
            "client_width"
        ),
        size(
            crate::tmux::options::POPUP_HEIGHT,
            DEFAULT_HEIGHT_PERCENT,
            "client_height"
        )
    );
    for word in env {
        popup.push_str(" -e ");
        popup.push_str(&cmd::shell_line(&[word]));
    }
    popup.push_str(" -- ");
    popup.push_str(&cmd::shell_line(&program));
    // The listing is made with the loading process's nonce, shortened: its
    // rows must fit in one variable, and the whole read follows anyway.
    let nonce = &crate::tmux::format::nonce()[..8];
    cmd::with_expanded_environment(
        LISTING_VAR,
        &Snapshot::listing_format(nonce, &super::tmux_keys_format()),
        LISTING_LIMIT,
        &popup,
    )
}

/// The variable the popup's key puts the popup's first read in
/// ([`Snapshot::listing_format`]): the popup reads no tmux before its
/// first frame. Set in the client's session only until the popup has
/// started ([`listing_cleanup`]).
const LISTING_VAR: &str = "TAW_POPUP_LISTING";

/// The most bytes a listing may have: a single variable over 128 KiB
/// makes an exec fail. A larger server's popup reads tmux.
const LISTING_LIMIT: usize = 120_000;

/// The key's listing, taken out of taw's environment so that nothing it
/// starts inherits it. `None` when the key brought none (`taw ui open`,
/// tmux before 3.3, a listing over the limit).
pub(crate) fn take_listing() -> Option<String> {
    let text = std::env::var(LISTING_VAR).ok();
    // SAFETY: the popup calls this first, before it starts any thread.
    unsafe { std::env::remove_var(LISTING_VAR) };
    text.filter(|text| !text.is_empty())
}

/// What takes the listing out of the session it was put in (`session`,
/// the listing's client's), sent with the popup's first read after its
/// first frame: a pane made in that session from then on does not
/// inherit it. (The key takes it out too, once the popup closes.)
pub(crate) fn listing_cleanup(session: u32) -> cmd::Cmd {
    cmd::unset_session_environment(session, LISTING_VAR)
}

fn no_attached_client() -> TawError {
    TawError::tmux("no attached client to open the popup on")
}

/// The client `taw ui open` opens on when none is named: the one used last.
pub(crate) fn last_client(snapshot: &Snapshot) -> Result<String> {
    snapshot
        .last_client()
        .map(|c| c.name.clone())
        .ok_or_else(no_attached_client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_is_centred_and_bounded() {
        assert_eq!(geometry(200, 50, "90%", "80%"), (10, 45, 180, 40));
        assert_eq!(geometry(100, 30, "", ""), (5, 27, 90, 25));
        assert_eq!(geometry(100, 30, "100%", "100%"), (0, 30, 100, 30));
        assert_eq!(geometry(100, 30, "60", "20"), (20, 25, 60, 20));
        assert_eq!(geometry(100, 30, "500", "bad"), (0, 27, 100, 25));
    }

    #[test]
    fn the_key_opens_the_popup_from_tmux_itself() {
        let callback = Callback {
            bin: "/opt/it's #1/taw".into(),
            env: vec![("TAW_STATE_DIR", "/s".into())],
        };
        let key = key_command(&callback, "3.3a");
        // The listing into the environment, the popup, the listing out.
        let (before, rest) = key.split_once(" ; run-shell -C ").expect(&key);
        assert!(
            before.starts_with(&format!(
                "\"set-environment\" \"-F\" \"--\" \"{LISTING_VAR}\" "
            )),
            "{key}"
        );
        // No option set: tmux would redraw every client for it.
        assert!(!before.contains("set-option"), "{key}");
        // Too long a listing out before the popup starts.
        let bounded = format!(
            "\"#{{?#{{e|<:#{{n:{LISTING_VAR}}},{LISTING_LIMIT}}},,\\\"set-environment\\\" \\\"-u\\\" \\\"--\\\" \\\"{LISTING_VAR}\\\" ; }}display-popup -E -B -w #{{?"
        );
        assert!(rest.starts_with(&bounded), "{key}");
        assert!(
            rest.ends_with(&format!(
                " ; set-environment -u -t #{{q:session_id}} -- \\\"{LISTING_VAR}\\\"\""
            )),
            "{key}"
        );
        // The binary's path survives both tmux's format expansion (`##`)
        // and its parser (quoted), and taw is told its client.
        assert!(
            key.contains(r"-e TAW_STATE_DIR='/s' -- '/opt/it'\\''s ##1/taw' '-S' ''#{s/\\{/\\\\{/:#{q:socket_path}} 'ui' '--client' ''#{s/\\{/\\\\{/:#{q:client_name}}"),
            "{key}"
        );
        assert!(key.contains(crate::tmux::callback::HOOK_MARK));
        // Before tmux 3.3: `taw ui open`.
        assert!(key_command(&callback, "3.2a").starts_with("run-shell -b "));
    }

    #[test]
    fn frameless_from_3_3() {
        assert!(frameless("3.3a"));
        assert!(frameless("3.5"));
        assert!(frameless("next-3.6"));
        assert!(!frameless("3.2a"));
    }
}
