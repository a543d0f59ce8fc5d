//! `POST /sendRecovery` and route 2 `PUT /passwordReset`.

use crate::http::auth::ClientAddress;
use crate::http::body::Body;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::routes::dto::ResetAnswer;
use crate::routes::schemas::{ErrorEnvelope, MessageEnvelope};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use domain::recovery::bodies::{RecoveryBody, ResetBody};

/// The one answer of `/sendRecovery`, whatever happened behind it.
pub const RECOVERY_ANSWER: &str = "Se o e-mail estiver cadastrado, enviaremos um link para redefinir a senha.";

/// Asks for a password-recovery e-mail. Answers the same whether or not the e-mail has an account.
#[utoipa::path(post, path = "/sendRecovery", operation_id = "auth.sendRecovery", summary = "Pedir recuperação de senha", description = "Envia um e-mail de recuperação; a resposta é a mesma exista ou não a conta.", tag = "autenticação",
    request_body(content = RecoveryBody, example = json!({"email": "parceiro@demo.com.br"})),
    responses(
        (status = 200, description = "Sempre a mesma resposta", body = MessageEnvelope),
        (status = 400, description = "E-mail ausente ou inválido", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 429, description = "Muitos pedidos deste endereço; veja Retry-After", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn send_recovery(
    state: web::Data<AppState>,
    client: ClientAddress,
    body: Body<RecoveryBody>,
) -> Result<HttpResponse, ApiError> {
    let email = body.into_inner().read()?;
    let address = client.0.map(|ip| ip.to_string());
    state.recovery.request(&email, address).await?;
    Ok(HttpResponse::Ok().json(Envelope::message(RECOVERY_ANSWER)))
}

/// Sets a new password with a recovery token (valid 24 hours, once). On success every session of
/// the user ends and a notice is e-mailed.
#[utoipa::path(put, path = "/passwordReset", operation_id = "auth.passwordReset", summary = "Redefinir senha (rota 2)", description = "Define a nova senha com o token de recuperação (24 horas, uso único); encerra todas as sessões e avisa por e-mail.", tag = "autenticação",
    request_body(content = ResetBody, example = json!({"token": "<token do e-mail>", "password": "Nova#Senha2026"})),
    responses(
        (status = 200, description = "Senha redefinida", body = ResetAnswer),
        (status = 400, description = "Campos ausentes", body = ErrorEnvelope),
        (status = 401, description = "Token expirado ou já usado", body = ErrorEnvelope),
        (status = 404, description = "Token não encontrado", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope),
        (status = 422, description = "Senha fora da política (o token continua válido), ou corpo malformado", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn password_reset(
    state: web::Data<AppState>,
    body: Result<Body<ResetBody>, actix_web::Error>,
) -> Result<HttpResponse, ApiError> {
    let answer = async {
        let reset = payload_refusal(body)?.into_inner().read()?;
        state.recovery.reset(&reset.token, &reset.password).await?;
        Ok(HttpResponse::Ok().json(ResetAnswer {
            success: true,
            message: "Senha redefinida com sucesso.".into(),
        }))
    };
    // This route's answers carry `success`, errors too.
    answer.await.map_err(ApiError::with_success_member)
}

/// Payload refusals (malformed, too large, not JSON) as `ApiError`s, so that they keep this
/// route's shape too.
fn payload_refusal<T>(body: Result<T, actix_web::Error>) -> Result<T, ApiError> {
    body.map_err(|e| match e.as_error::<ApiError>() {
        Some(refused) => ApiError {
            fields: refused.fields.clone(),
            ..ApiError::with_message(refused.code, refused.message.clone())
        },
        None => ApiError::new(crate::http::error::ErrorCode::BadRequest),
    })
}

/// Password recovery: the request and the reset.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/sendRecovery").route(web::post().to(send_recovery)))
        .service(web::resource("/passwordReset").route(web::put().to(password_reset)));
}
