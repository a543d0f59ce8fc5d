//! Sending proposals for signature (routes 12 and 13), the signatures coming back (provider
//! callbacks and the sandbox page), the back office's moves, cancellation at the customer's
//! request, and the proposal document.

use crate::access::{AccessError, Operation, Scope, authorize};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::contract::evidence::{PartySignature, SignatureEvidence};
use crate::contract::{DocumentRenderer, PrintedDocument, RenderError, Stage};
use crate::privacy::notice::NoticesShown;
use crate::proposals::lifecycle::{StatusChange, StatusEvent, TransitionError, Trigger, check};
use crate::proposals::model::{Flow, ProposalDetail};
use crate::proposals::operations::{
    ClaimError, NewOperation, OperationClaims, OperationFinisher, OperationId, OperationKind, PendingOperation,
    RecoveryOutcome, end_if_failed,
};
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::proposals::requests::{
    Cancellation, CustomerRequest, CustomerRequestStore, NewCustomerRequest, Protocol, RequestKind,
};
use crate::signature::{
    CallbackError, ChangeStatusError, EnvelopeState, PartyEventOutcome, PartyKeys, PartyRecord, PartyRole,
    ProviderError, ProviderEvent, ProviderEventKind, SealedDocument, SignatureProvider, SignatureStore, Signer,
    StoredEnvelope,
};
use crate::store::StoreError;
use crate::values::{PartyStatus, ProposalStatus};
use std::sync::Arc;

/// Who the service says changed a proposal when no user did (a signature arriving).
pub const SIGNATURE_ACTOR: &str = "assinatura-eletronica";

/// Who the service says expired a proposal whose signing deadline passed.
pub const DEADLINE_ACTOR: &str = "prazo-de-assinatura";

/// How many overdue proposals one pass of the expiry claims at most.
const EXPIRY_BATCH: i64 = 100;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SigningError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("proposta não encontrada")]
    NotFound,
    #[error("o cliente informado não é o cliente da proposta")]
    WrongCustomer,
    #[error(transparent)]
    Transition(#[from] TransitionError),
    #[error("limite de {max} reenvios atingido")]
    ResendLimit { max: i32 },
    #[error("a proposta ainda não foi enviada para assinatura")]
    NotSent,
    /// Only a proposal not yet signed (`NOVO`, `AGUARDANDO ASSINATURA`) can be cancelled.
    #[error("a proposta está {status} e não pode mais ser cancelada")]
    NotCancellable { status: ProposalStatus },
    /// The proposal was cancelled: its signing link no longer works.
    #[error("a proposta foi cancelada: o link de assinatura não vale mais")]
    Cancelled,
    /// The signing deadline passed: the envelope is closed.
    #[error("o prazo de assinatura da proposta venceu: o link não vale mais")]
    Expired,
    #[error("protocolo não encontrado")]
    UnknownProtocol,
    /// Anonymisation deleted the documents of a proposal that never became a contract.
    #[error("documento apagado na anonimização do titular")]
    DocumentRemoved,
    /// Another operation with an outside effect is pending on the proposal.
    #[error("outra operação está em andamento nesta proposta: {}", kind.label())]
    OperationInProgress { kind: OperationKind },
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Callback(#[from] CallbackError),
    #[error("chave de assinatura desconhecida")]
    UnknownKey,
    #[error("o provedor ainda não entregou a cópia assinada")]
    NoProviderCopy,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<crate::access::ScopeError> for SigningError {
    fn from(e: crate::access::ScopeError) -> Self {
        match e {
            crate::access::ScopeError::Access(a) => SigningError::Access(a),
            crate::access::ScopeError::Store(s) => SigningError::Store(s),
        }
    }
}

impl From<ChangeStatusError> for SigningError {
    fn from(e: ChangeStatusError) -> Self {
        match e {
            ChangeStatusError::Conflict { current } => SigningError::Transition(TransitionError {
                from: current,
                to: current,
            }),
            ChangeStatusError::Busy { kind } => SigningError::OperationInProgress { kind },
            // The worker finished the operation first: what this request meant is done.
            ChangeStatusError::OperationEnded => SigningError::OperationInProgress {
                kind: OperationKind::StatusChange,
            },
            ChangeStatusError::Store(s) => SigningError::Store(s),
        }
    }
}

/// Which of a proposal's documents is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentVersion {
    /// Rendered now from the proposal as it stands (before it is sent), marked as a draft.
    Draft,
    /// The bytes sent for signature.
    Sealed,
    /// The sealed bytes followed by the evidence page, once every party signed.
    Signed,
    /// The provider's own signed copy, downloaded when its envelope closed.
    Provider,
}

impl DocumentVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Sealed => "sealed",
            Self::Signed => "signed",
            Self::Provider => "provider",
        }
    }
}

