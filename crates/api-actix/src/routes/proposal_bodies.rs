//! Reading the bodies of routes 3, 5 and 6 into the domain's requests. Each field is turned into
//! its value type; every failure is collected with its path, so one 400 names them all.

use crate::http::body::BodyReader;
use chrono::NaiveDate;
use domain::customers::{AddressData, CustomerData};
use domain::proposals::model::{EcommerceProposalRequest, PaymentDetails, ProposalRequest};
use domain::proposals::service::CustomerRules;
use domain::validation::{Violations, codes};
use domain::values::*;
use serde_json::Value;

/// What reading needs from the rules: today, and the configured bounds.
pub struct Context {
    pub today: NaiveDate,
    pub rules: CustomerRules,
}

/// A salary must be a JSON integer of cents, at least `minimum`.
fn salary(r: &BodyReader, v: &mut Violations, name: &str, minimum: i64) -> Option<SalaryCents> {
    match r.raw(name) {
        None => {
            v.add(r.path(name), codes::REQUIRED, format!("{name} é obrigatório"));
            None
        }
        Some(Value::Number(n)) if n.is_i64() => v.check(
            &r.path(name),
            SalaryCents::from_cents(n.as_i64().unwrap_or(-1), minimum),
        ),
        Some(_) => v.check(&r.path(name), Err(SalaryCents::format_rejection())),
    }
}

fn landline(r: &BodyReader, v: &mut Violations, name: &str) -> Option<Landline> {
    r.parse_optional(v, name, Landline::parse)
}

/// Route 3's `cliente`.
pub fn route3_customer(r: &BodyReader, v: &mut Violations, ctx: &Context) -> Option<CustomerData> {
    let full_name = r.parse(v, "nome_completo", FullName::parse);
    let cpf = r.parse(v, "cpf", Cpf::parse);
    let birth_date = r.parse(v, "data_nascimento", |s| BirthDate::parse(s, ctx.today, ctx.rules.age));
    let gender = r.parse(v, "sexo", Gender::parse);
    let marital_status = r.parse_optional(v, "estado_civil", MaritalStatus::parse);
    let nationality = r.text(v, "nacionalidade").map(|s| s.trim().to_owned());
    let cell_phone = r.parse(v, "celular", CellPhone::parse);
    let landline = landline(r, v, "telefone_fixo");
    let email = r.parse(v, "email", Email::parse);
    let profession = r.text(v, "profissao").map(|s| s.trim().to_owned());
    // The customer record accepts 0: not every customer has an income.
    let salary = salary(r, v, "salario", 0);
    let flags = [
        r.optional_bool(v, "trabalhando"),
        r.optional_bool(v, "servidor_publico"),
        r.optional_bool(v, "pep"),
        r.optional_bool(v, "afastado"),
        r.optional_bool(v, "medicamento"),
        r.optional_bool(v, "e_analfabeto"),
    ];
    let medication_description = r.optional_text(v, "medicamento_descricao");
    Some(CustomerData {
        full_name: full_name?,
        cpf: cpf?,
        birth_date: birth_date?,
        gender: gender?,
        marital_status,
        nationality: Some(nationality?),
        cell_phone: Some(cell_phone?),
        landline,
        email: Some(email?),
        profession: Some(profession?),
        salary: Some(salary?),
        working: flags[0],
        public_servant: flags[1],
        pep: flags[2],
        absent: flags[3],
        medication: flags[4],
        medication_description,
        illiterate: flags[5],
    })
}

/// The names an address's fields have in a route's body.
struct AddressFields {
    cep: &'static str,
    street: &'static str,
    number: &'static str,
    neighborhood: &'static str,
    city: &'static str,
    state: &'static str,
    complement: &'static str,
}

fn address(r: &BodyReader, v: &mut Violations, f: &AddressFields) -> Option<AddressData> {
    let cep = r.parse(v, f.cep, Cep::parse);
    let street = r.text(v, f.street);
    let number = r.string_or_number(v, f.number);
    let neighborhood = r.text(v, f.neighborhood);
    let city = r.text(v, f.city);
    let state = r.parse(v, f.state, Uf::parse_any_case);
    let complement = r.optional_text(v, f.complement);
    Some(AddressData {
        cep: cep?,
        street: street?.trim().to_owned(),
        number: number?,
        neighborhood: neighborhood?.trim().to_owned(),
        city: city?.trim().to_owned(),
        state: state?,
        complement,
    })
}

/// Route 3's `endereco`.
pub fn route3_address(r: &BodyReader, v: &mut Violations) -> Option<AddressData> {
    let names = AddressFields {
        cep: "cep",
        street: "endereco",
        number: "numero",
        neighborhood: "bairro",
        city: "cidade",
        state: "estado",
        complement: "complemento",
    };
    address(r, v, &names)
}

/// The `address` of routes 5 and 6 (`number` as text or number, `complement` text or null).
pub fn proposal_address(r: &BodyReader, v: &mut Violations) -> Option<AddressData> {
    let names = AddressFields {
        cep: "zipCode",
        street: "address",
        number: "number",
        neighborhood: "neighborhood",
        city: "city",
        state: "state",
        complement: "complement",
    };
    address(r, v, &names)
}

