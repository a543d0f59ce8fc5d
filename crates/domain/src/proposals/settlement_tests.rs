//! Use-case tests of the refusal and the cancellation after the sale, over mocked ports: the move
//! is judged before the justification, money goes back before anything is recorded, a refused
//! refund records nothing, the regret takes precedence within its days.

use super::*;
use crate::contract::MockDocumentRenderer;
use crate::ecommerce::{MockPaymentGateway, PaidInvoice, PlatformSubscription, Refund};
use crate::mail::MockMailOutbox;
use crate::proposals::model::Flow;
use crate::proposals::ports::{MockPartnerDirectory, MockProposalStore};
use crate::proposals::requests::{MockCustomerRequestStore, Protocol, SaleMoments, SubscriptionStart};
use crate::refunds::correction::MonthlyRate;
use crate::refunds::plan::PaidCharge;
use crate::refunds::ports::{MockPriceIndex, MockRefundStore};
use crate::signature::{MockSignatureProvider, MockSignatureStore};
use crate::values::{Application, EventKind, ReasonCategory};
use chrono::{Datelike, TimeZone};

/// A clock stopped at one instant.
struct At(DateTime<Utc>);

impl Clock for At {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}

fn noon(y: i32, m: u32, d: u32) -> DateTime<Utc> {
    brasilia()
        .with_ymd_and_hms(y, m, d, 12, 0, 0)
        .single()
        .unwrap()
        .with_timezone(&Utc)
}

fn office() -> Principal {
    Principal {
        user_id: 1,
        email: "bo@demo.com.br".into(),
        application: Application::BackOffice,
        session_id: uuid::Uuid::nil(),
    }
}

struct Mocks {
    status: &'static str,
    flow: Flow,
    value: i64,
    moments: SaleMoments,
    gateway: MockPaymentGateway,
    refunds: MockRefundStore,
    mail: MockMailOutbox,
    now: DateTime<Utc>,
}

impl Mocks {
    /// An online sale paid on 1 November 2026 (R$ 39,90, a month's cover), judged on `now`.
    fn online(status: &'static str, now: DateTime<Utc>) -> Self {
        let paid = noon(2026, 11, 1);
        let mut gateway = MockPaymentGateway::new();
        gateway.expect_paid_invoices().returning(move |_| {
            Ok(vec![PaidInvoice {
                invoice_id: "in_1".into(),
                amount: 3990,
                payment_intent: "pi_1".into(),
                paid_at: Some(paid),
                period: Some((paid, noon(2026, 12, 1))),
            }])
        });
        Mocks {
            status,
            flow: Flow::Ecommerce,
            value: 0,
            moments: SaleMoments {
                last_signature: None,
                subscription: Some(SubscriptionStart {
                    platform_id: "sub_1".into(),
                    started_at: paid,
                    status: "active".into(),
                }),
            },
            gateway,
            refunds: MockRefundStore::new(),
            mail: MockMailOutbox::new(),
            now,
        }
    }

    /// A partner's sale of R$ 25,00 a month, signed on 1 November 2026, judged on `now`.
    fn partner(status: &'static str, now: DateTime<Utc>) -> Self {
        Mocks {
            status,
            flow: Flow::Partner,
            value: 2500,
            moments: SaleMoments {
                last_signature: Some(noon(2026, 11, 1)),
                subscription: None,
            },
            gateway: MockPaymentGateway::new(),
            refunds: MockRefundStore::new(),
            mail: MockMailOutbox::new(),
            now,
        }
    }

