//! The sandbox payment platform on demand (development only): a page that lists its
//! subscriptions and fails or pays their next charge, the clock the right of regret is judged by,
//! and the same actions for `sales-api sandbox`. The events the platform would send are taken in
//! through the payment callback's own use case, signed, so the whole path runs offline.

use crate::http::auth::SandboxOperator;
use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use crate::http::html::{accepts_json, escape};
use crate::state::{AppState, SandboxPayments};
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use adapters_payment::SandboxGateway;
use adapters_payment::sandbox::SandboxEvent;
use domain::contract::formats;
use domain::ecommerce::{EcommerceError, EcommerceService};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the sandbox does to a subscription's charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentAction {
    /// The next charge fails: an open invoice, the subscription `past_due`.
    Fail,
    /// The open invoice is paid: the subscription `active` again.
    Pay,
}

impl PaymentAction {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "fail" => Some(PaymentAction::Fail),
            "pay" => Some(PaymentAction::Pay),
            _ => None,
        }
    }
}

/// Runs the action on the sandbox platform and takes in the events it sends, in order, through
/// the payment callback's use case. Answers the events' kinds.
pub async fn run_payment_action(
    gateway: &SandboxGateway,
    ecommerce: &EcommerceService,
    subscription: &str,
    action: PaymentAction,
) -> Result<Vec<String>, ApiError> {
    let events = match action {
        PaymentAction::Fail => gateway.fail_payment(subscription).await,
        PaymentAction::Pay => gateway.pay_invoice(subscription).await,
    }
    .map_err(EcommerceError::from)?;
    deliver(ecommerce, &events).await?;
    Ok(events.into_iter().map(|e| e.kind).collect())
}

async fn deliver(ecommerce: &EcommerceService, events: &[SandboxEvent]) -> Result<(), ApiError> {
    for event in events {
        let headers = [("stripe-signature".to_owned(), event.signature.clone())];
        ecommerce.platform_event(&headers, &event.body).await?;
    }
    Ok(())
}

fn sandbox(state: &AppState) -> Result<&SandboxPayments, ApiError> {
    state
        .sandbox_payments
        .as_ref()
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound))
}

fn platform(state: &AppState) -> Result<&SandboxGateway, ApiError> {
    sandbox(state)?
        .gateway
        .as_deref()
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound))
}

#[derive(Serialize)]
struct ActionDone {
    subscription: String,
    events: Vec<String>,
}

/// `POST /sandbox/payments/{subscription}/{fail|pay}`: JSON for a client that asks for it, else
/// back to the page.
pub async fn payment_action(
    _operator: SandboxOperator,
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (subscription, action) = path.into_inner();
    let action = PaymentAction::parse(&action).ok_or_else(|| ApiError::new(ErrorCode::NotFound))?;
    let events = run_payment_action(platform(&state)?, &state.ecommerce, &subscription, action).await?;
    if !accepts_json(&request) {
        return Ok(HttpResponse::SeeOther()
            .insert_header((header::LOCATION, "/sandbox/payments"))
            .finish());
    }
    let message = match action {
        PaymentAction::Fail => "Cobrança recusada na plataforma sandbox.",
        PaymentAction::Pay => "Fatura em aberto paga na plataforma sandbox.",
    };
    Ok(HttpResponse::Ok().json(Envelope::data(message, ActionDone { subscription, events })))
}

/// `GET /sandbox/payments`: the sandbox platform's subscriptions, newest first, each with its
/// buttons.
pub async fn payments_page(_operator: SandboxOperator, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let sandbox = sandbox(&state)?;
    let subscriptions = platform(&state)?.subscriptions().await.map_err(EcommerceError::from)?;
    let html = page(&subscriptions, sandbox.clock.clock.days_ahead());
    Ok(HttpResponse::Ok().content_type("text/html; charset=utf-8").body(html))
}

