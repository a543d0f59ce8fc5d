//! The bodies of delivered events: `{"type", "timestamp", "data"}`, serialised once when the event
//! is queued so that every retry carries the same bytes.

use crate::proposals::lifecycle::StatusEvent;
use crate::values::EventKind;
use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

fn timestamp(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// A proposal's status change. `sequence` grows by one per change of the proposal, so that a
/// receiver can drop an event older than one it already applied (delivery order is not guaranteed).
pub fn status_change(event: &StatusEvent, identifier: &str) -> String {
    json!({
        "type": EventKind::StatusChange.as_str(),
        "timestamp": timestamp(event.changed_at),
        "data": {
            "identificador": identifier,
            "statusAnterior": event.from,
            "statusAtual": event.to,
            "alteradoEm": timestamp(event.changed_at),
            "alteradoPor": event.changed_by,
            "motivo": event.reason,
            "sequence": event.sequence,
        }
    })
    .to_string()
}

/// The test event `POST /hooks/:uuid/test` sends.
pub fn test(subscription: Uuid, at: DateTime<Utc>) -> String {
    json!({
        "type": EventKind::Test.as_str(),
        "timestamp": timestamp(at),
        "data": {
            "uuid": subscription,
            "mensagem": "Evento de teste: a assinatura recebe e verifica entregas.",
        }
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::Value;

    #[test]
    fn status_change_carries_the_proposal_the_move_and_its_sequence() {
        let at = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
        let event = StatusEvent {
            id: 9,
            proposal_id: 4,
            kind: "ALTERAÇÃO_STATUS".into(),
            from: "NOVO".into(),
            to: "CANCELADO".into(),
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
