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

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let status = match outcome {
            Ok(response) => response.status(),
            Err(error) => error.as_response_error().status_code(),
        };
        span.record("status", status.as_u16());
        span.in_scope(|| {
            if status.is_server_error() {
                tracing::error!(status = status.as_u16(), "request failed");
            } else {
                tracing::info!(status = status.as_u16(), "request finished");
            }
        });
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
