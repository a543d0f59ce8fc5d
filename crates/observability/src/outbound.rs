//! A call to an outside service, observed: it carries the correlation of the request being served
//! (none outside a request, as for webhook deliveries), and its duration and outcome are recorded
//! under the provider's name.

use crate::correlation;
use crate::metric::{self, Outcome};
use std::time::Instant;

/// Sends `request` to `provider` (`stripe`, `clicksign`, `webhook`).
pub async fn send(provider: &'static str, request: reqwest::RequestBuilder) -> reqwest::Result<reqwest::Response> {
    let request = correlation::outbound_headers()
        .into_iter()
        .fold(request, |request, (name, value)| request.header(name, value));
    let started = Instant::now();
    let sent = request.send().await;
    let outcome = match &sent {
        Ok(response) => Outcome::of_status(response.status().as_u16()),
        Err(error) if error.is_timeout() => Outcome::Timeout,
        Err(_) => Outcome::Connection,
    };
    metric::outbound_call(provider, started.elapsed(), outcome);
    sent
}
