//! What the documents of a proposal say: the contract the parties sign and the evidence page added
//! after they signed. The domain decides the content (which facts, in which words and formats, the
//! product's terms filled in); a [`DocumentRenderer`] (the port) lays it out on pages.

pub mod certificate;
pub mod evidence;
pub mod formats;
pub mod insurance;
pub mod templates;
pub mod terms;

use crate::proposals::model::ProposalDetail;
use crate::values::ShippingType;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("falha ao gerar o documento da proposta: {0}")]
pub struct RenderError(pub String);

/// Lays documents out as PDF.
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait DocumentRenderer: Send + Sync {
    fn render(&self, document: &PrintedDocument) -> Result<Vec<u8>, RenderError>;
    /// The pages of `pdf`, unchanged, followed by `appendix`'s.
    fn append(&self, pdf: &[u8], appendix: &PrintedDocument) -> Result<Vec<u8>, RenderError>;
    fn page_count(&self, pdf: &[u8]) -> Result<usize, RenderError>;
}

/// A document's content, in reading order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedDocument {
    /// The first page's heading.
    pub title: String,
    /// What each page's header names (the proposal and product).
    pub reference: String,
    /// Printed across every page: a draft is marked as one, an ended contract's certificate as
    /// ended.
    pub watermark: Option<Watermark>,
    pub sections: Vec<Section>,
}

/// A mark across every page and, at each page's foot, what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watermark {
    /// One word, across the page (`RASCUNHO`).
    pub mark: String,
    /// At the foot of each page.
    pub footer: String,
}

