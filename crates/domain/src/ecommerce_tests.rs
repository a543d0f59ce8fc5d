//! Use-case tests of the e-commerce routes, over mocked ports.

use crate::auth::model::Principal;
use crate::ecommerce::*;
use crate::proposals::ports::{MockPartnerDirectory, MockProposalStore};
use crate::values::{Application, Cpf};
use std::sync::Arc;

fn principal() -> Principal {
    Principal {
        user_id: 1,
        email: "loja@demo.com.br".into(),
        application: Application::Ecommerce,
        session_id: uuid::Uuid::nil(),
    }
}

fn customer(platform: Option<&str>, method: Option<&str>) -> EcommerceCustomer {
    EcommerceCustomer {
        id: 9,
        cpf: "52998224725".into(),
        full_name: "João Souza".into(),
        email: None,
        cell_phone: None,
        platform_id: platform.map(Into::into),
        payment_method: method.map(Into::into),
    }
}

fn offer() -> ProductOffer {
    ProductOffer {
        price_id: "price_1".into(),
        collection: crate::premium_collection::PremiumCollection::ProvisionalCover,
    }
}

fn service(store: MockEcommerceStore, gateway: MockPaymentGateway, proposals: MockProposalStore) -> EcommerceService {
    EcommerceService {
        store: Arc::new(store),
        proposals: Arc::new(proposals),
        partners: Arc::new(MockPartnerDirectory::new()),
        gateway: Arc::new(gateway),
        claims: Arc::new(crate::proposals::operations::accepting_claims()),
        clock: Arc::new(crate::clock::SystemClock),
    }
}

fn detail() -> crate::proposals::model::ProposalDetail {
    // The signing tests' fixture has every member; reuse its shape through the store mock, as
    // the shop's proposal.
    let mut detail = crate::testing::detail("NOVO");
    detail.proposal.flow = crate::proposals::model::Flow::Ecommerce;
    detail
}

#[tokio::test]
async fn an_existing_platform_customer_is_answered_without_calling_the_platform() {
    let mut store = MockEcommerceStore::new();
    store
        .expect_customer_in_reach()
        .returning(|_, _| Ok(Some(customer(Some("cus_1"), None))));
    let mut gateway = MockPaymentGateway::new();
    gateway.expect_ensure_customer().never();
    let cpf = Cpf::parse("52998224725").unwrap();
    assert_eq!(
        service(store, gateway, MockProposalStore::new())
            .create_customer(&principal(), &cpf)
            .await,
        Ok("cus_1".into())
    );
}

#[tokio::test]
async fn the_platform_down_frees_the_claim_and_changes_nothing() {
    let mut proposals = MockProposalStore::new();
    proposals.expect_detail().returning(|_, _| Ok(Some(detail())));
    let mut store = MockEcommerceStore::new();
    store
        .expect_customer()
        .returning(|_| Ok(Some(customer(Some("cus_1"), Some("pm_1")))));
    store.expect_product_offer().returning(|_| Ok(Some(offer())));
    store.expect_claim_subscription().returning(|_, _, _| Ok(Some(77)));
    store
        .expect_release_claim()
        .withf(|claim| *claim == 77)
        .times(1)
        .returning(|_| Ok(()));
    store.expect_complete_subscription().never();
    let mut gateway = MockPaymentGateway::new();
    gateway
        .expect_create_subscription()
        .withf(|r| r.idempotency_key == "subscription-1-pm_1" && r.price_id == "price_1")
        .returning(|_| Err(PaymentError::Unavailable("503".into())));
    let result = service(store, gateway, proposals)
        .create_subscription(&principal(), "id-1")
        .await;
    assert_eq!(
        result,
        Err(EcommerceError::Payment(PaymentError::Unavailable("503".into())))
    );
}

