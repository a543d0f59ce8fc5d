//! The certificate in the customer's hands (issue 45). Entering `APROVADO` (the analyst's
//! decision or tacit acceptance) records, in the move's transaction, that the proposal's
//! certificate is due; every instance and the worker then issue the due ones (rendered once,
//! stored with their SHA-256, never rendered again) and e-mail each to the customer, recording the
//! delivery (when, to which address, the document's SHA-256). The seller and the back office read
//! it at `GET /proposal/{identificador}/certificate`.

use crate::access::{AccessError, Scope, scope_of};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::contract::certificate::{IncompleteCover, ProductCover};
use crate::contract::{DocumentRenderer, PrintedDocument, RenderError};
use crate::mail::{CertificateNotice, MailError, MailKind, MailMessage, MailSender};
use crate::proposals::model::ProposalDetail;
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::store::StoreError;
use crate::values::{Email, ProposalStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// A certificate as issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedCertificate {
    pub pdf: Vec<u8>,
    /// Of `pdf`, in hexadecimal.
    pub sha256: String,
    pub issued_at: DateTime<Utc>,
}

/// A certificate due or not yet delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueCertificate {
    pub proposal_id: i64,
    pub identifier: String,
    pub accepted_at: DateTime<Utc>,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CertificateStore: Send + Sync {
    /// When the proposal was accepted, if it was (its certificate is due from then).
    async fn accepted_at(&self, proposal_id: i64) -> Result<Option<DateTime<Utc>>, StoreError>;
    /// The product's cover as the catalog holds it, or what of it is missing.
    async fn cover(&self, product_id: i64) -> Result<Result<ProductCover, IncompleteCover>, StoreError>;
    async fn issued(&self, proposal_id: i64) -> Result<Option<IssuedCertificate>, StoreError>;
    /// Stores the certificate unless one is stored already, and answers the stored one (the
    /// first wins: two instances issuing at once keep one).
    async fn store_issued(&self, proposal_id: i64, issued: &IssuedCertificate)
    -> Result<IssuedCertificate, StoreError>;
    /// Takes up to `limit` certificates not yet delivered, each for `lease`
    /// (`FOR UPDATE SKIP LOCKED`: every instance may run the pass; one takes each).
    async fn take_undelivered(
        &self,
        now: DateTime<Utc>,
        lease: chrono::Duration,
        limit: i64,
    ) -> Result<Vec<DueCertificate>, StoreError>;
    /// Records the delivery: when, to which address, the document's SHA-256.
    async fn record_delivery(
        &self,
        proposal_id: i64,
        to: &str,
        sha256: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CertificateError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("proposta não encontrada")]
    NotFound,
    /// Only an accepted proposal has a certificate.
    #[error("a proposta está {status}: o certificado é emitido quando ela é aceita (APROVADO)")]
    NotAccepted { status: ProposalStatus },
    #[error(transparent)]
    IncompleteCover(#[from] IncompleteCover),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Mail(#[from] MailError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<crate::access::ScopeError> for CertificateError {
    fn from(e: crate::access::ScopeError) -> Self {
        match e {
            crate::access::ScopeError::Access(a) => CertificateError::Access(a),
            crate::access::ScopeError::Store(s) => CertificateError::Store(s),
        }
    }
}

/// How many due certificates one pass takes.
const DELIVERY_BATCH: i64 = 50;

/// What one pass did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DeliveryPass {
    /// The proposals whose certificate went to the customer.
    pub delivered: Vec<String>,
    /// Left for a later pass (a product without its cover, a store that did not answer).
    pub failed: Vec<String>,
}

#[derive(Clone)]
pub struct CertificateService {
    pub store: Arc<dyn CertificateStore>,
    pub proposals: Arc<dyn ProposalStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub renderer: Arc<dyn DocumentRenderer>,
    /// Sends at once: the delivery is recorded only once the mail server took the message.
    pub mail: Arc<dyn MailSender>,
    pub clock: Arc<dyn Clock>,
}

