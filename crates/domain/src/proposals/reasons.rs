//! A decision's reason in two layers (decision 283; LGPD art. 6, III — necessity — and art. 11 —
//! health data): the back office's refusal or cancellation keeps its words, which may say what the
//! insurer learned of the person's health, for the customer (by e-mail), the back office and the
//! export; a seller reads only the category, a code from [`ReasonCategory`]'s closed list. What a
//! seller wrote itself (its own cancellation's reason) stays one layer: it reads its own words.

use crate::auth::model::Principal;
use crate::history::HistoryEntry;
use crate::proposals::lifecycle::StatusEvent;
use crate::values::{Application, ProposalStatus, ReasonCategory};

/// The history's member that carries a decision's category beside its words (`motivo`).
pub const CATEGORY_MEMBER: &str = "categoria_motivo";
/// The history's member with a move's words.
pub const WORDS_MEMBER: &str = "motivo";

/// A reason as the one who gave it stated it: its words and, when a seller must not read them,
/// the category it reads instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatedReason {
    pub words: String,
    pub category: Option<ReasonCategory>,
}

/// A reason as an operation is asked with it: its words and category, either absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GivenReason {
    pub words: Option<String>,
    pub category: Option<ReasonCategory>,
}

/// Whether the back office's move to `to` is a decision whose words stay with the back office: a
/// refusal or a cancellation.
pub fn takes_category(to: ProposalStatus) -> bool {
    matches!(to, ProposalStatus::Rejected | ProposalStatus::Cancelled)
}

/// The category the back office's move to `to` records: the one given, or `outros`; none for a
/// move that keeps one layer (an approval).
pub fn of_decision(to: ProposalStatus, given: Option<ReasonCategory>) -> Option<ReasonCategory> {
    takes_category(to).then(|| given.unwrap_or(ReasonCategory::Other))
}

/// The category of a cancellation at the customer's request: `a_pedido` when the back office
/// records it (the words are what the customer told it); none when the seller does (its own words).
pub fn of_cancellation(principal: &Principal) -> Option<ReasonCategory> {
    (principal.application == Application::BackOffice).then_some(ReasonCategory::CustomerRequest)
}

/// How the console names a category.
pub fn label(category: ReasonCategory) -> &'static str {
    match category {
        ReasonCategory::Health => "Saúde",
        ReasonCategory::Documentation => "Documentação",
        ReasonCategory::FinancialRisk => "Risco financeiro",
        ReasonCategory::InexactDeclaration => "Declaração inexata",
        ReasonCategory::CustomerRequest => "A pedido do cliente",
        ReasonCategory::Other => "Outros",
    }
}

/// Whether `principal` reads a categorised reason's words: the back office only.
pub fn reads_the_words(principal: &Principal) -> bool {
    principal.application == Application::BackOffice
}

impl StatusEvent {
    /// The event as `principal` reads it: a seller reads a categorised reason's category, never
    /// its words.
    pub fn as_read_by(mut self, principal: &Principal) -> Self {
        if self.reason_category.is_some() && !reads_the_words(principal) {
            self.reason = None;
        }
        self
    }
}

/// The history's member that says who answers a request for documents (decision 289).
pub const RECIPIENT_MEMBER: &str = "destinatario";
/// The history's member with what a request for documents asks.
pub const ITEMS_MEMBER: &str = "itens";

