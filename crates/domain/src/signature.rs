//! Electronic signature: the four parties of a proposal, the provider port, the store port, and the
//! rule that moves a proposal when its parties sign or refuse.

use crate::proposals::lifecycle::{StatusChange, StatusEvent, TransitionError, Trigger, check};
use crate::store::StoreError;
use crate::values::{PartyStatus, ProposalStatus, ShippingType};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// Who signs a proposal, in the order the provider's envelope lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum PartyRole {
    Client,
    Association,
    Federation,
    Enterprise,
}

impl PartyRole {
    pub const ALL: [PartyRole; 4] = [
        PartyRole::Client,
        PartyRole::Association,
        PartyRole::Federation,
        PartyRole::Enterprise,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PartyRole::Client => "client",
            PartyRole::Association => "association",
            PartyRole::Federation => "federation",
            PartyRole::Enterprise => "enterprise",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == text)
    }

    /// As the sandbox page names the party.
    pub fn label(self) -> &'static str {
        match self {
            PartyRole::Client => "Cliente",
            PartyRole::Association => "Associação",
            PartyRole::Federation => "Federação",
            PartyRole::Enterprise => "Empresa",
        }
    }
}

/// A party as the provider needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    pub role: PartyRole,
    pub name: String,
    pub email: Option<String>,
    /// Digits, for SMS or WhatsApp.
    pub phone: Option<String>,
    pub document: Option<String>,
}

/// The provider's key for each party's signature request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartyKeys {
    pub client: String,
    pub association: String,
    pub federation: String,
    pub enterprise: String,
}

