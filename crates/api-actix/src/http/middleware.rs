//! What wraps every request: one tracing span with the request's correlation (its id, kept from
//! the caller's `X-Request-Id` when acceptable, echoed back; its W3C trace, continued from
//! `traceparent`), the request's metrics, and the error envelope for answers that actix or its
//! middleware produce on their own (unknown route, method not allowed, payload errors, CORS
//! refusals), which would otherwise be plain text.

use crate::http::error::{ApiError, ErrorCode};
use crate::telemetry;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::{ErrorHandlerResponse, Next};
use actix_web::{Error, HttpMessage, ResponseError};
use observability::correlation::{self, CallerHeaders, Correlation};
use observability::metric;
use opentelemetry::trace::TraceContextExt;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tracing::Span;
use tracing_actix_web::RootSpanBuilder;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The request span records the route's pattern, never the path itself: paths carry CPFs.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let headers = request.headers();
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let mut correlation = Correlation::from_caller(&CallerHeaders {
            request_id: text(correlation::REQUEST_ID_HEADER),
            traceparent: text(correlation::TRACEPARENT_HEADER),
            tracestate: text("tracestate"),
        });
        // The route's pattern is recorded by `observe`, after routing: found then from the
        // matched resource, without matching the path again.
        let span = tracing::info_span!(
            "http_request",
            request_id = %correlation.request_id,
            trace_id = tracing::field::Empty,
            method = %request.method(),
            route = tracing::field::Empty,
            status = tracing::field::Empty,
            user_id = tracing::field::Empty,
        );
        if telemetry::exporting() {
            // The exported span is this request's: its ids are the ones sent onwards.
            if let Some(parent) = &correlation.parent {
                let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(parent.clone()));
            }
            correlation = correlation.with_span(span.context().span().span_context().clone());
        }
        span.record("trace_id", tracing::field::display(correlation.span.trace_id()));
        request.extensions_mut().insert(correlation);
        span
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

/// Whether request metrics are recorded (the metrics listener is on): off, nothing is looked up.
static RECORDING: AtomicBool = AtomicBool::new(false);

/// The label of a request no route matched.
const UNMATCHED: &str = "<sem rota>";

/// One route's histogram handles, by method and status class.
type RouteHistograms = Vec<(&'static str, &'static str, metrics::Histogram)>;

thread_local! {
    /// This worker's histogram handles by route pattern, method and status class: a request
    /// finds its handle without building the metric's key (each actix worker is one thread).
    static HISTOGRAMS: RefCell<HashMap<String, RouteHistograms>> = RefCell::new(HashMap::new());
}

/// Records one request's duration under its route pattern, method and status class.
fn record_duration(route: &str, method: &'static str, class: &'static str, seconds: f64) {
    HISTOGRAMS.with(|cell| {
        let mut by_route = cell.borrow_mut();
        if let Some(handles) = by_route.get_mut(route)
            && let Some((_, _, histogram)) = handles.iter().find(|(m, c, _)| *m == method && *c == class)
        {
            histogram.record(seconds);
            return;
        }
        let histogram = metrics::histogram!(
            metric::HTTP_REQUEST_DURATION,
            "route" => route.to_owned(),
            "method" => method,
            "status" => class,
        );
        histogram.record(seconds);
        by_route
            .entry(route.to_owned())
            .or_default()
            .push((method, class, histogram));
    });
}

pub fn record_request_metrics() {
    RECORDING.store(true, Ordering::Relaxed);
}

/// Methods as fixed label values (a client may send any token as a method).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// Runs the request inside its correlation (outbound calls carry it), echoes its id as
/// `x-request-id`, and records its duration by route pattern (never the path: paths carry CPFs),
/// method and status class.
pub async fn observe(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let correlation = request.extensions().get::<Correlation>().cloned();
    let measured = RECORDING
        .load(Ordering::Relaxed)
        .then(|| (Instant::now(), method_label(request.method())));
    let request_id = correlation.as_ref().map(|c| c.request_id.clone());
    let result = match correlation {
        Some(correlation) => correlation::within(correlation, next.call(request)).await,
        None => next.call(request).await,
    };
    let span = Span::current();
    if let Ok(response) = &result
        && (measured.is_some() || !span.is_disabled())
    {
        // After routing, the pattern comes from the matched resource (no second match).
        let route = response.request().match_pattern();
        let route = route.as_deref().unwrap_or(UNMATCHED);
        span.record("route", tracing::field::display(route));
        if let Some((started, method)) = measured {
            record_duration(
                route,
                method,
                metric::status_class(response.status().as_u16()),
                started.elapsed().as_secs_f64(),
            );
        }
    } else if let (Err(error), Some((started, method))) = (&result, measured) {
        // An error no layer turned into an answer: its request is not at hand, nor its route.
        let status = error.as_response_error().status_code();
        record_duration(
            UNMATCHED,
            method,
            metric::status_class(status.as_u16()),
            started.elapsed().as_secs_f64(),
        );
    }
    result.map(|mut response| {
        if let Some(value) = request_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
            response
                .headers_mut()
                .insert(HeaderName::from_static(correlation::REQUEST_ID_HEADER), value);
        }
        response
    })
}

/// Replaces a plain error answer (neither JSON nor a page) with the error envelope of the same status.
pub fn envelope_plain_errors<B>(response: ServiceResponse<B>) -> actix_web::Result<ErrorHandlerResponse<B>> {
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        // A page that answers its own refusal (the person's pages) is a page for a person.
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/html"));
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
