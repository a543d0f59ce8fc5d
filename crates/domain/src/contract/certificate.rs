//! The certificate (issue 45): the document that puts the accepted contract in the customer's
//! hands, with the minimum elements of an individual certificate or policy (Resolução CNSP
//! 382/2020 and Circular SUSEP 642/2021, as the product's terms carry them): the insurer, the
//! product and its SUSEP process number, the insured, the coverage and its capital, the premium
//! and how it is paid, the start and end of cover, the right of regret, and where to complain
//! (SAC, ombudsman, consumidor.gov.br).

use crate::contract::{Block, PrintedDocument, Section, field, formats};
use crate::proposals::model::ProposalDetail;
use chrono::{DateTime, Months, NaiveDate, Utc};

/// The consumer protection platform every certificate names.
pub const CONSUMIDOR_GOV: &str = "https://www.consumidor.gov.br";

/// How long a certificate's cover runs from its start when the contract has no term recorded:
/// the default term's months.
pub const COVER_MONTHS: u32 = crate::billing::term::DEFAULT_TERM_MONTHS;

/// The certificate's number (decision 281): the product's code and its own sequence, eight
/// digits at least (`101.00000001`). Registrable: the sequence is the product's, gapless, given
/// in the acceptance's transaction and stored with the certificate; the product's code makes it
/// unique for the insurer, whose products each have their own code. Certificates of contracts
/// accepted before it keep the number decision 267 derived (`101-2026-00001234`).
pub fn certificate_number(product_code: i32, sequence: i64) -> String {
    format!("{product_code}.{sequence:08}")
}

/// The number of the certificate of a contract's term `sequence`: the first term's is its own
/// ([`certificate_number`]); each renewal's adds its term (`101.00000001-2`, decision 270).
pub fn term_certificate_number(first: &str, sequence: u32) -> String {
    if sequence <= 1 {
        first.to_owned()
    } else {
        format!("{first}-{sequence}")
    }
}

pub use crate::proposals::model::CertificateView;

/// What a certificate prints while its number is not known to the document (never, once the
/// acceptance's transaction stored it).
const NUMBER_PENDING: &str = "a atribuir";

pub use super::insurance::{COVER_TEXT_MAX_CHARS, CoverInput, IncompleteCover, ProductCover};

/// The period of cover: from the day the insurer received the proposal (its entry in analysis),
/// or the acceptance's day when that is unknown, for [`COVER_MONTHS`].
pub fn cover_period(received_at: Option<DateTime<Utc>>, accepted_at: DateTime<Utc>) -> (NaiveDate, NaiveDate) {
    let start = received_at
        .unwrap_or(accepted_at)
        .with_timezone(&formats::brasilia())
        .date_naive();
    let end = start
        .checked_add_months(Months::new(COVER_MONTHS))
        .unwrap_or(NaiveDate::MAX);
    (start, end)
}

