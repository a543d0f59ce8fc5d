//! Request headers as plain pairs, for the ports that verify signed callbacks.

use actix_web::HttpRequest;

/// Every header with a text value, its name in lower case.
pub fn lowercase_pairs(request: &HttpRequest) -> Vec<(String, String)> {
    request
        .headers()
        .iter()
        .filter_map(|(name, value)| {
            value
                .to_str()
                .ok()
                .map(|v| (name.as_str().to_ascii_lowercase(), v.to_owned()))
        })
        .collect()
}
