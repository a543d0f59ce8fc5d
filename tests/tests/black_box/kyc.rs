//! Know your customer (issue 70): the CGU's list of politically exposed persons loaded as the
//! Portal da Transparência publishes it, replacing the list in force whole; a file that is not
//! the list is refused whole and the list in force kept. The sale's screening (decision 293): a
//! CPF the Receita does not hold `REGULAR` refused with nothing stored, a provider that does not
//! answer leaving the sale flagged, a PEP on the list or self-declared flagged for diligence.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use api_actix::cli::{import_pep_list, pep_import_summary};
use black_box_tests::{StatusCode, TestApp, assert_error, cpf_from, error_fields, proposal_body, shop_proposal_body};
use serde_json::{Value, json};

const HEADER: &str = "CPF;Nome_PEP;Sigla_Função;Descrição_Função;Nível_Função;Nome_Órgão;Data_Início_Exercício;Data_Fim_Exercício;Data_Fim_Carência";

/// A file under the test's own folder.
fn written(app: &TestApp, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kyc-{}", app.db.name));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cgu_list_replaces_the_one_in_force_and_a_file_that_is_not_the_list_changes_nothing() {
    let app = TestApp::spawn().await;
    let config = TestApp::config(&app.db, &[]);

    // October's file, in Latin-1 as the portal publishes it: two people, a line that does not read.
    let october = format!(
        "{HEADER}\n\
         \"***.982.247-**\";\"JOSÉ DA CONCEIÇÃO\";\"DAS-6\";\"DIRETOR\";\"6\";\"MINISTÉRIO DA FAZENDA\";\"01/02/2020\";\"31/12/2022\";\"31/12/2027\"\n\
         \"***.111.222-**\";\"MARIA SOUZA\";\"VER\";\"VEREADOR\";\"\";\"MUN. DE PARNAMIRIM-RN\";\"01/01/2021\";\"Não informada\";\"\"\n\
         \"529.982.247-25\";\"SEM MÁSCARA\";\"VER\";\"VEREADOR\";\"\";\"MUN. X\";\"01/01/2021\";\"\";\"\"\n"
    );
    let (latin1, _, _) = encoding_rs::WINDOWS_1252.encode(&october);
    let report = import_pep_list(&config, &written(&app, "202610_PEP.csv", &latin1))
        .await
        .unwrap();
    assert_eq!(
        (report.import.lines_read, report.import.entries, report.import.refused),
        (3, 2, 1)
    );
    let printed = pep_import_summary(&report);
    assert!(printed.contains("linha 4: CPF \"529.982.247-25\""), "{printed}");
    assert_eq!(
        app.count("SELECT count(*) AS n FROM kyc_pep_entries WHERE nome = 'JOSÉ DA CONCEIÇÃO' AND nome_chave = 'JOSE DA CONCEICAO' AND cpf_meio = '982247'")
            .await,
        1,
        "Latin-1 read as such"
    );

    // November's, in UTF-8 and larger than one statement's slice: it replaces October's whole.
    let mut november = String::from(HEADER);
    for n in 0..12_000 {
        november.push_str(&format!(
            "\n***.{:03}.{:03}-**;PESSOA {n};DAS;ASSESSOR;4;ÓRGÃO {n};01/03/2024;;01/03/2034",
            n / 1000,
            n % 1000
        ));
    }
    let report = import_pep_list(&config, &written(&app, "202611_PEP.csv", november.as_bytes()))
        .await
        .unwrap();
    assert_eq!((report.import.entries, report.import.refused), (12_000, 0));
    assert_eq!(app.count("SELECT count(*) AS n FROM kyc_pep_entries").await, 12_000);
    assert_eq!(
        app.count("SELECT count(*) AS n FROM kyc_pep_entries WHERE nome_chave = 'MARIA SOUZA'")
            .await,
        0,
        "October's list is gone"
    );

    // A file cut short, a file of another list, and one with no one that reads: refused whole,
    // November's list stays in force and no load is recorded.
    let cut = format!("{HEADER}\n***.982.247-**;JOSE;DAS;DIRETOR;6;ORGAO;01/02/2020;;\n***.111.222-**;MARIA;DAS");
    let other = "CPF;NOME;CARGO\n***.982.247-**;JOSE;DIRETOR\n";
    let nobody = format!("{HEADER}\n529.982.247-25;SEM MASCARA;DAS;DIRETOR;6;ORGAO;01/02/2020;;\n");
    for (name, bytes, says) in [
        ("cortado.csv", cut.as_bytes(), "linha 3: 3 colunas em vez de 9"),
        ("outra.csv", other.as_bytes(), "não é a lista de PEP da CGU"),
        ("ninguem.csv", nobody.as_bytes(), "nenhuma pessoa"),
    ] {
        let error = import_pep_list(&config, &written(&app, name, bytes))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains(says), "{name}: {error}");
    }
    assert_eq!(app.count("SELECT count(*) AS n FROM kyc_pep_entries").await, 12_000);
    assert_eq!(app.count("SELECT count(*) AS n FROM kyc_pep_imports").await, 2);
}

