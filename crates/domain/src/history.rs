//! A proposal's history: every change of the proposal and of the customer data it uses, oldest
//! first, each with when, by whom, what kind of change, and each changed field's value before
//! and after. The store writes the entries in the transaction of the change itself and never
//! changes or removes one; personal values are masked when written, by the rules of
//! [`crate::masking`] (a CPF's check digits, a name's initials, an e-mail's first letter and
//! domain, a phone's last four digits, a birth date's year, anything else personal as `***`).

use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::BTreeMap;

/// The kinds of change an entry names (`action`).
pub mod actions {
    /// The proposal made (routes 5 and 6).
    pub const CREATED: &str = "criacao";
    /// A correction of the customer data the proposal holds (while it is `NOVO`).
    pub const CORRECTED: &str = "correcao";
    /// Sent for signature (route 12's first call).
    pub const SENT: &str = "envio";
    /// The signing request sent again (route 12's later calls).
    pub const RESENT: &str = "reenvio";
    /// Another change of the proposal's own fields.
    pub const CHANGED: &str = "alteracao";
    /// A party signed.
    pub const SIGNED: &str = "assinatura";
    /// A party refused.
    pub const REFUSED: &str = "recusa";
    /// A status move, with its reason when one was given.
    pub const STATUS: &str = "status";
    /// The payment details or the e-commerce subscription changed.
    pub const PAYMENT: &str = "pagamento";
    /// A customer's request (a cancellation), with its protocol; the status move it made is its
    /// own entry, with the reason.
    pub const REQUEST: &str = "solicitacao";
    /// The customer's data exported (LGPD, art. 18).
    pub const EXPORTED: &str = "exportacao";
    /// The customer's personal data blocked under a legal hold instead of anonymised (LGPD,
    /// art. 18, IV), with the hold's basis and end.
    pub const BLOCKED: &str = "bloqueio";
    /// The retention schedule dropped data past its period (the health answers of a sale that
    /// never concluded), by `sistema:retencao`.
    pub const RETENTION: &str = "retencao";
    /// The customer's personal data anonymised (LGPD, art. 18), on request or by the retention
    /// schedule.
    pub const ANONYMIZED: &str = "anonimizacao";
    /// The proposal in analysis assigned to a back-office user (or back to no one).
    pub const ASSIGNED: &str = "atribuicao";
    /// The back office asked the seller for documents (the acceptance clock suspended).
    pub const DOCUMENTS_REQUESTED: &str = "pendencia";
    /// The seller answered a request for documents (the clock runs again).
    pub const DOCUMENTS_SENT: &str = "pendencia_resposta";
    /// A charge of the contract paid, failed or cancelled (issue 46), with its period.
    pub const CHARGE: &str = "cobranca";
    /// The contract's billing status moved: late, suspended, or up to date again.
    pub const BILLING_STATUS: &str = "cobranca_situacao";
    /// The authorisation of the debits refused by the bank or revoked (at the bank or through the
    /// insurer), with its reason.
    pub const DEBIT_AUTHORIZATION: &str = "autorizacao_debito";
    /// A notice of an unpaid premium sent (Lei 15.040/2024 arts. 20–21): its kind, the period and
    /// each channel's delivery.
    pub const BILLING_NOTICE: &str = "aviso_cobranca";
    /// A notice's receipt or frustration learned after it was sent (a text message's report from
    /// the provider): the day the law's periods count from (art. 20 §§2–3).
    pub const NOTICE_RECEIPT: &str = "aviso_recebimento";
    /// The payroll discount's averbação asked, decided or cancelled at the consignment platform.
    pub const AVERBACAO: &str = "averbacao";
    /// The contract renewed for a new term (decision 270): the term's number and its end.
    pub const TERM: &str = "vigencia";

    /// Every action, in the order a proposal's life meets them.
    pub const ALL: [&str; 24] = [
        CREATED,
        CORRECTED,
        SENT,
        RESENT,
        CHANGED,
        SIGNED,
        REFUSED,
        ASSIGNED,
        DOCUMENTS_REQUESTED,
        DOCUMENTS_SENT,
        STATUS,
        REQUEST,
        PAYMENT,
        CHARGE,
        BILLING_STATUS,
        DEBIT_AUTHORIZATION,
        AVERBACAO,
        BILLING_NOTICE,
        NOTICE_RECEIPT,
        TERM,
        EXPORTED,
        BLOCKED,
        RETENTION,
        ANONYMIZED,
    ];

    /// How people read an action (the console's timeline).
    pub fn label(action: &str) -> &'static str {
        match action {
            CREATED => "Proposta criada",
            CORRECTED => "Dados do cliente corrigidos",
            SENT => "Enviada para assinatura",
            RESENT => "Pedido de assinatura reenviado",
            CHANGED => "Proposta alterada",
            SIGNED => "Assinatura registrada",
            REFUSED => "Assinatura recusada",
            STATUS => "Status alterado",
            REQUEST => "Pedido do cliente (protocolo)",
            PAYMENT => "Pagamento",
            EXPORTED => "Dados do titular exportados",
            BLOCKED => "Dados do titular bloqueados (retenção legal)",
            RETENTION => "Dados descartados pelo prazo de retenção",
            ANONYMIZED => "Dados do titular anonimizados",
            ASSIGNED => "Análise atribuída",
            DOCUMENTS_REQUESTED => "Documentos pedidos ao vendedor",
            DOCUMENTS_SENT => "Documentos enviados pelo vendedor",
            CHARGE => "Cobrança",
            BILLING_STATUS => "Situação da cobrança",
            DEBIT_AUTHORIZATION => "Autorização de débito em conta",
            BILLING_NOTICE => "Aviso ao cliente (atraso, cancelamento, fim da vigência)",
            NOTICE_RECEIPT => "Recebimento do aviso (ou entrega frustrada)",
            TERM => "Vigência renovada",
            AVERBACAO => "Averbação do desconto em folha",
            _ => "Alteração",
        }
    }
}

/// One field's value before and after (`null` where it had none); masked where personal.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChange {
    pub from: Value,
    pub to: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    pub at: DateTime<Utc>,
    /// Who made the change: a user's e-mail, a signatory's role, or the payment platform.
    pub by: String,
    /// One of [`actions`].
    pub action: String,
    pub changes: BTreeMap<String, FieldChange>,
}

#[cfg(test)]
mod tests {
    use super::actions;

    #[test]
    fn every_action_has_its_own_label() {
        let mut labels: Vec<&str> = actions::ALL.iter().map(|a| actions::label(a)).collect();
        assert!(!labels.contains(&"Alteração"));
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), actions::ALL.len());
    }
}
