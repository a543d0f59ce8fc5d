//! The bodies of the back office's catalog routes as they arrive, and their reading into
//! [`ProductInput`] and [`BillingGroupInput`].

use super::model::{Bank, BillingGroupInput, ProductInput};
use crate::input::{Field, Reading, limits};
use crate::json_object;
use crate::validation::{Violations, codes};
use crate::values::bank_account::bank_code;
use serde::Deserialize;

/// One bank a product accepts for `DÉBITO EM CONTA`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(description = "Um banco que o produto aceita para `DÉBITO EM CONTA`.")
)]
pub struct BankBody {
    #[serde(rename = "codigoBanco")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{3}$", example = "001"))]
    pub codigo_banco: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Banco do Brasil"))]
    pub nome: Field<String>,
}

/// The body of `POST /product` and `PUT /product/:productCode`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(description = "Corpo de `POST /product` e `PUT /product/{productCode}`.")
)]
pub struct ProductBody {
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 104))]
    pub codigo_produto: Field<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Seguro Residencial"))]
    pub nome: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 9104))]
    pub codigo_integracao: Field<i64>,
    /// `true` quando ausente.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
    pub ativo: Field<bool>,
    /// Em centavos; 0 quando ausente.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<i64>, minimum = 0, example = 3990))]
    pub valor: Field<i64>,
    /// O preço recorrente na plataforma de pagamento (assinaturas de e-commerce).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "price_1PzXyZ"))]
    pub price_id: Field<String>,
    /// O texto do contrato das propostas do produto, com marcadores como `{{nome}}`, `{{cpf}}`,
    /// `{{valor}}` (lista em `docs/decisions.md`); parágrafos separados por linha em branco.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, max_length = 20000, example = "Eu, {{nome}}, CPF {{cpf}}, contrato {{produto}} por {{valor}}."))]
    pub termos: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<BankBody>))]
    pub bank: Field<Vec<Field<BankBody>>>,
}

/// The body of `POST /billingGroup` and `PUT /billingGroup/:billingCode`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(description = "Corpo de `POST /billingGroup` e `PUT /billingGroup/{billingCode}`.")
)]
pub struct BillingGroupBody {
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 5005))]
    pub codigo_faturamento: Field<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Anual - boleto"))]
    pub descricao: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 101))]
    pub codigo_produto: Field<i64>,
}

json_object!(BankBody, ProductBody, BillingGroupBody);

impl ProductBody {
    pub fn read(self) -> Result<ProductInput, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let code = r.code("codigo_produto", self.codigo_produto);
        let name = r.text_within("nome", self.nome, limits::NAME);
        let integration_code = r.code("codigo_integracao", self.codigo_integracao);
        let active = r.optional_bool("ativo", self.ativo).unwrap_or(true);
        let price_id = r.optional_text("price_id", self.price_id);
        let terms = r
            // One past the terms' own maximum: `terms::check` refuses a longer text with its code.
            .optional_text_within("termos", self.termos, crate::contract::terms::MAX_CHARS + 1)
            .and_then(|t| r.check("termos", crate::contract::terms::check(&t).map(|()| t)));
        let value = match r.optional_integer("valor", self.valor) {
            Some(n) if n < 0 => {
                r.add(
                    "valor",
                    codes::INVALID_VALUE,
                    "valor deve ser um inteiro de centavos não negativo",
                );
                None
            }
            other => Some(other.unwrap_or(0)),
        };
        let banks = r
            .objects("bank", self.bank, |b, r| {
                let code = r.string("codigoBanco", b.codigo_banco);
                let code = code.and_then(|c| r.check("codigoBanco", bank_code(&c)));
                let name = r.text_within("nome", b.nome, limits::NAME);
                Some(Bank {
                    code: code?,
                    name: name?,
                })
            })
            .unwrap_or_default();
        match (code, name, integration_code, value) {
            (Some(code), Some(name), Some(integration_code), Some(value_cents)) if v.is_empty() => Ok(ProductInput {
                code,
                name,
                integration_code,
                active,
                value_cents,
                banks,
                price_id,
                terms,
            }),
            _ => Err(v),
        }
    }
}

impl BillingGroupBody {
    pub fn read(self) -> Result<BillingGroupInput, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let billing_code = r.code("codigo_faturamento", self.codigo_faturamento);
        let description = r.text_within("descricao", self.descricao, limits::DESCRIPTION);
        let product_code = r.code("codigo_produto", self.codigo_produto);
        match (billing_code, description, product_code) {
            (Some(billing_code), Some(description), Some(product_code)) => Ok(BillingGroupInput {
                billing_code,
                description,
                product_code,
            }),
            _ => Err(v),
        }
    }
}
