//! E-commerce in PostgreSQL: the domain's `EcommerceStore`, and the sandbox platform's ledger.

use crate::event_outbox;
use crate::ledger::InvoicesOf;
use crate::pool::{PgPool, connection, names_no_row, query_error};
use crate::read_model;
use crate::schema::{
    customers, payment_events, products, proposals, refunds, sandbox_payment_objects as sandbox, setup_intents,
    subscriptions,
};
use crate::unit_of_work::change_error::ChangeError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::access::Scope;
use domain::customers::Seller;
use domain::ecommerce::collection::PremiumCollection;
use domain::ecommerce::{
    EcommerceCustomer, EcommerceStore, PaymentEvent, PlatformSubscription, ProductOffer, SetupIntent,
    StoredSubscription,
};
use domain::proposals::lifecycle::StatusChange;
use domain::proposals::operations::OperationId;
use domain::signature::ChangeStatusError;
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

    async fn product_offer(&self, product_id: i64) -> Result<Option<ProductOffer>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let found: Option<(Option<String>, String)> = products::table
            .find(product_id)
            .select((products::price_id, products::cobranca_premio))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let Some((Some(price_id), collection)) = found else {
            return Ok(None);
        };
        Ok(Some(ProductOffer {
            price_id,
            collection: premium_collection(&collection)?,
        }))
    }

    async fn claim_subscription(
        &self,
        proposal_id: i64,
        customer_id: i64,
        product_id: i64,
    ) -> Result<Option<i64>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // A claim has no platform id yet: no proposal's document shows it (nor its release).
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
        operation: OperationId,
        at: DateTime<Utc>,
    ) -> Result<(), ChangeStatusError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let proposal_id: i64 = diesel::update(subscriptions::table.find(claim_id))
                .set((
                    subscriptions::platform_id.eq(&subscription.id),
                    subscriptions::status.eq(&subscription.status),
                    subscriptions::object.eq(&subscription.object),
                    subscriptions::current_period_end.eq(subscription.current_period_end),
                    subscriptions::latest_invoice_status.eq(&subscription.latest_invoice_status),
                    subscriptions::platform_read_at.eq(diesel::dsl::now),
                    subscriptions::updated_at.eq(diesel::dsl::now),
                ))
                .returning(subscriptions::proposal_id)
                .get_result(conn)
                .await?;
            event_outbox::queue_payment(conn, proposal_id, None, &subscription.status).await?;
            // The first invoice, collected with the subscription's creation, enters the ledger.
            let paid: Vec<_> = subscription.latest_paid_invoice.iter().cloned().collect();
            crate::ledger::record_card_invoices(conn, InvoicesOf::Subscription(&subscription.id), &paid, at).await?;
            match &change {
                // The move ends the operation in its transaction.
                Some(change) => {
                    crate::unit_of_work::status_change::apply_change(conn, change).await?;
                }
                None => {
                    if !crate::unit_of_work::operation_end::end_in_checked(
                        conn,
                        operation,
                        "assinatura registrada sem mudança de status",
                        at,
                    )
                    .await?
                    {
                        return Err(ChangeError::OperationEnded);
                    }
                    read_model::write_documents(conn, &[proposal_id]).await?;
                }
            }
            Ok::<_, ChangeError>(())
        })
        .await
        .map_err(ChangeStatusError::from)
    }

    async fn recorded_refunds(&self, platform_subscription: &str) -> Result<Vec<String>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        refunds::table
            .inner_join(subscriptions::table.on(subscriptions::proposal_id.eq(refunds::proposal_id)))
            .filter(subscriptions::platform_id.eq(platform_subscription))
            .select(refunds::id)
            .load(&mut conn)
            .await
            .map_err(query_error)
    }

    async fn pending_claim(&self, proposal_id: i64) -> Result<Option<i64>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        subscriptions::table
            .filter(subscriptions::proposal_id.eq(proposal_id))
            .filter(subscriptions::status.eq("pending"))
            .filter(subscriptions::platform_id.is_null())
            .select(subscriptions::id)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)
    }

    async fn payment_event_seen(&self, event_id: &str) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let seen: i64 = payment_events::table
            .filter(payment_events::event_id.eq(event_id))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(seen > 0)
    }

    async fn record_payment_event(
        &self,
        event: &PaymentEvent,
        platform: Option<PlatformSubscription>,
        read_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let kind = match event {
            PaymentEvent::SetupIntentSucceeded { .. } => "setup_intent.succeeded",
            PaymentEvent::SubscriptionTouched { kind, .. } => kind.as_str(),
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
            if let PaymentEvent::SetupIntentSucceeded {
                setup_intent,
                platform_customer,
                payment_method,
                ..
            } = event
            {
                save_payment_method(conn, setup_intent, platform_customer, payment_method).await?;
            }
            if let Some(platform) = &platform {
                store_state_in(conn, platform, read_at).await?;
            }
            Ok::<_, DieselError>(true)
        })
        .await
        .map_err(query_error)
    }

    async fn store_platform_state(
        &self,
        platform: &PlatformSubscription,
        read_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| store_state_in(conn, platform, read_at).await)
            .await
            .map_err(query_error)
    }

    async fn stored_subscriptions(
        &self,
        after: Option<String>,
        limit: i64,
    ) -> Result<Vec<StoredSubscription>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let mut query = subscriptions::table
            .inner_join(proposals::table.on(proposals::id.eq(subscriptions::proposal_id)))
            .filter(subscriptions::platform_id.is_not_null())
            .into_boxed();
        if let Some(after) = after {
            query = query.filter(subscriptions::platform_id.gt(after));
        }
        let rows: Vec<(String, String, String, Option<DateTime<Utc>>, Option<String>)> = query
            .order(subscriptions::platform_id)
            .limit(limit)
            .select((
                subscriptions::platform_id.assume_not_null(),
                proposals::identificador,
                subscriptions::status,
                subscriptions::current_period_end,
                subscriptions::latest_invoice_status,
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .map(
                |(platform_id, proposal_identifier, status, current_period_end, latest_invoice_status)| {
                    StoredSubscription {
                        platform_id,
                        proposal_identifier,
                        status,
                        current_period_end,
                        latest_invoice_status,
                    }
                },
            )
            .collect())
    }
}

