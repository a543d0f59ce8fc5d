//! The customer and the address as routes 3, 5 and 6 send them, and how each route reads them
//! (the same rules under each route's member names and strictness).

use crate::customers::{AddressData, CustomerData, CustomerRules};
use crate::input::{Field, Reading, TextOrNumber, limits};
use crate::validation::{Violations, codes};
use crate::values::*;
use crate::wire_body;
use chrono::NaiveDate;

wire_body! {
    /// Route 3's `cliente`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "O `cliente` da rota 3."))]
    pub struct RegistrationCustomerBody => RegistrationCustomerMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Maria da Silva"))]
        nome_completo: Field<String>,
        /// O nome pelo qual a pessoa é conhecida (Decreto 8.727/2016), com as regras do nome completo.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Maria Souza"))]
        nome_social: Field<String>,
        /// O nome da mãe (usado na conferência de identidade), com as regras do nome completo.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Ana da Silva"))]
        nome_mae: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^(\d{11}|\d{3}\.\d{3}\.\d{3}-\d{2})$", example = "123.456.789-09"))]
        cpf: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{4}-\d{2}-\d{2}", example = "1990-05-15T00:00:00.000Z"))]
        data_nascimento: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Gender))]
        sexo: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<MaritalStatus>))]
        estado_civil: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Brasileira"))]
        nacionalidade: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^(\d{11}|\(\d{2}\) \d{5}-\d{4})$", example = "(11) 91234-5678"))]
        celular: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = r"^(\d{10}|\(\d{2}\) \d{4}-\d{4})$"))]
        telefone_fixo: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = Email, example = "maria@exemplo.com.br"))]
        email: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Professora"))]
        profissao: Field<String>,
        /// Em centavos.
        #[cfg_attr(feature = "openapi", schema(value_type = i64, minimum = 0, example = 250000))]
        salario: Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        trabalhando: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        servidor_publico: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        pep: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        afastado: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        medicamento: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        medicamento_descricao: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        e_analfabeto: Field<bool>,
    }
}

wire_body! {
    /// Route 3's `endereco`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "O `endereco` da rota 3."))]
    pub struct RegistrationAddressBody => RegistrationAddressMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^(\d{8}|\d{5}-\d{3})$", example = "01310100"))]
        cep: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Avenida Paulista"))]
        endereco: Field<String>,
        /// Texto ou inteiro não negativo (1000, 123A, S/N).
        #[cfg_attr(feature = "openapi", schema(value_type = TextOrNumber, inline, example = 1000))]
        numero: Field<TextOrNumber>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Bela Vista"))]
        bairro: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "São Paulo"))]
        cidade: Field<String>,
        /// Sigla da UF, em qualquer caixa; guardada em maiúsculas.
        #[cfg_attr(feature = "openapi", schema(value_type = Uf))]
        estado: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        complemento: Field<String>,
    }
}

wire_body! {
    /// Route 3's body: the customer and, optionally, its address.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo da rota 3: o cliente e, opcionalmente, seu endereço.")
    )]
    pub struct RegistrationBody => RegistrationMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = RegistrationCustomerBody))]
        cliente: Field<RegistrationCustomerBody>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<RegistrationAddressBody>))]
        endereco: Field<RegistrationAddressBody>,
    }
}

wire_body! {
    /// The `customer` of route 5.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "O `customer` da rota 5."))]
    pub struct ProposalCustomerBody => ProposalCustomerMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Maria da Silva"))]
        full_name as "fullName": Field<String>,
        /// Nome social (Decreto 8.727/2016), com as regras do nome completo.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Maria Souza"))]
        social_name as "socialName": Field<String>,
        /// O nome da mãe (usado na conferência de identidade), com as regras do nome completo.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Ana da Silva"))]
        mother_name as "motherName": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^(\d{11}|\d{3}\.\d{3}\.\d{3}-\d{2})$", example = "12345678909"))]
        cpf: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{4}-\d{2}-\d{2}", example = "1990-05-15"))]
        birth_date as "birthDate": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Gender))]
        gender: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = MaritalStatus))]
        marital_status as "maritalStatus": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Brasileira"))]
        nationality: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^(\d{11}|\(\d{2}\) \d{5}-\d{4})$", example = "(11) 91234-5678"))]
        cell_phone as "cellPhone": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = r"^(\d{10}|\(\d{2}\) \d{4}-\d{4})$"))]
        phone: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = Email, example = "maria@exemplo.com.br"))]
        email: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Professora"))]
        profession: Field<String>,
        /// Em centavos; ao menos o mínimo configurado (`MIN_SALARY_CENTS`, 141200 por padrão).
        #[cfg_attr(feature = "openapi", schema(value_type = i64, minimum = 0, example = 141200))]
        salary: Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        working: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        public_server as "publicServer": Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        pep: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        absent: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        medication: Field<bool>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        medication_description as "medicationDescription": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        is_illiterate as "isIlliterate": Field<bool>,
    }
}

