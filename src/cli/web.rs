//! `taw web`: the web state API and the phone page; `taw web url` the
//! page's address with its token.

use super::{Context, envelope_id};
use crate::envelope::{Reply, Result};
use crate::web;
use clap::{Args, Subcommand};
use serde_json::json;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct WebArgs {
    #[command(subcommand)]
    pub verb: Option<Verb>,
    /// The address to listen on (loopback unless you say otherwise).
    #[arg(long, default_value = web::DEFAULT_LISTEN)]
    pub listen: String,
    /// Serve with no token (only on a loopback address).
    #[arg(long)]
    pub no_token: bool,
    /// A name besides its address that the server answers to (a request
    /// naming any other is refused); again for more.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// Stop when the tmux server exits (the plugin starts it so).
    #[arg(long, hide = true)]
    pub with_server: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Verb {
    /// The page's address with its token, to open on your phone.
    Url {
        /// The address `taw web` listens on.
        #[arg(long, default_value = web::DEFAULT_LISTEN)]
        listen: String,
    },
}

pub(crate) fn run(context: &Context, args: WebArgs) -> (String, Result<Reply>) {
    match args.verb {
        Some(Verb::Url { listen }) => (envelope_id("web", "url"), url(&listen)),
        None => (
            "cli:web".into(),
            web::parse_listen(&args.listen)
                .and_then(|listen| {
                    if args.with_server {
                        web::stop_with_server(context.tmux());
                    }
                    web::serve(context.tmux(), listen, args.no_token, &args.allow_hosts)
                })
                .map(|_| Reply::Nothing),
        ),
    }
}

fn url(listen: &str) -> Result<Reply> {
    let listen = web::parse_listen(listen)?;
    Ok(Reply::result(
        "web_url",
        json!({ "url": web::url(listen)?, "token_file": crate::paths::display(&web::auth::token_file()) }),
    ))
}