impl PrintedDocument {
    /// The certificate of an accepted proposal.
    pub fn certificate(detail: &ProposalDetail, cover: &ProductCover, accepted_at: DateTime<Utc>) -> Self {
        let p = &detail.proposal;
        let c = &detail.customer.person;
        let received = detail.acceptance.as_ref().map(|a| a.received_at);
        // The contract's term as it stands (a renewal's certificate prints its own); a contract
        // without one recorded prints the first term's period.
        let (start, end) = match &detail.term {
            Some(term) => (term.start, term.end),
            None => cover_period(received, accepted_at),
        };
        let renewal = match detail.term.map(|t| t.renewal) {
            Some(crate::billing::term::Renewal::None) => format!(
                "sem renovação: o seguro termina em {}, com aviso ao(à) segurado(a) ao menos {} dias antes",
                formats::date(end),
                crate::billing::term::NOTICE_DAYS_BEFORE_END
            ),
            _ => format!(
                "automática, por igual período, com aviso ao(à) segurado(a) ao menos {} dias antes do fim da \
                 vigência; o(a) segurado(a) pode cancelar a qualquer tempo",
                crate::billing::term::NOTICE_DAYS_BEFORE_END
            ),
        };
        let payment = match &detail.payment {
            Some(pay) => format!("{}, mensal", pay.payment_type.as_str()),
            None => "cartão de crédito, mensal, na plataforma de pagamento".to_owned(),
        };
        let insured_name = c.social_name.clone().unwrap_or_else(|| c.full_name.clone());
        let mut sections = vec![Section {
            heading: "Seguradora".to_owned(),
            blocks: vec![
                field("Nome", cover.insurer.clone()),
                field("CNPJ", formats::cnpj(&cover.insurer_cnpj)),
                field(
                    "Código SUSEP",
                    cover
                        .insurer_susep_code
                        .clone()
                        .unwrap_or_else(|| "não informado".to_owned()),
                ),
                field(
                    "Produto",
                    format!("{} (código {})", detail.product_name, detail.product_code),
                ),
                field("Processo SUSEP", cover.susep_process.clone()),
            ],
        }];
        // A collective product's certificate names the policy the insured joined (Resolução CNSP
        // 434/2021).
        if let Some(collective) = &cover.collective {
            sections.push(Section {
                heading: "Seguro coletivo".to_owned(),
                blocks: vec![
                    field(
                        "Estipulante",
                        match &collective.policyholder_cnpj {
                            Some(cnpj) => format!("{}, CNPJ {}", collective.policyholder, formats::cnpj(cnpj)),
                            None => collective.policyholder.clone(),
                        },
                    ),
                    field(
                        "Apólice mestre",
                        collective
                            .master_policy
                            .clone()
                            .unwrap_or_else(|| "não informada".to_owned()),
                    ),
                ],
            });
        }
        sections.extend([
            Section {
                heading: "Segurado".to_owned(),
                blocks: vec![
                    field("Nome", insured_name),
                    field("CPF", formats::cpf(&c.cpf)),
                    field("Proposta", p.identifier.clone()),
                    field(
                        "Certificado nº",
                        detail
                            .certificate
                            .as_ref()
                            .map_or_else(|| NUMBER_PENDING.to_owned(), |c| c.number.clone()),
                    ),
                ],
            },
            super::beneficiaries_section(detail),
            super::intermediary_section(detail, cover.broker_registration.as_deref()),
            Section {
                heading: "Cobertura".to_owned(),
                blocks: vec![
                    field("Cobertura", cover.coverage.clone()),
                    field("Capital segurado", formats::reais(cover.capital)),
                    field("Início da vigência", formats::date(start)),
                    field("Fim da vigência", formats::date(end)),
                    field("Renovação", renewal),
                    field("Aceita em", formats::instant(accepted_at)),
                ],
            },
            Section {
                heading: "Prêmio".to_owned(),
                blocks: super::premium_fields(super::contract_premium(detail, cover.premium), cover.line)
                    .into_iter()
                    .chain([field("Forma de pagamento", payment)])
                    .chain([Block::Paragraph(
                        if detail
                            .payment
                            .as_ref()
                            .is_some_and(|p| p.payment_type == crate::values::PaymentType::PayrollDiscount)
                        {
                            super::terms::payroll_payment_clause(&cover.payment)
                        } else {
                            super::terms::payment_clause(&cover.payment)
                        },
                    )])
                    .collect(),
            },
            super::conditions_section(cover.conditions.as_ref()),
            Section {
                heading: "Seus direitos".to_owned(),
                blocks: vec![
                    Block::Paragraph(
                        "Direito de arrependimento: em até 7 (sete) dias corridos da contratação, você pode desistir \
                         do seguro pelo mesmo canal em que o contratou, com a devolução integral do que pagou, \
                         corrigida monetariamente (Código de Defesa do Consumidor, art. 49)."
                            .to_owned(),
                    ),
                    Block::Paragraph(
                        "Cancelamento: a qualquer tempo, pelo canal em que contratou; a parte não usada do período \
                         pago é devolvida, proporcional aos dias e corrigida pelo IPCA."
                            .to_owned(),
                    ),
                    field("SAC", cover.sac.clone()),
                    field("Ouvidoria", cover.ombudsman.clone()),
                    field("Consumidor.gov.br", CONSUMIDOR_GOV),
                    Block::Paragraph(
                        "A aceitação do seguro está sujeita às condições gerais do produto, registradas na SUSEP \
                         sob o processo indicado; o registro do produto na SUSEP não implica, por parte da \
                         autarquia, incentivo ou recomendação à sua comercialização."
                            .to_owned(),
                    ),
                ],
            },
            super::glossary_section(),
            super::template_section(super::templates::Template::Certificate),
        ]);
        Self {
            title: "Certificado de seguro".to_owned(),
            reference: format!("Certificado · proposta {} · {}", p.identifier, detail.product_name),
            watermark: None,
            sections,
        }
    }

