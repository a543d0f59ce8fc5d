//! Consents (issue 47; LGPD art. 7, I and art. 8): the back office records a consent given or
//! revoked for a purpose whose basis is consent; each record joins the earlier ones, and the
//! export's `consentimentos` says what stands now with every change. A blocked person may revoke
//! but not consent; nothing is recorded for a CPF of whom nothing is held.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{anonymize, contract, export, setup};
use black_box_tests::{StatusCode, assert_error, error_fields};
use serde_json::{Value, json};

const CPF: &str = "52998224725";

async fn consent(s: &super::legal_hold::Setup, token: &str, cpf: &str, body: Value) -> reqwest::Response {
    s.app
        .post_json_as(&format!("/privacy/customers/{cpf}/consents"), token, &body)
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn consents_given_and_revoked_are_kept_in_order_and_the_export_says_what_stands() {
    let s = setup().await;
    s.app.sent_proposal(&s.partner, CPF).await;

    let given = consent(
        &s,
        &s.office,
        "529.982.247-25",
        json!({"purpose": "ofertas", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}}),
    )
    .await;
    assert_eq!(given.status(), StatusCode::CREATED);
    let given: Value = given.json().await.unwrap();
    assert_eq!(given["message"], "Consentimento registrado.");
    assert_eq!(given["data"]["purpose"], "ofertas");
    assert_eq!(given["data"]["granted"], true);
    assert_eq!(given["data"]["registradoPor"], "bo@demo.com.br");
    assert!(given["data"]["baseLegal"].as_str().unwrap().contains("art. 7º, I"));
    let partner_offers = consent(
        &s,
        &s.office,
        CPF,
        json!({"purpose": "ofertas_parceiro", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}}),
    )
    .await;
    assert_eq!(partner_offers.status(), StatusCode::CREATED);
    let revoked = consent(&s, &s.office, CPF, json!({"purpose": "ofertas", "granted": false})).await;
    assert_eq!(revoked.status(), StatusCode::CREATED);
    let revoked: Value = revoked.json().await.unwrap();
    assert_eq!(revoked["message"], "Revogação do consentimento registrada.");

    let consents = export(&s).await["consentimentos"].as_array().unwrap().clone();
    assert_eq!(consents.len(), 2, "{consents:?}");
    assert_eq!(consents[0]["finalidade"], "ofertas");
    assert_eq!(consents[0]["concedido"], false, "the revocation stands");
    let history: Vec<bool> = consents[0]["historico"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["concedido"].as_bool().unwrap())
        .collect();
    assert_eq!(history, [true, false]);
    assert_eq!(consents[0]["historico"][1]["por"], "bo@demo.com.br");
    assert_eq!(consents[1]["finalidade"], "ofertas_parceiro");
    assert_eq!(consents[1]["concedido"], true);
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM privacy_consents WHERE cpf = '{CPF}'"
            ))
            .await,
        3,
        "every record kept"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_body_is_named_nothing_held_is_404_and_only_the_back_office_records() {
    let s = setup().await;
    let refused = assert_error(
        consent(&s, &s.office, CPF, json!({"purpose": "marketing", "granted": "sim"})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["purpose", "granted"]);
    assert_error(
        consent(
            &s,
            &s.office,
            "12345678900",
            json!({"purpose": "ofertas", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    // Nothing is held under the CPF yet: no one to consent.
    assert_error(
        consent(&s, &s.office, CPF, json!({"purpose": "ofertas", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}})).await,
        StatusCode::NOT_FOUND,
        "titular_sem_dados",
    )
    .await;
    s.app.sent_proposal(&s.partner, CPF).await;
    assert_error(
        consent(&s, &s.partner, CPF, json!({"purpose": "ofertas", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}})).await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM privacy_consents").await,
        0,
        "nothing recorded"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_blocked_person_may_revoke_but_not_consent() {
    let s = setup().await;
    contract(&s, CPF).await;
    let granted = consent(&s, &s.office, CPF, json!({"purpose": "ofertas", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}})).await;
    assert_eq!(granted.status(), StatusCode::CREATED);
    assert_eq!(
        anonymize(&s).await.status(),
        StatusCode::CONFLICT,
        "blocked under the hold"
    );

    assert_error(
        consent(
            &s,
            &s.office,
            CPF,
            json!({"purpose": "ofertas_parceiro", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}}),
        )
        .await,
        StatusCode::CONFLICT,
        "titular_bloqueado",
    )
    .await;
    let revoked = consent(&s, &s.office, CPF, json!({"purpose": "ofertas", "granted": false})).await;
    assert_eq!(revoked.status(), StatusCode::CREATED);
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_consents WHERE NOT concedido")
            .await,
        1
    );
}
