//! Rate limits a client can see: every answer carries the IETF `RateLimit-Policy` and `RateLimit`
//! fields (draft-ietf-httpapi-ratelimit-headers), and a caller over its limit gets 429 with
//! `Retry-After` and the error envelope. A signed-in caller is counted by user, anyone else by
//! address (`TRUSTED_PROXIES` decides whose `X-Forwarded-For` is believed). The health checks and
//! the providers' callbacks are not counted: neither is a client's traffic.

use crate::http::auth::{AuthenticatedUser, bearer, client_address};
use crate::http::error::{ApiError, ErrorCode};
use crate::state::AppState;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, ResponseError, web};
use domain::rate_limit::{RateDecision, RateSubject, WINDOW_SECS};

const POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
const REMAINING: HeaderName = HeaderName::from_static("ratelimit");

/// Paths that are never counted (the document's too: `routes::docs`).
pub fn uncounted(path: &str) -> bool {
    path.starts_with("/health/") || path.starts_with("/callbacks/")
}

/// `"default";q=600;w=60`: the policy, the same on every answer.
fn policy(decision: &RateDecision) -> String {
    format!("\"default\";q={};w={WINDOW_SECS}", decision.limit)
}

/// `"default";r=42;t=17`: what is left of the window and when it ends.
fn remaining(decision: &RateDecision) -> String {
    format!("\"default\";r={};t={}", decision.remaining, decision.reset_secs)
}

fn with_fields<B>(mut response: ServiceResponse<B>, decision: &RateDecision) -> ServiceResponse<B> {
    let headers = response.headers_mut();
    for (name, value) in [(POLICY, policy(decision)), (REMAINING, remaining(decision))] {
        if let Ok(value) = HeaderValue::try_from(value) {
            headers.insert(name, value);
        }
    }
    response
}

/// Counts the request against its caller's limit; a signed-in caller's principal is kept on the
/// request, so that the handler's `AuthenticatedUser` does not check the token a second time.
pub async fn rate_limit(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let Some(state) = request.app_data::<web::Data<AppState>>().cloned() else {
        return next.call(request).await.map(ServiceResponse::map_into_boxed_body);
    };
    let Some(limiter) = state.rate_limiter.as_ref() else {
        return next.call(request).await.map(ServiceResponse::map_into_boxed_body);
    };
    if uncounted(request.path()) {
        return next.call(request).await.map(ServiceResponse::map_into_boxed_body);
    }
    let signed_in = match bearer(request.request()) {
        Some(token) => AuthenticatedUser::identify(&state, token).await.ok(),
        None => None,
    };
    let subject = match &signed_in {
        Some(user) => Some(RateSubject::User(user.0.user_id)),
        None => client_address(request.request(), &state.trusted_proxies).map(RateSubject::Address),
    };
    if let Some(user) = signed_in {
        request.extensions_mut().insert(user);
    }
    let Some(subject) = subject else {
        return next.call(request).await.map(ServiceResponse::map_into_boxed_body);
    };
    let decision = limiter.check(subject).await;
    if !decision.allowed {
        let refused = ApiError {
            retry_after_secs: Some(decision.reset_secs),
            ..ApiError::with_message(
                ErrorCode::RateLimited,
                format!(
                    "Limite de {} requisições por minuto atingido. Tente novamente em {} s.",
                    decision.limit, decision.reset_secs
                ),
            )
        };
        let response = request.into_response(refused.error_response());
        return Ok(with_fields(response, &decision));
    }
    let response = next.call(request).await?;
    Ok(with_fields(response.map_into_boxed_body(), &decision))
}
