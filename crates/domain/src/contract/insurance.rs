//! The insurance facts both documents print besides the proposal (issue 68, decision 280): the
//! premium split into net premium and IOF by the product's line (Decreto 6.306/2007, art. 22), the
//! product's general conditions (version, address, SHA-256, a summary of exclusions and waiting
//! periods), the intermediary with its SUSEP registration (Resolução CNSP 382/2020), the insured's
//! declarations, and the glossary Lei 15.040/2024 asks the policy to carry.

use crate::billing::DunningPolicy;
use crate::billing::arrears::{END_MIN_DAYS, FirstInstalment};
use crate::customers::CustomerSnapshot;
use crate::validation::{Violations, codes};

/// The law that sets the IOF on insurance premiums, as documents cite it.
pub const IOF_LAW: &str = "Decreto 6.306/2007, art. 22";

/// A product's line as the IOF's rates are set (Decreto 6.306/2007, art. 22, §1º): each rate in
/// hundredths of a percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InsuranceLine {
    /// Life and the like, personal accidents and work accidents (inciso II: 0,38%).
    #[default]
    Persons,
    /// Private health care (inciso III: 2,38%).
    Health,
    /// Every other line: property, liability, guarantees (inciso IV: 7,38%).
    Other,
}

impl InsuranceLine {
    pub const ALL: [InsuranceLine; 3] = [Self::Persons, Self::Health, Self::Other];

    /// How it is stored and given on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Persons => "pessoas",
            Self::Health => "saude",
            Self::Other => "demais",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|line| line.as_str() == value)
    }

    /// The IOF's rate, in hundredths of a percent (38 is 0,38%).
    pub fn iof_basis_points(self) -> u32 {
        match self {
            Self::Persons => 38,
            Self::Health => 238,
            Self::Other => 738,
        }
    }

    /// The line in words, with the decree's inciso.
    pub fn label(self) -> &'static str {
        match self {
            Self::Persons => "seguro de pessoas: vida, acidentes pessoais e do trabalho (inciso II)",
            Self::Health => "seguro privado de assistência à saúde (inciso III)",
            Self::Other => "demais operações de seguro (inciso IV)",
        }
    }
}

/// A premium as paid, split into the insurer's net premium and the IOF it collects on it. All in
/// cents; `net + iof == total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PremiumSplit {
    pub net: i64,
    pub iof: i64,
    /// Hundredths of a percent (38 is 0,38%).
    pub iof_basis_points: u32,
    pub total: i64,
}

impl PremiumSplit {
    /// The split of a premium of `total` cents, IOF included: the IOF is levied on the net
    /// premium (`total = net × (1 + rate)`), the net rounded to the nearest cent (half up) and the
    /// IOF the rest, so that the parts always add up to what is charged.
    pub fn of(total: i64, line: InsuranceLine) -> Self {
        let bp = i128::from(line.iof_basis_points());
        let total_wide = i128::from(total.max(0));
        let denominator = 10_000 + bp;
        let net = (total_wide * 10_000 * 2 + denominator) / (denominator * 2);
        let net = i64::try_from(net).unwrap_or(total);
        Self {
            net,
            iof: total.max(0) - net,
            iof_basis_points: line.iof_basis_points(),
            total: total.max(0),
        }
    }

    /// The rate as a percentage with two decimals, Brazilian style (`0,38%`).
    pub fn rate_label(&self) -> String {
        format!("{},{:02}%", self.iof_basis_points / 100, self.iof_basis_points % 100)
    }
}

/// The longest summary of exclusions or waiting periods kept, in characters.
pub const CONDITIONS_SUMMARY_MAX_CHARS: usize = 2_000;
/// The longest version label kept, in characters.
pub const CONDITIONS_VERSION_MAX_CHARS: usize = 40;
/// The longest address kept, in characters.
pub const CONDITIONS_URL_MAX_CHARS: usize = 500;

