//! `2026-11-29`: the error codes added since release 0.1.0 (refunds, pendings, privacy requests,
//! Pix, contract versions…). Release 0.1.0's document closed each error status's `code` to the
//! codes it had, and a client generated from it refuses any other (a generated enum raises), so a
//! caller of `2026-11-21` reads each newer code as the 0.1.0 code of the same status that a client
//! of the release handles alike: the status's generic code where it had one, the nearest in
//! meaning where it had none. The status and the `message` (which says what really happened) are
//! kept. Decision 238.

use super::{AnswerTarget, Change};
use crate::ApiVersion;
use serde_json::Value;

pub struct NewerErrorCodes;

/// Each code added since 0.1.0 and the 0.1.0 code of its status its callers read instead.
pub const AS_RELEASE_0_1_0: &[(&str, &str)] = &[
    // 400: the generic refusal.
    ("versao_desconhecida", "requisicao_invalida"),
    // 401: the generic one.
    ("notificacao_pix_nao_autenticada", "nao_autenticado"),
    // 404: the generic one.
    ("pedido_titular_nao_encontrado", "nao_encontrado"),
    ("pendencia_nao_encontrada", "nao_encontrado"),
    ("protocolo_nao_encontrado", "nao_encontrado"),
    // 409, which had no generic code: what clears by waiting reads as the request in progress
    // (try again in a moment); a conflict with the state of the records, which waiting does not
    // clear, as 0.1.0's one such conflict (nothing was done; the message says why).
    ("operacao_em_andamento", "requisicao_em_andamento"),
    ("arrependimento_nao_permitido", "anonimizacao_bloqueada"),
    ("autorizacao_debito_inativa", "anonimizacao_bloqueada"),
    ("autorizacao_debito_inexistente", "anonimizacao_bloqueada"),
    ("cancelamento_nao_permitido", "anonimizacao_bloqueada"),
    ("pedido_sem_envio_de_dados", "anonimizacao_bloqueada"),
    ("pedido_titular_respondido", "anonimizacao_bloqueada"),
    ("pendencia_em_aberto", "anonimizacao_bloqueada"),
    ("pendencia_respondida", "anonimizacao_bloqueada"),
    ("prazo_arrependimento_encerrado", "anonimizacao_bloqueada"),
    ("produto_sem_dados_certificado", "anonimizacao_bloqueada"),
    ("proposta_cancelada", "anonimizacao_bloqueada"),
    ("proposta_expirada", "anonimizacao_bloqueada"),
    ("proposta_fora_de_analise", "anonimizacao_bloqueada"),
    ("proposta_nao_aceita", "anonimizacao_bloqueada"),
    ("reembolso_recusado", "anonimizacao_bloqueada"),
    ("retencao_legal", "anonimizacao_bloqueada"),
    ("suspensoes_esgotadas", "anonimizacao_bloqueada"),
    ("titular_bloqueado", "anonimizacao_bloqueada"),
    ("titular_sem_email", "anonimizacao_bloqueada"),
    // 502: an outside service failed and nothing changed here, 0.1.0's one 502.
    ("dados_nao_enviados", "provedor_assinatura_indisponivel"),
    // 503: the generic one.
    ("indice_correcao_indisponivel", "servico_indisponivel"),
    ("psp_pix_indisponivel", "servico_indisponivel"),
];

/// The named error bodies (one per status, `routes::docs`) whose `code` gained values.
const ERROR_BODIES: [&str; 6] = [
    "BadRequestError",
    "UnauthorizedError",
    "NotFoundError",
    "ConflictError",
    "BadGatewayError",
    "ServiceUnavailableError",
];

/// The 0.1.0 code a caller of the version before the change reads for `code`.
pub fn as_release_0_1_0(code: &str) -> Option<&'static str> {
    AS_RELEASE_0_1_0
        .iter()
        .find(|(newer, _)| *newer == code)
        .map(|(_, older)| *older)
}

impl Change for NewerErrorCodes {
    fn name(&self) -> &'static str {
        "newer_error_codes"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_11_29
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        const fn code_of(schema: &'static str) -> AnswerTarget {
            AnswerTarget {
                schema,
                member: Some("code"),
            }
        }
        const TARGETS: [AnswerTarget; ERROR_BODIES.len()] = [
            code_of(ERROR_BODIES[0]),
            code_of(ERROR_BODIES[1]),
            code_of(ERROR_BODIES[2]),
            code_of(ERROR_BODIES[3]),
            code_of(ERROR_BODIES[4]),
            code_of(ERROR_BODIES[5]),
        ];
        &TARGETS
    }

    fn downgrade(&self, value: &mut Value) {
        if let Some(older) = value.as_str().and_then(as_release_0_1_0) {
            *value = Value::from(older);
        }
    }

    fn document(&self, doc: &mut Value) {
        for body in ERROR_BODIES {
            let parts = doc
                .pointer_mut(&format!("/components/schemas/{body}/allOf"))
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten();
            for part in parts {
                if let Some(codes) = part.pointer_mut("/properties/code/enum").and_then(Value::as_array_mut) {
                    codes.retain(|code| code.as_str().and_then(as_release_0_1_0).is_none());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_newer_code_reads_as_its_release_0_1_0_counterpart_and_an_older_one_as_it_is() {
        for (newer, older) in [
            ("protocolo_nao_encontrado", "nao_encontrado"),
            ("operacao_em_andamento", "requisicao_em_andamento"),
            ("titular_bloqueado", "anonimizacao_bloqueada"),
            ("psp_pix_indisponivel", "servico_indisponivel"),
        ] {
            let mut value = json!(newer);
            NewerErrorCodes.downgrade(&mut value);
            assert_eq!(value, json!(older));
        }
        for kept in [
            "dados_invalidos",
            "proposta_nao_encontrada",
            "limite_webhooks",
            "nao_autenticado",
        ] {
            let mut value = json!(kept);
            NewerErrorCodes.downgrade(&mut value);
            assert_eq!(value, json!(kept));
        }
    }

    #[test]
    fn every_newer_code_reads_as_a_code_release_0_1_0_had() {
        for (newer, older) in AS_RELEASE_0_1_0 {
            assert!(as_release_0_1_0(older).is_none(), "{newer} → {older}, itself newer");
        }
    }

    #[test]
    fn the_older_document_closes_each_error_status_to_the_codes_of_release_0_1_0() {
        let mut doc = json!({"components": {"schemas": {"NotFoundError": {"allOf": [
            {"$ref": "#/components/schemas/ErrorEnvelope"},
            {"type": "object", "properties": {"code": {"type": "string",
                "enum": ["nao_encontrado", "protocolo_nao_encontrado", "proposta_nao_encontrada"]}}}
        ]}}}});
        NewerErrorCodes.document(&mut doc);
        assert_eq!(
            doc.pointer("/components/schemas/NotFoundError/allOf/1/properties/code/enum"),
            Some(&json!(["nao_encontrado", "proposta_nao_encontrada"]))
        );
    }
}
