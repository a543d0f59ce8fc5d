//! `reconcile signatures`: the envelopes compared with the provider's, the open ones of finished proposals cancelled.

use super::{SigningError, SigningService};
use crate::signature::{EnvelopeState, StoredEnvelope};
use crate::values::ProposalStatus;

impl SigningService {
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
    pub(super) async fn close_envelope(&self, proposal_id: i64) -> Result<(), SigningError> {
        if let Some(envelope) = self.signatures.state(proposal_id).await?.and_then(|s| s.document_key) {
            self.provider.cancel_envelope(&envelope).await?;
        }
        Ok(())
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