/// A product's general conditions as registered: which version, where they are read, the SHA-256
/// of that file (so that a document names exactly the text it refers to), and the summary of
/// exclusions and waiting periods every document prints (Lei 15.040/2024: risks excluded
/// described clearly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneralConditions {
    pub version: String,
    pub url: String,
    /// Lowercase hexadecimal, 64 characters.
    pub sha256: String,
    pub exclusions: String,
    pub waiting_periods: String,
}

/// General conditions as the back office gives them (`sales-api catalog conditions`), each
/// field named by its option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionsInput {
    pub version: String,
    pub url: String,
    pub sha256: String,
    pub exclusions: String,
    pub waiting_periods: String,
}

impl ConditionsInput {
    /// The conditions, checked: every text present and within its length, the address an
    /// `https://` one, the digest 64 hexadecimal characters (kept in lowercase).
    pub fn read(self) -> Result<GeneralConditions, Violations> {
        let mut v = Violations::new();
        let mut text = |option: &str, value: String, max: usize| {
            let value = value.trim().to_owned();
            if value.is_empty() {
                v.add(option, codes::REQUIRED, format!("{option} é obrigatório"));
            } else if value.chars().count() > max {
                v.add(option, codes::TOO_LONG, format!("{option} tem até {max} caracteres"));
            }
            value
        };
        let version = text("--version", self.version, CONDITIONS_VERSION_MAX_CHARS);
        let url = text("--url", self.url, CONDITIONS_URL_MAX_CHARS);
        let exclusions = text("--exclusions", self.exclusions, CONDITIONS_SUMMARY_MAX_CHARS);
        let waiting_periods = text("--waiting-periods", self.waiting_periods, CONDITIONS_SUMMARY_MAX_CHARS);
        let https = url
            .strip_prefix("https://")
            .is_some_and(|rest| !rest.is_empty() && !rest.contains(char::is_whitespace));
        if !url.is_empty() && !https {
            v.add(
                "--url",
                codes::INVALID_VALUE,
                "--url é o endereço https:// das condições gerais",
            );
        }
        let sha256 = self.sha256.trim().to_ascii_lowercase();
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            v.add(
                "--sha256",
                codes::INVALID_VALUE,
                "--sha256 é o SHA-256 do arquivo das condições gerais: 64 caracteres hexadecimais",
            );
        }
        if v.is_empty() {
            Ok(GeneralConditions {
                version,
                url,
                sha256,
                exclusions,
                waiting_periods,
            })
        } else {
            Err(v)
        }
    }
}

/// What a product's terms say of an unpaid premium: the values the billing applies to its
/// contracts (a contract keeps those of its acceptance).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaymentRules {
    /// Days after the due date an unpaid charge is tolerated before the contract is late.
    pub grace_days: u32,
    /// Days after the due date from which the cover may be suspended.
    pub suspension_days: u32,
    /// Days between the suspension and the contract's end (at least 30, art. 21).
    pub end_days: u32,
    /// What an unpaid first instalment does.
    pub first_instalment: FirstInstalment,
}

impl Default for PaymentRules {
    /// The default dunning policy's days, the law's 30 to the end, and the law's rule for the
    /// first instalment.
    fn default() -> Self {
        let policy = DunningPolicy::default();
        Self {
            grace_days: policy.grace_days,
            suspension_days: policy.suspension_days,
            end_days: END_MIN_DAYS,
            first_instalment: FirstInstalment::Ends,
        }
    }
}

