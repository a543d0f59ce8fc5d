//! Operations with an outside effect, each under one claim on its proposal (issue 44).
//!
//! Sending for signature (an envelope), subscribing at the payment platform, cancelling, withdrawing
//! (refunds) and the back office's move that closes an envelope each check the proposal's state,
//! call an outside service and record. Done in that order with nothing between, two of them at
//! once split the money or the envelope from the state. So each first **claims** the proposal:
//! under its row lock the store re-checks that the proposal is still where the use case judged it
//! and that no other operation is pending, and records the operation (`pending`). While it is
//! pending, no other operation is claimed (`operacao_em_andamento`) and no status move is applied
//! to the proposal by anyone else. The outside calls carry idempotency keys of their effect (a
//! subscription per proposal and card, a refund per proposal and invoice), and the status move
//! ends the operation in the same transaction (`StatusChange::operation`).
//! An operation whose request died between the outside call and the record is finished by the
//! worker ([`OperationRecovery`]) after `OPERATION_RECOVERY_AFTER_MS`, with the same keys, so the
//! outside service answers what it did the first time.

use crate::clock::Clock;
use crate::store::StoreError;
use crate::values::{ProposalStatus, ReasonCategory};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::fmt;

/// An operation's id. The outside calls carry keys of their effect instead (decision 158), so that
/// a later operation redoing the same effect reaches the provider's first answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OperationId(pub uuid::Uuid);

impl OperationId {
    pub fn new() -> Self {
        Self(uuid::Uuid::new_v4())
    }
}

impl Default for OperationId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for OperationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What an operation does outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperationKind {
    /// Route 12: the envelope created, its signers added, the customer notified.
    Sending,
    /// Route 16: the subscription created at the payment platform.
    Subscription,
    /// `POST /proposal/{identificador}/cancel`: the envelope cancelled.
    Cancellation,
    /// `POST /proposal/{identificador}/withdraw`: every paid invoice refunded, the subscription
    /// cancelled.
    Withdrawal,
    /// The back office's `CANCELADO`: the envelope cancelled.
    StatusChange,
    /// The back office's `REPROVADO`: everything paid refunded, the subscription cancelled.
    Refusal,
    /// A cancellation after the sale: the unused period refunded, the subscription cancelled.
    ContractCancellation,
    /// The last signature of a `PIX AUTOMÁTICO` sale: its recurrence created at the PSP and, with
    /// the payer's account, the payer's bank asked to confirm it.
    PixRecurrence,
    /// A charge of a `PIX AUTOMÁTICO` contract sent to the PSP, or tried again.
    PixCharge,
    /// A payment received after the contract ended (a charge cancelled with it, then settled)
    /// given back: a `devolucao` of its Pix, or a refund to pay.
    LateRefund,
    /// The contract ended for its unpaid premium (Lei 15.040/2024 arts. 20–21): the collection
    /// stopped, what a later period paid left unused given back.
    DefaultEnd,
    /// A payroll discount registered with the consignment platform (its averbação).
    Averbacao,
    /// The averbação of an ended contract cancelled at the consignment platform.
    AverbacaoCancel,
    /// The contract ended at its term, the product not renewing (decision 270).
    TermEnd,
    /// The first premium of a shop's contract collected at its acceptance, the product not
    /// declaring provisional cover (Lei 15.040/2024 art. 19 §2, decision 271).
    Collection,
}

