//! What the acceptance clock needs from the store.

use super::pending::{DocumentsRequest, PendingAnswerInput, PendingRecipient};
use super::queue::{PendingFileContent, QueuePage, QueueQuery};
use super::{AcceptancePolicy, Settled, SuspendRefusal};
use crate::proposals::lifecycle::StatusChange;
use crate::scope::Scope;
use crate::store::StoreError;
use crate::values::ProposalStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// How a due clock whose product accepts by silence moves its proposal: the change the store
/// applies (its `proposal_id` and `from` filled by the store, per proposal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TacitMove {
    pub change: StatusChange,
}

/// Why the store did not record a request for documents or its answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PendingStoreError {
    #[error("proposta não encontrada")]
    ProposalNotFound,
    #[error("pedido de documentos não encontrado nesta proposta")]
    RequestNotFound,
    #[error("a proposta está {0}, não em análise")]
    NotInAnalysis(ProposalStatus),
    #[error(transparent)]
    Refused(#[from] SuspendRefusal),
    #[error("o pedido de documentos já foi respondido")]
    AlreadyAnswered,
    #[error("{0} não é um usuário ativo da retaguarda")]
    NotAnAnalyst(String),
    #[error("arquivo não encontrado nesta proposta")]
    FileNotFound,
    /// A seller answering a request that goes to the proponent (decision 289).
    #[error("este pedido de documentos é respondido pelo proponente, pelo link enviado ao seu e-mail")]
    ProponentAnswers,
    /// No request was sent with this link.
    #[error("link de documentos não encontrado")]
    LinkNotFound,
    /// The link was used, or its request is no longer open (answered, or the proposal decided).
    #[error("este link já foi usado ou o pedido de documentos não está mais aberto")]
    LinkSpent,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Whom a request recorded for the proponent is mailed to: the e-mail the proposal's copy of the
/// customer keeps (none: the back office is told to reach the person another way), and what the
/// mail names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProponentAddress {
    pub email: Option<String>,
    pub product: String,
}

/// A request for documents as its link's page shows it to the proponent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedRequest {
    pub identifier: String,
    pub product: String,
    pub items: Vec<String>,
    pub note: Option<String>,
    pub requested_at: DateTime<Utc>,
}

/// A request recorded: its id, when the clock stopped, and who answers it; for the proponent,
/// where its link goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingOpened {
    pub id: i64,
    pub identifier: String,
    pub suspended_since: DateTime<Utc>,
    pub category: crate::values::ReasonCategory,
    pub recipient: PendingRecipient,
    pub proponent: Option<ProponentAddress>,
}

/// An answer recorded: the clock runs again to its new deadline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingResumed {
    pub id: i64,
    pub identifier: String,
    pub deadline: DateTime<Utc>,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait AcceptanceStore: Send + Sync {
    /// Stores the policy of the product with this code; `false` when there is none.
    async fn set_policy(
        &self,
        product_code: i32,
        policy: &AcceptancePolicy,
        changed_by: &str,
    ) -> Result<bool, StoreError>;

    /// The policy of the product with this code, if there is one.
    async fn policy(&self, product_code: i32) -> Result<Option<AcceptancePolicy>, StoreError>;

    /// Claims at most `limit` clocks due at `now` (running: undecided, not suspended, not yet
    /// overdue; `FOR UPDATE SKIP LOCKED`, so that instances sweeping at once share them) and
    /// settles each in one transaction: a tacit one's proposal moves as `tacit` says (history,
    /// event and document with it), any other is marked overdue at `now`. A proposal another
    /// operation holds is left for the next pass.
    async fn settle_due(&self, now: DateTime<Utc>, limit: i64, tacit: &TacitMove) -> Result<Vec<Settled>, StoreError>;

    /// Records the request on the proposal with this identifier under its row lock, if its clock
    /// may be suspended ([`super::AcceptanceClock::may_suspend`]), for whoever
    /// [`PendingRecipient::of`] names from its category and the product's policy (with
    /// `link_sha256`, the digest of the link mailed to the proponent, when it is the proponent),
    /// stops the clock at `at` and queues `PENDENCIA_ABERTA` for the seller, in one transaction.
    async fn open_pending(
        &self,
        identifier: &str,
        request: &DocumentsRequest,
        requested_by: &str,
        link_sha256: &str,
        at: DateTime<Utc>,
    ) -> Result<PendingOpened, PendingStoreError>;

    /// The open request sent to the proponent with the link of this digest: unknown
    /// ([`PendingStoreError::LinkNotFound`]), or used, answered or its proposal decided
    /// ([`PendingStoreError::LinkSpent`]).
    async fn linked_request(&self, link_sha256: &str) -> Result<LinkedRequest, PendingStoreError>;

    /// Records the proponent's answer to the request sent with the link of this digest, as
    /// [`Self::answer_pending`] records a seller's, and spends the link, in one transaction.
    async fn answer_by_link(
        &self,
        link_sha256: &str,
        answer: &PendingAnswerInput,
        at: DateTime<Utc>,
    ) -> Result<PendingResumed, PendingStoreError>;

    /// Records the answer to the request `pending_id` of the proposal with this identifier (within
    /// `scope`; a request the proponent answers is refused, [`PendingStoreError::ProponentAnswers`]),
    /// with its files, resumes the clock with its deadline moved by the time it stood
    /// suspended ([`super::AcceptanceClock::resumed_deadline`]) and queues `PENDENCIA_RESPONDIDA`,
    /// in one transaction.
    async fn answer_pending(
        &self,
        identifier: &str,
        scope: Scope,
        pending_id: i64,
        answer: &PendingAnswerInput,
        answered_by: &str,
        at: DateTime<Utc>,
    ) -> Result<PendingResumed, PendingStoreError>;

    /// How many proposals are overdue now (undecided, past the deadline, not accepted by silence).
    async fn overdue_count(&self) -> Result<i64, StoreError>;

    /// A page of the analyst's queue: the undecided clocks, the overdue first, then by deadline
    /// (the next page's cursor when more follow), with the back office's active users.
    async fn queue(&self, query: &QueueQuery) -> Result<QueuePage, StoreError>;

    /// Assigns the undecided proposal with this identifier to `analyst` (an active back-office
    /// user), or to no one, recording who assigned it and when (its history's entry).
    async fn assign(
        &self,
        identifier: &str,
        analyst: Option<String>,
        assigned_by: &str,
        at: DateTime<Utc>,
    ) -> Result<(), PendingStoreError>;

    /// A file of an answer to one of the proposal's requests for documents (within `scope`; a
    /// seller's scope reaches only the files of the requests it answered).
    async fn pending_file(
        &self,
        identifier: &str,
        scope: Scope,
        file_id: i64,
    ) -> Result<PendingFileContent, PendingStoreError>;
}