wire_body! {
    /// The `address` of routes 5 and 6.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "O `address` das rotas 5 e 6."))]
    pub struct ProposalAddressBody => ProposalAddressMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^(\d{8}|\d{5}-\d{3})$", example = "01310100"))]
        zip_code as "zipCode": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Avenida Paulista"))]
        address: Field<String>,
        /// Texto ou inteiro não negativo (1000, 123A, S/N).
        #[cfg_attr(feature = "openapi", schema(value_type = TextOrNumber, inline, example = 1000))]
        number: Field<TextOrNumber>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Bela Vista"))]
        neighborhood: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "São Paulo"))]
        city: Field<String>,
        /// Sigla da UF, em qualquer caixa; guardada em maiúsculas.
        #[cfg_attr(feature = "openapi", schema(value_type = Uf))]
        state: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        complement: Field<String>,
    }
}

wire_body! {
    /// The reduced `customer` of route 6.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "O `customer` reduzido da rota 6."))]
    pub struct ShopCustomerBody => ShopCustomerMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "João Souza"))]
        full_name as "fullName": Field<String>,
        /// Nome social (Decreto 8.727/2016), com as regras do nome completo.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Joana Souza"))]
        social_name as "socialName": Field<String>,
        /// O nome da mãe (usado na conferência de identidade), com as regras do nome completo.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "Ana Souza"))]
        mother_name as "motherName": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^(\d{11}|\d{3}\.\d{3}\.\d{3}-\d{2})$", example = "52998224725"))]
        cpf: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{4}-\d{2}-\d{2}", example = "1985-03-10"))]
        birth_date as "birthDate": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Gender))]
        gender: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<MaritalStatus>))]
        marital_status as "maritalStatus": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = r"^(\d{11}|\(\d{2}\) \d{5}-\d{4})$", example = "(21) 99876-5432"))]
        cell_phone as "cellPhone": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Email, example = "joao@exemplo.com.br"))]
        email: Field<String>,
    }
}

/// What reading a customer needs besides its members: today, and the bounds of the route.
#[derive(Debug, Clone, Copy)]
pub struct ReadingRules {
    pub today: NaiveDate,
    pub rules: CustomerRules,
}

