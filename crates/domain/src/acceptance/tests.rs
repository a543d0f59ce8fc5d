use super::ports::MockAcceptanceStore;
use super::service::{AcceptanceError, AcceptanceService, SWEEP_BATCH};
use super::*;
use crate::clock::MockClock;
use crate::values::ProposalStatus;
use chrono::TimeZone;
use std::sync::Arc;

fn at(d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, d, h, 0, 0).single().unwrap()
}

#[test]
fn the_clock_runs_the_policys_calendar_days_from_the_entry_in_analysis() {
    let clock = AcceptanceClock::start(at(1, 10), &AcceptancePolicy::default());
    assert_eq!(clock.deadline, at(16, 10));
    assert!(clock.tacit);
    assert_eq!(clock.suspensions_allowed, 1);
    assert!(!clock.is_due(at(16, 9)));
    assert!(clock.is_due(at(16, 10)));
}

#[test]
fn a_suspension_moves_the_deadline_by_the_time_it_lasted_and_stops_the_clock_meanwhile() {
    let mut clock = AcceptanceClock::start(at(1, 10), &AcceptancePolicy::new(10, true, 1, None).unwrap());
    clock.suspended_since = Some(at(3, 10));
    assert!(!clock.is_due(at(20, 0)), "a suspended clock is never due");
    assert_eq!(clock.resumed_deadline(at(7, 10)), at(15, 10));
    assert_eq!(clock.resumed_deadline(at(3, 10)), at(11, 10));
}

#[test]
fn a_decided_clock_is_never_due() {
    let mut clock = AcceptanceClock::start(at(1, 10), &AcceptancePolicy::default());
    clock.decided_at = Some(at(2, 10));
    assert!(!clock.is_due(at(28, 0)));
}

#[test]
fn a_policy_outside_the_law_names_each_option_and_the_rule() {
    let errors = AcceptancePolicy::new(0, false, 2, Some(0)).unwrap_err();
    let fields: Vec<_> = errors.errors().iter().map(|e| e.field.clone()).collect();
    assert_eq!(fields, ["days", "tacit", "suspensions", "review-days"]);
    assert!(
        errors
            .errors()
            .iter()
            .take(3)
            .all(|e| e.message.contains("Lei 15.040/2024, art. 49")),
        "{errors:?}"
    );
    assert!(AcceptancePolicy::new(26, true, 0, None).is_err(), "25 days at most");
    assert!(
        AcceptancePolicy::new(10, true, 0, Some(10)).is_err(),
        "the target comes first"
    );
    assert_eq!(
        AcceptancePolicy::new(25, true, 1, Some(10)).unwrap(),
        AcceptancePolicy {
            days: 25,
            tacit: true,
            suspensions: 1,
            review_days: Some(10),
            seller_documents: true,
        }
    );
}

#[test]
fn past_the_review_target_a_proposal_is_overdue_once_and_silence_still_accepts_it_at_the_deadline() {
    let mut clock = AcceptanceClock::start(at(1, 10), &AcceptancePolicy::new(25, true, 1, Some(10)).unwrap());
    assert_eq!(clock.review_by, Some(at(11, 10)));
    assert_eq!(clock.deadline, at(26, 10));
    assert_eq!(clock.settlement(at(11, 9)), None);
    assert_eq!(clock.settlement(at(11, 10)), Some(SweepAction::MarkOverdue));
    clock.overdue_since = Some(at(11, 10));
    assert_eq!(clock.settlement(at(20, 0)), None, "found overdue once");
    assert_eq!(clock.settlement(at(26, 10)), Some(SweepAction::Accept));
    clock.suspended_since = Some(at(26, 9));
    assert_eq!(
        clock.settlement(at(27, 0)),
        None,
        "a suspended clock waits for the answer"
    );
    // Answered two days later: both moved by the time it stood, still overdue.
    let resumed = clock.resumed(at(28, 9));
    assert_eq!((resumed.review_by, resumed.deadline), (Some(at(13, 10)), at(28, 10)));
    assert_eq!(resumed.overdue_since, Some(at(11, 10)));
    assert_eq!(resumed.settlement(at(28, 10)), Some(SweepAction::Accept));
    // Without a target, a clock silence accepts is never overdue.
    let plain = AcceptanceClock::start(at(1, 10), &AcceptancePolicy::default());
    assert_eq!(plain.settlement(at(15, 10)), None);
    assert_eq!(plain.settlement(at(16, 10)), Some(SweepAction::Accept));
    let mut decided = plain.clone();
    decided.decided_at = Some(at(2, 10));
    assert_eq!(decided.settlement(at(28, 0)), None);
}

