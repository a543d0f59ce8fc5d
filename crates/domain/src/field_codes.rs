//! The catalogue of per-field error codes, gathered from the rules that produce them. It sits
//! above `validation` and the value types (they do not import it), so no module cycle forms.

/// Every per-field code the domain's rules produce, with what it means. `docs/errors.md` lists the
/// same codes (a test in `api-actix` compares them).
pub fn all() -> Vec<(&'static str, &'static str)> {
    use crate::auth::password;
    use crate::billing::pix;
    use crate::hooks;
    use crate::validation::codes;
    use crate::values::{
        Application, EventKind, Gender, HookStatus, Kinship, MaritalStatus, PaymentType, ProposalStatus,
        ReasonCategory, SheetType, ShippingType, Uf,
    };
    use crate::values::{bank_account, birth_date, cep, cnpj, cpf, email, full_name, phone, salary};
    vec![
        (codes::REQUIRED, "campo obrigatório ausente, nulo ou vazio"),
        (codes::WRONG_TYPE, "campo com tipo JSON diferente do esperado"),
        (codes::INVALID_VALUE, "valor fora do domínio aceito pelo campo"),
        (codes::TOO_LONG, "texto mais longo que o máximo do campo"),
        (codes::TOO_SHORT, "texto mais curto que o mínimo do campo"),
        (codes::TOO_MANY, "consulta com parâmetros demais"),
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
        (
            crate::idempotency::INVALID_KEY,
            "Idempotency-Key vazia, longa demais ou com caracteres fora do ASCII visível",
        ),
        (
            crate::idempotency::REUSED_KEY,
            "Idempotency-Key já usada nas últimas 24 horas com outra requisição",
        ),
        (
            crate::idempotency::FORGOTTEN_KEY,
            "Idempotency-Key cuja resposta foi apagada na anonimização do titular",
        ),
        (
            crate::contract::terms::UNKNOWN_PLACEHOLDER,
            "termos do produto com marcador desconhecido ou não fechado",
        ),
        (
            crate::contract::terms::TOO_LONG,
            "termos do produto com mais de 20.000 caracteres",
        ),
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
        (Kinship::CODE, "parentesco de beneficiário fora da lista"),
        (
            ReasonCategory::CODE,
            "categoria do motivo fora da lista (saude, documentacao, risco_financeiro, declaracao_inexata, a_pedido, outros)",
        ),
        (
            codes::CATEGORY_NOT_APPLICABLE,
            "categoria do motivo numa mudança que não é recusa nem cancelamento",
        ),
        (
            crate::proposals::beneficiaries::SHARES,
            "partes dos beneficiários que não somam 100%",
        ),
        (
            crate::proposals::beneficiaries::INSURED,
            "o próprio segurado indicado como beneficiário",
        ),
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
            "tipo de evento fora do catálogo (ALTERAÇÃO_STATUS, PROPOSTA_CRIADA, PROPOSTA_ENVIADA, ASSINATURA_REGISTRADA, PAGAMENTO_ALTERADO, TESTE)",
        ),
        (
            hooks::endpoint::FORMAT,
            "endpoint que não é URL http(s) absoluta, com credenciais ou fragmento",
        ),
        (
            hooks::bodies::TIMESTAMP_INVALID,
            "data e hora que não segue a ISO 8601 com fuso (2026-11-25T08:00:00Z)",
        ),
        (
            hooks::endpoint::BLOCKED,
            "endpoint que resolve para endereço não público (loopback, privado, link-local...) ou não resolve",
        ),
        (bank_account::BANK_FORMAT, "banco sem o código de 3 dígitos"),
        (bank_account::AGENCY_FORMAT, "agência fora do formato 1234 ou 1234-5"),
        (bank_account::ACCOUNT_FORMAT, "conta fora do formato 12345 ou 12345-6"),
        (
            pix::ISPB_FORMAT,
            "ISPB do banco do pagador fora de 8 caracteres [0-9A-Z]",
        ),
        (pix::PIX_AGENCY_FORMAT, "agência do pagador (Pix) fora de 1 a 4 dígitos"),
        (pix::PIX_ACCOUNT_FORMAT, "conta do pagador (Pix) fora de até 20 dígitos"),
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