/// What the caller asks of the document route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentRequest {
    /// The latest: signed, else sealed, else a draft.
    Latest,
    /// The sealed bytes, even once a signed version exists.
    Sealed,
    /// The provider's own signed copy.
    Provider,
}

/// A proposal's document as served: its bytes and digest, and which version they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalDocument {
    pub document: SealedDocument,
    pub version: DocumentVersion,
}

#[derive(Clone)]
pub struct SigningService {
    pub proposals: Arc<dyn ProposalStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub signatures: Arc<dyn SignatureStore>,
    pub provider: Arc<dyn SignatureProvider>,
    pub requests: Arc<dyn CustomerRequestStore>,
    pub renderer: Arc<dyn DocumentRenderer>,
    pub claims: Arc<dyn OperationClaims>,
    pub clock: Arc<dyn Clock>,
    /// How many times a link may be sent again while awaiting signatures.
    pub max_resends: i32,
    /// How long the parties have to sign from the envelope's creation (`SIGNATURE_DEADLINE_DAYS`).
    pub signing_deadline: chrono::Duration,
    /// A provider's event older than this is refused: it must be shorter than the time the
    /// records of applied events are kept (`retention`), so that any event accepted again would
    /// still be recognised as a repeat.
    pub callback_max_age: chrono::Duration,
    /// What follows a sale's last signature outside the signing (a Pix Automático recurrence).
    pub after_signing: Option<Arc<dyn AfterSigning>>,
}

/// What another part of the service does once a sale's every party signed. It must not fail the
/// signature: what it cannot do then, its own pass does later.
#[async_trait::async_trait]
pub trait AfterSigning: Send + Sync {
    async fn signed(&self, identifier: &str);
}

/// The four parties of a proposal, from its detail.
fn signers(detail: &ProposalDetail) -> Vec<Signer> {
    let partner = detail.partner.as_ref();
    let entity = |role, name: Option<&String>, document: Option<&String>| Signer {
        role,
        name: name.cloned().unwrap_or_else(|| role.label().to_owned()),
        email: None,
        phone: None,
        document: document.cloned(),
    };
    vec![
        Signer {
            role: PartyRole::Client,
            name: detail.customer.person.full_name.clone(),
            email: detail.customer.person.email.clone(),
            phone: detail.customer.person.cell_phone.clone(),
            document: Some(detail.customer.person.cpf.clone()),
        },
        entity(
            PartyRole::Association,
            partner.and_then(|p| p.association_name.as_ref()),
            partner.and_then(|p| p.association_cnpj.as_ref()),
        ),
        entity(
            PartyRole::Federation,
            partner.and_then(|p| p.federation_name.as_ref()),
            partner.and_then(|p| p.federation_cnpj.as_ref()),
        ),
        entity(
            PartyRole::Enterprise,
            partner.and_then(|p| p.company_social_reason.as_ref()),
            partner.and_then(|p| p.company_cnpj.as_ref()),
        ),
    ]
}

impl SigningService {
    async fn scope(&self, principal: &Principal) -> Result<Scope, SigningError> {
        Ok(crate::access::scope_of(principal, self.partners.as_ref()).await?)
    }

    async fn detail(&self, principal: &Principal, identifier: &str) -> Result<ProposalDetail, SigningError> {
        let scope = self.scope(principal).await?;
        self.proposals
            .detail(identifier, scope)
            .await?
            .ok_or(SigningError::NotFound)
    }

