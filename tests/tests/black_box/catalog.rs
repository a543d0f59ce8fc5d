//! Route 10 (billing groups), route 11 (a product's banks), the product listing, and catalog
//! management by the back office.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{Kind, StatusCode, TestApp, assert_error, assert_shape, error_fields};
use serde_json::{Value, json};

async fn setup() -> (TestApp, String, String) {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    (app, partner, office)
}

async fn ok(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    body
}

const BILLING_GROUP: [(&str, Kind); 8] = [
    ("id", Kind::Number),
    ("alterado_em", Kind::String),
    ("alterado_por", Kind::String),
    ("criado_em", Kind::String),
    ("codigo_faturamento", Kind::Number),
    ("descricao", Kind::String),
    ("codigo_integracao", Kind::Number),
    ("codigo_produto", Kind::Number),
];

#[tokio::test(flavor = "multi_thread")]
async fn billing_groups_are_listed_whole_by_default_ordered_by_id() {
    let (app, partner, _) = setup().await;
    let body = ok(app.get("/billingGroup/list", Some(&partner)).await).await;
    let groups = body["document"].as_array().unwrap();
    assert_eq!(groups.len(), 4);
    assert_eq!(body["rowsAffected"], json!([4]));
    for group in groups {
        assert_shape(group, &BILLING_GROUP);
    }
    let ids: Vec<i64> = groups.iter().map(|g| g["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
}

#[tokio::test(flavor = "multi_thread")]
async fn fields_and_conditions_restrict_the_answer() {
    let (app, partner, _) = setup().await;
    let body = ok(app
        .get(
            "/billingGroup/list?fields=codigo_faturamento,descricao&conditions[codigo_produto]=101",
            Some(&partner),
        )
        .await)
    .await;
    let groups = body["document"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    for group in groups {
        assert_shape(
            group,
            &[("codigo_faturamento", Kind::Number), ("descricao", Kind::String)],
        );
    }
    let body = ok(app
        .get(
            "/billingGroup/list?conditions[codigo_produto]=101&conditions[codigo_faturamento]=5002",
            Some(&partner),
        )
        .await)
    .await;
    assert_eq!(body["document"][0]["codigo_faturamento"], 5002);
    assert_eq!(body["document"].as_array().unwrap().len(), 1);
    let body = ok(app
        .get(
            "/billingGroup/list?conditions[descricao]=Mensal%20-%20d%C3%A9bito%20em%20conta",
            Some(&partner),
        )
        .await)
    .await;
    assert_eq!(body["document"][0]["codigo_faturamento"], 5003);
}

#[tokio::test(flavor = "multi_thread")]
async fn values_are_bound_never_spliced_into_sql() {
    let (app, partner, _) = setup().await;
    let body = ok(app
        .get(
            "/billingGroup/list?conditions[descricao]=x'%20OR%20'1'='1",
            Some(&partner),
        )
        .await)
    .await;
    assert_eq!(body["document"], json!([]));
    assert_eq!(body["rowsAffected"], json!([0]));
    assert_eq!(app.count("SELECT count(*) AS n FROM billing_groups").await, 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_field_names_bad_values_and_paging_limits_are_400s_naming_them() {
    let (app, partner, _) = setup().await;
    let answer = assert_error(
        app.get("/billingGroup/list?fields=id,senha", Some(&partner)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["fields"]);
    assert!(answer["errors"][0]["message"].as_str().unwrap().contains("senha"));
    let answer = assert_error(
        app.get("/billingGroup/list?conditions[pg_sleep(1)]=1", Some(&partner))
            .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["conditions[pg_sleep(1)]"]);
    let answer = assert_error(
        app.get("/billingGroup/list?conditions[codigo_produto]=cento", Some(&partner))
            .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["conditions[codigo_produto]"]);
    let answer = assert_error(
        app.get("/billingGroup/list?limit=1001&offset=-1", Some(&partner)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["limit", "offset"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn limit_and_offset_page_through_the_list() {
    let (app, partner, _) = setup().await;
    let first = ok(app
        .get("/billingGroup/list?fields=codigo_faturamento&limit=3", Some(&partner))
        .await)
    .await;
    let rest = ok(app
        .get(
            "/billingGroup/list?fields=codigo_faturamento&limit=3&offset=3",
            Some(&partner),
        )
        .await)
    .await;
    assert_eq!(
        first["document"],
        json!([{"codigo_faturamento": 5001}, {"codigo_faturamento": 5002}, {"codigo_faturamento": 5003}])
    );
    assert_eq!(rest["document"], json!([{"codigo_faturamento": 5004}]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_products_banks_and_a_missing_product() {
    let (app, partner, _) = setup().await;
    let body = ok(app.get("/product/payment/101", Some(&partner)).await).await;
    assert_eq!(body["document"], json!([]));
    assert_shape(
        &body["data"],
        &[
            ("codigoProduto", Kind::Number),
            ("nome", Kind::String),
            ("bank", Kind::Array),
        ],
    );
    assert_eq!(body["data"]["codigoProduto"], 101);
    let banks = body["data"]["bank"].as_array().unwrap();
    assert_eq!(banks.len(), 4);
    for bank in banks {
        assert_shape(bank, &[("codigoBanco", Kind::String), ("nome", Kind::String)]);
    }
    assert_error(
        app.get("/product/payment/999", Some(&partner)).await,
        StatusCode::NOT_FOUND,
        "produto_nao_encontrado",
    )
    .await;
    let answer = assert_error(
        app.get("/product/payment/abc", Some(&partner)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["productCode"]);
    assert_error(
        app.get("/product/payment/101", None).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_product_listing_follows_the_same_rules() {
    let (app, partner, _) = setup().await;
    let body = ok(app.get("/product/list", Some(&partner)).await).await;
    assert_eq!(body["document"].as_array().unwrap().len(), 3);
    assert_shape(
        &body["document"][0],
        &[
            ("id", Kind::Number),
            ("codigo_produto", Kind::Number),
            ("nome", Kind::String),
            ("codigo_integracao", Kind::Number),
            ("ativo", Kind::Boolean),
            ("valor", Kind::Number),
            ("criado_em", Kind::String),
            ("alterado_em", Kind::String),
            ("alterado_por", Kind::String),
        ],
    );
    let body = ok(app
        .get(
            "/product/list?fields=codigo_produto,codigo_integracao&conditions[codigo_integracao]=9103",
            Some(&partner),
        )
        .await)
    .await;
    assert_eq!(
        body["document"],
        json!([{"codigo_produto": 103, "codigo_integracao": 9103}])
    );
    let answer = assert_error(
        app.get("/product/list?conditions[ativo]=sim", Some(&partner)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["conditions[ativo]"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_manages_products_with_their_banks_and_billing_groups() {
    let (app, partner, office) = setup().await;
    let product = json!({"codigo_produto": 104, "nome": "Seguro Residencial", "codigo_integracao": 9104, "valor": 3990,
        "bank": [{"codigoBanco": "001", "nome": "Banco do Brasil"}, {"codigoBanco": "077", "nome": "Banco Inter"}]});
    let response = app.post_json_as("/product", &office, &product).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.unwrap();
    assert_eq!(created["document"][0]["ativo"], true);
    assert_eq!(created["document"][0]["bank"].as_array().unwrap().len(), 2);

    let banks = ok(app.get("/product/payment/104", Some(&partner)).await).await;
    assert_eq!(
        banks["data"]["bank"][1],
        json!({"codigoBanco": "077", "nome": "Banco Inter"})
    );

    let duplicate = assert_error(
        app.post_json_as("/product", &office, &product).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(duplicate["errors"][0]["code"], "valor_duplicado");
    assert_eq!(error_fields(&duplicate), ["codigo_produto"]);

    let mut replaced = product.clone();
    replaced["nome"] = json!("Seguro Residencial Plus");
    replaced["codigo_integracao"] = json!(9105);
    replaced["bank"] = json!([{"codigoBanco": "341", "nome": "Itaú Unibanco"}]);
    let updated = ok(app.put_json_as("/product/104", &office, &replaced).await).await;
    assert_eq!(
        updated["document"][0]["bank"],
        json!([{"codigoBanco": "341", "nome": "Itaú Unibanco"}])
    );

    let group = json!({"codigo_faturamento": 5005, "descricao": "Anual - boleto", "codigo_produto": 104});
    let response = app.post_json_as("/billingGroup", &office, &group).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.unwrap();
    assert_shape(&created["document"][0], &BILLING_GROUP);
    assert_eq!(
        created["document"][0]["codigo_integracao"], 9105,
        "the product's integration code"
    );

    let moved = json!({"codigo_faturamento": 5005, "descricao": "Anual - débito", "codigo_produto": 101});
    let moved = ok(app.put_json_as("/billingGroup/5005", &office, &moved).await).await;
    assert_eq!(moved["document"][0]["codigo_integracao"], 9101);

    let orphan = json!({"codigo_faturamento": 5006, "descricao": "Sem produto", "codigo_produto": 999});
    let answer = assert_error(
        app.post_json_as("/billingGroup", &office, &orphan).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["codigo_produto"]);
    assert_error(
        app.put_json_as("/billingGroup/9999", &office, &group).await,
        StatusCode::NOT_FOUND,
        "nao_encontrado",
    )
    .await;
    assert_error(
        app.put_json_as("/product/999", &office, &product).await,
        StatusCode::NOT_FOUND,
        "nao_encontrado",
    )
    .await;

    let invalid = json!({"codigo_produto": "x", "nome": "", "codigo_integracao": -1, "valor": -5, "bank": [{"codigoBanco": "1"}]});
    let answer = assert_error(
        app.post_json_as("/product", &office, &invalid).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(
        error_fields(&answer),
        [
            "codigo_produto",
            "nome",
            "codigo_integracao",
            "valor",
            "bank[0].codigoBanco",
            "bank[0].nome"
        ]
    );

    assert_error(
        app.post_json_as("/product", &partner, &product).await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    assert_error(
        app.post_json_as("/billingGroup", &partner, &group).await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_application_reads_the_catalog() {
    let (app, partner, office) = setup().await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    for token in [&partner, &office, &shop] {
        assert_eq!(
            app.get("/billingGroup/list", Some(token)).await.status(),
            StatusCode::OK
        );
        assert_eq!(
            app.get("/product/payment/101", Some(token)).await.status(),
            StatusCode::OK
        );
        assert_eq!(app.get("/product/list", Some(token)).await.status(), StatusCode::OK);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_nul_character_in_a_text_member_is_a_field_error_and_nothing_is_written() {
    let (app, partner, office) = setup().await;
    // Found by the deeper fuzzing: PostgreSQL's text refuses U+0000, which JSON allows; it was a 500.
    let product = json!({"codigo_produto": 104, "nome": "Seguro\u{0}Residencial", "codigo_integracao": 9104,
        "bank": [{"codigoBanco": "001", "nome": "Banco\u{0}do Brasil"}]});
    let refused = assert_error(
        app.post_json_as("/product", &office, &product).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["nome", "bank[0].nome"]);
    assert_eq!(refused["errors"][0]["code"], "valor_invalido");
    assert_error(
        app.get("/product/payment/104", Some(&partner)).await,
        StatusCode::NOT_FOUND,
        "produto_nao_encontrado",
    )
    .await;
}

/// `sales-api catalog billing` (issue 67): a product's billing rules set by the back office,
/// refused out of the law's bounds naming each option, kept by the contracts accepted after, and
/// printed by their proposal as the billing applies them (decision 269).
#[tokio::test(flavor = "multi_thread")]
async fn a_products_billing_rules_are_refused_out_of_the_laws_bounds_kept_by_its_contracts_and_printed() {
    use api_actix::cli::{BillingArgs, set_product_billing};
    let (app, partner, office) = setup().await;
    let config = TestApp::config(&app.db, &[]);
    let refused = set_product_billing(
        &config,
        101,
        BillingArgs {
            end_days: Some(10),
            first_instalment: Some("encerra".into()),
            ..BillingArgs::default()
        },
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        refused.contains("firstInstalment") && refused.contains("endDays deve estar entre 30"),
        "{refused}"
    );
    let unknown = set_product_billing(&config, 999, BillingArgs::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("produto 999 não encontrado"), "{unknown}");
    let rules = set_product_billing(
        &config,
        101,
        BillingArgs {
            grace_days: Some(7),
            suspension_days: Some(40),
            first_instalment: Some("suspende".into()),
            end_days: Some(45),
            ..BillingArgs::default()
        },
    )
    .await
    .unwrap();
    assert_eq!((rules.policy.grace_days, rules.end_days), (7, 45));
    assert_eq!(rules.policy.first_due_days, 10, "what was not given is kept");

    let identifier = app.sent_proposal(&partner, "52998224725").await;
    app.sign_as_every_party(&office, &identifier).await;
    let approved = app
        .change_status(&office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(approved.status(), StatusCode::OK);
    let kept = app
        .text(&format!(
            "SELECT b.carencia_dias || ':' || b.suspensao_dias || ':' || b.primeira_parcela || ':' || b.encerramento_dias \
             AS line FROM contract_billings b JOIN proposals p ON p.id = b.id_proposta \
             WHERE p.identificador = '{identifier}'"
        ))
        .await;
    assert_eq!(kept, "7:40:suspende:45");
    let document = app
        .get(&format!("/proposal/{identifier}/document"), Some(&partner))
        .await;
    assert_eq!(document.status(), StatusCode::OK);
    let text = black_box_tests::pdf_text(&document.bytes().await.unwrap());
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "em até 7 dias do vencimento",
        "nunca antes de 40 dias do vencimento",
        "cancelado 45 dias após a suspensão",
    ] {
        assert!(flat.contains(said), "{said} missing from:\n{flat}");
    }
}
