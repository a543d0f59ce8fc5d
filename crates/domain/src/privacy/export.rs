//! The export (LGPD art. 18, II) as the store hands it to the domain: the document, answered as
//! the store read it, and the typed record the domain reads its notices from — with whom the data
//! was shared (art. 18, VII), until when it is kept (art. 15 and 16), the consents (art. 8, § 5º)
//! and where the file is sent. The record's member names are the document's (the store's rows);
//! nothing in the domain reads the document by name.

use super::consents::StoredConsent;
use super::hold::StatusMove;
use crate::store::StoreError;
use crate::values::{Application, ProposalStatus};
use chrono::{DateTime, Utc};
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

/// Everything held under a CPF, as the store answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonalDataExport {
    /// Every row held, as the store read it: the route's answer, with the notices the service
    /// adds.
    pub document: serde_json::Value,
    /// What the domain reads of it.
    pub record: ExportRecord,
}

impl PersonalDataExport {
    /// The record read from the store's document: one that does not read (a row the record
    /// cannot take) is the store's fault, an internal error naming what.
    pub fn of(document: serde_json::Value) -> Result<Self, StoreError> {
        let record = ExportRecord::deserialize(&document).map_err(|error| {
            tracing::error!(%error, "exportação ilegível");
            StoreError::Unexpected(format!("exportação ilegível: {error}"))
        })?;
        Ok(Self { document, record })
    }

    /// Whether anything is held: a registration or a proposal.
    pub fn holds_anything(&self) -> bool {
        !self.record.registrations.is_empty() || !self.record.proposals.is_empty()
    }
}

/// The export's rows the domain reads, typed.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct ExportRecord {
    /// Every registration of the person, by every seller, oldest first.
    #[serde(rename = "cadastros", default)]
    pub registrations: Vec<ExportedRegistration>,
    /// Every proposal for the person, oldest first.
    #[serde(rename = "propostas", default)]
    pub proposals: Vec<ExportedProposal>,
    /// Each consent given or revoked, oldest first.
    #[serde(rename = "consentimentos", default)]
    pub consents: Vec<StoredConsent>,
}

/// A seller's registration of the person.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExportedRegistration {
    /// The e-mail as given (read as an e-mail where one is needed: an old row may hold none).
    pub email: Option<String>,
    /// The payment platform's customer made for the person (a shop sale).
    #[serde(rename = "ecommerce_customer_id")]
    pub platform_customer: Option<String>,
    #[serde(rename = "vendedor")]
    pub seller: ExportedSeller,
}

/// Who registered the person.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExportedSeller {
    #[serde(rename = "aplicacao")]
    pub application: Application,
    /// The partner's CPF or CNPJ, for a partner's registration.
    #[serde(rename = "cpf_cnpj_parceiro")]
    pub partner_document: Option<String>,
    #[serde(rename = "nome_parceiro")]
    pub partner_name: Option<String>,
}

/// A proposal for the person, with what was done with it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExportedProposal {
    #[serde(rename = "proposta")]
    pub proposal: ExportedProposalRow,
    /// The proposal's copy of the customer.
    #[serde(rename = "cliente", default)]
    pub copy: Option<ExportedCopy>,
    /// Whether it was sent for signature (it has a signature envelope).
    #[serde(rename = "assinatura", default, deserialize_with = "present")]
    pub sent_for_signature: bool,
    /// How many subscriptions the payment platform holds for it.
    #[serde(rename = "assinaturas_pagamento", default, deserialize_with = "count")]
    pub platform_subscriptions: usize,
    /// Its status moves, in order.
    #[serde(rename = "eventos", default, deserialize_with = "status_moves")]
    pub moves: Vec<StatusMove>,
    /// What went to those who collect its premium.
    #[serde(rename = "cobranca", default)]
    pub collection: CollectionSent,
}

/// What a contract's collection sent out: each one a recipient of the person's data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct CollectionSent {
    /// A Pix Automático recurrence asked of the PSP.
    #[serde(rename = "pix_recorrencia", default)]
    pub pix_recurrence: bool,
    /// A debit in account sent to the bank in a debit file (CNAB).
    #[serde(rename = "arquivo_debito", default)]
    pub debit_file: bool,
    /// The payroll discount's averbação asked of the consignment platform.
    #[serde(default)]
    pub averbacao: bool,
}

