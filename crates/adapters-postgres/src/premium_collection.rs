//! The shop's premium collected at acceptance (decision 271): the domain's `CollectionStore`, and
//! the product's `cobranca_premio` set by `sales-api catalog collection`. A held subscription is
//! one the platform answered `trialing`; its collection stores the platform's answer as any read
//! of it is stored (`ecommerce::store_state_in`: the paid invoice enters the ledger, partners are
//! told) and ends the claim's operation in the same transaction.

use crate::ecommerce::{premium_collection, store_state_in};
use crate::pool::{PgPool, connection, query_error};
use crate::schema::{products, proposals, subscriptions};
use crate::unit_of_work::operation_end::end_in_checked;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::Bool;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::ecommerce::PlatformSubscription;
use domain::ecommerce::collection::{CollectionStore, HELD_STATUS, HeldSubscription, PremiumCollection};
use domain::proposals::operations::OperationId;
use domain::store::StoreError;
use domain::values::ProposalStatus;

#[derive(Clone)]
pub struct PgPremiumCollection {
    pool: PgPool,
}

impl PgPremiumCollection {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    /// When the product collects its premium; `None` for an unknown product.
    pub async fn collection(&self, product_code: i32) -> Result<Option<PremiumCollection>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let stored: Option<String> = products::table
            .filter(products::codigo_produto.eq(product_code))
            .select(products::cobranca_premio)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        stored.as_deref().map(premium_collection).transpose()
    }

    /// Sets when the product collects its premium, for the subscriptions created from now on
    /// (each sale keeps what it was sold with); false for an unknown product.
    pub async fn set_collection(&self, product_code: i32, collection: PremiumCollection) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let changed = diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
            .set(products::cobranca_premio.eq(collection.as_str()))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(changed > 0)
    }
}

type HeldRow = (i64, String, String, Option<String>);

fn held(row: HeldRow) -> Result<Option<HeldSubscription>, StoreError> {
    let (proposal_id, identifier, status, platform_id) = row;
    let Some(subscription) = platform_id else {
        return Ok(None);
    };
    Ok(Some(HeldSubscription {
        proposal_id,
        identifier,
        proposal_status: ProposalStatus::from_stored(&status, "proposals", "status")?,
        subscription,
    }))
}

#[async_trait]
impl CollectionStore for PgPremiumCollection {
    async fn held_after_acceptance(&self, limit: i64) -> Result<Vec<HeldSubscription>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // The held status as a literal, not a bound parameter: it is the predicate of the partial
        // index `subscriptions_held` (migration 65), which a generic plan over a parameter could
        // not prove it may use; driven from it, the pass reads only the held subscriptions.
        let held_predicate = diesel::dsl::sql::<Bool>(&format!(
            "subscriptions.status = '{HELD_STATUS}' AND subscriptions.platform_id IS NOT NULL"
        ));
        let rows: Vec<HeldRow> = subscriptions::table
            .inner_join(proposals::table)
            .filter(held_predicate)
            .filter(proposals::status.eq(ProposalStatus::Approved.as_str()))
            .order(subscriptions::id.asc())
            .limit(limit)
            .select((
                proposals::id,
                proposals::identificador,
                proposals::status,
                subscriptions::platform_id,
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .map(held)
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect())
    }

    async fn held_of(&self, proposal_id: i64) -> Result<Option<HeldSubscription>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<HeldRow> = subscriptions::table
            .inner_join(proposals::table)
            .filter(subscriptions::proposal_id.eq(proposal_id))
            .filter(subscriptions::status.eq(HELD_STATUS))
            .filter(subscriptions::platform_id.is_not_null())
            .select((
                proposals::id,
                proposals::identificador,
                proposals::status,
                subscriptions::platform_id,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(held).transpose()?.flatten())
    }

    async fn record_collection(
        &self,
        platform: &PlatformSubscription,
        operation: OperationId,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let recorded = conn
            .transaction(async |conn| {
                if !end_in_checked(conn, operation, &format!("assinatura {} cobrada", platform.id), at).await? {
                    // The worker ended it first: nothing of this answer is stored here.
                    return Err(diesel::result::Error::RollbackTransaction);
                }
                store_state_in(conn, platform, at).await?;
                Ok::<_, diesel::result::Error>(())
            })
            .await;
        match recorded {
            Ok(()) => Ok(true),
            Err(diesel::result::Error::RollbackTransaction) => Ok(false),
            Err(e) => Err(query_error(e)),
        }
    }
}
