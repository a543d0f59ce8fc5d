//! The averbação of a payroll discount (issue 67): before an employer (or the INSS) discounts a
//! premium from a salary or benefit, the discount and its margin are registered with the
//! consignment platform that keeps the payroll's discounts (Zetra eConsig, Neoconsig, the
//! INSS's own). A `DESCONTO EM FOLHA` contract is billed only under an active averbação: nobody
//! is late for a discount the payroll was never allowed to make (Código Civil art. 396; decision
//! 268).
//!
//! The request, and its cancellation when the contract ends, happen under the proposal's claim
//! ([`OperationKind::Averbacao`], [`OperationKind::AverbacaoCancel`]): the platform is asked by
//! the contract's identifier, so a request asked again (the worker finishing one whose answer was
//! lost) answers the averbação made the first time. A pending one is read back by every pass.
//! Where no platform is wired (production without one), the back office registers each discount
//! at the employer's platform and records what it answered (`sales-api averbacao registrar`).

use super::brasilia_day;
use crate::clock::Clock;
use crate::proposals::operations::{
    ClaimError, NewOperation, OperationClaims, OperationFinisher, OperationId, OperationKind, PendingOperation,
    RecoveryOutcome, end_if_failed,
};
use crate::store::StoreError;
use crate::values::{Cpf, ProposalStatus, SheetType};
use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, Utc};
use std::sync::Arc;

/// Who the history names for what the pass records.
pub const AVERBACAO_ACTOR: &str = "sistema:averbacao";

/// How many contracts one pass takes of each kind of work.
const PASS_LIMIT: i64 = 500;

/// The longest reason kept from a platform's answer.
pub const MAX_REASON_CHARS: usize = 200;

/// Where an averbação stands at the platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AverbacaoStatus {
    /// Asked, the employer (or the platform) has not decided.
    Pending,
    /// Registered: the payroll discounts it every month.
    Active,
    /// Refused (no margin, no such registration or benefit, a benefit that may not be consigned).
    Refused,
    /// Cancelled: the payroll discounts no more.
    Cancelled,
}

impl AverbacaoStatus {
    pub const ALL: [Self; 4] = [Self::Pending, Self::Active, Self::Refused, Self::Cancelled];

    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pendente",
            Self::Active => "ativa",
            Self::Refused => "recusada",
            Self::Cancelled => "cancelada",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Refused and cancelled are final: nothing moves them again.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Refused | Self::Cancelled)
    }

    /// Whether a stored averbação may move to `to`: forward only, never out of a final state.
    pub fn may_become(self, to: Self) -> bool {
        self != to
            && !self.is_final()
            && match self {
                Self::Pending => true,
                Self::Active => to == Self::Cancelled,
                Self::Refused | Self::Cancelled => false,
            }
    }
}

impl std::fmt::Display for AverbacaoStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the platform is asked to register: the insured, the payroll's number of them and the
/// monthly amount, named by the contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsignmentRequest {
    /// The proposal's identifier: the platform's key of the request (asked again, the same one).
    pub contract: String,
    pub cpf: Cpf,
    pub name: String,
    /// What `number` identifies: a benefit (INSS) or an employee's registration.
    pub sheet_type: SheetType,
    pub number: String,
    /// The INSS benefit's species, when it is one.
    pub specie: Option<i32>,
    /// Cents discounted each month.
    pub monthly_amount_cents: i64,
}

/// An averbação as the platform (or the back office) reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Averbacao {
    /// The platform's id of it.
    pub id: String,
    pub status: AverbacaoStatus,
    /// The margin left after it, in cents, when the platform says.
    pub margin_cents: Option<i64>,
    /// Why it was refused or cancelled, in the platform's words.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConsignmentError {
    /// The platform refused the request itself (malformed, unknown employer): asking again
    /// changes nothing.
    #[error("plataforma de consignação recusou o pedido: {0}")]
    Refused(String),
    /// The platform could not be reached or answered with an error: worth trying again.
    #[error("plataforma de consignação indisponível: {0}")]
    Unavailable(String),
}

