//! The back office's changes to a user's credential: the contract version it reads (issue 49),
//! as `sales-api user version` does from the operator's shell.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::routes::schemas::{ErrorEnvelope, MessageEnvelope};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use contract_versions::ApiVersion;
use domain::users::VersionPinBody;
use domain::validation::{Violations, codes};

/// Pins a user's credential to a contract version (back office).
#[utoipa::path(put, path = "/users/{email}/version", operation_id = "user.pinVersion", summary = "Fixar a versão do contrato de um usuário", description = "A retaguarda fixa a versão do contrato que a credencial do usuário lê quando a requisição não envia `Sales-Version`: vale em todas as instâncias a partir da próxima requisição dele, e as sessões dele continuam. O mesmo que `sales-api user version --email E --version V`.", tag = "autenticação", security(("bearer" = [])),
    params(("email" = String, Path, description = "O e-mail do usuário")),
    request_body(content = VersionPinBody, example = json!({"version": "2026-12-01"})),
    responses(
        (status = 200, description = "Versão fixada", body = MessageEnvelope),
        (status = 400, description = "E-mail inválido, ou `version` ausente ou desconhecida (a mensagem nomeia as conhecidas)", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, description = "Somente a retaguarda", body = ErrorEnvelope),
        (status = 404, description = "Nenhum usuário com este e-mail", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn pin_version(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<VersionPinBody>,
) -> Result<HttpResponse, ApiError> {
    let name = body.into_inner().read()?;
    let version = ApiVersion::parse(&name).map_err(|unknown| {
        let mut v = Violations::new();
        v.add("version", codes::INVALID_VALUE, unknown.to_string());
        v
    })?;
    state
        .users
        .pin_version_as(&user.0, &path, Some(version.as_str()))
        .await?;
    Ok(HttpResponse::Ok().json(Envelope::message(format!(
        "Credencial fixada na versão {version} do contrato."
    ))))
}

/// Unpins a user's credential: back to the version of a credential never pinned (back office).
#[utoipa::path(delete, path = "/users/{email}/version", operation_id = "user.unpinVersion", summary = "Soltar a versão do contrato de um usuário", description = "A retaguarda solta a credencial do usuário da versão fixada: sem `Sales-Version`, ele volta a ler a versão de uma credencial nunca fixada (`2026-11-29`). O mesmo que `sales-api user version --email E --unpin`.", tag = "autenticação", security(("bearer" = [])),
    params(("email" = String, Path, description = "O e-mail do usuário")),
    responses(
        (status = 200, description = "Versão solta", body = MessageEnvelope),
        (status = 400, description = "E-mail inválido", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, description = "Somente a retaguarda", body = ErrorEnvelope),
        (status = 404, description = "Nenhum usuário com este e-mail", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn unpin_version(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    state.users.pin_version_as(&user.0, &path, None).await?;
    Ok(HttpResponse::Ok().json(Envelope::message(format!(
        "Credencial solta: sem Sales-Version, lê a versão {}.",
        ApiVersion::UNPINNED
    ))))
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/{email}/version")
            .route(web::put().to(pin_version))
            .route(web::delete().to(unpin_version)),
    );
}