/// The proposal's own row.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExportedProposalRow {
    #[serde(rename = "identificador")]
    pub identifier: String,
    pub status: ProposalStatus,
    /// Its last change.
    #[serde(rename = "alterado_em")]
    pub changed_at: DateTime<Utc>,
}

/// The proposal's copy of the customer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExportedCopy {
    pub email: Option<String>,
}

/// A member that is there (not null).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<IgnoredAny>::deserialize(d)?.is_some())
}

/// How many items a list (or null) has.
fn count<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    Ok(Option::<Vec<IgnoredAny>>::deserialize(d)?.map_or(0, |items| items.len()))
}

/// The proposal's events (`proposal_events` rows), as the status moves they record.
fn status_moves<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<StatusMove>, D::Error> {
    #[derive(Deserialize)]
    struct Event {
        from_status: ProposalStatus,
        to_status: ProposalStatus,
        changed_at: DateTime<Utc>,
    }
    let events = Option::<Vec<Event>>::deserialize(d)?.unwrap_or_default();
    Ok(events
        .into_iter()
        .map(|e| StatusMove {
            from: e.from_status,
            to: e.to_status,
            at: e.changed_at,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_record_reads_the_rows_it_needs_and_leaves_the_rest_to_the_document() {
        let document = json!({
            "cpf": "52998224725",
            "cadastros": [{
                "id": 1, "email": "a@exemplo.com.br", "ecommerce_customer_id": null,
                "vendedor": {"aplicacao": "PARCEIRO", "cpf_cnpj_parceiro": "11222333000181", "nome_parceiro": "Corretora"},
            }],
            "propostas": [{
                "proposta": {"id": 7, "identificador": "p-1", "status": "APROVADO", "alterado_em": "2026-01-02T03:04:05.123456+00:00"},
                "cliente": {"email": "b@exemplo.com.br", "nome_completo": "Maria"},
                "assinatura": {"id": 3, "signatarios": []},
                "assinaturas_pagamento": [{"id": 1}, {"id": 2}],
                "eventos": [{"kind": "ALTERAÇÃO_STATUS", "from_status": "EM ANÁLISE", "to_status": "APROVADO",
                             "changed_at": "2026-01-02T03:04:05+00:00", "sequence": 1}],
                "historico": [],
            }],
        });
        let export = PersonalDataExport::of(document.clone()).unwrap();
        assert_eq!(export.document, document, "the document answered as read");
        assert!(export.holds_anything());
        let registration = &export.record.registrations[0];
        assert_eq!(registration.seller.application, Application::Partner);
        assert_eq!(registration.seller.partner_name.as_deref(), Some("Corretora"));
        let proposal = &export.record.proposals[0];
        assert_eq!(proposal.proposal.status, ProposalStatus::Approved);
        assert!(proposal.sent_for_signature);
        assert_eq!(proposal.platform_subscriptions, 2);
        assert_eq!(proposal.moves[0].from, ProposalStatus::InAnalysis);
        assert_eq!(proposal.moves[0].to, ProposalStatus::Approved);
        assert_eq!(
            proposal.copy.as_ref().and_then(|c| c.email.as_deref()),
            Some("b@exemplo.com.br")
        );
    }

    #[test]
    fn nothing_held_reads_as_empty_lists() {
        let export = PersonalDataExport::of(json!({"cpf": "52998224725", "cadastros": [], "propostas": []})).unwrap();
        assert!(!export.holds_anything());
        assert_eq!(export.record, ExportRecord::default());
    }

    #[test]
    fn a_status_no_proposal_can_have_is_the_stores_fault_named() {
        let document = json!({"propostas": [{
            "proposta": {"identificador": "p-1", "status": "TALVEZ", "alterado_em": "2026-01-02T03:04:05Z"},
        }]});
        let error = PersonalDataExport::of(document).unwrap_err();
        assert!(error.to_string().contains("TALVEZ"), "{error}");
    }
}
