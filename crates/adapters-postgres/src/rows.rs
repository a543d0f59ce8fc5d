//! Rows as diesel reads them, and their translation into the domain's records.

use crate::person_columns::{PersonColumns, StampColumns};
use crate::schema::{addresses, billing_groups, customers, partners, products, proposal_payments, proposals};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::catalog::model::{BillingGroup, Product};
use domain::customers::CustomerRecord;
use domain::proposals::model::{AddressView, PartnerView, PaymentView, ProposalCustomer, ProposalRecord};
use domain::stamp::ChangeStamp;
use domain::store::StoreError;
use domain::values::{
    Flow, PaymentType, ProposalStatus, RegistrationStatus, SheetType, ShippingType, StoredValueError,
};
use serde::{Deserialize, Serialize};

/// A seller's registration of a customer, as `RETURNING *` or `to_jsonb` gives it.
#[derive(Debug, QueryableByName, Deserialize)]
#[diesel(table_name = customers)]
pub struct CustomerRow {
    pub id: i64,
    #[diesel(embed)]
    #[serde(flatten)]
    pub person: PersonColumns,
    pub key_cliente: Option<String>,
    pub status: String,
    pub codigo_jave: Option<String>,
    pub id_endereco: Option<i64>,
    pub ecommerce_customer_id: Option<String>,
    #[diesel(embed)]
    #[serde(flatten)]
    pub stamp: StampColumns,
    /// The registration's seller: `PARCEIRO` with its partner, or `ECOMMERCE`.
    pub aplicacao_vendedor: String,
    pub id_parceiro_vendedor: Option<i64>,
}

impl TryFrom<CustomerRow> for CustomerRecord {
    type Error = StoredValueError;

    fn try_from(r: CustomerRow) -> Result<Self, StoredValueError> {
        Ok(CustomerRecord {
            id: r.id,
            person: r.person.try_into()?,
            stamp: r.stamp.into(),
            customer_key: r.key_cliente,
            status: RegistrationStatus::from_stored(&r.status, "customers", "status")?,
            jave_code: r.codigo_jave,
            address_id: r.id_endereco,
            ecommerce_customer_id: r.ecommerce_customer_id,
        })
    }
}

#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, PartialEq, Serialize, Deserialize)]
#[diesel(table_name = proposals)]
pub struct ProposalRow {
    pub id: i64,
    pub identificador: String,
    pub id_jave: Option<String>,
    pub valor: i64,
    pub cpf_cnpj_parceiro: Option<String>,
    pub id_parceiro: Option<i64>,
    pub id_representante: Option<i64>,
    pub id_cliente: i64,
    pub key_documento: Option<String>,
    pub key_assinatura_requisicao: Option<String>,
    pub reenvios: i32,
    pub status: String,
    pub alterado_por: String,
    pub alterado_em: DateTime<Utc>,
    pub criado_em: DateTime<Utc>,
    pub cnpj_associacao: Option<String>,
    pub cnpj_federacao: Option<String>,
    pub tipo_envio: String,
    pub reenvio_notificacao: i32,
    pub fluxo: String,
    pub codigo_associado: Option<String>,
    pub id_motivacao: i32,
    pub id_produto: i64,
    pub id_gravacao: Option<String>,
    pub id_convite: Option<String>,
    pub assinatura_eletronica: Option<String>,
    pub codigo_faturamento: i32,
}

/// A stored choice that is none of its spellings, as the query's own error (so that it travels
/// through transactions like any other and is answered as an internal error naming table, column
/// and value).
pub(crate) fn stored<T>(read: Result<T, StoredValueError>) -> QueryResult<T> {
    read.map_err(|error| diesel::result::Error::DeserializationError(Box::new(error)))
}

/// A row read as its `to_jsonb` (the person's columns are one declaration for two tables, which
/// diesel's column-typed selects cannot share): one that does not read is an internal error
/// naming its table.
pub(crate) fn row_of_json<T: serde::de::DeserializeOwned>(
    table: &str,
    row: serde_json::Value,
) -> Result<T, StoreError> {
    serde_json::from_value(row).map_err(|error| {
        tracing::error!(%error, table, "linha ilegível");
        StoreError::Unexpected(format!("linha ilegível em {table}: {error}"))
    })
}

