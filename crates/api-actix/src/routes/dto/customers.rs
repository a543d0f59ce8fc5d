//! Customers: route 3's record, route 7's customer, and the back office's registrations and
//! ownership.

use super::{cell_phone, iso, landline};
use domain::customers::{AddressView, CustomerRecord};
use domain::proposals::model::ProposalCustomer;
use serde::Serialize;
use utoipa::ToSchema;

/// Route 3's record (the spec's customer record, exactly its members).
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerRecordDto {
    pub id: i64,
    pub alterado_por: String,
    #[schema(format = DateTime)]
    pub criado_em: String,
    #[schema(format = DateTime)]
    pub alterado_em: String,
    pub nome_completo: String,
    /// Nome social (Decreto 8.727/2016): presente somente quando informado, para que o registro
    /// da especificação siga exatamente o mesmo para quem não o usa.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nome_social: Option<String>,
    /// Nome da mãe: presente somente quando informado.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nome_mae: Option<String>,
    pub cpf: String,
    /// `YYYY-MM-DD`, whatever form was sent.
    pub data_nascimento: String,
    pub celular: Option<String>,
    pub telefone_fixo: Option<String>,
    pub email: Option<String>,
    /// Cents.
    pub salario: Option<i64>,
    pub trabalhando: bool,
    pub servidor_publico: bool,
    pub pep: bool,
    pub afastado: bool,
    pub medicamento: bool,
    pub medicamento_descricao: Option<String>,
    pub key_cliente: Option<String>,
    #[schema(example = "NOVO")]
    pub status: String,
    pub e_analfabeto: bool,
    pub codigo_jave: Option<String>,
    pub cargo_politico: Option<String>,
    pub id_endereco: Option<i64>,
    pub ecommerce_customer_id: Option<String>,
}

impl From<CustomerRecord> for CustomerRecordDto {
    fn from(c: CustomerRecord) -> Self {
        let person = c.person;
        Self {
            id: c.id,
            alterado_por: c.stamp.changed_by,
            criado_em: iso(c.stamp.created_at),
            alterado_em: iso(c.stamp.updated_at),
            nome_completo: person.full_name,
            nome_social: person.social_name,
            nome_mae: person.mother_name,
            cpf: person.cpf,
            data_nascimento: person.birth_date.format("%Y-%m-%d").to_string(),
            celular: cell_phone(&person.cell_phone),
            telefone_fixo: landline(&person.landline),
            email: person.email,
            salario: person.salary,
            trabalhando: person.working,
            servidor_publico: person.public_servant,
            pep: person.pep,
            afastado: person.absent,
            medicamento: person.medication,
            medicamento_descricao: person.medication_description,
            key_cliente: c.customer_key,
            status: c.status.as_str().to_owned(),
            e_analfabeto: person.illiterate,
            codigo_jave: c.jave_code,
            cargo_politico: person.political_office,
            id_endereco: c.address_id,
            ecommerce_customer_id: c.ecommerce_customer_id,
        }
    }
}

