//! Use-case tests of event subscriptions and of the delivery engine, over mocked ports.

use super::ports::*;
use super::*;
use crate::auth::model::Principal;
use crate::clock::SystemClock;
use crate::proposals::model::PartnerLink;
use crate::proposals::ports::{MockPartnerDirectory, Representation};
use crate::retention::{MockExpiredRecords, Purged, RetentionPolicy};
use crate::values::{Application, EventKind, HookStatus};
use async_trait::async_trait;
use chrono::Utc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uuid::Uuid;

fn principal(application: Application) -> Principal {
    Principal {
        user_id: 7,
        email: "ana@parceiro.com.br".into(),
        application,
        session_id: uuid::Uuid::nil(),
    }
}

fn partners() -> MockPartnerDirectory {
    let mut partners = MockPartnerDirectory::new();
    partners.expect_representation().returning(|_| {
        Ok(Some(Representation {
            representative_id: 3,
            partner: PartnerLink {
                partner_id: 42,
                partner_document: "11222333000181".into(),
                representative_id: Some(3),
                association_cnpj: None,
                federation_cnpj: None,
            },
        }))
    });
    partners
}

fn subscription(owner: HookOwner, status: HookStatus) -> Subscription {
    Subscription {
        id: 5,
        uuid: Uuid::new_v4(),
        owner,
        endpoint: "https://parceiro.example.com/hooks".into(),
        events: vec![EventKind::StatusChange],
        status,
        secret: SigningSecret::from_key([1; 32]),
        previous_secret: None,
        inactive_reason: None,
        created_at: Utc::now(),
        updated_at: Utc::now(),
    }
}

fn service(store: MockHookStore, guard: MockEndpointGuard) -> HookService {
    let mut keys = MockKeyGenerator::new();
    keys.expect_key().returning(|| [9; 32]);
    HookService {
        store: Arc::new(store),
        partners: Arc::new(partners()),
        guard: Arc::new(guard),
        keys: Arc::new(keys),
        clock: Arc::new(SystemClock),
        rotation_grace: Duration::from_secs(24 * 3600),
        max_subscriptions_per_owner: 20,
        max_replay_deliveries: 10_000,
        test_outcome_wait: Duration::from_secs(3),
    }
}

fn allow_all() -> MockEndpointGuard {
    let mut guard = MockEndpointGuard::new();
    guard.expect_check().returning(|_| Ok(()));
    guard
}

fn request() -> HookRequest {
    HookRequest {
        events: vec![EventKind::StatusChange],
        endpoint: Endpoint::parse("https://parceiro.example.com/hooks").unwrap(),
        status: HookStatus::Active,
    }
}

#[tokio::test]
async fn an_owner_at_its_subscription_limit_is_told_the_limit() {
    let mut store = MockHookStore::new();
    store.expect_create().returning(|_, _| Ok(None));
    let result = service(store, allow_all())
        .create(&principal(Application::Partner), request(), "2026-11-29")
        .await;
    assert!(matches!(result, Err(HookError::AtLimit { max: 20 })), "{result:?}");
}

#[tokio::test]
async fn a_partner_users_subscription_belongs_to_its_partner_with_a_generated_secret() {
    let mut store = MockHookStore::new();
    store
        .expect_create()
        .withf(|new, max| {
            new.owner == HookOwner::Partner { partner_id: 42 }
                && new.secret == SigningSecret::from_key([9; 32])
                && new.created_by == "ana@parceiro.com.br"
                && new.endpoint == "https://parceiro.example.com/hooks"
                && *max == 20
        })
        .returning(|new, _| {
            Ok(Some(Subscription {
                uuid: new.uuid,
                ..subscription(new.owner, new.status)
            }))
        });
    let created = service(store, allow_all())
        .create(&principal(Application::Partner), request(), "2026-11-29")
        .await
        .unwrap();
    assert_eq!(created.owner, HookOwner::Partner { partner_id: 42 });
}

