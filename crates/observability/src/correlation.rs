//! A request's correlation: the id a caller may quote (`X-Request-Id`) and its place in a
//! distributed trace (W3C `traceparent`).
//!
//! The HTTP edge builds one per request ([`Correlation::from_caller`]) and runs the request inside
//! [`within`]; an adapter calling a provider adds [`outbound_headers`] to its request. Outside a
//! request (the delivery worker, a command) there is none and nothing is added.

use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use std::future::Future;

/// The longest request id kept from a caller.
pub const MAX_REQUEST_ID_LEN: usize = 128;

/// The header that carries the request id, both ways.
pub const REQUEST_ID_HEADER: &str = "x-request-id";
/// The W3C trace context's header.
pub const TRACEPARENT_HEADER: &str = "traceparent";
const TRACESTATE_HEADER: &str = "tracestate";

/// One request's correlation.
#[derive(Debug, Clone, PartialEq)]
pub struct Correlation {
    /// The caller's id when it was acceptable, else a new UUID.
    pub request_id: String,
    /// This request's place in its trace: the caller's trace id (or a new one) with this
    /// request's own span id.
    pub span: SpanContext,
    /// The caller's span, when it sent a valid `traceparent` (this request continues its trace).
    pub parent: Option<SpanContext>,
}

/// The caller's headers, as text.
pub struct CallerHeaders<'a> {
    pub request_id: Option<&'a str>,
    pub traceparent: Option<&'a str>,
    pub tracestate: Option<&'a str>,
}

impl Extractor for CallerHeaders<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            TRACEPARENT_HEADER => self.traceparent,
            TRACESTATE_HEADER => self.tracestate,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec![TRACEPARENT_HEADER, TRACESTATE_HEADER]
    }
}

/// A caller's request id is kept when it is 1 to 128 characters of `[A-Za-z0-9._-]`: enough for
/// the usual UUIDs and ULIDs, nothing that could forge a log line or a header.
pub fn acceptable_request_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_REQUEST_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A new, random span id (never the invalid all-zero one).
fn new_span_id() -> SpanId {
    loop {
        let id = SpanId::from_bytes(rand_bytes::<8>());
        if id != SpanId::INVALID {
            return id;
        }
    }
}

fn new_trace_id() -> TraceId {
    loop {
        let id = TraceId::from_bytes(rand_bytes::<16>());
        if id != TraceId::INVALID {
            return id;
        }
    }
}

/// Random bytes from a v4 UUID's generator (already a dependency; thread-local and fast).
fn rand_bytes<const N: usize>() -> [u8; N] {
    let random = uuid::Uuid::new_v4().into_bytes();
    let mut out = [0u8; N];
    out.copy_from_slice(&random[..N]);
    out
}

impl Correlation {
    /// From what the caller sent: its request id when acceptable, its trace continued when its
    /// `traceparent` is valid (W3C Trace Context, through OpenTelemetry's propagator), with a new
    /// span id for this request.
    pub fn from_caller(headers: &CallerHeaders<'_>) -> Self {
        let request_id = match headers.request_id {
            Some(id) if acceptable_request_id(id) => id.to_owned(),
            _ => uuid::Uuid::new_v4().to_string(),
        };
        let parent = match headers.traceparent {
            Some(_) => {
                let context = TraceContextPropagator::new().extract(headers);
                let parent = context.span().span_context().clone();
                parent.is_valid().then_some(parent)
            }
            None => None,
        };
        let span = match &parent {
            Some(parent) => SpanContext::new(
                parent.trace_id(),
                new_span_id(),
                parent.trace_flags(),
                false,
                parent.trace_state().clone(),
            ),
            None => SpanContext::new(
                new_trace_id(),
                new_span_id(),
                TraceFlags::SAMPLED,
                false,
                TraceState::default(),
            ),
        };
        Self {
            request_id,
            span,
            parent,
        }
    }