    fn service(self) -> SettlementService {
        let (status, flow, value) = (self.status, self.flow, self.value);
        let mut proposals = MockProposalStore::new();
        proposals.expect_detail().returning(move |_, _| {
            let mut detail = crate::testing::detail(status);
            detail.proposal.flow = flow;
            detail.proposal.value = value;
            detail.customer.person.email = Some("maria@exemplo.com.br".into());
            Ok(Some(detail))
        });
        let moments = self.moments.clone();
        let mut requests = MockCustomerRequestStore::new();
        requests.expect_sale_moments().returning(move |_| Ok(moments.clone()));
        let mut index = MockPriceIndex::new();
        index.expect_monthly().returning(|_, _| {
            Ok(vec![MonthlyRate {
                month: NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(),
                hundredths: 60,
            }])
        });
        let proposals: Arc<dyn ProposalStore> = Arc::new(proposals);
        let partners: Arc<dyn PartnerDirectory> = Arc::new(MockPartnerDirectory::new());
        let requests: Arc<dyn CustomerRequestStore> = Arc::new(requests);
        let claims: Arc<dyn OperationClaims> = Arc::new(crate::proposals::operations::accepting_claims());
        let clock: Arc<dyn Clock> = Arc::new(At(self.now));
        SettlementService {
            signing: SigningService {
                proposals: proposals.clone(),
                partners: partners.clone(),
                signatures: Arc::new(MockSignatureStore::new()),
                provider: Arc::new(MockSignatureProvider::new()),
                requests: requests.clone(),
                renderer: Arc::new(MockDocumentRenderer::new()),
                claims: claims.clone(),
                clock: clock.clone(),
                max_resends: 3,
                signing_deadline: chrono::Duration::days(10),
                callback_max_age: chrono::Duration::days(15),
                after_signing: None,
                privacy_contacts: crate::privacy::notice::PrivacyContacts::development(),
            },
            proposals,
            partners,
            requests,
            gateway: Arc::new(self.gateway),
            index: Arc::new(index),
            refunds: Arc::new(self.refunds),
            pix: None,
            claims,
            mail: Arc::new(self.mail),
            clock,
            refund_due_days: 10,
        }
    }
}

fn event(settlement: &Settlement) -> StatusEvent {
    StatusEvent {
        id: 1,
        proposal_id: 1,
        kind: EventKind::StatusChange,
        from: settlement.change.from,
        to: settlement.change.to,
        changed_by: settlement.change.changed_by.clone(),
        changed_at: settlement.change.at,
        sequence: 4,
        reason: settlement.change.reason.clone(),
        reason_category: settlement.change.reason_category,
    }
}

fn cancelled_subscription(gateway: &mut MockPaymentGateway) {
    gateway.expect_cancel_subscription().times(1).returning(|id| {
        Ok(PlatformSubscription {
            id: id.to_owned(),
            status: "canceled".into(),
            current_period_end: None,
            latest_invoice_status: None,
            latest_paid_invoice: None,
            object: serde_json::json!({}),
        })
    });
}

const JUSTIFIED: &str = "Declaração de saúde incompatível com o produto";