impl Watermark {
    /// A draft's: no contract's worth.
    pub fn draft() -> Self {
        Self {
            mark: DRAFT_WATERMARK.to_owned(),
            footer: format!("{DRAFT_WATERMARK} — sem valor de contrato"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub heading: String,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A labelled value (`CPF: 123.456.789-09`); a long value wraps under its label.
    Field {
        label: String,
        value: String,
    },
    Paragraph(String),
}

/// Whether a contract is rendered to be sent for signature or only to be looked at before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Draft,
    ForSignature,
}

pub const DRAFT_WATERMARK: &str = "RASCUNHO";

/// The heading of the privacy notice's section.
const NOTICE_HEADING: &str = "Aviso de privacidade";

pub(crate) fn field(label: &str, value: impl Into<String>) -> Block {
    Block::Field {
        label: label.to_owned(),
        value: value.into(),
    }
}

fn or_dash(value: Option<&String>) -> String {
    value
        .filter(|v| !v.trim().is_empty())
        .cloned()
        .unwrap_or_else(|| "—".to_owned())
}

fn named(name: Option<&String>, document: Option<&String>) -> String {
    match (name, document) {
        (Some(name), Some(doc)) => format!("{name}, CNPJ {}", formats::cnpj(doc)),
        (Some(name), None) => name.clone(),
        (None, Some(doc)) => format!("CNPJ {}", formats::cnpj(doc)),
        (None, None) => "—".to_owned(),
    }
}

/// The beneficiaries named in the proposal, numbered, or the legal heirs' rule (decision 279):
/// printed on the proposal and on the certificate.
pub(crate) fn beneficiaries_section(detail: &ProposalDetail) -> Section {
    let lines = crate::proposals::beneficiaries::printed(&detail.beneficiaries);
    let blocks = if detail.beneficiaries.is_empty() {
        lines.into_iter().map(Block::Paragraph).collect()
    } else {
        lines
            .into_iter()
            .enumerate()
            .map(|(i, line)| field(&format!("{}º", i + 1), line))
            .collect()
    };
    Section {
        heading: "Beneficiários".to_owned(),
        blocks,
    }
}

/// The premium a contract is printed with: the proposal's own value (route 5 keeps the product's
/// price at the sale), or, for a shop sale (whose `valor` is 0, as the interface shows it), the
/// product's premium its subscription charges.
pub fn contract_premium(detail: &ProposalDetail, product_premium: i64) -> i64 {
    if detail.proposal.value > 0 {
        detail.proposal.value
    } else {
        product_premium
    }
}

/// The premium split into net premium and IOF (decision 280), as both documents print it.
pub(crate) fn premium_fields(total: i64, line: insurance::InsuranceLine) -> Vec<Block> {
    let split = insurance::PremiumSplit::of(total, line);
    vec![
        field("Prêmio líquido", formats::reais(split.net)),
        field(&format!("IOF ({})", split.rate_label()), formats::reais(split.iof)),
        field("Prêmio total (mensal)", formats::reais(split.total)),
        field("Ramo (IOF)", format!("{}; {}", line.label(), insurance::IOF_LAW)),
    ]
}

/// The insurer and what it covers, when the catalog has them; each missing value a dash.
pub(crate) fn insurer_fields(detail: &ProposalDetail, cover: Option<&certificate::ProductCover>) -> Vec<Block> {
    let dash = || "—".to_owned();
    vec![
        field("Seguradora", cover.map_or_else(dash, |c| c.insurer.clone())),
        field("CNPJ", cover.map_or_else(dash, |c| formats::cnpj(&c.insurer_cnpj))),
        field(
            "Código SUSEP",
            cover
                .and_then(|c| c.insurer_susep_code.clone())
                .unwrap_or_else(|| "não informado".to_owned()),
        ),
        field(
            "Produto",
            format!("{} (código {})", detail.product_name, detail.product_code),
        ),
        field("Processo SUSEP", cover.map_or_else(dash, |c| c.susep_process.clone())),
        field("Cobertura", cover.map_or_else(dash, |c| c.coverage.clone())),
        field(
            "Capital segurado",
            cover.map_or_else(dash, |c| formats::reais(c.capital)),
        ),
    ]
}

/// Who intermediates the sale (Resolução CNSP 382/2020): the partner with its SUSEP broker
/// registration, or the shop's direct sale.
pub(crate) fn intermediary_section(detail: &ProposalDetail, registration: Option<&str>) -> Section {
    let blocks = match &detail.partner {
        Some(partner) => vec![
            field(
                "Corretor(a)",
                named(Some(&partner.social_reason), Some(&partner.document)),
            ),
            field(
                "Registro SUSEP",
                registration.map_or_else(|| "não informado".to_owned(), str::to_owned),
            ),
        ],
        None => vec![Block::Paragraph(
            "Contratação direta com a seguradora, pela loja online, sem corretor.".to_owned(),
        )],
    };
    Section {
        heading: "Intermediação".to_owned(),
        blocks,
    }
}

/// The product's general conditions (decision 280): version, address, digest, and the summary
/// of exclusions and waiting periods.
pub(crate) fn conditions_section(conditions: Option<&insurance::GeneralConditions>) -> Section {
    let blocks = match conditions {
        Some(c) => vec![
            field("Versão", c.version.clone()),
            field("Endereço", c.url.clone()),
            field("SHA-256", "(hexadecimal, abaixo)"),
            Block::Paragraph(c.sha256.clone()),
            field("Riscos excluídos", c.exclusions.clone()),
            field("Carências", c.waiting_periods.clone()),
            Block::Paragraph(
                "As condições gerais registradas na SUSEP regem este seguro; o resumo acima não as \
                 substitui, e na dúvida prevalece a interpretação mais favorável ao(à) segurado(a)."
                    .to_owned(),
            ),
        ],
        None => vec![Block::Paragraph(
            "As condições gerais deste produto ainda não foram registradas no catálogo; peça-as à \
             seguradora pelo SAC antes de assinar."
                .to_owned(),
        )],
    };
    Section {
        heading: "Condições gerais".to_owned(),
        blocks,
    }
}

/// The glossary of the terms the documents use.
/// Which template printed the document: its version and SHA-256, also recorded with the document
/// (decision 282).
pub(crate) fn template_section(template: templates::Template) -> Section {
    Section {
        heading: "Modelo do documento".to_owned(),
        blocks: vec![
            field(
                "Modelo",
                format!("{}, versão {}", template.as_str(), templates::TEMPLATES_VERSION),
            ),
            field("SHA-256 do modelo", "(hexadecimal, abaixo)"),
            // On a line of its own, as the notice's digest.
            Block::Paragraph(template.sha256().to_owned()),
        ],
    }
}

pub(crate) fn glossary_section() -> Section {
    Section {
        heading: "Glossário".to_owned(),
        blocks: insurance::GLOSSARY
            .iter()
            .map(|(term, meaning)| Block::Paragraph(format!("{term}: {meaning}")))
            .collect(),
    }
}

/// The customer's address on one line: `Rua X, 100, apto 2 - Bairro, Cidade/UF - CEP 00000-000`.
pub fn address_line(detail: &ProposalDetail) -> String {
    match &detail.address {
        Some(a) => {
            let complement = a
                .complement
                .as_deref()
                .filter(|c| !c.trim().is_empty())
                .map(|c| format!(", {c}"))
                .unwrap_or_default();
            format!(
                "{}, {}{complement} - {}, {}/{} - CEP {}",
                a.street,
                a.number,
                a.neighborhood,
                a.city,
                a.state,
                formats::cep(&a.cep)
            )
        }
        None => "—".to_owned(),
    }
}

/// A placeholder's value for this proposal under its product's rules (see [`terms::PLACEHOLDERS`]).
fn placeholder(detail: &ProposalDetail, product: &terms::ProductTerms, name: &str) -> String {
    let payroll = detail
        .payment
        .as_ref()
        .is_some_and(|p| p.payment_type == crate::values::PaymentType::PayrollDiscount);
    if name == "pagamento" && payroll {
        return terms::payroll_payment_clause(&product.payment);
    }
    if let Some(value) = terms::rule_value(product, name) {
        return value;
    }
    let partner = detail.partner.as_ref();
    match name {
        "nome" => detail.customer.person.full_name.clone(),
        "cpf" => formats::cpf(&detail.customer.person.cpf),
        "nascimento" => formats::date(detail.customer.person.birth_date),
        "endereco" => address_line(detail),
        "produto" => detail.product_name.clone(),
        "valor" => formats::reais(contract_premium(detail, product.premium)),
        "identificador" => detail.proposal.identifier.clone(),
        "data" => formats::date(
            detail
                .proposal
                .stamp
                .created_at
                .with_timezone(&formats::brasilia())
                .date_naive(),
        ),
        "parceiro" => partner.map_or_else(|| "—".into(), |p| named(Some(&p.social_reason), Some(&p.document))),
        "associacao" => named(
            partner.and_then(|p| p.association_name.as_ref()),
            partner.and_then(|p| p.association_cnpj.as_ref()),
        ),
        "federacao" => named(
            partner.and_then(|p| p.federation_name.as_ref()),
            partner.and_then(|p| p.federation_cnpj.as_ref()),
        ),
        "empresa" => named(
            partner.and_then(|p| p.company_social_reason.as_ref()),
            partner.and_then(|p| p.company_cnpj.as_ref()),
        ),
        "partes" => match partner {
            Some(p) => format!(
                "Assinam esta proposta, além do(a) proponente, a associação {}, a federação {} e a empresa {}, \
                 por intermédio do parceiro {}.",
                named(p.association_name.as_ref(), p.association_cnpj.as_ref()),
                named(p.federation_name.as_ref(), p.federation_cnpj.as_ref()),
                named(p.company_social_reason.as_ref(), p.company_cnpj.as_ref()),
                named(Some(&p.social_reason), Some(&p.document)),
            ),
            None => format!(
                "Contratam o(a) proponente e a seguradora {}, pela loja online, sem intermediário; o(a) \
                 proponente adere pelo pagamento, e a seguradora, pela aceitação da proposta.",
                product.cover.as_ref().map_or_else(
                    || "indicada nas condições gerais".to_owned(),
                    |c| { named(Some(&c.insurer), Some(&c.insurer_cnpj)) }
                )
            ),
        },
        // `terms::check` refuses unknown names on the way in; an old text prints the name.
        other => format!("{{{{{other}}}}}"),
    }
}

/// How the proposal's `tipo_envio` is named in documents (the client's channel).
pub fn channel_label(shipping: ShippingType) -> &'static str {
    match shipping {
        ShippingType::Whatsapp => "WhatsApp",
        ShippingType::Sms => "SMS",
    }
}

impl PrintedDocument {
    /// The contract of a proposal: its facts, its parties and its product's terms (its text, or
    /// the default terms, with its payment rules). The proposal's status is not part of it (it
    /// changes; what was agreed does not).
    pub fn contract(detail: &ProposalDetail, product: &terms::ProductTerms, stage: Stage) -> Self {
        let p = &detail.proposal;
        let c = &detail.customer.person;
        let created = p.stamp.created_at.with_timezone(&formats::brasilia()).date_naive();
        let mut proposal = vec![
            field("Identificador", p.identifier.clone()),
            field(
                "Produto",
                format!("{} (código {})", detail.product_name, detail.product_code),
            ),
            field("Valor", formats::reais(contract_premium(detail, product.premium))),
            field("Data da proposta", formats::date(created)),
            field("Envio do link de assinatura", channel_label(p.shipping)),
        ];
        if let Some(representative) = &detail.representative {
            proposal.push(field(
                "Representante",
                representative
                    .name
                    .clone()
                    .unwrap_or_else(|| representative.email.clone()),
            ));
        }
        let mut customer: Vec<_> = c
            .identification()
            .into_iter()
            .map(|(label, value)| field(label, value))
            .collect();
        customer.push(field("E-mail", or_dash(c.email.as_ref())));
        customer.push(field(
            "Celular",
            c.cell_phone.as_deref().map_or_else(|| "—".into(), formats::phone),
        ));
        if let Some(landline) = c.landline.as_deref().filter(|l| !l.is_empty()) {
            customer.push(field("Telefone fixo", formats::phone(landline)));
        }
        customer.push(field("Endereço", address_line(detail)));
        let payment = match &detail.payment {
            Some(pay) => {
                let mut blocks = vec![field("Forma", pay.payment_type.as_str())];
                if let Some(bank) = &pay.bank {
                    blocks.push(field(
                        "Conta",
                        format!(
                            "banco {bank}, agência {}, conta {}",
                            or_dash(pay.agency.as_ref()),
                            or_dash(pay.account.as_ref())
                        ),
                    ));
                }
                if let Some(number) = &pay.sheet_number {
                    blocks.push(field(
                        "Folha",
                        format!(
                            "{} nº {number}, espécie {}",
                            pay.sheet_type.map_or("—", |t| t.as_str()),
                            pay.specie.map_or_else(|| "—".into(), |s| s.to_string())
                        ),
                    ));
                }
                blocks
            }
            // The shop's sale: when its premium is collected, and its provisional cover when it
            // is collected at the sale (decision 271).
            None => vec![
                field("Forma", "assinatura recorrente (e-commerce)"),
                field(
                    "Cobrança",
                    crate::premium_collection::collection_clause(
                        product.collection,
                        detail.acceptance.as_ref().and_then(|a| a.provisional_cover.as_ref()),
                    ),
                ),
            ],
        };
        let partner = detail.partner.as_ref();
        let mut parties = vec![field(
            "Cliente",
            format!("{}, CPF {}", c.full_name, formats::cpf(&c.cpf)),
        )];
        if let Some(cover) = &product.cover {
            parties.push(field(
                "Seguradora",
                named(Some(&cover.insurer), Some(&cover.insurer_cnpj)),
            ));
        }
        if let Some(partner) = partner {
            parties.push(field(
                "Associação",
                named(partner.association_name.as_ref(), partner.association_cnpj.as_ref()),
            ));
            parties.push(field(
                "Federação",
                named(partner.federation_name.as_ref(), partner.federation_cnpj.as_ref()),
            ));
            parties.push(field(
                "Empresa",
                named(partner.company_social_reason.as_ref(), partner.company_cnpj.as_ref()),
            ));
            parties.push(field(
                "Parceiro",
                named(Some(&partner.social_reason), Some(&partner.document)),
            ));
        }
        let template = product.text.as_deref().unwrap_or(terms::DEFAULT_TERMS);
        let mut conditions: Vec<Block> = terms::fill(template, |name| placeholder(detail, product, name))
            .into_iter()
            .map(Block::Paragraph)
            .collect();
        conditions.push(Block::Paragraph(
            "E, por estarem de acordo, as partes assinam eletronicamente esta proposta.".to_owned(),
        ));
        let mut sections = Vec::new();
        if stage == Stage::Draft {
            sections.push(Section {
                heading: "Rascunho".to_owned(),
                blocks: vec![Block::Paragraph(
                    "Este documento é um rascunho, sem valor de contrato: mostra a proposta como está \
                     agora. O documento a assinar é gerado e selado quando a proposta é enviada para \
                     assinatura."
                        .to_owned(),
                )],
            });
        }
        sections.extend([
            Section {
                heading: "Proposta".to_owned(),
                blocks: proposal,
            },
            Section {
                heading: "Cliente".to_owned(),
                blocks: customer,
            },
            Section {
                heading: "Declaração pessoal de saúde e atividade".to_owned(),
                // Each question on its own line with its answer: a question is longer than a
                // label's column.
                blocks: insurance::health_declaration(c)
                    .into_iter()
                    .map(|(question, answer)| Block::Paragraph(format!("{question} {answer}")))
                    .chain([Block::Paragraph(insurance::DECLARATION_NOTICE.to_owned())])
                    .collect(),
            },
            Section {
                heading: "Seguro".to_owned(),
                blocks: insurer_fields(detail, product.cover.as_ref())
                    .into_iter()
                    .chain(premium_fields(contract_premium(detail, product.premium), product.line))
                    .chain([field(
                        "Prazo de aceitação",
                        format!(
                            "{} dias do recebimento da proposta pela seguradora; sem recusa no prazo, a proposta \
                             está aceita (aceitação tácita)",
                            product.acceptance.days
                        ),
                    )])
                    .collect(),
            },
            Section {
                heading: "Pagamento".to_owned(),
                blocks: payment,
            },
            Section {
                heading: "Partes".to_owned(),
                blocks: parties,
            },
            intermediary_section(detail, product.broker_registration.as_deref()),
            beneficiaries_section(detail),
            conditions_section(product.cover.as_ref().and_then(|c| c.conditions.as_ref())),
            Section {
                heading: "Direito de arrependimento".to_owned(),
                blocks: vec![Block::Paragraph(insurance::REGRET_CLAUSE.to_owned())],
            },
            // The notice in force, printed whole before the conditions the parties sign: what
            // the customer signs is what they were shown (LGPD art. 9); its version and digest
            // are recorded with the seal.
            Section {
                heading: NOTICE_HEADING.to_owned(),
                blocks: [
                    field("Versão", crate::privacy::notice::NOTICE_VERSION),
                    field("SHA-256 do aviso", "(hexadecimal, abaixo)"),
                    // On a line of its own: the digest is one word, wider than a value's column.
                    Block::Paragraph(crate::privacy::notice::notice_sha256()),
                ]
                .into_iter()
                .chain(crate::privacy::notice::notice_paragraphs().map(|p| Block::Paragraph(p.to_owned())))
                .collect(),
            },
            Section {
                heading: "Condições".to_owned(),
                blocks: conditions,
            },
            glossary_section(),
            template_section(templates::Template::Proposal),
        ]);
        Self {
            title: "Proposta de adesão".to_owned(),
            reference: format!("Proposta {} · {}", p.identifier, detail.product_name),
            watermark: (stage == Stage::Draft).then(Watermark::draft),
            sections,
        }
    }

