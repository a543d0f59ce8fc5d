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

/// A refund still to pay at the destination recorded.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OwedRefundDto {
    #[schema(example = "ap_0c9a5b0e6f2d4c1e8a7b3d2f1e0c9b8a_0")]
    pub id: String,
    /// Em centavos, com a correção.
    #[schema(example = 1234)]
    pub amount: i64,
    /// Até quando será pago (dia de Brasília).
    #[schema(format = Date, example = "2026-12-15")]
    pub due_date: Option<String>,
}

/// Where the contract's refunds to pay go, as answered: the key or account shown in part.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundDestinationDto {
    /// O identificador da proposta.
    pub identifier: String,
    /// `pix` ou `conta`.
    #[schema(example = "pix")]
    pub kind: String,
    /// O tipo da chave Pix (`cpf`, `email`, `telefone`, `aleatoria`); `null` para uma conta.
    #[schema(example = "email")]
    pub pix_key_type: Option<String>,
    /// O destino como o cliente o lê no e-mail, sem a chave ou a conta inteira.
    #[schema(example = "Pix para a chave e-mail c***@exemplo.com.br")]
    pub shown: String,
    /// Os reembolsos a pagar do contrato, que serão pagos ali.
    pub owed: Vec<OwedRefundDto>,
    /// A soma deles, em centavos.
    #[schema(example = 1234)]
    pub owed_total: i64,
    #[schema(example = "vendedor@parceiro.com.br")]
    pub recorded_by: String,
    #[schema(format = DateTime, example = "2026-12-05T13:05:09.000Z")]
    pub recorded_at: String,
}

impl From<domain::refunds::destinations::RecordedDestination> for RefundDestinationDto {
    fn from(r: domain::refunds::destinations::RecordedDestination) -> Self {
        use domain::refunds::destination::RefundDestination;
        Self {
            identifier: r.identifier,
            kind: r.destination.kind().to_owned(),
            pix_key_type: match &r.destination {
                RefundDestination::Pix(key) => Some(key.kind().to_owned()),
                RefundDestination::Account(_) => None,
            },
            shown: r.destination.described(),
            owed_total: r.owed.iter().map(|o| o.amount).sum(),
            owed: r
                .owed
                .into_iter()
                .map(|o| OwedRefundDto {
                    id: o.id,
                    amount: o.amount,
                    due_date: o.due_on.map(|d| d.to_string()),
                })
                .collect(),
            recorded_by: r.recorded_by,
            recorded_at: iso(r.at),
        }
    }
}
