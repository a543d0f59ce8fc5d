//! A product's terms: the contract text the back office writes (`termos`), with placeholders
//! `{{nome}}` that each proposal fills with its own values. Paragraphs are separated by a blank
//! line. A product without terms prints [`DEFAULT_TERMS`].
//!
//! What the terms say of an unpaid premium is written from the values the billing applies
//! ([`PaymentRules`], read from the product with its text): the clause [`payment_clause`] and the
//! placeholders `{{carencia}}`, `{{aviso}}`, `{{suspensao}}`, `{{encerramento}}`, so that no
//! printed number differs from the rule the code follows (issue 67).

use crate::acceptance::{ACCEPTANCE_LAW, AcceptancePolicy};
use crate::billing::arrears::{FirstInstalment, NOTICE_DAYS};
use crate::billing::term::{NOTICE_DAYS_BEFORE_END, Renewal, TermPolicy};
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
    (
        "partes",
        "quem assina com o(a) proponente: a associação, a federação e a empresa, por intermédio do parceiro; na loja online, a seguradora",
    ),
    (
        "aceitacao",
        "a cláusula da aceitação pela seguradora, com o prazo do produto",
    ),
    (
        "pagamento",
        "a cláusula da falta de pagamento, com os prazos do produto",
    ),
    ("carencia", "dias de tolerância do produto antes do aviso de atraso"),
    ("aviso", "dias para pagar contados do recebimento do aviso (15, a lei)"),
    (
        "suspensao",
        "dias do vencimento a partir dos quais a garantia pode ser suspensa",
    ),
    ("encerramento", "dias entre a suspensão e o cancelamento do contrato"),
    (
        "vigencia",
        "o prazo de vigência do produto e sua renovação (ou o fim ao termo)",
    ),
];

pub use super::insurance::PaymentRules;

/// A product's terms text (`None`: [`DEFAULT_TERMS`]) with the rules its clauses print.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProductTerms {
    pub text: Option<String>,
    pub payment: PaymentRules,
    pub term: TermPolicy,
    /// When the shop collects the premium (decision 271): printed in a shop sale's payment.
    pub collection: crate::premium_collection::PremiumCollection,
    /// The product's acceptance policy (decision 278): the clause on the insurer's acceptance.
    pub acceptance: AcceptancePolicy,
    /// The product's premium in cents (what a shop sale's subscription charges; a partner's
    /// proposal keeps its own value).
    pub premium: i64,
    /// The product's line, which sets the IOF's rate (decision 280).
    pub line: crate::contract::insurance::InsuranceLine,
    /// The insurer, the SUSEP process, the coverage and its capital, and the general conditions,
    /// when the back office has recorded them (`sales-api catalog cover`).
    pub cover: Option<crate::contract::insurance::ProductCover>,
    /// The selling partner's SUSEP broker registration, when recorded (decision 280).
    pub broker_registration: Option<String>,
}

/// The clause on the insurer's acceptance, from the product's policy (Lei 15.040/2024, art. 49):
/// the days it has to refuse, its silence accepting, and the one request for documents.
pub fn acceptance_clause(policy: &AcceptancePolicy) -> String {
    let days = policy.days;
    let documents = if policy.suspensions > 0 {
        "A seguradora pode pedir documentos ou esclarecimentos uma única vez; o prazo fica suspenso \
         do pedido até a resposta."
    } else {
        "Este produto não prevê pedido de documentos depois do recebimento; o prazo não se suspende."
    };
    format!(
        "Recebida esta proposta, a seguradora tem até {days} dias para aceitá-la ou recusá-la, a \
         recusa por escrito e justificada; sem recusa nesse prazo, a proposta está aceita e o \
         contrato formado ({ACCEPTANCE_LAW}). {documents}"
    )
}

