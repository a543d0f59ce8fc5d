//! No premium before the contract, save provisional cover (Lei 15.040/2024 art. 19 §2; issue 67,
//! decision 271). The demo shop's product 103 collects at the sale and declares provisional cover,
//! shown on route 7 (`data.acceptance.provisionalCover`) and printed in the terms mailed after
//! route 16; the second shop product, 104, holds the subscription at the platform (a trial, no
//! charge) until the insurer's `APROVADO`, collects then, and collects nothing on a refusal.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::ecommerce::WEBHOOK_SECRET;
use super::settlements::decide;
use super::subscriptions::{another_paid_sale, paid_sale, shop};
use black_box_tests::{StatusCode, TestApp, assert_timestamp, pdf_text};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

const JUSTIFIED: &str = "Atividade profissional fora das condições do produto";

async fn app() -> TestApp {
    TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await
}

fn instant(value: &Value) -> DateTime<Utc> {
    assert_timestamp(value);
    DateTime::parse_from_rfc3339(value.as_str().unwrap()).unwrap().to_utc()
}

/// Loads the second shop product (104, collected at acceptance) as `seed demo` does.
async fn seed_second_shop_product(app: &TestApp) {
    let pool = adapters_postgres::build_pool(&adapters_postgres::PoolSettings::new(&app.db.url)).unwrap();
    adapters_postgres::seed::seed_demo_at_acceptance_product(&pool)
        .await
        .unwrap();
}

