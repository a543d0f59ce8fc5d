//! The documents in the customer's hands after the sale (issue 45). Entering `APROVADO` (the
//! analyst's decision or tacit acceptance) records, in the move's transaction, that the
//! proposal's certificate is due; an online sale's payment (route 16), that its terms with the
//! regret notice are due (Decreto 7.962/2013 art. 4). Every instance and the worker then issue the
//! due ones (rendered once, stored with their SHA-256, never rendered again) and e-mail each to
//! the customer, recording the delivery (when, to which address, the document's SHA-256). The
//! seller and the back office read the certificate at `GET /proposal/{identificador}/certificate`.

use crate::access::{AccessError, Scope, scope_of};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::contract::certificate::{ContractEnded, IncompleteCover, ProductCover};
use crate::contract::templates::{Template, TemplateStamp};
use crate::contract::{DocumentRenderer, PrintedDocument, RenderError, Stage};
use crate::mail::{CertificateNotice, MailError, MailKind, MailMessage, MailSender};
use crate::proposals::model::ProposalDetail;
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::store::StoreError;
use crate::values::{Email, ProposalStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Which document the customer receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveredDocument {
    /// The accepted contract's certificate.
    Certificate,
    /// An online sale's terms with the regret notice, on its payment.
    Terms,
}

impl DeliveredDocument {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Certificate => "certificado",
            Self::Terms => "termos",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        [Self::Certificate, Self::Terms]
            .into_iter()
            .find(|k| k.as_str() == stored)
    }
}

/// A certificate (or the terms) as issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedCertificate {
    pub pdf: Vec<u8>,
    /// Of `pdf`, in hexadecimal.
    pub sha256: String,
    pub issued_at: DateTime<Utc>,
    /// The template it was printed from (none for a document issued before templates were
    /// versioned, decision 282).
    pub template: Option<TemplateStamp>,
}

