//! `GET /proposal/list`: who sees what, every condition, `q`, the dates, paging with the cursor
//! while proposals keep arriving, and bad input named.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, cpf_from, error_fields, proposal_body, shop_proposal_body};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const OTHER_PARTNER: &str = "11444777000161";

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

/// `/proposal/list` with these parameters, encoded.
fn list_path(params: &[(&str, &str)]) -> String {
    let mut url = reqwest::Url::parse("http://list/proposal/list").unwrap();
    if !params.is_empty() {
        url.query_pairs_mut().extend_pairs(params);
    }
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    }
}

/// The page (200 expected).
async fn page(app: &TestApp, token: &str, params: &[(&str, &str)]) -> Value {
    let response = app.get(&list_path(params), Some(token)).await;
    assert_eq!(response.status(), StatusCode::OK, "{params:?}");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    assert_eq!(
        body["rowsAffected"],
        json!([body["document"].as_array().unwrap().len()])
    );
    body
}

/// The identifiers a page holds, in order.
fn identifiers(body: &Value) -> Vec<String> {
    body["document"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["identificador"].as_str().unwrap().to_owned())
        .collect()
}

async fn listed(app: &TestApp, token: &str, params: &[(&str, &str)]) -> Vec<String> {
    identifiers(&page(app, token, params).await)
}