    /// The notice's section completed with who answers for the person's data: the controller,
    /// the encarregado and the transfer abroad (LGPD arts. 9, 33 and 41; decision 286). A document
    /// without the notice is left as it is.
    pub fn naming_who_answers(mut self, contacts: &crate::privacy::notice::PrivacyContacts) -> Self {
        if let Some(notice) = self.sections.iter_mut().find(|s| s.heading == NOTICE_HEADING) {
            notice
                .blocks
                .extend(contacts.lines().into_iter().map(|(label, value)| field(label, value)));
        }
        self
    }

    /// Every piece of text, in order (for tests and for checking a rendering holds all of it).
    pub fn texts(&self) -> Vec<String> {
        let mut out = vec![self.reference.clone(), self.title.clone()];
        for section in &self.sections {
            out.push(section.heading.clone());
            for block in &section.blocks {
                match block {
                    Block::Field { label, value } => {
                        out.push(label.clone());
                        out.push(value.clone());
                    }
                    Block::Paragraph(text) => out.push(text.clone()),
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::insurance::{GeneralConditions, InsuranceLine};

    fn cover() -> certificate::ProductCover {
        certificate::ProductCover {
            insurer: "Seguradora Exemplo S.A.".into(),
            insurer_cnpj: "11444777000161".into(),
            susep_process: "15414.900101/2026-01".into(),
            coverage: "Morte por qualquer causa".into(),
            capital: 5_000_000,
            premium: 4990,
            sac: "0800".into(),
            ombudsman: "0800".into(),
            payment: Default::default(),
            insurer_susep_code: Some("09991".into()),
            line: InsuranceLine::Persons,
            conditions: Some(GeneralConditions {
                version: "2.1".into(),
                url: "https://seguradora.example/c.pdf".into(),
                sha256: "ab".repeat(32),
                exclusions: "Doença preexistente não declarada.".into(),
                waiting_periods: "Morte natural: 60 dias.".into(),
            }),
            collective: None,
            broker_registration: Some("100000001".into()),
        }
    }

    fn terms() -> terms::ProductTerms {
        terms::ProductTerms {
            premium: 4990,
            broker_registration: Some("100000001".into()),
            cover: Some(cover()),
            ..Default::default()
        }
    }

    #[test]
    fn the_proposal_prints_the_declaration_the_insurer_the_premium_split_the_broker_and_the_conditions() {
        let mut detail = crate::testing::detail("NOVO");
        detail.proposal.value = 4990;
        detail.customer.person.medication = true;
        detail.customer.person.medication_description = Some("Losartana 50 mg".into());
        detail.partner = Some(crate::proposals::model::PartnerView {
            document: "11222333000181".into(),
            fantasy_name: None,
            social_reason: "Corretora Exemplo Ltda".into(),
            stamp: detail.proposal.stamp.clone(),
            company_cnpj: None,
            company_fantasy_name: None,
            company_social_reason: None,
            association_cnpj: None,
            association_name: None,
            federation_cnpj: None,
            federation_name: None,
        });
        let text = PrintedDocument::contract(&detail, &terms(), Stage::ForSignature)
            .texts()
            .join("\n");
        for said in [
            "Declaração pessoal de saúde e atividade",
            "Faz uso contínuo de algum medicamento? Sim",
            "Quais medicamentos? Losartana 50 mg",
            "Código SUSEP\n09991",
            "Processo SUSEP\n15414.900101/2026-01",
            "Capital segurado\nR$ 50.000,00",
            "Prêmio líquido\nR$ 49,71",
            "IOF (0,38%)\nR$ 0,19",
            "Prêmio total (mensal)\nR$ 49,90",
            "Registro SUSEP\n100000001",
            "sem recusa no prazo, a proposta está aceita (aceitação tácita)",
            "Direito de arrependimento",
            &"ab".repeat(32),
            "Riscos excluídos\nDoença preexistente não declarada.",
            "Glossário",
        ] {
            assert!(text.contains(said), "{said:?} missing from:\n{text}");
        }
    }

    #[test]
    fn a_shop_sales_terms_print_the_price_charged_the_insurer_and_no_empty_party() {
        let detail = crate::testing::detail("NOVO");
        assert_eq!((detail.proposal.value, detail.partner.is_none()), (0, true));
        let text = PrintedDocument::contract(&detail, &terms(), Stage::ForSignature)
            .texts()
            .join("\n");
        assert!(text.contains("Valor\nR$ 49,90"), "{text}");
        assert!(
            text.contains("Contratam o(a) proponente e a seguradora Seguradora Exemplo S.A., CNPJ 11.444.777/0001-61"),
            "{text}"
        );
        assert!(text.contains("sem corretor"), "{text}");
        assert!(!text.contains("associação —") && !text.contains("R$ 0,00"), "{text}");
    }
}
