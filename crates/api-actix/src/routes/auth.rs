//! Route 1 `POST /signin`, token renewal `POST /refreshToken`, `POST /signout`, `GET /me`, and the
//! public keys.

use crate::http::auth::{AuthenticatedUser, ClientAddress};
use crate::http::body::Body;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::routes::dto::{Session, SignInResponse};
use crate::routes::schemas::envelope_doc;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use domain::auth::bodies::{RefreshBody, SignInBody};
use serde::Serialize;
use utoipa::ToSchema;

envelope_doc!(SessionEnvelope, data = Session);

/// Signs in to one application and answers an access and a refresh token.
#[utoipa::path(post, path = "/signin", operation_id = "auth.signIn", summary = "Entrar (rota 1)", description = "Entra em uma aplicação (ECOMMERCE, PARCEIRO ou BACKOFFICE) e devolve o token de acesso (1 hora) e o refresh token (2 horas).", tag = "autenticação",
    request_body(content = SignInBody, example = json!({"email": "parceiro@demo.com.br", "password": "Parceiro#2026", "aplicacao": "PARCEIRO"})),
    responses(
        (status = 200, description = "Autenticado", body = SignInResponse),
        (status = 400, description = "Campos ausentes ou inválidos", body = crate::routes::schemas::ErrorEnvelope),
        (status = 401, description = "Senha incorreta", body = crate::routes::schemas::ErrorEnvelope),
        (status = 403, description = "Usuário sem permissão para a aplicação", body = crate::routes::schemas::ErrorEnvelope),
        (status = 404, description = "Usuário não encontrado", body = crate::routes::schemas::ErrorEnvelope),
        (status = 413, description = "Corpo grande demais", body = crate::routes::schemas::ErrorEnvelope),
        (status = 415, description = "Content-Type não é JSON", body = crate::routes::schemas::ErrorEnvelope),
        (status = 422, description = "Corpo malformado", body = crate::routes::schemas::ErrorEnvelope),
        (status = 429, description = "Muitas falhas; veja Retry-After", body = crate::routes::schemas::ErrorEnvelope),
        (status = 503, description = "Indisponível", body = crate::routes::schemas::ErrorEnvelope),
    ))]
pub async fn sign_in(
    state: web::Data<AppState>,
    client: ClientAddress,
    body: Body<SignInBody>,
) -> Result<HttpResponse, ApiError> {
    let request = body.into_inner().read(client.0.map(|ip| ip.to_string()))?;
    let signed = state.sign_in.sign_in(request).await?;
    Ok(HttpResponse::Ok().json(SignInResponse::answer(signed, "Usuário autenticado com sucesso.")))
}

/// Trades a refresh token (usable once) for a new pair of the same session. Presenting a used one
/// ends the whole session.
#[utoipa::path(post, path = "/refreshToken", operation_id = "auth.refresh", summary = "Renovar os tokens", description = "Troca um refresh token (uso único) por um novo par; apresentar um já usado encerra toda a sessão.", tag = "autenticação",
    request_body(content = RefreshBody),
    responses(
        (status = 200, description = "Novo par de tokens", body = SignInResponse),
        (status = 400, description = "refreshToken ausente", body = crate::routes::schemas::ErrorEnvelope),
        (status = 401, description = "Refresh token inválido, expirado ou já usado", body = crate::routes::schemas::ErrorEnvelope),
        (status = 403, description = "Usuário perdeu a permissão para a aplicação", body = crate::routes::schemas::ErrorEnvelope),
        (status = 413, description = "Corpo grande demais", body = crate::routes::schemas::ErrorEnvelope),
        (status = 415, description = "Content-Type não é JSON", body = crate::routes::schemas::ErrorEnvelope),
        (status = 422, description = "Corpo malformado", body = crate::routes::schemas::ErrorEnvelope),
        (status = 503, description = "Indisponível", body = crate::routes::schemas::ErrorEnvelope),
    ))]
pub async fn refresh(state: web::Data<AppState>, body: Body<RefreshBody>) -> Result<HttpResponse, ApiError> {
    let signed = state.sign_in.refresh(&body.into_inner().read()?).await?;
    Ok(HttpResponse::Ok().json(SignInResponse::answer(signed, "Tokens renovados com sucesso.")))
}

/// Who the access token belongs to.
#[utoipa::path(get, path = "/me", operation_id = "auth.me", summary = "Dono do token", description = "O usuário e a aplicação do token de acesso.", tag = "autenticação", security(("bearer" = [])),
    responses(
        (status = 200, description = "Sessão do token", body = SessionEnvelope),
        (status = 401, description = "Token ausente ou inválido", body = crate::routes::schemas::ErrorEnvelope),
    ))]
pub async fn me(user: AuthenticatedUser) -> HttpResponse {
    let session = Session {
        user_id: user.0.user_id,
        aplicacao: user.0.application.as_str().to_owned(),
    };
    HttpResponse::Ok().json(Envelope::data("Sessão válida.", session))
}

/// Ends the caller's session: its access token stops working on every instance within a second
/// or two, and its refresh tokens at once.
#[utoipa::path(post, path = "/signout", operation_id = "auth.signOut", summary = "Sair", description = "Encerra a sessão do token de acesso: o token de acesso e todos os refresh tokens da sessão deixam de valer, em todas as instâncias.", tag = "autenticação", security(("bearer" = [])),
    responses(
        (status = 200, description = "Sessão encerrada", body = crate::routes::schemas::MessageEnvelope),
        (status = 401, description = "Token ausente, inválido ou de sessão já encerrada", body = crate::routes::schemas::ErrorEnvelope),
        (status = 503, description = "Indisponível", body = crate::routes::schemas::ErrorEnvelope),
    ))]
pub async fn sign_out(state: web::Data<AppState>, user: AuthenticatedUser) -> Result<HttpResponse, ApiError> {
    state.sign_in.sign_out(&user.0).await?;
    Ok(HttpResponse::Ok().json(Envelope::message("Sessão encerrada com sucesso.")))
}

/// The public keys that verify access tokens, so that other services can check them.
#[utoipa::path(get, path = "/.well-known/jwks.json", operation_id = "auth.jwks", summary = "Chaves públicas (JWKS)", description = "As chaves públicas Ed25519 que verificam os tokens de acesso, para outros serviços.", tag = "autenticação",
    responses((status = 200, description = "JWK Set (Ed25519)", body = Object)))]
pub async fn jwks(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("cache-control", "public, max-age=300"))
        .json(&state.jwks)
}

/// Sign-in, token renewal and the caller's identity.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/signin").route(web::post().to(sign_in)))
        .service(web::resource("/refreshToken").route(web::post().to(refresh)))
        .service(web::resource("/signout").route(web::post().to(sign_out)))
        .service(web::resource("/me").route(web::get().to(me)));
}

/// The public keys that verify access tokens.
pub fn key_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/.well-known/jwks.json").route(web::get().to(jwks)));
}