/// What a product's certificate says besides the proposal: kept with the product in the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductCover {
    pub insurer: String,
    pub insurer_cnpj: String,
    /// The product's SUSEP process number (`15414.900000/2026-00`).
    pub susep_process: String,
    pub coverage: String,
    /// The insured capital, in cents.
    pub capital: i64,
    /// The monthly premium, in cents.
    pub premium: i64,
    /// The insurer's SAC (customer service) contact.
    pub sac: String,
    /// The insurer's ombudsman contact.
    pub ombudsman: String,
    /// What the product's terms say of an unpaid premium (read with the cover when a certificate
    /// is issued), printed as the proposal prints it.
    pub payment: PaymentRules,
    /// The insurer's code at SUSEP (five digits), when the back office has recorded it.
    pub insurer_susep_code: Option<String>,
    /// The product's line, which sets the IOF's rate (Decreto 6.306/2007, art. 22).
    pub line: InsuranceLine,
    /// The product's general conditions, when registered (decision 280).
    pub conditions: Option<GeneralConditions>,
    /// The policyholder and master policy of a collective product.
    pub collective: Option<CollectivePolicy>,
    /// The selling partner's SUSEP broker registration, read with the cover for the contract's
    /// partner (none for a shop sale, or when not recorded).
    pub broker_registration: Option<String>,
}

/// The longest text a cover's field keeps (characters, trimmed).
pub const COVER_TEXT_MAX_CHARS: usize = 500;

/// A cover as the back office gives it (`sales-api catalog cover`), each field named by its
/// option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoverInput {
    pub insurer: String,
    pub insurer_cnpj: String,
    pub susep_process: String,
    pub coverage: String,
    pub capital: i64,
    pub sac: String,
    pub ombudsman: String,
    /// The insurer's SUSEP code (`--insurer-susep-code`); `None` leaves the stored one.
    pub insurer_susep_code: Option<String>,
}

impl CoverInput {
    /// The cover, checked: every text present and at most [`COVER_TEXT_MAX_CHARS`], the CNPJ
    /// valid (stored as its 14 characters), the capital positive. The premium is the product's
    /// value, read when a certificate is issued (0 here).
    pub fn read(self) -> Result<ProductCover, crate::validation::Violations> {
        let mut v = crate::validation::Violations::new();
        let cnpj = crate::values::Cnpj::parse(&self.insurer_cnpj)
            .map_err(|e| v.add("--insurer-cnpj", e.code, e.message))
            .ok();
        let mut text = |option: &str, value: String| {
            let value = value.trim().to_owned();
            if value.is_empty() {
                v.add(
                    option,
                    crate::validation::codes::REQUIRED,
                    format!("{option} é obrigatório"),
                );
            } else if value.chars().count() > COVER_TEXT_MAX_CHARS {
                v.add(
                    option,
                    crate::validation::codes::TOO_LONG,
                    format!("{option} tem até {COVER_TEXT_MAX_CHARS} caracteres"),
                );
            }
            value
        };
        let insurer = text("--insurer", self.insurer);
        let susep_process = text("--susep-process", self.susep_process);
        let coverage = text("--coverage", self.coverage);
        let sac = text("--sac", self.sac);
        let ombudsman = text("--ombudsman", self.ombudsman);
        let insurer_susep_code = match self.insurer_susep_code.as_deref().map(insurer_susep_code) {
            Some(Err(message)) => {
                v.add("--insurer-susep-code", crate::validation::codes::INVALID_VALUE, message);
                None
            }
            Some(Ok(code)) => Some(code),
            None => None,
        };
        if self.capital <= 0 {
            v.add(
                "--capital",
                crate::validation::codes::INVALID_VALUE,
                "--capital é em centavos, maior que zero",
            );
        }
        match cnpj {
            Some(cnpj) if v.is_empty() => Ok(ProductCover {
                insurer,
                insurer_cnpj: cnpj.as_str().to_owned(),
                susep_process,
                coverage,
                capital: self.capital,
                premium: 0,
                sac,
                ombudsman,
                payment: Default::default(),
                insurer_susep_code,
                line: InsuranceLine::default(),
                conditions: None,
                collective: None,
                broker_registration: None,
            }),
            _ => Err(v),
        }
    }
}

/// What of a product's cover the catalog lacks, by the names of its columns' options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("o produto {product} não tem os dados do certificado: {}", missing.join(", "))]
pub struct IncompleteCover {
    pub product: i32,
    pub missing: Vec<&'static str>,
}

