//! `2026-11-29`: a proposal past its signing deadline is `EXPIRADO` (issue 29). Release 0.1.0's
//! clients know six statuses and refuse a seventh (a generated enum raises on it); they are shown
//! what the database itself kept before the status existed: `CANCELADO` (migration 000029's down
//! turns expired proposals into cancelled ones). Decision 229.

use super::{AnswerTarget, Change, EventTarget};
use crate::ApiVersion;
use serde_json::Value;

pub struct ExpiredStatus;

const EXPIRED: &str = "EXPIRADO";
const CANCELLED: &str = "CANCELADO";

impl Change for ExpiredStatus {
    fn name(&self) -> &'static str {
        "expired_status"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_11_29
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[AnswerTarget {
            schema: "ProposalStatus",
            member: None,
        }]
    }

    fn event_targets(&self) -> &'static [EventTarget] {
        &[
            EventTarget {
                kind: "ALTERAÇÃO_STATUS",
                path: &["data", "statusAnterior"],
            },
            EventTarget {
                kind: "ALTERAÇÃO_STATUS",
                path: &["data", "statusAtual"],
            },
        ]
    }

    fn downgrade(&self, value: &mut Value) {
        if value.as_str() == Some(EXPIRED) {
            *value = Value::from(CANCELLED);
        }
    }

    fn document(&self, doc: &mut Value) {
        if let Some(values) = doc
            .pointer_mut("/components/schemas/ProposalStatus/enum")
            .and_then(Value::as_array_mut)
        {
            values.retain(|v| v.as_str() != Some(EXPIRED));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_expired_proposal_reads_as_cancelled_and_every_other_status_as_it_is() {
        let mut expired = json!("EXPIRADO");
        ExpiredStatus.downgrade(&mut expired);
        assert_eq!(expired, json!("CANCELADO"));
        for status in ["NOVO", "AGUARDANDO ASSINATURA", "CANCELADO", "APROVADO"] {
            let mut value = json!(status);
            ExpiredStatus.downgrade(&mut value);
            assert_eq!(value, json!(status));
        }
    }

    #[test]
    fn the_older_document_lists_the_six_statuses_of_release_0_1_0() {
        let mut doc = json!({"components": {"schemas": {"ProposalStatus": {"type": "string",
            "enum": ["NOVO", "AGUARDANDO ASSINATURA", "EM ANÁLISE", "APROVADO", "REPROVADO", "CANCELADO", "EXPIRADO"]}}}});
        ExpiredStatus.document(&mut doc);
        assert_eq!(
            doc["components"]["schemas"]["ProposalStatus"]["enum"],
            json!([
                "NOVO",
                "AGUARDANDO ASSINATURA",
                "EM ANÁLISE",
                "APROVADO",
                "REPROVADO",
                "CANCELADO"
            ])
        );
    }
}