/// The clause on the term, from the product's months and renewal (decision 270): how long the
/// contract runs from the insurer's receipt of the proposal and what happens at the end.
pub fn term_clause(term: &TermPolicy) -> String {
    let months = term.months;
    let notice = NOTICE_DAYS_BEFORE_END;
    match term.renewal {
        Renewal::Automatic => format!(
            "vigora por {months} meses a partir do seu recebimento pela seguradora e se renova \
             automaticamente por iguais períodos, com novo certificado; o(a) segurado(a) é avisado(a) \
             ao menos {notice} dias antes do fim de cada vigência."
        ),
        Renewal::None => format!(
            "vigora por {months} meses a partir do seu recebimento pela seguradora e termina ao fim \
             desse prazo, sem renovação e sem cobrança posterior; o(a) segurado(a) é avisado(a) ao \
             menos {notice} dias antes."
        ),
    }
}

/// The clause on an unpaid premium, from the product's values (Lei 15.040/2024 arts. 20 and 21):
/// what the proposal's default terms print and the certificate repeats.
pub fn payment_clause(rules: &PaymentRules) -> String {
    let first = match rules.first_instalment {
        FirstInstalment::Ends => {
            "A falta de pagamento da primeira parcela, esgotadas as tentativas de cobrança, resolve o contrato."
        }
        FirstInstalment::Suspends => "A falta de pagamento da primeira parcela segue as regras das demais.",
    };
    format!(
        "O prêmio é cobrado pela forma de pagamento indicada e só fica em atraso depois de apresentado \
         para pagamento. {first} Parcela não paga em até {grace} dias do vencimento: o(a) segurado(a) \
         recebe aviso, por meio que comprove o recebimento, e tem {notice} dias, contados do \
         recebimento, para pagá-la; não paga nesse prazo, a garantia fica suspensa, nunca antes de \
         {suspension} dias do vencimento, e não haverá indenização de sinistro ocorrido a partir do \
         vencimento da parcela não paga. Paga a parcela, a garantia é retomada. Mantida a falta de \
         pagamento, o contrato é cancelado {end} dias após a suspensão, com novo aviso prévio \
         (Lei nº 15.040/2024, arts. 20 e 21).",
        grace = rules.grace_days,
        notice = NOTICE_DAYS,
        suspension = rules.suspension_days,
        end = rules.end_days,
    )
}

/// The clause on an unpaid premium for a contract paid by `DESCONTO EM FOLHA`: the employer's
/// failure to discount or pass on is never the insured's mora, the first discount included
/// (decision 266), so the first instalment's rule is not printed as ending the contract.
pub fn payroll_payment_clause(rules: &PaymentRules) -> String {
    let payroll = PaymentRules {
        first_instalment: FirstInstalment::Suspends,
        ..*rules
    };
    format!(
        "{} O desconto em folha não feito ou não repassado pelo empregador não coloca o(a) segurado(a) em atraso.",
        payment_clause(&payroll)
    )
}

/// A placeholder's value that comes from the product's rules, if `name` is one of those.
pub fn rule_value(terms: &ProductTerms, name: &str) -> Option<String> {
    let rules = &terms.payment;
    Some(match name {
        "vigencia" => term_clause(&terms.term),
        "aceitacao" => acceptance_clause(&terms.acceptance),
        "pagamento" => payment_clause(rules),
        "carencia" => rules.grace_days.to_string(),
        "aviso" => NOTICE_DAYS.to_string(),
        "suspensao" => rules.suspension_days.to_string(),
        "encerramento" => rules.end_days.to_string(),
        _ => return None,
    })
}

/// The terms of a product whose back office has not written its own.
pub const DEFAULT_TERMS: &str = "\
1. Objeto. Pela presente proposta, {{nome}}, inscrito(a) no CPF sob o nº {{cpf}}, residente em \
{{endereco}}, solicita a adesão ao produto {{produto}}, pelo valor de {{valor}}, nas condições \
aqui descritas.

2. Partes. {{partes}}

3. Aceitação. {{aceitacao}}

4. Pagamento. {{pagamento}}

5. Vigência. A adesão desta proposta nº {{identificador}}, de {{data}}, {{vigencia}} Pode ser \
cancelada pelo(a) proponente a qualquer tempo, sem multa, mediante solicitação a qualquer das \
partes.

6. Dados pessoais. Os dados informados são tratados para a execução deste contrato, nos termos da \
Lei nº 13.709/2018 (LGPD). O(A) proponente pode solicitar acesso, correção ou eliminação dos seus \
dados, respeitadas as obrigações legais de guarda.

