//! Routes 5 to 9: creating proposals, reading them, and checking availability; who sees what.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{Kind, StatusCode, TestApp, assert_error, assert_shape, assert_timestamp, error_fields};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const OTHER_PARTNER: &str = "11444777000161";

/// The spec's sample of route 5 (salary exactly 141200).
fn standard(cpf: &str) -> Value {
    json!({
        "billingCode": 5002, "productCode": 101, "typeOfPayments": "DESCONTO EM FOLHA", "shippingType": "whatsapp",
        "customer": {"fullName": "Maria da Silva", "cpf": cpf, "birthDate": "1990-05-15", "gender": "Feminino",
            "maritalStatus": "Casado", "nationality": "Brasileira", "cellPhone": "(11) 91234-5678", "phone": null,
            "email": "maria@exemplo.com.br", "profession": "Professora", "salary": 141200, "working": true,
            "publicServer": true, "pep": false, "absent": false, "medication": false, "medicationDescription": null,
            "isIlliterate": false},
        "address": {"zipCode": "01310100", "address": "Avenida Paulista", "number": "1000", "neighborhood": "Bela Vista",
            "city": "São Paulo", "state": "SP", "complement": null},
        "discountOnSheet": {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"}
    })
}

fn ecommerce(cpf: &str) -> Value {
    json!({
        "billingCode": 5004, "productCode": 103, "shippingType": "sms",
        "customer": {"fullName": "João Souza", "cpf": cpf, "birthDate": "1985-03-10", "gender": "Masculino",
            "maritalStatus": "Solteiro", "cellPhone": "(21) 99876-5432", "email": "joao@exemplo.com.br"},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro",
            "city": "Rio de Janeiro", "state": "RJ", "complement": "Sala 501"}
    })
}

const PROPOSAL_RECORD: [(&str, Kind); 26] = [
    ("id", Kind::Number),
    ("identificador", Kind::String),
    ("id_jave", Kind::StringOrNull),
    ("valor", Kind::Number),
    ("cpf_cnpj_parceiro", Kind::StringOrNull),
    ("id_representante", Kind::NumberOrNull),
    ("id_cliente", Kind::Number),
    ("key_documento", Kind::StringOrNull),
    ("key_assinatura_requisicao", Kind::StringOrNull),
    ("reenvios", Kind::Number),
    ("status", Kind::String),
    ("alterado_por", Kind::String),
    ("alterado_em", Kind::String),
    ("criado_em", Kind::String),
    ("cnpj_associacao", Kind::StringOrNull),
    ("cnpj_federacao", Kind::StringOrNull),
    ("tipo_envio", Kind::String),
    ("reenvio_notificacao", Kind::Number),
    ("fluxo", Kind::StringOrNull),
    ("codigo_Associado", Kind::StringOrNull),
    ("id_motivacao", Kind::Number),
    ("id_produto", Kind::Number),
    ("id_gravacao", Kind::StringOrNull),
    ("id_convite", Kind::StringOrNull),
    ("assinatura_eletronica", Kind::StringOrNull),
    ("codigo_faturamento", Kind::Number),
];

struct Setup {
    app: TestApp,
    partner: String,
    other_partner: String,
    shop: String,
    office: String,
}

async fn setup() -> Setup {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let other_partner = app.token_for("rep@outro.com.br", "PARCEIRO", OTHER_PARTNER).await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    Setup {
        app,
        partner,
        other_partner,
        shop,
        office,
    }
}