    /// The certificate of a contract that has ended, as it is served afterwards: marked ended on
    /// every page, and opened by when and why it ended and which issued certificate it copies
    /// (that one's SHA-256), so that nobody reads cover into it past its end.
    pub fn ended_certificate(mut self, ended: &ContractEnded, issued_sha256: &str) -> Self {
        let day = formats::date(crate::billing::brasilia_day(ended.at));
        self.watermark = Some(super::Watermark {
            mark: "ENCERRADO".to_owned(),
            footer: format!("CONTRATO ENCERRADO EM {day} — sem cobertura a partir do encerramento"),
        });
        self.title = "Certificado de seguro (contrato encerrado)".to_owned();
        self.sections.insert(
            0,
            Section {
                heading: "Situação do contrato".to_owned(),
                blocks: vec![
                    field("Encerrado em", formats::instant(ended.at)),
                    field("Motivo", end_reason(ended.reason.as_deref())),
                    Block::Paragraph(format!(
                        "Este certificado comprova a cobertura apenas até o encerramento do contrato; não há \
                         cobertura para fatos ocorridos a partir de {day}. É a cópia do certificado emitido, \
                         cujo SHA-256 é:"
                    )),
                    Block::Paragraph(issued_sha256.to_owned()),
                ],
            },
        );
        self
    }
}

/// When and why an accepted contract ended (its status move to `CANCELADO`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractEnded {
    pub at: DateTime<Utc>,
    /// The move's reason as recorded: a code of the service's own, or the requester's words.
    pub reason: Option<String>,
}

