//! The retention schedule (issue 47), lived through with the sandbox's clock and applied as
//! `sales-api privacy retention [--dry-run]` applies it: an unconcluded sale's health answers go
//! after `RETENTION_HEALTH_UNCONCLUDED_DAYS` (30), the rest of it after `RETENTION_UNCONCLUDED_DAYS`
//! (180); a contract keeps its person until its hold ends, then the schedule anonymises them
//! (blocked or not); a sale in progress is never touched; two passes at once change each person
//! once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use api_actix::cli::{privacy_retention, retention_summary};
use black_box_tests::{StatusCode, TestApp, assert_error, customer_body};
use domain::privacy::retention::RetentionReport;
use serde_json::{Value, json};

use super::legal_hold::{Setup, anonymize, contract, days_later, setup};

const CPF: &str = "52998224725";

impl Setup {
    /// One pass of the schedule now, by the shared clock.
    async fn retention(&self, dry_run: bool) -> RetentionReport {
        privacy_retention(&TestApp::config(&self.app.db, &[]), dry_run)
            .await
            .unwrap()
    }

    /// The customer registered by the partner with health answers (route 3), then a proposal of
    /// theirs (route 5, which keeps the registration's answers in its copy).
    async fn proposal_with_health_answers(&self, cpf: &str) -> String {
        let registered = self
            .app
            .post_json_as("/customer/create", &self.partner, &customer_body(cpf))
            .await;
        assert_eq!(registered.status(), StatusCode::CREATED);
        self.app.create_proposal(&self.partner, cpf).await
    }

    async fn cancel(&self, identifier: &str) {
        self.app
            .cancel_at_customers_request(&self.partner, identifier, "Cliente desistiu")
            .await;
    }

    async fn export(&self, cpf: &str) -> Value {
        let response = self
            .app
            .get(&format!("/privacy/customers/{cpf}"), Some(&self.office))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json::<Value>().await.unwrap()["data"].clone()
    }

    /// The proposal's history, as the back office reads it (route 16).
    async fn history(&self, identifier: &str) -> Vec<Value> {
        let body: Value = self
            .app
            .get(&format!("/proposal/{identifier}/history"), Some(&self.office))
            .await
            .json()
            .await
            .unwrap();
        body["data"]["entries"].as_array().unwrap().clone()
    }
}

