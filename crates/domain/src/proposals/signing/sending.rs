//! Route 12 and 13: sending a proposal for signature, sending its link again, and the link for the seller.

use super::{SigningError, SigningService, refusal, signers, transition};
use crate::access::{Operation, authorize};
use crate::auth::model::Principal;
use crate::contract::{PrintedDocument, Stage};
use crate::privacy::notice::NoticesShown;
use crate::proposals::lifecycle::StatusChange;
use crate::proposals::model::{Flow, ProposalDetail};
use crate::proposals::operations::{ClaimError, NewOperation, OperationId, OperationKind, end_if_failed};
use crate::proposals::reasons::GivenReason;
use crate::signature::SealedDocument;
use crate::values::ProposalStatus;

impl SigningService {
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
                    .claim(
                        &detail,
                        OperationKind::Sending,
                        ProposalStatus::New,
                        by,
                        GivenReason::default(),
                        None,
                    )
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
                        GivenReason::default(),
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
    pub(super) async fn claim(
        &self,
        detail: &ProposalDetail,
        kind: OperationKind,
        expected: ProposalStatus,
        by: &str,
        reason: GivenReason,
        target: Option<ProposalStatus>,
    ) -> Result<OperationId, ClaimError> {
        let operation = NewOperation {
            id: OperationId::new(),
            proposal_id: detail.proposal.id,
            kind,
            expected,
            requested_by: by.to_owned(),
            reason: reason.words,
            reason_category: reason.category,
            target,
            at: self.clock.now(),
        };
        self.claims.claim(&operation).await?;
        Ok(operation.id)
    }

    /// Ends an operation whose steps failed (nothing recorded); a store that cannot answer leaves
    /// it pending, for the worker.
    pub(super) async fn end_if_failed<T>(&self, operation: OperationId, result: &Result<T, SigningError>) {
        end_if_failed(self.claims.as_ref(), operation, result, self.clock.now()).await;
    }

    /// The first sending: renders the document, creates the envelope with the four parties and
    /// notifies the client, each step saved before the next, so that a retry (or the worker,
    /// finishing the operation) resumes where it stopped; then moves the proposal to `AGUARDANDO
    /// ASSINATURA`, ending the operation in the move's transaction.
    pub(super) async fn first_send(
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
                        let terms = self
                            .proposals
                            .product_terms(detail.proposal.product_id, detail.proposal.partner_document.clone())
                            .await?;
                        let contract = PrintedDocument::contract(detail, &terms, Stage::ForSignature)
                            .naming_who_answers(&self.privacy_contacts);
                        let rendered = SealedDocument::of(self.renderer.render(&contract)?);
                        let shown = NoticesShown::with_terms(
                            terms.text.as_deref().unwrap_or(crate::contract::terms::DEFAULT_TERMS),
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
            reason_category: None,
            at: self.clock.now(),
            operation: Some(operation),
        };
        self.signatures.change_status(&change).await?;
        Ok(url)
    }

    /// A later sending while awaiting signatures: the client notified again, counted.
    pub(super) async fn resend(&self, detail: &ProposalDetail, by: &str) -> Result<String, SigningError> {
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
}
