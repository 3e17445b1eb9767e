//! `taw ui` (the popup itself, run inside a tmux popup) and `taw ui open`
//! (opens it over a client).

use super::Context;
use crate::envelope::{Reply, Result};
use clap::{Args, Subcommand};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct UiArgs {
    #[command(subcommand)]
    pub verb: Option<Verb>,
    /// Start with the new-session picker open (Esc there closes the popup).
    #[arg(long)]
    pub new_session: bool,
    /// The client the popup is on (taw ui open passes it).
    #[arg(long, hide = true)]
    pub client: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// Open the popup over the client used last.
    Open {
        /// Start with the new-session picker open.
        #[arg(long)]
        new_session: bool,
        /// The client to open it on (the key binding passes its own).
        #[arg(long, hide = true)]
        client: Option<String>,
    },
}

pub(crate) fn run(context: &Context, args: UiArgs) -> Result<Reply> {
    match args.verb {
        Some(Verb::Open {
            new_session,
            client,
        }) => open(context, client.as_deref(), new_session),
        None => crate::ui::run(
            context.tmux(),
            crate::ui::Launch {
                client: args.client,
                new_session: args.new_session,
            },
        )
        .map(|_| Reply::Nothing),
    }
}

/// Opens the popup over `client` (else the client used last).
pub(super) fn open(context: &Context, client: Option<&str>, new_session: bool) -> Result<Reply> {
    use crate::ui::launch;
    // The key names its client: nothing else is read before the popup.
    let client = match client {
        Some(client) => client.to_string(),
        None => launch::last_client(&context.snapshot()?)?,
    };
    launch::open(&context.tmux(), &client, new_session).map(Reply::of)
}
