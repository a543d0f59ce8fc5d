//! The use cases of event subscriptions: routes 17 and 18 and the management routes beside them.

use super::bodies::{DELIVERIES_PER_PAGE, SUBSCRIPTIONS_PER_PAGE};
use super::endpoint::{self, Endpoint};
use super::model::{
    Delivery, DeliveryLog, DeliveryPage, HookOwner, HookPatch, HookRequest, NewSubscription, Replay, ReplayOutcome,
    ReplayRequest, ReplayWindow, Retried, Subscription, SubscriptionList, SubscriptionPage,
};
use super::ports::{EndpointGuard, EndpointRefusal, HookStore, KeyGenerator};
use super::signing::SigningSecret;
use super::{HookError, payload};
use crate::access::{Operation, authorize, scope_of};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::proposals::ports::PartnerDirectory;
use crate::validation::{Violations, codes};
use crate::values::{EventKind, HookStatus};
use chrono::{DateTime, Utc};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// The widest window `POST /hooks/:uuid/replay` sends again.
pub const MAX_REPLAY_DAYS: i64 = 7;

pub struct HookService {
    pub store: Arc<dyn HookStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub guard: Arc<dyn EndpointGuard>,
    pub keys: Arc<dyn KeyGenerator>,
    pub clock: Arc<dyn Clock>,
    /// How long a rotated-out secret keeps signing.
    pub rotation_grace: Duration,
    /// Subscriptions one owner may keep.
    pub max_subscriptions_per_owner: usize,
    /// The most deliveries one replay queues (`HOOKS_REPLAY_MAX_DELIVERIES`): a wider window is
    /// refused, naming it.
    pub max_replay_deliveries: i64,
    /// How long a test event's answer waits for its first attempt (the sender's timeout and a
    /// margin, within `MAX_TEST_OUTCOME_WAIT`).
    pub test_outcome_wait: Duration,
}

/// The longest a test event's answer waits for its outcome.
pub const MAX_TEST_OUTCOME_WAIT: Duration = Duration::from_secs(15);

impl HookService {
    async fn owner(&self, principal: &Principal) -> Result<HookOwner, HookError> {
        authorize(principal, Operation::ManageHooks)?;
        Ok(scope_of(principal, self.partners.as_ref()).await?.into())
    }

    /// The SSRF check, reported on the `endpoint` field.
    async fn check_endpoint(&self, endpoint: &Endpoint) -> Result<(), HookError> {
        match self.guard.check(endpoint).await {
            Ok(()) => Ok(()),
            Err(refusal) => {
                let message = match refusal {
                    EndpointRefusal::Blocked(_) => {
                        "endpoint deve apontar para um endereço público (não local, privado ou reservado)"
                    }
                    EndpointRefusal::Unresolvable => "endpoint com host que não resolve para nenhum endereço",
                };
                let mut v = Violations::new();
                v.add("endpoint", endpoint::BLOCKED, message);
                Err(HookError::Invalid(v))
            }
        }
    }

    /// Route 17. An event kind named twice is kept once.
    /// `contract_version` is the version the request reads (the HTTP edge's to resolve): the
    /// subscription's events are delivered in it.
    pub async fn create(
        &self,
        principal: &Principal,
        request: HookRequest,
        contract_version: &str,
    ) -> Result<Subscription, HookError> {
        let owner = self.owner(principal).await?;
        self.check_endpoint(&request.endpoint).await?;
        let new = NewSubscription {
            uuid: Uuid::new_v4(),
            contract_version: contract_version.to_owned(),
            owner,
            created_by: principal.email.clone(),
            endpoint: request.endpoint.as_str().to_owned(),
            events: without_repeats(request.events),
            status: request.status,
            secret: SigningSecret::from_key(self.keys.key()),
            at: self.clock.now(),
        };
        let max = self.max_subscriptions_per_owner;
        self.store.create(&new, max).await?.ok_or(HookError::AtLimit { max })
    }

    /// Route 18: one page of the caller's subscriptions, oldest first, and the cursor of the next.
    pub async fn list(&self, principal: &Principal, page: SubscriptionPage) -> Result<SubscriptionList, HookError> {
        let owner = self.owner(principal).await?;
        // One more than the page: whether there is a next one.
        let one_more = SubscriptionPage {
            limit: page.limit.saturating_add(1),
            ..page
        };
        let mut subscriptions = self.store.list(owner, one_more).await?;
        let next = crate::paging::keep_page(&mut subscriptions, page.limit, |last| last.id);
        Ok(SubscriptionList { subscriptions, next })
    }

    /// Every subscription of the caller, oldest first, page after page (the console's list).
    pub async fn all(&self, principal: &Principal) -> Result<Vec<Subscription>, HookError> {
        let mut all = Vec::new();
        let mut page = SubscriptionPage {
            limit: SUBSCRIPTIONS_PER_PAGE,
            after: None,
        };
        loop {
            let listed = self.list(principal, page).await?;
            all.extend(listed.subscriptions);
            match listed.next {
                Some(after) => page.after = Some(after),
                None => return Ok(all),
            }
        }
    }

    pub async fn get(&self, principal: &Principal, uuid: Uuid) -> Result<Subscription, HookError> {
        let owner = self.owner(principal).await?;
        self.store.find(owner, uuid).await?.ok_or(HookError::NotFound)
    }

    pub async fn update(&self, principal: &Principal, uuid: Uuid, patch: HookPatch) -> Result<Subscription, HookError> {
        let current = self.get(principal, uuid).await?;
        let patch = HookPatch {
            events: patch.events.map(without_repeats),
            ..patch
        };
        if let Some(endpoint) = &patch.endpoint {
            self.check_endpoint(endpoint).await?;
        }
        Ok(self.store.update(current.id, &patch, self.clock.now()).await?)
    }