/// The consignment platform: registers a payroll discount, reads it back, cancels it.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait ConsignmentPlatform: Send + Sync {
    /// Registers the discount; asked again for the same contract, answers the one made.
    async fn request(&self, request: &ConsignmentRequest) -> Result<Averbacao, ConsignmentError>;
    /// What the platform says now of an averbação.
    async fn averbacao(&self, id: &str) -> Result<Averbacao, ConsignmentError>;
    /// Cancels it (no discount from the next payroll on); cancelling a cancelled one answers it.
    async fn cancel(&self, id: &str, reason: &str) -> Result<Averbacao, ConsignmentError>;
}

/// A payroll contract as the averbação's work needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AverbacaoCase {
    pub proposal_id: i64,
    pub identifier: String,
    pub proposal_status: ProposalStatus,
    pub request: ConsignmentRequest,
    /// The Brasília day of the acceptance.
    pub accepted_on: NaiveDate,
    /// The first charge's due date as the billing keeps it.
    pub first_due: NaiveDate,
    /// Whether a charge was created already (the billing then keeps its dates).
    pub billed: bool,
    /// Whether the contract's billing is closed (the contract ended).
    pub ended: bool,
    /// The averbação recorded, if any.
    pub current: Option<Averbacao>,
}

/// The averbação as route 7 and the console show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AverbacaoView {
    /// The platform's id (none for the discounts asked of the employer before averbações were
    /// recorded, migration 000061).
    pub id: Option<String>,
    pub status: AverbacaoStatus,
    pub margin_cents: Option<i64>,
    pub reason: Option<String>,
    pub requested_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// When the first charge of a contract whose averbação became active on `active_on` falls due:
/// the product's days counted from the averbação instead of the acceptance, so that the first
/// payroll asked to discount is one the averbação reaches. A charge already created keeps its
/// date (`None`: nothing to move).
pub fn first_due_under(case: &AverbacaoCase, active_on: NaiveDate) -> Option<NaiveDate> {
    if case.billed || active_on <= case.accepted_on {
        return None;
    }
    let days = (case.first_due - case.accepted_on).num_days().max(0) as u64;
    Some(active_on + Days::new(days))
}

/// The store of averbações.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait AverbacaoStore: Send + Sync {
    /// Payroll contracts with an open billing and no averbação recorded, oldest first.
    async fn awaiting_request(&self, limit: i64) -> Result<Vec<AverbacaoCase>, StoreError>;
    /// Pending averbações with a platform id, to read back.
    async fn pending(&self, limit: i64) -> Result<Vec<AverbacaoCase>, StoreError>;
    /// Averbações pending or active (with a platform id) of contracts whose billing closed.
    async fn to_cancel(&self, limit: i64) -> Result<Vec<AverbacaoCase>, StoreError>;
    /// The payroll contract of `identifier`, if it is one with a billing.
    async fn case_of(&self, identifier: &str) -> Result<Option<AverbacaoCase>, StoreError>;
    /// Records what the platform (or the back office) answered, in one transaction: the
    /// averbação inserted or moved forward (never out of a final state, never twice), the first
    /// due date moved to `first_due` when given and no charge exists, the history entry, the
    /// proposal's document, and `operation` ended. False when nothing changed.
    async fn record(
        &self,
        proposal_id: i64,
        averbacao: &Averbacao,
        first_due: Option<NaiveDate>,
        operation: Option<OperationId>,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
}