#[tokio::test]
async fn the_back_office_and_the_shop_own_their_own_subscriptions() {
    for (application, owner) in [
        (Application::BackOffice, HookOwner::BackOffice),
        (Application::Ecommerce, HookOwner::Ecommerce),
    ] {
        let mut store = MockHookStore::new();
        store
            .expect_list()
            .withf(move |o, _| *o == owner)
            .returning(|_, _| Ok(vec![]));
        let page = SubscriptionPage { limit: 10, after: None };
        let listed = service(store, allow_all())
            .list(&principal(application), page)
            .await
            .unwrap();
        assert!(listed.subscriptions.is_empty() && listed.next.is_none());
    }
}

#[tokio::test]
async fn a_page_of_subscriptions_is_read_with_one_more_and_names_the_next_by_its_last_id() {
    let mut store = MockHookStore::new();
    store
        .expect_list()
        .withf(|_, page| {
            *page
                == SubscriptionPage {
                    limit: 3,
                    after: Some(7),
                }
        })
        .returning(|_, _| {
            Ok([8, 9, 10]
                .into_iter()
                .map(|id| Subscription {
                    id,
                    ..subscription(HookOwner::BackOffice, HookStatus::Active)
                })
                .collect())
        });
    let page = SubscriptionPage {
        limit: 2,
        after: Some(7),
    };
    let listed = service(store, allow_all())
        .list(&principal(Application::BackOffice), page)
        .await
        .unwrap();
    let ids: Vec<i64> = listed.subscriptions.iter().map(|s| s.id).collect();
    assert_eq!((ids, listed.next), (vec![8, 9], Some(9)));
}

#[tokio::test]
async fn an_endpoint_the_guard_refuses_is_a_field_error_and_nothing_is_stored() {
    let mut guard = MockEndpointGuard::new();
    guard
        .expect_check()
        .returning(|_| Err(EndpointRefusal::Blocked("127.0.0.1".into())));
    let mut store = MockHookStore::new();
    store.expect_create().never();
    let Err(HookError::Invalid(v)) = service(store, guard)
        .create(&principal(Application::BackOffice), request(), "2026-11-29")
        .await
    else {
        panic!("expected a validation failure");
    };
    assert_eq!(v.errors()[0].field, "endpoint");
    assert_eq!(v.errors()[0].code, endpoint::BLOCKED);
}

#[tokio::test]
async fn another_owners_subscription_is_not_found() {
    let mut store = MockHookStore::new();
    store.expect_find().returning(|_, _| Ok(None));
    store.expect_delete().never();
    let result = service(store, allow_all())
        .delete(&principal(Application::Partner), Uuid::new_v4())
        .await;
    assert!(matches!(result, Err(HookError::NotFound)));
}

