//! What the outside providers' signed callbacks carry to the ports that verify them: every header
//! as a plain pair and the raw body (a signature covers the exact bytes), and the one answer both
//! callback routes give.

use crate::http::body_deadline;
use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use actix_web::{FromRequest, HttpRequest, HttpResponse, dev::Payload, web};
use std::future::Future;
use std::pin::Pin;

/// A callback as it arrived: headers (names in lower case, text values only) and the body's bytes.
pub struct SignedCallback {
    pub headers: Vec<(String, String)>,
    pub body: web::Bytes,
}

impl FromRequest for SignedCallback {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let headers = req
            .headers()
            .iter()
            .filter_map(|(name, value)| {
                let value = value.to_str().ok()?;
                Some((name.as_str().to_ascii_lowercase(), value.to_owned()))
            })
            .collect();
        let body = web::Bytes::from_request(req, payload);
        Box::pin(async move {
            let body = body.await.map_err(|error| match error.as_error() {
                Some(late) if body_deadline::is_late(late) => ApiError::new(ErrorCode::BodyTimeout).into(),
                _ => error,
            })?;
            Ok(Self { headers, body })
        })
    }
}

/// The answer to a verified callback: recorded now, or already recorded before (a provider's retry).
pub fn recorded(fresh: bool) -> HttpResponse {
    HttpResponse::Ok().json(Envelope::message(if fresh {
        "Evento registrado."
    } else {
        "Evento já registrado."
    }))
}