/// A full customer's members whatever the route calls them: `(name in the body, member)`.
struct CustomerMembers {
    full_name: (&'static str, Field<String>),
    social_name: (&'static str, Field<String>),
    mother_name: (&'static str, Field<String>),
    cpf: (&'static str, Field<String>),
    birth_date: (&'static str, Field<String>),
    gender: (&'static str, Field<String>),
    marital_status: (&'static str, Field<String>),
    nationality: (&'static str, Field<String>),
    cell_phone: (&'static str, Field<String>),
    landline: (&'static str, Field<String>),
    email: (&'static str, Field<String>),
    profession: (&'static str, Field<String>),
    salary: (&'static str, Field<i64>),
    flags: [(&'static str, Field<bool>); 6],
    medication_description: (&'static str, Field<String>),
}

/// How strict a route is with a full customer.
struct CustomerPolicy {
    marital_status_required: bool,
    min_salary_cents: i64,
}

fn read_salary(r: &mut Reading<'_>, (name, field): (&str, Field<i64>), minimum: i64) -> Option<SalaryCents> {
    match field {
        Field::Missing => {
            r.add(name, codes::REQUIRED, format!("{name} é obrigatório"));
            None
        }
        Field::Given(cents) => r.check(name, SalaryCents::from_cents(cents, minimum)),
        Field::WrongType => r.check(name, Err(SalaryCents::format_rejection())),
    }
}

fn read_customer(
    m: CustomerMembers,
    r: &mut Reading<'_>,
    at: &ReadingRules,
    policy: CustomerPolicy,
) -> Option<CustomerData> {
    let full_name = r.parse(m.full_name.0, m.full_name.1, FullName::parse);
    let social_name = r.parse_optional(m.social_name.0, m.social_name.1, FullName::parse);
    let mother_name = r.parse_optional(m.mother_name.0, m.mother_name.1, FullName::parse);
    let cpf = r.parse(m.cpf.0, m.cpf.1, Cpf::parse);
    let birth_date = r.parse(m.birth_date.0, m.birth_date.1, |s| {
        BirthDate::parse(s, at.today, at.rules.age)
    });
    let gender = r.parse(m.gender.0, m.gender.1, Gender::parse);
    let marital_status = if policy.marital_status_required {
        r.parse(m.marital_status.0, m.marital_status.1, MaritalStatus::parse)
            .map(Some)
    } else {
        Some(r.parse_optional(m.marital_status.0, m.marital_status.1, MaritalStatus::parse))
    };
    let nationality = r.text_within(m.nationality.0, m.nationality.1, limits::NATIONALITY);
    let cell_phone = r.parse(m.cell_phone.0, m.cell_phone.1, CellPhone::parse);
    let landline = r.parse_optional(m.landline.0, m.landline.1, Landline::parse);
    let email = r.parse(m.email.0, m.email.1, Email::parse);
    let profession = r.text_within(m.profession.0, m.profession.1, limits::PROFESSION);
    let salary = read_salary(r, m.salary, policy.min_salary_cents);
    let [working, public_servant, pep, absent, medication, illiterate] =
        m.flags.map(|(name, field)| r.optional_bool(name, field));
    let medication_description = r.optional_text_within(
        m.medication_description.0,
        m.medication_description.1,
        limits::DESCRIPTION,
    );
    Some(CustomerData {
        full_name: full_name?,
        social_name,
        mother_name,
        cpf: cpf?,
        birth_date: birth_date?,
        gender: gender?,
        marital_status: marital_status?,
        nationality: Some(nationality?),
        cell_phone: Some(cell_phone?),
        landline,
        email: Some(email?),
        profession: Some(profession?),
        salary: Some(salary?),
        working,
        public_servant,
        pep,
        absent,
        medication,
        medication_description,
        illiterate,
    })
}

/// An address's members whatever the route calls them.
struct AddressMembers {
    cep: (&'static str, Field<String>),
    street: (&'static str, Field<String>),
    number: (&'static str, Field<TextOrNumber>),
    neighborhood: (&'static str, Field<String>),
    city: (&'static str, Field<String>),
    state: (&'static str, Field<String>),
    complement: (&'static str, Field<String>),
}

fn read_address(m: AddressMembers, r: &mut Reading<'_>) -> Option<AddressData> {
    let cep = r.parse(m.cep.0, m.cep.1, Cep::parse);
    let street = r.text_within(m.street.0, m.street.1, limits::STREET);
    let number = r.text_or_number(m.number.0, m.number.1);
    let neighborhood = r.text_within(m.neighborhood.0, m.neighborhood.1, limits::NEIGHBOURHOOD);
    let city = r.text_within(m.city.0, m.city.1, limits::CITY);
    let state = r.parse(m.state.0, m.state.1, Uf::parse_any_case);
    let complement = r.optional_text_within(m.complement.0, m.complement.1, limits::COMPLEMENT);
    Some(AddressData {
        cep: cep?,
        street: street?,
        number: number?,
        neighborhood: neighborhood?,
        city: city?,
        state: state?,
        complement,
    })
}

impl RegistrationAddressBody {
    fn read(self, r: &mut Reading<'_>) -> Option<AddressData> {
        let m = self.named();
        let members = AddressMembers {
            cep: m.cep,
            street: m.endereco,
            number: m.numero,
            neighborhood: m.bairro,
            city: m.cidade,
            state: m.estado,
            complement: m.complemento,
        };
        read_address(members, r)
    }
}

impl ProposalAddressBody {
    pub(super) fn read(self, r: &mut Reading<'_>) -> Option<AddressData> {
        let m = self.named();
        let members = AddressMembers {
            cep: m.zip_code,
            street: m.address,
            number: m.number,
            neighborhood: m.neighborhood,
            city: m.city,
            state: m.state,
            complement: m.complement,
        };
        read_address(members, r)
    }
}

impl RegistrationCustomerBody {
    fn read(self, r: &mut Reading<'_>, at: &ReadingRules) -> Option<CustomerData> {
        let m = self.named();
        let members = CustomerMembers {
            full_name: m.nome_completo,
            social_name: m.nome_social,
            mother_name: m.nome_mae,
            cpf: m.cpf,
            birth_date: m.data_nascimento,
            gender: m.sexo,
            marital_status: m.estado_civil,
            nationality: m.nacionalidade,
            cell_phone: m.celular,
            landline: m.telefone_fixo,
            email: m.email,
            profession: m.profissao,
            salary: m.salario,
            flags: [
                m.trabalhando,
                m.servidor_publico,
                m.pep,
                m.afastado,
                m.medicamento,
                m.e_analfabeto,
            ],
            medication_description: m.medicamento_descricao,
        };
        // The registration accepts 0: not every customer has an income.
        let policy = CustomerPolicy {
            marital_status_required: false,
            min_salary_cents: 0,
        };
        read_customer(members, r, at, policy)
    }
}

impl ProposalCustomerBody {
    pub(super) fn read(self, r: &mut Reading<'_>, at: &ReadingRules) -> Option<CustomerData> {
        let m = self.named();
        let members = CustomerMembers {
            full_name: m.full_name,
            social_name: m.social_name,
            mother_name: m.mother_name,
            cpf: m.cpf,
            birth_date: m.birth_date,
            gender: m.gender,
            marital_status: m.marital_status,
            nationality: m.nationality,
            cell_phone: m.cell_phone,
            landline: m.phone,
            email: m.email,
            profession: m.profession,
            salary: m.salary,
            flags: [
                m.working,
                m.public_server,
                m.pep,
                m.absent,
                m.medication,
                m.is_illiterate,
            ],
            medication_description: m.medication_description,
        };
        let policy = CustomerPolicy {
            marital_status_required: true,
            min_salary_cents: at.rules.min_salary_cents,
        };
        read_customer(members, r, at, policy)
    }
}

impl ShopCustomerBody {
    pub(super) fn read(self, r: &mut Reading<'_>, at: &ReadingRules) -> Option<CustomerData> {
        let m = self.named();
        let full_name = r.parse(m.full_name.0, m.full_name.1, FullName::parse);
        let social_name = r.parse_optional(m.social_name.0, m.social_name.1, FullName::parse);
        let mother_name = r.parse_optional(m.mother_name.0, m.mother_name.1, FullName::parse);
        let cpf = r.parse(m.cpf.0, m.cpf.1, Cpf::parse);
        let birth_date = r.parse(m.birth_date.0, m.birth_date.1, |s| {
            BirthDate::parse(s, at.today, at.rules.age)
        });
        let gender = r.parse(m.gender.0, m.gender.1, Gender::parse);
        let marital_status = r.parse_optional(m.marital_status.0, m.marital_status.1, MaritalStatus::parse);
        let cell_phone = r.parse_optional(m.cell_phone.0, m.cell_phone.1, CellPhone::parse);
        let email = r.parse_optional(m.email.0, m.email.1, Email::parse);
        Some(CustomerData {
            social_name,
            mother_name,
            marital_status,
            cell_phone,
            email,
            ..CustomerData::minimal(full_name?, cpf?, birth_date?, gender?)
        })
    }
}

impl RegistrationBody {
    /// Every bad member at once, or the customer and its address (if one was sent).
    pub fn read(self, at: &ReadingRules) -> Result<(CustomerData, Option<AddressData>), Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let customer = r.object(m.cliente.0, m.cliente.1, |c, r| c.read(r, at));
        let address = r.optional_object(m.endereco.0, m.endereco.1, |a, r| a.read(r));
        match customer {
            Some(customer) if v.is_empty() => Ok((customer, address)),
            _ => Err(v),
        }
    }
}