#[test]
fn a_clock_started_before_the_law_without_tacit_acceptance_is_only_ever_overdue() {
    let legacy = AcceptancePolicy {
        days: 10,
        tacit: false,
        suspensions: 2,
        review_days: None,
        seller_documents: true,
    };
    let clock = AcceptanceClock::start(at(1, 10), &legacy);
    assert_eq!(clock.settlement(at(11, 10)), Some(SweepAction::MarkOverdue));
    assert_eq!(clock.settlement(at(30, 0)), Some(SweepAction::MarkOverdue));
}

fn service(store: MockAcceptanceStore) -> AcceptanceService {
    let mut clock = MockClock::new();
    clock.expect_now().return_const(at(20, 12));
    AcceptanceService {
        store: Arc::new(store),
        partners: Arc::new(crate::proposals::ports::MockPartnerDirectory::new()),
        clock: Arc::new(clock),
    }
}

#[tokio::test]
async fn the_sweep_moves_tacit_clocks_to_approved_with_the_tacit_reason_until_a_batch_is_short() {
    let mut store = MockAcceptanceStore::new();
    let mut calls = 0;
    store
        .expect_settle_due()
        .withf(|now, limit, tacit| {
            *now == at(20, 12)
                && *limit == SWEEP_BATCH
                && tacit.change.from == ProposalStatus::InAnalysis
                && tacit.change.to == ProposalStatus::Approved
                && tacit.change.reason.as_deref() == Some(TACIT_ACCEPTANCE)
                && tacit.change.changed_by == SWEEP_ACTOR
                && tacit.change.at == at(20, 12)
        })
        .times(2)
        .returning(move |_, _, _| {
            calls += 1;
            if calls == 1 {
                let mut full: Vec<Settled> = (0..SWEEP_BATCH - 1)
                    .map(|i| Settled::Accepted {
                        identifier: format!("p{i}"),
                    })
                    .collect();
                full.push(Settled::Overdue {
                    identifier: "late".into(),
                });
                Ok(full)
            } else {
                Ok(vec![Settled::Accepted {
                    identifier: "last".into(),
                }])
            }
        });
    let report = service(store).sweep().await.unwrap();
    assert_eq!(report.accepted.len() as i64, SWEEP_BATCH);
    assert_eq!(report.accepted.last().unwrap(), "last");
    assert_eq!(report.overdue, ["late"]);
}

#[tokio::test]
async fn a_policy_for_a_product_that_does_not_exist_is_refused() {
    let mut store = MockAcceptanceStore::new();
    store.expect_set_policy().returning(|_, _, _| Ok(false));
    let error = service(store)
        .set_policy(999, AcceptancePolicy::default(), "op")
        .await
        .unwrap_err();
    assert_eq!(error, AcceptanceError::ProductNotFound(999));
}

#[test]
fn a_clock_is_suspended_once_at_a_time_within_the_products_suspensions() {
    let mut clock = AcceptanceClock::start(at(1, 10), &AcceptancePolicy::new(10, true, 1, None).unwrap());
    assert_eq!(clock.may_suspend(0), Ok(()));
    assert_eq!(
        clock.may_suspend(1),
        Err(SuspendRefusal::NoSuspensionsLeft { allowed: 1 })
    );
    clock.suspended_since = Some(at(2, 10));
    assert_eq!(clock.may_suspend(1), Err(SuspendRefusal::AlreadySuspended));
    clock.suspended_since = None;
    clock.decided_at = Some(at(3, 10));
    assert_eq!(clock.may_suspend(0), Err(SuspendRefusal::Decided));
    let none = AcceptanceClock::start(at(1, 10), &AcceptancePolicy::new(10, true, 0, None).unwrap());
    assert_eq!(
        none.may_suspend(0),
        Err(SuspendRefusal::NoSuspensionsLeft { allowed: 0 })
    );
}

#[test]
fn a_resumed_clock_is_no_longer_overdue_when_its_new_deadline_is_ahead() {
    // A clock started before the law, not accepted by silence (decision 278).
    let legacy = AcceptancePolicy {
        days: 5,
        tacit: false,
        suspensions: 1,
        review_days: None,
        seller_documents: true,
    };
    let mut clock = AcceptanceClock::start(at(1, 10), &legacy);
    clock.overdue_since = Some(at(6, 10));
    clock.suspended_since = Some(at(6, 12));
    let resumed = clock.resumed(at(9, 12));
    assert_eq!(resumed.deadline, at(9, 10));
    assert_eq!(resumed.suspended_since, None);
    assert_eq!(resumed.overdue_since, Some(at(6, 10)), "still past its deadline");
    clock.overdue_since = None;
    let mut early = clock.clone();
    early.suspended_since = Some(at(3, 10));
    let resumed = early.resumed(at(5, 10));
    assert_eq!(resumed.deadline, at(8, 10));
    assert_eq!(resumed.overdue_since, None);
}