impl CertificateService {
    /// `GET /proposal/{identificador}/certificate`: the proposal's seller or the back office
    /// (another seller finds nothing); before the acceptance, refused naming the status.
    pub async fn certificate(
        &self,
        principal: &Principal,
        identifier: &str,
    ) -> Result<IssuedCertificate, CertificateError> {
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        let detail = self
            .proposals
            .detail(identifier, scope)
            .await?
            .ok_or(CertificateError::NotFound)?;
        let accepted_at = self
            .store
            .accepted_at(detail.proposal.id)
            .await?
            .ok_or(CertificateError::NotAccepted {
                status: detail.proposal.status,
            })?;
        self.issue(&detail, accepted_at).await
    }

    /// The stored certificate, or one issued now and stored (the first stored wins).
    async fn issue(
        &self,
        detail: &ProposalDetail,
        accepted_at: DateTime<Utc>,
    ) -> Result<IssuedCertificate, CertificateError> {
        if let Some(issued) = self.store.issued(detail.proposal.id).await? {
            return Ok(issued);
        }
        let cover = self.store.cover(detail.proposal.product_id).await??;
        let pdf = self
            .renderer
            .render(&PrintedDocument::certificate(detail, &cover, accepted_at))?;
        let issued = IssuedCertificate {
            sha256: hex::encode(Sha256::digest(&pdf)),
            pdf,
            issued_at: self.clock.now(),
        };
        Ok(self.store.store_issued(detail.proposal.id, &issued).await?)
    }

    /// One pass over the certificates not yet delivered: each issued (when it was not) and
    /// e-mailed to the customer, its delivery recorded. Every instance and the worker run it.
    #[tracing::instrument(skip_all)]
    pub async fn deliver_due(&self) -> Result<DeliveryPass, CertificateError> {
        let now = self.clock.now();
        let due = self
            .store
            .take_undelivered(now, chrono::Duration::minutes(5), DELIVERY_BATCH)
            .await?;
        let mut pass = DeliveryPass::default();
        for certificate in due {
            match self.deliver(&certificate).await {
                Ok(()) => pass.delivered.push(certificate.identifier),
                Err(error) => {
                    tracing::warn!(identifier = %certificate.identifier, %error, "certificate not delivered: retried later");
                    pass.failed.push(certificate.identifier);
                }
            }
        }
        Ok(pass)
    }

    async fn deliver(&self, due: &DueCertificate) -> Result<(), CertificateError> {
        let detail = self
            .proposals
            .detail(&due.identifier, Scope::Everything)
            .await?
            .ok_or(CertificateError::NotFound)?;
        let issued = self.issue(&detail, due.accepted_at).await?;
        let person = &detail.customer.person;
        let Some(to) = person.email.as_deref().and_then(|e| Email::parse(e).ok()) else {
            // Nowhere to send it: recorded as delivered to no one, so that the pass does not
            // take it again; the seller hands it over from route 7's certificate.
            tracing::warn!(identifier = %due.identifier, "customer without a usable e-mail: certificate not mailed");
            self.store
                .record_delivery(due.proposal_id, "", &issued.sha256, self.clock.now())
                .await?;
            return Ok(());
        };
        let address = to.as_str().to_owned();
        self.mail
            .send(MailMessage {
                to,
                kind: MailKind::Certificate(CertificateNotice {
                    customer_name: person.social_name.clone().unwrap_or_else(|| person.full_name.clone()),
                    identifier: detail.proposal.identifier.clone(),
                    product: detail.product_name.clone(),
                    sha256: issued.sha256.clone(),
                    pdf: issued.pdf.clone(),
                }),
            })
            .await?;
        self.store
            .record_delivery(due.proposal_id, &address, &issued.sha256, self.clock.now())
            .await?;
        tracing::info!(identifier = %due.identifier, "certificate issued and mailed");
        Ok(())
    }
}
