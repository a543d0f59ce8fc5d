//! The bodies of the decisions on a proposal: the send for signature (route 12), a status change,
//! a cancellation and the customer's withdrawal.

use crate::input::{Field, Reading, limits};
use crate::validation::{Violations, codes};
use crate::values::*;
use crate::wire_body;

wire_body! {
    /// Route 12's body: the proposal and its customer, to send for signature.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo da rota 12: a proposta e seu cliente, para enviar à assinatura.")
    )]
    pub struct SignerBody => SignerMembers {
        /// O `id_cliente` do cliente da proposta.
        #[cfg_attr(feature = "openapi", schema(value_type = i64, example = 1))]
        customer_id as "customerId": Field<i64>,
        /// O identificador da proposta.
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "4c938c72-29ae-4a6a-81f4-b5a436aceab9"))]
        identifier: Field<String>,
    }
}

/// The proposal to send and the customer the caller says is its own.
#[derive(Debug)]
pub struct SendRequest {
    pub customer_id: i64,
    pub identifier: String,
}

wire_body! {
    /// The body of the back office's status change.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo da mudança de status pela retaguarda.")
    )]
    pub struct StatusChangeBody => StatusChangeMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = ProposalStatus))]
        status: Field<String>,
        /// O motivo, guardado com o evento. Numa recusa ou num cancelamento, só o cliente (por
        /// e-mail), a retaguarda e a exportação do titular leem estas palavras; o vendedor lê a
        /// categoria (`reasonCategory`).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Documentação conferida"))]
        reason: Field<String>,
        /// A categoria do motivo de uma recusa (`REPROVADO`) ou de um cancelamento (`CANCELADO`),
        /// a única parte do motivo que o vendedor lê; ausente, `outros`. Não se aplica a outra
        /// mudança.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<ReasonCategory>, example = "saude"))]
        reason_category as "reasonCategory": Field<String>,
    }
}

/// The status asked for, its reason and the reason's category.
#[derive(Debug)]
pub struct StatusChangeRequest {
    pub status: ProposalStatus,
    pub reason: Option<String>,
    pub reason_category: Option<ReasonCategory>,
}

wire_body! {
    /// The body of a cancellation at the customer's request.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo do cancelamento de uma proposta a pedido do cliente.")
    )]
    pub struct CancelBody => CancelMembers {
        /// Por que o cliente pediu o cancelamento (de 3 a 500 caracteres), guardado com o protocolo,
        /// o evento e o histórico.
        #[cfg_attr(
            feature = "openapi",
            schema(value_type = String, min_length = 3, max_length = 500, example = "Cliente desistiu da contratação")
        )]
        reason: Field<String>,
    }
}

wire_body! {
    /// The body of `POST /proposal/{identificador}/withdraw`: the right of regret (CDC art. 49).
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo do arrependimento (CDC, art. 49): o motivo, se o cliente quiser dá-lo.")
    )]
    #[derive(Default)]
    pub struct WithdrawBody => WithdrawMembers {
        /// O que o cliente disse, se disse algo (de 3 a 500 caracteres); o motivo da mudança de
        /// status é sempre `ARREPENDIMENTO`.
        #[cfg_attr(
            feature = "openapi",
            schema(value_type = Option<String>, min_length = 3, max_length = 500, example = "Encontrei um plano mais barato")
        )]
        #[serde(default)]
        reason: Field<String>,
    }
}

wire_body! {
    /// The body of `POST /proposal/{identificador}/debit-authorization/revoke`: the customer revokes
    /// the authorisation of the debits (Resolução CMN 4.790/2020, art. 9).
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo da revogação da autorização de débito em conta a pedido do cliente.")
    )]
    pub struct DebitRevocationBody => DebitRevocationMembers {
        /// O que o cliente disse ao revogar (de 3 a 500 caracteres), guardado com o protocolo e no
        /// histórico.
        #[cfg_attr(
            feature = "openapi",
            schema(value_type = String, min_length = 3, max_length = 500, example = "Cliente vai pagar por outro meio")
        )]
        reason: Field<String>,
    }
}

impl DebitRevocationBody {
    /// The reason, trimmed, of 3 to 500 characters.
    pub fn read(self) -> Result<String, Violations> {
        CancelBody { reason: self.reason }.read()
    }
}

impl WithdrawBody {
    /// The reason, when given: trimmed, of 3 to 500 characters.
    pub fn read(self) -> Result<Option<String>, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let reason = r.optional_text_within(m.reason.0, m.reason.1, limits::REASON);
        refuse_short_reason(&mut r, m.reason.0, reason.as_deref());
        if v.is_empty() { Ok(reason) } else { Err(v) }
    }
}

impl CancelBody {
    /// The reason, trimmed, of 3 to 500 characters.
    pub fn read(self) -> Result<String, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let reason = r.text_within(m.reason.0, m.reason.1, limits::REASON);
        refuse_short_reason(&mut r, m.reason.0, reason.as_deref());
        match reason {
            Some(reason) if v.is_empty() => Ok(reason),
            _ => Err(v),
        }
    }
}

