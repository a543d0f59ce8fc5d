//! The collection at acceptance over mocked ports.

use super::*;
use crate::ecommerce::MockPaymentGateway;
use crate::proposals::operations::{MockOperationClaims, accepting_claims};
use chrono::TimeZone;

fn held(proposal_id: i64) -> HeldSubscription {
    HeldSubscription {
        proposal_id,
        identifier: format!("id-{proposal_id}"),
        proposal_status: ProposalStatus::Approved,
        subscription: format!("sub_{proposal_id}"),
    }
}

fn charged(id: &str) -> PlatformSubscription {
    PlatformSubscription {
        id: id.to_owned(),
        status: "active".into(),
        current_period_end: None,
        latest_invoice_status: Some("paid".into()),
        latest_paid_invoice: None,
        object: serde_json::json!({"id": id}),
    }
}

fn service(store: MockCollectionStore, gateway: MockPaymentGateway, claims: MockOperationClaims) -> CollectionService {
    CollectionService {
        store: Arc::new(store),
        gateway: Arc::new(gateway),
        claims: Arc::new(claims),
        clock: Arc::new(crate::clock::SystemClock),
    }
}

#[test]
fn only_a_product_collecting_at_acceptance_holds_its_subscription() {
    let now = Utc.with_ymd_and_hms(2026, 12, 6, 12, 0, 0).unwrap();
    assert_eq!(PremiumCollection::ProvisionalCover.hold_until(now), None);
    assert_eq!(
        PremiumCollection::AtAcceptance.hold_until(now),
        Some(Utc.with_ymd_and_hms(2027, 12, 6, 12, 0, 0).unwrap())
    );
    for collection in PremiumCollection::ALL {
        assert_eq!(PremiumCollection::parse(collection.as_str()), Some(collection));
    }
    assert_eq!(PremiumCollection::parse("antes"), None);
    assert_eq!(PremiumCollection::default(), PremiumCollection::ProvisionalCover);
}

#[test]
fn the_clause_names_the_provisional_cover_and_its_ends_or_says_nothing_is_collected_before() {
    let from = Utc.with_ymd_and_hms(2026, 12, 6, 13, 5, 0).unwrap();
    let before_payment = collection_clause(PremiumCollection::ProvisionalCover, None);
    assert!(
        before_payment.contains("cobertura provisória desde o pagamento até a aceitação"),
        "{before_payment}"
    );
    assert!(before_payment.contains("art. 19, § 2º"));
    let running = collection_clause(
        PremiumCollection::ProvisionalCover,
        Some(&ProvisionalCover { from, until: None }),
    );
    assert!(
        running.contains("desde o pagamento, em 06/12/2026 13:05:00 UTC (10:05:00, horário de Brasília) até"),
        "{running}"
    );
    assert!(running.contains("até a aceitação da proposta"), "{running}");
    let ended = collection_clause(
        PremiumCollection::ProvisionalCover,
        Some(&ProvisionalCover {
            from,
            until: Some(from + chrono::Duration::days(3)),
        }),
    );
    assert!(
        ended.contains("até a decisão da seguradora, em 09/12/2026 13:05:00 UTC (10:05:00, horário de Brasília)"),
        "{ended}"
    );
    let at_acceptance = collection_clause(PremiumCollection::AtAcceptance, None);
    assert!(
        at_acceptance.contains("Nada é cobrado antes de a seguradora aceitar"),
        "{at_acceptance}"
    );
    assert!(!at_acceptance.contains("cobertura provisória"));
}

#[tokio::test]
async fn each_accepted_held_subscription_is_charged_under_its_claim_with_a_key_of_its_proposal() {
    let mut store = MockCollectionStore::new();
    store
        .expect_held_after_acceptance()
        .returning(|_| Ok(vec![held(1), held(2)]));
    store.expect_record_collection().times(2).returning(|_, _, _| Ok(true));
    let mut gateway = MockPaymentGateway::new();
    gateway
        .expect_end_hold()
        .withf(|id, key| {
            (id == "sub_1" && key == "collect-at-acceptance-1") || (id == "sub_2" && key == "collect-at-acceptance-2")
        })
        .times(2)
        .returning(|id, _| Ok(charged(id)));
    let mut claims = MockOperationClaims::new();
    claims
        .expect_claim()
        .withf(|op| op.kind == OperationKind::Collection && op.expected == ProposalStatus::Approved)
        .times(2)
        .returning(|_| Ok(()));
    claims.expect_fail().never();
    let pass = service(store, gateway, claims).run().await.unwrap();
    assert_eq!(pass.collected, vec!["id-1".to_owned(), "id-2".to_owned()]);
    assert_eq!(pass.deferred, 0);
}

#[tokio::test]
async fn a_proposal_held_by_another_operation_or_a_platform_down_is_left_for_the_next_pass() {
    let mut store = MockCollectionStore::new();
    store
        .expect_held_after_acceptance()
        .returning(|_| Ok(vec![held(1), held(2)]));
    store.expect_record_collection().never();
    let mut gateway = MockPaymentGateway::new();
    gateway
        .expect_end_hold()
        .times(1)
        .returning(|_, _| Err(PaymentError::Unavailable("503".into())));
    let mut claims = MockOperationClaims::new();
    claims.expect_claim().returning(|op| {
        if op.proposal_id == 1 {
            Err(ClaimError::InProgress {
                kind: OperationKind::ContractCancellation,
            })
        } else {
            Ok(())
        }
    });
    // The claim of the one the platform did not answer is ended as failed: asked again later.
    claims.expect_fail().times(1).returning(|_, _, _| Ok(true));
    let pass = service(store, gateway, claims).run().await.unwrap();
    assert!(pass.collected.is_empty());
    assert_eq!(pass.deferred, 2);
}

#[tokio::test]
async fn the_worker_finishes_a_collection_with_the_same_key_or_fails_it_when_nothing_is_held() {
    let operation = PendingOperation {
        id: OperationId::new(),
        proposal_id: 7,
        identifier: "id-7".into(),
        kind: OperationKind::Collection,
        requested_by: COLLECTION_ACTOR.into(),
        reason: None,
        reason_category: None,
        target: None,
        started_at: Utc::now(),
        attempts: 0,
    };
    let mut store = MockCollectionStore::new();
    store.expect_held_of().returning(|id| Ok(Some(held(id))));
    store.expect_record_collection().times(1).returning(|_, _, _| Ok(true));
    let mut gateway = MockPaymentGateway::new();
    gateway
        .expect_end_hold()
        .withf(|id, key| id == "sub_7" && key == "collect-at-acceptance-7")
        .times(1)
        .returning(|id, _| Ok(charged(id)));
    let finished = service(store, gateway, accepting_claims())
        .finish_pending(&operation)
        .await;
    assert_eq!(finished, Ok(RecoveryOutcome::Finished));

    let mut store = MockCollectionStore::new();
    store.expect_held_of().returning(|_| Ok(None));
    let mut gateway = MockPaymentGateway::new();
    gateway.expect_end_hold().never();
    let mut claims = MockOperationClaims::new();
    claims
        .expect_fail()
        .withf(|_, why, _| why == "nenhuma assinatura retida")
        .times(1)
        .returning(|_, _, _| Ok(true));
    let failed = service(store, gateway, claims).finish_pending(&operation).await;
    assert_eq!(failed, Ok(RecoveryOutcome::Failed));
}