    /// Route 12: the first call renders the document, creates the envelope with the four parties
    /// and notifies the client; later calls while awaiting signatures notify again (counted, up
    /// to the limit). Provider calls happen outside any transaction, and each step is saved before
    /// the next, so a failed call leaves the proposal as it was and a retry resumes.
    #[tracing::instrument(skip_all)]
    pub async fn send(
        &self,
        principal: &Principal,
        customer_id: i64,
        identifier: &str,
    ) -> Result<String, SigningError> {
        authorize(principal, Operation::SendForSignature)?;
        let detail = self.detail(principal, identifier).await?;
        // Only a partner sends (route 12), and only its own flow's proposals: the shop's are
        // signed through the shop, even when credited to a partner.
        if detail.proposal.flow != Flow::Partner {
            return Err(SigningError::NotFound);
        }
        if detail.proposal.customer_id != customer_id {
            return Err(SigningError::WrongCustomer);
        }
        let by = principal.email.as_str();
        match detail.proposal.status {
            ProposalStatus::New => {
                let operation = self
                    .claim(&detail, OperationKind::Sending, ProposalStatus::New, by, None, None)
                    .await
                    .map_err(|e| refusal(e, |current| transition(current, ProposalStatus::AwaitingSignature)))?;
                // Read again under the claim: a correction that committed before it is in the
                // copy, and none reaches it from now on (the copy is frozen while the send holds
                // the proposal), so the document sealed is the copy route 7 shows.
                let sent = match self.detail(principal, identifier).await {
                    Ok(claimed) => {
                        // An earlier send that failed may have left an envelope the store never
                        // learnt of: look it up before creating another.
                        match self
                            .claims
                            .failed_before(claimed.proposal.id, OperationKind::Sending, operation)
                            .await
                        {
                            Ok(resume) => self.first_send(&claimed, operation, by, resume).await,
                            Err(error) => Err(error.into()),
                        }
                    }
                    Err(error) => Err(error),
                };
                self.end_if_failed(operation, &sent).await;
                sent
            }
            ProposalStatus::AwaitingSignature => {
                if detail.proposal.resends >= self.max_resends {
                    return Err(SigningError::ResendLimit { max: self.max_resends });
                }
                let operation = self
                    .claim(
                        &detail,
                        OperationKind::Sending,
                        ProposalStatus::AwaitingSignature,
                        by,
                        None,
                        None,
                    )
                    .await
                    .map_err(|e| refusal(e, |current| transition(current, ProposalStatus::AwaitingSignature)))?;
                let sent = self.resend(&detail, by).await;
                match &sent {
                    Ok(_) => {
                        self.claims
                            .finish(operation, "link reenviado", self.clock.now())
                            .await?;
                    }
                    Err(_) => self.end_if_failed(operation, &sent).await,
                }
                sent
            }
            other => Err(transition(other, ProposalStatus::AwaitingSignature)),
        }
    }

    /// Records an operation on the proposal (its claim): refused while another is pending or when
    /// the proposal is no longer in `expected`.
    async fn claim(
        &self,
        detail: &ProposalDetail,
        kind: OperationKind,
        expected: ProposalStatus,
        by: &str,
        reason: Option<String>,
        target: Option<ProposalStatus>,
    ) -> Result<OperationId, ClaimError> {
        let operation = NewOperation {
            id: OperationId::new(),
            proposal_id: detail.proposal.id,
            kind,
            expected,
            requested_by: by.to_owned(),
            reason,
            target,
            at: self.clock.now(),
        };
        self.claims.claim(&operation).await?;
        Ok(operation.id)
    }

    /// Ends an operation whose steps failed (nothing recorded); a store that cannot answer leaves
    /// it pending, for the worker.
    async fn end_if_failed<T>(&self, operation: OperationId, result: &Result<T, SigningError>) {
        end_if_failed(self.claims.as_ref(), operation, result, self.clock.now()).await;
    }

    /// The first sending: renders the document, creates the envelope with the four parties and
    /// notifies the client, each step saved before the next, so that a retry (or the worker,
    /// finishing the operation) resumes where it stopped; then moves the proposal to `AGUARDANDO
    /// ASSINATURA`, ending the operation in the move's transaction.
    async fn first_send(
        &self,
        detail: &ProposalDetail,
        operation: OperationId,
        by: &str,
        resume: bool,
    ) -> Result<String, SigningError> {
        let channel = detail.proposal.shipping;
        let proposal_id = detail.proposal.id;
        let identifier = detail.proposal.identifier.as_str();
        let state = self.signatures.state(proposal_id).await?;
        let found = match state.as_ref().and_then(|s| s.document_key.clone()) {
            Some(key) => Some(key),
            // A resumed send (the worker's, or one after a failed attempt) first looks for the
            // envelope an earlier attempt created but did not save.
            None if resume => match self.provider.find_envelope(identifier).await? {
                Some(key) => {
                    let deadline = self.clock.now() + self.signing_deadline;
                    self.signatures.save_document(proposal_id, &key, deadline, by).await?;
                    tracing::info!(identifier, "envelope of an earlier attempt found and resumed");
                    Some(key)
                }
                None => None,
            },
            None => None,
        };
        let document_key = match found {
            Some(key) => key,
            None => {
                // Rendered once and kept before it leaves: the bytes sent are the bytes
                // stored, and a retry after a failed upload sends the same ones.
                let sealed = match self.signatures.sealed(proposal_id).await? {
                    Some(sealed) => sealed,
                    None => {
                        let terms = self.proposals.product_terms(detail.proposal.product_id).await?;
                        let contract = PrintedDocument::contract(detail, terms.as_deref(), Stage::ForSignature);
                        let rendered = SealedDocument::of(self.renderer.render(&contract)?);
                        let shown = NoticesShown::with_terms(
                            terms.as_deref().unwrap_or(crate::contract::terms::DEFAULT_TERMS),
                            detail.proposal.shipping,
                        );
                        self.signatures.seal(proposal_id, &rendered, &shown, by).await?
                    }
                };
                let deadline = self.clock.now() + self.signing_deadline;
                let key = self.provider.upload_document(identifier, &sealed.pdf, deadline).await?;
                self.signatures.save_document(proposal_id, &key, deadline, by).await?;
                key
            }
        };
        let (keys, url) = match state.and_then(|s| s.keys.zip(s.sign_url)) {
            Some(saved) => saved,
            None => {
                let keys = self
                    .provider
                    .add_signers(&document_key, &signers(detail), channel)
                    .await?;
                let url = self.provider.sign_url(&keys.client);
                self.signatures.save_parties(proposal_id, &keys, &url, by).await?;
                (keys, url)
            }
        };
        self.provider.notify(&document_key, &keys.client, channel).await?;
        let change = StatusChange {
            proposal_id,
            from: ProposalStatus::New,
            to: ProposalStatus::AwaitingSignature,
            changed_by: by.to_owned(),
            reason: None,
            at: self.clock.now(),
            operation: Some(operation),
        };
        self.signatures.change_status(&change).await?;
        Ok(url)
    }

