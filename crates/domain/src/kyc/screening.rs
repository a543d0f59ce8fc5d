//! The screening of a sale's customer (routes 5 and 6), before anything is stored: the CPF's
//! status at the Receita, which refuses a CPF not `REGULAR`, and the list of politically exposed
//! persons, which lets the sale go on under due diligence (Circular SUSEP 612/2020, art. 4 and
//! chapter VII; decision 293). What calls for diligence is recorded with the proposal, and the
//! back office decides it before the proposal can be accepted.

use crate::clock::Clock;
use crate::kyc::cpf_status::{CpfSituation, CpfStatus, CpfStatusCache};
use crate::kyc::names::match_key;
use crate::store::StoreError;
use crate::values::Cpf;
use async_trait::async_trait;
use chrono::NaiveDate;
use std::sync::Arc;

/// Why a proposal's customer calls for diligence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KycReasonCode {
    /// On the CGU's list in force: the six visible CPF digits and the name match.
    PepList,
    /// The customer declared themself a politically exposed person (`pep: true`).
    PepDeclared,
    /// The CPF's status could not be asked: the provider did not answer.
    CpfUnverified,
}

impl KycReasonCode {
    pub const ALL: [KycReasonCode; 3] = [Self::PepList, Self::PepDeclared, Self::CpfUnverified];

    /// The code answers and records carry.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PepList => "pep_lista",
            Self::PepDeclared => "pep_declarado",
            Self::CpfUnverified => "cpf_nao_verificado",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// One reason for diligence, with what the screening found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KycReason {
    pub code: KycReasonCode,
    /// In Portuguese, for the analyst: the role and body on the list, or why the CPF went
    /// unverified.
    pub detail: String,
}

/// Where the diligence of a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KycStatus {
    /// Waiting for the back office's decision: the proposal cannot be accepted meanwhile.
    Pending,
    Approved,
    Refused,
}

impl KycStatus {
    pub const ALL: [KycStatus; 3] = [Self::Pending, Self::Approved, Self::Refused];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pendente",
            Self::Approved => "aprovada",
            Self::Refused => "recusada",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// A proposal's diligence as route 7 shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KycView {
    /// On the list or self-declared.
    pub pep: bool,
    pub status: KycStatus,
    pub reasons: Vec<KycReason>,
}

/// What the screening of a sale found. `Clear` goes on as before; `Diligence` goes on recorded
/// as pending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screening {
    Clear,
    Diligence(KycView),
}

impl Screening {
    /// The diligence to record with the proposal, if any.
    pub fn diligence(&self) -> Option<&KycView> {
        match self {
            Self::Clear => None,
            Self::Diligence(view) => Some(view),
        }
    }
}

/// An entry of the PEP list in force that matches a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PepMatch {
    pub role: String,
    pub body: String,
    /// The end of the five years after the role (none while the role lasts).
    pub exposed_until: Option<NaiveDate>,
}

/// Where the PEP list in force is searched.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PepLookup: Send + Sync {
    /// The entries whose six visible CPF digits are `cpf_middle` and whose name's key is
    /// `name_key`, still exposed on `on` (the five years after the role not yet over).
    async fn exposed(&self, cpf_middle: &str, name_key: &str, on: NaiveDate) -> Result<Vec<PepMatch>, StoreError>;
}

/// Why a sale may not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScreeningError {
    /// The CPF is not `REGULAR` at the Receita: nothing is stored.
    #[error("CPF com situação {} na Receita Federal", .0.as_str())]
    Irregular(CpfSituation),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The screening, with its sources and how long a CPF's status is trusted.
#[derive(Clone)]
pub struct KycScreening {
    pub cpf_status: Arc<dyn CpfStatus>,
    pub cache: Arc<dyn CpfStatusCache>,
    pub pep_list: Arc<dyn PepLookup>,
    pub clock: Arc<dyn Clock>,
    /// How long an answer of the CPF's status is used again (`CPF_STATUS_CACHE_SECONDS`).
    pub cache_for: chrono::Duration,
}

impl KycScreening {
    /// The six CPF digits the CGU's list shows (the 4th to the 9th).
    pub fn cpf_middle(cpf: &Cpf) -> &str {
        cpf.as_str().get(3..9).unwrap_or_default()
    }

