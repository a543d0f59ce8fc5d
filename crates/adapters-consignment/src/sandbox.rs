//! [`SandboxConsignment`] is development's consignment platform (`SALES_ENV=development`): it
//! registers every discount at once, save a payroll number ending in `0000`, which stays
//! `pendente` for [`SANDBOX_PENDING_DAYS`] days from the request (an employer that takes its
//! time), and one ending in `9999`, which it refuses for want of margin. It keeps nothing in
//! memory: the id says what it made and when, so any instance answers a read-back the same. Its
//! times are the service's rules clock (development's shifted clock).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use domain::billing::averbacao::{
    Averbacao, AverbacaoStatus, ConsignmentError, ConsignmentPlatform, ConsignmentRequest,
};
use domain::clock::Clock;
use std::sync::Arc;

/// The ending of the payroll numbers whose averbação the sandbox keeps pending.
pub const SANDBOX_PENDING_ENDING: &str = "0000";
/// The ending of the payroll numbers whose averbação the sandbox refuses.
pub const SANDBOX_REFUSED_ENDING: &str = "9999";
/// How long the sandbox keeps a pending averbação pending.
pub const SANDBOX_PENDING_DAYS: i64 = 5;

/// Development's platform: see the module's documentation.
#[derive(Clone)]
pub struct SandboxConsignment {
    clock: Arc<dyn Clock>,
}

impl SandboxConsignment {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self { clock }
    }

    /// What an id the sandbox made says now: `SBX-A-…` active, `SBX-R-…` refused, `SBX-P-<unix
    /// seconds of the request>-…` pending until its days have run.
    fn read(&self, id: &str) -> Result<Averbacao, ConsignmentError> {
        let unknown = || ConsignmentError::Refused(format!("averbação {id} desconhecida"));
        let mut parts = id.splitn(4, '-');
        let (Some("SBX"), Some(kind)) = (parts.next(), parts.next()) else {
            return Err(unknown());
        };
        let (status, reason) = match kind {
            "A" => (AverbacaoStatus::Active, None),
            "R" => (
                AverbacaoStatus::Refused,
                Some("margem consignável insuficiente (sandbox)".to_owned()),
            ),
            "P" => {
                let requested = parts
                    .next()
                    .and_then(|s| s.parse::<i64>().ok())
                    .and_then(|s| DateTime::<Utc>::from_timestamp(s, 0))
                    .ok_or_else(unknown)?;
                let due = requested + chrono::Duration::days(SANDBOX_PENDING_DAYS);
                let status = if self.clock.now() >= due {
                    AverbacaoStatus::Active
                } else {
                    AverbacaoStatus::Pending
                };
                (status, None)
            }
            _ => return Err(unknown()),
        };
        Ok(Averbacao {
            id: id.to_owned(),
            status,
            margin_cents: None,
            reason,
        })
    }
}

#[async_trait]
impl ConsignmentPlatform for SandboxConsignment {
    async fn request(&self, request: &ConsignmentRequest) -> Result<Averbacao, ConsignmentError> {
        if request.monthly_amount_cents <= 0 {
            return Err(ConsignmentError::Refused("valor do desconto deve ser positivo".into()));
        }
        let number = request.number.trim();
        let id = if number.ends_with(SANDBOX_REFUSED_ENDING) {
            format!("SBX-R-{}", request.contract)
        } else if number.ends_with(SANDBOX_PENDING_ENDING) {
            format!("SBX-P-{}-{}", self.clock.now().timestamp(), request.contract)
        } else {
            format!("SBX-A-{}", request.contract)
        };
        tracing::info!(%id, "sandbox averbação requested");
        self.read(&id)
    }

    async fn averbacao(&self, id: &str) -> Result<Averbacao, ConsignmentError> {
        self.read(id)
    }

    async fn cancel(&self, id: &str, reason: &str) -> Result<Averbacao, ConsignmentError> {
        let mut averbacao = self.read(id)?;
        averbacao.status = AverbacaoStatus::Cancelled;
        averbacao.reason = Some(reason.chars().take(200).collect());
        Ok(averbacao)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use domain::values::{Cpf, SheetType};
    use std::sync::Mutex;

    struct Settable(Mutex<DateTime<Utc>>);

    impl Clock for Settable {
        fn now(&self) -> DateTime<Utc> {
            *self.0.lock().unwrap()
        }
    }

    fn request(number: &str) -> ConsignmentRequest {
        ConsignmentRequest {
            contract: "9f1c2d3e".into(),
            cpf: Cpf::parse("52998224725").unwrap(),
            name: "Maria da Silva".into(),
            sheet_type: SheetType::Registration,
            number: number.into(),
            specie: None,
            monthly_amount_cents: 3990,
        }
    }

    #[tokio::test]
    async fn a_registration_is_active_at_once_refused_for_9999_and_pending_five_days_for_0000() {
        let start: DateTime<Utc> = "2026-12-01T12:00:00Z".parse().unwrap();
        let clock = Arc::new(Settable(Mutex::new(start)));
        let sandbox = SandboxConsignment::new(clock.clone());

        let active = sandbox.request(&request("12345")).await.unwrap();
        assert_eq!(active.status, AverbacaoStatus::Active);
        assert_eq!(
            sandbox.request(&request("12345")).await.unwrap(),
            active,
            "asked again, the same"
        );

        let refused = sandbox.request(&request("1239999")).await.unwrap();
        assert_eq!(refused.status, AverbacaoStatus::Refused);
        assert!(refused.reason.unwrap().contains("margem"));

        let pending = sandbox.request(&request("1230000")).await.unwrap();
        assert_eq!(pending.status, AverbacaoStatus::Pending);
        *clock.0.lock().unwrap() = start + chrono::Duration::days(SANDBOX_PENDING_DAYS) - chrono::Duration::seconds(1);
        assert_eq!(
            sandbox.averbacao(&pending.id).await.unwrap().status,
            AverbacaoStatus::Pending
        );
        *clock.0.lock().unwrap() = start + chrono::Duration::days(SANDBOX_PENDING_DAYS);
        assert_eq!(
            sandbox.averbacao(&pending.id).await.unwrap().status,
            AverbacaoStatus::Active
        );

        let cancelled = sandbox.cancel(&active.id, "contrato encerrado").await.unwrap();
        assert_eq!(cancelled.status, AverbacaoStatus::Cancelled);
        assert!(matches!(
            sandbox.averbacao("AV-123").await,
            Err(ConsignmentError::Refused(_))
        ));
    }
}
