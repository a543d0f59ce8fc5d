//! The evidence page added to the sealed document once every party signed: which document (its
//! SHA-256), in which envelope, and for each party who signed, when, how and from where.

use super::{Block, PrintedDocument, Section, formats};
use crate::signature::PartyRole;
use chrono::{DateTime, Utc};

/// One party's signature as the provider reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartySignature {
    pub role: PartyRole,
    pub name: String,
    /// CPF or CNPJ, as stored.
    pub document: Option<String>,
    pub signed_at: DateTime<Utc>,
    /// How the party was sent its link (`SMS`, `WhatsApp`, `API`).
    pub channel: String,
    /// How the provider authenticated it (`sms`, `whatsapp`, `api`, ...), as the provider names it.
    pub authentication: Option<String>,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
}

/// What the evidence page states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureEvidence {
    pub identifier: String,
    pub product_name: String,
    /// The provider's id of the envelope the document was signed in.
    pub envelope_id: String,
    pub provider: String,
    /// The SHA-256 (hex) of the sealed document the parties signed.
    pub sealed_sha256: String,
    pub sealed_pages: usize,
    pub parties: Vec<PartySignature>,
}

/// What a party's signature means, as the evidence page states it: the field's label and its
/// text. The client contracts and the entities sign as parties to it; the insurer's signature
/// (the `enterprise` party) is its receipt of the proposal, never its acceptance: the insurer
/// accepts by its own act after the analysis (`APROVADO`) or by its silence at the end of the
/// acceptance deadline (Lei 15.040/2024 art. 49; decision 276), and may still refuse.
pub fn signature_meaning(role: PartyRole, identifier: &str) -> (&'static str, String) {
    match role {
        PartyRole::Client => (
            "Aceite",
            "leu e concordou com os termos da proposta, assinando como contratante".to_owned(),
        ),
        PartyRole::Enterprise => (
            "Recebimento",
            format!(
                "a seguradora recebeu a proposta (protocolo {identifier}); não é a aceitação do \
                 seguro, ato próprio dela após a análise (APROVADO) ou seu silêncio no prazo \
                 (Lei 15.040/2024, art. 49)"
            ),
        ),
        other => (
            "Aceite",
            format!(
                "concordou com os termos da proposta, assinando como parte ({})",
                other.label().to_lowercase()
            ),
        ),
    }
}

/// The provider's name of an authentication, in words.
pub fn authentication_label(method: &str) -> String {
    match method {
        "sms" => "código enviado por SMS".to_owned(),
        "whatsapp" => "código enviado por WhatsApp".to_owned(),
        "email" => "código enviado por e-mail".to_owned(),
        "api" => "assinatura por API (chave do signatário)".to_owned(),
        "sandbox" => "botão da página de assinatura do sandbox (desenvolvimento)".to_owned(),
        other => other.to_owned(),
    }
}

impl SignatureEvidence {
    /// The time the last party signed: when the document became signed.
    pub fn completed_at(&self) -> Option<DateTime<Utc>> {
        self.parties.iter().map(|p| p.signed_at).max()
    }

