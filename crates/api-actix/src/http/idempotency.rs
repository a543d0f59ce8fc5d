//! `Idempotency-Key` on the `POST`s that create something and on the operations a network retry
//! must not turn into a refusal (cancel, withdraw, the back office's `PATCH` of a status, the
//! webhooks' test, retry and replay) (`domain::idempotency`): a retry with
//! the same key and body answers the first answer again, with `Idempotent-Replayed: true`, and
//! creates nothing; the key with another request is a 422 naming it; the key of a request still
//! running a 409 with `Retry-After`. Requests without the header pass untouched, as do those
//! whose token does not authenticate (the handler answers them).

use crate::http::auth::AuthenticatedUser;
use crate::http::error::{ApiError, ErrorCode};
use crate::state::AppState;
use actix_web::body::{BoxBody, MessageBody, to_bytes};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes};
use actix_web::{Error, HttpResponse, ResponseError};
use domain::idempotency::{self, Claim, Fingerprint, IdempotencyKey, StoredAnswer};
use domain::validation::FieldError;

pub const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

fn refused(request: ServiceRequest, error: ApiError) -> ServiceResponse<BoxBody> {
    request.into_response(error.error_response())
}

fn naming_the_key(code: ErrorCode, field_code: &'static str, message: String) -> ApiError {
    ApiError {
        fields: vec![FieldError {
            field: idempotency::HEADER.to_owned(),
            code: field_code,
            message: message.clone(),
        }],
        ..ApiError::with_message(code, message)
    }
}

pub async fn idempotent(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let raw = match request.headers().get(idempotency::HEADER) {
        Some(raw) if request.method() == Method::POST || request.method() == Method::PATCH => raw,
        _ => return Ok(next.call(request).await?.map_into_boxed_body()),
    };
    let key = match IdempotencyKey::parse(raw.as_bytes()) {
        Ok(key) => key,
        Err(rejection) => {
            let error = naming_the_key(ErrorCode::ValidationFailed, rejection.code, rejection.message);
            return Ok(refused(request, error));
        }
    };
    let Ok(user) = request.extract::<AuthenticatedUser>().await else {
        return Ok(next.call(request).await?.map_into_boxed_body());
    };
    let Some(state) = request.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(refused(request, ApiError::new(ErrorCode::Internal)));
    };
    let request_body = match request.extract::<Bytes>().await {
        Ok(body) => body,
        Err(error) => {
            let late = error.as_error().is_some_and(crate::http::body_deadline::is_late);
            let code = if late {
                ErrorCode::BodyTimeout
            } else {
                ErrorCode::PayloadTooLarge
            };
            return Ok(refused(request, ApiError::new(code)));
        }
    };
    // The handler reads the body again.
    request.set_payload(request_body.clone().into());
    let path = request.uri().path_and_query().map_or("", |p| p.as_str()).to_owned();
    let fingerprint = Fingerprint::of(request.method().as_str(), &path, &request_body);
    let user_id = user.0.user_id;
    let claim = match state.idempotency.begin(user_id, &key, &fingerprint).await {
        Ok(claim) => claim,
        Err(error) => return Ok(refused(request, error.into())),
    };
    match claim {
        Claim::Fresh => {}
        Claim::Replay(answer) => {
            let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
            let mut response = HttpResponse::build(status);
            if let Some(content_type) = answer.content_type {
                response.insert_header((header::CONTENT_TYPE, content_type));
            }
            response.insert_header((REPLAYED, HeaderValue::from_static("true")));
            return Ok(request.into_response(response.body(answer.body)));
        }
        Claim::OtherRequest => {
            let error = naming_the_key(
                ErrorCode::IdempotencyKeyReused,
                idempotency::REUSED_KEY,
                "Idempotency-Key já usada nas últimas 24 horas com outra requisição: use uma chave nova".to_owned(),
            );
            return Ok(refused(request, error));
        }
        Claim::Forgotten => {
            let error = naming_the_key(
                ErrorCode::IdempotentAnswerForgotten,
                idempotency::FORGOTTEN_KEY,
                "A resposta desta Idempotency-Key foi apagada com os dados pessoais do titular \
                 (anonimização) e não pode ser repetida"
                    .to_owned(),
            );
            return Ok(refused(request, error));
        }
        Claim::InFlight => {
            let error = ApiError {
                retry_after_secs: Some(1),
                ..ApiError::new(ErrorCode::IdempotentRequestInFlight)
            };
            return Ok(refused(request, error));
        }
    }
    let response = match next.call(request).await {
        Ok(response) => response,
        Err(error) => {
            state.idempotency.abandon(user_id, &key).await;
            return Err(error);
        }
    };
    let (request, response) = response.into_parts();
    let status = response.status();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let (head, body) = response.into_parts();
    let bytes = match to_bytes(body).await {
        Ok(bytes) => bytes,
        Err(_) => {
            state.idempotency.abandon(user_id, &key).await;
            return Ok(ServiceResponse::new(
                request,
                ApiError::new(ErrorCode::Internal).error_response(),
            ));
        }
    };
    let answer = StoredAnswer {
        status: status.as_u16(),
        content_type,
        body: bytes.to_vec(),
    };
    if let Err(cause) = state.idempotency.finish(user_id, &key, &request_body, answer).await {
        // The request ran; its retry finds the key running until the lease ends.
        tracing::warn!(%cause, "idempotent answer not kept");
    }
    Ok(ServiceResponse::new(
        request,
        head.set_body(bytes).map_into_boxed_body(),
    ))
}
