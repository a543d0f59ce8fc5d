use super::*;
use crate::proposals::operations::MockOperationClaims;
use crate::testing::At;
use mockall::predicate::{always, eq};

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

/// Noon in Brasília on `text`.
fn noon(text: &str) -> DateTime<Utc> {
    format!("{text}T15:00:00Z").parse().unwrap()
}

/// A payroll contract accepted on 1 December 2026, its first charge due ten days later.
fn case(current: Option<Averbacao>) -> AverbacaoCase {
    AverbacaoCase {
        proposal_id: 9,
        identifier: "p-9".into(),
        proposal_status: ProposalStatus::Approved,
        request: ConsignmentRequest {
            contract: "p-9".into(),
            cpf: Cpf::parse("52998224725").unwrap(),
            name: "Maria da Silva".into(),
            sheet_type: SheetType::Benefit,
            number: "1234567890".into(),
            specie: Some(41),
            monthly_amount_cents: 3990,
        },
        accepted_on: day("2026-12-01"),
        first_due: day("2026-12-11"),
        billed: false,
        ended: false,
        current,
    }
}

fn averbacao(status: AverbacaoStatus) -> Averbacao {
    Averbacao {
        id: "AV-1".into(),
        status,
        margin_cents: Some(50_000),
        reason: None,
    }
}

fn service(
    store: MockAverbacaoStore,
    claims: MockOperationClaims,
    platform: Option<MockConsignmentPlatform>,
    on: &str,
) -> AverbacaoService {
    AverbacaoService {
        store: Arc::new(store),
        claims: Arc::new(claims),
        platform: platform.map(|p| Arc::new(p) as Arc<dyn ConsignmentPlatform>),
        clock: Arc::new(At(noon(on))),
    }
}

fn claims_granted() -> MockOperationClaims {
    let mut claims = MockOperationClaims::new();
    claims.expect_claim().returning(|_| Ok(()));
    claims
}

#[test]
fn an_averbacao_moves_forward_only_and_never_out_of_a_final_state() {
    use AverbacaoStatus::*;
    assert!(Pending.may_become(Active));
    assert!(Pending.may_become(Refused));
    assert!(Active.may_become(Cancelled));
    assert!(!Active.may_become(Pending), "never backwards");
    assert!(!Active.may_become(Refused), "an active one is cancelled, not refused");
    assert!(!Refused.may_become(Active), "refused is final");
    assert!(!Cancelled.may_become(Active), "cancelled is final");
    assert!(!Active.may_become(Active), "the same state is no move");
    for status in AverbacaoStatus::ALL {
        assert_eq!(AverbacaoStatus::parse(status.as_str()), Some(status));
    }
}

#[test]
fn the_first_charge_falls_due_the_products_days_after_the_averbacao_not_the_acceptance() {
    let c = case(None);
    assert_eq!(first_due_under(&c, day("2026-12-06")), Some(day("2026-12-16")));
    assert_eq!(
        first_due_under(&c, day("2026-12-01")),
        None,
        "active at the acceptance: as it was"
    );
    let billed = AverbacaoCase {
        billed: true,
        ..case(None)
    };
    assert_eq!(
        first_due_under(&billed, day("2026-12-20")),
        None,
        "a charge made keeps its date"
    );
}

#[tokio::test]
async fn a_payroll_contract_without_an_averbacao_is_registered_under_its_claim_and_its_first_due_date_moved() {
    let mut store = MockAverbacaoStore::new();
    store.expect_awaiting_request().returning(|_| Ok(vec![case(None)]));
    store.expect_pending().returning(|_| Ok(vec![]));
    store.expect_to_cancel().returning(|_| Ok(vec![]));
    store
        .expect_record()
        .withf(|id, a, first_due, operation, by, _| {
            *id == 9
                && a.status == AverbacaoStatus::Active
                && *first_due == Some(day("2026-12-15"))
                && operation.is_some()
                && by == AVERBACAO_ACTOR
        })
        .times(1)
        .returning(|_, _, _, _, _, _| Ok(true));
    let mut platform = MockConsignmentPlatform::new();
    platform
        .expect_request()
        .withf(|r| r.contract == "p-9" && r.monthly_amount_cents == 3990 && r.specie == Some(41))
        .times(1)
        .returning(|_| Ok(averbacao(AverbacaoStatus::Active)));
    let pass = service(store, claims_granted(), Some(platform), "2026-12-05")
        .run()
        .await
        .unwrap();
    assert_eq!((pass.requested, pass.activated, pass.deferred), (1, 1, 0));
}

#[tokio::test]
async fn a_contract_held_by_another_operation_is_left_for_the_next_pass_and_the_platform_not_asked() {
    let mut store = MockAverbacaoStore::new();
    store.expect_awaiting_request().returning(|_| Ok(vec![case(None)]));
    store.expect_pending().returning(|_| Ok(vec![]));
    store.expect_to_cancel().returning(|_| Ok(vec![]));
    let mut claims = MockOperationClaims::new();
    claims.expect_claim().returning(|_| {
        Err(ClaimError::InProgress {
            kind: OperationKind::DefaultEnd,
        })
    });
    let mut platform = MockConsignmentPlatform::new();
    platform.expect_request().never();
    let pass = service(store, claims, Some(platform), "2026-12-05")
        .run()
        .await
        .unwrap();
    assert_eq!((pass.requested, pass.deferred), (0, 1));
}

