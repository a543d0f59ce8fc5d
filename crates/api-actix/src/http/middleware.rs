//! What wraps every request: one tracing span with a request id (echoed as `x-request-id`), and the
//! error envelope for answers that actix or its middleware produce on their own (unknown route,
//! method not allowed, payload errors, CORS refusals), which would otherwise be plain text.

use crate::http::error::{ApiError, ErrorCode};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use actix_web::middleware::ErrorHandlerResponse;
use actix_web::{Error, HttpMessage, ResponseError};
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};

/// The request span records the route's pattern, never the path itself: paths carry CPFs.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        // The fields are worked out only when the span is enabled: finding the route's pattern
        // matches the path against the routes a second time.
        tracing::info_span!(
            "http_request",
            request_id = %request.extensions().get::<RequestId>().map(|id| id.to_string()).unwrap_or_default(),
            method = %request.method(),
            route = %request.match_pattern().unwrap_or_else(|| "<sem rota>".to_owned()),
            status = tracing::field::Empty,
            user_id = tracing::field::Empty,
        )
    }

    /// One line per request (tracing-actix-web's own error event is turned off): INFO, with the
    /// error's code when it failed; a 503 (the database or a pool away for a moment, answered with
    /// `Retry-After`) at WARN; any other 5xx at ERROR, what needs a person.
    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let status = match outcome {
            Ok(response) => response.status(),
            Err(error) => error.as_response_error().status_code(),
        };
        span.record("status", status.as_u16());
        // A success runs what it always ran; the error's code is looked up only for a failure.
        if status.is_success() || status.is_redirection() {
            span.in_scope(|| tracing::info!(status = status.as_u16(), "request finished"));
            return;
        }
        let error = match outcome {
            Ok(response) => response.response().error(),
            Err(error) => Some(error),
        };
        let code = error
            .and_then(|e| e.as_error::<ApiError>())
            .map_or("", |e| e.code.code());
        span.in_scope(|| match Severity::of(status) {
            Severity::Routine => tracing::info!(status = status.as_u16(), code, "request finished"),
            Severity::Transient => tracing::warn!(status = status.as_u16(), code, "request failed"),
            Severity::NeedsAPerson => tracing::error!(status = status.as_u16(), code, "request failed"),
        });
    }
}

/// How loudly an answer is logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Severity {
    /// Successes and the caller's own mistakes (4xx).
    Routine,
    /// 503: unavailable for a moment; the service recovers by itself.
    Transient,
    /// Any other 5xx.
    NeedsAPerson,
}

impl Severity {
    fn of(status: StatusCode) -> Self {
        match status {
            StatusCode::SERVICE_UNAVAILABLE => Severity::Transient,
            s if s.is_server_error() => Severity::NeedsAPerson,
            _ => Severity::Routine,
        }
    }
}

/// Copies the request id into the answer, so that callers can quote it.
pub fn echo_request_id<B>(mut response: ServiceResponse<B>) -> ServiceResponse<B> {
    let id = response
        .request()
        .extensions()
        .get::<RequestId>()
        .map(|id| id.to_string());
    if let Some(value) = id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        response
            .headers_mut()
            .insert(HeaderName::from_static("x-request-id"), value);
    }
    response
}

/// Replaces a non-JSON error answer with the error envelope of the same status.
pub fn envelope_plain_errors<B>(response: ServiceResponse<B>) -> actix_web::Result<ErrorHandlerResponse<B>> {
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return Ok(ErrorHandlerResponse::Response(response.map_into_left_body()));
    }
    let code = match response.status() {
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::FORBIDDEN => ErrorCode::Forbidden,
        StatusCode::UNPROCESSABLE_ENTITY => ErrorCode::MalformedBody,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::TooManyRequests,
        StatusCode::SERVICE_UNAVAILABLE => ErrorCode::ServiceUnavailable,
        status if status.is_server_error() => ErrorCode::Internal,
        _ => ErrorCode::BadRequest,
    };
    let (request, original) = response.into_parts();
    let mut replaced = ApiError::new(code).error_response();
    // Keep what the original said about allowed methods and the like.
    for (name, value) in original.headers() {
        if name != CONTENT_TYPE && name != actix_web::http::header::CONTENT_LENGTH {
            replaced.headers_mut().insert(name.clone(), value.clone());
        }
    }
    *replaced.status_mut() = original.status();
    Ok(ErrorHandlerResponse::Response(
        ServiceResponse::new(request, replaced).map_into_right_body(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_needs_a_person_is_an_error() {
        assert_eq!(Severity::of(StatusCode::OK), Severity::Routine);
        assert_eq!(Severity::of(StatusCode::NOT_FOUND), Severity::Routine);
        assert_eq!(Severity::of(StatusCode::TOO_MANY_REQUESTS), Severity::Routine);
        assert_eq!(Severity::of(StatusCode::SERVICE_UNAVAILABLE), Severity::Transient);
        assert_eq!(Severity::of(StatusCode::INTERNAL_SERVER_ERROR), Severity::NeedsAPerson);
        assert_eq!(Severity::of(StatusCode::BAD_GATEWAY), Severity::NeedsAPerson);
    }
}