/// A shop's sale of product 104 through routes 14 to 16: (identifier, route 16's subscription).
async fn held_sale(app: &TestApp, shop: &str, cpf: &str, email: &str) -> (String, Value) {
    let mut body = super::subscriptions::shop_sale(cpf, email);
    body["billingCode"] = json!(5005);
    body["productCode"] = json!(104);
    let created = app.post_json_as("/proposal/create/ecommerce", shop, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let identifier = created.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in ["/ecommerce/createCustomer", "/ecommerce/createSetupIntent"] {
        let response = app.post_json_as(path, shop, &json!({"cpf": cpf})).await;
        assert!(response.status().is_success(), "{path}");
    }
    let subscribed = app
        .post_json_as(
            "/ecommerce/createSubscription",
            shop,
            &json!({"identifier": identifier}),
        )
        .await;
    assert_eq!(subscribed.status(), StatusCode::CREATED);
    let subscription = subscribed.json::<Value>().await.unwrap()["document"][0].clone();
    (identifier, subscription)
}

/// What the sandbox platform charged the subscription, in cents (its paid invoices' amounts).
async fn charged(app: &TestApp, subscription: &str) -> i64 {
    app.count(&format!(
        "SELECT coalesce(sum((object->>'amount_paid')::bigint), 0)::bigint AS n FROM sandbox_payment_objects \
         WHERE kind = 'invoice' AND object->>'status' = 'paid' \
           AND object #>> '{{parent,subscription_details,subscription}}' = '{subscription}'"
    ))
    .await
}

/// The terms mailed after route 16, as text.
async fn mailed_terms(app: &TestApp, email: &str) -> String {
    let config = TestApp::config(&app.db, &[]);
    api_actix::cli::deliver_certificates(&config).await.unwrap();
    let mails = app
        .mails_to(email, "Sua contratação: termos e direito de arrependimento")
        .await;
    assert_eq!(mails.len(), 1);
    let parsed = mail_parser::MessageParser::default().parse(&mails[0].raw).unwrap();
    pdf_text(parsed.attachment(0).expect("the terms attached").contents())
}

/// The text wrapped on the page, on one line.
fn joined(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

async fn collect(app: &TestApp) -> domain::ecommerce::collection::CollectionPass {
    api_actix::cli::collect_at_acceptance(&TestApp::config(&app.db, &[]))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_shops_sale_paid_at_once_has_provisional_cover_shown_printed_and_ended_by_the_acceptance() {
    let app = app().await;
    let (shop, identifier, subscription) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["proposal"]["status"], "EM ANÁLISE");
    assert_eq!(data["subscription"]["status"], "active");
    assert_eq!(data["ledger"]["received"], 3990, "collected at the sale");
    let cover = &data["acceptance"]["provisionalCover"];
    let from = instant(&cover["from"]);
    assert!((Utc::now() - from).num_minutes() < 5, "from the payment: {cover}");
    assert_eq!(cover["until"], Value::Null, "until the insurer decides: {cover}");
    assert_eq!(data["acceptance"]["term"], Value::Null);

    let terms = joined(&mailed_terms(&app, "joao@exemplo.com.br").await);
    let printed_from = domain::contract::formats::instant(from);
    assert!(
        terms.contains(&format!(
            "cobertura provisória desde o pagamento, em {printed_from} até a aceitação da proposta"
        )),
        "{terms}"
    );
    assert!(terms.contains("art. 19, § 2º"), "{terms}");

    // The acceptance ends the provisional cover and starts the contract's term.
    let accepted = decide(
        &app,
        &office,
        &identifier,
        json!({"status": "APROVADO", "reason": "Conferida"}),
    )
    .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    let data = app.proposal_data(&identifier, &shop).await;
    let cover = &data["acceptance"]["provisionalCover"];
    assert_eq!(instant(&cover["from"]), from);
    let until = instant(&cover["until"]);
    assert!(until >= from, "{cover}");
    assert!(data["acceptance"]["term"]["start"].is_string(), "{data}");
    // Nothing was held: nothing to collect at the acceptance, nor charged twice.
    assert_eq!(collect(&app).await.collected, Vec::<String>::new());
    assert_eq!(charged(&app, &subscription).await, 3990);

    // A refused sale's cover ends at the refusal.
    let (_, refused, _) = another_paid_sale(&app, &shop, "11144477735", "ana@exemplo.com.br").await;
    let decided = decide(
        &app,
        &office,
        &refused,
        json!({"status": "REPROVADO", "reason": JUSTIFIED}),
    )
    .await;
    assert_eq!(decided.status(), StatusCode::OK);
    let data = app.proposal_data(&refused, &shop).await;
    assert!(data["acceptance"]["provisionalCover"]["until"].is_string(), "{data}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_second_shop_product_holds_the_card_until_the_acceptance_and_collects_then_once() {
    let app = app().await;
    let shop = shop(&app).await;
    seed_second_shop_product(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let (identifier, subscription) = held_sale(&app, &shop, "52998224725", "joao@exemplo.com.br").await;
    let subscription_id = subscription["id"].as_str().unwrap().to_owned();
    assert_eq!(subscription["status"], "trialing", "{subscription}");
    assert!(subscription["trial_end"].as_i64().unwrap() > Utc::now().timestamp() + 300 * 86_400);

    // The sale is committed (in analysis, the terms mailed) and nothing was charged.
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["proposal"]["status"], "EM ANÁLISE");
    assert_eq!(data["subscription"]["status"], "trialing");
    assert_eq!(data["acceptance"]["provisionalCover"], Value::Null, "{data}");
    assert_eq!(data["ledger"]["received"].as_i64().unwrap_or(0), 0, "{data}");
    assert_eq!(charged(&app, &subscription_id).await, 0);
    let terms = joined(&mailed_terms(&app, "joao@exemplo.com.br").await);
    assert!(
        terms.contains("Nada é cobrado antes de a seguradora aceitar a proposta"),
        "{terms}"
    );
    assert!(!terms.contains("cobertura provisória"), "{terms}");
    assert_eq!(collect(&app).await, Default::default(), "not accepted yet");
    assert_eq!(charged(&app, &subscription_id).await, 0);

    // Accepted: the next collection pass charges the first premium, under the proposal's claim.
    let accepted = decide(
        &app,
        &office,
        &identifier,
        json!({"status": "APROVADO", "reason": "Conferida"}),
    )
    .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    let pass = collect(&app).await;
    assert_eq!(pass.collected, std::slice::from_ref(&identifier));
    assert_eq!(charged(&app, &subscription_id).await, 1990);
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["proposal"]["status"], "APROVADO");
    assert_eq!(data["subscription"]["status"], "active");
    assert_eq!(data["subscription"]["latestInvoiceStatus"], "paid");
    assert_eq!(data["ledger"]["received"], 1990, "{data}");
    assert_eq!(
        app.count("SELECT count(*) AS n FROM proposal_operations WHERE kind = 'cobranca_aceite' AND state = 'done'")
            .await,
        1
    );
    // Once: the next pass finds nothing held.
    assert_eq!(collect(&app).await, Default::default());
    assert_eq!(charged(&app, &subscription_id).await, 1990);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_sale_of_the_second_shop_product_collects_nothing_and_cancels_the_held_subscription() {
    let app = app().await;
    let shop = shop(&app).await;
    seed_second_shop_product(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let (identifier, subscription) = held_sale(&app, &shop, "52998224725", "joao@exemplo.com.br").await;
    let subscription_id = subscription["id"].as_str().unwrap().to_owned();
    let refused = decide(
        &app,
        &office,
        &identifier,
        json!({"status": "REPROVADO", "reason": JUSTIFIED}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::OK);
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["subscription"]["status"], "canceled");
    assert_eq!(data["refunds"], json!([]), "nothing was paid, nothing goes back");
    assert_eq!(collect(&app).await, Default::default());
    assert_eq!(charged(&app, &subscription_id).await, 0);
    let mails = app.mails_to("joao@exemplo.com.br", "Sua proposta não foi aceita").await;
    assert_eq!(mails.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_sets_when_a_product_collects_and_a_value_not_known_is_refused_by_name() {
    let app = app().await;
    let shop = shop(&app).await;
    let config = TestApp::config(&app.db, &[]);
    use domain::ecommerce::collection::PremiumCollection;
    assert_eq!(
        api_actix::cli::set_product_collection(&config, 103, None)
            .await
            .unwrap(),
        PremiumCollection::ProvisionalCover
    );
    let refused = api_actix::cli::set_product_collection(&config, 103, Some("antes"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("at: antes não é uma cobrança conhecida; use cobertura_provisoria ou na_aceitacao"),
        "{refused}"
    );
    let unknown = api_actix::cli::set_product_collection(&config, 999, Some("na_aceitacao"))
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("produto 999 não encontrado"), "{unknown}");
    assert_eq!(
        api_actix::cli::set_product_collection(&config, 103, Some("na_aceitacao"))
            .await
            .unwrap(),
        PremiumCollection::AtAcceptance
    );
    // A sale of 103 from now on is held.
    let (_, _, subscription) = another_paid_sale(&app, &shop, "52998224725", "joao@exemplo.com.br").await;
    assert_eq!(charged(&app, &subscription).await, 0);
}

/// The collection at acceptance and the customer's regret, together, many times over (issue 67,
/// decision 271): both move money under the proposal's claim, so either the regret wins (nothing
/// was charged, the held subscription cancelled) or the collection does (then the regret, if it
/// came after, returns all of it, or is refused while the collection runs). The card is never
/// charged more than once, what it keeps is what the proposal's state says, and the
/// reconciliation and the ledger's check find nothing.
#[tokio::test(flavor = "multi_thread")]
async fn the_collection_at_acceptance_and_the_customers_regret_together_charge_at_most_once_and_return_it_all() {
    use super::operation_claims::{RUNS, answered, nothing_drifted, print_outcomes, together};
    let app = app().await;
    let shop = shop(&app).await;
    seed_second_shop_product(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let mut outcomes = Vec::new();
    for run in 0..RUNS {
        let cpf = black_box_tests::cpf_from(640_000 + run);
        let (identifier, subscription) = held_sale(&app, &shop, &cpf, "joao@exemplo.com.br").await;
        let subscription_id = subscription["id"].as_str().unwrap().to_owned();
        let accepted = decide(
            &app,
            &office,
            &identifier,
            json!({"status": "APROVADO", "reason": "Conferida"}),
        )
        .await;
        assert_eq!(accepted.status(), StatusCode::OK);
        let (pass, (withdrawn, withdrawal)) = together(collect(&app), async {
            answered(
                app.post_json_as(
                    &format!("/proposal/{identifier}/withdraw"),
                    &shop,
                    &json!({"reason": "Mudei de ideia"}),
                )
                .await,
            )
            .await
        })
        .await;
        let data = app.proposal_data(&identifier, &office).await;
        let charged = charged(&app, &subscription_id).await;
        assert!(charged == 0 || charged == 1990, "run {run}: charged {charged}");
        let (received, refunded) = (
            data["ledger"]["received"].as_i64().unwrap_or(0),
            data["ledger"]["refunded"].as_i64().unwrap_or(0),
        );
        assert_eq!(received, charged, "run {run}: the ledger is what the card paid: {data}");
        let status = data["proposal"]["status"].as_str().unwrap().to_owned();
        match status.as_str() {
            "CANCELADO" => {
                assert_eq!(withdrawn, StatusCode::OK, "{withdrawal}");
                assert_eq!(
                    refunded, charged,
                    "run {run}: the regret returns all that was paid: {data}"
                );
                assert_eq!(data["subscription"]["status"], "canceled");
            }
            "APROVADO" => {
                assert_eq!(withdrawn, StatusCode::CONFLICT, "{withdrawal}");
                assert_eq!(withdrawal["code"], "operacao_em_andamento", "{withdrawal}");
                assert_eq!(pass.collected, std::slice::from_ref(&identifier));
                assert_eq!((charged, refunded), (1990, 0));
                assert_eq!(data["subscription"]["status"], "active");
            }
            other => panic!("run {run}: {other} ({withdrawn}: {withdrawal})"),
        }
        outcomes.push(format!("{status} cobrado {charged}"));
    }
    // Nothing held is left to collect, and nothing drifted from the platform.
    assert_eq!(collect(&app).await, Default::default());
    nothing_drifted(&app).await;
    let report = api_actix::cli::check_ledger(&TestApp::config(&app.db, &[]), false)
        .await
        .unwrap();
    assert!(
        api_actix::cli::ledger_outcome(&report, false).is_ok(),
        "the ledger's check finds nothing: {report:?}"
    );
    print_outcomes(&outcomes);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_shops_terms_print_the_premium_charged_the_insurer_and_no_empty_party() {
    let app = app().await;
    let (shop, identifier, _) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(
        data["proposal"]["value"], 0,
        "route 6 records no value, as the interface shows it"
    );
    let charged = data["ledger"]["received"].as_i64().unwrap();
    // Route 7's premium is what the subscription charges, split by the product's line.
    assert_eq!(data["premium"]["total"], charged);
    assert_eq!(data["premium"]["iofRate"], "0.38");
    let terms = joined(&mailed_terms(&app, "joao@exemplo.com.br").await);
    let price = domain::contract::formats::reais(charged);
    for expected in [
        format!("Valor {price}"),
        format!("pelo valor de {price}"),
        format!("Prêmio total (mensal) {price}"),
        "Seguro de Vida Online".to_owned(),
        "Contratam o(a) proponente e a seguradora Seguradora Exemplo S.A., CNPJ 11.444.777/0001-61, pela loja online, sem intermediário".to_owned(),
        "Contratação direta com a seguradora, pela loja online, sem corretor.".to_owned(),
    ] {
        assert!(terms.contains(&expected), "\"{expected}\" not in the terms: {terms}");
    }
    assert!(!terms.contains("R$ 0,00") && !terms.contains(" —,"), "{terms}");
}
