//! Field-level validation failures, collected so that a request learns every bad field at once.

use serde::Serialize;
use std::fmt;

/// One invalid field: where it is (`customer.cpf`), a stable code (`cpf_digito`) and a message in
/// Brazilian Portuguese meant for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub field: String,
    pub code: &'static str,
    pub message: String,
}

/// Why a value type refused its input: a stable code and a message. The field path is added by
/// whoever knows where the value came from (see [`Violations::check`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    pub code: &'static str,
    pub message: String,
}

impl Rejection {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

/// Every field error of one request body, in the order found.
#[derive(Debug, Clone, Default, PartialEq, Eq, thiserror::Error)]
pub struct Violations(Vec<FieldError>);

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fields: Vec<&str> = self.0.iter().map(|e| e.field.as_str()).collect();
        write!(f, "campos inválidos: {}", fields.join(", "))
    }
}

impl Violations {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a failure of `field` directly.
    pub fn add(&mut self, field: impl Into<String>, code: &'static str, message: impl Into<String>) {
        self.0.push(FieldError {
            field: field.into(),
            code,
            message: message.into(),
        });
    }

    /// Keeps the value of a successful parse, or records its rejection under `field`.
    pub fn check<T>(&mut self, field: &str, parsed: Result<T, Rejection>) -> Option<T> {
        match parsed {
            Ok(value) => Some(value),
            Err(rejection) => {
                self.0.push(FieldError {
                    field: field.to_owned(),
                    code: rejection.code,
                    message: rejection.message,
                });
                None
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn errors(&self) -> &[FieldError] {
        &self.0
    }

    /// `Ok(())` when nothing was recorded, else the whole list.
    pub fn into_result(self) -> Result<(), Violations> {
        if self.0.is_empty() { Ok(()) } else { Err(self) }
    }
}

/// Codes shared by the request readers of every route: a missing field, or one of the wrong JSON type.
pub mod codes {
    pub const REQUIRED: &str = "campo_obrigatorio";
    pub const WRONG_TYPE: &str = "tipo_invalido";
    pub const INVALID_VALUE: &str = "valor_invalido";
    pub const UNKNOWN_REFERENCE: &str = "referencia_inexistente";
    pub const UNKNOWN_FIELD: &str = "campo_nao_permitido";
    pub const DUPLICATE: &str = "valor_duplicado";
}

/// Trims the ASCII white space around an input, as every field rule starts by doing.
pub(crate) fn trim_ascii(input: &str) -> &str {
    input.trim_matches(|c: char| c.is_ascii_whitespace())
}

/// Every per-field code the domain's rules produce, with what it means. `docs/errors.md` lists the
/// same codes (a test in `api-actix` compares them).
pub fn field_codes() -> Vec<(&'static str, &'static str)> {
    use crate::auth::password;
    use crate::hooks;
    use crate::values::{
        Application, EventKind, Gender, HookStatus, MaritalStatus, PaymentType, ProposalStatus, SheetType,
        ShippingType, Uf,
    };
    use crate::values::{bank_account, birth_date, cep, cnpj, cpf, email, full_name, phone, salary};
    vec![
        (codes::REQUIRED, "campo obrigatório ausente, nulo ou vazio"),
        (codes::WRONG_TYPE, "campo com tipo JSON diferente do esperado"),
        (codes::INVALID_VALUE, "valor fora do domínio aceito pelo campo"),
        (cpf::FORMAT, "CPF sem 11 dígitos ou fora da máscara 000.000.000-00"),
        (cpf::REPEATED, "CPF com todos os dígitos iguais"),
        (cpf::CHECK_DIGIT, "CPF com dígitos verificadores errados"),
        (cnpj::FORMAT, "CNPJ sem 14 caracteres válidos ou fora da máscara"),
        (cnpj::REPEATED, "CNPJ com todos os caracteres iguais"),
        (cnpj::CHECK_DIGIT, "CNPJ com dígitos verificadores errados"),
        (phone::CELL_FORMAT, "celular fora do formato (99) 99999-9999"),
        (phone::CELL_AREA_CODE, "celular com DDD inexistente"),
        (phone::CELL_NOT_MOBILE, "celular sem o 9 após o DDD"),
        (phone::LANDLINE_FORMAT, "telefone fixo fora do formato (99) 9999-9999"),
        (phone::LANDLINE_AREA_CODE, "telefone fixo com DDD inexistente"),
        (cep::FORMAT, "CEP sem 8 dígitos"),
        (full_name::CHARACTER, "nome com dígitos ou sinais fora de lugar"),
        (full_name::WORDS, "nome com menos de duas palavras"),
        (full_name::LENGTH, "nome com menos de 2 ou mais de 120 caracteres"),
        (birth_date::FORMAT, "data fora do formato AAAA-MM-DD ou inexistente"),
        (birth_date::FUTURE, "data de nascimento no futuro"),
        (birth_date::AGE, "idade fora dos limites configurados"),
        (salary::FORMAT, "salário que não é inteiro de centavos não negativo"),
        (salary::MINIMUM, "salário abaixo do mínimo configurado"),
        (email::FORMAT, "e-mail inválido"),
        (Uf::CODE, "UF fora das 27 siglas"),
        (Gender::CODE, "sexo diferente de Masculino ou Feminino"),
        (MaritalStatus::CODE, "estado civil fora da lista"),
        (PaymentType::CODE, "tipo de pagamento fora da lista"),
        (ShippingType::CODE, "tipo de envio diferente de sms ou whatsapp"),
        (Application::CODE, "aplicação fora de ECOMMERCE, PARCEIRO, BACKOFFICE"),
        (
            SheetType::CODE,
            "tipo de desconto em folha diferente de BENEFÍCIO ou MATRÍCULA",
        ),
        (ProposalStatus::CODE, "status de proposta fora da lista"),
        (
            HookStatus::CODE,
            "status de assinatura de eventos diferente de ATIVO ou INATIVO",
        ),
        (
            EventKind::CODE,
            "tipo de evento fora do catálogo (ALTERAÇÃO_STATUS, TESTE)",
        ),
        (
            hooks::endpoint::FORMAT,
            "endpoint que não é URL http(s) absoluta, com credenciais ou fragmento",
        ),
        (
            hooks::endpoint::BLOCKED,
            "endpoint que resolve para endereço não público (loopback, privado, link-local...) ou não resolve",
        ),
        (bank_account::BANK_FORMAT, "banco sem o código de 3 dígitos"),
        (bank_account::AGENCY_FORMAT, "agência fora do formato 1234 ou 1234-5"),
        (bank_account::ACCOUNT_FORMAT, "conta fora do formato 12345 ou 12345-6"),
        (
            codes::UNKNOWN_REFERENCE,
            "referência a registro inexistente ou incompatível (produto, grupo de faturamento, banco, parceiro)",
        ),
        (
            codes::UNKNOWN_FIELD,
            "nome de campo ou parâmetro não permitido (fields, conditions, consulta)",
        ),
        (
            codes::DUPLICATE,
            "código já cadastrado (produto, integração, grupo de faturamento)",
        ),
        (password::REQUIRED, "senha ausente"),
        (password::TOO_LONG, "senha com mais de 72 bytes"),
        (
            password::WEAK,
            "senha fora da política (tamanho, maiúscula, dígito, especial) ou comum",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_every_failure_with_its_field() {
        let mut v = Violations::new();
        let kept = v.check::<u8>("customer.cpf", Err(Rejection::new("cpf_digito", "CPF inválido")));
        assert!(kept.is_none());
        assert_eq!(v.check("customer.name", Ok(7u8)), Some(7));
        v.add("address.state", "uf_invalida", "UF inválida");
        let fields: Vec<_> = v.errors().iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            fields,
            vec![("customer.cpf", "cpf_digito"), ("address.state", "uf_invalida")]
        );
        assert!(v.into_result().is_err());
    }

    #[test]
    fn empty_violations_are_ok() {
        assert_eq!(Violations::new().into_result(), Ok(()));
    }
}
