//! The moments the race tests widen: between a check and the act that
//! relies on it. Only the tests set the variables that open them.

use std::time::Duration;

/// Where a race test holds taw between a check and what follows it.
#[derive(Clone, Copy)]
pub(crate) enum Race {
    /// Before a line is typed (`TAW_TEST_TYPE_DELAY_MS`).
    Typing,
    /// Before a prompt, keys or an Enter are sent (`TAW_TEST_SEND_DELAY_MS`).
    Sending,
    /// Before a popup's opener waits to hear its command started
    /// (`TAW_TEST_POPUP_WAIT_DELAY_MS`).
    PopupWait,
    /// Before the web's listener of tmux's hooks waits again after a
    /// change (`TAW_TEST_CHANGE_WAIT_DELAY_MS`).
    ChangeWait,
    /// Before the web's frame maker reads the server after a change no
    /// look named (a hook's, or its pace's) (`TAW_TEST_TOLD_READ_DELAY_MS`).
    ToldRead,
}

/// The race tests widen the moment between the check and the send, to
/// make an agent exit (or a mode start, or a program come in front) in it
/// every time. Nothing else sets the variables. With `TAW_TEST_RACE_DIR`
/// too, the window says it opened (a file `opened` there) and closes as
/// soon as the test makes `go`, the delay only its bound: the test waits
/// for the window, not a guess of the time taw's checks take.
pub(crate) fn race_window(at: Race) {
    let name = match at {
        Race::Typing => "TAW_TEST_TYPE_DELAY_MS",
        Race::Sending => "TAW_TEST_SEND_DELAY_MS",
        Race::PopupWait => "TAW_TEST_POPUP_WAIT_DELAY_MS",
        Race::ChangeWait => "TAW_TEST_CHANGE_WAIT_DELAY_MS",
        Race::ToldRead => "TAW_TEST_TOLD_READ_DELAY_MS",
    };
    let Some(ms) = std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok()) else {
        return;
    };
    let bound = Duration::from_millis(ms.min(30_000));
    let Some(dir) = std::env::var_os("TAW_TEST_RACE_DIR").map(std::path::PathBuf::from) else {
        std::thread::sleep(bound);
        return;
    };
    let _ = std::fs::write(dir.join("opened"), b"");
    let start = std::time::Instant::now();
    while start.elapsed() < bound && !dir.join("go").exists() {
        std::thread::sleep(Duration::from_millis(20));
    }
}
