//! A data subject's rights under the LGPD (Lei 13.709/2018, art. 18), for the back office: the
//! export of everything held about a CPF, and its anonymisation where no legal obligation
//! requires keeping the data.

pub mod consents;
pub mod declarations;
pub mod export;
pub mod hold;
pub mod notice;
pub mod person_channel;
pub mod request_kinds;
pub mod retention;
pub mod subject_requests;

use crate::access::{AccessError, Operation, authorize};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::ecommerce::PaymentGateway;
use crate::store::StoreError;
use crate::values::Cpf;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use consents::{ConsentOutcome, ConsentRecord, NewConsent};
pub use export::PersonalDataExport;
use hold::{HoldPolicy, LegalHold};
use std::sync::Arc;

/// A document kept as contract evidence after anonymisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptDocument {
    /// The proposal's identifier.
    pub identifier: String,
    /// `selado` (the PDF sent for signature), `assinado` (with its evidence page) or `provedor`
    /// (the signature provider's own copy).
    pub version: String,
    pub sha256: String,
}

/// A payment platform customer of the person, and whether the platform erased the person from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformRedaction {
    pub platform_customer: String,
    /// `None` until the call was made; then `Ok` or the platform's refusal.
    pub outcome: Option<Result<(), String>>,
}

/// What anonymisation changed and what it kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anonymized {
    /// Sellers' registrations of the CPF anonymised.
    pub registrations: i64,
    /// Kept answers of creating requests (`Idempotency-Key`) about the person, erased.
    pub forgotten_answers: i64,
    /// The payment platform's customers of the person (their ids, cleared here and recorded as
    /// redactions to make); after the store, whether the platform redacted each.
    pub platform_customers: Vec<PlatformRedaction>,
    /// Identifiers of the proposals whose copy of the customer was anonymised.
    pub proposals: Vec<String>,
    pub kept_documents: Vec<KeptDocument>,
}

/// How an anonymisation request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnonymizeOutcome {
    Done(Anonymized),
    /// Unfinished proposals (their identifiers): nothing was changed.
    Blocked(Vec<String>),
    /// A contract the law says to keep: nothing was anonymised, and the person's data is now
    /// blocked (kept for the hold, shown to no seller, used for no new proposal).
    Held(LegalHold),
    /// Nothing held under that CPF.
    NothingHeld,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PersonalDataStore: Send + Sync {
    /// Everything held under the CPF, as one JSON document (every registration by every seller
    /// with its address, and every proposal with its copy of the customer, payment, signature
    /// records, documents' digests, subscriptions, events and history) and the record the domain
    /// reads of it ([`PersonalDataExport::of`]); in the same transaction, an `exportacao` entry
    /// in the history of each proposal, by `by`.
    async fn export(&self, cpf: &Cpf, by: &str) -> Result<PersonalDataExport, StoreError>;

    /// In one transaction: refuses if any proposal of the CPF is unfinished; blocks the person
    /// when a contract of theirs is under a legal hold at `now` ([`hold::legal_hold`] by
    /// `policy`: the block recorded with its basis and end, a `bloqueio` entry in each proposal's
    /// history); otherwise replaces the personal data of every registration, address, proposal
    /// copy, payment and signature record of the CPF (the CPF itself by
    /// [`Cpf::anonymous_placeholder`]), keeping the signed documents, with an `anonimizacao` entry
    /// in each proposal's history, by `by`, and lifts any block.
    async fn anonymize(
        &self,
        cpf: &Cpf,
        by: &str,
        now: DateTime<Utc>,
        policy: HoldPolicy,
    ) -> Result<AnonymizeOutcome, StoreError>;

    /// Records a consent given or revoked for the CPF, by `by`, beside the earlier ones (never
    /// replacing them); refuses when nothing is held under the CPF, and a consent given (not a
    /// revocation) while the person is blocked.
    async fn record_consent(&self, cpf: &Cpf, consent: NewConsent, by: &str) -> Result<ConsentOutcome, StoreError>;

    /// Records the platform's answer to a customer's redaction (recorded as requested by the
    /// anonymisation's transaction): `error` is `None` when it was done.
    async fn record_redaction(&self, platform_customer: &str, error: Option<String>) -> Result<(), StoreError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrivacyError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("proposta em andamento para este CPF: {}", .0.join(", "))]
    Blocked(Vec<String>),
    #[error("nenhum dado mantido para este CPF")]
    NothingHeld,
    /// The person's contracts are under a legal hold: their data is blocked, not anonymised.
    #[error("retenção legal até {}: {}", .hold.until_text(*.policy), .hold.basis)]
    Held { hold: LegalHold, policy: HoldPolicy },
    /// A consent given for a blocked person: their data may serve nothing new.
    #[error("titular bloqueado por retenção legal")]
    PersonBlocked,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Clone)]
