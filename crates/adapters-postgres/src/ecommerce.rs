//! E-commerce in PostgreSQL: the domain's `EcommerceStore`, and the sandbox platform's ledger.

use crate::event_outbox;
use crate::pool::{PgPool, connection, names_no_row, query_error};
use crate::schema::{
    customers, payment_events, products, proposals, sandbox_payment_objects as sandbox, setup_intents, subscriptions,
};
use async_trait::async_trait;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::access::Scope;
use domain::customers::Seller;
use domain::ecommerce::{EcommerceCustomer, EcommerceStore, PaymentEvent, PlatformSubscription, SetupIntent};
use domain::proposals::lifecycle::StatusChange;
use domain::store::StoreError;
use domain::values::Cpf;

const LIVE_SUBSCRIPTION_INDEX: &str = "subscriptions_one_live_per_customer_product";

#[derive(Clone)]
pub struct PgEcommerce {
    pool: PgPool,
}

impl PgEcommerce {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

type CustomerColumns = (
    i64,
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn to_customer(row: CustomerColumns) -> EcommerceCustomer {
    let (id, cpf, full_name, email, cell_phone, platform_id, payment_method) = row;
    EcommerceCustomer {
        id,
        cpf,
        full_name,
        email,
        cell_phone,
        platform_id,
        payment_method,
    }
}

macro_rules! customer_columns {
    () => {
        (
            customers::id,
            customers::cpf,
            customers::nome_completo,
            customers::email,
            customers::celular,
            customers::ecommerce_customer_id,
            customers::payment_method_id,
        )
    };
}

#[async_trait]
impl EcommerceStore for PgEcommerce {
    async fn customer_in_reach(&self, cpf: &Cpf, scope: Scope) -> Result<Option<EcommerceCustomer>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // The scope's own registration (the shop's for the back office: payments are the shop's),
        // reachable once it has a proposal of the scope.
        let seller = Seller::of(scope).unwrap_or(Seller::Shop);
        let mut registration = customers::table
            .filter(customers::cpf.eq(cpf.as_str()))
            .filter(customers::aplicacao_vendedor.eq(seller.application()))
            .into_boxed();
        registration = match seller.partner_id() {
            Some(partner_id) => registration.filter(customers::id_parceiro_vendedor.eq(partner_id)),
            None => registration.filter(customers::id_parceiro_vendedor.is_null()),
        };
        let row: Option<CustomerColumns> = registration
            .select(customer_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let Some(row) = row else { return Ok(None) };
        let proposals_of_it: i64 = proposals::table
            .filter(proposals::id_cliente.eq(row.0))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        Ok((proposals_of_it > 0).then(|| to_customer(row)))
    }

    async fn customer(&self, customer_id: i64) -> Result<Option<EcommerceCustomer>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<CustomerColumns> = customers::table
            .find(customer_id)
            .select(customer_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(to_customer))
    }

    async fn set_platform_customer(&self, customer_id: i64, platform_id: &str) -> Result<String, StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::update(customers::table.find(customer_id))
            .filter(customers::ecommerce_customer_id.is_null())
            .set(customers::ecommerce_customer_id.eq(platform_id))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        let stored: Option<String> = customers::table
            .find(customer_id)
            .select(customers::ecommerce_customer_id)
            .first(&mut conn)
            .await
            .map_err(query_error)?;
        stored.ok_or_else(|| StoreError::Unexpected("cliente sem id da plataforma após gravar".into()))
    }

