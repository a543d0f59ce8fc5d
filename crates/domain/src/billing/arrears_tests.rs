use super::*;
use crate::mail::{MailError, MockMailSender};
use crate::messaging::{MockMessenger, SentMessage};
use crate::testing::At;
use mockall::predicate::{always, eq};

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

fn instant(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn received(at: &str) -> NoticeStanding {
    NoticeStanding {
        received_at: Some(instant(at)),
        frustrated_at: None,
    }
}

/// A Pix contract late since 14 December 2026 on its second period.
fn case(status: BillingStatus) -> ArrearsCase {
    ArrearsCase {
        proposal_id: 7,
        identifier: "p-7".into(),
        certificate: "101-2026-00000007".into(),
        product: "Vida Individual".into(),
        method: PaymentType::PixAutomatic.as_str().into(),
        status,
        since: instant("2026-12-14T12:00:00Z"),
        first_instalment: FirstInstalment::Ends,
        end_days: 30,
        first_failed: false,
        oldest_unpaid: Some(UnpaidCharge {
            period: 2,
            due_date: day("2026-12-08"),
            amount: 3990,
        }),
        late_notice: None,
        end_warning: None,
        contact: Contact {
            name: "Maria da Silva".into(),
            email: Some("maria@example.com".into()),
            cell_phone: Some("(11) 91234-5678".into()),
        },
        policyholder: None,
    }
}

#[test]
fn the_cover_is_suspended_no_sooner_than_fifteen_days_from_the_notices_receipt() {
    let from = Some(day("2026-12-14"));
    assert!(!may_suspend(None, day("2027-06-01")), "never without a notice");
    assert!(!may_suspend(from, day("2026-12-28")), "fourteen days");
    assert!(may_suspend(from, day("2026-12-29")), "fifteen days");
}

#[test]
fn a_notices_days_count_from_its_receipt_else_from_its_frustration() {
    // 02:30 UTC is still the day before in Brasília.
    assert_eq!(received("2026-12-15T02:30:00Z").counts_from(), Some(day("2026-12-14")));
    let frustrated = NoticeStanding {
        received_at: None,
        frustrated_at: Some(instant("2026-12-16T12:00:00Z")),
    };
    assert_eq!(frustrated.counts_from(), Some(day("2026-12-16")));
    assert_eq!(NoticeStanding::default().counts_from(), None);
}

#[test]
fn a_contract_ends_no_sooner_than_thirty_days_after_its_suspension_whatever_its_product_says() {
    assert_eq!(ends_from(day("2027-01-07"), 30), day("2027-02-06"));
    assert_eq!(ends_from(day("2027-01-07"), 10), day("2027-02-06"), "the law's floor");
    assert_eq!(ends_from(day("2027-01-07"), 60), day("2027-03-08"));
}

#[test]
fn the_first_instalment_failed_for_good_ends_the_contract_where_the_terms_keep_the_law() {
    let mut first = case(BillingStatus::Late);
    first.first_failed = true;
    assert_eq!(
        next_step(&first, day("2026-12-20")),
        ArrearsStep::End(EndCause::FirstInstalment)
    );
    let mut suspends = first.clone();
    suspends.first_instalment = FirstInstalment::Suspends;
    assert_eq!(
        next_step(&suspends, day("2026-12-20")),
        ArrearsStep::Notify(NoticeKind::Late),
        "the product's terms say otherwise: noticed like any other"
    );
    let mut payroll = first;
    payroll.method = PaymentType::PayrollDiscount.as_str().into();
    assert_eq!(
        next_step(&payroll, day("2026-12-20")),
        ArrearsStep::Notify(NoticeKind::Late),
        "the employer's failure is not the insured's"
    );
}

#[test]
fn a_late_contract_is_noticed_once_and_a_suspended_one_warned_then_ended_after_the_days() {
    let today = day("2027-01-10");
    assert_eq!(next_step(&case(BillingStatus::UpToDate), today), ArrearsStep::Nothing);
    let late = case(BillingStatus::Late);
    assert_eq!(next_step(&late, today), ArrearsStep::Notify(NoticeKind::Late));
    let noticed = ArrearsCase {
        late_notice: Some(received("2026-12-14T12:00:00Z")),
        ..late
    };
    assert_eq!(next_step(&noticed, today), ArrearsStep::Nothing);

    let suspended = ArrearsCase {
        status: BillingStatus::Suspended,
        since: instant("2027-01-07T12:00:00Z"),
        ..noticed
    };
    assert_eq!(
        next_step(&suspended, today),
        ArrearsStep::Notify(NoticeKind::EndWarning)
    );
    let sent_unknown = ArrearsCase {
        end_warning: Some(NoticeStanding::default()),
        ..suspended.clone()
    };
    assert_eq!(
        next_step(&sent_unknown, day("2027-03-01")),
        ArrearsStep::Nothing,
        "the end waits for its notice's receipt"
    );
    let warned = ArrearsCase {
        end_warning: Some(received("2027-01-07T12:05:00Z")),
        ..suspended
    };
    assert_eq!(next_step(&warned, day("2027-02-05")), ArrearsStep::Nothing, "29 days");
    assert_eq!(
        next_step(&warned, day("2027-02-06")),
        ArrearsStep::End(EndCause::AfterSuspension),
        "30 days"
    );
}

fn service(
    store: MockArrearsStore,
    ender: MockContractEnd,
    mail: MockMailSender,
    messenger: Option<MockMessenger>,
) -> ArrearsService {
    ArrearsService {
        store: Arc::new(store),
        ender: Arc::new(ender),
        mail: Arc::new(mail),
        messenger: messenger.map(|m| (Arc::new(m) as Arc<dyn Messenger>, MessageChannel::Sms)),
        clock: Arc::new(At(instant("2026-12-14T12:00:00Z"))),
    }
}

#[tokio::test]
async fn a_late_contracts_notice_goes_by_email_and_sms_with_the_laws_warnings_and_each_delivery_recorded() {
    let now = instant("2026-12-14T12:00:00Z");
    let mut store = MockArrearsStore::new();
    store.expect_awaiting_receipt().returning(|| Ok(vec![]));
    store.expect_cases().returning(|| Ok(vec![case(BillingStatus::Late)]));
    store
        .expect_open_notice()
        .with(eq(7), eq(NoticeKind::Late), always(), eq(now))
        .times(1)
        .returning(|_, _, _, _| Ok(Some(41)));
    store
        .expect_record_deliveries()
        .withf(move |id, deliveries, at| {
            *id == 41
                && *at == now
                && deliveries
                    == [
                        NoticeDelivery {
                            channel: "email".into(),
                            destination: "m***@example.com".into(),
                            external_id: None,
                            status: MessageStatus::Delivered { at: now },
                        },
                        NoticeDelivery {
                            channel: "sms".into(),
                            destination: "(11) *****-5678".into(),
                            external_id: Some("SM1".into()),
                            status: MessageStatus::Accepted,
                        },
                    ]
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    let mut mail = MockMailSender::new();
    mail.expect_send()
        .withf(|m| match &m.kind {
            MailKind::ArrearsNotice(n) => {
                n.kind == NoticeKind::Late
                    && n.identifier == "p-7"
                    && n.certificate == "101-2026-00000007"
                    && n.amount == "R$ 39,90"
                    && n.notice_days == 15
            }
            _ => false,
        })
        .times(1)
        .returning(|_| Ok(()));
    let mut messenger = MockMessenger::new();
    messenger
        .expect_send()
        .withf(|m| {
            m.text.contains("15 dias do recebimento")
                && m.text.contains("certificado 101-2026-00000007")
                && m.text.contains("suspensa")
                && m.text.contains("sinistros desde 08/12/2026")
                && m.text.chars().count() <= MAX_TEXT_CHARS
        })
        .times(1)
        .returning(|_| {
            Ok(SentMessage {
                id: "SM1".into(),
                status: MessageStatus::Accepted,
            })
        });
    let pass = service(store, MockContractEnd::new(), mail, Some(messenger))
        .run()
        .await
        .unwrap();
    assert_eq!(pass.notices.len(), 1);
    assert_eq!(pass.notices[0].kind, NoticeKind::Late);
}

#[tokio::test]
async fn a_notice_another_instance_opened_is_not_sent_twice() {
    let mut store = MockArrearsStore::new();
    store.expect_cases().returning(|| Ok(vec![case(BillingStatus::Late)]));
    store.expect_open_notice().returning(|_, _, _, _| Ok(None));
    let mut mail = MockMailSender::new();
    mail.expect_send().never();
    let pass = service(store, MockContractEnd::new(), mail, None).run().await.unwrap();
    assert_eq!(pass, ArrearsPass::default());
}

#[tokio::test]
async fn a_notice_no_channel_delivered_is_recorded_so_its_days_run_from_the_frustration() {
    let now = instant("2026-12-14T12:00:00Z");
    let mut store = MockArrearsStore::new();
    store.expect_cases().returning(|| Ok(vec![case(BillingStatus::Late)]));
    store.expect_open_notice().returning(|_, _, _, _| Ok(Some(41)));
    store
        .expect_record_deliveries()
        .withf(move |_, deliveries, _| {
            deliveries.len() == 1
                && deliveries[0].status
                    == MessageStatus::Failed {
                        at: now,
                        reason: "e-mail não enviado: 550 mailbox unavailable".into(),
                    }
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    let mut mail = MockMailSender::new();
    mail.expect_send()
        .returning(|_| Err(MailError("550 mailbox unavailable".into())));
    service(store, MockContractEnd::new(), mail, None).run().await.unwrap();
}

#[tokio::test]
async fn a_contract_ended_for_its_premium_is_told_what_goes_back() {
    let mut store = MockArrearsStore::new();
    store.expect_cases().returning(|| {
        let mut first = case(BillingStatus::Late);
        first.first_failed = true;
        Ok(vec![first])
    });
    store
        .expect_open_notice()
        .with(eq(7), eq(NoticeKind::Ended), always(), always())
        .times(1)
        .returning(|_, _, _, _| Ok(Some(42)));
    store.expect_record_deliveries().times(1).returning(|_, _, _| Ok(()));
    let mut ender = MockContractEnd::new();
    ender
        .expect_end_for_default()
        .with(eq("p-7"), eq(EndCause::FirstInstalment))
        .times(1)
        .returning(|_, _| {
            Ok(Some(EndedForDefault {
                refunds: vec!["R$ 12,00 devolvidos por Pix à conta que pagou".into()],
            }))
        });
    let mut mail = MockMailSender::new();
    mail.expect_send()
        .withf(|m| matches!(&m.kind, MailKind::ArrearsNotice(n) if n.kind == NoticeKind::Ended && n.refunds.len() == 1))
        .times(1)
        .returning(|_| Ok(()));
    let pass = service(store, ender, mail, None).run().await.unwrap();
    assert_eq!(pass.ended, ["p-7"]);
}

#[tokio::test]
async fn a_text_messages_receipt_reported_later_is_read_back_and_recorded() {
    let delivered = MessageStatus::Delivered {
        at: instant("2026-12-14T11:00:00Z"),
    };
    let mut store = MockArrearsStore::new();
    store
        .expect_awaiting_receipt()
        .returning(|| Ok(vec![(5, "SM1".into()), (6, "SM2".into())]));
    let recorded = delivered.clone();
    store
        .expect_record_receipt()
        .withf(move |id, status| *id == 5 && *status == recorded)
        .times(1)
        .returning(|_, _| Ok(()));
    store.expect_cases().returning(|| Ok(vec![]));
    let mut messenger = MockMessenger::new();
    messenger.expect_status().returning(move |id| {
        Ok(if id == "SM1" {
            delivered.clone()
        } else {
            MessageStatus::Accepted
        })
    });
    let pass = service(store, MockContractEnd::new(), MockMailSender::new(), Some(messenger))
        .run()
        .await
        .unwrap();
    assert_eq!(pass.receipts, 1);
}

#[test]
fn a_collective_life_contract_ends_no_sooner_than_ninety_days_after_its_policyholders_last_notice() {
    let policyholder = |at: Option<&str>| Policyholder {
        name: "Associação Nacional dos Segurados".into(),
        email: Some("cadastro@associacao.org.br".into()),
        end_warning_at: at.map(instant),
        end_warning_owed: None,
    };
    // Suspended on 7 January, the end's notice received by the insured the same day.
    let warned = ArrearsCase {
        status: BillingStatus::Suspended,
        since: instant("2027-01-07T12:00:00Z"),
        late_notice: Some(received("2026-12-14T12:00:00Z")),
        end_warning: Some(received("2027-01-07T12:05:00Z")),
        policyholder: Some(policyholder(Some("2027-01-07T12:06:00Z"))),
        ..case(BillingStatus::Suspended)
    };
    // Thirty days after the suspension an individual contract would end; this one does not.
    assert_eq!(next_step(&warned, day("2027-02-06")), ArrearsStep::Nothing);
    assert_eq!(next_step(&warned, day("2027-04-06")), ArrearsStep::Nothing, "89 days");
    assert_eq!(
        next_step(&warned, day("2027-04-07")),
        ArrearsStep::End(EndCause::AfterSuspension),
        "90 days after the policyholder's notice"
    );
    assert_eq!(earliest_end(&warned, Some(day("2027-01-07"))), Some(day("2027-04-07")));
    // A product whose end days exceed the ninety keeps its own.
    let longer = ArrearsCase {
        end_days: 120,
        ..warned.clone()
    };
    assert_eq!(earliest_end(&longer, Some(day("2027-01-07"))), Some(day("2027-05-07")));
    // Never noticed (no address, or its mail refused): it never ends by itself.
    let unnoticed = ArrearsCase {
        policyholder: Some(policyholder(None)),
        ..warned
    };
    assert_eq!(next_step(&unnoticed, day("2028-01-01")), ArrearsStep::Nothing);
    assert_eq!(earliest_end(&unnoticed, None), None);
}

#[tokio::test]
async fn a_collective_contracts_notice_goes_to_its_policyholder_too_and_is_recorded_once_taken() {
    let now = instant("2026-12-14T12:00:00Z");
    let mut store = MockArrearsStore::new();
    store.expect_awaiting_receipt().returning(|| Ok(vec![]));
    store.expect_cases().returning(|| {
        Ok(vec![ArrearsCase {
            status: BillingStatus::Suspended,
            late_notice: Some(received("2026-11-20T12:00:00Z")),
            policyholder: Some(Policyholder {
                name: "Associação Nacional dos Segurados".into(),
                email: Some("cadastro@associacao.org.br".into()),
                end_warning_at: None,
                end_warning_owed: None,
            }),
            ..case(BillingStatus::Suspended)
        }])
    });
    store.expect_open_notice().returning(|_, _, _, _| Ok(Some(42)));
    store.expect_record_deliveries().times(1).returning(|_, _, _| Ok(()));
    store
        .expect_record_policyholder_notice()
        .withf(move |id, destination, at| *id == 42 && destination == "c***@associacao.org.br" && *at == now)
        .times(1)
        .returning(|_, _, _| Ok(()));
    let mut mail = MockMailSender::new();
    // The insured's end notice names the end 90 days after the policyholder's (sent now).
    mail.expect_send()
        .withf(|m| matches!(&m.kind, MailKind::ArrearsNotice(n) if n.kind == NoticeKind::EndWarning && n.ends_on == "14/03/2027"))
        .times(1)
        .returning(|_| Ok(()));
    mail.expect_send()
        .withf(|m| {
            m.to.as_str() == "cadastro@associacao.org.br"
                && matches!(&m.kind, MailKind::PolicyholderNotice(n)
                    if n.policyholder == "Associação Nacional dos Segurados"
                        && n.notice.customer_name == "Maria da Silva"
                        && n.notice.ends_on == "14/03/2027")
        })
        .times(1)
        .returning(|_| Ok(()));
    let pass = service(store, MockContractEnd::new(), mail, None).run().await.unwrap();
    assert_eq!(pass.notices.len(), 1);

    // The policyholder's mail refused: nothing recorded, so the end will wait for a notice.
    let mut store = MockArrearsStore::new();
    store.expect_cases().returning(|| {
        Ok(vec![ArrearsCase {
            policyholder: Some(Policyholder {
                name: "Associação".into(),
                email: Some("cadastro@associacao.org.br".into()),
                end_warning_at: None,
                end_warning_owed: None,
            }),
            ..case(BillingStatus::Late)
        }])
    });
    store.expect_open_notice().returning(|_, _, _, _| Ok(Some(43)));
    store.expect_record_deliveries().returning(|_, _, _| Ok(()));
    store.expect_record_policyholder_notice().never();
    let mut mail = MockMailSender::new();
    mail.expect_send()
        .withf(|m| matches!(m.kind, MailKind::ArrearsNotice(_)))
        .returning(|_| Ok(()));
    mail.expect_send()
        .withf(|m| matches!(m.kind, MailKind::PolicyholderNotice(_)))
        .times(1)
        .returning(|_| Err(MailError("550".into())));
    service(store, MockContractEnd::new(), mail, None).run().await.unwrap();
}

#[tokio::test]
async fn a_copy_of_the_end_notice_the_policyholder_never_received_is_sent_again_until_taken() {
    let now = instant("2027-01-20T12:00:00Z");
    let owed = || ArrearsCase {
        status: BillingStatus::Suspended,
        since: instant("2027-01-07T12:00:00Z"),
        late_notice: Some(received("2026-12-14T12:00:00Z")),
        end_warning: Some(received("2027-01-07T12:05:00Z")),
        policyholder: Some(Policyholder {
            name: "Associação Nacional dos Segurados".into(),
            email: Some("cadastro@associacao.org.br".into()),
            end_warning_at: None,
            end_warning_owed: Some(44),
        }),
        ..case(BillingStatus::Suspended)
    };
    let mut store = MockArrearsStore::new();
    store.expect_cases().returning(move || Ok(vec![owed()]));
    store.expect_open_notice().never();
    store
        .expect_record_policyholder_notice()
        .withf(move |id, destination, at| *id == 44 && destination == "c***@associacao.org.br" && *at == now)
        .times(1)
        .returning(|_, _, _| Ok(()));
    let mut mail = MockMailSender::new();
    // The end named from today's copy: 90 days after 20 January.
    mail.expect_send()
        .withf(|m| {
            m.to.as_str() == "cadastro@associacao.org.br"
                && matches!(&m.kind, MailKind::PolicyholderNotice(n)
                    if n.notice.kind == NoticeKind::EndWarning && n.notice.ends_on == "20/04/2027")
        })
        .times(1)
        .returning(|_| Ok(()));
    let ender = MockContractEnd::new();
    let pass = ArrearsService {
        store: Arc::new(store),
        ender: Arc::new(ender),
        mail: Arc::new(mail),
        messenger: None,
        clock: Arc::new(At(now)),
    }
    .run()
    .await
    .unwrap();
    assert_eq!(pass.notices, Vec::new(), "the insured is not noticed again");
    assert_eq!(pass.ended, Vec::<String>::new());
}