/// An insurer's SUSEP code: five digits (`09991`).
pub fn insurer_susep_code(value: &str) -> Result<String, String> {
    let value = value.trim();
    if value.len() == 5 && value.bytes().all(|b| b.is_ascii_digit()) {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "--insurer-susep-code é o código da seguradora na SUSEP, 5 dígitos; recebido {value:?}"
        ))
    }
}

/// A broker's SUSEP registration as kept: digits only, 5 to 20 of them (the register's numbers
/// are printed with dots and dashes; those are accepted and dropped).
pub fn broker_registration(value: &str) -> Result<String, String> {
    let digits: String = value.chars().filter(|c| !matches!(c, '.' | '-' | '/' | ' ')).collect();
    if (5..=20).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
        Ok(digits)
    } else {
        Err(format!(
            "--susep-registration é o registro do corretor na SUSEP, de 5 a 20 dígitos; recebido {value:?}"
        ))
    }
}

/// A collective product's policy as its certificates name it (Resolução CNSP 434/2021): the
/// policyholder (estipulante) and the master policy the insured joins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectivePolicy {
    pub policyholder: String,
    pub policyholder_cnpj: Option<String>,
    pub master_policy: Option<String>,
}

/// The longest master policy number kept, in characters.
pub const MASTER_POLICY_MAX_CHARS: usize = 40;

/// A collective product's policyholder CNPJ and master policy as the back office gives them
/// (`--policyholder-cnpj`, `--master-policy`), checked: the CNPJ valid (kept as its 14
/// characters), the master policy 1 to [`MASTER_POLICY_MAX_CHARS`] characters, trimmed.
pub fn master_policy(
    policyholder_cnpj: Option<&str>,
    master_policy: Option<&str>,
) -> Result<(Option<String>, Option<String>), Violations> {
    let mut v = Violations::new();
    let cnpj = match policyholder_cnpj.map(crate::values::Cnpj::parse) {
        Some(Ok(cnpj)) => Some(cnpj.as_str().to_owned()),
        Some(Err(e)) => {
            v.add("--policyholder-cnpj", e.code, e.message);
            None
        }
        None => None,
    };
    let master = master_policy.map(str::trim);
    if master.is_some_and(|m| m.is_empty() || m.chars().count() > MASTER_POLICY_MAX_CHARS) {
        v.add(
            "--master-policy",
            codes::INVALID_VALUE,
            format!("o número da apólice mestre tem de 1 a {MASTER_POLICY_MAX_CHARS} caracteres"),
        );
    }
    v.into_result().map(|()| (cnpj, master.map(str::to_owned)))
}

/// Yes or no, as a declaration's answer prints.
fn answer(yes: bool) -> &'static str {
    if yes { "Sim" } else { "Não" }
}

/// The insured's declarations of health and activity, each question with the answer given (the
/// description of the medicines included): what the insurer assessed the risk by.
pub fn health_declaration(person: &CustomerSnapshot) -> Vec<(&'static str, String)> {
    vec![
        ("Está trabalhando?", answer(person.working).to_owned()),
        (
            "Está afastado(a) do trabalho por doença ou acidente?",
            answer(person.absent).to_owned(),
        ),
        (
            "Faz uso contínuo de algum medicamento?",
            answer(person.medication).to_owned(),
        ),
        (
            "Quais medicamentos?",
            person
                .medication_description
                .as_deref()
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map_or_else(
                    || {
                        if person.medication {
                            "não informado".to_owned()
                        } else {
                            "nenhum".to_owned()
                        }
                    },
                    str::to_owned,
                ),
        ),
        ("É servidor(a) público(a)?", answer(person.public_servant).to_owned()),
        ("É pessoa exposta politicamente (PEP)?", answer(person.pep).to_owned()),
    ]
}

