//! Beneficiaries (issue 68, decision 279): route 5 names them, each with a whole-percent share,
//! the shares summing 100; route 7 shows them; the proposal and the certificate print them, or
//! the legal heirs' rule (Lei 15.040/2024, art. 115) when none was named; the person's export
//! lists them and the anonymisation removes who they are. A product may require them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{Setup, contract_of, setup};
use adapters_postgres::{PoolSettings, build_pool};
use black_box_tests::{StatusCode, TestApp, cpf_from, pdf_text, proposal_body};
use serde_json::{Value, json};

const CPF: &str = "52998224725";

/// A PDF's text with its line breaks and runs of spaces as single spaces.
fn flat(pdf: &[u8]) -> String {
    pdf_text(pdf).split_whitespace().collect::<Vec<_>>().join(" ")
}

fn named(beneficiaries: Value) -> Value {
    let mut body = proposal_body(CPF);
    body["beneficiaries"] = beneficiaries;
    body
}

fn two(first_share: u8, second_share: u8) -> Value {
    json!([
        {"name": "João da Silva", "cpf": "123.456.789-09", "birthDate": "2015-03-20", "kinship": "Filho", "share": first_share},
        {"name": "Carlos Alberto da Silva", "kinship": "Cônjuge", "share": second_share}
    ])
}

