//! Fixtures for tests (the `testing` feature): a long proposal, signed, the sample the document
//! tests check and `scripts/render-document-pages.sh` renders for `docs/` (a 200-character
//! address, every party, payroll discount, default terms).

use chrono::{NaiveDate, TimeZone, Utc};
use domain::contract::evidence::{PartySignature, SignatureEvidence};
use domain::customers::{AddressView, CustomerSnapshot, PersonGender};
use domain::proposals::model::{PartnerView, PaymentView, ProposalCustomer, ProposalDetail, ProposalRecord};
use domain::signature::PartyRole;
use domain::stamp::ChangeStamp;
use domain::values::{Gender, MaritalStatus, PaymentType};

/// 200 characters, no word shorter than a street would have.
pub const LONG_STREET: &str = "Avenida Presidente Juscelino Kubitschek de Oliveira, Conjunto Habitacional Jardim das Acácias Floridas, Quadra Setecentos e Quarenta e Dois, Bloco Residencial Ipê Amarelo, Torre Norte, Entrada Lateral";

pub fn long_proposal() -> ProposalDetail {
    let at = Utc
        .with_ymd_and_hms(2026, 11, 22, 14, 30, 0)
        .single()
        .unwrap_or_default();
    let stamp = |by: &str| ChangeStamp {
        changed_by: by.into(),
        created_at: at,
        updated_at: at,
    };
    // What this sample does not say (and a field added later) as the domain's fixture has it.
    let base = domain::testing::detail("NOVO");
    ProposalDetail {
        proposal: ProposalRecord {
            identifier: "4c938c72-29ae-4a6a-81f4-b5a436aceab9".into(),
            value: 141_200,
            partner_document: Some("11222333000181".into()),
            stamp: stamp("representante@parceiro.com.br"),
            association_cnpj: Some("11444777000161".into()),
            federation_cnpj: Some("45723174000110".into()),
            ..base.proposal
        },
        product_name: "Seguro de Vida Família Protegida".into(),
        customer: ProposalCustomer {
            registration_id: 9,
            stamp: stamp("representante@parceiro.com.br"),
            person: CustomerSnapshot {
                full_name: "Maria Conceição de Araújo Gonçalves".into(),
                cpf: "12345678909".into(),
                birth_date: NaiveDate::from_ymd_opt(1979, 3, 8).unwrap_or_default(),
                gender: PersonGender::Stated(Gender::Female),
                marital_status: Some(MaritalStatus::Married),
                nationality: Some("Brasileira".into()),
                cell_phone: Some("11912345678".into()),
                landline: Some("1131234567".into()),
                email: Some("maria.goncalves@exemplo.com.br".into()),
                profession: Some("Professora".into()),
                salary: Some(450_000),
                working: true,
                public_servant: true,
                medication: true,
                medication_description: Some("Losartana 50 mg e metformina 850 mg, uso diário".into()),
                ..base.customer.person
            },
        },
        address: Some(AddressView {
            cep: "01310100".into(),
            street: LONG_STREET.into(),
            number: "1.024".into(),
            neighborhood: "Jardim Paulistano".into(),
            city: "São João da Boa Vista".into(),
            state: "SP".into(),
            complement: Some("apartamento 1203, fundos".into()),
        }),
        partner: Some(PartnerView {
            document: "11222333000181".into(),
            fantasy_name: Some("Parceiro Exemplo".into()),
            social_reason: "Parceiro Exemplo Corretora de Seguros Ltda.".into(),
            stamp: stamp("seed"),
            company_cnpj: Some("11222333000181".into()),
            company_fantasy_name: Some("Empresa Exemplo".into()),
            company_social_reason: Some("Empresa Exemplo Administradora de Benefícios S.A.".into()),
            association_cnpj: Some("11444777000161".into()),
            association_name: Some("Associação dos Servidores Públicos do Estado".into()),
            federation_cnpj: Some("45723174000110".into()),
            federation_name: Some("Federação Nacional das Associações de Servidores".into()),
        }),
        payment: Some(PaymentView {
            id: 1,
            payment_type: PaymentType::PayrollDiscount,
            card_name: None,
            card_number: None,
            card_expiry: None,
            billing_day: None,
            bank: None,
            agency: None,
            account: None,
            operation: None,
            sheet_number: Some("1234567890".into()),
            sheet_type: Some(domain::values::SheetType::Benefit),
            specie: Some(41),
            issuer_body: Some("INSS".into()),
            ispb: None,
            stamp: stamp("seed"),
        }),
        beneficiaries: vec![
            domain::proposals::beneficiaries::BeneficiaryView {
                name: "João Pedro Albuquerque Cavalcanti".into(),
                cpf: Some("12345678909".into()),
                birth_date: chrono::NaiveDate::from_ymd_opt(2012, 3, 20),
                kinship: domain::values::Kinship::Child,
                share: 60,
            },
            domain::proposals::beneficiaries::BeneficiaryView {
                name: "Ana Cristina Albuquerque".into(),
                cpf: None,
                birth_date: None,
                kinship: domain::values::Kinship::Spouse,
                share: 40,
            },
        ],
        // Its certificate's number, as the acceptance gives it (decision 281).
        certificate: Some(domain::proposals::model::CertificateView {
            number: "101.00000001".into(),
            issued_at: None,
            sha256: None,
        }),
        ..base
    }
}