fn principal(application: crate::values::Application) -> crate::auth::model::Principal {
    crate::auth::model::Principal {
        user_id: 7,
        email: "bo@demo.com.br".into(),
        application,
        session_id: uuid::Uuid::nil(),
    }
}

/// The documents channel over `store`, its secret `token` and its mails kept in `sent`.
fn documents(
    store: MockAcceptanceStore,
    sent: Arc<std::sync::Mutex<Vec<crate::mail::MailMessage>>>,
) -> super::proponent::ProponentDocuments {
    struct Kept(Arc<std::sync::Mutex<Vec<crate::mail::MailMessage>>>);
    impl crate::mail::MailOutbox for Kept {
        fn enqueue(&self, message: crate::mail::MailMessage) {
            self.0.lock().unwrap().push(message);
        }
    }
    struct Fixed;
    impl crate::recovery::SecretGenerator for Fixed {
        fn recovery_token(&self) -> String {
            "segredo".to_owned()
        }
    }
    let mut clock = MockClock::new();
    clock.expect_now().return_const(at(20, 12));
    super::proponent::ProponentDocuments {
        store: Arc::new(store),
        secrets: Arc::new(Fixed),
        outbox: Arc::new(Kept(sent)),
        clock: Arc::new(clock),
        policy: super::proponent::DocumentsLinkPolicy {
            link_base: "https://vendas.exemplo.com.br/documentos/".to_owned(),
        },
    }
}

fn opened_for(recipient: super::pending::PendingRecipient, email: Option<&str>) -> super::ports::PendingOpened {
    super::ports::PendingOpened {
        id: 1,
        identifier: "p-1".to_owned(),
        suspended_since: at(20, 12),
        category: crate::values::ReasonCategory::Health,
        recipient,
        proponent: (recipient == super::pending::PendingRecipient::Proponent).then(|| super::ports::ProponentAddress {
            email: email.map(str::to_owned),
            product: "Seguro Vida".to_owned(),
        }),
    }
}

#[tokio::test]
async fn only_the_back_office_asks_for_documents_and_it_is_recorded_at_the_clocks_now() {
    use super::pending::{DocumentsRequest, PendingRecipient};
    use crate::values::{Application, ReasonCategory};
    let mut store = MockAcceptanceStore::new();
    store
        .expect_open_pending()
        .withf(|identifier, request, by, link, now| {
            identifier == "p-1"
                && request.items == ["RG"]
                && by == "bo@demo.com.br"
                && *link == crate::recovery::token_hash("segredo")
                && *now == at(20, 12)
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(opened_for(PendingRecipient::Seller, None)));
    let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
    let service = documents(store, sent.clone());
    let request = DocumentsRequest {
        items: vec!["RG".into()],
        note: None,
        category: ReasonCategory::Documentation,
    };
    let refused = service
        .request_documents(&principal(Application::Partner), "p-1", request.clone())
        .await
        .unwrap_err();
    assert_eq!(
        refused,
        super::service::PendingError::Access(crate::access::AccessError::Forbidden)
    );
    let opened = service
        .request_documents(&principal(Application::BackOffice), "p-1", request)
        .await
        .unwrap();
    assert_eq!(opened.suspended_since, at(20, 12));
    assert!(sent.lock().unwrap().is_empty(), "the seller's request mails no one");
}

#[tokio::test]
async fn a_request_for_the_proponent_mails_them_the_link_with_what_is_asked() {
    use super::pending::{DocumentsRequest, PendingRecipient};
    use crate::mail::MailKind;
    use crate::values::{Application, ReasonCategory};
    let mut store = MockAcceptanceStore::new();
    store.expect_open_pending().times(2).returning({
        let mut calls = 0;
        move |_, _, _, _, _| {
            calls += 1;
            let email = (calls == 1).then_some("maria@exemplo.com.br");
            Ok(opened_for(PendingRecipient::Proponent, email))
        }
    });
    let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
    let service = documents(store, sent.clone());
    let request = DocumentsRequest {
        items: vec!["Laudo cardiológico".into()],
        note: Some("Declarou hipertensão".into()),
        category: ReasonCategory::Health,
    };
    let office = principal(Application::BackOffice);
    service
        .request_documents(&office, "p-1", request.clone())
        .await
        .unwrap();
    let mails = sent.lock().unwrap().clone();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to.as_str(), "maria@exemplo.com.br");
    let MailKind::DocumentsRequested(notice) = &mails[0].kind else {
        panic!("{:?}", mails[0].kind)
    };
    assert_eq!(notice.link, "https://vendas.exemplo.com.br/documentos/segredo");
    assert_eq!(notice.items, ["Laudo cardiológico"]);
    assert_eq!(notice.note.as_deref(), Some("Declarou hipertensão"));
    // Without an e-mail the request stands, and nothing is sent.
    service.request_documents(&office, "p-1", request).await.unwrap();
    assert_eq!(sent.lock().unwrap().len(), 1);
}