impl TryFrom<ProposalRow> for ProposalRecord {
    type Error = StoredValueError;

    fn try_from(r: ProposalRow) -> Result<Self, StoredValueError> {
        Ok(ProposalRecord {
            id: r.id,
            identifier: r.identificador,
            jave_id: r.id_jave,
            value: r.valor,
            partner_document: r.cpf_cnpj_parceiro,
            representative_id: r.id_representante,
            customer_id: r.id_cliente,
            document_key: r.key_documento,
            signature_request_key: r.key_assinatura_requisicao,
            resends: r.reenvios,
            status: ProposalStatus::from_stored(&r.status, "proposals", "status")?,
            stamp: ChangeStamp {
                changed_by: r.alterado_por,
                created_at: r.criado_em,
                updated_at: r.alterado_em,
            },
            association_cnpj: r.cnpj_associacao,
            federation_cnpj: r.cnpj_federacao,
            shipping: ShippingType::from_stored(&r.tipo_envio, "proposals", "tipo_envio")?,
            notification_resends: r.reenvio_notificacao,
            flow: Flow::from_stored(&r.fluxo, "proposals", "fluxo")?,
            associate_code: r.codigo_associado,
            motivation_id: r.id_motivacao,
            product_id: r.id_produto,
            recording_id: r.id_gravacao,
            invite_id: r.id_convite,
            electronic_signature: r.assinatura_eletronica,
            billing_code: r.codigo_faturamento,
        })
    }
}

/// A proposal's own copy of its customer and address, as the row's `to_jsonb` gives it (the
/// read model's document keeps it so).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct ProposalCustomerRow {
    pub id_cliente: i64,
    #[serde(flatten)]
    pub person: PersonColumns,
    pub cep: String,
    pub endereco: String,
    pub numero: String,
    pub bairro: String,
    pub cidade: String,
    pub estado: String,
    pub complemento: Option<String>,
    #[serde(flatten)]
    pub stamp: StampColumns,
}

impl ProposalCustomerRow {
    pub fn into_views(self) -> Result<(ProposalCustomer, AddressView), StoredValueError> {
        let address = AddressView {
            cep: self.cep,
            street: self.endereco,
            number: self.numero,
            neighborhood: self.bairro,
            city: self.cidade,
            state: self.estado,
            complement: self.complemento,
        };
        let customer = ProposalCustomer {
            registration_id: self.id_cliente,
            person: self.person.try_into()?,
            stamp: self.stamp.into(),
        };
        Ok((customer, address))
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = addresses)]
pub struct AddressRow {
    pub cep: String,
    pub endereco: String,
    pub numero: String,
    pub bairro: String,
    pub cidade: String,
    pub estado: String,
    pub complemento: Option<String>,
}

impl From<AddressRow> for AddressView {
    fn from(r: AddressRow) -> Self {
        AddressView {
            cep: r.cep,
            street: r.endereco,
            number: r.numero,
            neighborhood: r.bairro,
            city: r.cidade,
            state: r.estado,
            complement: r.complemento,
        }
    }
}

#[derive(Debug, Queryable, Selectable, PartialEq, Serialize, Deserialize)]
#[diesel(table_name = partners)]
pub struct PartnerRow {
    pub id: i64,
    pub cpf_cnpj: String,
    pub fantasy_name: Option<String>,
    pub social_reason: String,
    pub company_cnpj: Option<String>,
    pub company_fantasy_name: Option<String>,
    pub company_social_reason: Option<String>,
    pub association_cnpj: Option<String>,
    pub association_name: Option<String>,
    pub federation_cnpj: Option<String>,
    pub federation_name: Option<String>,
    pub alterado_por: String,
    pub criado_em: DateTime<Utc>,
    pub alterado_em: DateTime<Utc>,
}

impl From<PartnerRow> for PartnerView {
    fn from(r: PartnerRow) -> Self {
        PartnerView {
            document: r.cpf_cnpj,
            fantasy_name: r.fantasy_name,
            social_reason: r.social_reason,
            stamp: ChangeStamp {
                changed_by: r.alterado_por,
                created_at: r.criado_em,
                updated_at: r.alterado_em,
            },
            company_cnpj: r.company_cnpj,
            company_fantasy_name: r.company_fantasy_name,
            company_social_reason: r.company_social_reason,
            association_cnpj: r.association_cnpj,
            association_name: r.association_name,
            federation_cnpj: r.federation_cnpj,
            federation_name: r.federation_name,
        }
    }
}

