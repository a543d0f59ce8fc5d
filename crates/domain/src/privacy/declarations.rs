//! Why each category of personal data is processed (LGPD art. 6, I and art. 37): one declaration
//! per category, in code, with its purpose, its legal basis (article and item), how long it is
//! kept and who receives it. The stores say where each category lives (`adapters-postgres`'s
//! `personal_data_map`, whose test fails on a personal column declared nowhere); the records of
//! processing (`sales-api privacy ropa`, `docs/privacy.md`) and the export's `basesLegais` are
//! printed from here.

use super::export::{ExportRecord, ExportedProposal};
use crate::values::{Application, ProposalStatus};
use serde::Serialize;

/// A category of personal data the service holds about a customer or a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Identity,
    Contact,
    Address,
    Health,
    Financial,
    Payroll,
    SignatureEvidence,
    AccessRecords,
    /// The beneficiaries the insured named: third parties' identity (decision 279).
    Beneficiaries,
}

impl Category {
    pub const ALL: [Category; 9] = [
        Category::Identity,
        Category::Contact,
        Category::Address,
        Category::Health,
        Category::Financial,
        Category::Payroll,
        Category::SignatureEvidence,
        Category::AccessRecords,
        Category::Beneficiaries,
    ];

    /// The category's code in the export and the records' JSON.
    pub fn code(self) -> &'static str {
        match self {
            Category::Identity => "identificacao",
            Category::Contact => "contato",
            Category::Address => "endereco",
            Category::Health => "saude",
            Category::Financial => "financeiro",
            Category::Payroll => "folha",
            Category::SignatureEvidence => "evidencias_assinatura",
            Category::AccessRecords => "registros_acesso",
            Category::Beneficiaries => "beneficiarios",
        }
    }
}

/// Who receives a category (LGPD art. 9, V and art. 18, VII).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Recipient {
    /// The e-signature provider (Clicksign): it sends the signing request and records the evidence.
    SignatureProvider,
    /// The payment platform (Stripe): the online shop's card subscriptions. Abroad: an
    /// international transfer (LGPD art. 33).
    PaymentPlatform,
    /// The partner (broker) that sold the proposal, and its representatives.
    Partner,
    /// The insurer that underwrites the product.
    Insurer,
    /// The receiving PSP of the Pix Automático: the recurrence and its charges (issue 46).
    PixPsp,
    /// The customer's bank, through the debit files (CNAB) of a debit in account.
    Bank,
    /// The employer or the INSS, through the consignment platform: the payroll discount's
    /// averbação.
    EmployerOrInss,
}

/// Why the person's data may go abroad (to the payment platform): LGPD art. 33, IX, "quando
/// necessário para atender as hipóteses previstas nos incisos II, V e VI do art. 7º" — here V,
/// the execution of the contract the person is party to (the card subscription they buy).
pub const INTERNATIONAL_TRANSFER_BASIS: &str = "LGPD art. 33, IX: necessária à execução do contrato de que o titular é parte (art. 7º, V), a assinatura \
     recorrente no cartão da compra pela loja on-line";

impl Recipient {
    /// Every recipient, in the records' order.
    pub const ALL: [Recipient; 7] = [
        Recipient::SignatureProvider,
        Recipient::PaymentPlatform,
        Recipient::Partner,
        Recipient::Insurer,
        Recipient::PixPsp,
        Recipient::Bank,
        Recipient::EmployerOrInss,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Recipient::SignatureProvider => "provedor_assinatura",
            Recipient::PaymentPlatform => "plataforma_pagamento",
            Recipient::Partner => "parceiro",
            Recipient::Insurer => "seguradora",
            Recipient::PixPsp => "psp_pix",
            Recipient::Bank => "banco",
            Recipient::EmployerOrInss => "empregador_ou_inss",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Recipient::SignatureProvider => "Provedor de assinatura eletrônica (Clicksign)",
            Recipient::PaymentPlatform => {
                "Plataforma de pagamento (Stripe, Inc., Estados Unidos: transferência internacional, LGPD art. 33, IX)"
            }
            Recipient::Partner => "Parceiro (corretora) que fez a venda",
            Recipient::Insurer => "Seguradora do produto",
            Recipient::PixPsp => "PSP recebedor do Pix Automático",
            Recipient::Bank => "Banco do cliente (débito em conta, arquivos CNAB)",
            Recipient::EmployerOrInss => {
                "Empregador ou INSS (averbação do desconto em folha, pela plataforma de consignação)"
            }
        }
    }

    /// Whether the recipient is abroad: sending it data is an international transfer (LGPD art.
    /// 33), which the notice and the records of processing declare with its basis.
    pub fn abroad(self) -> bool {
        self == Recipient::PaymentPlatform
    }
}

