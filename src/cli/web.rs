//! `taw web`: the web state API and the phone page; `taw web url` the
//! page's address with its token.

use super::Context;
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
        /// The address `taw web` listens on; by default a running
        /// server's, else the plugin's `@agent-wizard-web-listen`, else
        /// 127.0.0.1:8787.
        #[arg(long)]
        listen: Option<String>,
        /// The envelope (`web_url`: the address and the token's file)
        /// instead of the address alone.
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn run(context: &Context, args: WebArgs) -> Result<Reply> {
    match args.verb {
        Some(Verb::Url { listen, json }) => {
            let listen = listen
                .or_else(|| web::running_listen().map(|listen| listen.to_string()))
                .or_else(|| plugin_listen(context))
                .unwrap_or_else(|| web::DEFAULT_LISTEN.to_string());
            url(&listen, json)
        }
        None => web::parse_listen(&args.listen)
            .and_then(|listen| {
                if args.with_server {
                    web::stop_with_server(context.tmux());
                }
                web::serve(context.tmux(), listen, args.no_token, &args.allow_hosts)
            })
            .map(|_| Reply::Nothing),
    }
}

/// The address the plugin starts its server on, when the tmux server
/// says one.
fn plugin_listen(context: &Context) -> Option<String> {
    let value = context
        .tmux()
        .run_one(crate::tmux::commands::show_global_value(
            crate::tmux::options::WEB_LISTEN,
        ))
        .ok()?;
    Some(value.trim().to_string()).filter(|v| !v.is_empty())
}

/// The page's address alone, for a person to open or a script to take
/// (`$(taw web url)`); the envelope with `--json`.
fn url(listen: &str, json: bool) -> Result<Reply> {
    let listen = web::parse_listen(listen)?;
    let url = web::url(listen)?;
    if !json {
        return Ok(Reply::Text(format!("{url}\n")));
    }
    Ok(Reply::result(
        "web_url",
        json!({ "url": url, "token_file": crate::paths::display(&web::auth::token_file()) }),
    ))
}