    /// A later sending while awaiting signatures: the client notified again, counted.
    async fn resend(&self, detail: &ProposalDetail, by: &str) -> Result<String, SigningError> {
        let proposal_id = detail.proposal.id;
        let state = self.signatures.state(proposal_id).await?;
        let Some((document_key, (keys, url))) = state.and_then(|s| s.document_key.zip(s.keys.zip(s.sign_url))) else {
            return Err(SigningError::NotSent);
        };
        self.provider
            .notify(&document_key, &keys.client, detail.proposal.shipping)
            .await?;
        self.signatures
            .count_resend(proposal_id, self.max_resends, by)
            .await?
            .ok_or(SigningError::ResendLimit { max: self.max_resends })?;
        Ok(url)
    }

    /// Route 13: the client's stored link; none once the proposal is cancelled or expired (its
    /// envelope is closed).
    pub async fn sign_link(&self, principal: &Principal, identifier: &str) -> Result<String, SigningError> {
        authorize(principal, Operation::ReadSignLink)?;
        let detail = self.detail(principal, identifier).await?;
        match detail.proposal.status {
            ProposalStatus::Cancelled => return Err(SigningError::Cancelled),
            ProposalStatus::Expired => return Err(SigningError::Expired),
            _ => {}
        }
        let state = self.signatures.state(detail.proposal.id).await?;
        state.and_then(|s| s.sign_url).ok_or(SigningError::NotSent)
    }

    /// The back office approves, rejects or cancels. A cancellation closes the envelope, under the
    /// proposal's claim; any move is refused while another operation on the proposal is pending.
    pub async fn change_status(
        &self,
        principal: &Principal,
        identifier: &str,
        to: ProposalStatus,
        reason: Option<String>,
    ) -> Result<StatusEvent, SigningError> {
        authorize(principal, Operation::ChangeStatus)?;
        let detail = self.detail(principal, identifier).await?;
        let from = detail.proposal.status;
        check(from, to, Trigger::BackOffice)?;
        let operation = if to == ProposalStatus::Cancelled {
            let operation = self
                .claim(
                    &detail,
                    OperationKind::StatusChange,
                    from,
                    &principal.email,
                    reason.clone(),
                    Some(to),
                )
                .await
                .map_err(|e| refusal(e, |current| transition(current, to)))?;
            let closed = self.close_envelope(detail.proposal.id).await;
            self.end_if_failed(operation, &closed).await;
            closed?;
            Some(operation)
        } else {
            None
        };
        let change = StatusChange {
            proposal_id: detail.proposal.id,
            from,
            to,
            changed_by: principal.email.clone(),
            reason,
            at: self.clock.now(),
            operation,
        };
        match self.signatures.change_status(&change).await {
            Ok(event) => Ok(event),
            // Another change won the race: judge the move again from where it is now.
            Err(ChangeStatusError::Conflict { current }) => Err(TransitionError { from: current, to }.into()),
            Err(other) => Err(other.into()),
        }
    }