/// Why a contract ended, in words: the service's own ends by what the law or the product says;
/// any other end as a cancellation, without the requester's words (the seller reads the
/// certificate too, and a reason may hold what only the customer and the insurer should see).
fn end_reason(reason: Option<&str>) -> String {
    match reason {
        Some(crate::billing::arrears::DEFAULT_REASON) => {
            "falta de pagamento do prêmio, após os avisos da lei (Lei 15.040/2024, arts. 20 e 21)".to_owned()
        }
        Some(crate::billing::term::TERM_END_REASON) => "fim da vigência, sem renovação".to_owned(),
        Some(crate::proposals::regret::WITHDRAWAL_REASON) => {
            "direito de arrependimento (Código de Defesa do Consumidor, art. 49): o que foi pago foi devolvido"
                .to_owned()
        }
        _ => "cancelamento do contrato".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::insurance::InsuranceLine;
    use chrono::TimeZone;

    fn cover() -> ProductCover {
        ProductCover {
            insurer: "Seguradora Exemplo S.A.".into(),
            insurer_cnpj: "11222333000181".into(),
            susep_process: "15414.900001/2026-11".into(),
            coverage: "Morte por qualquer causa".into(),
            capital: 5_000_000,
            premium: 4990,
            sac: "0800 000 0001".into(),
            ombudsman: "0800 000 0002".into(),
            payment: super::super::terms::PaymentRules {
                grace_days: 7,
                suspension_days: 40,
                end_days: 45,
                first_instalment: crate::billing::arrears::FirstInstalment::Ends,
            },
            insurer_susep_code: Some("09991".into()),
            line: InsuranceLine::Persons,
            conditions: None,
            collective: None,
            broker_registration: Some("202031234".into()),
        }
    }

    #[test]
    fn the_certificate_holds_every_minimum_element() {
        let accepted = Utc.with_ymd_and_hms(2026, 11, 28, 15, 0, 0).unwrap();
        let detail = crate::testing::detail("APROVADO");
        let texts = PrintedDocument::certificate(&detail, &cover(), accepted)
            .texts()
            .join("\n");
        for needle in [
            "Certificado de seguro",
            "Seguradora Exemplo S.A.",
            "11.222.333/0001-81",
            "15414.900001/2026-11",
            "Morte por qualquer causa",
            "R$ 50.000,00",
            "R$ 49,90",
            "28/11/2026",
            "28/11/2027",
            "arrependimento",
            "0800 000 0001",
            "0800 000 0002",
            CONSUMIDOR_GOV,
            "101.00000042",
            // The lateness clause, with the product's own days (issue 67).
            "em até 7 dias do vencimento",
            "nunca antes de 40 dias do vencimento",
            "cancelado 45 dias após a suspensão",
        ] {
            assert!(texts.contains(needle), "{needle} missing from:\n{texts}");
        }
    }

    #[test]
    fn a_renewed_terms_certificate_prints_its_own_period_number_and_renewal() {
        use crate::billing::term::{ContractTerm, Renewal};
        let accepted = Utc.with_ymd_and_hms(2026, 11, 28, 15, 0, 0).unwrap();
        let mut detail = crate::testing::detail("APROVADO");
        detail.term = Some(ContractTerm {
            sequence: 2,
            start: NaiveDate::from_ymd_opt(2027, 11, 28).unwrap(),
            end: NaiveDate::from_ymd_opt(2028, 11, 28).unwrap(),
            renewal: Renewal::Automatic,
            renewed_at: Some(Utc.with_ymd_and_hms(2027, 11, 28, 12, 0, 0).unwrap()),
        });
        // The renewal's certificate, as the renewal stored it.
        detail.certificate = Some(CertificateView {
            number: term_certificate_number("101.00000042", 2),
            issued_at: None,
            sha256: None,
        });
        let texts = PrintedDocument::certificate(&detail, &cover(), accepted)
            .texts()
            .join("\n");
        assert!(texts.contains("Certificado nº\n101.00000042-2"), "{texts}");
        assert!(texts.contains("28/11/2027") && texts.contains("28/11/2028"));
        assert!(texts.contains("automática, por igual período"));
        detail.term = detail.term.map(|t| ContractTerm {
            renewal: Renewal::None,
            ..t
        });
        let texts = PrintedDocument::certificate(&detail, &cover(), accepted)
            .texts()
            .join("\n");
        assert!(
            texts.contains("sem renovação: o seguro termina em 28/11/2028"),
            "{texts}"
        );
    }

    #[test]
    fn the_certificates_number_is_the_products_code_and_its_sequence_a_renewal_adding_its_term() {
        assert_eq!(certificate_number(101, 1), "101.00000001");
        assert_eq!(certificate_number(7, 123_456_789), "7.123456789");
        assert_eq!(term_certificate_number("101.00000001", 1), "101.00000001");
        assert_eq!(term_certificate_number("101.00000001", 3), "101.00000001-3");
        // A contract accepted before decision 281 keeps its derived number, renewals included.
        assert_eq!(term_certificate_number("101-2026-00001234", 2), "101-2026-00001234-2");
    }

    #[test]
    fn a_certificate_without_its_number_in_the_document_says_it_is_to_be_given() {
        let accepted = Utc.with_ymd_and_hms(2026, 11, 28, 15, 0, 0).unwrap();
        let mut detail = crate::testing::detail("APROVADO");
        detail.certificate = None;
        let texts = PrintedDocument::certificate(&detail, &cover(), accepted)
            .texts()
            .join("\n");
        assert!(texts.contains("Certificado nº\na atribuir"), "{texts}");
    }

    #[test]
    fn a_cover_is_read_checked_naming_each_option() {
        let input = CoverInput {
            insurer: " Seguradora Exemplo S.A. ".into(),
            insurer_cnpj: "11.444.777/0001-61".into(),
            susep_process: "15414.900101/2026-01".into(),
            coverage: "Morte".into(),
            capital: 100,
            sac: "0800".into(),
            ombudsman: "0800".into(),
            insurer_susep_code: None,
        };
        let cover = input.clone().read().unwrap();
        assert_eq!(
            (cover.insurer.as_str(), cover.insurer_cnpj.as_str()),
            ("Seguradora Exemplo S.A.", "11444777000161")
        );
        let broken = CoverInput {
            insurer_cnpj: "11.444.777/0001-00".into(),
            coverage: " ".into(),
            capital: 0,
            sac: "x".repeat(501),
            ..input
        };
        assert_eq!(
            broken.read().unwrap_err().fields(),
            ["--insurer-cnpj", "--coverage", "--sac", "--capital"]
        );
    }

    #[test]
    fn cover_runs_a_year_from_the_proposals_receipt() {
        let received = Utc.with_ymd_and_hms(2026, 11, 10, 2, 0, 0).unwrap();
        let accepted = Utc.with_ymd_and_hms(2026, 11, 20, 12, 0, 0).unwrap();
        // 02:00 UTC on the 10th is the 9th in Brasília.
        assert_eq!(
            cover_period(Some(received), accepted),
            (
                NaiveDate::from_ymd_opt(2026, 11, 9).unwrap(),
                NaiveDate::from_ymd_opt(2027, 11, 9).unwrap()
            )
        );
        assert_eq!(
            cover_period(None, accepted).0,
            NaiveDate::from_ymd_opt(2026, 11, 20).unwrap()
        );
    }
}