    pub async fn delete(&self, principal: &Principal, uuid: Uuid) -> Result<(), HookError> {
        let current = self.get(principal, uuid).await?;
        Ok(self.store.delete(current.id, self.clock.now()).await?)
    }

    /// A new secret; the old one signs beside it until the grace period ends.
    pub async fn rotate_secret(&self, principal: &Principal, uuid: Uuid) -> Result<Subscription, HookError> {
        let current = self.get(principal, uuid).await?;
        let now = self.clock.now();
        let grace = chrono::Duration::from_std(self.rotation_grace).unwrap_or(chrono::Duration::zero());
        let secret = SigningSecret::from_key(self.keys.key());
        Ok(self.store.rotate(current.id, &secret, now + grace, now).await?)
    }

    /// Queues the test event and answers it as queued or, when `wait`, with its outcome: its
    /// first attempt (the receiver's answer or error), or as it stands when `test_outcome_wait`
    /// ends first. An `INATIVO` subscription receives nothing, so it is refused.
    pub async fn send_test(&self, principal: &Principal, uuid: Uuid, wait: bool) -> Result<Delivery, HookError> {
        let current = self.get(principal, uuid).await?;
        if current.status != HookStatus::Active {
            return Err(HookError::Inactive);
        }
        let body = payload::test(current.uuid, self.clock.now());
        let queued = self
            .store
            .enqueue_test(current.id, &body)
            .await?
            .ok_or(HookError::TestInFlight)?;
        if !wait {
            return Ok(queued);
        }
        let within = self.test_outcome_wait.min(MAX_TEST_OUTCOME_WAIT);
        Ok(self.store.first_attempt(queued.id, within).await?.unwrap_or(queued))
    }

    /// A page of the subscription's delivery log, newest first.
    pub async fn deliveries(
        &self,
        principal: &Principal,
        uuid: Uuid,
        page: DeliveryPage,
    ) -> Result<DeliveryLog, HookError> {
        let current = self.get(principal, uuid).await?;
        Ok(self.store.deliveries(current.id, page).await?)
    }

    /// A subscription and the first page of its deliveries (the console's log).
    pub async fn delivery_log(
        &self,
        principal: &Principal,
        uuid: Uuid,
    ) -> Result<(Subscription, Vec<Delivery>), HookError> {
        let subscription = self.get(principal, uuid).await?;
        let page = DeliveryPage {
            limit: DELIVERIES_PER_PAGE,
            before: None,
        };
        let log = self.store.deliveries(subscription.id, page).await?;
        Ok((subscription, log.deliveries))
    }

    /// Sends the window's deliveries again, with their message ids (what the receiver missed
    /// while it was down, or lost): the window within `MAX_REPLAY_DAYS`, not in the future; one
    /// replay of a subscription at a time; an `INATIVO` subscription receives nothing, so it is
    /// refused.
    pub async fn replay(&self, principal: &Principal, uuid: Uuid, request: ReplayRequest) -> Result<Replay, HookError> {
        let current = self.get(principal, uuid).await?;
        let now = self.clock.now();
        let window = replay_window(request, now).map_err(HookError::Invalid)?;
        if current.status != HookStatus::Active {
            return Err(HookError::Inactive);
        }
        match self
            .store
            .replay(current.id, window, &principal.email, now, self.max_replay_deliveries)
            .await?
        {
            ReplayOutcome::Queued(replay) => Ok(replay),
            ReplayOutcome::Running => Err(HookError::ReplayRunning),
            ReplayOutcome::TooMany { deliveries } => {
                let mut v = Violations::new();
                v.add(
                    "since",
                    codes::INVALID_VALUE,
                    format!(
                        "a janela de {} a {} tem {deliveries} entregas; um reenvio leva no máximo {}: reduza a janela",
                        window.since.format("%Y-%m-%dT%H:%M:%SZ"),
                        window.until.format("%Y-%m-%dT%H:%M:%SZ"),
                        self.max_replay_deliveries
                    ),
                );
                Err(HookError::Invalid(v))
            }
        }
    }

    /// One more attempt of a delivery, due now.
    pub async fn retry(&self, principal: &Principal, uuid: Uuid, delivery_id: i64) -> Result<Delivery, HookError> {
        let current = self.get(principal, uuid).await?;
        match self.store.retry(current.id, delivery_id, self.clock.now()).await? {
            Retried::Due(delivery) => Ok(delivery),
            Retried::NotFound => Err(HookError::DeliveryNotFound),
            Retried::TestInFlight => Err(HookError::TestInFlight),
        }
    }
}

/// The window a replay asks for, checked at `now`.
fn replay_window(request: ReplayRequest, now: DateTime<Utc>) -> Result<ReplayWindow, Violations> {
    let ReplayRequest { since, until } = request;
    let until = until.unwrap_or(now);
    let mut v = Violations::new();
    if since > now {
        v.add("since", codes::INVALID_VALUE, "since não pode estar no futuro");
    } else if until <= since {
        v.add("until", codes::INVALID_VALUE, "until deve ser posterior a since");
    } else if until - since > chrono::Duration::days(MAX_REPLAY_DAYS) {
        v.add(
            "since",
            codes::INVALID_VALUE,
            format!("a janela de reenvio é de no máximo {MAX_REPLAY_DAYS} dias"),
        );
    }
    if v.is_empty() {
        Ok(ReplayWindow { since, until })
    } else {
        Err(v)
    }
}

/// The kinds in their first order, each once.
fn without_repeats(events: Vec<EventKind>) -> Vec<EventKind> {
    let mut unique = Vec::with_capacity(events.len());
    for event in events {
        if !unique.contains(&event) {
            unique.push(event);
        }
    }
    unique
}