impl OperationKind {
    pub const ALL: [OperationKind; 15] = [
        Self::Sending,
        Self::Subscription,
        Self::Cancellation,
        Self::Withdrawal,
        Self::StatusChange,
        Self::Refusal,
        Self::ContractCancellation,
        Self::PixRecurrence,
        Self::PixCharge,
        Self::LateRefund,
        Self::DefaultEnd,
        Self::Averbacao,
        Self::AverbacaoCancel,
        Self::TermEnd,
        Self::Collection,
    ];

    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sending => "envio",
            Self::Subscription => "assinatura_recorrente",
            Self::Cancellation => "cancelamento",
            Self::Withdrawal => "arrependimento",
            Self::StatusChange => "mudanca_status",
            Self::Refusal => "recusa",
            Self::ContractCancellation => "cancelamento_contrato",
            Self::PixRecurrence => "recorrencia_pix",
            Self::PixCharge => "cobranca_pix",
            Self::LateRefund => "devolucao_tardia",
            Self::DefaultEnd => "encerramento_inadimplencia",
            Self::Averbacao => "averbacao",
            Self::AverbacaoCancel => "cancelamento_averbacao",
            Self::TermEnd => "encerramento_vigencia",
            Self::Collection => "cobranca_aceite",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == stored)
    }

    /// As a person reads it in a refusal.
    pub fn label(self) -> &'static str {
        match self {
            Self::Sending => "envio para assinatura",
            Self::Subscription => "criação da assinatura recorrente",
            Self::Cancellation => "cancelamento",
            Self::Withdrawal => "arrependimento",
            Self::StatusChange => "mudança de status",
            Self::Refusal => "recusa com devolução",
            Self::ContractCancellation => "cancelamento do contrato",
            Self::PixRecurrence => "criação da recorrência Pix",
            Self::PixCharge => "envio de cobrança Pix",
            Self::LateRefund => "devolução de pagamento recebido após o encerramento",
            Self::DefaultEnd => "encerramento por falta de pagamento",
            Self::Averbacao => "averbação do desconto em folha",
            Self::AverbacaoCancel => "cancelamento da averbação",
            Self::TermEnd => "encerramento no fim da vigência",
            Self::Collection => "cobrança do prêmio no aceite",
        }
    }
}

/// An operation to claim: the proposal must still be in `expected`, with nothing pending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOperation {
    pub id: OperationId,
    pub proposal_id: i64,
    pub kind: OperationKind,
    pub expected: ProposalStatus,
    pub requested_by: String,
    /// The reason asked, kept so that the worker can finish the operation as asked.
    pub reason: Option<String>,
    /// The category a seller reads instead of the reason's words (`proposals::reasons`).
    pub reason_category: Option<ReasonCategory>,
    /// A move's target status.
    pub target: Option<ProposalStatus>,
    pub at: DateTime<Utc>,
}

/// Why a claim was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimError {
    /// Another operation on the proposal has not ended.
    #[error("outra operação está em andamento nesta proposta: {}", kind.label())]
    InProgress { kind: OperationKind },
    /// The proposal moved since the use case read it: judged again from `current`.
    #[error("a proposta mudou de estado: agora {current}")]
    Moved { current: ProposalStatus },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A pending operation handed to the worker, with what it needs to finish it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingOperation {
    pub id: OperationId,
    pub proposal_id: i64,
    pub identifier: String,
    pub kind: OperationKind,
    pub requested_by: String,
    pub reason: Option<String>,
    pub reason_category: Option<ReasonCategory>,
    pub target: Option<ProposalStatus>,
    pub started_at: DateTime<Utc>,
    /// How many times the worker took it before this one.
    pub attempts: i32,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait OperationClaims: Send + Sync {
    /// Under the proposal's row lock: refused when it is no longer in `expected` or another
    /// operation is pending; else recorded as pending.
    async fn claim(&self, operation: &NewOperation) -> Result<(), ClaimError>;
    /// Ends a pending operation with no status move of its own (a resend, a subscription the
    /// platform did not activate): `done`. False when it was no longer pending.
    async fn finish(&self, id: OperationId, outcome: &str, at: DateTime<Utc>) -> Result<bool, StoreError>;
    /// Ends a pending operation whose outside call failed or was refused, nothing recorded:
    /// `failed`, with why. False when it was no longer pending.
    async fn fail(&self, id: OperationId, why: &str, at: DateTime<Utc>) -> Result<bool, StoreError>;
    /// Whether an operation of `kind` on the proposal, other than `except`, ended as failed: a
    /// new one then resumes what that one may have left at the provider.
    async fn failed_before(
        &self,
        proposal_id: i64,
        kind: OperationKind,
        except: OperationId,
    ) -> Result<bool, StoreError>;
    /// Takes up to `limit` operations pending since before `started_before`, each for
    /// `lease` (`FOR UPDATE SKIP LOCKED`: every instance may run the worker; one takes each).
    async fn take_overdue(
        &self,
        started_before: DateTime<Utc>,
        now: DateTime<Utc>,
        lease: chrono::Duration,
        limit: i64,
    ) -> Result<Vec<PendingOperation>, StoreError>;
    /// How many operations are pending since before `started_before` (the metrics' and the
    /// alert's count).
    async fn overdue_count(&self, started_before: DateTime<Utc>) -> Result<i64, StoreError>;
}

/// Ends an operation whose outside call failed (nothing recorded) as `failed`; a store that cannot
/// answer leaves it pending, for the worker, which is logged and not the caller's error (the
/// caller answers the failure it already has).
pub async fn end_failed(claims: &dyn OperationClaims, operation: OperationId, why: &str, at: DateTime<Utc>) {
    if let Err(error) = claims.fail(operation, why, at).await {
        tracing::warn!(%operation, %error, "failed operation not ended: the worker will");
    }
}

/// Ends the operation as failed when `result` is an error (see [`end_failed`]): what every use
/// case does when an outside call of its claim failed.
pub async fn end_if_failed<T, E: std::fmt::Display>(
    claims: &dyn OperationClaims,
    operation: OperationId,
    result: &Result<T, E>,
    at: DateTime<Utc>,
) {
    if let Err(error) = result {
        end_failed(claims, operation, &error.to_string(), at).await;
    }
}

/// What the worker does with one overdue operation: the use case that owns the operation's kind
/// finishes it with its own keys (or ends it as failed when the outside service refuses).
#[async_trait]
pub trait OperationFinisher: Send + Sync {
    /// The kinds this finisher owns.
    fn kinds(&self) -> &'static [OperationKind];
    /// Finishes (or fails) the operation; an error leaves it pending for a later pass.
    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String>;
}

/// How the worker ended an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryOutcome {
    /// The operation's effect and record are both in place now.
    Finished,
    /// The outside service refused (or the operation no longer applies): compensated, ended as
    /// failed, nothing recorded.
    Failed,
}