async fn created(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    assert_eq!(body["rowsAffected"], json!([1]));
    body["document"][0].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_spec_sample_creates_a_new_proposal_record_with_every_member() {
    let s = setup().await;
    let response = s
        .app
        .post_json_as("/proposal/create", &s.partner, &standard("12345678909"))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("Proposta"));
    let record = &body["document"][0];
    assert_shape(record, &PROPOSAL_RECORD);
    assert_eq!(record["status"], "NOVO");
    assert_eq!(record["reenvios"], 0);
    assert_eq!(record["valor"], 4990);
    assert_eq!(record["cpf_cnpj_parceiro"], PARTNER);
    assert_eq!(record["tipo_envio"], "whatsapp");
    assert_eq!(record["codigo_faturamento"], 5002);
    assert_eq!(record["alterado_por"], "rep@demo.com.br");
    assert_timestamp(&record["criado_em"]);
    assert_timestamp(&record["alterado_em"]);
    // Unguessable: a random UUID, not a sequence.
    assert_eq!(
        uuid::Uuid::parse_str(record["identificador"].as_str().unwrap())
            .unwrap()
            .get_version_num(),
        4
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn payroll_and_debit_fields_are_required_by_the_payment_type() {
    let s = setup().await;
    let mut body = standard("12345678909");
    body.as_object_mut().unwrap().remove("discountOnSheet");
    let answer = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["discountOnSheet"]);

    body["typeOfPayments"] = json!("DÉBITO EM CONTA");
    let answer = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["debitAccount"]);

    body["debitAccount"] = json!({"bank": "12", "agency": "12a", "account": ""});
    let answer = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(
        error_fields(&answer),
        ["debitAccount.account", "debitAccount.bank", "debitAccount.agency"]
    );

    // A bank the product does not take.
    body["debitAccount"] = json!({"bank": "260", "agency": "1234", "account": "56789-0"});
    let answer = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["debitAccount.bank"]);

    body["debitAccount"] = json!({"bank": "001", "agency": "1234-5", "account": "56789-0", "operation": "013"});
    let record = created(s.app.post_json_as("/proposal/create", &s.partner, &body).await).await;
    let detail: Value = s
        .app
        .get(
            &format!("/proposal/byIdentifier/{}", record["identificador"].as_str().unwrap()),
            Some(&s.partner),
        )
        .await
        .json()
        .await
        .unwrap();
    let payment = &detail["data"]["payment"];
    assert_eq!(payment["type"], "DÉBITO EM CONTA");
    assert_eq!(payment["bank"], "001");
    assert_eq!(payment["agency"], "1234-5");
    assert!(payment["debitId"].is_number() && payment["sheetId"].is_null());
}

#[tokio::test(flavor = "multi_thread")]
async fn rules_of_the_body_are_each_refused_with_the_field_named() {
    let s = setup().await;
    let mut body = standard("12345678909");
    body["customer"]["salary"] = json!(141199);
    body["customer"]["fullName"] = json!("Maria");
    body["customer"]["birthDate"] = json!("1990-5-15");
    body["customer"]["cellPhone"] = json!("(20) 91234-5678");
    body["typeOfPayments"] = json!("BOLETO");
    body["shippingType"] = json!("email");
    body["address"]["state"] = json!("São Paulo");
    body["billingCode"] = json!("5002");
    let answer = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    let codes: Vec<(String, String)> = answer["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().to_owned(),
                e["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("billingCode", "tipo_invalido"),
        ("typeOfPayments", "tipo_pagamento_invalido"),
        ("shippingType", "tipo_envio_invalido"),
        ("customer.fullName", "nome_palavras"),
        ("customer.birthDate", "data_formato"),
        ("customer.cellPhone", "celular_ddd"),
        ("customer.salary", "salario_minimo"),
        ("address.state", "uf_invalida"),
    ]
    .iter()
    .map(|(f, c)| ((*f).to_owned(), (*c).to_owned()))
    .collect();
    assert_eq!(codes, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_products_and_mismatched_billing_groups_are_field_errors() {
    let s = setup().await;
    let mut body = standard("12345678909");
    body["productCode"] = json!(999);
    let answer = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["productCode", "billingCode"]);
    body["productCode"] = json!(102);
    let answer = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["billingCode"]);
    assert_eq!(answer["errors"][0]["code"], "referencia_inexistente");
}

#[tokio::test(flavor = "multi_thread")]
async fn one_open_proposal_per_customer_and_product_and_a_finished_one_frees_it() {
    let s = setup().await;
    let first = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &standard("12345678909"))
            .await,
    )
    .await;
    let again = s
        .app
        .post_json_as("/proposal/create", &s.partner, &standard("12345678909"))
        .await;
    assert_error(again, StatusCode::BAD_REQUEST, "proposta_em_andamento").await;
    // Another partner cannot open a second one either: the rule is the customer's.
    let elsewhere = s
        .app
        .post_json_as("/proposal/create", &s.other_partner, &standard("12345678909"))
        .await;
    assert_error(elsewhere, StatusCode::BAD_REQUEST, "proposta_em_andamento").await;

    s.app
        .sql(&format!(
            "UPDATE proposals SET status = 'CANCELADO' WHERE id = {}",
            first["id"]
        ))
        .await;
    created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &standard("12345678909"))
            .await,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn twenty_concurrent_creates_give_exactly_one_201() {
    let s = setup().await;
    let body = standard("52998224725");
    let requests = (0..20).map(|_| s.app.post_json_as("/proposal/create", &s.partner, &body));
    let responses = futures_join_all(requests).await;
    let statuses: Vec<StatusCode> = responses.iter().map(reqwest::Response::status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == StatusCode::CREATED).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == StatusCode::BAD_REQUEST).count(),
        19,
        "{statuses:?}"
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposals").await, 1);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM customers").await, 1);
}

