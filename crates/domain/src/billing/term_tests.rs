use super::*;
use crate::billing::arrears::{EndedForDefault, MockContractEnd};
use crate::mail::MockMailSender;
use crate::messaging::MessageStatus;
use crate::testing::At;
use mockall::predicate::eq;

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

fn instant(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// A contract received on 28 November 2026 for a year, ending on 28 November 2027.
fn term(renewal: Renewal) -> ContractTerm {
    first_term(
        Some(instant("2026-11-28T15:00:00Z")),
        instant("2026-11-30T15:00:00Z"),
        TermPolicy { months: 12, renewal },
    )
}

fn case(renewal: Renewal, noticed_at: Option<&str>) -> TermCase {
    TermCase {
        proposal_id: 7,
        identifier: "p-7".into(),
        certificate: "101-2026-00000007".into(),
        product: "Vida Individual".into(),
        term: term(renewal),
        months: 12,
        noticed_at: noticed_at.map(instant),
        contact: Contact {
            name: "Maria da Silva".into(),
            email: Some("maria@example.com".into()),
            cell_phone: None,
        },
    }
}

#[test]
fn the_first_term_runs_the_products_months_from_the_day_the_proposal_was_received() {
    let first = term(Renewal::Automatic);
    assert_eq!(
        (first.sequence, first.start, first.end),
        (1, day("2026-11-28"), day("2027-11-28"))
    );
    assert_eq!(first.renewed_at, None);
    // Received unknown: from the acceptance's Brasília day (02:00 UTC is the day before).
    let accepted = first_term(None, instant("2026-12-01T02:00:00Z"), TermPolicy::default());
    assert_eq!((accepted.start, accepted.end), (day("2026-11-30"), day("2027-11-30")));
    // A month's last day when the end month has no such day.
    assert_eq!(term_end(day("2027-01-31"), 1), day("2027-02-28"));
}

#[test]
fn a_renewal_starts_where_the_term_ended_for_the_same_months() {
    let at = instant("2027-11-28T12:00:00Z");
    let next = next_term(&term(Renewal::Automatic), 12, at);
    assert_eq!(next.sequence, 2);
    assert_eq!((next.start, next.end), (day("2027-11-28"), day("2028-11-28")));
    assert_eq!(next.renewed_at, Some(at));
}

#[test]
fn the_notice_goes_thirty_days_before_the_end_and_not_sooner() {
    let pending = case(Renewal::Automatic, None);
    assert_eq!(next_step(&pending, day("2027-10-28")), TermStep::Nothing);
    assert_eq!(
        next_step(&pending, day("2027-10-29")),
        TermStep::Notify(NoticeKind::Renewal)
    );
    let ending = case(Renewal::None, None);
    assert_eq!(
        next_step(&ending, day("2027-11-20")),
        TermStep::Notify(NoticeKind::TermEnd),
        "a notice the pass missed still goes, late"
    );
}

#[test]
fn a_renewing_contract_renews_on_its_end_day_and_only_after_its_notice() {
    let noticed = case(Renewal::Automatic, Some("2027-10-29T12:00:00Z"));
    assert_eq!(next_step(&noticed, day("2027-11-27")), TermStep::Nothing);
    assert_eq!(next_step(&noticed, day("2027-11-28")), TermStep::Renew);
    // Never noticed: the notice first, whatever the day.
    assert_eq!(
        next_step(&case(Renewal::Automatic, None), day("2027-12-01")),
        TermStep::Notify(NoticeKind::Renewal)
    );
}

#[test]
fn a_contract_that_does_not_renew_ends_at_its_term_or_thirty_days_after_a_late_notice() {
    let in_time = case(Renewal::None, Some("2027-10-29T12:00:00Z"));
    assert_eq!(next_step(&in_time, day("2027-11-27")), TermStep::Nothing);
    assert_eq!(next_step(&in_time, day("2027-11-28")), TermStep::End);
    let late = case(Renewal::None, Some("2027-11-20T12:00:00Z"));
    assert_eq!(ends_on(&late.term, day("2027-11-20")), day("2027-12-20"));
    assert_eq!(next_step(&late, day("2027-12-19")), TermStep::Nothing);
    assert_eq!(next_step(&late, day("2027-12-20")), TermStep::End);
}

#[test]
fn a_products_term_out_of_bounds_names_each_bad_value() {
    let refused = TermPolicy::new(0, "sempre").unwrap_err();
    let fields: Vec<&str> = refused.errors().iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["months", "renewal"]);
    assert!(TermPolicy::new(61, "nenhuma").is_err());
    assert_eq!(
        TermPolicy::new(24, "nenhuma").unwrap(),
        TermPolicy {
            months: 24,
            renewal: Renewal::None
        }
    );
    assert_eq!(TermPolicy::new(12, "automatica").unwrap(), TermPolicy::default());
}

