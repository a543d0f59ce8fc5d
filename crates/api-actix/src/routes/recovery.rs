//! `POST /sendRecovery` and route 2 `PUT /passwordReset`.

use crate::http::auth::ClientAddress;
use crate::http::body::BodyReader;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::routes::schemas::{ErrorEnvelope, MessageEnvelope, ResetErrorBody};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use domain::validation::Violations;
use domain::values::Email;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The one answer of `/sendRecovery`, whatever happened behind it.
pub const RECOVERY_ANSWER: &str = "Se o e-mail estiver cadastrado, enviaremos um link para redefinir a senha.";

/// Asks for a password-recovery e-mail. Answers the same whether or not the e-mail has an account.
#[utoipa::path(post, path = "/sendRecovery", summary = "Pedir recuperação de senha", description = "Envia um e-mail de recuperação; a resposta é a mesma exista ou não a conta.", tag = "autenticação",
    request_body(content = crate::routes::schemas::RecoveryBody, example = json!({"email": "parceiro@demo.com.br"})),
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
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let reader = BodyReader::root(&body)?;
    let mut v = Violations::new();
    let Some(email) = reader.parse(&mut v, "email", Email::parse) else {
        return Err(ApiError::invalid(v));
    };
    state
        .recovery
        .request(&email, client.0.map(|ip| ip.to_string()))
        .await?;
    Ok(HttpResponse::Ok().json(Envelope::message(RECOVERY_ANSWER)))
}

/// Route 2's answer.
#[derive(Serialize, ToSchema)]
pub struct ResetAnswer {
    pub success: bool,
    pub message: String,
}

/// Sets a new password with a recovery token (valid 24 hours, once). On success every session of
/// the user ends and a notice is e-mailed.
#[utoipa::path(put, path = "/passwordReset", summary = "Redefinir senha (rota 2)", description = "Define a nova senha com o token de recuperação (24 horas, uso único); encerra todas as sessões e avisa por e-mail.", tag = "autenticação",
    request_body(content = crate::routes::schemas::ResetBody, example = json!({"token": "<token do e-mail>", "password": "Nova#Senha2026"})),
    responses(
        (status = 200, description = "Senha redefinida", body = ResetAnswer),
        (status = 400, description = "Campos ausentes", body = ResetErrorBody),
        (status = 401, description = "Token expirado ou já usado", body = ResetErrorBody),
        (status = 404, description = "Token não encontrado", body = ResetErrorBody),
        (status = 413, body = ResetErrorBody), (status = 415, body = ResetErrorBody),
        (status = 422, description = "Senha fora da política (o token continua válido), ou corpo malformado", body = ResetErrorBody),
        (status = 503, body = ResetErrorBody),
    ))]
pub async fn password_reset(
    state: web::Data<AppState>,
    body: Result<web::Json<Value>, actix_web::Error>,
) -> Result<HttpResponse, ApiError> {
    let answer = async {
        // Payload refusals (malformed, too large, not JSON) keep this route's shape too.
        let body = body.map_err(|e| match e.as_error::<ApiError>() {
            Some(refused) => ApiError {
                fields: refused.fields.clone(),
                ..ApiError::with_message(refused.code, refused.message.clone())
            },
            None => ApiError::new(crate::http::error::ErrorCode::BadRequest),
        })?;
        let reader = BodyReader::root(&body)?;
        let mut v = Violations::new();
        let token = reader.text(&mut v, "token");
        let password = reader.string(&mut v, "password");
        let (Some(token), Some(password)) = (token, password) else {
            return Err(ApiError::invalid(v));
        };
        state.recovery.reset(token.trim(), password).await?;
        Ok(HttpResponse::Ok().json(ResetAnswer {
            success: true,
            message: "Senha redefinida com sucesso.".into(),
        }))
    };
    // This route's answers carry `success`, errors too.
    answer.await.map_err(ApiError::with_success_member)
}

/// Password recovery: the request and the reset.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/sendRecovery").route(web::post().to(send_recovery)))
        .service(web::resource("/passwordReset").route(web::put().to(password_reset)));
}
