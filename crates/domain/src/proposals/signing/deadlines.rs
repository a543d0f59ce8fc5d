//! The signing deadlines: the proposals past theirs expire.

use super::{DEADLINE_ACTOR, EXPIRY_BATCH, SigningError, SigningService};

impl SigningService {
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
}
