//! The bodies of the decisions on a proposal: the send for signature (route 12), a status change,
//! a cancellation and the customer's withdrawal.

use crate::input::{Field, Reading, limits};
use crate::validation::Violations;
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
        /// O motivo, guardado com o evento.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Documentação conferida"))]
        reason: Field<String>,
    }
}

/// The status asked for and its reason.
#[derive(Debug)]
pub struct StatusChangeRequest {
    pub status: ProposalStatus,
    pub reason: Option<String>,
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
        match status {
            Some(status) if v.is_empty() => Ok(StatusChangeRequest { status, reason }),
            _ => Err(v),
        }
    }
}

impl StatusChangeBody {
    /// A decision that must say why (the back office's console records every reason): as
    /// [`Self::read`], with the reason required; a cancellation's reason, being the customer's
    /// request, of at least [`REASON_MIN_CHARS`] characters, as `POST /proposal/{id}/cancel` asks.
    ///
    /// [`REASON_MIN_CHARS`]: crate::proposals::requests::REASON_MIN_CHARS
    pub fn read_with_reason(self) -> Result<(ProposalStatus, String), Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let status = r.parse(m.status.0, m.status.1, ProposalStatus::parse);
        let reason = r.text_within(m.reason.0, m.reason.1, limits::REASON);
        if status == Some(ProposalStatus::Cancelled) {
            refuse_short_reason(&mut r, m.reason.0, reason.as_deref());
        }
        match (status, reason) {
            (Some(status), Some(reason)) if v.is_empty() => Ok((status, reason)),
            _ => Err(v),
        }
    }
}

#[cfg(test)]
mod decision_tests {
    use super::StatusChangeBody;
    use crate::input::Field;
    use crate::values::ProposalStatus;

    fn decision(status: &str, reason: &str) -> StatusChangeBody {
        StatusChangeBody {
            status: Field::Given(status.to_owned()),
            reason: Field::Given(reason.to_owned()),
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
                .ok(),
            Some((ProposalStatus::Approved, "Documentação conferida".to_owned()))
        );
        assert_eq!(refused_fields(decision("PERDIDO", "  ")), ["status", "reason"]);
        // Two letters approve (the back office's note) but do not cancel (the customer's request).
        assert!(decision("REPROVADO", "ok").read_with_reason().is_ok());
        assert_eq!(refused_fields(decision("CANCELADO", "ok")), ["reason"]);
        assert_eq!(refused_fields(decision("APROVADO", &"a".repeat(501))), ["reason"]);
    }
}
