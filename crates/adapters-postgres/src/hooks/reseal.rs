//! Moving every stored signing secret under the current key (`sales-api hooks reseal`).

use super::PgHooks;
use crate::pool::{connection, query_error};
use crate::schema::hook_subscriptions as subs;
use crate::sealing::SecretSealer;
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::store::StoreError;
use uuid::Uuid;

/// A reseal batch fails on the database or on a secret no known key opens.
enum ResealError {
    Db(DieselError),
    Key(StoreError),
}

impl From<DieselError> for ResealError {
    fn from(e: DieselError) -> Self {
        ResealError::Db(e)
    }
}

/// What `reseal_all` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResealReport {
    /// Secrets moved under the current key.
    pub resealed: usize,
    /// Secrets already under it.
    pub current: usize,
}

impl PgHooks {
    /// Re-encrypts every stored signing secret (current and rotated-out, of every subscription,
    /// deleted ones too) under the current key, a hundred subscriptions per transaction, each row
    /// locked while it is rewritten. Fails, changing nothing of that batch, on a secret no known key
    /// opens.
    pub async fn reseal_all(&self) -> Result<ResealReport, StoreError> {
        type Row = (i64, Uuid, Vec<u8>, Option<Vec<u8>>);
        let mut report = ResealReport::default();
        let mut after = 0_i64;
        let mut conn = connection(&self.pool).await?;
        loop {
            let sealer = self.sealer.clone();
            let (last, batch) = conn
                .transaction(async |conn| {
                    let rows: Vec<Row> = subs::table
                        .filter(subs::id.gt(after))
                        .order(subs::id)
                        .limit(100)
                        .select((subs::id, subs::uuid, subs::secret_sealed, subs::previous_secret_sealed))
                        .for_update()
                        .load(conn)
                        .await?;
                    let mut batch = ResealReport::default();
                    for (id, uuid, secret, previous) in &rows {
                        let stored = 1 + usize::from(previous.is_some());
                        let secret = sealer.reseal(*uuid, secret).map_err(ResealError::Key)?;
                        let previous = match previous {
                            Some(sealed) => sealer.reseal(*uuid, sealed).map_err(ResealError::Key)?.map(Some),
                            None => None,
                        };
                        let changed = usize::from(secret.is_some()) + usize::from(previous.is_some());
                        batch.resealed += changed;
                        batch.current += stored - changed;
                        if changed == 0 {
                            continue;
                        }
                        let row = subs::table.find(id);
                        match (secret, previous) {
                            (Some(secret), Some(previous)) => {
                                diesel::update(row)
                                    .set((
                                        subs::secret_sealed.eq(secret),
                                        subs::previous_secret_sealed.eq(previous),
                                    ))
                                    .execute(conn)
                                    .await
                            }
                            (Some(secret), None) => {
                                diesel::update(row)
                                    .set(subs::secret_sealed.eq(secret))
                                    .execute(conn)
                                    .await
                            }
                            (None, Some(previous)) => {
                                diesel::update(row)
                                    .set(subs::previous_secret_sealed.eq(previous))
                                    .execute(conn)
                                    .await
                            }
                            (None, None) => Ok(0),
                        }?;
                    }
                    Ok::<_, ResealError>((rows.last().map(|r| r.0), batch))
                })
                .await
                .map_err(|e| match e {
                    ResealError::Db(e) => query_error(e),
                    ResealError::Key(e) => e,
                })?;
            report.resealed += batch.resealed;
            report.current += batch.current;
            match last {
                Some(id) => after = id,
                None => return Ok(report),
            }
        }
    }

    /// How many stored secrets are not sealed under the current key (0 after `reseal_all`).
    pub async fn secrets_under_other_keys(&self) -> Result<usize, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<(Vec<u8>, Option<Vec<u8>>)> = subs::table
            .select((subs::secret_sealed, subs::previous_secret_sealed))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        let current = Some(self.sealer.current_key_id());
        Ok(rows
            .iter()
            .flat_map(|(secret, previous)| std::iter::once(secret).chain(previous))
            .filter(|sealed| SecretSealer::sealed_with(sealed) != current)
            .count())
    }
}
