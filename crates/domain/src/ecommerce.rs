//! E-commerce on the payment platform (routes 14 to 16): the platform customer, a SetupIntent for
//! off-session card use, and the recurring subscription that commits the sale, collected at the
//! sale or held until the acceptance as the product says (the `collection` module).

pub mod collection;

use crate::premium_collection::{HELD_STATUS, PremiumCollection};

use crate::access::{AccessError, Operation, Scope, ScopeError, authorize, scope_of};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::proposals::lifecycle::{StatusChange, Trigger, check};
use crate::proposals::model::Flow;
use crate::proposals::operations::{
    ClaimError, NewOperation, OperationClaims, OperationFinisher, OperationId, OperationKind, PendingOperation,
    RecoveryOutcome, end_failed,
};
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::signature::ChangeStatusError;
use crate::store::StoreError;
use crate::values::{Cpf, ProposalStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::fmt;
use std::sync::Arc;

/// A customer as the payment routes need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EcommerceCustomer {
    pub id: i64,
    pub cpf: String,
    pub full_name: String,
    pub email: Option<String>,
    pub cell_phone: Option<String>,
    pub platform_id: Option<String>,
    pub payment_method: Option<String>,
}

/// A SetupIntent; its client secret is a credential of the buyer's browser: never logged or stored.
#[derive(Clone, PartialEq, Eq)]
pub struct SetupIntent {
    pub id: String,
    pub client_secret: String,
    pub status: String,
    /// Set when the intent already succeeded (the sandbox's test card does at once).
    pub payment_method: Option<String>,
}

impl fmt::Debug for SetupIntent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetupIntent")
            .field("id", &self.id)
            .field("client_secret", &"***")
            .field("status", &self.status)
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionRequest {
    pub platform_customer: String,
    pub price_id: String,
    pub payment_method: String,
    /// Derived from the proposal and the payment method: a retried call never charges twice.
    pub idempotency_key: String,
    pub proposal_identifier: String,
    /// Set when the product collects only at acceptance: the platform holds the subscription
    /// uncollected (a trial) until this instant, or until [`PaymentGateway::end_hold`].
    pub hold_until: Option<DateTime<Utc>>,
}

/// What route 16 sells of a product: its price at the platform and when it is collected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductOffer {
    pub price_id: String,
    pub collection: PremiumCollection,
}

/// The platform's subscription: the few typed fields used here, and its whole JSON, passed through.
#[derive(Debug, Clone, PartialEq)]
pub struct PlatformSubscription {
    pub id: String,
    /// As the platform writes it: `incomplete`, `active`, `past_due`, `unpaid`, `canceled`, …
    pub status: String,
    /// The end of the period paid for (the platform's `current_period_end`).
    pub current_period_end: Option<DateTime<Utc>>,
    /// The status of the subscription's latest invoice (`paid`, `open`, `void`, …), when the
    /// platform answered it.
    pub latest_invoice_status: Option<String>,
    /// The latest invoice when the platform answered it paid (read with the subscription): the
    /// ledger enters it as due and received.
    pub latest_paid_invoice: Option<PaidInvoice>,
    pub object: serde_json::Value,
}

/// An invoice of a subscription the customer paid: what a withdrawal, a refusal or a cancellation
/// refunds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidInvoice {
    pub invoice_id: String,
    /// In cents.
    pub amount: i64,
    /// The platform's payment of it (a PaymentIntent), which a refund names.
    pub payment_intent: String,
    /// When it was paid, as the platform tells it.
    pub paid_at: Option<DateTime<Utc>>,
    /// The period of cover it paid (its subscription line's `[start, end)`).
    pub period: Option<(DateTime<Utc>, DateTime<Utc>)>,
}

/// A refund made on the platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    pub id: String,
    pub invoice_id: String,
    /// In cents.
    pub amount: i64,
    /// As the platform writes it (`succeeded`, `pending`, …).
    pub status: String,
}

/// A subscription as this service stored it, beside the platform's state it is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSubscription {
    pub platform_id: String,
    pub proposal_identifier: String,
    pub status: String,
    pub current_period_end: Option<DateTime<Utc>>,
    pub latest_invoice_status: Option<String>,
}

impl StoredSubscription {
    /// Whether the platform's state differs from the stored one in anything shown or acted on.
    pub fn differs_from(&self, platform: &PlatformSubscription) -> bool {
        self.status != platform.status
            || self.latest_invoice_status != platform.latest_invoice_status
            || self.current_period_end != platform.current_period_end
    }
}