pub struct PrivacyService {
    pub store: Arc<dyn PersonalDataStore>,
    /// The payment platform, whose customers of the person are redacted through its API.
    pub gateway: Arc<dyn PaymentGateway>,
    /// How long contracts are kept after they end (`RETENTION_CONTRACT_YEARS`, the hold) and
    /// unconcluded sales' data (the export's `retencao` says until when).
    pub schedule: retention::RetentionSchedule,
    /// The clock holds are judged by (the development clock's, in development).
    pub clock: Arc<dyn Clock>,
}

impl PrivacyService {
    /// `GET /privacy/customers/:cpf`.
    #[tracing::instrument(skip_all, fields(cpf = %cpf.masked()))]
    pub async fn export(&self, principal: &Principal, cpf: &Cpf) -> Result<PersonalDataExport, PrivacyError> {
        authorize(principal, Operation::ManagePersonalData)?;
        let mut export = self.store.export(cpf, &principal.email).await?;
        // Why each category is held, with whom it was shared and until when it is kept (art. 9
        // and art. 18, VII), for a person of whom anything is held.
        if export.holds_anything() {
            let shared = declarations::disclosures(&export.record);
            let kept = retention::retention_notice(&export.record, self.clock.now(), &self.schedule);
            let consents = consents::consent_notice(&export.record.consents);
            if let Some(members) = export.document.as_object_mut() {
                members.insert("consentimentos".into(), consents);
                members.insert("retencao".into(), kept);
                members.insert(
                    "basesLegais".into(),
                    serde_json::to_value(declarations::customer_declarations()).unwrap_or_default(),
                );
                members.insert("compartilhamentos".into(), shared);
            }
        }
        tracing::info!("personal data exported");
        Ok(export)
    }

    /// `POST /privacy/customers/:cpf/consents`.
    #[tracing::instrument(skip_all, fields(cpf = %cpf.masked(), purpose = consent.purpose.code(), granted = consent.granted))]
    pub async fn record_consent(
        &self,
        principal: &Principal,
        cpf: &Cpf,
        consent: NewConsent,
    ) -> Result<ConsentRecord, PrivacyError> {
        authorize(principal, Operation::ManagePersonalData)?;
        match self.store.record_consent(cpf, consent, &principal.email).await? {
            ConsentOutcome::Recorded(record) => {
                tracing::info!("consent recorded");
                Ok(record)
            }
            ConsentOutcome::NothingHeld => Err(PrivacyError::NothingHeld),
            ConsentOutcome::Blocked => Err(PrivacyError::PersonBlocked),
        }
    }

    /// `POST /privacy/customers/:cpf/anonymize`.
    #[tracing::instrument(skip_all, fields(cpf = %cpf.masked()))]
    pub async fn anonymize(&self, principal: &Principal, cpf: &Cpf) -> Result<Anonymized, PrivacyError> {
        authorize(principal, Operation::ManagePersonalData)?;
        let policy = self.schedule.hold;
        match self
            .store
            .anonymize(cpf, &principal.email, self.clock.now(), policy)
            .await?
        {
            AnonymizeOutcome::Done(mut done) => {
                redact_platform_customers(self.gateway.as_ref(), self.store.as_ref(), &mut done).await?;
                tracing::info!(
                    registrations = done.registrations,
                    proposals = done.proposals.len(),
                    "personal data anonymised"
                );
                Ok(done)
            }
            AnonymizeOutcome::Blocked(open) => Err(PrivacyError::Blocked(open)),
            AnonymizeOutcome::Held(hold) => {
                tracing::info!(
                    contracts = hold.contracts.len(),
                    "personal data blocked under a legal hold"
                );
                Err(PrivacyError::Held { hold, policy })
            }
            AnonymizeOutcome::NothingHeld => Err(PrivacyError::NothingHeld),
        }
    }
}

