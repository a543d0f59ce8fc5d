//! Documents straight from the proponent (issue 69, decision 289; LGPD art. 6, III and art. 11):
//! the back office's request for documents goes to whoever [`PendingRecipient::of`] names; a
//! request for the proponent mails them a one-time link (`/documentos/{token}`, kept only as its
//! SHA-256) to a page where they read what is asked and upload the files. The link serves while
//! its request is open: once, and not after the proposal is decided.

use super::pending::{DocumentsRequest, PendingAnswerInput, PendingRecipient};
use super::ports::{AcceptanceStore, LinkedRequest, PendingOpened, PendingResumed, PendingStoreError};
use super::service::PendingError;
use crate::access::{Operation, authorize};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::mail::{DocumentsRequestedNotice, MailKind, MailMessage, MailOutbox};
use crate::recovery::{SecretGenerator, token_hash};
use crate::values::Email;
use std::sync::Arc;

/// Where the proponent's link points: the configured public address's `/documentos/{token}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentsLinkPolicy {
    /// The page's address without the token (`https://vendas.exemplo.com.br/documentos`); built
    /// from configuration, never from a request.
    pub link_base: String,
}

#[derive(Clone)]
pub struct ProponentDocuments {
    pub store: Arc<dyn AcceptanceStore>,
    pub secrets: Arc<dyn SecretGenerator>,
    pub outbox: Arc<dyn MailOutbox>,
    pub clock: Arc<dyn Clock>,
    pub policy: DocumentsLinkPolicy,
}

impl ProponentDocuments {
    /// `POST /proposal/{identificador}/pending`: the back office asks for documents; the clock
    /// stops until the answer. A request for the proponent is mailed to them, after the commit,
    /// with its link; a proposal whose copy of the customer has no usable e-mail keeps the
    /// request (the back office reaches the person another way), logged.
    pub async fn request_documents(
        &self,
        principal: &Principal,
        identifier: &str,
        request: DocumentsRequest,
    ) -> Result<PendingOpened, PendingError> {
        authorize(principal, Operation::RequestDocuments)?;
        let token = self.secrets.recovery_token();
        let opened = self
            .store
            .open_pending(
                identifier,
                &request,
                &principal.email,
                &token_hash(&token),
                self.clock.now(),
            )
            .await?;
        if opened.recipient == PendingRecipient::Proponent {
            let proponent = opened.proponent.as_ref();
            match proponent.and_then(|p| p.email.as_deref()).map(Email::parse) {
                Some(Ok(to)) => {
                    self.outbox.enqueue(MailMessage {
                        to,
                        kind: MailKind::DocumentsRequested(DocumentsRequestedNotice {
                            identifier: opened.identifier.clone(),
                            product: proponent.map(|p| p.product.clone()).unwrap_or_default(),
                            items: request.items,
                            note: request.note,
                            link: format!("{}/{token}", self.policy.link_base.trim_end_matches('/')),
                        }),
                    });
                    tracing::info!(identifier = %opened.identifier, "request for documents mailed to the proponent");
                }
                _ => tracing::warn!(
                    identifier = %opened.identifier,
                    "request for documents for a proponent without a usable e-mail: not mailed"
                ),
            }
        }
        Ok(opened)
    }

    /// The link's page: the open request it was sent with.
    pub async fn open(&self, token: &str) -> Result<LinkedRequest, PendingStoreError> {
        self.store.linked_request(&token_hash(token)).await
    }

    /// The page's upload: the proponent's answer, recorded as a seller's is (the clock resumes,
    /// `PENDENCIA_RESPONDIDA` is queued), and the link spent.
    pub async fn answer(&self, token: &str, answer: PendingAnswerInput) -> Result<PendingResumed, PendingStoreError> {
        let resumed = self
            .store
            .answer_by_link(&token_hash(token), &answer, self.clock.now())
            .await?;
        tracing::info!(identifier = %resumed.identifier, files = answer.files.len(), "proponent answered a request for documents");
        Ok(resumed)
    }
}