    async fn record_setup_intent(&self, customer_id: i64, intent: &SetupIntent) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            diesel::insert_into(setup_intents::table)
                .values((
                    setup_intents::id.eq(&intent.id),
                    setup_intents::customer_id.eq(customer_id),
                    setup_intents::status.eq(&intent.status),
                ))
                .on_conflict(setup_intents::id)
                .do_update()
                .set((
                    setup_intents::status.eq(&intent.status),
                    setup_intents::updated_at.eq(diesel::dsl::now),
                ))
                .execute(conn)
                .await?;
            if let (true, Some(method)) = (intent.status == "succeeded", &intent.payment_method) {
                diesel::update(customers::table.find(customer_id))
                    .set(customers::payment_method_id.eq(method))
                    .execute(conn)
                    .await?;
            }
            Ok::<_, DieselError>(())
        })
        .await
        .map_err(query_error)
    }

    async fn product_price(&self, product_id: i64) -> Result<Option<String>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let price: Option<Option<String>> = products::table
            .find(product_id)
            .select(products::price_id)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(price.flatten())
    }

    async fn claim_subscription(
        &self,
        proposal_id: i64,
        customer_id: i64,
        product_id: i64,
    ) -> Result<Option<i64>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let claimed = diesel::insert_into(subscriptions::table)
            .values((
                subscriptions::proposal_id.eq(proposal_id),
                subscriptions::customer_id.eq(customer_id),
                subscriptions::product_id.eq(product_id),
                subscriptions::status.eq("pending"),
            ))
            .returning(subscriptions::id)
            .get_result(&mut conn)
            .await;
        match claimed {
            Ok(id) => Ok(Some(id)),
            Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info))
                if info.constraint_name() == Some(LIVE_SUBSCRIPTION_INDEX) =>
            {
                Ok(None)
            }
            Err(e) => Err(query_error(e)),
        }
    }

    async fn release_claim(&self, claim_id: i64) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::delete(subscriptions::table.find(claim_id))
            .filter(subscriptions::status.eq("pending"))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn complete_subscription(
        &self,
        claim_id: i64,
        subscription: &PlatformSubscription,
        change: Option<StatusChange>,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let proposal_id: i64 = diesel::update(subscriptions::table.find(claim_id))
                .set((
                    subscriptions::platform_id.eq(&subscription.id),
                    subscriptions::status.eq(&subscription.status),
                    subscriptions::object.eq(&subscription.object),
                    subscriptions::updated_at.eq(diesel::dsl::now),
                ))
                .returning(subscriptions::proposal_id)
                .get_result(conn)
                .await?;
            event_outbox::queue_payment(conn, proposal_id, None, &subscription.status).await?;
            if let Some(change) = &change {
                crate::status_changes::apply_change_in(conn, change).await?;
            }
            Ok::<_, DieselError>(())
        })
        .await
        .map_err(query_error)
    }

    async fn record_payment_event(&self, event: &PaymentEvent) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let kind = match event {
            PaymentEvent::SetupIntentSucceeded { .. } => "setup_intent.succeeded",
            PaymentEvent::SubscriptionChanged { .. } => "customer.subscription",
            PaymentEvent::Ignored { .. } => "ignored",
        };
        conn.transaction(async |conn| {
            let fresh = diesel::insert_into(payment_events::table)
                .values((payment_events::event_id.eq(event.id()), payment_events::kind.eq(kind)))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            if fresh == 0 {
                return Ok(false);
            }
            apply_event(conn, event).await?;
            Ok::<_, DieselError>(true)
        })
        .await
        .map_err(query_error)
    }
}

async fn apply_event(conn: &mut AsyncPgConnection, event: &PaymentEvent) -> QueryResult<()> {
    match event {
        PaymentEvent::SetupIntentSucceeded {
            setup_intent,
            platform_customer,
            payment_method,
            ..
        } => {
            diesel::update(customers::table.filter(customers::ecommerce_customer_id.eq(platform_customer)))
                .set(customers::payment_method_id.eq(payment_method))
                .execute(conn)
                .await?;
            diesel::update(setup_intents::table.find(setup_intent))
                .set((
                    setup_intents::status.eq("succeeded"),
                    setup_intents::updated_at.eq(diesel::dsl::now),
                ))
                .execute(conn)
                .await?;
        }
        PaymentEvent::SubscriptionChanged { subscription, .. } => {
            // The state before, locked, so that the event tells the change it made.
            let before: Vec<(i64, i64, String)> = subscriptions::table
                .filter(subscriptions::platform_id.eq(&subscription.id))
                .select((subscriptions::id, subscriptions::proposal_id, subscriptions::status))
                .for_update()
                .load(conn)
                .await?;
            for (id, proposal_id, previous) in before {
                diesel::update(subscriptions::table.find(id))
                    .set((
                        subscriptions::status.eq(&subscription.status),
                        subscriptions::object.eq(&subscription.object),
                        subscriptions::updated_at.eq(diesel::dsl::now),
                    ))
                    .execute(conn)
                    .await?;
                event_outbox::queue_payment(conn, proposal_id, Some(&previous), &subscription.status).await?;
            }
        }
        PaymentEvent::Ignored { .. } => {}
    }
    Ok(())
}

/// The sandbox payment platform's objects.
#[derive(Clone)]
pub struct PgSandboxLedger {
    pool: PgPool,
}

impl PgSandboxLedger {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl adapters_payment::sandbox::SandboxLedger for PgSandboxLedger {
    async fn put_once(
        &self,
        kind: &str,
        idempotency_key: &str,
        id: &str,
        object: serde_json::Value,
    ) -> Result<serde_json::Value, StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::insert_into(sandbox::table)
            .values((
                sandbox::id.eq(id),
                sandbox::kind.eq(kind),
                sandbox::idempotency_key.eq(idempotency_key),
                sandbox::object.eq(&object),
            ))
            .on_conflict((sandbox::kind, sandbox::idempotency_key))
            .do_nothing()
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        sandbox::table
            .filter(sandbox::kind.eq(kind))
            .filter(sandbox::idempotency_key.eq(idempotency_key))
            .select(sandbox::object)
            .first(&mut conn)
            .await
            .map_err(query_error)
    }

    async fn replace(&self, id: &str, object: serde_json::Value) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::update(sandbox::table.find(id))
            .set(sandbox::object.eq(object))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<serde_json::Value>, StoreError> {
        if names_no_row(id) {
            return Ok(None);
        }
        let mut conn = connection(&self.pool).await?;
        sandbox::table
            .find(id)
            .select(sandbox::object)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)
    }
}
