//! Documents that hold (issue 68), read back with pdftotext as the insurer's compliance officer
//! reads them: the insurer's signature on the envelope is its receipt of the proposal, never its
//! acceptance (Lei 15.040/2024 art. 49); a certificate is mailed only while its contract is in
//! force, and an ended contract's certificate is served stamped with its end; the proposal prints
//! the health answers, the beneficiaries, the broker and the acceptance deadline, and the
//! certificate its number, the IOF, the broker and the general conditions' digest (decision 280).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{contract as accepted, contract_of, setup};
use black_box_tests::{StatusCode, TestApp, pdf_text, proposal_body};
use serde_json::json;

const CUSTOMERS_EMAIL: &str = "maria@exemplo.com.br";

/// The SHA-256 of the proposal's certificate as issued and stored.
async fn issued_sha256(s: &super::legal_hold::Setup, identifier: &str) -> String {
    s.app
        .text(&format!(
            "SELECT c.sha256 AS line FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta \
             WHERE p.identificador = '{identifier}'"
        ))
        .await
}

/// A PDF's text with its line breaks and runs of spaces as single spaces.
fn flat(pdf: &[u8]) -> String {
    pdf_text(pdf).split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_insurers_signature_is_printed_as_the_receipt_of_the_proposal_not_as_its_acceptance() {
    let s = setup().await;
    let identifier = s.app.sent_proposal(&s.partner, "52998224725").await;
    s.app.sign_as_every_party(&s.office, &identifier).await;
    let signed = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.office))
        .await;
    assert_eq!(signed.status(), StatusCode::OK);
    assert_eq!(signed.headers()["document-version"], "signed");
    let text = flat(&signed.bytes().await.unwrap());
    let evidence = text.split("Evidências da assinatura").nth(1).unwrap();
    let insurer = evidence.split("Empresa:").nth(1).unwrap();
    for expected in [
        "Recebimento",
        &format!("a seguradora recebeu a proposta (protocolo {identifier})"),
        "não é a aceitação do seguro",
        "Lei 15.040/2024, art. 49",
    ] {
        assert!(
            insurer.contains(expected),
            "\"{expected}\" not in the insurer's part: {insurer}"
        );
    }
    assert!(!insurer.contains("concordou"), "{insurer}");
    let client = evidence.split("Associação:").next().unwrap();
    assert!(client.contains("assinando como contratante"), "{client}");
    // Still in analysis: the receipt accepted nothing.
    assert_eq!(
        s.app.proposal_data(&identifier, &s.office).await["proposal"]["status"],
        "EM ANÁLISE"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_certificate_is_mailed_only_while_its_contract_is_in_force_and_served_stamped_once_it_ended() {
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    let delivered = accepted(&s, "52998224725").await;
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.delivered, std::slice::from_ref(&delivered));
    let issued = issued_sha256(&s, &delivered).await;
    let running = s
        .app
        .get(&format!("/proposal/{delivered}/certificate"), Some(&s.partner))
        .await;
    assert_eq!(running.headers()["etag"].to_str().unwrap(), format!("\"{issued}\""));
    assert!(!flat(&running.bytes().await.unwrap()).contains("ENCERRADO"));

    // A second contract accepted; both cancelled at the customer's request, past the regret's
    // seven days, before the next delivery pass.
    let not_yet_sent = accepted(&s, "11144477735").await;
    let moved = s.app.post_json("/sandbox/clock", &json!({"daysAhead": 8})).await;
    assert_eq!(moved.status(), StatusCode::OK);
    for identifier in [&delivered, &not_yet_sent] {
        s.app
            .cancel_at_customers_request(&s.partner, identifier, "Cliente mudou de ideia")
            .await;
    }

    // The pass does not mail a certificate of a contract no longer in force, and says so.
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.withheld, std::slice::from_ref(&not_yet_sent));
    assert!(pass.delivered.is_empty() && pass.failed.is_empty(), "{pass:?}");
    assert_eq!(
        s.app.mails_to(CUSTOMERS_EMAIL, "Seu certificado de seguro").await.len(),
        1,
        "the running contract's only"
    );
    assert_eq!(
        s.app
            .text(&format!(
                "SELECT coalesce(c.retido_motivo, '-') || ':' || (c.enviado_em IS NULL)::text AS line \
                 FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta \
                 WHERE p.identificador = '{not_yet_sent}'"
            ))
            .await,
        "contrato CANCELADO antes do envio:true"
    );
    let again = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert!(again.withheld.is_empty(), "withheld once: {again:?}");

    // Served, to the seller and the back office, stamped with the end on every page and naming
    // the certificate it copies; the requester's words are not printed.
    for (identifier, token) in [(&delivered, &s.partner), (&not_yet_sent, &s.office)] {
        let served = s
            .app
            .get(&format!("/proposal/{identifier}/certificate"), Some(token))
            .await;
        assert_eq!(served.status(), StatusCode::OK, "{identifier}");
        let etag = served.headers()["etag"].to_str().unwrap().trim_matches('"').to_owned();
        let pdf = served.bytes().await.unwrap().to_vec();
        let digest = <sha2::Sha256 as sha2::Digest>::digest(&pdf);
        assert_eq!(etag, digest.iter().map(|b| format!("{b:02x}")).collect::<String>());
        let text = flat(&pdf);
        let original = issued_sha256(&s, identifier).await;
        assert_ne!(etag, original, "the issued one stays as it was sent");
        let pages = pdf_text(&pdf).matches("CONTRATO ENCERRADO EM").count();
        assert!(pages >= 1, "{text}");
        for expected in [
            "Certificado de seguro (contrato encerrado)",
            "Situação do contrato",
            "Encerrado em",
            "Motivo",
            "cancelamento do contrato",
            "não há cobertura para fatos ocorridos a partir de",
            original.as_str(),
            "Certificado nº",
        ] {
            assert!(
                text.contains(expected),
                "\"{expected}\" not in {identifier}'s certificate: {text}"
            );
        }
        assert!(!text.contains("Cliente mudou de ideia"), "{text}");
    }
    // The stored certificate is the one the customer received, unchanged.
    assert_eq!(issued_sha256(&s, &delivered).await, issued);
}