/// How many overdue operations one pass of the worker takes.
const RECOVERY_BATCH: i64 = 50;

/// The worker's pass over operations left pending: each is handed to the finisher of its kind.
#[derive(Clone)]
pub struct OperationRecovery {
    pub claims: std::sync::Arc<dyn OperationClaims>,
    pub finishers: Vec<std::sync::Arc<dyn OperationFinisher>>,
    pub clock: std::sync::Arc<dyn Clock>,
    /// How long an operation may stay pending before the worker takes it
    /// (`OPERATION_RECOVERY_AFTER_MS`): longer than any request's outside calls take.
    pub recover_after: chrono::Duration,
}

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RecoveryPass {
    pub finished: usize,
    pub failed: usize,
    /// Left pending for a later pass (the outside service or the store did not answer).
    pub retried: usize,
}

impl OperationRecovery {
    /// One pass: takes the operations pending for longer than `recover_after` and finishes each.
    #[tracing::instrument(skip_all)]
    pub async fn run_once(&self) -> Result<RecoveryPass, StoreError> {
        let now = self.clock.now();
        // Leased for twice the wait: a finisher's calls end long before, and a worker that dies
        // holding one leaves it to the next pass after that.
        let taken = self
            .claims
            .take_overdue(now - self.recover_after, now, self.recover_after * 2, RECOVERY_BATCH)
            .await?;
        let mut pass = RecoveryPass::default();
        for operation in taken {
            let Some(finisher) = self.finishers.iter().find(|f| f.kinds().contains(&operation.kind)) else {
                tracing::error!(
                    kind = operation.kind.as_str(),
                    "no finisher for a pending operation's kind"
                );
                pass.retried += 1;
                continue;
            };
            match finisher.finish_pending(&operation).await {
                Ok(RecoveryOutcome::Finished) => {
                    tracing::info!(operation = %operation.id, kind = operation.kind.as_str(), identifier = %operation.identifier, "pending operation finished by the worker");
                    pass.finished += 1;
                }
                Ok(RecoveryOutcome::Failed) => {
                    tracing::warn!(operation = %operation.id, kind = operation.kind.as_str(), identifier = %operation.identifier, "pending operation ended as failed by the worker");
                    pass.failed += 1;
                }
                Err(error) => {
                    tracing::warn!(operation = %operation.id, kind = operation.kind.as_str(), %error, attempts = operation.attempts + 1, "pending operation still not finished: retried later");
                    pass.retried += 1;
                }
            }
        }
        Ok(pass)
    }
}

