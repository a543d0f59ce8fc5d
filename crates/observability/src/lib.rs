//! What the HTTP edge and the adapters share to make the service observable.
//!
//! - [`correlation`]: a request's id and W3C trace context, kept for the request's task and sent on
//!   its outbound calls (payment and signature providers), so that one request can be followed
//!   across the service's logs and the providers' support.
//! - [`metric`]: the names of the metrics every part records (through the `metrics` facade; the
//!   HTTP edge installs the Prometheus recorder).
//! - [`outbound`]: a call to an outside service, sent with the correlation and recorded.

pub mod correlation;
pub mod metric;
pub mod outbound;