// Both are written as their codes (`saude`, `seguradora`) wherever they are serialised.
impl Serialize for Category {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl Serialize for Recipient {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// One category's declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Declaration {
    #[serde(rename = "categoria")]
    pub category: Category,
    /// How people read the category.
    #[serde(rename = "nome")]
    pub name: &'static str,
    #[serde(rename = "finalidade")]
    pub purpose: &'static str,
    /// Each legal basis, as article and item (art. 7 for personal data, art. 11 for sensitive).
    #[serde(rename = "basesLegais")]
    pub bases: &'static [&'static str],
    /// Sensitive personal data (LGPD art. 5, II).
    #[serde(rename = "sensivel")]
    pub sensitive: bool,
    #[serde(rename = "retencao")]
    pub retention: &'static str,
    #[serde(rename = "destinatarios")]
    pub recipients: &'static [Recipient],
}

const CONTRACT: &str = "LGPD art. 7º, V (execução de contrato ou de procedimentos preliminares a pedido do titular)";
const LEGAL_OBLIGATION: &str = "LGPD art. 7º, II (cumprimento de obrigação legal ou regulatória)";
const RIGHTS: &str =
    "LGPD art. 7º, VI (exercício regular de direitos em processo judicial, administrativo ou arbitral)";

/// Kept as the schedule keeps a sale's and a contract's data (decisions 192 and 197).
const SALE_RETENTION: &str = "Proposta não concluída: anonimizada RETENTION_UNCONCLUDED_DAYS (180) dias após a última \
     alteração. Contrato: enquanto vigorar e por RETENTION_CONTRACT_YEARS (5) anos após o seu fim (Lei 9.613/1998, \
     art. 10; Circular SUSEP 612/2020), bloqueado se o titular pedir a eliminação nesse prazo.";

/// Who takes part in a sale: the customer's contact reaches each of them.
const EVERYONE_IN_THE_SALE: &[Recipient] = &[
    Recipient::SignatureProvider,
    Recipient::PaymentPlatform,
    Recipient::Partner,
    Recipient::Insurer,
];

/// The customer's identity reaches every recipient: everyone in the sale and whoever collects
/// the premium (the Pix PSP, the bank of a debit in account, the employer or the INSS of a
/// payroll discount).
const EVERYONE_IN_THE_SALE_AND_THE_COLLECTION: &[Recipient] = &Recipient::ALL;

