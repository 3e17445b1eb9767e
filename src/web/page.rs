//! The page `taw web` serves at `/`: one HTML file, its script and its
//! manifest, compiled into the binary (no build step, nothing fetched).

use axum::http::header;
use axum::response::IntoResponse;

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/app.js");
const MANIFEST: &str = include_str!("assets/manifest.webmanifest");
const ICON: &str = include_str!("assets/icon.svg");

/// Headers every file of the page carries: no framing by another site,
/// no script but its own.
fn page_headers(kind: &'static str) -> [(header::HeaderName, &'static str); 4] {
    [
        (header::CONTENT_TYPE, kind),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self'",
        ),
    ]
}

pub(crate) async fn index() -> impl IntoResponse {
    (page_headers("text/html; charset=utf-8"), INDEX)
}

pub(crate) async fn script() -> impl IntoResponse {
    (page_headers("text/javascript; charset=utf-8"), SCRIPT)
}

pub(crate) async fn manifest() -> impl IntoResponse {
    (page_headers("application/manifest+json"), MANIFEST)
}

pub(crate) async fn icon() -> impl IntoResponse {
    (page_headers("image/svg+xml"), ICON)
}