#[derive(Debug, Queryable, Selectable, PartialEq, Serialize, Deserialize)]
#[diesel(table_name = proposal_payments)]
pub struct PaymentRow {
    pub id: i64,
    pub tipo: String,
    pub nome_cartao: Option<String>,
    pub numero_cartao: Option<String>,
    pub validade: Option<String>,
    pub dia_cobranca: Option<i32>,
    pub banco: Option<String>,
    pub agencia: Option<String>,
    pub conta: Option<String>,
    pub operacao: Option<String>,
    pub numero_folha: Option<String>,
    pub tipo_folha: Option<String>,
    pub especie: Option<i32>,
    pub orgao_emissor: Option<String>,
    pub alterado_por: String,
    pub criado_em: DateTime<Utc>,
    pub alterado_em: DateTime<Utc>,
    /// `PIX AUTOMÁTICO`'s payer's PSP (migration 000054): absent from every other document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ispb: Option<String>,
}

impl TryFrom<PaymentRow> for PaymentView {
    type Error = StoredValueError;

    fn try_from(r: PaymentRow) -> Result<Self, StoredValueError> {
        Ok(PaymentView {
            id: r.id,
            payment_type: PaymentType::from_stored(&r.tipo, "proposal_payments", "tipo")?,
            card_name: r.nome_cartao,
            card_number: r.numero_cartao,
            card_expiry: r.validade,
            billing_day: r.dia_cobranca,
            bank: r.banco,
            agency: r.agencia,
            account: r.conta,
            operation: r.operacao,
            sheet_number: r.numero_folha,
            sheet_type: r
                .tipo_folha
                .as_deref()
                .map(|t| SheetType::from_stored(t, "proposal_payments", "tipo_folha"))
                .transpose()?,
            specie: r.especie,
            issuer_body: r.orgao_emissor,
            ispb: r.ispb,
            stamp: ChangeStamp {
                changed_by: r.alterado_por,
                created_at: r.criado_em,
                updated_at: r.alterado_em,
            },
        })
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = products)]
pub struct ProductRow {
    pub id: i64,
    pub codigo_produto: i32,
    pub nome: String,
    pub codigo_integracao: i32,
    pub ativo: bool,
    pub valor: i64,
    pub alterado_por: String,
    pub criado_em: DateTime<Utc>,
    pub alterado_em: DateTime<Utc>,
    pub price_id: Option<String>,
    pub beneficiarios_obrigatorios: bool,
}

impl ProductRow {
    pub fn into_product(self, banks: Vec<domain::catalog::model::Bank>) -> Product {
        Product {
            id: self.id,
            code: self.codigo_produto,
            name: self.nome,
            integration_code: self.codigo_integracao,
            active: self.ativo,
            value_cents: self.valor,
            banks,
            price_id: self.price_id,
            beneficiaries_required: self.beneficiarios_obrigatorios,
            // Not read with the product: route 5 reads products on every request (through the
            // catalog cache), and terms are long; documents read them on their own.
            terms: None,
            stamp: ChangeStamp {
                changed_by: self.alterado_por,
                created_at: self.criado_em,
                updated_at: self.alterado_em,
            },
        }
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = billing_groups)]
pub struct BillingGroupRow {
    pub id: i64,
    pub codigo_faturamento: i32,
    pub descricao: String,
    pub codigo_integracao: i32,
    pub codigo_produto: i32,
    pub alterado_por: String,
    pub criado_em: DateTime<Utc>,
    pub alterado_em: DateTime<Utc>,
}

impl From<BillingGroupRow> for BillingGroup {
    fn from(r: BillingGroupRow) -> Self {
        BillingGroup {
            id: r.id,
            billing_code: r.codigo_faturamento,
            description: r.descricao,
            integration_code: r.codigo_integracao,
            product_code: r.codigo_produto,
            stamp: ChangeStamp {
                changed_by: r.alterado_por,
                created_at: r.criado_em,
                updated_at: r.alterado_em,
            },
        }
    }
}
