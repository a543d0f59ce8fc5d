//! The bodies of delivered events: `{"type", "timestamp", "data"}`, serialised once when the event
//! is queued so that every retry carries the same bytes.

use crate::proposals::lifecycle::StatusEvent;
use crate::values::{EventKind, ProposalStatus};
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

fn timestamp(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Declares a delivered body: the event's kind, when it happened (UTC, milliseconds), and its data.
macro_rules! event_body {
    ($(#[$meta:meta])* $name:ident, $data:ty, $description:literal) => {
        $(#[$meta])*
        #[derive(Debug, Serialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[cfg_attr(feature = "openapi", schema(description = $description))]
        pub struct $name {
            #[serde(rename = "type")]
            #[cfg_attr(feature = "openapi", schema(value_type = EventKind))]
            pub kind: EventKind,
            #[cfg_attr(feature = "openapi", schema(example = "2026-11-22T10:00:00.000Z"))]
            pub timestamp: String,
            pub data: $data,
        }
    };
}

event_body!(
    /// The body of an `ALTERAÇÃO_STATUS` delivery.
    StatusChangeEvent, StatusChangeData, "Corpo de uma entrega `ALTERAÇÃO_STATUS`."
);
event_body!(
    /// The body of a `TESTE` delivery.
    TestEvent, TestData, "Corpo de uma entrega `TESTE`."
);

/// The data of `ALTERAÇÃO_STATUS`. `sequence` grows by one per change of the proposal, so that a
/// receiver can drop an event older than one it already applied (delivery order is not guaranteed).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Dados de `ALTERAÇÃO_STATUS`. `sequence` cresce de um a cada mudança da proposta: o receptor descarta um evento mais antigo que um já aplicado (a ordem de entrega não é garantida)."
    )
)]
pub struct StatusChangeData {
    pub identificador: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::ProposalStatus))]
    pub status_anterior: ProposalStatus,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::values::ProposalStatus))]
    pub status_atual: ProposalStatus,
    pub alterado_em: String,
    pub alterado_por: String,
    pub motivo: Option<String>,
    pub sequence: i32,
}

/// The data of `TESTE`.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(description = "Dados de `TESTE`."))]
pub struct TestData {
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "0f8fad5b-d9cb-469f-a165-70867728950e"))]
    pub uuid: Uuid,
    pub mensagem: String,
}

fn serialise<T: Serialize>(event: &T) -> String {
    // A struct of strings and numbers always serialises.
    serde_json::to_string(event).unwrap_or_default()
}

/// A proposal's status change.
pub fn status_change(event: &StatusEvent, identifier: &str) -> String {
    serialise(&StatusChangeEvent {
        kind: EventKind::StatusChange,
        timestamp: timestamp(event.changed_at),
        data: StatusChangeData {
            identificador: identifier.to_owned(),
            status_anterior: event.from,
            status_atual: event.to,
            alterado_em: timestamp(event.changed_at),
            alterado_por: event.changed_by.clone(),
            motivo: event.reason.clone(),
            sequence: event.sequence,
        },
    })
}

/// The test event `POST /hooks/:uuid/test` sends.
pub fn test(subscription: Uuid, at: DateTime<Utc>) -> String {
    serialise(&TestEvent {
        kind: EventKind::Test,
        timestamp: timestamp(at),
        data: TestData {
            uuid: subscription,
            mensagem: "Evento de teste: a assinatura recebe e verifica entregas.".to_owned(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::{Value, json};

    #[test]
    fn status_change_carries_the_proposal_the_move_and_its_sequence() {
        let at = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
        let event = StatusEvent {
            id: 9,
            proposal_id: 4,
            kind: EventKind::StatusChange,
            from: ProposalStatus::New,
            to: ProposalStatus::Cancelled,
            changed_by: "ana@exemplo.com.br".into(),
            changed_at: at,
            sequence: 3,
            reason: Some("desistência".into()),
        };
        let body: Value = serde_json::from_str(&status_change(&event, "PROP-1")).unwrap();
        assert_eq!(
            body,
            json!({
                "type": "ALTERAÇÃO_STATUS",
                "timestamp": "2026-11-22T10:00:00.000Z",
                "data": {
                    "identificador": "PROP-1",
                    "statusAnterior": "NOVO",
                    "statusAtual": "CANCELADO",
                    "alteradoEm": "2026-11-22T10:00:00.000Z",
                    "alteradoPor": "ana@exemplo.com.br",
                    "motivo": "desistência",
                    "sequence": 3,
                }
            })
        );
    }
}