fn service(store: MockTermStore, ender: MockContractEnd, mail: MockMailSender, now: &str) -> TermService {
    TermService {
        store: Arc::new(store),
        ender: Arc::new(ender),
        mail: Arc::new(mail),
        messenger: None,
        clock: Arc::new(At(instant(now))),
    }
}

#[tokio::test]
async fn the_renewal_notice_names_the_new_terms_end_and_its_delivery_is_recorded() {
    let now = instant("2027-10-29T12:00:00Z");
    let mut store = MockTermStore::new();
    store
        .expect_cases()
        .with(eq(day("2027-10-29")))
        .returning(|_| Ok(vec![case(Renewal::Automatic, None)]));
    store
        .expect_open_notice()
        .with(eq(7), eq(1), eq(NoticeKind::Renewal), eq(now))
        .times(1)
        .returning(|_, _, _, _| Ok(Some(51)));
    store
        .expect_record_deliveries()
        .withf(move |id, deliveries, _| {
            *id == 51
                && deliveries.len() == 1
                && deliveries[0].channel == "email"
                && deliveries[0].status == MessageStatus::Delivered { at: now }
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    let mut mail = MockMailSender::new();
    mail.expect_send()
        .withf(|m| match &m.kind {
            MailKind::TermNotice(n) => {
                n.kind == NoticeKind::Renewal
                    && n.term_end == "28/11/2027"
                    && n.renewed_until.as_deref() == Some("28/11/2028")
                    && n.certificate == "101-2026-00000007"
            }
            _ => false,
        })
        .times(1)
        .returning(|_| Ok(()));
    let pass = service(store, MockContractEnd::new(), mail, "2027-10-29T12:00:00Z")
        .run()
        .await
        .unwrap();
    assert_eq!(pass.notices.len(), 1);
    assert_eq!(pass.notices[0].kind, NoticeKind::Renewal);
}

#[tokio::test]
async fn a_notice_another_instance_opened_is_not_sent_twice() {
    let mut store = MockTermStore::new();
    store.expect_cases().returning(|_| Ok(vec![case(Renewal::None, None)]));
    store.expect_open_notice().returning(|_, _, _, _| Ok(None));
    store.expect_record_deliveries().never();
    let mut mail = MockMailSender::new();
    mail.expect_send().never();
    let pass = service(store, MockContractEnd::new(), mail, "2027-11-01T12:00:00Z")
        .run()
        .await
        .unwrap();
    assert!(pass.notices.is_empty());
}

#[tokio::test]
async fn on_its_end_day_a_renewing_contract_gets_its_next_term_once() {
    let now = instant("2027-11-28T12:00:00Z");
    let mut store = MockTermStore::new();
    store
        .expect_cases()
        .returning(|_| Ok(vec![case(Renewal::Automatic, Some("2027-10-29T12:00:00Z"))]));
    store
        .expect_renew()
        .withf(move |id, next, at| *id == 7 && next.sequence == 2 && next.end == day("2028-11-28") && *at == now)
        .times(1)
        .returning(|_, _, _| Ok(true));
    let mut ender = MockContractEnd::new();
    ender.expect_end_for_default().never();
    let pass = service(store, ender, MockMailSender::new(), "2027-11-28T12:00:00Z")
        .run()
        .await
        .unwrap();
    assert_eq!(pass.renewed, ["p-7"]);
    assert!(pass.ended.is_empty());
}

#[tokio::test]
async fn on_its_end_day_a_contract_that_does_not_renew_is_ended_under_its_claim() {
    let mut store = MockTermStore::new();
    store
        .expect_cases()
        .returning(|_| Ok(vec![case(Renewal::None, Some("2027-10-29T12:00:00Z"))]));
    store.expect_renew().never();
    let mut ender = MockContractEnd::new();
    ender
        .expect_end_for_default()
        .with(eq("p-7"), eq(EndCause::TermEnded))
        .times(1)
        .returning(|_, _| Ok(Some(EndedForDefault { refunds: vec![] })));
    let pass = service(store, ender, MockMailSender::new(), "2027-11-28T12:00:00Z")
        .run()
        .await
        .unwrap();
    assert_eq!(pass.ended, ["p-7"]);
}