impl PartyKeys {
    pub fn of(&self, role: PartyRole) -> &str {
        match role {
            PartyRole::Client => &self.client,
            PartyRole::Association => &self.association,
            PartyRole::Federation => &self.federation,
            PartyRole::Enterprise => &self.enterprise,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderEventKind {
    Signed,
    Refused,
    Expired,
    /// The envelope closed (every party signed): its `request_key` is the envelope's key, and the
    /// provider's own signed copy can be fetched.
    Closed,
}

/// An inbound notification from the provider, verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderEvent {
    /// The provider's id of the notification: the same event twice changes nothing.
    pub event_id: String,
    pub request_key: String,
    pub kind: ProviderEventKind,
    pub at: DateTime<Utc>,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
    /// Where the party signed from and with what, when the provider reports it.
    pub ip: Option<String>,
    pub user_agent: Option<String>,
    /// How the provider authenticated the party, in its own word (`sms`, `whatsapp`, `api`).
    pub authentication: Option<String>,
}

/// What the provider's envelope says of one party's signature (its signers' `sign` events),
/// read when the document is complete to fill what the party's callback did not carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignerEvidence {
    pub request_key: String,
    pub authentication: Option<String>,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
}

impl SignerEvidence {
    /// The record with each detail it lacked taken from `self` (what it has is kept: the
    /// provider's callback and its envelope are the same provider's word); whether any was.
    pub fn fill(&self, record: &mut PartyRecord) -> bool {
        let mut filled = false;
        for (mine, theirs) in [
            (&mut record.authentication, &self.authentication),
            (&mut record.ip, &self.ip),
            (&mut record.user_agent, &self.user_agent),
            (&mut record.latitude, &self.latitude),
            (&mut record.longitude, &self.longitude),
        ] {
            if mine.is_none() && theirs.is_some() {
                mine.clone_from(theirs);
                filled = true;
            }
        }
        filled
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("provedor de assinatura indisponível: {0}")]
    Unavailable(String),
    #[error("provedor de assinatura recusou a operação: {0}")]
    Rejected(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallbackError {
    #[error("assinatura do callback inválida")]
    BadSignature,
    #[error("callback malformado: {0}")]
    Malformed(String),
    /// Genuine, but its event happened longer ago than the service remembers the events it has
    /// applied: a replay could not be told from a first delivery.
    #[error("callback antigo demais")]
    Stale,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SignatureProvider: Send + Sync {
    /// How documents and the evidence page name the provider.
    fn name(&self) -> &'static str;
    /// Creates the envelope with the document to be signed, closing to signatures at `deadline`
    /// (reminding the parties meanwhile, as the provider is configured); answers its key.
    async fn upload_document(
        &self,
        identifier: &str,
        pdf: &[u8],
        deadline: DateTime<Utc>,
    ) -> Result<String, ProviderError>;
    /// Adds the four signers with what they must do and how they authenticate (the client by
    /// `channel`), and opens the envelope for signing; answers each one's key.
    async fn add_signers(
        &self,
        document_key: &str,
        signers: &[Signer],
        channel: ShippingType,
    ) -> Result<PartyKeys, ProviderError>;
    /// Sends a party its link by the channel.
    async fn notify(&self, document_key: &str, request_key: &str, channel: ShippingType) -> Result<(), ProviderError>;
    /// Cancels the envelope: no party can sign it any more. Cancelling a cancelled envelope
    /// succeeds (a retried cancellation); a closed one (every party signed) is refused.
    async fn cancel_envelope(&self, document_key: &str) -> Result<(), ProviderError>;
    /// An envelope this service created for the proposal that is still open and holds its
    /// document (an attempt that died before saving its key): a send resumed looks it up before
    /// creating another. `None` where there is none, or the provider keeps no envelopes.
    async fn find_envelope(&self, identifier: &str) -> Result<Option<String>, ProviderError>;
    /// The envelope as the provider holds it now; `None` where the provider keeps no state of its
    /// envelopes (the sandbox), so that nothing can be compared.
    async fn envelope_state(&self, document_key: &str) -> Result<Option<EnvelopeState>, ProviderError>;
    /// The provider's own signed copy of the envelope's document, once it has one.
    async fn signed_copy(&self, document_key: &str) -> Result<Option<Vec<u8>>, ProviderError>;
    /// The link where the party with this request key signs.
    fn sign_url(&self, request_key: &str) -> String;
    /// What the provider's envelope records of each party's signature (Clicksign: the envelope's
    /// `sign` events); empty where the provider keeps nothing beyond its callbacks (the sandbox,
    /// whose page reports everything it knows in its own event).
    async fn signing_evidence(&self, document_key: &str) -> Result<Vec<SignerEvidence>, ProviderError>;
    /// Verifies and reads an inbound callback (`headers` lower-cased).
    fn parse_callback(&self, headers: &[(String, String)], body: &[u8]) -> Result<ProviderEvent, CallbackError>;
}

/// The document as sent for signature: its bytes, kept, and their SHA-256 (hex). What the parties
/// were shown never changes after, whatever later happens to the rows it was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedDocument {
    pub pdf: Vec<u8>,
    pub sha256: String,
}

impl SealedDocument {
    pub fn of(pdf: Vec<u8>) -> Self {
        use sha2::{Digest, Sha256};
        let sha256 = hex::encode(Sha256::digest(&pdf));
        Self { pdf, sha256 }
    }
}

/// A party's signature request as stored, with what its provider reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartyRecord {
    pub role: PartyRole,
    pub status: PartyStatus,
    pub signed_at: Option<DateTime<Utc>>,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
    pub authentication: Option<String>,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
}

/// What is stored of a proposal's signature so far: each step saved before the next, so that a
/// retried send resumes instead of creating a second envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureState {
    pub id: i64,
    pub document_key: Option<String>,
    pub keys: Option<PartyKeys>,
    pub sign_url: Option<String>,
}

/// An envelope's state at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeState {
    /// Still signable (Clicksign: `draft`, `running`).
    Open,
    /// Every party signed (`closed`).
    Closed,
    /// Nobody can sign it any more (`canceled`).
    Cancelled,
}

/// A proposal's envelope as this service stored it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEnvelope {
    pub proposal_id: i64,
    pub identifier: String,
    pub status: ProposalStatus,
    pub envelope: String,
}