    /// Screens the customer of a new sale: `Err(Irregular)` for a CPF not `REGULAR`, otherwise
    /// the diligence it calls for, if any. The kept status and the list are read at once; the
    /// provider is asked only when no answer is kept (and its answer kept), and its silence is a
    /// reason for diligence, never a refusal nor a pass.
    pub async fn screen(&self, cpf: &Cpf, name: &str, declared_pep: bool) -> Result<Screening, ScreeningError> {
        let now = self.clock.now();
        let name_key = match_key(name);
        let (kept, listed) = futures_util::join!(
            self.cache.fresh(cpf, now - self.cache_for),
            self.pep_list
                .exposed(Self::cpf_middle(cpf), &name_key, now.date_naive()),
        );
        let (kept, listed) = (kept?, listed?);
        let mut reasons = Vec::new();
        match kept {
            Some(situation) if situation.is_regular() => {}
            Some(situation) => return Err(ScreeningError::Irregular(situation)),
            None => match self.cpf_status.situation(cpf).await {
                Ok(situation) => {
                    self.cache.keep(cpf, situation, now).await?;
                    if !situation.is_regular() {
                        return Err(ScreeningError::Irregular(situation));
                    }
                }
                Err(unavailable) => {
                    tracing::warn!(error = %unavailable, "CPF status unavailable: the sale goes on under diligence");
                    reasons.push(KycReason {
                        code: KycReasonCode::CpfUnverified,
                        detail: "a consulta da situação do CPF na Receita Federal não respondeu".to_owned(),
                    });
                }
            },
        }
        for entry in &listed {
            let until = entry
                .exposed_until
                .map(|d| format!(", exposta até {}", d.format("%d/%m/%Y")))
                .unwrap_or_default();
            reasons.push(KycReason {
                code: KycReasonCode::PepList,
                detail: format!("{} — {}{until} (lista PEP da CGU)", entry.role, entry.body),
            });
        }
        if declared_pep {
            reasons.push(KycReason {
                code: KycReasonCode::PepDeclared,
                detail: "o cliente se declarou pessoa exposta politicamente".to_owned(),
            });
        }
        if reasons.is_empty() {
            return Ok(Screening::Clear);
        }
        Ok(Screening::Diligence(KycView {
            pep: declared_pep || !listed.is_empty(),
            status: KycStatus::Pending,
            reasons,
        }))
    }
}