    /// Cancels a proposal at the customer's request: the seller that owns it (whoever sees it:
    /// another seller's is not found) or the back office, while it is not signed. The proposal is
    /// claimed first (nothing else touches it meanwhile), then the provider's envelope is
    /// cancelled, so that no party can sign after; a provider that fails leaves the proposal as it
    /// was. The request is kept under a new protocol, with the status change, its event (with the
    /// reason), its history and the operation's end, in one transaction.
    #[tracing::instrument(skip_all)]
    pub async fn cancel(
        &self,
        principal: &Principal,
        identifier: &str,
        reason: String,
    ) -> Result<Cancellation, SigningError> {
        authorize(principal, Operation::CancelProposal)?;
        let detail = self.detail(principal, identifier).await?;
        let from = detail.proposal.status;
        check(from, ProposalStatus::Cancelled, Trigger::Cancellation)
            .map_err(|_| SigningError::NotCancellable { status: from })?;
        let operation = self
            .claim(
                &detail,
                OperationKind::Cancellation,
                from,
                &principal.email,
                Some(reason.clone()),
                None,
            )
            .await
            .map_err(|e| refusal(e, |status| SigningError::NotCancellable { status }))?;
        let cancelled = self
            .close_and_record(&detail, from, operation, &principal.email, reason)
            .await;
        self.end_if_failed(operation, &cancelled).await;
        let cancellation = cancelled?;
        tracing::info!(protocol = %cancellation.protocol, "proposal cancelled at the customer's request");
        Ok(cancellation)
    }

    /// The cancellation's effect and record: the envelope closed, then the request, the move and
    /// the operation's end in one transaction.
    async fn close_and_record(
        &self,
        detail: &ProposalDetail,
        from: ProposalStatus,
        operation: OperationId,
        by: &str,
        reason: String,
    ) -> Result<Cancellation, SigningError> {
        self.close_envelope(detail.proposal.id).await?;
        let at = self.clock.now();
        let change = StatusChange {
            proposal_id: detail.proposal.id,
            from,
            to: ProposalStatus::Cancelled,
            changed_by: by.to_owned(),
            reason: Some(reason.clone()),
            at,
            operation: Some(operation),
        };
        let request = NewCustomerRequest {
            kind: RequestKind::Cancellation,
            reason,
            requested_by: by.to_owned(),
            at,
            day: at.with_timezone(&crate::contract::formats::brasilia()).date_naive(),
        };
        match self.requests.record(&change, &request).await {
            Ok((event, protocol)) => Ok(Cancellation {
                identifier: detail.proposal.identifier.clone(),
                protocol,
                event,
            }),
            // A signature won the race: judged from where it is now.
            Err(ChangeStatusError::Conflict { current }) => Err(SigningError::NotCancellable { status: current }),
            Err(other) => Err(other.into()),
        }
    }

