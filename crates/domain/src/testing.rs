//! Values for tests, here and in the crates built on the domain (the `testing` feature, as `mock`
//! gives the ports' mocks): one valid customer, address and proposal detail, written once so that
//! a field added to them is added in one place.
// Fixtures built from literals known to be valid: a failure is a broken fixture, said at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::customers::{AddressData, CustomerData, CustomerSnapshot};
use crate::proposals::model::*;
use crate::stamp::ChangeStamp;
use crate::values::{BirthDate, CellPhone, Cep, Cpf, FullName, Gender, ProposalStatus, ShippingType, Uf};
use chrono::{NaiveDate, Utc};

/// A customer as a seller registers her: `name`, CPF 123.456.789-09, born 1990-05-15, with her
/// nationality, cell phone and a politically exposed person's flag.
pub fn customer(name: &str) -> CustomerData {
    CustomerData {
        nationality: Some("Brasileira".into()),
        cell_phone: Some(CellPhone::parse("11912345678").unwrap()),
        pep: Some(true),
        ..CustomerData::minimal(
            FullName::parse(name).unwrap(),
            Cpf::parse("12345678909").unwrap(),
            BirthDate::from_stored(NaiveDate::from_ymd_opt(1990, 5, 15).unwrap()),
            Gender::Female,
        )
    }
}

/// An address in São Paulo on `street`.
pub fn address(street: &str) -> AddressData {
    AddressData {
        cep: Cep::parse("01310100").unwrap(),
        street: street.into(),
        number: "S/N".into(),
        neighborhood: "Bela Vista".into(),
        city: "São Paulo".into(),
        state: Uf::Sp,
        complement: None,
    }
}

/// A representative's proposal in `status` with every member of route 7's answer.
pub fn detail(status: &str) -> ProposalDetail {
    let now = Utc::now();
    ProposalDetail {
        proposal: ProposalRecord {
            id: 1,
            identifier: "id-1".into(),
            jave_id: None,
            value: 0,
            partner_document: None,
            representative_id: Some(5),
            customer_id: 9,
            document_key: None,
            signature_request_key: None,
            resends: 0,
            status: ProposalStatus::parse(status).expect("a status of the machine"),
            stamp: ChangeStamp {
                changed_by: "x".into(),
                created_at: now,
                updated_at: now,
            },
            association_cnpj: None,
            federation_cnpj: None,
            shipping: ShippingType::Whatsapp,
            notification_resends: 0,
            flow: Flow::Partner,
            associate_code: None,
            motivation_id: 1,
            product_id: 1,
            recording_id: None,
            invite_id: None,
            electronic_signature: None,
            billing_code: 5001,
        },
        product_name: "Seguro".into(),
        product_code: 101,
        motivation: "Nova venda".into(),
        representative: None,
        customer: ProposalCustomer {
            registration_id: 9,
            person: person(),
            stamp: ChangeStamp {
                changed_by: "x".into(),
                created_at: now,
                updated_at: now,
            },
        },
        address: None,
        partner: None,
        signature: None,
        payment: None,
        subscription: None,
        acceptance: None,
        refunds: Vec::new(),
        charges: Vec::new(),
        billing: None,
        pix_recurrence: None,
        averbacao: None,
        term: None,
        ledger: Default::default(),
        beneficiaries: Vec::new(),
        line: Default::default(),
        // An accepted contract's certificate has its number from the acceptance's transaction.
        certificate: (status == "APROVADO").then(|| crate::contract::certificate::CertificateView {
            number: "101.00000042".into(),
            issued_at: None,
            sha256: None,
        }),
        kyc: None,
    }
}

/// A customer's person data with the members every customer has and nothing else.
pub fn person() -> CustomerSnapshot {
    CustomerSnapshot {
        cpf: "12345678909".into(),
        full_name: "Maria da Silva".into(),
        social_name: None,
        mother_name: None,
        birth_date: NaiveDate::from_ymd_opt(1990, 5, 15).unwrap(),
        gender: crate::customers::PersonGender::Stated(crate::values::Gender::Female),
        marital_status: None,
        nationality: None,
        cell_phone: Some("11912345678".into()),
        landline: None,
        email: None,
        profession: None,
        salary: None,
        working: false,
        public_servant: false,
        pep: false,
        absent: false,
        medication: false,
        medication_description: None,
        illiterate: false,
        political_office: None,
    }
}

/// A clock stopped at one instant.
#[derive(Debug, Clone, Copy)]
pub struct At(pub chrono::DateTime<Utc>);

impl crate::clock::Clock for At {
    fn now(&self) -> chrono::DateTime<Utc> {
        self.0
    }
}
