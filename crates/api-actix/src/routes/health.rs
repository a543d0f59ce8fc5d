//! Liveness and readiness, for orchestrators and load balancers.

use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::state::AppState;
use actix_web::{HttpResponse, web};

/// The process is up and serving.
#[utoipa::path(get, path = "/health/live", operation_id = "health.live", summary = "Processo ativo", description = "O processo está no ar.", tag = "saúde",
    responses((status = 200, description = "Processo ativo", body = crate::routes::schemas::MessageEnvelope)))]
pub async fn live() -> HttpResponse {
    HttpResponse::Ok().json(Envelope::message("Serviço ativo."))
}

/// The service can answer requests: the database responds.
#[utoipa::path(get, path = "/health/ready", operation_id = "health.ready", summary = "Pronto para atender", description = "O banco de dados responde; 503 caso contrário.", tag = "saúde",
    responses(
        (status = 200, description = "Pronto", body = crate::routes::schemas::MessageEnvelope),
        (status = 503, description = "Banco de dados indisponível", body = crate::routes::schemas::ErrorEnvelope),
    ))]
pub async fn ready(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    state.readiness.check().await?;
    Ok(HttpResponse::Ok().json(Envelope::message("Serviço pronto.")))
}

/// `/health/live` and `/health/ready`.
pub fn routes(cfg: &mut actix_web::web::ServiceConfig) {
    use actix_web::web;
    cfg.service(
        web::scope("/health")
            .service(web::resource("/live").route(web::get().to(live)))
            .service(web::resource("/ready").route(web::get().to(ready))),
    );
}