/// Asks the payment platform to erase each of its customers of an anonymised person. After the
/// commit (the call cannot be rolled back with it): each call and its answer recorded; a refusal
/// is reported, never undoes the anonymisation.
pub(crate) async fn redact_platform_customers(
    gateway: &dyn PaymentGateway,
    store: &dyn PersonalDataStore,
    done: &mut Anonymized,
) -> Result<(), StoreError> {
    for redaction in &mut done.platform_customers {
        let outcome = gateway
            .redact_customer(&redaction.platform_customer)
            .await
            .map_err(|e| e.to_string());
        if let Err(error) = &outcome {
            tracing::warn!(%error, "payment platform customer not redacted");
        }
        store
            .record_redaction(&redaction.platform_customer, outcome.clone().err())
            .await?;
        redaction.outcome = Some(outcome);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::Application;

    fn principal(application: Application) -> Principal {
        Principal {
            user_id: 1,
            email: "bo@demo.com.br".into(),
            application,
            session_id: uuid::Uuid::nil(),
        }
    }

    fn cpf() -> Cpf {
        Cpf::parse("52998224725").unwrap()
    }

    #[tokio::test]
    async fn only_the_back_office_exercises_the_rights() {
        let mut store = MockPersonalDataStore::new();
        store.expect_export().never();
        store.expect_anonymize().never();
        let service = PrivacyService {
            store: Arc::new(store),
            gateway: Arc::new(crate::ecommerce::MockPaymentGateway::new()),
            schedule: retention::RetentionSchedule::default(),
            clock: Arc::new(crate::clock::SystemClock),
        };
        for application in [Application::Partner, Application::Ecommerce] {
            assert_eq!(
                service.export(&principal(application), &cpf()).await.unwrap_err(),
                PrivacyError::Access(AccessError::Forbidden)
            );
            assert_eq!(
                service.anonymize(&principal(application), &cpf()).await.unwrap_err(),
                PrivacyError::Access(AccessError::Forbidden)
            );
        }
    }

    #[tokio::test]
    async fn the_store_decides_and_the_caller_is_named_as_the_author() {
        let mut store = MockPersonalDataStore::new();
        store
            .expect_anonymize()
            .withf(|_, by, _, policy| by == "bo@demo.com.br" && policy.contract_years == 5)
            .returning(|_, _, _, _| Ok(AnonymizeOutcome::Blocked(vec!["p-1".into()])));
        let service = PrivacyService {
            store: Arc::new(store),
            gateway: Arc::new(crate::ecommerce::MockPaymentGateway::new()),
            schedule: retention::RetentionSchedule::default(),
            clock: Arc::new(crate::clock::SystemClock),
        };
        assert_eq!(
            service
                .anonymize(&principal(Application::BackOffice), &cpf())
                .await
                .unwrap_err(),
            PrivacyError::Blocked(vec!["p-1".into()])
        );
    }

    #[tokio::test]
    async fn a_legal_hold_is_refused_with_its_basis_and_end_and_the_platform_is_not_called() {
        let hold = LegalHold {
            basis: hold::HOLD_BASIS,
            until: None,
            contracts: vec!["p-1".into()],
        };
        let mut store = MockPersonalDataStore::new();
        let held = hold.clone();
        store
            .expect_anonymize()
            .returning(move |_, _, _, _| Ok(AnonymizeOutcome::Held(held.clone())));
        store.expect_record_redaction().never();
        let mut gateway = crate::ecommerce::MockPaymentGateway::new();
        gateway.expect_redact_customer().never();
        let policy = HoldPolicy { contract_years: 7 };
        let service = PrivacyService {
            store: Arc::new(store),
            gateway: Arc::new(gateway),
            schedule: retention::RetentionSchedule {
                hold: policy,
                ..retention::RetentionSchedule::default()
            },
            clock: Arc::new(crate::clock::SystemClock),
        };
        let refused = service
            .anonymize(&principal(Application::BackOffice), &cpf())
            .await
            .unwrap_err();
        assert_eq!(refused, PrivacyError::Held { hold, policy });
        assert!(
            refused
                .to_string()
                .starts_with("retenção legal até o fim do contrato em vigor e mais 7 anos: LGPD art. 16, I"),
            "{refused}"
        );
    }
}
