//! The Pix client against the sandbox PSP, its objects in PostgreSQL: every request the client
//! sends and every answer and notification the sandbox gives is judged against the Central Bank's
//! `openapi.yaml` (release 2.9.0) by a recorder between them, over a journey that uses every
//! operation the service needs: a recurrence created, found again, confirmed through the payer's
//! PSP and approved; a charge paid, one failed and retried, a refund; a recurrence rejected; a
//! token the PSP stopped taking; a request off the standard refused field by field.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_payment::pix::client::notified_ids;
use adapters_payment::pix::schema::{Method, Notification};
use adapters_payment::pix::transport::{AccessToken, PixAnswer, PixRequest};
use adapters_payment::pix::{PixClient, PixSchema, PixTransport, ReceiverAccount, SandboxPsp};
use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgSandboxLedger, PoolSettings, build_pool};
use async_trait::async_trait;
use chrono::{Days, Utc};
use domain::billing::pix::{
    AttemptStatus, PayerAccount, PixChargeRequest, PixChargeStatus, PixError, PixPsp, RecurrenceRequest,
    RecurrenceStatus, RefundStatus, charge_txid, refund_id,
};
use domain::clock::{Clock, ShiftedClock};
use domain::values::Cpf;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// Between the client and the sandbox: judges each exchange on its own and keeps what it saw.
struct Recorder {
    inner: Arc<SandboxPsp>,
    schema: PixSchema,
    operations: Mutex<BTreeSet<String>>,
    violations: Mutex<Vec<String>>,
}

#[async_trait]
impl PixTransport for Recorder {
    async fn token(&self) -> Result<AccessToken, PixError> {
        self.inner.token().await
    }

    async fn send(&self, token: &str, request: &PixRequest) -> Result<PixAnswer, PixError> {
        if let Err(v) = self
            .schema
            .check_request(request.method, &request.path, &request.query, request.body.as_ref())
        {
            self.violations
                .lock()
                .unwrap()
                .push(format!("pedido {}: {v}", request.path));
        }
        let answer = self.inner.send(token, request).await?;
        if let Err(v) = self
            .schema
            .check_response(request.method, &request.path, answer.status, answer.body.as_ref())
        {
            self.violations
                .lock()
                .unwrap()
                .push(format!("resposta {}: {v}", request.path));
        }
        let template: Vec<&str> = request
            .path
            .split('/')
            .enumerate()
            .map(|(i, part)| {
                if i >= 2 && !matches!(part, "retentativa" | "devolucao") {
                    "*"
                } else {
                    part
                }
            })
            .collect();
        self.operations.lock().unwrap().insert(format!(
            "{} {} {}",
            request.method.as_str(),
            template.join("/"),
            answer.status
        ));
        Ok(answer)
    }
}

struct DaysAhead(Arc<ShiftedClock>);

impl Clock for DaysAhead {
    fn now(&self) -> chrono::DateTime<Utc> {
        self.0.now()
    }
}