/// What the declaration means for the proponent, printed under the answers.
pub const DECLARATION_NOTICE: &str = "O(A) proponente declara que as respostas acima são verdadeiras e completas. A \
     seguradora avalia o risco e calcula o prêmio por elas; a omissão ou inexatidão intencional de informação \
     relevante faz perder a garantia, e a não intencional pode reduzir a indenização na proporção do prêmio \
     (Lei 15.040/2024, dever de informar do proponente).";

/// The right of regret as both documents print it: a sale outside the insurer's establishment
/// (the partner's seller or the shop) may be undone within 7 days.
pub const REGRET_CLAUSE: &str = "Esta contratação é feita fora do estabelecimento da \
     seguradora (pelo parceiro ou pela loja online); em até 7 (sete) dias corridos da contratação, o(a) \
     proponente pode desistir pelo mesmo canal, com a devolução integral do que pagou, corrigida \
     monetariamente (Código de Defesa do Consumidor, art. 49).";

/// The glossary of the terms the documents use (Lei 15.040/2024: the policy explains its
/// technical terms), in alphabetical order.
pub const GLOSSARY: &[(&str, &str)] = &[
    (
        "Aceitação tácita",
        "a proposta não recusada pela seguradora no prazo está aceita e o contrato, formado.",
    ),
    (
        "Beneficiário",
        "quem recebe o capital segurado na morte do(a) segurado(a); sem indicação, os herdeiros legais.",
    ),
    (
        "Capital segurado",
        "o valor máximo que a seguradora paga se ocorrer o risco coberto.",
    ),
    (
        "Carência",
        "o período, contado do início da vigência, em que um evento ainda não é indenizado.",
    ),
    (
        "Certificado",
        "o documento que prova a adesão do(a) segurado(a) e resume o seguro contratado.",
    ),
    (
        "Condições gerais",
        "o texto registrado na SUSEP com todas as regras do produto, coberturas e exclusões.",
    ),
    (
        "Corretor",
        "o intermediário registrado na SUSEP que apresenta a proposta à seguradora.",
    ),
    (
        "Estipulante",
        "quem contrata o seguro coletivo em favor de um grupo e representa os segurados perante a seguradora.",
    ),
    (
        "IOF",
        "o Imposto sobre Operações Financeiras, cobrado sobre o prêmio e recolhido pela seguradora.",
    ),
    ("Prêmio", "o valor pago pelo(a) segurado(a) pela garantia do seguro."),
    (
        "Proponente",
        "quem propõe o seguro e, aceita a proposta, se torna o(a) segurado(a).",
    ),
    (
        "Riscos excluídos",
        "os eventos que o seguro não cobre, descritos nas condições gerais.",
    ),
    (
        "Sinistro",
        "a ocorrência do risco coberto que dá direito à indenização.",
    ),
    ("Vigência", "o período em que o seguro cobre os riscos contratados."),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_premium_splits_into_net_and_iof_adding_up_to_what_is_charged() {
        let split = PremiumSplit::of(4990, InsuranceLine::Persons);
        assert_eq!((split.net, split.iof, split.total), (4971, 19, 4990));
        assert_eq!(split.rate_label(), "0,38%");
        let health = PremiumSplit::of(10_000, InsuranceLine::Health);
        // 10000 / 1.0238 = 9767.53… → 9768.
        assert_eq!((health.net, health.iof), (9768, 232));
        assert_eq!(health.rate_label(), "2,38%");
        let other = PremiumSplit::of(10_738, InsuranceLine::Other);
        assert_eq!((other.net, other.iof), (10_000, 738));
        for total in [0_i64, 1, 99, 4990, 123_457, 9_999_999] {
            for line in InsuranceLine::ALL {
                let split = PremiumSplit::of(total, line);
                assert_eq!(split.net + split.iof, total);
                assert!(split.iof >= 0 && split.net <= total);
            }
        }
    }

    #[test]
    fn the_lines_are_the_decrees_and_read_back_by_their_names() {
        for line in InsuranceLine::ALL {
            assert_eq!(InsuranceLine::parse(line.as_str()), Some(line));
        }
        assert_eq!(InsuranceLine::parse("odonto"), None);
        assert_eq!(InsuranceLine::default(), InsuranceLine::Persons);
    }

    #[test]
    fn general_conditions_are_checked_naming_each_option() {
        let input = ConditionsInput {
            version: " 2.1 ".into(),
            url: "https://seguradora.example/condicoes/101-v2.1.pdf".into(),
            sha256: "AB".repeat(32),
            exclusions: "Doenças preexistentes não declaradas.".into(),
            waiting_periods: "Morte natural: 30 dias.".into(),
        };
        let read = input.clone().read().unwrap();
        assert_eq!(read.version, "2.1");
        assert_eq!(read.sha256, "ab".repeat(32));
        let broken = ConditionsInput {
            url: "ftp://x".into(),
            sha256: "xyz".into(),
            exclusions: " ".into(),
            waiting_periods: "x".repeat(CONDITIONS_SUMMARY_MAX_CHARS + 1),
            ..input
        };
        assert_eq!(
            broken.read().unwrap_err().fields(),
            ["--exclusions", "--waiting-periods", "--url", "--sha256"]
        );
    }

    #[test]
    fn susep_codes_and_registrations_are_digits_of_their_lengths() {
        assert_eq!(insurer_susep_code(" 09991 ").as_deref(), Ok("09991"));
        assert!(insurer_susep_code("6785").is_err() && insurer_susep_code("0678A").is_err());
        assert_eq!(broker_registration("20.2031.234-5").as_deref(), Ok("2020312345"));
        assert!(broker_registration("1234").is_err() && broker_registration("12345X").is_err());
    }

    #[test]
    fn a_master_policy_and_its_policyholders_cnpj_are_checked_naming_each_option() {
        assert_eq!(
            master_policy(Some("12.ABC.345/01DE-35"), Some(" 93.0101.0000123 ")),
            Ok((Some("12ABC34501DE35".into()), Some("93.0101.0000123".into())))
        );
        assert_eq!(master_policy(None, None), Ok((None, None)));
        let refused = master_policy(Some("11.111.111/1111-11"), Some(&"9".repeat(41))).unwrap_err();
        assert_eq!(refused.fields(), ["--policyholder-cnpj", "--master-policy"]);
    }

    #[test]
    fn the_declaration_prints_every_answer_and_the_medicines_named() {
        let mut person = crate::testing::detail("NOVO").customer.person;
        person.medication = true;
        person.medication_description = Some("Losartana 50 mg".into());
        let lines = health_declaration(&person);
        assert!(lines.contains(&("Faz uso contínuo de algum medicamento?", "Sim".into())));
        assert!(lines.contains(&("Quais medicamentos?", "Losartana 50 mg".into())));
        person.medication_description = None;
        assert!(health_declaration(&person).contains(&("Quais medicamentos?", "não informado".into())));
        person.medication = false;
        assert!(health_declaration(&person).contains(&("Quais medicamentos?", "nenhum".into())));
    }

    #[test]
    fn the_glossary_is_in_alphabetical_order() {
        // As a dictionary orders them: accents and case aside.
        let folded = |term: &str| -> String {
            term.to_lowercase()
                .chars()
                .map(|c| match c {
                    'á' | 'à' | 'â' | 'ã' => 'a',
                    'é' | 'ê' => 'e',
                    'í' => 'i',
                    'ó' | 'ô' | 'õ' => 'o',
                    'ú' => 'u',
                    'ç' => 'c',
                    other => other,
                })
                .collect()
        };
        let terms: Vec<String> = GLOSSARY.iter().map(|(term, _)| folded(term)).collect();
        let mut sorted = terms.clone();
        sorted.sort();
        assert_eq!(terms, sorted);
    }
}