#[tokio::test]
async fn a_platform_that_does_not_answer_fails_the_operation_and_records_nothing() {
    let mut store = MockAverbacaoStore::new();
    store.expect_awaiting_request().returning(|_| Ok(vec![case(None)]));
    store.expect_pending().returning(|_| Ok(vec![]));
    store.expect_to_cancel().returning(|_| Ok(vec![]));
    store.expect_record().never();
    let mut claims = claims_granted();
    claims
        .expect_fail()
        .with(always(), always(), always())
        .times(1)
        .returning(|_, _, _| Ok(true));
    let mut platform = MockConsignmentPlatform::new();
    platform
        .expect_request()
        .returning(|_| Err(ConsignmentError::Unavailable("timeout".into())));
    let pass = service(store, claims, Some(platform), "2026-12-05")
        .run()
        .await
        .unwrap();
    assert_eq!((pass.requested, pass.deferred), (0, 1));
}

#[tokio::test]
async fn a_pending_averbacao_is_read_back_and_an_ended_contracts_is_cancelled_under_its_claim() {
    let mut store = MockAverbacaoStore::new();
    store.expect_awaiting_request().returning(|_| Ok(vec![]));
    store
        .expect_pending()
        .returning(|_| Ok(vec![case(Some(averbacao(AverbacaoStatus::Pending)))]));
    store.expect_to_cancel().returning(|_| {
        Ok(vec![AverbacaoCase {
            proposal_id: 10,
            ended: true,
            proposal_status: ProposalStatus::Cancelled,
            ..case(Some(averbacao(AverbacaoStatus::Active)))
        }])
    });
    store
        .expect_record()
        .withf(|id, a, first_due, operation, _, _| {
            *id == 9 && a.status == AverbacaoStatus::Refused && first_due.is_none() && operation.is_none()
        })
        .times(1)
        .returning(|_, _, _, _, _, _| Ok(true));
    store
        .expect_record()
        .withf(|id, a, _, operation, _, _| *id == 10 && a.status == AverbacaoStatus::Cancelled && operation.is_some())
        .times(1)
        .returning(|_, _, _, _, _, _| Ok(true));
    let mut platform = MockConsignmentPlatform::new();
    platform.expect_averbacao().with(eq("AV-1")).returning(|_| {
        Ok(Averbacao {
            reason: Some("margem consignável insuficiente".into()),
            ..averbacao(AverbacaoStatus::Refused)
        })
    });
    platform
        .expect_cancel()
        .withf(|id, reason| id == "AV-1" && reason == END_REASON)
        .times(1)
        .returning(|_, _| Ok(averbacao(AverbacaoStatus::Cancelled)));
    let mut claims = MockOperationClaims::new();
    claims
        .expect_claim()
        .withf(|o| o.kind == OperationKind::AverbacaoCancel && o.expected == ProposalStatus::Cancelled)
        .times(1)
        .returning(|_| Ok(()));
    let pass = service(store, claims, Some(platform), "2026-12-05")
        .run()
        .await
        .unwrap();
    assert_eq!((pass.refused, pass.cancelled), (1, 1));
}

#[tokio::test]
async fn without_a_platform_the_pass_only_counts_what_waits_for_the_back_office() {
    let mut store = MockAverbacaoStore::new();
    store
        .expect_awaiting_request()
        .returning(|_| Ok(vec![case(None), case(None)]));
    store.expect_record().never();
    let pass = service(store, MockOperationClaims::new(), None, "2026-12-05")
        .run()
        .await
        .unwrap();
    assert_eq!(pass.awaiting_office, 2);
    assert_eq!(pass.requested, 0);
}

#[tokio::test]
async fn the_back_office_records_forward_only() {
    let mut store = MockAverbacaoStore::new();
    store
        .expect_case_of()
        .with(eq("p-9"))
        .returning(|_| Ok(Some(case(Some(averbacao(AverbacaoStatus::Cancelled))))));
    store.expect_case_of().with(eq("p-1")).returning(|_| Ok(None));
    store.expect_record().never();
    let s = service(store, MockOperationClaims::new(), None, "2026-12-05");
    let active = averbacao(AverbacaoStatus::Active);
    assert!(matches!(
        s.record_by_office("p-9", &active, "cli:averbacao").await,
        Err(AverbacaoError::Backwards { .. })
    ));
    assert!(matches!(
        s.record_by_office("p-1", &active, "cli:averbacao").await,
        Err(AverbacaoError::NotPayroll(_))
    ));
    // The same answer again changes nothing.
    let cancelled = averbacao(AverbacaoStatus::Cancelled);
    assert!(!s.record_by_office("p-9", &cancelled, "cli:averbacao").await.unwrap());
}