/// One subscription whose stored state was not the platform's.
#[derive(Debug, Clone, PartialEq)]
pub struct Drift {
    pub stored: StoredSubscription,
    /// `None`: the platform no longer knows the subscription (left as stored, reported).
    pub platform: Option<PlatformSubscription>,
}

/// What `reconcile payments` found and did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReconcileReport {
    pub checked: u64,
    pub drifted: Vec<Drift>,
    pub mended: u64,
    /// Refunds the platform holds that this service never recorded (made outside a withdrawal,
    /// or by one whose record was lost): reported, never mended, since a refund is recorded under
    /// the customer's request that asked for it.
    pub unrecorded_refunds: Vec<UnrecordedRefund>,
}

/// A refund at the platform with no record here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnrecordedRefund {
    pub subscription: String,
    pub proposal_identifier: String,
    pub refund: Refund,
}

impl ReconcileReport {
    /// Whether anything differs from the platform.
    pub fn differs(&self) -> bool {
        !self.drifted.is_empty() || !self.unrecorded_refunds.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum PaymentEvent {
    SetupIntentSucceeded {
        event_id: String,
        setup_intent: String,
        platform_customer: String,
        payment_method: String,
    },
    /// A subscription's event (`customer.subscription.created/updated/deleted`) or one of its
    /// invoices' (`invoice.paid`, `invoice.payment_failed`). Events arrive in any order, so what it
    /// says is not stored: the subscription is read from the platform and its state is.
    SubscriptionTouched {
        event_id: String,
        kind: String,
        subscription_id: String,
    },
    /// Kinds this service does not act on: acknowledged.
    Ignored { event_id: String, kind: String },
}

impl PaymentEvent {
    pub fn id(&self) -> &str {
        match self {
            PaymentEvent::SetupIntentSucceeded { event_id, .. }
            | PaymentEvent::SubscriptionTouched { event_id, .. }
            | PaymentEvent::Ignored { event_id, .. } => event_id,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaymentError {
    /// A business answer: the card was refused.
    #[error("pagamento recusado: {0}")]
    Declined(String),
    #[error("requisição recusada pela plataforma de pagamento: {0}")]
    Invalid(String),
    #[error("plataforma de pagamento limitando requisições")]
    RateLimited,
    #[error("plataforma de pagamento indisponível: {0}")]
    Unavailable(String),
    #[error("plataforma de pagamento não respondeu a tempo")]
    Timeout,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaymentEventError {
    #[error("assinatura do evento inválida")]
    BadSignature,
    #[error("evento fora da tolerância de tempo")]
    Stale,
    #[error("evento malformado: {0}")]
    Malformed(String),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PaymentGateway: Send + Sync {
    /// Creates the platform customer (the idempotency key makes a retry answer the same one).
    async fn ensure_customer(
        &self,
        customer: &EcommerceCustomer,
        idempotency_key: &str,
    ) -> Result<String, PaymentError>;
    async fn create_setup_intent(
        &self,
        platform_customer: &str,
        idempotency_key: &str,
    ) -> Result<SetupIntent, PaymentError>;
    async fn create_subscription(&self, request: &SubscriptionRequest) -> Result<PlatformSubscription, PaymentError>;
    /// Ends the hold of a subscription created held ([`SubscriptionRequest::hold_until`]): the
    /// platform charges its first invoice now (a refused card leaves it `past_due`, in the
    /// platform's dunning). The key makes a retry answer the first answer; a subscription no
    /// longer held is answered as it is.
    async fn end_hold(
        &self,
        subscription_id: &str,
        idempotency_key: &str,
    ) -> Result<PlatformSubscription, PaymentError>;
    /// Erases the person from the platform's customer (name, e-mail, phone, description and
    /// metadata emptied), keeping the customer and its payments (anonymisation).
    async fn redact_customer(&self, platform_customer: &str) -> Result<(), PaymentError>;
    /// The subscription as the platform holds it now (its latest invoice read with it); `None`
    /// when the platform knows no subscription by this id.
    async fn subscription(&self, id: &str) -> Result<Option<PlatformSubscription>, PaymentError>;
    /// Cancels the subscription at once (no further charge); an already cancelled one is answered
    /// as it is.
    async fn cancel_subscription(&self, id: &str) -> Result<PlatformSubscription, PaymentError>;
    /// The subscription's invoices the customer paid.
    async fn paid_invoices(&self, subscription_id: &str) -> Result<Vec<PaidInvoice>, PaymentError>;
    /// Refunds `amount` cents (at most what it charged) of the invoice's payment. The key makes a
    /// retry answer the refund made the first time instead of refunding twice. A refusal is
    /// `Declined` with the platform's reason.
    async fn refund(&self, invoice: &PaidInvoice, amount: i64, idempotency_key: &str) -> Result<Refund, PaymentError>;
    /// The refunds the platform holds of the invoice's payment, whoever made them (the
    /// reconciliation compares them with the refunds recorded).
    async fn refunds(&self, invoice: &PaidInvoice) -> Result<Vec<Refund>, PaymentError>;
    /// Verifies an inbound event (`headers` lower-cased) and reads it.
    async fn verify_event(
        &self,
        headers: &[(String, String)],
        body: &[u8],
        now: DateTime<Utc>,
    ) -> Result<PaymentEvent, PaymentEventError>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait EcommerceStore: Send + Sync {
    /// The customer with this CPF if the scope may reach it (the shop: customers of its e-commerce proposals).
    async fn customer_in_reach(&self, cpf: &Cpf, scope: Scope) -> Result<Option<EcommerceCustomer>, StoreError>;
    async fn customer(&self, customer_id: i64) -> Result<Option<EcommerceCustomer>, StoreError>;
    /// Stores the platform id unless one is stored already; answers the stored one (first wins).
    async fn set_platform_customer(&self, customer_id: i64, platform_id: &str) -> Result<String, StoreError>;
    /// Records a SetupIntent (never its secret); a succeeded one saves the payment method.
    async fn record_setup_intent(&self, customer_id: i64, intent: &SetupIntent) -> Result<(), StoreError>;
    /// The product's price at the platform and when it is collected; `None` without a price.
    async fn product_offer(&self, product_id: i64) -> Result<Option<ProductOffer>, StoreError>;
    /// Claims the one live subscription of the customer and product; `None` when one exists.
    async fn claim_subscription(
        &self,
        proposal_id: i64,
        customer_id: i64,
        product_id: i64,
    ) -> Result<Option<i64>, StoreError>;
    async fn release_claim(&self, claim_id: i64) -> Result<(), StoreError>;
    /// Stores the platform's answer and, in the same transaction, applies the status change and
    /// ends the operation (`OperationEnded` when the worker ended it first: nothing is stored).
    async fn complete_subscription(
        &self,
        claim_id: i64,
        subscription: &PlatformSubscription,
        change: Option<StatusChange>,
        operation: OperationId,
        at: DateTime<Utc>,
    ) -> Result<(), ChangeStatusError>;
    /// The proposal's claimed subscription that no platform answer completed yet (a request that
    /// died after its claim), if any.
    async fn pending_claim(&self, proposal_id: i64) -> Result<Option<i64>, StoreError>;
    /// Whether an event with this id was applied before (a repeated delivery costs no platform call).
    async fn payment_event_seen(&self, event_id: &str) -> Result<bool, StoreError>;
    /// Applies an inbound event once per id, with the platform's state of the subscription it
    /// concerns when it concerns one (read at `read_at`); answers false for one seen before.
    async fn record_payment_event(
        &self,
        event: &PaymentEvent,
        platform: Option<PlatformSubscription>,
        read_at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// Stores the platform's state of a subscription read at `read_at`, unless a state read later
    /// is stored already (two events' reads may finish in either order); answers whether it
    /// changed anything. The history and partners' `PAGAMENTO_ALTERADO` follow from the change.
    async fn store_platform_state(
        &self,
        platform: &PlatformSubscription,
        read_at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// The ids of the refunds recorded for the proposal of the subscription with this platform id.
    async fn recorded_refunds(&self, platform_subscription: &str) -> Result<Vec<String>, StoreError>;
    /// Up to `limit` stored subscriptions known to the platform, after the one with this platform
    /// id (in platform id order; `None` from the first).
    async fn stored_subscriptions(
        &self,
        after: Option<String>,
        limit: i64,
    ) -> Result<Vec<StoredSubscription>, StoreError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EcommerceError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("cliente não encontrado")]
    CustomerNotFound,
    #[error("proposta não encontrada para o identificador informado")]
    ProposalNotFound,
    #[error("cliente sem cadastro na plataforma de pagamento")]
    MissingPlatformCustomer,
    #[error("cliente sem forma de pagamento salva")]
    MissingPaymentMethod,
    #[error("produto sem preço na plataforma de pagamento")]
    MissingPrice,
    #[error("assinatura já ativa para o cliente e produto")]
    AlreadyActive,
    #[error("a proposta está {status}: a assinatura só é criada para proposta NOVO")]
    NotNew { status: ProposalStatus },
    #[error("outra operação está em andamento nesta proposta: {}", kind.label())]
    OperationInProgress { kind: OperationKind },
    #[error(transparent)]
    Payment(#[from] PaymentError),
    #[error(transparent)]
    Event(#[from] PaymentEventError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<ScopeError> for EcommerceError {
    fn from(e: ScopeError) -> Self {
        match e {
            ScopeError::Access(a) => EcommerceError::Access(a),
            ScopeError::Store(s) => EcommerceError::Store(s),
        }
    }
}

#[derive(Clone)]
pub struct EcommerceService {
    pub store: Arc<dyn EcommerceStore>,
    pub proposals: Arc<dyn ProposalStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub gateway: Arc<dyn PaymentGateway>,
    pub claims: Arc<dyn OperationClaims>,
    pub clock: Arc<dyn Clock>,
}

/// The subscription's idempotency key: one per proposal and payment method, so that no two
/// operations on a proposal, nor a request and the worker finishing it, create two.
fn subscription_key(proposal_id: i64, payment_method: &str) -> String {
    format!("subscription-{proposal_id}-{payment_method}")
}

#[async_trait]
impl OperationFinisher for EcommerceService {
    fn kinds(&self) -> &'static [OperationKind] {
        &[OperationKind::Subscription]
    }

    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        self.finish_subscription(operation).await
    }
}

impl EcommerceService {
    async fn customer_by_cpf(&self, principal: &Principal, cpf: &Cpf) -> Result<EcommerceCustomer, EcommerceError> {
        authorize(principal, Operation::EcommercePayments)?;
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        self.store
            .customer_in_reach(cpf, scope)
            .await?
            .ok_or(EcommerceError::CustomerNotFound)
    }

    /// Route 14: creates the platform customer once; called again, answers the stored id.
    #[tracing::instrument(skip_all)]
    pub async fn create_customer(&self, principal: &Principal, cpf: &Cpf) -> Result<String, EcommerceError> {
        let customer = self.customer_by_cpf(principal, cpf).await?;
        if let Some(existing) = customer.platform_id {
            return Ok(existing);
        }
        let created = self
            .gateway
            .ensure_customer(&customer, &format!("customer-{}", customer.id))
            .await?;
        Ok(self.store.set_platform_customer(customer.id, &created).await?)
    }

    /// Route 15: a SetupIntent for off-session card use.
    #[tracing::instrument(skip_all)]
    pub async fn create_setup_intent(&self, principal: &Principal, cpf: &Cpf) -> Result<SetupIntent, EcommerceError> {
        let customer = self.customer_by_cpf(principal, cpf).await?;
        let platform = customer.platform_id.ok_or(EcommerceError::MissingPlatformCustomer)?;
        // Each call is a new intent: a fresh key.
        let key = format!("setup-intent-{}-{}", customer.id, uuid::Uuid::new_v4());
        let intent = self.gateway.create_setup_intent(&platform, &key).await?;
        self.store.record_setup_intent(customer.id, &intent).await?;
        Ok(intent)
    }

    /// Route 16: the recurring subscription. One live subscription per customer and product holds
    /// under concurrency (a claimed row behind a partial unique index, and an idempotency key from
    /// the proposal); an active subscription moves a `NOVO` proposal to `EM ANÁLISE`.
    #[tracing::instrument(skip_all)]
    pub async fn create_subscription(
        &self,
        principal: &Principal,
        identifier: &str,
    ) -> Result<PlatformSubscription, EcommerceError> {
        authorize(principal, Operation::EcommercePayments)?;
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        let detail = self
            .proposals
            .detail(identifier, scope)
            .await?
            .ok_or(EcommerceError::ProposalNotFound)?;
        let proposal = &detail.proposal;
        // The shop's own proposal (the scope already holds it to the shop's flow).
        if proposal.flow != Flow::Ecommerce {
            return Err(EcommerceError::ProposalNotFound);
        }
        let customer = self
            .store
            .customer(proposal.customer_id)
            .await?
            .ok_or(EcommerceError::CustomerNotFound)?;
        let platform_customer = customer.platform_id.ok_or(EcommerceError::MissingPlatformCustomer)?;
        let payment_method = customer.payment_method.ok_or(EcommerceError::MissingPaymentMethod)?;
        let offer = self
            .store
            .product_offer(proposal.product_id)
            .await?
            .ok_or(EcommerceError::MissingPrice)?;
        // Only a new proposal is paid for: one sent for signature, in analysis or closed is not
        // (a live subscription is answered as such).
        if proposal.status != ProposalStatus::New {
            return match self
                .store
                .claim_subscription(proposal.id, customer.id, proposal.product_id)
                .await?
            {
                Some(claim) => {
                    self.store.release_claim(claim).await?;
                    Err(EcommerceError::NotNew {
                        status: proposal.status,
                    })
                }
                None => Err(EcommerceError::AlreadyActive),
            };
        }
        // The proposal's claim first: while the subscription is being created, nothing else
        // (a cancellation, another subscription) touches the proposal.
        let operation = NewOperation {
            id: OperationId::new(),
            proposal_id: proposal.id,
            kind: OperationKind::Subscription,
            expected: ProposalStatus::New,
            requested_by: principal.email.clone(),
            reason: None,
            reason_category: None,
            target: None,
            at: self.clock.now(),
        };
        match self.claims.claim(&operation).await {
            Ok(()) => {}
            Err(ClaimError::Moved { current }) => return Err(EcommerceError::NotNew { status: current }),
            // Another request is creating this proposal's subscription: answered as the one it
            // creates (decision 158).
            Err(ClaimError::InProgress {
                kind: OperationKind::Subscription,
            }) => return Err(EcommerceError::AlreadyActive),
            Err(ClaimError::InProgress { kind }) => return Err(EcommerceError::OperationInProgress { kind }),
            Err(ClaimError::Store(e)) => return Err(e.into()),
        }
        let claim = match self
            .store
            .claim_subscription(proposal.id, customer.id, proposal.product_id)
            .await
        {
            Ok(Some(claim)) => claim,
            Ok(None) => {
                self.end_failed(operation.id, "assinatura já ativa para o cliente e o produto")
                    .await;
                return Err(EcommerceError::AlreadyActive);
            }
            Err(e) => {
                self.end_failed(operation.id, "armazenamento indisponível").await;
                return Err(e.into());
            }
        };
        let request = SubscriptionRequest {
            platform_customer,
            price_id: offer.price_id,
            idempotency_key: subscription_key(proposal.id, &payment_method),
            payment_method,
            proposal_identifier: proposal.identifier.clone(),
            hold_until: offer.collection.hold_until(operation.at),
        };
        let subscription = match self.gateway.create_subscription(&request).await {
            Ok(subscription) => subscription,
            Err(error) => {
                // Nothing was created: end the operation, then free the subscription's claim, so
                // that a later call may try again. In this order a store failing in between
                // leaves no pending operation for the worker to finish (it would ask the platform
                // again for a subscription the caller was told failed).
                self.end_failed(operation.id, &error.to_string()).await;
                self.store.release_claim(claim).await?;
                return Err(error.into());
            }
        };
        self.complete(proposal.id, claim, &subscription, operation.id, &principal.email)
            .await?;
        tracing::info!(subscription = %subscription.id, status = %subscription.status, "subscription created");
        Ok(subscription)
    }

    /// Stores the platform's subscription, moves an active (paid) or held one's `NOVO` proposal
    /// to `EM ANÁLISE` and ends the operation, in one transaction.
    async fn complete(
        &self,
        proposal_id: i64,
        claim: i64,
        subscription: &PlatformSubscription,
        operation: OperationId,
        by: &str,
    ) -> Result<(), EcommerceError> {
        let now = self.clock.now();
        // Claimed in `NOVO`, and nothing moved it since: the claim holds every move off.
        let committed = subscription.status == "active" || subscription.status == HELD_STATUS;
        let change = (committed
            && check(
                ProposalStatus::New,
                ProposalStatus::InAnalysis,
                Trigger::SubscriptionActive,
            )
            .is_ok())
        .then(|| StatusChange {
            proposal_id,
            from: ProposalStatus::New,
            to: ProposalStatus::InAnalysis,
            changed_by: by.to_owned(),
            reason_category: None,
            reason: Some(if subscription.status == HELD_STATUS {
                format!("assinatura {} registrada, cobrada na aceitação", subscription.id)
            } else {
                format!("assinatura {} ativa", subscription.id)
            }),
            at: now,
            operation: Some(operation),
        });
        match self
            .store
            .complete_subscription(claim, subscription, change, operation, now)
            .await
        {
            Ok(()) => Ok(()),
            Err(ChangeStatusError::Store(e)) => Err(e.into()),
            Err(ChangeStatusError::Busy { kind }) => Err(EcommerceError::OperationInProgress { kind }),
            Err(ChangeStatusError::OperationEnded) => Err(EcommerceError::OperationInProgress {
                kind: OperationKind::Subscription,
            }),
            Err(ChangeStatusError::Conflict { current }) => Err(EcommerceError::NotNew { status: current }),
        }
    }

    async fn end_failed(&self, operation: OperationId, why: &str) {
        end_failed(self.claims.as_ref(), operation, why, self.clock.now()).await;
    }

    /// The worker's end of a subscription whose request died after its claim: the platform is
    /// asked again with the same key (it answers the subscription it created, or creates it now),
    /// and the answer recorded as the request would have; with no claimed subscription (the
    /// request died before it), the operation ends as failed.
    pub async fn finish_subscription(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        let claim = self
            .store
            .pending_claim(operation.proposal_id)
            .await
            .map_err(|e| e.to_string())?;
        let detail = self
            .proposals
            .detail(&operation.identifier, Scope::Everything)
            .await
            .map_err(|e| e.to_string())?;
        let (Some(claim), Some(detail)) = (claim, detail) else {
            self.claims
                .fail(operation.id, "nenhuma assinatura reivindicada", self.clock.now())
                .await
                .map_err(|e| e.to_string())?;
            return Ok(RecoveryOutcome::Failed);
        };
        let customer = self
            .store
            .customer(detail.proposal.customer_id)
            .await
            .map_err(|e| e.to_string())?;
        let offer = self
            .store
            .product_offer(detail.proposal.product_id)
            .await
            .map_err(|e| e.to_string())?;
        let (Some(customer), Some(offer)) = (customer, offer) else {
            return self
                .give_up_subscription(operation, claim, "cliente ou preço ausente")
                .await;
        };
        let (Some(platform_customer), Some(payment_method)) = (customer.platform_id, customer.payment_method) else {
            return self
                .give_up_subscription(operation, claim, "cliente sem plataforma ou forma de pagamento")
                .await;
        };
        let request = SubscriptionRequest {
            platform_customer,
            price_id: offer.price_id,
            idempotency_key: subscription_key(operation.proposal_id, &payment_method),
            payment_method,
            proposal_identifier: operation.identifier.clone(),
            // From the claim's instant: the platform answers the same key with what it made.
            hold_until: offer.collection.hold_until(operation.started_at),
        };
        let subscription = match self.gateway.create_subscription(&request).await {
            Ok(subscription) => subscription,
            Err(PaymentError::Declined(reason) | PaymentError::Invalid(reason)) => {
                return self.give_up_subscription(operation, claim, &reason).await;
            }
            Err(error) => return Err(error.to_string()),
        };
        self.complete(
            operation.proposal_id,
            claim,
            &subscription,
            operation.id,
            &operation.requested_by,
        )
        .await
        .map_err(|e| e.to_string())?;
        Ok(RecoveryOutcome::Finished)
    }

    async fn give_up_subscription(
        &self,
        operation: &PendingOperation,
        claim: i64,
        why: &str,
    ) -> Result<RecoveryOutcome, String> {
        self.store.release_claim(claim).await.map_err(|e| e.to_string())?;
        self.claims
            .fail(operation.id, why, self.clock.now())
            .await
            .map_err(|e| e.to_string())?;
        Ok(RecoveryOutcome::Failed)
    }

    /// Inbound platform events, verified and applied once. An event about a subscription is not
    /// believed as it arrives (the platform sends them in any order, and again): the subscription is
    /// read from the platform and its state stored. A platform that cannot be read leaves the event
    /// unrecorded, so that the platform's retry applies it.
    pub async fn platform_event(&self, headers: &[(String, String)], body: &[u8]) -> Result<bool, EcommerceError> {
        let event = self.gateway.verify_event(headers, body, self.clock.now()).await?;
        if self.store.payment_event_seen(event.id()).await? {
            return Ok(false);
        }
        let read_at = self.clock.now();
        let platform = match &event {
            PaymentEvent::SubscriptionTouched {
                kind, subscription_id, ..
            } => {
                let read = self.gateway.subscription(subscription_id).await?;
                let status = read.as_ref().map_or("desconhecida", |s| s.status.as_str());
                tracing::info!(%kind, subscription = %subscription_id, status, "subscription read from the platform");
                read
            }
            _ => None,
        };
        Ok(self.store.record_payment_event(&event, platform, read_at).await?)
    }

    /// Every refund the platform holds of the subscription's paid invoices that is not recorded.
    async fn compare_refunds(
        &self,
        stored: &StoredSubscription,
        report: &mut ReconcileReport,
    ) -> Result<(), EcommerceError> {
        let recorded = self.store.recorded_refunds(&stored.platform_id).await?;
        for invoice in self.gateway.paid_invoices(&stored.platform_id).await? {
            for refund in self.gateway.refunds(&invoice).await? {
                if !recorded.contains(&refund.id) {
                    report.unrecorded_refunds.push(UnrecordedRefund {
                        subscription: stored.platform_id.clone(),
                        proposal_identifier: stored.proposal_identifier.clone(),
                        refund,
                    });
                }
            }
        }
        Ok(())
    }

    /// Subscriptions read in each batch of the reconciliation.
    pub const RECONCILE_BATCH: i64 = 100;

    /// `sales-api reconcile payments`: compares every stored subscription with the platform's and
    /// reports each that differs; with `mend`, stores the platform's state (with its history entry
    /// and partners' event, as an event would have). One subscription the platform cannot answer
    /// stops the run with its error: nothing is reported as true that was not read.
    pub async fn reconcile(&self, mend: bool) -> Result<ReconcileReport, EcommerceError> {
        let mut report = ReconcileReport::default();
        let mut after = None;
        loop {
            let batch = self
                .store
                .stored_subscriptions(after.clone(), Self::RECONCILE_BATCH)
                .await?;
            let Some(last) = batch.last() else { break };
            after = Some(last.platform_id.clone());
            for stored in batch {
                report.checked += 1;
                self.compare_refunds(&stored, &mut report).await?;
                let read_at = self.clock.now();
                let platform = self.gateway.subscription(&stored.platform_id).await?;
                let drifted = platform.as_ref().is_none_or(|p| stored.differs_from(p));
                if !drifted {
                    continue;
                }
                if let (true, Some(state)) = (mend, &platform)
                    && self.store.store_platform_state(state, read_at).await?
                {
                    report.mended += 1;
                }
                report.drifted.push(Drift { stored, platform });
            }
        }
        Ok(report)
    }
}

/// The bodies of routes 14 to 16 as they arrive.
pub mod bodies {
    use crate::input::{Field, Reading};
    use crate::validation::Violations;
    use crate::values::Cpf;

    crate::wire_body! {
        /// The body of routes 14 and 15: the buyer's CPF.
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[cfg_attr(
            feature = "openapi",
            schema(description = "Corpo das rotas 14 e 15: o CPF do comprador.")
        )]
        pub struct CpfBody => CpfMembers {
            #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^(\d{11}|\d{3}\.\d{3}\.\d{3}-\d{2})$", example = "52998224725"))]
            cpf: Field<String>,
        }
    }

    crate::wire_body! {
        /// Route 16's body: the e-commerce proposal to subscribe.
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[cfg_attr(
            feature = "openapi",
            schema(description = "Corpo da rota 16: a proposta de e-commerce a assinar.")
        )]
        pub struct SubscriptionBody => SubscriptionMembers {
            #[cfg_attr(feature = "openapi", schema(value_type = String, example = "4c938c72-29ae-4a6a-81f4-b5a436aceab9"))]
            identifier: Field<String>,
        }
    }

    impl CpfBody {
        pub fn read(self) -> Result<Cpf, Violations> {
            let m = self.named();
            let mut v = Violations::new();
            Reading::root(&mut v).parse(m.cpf.0, m.cpf.1, Cpf::parse).ok_or(v)
        }
    }

    impl SubscriptionBody {
        /// The proposal's identifier, trimmed and not blank.
        pub fn read(self) -> Result<String, Violations> {
            let m = self.named();
            let mut v = Violations::new();
            Reading::root(&mut v).text(m.identifier.0, m.identifier.1).ok_or(v)
        }
    }
}