/// Route 5's `customer`.
fn route5_customer(r: &BodyReader, v: &mut Violations, ctx: &Context) -> Option<CustomerData> {
    let full_name = r.parse(v, "fullName", FullName::parse);
    let cpf = r.parse(v, "cpf", Cpf::parse);
    let birth_date = r.parse(v, "birthDate", |s| BirthDate::parse(s, ctx.today, ctx.rules.age));
    let gender = r.parse(v, "gender", Gender::parse);
    let marital_status = r.parse(v, "maritalStatus", MaritalStatus::parse);
    let nationality = r.text(v, "nationality").map(|s| s.trim().to_owned());
    let cell_phone = r.parse(v, "cellPhone", CellPhone::parse);
    let landline = landline(r, v, "phone");
    let email = r.parse(v, "email", Email::parse);
    let profession = r.text(v, "profession").map(|s| s.trim().to_owned());
    let salary = salary(r, v, "salary", ctx.rules.min_salary_cents);
    let flags = [
        r.optional_bool(v, "working"),
        r.optional_bool(v, "publicServer"),
        r.optional_bool(v, "pep"),
        r.optional_bool(v, "absent"),
        r.optional_bool(v, "medication"),
        r.optional_bool(v, "isIlliterate"),
    ];
    let medication_description = r.optional_text(v, "medicationDescription");
    Some(CustomerData {
        full_name: full_name?,
        cpf: cpf?,
        birth_date: birth_date?,
        gender: gender?,
        marital_status: Some(marital_status?),
        nationality: Some(nationality?),
        cell_phone: Some(cell_phone?),
        landline,
        email: Some(email?),
        profession: Some(profession?),
        salary: Some(salary?),
        working: flags[0],
        public_servant: flags[1],
        pep: flags[2],
        absent: flags[3],
        medication: flags[4],
        medication_description,
        illiterate: flags[5],
    })
}

fn payment(r: &BodyReader, v: &mut Violations, payment_type: Option<PaymentType>) -> Option<PaymentDetails> {
    match payment_type? {
        PaymentType::PayrollDiscount => {
            let sheet = r.object(v, "discountOnSheet")?;
            let number = sheet.string_or_number(v, "number");
            let specie = sheet.integer(v, "specie").and_then(|n| match i32::try_from(n) {
                Ok(s) if s > 0 => Some(s),
                _ => {
                    v.add(
                        sheet.path("specie"),
                        codes::INVALID_VALUE,
                        "specie deve ser um inteiro positivo",
                    );
                    None
                }
            });
            let sheet_type = sheet.parse(v, "type", SheetType::parse);
            Some(PaymentDetails::PayrollDiscount {
                number: number?,
                specie: specie?,
                sheet_type: sheet_type?,
            })
        }
        PaymentType::AccountDebit => {
            let debit = r.object(v, "debitAccount")?;
            let bank = debit.string_or_number(v, "bank");
            let agency = debit.string_or_number(v, "agency");
            let account = debit.string_or_number(v, "account");
            let operation = debit.optional_text(v, "operation");
            BankAccount::parse(
                v,
                &debit.path(""),
                bank.as_deref(),
                agency.as_deref(),
                account.as_deref(),
                operation.as_deref(),
            )
            .map(PaymentDetails::AccountDebit)
        }
    }
}

/// Route 5's body.
pub fn route5(r: &BodyReader, v: &mut Violations, ctx: &Context) -> Option<ProposalRequest> {
    let billing_code = r.code(v, "billingCode");
    let product_code = r.code(v, "productCode");
    let payment_type = r.parse(v, "typeOfPayments", PaymentType::parse);
    let shipping = r.parse(v, "shippingType", ShippingType::parse);
    let customer = r.object(v, "customer").and_then(|c| route5_customer(&c, v, ctx));
    let address = r.object(v, "address").and_then(|a| proposal_address(&a, v));
    let payment = payment(r, v, payment_type);
    Some(ProposalRequest {
        billing_code: billing_code?,
        product_code: product_code?,
        payment: payment?,
        shipping: shipping?,
        customer: customer?,
        address: address?,
    })
}

/// Route 6's body: the reduced customer.
pub fn route6(r: &BodyReader, v: &mut Violations, ctx: &Context) -> Option<EcommerceProposalRequest> {
    let billing_code = r.code(v, "billingCode");
    let product_code = r.code(v, "productCode");
    let shipping = r.parse_optional(v, "shippingType", ShippingType::parse);
    let partner_id = r.optional_integer(v, "partnerId");
    let customer = r.object(v, "customer").and_then(|c| {
        let full_name = c.parse(v, "fullName", FullName::parse);
        let cpf = c.parse(v, "cpf", Cpf::parse);
        let birth_date = c.parse(v, "birthDate", |s| BirthDate::parse(s, ctx.today, ctx.rules.age));
        let gender = c.parse(v, "gender", Gender::parse);
        let marital_status = c.parse_optional(v, "maritalStatus", MaritalStatus::parse);
        let cell_phone = c.parse_optional(v, "cellPhone", CellPhone::parse);
        let email = c.parse_optional(v, "email", Email::parse);
        Some(CustomerData {
            full_name: full_name?,
            cpf: cpf?,
            birth_date: birth_date?,
            gender: gender?,
            marital_status,
            nationality: None,
            cell_phone,
            landline: None,
            email,
            profession: None,
            salary: None,
            working: None,
            public_servant: None,
            pep: None,
            absent: None,
            medication: None,
            medication_description: None,
            illiterate: None,
        })
    });
    let address = r.object(v, "address").and_then(|a| proposal_address(&a, v));
    Some(EcommerceProposalRequest {
        billing_code: billing_code?,
        product_code: product_code?,
        shipping,
        partner_id,
        customer: customer?,
        address: address?,
    })
}