/// Claims that always succeed, for the use cases' tests whose subject is elsewhere.
#[cfg(test)]
pub(crate) fn accepting_claims() -> MockOperationClaims {
    let mut claims = MockOperationClaims::new();
    claims.expect_claim().returning(|_| Ok(()));
    claims.expect_finish().returning(|_, _, _| Ok(true));
    claims.expect_fail().returning(|_, _, _| Ok(true));
    claims.expect_failed_before().returning(|_, _, _| Ok(false));
    claims
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_as_stored() {
        for kind in OperationKind::ALL {
            assert_eq!(OperationKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(OperationKind::parse("outra"), None);
    }

    /// A finisher that records what it was handed and answers `outcome`.
    struct Finisher {
        kinds: &'static [OperationKind],
        outcome: Result<RecoveryOutcome, String>,
        handed: std::sync::Mutex<Vec<OperationId>>,
    }

    #[async_trait]
    impl OperationFinisher for Finisher {
        fn kinds(&self) -> &'static [OperationKind] {
            self.kinds
        }

        async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
            self.handed.lock().unwrap().push(operation.id);
            self.outcome.clone()
        }
    }

    fn pending(kind: OperationKind) -> PendingOperation {
        PendingOperation {
            id: OperationId::new(),
            proposal_id: 1,
            identifier: "p-1".into(),
            kind,
            requested_by: "bo@demo.com.br".into(),
            reason: None,
            reason_category: None,
            target: None,
            started_at: chrono::Utc::now(),
            attempts: 0,
        }
    }

    #[tokio::test]
    async fn the_worker_hands_each_overdue_operation_to_the_owner_of_its_kind() {
        let (withdrawal, subscription, sending) = (
            pending(OperationKind::Withdrawal),
            pending(OperationKind::Subscription),
            pending(OperationKind::Sending),
        );
        let taken = vec![withdrawal.clone(), subscription.clone(), sending.clone()];
        let mut claims = MockOperationClaims::new();
        claims
            .expect_take_overdue()
            .withf(|before, now, lease, limit| {
                *now - *before == chrono::Duration::minutes(1)
                    && *lease == chrono::Duration::minutes(2)
                    && *limit == RECOVERY_BATCH
            })
            .times(1)
            .returning(move |_, _, _, _| Ok(taken.clone()));
        let money = std::sync::Arc::new(Finisher {
            kinds: &[OperationKind::Withdrawal, OperationKind::Subscription],
            outcome: Ok(RecoveryOutcome::Finished),
            handed: Default::default(),
        });
        let signing = std::sync::Arc::new(Finisher {
            kinds: &[OperationKind::Sending],
            outcome: Err("provedor indisponível".into()),
            handed: Default::default(),
        });
        let mut clock = crate::clock::MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        let recovery = OperationRecovery {
            claims: std::sync::Arc::new(claims),
            finishers: vec![money.clone(), signing.clone()],
            clock: std::sync::Arc::new(clock),
            recover_after: chrono::Duration::minutes(1),
        };
        let pass = recovery.run_once().await.unwrap();
        assert_eq!(
            pass,
            RecoveryPass {
                finished: 2,
                failed: 0,
                retried: 1
            }
        );
        assert_eq!(*money.handed.lock().unwrap(), [withdrawal.id, subscription.id]);
        assert_eq!(
            *signing.handed.lock().unwrap(),
            [sending.id],
            "left pending for a later pass"
        );
    }

    #[test]
    fn a_refusal_names_the_operation_in_progress() {
        let refused = ClaimError::InProgress {
            kind: OperationKind::Withdrawal,
        };
        assert_eq!(
            refused.to_string(),
            "outra operação está em andamento nesta proposta: arrependimento"
        );
    }
}