    /// The worker's end of an operation whose request died: the same steps again, each answered
    /// by the provider as the first time (the envelope saved before the next step; a cancelled
    /// envelope cancels again), then the record. A proposal no longer where the operation found
    /// it (the operation held it, so only a deletion) ends it as failed.
    async fn finish_operation(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, SigningError> {
        let detail = self
            .proposals
            .detail(&operation.identifier, Scope::Everything)
            .await?
            .ok_or(SigningError::NotFound)?;
        let from = detail.proposal.status;
        let by = operation.requested_by.as_str();
        match (operation.kind, from) {
            (OperationKind::Sending, ProposalStatus::New) => {
                self.first_send(&detail, operation.id, by, true).await?;
            }
            // A resend died after (or before) its notification: one notification is enough.
            (OperationKind::Sending, _) => {
                self.claims
                    .finish(operation.id, "reenvio encerrado pelo worker", self.clock.now())
                    .await?;
            }
            (OperationKind::Cancellation, _) => {
                let reason = operation.reason.clone().unwrap_or_else(|| "cancelamento".to_owned());
                self.close_and_record(&detail, from, operation.id, by, reason).await?;
            }
            (OperationKind::StatusChange, _) => {
                self.close_envelope(detail.proposal.id).await?;
                let change = StatusChange {
                    proposal_id: detail.proposal.id,
                    from,
                    to: operation.target.unwrap_or(ProposalStatus::Cancelled),
                    changed_by: by.to_owned(),
                    reason: operation.reason.clone(),
                    at: self.clock.now(),
                    operation: Some(operation.id),
                };
                self.signatures.change_status(&change).await?;
            }
            (
                OperationKind::Subscription
                | OperationKind::Withdrawal
                | OperationKind::Refusal
                | OperationKind::ContractCancellation
                | OperationKind::PixRecurrence
                | OperationKind::PixCharge
                | OperationKind::LateRefund,
                _,
            ) => {
                return Err(SigningError::OperationInProgress { kind: operation.kind });
            }
        }
        Ok(RecoveryOutcome::Finished)
    }

    /// A customer's request found by its protocol (the back office).
    pub async fn customer_request(
        &self,
        principal: &Principal,
        protocol: &Protocol,
    ) -> Result<CustomerRequest, SigningError> {
        authorize(principal, Operation::ReadCustomerRequests)?;
        self.requests.find(protocol).await?.ok_or(SigningError::UnknownProtocol)
    }

    /// Expires the proposals whose signing deadline passed with signatures missing (`EXPIRADO`,
    /// with its event), a batch at a time until none is left, then cancels their envelopes at
    /// the provider. The move is the store's claim: run by every instance at once, each proposal
    /// expires once. An envelope the provider fails to cancel is only logged: the provider closes
    /// it at the same deadline, and a late signature changes nothing anyway. Answers how many.
    #[tracing::instrument(skip_all)]
    pub async fn expire_overdue(&self) -> Result<usize, SigningError> {
        let mut expired = 0;
        loop {
            let batch = self
                .signatures
                .expire_overdue(self.clock.now(), EXPIRY_BATCH, DEADLINE_ACTOR)
                .await?;
            expired += batch.len();
            for proposal in &batch {
                tracing::info!(identifier = %proposal.identifier, "proposal expired awaiting signatures");
                if let Some(envelope) = &proposal.envelope
                    && let Err(error) = self.provider.cancel_envelope(envelope).await
                {
                    tracing::warn!(%error, identifier = %proposal.identifier, "expired proposal's envelope not cancelled");
                }
            }
            if batch.len() < EXPIRY_BATCH as usize {
                return Ok(expired);
            }
        }
    }

    /// Envelopes compared in each batch of the reconciliation.
    pub const RECONCILE_BATCH: i64 = 100;

    /// `sales-api reconcile signatures`: compares each proposal's envelope with the provider's. An
    /// envelope still open on a proposal no one may sign any more (`CANCELADO`, `EXPIRADO`,
    /// `REPROVADO`) is drift, mended (with `mend`) by cancelling it; an envelope the provider
    /// cancelled or closed while the proposal still awaits signatures is drift, reported only (a
    /// person decides: the parties' callbacks may have been lost). A provider that keeps no
    /// envelopes (the sandbox) is not compared; one that cannot be read stops the run with its
    /// error: nothing is reported as true that was not read.
    pub async fn reconcile(&self, mend: bool) -> Result<EnvelopeReport, SigningError> {
        let mut report = EnvelopeReport::default();
        let mut after = 0;
        loop {
            let batch = self.signatures.envelopes(after, Self::RECONCILE_BATCH).await?;
            let Some(last) = batch.last() else { break };
            after = last.proposal_id;
            for stored in batch {
                let Some(state) = self.provider.envelope_state(&stored.envelope).await? else {
                    report.unverifiable += 1;
                    continue;
                };
                report.checked += 1;
                let closed_for_signing = matches!(
                    stored.status,
                    ProposalStatus::Cancelled | ProposalStatus::Expired | ProposalStatus::Rejected
                );
                let drifted = match state {
                    EnvelopeState::Open => closed_for_signing,
                    EnvelopeState::Closed | EnvelopeState::Cancelled => {
                        stored.status == ProposalStatus::AwaitingSignature
                    }
                };
                if !drifted {
                    continue;
                }
                if mend && state == EnvelopeState::Open {
                    self.provider.cancel_envelope(&stored.envelope).await?;
                    tracing::info!(identifier = %stored.identifier, "open envelope of a finished proposal cancelled");
                    report.mended += 1;
                }
                report.drifted.push(EnvelopeDrift { stored, state });
            }
        }
        Ok(report)
    }

    /// Cancels the proposal's envelope at the provider, when one was created.
    async fn close_envelope(&self, proposal_id: i64) -> Result<(), SigningError> {
        if let Some(envelope) = self.signatures.state(proposal_id).await?.and_then(|s| s.document_key) {
            self.provider.cancel_envelope(&envelope).await?;
        }
        Ok(())
    }

    /// The proposal's PDF, for whoever may see the proposal: once every party signed, the signed
    /// version; once sent, the bytes sent (sealed); before, a draft of the proposal as it stands.
    pub async fn document(
        &self,
        principal: &Principal,
        identifier: &str,
        request: DocumentRequest,
    ) -> Result<ProposalDocument, SigningError> {
        authorize(principal, Operation::ReadProposal)?;
        let detail = self.detail(principal, identifier).await?;
        let id = detail.proposal.id;
        if self.signatures.documents_removed(id).await? {
            return Err(SigningError::DocumentRemoved);
        }
        if request == DocumentRequest::Provider {
            let copy = self.signatures.provider_copy(id).await?;
            return copy
                .map(|document| ProposalDocument {
                    document,
                    version: DocumentVersion::Provider,
                })
                .ok_or(SigningError::NoProviderCopy);
        }
        if request == DocumentRequest::Latest
            && let Some(signed) = self.signatures.signed(id).await?
        {
            return Ok(ProposalDocument {
                document: signed,
                version: DocumentVersion::Signed,
            });
        }
        if let Some(sealed) = self.signatures.sealed(id).await? {
            return Ok(ProposalDocument {
                document: sealed,
                version: DocumentVersion::Sealed,
            });
        }
        if request == DocumentRequest::Sealed {
            return Err(SigningError::NotSent);
        }
        let terms = self.proposals.product_terms(detail.proposal.product_id).await?;
        let draft = PrintedDocument::contract(&detail, terms.as_deref(), Stage::Draft);
        Ok(ProposalDocument {
            document: SealedDocument::of(self.renderer.render(&draft)?),
            version: DocumentVersion::Draft,
        })
    }

    /// The status-change events of a proposal the caller may see, in order.
    pub async fn events(&self, principal: &Principal, identifier: &str) -> Result<Vec<StatusEvent>, SigningError> {
        authorize(principal, Operation::ReadProposal)?;
        let detail = self.detail(principal, identifier).await?;
        Ok(self.signatures.events(detail.proposal.id).await?)
    }

    /// A provider callback: verified, then recorded once.
    #[tracing::instrument(skip_all)]
    pub async fn callback(&self, headers: &[(String, String)], body: &[u8]) -> Result<PartyEventOutcome, SigningError> {
        let event = self.provider.parse_callback(headers, body)?;
        if event.at < self.clock.now() - self.callback_max_age {
            tracing::warn!(occurred_at = %event.at, "signature callback older than the window refused");
            return Err(SigningError::Callback(CallbackError::Stale));
        }
        self.record(&event).await
    }

    /// A party's event as the provider reported it (a verified callback, or the sandbox provider's
    /// own page): recorded once, moving the proposal when it completes or refuses the signature.
    pub async fn record(&self, event: &ProviderEvent) -> Result<PartyEventOutcome, SigningError> {
        if event.kind == ProviderEventKind::Closed {
            return self.keep_provider_copy(&event.request_key).await;
        }
        match self.signatures.record_party_event(event, SIGNATURE_ACTOR).await? {
            PartyEventOutcome::UnknownKey => Err(SigningError::UnknownKey),
            PartyEventOutcome::Ignored { status } => {
                tracing::warn!(%status, kind = ?event.kind, "party event for a finished proposal ignored");
                Ok(PartyEventOutcome::Ignored { status })
            }
            outcome => {
                tracing::info!(?outcome, "signature event recorded");
                // The signature that completed the set, or a repeated event: a delivery whose
                // completion failed half-way is retried by the provider, and the signed version
                // is made then. The signatures before the last have nothing to complete.
                let may_complete = matches!(
                    outcome,
                    PartyEventOutcome::Duplicate
                        | PartyEventOutcome::Recorded {
                            moved_to: Some(ProposalStatus::InAnalysis)
                        }
                );
                if event.kind == ProviderEventKind::Signed && may_complete {
                    self.complete(&event.request_key).await?;
                    if let (Some(after), Some((identifier, _, _))) = (
                        &self.after_signing,
                        self.signatures.party_of_key(&event.request_key).await?,
                    ) {
                        after.signed(&identifier).await;
                    }
                }
                Ok(outcome)
            }
        }
    }

    /// Once every party signed: the signed version (the sealed document and its evidence page),
    /// made once; nothing while a party has not signed or when it exists already.
    async fn complete(&self, request_key: &str) -> Result<(), SigningError> {
        let Some((identifier, _, _)) = self.signatures.party_of_key(request_key).await? else {
            return Ok(());
        };
        let detail = self
            .proposals
            .detail(&identifier, Scope::Everything)
            .await?
            .ok_or(SigningError::NotFound)?;
        let id = detail.proposal.id;
        let mut parties = self.signatures.parties(id).await?;
        let all_signed =
            parties.len() == PartyRole::ALL.len() && parties.iter().all(|p| p.status == PartyStatus::Signed);
        if !all_signed || self.signatures.signed(id).await?.is_some() {
            return Ok(());
        }
        let state = self.signatures.state(id).await?;
        let (Some(sealed), Some(envelope_id)) = (
            self.signatures.sealed(id).await?,
            state.as_ref().and_then(|s| s.document_key.clone()),
        ) else {
            return Ok(());
        };
        if let Some(keys) = state.and_then(|s| s.keys) {
            self.complete_from_envelope(id, &envelope_id, &keys, &mut parties)
                .await?;
        }
        let client_channel = crate::contract::channel_label(detail.proposal.shipping);
        let people = signers(&detail);
        let evidence = SignatureEvidence {
            identifier: detail.proposal.identifier.clone(),
            product_name: detail.product_name.clone(),
            envelope_id,
            provider: self.provider.name().to_owned(),
            sealed_pages: self.renderer.page_count(&sealed.pdf)?,
            sealed_sha256: sealed.sha256.clone(),
            parties: PartyRole::ALL
                .iter()
                .filter_map(|role| {
                    let record = parties.iter().find(|p| p.role == *role)?;
                    let person = people.iter().find(|s| s.role == *role)?;
                    Some(PartySignature {
                        role: *role,
                        name: person.name.clone(),
                        document: person.document.clone(),
                        signed_at: record.signed_at?,
                        channel: if *role == PartyRole::Client {
                            client_channel
                        } else {
                            "API"
                        }
                        .to_owned(),
                        authentication: record.authentication.clone(),
                        ip: record.ip.clone(),
                        user_agent: record.user_agent.clone(),
                        latitude: record.latitude.clone(),
                        longitude: record.longitude.clone(),
                    })
                })
                .collect(),
        };
        let signed = SealedDocument::of(self.renderer.append(&sealed.pdf, &evidence.page())?);
        let kept = self.signatures.keep_signed(id, &signed).await?;
        tracing::info!(sha256 = %kept.sha256, "signed version kept");
        Ok(())
    }

    /// Fills each party's record with what the provider's envelope recorded and its callback did
    /// not carry (authentication, address, browser, location), and keeps it, so that the evidence
    /// page and route 7's `sign.location` state it. A provider that cannot be read is logged:
    /// the page then says "não informado" where nothing is known, never a guess.
    async fn complete_from_envelope(
        &self,
        proposal_id: i64,
        envelope_id: &str,
        keys: &PartyKeys,
        parties: &mut [PartyRecord],
    ) -> Result<(), SigningError> {
        let reported = match self.provider.signing_evidence(envelope_id).await {
            Ok(reported) => reported,
            Err(error) => {
                tracing::warn!(%error, "the provider's signing evidence could not be read; the page states what is stored");
                return Ok(());
            }
        };
        for party in parties.iter_mut() {
            let key = keys.of(party.role);
            if let Some(evidence) = reported.iter().find(|e| e.request_key == key)
                && evidence.fill(party)
            {
                self.signatures.fill_party_evidence(proposal_id, party).await?;
            }
        }
        Ok(())
    }

    /// The provider's own signed copy, fetched when its envelope closes and kept beside ours.
    async fn keep_provider_copy(&self, envelope_key: &str) -> Result<PartyEventOutcome, SigningError> {
        let Some(pdf) = self.provider.signed_copy(envelope_key).await? else {
            tracing::warn!("envelope closed but the provider has no signed copy yet");
            return Ok(PartyEventOutcome::Recorded { moved_to: None });
        };
        if !self
            .signatures
            .keep_provider_copy(envelope_key, &SealedDocument::of(pdf))
            .await?
        {
            return Err(SigningError::UnknownKey);
        }
        Ok(PartyEventOutcome::Recorded { moved_to: None })
    }
}

#[async_trait::async_trait]
impl OperationFinisher for SigningService {
    fn kinds(&self) -> &'static [OperationKind] {
        &[
            OperationKind::Sending,
            OperationKind::Cancellation,
            OperationKind::StatusChange,
        ]
    }

    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        match self.finish_operation(operation).await {
            Ok(outcome) => Ok(outcome),
            // A move the state machine refuses now cannot be finished: ended as failed.
            Err(SigningError::Transition(_) | SigningError::NotCancellable { .. } | SigningError::NotFound) => {
                self.claims
                    .fail(operation.id, "a proposta não admite mais a operação", self.clock.now())
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(other) => Err(other.to_string()),
        }
    }
}

/// What `reconcile signatures` found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvelopeReport {
    /// Envelopes read from the provider.
    pub checked: u64,
    /// Envelopes the provider keeps no state of (the sandbox).
    pub unverifiable: u64,
    pub drifted: Vec<EnvelopeDrift>,
    /// Open envelopes of finished proposals cancelled.
    pub mended: u64,
}

/// A proposal whose envelope disagrees with its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeDrift {
    pub stored: StoredEnvelope,
    pub state: EnvelopeState,
}

/// A refused move, named from where the proposal is.
fn transition(from: ProposalStatus, to: ProposalStatus) -> SigningError {
    TransitionError { from, to }.into()
}

/// A refused claim: another operation pending, or the proposal moved (judged by `moved` from where
/// it is now).
fn refusal(error: ClaimError, moved: impl FnOnce(ProposalStatus) -> SigningError) -> SigningError {
    match error {
        ClaimError::InProgress { kind } => SigningError::OperationInProgress { kind },
        ClaimError::Moved { current } => moved(current),
        ClaimError::Store(e) => SigningError::Store(e),
    }
}
