//! A customer's requests about a proposal, each under a protocol: the cancellation by the seller
//! that owns the proposal or by the back office, and the back office's lookup by protocol.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::routes::dto::iso;
use crate::routes::schemas::{ErrorEnvelope, envelope_doc};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use domain::proposals::bodies::CancelBody;
use domain::proposals::requests::{Cancellation, CustomerRequest, Protocol};
use domain::validation::{Violations, codes};
use domain::values::ProposalStatus;
use serde::Serialize;
use utoipa::ToSchema;

envelope_doc!(CancellationEnvelope, data = CancellationDto);
envelope_doc!(CustomerRequestEnvelope, data = CustomerRequestDto);

/// A cancellation as answered: its protocol and the status move it made.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancellationDto {
    /// O protocolo do pedido (dia de Brasília e número), para o cliente e a retaguarda.
    #[schema(example = "2026112600001234")]
    pub protocol: String,
    /// O identificador da proposta.
    pub identifier: String,
    pub previous_status: ProposalStatus,
    pub status: ProposalStatus,
    pub reason: String,
    pub changed_by: String,
    pub changed_at: String,
    /// A ordem do evento `ALTERAÇÃO_STATUS` desta mudança entre os da proposta.
    pub sequence: i32,
}

impl From<Cancellation> for CancellationDto {
    fn from(c: Cancellation) -> Self {
        Self {
            protocol: c.protocol.to_string(),
            identifier: c.identifier,
            previous_status: c.event.from,
            status: c.event.to,
            reason: c.event.reason.unwrap_or_default(),
            changed_by: c.event.changed_by,
            changed_at: iso(c.event.changed_at),
            sequence: c.event.sequence,
        }
    }
}

/// A customer's request as the back office finds it by its protocol.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerRequestDto {
    #[schema(example = "2026112600001234")]
    pub protocol: String,
    /// O que o cliente pediu.
    #[schema(example = "cancelamento")]
    pub kind: String,
    /// O identificador da proposta.
    pub identifier: String,
    pub reason: String,
    pub requested_by: String,
    pub requested_at: String,
}

impl From<CustomerRequest> for CustomerRequestDto {
    fn from(r: CustomerRequest) -> Self {
        Self {
            protocol: r.protocol.to_string(),
            kind: r.kind.as_str().to_owned(),
            identifier: r.identifier,
            reason: r.reason,
            requested_by: r.requested_by,
            requested_at: iso(r.at),
        }
    }
}

/// Cancels a proposal at the customer's request, before it is signed.
#[utoipa::path(post, path = "/proposal/{identificador}/cancel", operation_id = "proposal.cancel", summary = "Cancelar a pedido do cliente", description = "O vendedor dono da proposta (o parceiro dela, ou a loja para as do e-commerce) ou a retaguarda cancela a proposta a pedido do cliente, enquanto ela está `NOVO` ou `AGUARDANDO ASSINATURA`. O envelope do provedor de assinatura é cancelado antes (ninguém assina depois; se o provedor falhar, nada muda: 502), a proposta vai para `CANCELADO` com o motivo no evento `ALTERAÇÃO_STATUS` e no histórico, e o pedido recebe um protocolo (`data.protocol`), que a retaguarda encontra em `GET /protocol/{protocolo}`. Depois, a rota 13 responde 409 `proposta_cancelada` e uma assinatura que chegue atrasada não muda nada.", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    request_body(content = CancelBody, example = json!({"reason": "Cliente desistiu da contratação"})),
    responses(
        (status = 200, description = "Cancelada: o protocolo e a mudança de status", body = CancellationEnvelope),
        (status = 400, description = "`reason` ausente, com menos de 3 ou mais de 500 caracteres", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada (ou de outro vendedor)", body = ErrorEnvelope),
        (status = 409, description = "A proposta já foi assinada ou terminou (nomeia o estado)", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 502, description = "O provedor de assinatura não cancelou o envelope; a proposta não mudou", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn cancel(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<CancelBody>,
) -> Result<HttpResponse, ApiError> {
    let reason = body.into_inner().read()?;
    let cancellation = state.signing.cancel(&user.0, &path, reason).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Proposta cancelada a pedido do cliente.",
        CancellationDto::from(cancellation),
    )))
}

/// The back office finds a customer's request by its protocol.
#[utoipa::path(get, path = "/protocol/{protocolo}", operation_id = "customerRequest.get", summary = "Pedido do cliente por protocolo", description = "A retaguarda encontra um pedido do cliente (um cancelamento) pelo protocolo que ele recebeu: o que pediu, de qual proposta, por quê, quem registrou e quando.", tag = "assinatura", security(("bearer" = [])),
    params(("protocolo" = String, Path, description = "O protocolo: o dia (AAAAMMDD) e ao menos oito dígitos", example = "2026112600001234")),
    responses(
        (status = 200, body = CustomerRequestEnvelope),
        (status = 400, description = "`protocolo` fora do formato", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Nenhum pedido com este protocolo", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn by_protocol(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Some(protocol) = Protocol::parse(&path) else {
        let mut v = Violations::new();
        v.add(
            "protocolo",
            codes::INVALID_VALUE,
            "protocolo deve ter o dia (AAAAMMDD) seguido de ao menos oito dígitos",
        );
        return Err(ApiError::invalid(v));
    };
    let request = state.signing.customer_request(&user.0, &protocol).await?;
    Ok(HttpResponse::Ok().json(Envelope::data("Pedido encontrado.", CustomerRequestDto::from(request))))
}

/// Under `/proposal`: the cancellation.
pub fn proposal_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/{identifier}/cancel").route(web::post().to(cancel)));
}

/// `/protocol/{protocolo}`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/protocol/{protocol}").route(web::get().to(by_protocol)));
}