#[derive(Debug, thiserror::Error)]
pub enum AverbacaoError {
    #[error(transparent)]
    Platform(#[from] ConsignmentError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `sales-api averbacao registrar` named no payroll contract with a billing.
    #[error("a proposta {0} não é um contrato pago por desconto em folha")]
    NotPayroll(String),
    /// The back office's record would move the averbação backwards or out of a final state.
    #[error("a averbação está {from}: não passa a {to}")]
    Backwards { from: AverbacaoStatus, to: AverbacaoStatus },
}

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AverbacaoPass {
    /// Averbações asked of the platform.
    pub requested: usize,
    /// Became active (at the request or read back).
    pub activated: usize,
    pub refused: usize,
    /// Cancelled because the contract ended.
    pub cancelled: usize,
    /// Left for a later pass (another operation held the contract, the platform did not answer).
    pub deferred: usize,
    /// Payroll contracts waiting for the back office to register them (no platform wired).
    pub awaiting_office: usize,
}

impl AverbacaoPass {
    fn count(&mut self, status: AverbacaoStatus) {
        match status {
            AverbacaoStatus::Active => self.activated += 1,
            AverbacaoStatus::Refused => self.refused += 1,
            AverbacaoStatus::Cancelled => self.cancelled += 1,
            AverbacaoStatus::Pending => {}
        }
    }
}

/// The averbações' use cases.
#[derive(Clone)]
pub struct AverbacaoService {
    pub store: Arc<dyn AverbacaoStore>,
    pub claims: Arc<dyn OperationClaims>,
    /// The platform; `None` where the back office registers the discounts itself.
    pub platform: Option<Arc<dyn ConsignmentPlatform>>,
    pub clock: Arc<dyn Clock>,
}

/// Why the platform's cancellation is asked, in its words.
const END_REASON: &str = "contrato de seguro encerrado";

impl AverbacaoService {
    fn operation(&self, case: &AverbacaoCase, kind: OperationKind) -> NewOperation {
        NewOperation {
            id: OperationId::new(),
            proposal_id: case.proposal_id,
            kind,
            expected: case.proposal_status,
            requested_by: AVERBACAO_ACTOR.to_owned(),
            reason: Some(kind.label().to_owned()),
            reason_category: None,
            target: None,
            at: self.clock.now(),
        }
    }

    /// Claims `kind` on the case's proposal; `None` when another operation holds it or it moved
    /// (a later pass takes it again).
    async fn claim(&self, case: &AverbacaoCase, kind: OperationKind) -> Result<Option<OperationId>, StoreError> {
        let operation = self.operation(case, kind);
        match self.claims.claim(&operation).await {
            Ok(()) => Ok(Some(operation.id)),
            Err(ClaimError::Store(e)) => Err(e),
            Err(other) => {
                tracing::info!(kind = kind.as_str(), %other, "averbação deferred");
                Ok(None)
            }
        }
    }

    /// Records `answer` for the case, moving the first due date when it became active.
    async fn record(
        &self,
        case: &AverbacaoCase,
        answer: &Averbacao,
        operation: Option<OperationId>,
        by: &str,
    ) -> Result<bool, StoreError> {
        let now = self.clock.now();
        let first_due = (answer.status == AverbacaoStatus::Active)
            .then(|| first_due_under(case, brasilia_day(now)))
            .flatten();
        let mut answer = answer.clone();
        answer.reason = answer.reason.map(|r| r.chars().take(MAX_REASON_CHARS).collect());
        self.store
            .record(case.proposal_id, &answer, first_due, operation, by, now)
            .await
    }

    /// The request under `operation` and its record.
    async fn request(
        &self,
        platform: &dyn ConsignmentPlatform,
        case: &AverbacaoCase,
        operation: OperationId,
    ) -> Result<Averbacao, AverbacaoError> {
        let answer = platform.request(&case.request).await?;
        self.record(case, &answer, Some(operation), AVERBACAO_ACTOR).await?;
        tracing::info!(status = %answer.status, "averbação requested");
        Ok(answer)
    }

    /// The cancellation under `operation` and its record.
    async fn cancel(
        &self,
        platform: &dyn ConsignmentPlatform,
        case: &AverbacaoCase,
        id: &str,
        operation: OperationId,
    ) -> Result<Averbacao, AverbacaoError> {
        let answer = platform.cancel(id, END_REASON).await?;
        self.record(case, &answer, Some(operation), AVERBACAO_ACTOR).await?;
        tracing::info!(status = %answer.status, "averbação cancelled with its contract");
        Ok(answer)
    }