/// The sequence of a certificate's number (`101.00000007` is product 101's seventh), checking its
/// form: the product's code, a dot, eight digits (decision 281).
fn sequence_of(number: &serde_json::Value) -> i64 {
    let (code, sequence) = number.as_str().unwrap().split_once('.').unwrap();
    assert_eq!((code, sequence.len()), ("101", 8), "{number}");
    sequence.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_products_certificates_are_numbered_in_sequence_and_route_7_shows_the_issue_and_the_premium_split() {
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    let sent = s.app.sent_proposal(&s.partner, "11144477735").await;
    let before = s.app.proposal_data(&sent, &s.partner).await;
    assert_eq!(
        before["certificate"],
        serde_json::Value::Null,
        "no certificate before the acceptance"
    );
    let first = accepted(&s, "52998224725").await;
    let second = accepted(&s, "39053344705").await;
    let (a, b) = (
        s.app.proposal_data(&first, &s.partner).await,
        s.app.proposal_data(&second, &s.partner).await,
    );
    assert_eq!(
        sequence_of(&b["certificate"]["number"]),
        sequence_of(&a["certificate"]["number"]) + 1,
        "the product's next"
    );
    assert_eq!(
        (&a["certificate"]["issuedAt"], &a["certificate"]["sha256"]),
        (&serde_json::Value::Null, &serde_json::Value::Null),
        "not issued before the pass"
    );

    // The premium split by the product's line: persons, 0,38% (Decreto 6.306/2007, art. 22).
    let value = a["proposal"]["value"].as_i64().unwrap();
    let premium = &a["premium"];
    let (net, iof) = (premium["net"].as_i64().unwrap(), premium["iof"].as_i64().unwrap());
    assert_eq!(
        (premium["total"].as_i64().unwrap(), premium["iofRate"].as_str()),
        (value, Some("0.38"))
    );
    assert_eq!(net + iof, value);
    assert_eq!(net, (value as f64 / 1.0038).round() as i64);

    // Issued by the pass: route 7 shows when, and the digest of the PDF the route serves.
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.delivered.len(), 2, "{pass:?}");
    let a = s.app.proposal_data(&first, &s.partner).await;
    assert_eq!(a["certificate"]["sha256"], issued_sha256(&s, &first).await.as_str());
    assert!(a["certificate"]["issuedAt"].as_str().unwrap().ends_with('Z'), "{a}");
    let served = s
        .app
        .get(&format!("/proposal/{first}/certificate"), Some(&s.partner))
        .await;
    let pdf = served.bytes().await.unwrap();
    assert_eq!(a["certificate"]["sha256"], sha256_hex(&pdf).as_str());
    let number = a["certificate"]["number"].as_str().unwrap();
    assert!(flat(&pdf).contains(&format!("Certificado nº {number}")));

    // The back office moves the product to the health line: every proposal's split follows.
    api_actix::cli::set_product_line(&config, 101, domain::contract::insurance::InsuranceLine::Health)
        .await
        .unwrap();
    let premium = s.app.proposal_data(&sent, &s.partner).await["premium"].clone();
    let value = before["proposal"]["value"].as_i64().unwrap();
    assert_eq!(premium["iofRate"], "2.38");
    assert_eq!(premium["net"].as_i64().unwrap(), (value as f64 / 1.0238).round() as i64);
    assert_eq!(
        premium["net"].as_i64().unwrap() + premium["iof"].as_i64().unwrap(),
        value
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn each_document_records_and_prints_the_version_and_digest_of_the_template_that_printed_it() {
    use domain::contract::templates::{TEMPLATES_VERSION, Template};
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    let identifier = accepted(&s, "52998224725").await;
    api_actix::cli::deliver_certificates(&config).await.unwrap();

    // The sealed proposal: recorded beside the notice it showed, and printed.
    let recorded = |table: &str, kind: &str| {
        format!(
            "SELECT t.modelo_versao || ':' || t.modelo_sha256 AS line FROM {table} t \
             JOIN proposals p ON p.id = t.id_proposta WHERE p.identificador = '{identifier}'{kind}"
        )
    };
    let (proposal, certificate) = (Template::Proposal.sha256(), Template::Certificate.sha256());
    assert_ne!(proposal, certificate);
    assert_eq!(
        s.app.text(&recorded("proposal_notices", "")).await,
        format!("{TEMPLATES_VERSION}:{proposal}")
    );
    let sealed = s
        .app
        .get(
            &format!("/proposal/{identifier}/document?version=sealed"),
            Some(&s.office),
        )
        .await;
    assert_eq!(sealed.status(), StatusCode::OK);
    let text = flat(&sealed.bytes().await.unwrap());
    let printed = text.split("Modelo do documento").nth(1).unwrap_or_default();
    assert!(
        printed.contains(&format!("Modelo proposta, versão {TEMPLATES_VERSION}")) && printed.contains(proposal),
        "the proposal's template: {printed}"
    );

    // The certificate: recorded beside its PDF, and printed.
    assert_eq!(
        s.app
            .text(&recorded("proposal_certificates", " AND t.tipo = 'certificado'"))
            .await,
        format!("{TEMPLATES_VERSION}:{certificate}")
    );
    let served = s
        .app
        .get(&format!("/proposal/{identifier}/certificate"), Some(&s.partner))
        .await;
    let text = flat(&served.bytes().await.unwrap());
    let printed = text.split("Modelo do documento").nth(1).unwrap_or_default();
    assert!(
        printed.contains(&format!("Modelo certificado, versão {TEMPLATES_VERSION}")) && printed.contains(certificate),
        "the certificate's template: {printed}"
    );
}

/// The hexadecimal SHA-256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    <sha2::Sha256 as sha2::Digest>::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A route 5 body whose customer declares a continuous medication and names one beneficiary.
fn declared_body(cpf: &str) -> serde_json::Value {
    let mut body = proposal_body(cpf);
    body["customer"]["medication"] = json!(true);
    body["customer"]["medicationDescription"] = json!("Losartana 50 mg, uso diário");
    body["beneficiaries"] = json!([{"name": "João Pedro da Silva", "kinship": "Filho", "share": 100}]);
    body
}

#[tokio::test(flavor = "multi_thread")]
async fn the_proposal_prints_the_health_answers_the_beneficiaries_the_broker_the_premium_split_and_the_deadline() {
    let s = setup().await;
    let identifier = s.app.sent_proposal_of(&s.partner, &declared_body("52998224725")).await;
    let sealed = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.office))
        .await;
    assert_eq!(sealed.status(), StatusCode::OK);
    let text = flat(&sealed.bytes().await.unwrap());
    // The demo's product 101: R$ 49,90 a month, 0,38% of IOF on the net premium.
    let demo_conditions = sha256_hex(b"condicoes-demo-101-v1.0");
    for expected in [
        "Declaração pessoal de saúde e atividade",
        "Faz uso contínuo de algum medicamento? Sim",
        "Quais medicamentos? Losartana 50 mg, uso diário",
        "João Pedro da Silva (Filho) — 100%",
        "Corretor(a) Corretora Demonstração de Seguros Ltda",
        "Registro SUSEP 100000001",
        "Código SUSEP 09991",
        "Processo SUSEP 15414.900101/2026-01",
        "Capital segurado R$ 50.000,00",
        "Prêmio líquido R$ 49,71",
        "IOF (0,38%) R$ 0,19",
        "Prêmio total (mensal) R$ 49,90",
        "sem recusa no prazo, a proposta está aceita (aceitação tácita)",
        "sem recusa nesse prazo, a proposta está aceita e o contrato formado (Lei 15.040/2024, art. 49)",
        "Direito de arrependimento",
        "Código de Defesa do Consumidor, art. 49",
        demo_conditions.as_str(),
        "Glossário",
    ] {
        assert!(text.contains(expected), "\"{expected}\" not in the proposal: {text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_certificate_prints_its_number_the_iof_the_beneficiaries_the_broker_and_the_conditions_digest() {
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    // The back office registers the product's general conditions from their file, the partner's
    // SUSEP registration, and the collective policy the insured join.
    let file = std::env::temp_dir().join(format!("condicoes-{}.pdf", std::process::id()));
    std::fs::write(&file, b"%PDF-1.7 condicoes gerais do produto 101, versao 3.0").unwrap();
    let registered = api_actix::cli::set_product_conditions(
        &config,
        101,
        api_actix::cli::ConditionsArgs {
            version: Some("3.0".into()),
            url: Some("https://seguradora-exemplo.com.br/condicoes/101-v3.0.pdf".into()),
            file: Some(file.clone()),
            exclusions: Some("Doença preexistente não declarada.".into()),
            waiting_periods: Some("Morte natural: 60 dias.".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .unwrap();
    let digest = sha256_hex(&std::fs::read(&file).unwrap());
    assert_eq!(registered.sha256, digest);
    std::fs::remove_file(&file).unwrap();
    let broker = api_actix::cli::set_partner_broker(&config, super::legal_hold::PARTNER, Some("20.2031.234-5"))
        .await
        .unwrap();
    assert_eq!(broker.as_deref(), Some("2020312345"));
    api_actix::cli::set_product_collective(
        &config,
        101,
        api_actix::cli::CollectiveLife::Collective {
            policyholder: "Associação Nacional dos Segurados".into(),
            email: "estipulante@exemplo.com.br".into(),
        },
    )
    .await
    .unwrap();
    api_actix::cli::set_product_master_policy(&config, 101, Some("12.ABC.345/01DE-35"), Some("93.0101.0000123"))
        .await
        .unwrap();

    let identifier = contract_of(&s, &declared_body("52998224725")).await;
    let served = s
        .app
        .get(&format!("/proposal/{identifier}/certificate"), Some(&s.partner))
        .await;
    assert_eq!(served.status(), StatusCode::OK);
    let text = flat(&served.bytes().await.unwrap());
    // The number route 7 shows (decision 281): product 101's first certificate here.
    let number = s.app.proposal_data(&identifier, &s.partner).await["certificate"]["number"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(number, "101.00000001");
    for expected in [
        format!("Certificado nº {number}"),
        "Código SUSEP 09991".into(),
        "Prêmio líquido R$ 49,71".into(),
        "IOF (0,38%) R$ 0,19".into(),
        "João Pedro da Silva (Filho) — 100%".into(),
        "Registro SUSEP 2020312345".into(),
        "Estipulante Associação Nacional dos Segurados, CNPJ 12.ABC.345/01DE-35".into(),
        "Apólice mestre 93.0101.0000123".into(),
        "Versão 3.0".into(),
        digest.clone(),
        "Riscos excluídos Doença preexistente não declarada.".into(),
        "Glossário".into(),
    ] {
        assert!(
            text.contains(&expected),
            "\"{expected}\" not in the certificate: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_back_offices_commands_refuse_a_broken_registration_digest_or_insurer_code_naming_the_option() {
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    let refused = api_actix::cli::set_partner_broker(&config, super::legal_hold::PARTNER, Some("12AB"))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("--susep-registration"), "{refused}");
    let unknown = api_actix::cli::set_partner_broker(&config, "00000000000191", Some("100000002"))
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("não encontrado"), "{unknown}");
    let refused = api_actix::cli::set_product_conditions(
        &config,
        101,
        api_actix::cli::ConditionsArgs {
            version: Some("3.0".into()),
            url: Some("http://inseguro.example/c.pdf".into()),
            sha256: Some("abc".into()),
            exclusions: Some("Nenhuma.".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap_err()
    .to_string();
    for option in ["--url", "--sha256", "--waiting-periods"] {
        assert!(refused.contains(option), "{option}: {refused}");
    }
    // Nothing half-written: the demo's conditions stand.
    let shown = api_actix::cli::set_product_conditions(&config, 101, Default::default())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(shown.version, "1.0 (demonstração)");
    let refused = api_actix::cli::set_product_master_policy(&config, 101, Some("11.111.111/1111-11"), Some(""))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("--policyholder-cnpj") && refused.contains("--master-policy"),
        "{refused}"
    );
}