/// Route 7's `data.customer`: the proposal's copy of the person, with its address.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerView {
    pub full_name: String,
    /// Nome social (Decreto 8.727/2016): presente somente quando informado (o `customer` da
    /// especificação segue exatamente o mesmo para quem não o usa).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub social_name: Option<String>,
    /// Nome da mãe: presente somente quando informado.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mother_name: Option<String>,
    pub cpf: String,
    /// The birth date, ISO 8601 (`1990-05-01`). Versions before 2026-12-01 read the spec's text.
    #[schema(format = Date, example = "1990-05-01")]
    pub birthday: String,
    pub gender: String,
    pub marital_status: Option<String>,
    pub nationality: Option<String>,
    pub cell_phone: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub profession: Option<String>,
    pub salary: Option<i64>,
    pub working: bool,
    pub public_servant: bool,
    pub pep: bool,
    pub absent: bool,
    pub taking_medication: bool,
    pub medication_description: Option<String>,
    pub cep: Option<String>,
    pub street: Option<String>,
    /// The address number as it was sent (`123`, `123A`, `S/N`). Versions before 2026-12-01 read
    /// an integer, or `null` when the text is not one.
    pub number: Option<String>,
    pub neighborhood: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub complement: Option<String>,
    pub modified_by: String,
    pub is_illiterate: bool,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl CustomerView {
    pub fn of(customer: ProposalCustomer, address: Option<&AddressView>) -> Self {
        let person = customer.person;
        Self {
            full_name: person.full_name,
            social_name: person.social_name,
            mother_name: person.mother_name,
            cpf: person.cpf,
            birthday: person.birth_date.format("%Y-%m-%d").to_string(),
            gender: person.gender.as_str().to_owned(),
            marital_status: person.marital_status.map(|m| m.as_str().to_owned()),
            nationality: person.nationality,
            cell_phone: cell_phone(&person.cell_phone),
            phone: landline(&person.landline),
            email: person.email,
            profession: person.profession,
            salary: person.salary,
            working: person.working,
            public_servant: person.public_servant,
            pep: person.pep,
            absent: person.absent,
            taking_medication: person.medication,
            medication_description: person.medication_description,
            cep: address.map(|a| a.cep.clone()),
            street: address.map(|a| a.street.clone()),
            number: address.map(|a| a.number.clone()),
            neighborhood: address.map(|a| a.neighborhood.clone()),
            city: address.map(|a| a.city.clone()),
            state: address.map(|a| a.state.clone()),
            complement: address.and_then(|a| a.complement.clone()),
            modified_by: customer.stamp.changed_by,
            is_illiterate: person.illiterate,
            created_at: iso(customer.stamp.created_at),
            updated_at: iso(customer.stamp.updated_at),
        }
    }
}

/// Who registered a customer (back office).
#[derive(Debug, Serialize, ToSchema)]
pub struct SellerDto {
    /// `PARCEIRO` or `ECOMMERCE`.
    #[schema(example = "PARCEIRO")]
    pub aplicacao: &'static str,
    pub id_parceiro: Option<i64>,
    pub cpf_cnpj_parceiro: Option<String>,
    pub nome_parceiro: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RegistrationAddressDto {
    pub cep: String,
    pub endereco: String,
    pub numero: String,
    pub bairro: String,
    pub cidade: String,
    pub estado: String,
    pub complemento: Option<String>,
}

/// One seller's registration of a CPF: the customer record of route 3, its address and its seller.
#[derive(Debug, Serialize, ToSchema)]
pub struct RegistrationDto {
    #[serde(flatten)]
    pub cliente: CustomerRecordDto,
    pub endereco: Option<RegistrationAddressDto>,
    pub vendedor: SellerDto,
}

impl From<domain::customers::Registration> for RegistrationDto {
    fn from(r: domain::customers::Registration) -> Self {
        Self {
            cliente: r.customer.into(),
            endereco: r.address.map(|a| RegistrationAddressDto {
                cep: a.cep,
                endereco: a.street,
                numero: a.number,
                bairro: a.neighborhood,
                cidade: a.city,
                estado: a.state,
                complemento: a.complement,
            }),
            vendedor: SellerDto {
                aplicacao: r.seller.seller.application(),
                id_parceiro: r.seller.seller.partner_id(),
                cpf_cnpj_parceiro: r.seller.partner_document,
                nome_parceiro: r.seller.partner_name,
            },
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OwnershipItemDto {
    pub id_cliente: i64,
    pub codigo_produto: i32,
}

impl From<domain::customers::OwnershipItem> for OwnershipItemDto {
    fn from(item: domain::customers::OwnershipItem) -> Self {
        Self {
            id_cliente: item.customer_id,
            codigo_produto: item.product_code,
        }
    }
}