    pub fn page(&self) -> PrintedDocument {
        let not_reported = || "não informado pelo provedor".to_owned();
        let mut document = vec![
            Block::Field {
                label: "SHA-256 do documento selado".to_owned(),
                value: "(hexadecimal, abaixo)".to_owned(),
            },
            // On a line of its own: the digest is one word, wider than a value's column.
            Block::Paragraph(self.sealed_sha256.clone()),
            Block::Field {
                label: "Páginas do documento selado".to_owned(),
                value: self.sealed_pages.to_string(),
            },
            Block::Field {
                label: "Provedor de assinatura".to_owned(),
                value: self.provider.clone(),
            },
            Block::Field {
                label: "Envelope no provedor".to_owned(),
                value: self.envelope_id.clone(),
            },
        ];
        if let Some(at) = self.completed_at() {
            document.push(Block::Field {
                label: "Concluído em".to_owned(),
                value: formats::instant(at),
            });
        }
        document.push(Block::Paragraph(
            "As páginas anteriores são o documento selado, sem alteração: o SHA-256 acima é o dos \
             seus bytes como enviados para assinatura e pode ser conferido no documento servido \
             com ?version=sealed."
                .to_owned(),
        ));
        let mut sections = vec![Section {
            heading: "Documento".to_owned(),
            blocks: document,
        }];
        for party in &self.parties {
            let blocks = vec![
                Block::Field {
                    label: "Nome".to_owned(),
                    value: party.name.clone(),
                },
                Block::Field {
                    label: "Documento".to_owned(),
                    value: party
                        .document
                        .as_deref()
                        .map_or_else(|| "—".to_owned(), formats::cpf_or_cnpj),
                },
                Block::Field {
                    label: "Assinado em".to_owned(),
                    value: formats::instant(party.signed_at),
                },
                Block::Field {
                    label: "Canal".to_owned(),
                    value: party.channel.clone(),
                },
                Block::Field {
                    label: "Autenticação".to_owned(),
                    value: party
                        .authentication
                        .as_deref()
                        .map_or_else(not_reported, authentication_label),
                },
                Block::Field {
                    label: "Resultado da autenticação".to_owned(),
                    // The provider records a signature only after its authentication passed.
                    value: party.authentication.as_ref().map_or_else(not_reported, |_| {
                        "aprovada: o provedor só registra a assinatura depois dela".to_owned()
                    }),
                },
                {
                    let (label, meaning) = signature_meaning(party.role, &self.identifier);
                    Block::Field {
                        label: label.to_owned(),
                        value: meaning,
                    }
                },
                Block::Field {
                    label: "Documento assinado".to_owned(),
                    value: "o documento selado, SHA-256 abaixo".to_owned(),
                },
                Block::Paragraph(self.sealed_sha256.clone()),
                Block::Field {
                    label: "Endereço IP".to_owned(),
                    value: party.ip.clone().unwrap_or_else(not_reported),
                },
                Block::Field {
                    label: "Navegador".to_owned(),
                    value: party.user_agent.clone().unwrap_or_else(not_reported),
                },
                Block::Field {
                    label: "Localização".to_owned(),
                    value: match (&party.latitude, &party.longitude) {
                        (Some(lat), Some(long)) => format!("{lat}, {long} (latitude, longitude)"),
                        _ => not_reported(),
                    },
                },
            ];
            sections.push(Section {
                heading: format!("{}: {}", party.role.label(), party.name),
                blocks,
            });
        }
        PrintedDocument {
            title: "Evidências da assinatura".to_owned(),
            reference: format!("Proposta {} · {} · evidências", self.identifier, self.product_name),
            watermark: None,
            sections,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn party(role: PartyRole, minute: u32) -> PartySignature {
        PartySignature {
            role,
            name: format!("Parte {}", role.label()),
            document: Some(
                if role == PartyRole::Client {
                    "12345678909"
                } else {
                    "11222333000181"
                }
                .to_owned(),
            ),
            signed_at: Utc.with_ymd_and_hms(2026, 11, 22, 13, minute, 0).unwrap(),
            channel: "SMS".to_owned(),
            authentication: (role == PartyRole::Client).then(|| "sms".to_owned()),
            ip: Some("203.0.113.7".to_owned()),
            user_agent: None,
            latitude: None,
            longitude: None,
        }
    }

    /// The evidence of proposal `identifier`, signed by its four parties a minute apart.
    fn signed_by_all(identifier: &str, envelope: &str, sealed_sha256: String) -> SignatureEvidence {
        SignatureEvidence {
            identifier: identifier.into(),
            product_name: "Seguro".into(),
            envelope_id: envelope.into(),
            provider: "Clicksign".into(),
            sealed_sha256,
            sealed_pages: 2,
            parties: PartyRole::ALL
                .iter()
                .enumerate()
                .map(|(i, r)| party(*r, i as u32))
                .collect(),
        }
    }

    #[test]
    fn the_page_names_the_hash_the_envelope_and_every_party_with_its_time_in_utc_and_brasilia() {
        let evidence = signed_by_all("P-1", "env-123", "ab".repeat(32));
        let text = evidence.page().texts().join("\n");
        assert!(text.contains(&"ab".repeat(32)));
        assert!(text.contains("env-123"));
        for role in PartyRole::ALL {
            assert!(
                text.contains(&format!("{}: Parte {}", role.label(), role.label())),
                "{text}"
            );
        }
        assert!(text.contains("123.456.789-09") && text.contains("11.222.333/0001-81"));
        assert!(text.contains("22/11/2026 13:03:00 UTC (10:03:00, horário de Brasília)"));
        assert!(text.contains("código enviado por SMS"));
        assert!(
            text.contains("não informado pelo provedor"),
            "what the provider did not report is said so"
        );
        assert_eq!(
            evidence.completed_at(),
            Some(Utc.with_ymd_and_hms(2026, 11, 22, 13, 3, 0).unwrap())
        );
    }

    #[test]
    fn each_party_states_its_authentication_what_it_accepted_the_digest_and_where_it_signed_or_says_unknown() {
        let mut client = party(PartyRole::Client, 0);
        client.latitude = Some("-23.5".into());
        client.longitude = Some("-46.6".into());
        let evidence = SignatureEvidence {
            identifier: "P-1".into(),
            product_name: "Seguro".into(),
            envelope_id: "env-123".into(),
            provider: "Clicksign".into(),
            sealed_sha256: "cd".repeat(32),
            sealed_pages: 2,
            parties: vec![client, party(PartyRole::Association, 1)],
        };
        let texts = evidence.page().texts();
        let text = texts.join("\n");
        assert_eq!(
            texts.iter().filter(|t| **t == "cd".repeat(32)).count(),
            3,
            "the document's digest, then each party's"
        );
        assert!(text.contains("-23.5, -46.6 (latitude, longitude)"), "{text}");
        assert!(text.contains("aprovada: o provedor só registra a assinatura depois dela"));
        assert!(text.contains("assinando como contratante"));
        assert!(text.contains("assinando como parte (associação)"), "{text}");
        // The association reported no authentication nor location: said so, never guessed.
        let association = text.split("Associação: ").nth(1).unwrap();
        assert_eq!(
            association.matches("não informado pelo provedor").count(),
            4,
            "{association}"
        );
    }

    /// The insurer's signature is its receipt of the proposal, with the protocol, never an
    /// agreement that a later refusal would contradict (issue 68).
    #[test]
    fn the_insurers_signature_reads_as_the_receipt_of_the_proposal_never_as_its_acceptance() {
        let evidence = signed_by_all("P-77", "env-9", "ef".repeat(32));
        let text = evidence.page().texts().join("\n");
        let insurer = text.split("Empresa: ").nth(1).unwrap();
        assert!(
            insurer.contains("Recebimento")
                && insurer.contains("a seguradora recebeu a proposta (protocolo P-77)")
                && insurer.contains("não é a aceitação do seguro")
                && insurer.contains("Lei 15.040/2024, art. 49"),
            "{insurer}"
        );
        assert!(!insurer.contains("concordou"), "{insurer}");
        assert_eq!(
            text.matches("concordou com os termos").count(),
            3,
            "the other three parties"
        );
    }
}
