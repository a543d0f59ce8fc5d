//! The few HTML pages the service serves (the documentation, the development sandbox) escape what
//! they insert.

/// Text safe inside HTML content and double-quoted attributes.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