fn health(row: &Value) -> (Value, Value, Value) {
    (
        row["medicamento"].clone(),
        row["medicamento_descricao"].clone(),
        row["afastado"].clone(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unconcluded_sale_loses_its_health_answers_at_30_days_and_its_person_at_180() {
    let s = setup().await;
    let identifier = s.proposal_with_health_answers(CPF).await;
    s.cancel(&identifier).await;
    let held = (json!(true), json!("Losartana"), json!(false));
    let exported = s.export(CPF).await;
    assert_eq!(health(&exported["cadastros"][0]), held);
    assert_eq!(health(&exported["propostas"][0]["cliente"]), held);
    // The export says until when: the health answers 30 days after the last change, the rest 180.
    let notice = &exported["retencao"]["propostas"][0];
    let day = |member: &str| {
        chrono::DateTime::parse_from_rfc3339(notice[member].as_str().unwrap())
            .unwrap()
            .to_utc()
    };
    let last_change =
        chrono::DateTime::parse_from_rfc3339(exported["propostas"][0]["proposta"]["alterado_em"].as_str().unwrap())
            .unwrap()
            .to_utc();
    assert_eq!(day("saudeAte") - last_change, chrono::Duration::days(30));
    assert_eq!(day("ate") - last_change, chrono::Duration::days(180));
    assert_eq!(exported["retencao"]["titular"]["ate"], notice["ate"]);

    // Day 29: nothing due.
    days_later(&s, 29).await;
    assert_eq!(s.retention(true).await.persons, []);
    assert_eq!(s.retention(false).await.persons, []);

    // Day 31: the dry run lists the health answers and changes nothing; the pass drops them.
    days_later(&s, 31).await;
    let due = s.retention(true).await;
    assert!(due.dry_run);
    assert_eq!(due.persons.len(), 1);
    assert_eq!(due.persons[0].masked_cpf, "***.***.***-25");
    assert!(due.persons[0].plan.registrations_health);
    assert_eq!(due.persons[0].plan.proposals_health, std::slice::from_ref(&identifier));
    assert!(!due.persons[0].plan.anonymise_person);
    let printed = retention_summary(&due);
    assert!(printed.starts_with("0 titular(es) a anonimizar; 0 proposta(s) não concluída(s) a anonimizar; 2 conjunto(s) de respostas de saúde a descartar"), "{printed}");
    assert!(
        printed.contains(&format!("***.***.***-25\tsaúde dos cadastros; saúde de {identifier}")),
        "{printed}"
    );
    assert_eq!(
        health(&s.export(CPF).await["cadastros"][0]),
        held,
        "a dry run changes nothing"
    );

    let applied = s.retention(false).await;
    assert_eq!(applied.persons[0].plan, due.persons[0].plan);
    assert_eq!(applied.health_answers_dropped(), 2);
    let exported = s.export(CPF).await;
    let dropped = (json!(false), Value::Null, json!(false));
    assert_eq!(health(&exported["cadastros"][0]), dropped);
    assert_eq!(health(&exported["propostas"][0]["cliente"]), dropped);
    // The rest of the person stays until day 180.
    assert_eq!(exported["cadastros"][0]["nome_completo"], "Maria da Silva");
    assert_eq!(exported["propostas"][0]["cliente"]["nome_completo"], "Maria da Silva");
    // The history names the schedule and masks what went.
    let history = s.history(&identifier).await;
    let entry = history.iter().find(|h| h["action"] == "retencao").unwrap();
    assert_eq!(entry["by"], "sistema:retencao");
    assert_eq!(entry["changes"]["medicamento"]["from"], "***", "{entry}");
    assert!(!json!(history).to_string().contains("Losartana"));
    // Nothing more is due until day 180.
    assert_eq!(s.retention(false).await.persons, []);
    days_later(&s, 179).await;
    assert_eq!(s.retention(false).await.persons, []);

    // Day 181: the person is anonymised whole, as the back office's request would.
    days_later(&s, 181).await;
    let applied = s.retention(false).await;
    assert_eq!(applied.persons_anonymised(), 1);
    let anonymized = applied.persons[0].anonymized.as_ref().unwrap();
    assert_eq!(anonymized.proposals, std::slice::from_ref(&identifier));
    assert_eq!(anonymized.registrations, 1);
    let exported = s.export(CPF).await;
    assert_eq!(exported["cadastros"], json!([]));
    assert_eq!(exported["propostas"], json!([]));
    assert_error(anonymize(&s).await, StatusCode::NOT_FOUND, "titular_sem_dados").await;
    let office_view = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(office_view["customer"]["fullName"], "Titular anonimizado");
    let history = s.history(&identifier).await;
    assert!(
        history
            .iter()
            .any(|h| h["action"] == "anonimizacao" && h["by"] == "sistema:retencao"),
        "{history:?}"
    );
    // Each pass that changed something is on record, and the next finds nothing.
    assert_eq!(s.retention(false).await.persons, []);
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_retention_runs WHERE titulares = 1 AND respostas_saude = 0")
            .await,
        1
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_retention_runs WHERE respostas_saude = 2")
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_contract_keeps_its_person_through_the_hold_while_an_unconcluded_sale_of_theirs_goes() {
    let s = setup().await;
    let contract = contract(&s, CPF).await;
    let unconcluded = s.app.create_proposal(&s.partner, CPF).await;
    s.cancel(&unconcluded).await;
    // Past the right of regret, the customer cancels the contract: it ends on day 10.
    days_later(&s, 10).await;
    s.cancel(&contract).await;

    // Day 200: the unconcluded sale is anonymised; the contract and its person are kept.
    days_later(&s, 200).await;
    let applied = s.retention(false).await;
    assert_eq!(applied.persons.len(), 1);
    assert!(!applied.persons[0].plan.anonymise_person);
    assert_eq!(
        applied.persons[0].plan.proposals_anonymised,
        std::slice::from_ref(&unconcluded)
    );
    assert!(
        !applied.persons[0].plan.registrations_health,
        "the contract's registration keeps what was declared"
    );
    let office_view = s.app.proposal_data(&unconcluded, &s.office).await;
    assert_eq!(office_view["customer"]["fullName"], "Titular anonimizado");
    assert_eq!(office_view["payment"]["sheetNumber"], "***", "{office_view}");
    let contract_view = s.app.proposal_data(&contract, &s.office).await;
    assert_eq!(contract_view["customer"]["fullName"], "Maria da Silva");
    let exported = s.export(CPF).await;
    let listed: Vec<&str> = exported["propostas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["proposta"]["identificador"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        [contract.as_str()],
        "the anonymised sale is no longer the person's"
    );
    assert_eq!(exported["cadastros"][0]["nome_completo"], "Maria da Silva");
    assert_eq!(s.retention(false).await.persons, []);

    // Asked to forget her, the back office is refused and she is blocked.
    assert_error(anonymize(&s).await, StatusCode::CONFLICT, "retencao_legal").await;
    assert_eq!(s.app.count("SELECT count(*) AS n FROM personal_data_blocks").await, 1);

    // A day before the hold's end nothing is due; past it, the schedule anonymises her and the
    // block goes.
    let until = s
        .app
        .count("SELECT extract(epoch FROM retido_ate)::bigint AS n FROM personal_data_blocks")
        .await;
    let days_left = (until - chrono::Utc::now().timestamp()) / 86_400;
    days_later(&s, days_left - 1).await;
    assert_eq!(s.retention(false).await.persons, []);
    days_later(&s, days_left + 1).await;
    let applied = s.retention(false).await;
    assert_eq!(applied.persons_anonymised(), 1);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM personal_data_blocks").await, 0);
    let contract_view = s.app.proposal_data(&contract, &s.office).await;
    assert_eq!(contract_view["customer"]["fullName"], "Titular anonimizado");
    assert_eq!(s.export(CPF).await["propostas"], json!([]));
}

#[tokio::test(flavor = "multi_thread")]
async fn two_passes_at_once_change_each_person_once_and_a_sale_in_progress_is_left_alone() {
    let s = setup().await;
    let people = ["52998224725", "11144477735", "39053344705"];
    let mut cancelled = Vec::new();
    for cpf in people {
        let identifier = s.proposal_with_health_answers(cpf).await;
        s.cancel(&identifier).await;
        cancelled.push(identifier);
    }
    let in_progress = s.proposal_with_health_answers("16899535009").await;

    days_later(&s, 400).await;
    let (one, other) = tokio::join!(s.retention(false), s.retention(false));
    assert_eq!(one.persons_anonymised() + other.persons_anonymised(), people.len());
    for identifier in &cancelled {
        assert_eq!(
            s.app
                .count(&format!(
                    "SELECT count(DISTINCT h.at) AS n FROM proposal_history h JOIN proposals p ON p.id = h.proposal_id
                     WHERE p.identificador = '{identifier}' AND h.action = 'anonimizacao'"
                ))
                .await,
            1,
            "{identifier} anonymised once"
        );
    }
    // The open proposal is the sale's business: its person and health answers stay.
    let open_view = s.app.proposal_data(&in_progress, &s.office).await;
    assert_eq!(open_view["customer"]["fullName"], "Maria da Silva");
    assert_eq!(health(&s.export("16899535009").await["cadastros"][0]).0, json!(true));
}

/// Decision 290: at the health horizon a refused sale loses the free text written about the person
/// (the refusal's words, what the request for documents asked and was answered, the files) as it
/// loses the health answers; the refusal's defence is copied apart first, for the back office,
/// and outlives the person's anonymisation.
#[tokio::test(flavor = "multi_thread")]
async fn a_refusal_keeps_its_defence_apart_when_its_free_text_goes_at_30_days() {
    use super::proponent_documents::{PDF, mailed_token, upload};
    const WORDS: &str = "Declarou hipertensão controlada com Losartana; laudo confirma cardiopatia";
    const MARKER: &str = "[removido na anonimização]";
    let s = setup().await;
    let identifier = super::settlements::signed_partner_sale(&s.app, &s.partner, &s.office, CPF).await;
    let asked = s
        .app
        .post_json_as(
            &format!("/proposal/{identifier}/pending"),
            &s.office,
            &json!({"items": ["Laudo cardiológico"], "note": "Declarou uso de Losartana", "reasonCategory": "saude"}),
        )
        .await;
    assert_eq!(asked.status(), StatusCode::CREATED);
    let token = mailed_token(&s.app).await;
    let sent = upload(&s.app, &token, &[("laudo.pdf", PDF)], Some("Segue o laudo")).await;
    assert_eq!(sent.status(), StatusCode::CREATED);
    let refused = super::settlements::decide(
        &s.app,
        &s.office,
        &identifier,
        json!({"status": "REPROVADO", "reason": WORDS, "reasonCategory": "saude"}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::OK);
    let declared = health(&s.export(CPF).await["propostas"][0]["cliente"]);
    let config = TestApp::config(&s.app.db, &[]);
    assert_eq!(api_actix::cli::refusal_defences(&config, CPF).await.unwrap(), json!([]));

    days_later(&s, 29).await;
    let early = s.retention(false).await;
    assert!(
        early
            .persons
            .iter()
            .all(|p| !p.plan.proposals_health.contains(&identifier))
    );

    days_later(&s, 31).await;
    let applied = s.retention(false).await;
    assert!(
        applied.persons[0].plan.proposals_health.contains(&identifier),
        "{applied:?}"
    );
    // The free text is gone from what the back office reads: events, history, route 7, files.
    let events: Value = s
        .app
        .get(&format!("/proposal/{identifier}/events"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    let last = events["document"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["reason"], MARKER);
    assert_eq!(last["reasonCategory"], "saude", "the category stays");
    let history = json!(s.history(&identifier).await).to_string();
    let route_7 = s.app.proposal_data(&identifier, &s.office).await;
    for read in [&history, &route_7.to_string(), &events.to_string()] {
        assert!(!read.contains("Losartana") && !read.contains("cardiol"), "{read}");
    }
    let request = &route_7["acceptance"]["pending"][0];
    assert_eq!(request["items"], json!([MARKER]));
    assert_eq!(request["note"], MARKER);
    assert_eq!(request["answer"]["note"], MARKER);
    assert_eq!(request["answer"]["files"], json!([]));
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposal_pending_files").await, 0);

    // The defence was kept first, apart, for the back office: five years from the refusal.
    let defences = api_actix::cli::refusal_defences(&config, CPF).await.unwrap();
    assert_eq!(defences.as_array().unwrap().len(), 1, "{defences}");
    let defence = &defences[0];
    assert_eq!(defence["identificador"], identifier);
    assert_eq!(defence["motivo"], WORDS);
    assert_eq!(defence["categoriaMotivo"], "saude");
    assert_eq!(health(&defence["declaracao"]), declared);
    assert_eq!(defence["pedidos"][0]["itens"], json!(["Laudo cardiológico"]));
    assert_eq!(defence["pedidos"][0]["resposta"], "Segue o laudo");
    let instant = |member: &str| {
        chrono::DateTime::parse_from_rfc3339(defence[member].as_str().unwrap())
            .unwrap()
            .to_utc()
    };
    let kept = instant("apagarEm") - instant("recusadaEm");
    assert!((kept.num_days() - 5 * 365).abs() <= 2, "{kept}");
    // The store never holds the CPF itself.
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM refusal_defences t WHERE t::text LIKE '%{CPF}%'"
            ))
            .await,
        0
    );

    // Day 181: the person is anonymised whole; the defence stays, found by the CPF.
    days_later(&s, 181).await;
    assert_eq!(s.retention(false).await.persons_anonymised(), 1);
    let after = api_actix::cli::refusal_defences(&config, CPF).await.unwrap();
    assert_eq!(after, defences);
}
