//! A product's terms: the contract text the back office writes (`termos`), with placeholders
//! `{{nome}}` that each proposal fills with its own values. Paragraphs are separated by a blank
//! line. A product without terms prints [`DEFAULT_TERMS`].

use crate::validation::Rejection;

pub const UNKNOWN_PLACEHOLDER: &str = "termos_marcador";
pub const TOO_LONG: &str = "termos_tamanho";

/// The longest terms text accepted, in characters (about ten printed pages).
pub const MAX_CHARS: usize = 20_000;

/// Every placeholder a terms text may use, with what it prints.
pub const PLACEHOLDERS: &[(&str, &str)] = &[
    ("nome", "nome completo do cliente"),
    ("cpf", "CPF do cliente, 000.000.000-00"),
    ("nascimento", "data de nascimento do cliente, dd/mm/aaaa"),
    ("endereco", "endereço completo do cliente"),
    ("produto", "nome do produto"),
    ("valor", "valor da proposta, R$ 0.000,00"),
    ("identificador", "identificador da proposta"),
    ("data", "data de criação da proposta, dd/mm/aaaa"),
    ("parceiro", "razão social e CNPJ do parceiro"),
    ("associacao", "nome e CNPJ da associação"),
    ("federacao", "nome e CNPJ da federação"),
    ("empresa", "razão social e CNPJ da empresa"),
];

/// The terms of a product whose back office has not written its own.
pub const DEFAULT_TERMS: &str = "\
1. Objeto. Pela presente proposta, {{nome}}, inscrito(a) no CPF sob o nº {{cpf}}, residente em \
{{endereco}}, solicita a adesão ao produto {{produto}}, pelo valor de {{valor}}, nas condições \
aqui descritas.

2. Partes. Assinam esta proposta, além do(a) proponente, a associação {{associacao}}, a federação \
{{federacao}} e a empresa {{empresa}}, por intermédio do parceiro {{parceiro}}.

3. Pagamento. O valor será cobrado pela forma de pagamento indicada nesta proposta. A falta de \
pagamento por prazo superior a 60 (sessenta) dias poderá suspender os benefícios do produto até a \
regularização.

4. Vigência. A adesão vigora por prazo indeterminado a partir da aprovação desta proposta nº \
{{identificador}}, de {{data}}, e pode ser cancelada pelo(a) proponente a qualquer tempo, sem \
multa, mediante solicitação a qualquer das partes.

5. Dados pessoais. Os dados informados são tratados para a execução deste contrato, nos termos da \
Lei nº 13.709/2018 (LGPD). O(A) proponente pode solicitar acesso, correção ou eliminação dos seus \
dados, respeitadas as obrigações legais de guarda.

6. Assinatura eletrônica. As partes reconhecem a validade da assinatura eletrônica desta proposta \
(Medida Provisória nº 2.200-2/2001, art. 10, § 2º, e Lei nº 14.063/2020), e a página de \
evidências anexa registra a integridade do documento e a identificação de cada signatário.";

/// The placeholders of `template`, in order, as written between the braces.
fn placeholders(template: &str) -> Result<Vec<&str>, Rejection> {
    let mut found = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or_else(|| {
            Rejection::new(
                UNKNOWN_PLACEHOLDER,
                "termos com marcador aberto por {{ e não fechado por }}",
            )
        })?;
        found.push(after[..end].trim());
        rest = &after[end + 2..];
    }
    Ok(found)
}

/// Refuses a terms text that is too long or names a placeholder that does not exist.
pub fn check(template: &str) -> Result<(), Rejection> {
    if template.chars().count() > MAX_CHARS {
        return Err(Rejection::new(
            TOO_LONG,
            format!("termos devem ter no máximo {MAX_CHARS} caracteres"),
        ));
    }
    for name in placeholders(template)? {
        if !PLACEHOLDERS.iter().any(|(known, _)| *known == name) {
            let known: Vec<String> = PLACEHOLDERS.iter().map(|(k, _)| format!("{{{{{k}}}}}")).collect();
            return Err(Rejection::new(
                UNKNOWN_PLACEHOLDER,
                format!(
                    "termos com marcador desconhecido {{{{{name}}}}}; os aceitos são {}",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The terms with each placeholder replaced by `value(name)`; split into paragraphs at blank lines,
/// each paragraph's lines joined (the text wraps where the page needs).
pub fn fill(template: &str, value: impl Fn(&str) -> String) -> Vec<String> {
    let mut text = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        text.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                text.push_str(&value(after[..end].trim()));
                rest = &after[end + 2..];
            }
            None => {
                // `check` refuses this on the way in; a stored text prints as written.
                text.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    text.push_str(rest);
    text.replace("\r\n", "\n")
        .split("\n\n")
        .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|paragraph| !paragraph.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_terms_use_only_known_placeholders() {
        assert_eq!(check(DEFAULT_TERMS), Ok(()));
        assert_eq!(fill(DEFAULT_TERMS, |_| "x".into()).len(), 6);
    }

    #[test]
    fn an_unknown_or_unclosed_placeholder_is_refused_naming_it() {
        let refused = check("Eu, {{nome}}, aceito {{preco}}.").unwrap_err();
        assert_eq!(refused.code, UNKNOWN_PLACEHOLDER);
        assert!(refused.message.contains("{{preco}}"), "{}", refused.message);
        assert_eq!(check("Eu, {{nome").unwrap_err().code, UNKNOWN_PLACEHOLDER);
        assert_eq!(check(&"a".repeat(MAX_CHARS + 1)).unwrap_err().code, TOO_LONG);
        assert_eq!(
            check(&"á".repeat(MAX_CHARS)),
            Ok(()),
            "counted in characters, not bytes"
        );
    }

    #[test]
    fn placeholders_are_filled_and_paragraphs_split_at_blank_lines() {
        let filled = fill(
            "Eu, {{ nome }},\naceito.\n\n\nPelo valor de {{valor}}.",
            |name| match name {
                "nome" => "Ana Souza".into(),
                "valor" => "R$ 1.412,00".into(),
                other => panic!("{other}"),
            },
        );
        assert_eq!(filled, ["Eu, Ana Souza, aceito.", "Pelo valor de R$ 1.412,00."]);
    }
}