/// Creates through route 5 (or 6 with the shop's token and a shop body); answers the record.
async fn create(app: &TestApp, path: &str, token: &str, body: &Value) -> Value {
    let response = app.post_json_as(path, token, body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    body["document"][0].clone()
}

fn named(cpf: &str, name: &str) -> Value {
    let mut body = proposal_body(cpf);
    body["customer"]["fullName"] = json!(name);
    body
}

fn id_of(record: &Value) -> String {
    record["identificador"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_caller_lists_its_own_scope_newest_first_as_route_5_answers_the_records() {
    let s = setup().await;
    let first = create(&s.app, "/proposal/create", &s.partner, &proposal_body(&cpf_from(1))).await;
    let other = create(
        &s.app,
        "/proposal/create",
        &s.other_partner,
        &proposal_body(&cpf_from(2)),
    )
    .await;
    let shop = create(
        &s.app,
        "/proposal/create/ecommerce",
        &s.shop,
        &shop_proposal_body(&cpf_from(3)),
    )
    .await;
    let second = create(&s.app, "/proposal/create", &s.partner, &proposal_body(&cpf_from(4))).await;

    let mine = page(&s.app, &s.partner, &[]).await;
    assert_eq!(identifiers(&mine), [id_of(&second), id_of(&first)]);
    // Each record exactly as route 5 answered it, and the last page says so.
    assert_eq!(mine["document"][0], second);
    assert_eq!(mine["document"][1], first);
    assert_eq!(mine["data"], json!({"nextCursor": null}));
    assert_eq!(mine["message"], "Propostas encontradas.");

    assert_eq!(listed(&s.app, &s.other_partner, &[]).await, [id_of(&other)]);
    assert_eq!(listed(&s.app, &s.shop, &[]).await, [id_of(&shop)]);
    assert_eq!(
        listed(&s.app, &s.office, &[]).await,
        [id_of(&second), id_of(&shop), id_of(&other), id_of(&first)]
    );
    // Another partner's condition inside one's own scope finds nothing.
    let none = page(&s.app, &s.partner, &[("conditions[cpf_cnpj_parceiro]", OTHER_PARTNER)]).await;
    assert_eq!(none["document"], json!([]));
    assert_eq!(none["message"], "Nenhuma proposta encontrada.");

    let anonymous = s.app.get("/proposal/list", None).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_condition_filters_by_equality() {
    let s = setup().await;
    let payroll = create(&s.app, "/proposal/create", &s.partner, &proposal_body(&cpf_from(11))).await;
    let mut boleto_body = proposal_body(&cpf_from(12));
    boleto_body["billingCode"] = json!(5001);
    boleto_body["shippingType"] = json!("sms");
    let boleto = create(&s.app, "/proposal/create", &s.partner, &boleto_body).await;
    let other = create(
        &s.app,
        "/proposal/create",
        &s.other_partner,
        &proposal_body(&cpf_from(13)),
    )
    .await;
    let shop = create(
        &s.app,
        "/proposal/create/ecommerce",
        &s.shop,
        &shop_proposal_body(&cpf_from(14)),
    )
    .await;
    s.app
        .sql(&format!(
            "UPDATE proposals SET status = 'CANCELADO' WHERE identificador = '{}'",
            id_of(&boleto)
        ))
        .await;

    let office = |params: &'static [(&'static str, &'static str)]| listed(&s.app, &s.office, params);
    assert_eq!(office(&[("conditions[status]", "CANCELADO")]).await, [id_of(&boleto)]);
    assert_eq!(
        office(&[("conditions[status]", "NOVO")]).await,
        [id_of(&shop), id_of(&other), id_of(&payroll)]
    );
    assert_eq!(
        office(&[("conditions[codigo_faturamento]", "5001")]).await,
        [id_of(&boleto)]
    );
    assert_eq!(
        office(&[("conditions[codigo_faturamento]", "5004")]).await,
        [id_of(&shop)]
    );
    assert_eq!(
        office(&[("conditions[cpf_cnpj_parceiro]", "11.444.777/0001-61")]).await,
        [id_of(&other)]
    );
    assert_eq!(
        office(&[("conditions[tipo_envio]", "sms")]).await,
        [id_of(&shop), id_of(&boleto)]
    );
    // Conditions combine.
    assert_eq!(
        office(&[
            ("conditions[tipo_envio]", "whatsapp"),
            ("conditions[cpf_cnpj_parceiro]", PARTNER)
        ])
        .await,
        [id_of(&payroll)]
    );
    let shop_product = shop["id_produto"].to_string();
    assert_eq!(
        listed(&s.app, &s.office, &[("conditions[id_produto]", shop_product.as_str())]).await,
        [id_of(&shop)]
    );
    let customer = payroll["id_cliente"].to_string();
    assert_eq!(
        listed(&s.app, &s.office, &[("conditions[id_cliente]", customer.as_str())]).await,
        [id_of(&payroll)]
    );
    // The same conditions in a representative's scope.
    assert_eq!(
        listed(&s.app, &s.partner, &[("conditions[status]", "NOVO")]).await,
        [id_of(&payroll)]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn q_finds_words_of_the_name_whatever_the_case_and_accents_or_a_cpf() {
    let s = setup().await;
    let jose = create(
        &s.app,
        "/proposal/create",
        &s.partner,
        &named(&cpf_from(21), "José Antônio da Conceição"),
    )
    .await;
    let maria = create(
        &s.app,
        "/proposal/create",
        &s.partner,
        &named(&cpf_from(22), "Maria da Silva"),
    )
    .await;
    let joana = create(
        &s.app,
        "/proposal/create",
        &s.partner,
        &named(&cpf_from(23), "JOANA SILVEIRA"),
    )
    .await;

    let (app, office) = (&s.app, &s.office);
    let q = |text: &'static str| async move { listed(app, office, &[("q", text)]).await };
    assert_eq!(q("jose conceicao").await, [id_of(&jose)]);
    assert_eq!(q("CONCEIÇÃO  josé").await, [id_of(&jose)]);
    assert_eq!(q("antônio").await, [id_of(&jose)]);
    assert_eq!(q("silva").await, [id_of(&maria)]);
    // Part of a word is enough.
    assert_eq!(q("SÍLV").await, [id_of(&joana), id_of(&maria)]);
    assert_eq!(q("Silveira").await, [id_of(&joana)]);
    assert_eq!(q("maria souza").await, Vec::<String>::new());
    // LIKE's wildcards are letters like any other.
    assert_eq!(q("si%va").await, Vec::<String>::new());
    assert_eq!(q("da_silva").await, Vec::<String>::new());

    // A CPF, masked or not, finds that customer's proposals.
    let cpf = cpf_from(22);
    let masked = format!("{}.{}.{}-{}", &cpf[0..3], &cpf[3..6], &cpf[6..9], &cpf[9..]);
    assert_eq!(
        listed(&s.app, &s.office, &[("q", masked.as_str())]).await,
        [id_of(&maria)]
    );
    assert_eq!(listed(&s.app, &s.office, &[("q", cpf.as_str())]).await, [id_of(&maria)]);
    // A name search stays inside the caller's scope.
    assert_eq!(
        listed(&s.app, &s.other_partner, &[("q", "silva")]).await,
        Vec::<String>::new()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn created_from_and_to_are_brasilia_days_and_to_is_inclusive() {
    let s = setup().await;
    let late_october = create(&s.app, "/proposal/create", &s.partner, &proposal_body(&cpf_from(31))).await;
    let first_of_november = create(&s.app, "/proposal/create", &s.partner, &proposal_body(&cpf_from(32))).await;
    let second_of_november = create(&s.app, "/proposal/create", &s.partner, &proposal_body(&cpf_from(33))).await;
    for (record, at) in [
        // 23:30 in Brasília on 31 October is already 1 November in UTC.
        (&late_october, "2026-10-31T23:30:00-03:00"),
        (&first_of_november, "2026-11-01T00:10:00-03:00"),
        (&second_of_november, "2026-11-02T23:59:00-03:00"),
    ] {
        s.app
            .sql(&format!(
                "UPDATE proposals SET criado_em = '{at}' WHERE identificador = '{}'",
                id_of(record)
            ))
            .await;
    }
    let office = |params: &'static [(&'static str, &'static str)]| listed(&s.app, &s.office, params);
    assert_eq!(
        office(&[("createdFrom", "2026-11-01"), ("createdTo", "2026-11-01")]).await,
        [id_of(&first_of_november)]
    );
    assert_eq!(
        office(&[("createdFrom", "2026-11-01")]).await,
        [id_of(&second_of_november), id_of(&first_of_november)]
    );
    assert_eq!(office(&[("createdTo", "2026-10-31")]).await, [id_of(&late_october)]);
    assert_eq!(
        office(&[("createdFrom", "2026-10-31"), ("createdTo", "2026-11-02")]).await,
        [
            id_of(&second_of_november),
            id_of(&first_of_november),
            id_of(&late_october)
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cursor_pages_without_repeats_or_gaps_while_proposals_arrive() {
    let s = setup().await;
    let mut existing = Vec::new();
    for n in 0..7 {
        existing.push(id_of(
            &create(
                &s.app,
                "/proposal/create",
                &s.partner,
                &proposal_body(&cpf_from(40 + n)),
            )
            .await,
        ));
    }
    existing.reverse();

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for round in 0..5 {
        let mut params = vec![("limit", "3")];
        if let Some(c) = cursor.as_deref() {
            params.push(("cursor", c));
        }
        let body = page(&s.app, &s.office, &params).await;
        seen.extend(identifiers(&body));
        // New proposals between pages land before the first page, not in the pages still to come.
        create(
            &s.app,
            "/proposal/create",
            &s.partner,
            &proposal_body(&cpf_from(60 + round)),
        )
        .await;
        match body["data"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, existing);

    // A page exactly filled by the last rows says it is the last.
    let all = page(&s.app, &s.partner, &[("limit", "200")]).await;
    let count = all["document"].as_array().unwrap().len();
    let limit = count.to_string();
    let whole = page(&s.app, &s.partner, &[("limit", limit.as_str())]).await;
    assert_eq!(whole["data"]["nextCursor"], Value::Null);
    let short = page(&s.app, &s.partner, &[("limit", "1")]).await;
    assert!(short["data"]["nextCursor"].is_string());
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_conditions_and_bad_values_are_400s_naming_each() {
    let s = setup().await;
    let refused = |params: &'static [(&'static str, &'static str)]| async {
        let answer = assert_error(
            s.app.get(&list_path(params), Some(&s.office)).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        error_fields(&answer)
    };
    assert_eq!(
        refused(&[("conditions[nome_completo]", "Maria"), ("ordem", "asc")]).await,
        ["conditions[nome_completo]", "ordem"]
    );
    assert_eq!(
        refused(&[
            ("conditions[status]", "PERDIDO"),
            ("conditions[id_produto]", "um"),
            ("conditions[codigo_faturamento]", "0"),
            ("conditions[cpf_cnpj_parceiro]", "11222333000100"),
            ("conditions[tipo_envio]", "email"),
            ("conditions[id_cliente]", "-4"),
        ])
        .await,
        [
            "conditions[status]",
            "conditions[id_produto]",
            "conditions[codigo_faturamento]",
            "conditions[cpf_cnpj_parceiro]",
            "conditions[tipo_envio]",
            "conditions[id_cliente]",
        ]
    );
    assert_eq!(
        refused(&[
            ("limit", "201"),
            ("cursor", "não-é-um-cursor"),
            ("createdFrom", "01/11/2026")
        ])
        .await,
        ["limit", "cursor", "createdFrom"]
    );
    assert_eq!(
        refused(&[("createdFrom", "2026-11-02"), ("createdTo", "2026-11-01")]).await,
        ["createdTo"]
    );
    assert_eq!(refused(&[("q", "12345678900")]).await, ["q"]);
    assert_eq!(refused(&[("q", "%_")]).await, ["q"]);
    assert_eq!(refused(&[("limit", "10"), ("limit", "20")]).await, ["limit"]);
    // Filters an HTML form leaves empty count as not sent.
    let empty = page(
        &s.app,
        &s.office,
        &[("conditions[status]", ""), ("q", ""), ("cursor", "")],
    )
    .await;
    assert_eq!(empty["document"], json!([]));
}

/// `q` costs at most five trigram-served patterns: every word needs three letters of its own, and
/// full-width wildcards that normalisation folds to `%`, `_` and `\` stay literal.
#[tokio::test(flavor = "multi_thread")]
async fn q_is_bounded_to_five_words_of_three_letters_each_and_its_wildcards_stay_literal() {
    let s = setup().await;
    let maria = create(
        &s.app,
        "/proposal/create",
        &s.partner,
        &named(&cpf_from(31), "Maria da Silva Souza"),
    )
    .await;
    let (app, office) = (&s.app, &s.office);
    let refused = |q: String| async move {
        let answer = assert_error(
            app.get(&list_path(&[("q", q.as_str())]), Some(office)).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&answer), ["q"], "{q}");
        answer["errors"][0]["message"].as_str().unwrap().to_owned()
    };
    // Sixty one-letter words hold more than three letters in all, and are still refused.
    let one_letter_words = vec!["a"; 60].join(" ");
    assert!(refused(one_letter_words).await.contains("palavras"));
    assert!(refused("maria da silva".into()).await.contains("3 letras"));
    assert!(refused("ab1 silva".into()).await.contains("3 letras"));
    assert!(
        refused("maria silva souza costa lima rocha".into())
            .await
            .contains("no máximo 5 palavras")
    );
    assert!(refused("mar\u{0}ia".into()).await.contains("nulo"));

    assert_eq!(
        listed(&s.app, &s.office, &[("q", "maria silva souza")]).await,
        [id_of(&maria)]
    );
    assert_eq!(
        listed(&s.app, &s.office, &[("q", "Ｍａｒｉａ")]).await,
        [id_of(&maria)],
        "full-width letters fold to their ASCII forms"
    );
    for wildcard in ["mar％a", "mar＿a", "mar＼ia", "sil％"] {
        assert_eq!(
            listed(&s.app, &s.office, &[("q", wildcard)]).await,
            Vec::<String>::new(),
            "{wildcard} is literal after normalisation"
        );
    }
}
