//! Prints route 5's own writes as a pgbench script: the service's create statement, composed from
//! its named parts (`adapters_postgres::proposals::create_statement`) for the benchmark body's
//! proposal (`bench/create_proposal.lua`: payroll discount, a new CPF per transaction), which
//! writes its document too (`read_model::new_document`), so that `bench/run.sh` measures what the
//! route writes with nothing of the service in the way, and a change to a part changes what is
//! measured.
//!
//! pgbench variables: `:n` (a number per transaction) and the demo seed's `:partner`,
//! `:representative` and `:product` ids; every other value is the body's, as a literal. With the
//! argument `beneficiaries`, the body names the two beneficiaries `bench/create_proposal.lua`
//! sends under `BENCH_BENEFICIARIES=1` (decision 279).

use adapters_postgres::proposals::create_statement;
use chrono::{NaiveDate, Utc};
use domain::customers::{AddressData, CustomerData, Seller};
use domain::proposals::beneficiaries::Beneficiary;
use domain::proposals::model::{Flow, NewProposal, PartnerLink, PaymentDetails};
use domain::values::{
    BirthDate, CellPhone, Cep, Cpf, Email, FullName, Gender, Kinship, MaritalStatus, SalaryCents, SheetType,
    ShippingType, Uf,
};

/// What pgbench writes in place of the body's value, by part and value name.
const PER_TRANSACTION: &[(&str, &str)] = &[
    ("registration.cpf", "lpad(:n::text, 11, '0')"),
    ("registration.id_parceiro_vendedor", ":partner::int8"),
    ("proposal.identificador", "gen_random_uuid()::text"),
    ("proposal.id_parceiro", ":partner::int8"),
    ("proposal.id_representante", ":representative::int8"),
    ("proposal.id_produto", ":product::int8"),
    ("proposal.criado_em", "now()"),
    ("queued.id_parceiro", ":partner::int8"),
];

/// The two beneficiaries of the benchmark body under `BENCH_BENEFICIARIES=1`.
fn bench_beneficiaries() -> Result<Vec<Beneficiary>, String> {
    let invalid = |what: &str| format!("beneficiário de carga inválido: {what}");
    Ok(vec![
        Beneficiary {
            name: FullName::parse("Filho De Carga").map_err(|_| invalid("nome"))?,
            cpf: Some(Cpf::parse("12345678909").map_err(|_| invalid("cpf"))?),
            birth_date: Some(BirthDate::from_stored(
                NaiveDate::from_ymd_opt(2015, 3, 20).ok_or_else(|| invalid("nascimento"))?,
            )),
            kinship: Kinship::Child,
            share: 60,
        },
        Beneficiary {
            name: FullName::parse("Conjuge De Carga").map_err(|_| invalid("nome"))?,
            cpf: None,
            birth_date: None,
            kinship: Kinship::Spouse,
            share: 40,
        },
    ])
}

/// The benchmark body's proposal, as route 5 hands it to the store (ids replaced per transaction).
fn bench_proposal() -> Result<NewProposal, String> {
    let invalid = |what: &str| format!("valor do corpo de carga inválido: {what}");
    let customer = CustomerData {
        marital_status: Some(MaritalStatus::Married),
        nationality: Some("Brasileira".into()),
        cell_phone: Some(CellPhone::parse("11912345678").map_err(|_| invalid("celular"))?),
        email: Some(Email::parse("carga@exemplo.com.br").map_err(|_| invalid("email"))?),
        profession: Some("Analista".into()),
        salary: Some(SalaryCents::from_cents(300_000, 0).map_err(|_| invalid("salário"))?),
        ..CustomerData::minimal(
            FullName::parse("Cliente De Carga").map_err(|_| invalid("nome"))?,
            Cpf::parse("00000000191").map_err(|_| invalid("cpf"))?,
            BirthDate::from_stored(NaiveDate::from_ymd_opt(1985, 3, 10).ok_or_else(|| invalid("nascimento"))?),
            Gender::Female,
        )
    };
    Ok(NewProposal {
        flow: Flow::Partner,
        seller: Seller::Partner { partner_id: 0 },
        product_id: 0,
        billing_code: 5002,
        value: 141_200,
        payment: Some(PaymentDetails::PayrollDiscount {
            number: "123".into(),
            specie: 41,
            sheet_type: SheetType::Benefit,
        }),
        shipping: ShippingType::Sms,
        customer,
        address: AddressData {
            cep: Cep::parse("01310100").map_err(|_| invalid("cep"))?,
            street: "Avenida Paulista".into(),
            number: "1".into(),
            neighborhood: "Bela Vista".into(),
            city: "São Paulo".into(),
            state: Uf::Sp,
            complement: None,
        },
        partner: Some(PartnerLink {
            partner_id: 0,
            partner_document: "11222333000181".into(),
            representative_id: Some(0),
            association_cnpj: None,
            federation_cnpj: None,
        }),
        beneficiaries: Vec::new(),
        // The usual sale: a screening that called for no diligence.
        kyc: None,
        changed_by: "parceiro@demo.com.br".into(),
        at: Utc::now(),
    })
}

fn script(with_beneficiaries: bool) -> Result<String, String> {
    let mut proposal = bench_proposal()?;
    if with_beneficiaries {
        proposal.beneficiaries = bench_beneficiaries()?;
    }
    let event = domain::hooks::payload::proposal_created(
        "identificador-de-carga",
        proposal.flow,
        proposal.value,
        &proposal.changed_by,
        proposal.at,
    );
    // pgbench reads `:name` as a variable even inside a literal: the JSON's members are written
    // `"key": value` (jsonb keeps the same value).
    let beneficiaries =
        adapters_postgres::proposals::beneficiaries_json(&proposal).map(|json| json.replace("\":", "\": "));
    let kyc = adapters_postgres::proposals::kyc_json(&proposal);
    let statement = create_statement(
        &proposal,
        "identificador-de-carga",
        &event,
        beneficiaries.as_deref(),
        kyc.as_deref(),
    )
    .replay(PER_TRANSACTION)?;
    Ok(format!("\\set n random(1, 99999999999)\n{statement};\n"))
}

fn main() {
    let with_beneficiaries = std::env::args().nth(1).as_deref() == Some("beneficiaries");
    match script(with_beneficiaries) {
        Ok(script) => print!("{script}"),
        Err(why) => {
            eprintln!("o comando de criação não se deixa repetir no pgbench: {why}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_replay_writes_every_value_and_each_per_transaction_one_in_its_place() {
        let script = super::script(false).expect("a replayable statement");
        assert!(script.starts_with("\\set n random("));
        assert!(!script.contains('$'), "{script}");
        assert!(script.contains("INSERT INTO proposals"));
        assert!(script.contains("lpad(:n::text, 11, '0')"));
        assert!(script.contains("'Cliente De Carga'::text"));
        assert!(script.contains("INSERT INTO proposal_read_models"), "{script}");
        assert!(script.trim_end().ends_with(';'));
        let named = super::script(true).expect("a replayable statement");
        assert!(named.contains("'[{\"nome\": \"Filho De Carga\""), "{named}");
    }
}