#[tokio::test]
async fn an_active_subscription_moves_a_new_proposal_to_analysis_in_the_same_write() {
    let mut proposals = MockProposalStore::new();
    proposals.expect_detail().returning(|_, _| Ok(Some(detail())));
    let mut store = MockEcommerceStore::new();
    store
        .expect_customer()
        .returning(|_| Ok(Some(customer(Some("cus_1"), Some("pm_1")))));
    store.expect_product_offer().returning(|_| Ok(Some(offer())));
    store.expect_claim_subscription().returning(|_, _, _| Ok(Some(77)));
    store
        .expect_complete_subscription()
        .withf(|claim, sub, change, _, _| {
            *claim == 77
                && sub.id == "sub_1"
                && change
                    .as_ref()
                    .is_some_and(|c| c.to == crate::values::ProposalStatus::InAnalysis)
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let mut gateway = MockPaymentGateway::new();
    gateway.expect_create_subscription().returning(|_| {
        Ok(PlatformSubscription {
            id: "sub_1".into(),
            status: "active".into(),
            current_period_end: None,
            latest_invoice_status: Some("paid".into()),
            latest_paid_invoice: None,
            object: serde_json::json!({"id": "sub_1"}),
        })
    });
    assert!(
        service(store, gateway, proposals)
            .create_subscription(&principal(), "id-1")
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_live_subscription_refuses_a_second_one_before_the_platform_is_called() {
    let mut proposals = MockProposalStore::new();
    proposals.expect_detail().returning(|_, _| Ok(Some(detail())));
    let mut store = MockEcommerceStore::new();
    store
        .expect_customer()
        .returning(|_| Ok(Some(customer(Some("cus_1"), Some("pm_1")))));
    store.expect_product_offer().returning(|_| Ok(Some(offer())));
    store.expect_claim_subscription().returning(|_, _, _| Ok(None));
    let mut gateway = MockPaymentGateway::new();
    gateway.expect_create_subscription().never();
    assert_eq!(
        service(store, gateway, proposals)
            .create_subscription(&principal(), "id-1")
            .await,
        Err(EcommerceError::AlreadyActive)
    );
}

#[tokio::test]
async fn a_product_collecting_at_acceptance_has_its_subscription_held_and_the_held_one_commits_the_sale() {
    let mut proposals = MockProposalStore::new();
    proposals.expect_detail().returning(|_, _| Ok(Some(detail())));
    let mut store = MockEcommerceStore::new();
    store
        .expect_customer()
        .returning(|_| Ok(Some(customer(Some("cus_1"), Some("pm_1")))));
    store.expect_product_offer().returning(|_| {
        Ok(Some(ProductOffer {
            collection: crate::premium_collection::PremiumCollection::AtAcceptance,
            ..offer()
        }))
    });
    store.expect_claim_subscription().returning(|_, _, _| Ok(Some(77)));
    store
        .expect_complete_subscription()
        .withf(|_, sub, change, _, _| {
            sub.status == "trialing"
                && change.as_ref().is_some_and(|c| {
                    c.to == crate::values::ProposalStatus::InAnalysis
                        && c.reason.as_deref() == Some("assinatura sub_1 registrada, cobrada na aceitação")
                })
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let mut gateway = MockPaymentGateway::new();
    let asked_at = chrono::Utc::now();
    gateway
        .expect_create_subscription()
        .withf(move |r| {
            r.hold_until.is_some_and(|until| {
                let held = until - asked_at;
                held >= chrono::Duration::days(crate::premium_collection::HOLD_DAYS)
                    && held
                        < chrono::Duration::days(crate::premium_collection::HOLD_DAYS) + chrono::Duration::minutes(1)
            })
        })
        .returning(|_| {
            Ok(PlatformSubscription {
                id: "sub_1".into(),
                status: "trialing".into(),
                current_period_end: None,
                latest_invoice_status: Some("paid".into()),
                latest_paid_invoice: None,
                object: serde_json::json!({"id": "sub_1"}),
            })
        });
    assert!(
        service(store, gateway, proposals)
            .create_subscription(&principal(), "id-1")
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_product_with_provisional_cover_is_charged_at_the_sale() {
    let mut proposals = MockProposalStore::new();
    proposals.expect_detail().returning(|_, _| Ok(Some(detail())));
    let mut store = MockEcommerceStore::new();
    store
        .expect_customer()
        .returning(|_| Ok(Some(customer(Some("cus_1"), Some("pm_1")))));
    store.expect_product_offer().returning(|_| Ok(Some(offer())));
    store.expect_claim_subscription().returning(|_, _, _| Ok(Some(77)));
    store.expect_release_claim().returning(|_| Ok(()));
    let mut gateway = MockPaymentGateway::new();
    gateway
        .expect_create_subscription()
        .withf(|r| r.hold_until.is_none())
        .times(1)
        .returning(|_| Err(PaymentError::Declined("card_declined".into())));
    let result = service(store, gateway, proposals)
        .create_subscription(&principal(), "id-1")
        .await;
    assert_eq!(
        result,
        Err(EcommerceError::Payment(PaymentError::Declined("card_declined".into())))
    );
}