fn recurrence_request(contract: &str, cpf: &str) -> RecurrenceRequest {
    RecurrenceRequest {
        contract: contract.into(),
        debtor_cpf: Cpf::parse(cpf).unwrap(),
        debtor_name: "Maria da Silva Sauro".into(),
        object: "Seguro de vida mensal com um nome longo demais para o campo".into(),
        first_due: Utc::now().date_naive() + Days::new(10),
        amount_cents: 4_990,
        retries_allowed: true,
        requested_at: Utc::now(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_client_and_the_sandbox_speak_the_central_banks_api_pix_in_every_call() {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let shifted = Arc::new(ShiftedClock::default());
    let clock: Arc<dyn Clock> = Arc::new(DaysAhead(shifted.clone()));
    let schema = Arc::new(PixSchema::load().unwrap());
    let sandbox = Arc::new(SandboxPsp::new(
        Arc::new(PgSandboxLedger::new(pool)),
        schema.clone(),
        clock.clone(),
    ));
    let recorder = Arc::new(Recorder {
        inner: sandbox.clone(),
        schema: PixSchema::load().unwrap(),
        operations: Mutex::new(BTreeSet::new()),
        violations: Mutex::new(Vec::new()),
    });
    let receiver = ReceiverAccount {
        agencia: "0001".into(),
        conta: "1234567".into(),
        tipo_conta: "CORRENTE".into(),
    };
    let client = PixClient::new(recorder.clone(), receiver, clock.clone());

    // The recurrence, created once whatever how many times it is asked for.
    let asked = recurrence_request("PROP-2026-0001", "52998224725");
    let created = client.create_recurrence(&asked).await.unwrap();
    assert_eq!(created.status, RecurrenceStatus::Criada);
    assert_eq!(created.id_rec.len(), 29);
    assert!(created.id_rec.starts_with("RR99999004"), "{}", created.id_rec);
    let qr = created
        .pix_copia_e_cola
        .clone()
        .expect("the recurrence's QR code (jornada 2)");
    assert!(qr.starts_with("000201") && qr.contains("br.gov.bcb.pix"), "{qr}");
    let again = client.create_recurrence(&asked).await.unwrap();
    assert_eq!(
        again.id_rec, created.id_rec,
        "found again by its contract, not created twice"
    );

    // Jornada 1: the payer's PSP asked to have it confirmed, once.
    let payer = PayerAccount {
        ispb: "60746948".into(),
        agencia: Some("1234".into()),
        conta: "987654".into(),
    };
    let expires = Utc::now() + chrono::Duration::days(7);
    let confirmation = client
        .request_confirmation(&created.id_rec, &payer, &asked.debtor_cpf, expires)
        .await
        .unwrap();
    assert!(confirmation.id_solic_rec.starts_with("SC"), "{confirmation:?}");
    let same = client
        .request_confirmation(&created.id_rec, &payer, &asked.debtor_cpf, expires)
        .await
        .unwrap();
    assert_eq!(same.id_solic_rec, confirmation.id_solic_rec);

    // A charge before the payer approved is refused by the PSP.
    let first = PixChargeRequest {
        txid: charge_txid(1),
        id_rec: created.id_rec.clone(),
        due: asked.first_due,
        amount_cents: asked.amount_cents,
        description: "Seguro de vida: parcela 1".into(),
    };
    assert!(matches!(client.charge(&first).await, Err(PixError::Refused(_))));

    // The payer approves: the notification names the recurrence; the client reads it back.
    let notice = sandbox.approve(&created.id_rec).await.unwrap();
    schema.check_notification(Notification::Rec, &notice).unwrap();
    assert_eq!(notified_ids(&notice, "recs", "idRec"), vec![created.id_rec.clone()]);
    let approved = client.recurrence(&created.id_rec).await.unwrap();
    assert_eq!(approved.status, RecurrenceStatus::Aprovada);
    assert_eq!(approved.pix_copia_e_cola, None, "no QR code once approved");
    assert_eq!(approved.confirmation_requests, vec![confirmation.id_solic_rec.clone()]);

    // A charge paid on its due date.
    let sent = client.charge(&first).await.unwrap();
    assert_eq!(sent.status, PixChargeStatus::Ativa);
    assert_eq!(sent.attempts.len(), 1);
    assert_eq!(sent.attempts[0].status, AttemptStatus::Agendada);
    assert_eq!(
        client.charge(&first).await.unwrap(),
        sent,
        "the same txid is the same charge"
    );
    let notice = sandbox.pay(&first.txid).await.unwrap();
    assert_eq!(notified_ids(&notice, "cobsr", "txid"), vec![first.txid.clone()]);
    let paid = client.charge_status(&first.txid).await.unwrap();
    assert_eq!(paid.status, PixChargeStatus::Concluida);
    assert_eq!(paid.payments.len(), 1);
    assert_eq!(paid.payments[0].amount_cents, 4_990);

    // One failed, retried the day after its due date (once, however often asked), then paid.
    let second = PixChargeRequest {
        txid: charge_txid(2),
        due: asked.first_due + chrono::Months::new(1),
        description: "Seguro de vida: parcela 2".into(),
        ..first.clone()
    };
    client.charge(&second).await.unwrap();
    sandbox.fail(&second.txid).await.unwrap();
    let failed = client.charge_status(&second.txid).await.unwrap();
    assert_eq!(failed.status, PixChargeStatus::Ativa);
    assert_eq!(failed.attempts[0].status, AttemptStatus::Rejeitada);
    assert!(failed.attempts[0].rejection.as_deref().unwrap().starts_with("AM02"));
    let retry_day = second.due + Days::new(1);
    let retried = client.retry(&second.txid, retry_day).await.unwrap();
    assert_eq!(retried.attempts.len(), 2);
    assert_eq!(client.retry(&second.txid, retry_day).await.unwrap().attempts.len(), 2);
    // Outside the rules (eight days after the due date): refused by the PSP.
    sandbox.fail(&second.txid).await.unwrap();
    let late = client.retry(&second.txid, second.due + Days::new(8)).await;
    assert!(
        matches!(late, Err(PixError::Refused(ref m)) if m.contains("7 dias")),
        "{late:?}"
    );
    client.retry(&second.txid, second.due + Days::new(3)).await.unwrap();
    sandbox.pay(&second.txid).await.unwrap();
    assert_eq!(
        client.charge_status(&second.txid).await.unwrap().status,
        PixChargeStatus::Concluida
    );

    // A refund of part of the first payment, once under its id; more than is left is refused.
    let e2e = paid.payments[0].end_to_end_id.clone();
    let refund = client.refund(&e2e, &refund_id(1, 1), 1_000, "Devolução").await.unwrap();
    assert_eq!(refund.status, RefundStatus::Devolvido);
    assert_eq!(refund.amount_cents, 1_000);
    assert_eq!(
        client.refund(&e2e, &refund_id(1, 1), 1_000, "Devolução").await.unwrap(),
        refund
    );
    let too_much = client.refund(&e2e, &refund_id(1, 2), 4_000, "Devolução").await;
    assert!(matches!(too_much, Err(PixError::Refused(_))), "{too_much:?}");

    // A recurrence the payer rejects ends with the standard's code.
    let other = client
        .create_recurrence(&recurrence_request("PROP-2026-0002", "11144477735"))
        .await
        .unwrap();
    sandbox.reject(&other.id_rec).await.unwrap();
    let rejected = client.recurrence(&other.id_rec).await.unwrap();
    assert_eq!(rejected.status, RecurrenceStatus::Rejeitada);
    assert!(rejected.ended_because.unwrap().starts_with("AP13"));

    // A token the PSP stopped taking (its clock a day on): the client takes a new one.
    shifted.set_days_ahead(1);
    assert_eq!(
        client.recurrence(&created.id_rec).await.unwrap().status,
        RecurrenceStatus::Aprovada
    );

    // A request off the standard: refused with each violation named.
    let token = recorder.token().await.unwrap().value;
    let bad = PixRequest {
        method: Method::Put,
        path: format!("/cobr/{}", charge_txid(3)),
        query: Vec::new(),
        body: Some(serde_json::json!({
            "idRec": created.id_rec,
            "calendario": {"dataDeVencimento": "31/12/2026"},
            "valor": {"original": "49,90"},
            "ajusteDiaUtil": true,
            "recebedor": {"conta": "1234567", "tipoConta": "CORRENTE"}
        })),
    };
    let refused = sandbox.send(&token, &bad).await.unwrap();
    assert_eq!(refused.status, 400);
    let text = refused.body.unwrap().to_string();
    assert!(text.contains("dataDeVencimento") && text.contains("valor"), "{text}");

    let violations = recorder.violations.lock().unwrap().clone();
    assert!(violations.is_empty(), "{violations:#?}");
    let seen = recorder.operations.lock().unwrap().clone();
    for operation in [
        "post /locrec 201",
        "post /rec 201",
        "get /rec 200",
        "get /rec/* 200",
        "post /solicrec 201",
        "put /cobr/* 201",
        "put /cobr/* 400",
        "get /cobr/* 200",
        "get /cobr/* 404",
        "post /cobr/*/retentativa/* 201",
        "post /cobr/*/retentativa/* 400",
        "put /pix/*/devolucao/* 201",
        "put /pix/*/devolucao/* 400",
        "get /pix/*/devolucao/* 200",
        "get /pix/*/devolucao/* 404",
        "get /rec/* 403",
    ] {
        assert!(seen.contains(operation), "{operation} not exercised: {seen:#?}");
    }
}
