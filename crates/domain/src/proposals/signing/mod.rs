//! Sending proposals for signature (routes 12 and 13), the signatures coming back (provider
//! callbacks and the sandbox page), the back office's moves, cancellation at the customer's
//! request, and the proposal document: the service and what its use cases share here, each use case
//! in its own module (sending, status moves, deadlines, provider events, reconciliation, documents,
//! recovery).

mod deadlines;
mod documents;
mod provider_events;
mod reconciliation;
mod recovery;
mod sending;
mod status_moves;

pub use reconciliation::{EnvelopeDrift, EnvelopeReport};

use crate::access::{AccessError, Scope};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::contract::{DocumentRenderer, RenderError};
use crate::proposals::lifecycle::TransitionError;
use crate::proposals::model::ProposalDetail;
use crate::proposals::operations::{ClaimError, OperationClaims, OperationKind};
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::proposals::requests::CustomerRequestStore;
use crate::signature::{
    CallbackError, ChangeStatusError, PartyRole, ProviderError, SealedDocument, SignatureProvider, SignatureStore,
    Signer,
};
use crate::store::StoreError;
use crate::values::ProposalStatus;
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
    /// Who answers for the person's data, printed with the notice (decision 286).
    pub privacy_contacts: crate::privacy::notice::PrivacyContacts,
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

    /// Envelopes compared in each batch of the reconciliation.
    pub const RECONCILE_BATCH: i64 = 100;
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
