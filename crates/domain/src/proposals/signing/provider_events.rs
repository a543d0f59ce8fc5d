//! The signatures coming back: the provider's callbacks and the sandbox page's events, recorded once each, the last one completing the envelope.

use super::{SIGNATURE_ACTOR, SigningError, SigningService, signers};
use crate::access::Scope;
use crate::contract::evidence::{PartySignature, SignatureEvidence};
use crate::signature::{
    CallbackError, PartyEventOutcome, PartyKeys, PartyRecord, PartyRole, ProviderEvent, ProviderEventKind,
    SealedDocument,
};
use crate::values::{PartyStatus, ProposalStatus};

impl SigningService {
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
    pub(super) async fn complete(&self, request_key: &str) -> Result<(), SigningError> {
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
    pub(super) async fn complete_from_envelope(
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
    pub(super) async fn keep_provider_copy(&self, envelope_key: &str) -> Result<PartyEventOutcome, SigningError> {
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