/// The errors of a refused route 5 as `(field, code)`.
async fn refused(s: &Setup, body: &Value) -> Vec<(String, String)> {
    let response = s.app.post_json_as("/proposal/create", &s.partner, body).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.unwrap();
    body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().to_owned(),
                e["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The draft of the proposal (`GET /proposal/{id}/document` while `NOVO`), as text.
async fn proposal_text(s: &Setup, identifier: &str) -> String {
    let document = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.partner))
        .await;
    assert_eq!(document.status(), StatusCode::OK);
    flat(&document.bytes().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn route_5_names_beneficiaries_whose_shares_sum_a_hundred_route_7_shows_them_and_the_documents_print_them() {
    let s = setup().await;
    // 90%: refused naming the list, nothing written.
    assert_eq!(
        refused(&s, &named(two(60, 30))).await,
        [("beneficiaries".to_owned(), "beneficiarios_percentual".to_owned())]
    );
    let wrong = json!([
        {"name": "João", "cpf": CPF, "birthDate": "2999-01-01", "kinship": "Primo", "share": 0},
        "não é um objeto"
    ]);
    let errors = refused(&s, &named(wrong)).await;
    for expected in [
        ("beneficiaries[0].name", "nome_palavras"),
        ("beneficiaries[0].birthDate", "data_futura"),
        ("beneficiaries[0].kinship", "parentesco_invalido"),
        ("beneficiaries[0].share", "valor_invalido"),
        ("beneficiaries[1]", "tipo_invalido"),
    ] {
        assert!(
            errors.iter().any(|(f, c)| (f.as_str(), c.as_str()) == expected),
            "{expected:?} not in {errors:?}"
        );
    }
    let own = json!([{"name": "Maria da Silva", "cpf": CPF, "kinship": "Outro", "share": 100}]);
    assert_eq!(
        refused(&s, &named(own)).await,
        [("beneficiaries[0].cpf".to_owned(), "beneficiario_segurado".to_owned())]
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposals").await, 0);

    // 100%: created, and route 7 shows them as sent, in their order.
    let identifier = s.app.create_proposal_of(&s.partner, &named(two(70, 30))).await;
    let data = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(
        data["beneficiaries"],
        json!([
            {"name": "João da Silva", "cpf": "12345678909", "birthDate": "2015-03-20", "kinship": "Filho", "share": 70},
            {"name": "Carlos Alberto da Silva", "cpf": null, "birthDate": null, "kinship": "Cônjuge", "share": 30}
        ])
    );
    let pool = build_pool(&PoolSettings::new(&s.app.db.url)).unwrap();
    let report = adapters_postgres::read_model::check_read_model(&pool, false)
        .await
        .unwrap();
    assert!(
        report.drifted.is_empty(),
        "route 5's document is the build's: {report:?}"
    );

    // The proposal prints them, with the acceptance clause from the product's policy.
    let text = proposal_text(&s, &identifier).await;
    for expected in [
        "Beneficiários",
        "João da Silva (Filho) — 70%, CPF 123.456.789-09, nascido(a) em 20/03/2015",
        "Carlos Alberto da Silva (Cônjuge) — 30%",
        "3. Aceitação. Recebida esta proposta, a seguradora tem até 15 dias para aceitá-la ou recusá-la",
        "sem recusa nesse prazo, a proposta está aceita",
    ] {
        assert!(text.contains(expected), "\"{expected}\" missing from:\n{text}");
    }

    // None named: route 7's list is empty and the documents print the legal heirs.
    let heirs = s.app.create_proposal(&s.partner, "11144477735").await;
    assert_eq!(s.app.proposal_data(&heirs, &s.office).await["beneficiaries"], json!([]));
    assert!(
        proposal_text(&s, &heirs)
            .await
            .contains("Sem beneficiário indicado: metade do capital segurado ao cônjuge, se houver, e o restante aos demais herdeiros do(a) segurado(a) (Lei nº 15.040/2024, art. 115)")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_certificate_prints_them_the_export_lists_them_and_the_anonymisation_removes_who_they_are() {
    let s = setup().await;
    let identifier = contract_of(&s, &named(two(50, 50))).await;
    let certificate = s
        .app
        .get(&format!("/proposal/{identifier}/certificate"), Some(&s.partner))
        .await;
    assert_eq!(certificate.status(), StatusCode::OK);
    let text = flat(&certificate.bytes().await.unwrap());
    for expected in [
        "Beneficiários",
        "João da Silva (Filho) — 50%, CPF 123.456.789-09",
        "Carlos Alberto da Silva (Cônjuge) — 50%",
    ] {
        assert!(text.contains(expected), "\"{expected}\" missing from:\n{text}");
    }

    // The person's export lists them with the proposal (LGPD art. 18, II).
    let export = super::legal_hold::export(&s).await;
    let listed = &export["propostas"][0]["beneficiarios"];
    assert_eq!(listed[0]["nome"], "João da Silva");
    assert_eq!(listed[0]["cpf"], "12345678909");
    assert_eq!(listed[1]["percentual"], 50);

    // Once the contract is kept no longer, the anonymisation leaves kinship and shares only.
    s.app.outlive_the_contract(&s.partner, &identifier).await;
    let anonymized = super::legal_hold::anonymize(&s).await;
    assert_eq!(
        anonymized.status(),
        StatusCode::OK,
        "{}",
        anonymized.text().await.unwrap()
    );
    assert_eq!(
        s.app.proposal_data(&identifier, &s.office).await["beneficiaries"],
        json!([
            {"name": "Beneficiário anonimizado", "cpf": null, "birthDate": null, "kinship": "Filho", "share": 50},
            {"name": "Beneficiário anonimizado", "cpf": null, "birthDate": null, "kinship": "Cônjuge", "share": 50}
        ])
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM proposal_beneficiaries WHERE beneficiarios::text LIKE '%Silva%' OR beneficiarios::text LIKE '%12345678909%'")
            .await,
        0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_product_that_requires_beneficiaries_refuses_a_proposal_without_them() {
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    assert!(
        !api_actix::cli::set_product_beneficiaries(&config, 101, None)
            .await
            .unwrap()
    );
    assert!(
        api_actix::cli::set_product_beneficiaries(&config, 101, Some(true))
            .await
            .unwrap()
    );
    let unknown = api_actix::cli::set_product_beneficiaries(&config, 999, Some(true))
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("produto 999 não encontrado"), "{unknown}");
    // Every instance's cached catalog is told of the change by PostgreSQL's notification: the
    // instance answering may read it a moment later (each early try is another customer's).
    let mut refused = None;
    for n in 1..=50 {
        let response = s
            .app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(&cpf_from(n)))
            .await;
        if response.status() == StatusCode::BAD_REQUEST {
            refused = Some(response.json::<Value>().await.unwrap());
            break;
        }
        assert_eq!(response.status(), StatusCode::CREATED);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let refused = refused.expect("the product's requirement reached route 5");
    assert_eq!(refused["errors"][0]["field"], "beneficiaries");
    assert_eq!(refused["errors"][0]["code"], "campo_obrigatorio");
    s.app
        .create_proposal_of(
            &s.partner,
            &named(json!([{"name": "Ana Souza", "kinship": "Mãe", "share": 100}])),
        )
        .await;
}
