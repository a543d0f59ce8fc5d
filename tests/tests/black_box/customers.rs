//! Routes 3 and 4: creating customers and checking whom they belong to.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{Kind, StatusCode, TestApp, assert_error, assert_shape, assert_timestamp, error_fields};
use serde_json::{Value, json};

fn sample() -> Value {
    black_box_tests::customer_body("123.456.789-09")
}

const CUSTOMER_RECORD: [(&str, Kind); 24] = [
    ("id", Kind::Number),
    ("alterado_por", Kind::String),
    ("criado_em", Kind::String),
    ("alterado_em", Kind::String),
    ("nome_completo", Kind::String),
    ("cpf", Kind::String),
    ("data_nascimento", Kind::String),
    ("celular", Kind::String),
    ("telefone_fixo", Kind::StringOrNull),
    ("email", Kind::String),
    ("salario", Kind::Number),
    ("trabalhando", Kind::Boolean),
    ("servidor_publico", Kind::Boolean),
    ("pep", Kind::Boolean),
    ("afastado", Kind::Boolean),
    ("medicamento", Kind::Boolean),
    ("medicamento_descricao", Kind::StringOrNull),
    ("key_cliente", Kind::StringOrNull),
    ("status", Kind::String),
    ("e_analfabeto", Kind::Boolean),
    ("codigo_jave", Kind::StringOrNull),
    ("cargo_politico", Kind::StringOrNull),
    ("id_endereco", Kind::NumberOrNull),
    ("ecommerce_customer_id", Kind::StringOrNull),
];