/// A proposal that expired awaiting signatures, and its envelope at the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiredSignature {
    pub identifier: String,
    pub envelope: Option<String>,
    pub event: StatusEvent,
}

/// How a party's signature changed the proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartyEventOutcome {
    /// The same event was seen before: nothing changed.
    Duplicate,
    /// No party has this request key.
    UnknownKey,
    /// The proposal is finished (cancelled, say, with its envelope): a late signature or refusal
    /// changes nothing, and is remembered as seen.
    Ignored {
        status: ProposalStatus,
    },
    Recorded {
        moved_to: Option<ProposalStatus>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeStatusError {
    /// The proposal was no longer in the expected state (another change won).
    #[error("a proposta mudou de estado: agora {current}")]
    Conflict { current: ProposalStatus },
    /// An operation with an outside effect is pending on the proposal: no other move until it
    /// ends.
    #[error("outra operação está em andamento nesta proposta: {}", kind.label())]
    Busy {
        kind: crate::proposals::operations::OperationKind,
    },
    /// The operation this move was to end is no longer pending (the worker ended it first).
    #[error("a operação já foi encerrada")]
    OperationEnded,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SignatureStore: Send + Sync {
    async fn state(&self, proposal_id: i64) -> Result<Option<SignatureState>, StoreError>;
    /// Keeps the document sent for signature, once, with what it showed the customer (the
    /// privacy notice's version and digest, the terms' digest, the channel): the first seal of a
    /// proposal wins and is what every later call answers.
    async fn seal(
        &self,
        proposal_id: i64,
        document: &SealedDocument,
        shown: &crate::privacy::notice::NoticesShown,
        changed_by: &str,
    ) -> Result<SealedDocument, StoreError>;
    async fn sealed(&self, proposal_id: i64) -> Result<Option<SealedDocument>, StoreError>;
    /// Whether anonymisation deleted the proposal's documents (it never became a contract).
    async fn documents_removed(&self, proposal_id: i64) -> Result<bool, StoreError>;
    /// Keeps the signed version (the sealed document and its evidence page), once: the first wins.
    async fn keep_signed(&self, proposal_id: i64, document: &SealedDocument) -> Result<SealedDocument, StoreError>;
    async fn signed(&self, proposal_id: i64) -> Result<Option<SealedDocument>, StoreError>;
    /// Keeps the provider's own signed copy beside ours (the envelope's key names the proposal);
    /// answers whether an envelope had that key.
    async fn keep_provider_copy(&self, document_key: &str, document: &SealedDocument) -> Result<bool, StoreError>;
    /// The provider's own signed copy of a proposal's envelope, once kept.
    async fn provider_copy(&self, proposal_id: i64) -> Result<Option<SealedDocument>, StoreError>;
    async fn parties(&self, proposal_id: i64) -> Result<Vec<PartyRecord>, StoreError>;
    /// Stores what the provider's envelope told of a party beyond its callback (only where the
    /// party's record had nothing).
    async fn fill_party_evidence(&self, proposal_id: i64, party: &PartyRecord) -> Result<(), StoreError>;
    /// Keeps the envelope's key and the signing deadline it was created with.
    async fn save_document(
        &self,
        proposal_id: i64,
        document_key: &str,
        deadline: DateTime<Utc>,
        changed_by: &str,
    ) -> Result<(), StoreError>;
    async fn save_parties(
        &self,
        proposal_id: i64,
        keys: &PartyKeys,
        sign_url: &str,
        changed_by: &str,
    ) -> Result<(), StoreError>;
    /// Applies the change only if the proposal is still in `change.from`, writing its event
    /// (next sequence number) and `alterado_por`/`alterado_em` in the same transaction.
    async fn change_status(&self, change: &StatusChange) -> Result<StatusEvent, ChangeStatusError>;
    /// Counts a resend (by `changed_by`) unless `max` were already made; answers the new count,
    /// or `None` at the limit.
    async fn count_resend(&self, proposal_id: i64, max: i32, changed_by: &str) -> Result<Option<i32>, StoreError>;
    /// Records a party's signature or refusal once per event id; in the same transaction, moves
    /// the proposal as [`status_after`] says, with its event.
    async fn record_party_event(
        &self,
        event: &ProviderEvent,
        changed_by: &str,
    ) -> Result<PartyEventOutcome, StoreError>;
    async fn events(&self, proposal_id: i64) -> Result<Vec<StatusEvent>, StoreError>;
    /// Up to `limit` proposals with an envelope, after the proposal `after` (by id), with their
    /// status and envelope (the reconciliation's batches).
    async fn envelopes(&self, after: i64, limit: i64) -> Result<Vec<StoredEnvelope>, StoreError>;
    /// Moves up to `limit` proposals still awaiting signatures whose deadline is at or before
    /// `now` to `EXPIRADO`, each with its event, claiming them so that concurrent callers (other
    /// instances) take others: each expires once. Answers what expired, with its envelope.
    async fn expire_overdue(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        changed_by: &str,
    ) -> Result<Vec<ExpiredSignature>, StoreError>;
    /// The proposal identifier and role a request key belongs to (the sandbox page shows them).
    async fn party_of_key(&self, request_key: &str) -> Result<Option<(String, PartyRole, PartyStatus)>, StoreError>;
}

/// Whether a party's signature or refusal may still change anything: not once the proposal is
/// finished (a cancelled proposal's envelope is closed to signatures, whatever arrives late).
pub fn accepts_party_events(status: ProposalStatus) -> bool {
    !status.is_finished()
}

/// Where a proposal goes after its parties' statuses changed: all four signed moves an awaiting
/// proposal to analysis; a refusal cancels it; otherwise it stays.
pub fn status_after(current: ProposalStatus, statuses: &[PartyStatus]) -> Option<(ProposalStatus, Trigger)> {
    if statuses.contains(&PartyStatus::Refused)
        && check(current, ProposalStatus::Cancelled, Trigger::PartyRefused).is_ok()
    {
        return Some((ProposalStatus::Cancelled, Trigger::PartyRefused));
    }
    let all_signed = statuses.len() == PartyRole::ALL.len() && statuses.iter().all(|s| *s == PartyStatus::Signed);
    (all_signed && check(current, ProposalStatus::InAnalysis, Trigger::AllPartiesSigned).is_ok())
        .then_some((ProposalStatus::InAnalysis, Trigger::AllPartiesSigned))
}

/// A refused move, for the callers that need one.
pub fn refused(from: ProposalStatus, to: ProposalStatus) -> TransitionError {
    TransitionError { from, to }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PartyStatus::{Pending as PENDING, Refused as REFUSED, Signed as SIGNED};

    #[test]
    fn the_fourth_signature_moves_an_awaiting_proposal_to_analysis() {
        let three = [SIGNED, SIGNED, SIGNED, PENDING];
        assert_eq!(status_after(ProposalStatus::AwaitingSignature, &three), None);
        let four = [SIGNED; 4];
        assert_eq!(
            status_after(ProposalStatus::AwaitingSignature, &four),
            Some((ProposalStatus::InAnalysis, Trigger::AllPartiesSigned))
        );
        assert_eq!(
            status_after(ProposalStatus::Cancelled, &four),
            None,
            "a cancelled proposal stays so"
        );
    }

    #[test]
    fn a_refusal_cancels_unless_already_finished() {
        let refused = [SIGNED, REFUSED, PENDING, PENDING];
        assert_eq!(
            status_after(ProposalStatus::AwaitingSignature, &refused),
            Some((ProposalStatus::Cancelled, Trigger::PartyRefused))
        );
        assert_eq!(status_after(ProposalStatus::Approved, &refused), None);
    }

    #[test]
    fn roles_round_trip() {
        for role in PartyRole::ALL {
            assert_eq!(PartyRole::parse(role.as_str()), Some(role));
        }
    }
}