/// Every category's declaration, in [`Category::ALL`]'s order.
pub const DECLARATIONS: [Declaration; 9] = [
    Declaration {
        category: Category::Identity,
        name: "Identificação",
        purpose: "Identificar o titular, contratar e executar o seguro; identificar pessoa exposta politicamente \
                  (prevenção à lavagem de dinheiro)",
        bases: &[
            CONTRACT,
            "LGPD art. 7º, II (obrigação legal: Lei 9.613/1998, art. 10; Circular SUSEP 612/2020 — PEP)",
        ],
        sensitive: false,
        retention: SALE_RETENTION,
        recipients: EVERYONE_IN_THE_SALE_AND_THE_COLLECTION,
    },
    Declaration {
        category: Category::Contact,
        name: "Contato",
        purpose: "Enviar a proposta para assinatura, os avisos da venda e o certificado; atender o titular",
        bases: &[CONTRACT],
        sensitive: false,
        retention: SALE_RETENTION,
        recipients: EVERYONE_IN_THE_SALE,
    },
    Declaration {
        category: Category::Address,
        name: "Endereço",
        purpose: "Emitir a proposta e a apólice e localizar o segurado",
        bases: &[CONTRACT],
        sensitive: false,
        retention: SALE_RETENTION,
        recipients: &[Recipient::Partner, Recipient::Insurer],
    },
    Declaration {
        category: Category::Health,
        name: "Saúde (declaração do proponente)",
        purpose: "Avaliar o risco do seguro de vida (medicamento de uso contínuo, afastamento do trabalho, os \
                  documentos e esclarecimentos pedidos na análise); defender a recusa de uma proposta em \
                  reclamação ou processo do consumidor",
        bases: &[
            "LGPD art. 11, II, d (exercício regular de direitos, inclusive em contrato e em processo judicial, \
                  administrativo ou arbitral)",
        ],
        sensitive: true,
        retention: "Proposta não concluída: descartada RETENTION_HEALTH_UNCONCLUDED_DAYS (30) dias após a última \
                    alteração, com os textos escritos sobre o titular na análise (motivos, pedidos de documentos, \
                    respostas e arquivos). Proposta recusada: antes disso, a sua defesa (o declarado, o motivo e a \
                    categoria da recusa, os pedidos de documentos e as respostas) é guardada à parte, só para o \
                    back office, por 5 anos a contar da recusa (CDC art. 27), encontrada por um resumo com chave do \
                    CPF, e apagada então. Contrato: como os demais dados do contrato.",
        // The partner's seller collects the answers and reads them in the proposal.
        recipients: &[Recipient::Partner, Recipient::Insurer],
    },
    Declaration {
        category: Category::Financial,
        name: "Financeiro",
        purpose: "Cobrar o prêmio (cartão, débito em conta) e verificar a renda declarada",
        bases: &[CONTRACT],
        sensitive: false,
        retention: SALE_RETENTION,
        recipients: &[
            Recipient::PaymentPlatform,
            Recipient::Insurer,
            Recipient::PixPsp,
            Recipient::Bank,
        ],
    },
    Declaration {
        category: Category::Payroll,
        name: "Folha de pagamento",
        purpose: "Averbar o desconto do prêmio em folha ou no benefício",
        bases: &[CONTRACT],
        sensitive: false,
        retention: SALE_RETENTION,
        recipients: &[Recipient::Partner, Recipient::Insurer, Recipient::EmployerOrInss],
    },
    Declaration {
        category: Category::SignatureEvidence,
        name: "Evidências da assinatura",
        purpose: "Provar a autoria e a integridade da assinatura eletrônica (MP 2.200-2/2001, art. 10, § 2º)",
        bases: &[RIGHTS],
        sensitive: false,
        retention: "Com o documento assinado, enquanto vigorar o contrato e por RETENTION_CONTRACT_YEARS (5) anos após \
                    o seu fim; removidas com a proposta não concluída.",
        recipients: &[Recipient::SignatureProvider],
    },
    Declaration {
        category: Category::AccessRecords,
        name: "Registros de acesso (usuários)",
        purpose: "Autenticar vendedores e o back office, encerrar sessões e guardar os registros de acesso",
        bases: &[LEGAL_OBLIGATION, "Lei 12.965/2014 (Marco Civil da Internet), art. 15"],
        sensitive: false,
        retention: "Sessões encerradas por ENDED_SESSIONS_RETENTION_DAYS (183) dias; tokens até expirarem.",
        recipients: &[],
    },
    Declaration {
        category: Category::Beneficiaries,
        name: "Beneficiários indicados",
        purpose: "Pagar o capital segurado a quem o segurado indicou (nome, CPF, nascimento, parentesco e \
                  percentual de cada beneficiário), em lugar dos herdeiros legais (Lei 15.040/2024, art. 115)",
        bases: &[CONTRACT],
        sensitive: false,
        retention: SALE_RETENTION,
        recipients: &[Recipient::Partner, Recipient::Insurer],
    },
];

