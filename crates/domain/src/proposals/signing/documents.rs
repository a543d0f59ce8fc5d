//! The proposal's document in each of its versions and its status events.

use super::{DocumentRequest, DocumentVersion, ProposalDocument, SigningError, SigningService};
use crate::access::{Operation, authorize};
use crate::auth::model::Principal;
use crate::contract::{PrintedDocument, Stage};
use crate::proposals::lifecycle::StatusEvent;
use crate::signature::SealedDocument;

impl SigningService {
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
        let terms = self
            .proposals
            .product_terms(detail.proposal.product_id, detail.proposal.partner_document.clone())
            .await?;
        let draft = PrintedDocument::contract(&detail, &terms, Stage::Draft).naming_who_answers(&self.privacy_contacts);
        Ok(ProposalDocument {
            document: SealedDocument::of(self.renderer.render(&draft)?),
            version: DocumentVersion::Draft,
        })
    }

    /// The status-change events of a proposal the caller may see, in order.
    pub async fn events(&self, principal: &Principal, identifier: &str) -> Result<Vec<StatusEvent>, SigningError> {
        authorize(principal, Operation::ReadProposal)?;
        let detail = self.detail(principal, identifier).await?;
        let events = self.signatures.events(detail.proposal.id).await?;
        Ok(events.into_iter().map(|e| e.as_read_by(principal)).collect())
    }
}
