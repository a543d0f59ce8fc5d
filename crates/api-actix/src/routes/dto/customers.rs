//! Customers: route 3's record and the back office's registrations and ownership.

use super::{cell_phone, iso, landline};
use domain::customers::CustomerRecord;
use serde::Serialize;
use utoipa::ToSchema;

/// Route 3's record (the spec's customer record, exactly its members).
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerRecordDto {
    pub id: i64,
    pub alterado_por: String,
    pub criado_em: String,
    pub alterado_em: String,
    pub nome_completo: String,
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
        Self {
            id: c.id,
            alterado_por: c.changed_by,
            criado_em: iso(c.created_at),
            alterado_em: iso(c.updated_at),
            nome_completo: c.full_name,
            cpf: c.cpf,
            data_nascimento: c.birth_date.format("%Y-%m-%d").to_string(),
            celular: cell_phone(&c.cell_phone),
            telefone_fixo: landline(&c.landline),
            email: c.email,
            salario: c.salary,
            trabalhando: c.working,
            servidor_publico: c.public_servant,
            pep: c.pep,
            afastado: c.absent,
            medicamento: c.medication,
            medicamento_descricao: c.medication_description,
            key_cliente: c.customer_key,
            status: c.status,
            e_analfabeto: c.illiterate,
            codigo_jave: c.jave_code,
            cargo_politico: c.political_office,
            id_endereco: c.address_id,
            ecommerce_customer_id: c.ecommerce_customer_id,
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
