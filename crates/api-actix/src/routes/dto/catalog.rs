//! The catalog: billing groups (route 10) and products with their banks (route 11).

use super::iso;
use domain::catalog::model::{BillingGroup, Product};
use serde::Serialize;
use utoipa::ToSchema;

/// A billing group record (route 10), before projection to the requested fields.
#[derive(Debug, Serialize, ToSchema)]
pub struct BillingGroupDto {
    pub id: i64,
    #[schema(format = DateTime)]
    pub alterado_em: String,
    pub alterado_por: String,
    #[schema(format = DateTime)]
    pub criado_em: String,
    pub codigo_faturamento: i32,
    pub descricao: String,
    pub codigo_integracao: i32,
    pub codigo_produto: i32,
}

impl From<BillingGroup> for BillingGroupDto {
    fn from(g: BillingGroup) -> Self {
        Self {
            id: g.id,
            alterado_em: iso(g.stamp.updated_at),
            alterado_por: g.stamp.changed_by,
            criado_em: iso(g.stamp.created_at),
            codigo_faturamento: g.billing_code,
            descricao: g.description,
            codigo_integracao: g.integration_code,
            codigo_produto: g.product_code,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BankDto {
    #[serde(rename = "codigoBanco")]
    pub codigo_banco: String,
    pub nome: String,
}

/// A product record (the product listing and catalog management).
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductDto {
    pub id: i64,
    pub codigo_produto: i32,
    pub nome: String,
    pub codigo_integracao: i32,
    pub ativo: bool,
    /// Value of a standard proposal, in cents.
    pub valor: i64,
    #[schema(format = DateTime)]
    pub criado_em: String,
    #[schema(format = DateTime)]
    pub alterado_em: String,
    pub alterado_por: String,
    /// The recurring price on the payment platform, when the product is sold online.
    pub price_id: Option<String>,
    /// Present when the product was read with its banks (management answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bank: Option<Vec<BankDto>>,
    /// The contract text of its proposals, with placeholders (management answers; null when the
    /// product prints the default terms).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub termos: Option<Option<String>>,
}

impl ProductDto {
    pub fn from_product(p: Product, with_banks: bool) -> Self {
        let banks = with_banks.then(|| {
            p.banks
                .iter()
                .map(|b| BankDto {
                    codigo_banco: b.code.clone(),
                    nome: b.name.clone(),
                })
                .collect()
        });
        Self {
            id: p.id,
            codigo_produto: p.code,
            nome: p.name,
            codigo_integracao: p.integration_code,
            ativo: p.active,
            valor: p.value_cents,
            criado_em: iso(p.stamp.created_at),
            alterado_em: iso(p.stamp.updated_at),
            alterado_por: p.stamp.changed_by,
            price_id: p.price_id,
            bank: banks,
            termos: with_banks.then_some(p.terms),
        }
    }
}

/// Route 11's `data`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductBanksDto {
    #[serde(rename = "codigoProduto")]
    pub codigo_produto: i32,
    pub nome: String,
    pub bank: Vec<BankDto>,
}

impl From<Product> for ProductBanksDto {
    fn from(p: Product) -> Self {
        Self {
            codigo_produto: p.code,
            nome: p.name,
            bank: p
                .banks
                .into_iter()
                .map(|b| BankDto {
                    codigo_banco: b.code,
                    nome: b.name,
                })
                .collect(),
        }
    }
}
