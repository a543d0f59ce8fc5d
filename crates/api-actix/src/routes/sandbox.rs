//! The sandbox signature provider's pages, mounted only in development while the sandbox is the
//! provider (route 12's links point here): a party opens its link, sees the document, and signs.

use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use crate::http::html::{accepts_json, escape};
use crate::routes::signing::pdf_response;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use adapters_signature::SandboxSigningPages;
use domain::signature::PartyEventOutcome;
use domain::values::PartyStatus;
use serde::Serialize;

/// The routes, under `/sandbox` (development only): the signing pages while the sandbox is the
/// provider, the payment platform's on demand while it is the platform, and its clock.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/sandbox")
            .service(
                web::resource("/sign/{key}")
                    .route(web::get().to(sandbox_page))
                    .route(web::post().to(sandbox_sign)),
            )
            .service(web::resource("/document/{key}").route(web::get().to(sandbox_document)))
            .configure(crate::routes::sandbox_payments::routes)
            .configure(crate::routes::sandbox_kyc::routes)
            .configure(crate::routes::pix::sandbox_routes),
    );
}

fn pages(state: &AppState) -> Result<&SandboxSigningPages, ApiError> {
    state.sandbox.as_ref().ok_or_else(|| ApiError::new(ErrorCode::NotFound))
}

/// The sandbox's signing page: the document and a button that signs as this party.
pub async fn sandbox_page(state: web::Data<AppState>, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let key = path.into_inner();
    let (identifier, role, status) = pages(&state)?.party(&key).await?;
    let html = signing_page(&key, &identifier, role.label(), status);
    Ok(HttpResponse::Ok().content_type("text/html; charset=utf-8").body(html))
}

fn signing_page(key: &str, identifier: &str, role: &str, status: PartyStatus) -> String {
    let key_html = escape(key);
    let action = if status == PartyStatus::Signed {
        "<p id=\"estado\">Assinado.</p>".to_owned()
    } else {
        format!(
            "<form method=\"post\" action=\"/sandbox/sign/{key_html}\"><button id=\"assinar\" type=\"submit\">Assinar como {}</button></form>",
            escape(role)
        )
    };
    format!(
        concat!(
            "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\"><title>Assinatura (sandbox)</title>",
            "<link rel=\"stylesheet\" href=\"/assets/pages.css\"></head><body>",
            "<h1>Assinatura eletrônica (sandbox)</h1>",
            "<p>Proposta <code>{identifier}</code> · parte: <strong>{role}</strong> · situação: <strong id=\"situacao\">{status}</strong></p>",
            "<p><a href=\"/sandbox/document/{key}\">Abrir o documento (PDF)</a></p>",
            "<object data=\"/sandbox/document/{key}\" type=\"application/pdf\" class=\"document\"></object>",
            "{action}</body></html>"
        ),
        identifier = escape(identifier),
        role = escape(role),
        status = status.as_str(),
        key = key_html,
        action = action,
    )
}

/// What signing answers to a client that asks for JSON: the status the proposal moved to, if any.
#[derive(Serialize)]
struct Signed {
    #[serde(rename = "proposalStatus")]
    proposal_status: Option<&'static str>,
}

/// The sandbox's button: signs through the same use case as a provider callback. Answers JSON when
/// asked for it, else goes back to the page.
pub async fn sandbox_sign(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = path.into_inner();
    // What a provider reports of where a party signed from: the address and the browser.
    let ip = crate::http::auth::client_address(&request, &state.trusted_proxies).map(|a| a.to_string());
    let user_agent = request
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(300).collect());
    let outcome = pages(&state)?.sign(&key, ip, user_agent).await?;
    if !accepts_json(&request) {
        let page = format!("/sandbox/sign/{key}");
        return Ok(HttpResponse::SeeOther()
            .insert_header((header::LOCATION, page))
            .finish());
    }
    let proposal_status = match outcome {
        PartyEventOutcome::Recorded { moved_to: Some(status) } => Some(status.as_str()),
        _ => None,
    };
    Ok(HttpResponse::Ok().json(Envelope::data("Assinatura registrada.", Signed { proposal_status })))
}

/// The PDF a sandbox party signs.
pub async fn sandbox_document(state: web::Data<AppState>, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let pdf = pages(&state)?.document(&path).await?;
    let mut response = pdf_response(&path, pdf);
    // The signing page shows it in an <object>: framed by this origin's own page, never another's.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static("default-src 'none'; frame-ancestors 'self'"),
    );
    Ok(response)
}