/// The history as `principal` reads it: in an entry that carries a category, a seller reads the
/// category and not the words; of a request for documents the proponent answers, not what it
/// asks (decision 289).
pub fn history_as_read_by(mut entries: Vec<HistoryEntry>, principal: &Principal) -> Vec<HistoryEntry> {
    if !reads_the_words(principal) {
        let proponent = serde_json::Value::from(crate::acceptance::pending::PendingRecipient::Proponent.as_str());
        for entry in &mut entries {
            if entry.changes.contains_key(CATEGORY_MEMBER) {
                entry.changes.remove(WORDS_MEMBER);
            }
            if entry.changes.get(RECIPIENT_MEMBER).is_some_and(|c| c.to == proponent) {
                entry.changes.remove(ITEMS_MEMBER);
            }
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::FieldChange;
    use chrono::Utc;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn principal(application: Application) -> Principal {
        Principal {
            user_id: 1,
            email: "alguem@demo.com.br".to_owned(),
            application,
            session_id: uuid::Uuid::nil(),
        }
    }

    fn refusal(category: Option<ReasonCategory>) -> StatusEvent {
        StatusEvent {
            id: 1,
            proposal_id: 1,
            kind: crate::values::EventKind::StatusChange,
            from: ProposalStatus::InAnalysis,
            to: ProposalStatus::Rejected,
            changed_by: "bo@demo.com.br".to_owned(),
            changed_at: Utc::now(),
            sequence: 3,
            reason: Some("Declarou uso contínuo de Losartana".to_owned()),
            reason_category: category,
        }
    }

    #[test]
    fn only_refusals_and_cancellations_take_a_category_and_outros_when_none_is_given() {
        assert_eq!(of_decision(ProposalStatus::Rejected, None), Some(ReasonCategory::Other));
        assert_eq!(
            of_decision(ProposalStatus::Cancelled, Some(ReasonCategory::Health)),
            Some(ReasonCategory::Health)
        );
        assert_eq!(of_decision(ProposalStatus::Approved, None), None);
    }

    #[test]
    fn a_cancellation_the_back_office_records_is_at_the_customers_request_a_sellers_keeps_its_words() {
        assert_eq!(
            of_cancellation(&principal(Application::BackOffice)),
            Some(ReasonCategory::CustomerRequest)
        );
        assert_eq!(of_cancellation(&principal(Application::Partner)), None);
        assert_eq!(of_cancellation(&principal(Application::Ecommerce)), None);
    }

    #[test]
    fn a_seller_reads_the_category_and_the_back_office_the_words() {
        let seller = refusal(Some(ReasonCategory::Health)).as_read_by(&principal(Application::Partner));
        assert_eq!(seller.reason, None);
        assert_eq!(seller.reason_category, Some(ReasonCategory::Health));
        let office = refusal(Some(ReasonCategory::Health)).as_read_by(&principal(Application::BackOffice));
        assert_eq!(office.reason.as_deref(), Some("Declarou uso contínuo de Losartana"));
        // A reason with no category is the seller's own, or the system's code: read as it is.
        let own = refusal(None).as_read_by(&principal(Application::Ecommerce));
        assert!(own.reason.is_some());
    }

    #[test]
    fn a_sellers_history_loses_the_words_of_categorised_entries_only() {
        let change = |to: serde_json::Value| FieldChange { from: json!(null), to };
        let entry = |members: &[(&str, serde_json::Value)]| HistoryEntry {
            at: Utc::now(),
            by: "bo@demo.com.br".to_owned(),
            action: "status".to_owned(),
            changes: members
                .iter()
                .map(|(k, v)| ((*k).to_owned(), change(v.clone())))
                .collect::<BTreeMap<_, _>>(),
        };
        let entries = vec![
            entry(&[(WORDS_MEMBER, json!("Losartana")), (CATEGORY_MEMBER, json!("saude"))]),
            entry(&[(WORDS_MEMBER, json!("Documentação conferida"))]),
        ];
        let seller = history_as_read_by(entries.clone(), &principal(Application::Partner));
        assert!(!seller[0].changes.contains_key(WORDS_MEMBER));
        assert_eq!(seller[0].changes[CATEGORY_MEMBER].to, json!("saude"));
        assert_eq!(seller[1].changes[WORDS_MEMBER].to, json!("Documentação conferida"));
        assert_eq!(
            history_as_read_by(entries.clone(), &principal(Application::BackOffice)),
            entries
        );
    }

    #[test]
    fn a_seller_reads_a_request_for_the_proponent_without_what_it_asks() {
        let entry = |recipient: &str| HistoryEntry {
            at: Utc::now(),
            by: "bo@demo.com.br".to_owned(),
            action: "pendencia".to_owned(),
            changes: BTreeMap::from([
                (
                    ITEMS_MEMBER.to_owned(),
                    FieldChange {
                        from: json!(null),
                        to: json!(["Laudo cardiológico"]),
                    },
                ),
                (
                    CATEGORY_MEMBER.to_owned(),
                    FieldChange {
                        from: json!(null),
                        to: json!("saude"),
                    },
                ),
                (
                    RECIPIENT_MEMBER.to_owned(),
                    FieldChange {
                        from: json!(null),
                        to: json!(recipient),
                    },
                ),
            ]),
        };
        let seller = history_as_read_by(
            vec![entry("proponente"), entry("vendedor")],
            &principal(Application::Partner),
        );
        assert!(!seller[0].changes.contains_key(ITEMS_MEMBER));
        assert_eq!(seller[0].changes[CATEGORY_MEMBER].to, json!("saude"));
        assert!(
            seller[1].changes.contains_key(ITEMS_MEMBER),
            "the seller reads what it answers"
        );
        let office = history_as_read_by(vec![entry("proponente")], &principal(Application::BackOffice));
        assert!(office[0].changes.contains_key(ITEMS_MEMBER));
    }
}