/// A document due or not yet delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueCertificate {
    pub proposal_id: i64,
    pub identifier: String,
    pub kind: DeliveredDocument,
    /// The contract's term it is of (the terms' and the first certificate's: 1; each renewal's
    /// certificate its term's, decision 270).
    pub term: u32,
    /// When it fell due: the acceptance (the certificate) or the payment (the terms).
    pub accepted_at: DateTime<Utc>,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CertificateStore: Send + Sync {
    /// When the document fell due, if it did (the certificate: when the proposal was accepted).
    async fn accepted_at(&self, proposal_id: i64, kind: DeliveredDocument)
    -> Result<Option<DateTime<Utc>>, StoreError>;
    /// The product's cover as the catalog holds it, or what of it is missing, with the SUSEP
    /// registration of the partner whose document is given (the contract's seller).
    async fn cover(
        &self,
        product_id: i64,
        partner_document: Option<String>,
    ) -> Result<Result<ProductCover, IncompleteCover>, StoreError>;
    async fn issued(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
    ) -> Result<Option<IssuedCertificate>, StoreError>;
    /// Stores the document unless one is stored already, and answers the stored one (the first
    /// wins: two instances issuing at once keep one).
    async fn store_issued(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
        issued: &IssuedCertificate,
    ) -> Result<IssuedCertificate, StoreError>;
    /// Takes up to `limit` documents not yet delivered, each for `lease`
    /// (`FOR UPDATE SKIP LOCKED`: every instance may run the pass; one takes each).
    async fn take_undelivered(
        &self,
        now: DateTime<Utc>,
        lease: chrono::Duration,
        limit: i64,
    ) -> Result<Vec<DueCertificate>, StoreError>;
    /// Withholds a document for good, with when and why: its contract ended before it was sent.
    async fn withhold(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
        why: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// When and why the accepted contract ended, once it has (its move to `CANCELADO`).
    async fn ended(&self, proposal_id: i64) -> Result<Option<ContractEnded>, StoreError>;
    /// Records the delivery: when, to which address, the document's SHA-256.
    async fn record_delivery(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
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
    /// The proposals whose document went to the customer.
    pub delivered: Vec<String>,
    /// The proposals whose certificate is not sent: their contract ended before the pass.
    pub withheld: Vec<String>,
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
    /// Who answers for the person's data, printed with the notice of a shop sale's terms.
    pub privacy_contacts: crate::privacy::notice::PrivacyContacts,
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
        let kind = DeliveredDocument::Certificate;
        let accepted_at =
            self.store
                .accepted_at(detail.proposal.id, kind)
                .await?
                .ok_or(CertificateError::NotAccepted {
                    status: detail.proposal.status,
                })?;
        // The certificate of the contract's current term (a renewal's is its own).
        let term = detail.term.map_or(1, |t| t.sequence);
        let issued = self.issue(&detail, kind, term, accepted_at).await?;
        if detail.proposal.status != ProposalStatus::Cancelled {
            return Ok(issued);
        }
        // Ended: the certificate as issued, stamped with its end on every page (rendered at each
        // read from the same facts; the issued one stays stored as it was sent).
        let Some(ended) = self.store.ended(detail.proposal.id).await? else {
            return Ok(issued);
        };
        let cover = self
            .store
            .cover(detail.proposal.product_id, detail.proposal.partner_document.clone())
            .await??;
        let document =
            PrintedDocument::certificate(&detail, &cover, accepted_at).ended_certificate(&ended, &issued.sha256);
        let pdf = self.renderer.render(&document)?;
        Ok(IssuedCertificate {
            sha256: hex::encode(Sha256::digest(&pdf)),
            pdf,
            issued_at: issued.issued_at,
            template: Some(Template::Certificate.stamp()),
        })
    }

    /// The stored document, or one issued now and stored (the first stored wins): the
    /// certificate, or the proposal's terms as the contract the customer agreed to by paying.
    async fn issue(
        &self,
        detail: &ProposalDetail,
        kind: DeliveredDocument,
        term: u32,
        due_at: DateTime<Utc>,
    ) -> Result<IssuedCertificate, CertificateError> {
        if let Some(issued) = self.store.issued(detail.proposal.id, kind, term).await? {
            return Ok(issued);
        }
        let template = match kind {
            DeliveredDocument::Certificate => Template::Certificate,
            DeliveredDocument::Terms => Template::Proposal,
        };
        let document = match kind {
            DeliveredDocument::Certificate => {
                let cover = self
                    .store
                    .cover(detail.proposal.product_id, detail.proposal.partner_document.clone())
                    .await??;
                PrintedDocument::certificate(detail, &cover, due_at)
            }
            DeliveredDocument::Terms => {
                let terms = self
                    .proposals
                    .product_terms(detail.proposal.product_id, detail.proposal.partner_document.clone())
                    .await?;
                PrintedDocument::contract(detail, &terms, Stage::ForSignature)
                    .naming_who_answers(&self.privacy_contacts)
            }
        };
        let pdf = self.renderer.render(&document)?;
        let issued = IssuedCertificate {
            sha256: hex::encode(Sha256::digest(&pdf)),
            pdf,
            issued_at: self.clock.now(),
            template: Some(template.stamp()),
        };
        Ok(self.store.store_issued(detail.proposal.id, kind, term, &issued).await?)
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
                Ok(Delivery::Sent) => pass.delivered.push(certificate.identifier),
                Ok(Delivery::Withheld) => pass.withheld.push(certificate.identifier),
                Err(error) => {
                    tracing::warn!(identifier = %certificate.identifier, %error, "certificate not delivered: retried later");
                    pass.failed.push(certificate.identifier);
                }
            }
        }
        Ok(pass)
    }

    async fn deliver(&self, due: &DueCertificate) -> Result<Delivery, CertificateError> {
        let detail = self
            .proposals
            .detail(&due.identifier, Scope::Everything)
            .await?
            .ok_or(CertificateError::NotFound)?;
        // A certificate proves cover: one whose contract ended before it was sent would tell the
        // customer of a contract that no longer exists (it stays served, stamped as ended).
        let status = detail.proposal.status;
        if due.kind == DeliveredDocument::Certificate && status != ProposalStatus::Approved {
            let why = format!("contrato {} antes do envio", status.as_str());
            self.store
                .withhold(due.proposal_id, due.kind, due.term, &why, self.clock.now())
                .await?;
            tracing::info!(identifier = %due.identifier, %why, "certificate withheld: its contract is no longer in force");
            return Ok(Delivery::Withheld);
        }
        let issued = self.issue(&detail, due.kind, due.term, due.accepted_at).await?;
        let person = &detail.customer.person;
        let Some(to) = person.email.as_deref().and_then(|e| Email::parse(e).ok()) else {
            // Nowhere to send it: recorded as delivered to no one, so that the pass does not
            // take it again; the seller hands it over.
            tracing::warn!(identifier = %due.identifier, kind = due.kind.as_str(), "customer without a usable e-mail: document not mailed");
            self.store
                .record_delivery(
                    due.proposal_id,
                    due.kind,
                    due.term,
                    "",
                    &issued.sha256,
                    self.clock.now(),
                )
                .await?;
            return Ok(Delivery::Sent);
        };
        let address = to.as_str().to_owned();
        let notice = CertificateNotice {
            customer_name: person.social_name.clone().unwrap_or_else(|| person.full_name.clone()),
            identifier: detail.proposal.identifier.clone(),
            product: detail.product_name.clone(),
            sha256: issued.sha256.clone(),
            pdf: issued.pdf.clone(),
        };
        let kind = match due.kind {
            DeliveredDocument::Certificate => MailKind::Certificate(notice),
            DeliveredDocument::Terms => MailKind::Terms {
                notice,
                regret_until: crate::contract::formats::date(crate::proposals::withdrawal::last_day(due.accepted_at)),
            },
        };
        self.mail.send(MailMessage { to, kind }).await?;
        self.store
            .record_delivery(
                due.proposal_id,
                due.kind,
                due.term,
                &address,
                &issued.sha256,
                self.clock.now(),
            )
            .await?;
        tracing::info!(identifier = %due.identifier, kind = due.kind.as_str(), "document issued and mailed");
        Ok(Delivery::Sent)
    }
}

/// What became of one due document.
enum Delivery {
    /// Mailed, or recorded as handed to the seller (no usable address).
    Sent,
    /// Not sent: its contract ended first.
    Withheld,
}
