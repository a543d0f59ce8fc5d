//! Pix Automático's notifications (issue 46): the PSP posts `{webhookUrl}/rec` and
//! `{webhookUrl}/cobr` (the service's `webhookUrl` is `{PUBLIC_URL}/pix/webhook`), authenticated
//! by mutual TLS. The proxy that ends TLS hands the verified client certificate's subject over in
//! `PIX_WEBHOOK_SUBJECT_HEADER`; only `PIX_WEBHOOK_SUBJECTS` are believed, and of what they post
//! only the ids: each object is read back from the PSP before anything changes.
//!
//! In development, the sandbox PSP's moves on demand (`/sandbox/pix/...`): the payer approves or
//! refuses a recurrence, their bank pays or refuses a charge's attempt; the notification the
//! sandbox answers goes through the same use case.

use crate::http::auth::SandboxOperator;
use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use crate::state::{AppState, PixState};
use actix_web::{HttpRequest, HttpResponse, web};
use adapters_payment::pix::notified_ids;
use domain::billing::pix_collection::{NotificationOutcome, PixCollectionError};
use serde::Serialize;
use serde_json::Value;

/// The notifications, under `/pix`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/webhook/rec").route(web::post().to(recurrences_notified)))
        .service(web::resource("/webhook/cobr").route(web::post().to(charges_notified)));
}

/// The sandbox PSP's moves, under `/sandbox`.
pub fn sandbox_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/pix/rec/{idRec}/{action}").route(web::post().to(sandbox_recurrence)))
        .service(web::resource("/pix/cobr/{txid}/{action}").route(web::post().to(sandbox_charge)));
}

fn pix(state: &AppState) -> Result<&PixState, ApiError> {
    state.pix.as_ref().ok_or_else(|| ApiError::new(ErrorCode::NotFound))
}

/// The verified client certificate's subject, when it is one of the PSP's configured and the
/// header came from the proxy that verified it: a peer outside `TRUSTED_PROXIES` could write any
/// subject it likes, so from anyone else the header is not believed.
fn authenticated(request: &HttpRequest, state: &AppState, pix: &PixState) -> Result<(), ApiError> {
    let from_proxy = request
        .peer_addr()
        .is_some_and(|peer| state.trusted_proxies.iter().any(|net| net.contains(&peer.ip())));
    let subject = request
        .headers()
        .get(pix.webhook.header.as_str())
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    match subject {
        Some(subject) if from_proxy && pix.webhook.subjects.iter().any(|s| s == subject) => Ok(()),
        _ => {
            tracing::warn!(
                given = subject.is_some(),
                from_proxy,
                "Pix notification without an authorised certificate refused"
            );
            Err(ApiError::new(ErrorCode::PixNotificationUnauthenticated))
        }
    }
}

fn json(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|_| ApiError::new(ErrorCode::MalformedBody))
}

/// What a notification did, in counts: no id is echoed (an answer is no place to confirm which
/// ids the service holds).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notified {
    /// The distinct ids named.
    received: usize,
    /// Read back from the PSP now (at most `NOTIFIED_READ_BACK_MAX`).
    read_back: usize,
    /// Left to the reconciliation pass.
    deferred: usize,
    /// Records changed after reading them back.
    changed: usize,
}

fn answer(message: &str, outcome: NotificationOutcome) -> HttpResponse {
    HttpResponse::Ok().json(Envelope::data(
        message,
        Notified {
            received: outcome.received,
            read_back: outcome.read_back,
            deferred: outcome.deferred,
            changed: outcome.changed,
        },
    ))
}

/// `POST /pix/webhook/rec`: recurrences changed at the PSP.
pub async fn recurrences_notified(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let pix = pix(&state)?;
    authenticated(&request, &state, pix)?;
    let ids = notified_ids(&json(&body)?, "recs", "idRec");
    let outcome = pix.collection.recurrences_notified(&ids).await?;
    Ok(answer("Notificação de recorrências recebida.", outcome))
}

/// `POST /pix/webhook/cobr`: recurring charges changed at the PSP.
pub async fn charges_notified(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let pix = pix(&state)?;
    authenticated(&request, &state, pix)?;
    let txids = notified_ids(&json(&body)?, "cobsr", "txid");
    let outcome = pix.collection.charges_notified(&txids).await?;
    Ok(answer("Notificação de cobranças recebida.", outcome))
}

fn sandbox(state: &AppState) -> Result<(&PixState, &adapters_payment::pix::SandboxPsp), ApiError> {
    let pix = pix(state)?;
    let sandbox = pix
        .sandbox
        .as_deref()
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound))?;
    Ok((pix, sandbox))
}

/// What the sandbox PSP does on demand: the payer's answer to a recurrence, or their bank's
/// settling of a charge's scheduled attempt.
#[derive(Debug, Clone, Copy)]
enum SandboxMove {
    Approve,
    Reject,
    Pay,
    /// The payer's bank settles, and the PSP's notification never arrives (lost, or late): what
    /// only reading the PSP back finds.
    SettleUnnotified,
    Fail,
}

/// The move on the sandbox PSP, then its notification through the webhooks' use case.
async fn run_sandbox_move(state: &AppState, id: &str, action: SandboxMove) -> Result<HttpResponse, ApiError> {
    let (pix, sandbox) = sandbox(state)?;
    let notification = match action {
        SandboxMove::Approve => sandbox.approve(id).await,
        SandboxMove::Reject => sandbox.reject(id).await,
        SandboxMove::Pay | SandboxMove::SettleUnnotified => sandbox.pay(id).await,
        SandboxMove::Fail => sandbox.fail(id).await,
    }
    .map_err(PixCollectionError::from)?;
    if matches!(action, SandboxMove::SettleUnnotified) {
        return Ok(answer(
            "Tentativa de cobrança liquidada no PSP sandbox, sem notificação.",
            NotificationOutcome::default(),
        ));
    }
    if matches!(action, SandboxMove::Approve | SandboxMove::Reject) {
        let ids = notified_ids(&notification, "recs", "idRec");
        let outcome = pix.collection.recurrences_notified(&ids).await?;
        Ok(answer("Recorrência respondida pelo pagador no PSP sandbox.", outcome))
    } else {
        let txids = notified_ids(&notification, "cobsr", "txid");
        let outcome = pix.collection.charges_notified(&txids).await?;
        Ok(answer("Tentativa de cobrança liquidada no PSP sandbox.", outcome))
    }
}

/// `POST /sandbox/pix/rec/{idRec}/{approve|reject}`: the payer's answer to the recurrence.
pub async fn sandbox_recurrence(
    _operator: SandboxOperator,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id_rec, action) = path.into_inner();
    let action = match action.as_str() {
        "approve" => SandboxMove::Approve,
        "reject" => SandboxMove::Reject,
        _ => return Err(ApiError::new(ErrorCode::NotFound)),
    };
    run_sandbox_move(&state, &id_rec, action).await
}

/// `POST /sandbox/pix/cobr/{txid}/{pay|settle-unnotified|fail}`: the payer's bank settles the
/// charge's scheduled attempt (with the PSP's notification, or without it), or does not.
pub async fn sandbox_charge(
    _operator: SandboxOperator,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (txid, action) = path.into_inner();
    let action = match action.as_str() {
        "pay" => SandboxMove::Pay,
        "settle-unnotified" => SandboxMove::SettleUnnotified,
        "fail" => SandboxMove::Fail,
        _ => return Err(ApiError::new(ErrorCode::NotFound)),
    };
    run_sandbox_move(&state, &txid, action).await
}