    /// One pass: the payroll contracts without an averbação asked for it, the pending ones read
    /// back, those of ended contracts cancelled. Without a platform, only counts what waits for
    /// the back office.
    #[tracing::instrument(skip_all)]
    pub async fn run(&self) -> Result<AverbacaoPass, StoreError> {
        let mut pass = AverbacaoPass::default();
        let Some(platform) = self.platform.as_deref() else {
            pass.awaiting_office = self.store.awaiting_request(PASS_LIMIT).await?.len();
            return Ok(pass);
        };
        for case in self.store.awaiting_request(PASS_LIMIT).await? {
            let Some(operation) = self.claim(&case, OperationKind::Averbacao).await? else {
                pass.deferred += 1;
                continue;
            };
            let made = self.request(platform, &case, operation).await;
            end_if_failed(self.claims.as_ref(), operation, &made, self.clock.now()).await;
            match made {
                Ok(answer) => {
                    pass.requested += 1;
                    pass.count(answer.status);
                }
                Err(AverbacaoError::Store(e)) => return Err(e),
                Err(error) => {
                    tracing::warn!(%error, "averbação not requested: tried again on the next pass");
                    pass.deferred += 1;
                }
            }
        }
        for case in self.store.pending(PASS_LIMIT).await? {
            let Some(id) = case.current.as_ref().map(|a| a.id.clone()) else {
                continue;
            };
            match platform.averbacao(&id).await {
                Ok(answer) if answer.status != AverbacaoStatus::Pending => {
                    if self.record(&case, &answer, None, AVERBACAO_ACTOR).await? {
                        pass.count(answer.status);
                    }
                }
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!(%error, "averbação not read back: the next pass will");
                    pass.deferred += 1;
                }
            }
        }
        for case in self.store.to_cancel(PASS_LIMIT).await? {
            let Some(id) = case.current.as_ref().map(|a| a.id.clone()) else {
                continue;
            };
            let Some(operation) = self.claim(&case, OperationKind::AverbacaoCancel).await? else {
                pass.deferred += 1;
                continue;
            };
            let made = self.cancel(platform, &case, &id, operation).await;
            end_if_failed(self.claims.as_ref(), operation, &made, self.clock.now()).await;
            match made {
                Ok(answer) => pass.count(answer.status),
                Err(AverbacaoError::Store(e)) => return Err(e),
                Err(error) => {
                    tracing::warn!(%error, "averbação not cancelled: tried again on the next pass");
                    pass.deferred += 1;
                }
            }
        }
        Ok(pass)
    }

    /// The payroll contracts waiting for their averbação to be asked (the back office's list
    /// where no platform is wired).
    pub async fn awaiting(&self) -> Result<Vec<AverbacaoCase>, StoreError> {
        self.store.awaiting_request(PASS_LIMIT).await
    }

    /// The back office's record of what the employer's platform answered
    /// (`sales-api averbacao registrar`): forward only.
    pub async fn record_by_office(
        &self,
        identifier: &str,
        answer: &Averbacao,
        by: &str,
    ) -> Result<bool, AverbacaoError> {
        let case = self
            .store
            .case_of(identifier)
            .await?
            .ok_or_else(|| AverbacaoError::NotPayroll(identifier.to_owned()))?;
        if let Some(current) = &case.current
            && !current.status.may_become(answer.status)
        {
            if current.status == answer.status && current.id == answer.id {
                return Ok(false);
            }
            return Err(AverbacaoError::Backwards {
                from: current.status,
                to: answer.status,
            });
        }
        Ok(self.record(&case, answer, None, by).await?)
    }

    /// The worker's end of an operation whose request died: the same call again (the platform
    /// answers what it made the first time), then the record.
    async fn finish(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, AverbacaoError> {
        let now = self.clock.now();
        let (Some(platform), Some(case)) = (
            self.platform.as_deref(),
            self.store.case_of(&operation.identifier).await?,
        ) else {
            self.claims
                .fail(operation.id, "sem plataforma de consignação ou contrato", now)
                .await?;
            return Ok(RecoveryOutcome::Failed);
        };
        match (operation.kind, case.current.as_ref()) {
            (OperationKind::Averbacao, None) => {
                self.request(platform, &case, operation.id).await?;
            }
            (OperationKind::AverbacaoCancel, Some(current)) if !current.status.is_final() => {
                let id = current.id.clone();
                self.cancel(platform, &case, &id, operation.id).await?;
            }
            _ => {
                self.claims.finish(operation.id, "averbação já registrada", now).await?;
            }
        }
        Ok(RecoveryOutcome::Finished)
    }
}

#[async_trait]
impl OperationFinisher for AverbacaoService {
    fn kinds(&self) -> &'static [OperationKind] {
        &[OperationKind::Averbacao, OperationKind::AverbacaoCancel]
    }

    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        match self.finish(operation).await {
            Ok(outcome) => Ok(outcome),
            Err(AverbacaoError::Platform(ConsignmentError::Refused(why))) => {
                self.claims
                    .fail(operation.id, &why, self.clock.now())
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(other) => Err(other.to_string()),
        }
    }
}

#[cfg(test)]
#[path = "averbacao_tests.rs"]
mod tests;