7. Assinatura eletrônica. As partes reconhecem a validade da assinatura eletrônica desta proposta \
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
    fn the_payment_clause_prints_the_days_the_billing_applies_and_no_other() {
        let rules = PaymentRules {
            grace_days: 7,
            suspension_days: 45,
            end_days: 60,
            first_instalment: FirstInstalment::Suspends,
        };
        let clause = payment_clause(&rules);
        for said in [
            "em até 7 dias do vencimento",
            "tem 15 dias, contados do recebimento",
            "nunca antes de 45 dias do vencimento",
            "cancelado 60 dias após a suspensão",
            "primeira parcela segue as regras das demais",
        ] {
            assert!(clause.contains(said), "{said}: {clause}");
        }
        assert!(!clause.contains("60 (sessenta)"));
        let default = payment_clause(&PaymentRules::default());
        assert!(default.contains("em até 5 dias") && default.contains("nunca antes de 30 dias"));
        assert!(default.contains("primeira parcela, esgotadas as tentativas de cobrança, resolve o contrato"));
        let terms = ProductTerms {
            text: None,
            payment: rules,
            term: TermPolicy::default(),
            acceptance: AcceptancePolicy::default(),
            ..ProductTerms::default()
        };
        let filled = fill(DEFAULT_TERMS, |name| rule_value(&terms, name).unwrap_or_default());
        assert_eq!(filled[3], format!("4. Pagamento. {clause}"));
        assert_eq!(rule_value(&terms, "encerramento").as_deref(), Some("60"));
        assert_eq!(rule_value(&terms, "nome"), None);
    }

    #[test]
    fn a_payroll_contracts_clause_never_ends_it_for_the_employers_failure() {
        let clause = payroll_payment_clause(&PaymentRules::default());
        assert!(
            clause.contains("primeira parcela segue as regras das demais"),
            "{clause}"
        );
        assert!(clause.contains("não repassado pelo empregador não coloca o(a) segurado(a) em atraso"));
        assert!(!clause.contains("resolve o contrato"));
    }

    #[test]
    fn the_term_clause_prints_the_products_months_and_renewal_and_never_an_indefinite_term() {
        let renewing = ProductTerms::default();
        let filled = fill(DEFAULT_TERMS, |name| rule_value(&renewing, name).unwrap_or_default());
        assert!(filled[4].contains("vigora por 12 meses"), "{}", filled[4]);
        assert!(filled[4].contains("se renova automaticamente"));
        assert!(filled[4].contains("ao menos 30 dias antes"));
        assert!(!filled[4].contains("prazo indeterminado"));
        let ending = TermPolicy {
            months: 24,
            renewal: Renewal::None,
        };
        let clause = term_clause(&ending);
        assert!(
            clause.contains("vigora por 24 meses") && clause.contains("sem renovação"),
            "{clause}"
        );
    }

    #[test]
    fn the_default_terms_use_only_known_placeholders() {
        assert_eq!(check(DEFAULT_TERMS), Ok(()));
        assert_eq!(fill(DEFAULT_TERMS, |_| "x".into()).len(), 7);
    }

    #[test]
    fn the_acceptance_clause_prints_the_products_days_and_the_laws_silence() {
        let terms = ProductTerms {
            acceptance: AcceptancePolicy::new(20, true, 1, Some(7)).unwrap_or_default(),
            ..ProductTerms::default()
        };
        let filled = fill(DEFAULT_TERMS, |name| rule_value(&terms, name).unwrap_or_default());
        let clause = &filled[2];
        assert!(clause.starts_with("3. Aceitação. "), "{clause}");
        for said in [
            "tem até 20 dias para aceitá-la ou recusá-la",
            "sem recusa nesse prazo, a proposta está aceita",
            "Lei 15.040/2024, art. 49",
            "uma única vez",
        ] {
            assert!(clause.contains(said), "{said}: {clause}");
        }
        assert!(
            !clause.contains("7 dias"),
            "the analysts' target is the insurer's own affair"
        );
        let none = acceptance_clause(&AcceptancePolicy::new(10, true, 0, None).unwrap_or_default());
        assert!(none.contains("não prevê pedido de documentos"), "{none}");
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
