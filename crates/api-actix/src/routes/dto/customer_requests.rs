//! A customer's requests about a proposal: the cancellation, the withdrawal, their refunds and the lookup by protocol.

use crate::routes::dto::iso;
use domain::ecommerce::Refund;
use domain::proposals::requests::{Cancellation, CustomerRequest};
use domain::proposals::withdrawal::Withdrawal;
use domain::values::ProposalStatus;
use serde::Serialize;
use utoipa::ToSchema;

/// A refund made on the payment platform.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundDto {
    /// O id do reembolso na plataforma de pagamento.
    #[schema(example = "re_3Q2w3E4r5T6y7U8i")]
    pub id: String,
    /// O valor devolvido, em centavos.
    #[schema(example = 3990)]
    pub amount: i64,
    /// Como a plataforma o escreve (`succeeded`, `pending`, …).
    #[schema(example = "succeeded")]
    pub status: String,
}

impl From<Refund> for RefundDto {
    fn from(r: Refund) -> Self {
        Self {
            id: r.id,
            amount: r.amount,
            status: r.status,
        }
    }
}

/// A withdrawal as answered: the cancellation's members and the refunds made.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WithdrawalDto {
    #[serde(flatten)]
    pub cancellation: CancellationDto,
    /// Os reembolsos feitos agora, no cartão (um por fatura paga) ou por devolução do Pix, já
    /// corrigidos até o valor cobrado (vazio quando nada foi pago por esses meios); o que o
    /// financeiro paga está em `data.refunds` da rota 7.
    pub refunds: Vec<RefundDto>,
}

impl From<Withdrawal> for WithdrawalDto {
    fn from(w: Withdrawal) -> Self {
        Self {
            cancellation: CancellationDto::from(Cancellation {
                identifier: w.identifier,
                protocol: w.protocol,
                event: w.event,
            }),
            refunds: w.refunds.into_iter().map(RefundDto::from).collect(),
        }
    }
}

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
    #[schema(format = DateTime)]
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
    #[schema(format = DateTime)]
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

/// The customer's revocation of the debit authorisation, as answered.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DebitRevocationDto {
    /// O protocolo do pedido (dia de Brasília e número), para o cliente e a retaguarda.
    #[schema(example = "2026112900001234")]
    pub protocol: String,
    /// O identificador da proposta.
    pub identifier: String,
    /// A situação da autorização depois do pedido: sempre `revogada`.
    #[schema(example = "revogada")]
    pub status: String,
    #[schema(format = DateTime, example = "2026-11-29T13:05:09.000Z")]
    pub revoked_at: String,
}

impl From<domain::billing::revocation::Revocation> for DebitRevocationDto {
    fn from(r: domain::billing::revocation::Revocation) -> Self {
        Self {
            protocol: r.protocol.to_string(),
            identifier: r.identifier,
            status: domain::billing::revocation::AuthorizationStatus::Revoked
                .as_str()
                .to_owned(),
            revoked_at: iso(r.at),
        }
    }
}
