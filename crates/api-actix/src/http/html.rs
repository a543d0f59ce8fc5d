//! The few HTML pages the service serves (the documentation, the development sandbox) escape what
//! they insert.

/// Text safe inside HTML content and double-quoted attributes.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Whether the caller of a page's action asked for JSON (a test or a script) rather than a page.
pub fn accepts_json(request: &actix_web::HttpRequest) -> bool {
    request
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/json"))
}