/// The CPF every sale of these tests is made for (`***.982.247-**` on the CGU's list).
const CPF: &str = "52998224725";

/// Sets what development's Consulta CPF answers for `cpf` (from the machine itself, as a tester).
async fn receita_answers(app: &TestApp, cpf: &str, status: &str) -> reqwest::Response {
    app.post_json(&format!("/sandbox/kyc/cpf/{cpf}"), &json!({"status": status}))
        .await
}

/// Route 5's sale of `cpf` for another of the demo's products (debited from an account at a bank
/// it takes), so that one person may have several open at once.
fn sale_of(cpf: &str, product: i32, billing: i32, bank: &str) -> Value {
    let mut body = proposal_body(cpf);
    body["productCode"] = json!(product);
    body["billingCode"] = json!(billing);
    body["typeOfPayments"] = json!("DÉBITO EM CONTA");
    body.as_object_mut().unwrap().remove("discountOnSheet");
    body["debitAccount"] = json!({"bank": bank, "agency": "1234-5", "account": "56789-0"});
    body
}

/// The contract version that shows the screening (`data.kyc`, `cpf_irregular`; decision 293).
const SCREENING_VERSION: &str = "2026-12-06";

/// `POST path` as `token`, in the screening's version.
async fn post_in_newest(app: &TestApp, path: &str, token: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .bearer_auth(token)
        .header("Sales-Version", SCREENING_VERSION)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Route 7's `data.kyc` as `token` reads it in the screening's version.
async fn kyc_of(app: &TestApp, identifier: &str, token: &str) -> Value {
    let response = app
        .client
        .get(app.url(&format!("/proposal/byIdentifier/{identifier}")))
        .bearer_auth(token)
        .header("Sales-Version", SCREENING_VERSION)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json::<Value>().await.unwrap()["data"]["kyc"].clone()
}

/// The demo's catalog, a partner's representative, the shop and the back office.
async fn sellers() -> (TestApp, String, String, String) {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    (app, partner, shop, office)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cpf_the_receita_holds_cancelled_is_refused_at_routes_5_and_6_and_nothing_is_stored() {
    let (app, partner, shop, office) = sellers().await;
    let set = receita_answers(&app, CPF, "CANCELADA").await;
    assert_eq!(set.status(), StatusCode::OK);
    let set: Value = set.json().await.unwrap();
    assert_eq!(set["data"], json!({"cpf": CPF, "status": "CANCELADA"}));

    let refused = post_in_newest(&app, "/proposal/create", &partner, &proposal_body(CPF)).await;
    let body = assert_error(refused, StatusCode::UNPROCESSABLE_ENTITY, "cpf_irregular").await;
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("situação CANCELADA") && message.contains("campo cpf"),
        "{message}"
    );
    let refused = post_in_newest(&app, "/proposal/create/ecommerce", &shop, &shop_proposal_body(CPF)).await;
    assert_error(refused, StatusCode::UNPROCESSABLE_ENTITY, "cpf_irregular").await;
    // A caller of an older version (the unpinned one's) reads the 422 code its document declares,
    // with the same message.
    let older = app
        .post_json_as("/proposal/create", &partner, &proposal_body(CPF))
        .await;
    let body = assert_error(older, StatusCode::UNPROCESSABLE_ENTITY, "corpo_malformado").await;
    assert!(
        body["message"].as_str().unwrap().contains("situação CANCELADA"),
        "{body}"
    );
    for table in ["proposals", "customers", "proposal_kyc"] {
        assert_eq!(
            app.count(&format!("SELECT count(*) AS n FROM {table}")).await,
            0,
            "{table}: nothing stored"
        );
    }

    // Each of the Receita's other statuses refuses alike, named in the message.
    for status in ["SUSPENSA", "NULA", "TITULAR FALECIDO", "PENDENTE DE REGULARIZAÇÃO"] {
        receita_answers(&app, CPF, status).await;
        let refused = post_in_newest(&app, "/proposal/create", &partner, &proposal_body(CPF)).await;
        let body = assert_error(refused, StatusCode::UNPROCESSABLE_ENTITY, "cpf_irregular").await;
        assert!(body["message"].as_str().unwrap().contains(status), "{body}");
    }

    // Regular again: the sale goes on, with no diligence to do.
    receita_answers(&app, CPF, "REGULAR").await;
    let identifier = app.create_proposal(&partner, CPF).await;
    assert_eq!(
        kyc_of(&app, &identifier, &office).await,
        json!({"pep": false, "status": "nao_exigida", "reasons": []})
    );
    assert!(
        app.proposal_data(&identifier, &office).await.get("kyc").is_none(),
        "an older version's route 7 goes without it"
    );

    // The control names what it does not take; another seller's token may not use it from afar,
    // and the loopback tester may.
    let bad = receita_answers(&app, "123", "DESCONHECIDA").await;
    let body = assert_error(bad, StatusCode::BAD_REQUEST, "dados_invalidos").await;
    assert_eq!(error_fields(&body), ["cpf", "status"]);
    assert!(
        body["errors"][1]["message"].as_str().unwrap().contains("INDISPONIVEL"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_that_does_not_answer_leaves_the_sale_flagged_for_diligence_not_failed() {
    let (app, partner, shop, office) = sellers().await;
    receita_answers(&app, CPF, "INDISPONIVEL").await;
    let identifier = app.create_proposal(&partner, CPF).await;
    let kyc = &kyc_of(&app, &identifier, &office).await;
    assert_eq!(kyc["pep"], false);
    assert_eq!(kyc["status"], "pendente");
    assert_eq!(kyc["reasons"][0]["code"], "cpf_nao_verificado", "{kyc}");
    assert_eq!(kyc["reasons"].as_array().unwrap().len(), 1, "{kyc}");
    assert_eq!(
        app.count("SELECT count(*) AS n FROM kyc_cpf_status").await,
        0,
        "no answer is kept: the next sale asks again"
    );
    // The seller reads it too, from the same document.
    assert_eq!(kyc_of(&app, &identifier, &partner).await, *kyc);

    // The shop's sale alike.
    let other = cpf_from(4242);
    receita_answers(&app, &other, "INDISPONIVEL").await;
    let response = app
        .post_json_as("/proposal/create/ecommerce", &shop, &shop_proposal_body(&other))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(
        app.count("SELECT count(*) AS n FROM proposal_kyc WHERE situacao = 'pendente'")
            .await,
        2
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_receitas_answer_is_used_again_for_its_time_by_the_development_clock() {
    let (app, partner, _shop, office) = sellers().await;
    let first = app.create_proposal(&partner, CPF).await;
    assert_eq!(kyc_of(&app, &first, &office).await["status"], "nao_exigida");
    assert_eq!(
        app.text("SELECT situacao AS line FROM kyc_cpf_status").await,
        "REGULAR",
        "the answer kept"
    );
    // The Receita cancels the CPF without the sandbox's control forgetting what was kept (as the
    // real Receita would): a second sale within the day is judged by the answer kept...
    app.sql(&format!(
        "INSERT INTO kyc_sandbox_cpf_status (cpf, resposta) VALUES ('{CPF}', 'CANCELADA')"
    ))
    .await;
    let response = app
        .post_json_as("/proposal/create", &partner, &sale_of(CPF, 102, 5003, "001"))
        .await;
    assert_eq!(
        response.status(),
        StatusCode::CREATED,
        "{}",
        response.text().await.unwrap()
    );

    // ... and after it, asked again.
    let moved = app.post_json("/sandbox/clock", &json!({"daysAhead": 2})).await;
    assert_eq!(moved.status(), StatusCode::OK);
    let refused = post_in_newest(&app, "/proposal/create", &partner, &sale_of(CPF, 103, 5004, "341")).await;
    assert_error(refused, StatusCode::UNPROCESSABLE_ENTITY, "cpf_irregular").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_customer_on_the_cgu_list_or_self_declared_is_a_pep_whose_diligence_is_pending() {
    let (app, partner, _shop, office) = sellers().await;
    let config = TestApp::config(&app.db, &[]);
    // The customer's six middle digits and name, exposed for ten days more; a namesake's digits.
    let list = format!(
        "{HEADER}\n\
         ***.982.247-**;MARIA DA SILVA;DEP;DEPUTADO FEDERAL;;CÂMARA DOS DEPUTADOS;01/02/2015;{ended};{until}\n\
         ***.111.222-**;MARIA DA SILVA;VER;VEREADOR;;MUN. DE NATAL-RN;01/01/2021;;\n",
        ended = (chrono::Utc::now().date_naive() - chrono::Days::new(1800)).format("%d/%m/%Y"),
        until = (chrono::Utc::now().date_naive() + chrono::Days::new(10)).format("%d/%m/%Y"),
    );
    import_pep_list(&config, &written(&app, "202612_PEP.csv", list.as_bytes()))
        .await
        .unwrap();

    let listed = app.create_proposal(&partner, CPF).await;
    let kyc = &kyc_of(&app, &listed, &office).await;
    assert_eq!(kyc["pep"], true);
    assert_eq!(kyc["status"], "pendente");
    assert_eq!(kyc["reasons"][0]["code"], "pep_lista", "{kyc}");
    let detail = kyc["reasons"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("DEPUTADO FEDERAL — CÂMARA DOS DEPUTADOS"), "{detail}");

    // Someone else with her six middle digits but another name is not her, nor is a namesake
    // with other digits.
    let mut same_digits = proposal_body(&cpf_from(982_247));
    same_digits["customer"]["fullName"] = json!("Mariana da Silva");
    let not_listed = app.create_proposal_of(&partner, &same_digits).await;
    assert_eq!(kyc_of(&app, &not_listed, &office).await["status"], "nao_exigida");
    let not_listed = app.create_proposal(&partner, &cpf_from(5)).await;
    assert_eq!(kyc_of(&app, &not_listed, &office).await["status"], "nao_exigida");

    // Self-declared (`pep: true`), on no list.
    let declared_cpf = cpf_from(77);
    let mut declared = proposal_body(&declared_cpf);
    declared["customer"]["pep"] = json!(true);
    let declared = app.create_proposal_of(&partner, &declared).await;
    let kyc = &kyc_of(&app, &declared, &office).await;
    assert_eq!(
        (kyc["pep"].clone(), kyc["reasons"][0]["code"].clone()),
        (json!(true), json!("pep_declarado"))
    );

    // Past the five years after her role (by the development clock), she is no longer exposed.
    let moved = app.post_json("/sandbox/clock", &json!({"daysAhead": 11})).await;
    assert_eq!(moved.status(), StatusCode::OK);
    let later = app.create_proposal_of(&partner, &sale_of(CPF, 102, 5003, "001")).await;
    assert_eq!(kyc_of(&app, &later, &office).await["status"], "nao_exigida");
}
