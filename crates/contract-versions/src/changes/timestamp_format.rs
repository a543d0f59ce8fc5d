//! `2026-12-01`: every instant an answer or an event carries is declared `format: date-time`, so
//! that generated SDKs read it as a date and time (a `datetime`, a `Date`) rather than text. The
//! values were already ISO 8601 in UTC with milliseconds (`domain::wire::timestamp`); only the
//! declaration changes, and a generator turns it into another type: the older versions' documents
//! declare those members as they did, plain strings, and their answers are the same bytes.

use super::{AnswerTarget, Change};
use crate::ApiVersion;
use serde_json::Value;

pub struct TimestampFormat;

/// The members (schema, member) declared `date-time` from this version on; the few that already
/// were (a charge's, a consent's, a privacy request's) are not listed and stay as they were.
pub const DECLARED_DATE_TIME: &[(&str, &str)] = &[
    ("AcceptanceDto", "deadline"),
    ("AcceptanceDto", "receivedAt"),
    ("AcceptanceDto", "suspendedSince"),
    ("AttemptDto", "attemptedAt"),
    ("AttemptDto", "nextAttemptAt"),
    ("BillingGroupDto", "alterado_em"),
    ("BillingGroupDto", "criado_em"),
    ("BillingGroupProjection", "alterado_em"),
    ("BillingGroupProjection", "criado_em"),
    ("CancellationDto", "changedAt"),
    ("ChargeChangedData", "alteradoEm"),
    ("ChargeChangedData", "situacaoDesde"),
    ("ChargeChangedEvent", "timestamp"),
    ("ChargeData", "pagoEm"),
    ("CustomerRecordDto", "alterado_em"),
    ("CustomerRecordDto", "criado_em"),
    ("CustomerRequestDto", "requestedAt"),
    ("CustomerView", "createdAt"),
    ("CustomerView", "updatedAt"),
    ("DebitRevocationDto", "revokedAt"),
    ("DeliveryDto", "createdAt"),
    ("DeliveryDto", "deliveredAt"),
    ("DeliveryDto", "nextAttemptAt"),
    ("HistoryEntryDto", "at"),
    ("HookDto", "createdAt"),
    ("HookDto", "updatedAt"),
    ("HookListItemDto", "createdAt"),
    ("PartnerDto", "createdAt"),
    ("PartnerDto", "updatedAt"),
    ("PaymentChangedData", "alteradoEm"),
    ("PaymentChangedEvent", "timestamp"),
    ("PaymentDto", "createdAt"),
    ("PaymentDto", "updatedAt"),
    ("PendingAnswerDto", "answeredAt"),
    ("PendingAnsweredData", "prazo"),
    ("PendingAnsweredData", "respondidoEm"),
    ("PendingAnsweredDto", "deadline"),
    ("PendingAnsweredEvent", "timestamp"),
    ("PendingOpenedData", "suspensoEm"),
    ("PendingOpenedDto", "suspendedSince"),
    ("PendingOpenedEvent", "timestamp"),
    ("PendingRequestDto", "requestedAt"),
    ("ProductDto", "alterado_em"),
    ("ProductDto", "criado_em"),
    ("ProductProjection", "alterado_em"),
    ("ProductProjection", "criado_em"),
    ("ProposalCreatedData", "criadoEm"),
    ("ProposalCreatedEvent", "timestamp"),
    ("ProposalRecordDto", "alterado_em"),
    ("ProposalRecordDto", "criado_em"),
    ("ProposalSentData", "enviadoEm"),
    ("ProposalSentEvent", "timestamp"),
    ("ProposalView", "createdAt"),
    ("ProposalView", "updatedAt"),
    ("ReplayDto", "since"),
    ("ReplayDto", "until"),
    ("SignDto", "createdAt"),
    ("SignDto", "updatedAt"),
    ("SignatureRecordedData", "registradoEm"),
    ("SignatureRecordedEvent", "timestamp"),
    ("StatusChangeData", "alteradoEm"),
    ("StatusChangeEvent", "timestamp"),
    ("StatusEventDto", "changedAt"),
    ("SubscriptionDto", "currentPeriodEnd"),
    ("TestEvent", "timestamp"),
];

impl Change for TimestampFormat {
    fn name(&self) -> &'static str {
        "timestamp_format"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_12_01
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[]
    }

    fn downgrade(&self, _value: &mut Value) {}

    fn document(&self, doc: &mut Value) {
        for (schema, member) in DECLARED_DATE_TIME {
            let declared = doc
                .pointer_mut(&format!("/components/schemas/{schema}/properties/{member}"))
                .and_then(Value::as_object_mut);
            if let Some(declared) = declared {
                declared.remove("format");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_older_document_declares_the_listed_instants_as_plain_text_and_leaves_the_rest() {
        let (schema, member) = DECLARED_DATE_TIME[0];
        let mut doc = json!({"components": {"schemas": {
            schema: {"properties": {member: {"type": "string", "format": "date-time", "example": "2026-11-22T10:00:00.000Z"}}},
            "ChargeDto": {"properties": {"createdAt": {"type": "string", "format": "date-time"}}}
        }}});
        TimestampFormat.document(&mut doc);
        assert_eq!(
            doc["components"]["schemas"][schema]["properties"][member],
            json!({"type": "string", "example": "2026-11-22T10:00:00.000Z"})
        );
        assert_eq!(
            doc["components"]["schemas"]["ChargeDto"]["properties"]["createdAt"]["format"],
            "date-time"
        );
    }

    #[test]
    fn an_answer_reads_the_same_in_every_version() {
        let mut value = json!("2026-11-22T10:00:00.000Z");
        TimestampFormat.downgrade(&mut value);
        assert_eq!(value, json!("2026-11-22T10:00:00.000Z"));
        assert!(TimestampFormat.answer_targets().is_empty());
    }
}