async fn save_payment_method(
    conn: &mut AsyncPgConnection,
    setup_intent: &str,
    platform_customer: &str,
    payment_method: &str,
) -> QueryResult<()> {
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
    Ok(())
}

/// The stored state of a subscription before a new one is written.
type StoredState = (
    i64,
    i64,
    String,
    Option<String>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
);

/// Stores the platform's state of the subscription read at `read_at` on its rows, locked, unless
/// a later read is stored; a changed status tells partners (`PAGAMENTO_ALTERADO`), and the
/// history's trigger records a changed status or invoice status. Answers whether it changed
/// anything shown.
pub(crate) async fn store_state_in(
    conn: &mut AsyncPgConnection,
    platform: &PlatformSubscription,
    read_at: DateTime<Utc>,
) -> QueryResult<bool> {
    let before: Vec<StoredState> = subscriptions::table
        .filter(subscriptions::platform_id.eq(&platform.id))
        .select((
            subscriptions::id,
            subscriptions::proposal_id,
            subscriptions::status,
            subscriptions::latest_invoice_status,
            subscriptions::current_period_end,
            subscriptions::platform_read_at,
        ))
        .for_update()
        .load(conn)
        .await?;
    let mut changed = false;
    let mut shown_by = Vec::new();
    for (id, proposal_id, status, invoice_status, period_end, read_before) in before {
        if read_before.is_some_and(|r| r > read_at) {
            // A later read of the platform is stored: this one is older news.
            continue;
        }
        // An answer without them (the platform's answer to a cancellation does not expand the
        // invoice) does not know them: what is stored stays.
        let latest_invoice_status = platform.latest_invoice_status.clone().or(invoice_status.clone());
        let current_period_end = platform.current_period_end.or(period_end);
        let differs =
            status != platform.status || invoice_status != latest_invoice_status || period_end != current_period_end;
        diesel::update(subscriptions::table.find(id))
            .set((
                subscriptions::status.eq(&platform.status),
                subscriptions::object.eq(&platform.object),
                subscriptions::current_period_end.eq(current_period_end),
                subscriptions::latest_invoice_status.eq(&latest_invoice_status),
                subscriptions::platform_read_at.eq(read_at),
                subscriptions::updated_at.eq(diesel::dsl::now),
            ))
            .execute(conn)
            .await?;
        event_outbox::queue_payment(conn, proposal_id, Some(&status), &platform.status).await?;
        changed |= differs;
        shown_by.push(proposal_id);
    }
    // A paid invoice is a fact whatever the order of the reads: the ledger enters it once.
    let paid: Vec<_> = platform.latest_paid_invoice.iter().cloned().collect();
    for proposal_id in
        crate::ledger::record_card_invoices(conn, InvoicesOf::Subscription(&platform.id), &paid, read_at).await?
    {
        if !shown_by.contains(&proposal_id) {
            shown_by.push(proposal_id);
        }
    }
    read_model::write_documents(conn, &shown_by).await?;
    Ok(changed)
}

/// A product's stored `cobranca_premio`.
pub(crate) fn premium_collection(stored: &str) -> Result<PremiumCollection, StoreError> {
    PremiumCollection::parse(stored)
        .ok_or_else(|| domain::values::StoredValueError::new("products", "cobranca_premio", stored).into())
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
impl domain::sandbox::SandboxLedger for PgSandboxLedger {
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

    async fn replace_if(
        &self,
        id: &str,
        expected: &serde_json::Value,
        object: serde_json::Value,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let replaced = diesel::update(sandbox::table.find(id).filter(sandbox::object.eq(expected)))
            .set(sandbox::object.eq(object))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(replaced == 1)
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

    async fn find(&self, kind: &str, containing: serde_json::Value) -> Result<Vec<serde_json::Value>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        sandbox::table
            .filter(sandbox::kind.eq(kind))
            .filter(sandbox::object.contains(containing))
            .order(sandbox::created_at)
            .select(sandbox::object)
            .load(&mut conn)
            .await
            .map_err(query_error)
    }
}