    /// The same request with the span an exporter made for it (when traces are exported, the
    /// span ids must be the exported ones).
    pub fn with_span(self, span: SpanContext) -> Self {
        if span.is_valid() { Self { span, ..self } } else { self }
    }

    /// This request as the parent of a call it makes: `00-<trace id>-<span id>-<flags>`.
    pub fn traceparent(&self) -> String {
        format!(
            "00-{}-{}-{:02x}",
            self.span.trace_id(),
            self.span.span_id(),
            self.span.trace_flags().to_u8()
        )
    }

    /// The trace id as it is logged (32 hex digits).
    pub fn trace_id(&self) -> String {
        self.span.trace_id().to_string()
    }
}

tokio::task_local! {
    static CURRENT: Correlation;
}

/// Runs `work` as the request `correlation` names: outbound calls made inside carry it.
pub async fn within<F: Future>(correlation: Correlation, work: F) -> F::Output {
    CURRENT.scope(correlation, work).await
}

/// The headers an outbound call made for the current request carries: its request id and its
/// trace context (this request as the parent). Empty outside a request.
pub fn outbound_headers() -> Vec<(&'static str, String)> {
    CURRENT
        .try_with(|c| {
            let mut headers = vec![
                (REQUEST_ID_HEADER, c.request_id.clone()),
                (TRACEPARENT_HEADER, c.traceparent()),
            ];
            let state = c.span.trace_state().header();
            if !state.is_empty() {
                headers.push((TRACESTATE_HEADER, state));
            }
            headers
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALLER_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

    fn caller(request_id: Option<&'static str>, traceparent: Option<&'static str>) -> Correlation {
        Correlation::from_caller(&CallerHeaders {
            request_id,
            traceparent,
            tracestate: None,
        })
    }

    #[test]
    fn a_well_formed_request_id_is_kept() {
        assert_eq!(caller(Some("pedido-42.A_b"), None).request_id, "pedido-42.A_b");
        let longest = "a".repeat(MAX_REQUEST_ID_LEN);
        assert!(acceptable_request_id(&longest));
    }

    #[test]
    fn anything_else_is_replaced_by_a_new_uuid() {
        for bad in ["", "com espaço", "quebra\nde linha", "<script>", "ação"] {
            assert!(!acceptable_request_id(bad), "{bad:?}");
        }
        assert!(!acceptable_request_id(&"a".repeat(MAX_REQUEST_ID_LEN + 1)));
        let replaced = caller(Some("não serve"), None).request_id;
        assert!(uuid::Uuid::parse_str(&replaced).is_ok(), "{replaced}");
    }

    #[test]
    fn a_valid_traceparent_is_continued_with_a_new_span() {
        let c = caller(None, Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
        assert!(c.parent.is_some());
        assert_eq!(c.trace_id(), CALLER_TRACE);
        let ours = c.traceparent();
        assert!(ours.starts_with(&format!("00-{CALLER_TRACE}-")), "{ours}");
        assert!(
            !ours.contains("00f067aa0ba902b7"),
            "the parent id is ours, not the caller's: {ours}"
        );
        assert!(ours.ends_with("-01"));
    }

    #[test]
    fn an_invalid_traceparent_starts_a_new_trace() {
        for bad in [
            "bobagem",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        ] {
            let c = caller(None, Some(bad));
            assert!(c.parent.is_none(), "{bad}");
            assert_ne!(c.trace_id(), CALLER_TRACE);
            assert!(c.span.is_valid());
        }
    }

    #[tokio::test]
    async fn outbound_calls_inside_a_request_carry_its_correlation() {
        assert!(outbound_headers().is_empty(), "nothing outside a request");
        let c = caller(
            Some("abc"),
            Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        );
        let expected = c.traceparent();
        let headers = within(c, async { outbound_headers() }).await;
        assert!(headers.contains(&(REQUEST_ID_HEADER, "abc".to_owned())));
        assert!(headers.contains(&(TRACEPARENT_HEADER, expected)));
    }
}