fn page(subscriptions: &[Value], days_ahead: i64) -> String {
    let rows: String = subscriptions
        .iter()
        .rev()
        .map(|s| {
            let id = escape(s["id"].as_str().unwrap_or_default());
            let status = s["status"].as_str().unwrap_or_default();
            let buttons = if status == "canceled" {
                String::new()
            } else {
                format!(
                    "<form method=\"post\" action=\"/sandbox/payments/{id}/fail\"><button type=\"submit\">Recusar próxima cobrança</button></form>\
                     <form method=\"post\" action=\"/sandbox/payments/{id}/pay\"><button type=\"submit\">Pagar fatura em aberto</button></form>"
                )
            };
            format!(
                "<tr><td><code>{id}</code></td><td><code>{proposal}</code></td><td class=\"status-{status_class}\">{status}</td><td>{amount}</td><td class=\"actions\">{buttons}</td></tr>",
                proposal = escape(s["metadata"]["proposal"].as_str().unwrap_or("-")),
                status_class = escape(status),
                status = escape(status),
                amount = formats::reais(s["plan"]["amount"].as_i64().unwrap_or(0)),
            )
        })
        .collect();
    let body = if rows.is_empty() {
        "<p>Nenhuma assinatura recorrente na plataforma sandbox ainda (rota 16).</p>".to_owned()
    } else {
        format!(
            "<table><thead><tr><th>Assinatura</th><th>Proposta</th><th>Situação</th><th>Mensalidade</th><th></th></tr></thead><tbody>{rows}</tbody></table>"
        )
    };
    format!(
        concat!(
            "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\"><title>Pagamentos (sandbox)</title>",
            "<link rel=\"stylesheet\" href=\"/assets/pages.css\"></head><body>",
            "<h1>Plataforma de pagamento (sandbox)</h1>",
            "<p>Cada botão faz o que a plataforma faria na cobrança mensal e envia ao serviço os eventos dela ",
            "(<code>invoice.payment_failed</code> ou <code>invoice.paid</code>, e <code>customer.subscription.updated</code>).</p>",
            "{body}",
            "<p>Relógio do arrependimento: <strong>{days}</strong> dia(s) à frente do relógio da máquina ",
            "(<code>POST /sandbox/clock</code>).</p></body></html>"
        ),
        body = body,
        days = days_ahead,
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockBody {
    days_ahead: Option<i64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClockState {
    days_ahead: i64,
    now: String,
}

/// The longest the sandbox's clock moves ahead: ten years.
const MAX_DAYS_AHEAD: i64 = 3_650;

/// `GET /sandbox/clock` tells and `POST /sandbox/clock {"daysAhead": n}` moves the clock the right
/// of regret and the acceptance deadlines are judged by (0 puts it back). The shift is kept in the
/// database: every instance, the worker and the command line judge by it.
pub async fn clock(
    _operator: SandboxOperator,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let clock = &sandbox(&state)?.clock;
    if body.is_empty() {
        clock.refresh().await.map_err(ApiError::from)?;
    } else {
        let days = serde_json::from_slice::<ClockBody>(&body)
            .ok()
            .and_then(|b| b.days_ahead)
            .filter(|days| (0..=MAX_DAYS_AHEAD).contains(days));
        let Some(days) = days else {
            let mut v = domain::validation::Violations::new();
            v.add(
                "daysAhead",
                domain::validation::codes::INVALID_VALUE,
                format!("daysAhead deve ser um número inteiro de 0 a {MAX_DAYS_AHEAD}"),
            );
            return Err(ApiError::invalid(v));
        };
        clock
            .clock
            .move_to(clock.store.as_ref(), days)
            .await
            .map_err(ApiError::from)?;
    }
    let now = domain::clock::Clock::now(clock.clock.as_ref());
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Relógio do sandbox.",
        ClockState {
            days_ahead: clock.clock.days_ahead(),
            now: crate::routes::dto::iso(now),
        },
    )))
}

/// Under `/sandbox`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/payments").route(web::get().to(payments_page)))
        .service(web::resource("/payments/{subscription}/{action}").route(web::post().to(payment_action)))
        .service(
            web::resource("/clock")
                .route(web::get().to(clock))
                .route(web::post().to(clock)),
        );
}