/// A customer request's reason says something: at least [`REASON_MIN_CHARS`] characters.
///
/// [`REASON_MIN_CHARS`]: crate::proposals::requests::REASON_MIN_CHARS
fn refuse_short_reason(r: &mut Reading<'_>, name: &str, reason: Option<&str>) {
    let min = crate::proposals::requests::REASON_MIN_CHARS;
    if reason.is_some_and(|reason| reason.chars().count() < min) {
        r.add(
            name,
            crate::validation::codes::TOO_SHORT,
            format!("{name} deve ter ao menos {min} caracteres"),
        );
    }
}

impl SignerBody {
    pub fn read(self) -> Result<SendRequest, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let customer_id = r.integer(m.customer_id.0, m.customer_id.1);
        let identifier = r.text(m.identifier.0, m.identifier.1);
        match (customer_id, identifier) {
            (Some(customer_id), Some(identifier)) => Ok(SendRequest {
                customer_id,
                identifier,
            }),
            _ => Err(v),
        }
    }
}

impl StatusChangeBody {
    pub fn read(self) -> Result<StatusChangeRequest, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let status = r.parse(m.status.0, m.status.1, ProposalStatus::parse);
        let reason = r.optional_text_within(m.reason.0, m.reason.1, limits::REASON);
        let reason_category = read_category(&mut r, m.reason_category, status);
        match status {
            Some(status) if v.is_empty() => Ok(StatusChangeRequest {
                status,
                reason,
                reason_category,
            }),
            _ => Err(v),
        }
    }
}

/// `reasonCategory`: one of the closed list, and only on a refusal or a cancellation.
fn read_category(
    r: &mut Reading<'_>,
    (name, field): (&'static str, Field<String>),
    status: Option<ProposalStatus>,
) -> Option<ReasonCategory> {
    let category = r.parse_optional(name, field, ReasonCategory::parse)?;
    match status {
        Some(status) if !crate::proposals::reasons::takes_category(status) => {
            r.add(
                name,
                codes::CATEGORY_NOT_APPLICABLE,
                format!("{name} só se aplica a REPROVADO ou CANCELADO, não a {status}"),
            );
            None
        }
        _ => Some(category),
    }
}

impl StatusChangeBody {
    /// A decision that must say why (the back office's console records every reason): as
    /// [`Self::read`], with the reason required; a cancellation's reason, being the customer's
    /// request, of at least [`REASON_MIN_CHARS`] characters, as `POST /proposal/{id}/cancel` asks.
    ///
    /// [`REASON_MIN_CHARS`]: crate::proposals::requests::REASON_MIN_CHARS
    pub fn read_with_reason(self) -> Result<StatusChangeRequest, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let status = r.parse(m.status.0, m.status.1, ProposalStatus::parse);
        let reason = r.text_within(m.reason.0, m.reason.1, limits::REASON);
        if status == Some(ProposalStatus::Cancelled) {
            refuse_short_reason(&mut r, m.reason.0, reason.as_deref());
        }
        let reason_category = read_category(&mut r, m.reason_category, status);
        match (status, reason) {
            (Some(status), Some(reason)) if v.is_empty() => Ok(StatusChangeRequest {
                status,
                reason: Some(reason),
                reason_category,
            }),
            _ => Err(v),
        }
    }
}

#[cfg(test)]
mod decision_tests {
    use super::StatusChangeBody;
    use crate::input::Field;
    use crate::values::{ProposalStatus, ReasonCategory};

    fn decision(status: &str, reason: &str) -> StatusChangeBody {
        StatusChangeBody {
            status: Field::Given(status.to_owned()),
            reason: Field::Given(reason.to_owned()),
            reason_category: Field::Missing,
        }
    }

    fn refused_fields(body: StatusChangeBody) -> Vec<String> {
        match body.read_with_reason() {
            Ok(read) => panic!("accepted: {read:?}"),
            Err(v) => v.errors().iter().map(|e| e.field.clone()).collect(),
        }
    }

    #[test]
    fn a_decision_says_why_and_a_cancellation_as_the_customer_asked_it() {
        assert_eq!(
            decision("APROVADO", "  Documentação conferida ")
                .read_with_reason()
                .ok()
                .map(|r| (r.status, r.reason, r.reason_category)),
            Some((
                ProposalStatus::Approved,
                Some("Documentação conferida".to_owned()),
                None
            ))
        );
        assert_eq!(refused_fields(decision("PERDIDO", "  ")), ["status", "reason"]);
        // Two letters approve (the back office's note) but do not cancel (the customer's request).
        assert!(decision("REPROVADO", "ok").read_with_reason().is_ok());
        assert_eq!(refused_fields(decision("CANCELADO", "ok")), ["reason"]);
        assert_eq!(refused_fields(decision("APROVADO", &"a".repeat(501))), ["reason"]);
    }

    #[test]
    fn a_category_is_one_of_the_list_and_only_for_a_refusal_or_a_cancellation() {
        let with = |status: &str, category: &str| StatusChangeBody {
            reason_category: Field::Given(category.to_owned()),
            ..decision(status, "Declarou uso contínuo de medicamento")
        };
        let read = with("REPROVADO", " saude ").read_with_reason().unwrap();
        assert_eq!(read.reason_category, Some(ReasonCategory::Health));
        assert_eq!(refused_fields(with("REPROVADO", "doenca")), ["reasonCategory"]);
        assert_eq!(refused_fields(with("APROVADO", "saude")), ["reasonCategory"]);
        assert_eq!(
            with("CANCELADO", "a_pedido").read().unwrap().reason_category,
            Some(ReasonCategory::CustomerRequest)
        );
    }
}