#[tokio::test(flavor = "multi_thread")]
async fn the_spec_sample_answers_201_with_a_one_element_array_of_the_customer_record() {
    let app = TestApp::spawn().await;
    let token = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let response = app.post_json_as("/customer/create", &token, &sample()).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    let records = body.as_array().expect("a bare array");
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_shape(record, &CUSTOMER_RECORD);
    assert_eq!(
        record["data_nascimento"], "1990-05-15",
        "the timestamp is answered as a date"
    );
    assert_eq!(record["cpf"], "12345678909");
    assert_eq!(record["status"], "NOVO");
    assert_eq!(record["alterado_por"], "rep@demo.com.br");
    assert_eq!(record["celular"], "(11) 91234-5678");
    assert!(record["id_endereco"].is_number());
    assert_timestamp(&record["criado_em"]);
    assert_timestamp(&record["alterado_em"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_address_the_customer_has_none() {
    let app = TestApp::spawn().await;
    let token = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let mut body = sample();
    body.as_object_mut().unwrap().remove("endereco");
    body["cliente"]["data_nascimento"] = json!("1990-05-15");
    let response = app.post_json_as("/customer/create", &token, &body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let records: Value = response.json().await.unwrap();
    assert!(records[0]["id_endereco"].is_null());
    assert_eq!(app.count("SELECT count(*) AS n FROM addresses").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_invalid_field_is_named_with_its_code_and_nothing_is_stored() {
    let app = TestApp::spawn().await;
    let token = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let body = json!({
        "cliente": {
            "nome_completo": "Maria 2 Silva", "cpf": "123.456.789-00", "data_nascimento": "2999-01-01", "sexo": "F",
            "estado_civil": "Noivo", "nacionalidade": "", "celular": "(11) 81234-5678", "telefone_fixo": "(11) 9123-4567",
            "email": "maria@", "profissao": "Professora", "salario": 1500.5, "pep": "não"
        },
        "endereco": {"cep": "0131010", "endereco": "Avenida Paulista", "numero": 1000, "bairro": "Bela Vista",
            "cidade": "São Paulo", "estado": "XX"}
    });
    let answer = assert_error(
        app.post_json_as("/customer/create", &token, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    let found: Vec<(String, String)> = answer["errors"]
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
    let expected = [
        ("cliente.nome_completo", "nome_caractere"),
        ("cliente.cpf", "cpf_digito"),
        ("cliente.data_nascimento", "data_futura"),
        ("cliente.sexo", "sexo_invalido"),
        ("cliente.estado_civil", "estado_civil_invalido"),
        ("cliente.nacionalidade", "campo_obrigatorio"),
        ("cliente.celular", "celular_nao_movel"),
        ("cliente.telefone_fixo", "telefone_formato"),
        ("cliente.email", "email_formato"),
        ("cliente.salario", "salario_formato"),
        ("cliente.pep", "tipo_invalido"),
        ("endereco.cep", "cep_formato"),
        ("endereco.estado", "uf_invalida"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(f, c)| ((*f).to_owned(), (*c).to_owned()))
        .collect();
    assert_eq!(found, expected);
    assert!(
        answer["errors"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["message"].as_str().is_some_and(|m| !m.is_empty()))
    );
    assert_eq!(app.count("SELECT count(*) AS n FROM customers").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_cliente_a_negative_salary_and_a_too_young_customer_are_refused() {
    let app = TestApp::spawn().await;
    let token = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let answer = assert_error(
        app.post_json_as("/customer/create", &token, &json!({})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["cliente"]);
    let mut body = sample();
    body["cliente"]["salario"] = json!(-1);
    body["cliente"]["data_nascimento"] = json!("2015-01-01");
    let answer = assert_error(
        app.post_json_as("/customer/create", &token, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["cliente.data_nascimento", "cliente.salario"]);
    assert_eq!(answer["errors"][0]["code"], "data_idade");
}

#[tokio::test(flavor = "multi_thread")]
async fn only_partner_representatives_create_customers() {
    let app = TestApp::spawn().await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    for token in [&shop, &office] {
        assert_error(
            app.post_json_as("/customer/create", token, &sample()).await,
            StatusCode::FORBIDDEN,
            "sem_permissao",
        )
        .await;
    }
    let anonymous = app.post_json("/customer/create", &sample()).await;
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "nao_autenticado").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_cpf_again_updates_the_customer() {
    let app = TestApp::spawn().await;
    let token = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let first: Value = app
        .post_json_as("/customer/create", &token, &sample())
        .await
        .json()
        .await
        .unwrap();
    let mut body = sample();
    body["cliente"]["profissao"] = json!("Diretora");
    body["endereco"]["numero"] = json!("1001");
    let second = app.post_json_as("/customer/create", &token, &body).await;
    assert_eq!(second.status(), StatusCode::CREATED);
    let second: Value = second.json().await.unwrap();
    assert_eq!(first[0]["id"], second[0]["id"]);
    assert_eq!(first[0]["id_endereco"], second[0]["id_endereco"]);
    assert_eq!(
        app.count("SELECT count(*) AS n FROM customers WHERE profissao = 'Diretora'")
            .await,
        1
    );
    assert_eq!(
        app.count("SELECT count(*) AS n FROM addresses WHERE numero = '1001'")
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn valid_customer_tells_whether_the_customer_is_the_sellers() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let ours = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let theirs = app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;

    let before: Value = app
        .get("/customer/validCustomer/12345678909", Some(&ours))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(before["status"], "success");
    assert_eq!(before["document"], json!([]));
    assert_eq!(before["rowsAffected"], json!([0]));
    assert!(before["message"].as_str().unwrap().contains("não cadastrado"));

    app.post_json_as("/customer/create", &ours, &sample()).await;
    let registered: Value = app
        .get("/customer/validCustomer/123.456.789-09", Some(&ours))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(registered["rowsAffected"], json!([1]));
    assert_eq!(registered["document"], json!([]), "no proposal yet: no product");

    let proposal = crate_proposal_body();
    assert_eq!(
        app.post_json_as("/proposal/create", &ours, &proposal).await.status(),
        StatusCode::CREATED
    );
    let with_product: Value = app
        .get("/customer/validCustomer/12345678909", Some(&ours))
        .await
        .json()
        .await
        .unwrap();
    let item = &with_product["document"][0];
    assert_shape(item, &[("id_cliente", Kind::Number), ("codigo_produto", Kind::Number)]);
    assert_eq!(item["codigo_produto"], 101);

    let other: Value = app
        .get("/customer/validCustomer/12345678909", Some(&theirs))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        other["rowsAffected"],
        json!([0]),
        "another partner's customer is not disclosed"
    );
    let everyone: Value = app
        .get("/customer/validCustomer/12345678909", Some(&office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(everyone["rowsAffected"], json!([1]));

    assert_error(
        app.get("/customer/validCustomer/11111111111", Some(&ours)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    assert_error(
        app.get("/customer/validCustomer/12345678909", Some(&shop)).await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
}

fn crate_proposal_body() -> Value {
    json!({
        "billingCode": 5002, "productCode": 101, "typeOfPayments": "DESCONTO EM FOLHA", "shippingType": "whatsapp",
        "customer": {"fullName": "Maria da Silva", "cpf": "12345678909", "birthDate": "1990-05-15", "gender": "Feminino",
            "maritalStatus": "Casado", "nationality": "Brasileira", "cellPhone": "(11) 91234-5678", "phone": null,
            "email": "maria@exemplo.com.br", "profession": "Professora", "salary": 141200},
        "address": {"zipCode": "01310100", "address": "Avenida Paulista", "number": "1000", "neighborhood": "Bela Vista",
            "city": "São Paulo", "state": "SP", "complement": null},
        "discountOnSheet": {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"}
    })
}
