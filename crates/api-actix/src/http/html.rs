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

/// A minijinja environment of `templates` (each `.html` name auto-escapes what it inserts); one
/// that does not parse is logged and left out, so its page answers an internal error, not the rest.
pub fn environment(templates: &[(&'static str, &'static str)]) -> minijinja::Environment<'static> {
    let mut environment = minijinja::Environment::new();
    for (name, source) in templates {
        if let Err(error) = environment.add_template(name, source) {
            tracing::error!(%error, template = name, "template does not parse");
        }
    }
    environment
}
