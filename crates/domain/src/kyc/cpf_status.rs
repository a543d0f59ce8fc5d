//! The CPF's registration status at the Receita Federal, as Serpro's Consulta CPF answers it: a
//! sale goes on only for a `REGULAR` CPF (Circular SUSEP 612/2020, chapter VII: the customer
//! identified and their data checked), and a provider that does not answer never passes a sale
//! silently: it is flagged for diligence instead (decision 293).

use crate::store::StoreError;
use crate::values::Cpf;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// A CPF's registration status (`situação cadastral`), named as the Receita Federal names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CpfSituation {
    Regular,
    Suspensa,
    /// Cancelled by the Receita (by multiplicity or ex officio: Serpro's codes 5 and 9).
    Cancelada,
    Nula,
    TitularFalecido,
    PendenteDeRegularizacao,
    /// No CPF of this number at the Receita (Serpro's 404): a number with valid check digits that
    /// was never issued.
    Inexistente,
}

impl CpfSituation {
    pub const ALL: [CpfSituation; 7] = [
        Self::Regular,
        Self::Suspensa,
        Self::Cancelada,
        Self::Nula,
        Self::TitularFalecido,
        Self::PendenteDeRegularizacao,
        Self::Inexistente,
    ];

    /// The status as the Receita writes it, which answers and records carry.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Regular => "REGULAR",
            Self::Suspensa => "SUSPENSA",
            Self::Cancelada => "CANCELADA",
            Self::Nula => "NULA",
            Self::TitularFalecido => "TITULAR FALECIDO",
            Self::PendenteDeRegularizacao => "PENDENTE DE REGULARIZAÇÃO",
            Self::Inexistente => "INEXISTENTE",
        }
    }

    /// The status from its text ([`Self::as_str`]).
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// The status from Serpro's `situacao.codigo` (Consulta CPF, v1 and v2): 0 regular, 2
    /// suspended, 3 holder deceased, 4 pending, 5 cancelled by multiplicity, 8 null, 9 cancelled
    /// ex officio.
    pub fn from_serpro_code(code: &str) -> Option<Self> {
        Some(match code.trim() {
            "0" => Self::Regular,
            "2" => Self::Suspensa,
            "3" => Self::TitularFalecido,
            "4" => Self::PendenteDeRegularizacao,
            "5" | "9" => Self::Cancelada,
            "8" => Self::Nula,
            _ => return None,
        })
    }

    pub fn is_regular(self) -> bool {
        self == Self::Regular
    }
}

/// The provider gave no status: down, slow, refusing our credentials, or answering what we do not
/// read. The sale goes on, flagged for diligence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("consulta de situação do CPF indisponível: {0}")]
pub struct CpfStatusUnavailable(pub String);

/// Where a CPF's status is asked (Serpro's Consulta CPF; development's sandbox).
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CpfStatus: Send + Sync {
    async fn situation(&self, cpf: &Cpf) -> Result<CpfSituation, CpfStatusUnavailable>;
}

/// The statuses asked lately, so that one person's several sales cost one consultation (each is
/// billed) for the configured time.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CpfStatusCache: Send + Sync {
    /// The status of `cpf` asked at or after `since`, if any.
    async fn fresh(&self, cpf: &Cpf, since: DateTime<Utc>) -> Result<Option<CpfSituation>, StoreError>;
    /// Keeps `situation` as the status of `cpf` asked at `at`.
    async fn keep(&self, cpf: &Cpf, situation: CpfSituation, at: DateTime<Utc>) -> Result<(), StoreError>;
}

/// What development's Consulta CPF answers for a CPF (`POST /sandbox/kyc/cpf/{cpf}`): a status,
/// or no answer at all (the provider down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxCpfAnswer {
    Situation(CpfSituation),
    Unavailable,
}

impl SandboxCpfAnswer {
    /// The text the route takes and the sandbox keeps: a status, or `INDISPONIVEL`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Situation(s) => s.as_str(),
            Self::Unavailable => "INDISPONIVEL",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        if text == "INDISPONIVEL" {
            return Some(Self::Unavailable);
        }
        CpfSituation::parse(text).map(Self::Situation)
    }

    /// Every text [`Self::parse`] takes, for the route's error message.
    pub fn accepted() -> String {
        CpfSituation::ALL
            .iter()
            .map(|s| s.as_str())
            .chain(["INDISPONIVEL"])
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_from_its_text_and_serpros_codes_map_to_them() {
        for status in CpfSituation::ALL {
            assert_eq!(CpfSituation::parse(status.as_str()), Some(status));
        }
        assert_eq!(CpfSituation::parse("regular"), None);
        assert_eq!(CpfSituation::from_serpro_code("0"), Some(CpfSituation::Regular));
        assert_eq!(CpfSituation::from_serpro_code("3"), Some(CpfSituation::TitularFalecido));
        assert_eq!(CpfSituation::from_serpro_code("5"), Some(CpfSituation::Cancelada));
        assert_eq!(CpfSituation::from_serpro_code("9"), Some(CpfSituation::Cancelada));
        assert_eq!(CpfSituation::from_serpro_code("8"), Some(CpfSituation::Nula));
        assert_eq!(CpfSituation::from_serpro_code("1"), None, "no such code");
        assert!(CpfSituation::Regular.is_regular());
        assert!(!CpfSituation::PendenteDeRegularizacao.is_regular());
        assert_eq!(
            SandboxCpfAnswer::parse("INDISPONIVEL"),
            Some(SandboxCpfAnswer::Unavailable)
        );
        assert_eq!(
            SandboxCpfAnswer::parse("TITULAR FALECIDO"),
            Some(SandboxCpfAnswer::Situation(CpfSituation::TitularFalecido))
        );
        assert_eq!(SandboxCpfAnswer::parse("indisponivel"), None);
        assert!(SandboxCpfAnswer::accepted().ends_with("INEXISTENTE, INDISPONIVEL"));
    }
}