#[tokio::test]
async fn the_move_is_judged_before_the_justification() {
    let service = Mocks::online("APROVADO", noon(2026, 11, 16)).service();
    let refused = service.refuse(&office(), "id-1", None, None).await;
    assert!(matches!(refused, Err(SettlementError::Transition(_))), "{refused:?}");
    let service = Mocks::online("EM ANÁLISE", noon(2026, 11, 16)).service();
    for (reason, code) in [(None, "campo_obrigatorio"), (Some("curto"), "texto_curto")] {
        match service.refuse(&office(), "id-1", reason.map(str::to_owned), None).await {
            Err(SettlementError::Invalid(v)) => {
                assert_eq!(v.errors()[0].field, "reason");
                assert_eq!(v.errors()[0].code, code);
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        refusal_reason(Some("x".repeat(501))),
        Err(SettlementError::Invalid(_))
    ));
}

#[tokio::test]
async fn a_refusal_refunds_the_card_corrected_records_the_excess_and_tells_the_customer() {
    let mut m = Mocks::online("EM ANÁLISE", noon(2026, 11, 16));
    m.gateway
        .expect_refund()
        .withf(|invoice, amount, key| invoice.invoice_id == "in_1" && *amount == 3990 && key == "refusal-1-in_1")
        .times(1)
        .returning(|invoice, amount, _| {
            Ok(Refund {
                id: "re_1".into(),
                invoice_id: invoice.invoice_id.clone(),
                amount,
                status: "succeeded".into(),
            })
        });
    cancelled_subscription(&mut m.gateway);
    m.refunds.expect_record_settlement().times(1).returning(|s| {
        assert_eq!(s.change.to, ProposalStatus::Rejected);
        assert_eq!(s.change.reason.as_deref(), Some(JUSTIFIED));
        assert_eq!(
            s.change.reason_category,
            Some(ReasonCategory::Health),
            "the category the seller reads, as the back office chose it"
        );
        assert!(s.request.is_none(), "a refusal is not the customer's request");
        assert_eq!(s.subscription.as_ref().map(|s| s.status.as_str()), Some("canceled"));
        // 15 of November's 30 days at 0,60 %: R$ 39,90 becomes R$ 40,02; the card takes back
        // what it was charged, the 12 cents are paid by the finance team.
        let amounts: Vec<_> = s.refunds.iter().map(|r| (r.channel, r.amount, r.nominal)).collect();
        assert_eq!(
            amounts,
            [(RefundChannel::Platform, 3990, 3990), (RefundChannel::ToPay, 12, 0)]
        );
        assert!(s.refunds.iter().all(|r| r.reason == RefundReason::Refusal));
        assert_eq!(s.refunds[1].status, TO_PAY);
        Ok((event(s), None))
    });
    m.mail
        .expect_enqueue()
        .withf(|m| {
            matches!(&m.kind, MailKind::ProposalRefused(n)
                if n.reason == JUSTIFIED && n.refunds.len() == 2 && n.refunds[0].starts_with("R$ 39,90"))
                && m.to.as_str() == "maria@exemplo.com.br"
        })
        .times(1)
        .return_const(());
    let event = m
        .service()
        .refuse(
            &office(),
            "id-1",
            Some(format!("  {JUSTIFIED} ")),
            Some(ReasonCategory::Health),
        )
        .await
        .unwrap();
    assert_eq!(event.to, ProposalStatus::Rejected);
}

#[tokio::test]
async fn a_refused_refund_cancels_nothing_and_records_nothing() {
    let mut m = Mocks::online("EM ANÁLISE", noon(2026, 11, 16));
    m.gateway
        .expect_refund()
        .returning(|_, _, _| Err(PaymentError::Declined("refund_declined".into())));
    m.gateway.expect_cancel_subscription().never();
    m.refunds.expect_record_settlement().never();
    m.mail.expect_enqueue().never();
    let refused = m
        .service()
        .refuse(&office(), "id-1", Some(JUSTIFIED.into()), None)
        .await;
    assert!(
        matches!(refused, Err(SettlementError::RefundRefused { .. })),
        "{refused:?}"
    );
}

/// The partner's contract's charges paid, as the store reports them: what each received, when.
fn paid_charges(refunds: &mut MockRefundStore, charges: Vec<PaidCharge>) {
    refunds.expect_paid_charges().returning(move |_| Ok(charges.clone()));
}

fn payroll(charge_id: i64, received: i64, due: NaiveDate) -> PaidCharge {
    PaidCharge {
        charge_id,
        received,
        due,
        paid_at: noon(due.year(), due.month(), due.day()),
        pix: None,
    }
}

#[tokio::test]
async fn a_partners_refusal_before_any_collection_returns_nothing() {
    let mut m = Mocks::partner("EM ANÁLISE", noon(2026, 11, 4));
    paid_charges(&mut m.refunds, Vec::new());
    m.gateway.expect_refund().never();
    m.gateway.expect_cancel_subscription().never();
    m.refunds.expect_record_settlement().times(1).returning(|s| {
        assert!(
            s.refunds.is_empty(),
            "nothing received, nothing returned: {:?}",
            s.refunds
        );
        Ok((event(s), None))
    });
    m.mail
        .expect_enqueue()
        .withf(|m| matches!(&m.kind, MailKind::ProposalRefused(n) if n.refunds.is_empty()))
        .times(1)
        .return_const(());
    m.service()
        .refuse(&office(), "id-1", Some(JUSTIFIED.into()), None)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_partners_cancellation_returns_the_unused_days_of_the_periods_received_at_what_they_received() {
    // Paid: October's period (over) and November's, the latter short of 100 cents at the rail;
    // December's charge was never paid.
    let mut m = Mocks::partner("APROVADO", noon(2026, 11, 21));
    paid_charges(
        &mut m.refunds,
        vec![
            payroll(1, 2500, NaiveDate::from_ymd_opt(2026, 10, 11).unwrap()),
            payroll(2, 2400, NaiveDate::from_ymd_opt(2026, 11, 11).unwrap()),
        ],
    );
    m.gateway.expect_refund().never();
    m.refunds.expect_record_settlement().times(1).returning(|s| {
        // 20 of the 30 days from 11 November unused, of the R$ 24,00 received: R$ 16,00.
        let refunds: Vec<_> = s.refunds.iter().map(|r| (r.channel, r.nominal)).collect();
        assert_eq!(refunds, [(RefundChannel::ToPay, 1600)]);
        assert!(s.refunds[0].amount >= 1600, "corrected");
        let request = s.request.as_ref().expect("the customer's request");
        Ok((event(s), Some(Protocol::new(request.day, 8))))
    });
    m.mail.expect_enqueue().times(1).return_const(());
    m.service()
        .cancel(&office(), "id-1", "Cliente pediu".into())
        .await
        .unwrap();
}

fn withdrawal(m: Mocks) -> crate::proposals::withdrawal::WithdrawalService {
    crate::proposals::withdrawal::WithdrawalService {
        settlement: m.service(),
    }
}

#[tokio::test]
async fn a_withdrawal_refused_by_the_platform_cancels_nothing_and_records_nothing() {
    let mut m = Mocks::online("EM ANÁLISE", noon(2026, 11, 6));
    m.gateway
        .expect_refund()
        .returning(|_, _, _| Err(PaymentError::Declined("refund_declined".into())));
    m.gateway.expect_cancel_subscription().never();
    m.refunds.expect_record_settlement().never();
    m.mail.expect_enqueue().never();
    let result = withdrawal(m).withdraw(&office(), "id-1", None).await;
    assert_eq!(
        result,
        Err(crate::proposals::withdrawal::WithdrawalError::RefundRefused {
            invoice: "in_1".into(),
            reason: "refund_declined".into()
        })
    );
}

#[tokio::test]
async fn a_withdrawal_returns_everything_corrected_before_the_cancellation_and_confirms_it_by_mail() {
    use crate::proposals::regret::WITHDRAWAL_REASON;
    // Paid on 1 November, withdrawn on the 6th: 5 days of November's 0,60 %.
    let mut m = Mocks::online("EM ANÁLISE", noon(2026, 11, 6));
    m.gateway
        .expect_refund()
        .withf(|invoice, amount, key| invoice.payment_intent == "pi_1" && *amount == 3990 && key == "withdrawal-1-in_1")
        .times(1)
        .returning(|invoice, amount, _| {
            Ok(Refund {
                id: "re_1".into(),
                invoice_id: invoice.invoice_id.clone(),
                amount,
                status: "succeeded".into(),
            })
        });
    cancelled_subscription(&mut m.gateway);
    m.refunds.expect_record_settlement().times(1).returning(|s| {
        assert_eq!(s.change.reason.as_deref(), Some(WITHDRAWAL_REASON));
        assert_eq!(s.change.to, ProposalStatus::Cancelled);
        let request = s.request.as_ref().expect("the withdrawal's request");
        assert_eq!(
            (request.kind, request.reason.as_str()),
            (RequestKind::Withdrawal, WITHDRAWAL_REASON)
        );
        assert_eq!(s.subscription.as_ref().map(|s| s.status.as_str()), Some("canceled"));
        let card = &s.refunds[0];
        assert_eq!(
            (card.channel, card.amount, card.reason),
            (RefundChannel::Platform, 3990, RefundReason::Withdrawal)
        );
        let correction = card.correction.as_ref().expect("corrected like every refund");
        assert!(correction.factor > 100_000_000, "{correction:?}");
        // The correction above what the card was charged is to pay.
        let to_pay: i64 = s
            .refunds
            .iter()
            .filter(|r| r.channel == RefundChannel::ToPay)
            .map(|r| r.amount)
            .sum();
        assert_eq!(to_pay, correction.apply(3990) - 3990);
        Ok((event(s), Some(Protocol::new(request.day, 3))))
    });
    m.mail
        .expect_enqueue()
        .withf(|m| {
            matches!(&m.kind, MailKind::WithdrawalConfirmed(n)
                if n.protocol.as_deref() == Some("2026110600000003") && n.refunds[0].starts_with("R$ 39,90"))
        })
        .times(1)
        .return_const(());
    let done = withdrawal(m).withdraw(&office(), "id-1", None).await.unwrap();
    assert_eq!(done.refunds.len(), 1, "the answer lists the money moved now");
    assert_eq!(done.event.to, ProposalStatus::Cancelled);
}

#[tokio::test]
async fn within_the_regret_a_cancellation_is_refused_naming_its_last_day() {
    let mut m = Mocks::online("EM ANÁLISE", noon(2026, 11, 8));
    m.gateway.expect_refund().never();
    m.refunds.expect_record_settlement().never();
    let refused = m.service().cancel(&office(), "id-1", "Cliente pediu".into()).await;
    match refused {
        Err(SettlementError::WithinRegret { status, last_day }) => {
            assert_eq!(status, ProposalStatus::InAnalysis);
            assert_eq!(last_day, NaiveDate::from_ymd_opt(2026, 11, 8).unwrap());
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn after_the_regret_a_cancellation_returns_the_unused_days_under_a_protocol() {
    let mut m = Mocks::online("APROVADO", noon(2026, 11, 21));
    // 10 of the period's 30 days unused: R$ 13,30, corrected for 20 days at 0,60 % (R$ 13,35),
    // within what the card was charged.
    m.gateway
        .expect_refund()
        .withf(|_, amount, key| *amount == 1335 && key == "cancellation-1-in_1")
        .times(1)
        .returning(|invoice, amount, _| {
            Ok(Refund {
                id: "re_2".into(),
                invoice_id: invoice.invoice_id.clone(),
                amount,
                status: "succeeded".into(),
            })
        });
    cancelled_subscription(&mut m.gateway);
    m.refunds.expect_record_settlement().times(1).returning(|s| {
        assert_eq!(s.change.to, ProposalStatus::Cancelled);
        let request = s.request.as_ref().expect("the customer's request");
        assert_eq!(request.kind, RequestKind::Cancellation);
        assert_eq!(s.refunds.len(), 1);
        assert_eq!((s.refunds[0].amount, s.refunds[0].nominal), (1335, 1330));
        assert_eq!(s.refunds[0].reason, RefundReason::Cancellation);
        Ok((event(s), Some(Protocol::new(request.day, 7))))
    });
    m.mail
        .expect_enqueue()
        .withf(
            |m| matches!(&m.kind, MailKind::ContractCancelled(n) if n.protocol.as_deref() == Some("2026112100000007")),
        )
        .times(1)
        .return_const(());
    let cancellation = m
        .service()
        .cancel(&office(), "id-1", "Cliente pediu".into())
        .await
        .unwrap();
    assert_eq!(cancellation.protocol.as_str(), "2026112100000007");
}

#[tokio::test]
async fn a_finished_proposal_has_nothing_to_cancel() {
    for status in ["REPROVADO", "CANCELADO", "EXPIRADO"] {
        let refused = Mocks::online(status, noon(2026, 11, 21))
            .service()
            .cancel(&office(), "id-1", "Cliente pediu".into())
            .await;
        assert!(
            matches!(refused, Err(SettlementError::NotCancellable { .. })),
            "{status}: {refused:?}"
        );
    }
}

/// The first period's charge in `status`, as route 7 lists it.
fn first_charge(status: crate::billing::ChargeStatus) -> crate::billing::Charge {
    let at = noon(2026, 11, 1);
    crate::billing::Charge {
        period: 1,
        due_date: at.date_naive(),
        amount: 3990,
        method: "PIX AUTOMÁTICO".into(),
        status,
        attempts: 4,
        presented_at: Some(at),
        next_attempt: None,
        external_id: None,
        reason: None,
        paid_at: None,
        created_at: at,
        updated_at: at,
    }
}

/// The pass judged the contract from what it read at its start; read again under the end's
/// claim, a premium paid since stops the end, and only that.
#[test]
fn an_end_for_default_stands_only_while_the_contract_read_under_its_claim_is_still_in_default() {
    use crate::billing::{Billing, BillingStatus, ChargeStatus};
    let mut unpaid = crate::testing::detail("APROVADO");
    unpaid.charges = vec![first_charge(ChargeStatus::Failed)];
    assert!(default_still_stands(&unpaid, EndCause::FirstInstalment));
    let mut paid = unpaid.clone();
    paid.charges = vec![first_charge(ChargeStatus::Paid)];
    assert!(!default_still_stands(&paid, EndCause::FirstInstalment));

    let billing = |status| {
        Some(Billing {
            status,
            since: noon(2026, 11, 1),
        })
    };
    let mut suspended = crate::testing::detail("APROVADO");
    suspended.billing = billing(BillingStatus::Suspended);
    assert!(default_still_stands(&suspended, EndCause::AfterSuspension));
    for resumed in [BillingStatus::UpToDate, BillingStatus::Late] {
        let mut detail = suspended.clone();
        detail.billing = billing(resumed);
        assert!(!default_still_stands(&detail, EndCause::AfterSuspension), "{resumed:?}");
        // The term's end is the calendar's: what the billing says does not hold it back.
        assert!(default_still_stands(&detail, EndCause::TermEnded));
    }
}
