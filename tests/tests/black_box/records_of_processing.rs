//! The records of processing (LGPD art. 37, issue 47): `sales-api privacy ropa` prints them from
//! the declarations in code, naming health data as sensitive with its article 11 basis and where
//! it is stored; `docs/privacy.md` is its current output; the export tells the person why each
//! category is held and with whom it was shared.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use api_actix::cli::records_of_processing;
use black_box_tests::{StatusCode, TestApp};
use domain::privacy::declarations::records_markdown;
use serde_json::Value;

#[test]
fn the_records_name_health_data_its_basis_and_where_it_is_kept() {
    let text = records_markdown(&records_of_processing());
    let health = text
        .split("\n## ")
        .find(|section| section.starts_with("Saúde"))
        .expect("a section for health data");
    assert!(health.contains("dado pessoal sensível"), "{health}");
    assert!(health.contains("LGPD art. 11, II, d"), "{health}");
    assert!(health.contains("`customers.medicamento`"), "{health}");
    assert!(
        health.contains("`proposal_customers.medicamento_descricao`"),
        "{health}"
    );
    assert!(health.contains("Seguradora do produto"), "{health}");

    let json: Value = serde_json::to_value(records_of_processing()).unwrap();
    let health = json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["categoria"] == "saude")
        .unwrap();
    assert_eq!(health["sensivel"], true);
    assert_eq!(health["destinatarios"], serde_json::json!(["parceiro", "seguradora"]));
    assert!(
        health["armazenamento"]
            .as_array()
            .unwrap()
            .contains(&Value::from("customers.afastado"))
    );
}

/// Every recipient the sale or its collection reaches is named, the one abroad as an
/// international transfer with its basis (LGPD arts. 33 and 37; issue 69).
#[test]
fn the_records_name_every_recipient_and_the_transfer_abroad() {
    let text = records_markdown(&records_of_processing());
    for named in [
        "Provedor de assinatura eletrônica (Clicksign)",
        "PSP recebedor do Pix Automático",
        "Banco do cliente (débito em conta, arquivos CNAB)",
        "Empregador ou INSS",
        "Plataforma de pagamento (Stripe, Inc., Estados Unidos",
        "Parceiro (corretora) que fez a venda",
        "Seguradora do produto",
    ] {
        assert!(text.contains(named), "{named} missing");
    }
    let transfer = text
        .split("\n## ")
        .find(|section| section.starts_with("Transferência internacional"))
        .expect("a section for the transfer abroad");
    assert!(transfer.contains("art. 33, IX"), "{transfer}");
    assert!(transfer.contains("Stripe"), "{transfer}");
    let json: Value = serde_json::to_value(records_of_processing()).unwrap();
    let of = |category: &str| {
        json.as_array()
            .unwrap()
            .iter()
            .find(|r| r["categoria"] == category)
            .unwrap()["destinatarios"]
            .clone()
    };
    assert!(of("financeiro").as_array().unwrap().contains(&"psp_pix".into()));
    assert!(of("financeiro").as_array().unwrap().contains(&"banco".into()));
    assert!(of("folha").as_array().unwrap().contains(&"empregador_ou_inss".into()));
}

#[test]
fn docs_privacy_md_is_the_commands_current_output() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/privacy.md");
    let kept = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        kept == records_markdown(&records_of_processing()),
        "docs/privacy.md differs from the declarations: run \
         `cargo run -q -p api-actix --bin sales-api -- privacy ropa > docs/privacy.md`"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_export_names_the_legal_bases_and_who_received_the_data() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let cpf = "52998224725";
    let sent = app.sent_proposal(&partner, cpf).await;

    let response = app.get(&format!("/privacy/customers/{cpf}"), Some(&office)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let exported: Value = response.json::<Value>().await.unwrap()["data"].clone();
    let bases = exported["basesLegais"].as_array().unwrap();
    let categories: Vec<&str> = bases.iter().map(|b| b["categoria"].as_str().unwrap()).collect();
    assert_eq!(
        categories,
        [
            "identificacao",
            "contato",
            "endereco",
            "saude",
            "financeiro",
            "folha",
            "evidencias_assinatura",
            // Issue 68: the beneficiaries the customer names (decision 279).
            "beneficiarios"
        ],
        "a customer's categories (no users' access records)"
    );
    let health = bases.iter().find(|b| b["categoria"] == "saude").unwrap();
    assert!(health["basesLegais"][0].as_str().unwrap().contains("art. 11"));

    let shared = exported["compartilhamentos"].as_array().unwrap();
    let recipients: Vec<&str> = shared.iter().map(|s| s["destinatario"].as_str().unwrap()).collect();
    assert_eq!(
        recipients,
        ["provedor_assinatura", "parceiro", "seguradora"],
        "{shared:?}"
    );
    assert_eq!(shared[0]["propostas"], serde_json::json!([sent]));
    assert_eq!(shared[1]["parceiro"]["documento"], "11222333000181");

    // Until when: a sale in progress is kept to be concluded, so the person has no end yet.
    let kept = &exported["retencao"];
    assert_eq!(kept["propostas"][0]["identificador"], sent.as_str());
    assert_eq!(kept["propostas"][0]["ate"], Value::Null);
    assert!(
        kept["propostas"][0]["motivo"]
            .as_str()
            .unwrap()
            .contains("venda em andamento")
    );
    assert_eq!(kept["titular"]["ate"], Value::Null);

    // Of a CPF nothing is held about, the export stays empty lists.
    let nobody: Value = app
        .get("/privacy/customers/11144477735", Some(&office))
        .await
        .json::<Value>()
        .await
        .unwrap()["data"]
        .clone();
    assert_eq!(nobody["basesLegais"], Value::Null);
    assert_eq!(nobody["compartilhamentos"], Value::Null);
    assert_eq!(nobody["retencao"], Value::Null);
}