async fn futures_join_all<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let handles: Vec<_> = futures.collect();
    let mut out = Vec::new();
    // Poll them together: each is an HTTP request in flight at the same time.
    let joined = futures_util::future::join_all(handles).await;
    out.extend(joined);
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_create_leaves_the_stored_customer_and_address_as_they_were() {
    let s = setup().await;
    created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &standard("12345678909"))
            .await,
    )
    .await;
    let mut changed = standard("12345678909");
    changed["customer"]["fullName"] = json!("Mariana Trocada");
    changed["address"]["address"] = json!("Rua Trocada");
    // The customer upsert runs, then the proposal insert fails: the transaction rolls back.
    assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &changed).await,
        StatusCode::BAD_REQUEST,
        "proposta_em_andamento",
    )
    .await;
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM customers WHERE nome_completo = 'Maria da Silva'")
            .await,
        1
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM addresses WHERE endereco = 'Avenida Paulista'")
            .await,
        1
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM addresses").await, 1);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposal_payments").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ecommerce_proposal_takes_the_reduced_body_in_both_number_forms_and_is_worth_zero() {
    let s = setup().await;
    let record = created(
        s.app
            .post_json_as("/proposal/create/ecommerce", &s.shop, &ecommerce("52998224725"))
            .await,
    )
    .await;
    assert_shape(&record, &PROPOSAL_RECORD);
    assert_eq!(record["valor"], 0);
    assert_eq!(record["status"], "NOVO");
    assert_eq!(record["fluxo"], "ECOMMERCE");

    let mut as_strings = ecommerce("12345678909");
    as_strings["address"]["number"] = json!("10A");
    as_strings["address"]["complement"] = json!(null);
    as_strings.as_object_mut().unwrap().remove("shippingType");
    let record = created(
        s.app
            .post_json_as("/proposal/create/ecommerce", &s.shop, &as_strings)
            .await,
    )
    .await;
    assert_eq!(record["tipo_envio"], "sms");

    let mut bad = ecommerce("11111111111");
    bad["address"]["number"] = json!(-3);
    bad["partnerId"] = json!(999);
    let answer = assert_error(
        s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &bad).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["customer.cpf", "address.number"]);

    assert_error(
        s.app
            .post_json_as("/proposal/create/ecommerce", &s.partner, &ecommerce("52998224725"))
            .await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    assert_error(
        s.app
            .post_json_as("/proposal/create", &s.shop, &standard("52998224725"))
            .await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    assert_error(
        s.app
            .post_json_as("/proposal/create", &s.office, &standard("52998224725"))
            .await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_partner_id_on_an_ecommerce_proposal_is_named() {
    let s = setup().await;
    let mut body = ecommerce("52998224725");
    body["partnerId"] = json!(999);
    let answer = assert_error(
        s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["partnerId"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_detail_has_every_member_of_the_spec_in_its_type() {
    let s = setup().await;
    let record = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &standard("12345678909"))
            .await,
    )
    .await;
    let id = record["identificador"].as_str().unwrap();
    let response = s
        .app
        .get(&format!("/proposal/byIdentifier/{id}"), Some(&s.partner))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["document"], json!([]));
    assert_eq!(body["rowsAffected"], json!([]));
    let data = &body["data"];
    use Kind::*;
    assert_shape(
        data,
        &[
            ("proposal", Object),
            ("representative", Object),
            ("customer", Object),
            ("partner", Object),
            ("company", Object),
            ("entities", Object),
            ("sign", Object),
            ("payment", Object),
            // Issue 29: the e-commerce sale's subscription, null for this partner's proposal.
            ("subscription", ObjectOrNull),
            // Issue 45: the acceptance clock, null before the proposal enters analysis.
            ("acceptance", ObjectOrNull),
            // Issue 45: every refund of the proposal, none here.
            ("refunds", Array),
            // Issue 46: the accepted contract's last charges and its billing, none before.
            ("charges", Array),
            ("billing", ObjectOrNull),
            // Issue 65: the contract's ledger, zeros before anything is charged.
            ("ledger", Object),
            // Issue 68: the beneficiaries named, none here (the legal heirs).
            ("beneficiaries", Array),
            // Issue 68: the premium split into net premium and IOF; the certificate, null before
            // the acceptance (decision 281).
            ("premium", ObjectOrNull),
            ("certificate", ObjectOrNull),
        ],
    );
    assert_eq!(data["beneficiaries"], json!([]));
    assert_eq!(data["certificate"], Value::Null);
    assert_shape(
        &data["premium"],
        &[("net", Number), ("iof", Number), ("iofRate", String), ("total", Number)],
    );
    assert_eq!(data["premium"]["total"], data["proposal"]["value"]);
    assert_eq!(
        data["ledger"],
        json!({"due": 0, "received": 0, "refunded": 0, "owedBack": 0})
    );
    assert_eq!(data["subscription"], Value::Null);
    assert_eq!(data["acceptance"], Value::Null);
    assert_eq!(data["refunds"], json!([]));
    assert_eq!(data["charges"], json!([]));
    assert_eq!(data["billing"], Value::Null);
    assert_shape(
        &data["proposal"],
        &[
            ("id", Number),
            ("identifier", String),
            ("product", String),
            ("produce_code", Number),
            ("product_id", Number),
            ("motivation", String),
            ("value", Number),
            ("partnerCpfCnpj", StringOrNull),
            ("customerId", Number),
            ("status", String),
            ("id_jave", StringOrNull),
            ("modifiedBy", String),
            ("typeSend", String),
            ("inviteId", StringOrNull),
            ("createdAt", String),
            ("updatedAt", String),
        ],
    );
    assert_shape(
        &data["representative"],
        &[
            ("cpf", StringOrNull),
            ("email", StringOrNull),
            ("name", StringOrNull),
            ("token_atentende_servico_de_vidio", StringOrNull),
        ],
    );
    assert_eq!(data["representative"]["email"], "rep@demo.com.br");
    assert_shape(
        &data["customer"],
        &[
            ("fullName", String),
            ("cpf", String),
            ("birthday", String),
            ("gender", String),
            ("maritalStatus", StringOrNull),
            ("nationality", StringOrNull),
            ("cellPhone", StringOrNull),
            ("phone", StringOrNull),
            ("email", StringOrNull),
            ("profession", StringOrNull),
            ("salary", NumberOrNull),
            ("working", Boolean),
            ("publicServant", Boolean),
            ("pep", Boolean),
            ("absent", Boolean),
            ("takingMedication", Boolean),
            ("medicationDescription", StringOrNull),
            ("cep", StringOrNull),
            ("street", StringOrNull),
            ("number", NumberOrNull),
            ("neighborhood", StringOrNull),
            ("city", StringOrNull),
            ("state", StringOrNull),
            ("complement", StringOrNull),
            ("modifiedBy", String),
            ("isIlliterate", Boolean),
            ("createdAt", String),
            ("updatedAt", String),
        ],
    );
    assert_eq!(data["customer"]["number"], 1000);
    assert_eq!(
        data["customer"]["birthday"],
        "Tue May 15 1990 00:00:00 GMT+0000 (Coordinated Universal Time)"
    );
    assert_shape(
        &data["partner"],
        &[
            ("cpfCnpj", StringOrNull),
            ("fantasyName", StringOrNull),
            ("socialReason", StringOrNull),
            ("modifiedBy", StringOrNull),
            ("createdAt", StringOrNull),
            ("updatedAt", StringOrNull),
        ],
    );
    assert_eq!(data["partner"]["cpfCnpj"], PARTNER);
    assert_shape(
        &data["company"],
        &[
            ("cpfCnpj", StringOrNull),
            ("fantasyName", StringOrNull),
            ("socialReason", StringOrNull),
        ],
    );
    assert_shape(
        &data["entities"],
        &[
            ("associationCnpj", StringOrNull),
            ("associationName", StringOrNull),
            ("federationCnpj", StringOrNull),
            ("federationName", StringOrNull),
        ],
    );
    assert_shape(
        &data["sign"],
        &[
            ("id", NumberOrNull),
            ("identifier", StringOrNull),
            ("clientKey", StringOrNull),
            ("associationKey", StringOrNull),
            ("federationKey", StringOrNull),
            ("enterpriseKey", StringOrNull),
            ("clientStatus", StringOrNull),
            ("associationStatus", StringOrNull),
            ("federationStatus", StringOrNull),
            ("enterpriseStatus", StringOrNull),
            ("modifiedBy", StringOrNull),
            ("updatedAt", StringOrNull),
            ("createdAt", StringOrNull),
            ("location", ObjectOrNull),
        ],
    );
    assert_shape(
        &data["payment"],
        &[
            ("cardId", NumberOrNull),
            ("debitId", NumberOrNull),
            ("sheetId", NumberOrNull),
            ("type", StringOrNull),
            ("name", StringOrNull),
            ("number", StringOrNull),
            ("expiryDate", StringOrNull),
            ("billingDay", NumberOrNull),
            ("bank", StringOrNull),
            ("agency", StringOrNull),
            ("account", StringOrNull),
            ("operation", StringOrNull),
            ("sheetNumber", StringOrNull),
            ("sheetType", StringOrNull),
            ("specie", NumberOrNull),
            ("issuerBody", StringOrNull),
            ("modifiedBy", StringOrNull),
            ("createdAt", StringOrNull),
            ("updatedAt", StringOrNull),
            ("pixAutomatico", ObjectOrNull),
        ],
    );
    assert_eq!(data["payment"]["sheetType"], "BENEFÍCIO");
    assert_eq!(data["payment"]["specie"], 41);
}

#[tokio::test(flavor = "multi_thread")]
async fn who_sees_which_proposal() {
    let s = setup().await;
    let partners = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &standard("12345678909"))
            .await,
    )
    .await;
    let shops = created(
        s.app
            .post_json_as("/proposal/create/ecommerce", &s.shop, &ecommerce("52998224725"))
            .await,
    )
    .await;
    let path = |record: &Value| format!("/proposal/byIdentifier/{}", record["identificador"].as_str().unwrap());

    assert_eq!(
        s.app.get(&path(&partners), Some(&s.partner)).await.status(),
        StatusCode::OK
    );
    assert_error(
        s.app.get(&path(&partners), Some(&s.other_partner)).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    assert_error(
        s.app.get(&path(&partners), Some(&s.shop)).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    assert_eq!(
        s.app.get(&path(&partners), Some(&s.office)).await.status(),
        StatusCode::OK
    );

    assert_eq!(s.app.get(&path(&shops), Some(&s.shop)).await.status(), StatusCode::OK);
    assert_error(
        s.app.get(&path(&shops), Some(&s.partner)).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    assert_eq!(s.app.get(&path(&shops), Some(&s.office)).await.status(), StatusCode::OK);

    assert_error(
        s.app.get("/proposal/byIdentifier/nao-existe", Some(&s.office)).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    assert_error(
        s.app.get(&path(&partners), None).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn availability_by_cpf_and_by_cell_phone() {
    let s = setup().await;
    let check = |path: String| {
        let app = &s.app;
        let token = s.shop.clone();
        async move {
            let response = app.get(&path, Some(&token)).await;
            assert_eq!(response.status(), StatusCode::OK);
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["status"], "success");
            assert_eq!(body["document"], json!([]));
            assert_eq!(body["rowsAffected"], json!([0]));
            body["data"]["isValid"].as_bool().unwrap()
        }
    };
    assert!(check("/proposal/cpfValidtoProduct/12345678909/9101".into()).await);
    assert!(check("/proposal/cellPhoneValidtoProduct/11912345678/9101".into()).await);
    created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &standard("12345678909"))
            .await,
    )
    .await;
    assert!(!check("/proposal/cpfValidtoProduct/123.456.789-09/9101".into()).await);
    assert!(!check("/proposal/cellPhoneValidtoProduct/(11)%2091234-5678/9101".into()).await);
    assert!(!check("/proposal/cellPhoneValidtoProduct/11912345678/9101".into()).await);
    assert!(
        check("/proposal/cpfValidtoProduct/12345678909/9102".into()).await,
        "another product is free"
    );

    assert_error(
        s.app
            .get("/proposal/cpfValidtoProduct/12345678909/1", Some(&s.shop))
            .await,
        StatusCode::NOT_FOUND,
        "produto_nao_encontrado",
    )
    .await;
    let answer = assert_error(
        s.app.get("/proposal/cpfValidtoProduct/123/abc", Some(&s.shop)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["cpf", "integrationCode"]);
    let answer = assert_error(
        s.app
            .get("/proposal/cellPhoneValidtoProduct/1234/9101", Some(&s.shop))
            .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["celular"]);
}

/// PostgreSQL's text cannot hold U+0000: a path or query parameter holding it names nothing (404)
/// or is refused naming itself (400), never a 500.
#[tokio::test(flavor = "multi_thread")]
async fn a_nul_character_in_a_path_or_query_parameter_is_never_a_server_error() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    for path in [
        "/proposal/byIdentifier/a%00b",
        "/proposal/a%00b/events",
        "/proposal/a%00b/document",
    ] {
        assert_error(
            app.get(path, Some(&partner)).await,
            StatusCode::NOT_FOUND,
            "proposta_nao_encontrada",
        )
        .await;
    }
    let changed = app
        .client
        .patch(app.url("/proposal/a%00b/status"))
        .bearer_auth(&office)
        .json(&json!({"status": "CANCELADO", "motivo": "teste"}))
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), StatusCode::NOT_FOUND);
    for (path, field) in [
        ("/product/list?conditions[nome]=a%00b", "conditions[nome]"),
        (
            "/billingGroup/list?conditions[descricao]=a%00b",
            "conditions[descricao]",
        ),
    ] {
        let body = assert_error(
            app.get(path, Some(&office)).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&body), vec![field.to_owned()], "{path}");
    }
    for path in ["/sandbox/sign/a%00b", "/sandbox/document/a%00b"] {
        assert_eq!(app.get(path, None).await.status(), StatusCode::NOT_FOUND, "{path}");
    }
}