/// What [`long_proposal`]'s product and partner hold besides the proposal: the insurer with its
/// SUSEP code, the cover, the general conditions, the collective policy, and the partner's SUSEP
/// broker registration (decision 280).
pub fn long_proposal_cover() -> domain::contract::certificate::ProductCover {
    use domain::contract::insurance::{CollectivePolicy, GeneralConditions, InsuranceLine};
    domain::contract::certificate::ProductCover {
        insurer: "Seguradora Exemplo S.A.".to_owned(),
        insurer_cnpj: "11222333000181".to_owned(),
        susep_process: "15414.900001/2026-11".to_owned(),
        coverage: "Morte por qualquer causa e invalidez permanente total por acidente".to_owned(),
        capital: 5_000_000,
        premium: 141_200,
        sac: "0800 000 0001".to_owned(),
        ombudsman: "0800 000 0002".to_owned(),
        payment: Default::default(),
        insurer_susep_code: Some("09991".to_owned()),
        line: InsuranceLine::Persons,
        conditions: Some(GeneralConditions {
            version: "2.1 (dezembro de 2026)".to_owned(),
            url: "https://seguradora-exemplo.com.br/condicoes/vida-familia-protegida-v2.1.pdf".to_owned(),
            sha256: "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef".to_owned(),
            exclusions: "Doença ou lesão preexistente não declarada; suicídio nos dois primeiros anos de \
                         vigência; atos dolosos do(a) segurado(a) ou do beneficiário; guerra e atos de terrorismo."
                .to_owned(),
            waiting_periods: "Morte natural: 60 dias do início da vigência; morte por acidente e invalidez \
                              por acidente: sem carência."
                .to_owned(),
        }),
        collective: Some(CollectivePolicy {
            policyholder: "Associação dos Servidores Públicos do Estado".to_owned(),
            policyholder_cnpj: Some("11444777000161".to_owned()),
            master_policy: Some("93.0101.0000123".to_owned()),
        }),
        broker_registration: Some("202031234".to_owned()),
    }
}

/// [`long_proposal`]'s terms as its documents are printed with them: the default text, the
/// default rules, and [`long_proposal_cover`].
pub fn long_proposal_terms() -> domain::contract::terms::ProductTerms {
    let cover = long_proposal_cover();
    domain::contract::terms::ProductTerms {
        premium: cover.premium,
        line: cover.line,
        broker_registration: cover.broker_registration.clone(),
        cover: Some(cover),
        ..Default::default()
    }
}

/// The four signatures of [`long_proposal`], as a provider reports them.
pub fn evidence(sealed_sha256: &str, sealed_pages: usize) -> SignatureEvidence {
    let at = |minute| {
        Utc.with_ymd_and_hms(2026, 11, 23, 2, minute, 5)
            .single()
            .unwrap_or_default()
    };
    let party = |role: PartyRole, name: &str, document: &str, minute: u32, channel: &str, auth: &str| {
        PartySignature {
        role,
        name: name.into(),
        document: Some(document.into()),
        signed_at: at(minute),
        channel: channel.into(),
        authentication: Some(auth.into()),
        ip: Some(if role == PartyRole::Client { "2804:14c:65a1:4000::1f" } else { "203.0.113.10" }.into()),
        user_agent: (role == PartyRole::Client).then(|| {
            "Mozilla/5.0 (Linux; Android 14; moto g84 5G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36".into()
        }),
        latitude: (role == PartyRole::Client).then(|| "-21.9694".into()),
        longitude: (role == PartyRole::Client).then(|| "-46.7978".into()),
    }
    };
    SignatureEvidence {
        identifier: "4c938c72-29ae-4a6a-81f4-b5a436aceab9".into(),
        product_name: "Seguro de Vida Família Protegida".into(),
        envelope_id: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0".into(),
        provider: "Clicksign".into(),
        sealed_sha256: sealed_sha256.into(),
        sealed_pages,
        parties: vec![
            party(
                PartyRole::Client,
                "Maria Conceição de Araújo Gonçalves",
                "12345678909",
                10,
                "WhatsApp",
                "whatsapp",
            ),
            party(
                PartyRole::Association,
                "Associação dos Servidores Públicos do Estado",
                "11444777000161",
                12,
                "API",
                "api",
            ),
            party(
                PartyRole::Federation,
                "Federação Nacional das Associações de Servidores",
                "45723174000110",
                12,
                "API",
                "api",
            ),
            party(
                PartyRole::Enterprise,
                "Empresa Exemplo Administradora de Benefícios S.A.",
                "11222333000181",
                13,
                "API",
                "api",
            ),
        ],
    }
}