#[tokio::test]
async fn rotation_keeps_the_old_secret_for_the_grace_period() {
    let mut store = MockHookStore::new();
    store
        .expect_find()
        .returning(|o, _| Ok(Some(subscription(o, HookStatus::Active))));
    store
        .expect_rotate()
        .withf(|id, secret, until, at| {
            *id == 5 && *secret == SigningSecret::from_key([9; 32]) && (*until - *at) == chrono::Duration::hours(24)
        })
        .returning(|_, _, _, _| Ok(subscription(HookOwner::BackOffice, HookStatus::Active)));
    service(store, allow_all())
        .rotate_secret(&principal(Application::BackOffice), Uuid::new_v4())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_test_event_to_an_inactive_subscription_is_refused() {
    let mut store = MockHookStore::new();
    store
        .expect_find()
        .returning(|o, _| Ok(Some(subscription(o, HookStatus::Inactive))));
    store.expect_enqueue_test().never();
    let result = service(store, allow_all())
        .send_test(&principal(Application::BackOffice), Uuid::new_v4(), true)
        .await;
    assert!(matches!(result, Err(HookError::Inactive)));
}

fn test_delivery(attempts: Vec<Attempt>) -> Delivery {
    Delivery {
        id: 31,
        message_id: "msg_1".into(),
        event_type: "TESTE".into(),
        state: if attempts.is_empty() {
            DeliveryState::Pending
        } else {
            DeliveryState::Delivered
        },
        attempts,
        next_attempt_at: None,
        created_at: Utc::now(),
        delivered_at: None,
    }
}

#[tokio::test]
async fn a_test_event_asked_to_wait_is_answered_with_its_first_attempt_waiting_no_longer_than_the_bound() {
    let mut store = MockHookStore::new();
    store
        .expect_find()
        .returning(|o, _| Ok(Some(subscription(o, HookStatus::Active))));
    store
        .expect_enqueue_test()
        .returning(|_, _| Ok(Some(test_delivery(Vec::new()))));
    store
        .expect_first_attempt()
        .withf(|id, within| *id == 31 && *within == Duration::from_secs(3))
        .returning(|_, _| {
            Ok(Some(test_delivery(vec![Attempt {
                number: 1,
                at: Utc::now(),
                response_status: Some(204),
                duration_ms: 12,
                error: None,
                next_attempt_at: None,
            }])))
        });
    let answered = service(store, allow_all())
        .send_test(&principal(Application::BackOffice), Uuid::new_v4(), true)
        .await
        .unwrap();
    assert_eq!(answered.attempts[0].response_status, Some(204));

    // However long the configuration says, the answer waits at most the bound.
    let mut store = MockHookStore::new();
    store
        .expect_find()
        .returning(|o, _| Ok(Some(subscription(o, HookStatus::Active))));
    store
        .expect_enqueue_test()
        .returning(|_, _| Ok(Some(test_delivery(Vec::new()))));
    store
        .expect_first_attempt()
        .withf(|_, within| *within == service::MAX_TEST_OUTCOME_WAIT)
        .returning(|_, _| Ok(None));
    let slow = HookService {
        test_outcome_wait: Duration::from_secs(600),
        ..service(store, allow_all())
    };
    let answered = slow
        .send_test(&principal(Application::BackOffice), Uuid::new_v4(), true)
        .await
        .unwrap();
    assert!(answered.attempts.is_empty(), "as it was queued");

    // Not asked to wait, it answers at once.
    let mut store = MockHookStore::new();
    store
        .expect_find()
        .returning(|o, _| Ok(Some(subscription(o, HookStatus::Active))));
    store
        .expect_enqueue_test()
        .returning(|_, _| Ok(Some(test_delivery(Vec::new()))));
    store.expect_first_attempt().never();
    service(store, allow_all())
        .send_test(&principal(Application::BackOffice), Uuid::new_v4(), false)
        .await
        .unwrap();
}

fn active(store: &mut MockHookStore) {
    store
        .expect_find()
        .returning(|o, _| Ok(Some(subscription(o, HookStatus::Active))));
}

#[tokio::test]
async fn a_retry_is_answered_with_the_delivery_or_told_why_not() {
    let answers = [
        (Retried::Due(test_delivery(Vec::new())), Ok(31)),
        (Retried::NotFound, Err("DeliveryNotFound")),
        (Retried::TestInFlight, Err("TestInFlight")),
    ];
    for (stored, expected) in answers {
        let mut store = MockHookStore::new();
        active(&mut store);
        store
            .expect_retry()
            .withf(|id, delivery, _| *id == 5 && *delivery == 31)
            .return_once(move |_, _, _| Ok(stored));
        let answered = service(store, allow_all())
            .retry(&principal(Application::BackOffice), Uuid::new_v4(), 31)
            .await;
        match (answered, expected) {
            (Ok(delivery), Ok(id)) => assert_eq!(delivery.id, id),
            (Err(HookError::DeliveryNotFound), Err("DeliveryNotFound")) => {}
            (Err(HookError::TestInFlight), Err("TestInFlight")) => {}
            (answered, expected) => panic!("{answered:?} where {expected:?} was expected"),
        }
    }
}

#[tokio::test]
async fn a_replay_window_is_bounded_and_a_running_replay_is_told() {
    let now = Utc::now();
    let hours = |h: i64| now + chrono::Duration::hours(h);
    for (request, field) in [
        (
            ReplayRequest {
                since: hours(1),
                until: None,
            },
            "since",
        ),
        (
            ReplayRequest {
                since: hours(-2),
                until: Some(hours(-3)),
            },
            "until",
        ),
        (
            ReplayRequest {
                since: hours(-24 * 7 - 1),
                until: None,
            },
            "since",
        ),
    ] {
        let mut store = MockHookStore::new();
        active(&mut store);
        store.expect_replay().never();
        let result = service(store, allow_all())
            .replay(&principal(Application::BackOffice), Uuid::new_v4(), request)
            .await;
        match result {
            Err(HookError::Invalid(v)) => assert_eq!(v.errors()[0].field, field),
            other => panic!("{other:?}"),
        }
    }

    let mut store = MockHookStore::new();
    active(&mut store);
    store
        .expect_replay()
        .returning(|_, _, _, _, _| Ok(ReplayOutcome::Running));
    let running = service(store, allow_all())
        .replay(
            &principal(Application::BackOffice),
            Uuid::new_v4(),
            ReplayRequest {
                since: hours(-24 * 7 + 1),
                until: None,
            },
        )
        .await;
    assert!(matches!(running, Err(HookError::ReplayRunning)), "{running:?}");
}

#[tokio::test]
async fn a_changed_endpoint_is_checked_again() {
    let mut store = MockHookStore::new();
    store
        .expect_find()
        .returning(|o, _| Ok(Some(subscription(o, HookStatus::Active))));
    store.expect_update().never();
    let mut guard = MockEndpointGuard::new();
    guard.expect_check().returning(|_| Err(EndpointRefusal::Unresolvable));
    let patch = HookPatch {
        endpoint: Some(Endpoint::parse("http://nao-existe.invalid/").unwrap()),
        ..HookPatch::default()
    };
    let result = service(store, guard)
        .update(&principal(Application::BackOffice), Uuid::new_v4(), patch)
        .await;
    assert!(matches!(result, Err(HookError::Invalid(_))));
}

/// Wakeups that return at once.
struct NoWait;

#[async_trait]
impl DeliveryWakeups for NoWait {
    async fn wait(&self, _: Duration) {
        tokio::task::yield_now().await;
    }
}

fn engine(queue: MockDeliveryQueue, sender: MockWebhookSender, policy: DeliveryPolicy) -> DeliveryEngine {
    let mut expired = MockExpiredRecords::new();
    expired.expect_purge().returning(|_, _| Ok(Purged::default()));
    DeliveryEngine {
        queue: Arc::new(queue),
        sender: Arc::new(sender),
        wakeups: Arc::new(NoWait),
        expired: Arc::new(expired),
        clock: Arc::new(SystemClock),
        policy,
        retention: RetentionPolicy::default(),
    }
}

fn claimed(attempt: i32, secrets: Vec<SigningSecret>) -> ClaimedDelivery {
    ClaimedDelivery {
        id: 11,
        attempt,
        message_id: "msg_1".into(),
        body: r#"{"type":"TESTE"}"#.into(),
        endpoint: "https://parceiro.example.com/hooks".into(),
        secrets,
        contract_version: "2026-11-29".into(),
    }
}

#[tokio::test]
async fn a_delivery_is_signed_with_every_current_secret_and_recorded_as_delivered() {
    let old = SigningSecret::from_key([1; 32]);
    let new = SigningSecret::from_key([2; 32]);
    let mut sender = MockWebhookSender::new();
    let (a, b) = (old.clone(), new.clone());
    sender
        .expect_send()
        .withf(move |r| {
            let signatures: Vec<&str> = r.signature.split(' ').collect();
            signatures
                == [
                    a.sign(&r.message_id, r.timestamp, &r.body),
                    b.sign(&r.message_id, r.timestamp, &r.body),
                ]
                && r.message_id == "msg_1"
                && (r.timestamp - Utc::now().timestamp()).abs() < 5
        })
        .returning(|_| SendOutcome::Answered {
            status: 204,
            retry_after: None,
        });
    let mut queue = MockDeliveryQueue::new();
    queue
        .expect_record()
        .withf(|r| {
            r.delivery_id == 11 && r.attempt == 1 && r.step == RecordStep::Delivered && r.response_status == Some(204)
        })
        .times(1)
        .returning(|_| Ok(()));
    engine(queue, sender, DeliveryPolicy::default())
        .deliver(claimed(1, vec![old, new]))
        .await;
}

#[tokio::test]
async fn failures_are_rescheduled_then_exhausted_and_410_disables() {
    let policy = DeliveryPolicy {
        retry_schedule: vec![Duration::from_secs(60)],
        ..DeliveryPolicy::default()
    };
    let steps = Arc::new(Mutex::new(Vec::new()));
    for (attempt, outcome) in [
        (
            1,
            SendOutcome::Failed {
                error: "conexão recusada".into(),
            },
        ),
        (
            2,
            SendOutcome::Answered {
                status: 500,
                retry_after: None,
            },
        ),
        (
            1,
            SendOutcome::Answered {
                status: 410,
                retry_after: None,
            },
        ),
    ] {
        let mut sender = MockWebhookSender::new();
        sender.expect_send().return_once(move |_| outcome);
        let mut queue = MockDeliveryQueue::new();
        let seen = steps.clone();
        queue.expect_record().returning(move |r| {
            seen.lock().unwrap().push(r.clone());
            Ok(())
        });
        engine(queue, sender, policy.clone())
            .deliver(claimed(attempt, vec![SigningSecret::from_key([1; 32])]))
            .await;
    }
    let steps = steps.lock().unwrap();
    let RecordStep::RetryAt(at) = steps[0].step else {
        panic!("{:?}", steps[0]);
    };
    let wait = at - steps[0].at;
    assert!(wait >= chrono::Duration::seconds(60) && wait <= chrono::Duration::seconds(66));
    assert_eq!(steps[0].error.as_deref(), Some("conexão recusada"));
    assert!(
        matches!(steps[1].step, RecordStep::Exhausted { disable_if_no_success_since }
        if (steps[1].at - disable_if_no_success_since) == chrono::Duration::days(5))
    );
    assert_eq!(steps[2].step, RecordStep::Gone);
}

#[tokio::test]
async fn the_engine_claims_within_its_room_delivers_and_stops_when_told() {
    let policy = DeliveryPolicy {
        max_in_flight: 3,
        max_in_flight_per_subscription: 2,
        max_in_flight_per_owner: 5,
        ..DeliveryPolicy::default()
    };
    let mut queue = MockDeliveryQueue::new();
    queue.expect_purge().returning(|_| Ok(0));
    let claims = Arc::new(Mutex::new(0));
    let counter = claims.clone();
    queue.expect_claim().returning(move |limits, _| {
        assert!(limits.batch <= 3 && limits.per_subscription == 2 && limits.per_owner == 5);
        let mut n = counter.lock().unwrap();
        *n += 1;
        Ok(if *n == 1 { vec![claimed(1, vec![])] } else { vec![] })
    });
    let recorded = Arc::new(Mutex::new(0));
    let count = recorded.clone();
    queue.expect_record().returning(move |_| {
        *count.lock().unwrap() += 1;
        Ok(())
    });
    let mut sender = MockWebhookSender::new();
    sender.expect_send().times(1).returning(|_| SendOutcome::Answered {
        status: 200,
        retry_after: None,
    });
    let engine = engine(queue, sender, policy);
    let stop = async {
        while *recorded.lock().unwrap() == 0 {
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), engine.run(stop))
        .await
        .unwrap();
    assert_eq!(*recorded.lock().unwrap(), 1);
    assert!(*claims.lock().unwrap() >= 1);
}

#[tokio::test]
async fn the_hourly_purge_removes_old_deliveries_and_the_other_expired_records() {
    let mut queue = MockDeliveryQueue::new();
    let purged_deliveries = Arc::new(Mutex::new(0));
    let count = purged_deliveries.clone();
    queue.expect_purge().times(1).returning(move |_| {
        *count.lock().unwrap() += 1;
        Ok(3)
    });
    queue.expect_claim().returning(|_, _| Ok(vec![]));
    let policy = RetentionPolicy {
        callback_records: Duration::from_secs(7 * 24 * 3600),
        ..RetentionPolicy::default()
    };
    let mut expired = MockExpiredRecords::new();
    let purged_records = Arc::new(Mutex::new(0));
    let count = purged_records.clone();
    expired
        .expect_purge()
        .times(1)
        .withf(move |_, asked| *asked == policy)
        .returning(move |_, _| {
            *count.lock().unwrap() += 1;
            Ok(Purged {
                refresh_tokens: 2,
                ..Purged::default()
            })
        });
    let engine = DeliveryEngine {
        expired: Arc::new(expired),
        retention: policy,
        ..engine(queue, MockWebhookSender::new(), DeliveryPolicy::default())
    };
    let stop = async {
        while *purged_records.lock().unwrap() == 0 {
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), engine.run(stop))
        .await
        .unwrap();
    assert_eq!(*purged_deliveries.lock().unwrap(), 1);
}
