//! The bodies of the back office's catalog routes as they arrive, and their reading into
//! [`ProductInput`] and [`BillingGroupInput`].

use super::model::{Bank, BillingGroupInput, ProductInput};
use crate::input::{Field, Reading, limits};
use crate::validation::{Violations, codes};
use crate::values::bank_account::bank_code;

crate::wire_body! {
    /// One bank a product accepts for `DÉBITO EM CONTA`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Um banco que o produto aceita para `DÉBITO EM CONTA`.")
    )]
    pub struct BankBody => BankMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{3}$", example = "001"))]
        codigo_banco as "codigoBanco": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Banco do Brasil"))]
        nome: Field<String>,
    }
}

crate::wire_body! {
    /// The body of `POST /product` and `PUT /product/:productCode`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo de `POST /product` e `PUT /product/{productCode}`.")
    )]
    pub struct ProductBody => ProductMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 104))]
        codigo_produto: Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Seguro Residencial"))]
        nome: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 9104))]
        codigo_integracao: Field<i64>,
        /// `true` quando ausente.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<bool>))]
        ativo: Field<bool>,
        /// Em centavos; 0 quando ausente.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<i64>, minimum = 0, example = 3990))]
        valor: Field<i64>,
        /// O preço recorrente na plataforma de pagamento (assinaturas de e-commerce).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "price_1PzXyZ"))]
        price_id: Field<String>,
        /// O texto do contrato das propostas do produto, com marcadores como `{{nome}}`, `{{cpf}}`,
        /// `{{valor}}` (lista em `docs/decisions.md`); parágrafos separados por linha em branco.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, max_length = 20000, example = "Eu, {{nome}}, CPF {{cpf}}, contrato {{produto}} por {{valor}}."))]
        termos: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Vec<BankBody>))]
        bank: Field<Vec<Field<BankBody>>>,
    }
}

crate::wire_body! {
    /// The body of `POST /billingGroup` and `PUT /billingGroup/:billingCode`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo de `POST /billingGroup` e `PUT /billingGroup/{billingCode}`.")
    )]
    pub struct BillingGroupBody => BillingGroupMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 5005))]
        codigo_faturamento: Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "Anual - boleto"))]
        descricao: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 101))]
        codigo_produto: Field<i64>,
    }
}

impl ProductBody {
    pub fn read(self) -> Result<ProductInput, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let code = r.code(m.codigo_produto.0, m.codigo_produto.1);
        let name = r.text_within(m.nome.0, m.nome.1, limits::NAME);
        let integration_code = r.code(m.codigo_integracao.0, m.codigo_integracao.1);
        let active = r.optional_bool(m.ativo.0, m.ativo.1).unwrap_or(true);
        let price_id = r.optional_text(m.price_id.0, m.price_id.1);
        let terms = r
            // One past the terms' own maximum: `terms::check` refuses a longer text with its code.
            .optional_text_within(m.termos.0, m.termos.1, crate::contract::terms::MAX_CHARS + 1)
            .and_then(|t| r.check(m.termos.0, crate::contract::terms::check(&t).map(|()| t)));
        let value = match r.optional_integer(m.valor.0, m.valor.1) {
            Some(n) if n < 0 => {
                r.add(
                    m.valor.0,
                    codes::INVALID_VALUE,
                    format!("{} deve ser um inteiro de centavos não negativo", m.valor.0),
                );
                None
            }
            other => Some(other.unwrap_or(0)),
        };
        let banks = r
            .objects(m.bank.0, m.bank.1, |b, r| {
                let b = b.named();
                let code = r.string(b.codigo_banco.0, b.codigo_banco.1);
                let code = code.and_then(|c| r.check(b.codigo_banco.0, bank_code(&c)));
                let name = r.text_within(b.nome.0, b.nome.1, limits::NAME);
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
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let billing_code = r.code(m.codigo_faturamento.0, m.codigo_faturamento.1);
        let description = r.text_within(m.descricao.0, m.descricao.1, limits::DESCRIPTION);
        let product_code = r.code(m.codigo_produto.0, m.codigo_produto.1);
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