#[test]
fn a_seller_reads_of_a_proponents_request_only_that_it_was_asked_and_answered() {
    use super::pending::PendingRecipient;
    use crate::values::{Application, ReasonCategory};
    let request = |recipient| PendingRequest {
        id: 1,
        items: vec!["Laudo cardiológico".into()],
        note: Some("Declarou hipertensão".into()),
        category: ReasonCategory::Health,
        recipient,
        requested_by: "bo@demo.com.br".into(),
        requested_at: at(20, 12),
        answer: Some(PendingAnswer {
            note: "Segue o laudo".into(),
            answered_by: super::pending::PROPONENT_ACTOR.into(),
            answered_at: at(21, 12),
            files: vec![PendingFile {
                id: 7,
                name: "laudo.pdf".into(),
                content_type: "application/pdf".into(),
                size: 10,
                sha256: "ab".into(),
            }],
        }),
    };
    let seller = request(PendingRecipient::Proponent).as_read_by(&principal(Application::Partner));
    assert!(seller.items.is_empty());
    assert_eq!(seller.note, None);
    assert_eq!(seller.category, ReasonCategory::Health);
    let answer = seller.answer.unwrap();
    assert_eq!(
        (answer.note.as_str(), answer.files.len(), answer.answered_at),
        ("", 0, at(21, 12))
    );
    let office = request(PendingRecipient::Proponent).as_read_by(&principal(Application::BackOffice));
    assert_eq!(office, request(PendingRecipient::Proponent));
    let own = request(PendingRecipient::Seller).as_read_by(&principal(Application::Partner));
    assert_eq!(
        own,
        request(PendingRecipient::Seller),
        "a seller reads the requests it answers"
    );
}

#[test]
fn only_documentation_the_product_leaves_to_its_sellers_goes_to_the_seller() {
    use super::pending::PendingRecipient;
    use crate::values::ReasonCategory;
    assert_eq!(
        PendingRecipient::of(ReasonCategory::Documentation, true),
        PendingRecipient::Seller
    );
    assert_eq!(
        PendingRecipient::of(ReasonCategory::Documentation, false),
        PendingRecipient::Proponent
    );
    for category in ReasonCategory::ALL
        .iter()
        .filter(|c| **c != ReasonCategory::Documentation)
    {
        assert_eq!(
            PendingRecipient::of(*category, true),
            PendingRecipient::Proponent,
            "{category:?}"
        );
    }
}

#[tokio::test]
async fn the_back_office_does_not_answer_for_the_seller() {
    use super::pending::PendingAnswerInput;
    use crate::values::Application;
    let service = service(MockAcceptanceStore::new());
    let refused = service
        .answer_pending(
            &principal(Application::BackOffice),
            "p-1",
            1,
            PendingAnswerInput {
                note: "Segue".into(),
                files: Vec::new(),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(
        refused,
        super::service::PendingError::Access(crate::access::AccessError::Forbidden)
    );
}

#[tokio::test]
async fn only_the_back_office_assigns_and_a_blank_analyst_is_no_one() {
    use crate::values::Application;
    let mut store = MockAcceptanceStore::new();
    store
        .expect_assign()
        .withf(|identifier, analyst, by, now| {
            identifier == "p-1" && analyst.is_none() && by == "bo@demo.com.br" && *now == at(20, 12)
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    store
        .expect_assign()
        .withf(|_, analyst, _, _| analyst.as_deref() == Some("ana@demo.com.br"))
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(store);
    let refused = service
        .assign(&principal(Application::Partner), "p-1", Some("ana@demo.com.br"))
        .await
        .unwrap_err();
    assert_eq!(
        refused,
        super::service::PendingError::Access(crate::access::AccessError::Forbidden)
    );
    let office = principal(Application::BackOffice);
    service.assign(&office, "p-1", Some("  ")).await.unwrap();
    service.assign(&office, "p-1", Some(" ana@demo.com.br ")).await.unwrap();
}
