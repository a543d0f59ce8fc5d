//! A proposal's history (its changes, oldest first).

use super::iso;
use serde::Serialize;
use utoipa::ToSchema;

/// One field's value before and after a change (masked where personal; `null` where none).
#[derive(Debug, Serialize, ToSchema)]
pub struct FieldChangeDto {
    /// Any JSON value: text, number, boolean or `null`.
    #[schema(value_type = Value)]
    pub from: serde_json::Value,
    /// Any JSON value: text, number, boolean or `null`.
    #[schema(value_type = Value)]
    pub to: serde_json::Value,
}

/// One entry of a proposal's history.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryEntryDto {
    #[schema(format = DateTime, example = "2026-11-23T13:05:09.000Z")]
    pub at: String,
    #[schema(example = "backoffice@demo.com.br")]
    pub by: String,
    /// criacao, correcao, envio, reenvio, alteracao, assinatura, recusa, atribuicao (a análise
    /// atribuída a um analista, com `analista`), pendencia (documentos pedidos, com `itens`),
    /// pendencia_resposta (a resposta do vendedor, com `pedido`), status, solicitacao (um pedido do
    /// cliente, com `protocolo` e `tipo`), pagamento, cobranca (uma cobrança do contrato paga, falha
    /// ou cancelada, com `periodo` e `status`), cobranca_situacao (a situação da cobrança: em_dia,
    /// em_atraso, suspenso), autorizacao_debito (a autorização de débito em conta recusada pelo
    /// banco ou revogada, com `situacao` e `motivo`), aviso_cobranca (um aviso de prêmio não pago,
    /// Lei 15.040/2024 arts. 20–21, com `aviso`: atraso, aviso_encerramento ou encerramento,
    /// `periodo` e `canais`: cada canal e sua entrega; e os avisos do fim da vigência: renovacao
    /// ou fim_vigencia), aviso_recebimento (o recebimento de um aviso, ou sua entrega frustrada,
    /// conhecido depois do envio, com `aviso` e `recebido_em` ou `frustrado_em`), vigencia (o
    /// contrato renovado, com `vigencia`: o número da vigência, e
    /// `fim`: o novo fim), averbacao (o desconto em folha registrado
    /// na plataforma de consignação, com `averbacao`: o id dela, e `situacao`: pendente, ativa,
    /// recusada ou cancelada, e `motivo`), exportacao, bloqueio (dados do titular
    /// bloqueados por retenção legal, com `base` e `ate`), retencao (respostas de saúde descartadas
    /// pelo prazo de retenção, por `sistema:retencao`) ou anonimizacao (a pedido ou pelo prazo).
    #[schema(example = "status")]
    pub action: String,
    #[schema(example = json!({"status": {"from": "EM ANÁLISE", "to": "APROVADO"}, "motivo": {"from": null, "to": "Documentação conferida"}}))]
    pub changes: std::collections::BTreeMap<String, FieldChangeDto>,
}

impl From<domain::history::HistoryEntry> for HistoryEntryDto {
    fn from(e: domain::history::HistoryEntry) -> Self {
        Self {
            at: iso(e.at),
            by: e.by,
            action: e.action,
            changes: e
                .changes
                .into_iter()
                .map(|(field, change)| {
                    (
                        field,
                        FieldChangeDto {
                            from: change.from,
                            to: change.to,
                        },
                    )
                })
                .collect(),
        }
    }
}

/// A proposal's history, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryDto {
    pub entries: Vec<HistoryEntryDto>,
}
