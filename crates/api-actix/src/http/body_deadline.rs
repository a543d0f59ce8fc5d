//! A request's body must arrive within `BODY_READ_TIMEOUT_MS` of its head: a client that trickles
//! it (a byte every few seconds) would otherwise hold a connection and a worker's buffer for as
//! long as it likes. The payload is wrapped in a stream that fails with [`TIMED_OUT`] once the
//! deadline passes; the extractors' error mapping turns that failure into a 408.

use actix_web::HttpMessage;
use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, Data};
use futures_util::{Stream, StreamExt};
use std::io;
use std::pin::Pin;
use std::time::Duration;
use tokio::time::Instant;

/// The error a late body ends with.
pub const TIMED_OUT: io::ErrorKind = io::ErrorKind::TimedOut;

/// The configured limit, shared with every worker as app data.
#[derive(Debug, Clone, Copy)]
pub struct BodyReadTimeout(pub Duration);

/// Whether a payload error is this deadline's.
pub fn is_late(error: &PayloadError) -> bool {
    matches!(error, PayloadError::Io(e) if e.kind() == TIMED_OUT)
}

/// Wraps the payload of every request that announces a body (a length or a transfer encoding);
/// requests without one are passed through untouched.
pub async fn limit_body_read_time<B: MessageBody + 'static>(
    mut req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let announces_body = req.headers().contains_key(TRANSFER_ENCODING)
        || req
            .headers()
            .get(CONTENT_LENGTH)
            .is_some_and(|length| length.as_bytes() != b"0");
    if announces_body && let Some(limit) = req.app_data::<Data<BodyReadTimeout>>().map(|d| d.0) {
        let payload = req.take_payload();
        req.set_payload(Payload::from(within(payload, Instant::now() + limit)));
    }
    next.call(req).await
}

type Chunks = Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>;

/// The payload's chunks until `deadline`; then one timed-out error and the end. Fused: a reader
/// that polls again after the end (the multipart parser does) reads the end again.
fn within(payload: Payload, deadline: Instant) -> Chunks {
    Box::pin(
        futures_util::stream::unfold(Some(payload), move |state| async move {
            let mut payload = state?;
            match tokio::time::timeout_at(deadline, payload.next()).await {
                Ok(Some(chunk)) => Some((chunk, Some(payload))),
                Ok(None) => None,
                Err(_) => Some((
                    Err(PayloadError::Io(io::Error::new(
                        TIMED_OUT,
                        "o corpo da requisição não chegou a tempo",
                    ))),
                    None,
                )),
            }
        })
        .fuse(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_body_read_to_its_end_stays_ended() {
        let chunks: Chunks = Box::pin(futures_util::stream::iter(vec![Ok(Bytes::from_static(b"corpo"))]));
        let mut body = within(Payload::from(chunks), Instant::now() + Duration::from_secs(5));
        assert_eq!(
            body.next().await.map(Result::ok),
            Some(Some(Bytes::from_static(b"corpo")))
        );
        assert!(body.next().await.is_none());
        assert!(body.next().await.is_none(), "polled again after its end, it ends again");
    }
}