#[cfg(all(test, feature = "mock"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::kyc::cpf_status::{CpfStatusUnavailable, MockCpfStatus, MockCpfStatusCache};
    use chrono::{DateTime, Utc};

    struct Fixed(DateTime<Utc>);

    impl Clock for Fixed {
        fn now(&self) -> DateTime<Utc> {
            self.0
        }
    }

    fn cpf() -> Cpf {
        Cpf::parse("52998224725").unwrap()
    }

    fn now() -> DateTime<Utc> {
        "2026-12-07T12:00:00Z".parse().unwrap()
    }

    fn screening(status: MockCpfStatus, cache: MockCpfStatusCache, pep: MockPepLookup) -> KycScreening {
        KycScreening {
            cpf_status: Arc::new(status),
            cache: Arc::new(cache),
            pep_list: Arc::new(pep),
            clock: Arc::new(Fixed(now())),
            cache_for: chrono::Duration::hours(24),
        }
    }

    fn nobody_listed() -> MockPepLookup {
        let mut pep = MockPepLookup::new();
        pep.expect_exposed().returning(|_, _, _| Ok(Vec::new()));
        pep
    }

    fn nothing_kept() -> MockCpfStatusCache {
        let mut cache = MockCpfStatusCache::new();
        cache.expect_fresh().returning(|_, _| Ok(None));
        cache
    }

    #[tokio::test]
    async fn a_regular_cpf_off_the_list_is_clear_and_its_answer_kept() {
        let mut status = MockCpfStatus::new();
        status
            .expect_situation()
            .times(1)
            .returning(|_| Ok(CpfSituation::Regular));
        let mut cache = nothing_kept();
        cache
            .expect_keep()
            .withf(|_, s, at| *s == CpfSituation::Regular && *at == now())
            .times(1)
            .returning(|_, _, _| Ok(()));
        let outcome = screening(status, cache, nobody_listed())
            .screen(&cpf(), "Maria da Silva", false)
            .await
            .unwrap();
        assert_eq!(outcome, Screening::Clear);
    }

    #[tokio::test]
    async fn a_kept_answer_within_its_time_spares_the_provider_and_an_irregular_one_refuses() {
        let mut status = MockCpfStatus::new();
        status.expect_situation().never();
        let mut cache = MockCpfStatusCache::new();
        cache
            .expect_fresh()
            .withf(|_, since| *since == now() - chrono::Duration::hours(24))
            .returning(|_, _| Ok(Some(CpfSituation::Cancelada)));
        let refused = screening(status, cache, nobody_listed())
            .screen(&cpf(), "Maria da Silva", false)
            .await;
        assert_eq!(refused, Err(ScreeningError::Irregular(CpfSituation::Cancelada)));
    }

    #[tokio::test]
    async fn the_providers_irregular_answer_is_kept_and_refuses() {
        let mut status = MockCpfStatus::new();
        status
            .expect_situation()
            .returning(|_| Ok(CpfSituation::TitularFalecido));
        let mut cache = nothing_kept();
        cache.expect_keep().times(1).returning(|_, _, _| Ok(()));
        let refused = screening(status, cache, nobody_listed())
            .screen(&cpf(), "Maria da Silva", false)
            .await;
        assert_eq!(refused, Err(ScreeningError::Irregular(CpfSituation::TitularFalecido)));
    }

    #[tokio::test]
    async fn a_silent_provider_flags_the_sale_and_keeps_nothing() {
        let mut status = MockCpfStatus::new();
        status
            .expect_situation()
            .returning(|_| Err(CpfStatusUnavailable("tempo esgotado".into())));
        let mut cache = nothing_kept();
        cache.expect_keep().never();
        let outcome = screening(status, cache, nobody_listed())
            .screen(&cpf(), "Maria da Silva", false)
            .await
            .unwrap();
        let view = outcome.diligence().unwrap();
        assert!(!view.pep);
        assert_eq!(view.status, KycStatus::Pending);
        assert_eq!(view.reasons.len(), 1);
        assert_eq!(view.reasons[0].code, KycReasonCode::CpfUnverified);
    }

    #[tokio::test]
    async fn the_list_is_searched_by_the_six_visible_digits_and_the_names_key_and_a_declaration_counts() {
        let mut status = MockCpfStatus::new();
        status.expect_situation().returning(|_| Ok(CpfSituation::Regular));
        let mut cache = nothing_kept();
        cache.expect_keep().returning(|_, _, _| Ok(()));
        let mut pep = MockPepLookup::new();
        pep.expect_exposed()
            .withf(|middle, key, on| middle == "982247" && key == "JOSE DA CONCEICAO" && *on == now().date_naive())
            .returning(|_, _, _| {
                Ok(vec![PepMatch {
                    role: "DEPUTADO FEDERAL".into(),
                    body: "CÂMARA DOS DEPUTADOS".into(),
                    exposed_until: NaiveDate::from_ymd_opt(2031, 1, 31),
                }])
            });
        let outcome = screening(status, cache, pep)
            .screen(&cpf(), "José da Conceição", true)
            .await
            .unwrap();
        let view = outcome.diligence().unwrap();
        assert!(view.pep);
        let codes: Vec<_> = view.reasons.iter().map(|r| r.code).collect();
        assert_eq!(codes, [KycReasonCode::PepList, KycReasonCode::PepDeclared]);
        assert!(
            view.reasons[0]
                .detail
                .contains("DEPUTADO FEDERAL — CÂMARA DOS DEPUTADOS, exposta até 31/01/2031")
        );
    }

    #[test]
    fn codes_and_statuses_read_back_from_their_text() {
        for code in KycReasonCode::ALL {
            assert_eq!(KycReasonCode::parse(code.as_str()), Some(code));
        }
        for status in KycStatus::ALL {
            assert_eq!(KycStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(KycScreening::cpf_middle(&cpf()), "982247");
    }
}