/// The category's declaration (the list is in the categories' order, which a test keeps).
pub fn declaration(category: Category) -> &'static Declaration {
    &DECLARATIONS[category as usize]
}

/// The declarations of the categories a customer's data falls in (every one but the users'
/// access records): the export's `basesLegais`.
pub fn customer_declarations() -> Vec<&'static Declaration> {
    DECLARATIONS
        .iter()
        .filter(|d| d.category != Category::AccessRecords)
        .collect()
}

/// The categories `recipient` receives.
pub fn categories_sent_to(recipient: Recipient) -> Vec<Category> {
    DECLARATIONS
        .iter()
        .filter(|d| d.recipients.contains(&recipient))
        .map(|d| d.category)
        .collect()
}

/// With whom the person's data was shared (LGPD art. 18, VII), read from the export's record:
/// the signature provider for each proposal sent for signature, the payment platform for each
/// shop sale, each partner that registered the person, the insurer for each proposal submitted
/// (past `NOVO`). Each entry names the categories the recipient receives and the proposals (or
/// the partner) concerned.
pub fn disclosures(export: &ExportRecord) -> serde_json::Value {
    use serde_json::{Value, json};
    let identifiers = |keep: &dyn Fn(&ExportedProposal) -> bool| -> Vec<&str> {
        export
            .proposals
            .iter()
            .filter(|p| keep(p))
            .map(|p| p.proposal.identifier.as_str())
            .collect()
    };
    let entry = |recipient: Recipient, concerning: Value| {
        let mut item = json!({
            "destinatario": recipient.code(),
            "nome": recipient.label(),
            "categorias": categories_sent_to(recipient),
        });
        if let (Some(item), Some(concerning)) = (item.as_object_mut(), concerning.as_object()) {
            item.extend(concerning.clone());
        }
        item
    };
    let mut shared = Vec::new();
    let signed = identifiers(&|p| p.sent_for_signature);
    if !signed.is_empty() {
        shared.push(entry(Recipient::SignatureProvider, json!({"propostas": signed})));
    }
    let paid = identifiers(&|p| p.platform_subscriptions > 0);
    let platform_customer = export.registrations.iter().any(|r| r.platform_customer.is_some());
    if !paid.is_empty() || platform_customer {
        shared.push(entry(Recipient::PaymentPlatform, json!({"propostas": paid})));
    }
    let mut partners: Vec<(&str, &str)> = export
        .registrations
        .iter()
        .filter(|r| r.seller.application == Application::Partner)
        .map(|r| {
            (
                r.seller.partner_document.as_deref().unwrap_or_default(),
                r.seller.partner_name.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    partners.sort();
    partners.dedup();
    for (document, name) in partners {
        shared.push(entry(
            Recipient::Partner,
            json!({"parceiro": {"documento": document, "nome": name}}),
        ));
    }
    let submitted = identifiers(&|p| p.proposal.status != ProposalStatus::New);
    if !submitted.is_empty() {
        shared.push(entry(Recipient::Insurer, json!({"propostas": submitted})));
    }
    // Who collected the premium, by what was sent: a recurrence to the PSP, a debit file to the
    // bank, an averbação to the consignment platform.
    for (recipient, sent) in [
        (Recipient::PixPsp, identifiers(&|p| p.collection.pix_recurrence)),
        (Recipient::Bank, identifiers(&|p| p.collection.debit_file)),
        (Recipient::EmployerOrInss, identifiers(&|p| p.collection.averbacao)),
    ] {
        if !sent.is_empty() {
            shared.push(entry(recipient, json!({"propostas": sent})));
        }
    }
    Value::Array(shared)
}

/// One category as the records of processing list it: its declaration and where it is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProcessingRecord {
    #[serde(flatten)]
    pub declaration: Declaration,
    /// `table.column` of each place the category is stored.
    #[serde(rename = "armazenamento")]
    pub stored_in: Vec<String>,
}

/// The records of processing (LGPD art. 37) as Markdown: one section per category, health (the
/// sensitive one) marked.
pub fn records_markdown(records: &[ProcessingRecord]) -> String {
    let mut out = String::from(
        "# Registro das operações de tratamento (LGPD art. 37)\n\n\
         Gerado por `sales-api privacy ropa` a partir das declarações em \
         `crates/domain/src/privacy/declarations.rs` e do mapa de colunas em \
         `crates/adapters-postgres/src/personal_data_map.rs`; um teste mantém este arquivo igual à saída.\n",
    );
    for record in records {
        let d = &record.declaration;
        out.push_str(&format!("\n## {} (`{}`)", d.name, d.category.code()));
        if d.sensitive {
            out.push_str(" — dado pessoal sensível");
        }
        out.push_str("\n\n");
        out.push_str(&format!("- **Finalidade:** {}\n", d.purpose));
        out.push_str("- **Base legal:**\n");
        for basis in d.bases {
            out.push_str(&format!("  - {basis}\n"));
        }
        out.push_str(&format!("- **Retenção:** {}\n", d.retention));
        let recipients: Vec<&str> = d.recipients.iter().map(|r| r.label()).collect();
        out.push_str(&format!(
            "- **Compartilhado com:** {}\n",
            if recipients.is_empty() {
                "ninguém".to_owned()
            } else {
                recipients.join("; ")
            }
        ));
        let stored: Vec<String> = record.stored_in.iter().map(|s| format!("`{s}`")).collect();
        out.push_str(&format!("- **Armazenado em:** {}\n", stored.join(", ")));
    }
    out.push_str(&format!(
        "\n## Transferência internacional (LGPD art. 33)\n\nBase: {INTERNATIONAL_TRANSFER_BASIS}.\n\n"
    ));
    for recipient in Recipient::ALL.iter().filter(|r| r.abroad()) {
        let categories: Vec<&str> = categories_sent_to(*recipient).iter().map(|c| c.code()).collect();
        out.push_str(&format!(
            "- {}: {}\n",
            recipient.label(),
            categories
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out.push_str(&format!(
        "\n## Finalidades com base no consentimento\n\n\
         Além da venda, só com o consentimento do titular, registrado por \
         `POST /privacy/customers/{{cpf}}/consents` e revogável a qualquer tempo (art. 8º, § 5º); cada registro \
         fica em `privacy_consents`, sem substituir os anteriores. Usam os dados de contato e identificação. Base legal: {}.\n\n",
        super::consents::CONSENT_BASIS
    ));
    for purpose in super::consents::ConsentPurpose::ALL {
        out.push_str(&format!("- `{}`: {}\n", purpose.code(), purpose.description()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::export::PersonalDataExport;

    #[test]
    fn every_category_is_declared_once_in_order_with_a_basis() {
        let declared: Vec<Category> = DECLARATIONS.iter().map(|d| d.category).collect();
        assert_eq!(declared, Category::ALL);
        for category in Category::ALL {
            let d = declaration(category);
            assert_eq!(d.category, category);
            assert!(!d.bases.is_empty() && !d.purpose.is_empty() && !d.retention.is_empty());
        }
    }

    #[test]
    fn health_is_the_sensitive_category_and_rests_on_article_11() {
        for d in &DECLARATIONS {
            assert_eq!(d.sensitive, d.category == Category::Health, "{:?}", d.category);
            // Sensitive data has art. 11's bases only; the others art. 7's (or a law it points to).
            assert_eq!(
                d.bases.iter().any(|b| b.contains("art. 11")),
                d.sensitive,
                "{:?}",
                d.category
            );
        }
    }

    #[test]
    fn the_export_says_who_received_what_from_its_own_records() {
        let export = serde_json::json!({
            "cadastros": [
                {"vendedor": {"aplicacao": "PARCEIRO", "cpf_cnpj_parceiro": "11222333000181", "nome_parceiro": "Corretora"},
                 "ecommerce_customer_id": null},
                {"vendedor": {"aplicacao": "PARCEIRO", "cpf_cnpj_parceiro": "11222333000181", "nome_parceiro": "Corretora"},
                 "ecommerce_customer_id": null}
            ],
            "propostas": [
                {"proposta": {"identificador": "a", "status": "NOVO", "alterado_em": "2026-01-01T00:00:00Z"},
                 "assinatura": null, "assinaturas_pagamento": []},
                {"proposta": {"identificador": "b", "status": "APROVADO", "alterado_em": "2026-01-01T00:00:00Z"},
                 "assinatura": {"id": 1}, "assinaturas_pagamento": []}
            ]
        });
        let shared = disclosures(&PersonalDataExport::of(export).unwrap().record);
        let recipients: Vec<&str> = shared
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["destinatario"].as_str().unwrap())
            .collect();
        assert_eq!(
            recipients,
            ["provedor_assinatura", "parceiro", "seguradora"],
            "{shared}"
        );
        assert_eq!(shared[0]["propostas"], serde_json::json!(["b"]));
        assert_eq!(
            shared[1]["parceiro"]["documento"], "11222333000181",
            "one entry per partner"
        );
        assert_eq!(
            shared[2]["propostas"],
            serde_json::json!(["b"]),
            "a draft was never submitted"
        );
        assert!(
            shared[2]["categorias"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!("saude"))
        );
        assert!(
            !shared[0]["categorias"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!("saude"))
        );
        assert_eq!(disclosures(&ExportRecord::default()), serde_json::json!([]));
    }

    #[test]
    fn who_collected_the_premium_is_named_by_what_was_sent_to_them() {
        let proposal = |id: &str, collection: serde_json::Value| {
            serde_json::json!({"proposta": {"identificador": id, "status": "APROVADO", "alterado_em": "2026-01-01T00:00:00Z"},
                "assinatura": null, "assinaturas_pagamento": [], "cobranca": collection})
        };
        let export = serde_json::json!({"cadastros": [], "propostas": [
            proposal("pix", serde_json::json!({"pix_recorrencia": true, "arquivo_debito": false, "averbacao": false})),
            proposal("debito", serde_json::json!({"pix_recorrencia": false, "arquivo_debito": true, "averbacao": false})),
            proposal("folha", serde_json::json!({"pix_recorrencia": false, "arquivo_debito": false, "averbacao": true})),
            proposal("nada", serde_json::json!({"pix_recorrencia": false, "arquivo_debito": false, "averbacao": false})),
        ]});
        let shared = disclosures(&PersonalDataExport::of(export).unwrap().record);
        let sent: Vec<(String, serde_json::Value)> = shared
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["destinatario"] != "seguradora")
            .map(|d| (d["destinatario"].as_str().unwrap().to_owned(), d["propostas"].clone()))
            .collect();
        assert_eq!(
            sent,
            [
                ("psp_pix".to_owned(), serde_json::json!(["pix"])),
                ("banco".to_owned(), serde_json::json!(["debito"])),
                ("empregador_ou_inss".to_owned(), serde_json::json!(["folha"])),
            ]
        );
        assert!(Recipient::PaymentPlatform.abroad());
        assert_eq!(Recipient::ALL.iter().filter(|r| r.abroad()).count(), 1);
    }

    #[test]
    fn the_markdown_names_each_category_its_basis_and_where_it_is_stored() {
        let records: Vec<ProcessingRecord> = DECLARATIONS
            .iter()
            .map(|d| ProcessingRecord {
                declaration: d.clone(),
                stored_in: vec![format!("tabela.{}", d.category.code())],
            })
            .collect();
        let text = records_markdown(&records);
        assert!(text.contains("## Saúde (declaração do proponente) (`saude`) — dado pessoal sensível"));
        assert!(text.contains("  - LGPD art. 11, II, d"));
        assert!(text.contains("`tabela.saude`"));
        assert!(
            text.contains("- **Compartilhado com:** ninguém"),
            "access records go to no one"
        );
        // The nine categories, the transfer abroad, then the purposes resting on consent.
        assert_eq!(text.matches("\n## ").count(), 11);
        assert!(text.contains("## Transferência internacional (LGPD art. 33)"));
        assert!(text.contains("## Finalidades com base no consentimento"));
        assert!(text.contains("- `ofertas_parceiro`: "));
    }
}
