//! Rendering a domain message into an e-mail, from the templates kept as files.

use domain::billing::arrears::NoticeKind;
use domain::mail::{MailKind, MailMessage};
use lettre::Message;
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart};
use minijinja::{Environment, context};

#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    #[error("modelo de e-mail: {0}")]
    Template(#[from] minijinja::Error),
    #[error("mensagem inválida: {0}")]
    Message(String),
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // HTML templates escape what they insert; text ones do not need to.
    env.set_auto_escape_callback(|name| {
        if name.ends_with(".html") {
            minijinja::AutoEscape::Html
        } else {
            minijinja::AutoEscape::None
        }
    });
    let templates = [
        (
            "password_recovery.txt",
            include_str!("../templates/password_recovery.txt"),
        ),
        (
            "password_recovery.html",
            include_str!("../templates/password_recovery.html"),
        ),
        (
            "password_changed.txt",
            include_str!("../templates/password_changed.txt"),
        ),
        (
            "password_changed.html",
            include_str!("../templates/password_changed.html"),
        ),
        (
            "proposal_refused.txt",
            include_str!("../templates/proposal_refused.txt"),
        ),
        (
            "proposal_refused.html",
            include_str!("../templates/proposal_refused.html"),
        ),
        (
            "contract_cancelled.txt",
            include_str!("../templates/contract_cancelled.txt"),
        ),
        (
            "contract_cancelled.html",
            include_str!("../templates/contract_cancelled.html"),
        ),
        (
            "withdrawal_confirmed.txt",
            include_str!("../templates/withdrawal_confirmed.txt"),
        ),
        (
            "withdrawal_confirmed.html",
            include_str!("../templates/withdrawal_confirmed.html"),
        ),
        ("certificate.txt", include_str!("../templates/certificate.txt")),
        ("certificate.html", include_str!("../templates/certificate.html")),
        (
            "documents_requested.txt",
            include_str!("../templates/documents_requested.txt"),
        ),
        (
            "documents_requested.html",
            include_str!("../templates/documents_requested.html"),
        ),
        ("person_link.txt", include_str!("../templates/person_link.txt")),
        ("person_link.html", include_str!("../templates/person_link.html")),
        (
            "subject_request_filed.txt",
            include_str!("../templates/subject_request_filed.txt"),
        ),
        (
            "subject_request_filed.html",
            include_str!("../templates/subject_request_filed.html"),
        ),
        ("personal_data.txt", include_str!("../templates/personal_data.txt")),
        ("personal_data.html", include_str!("../templates/personal_data.html")),
        ("terms.txt", include_str!("../templates/terms.txt")),
        (
            "refund_destination.txt",
            include_str!("../templates/refund_destination.txt"),
        ),
        (
            "refund_destination.html",
            include_str!("../templates/refund_destination.html"),
        ),
        ("terms.html", include_str!("../templates/terms.html")),
        ("arrears_notice.txt", include_str!("../templates/arrears_notice.txt")),
        ("arrears_notice.html", include_str!("../templates/arrears_notice.html")),
        (
            "policyholder_notice.txt",
            include_str!("../templates/policyholder_notice.txt"),
        ),
        (
            "policyholder_notice.html",
            include_str!("../templates/policyholder_notice.html"),
        ),
        ("term_notice.txt", include_str!("../templates/term_notice.txt")),
        ("term_notice.html", include_str!("../templates/term_notice.html")),
    ];
    for (name, source) in templates {
        // The templates are part of the binary; a syntax error is caught by this crate's tests.
        let _ = env.add_template(name, source);
    }
    env
}

/// The subject, and the template pair with its values.
fn parts(message: &MailMessage) -> (String, &'static str, minijinja::Value) {
    let email = message.to.as_str();
    let (subject, template, values) = match &message.kind {
        MailKind::PasswordRecovery { link, valid_hours } => (
            "Redefinição de senha",
            "password_recovery",
            context! { email, link, valid_hours },
        ),
        MailKind::PasswordChanged => ("Sua senha foi alterada", "password_changed", context! { email }),
        MailKind::ProposalRefused(notice) => ("Sua proposta não foi aceita", "proposal_refused", notice_values(notice)),
        MailKind::ContractCancelled(notice) => (
            "Cancelamento do seu seguro confirmado",
            "contract_cancelled",
            notice_values(notice),
        ),
        MailKind::WithdrawalConfirmed(notice) => (
            "Arrependimento registrado: sua contratação foi desfeita",
            "withdrawal_confirmed",
            notice_values(notice),
        ),
        MailKind::Certificate(notice) => (
            "Seu certificado de seguro",
            "certificate",
            context! {
                name => notice.customer_name,
                identifier => notice.identifier,
                product => notice.product,
                sha256 => notice.sha256,
            },
        ),
        MailKind::PersonalData(notice) => (
            "Seus dados pessoais (pedido LGPD)",
            "personal_data",
            context! {
                protocol => notice.protocol,
                kind => notice.kind,
                file_name => notice.file_name,
                sha256 => notice.sha256,
            },
        ),
        MailKind::PersonLink(notice) => (
            "Seu pedido de privacidade: confirme pelo link",
            "person_link",
            context! {
                link => notice.link,
                purpose => notice.purpose,
                valid_minutes => notice.valid_minutes,
            },
        ),
        MailKind::DocumentsRequested(notice) => (
            "Sua proposta: a seguradora pede documentos",
            "documents_requested",
            context! {
                identifier => notice.identifier,
                product => notice.product,
                items => notice.items,
                note => notice.note,
                link => notice.link,
            },
        ),
        MailKind::SubjectRequestFiled(notice) => (
            "Seu pedido de privacidade foi registrado",
            "subject_request_filed",
            context! {
                protocol => notice.protocol,
                kind => notice.kind,
                deadline => notice.deadline,
            },
        ),
        MailKind::Terms { notice, regret_until } => (
            "Sua contratação: termos e direito de arrependimento",
            "terms",
            context! {
                name => notice.customer_name,
                identifier => notice.identifier,
                product => notice.product,
                sha256 => notice.sha256,
                regret_until => regret_until,
            },
        ),
        MailKind::RefundDestination(notice) => (
            "Seu reembolso: onde vamos pagar",
            "refund_destination",
            context! {
                name => notice.customer_name,
                identifier => notice.identifier,
                product => notice.product,
                destination => notice.destination,
                owed => notice.owed,
                total => notice.total,
                at => notice.at,
            },
        ),
        MailKind::ArrearsNotice(notice) => {
            // The notice names the contract in its subject, so that it reads as what it is in a
            // mailbox's list (Lei 15.040/2024 art. 20 §2).
            let subject = match notice.kind {
                // The term's notices go as `TermNotice`; worded as the arrears' end if ever here.
                NoticeKind::Late => format!("Aviso de atraso: proposta {}", notice.identifier),
                NoticeKind::EndWarning => format!(
                    "Aviso de atraso: seu seguro será cancelado em {} (proposta {})",
                    notice.ends_on, notice.identifier
                ),
                NoticeKind::Ended | NoticeKind::Renewal | NoticeKind::TermEnd => format!(
                    "Seu seguro foi cancelado por falta de pagamento (proposta {})",
                    notice.identifier
                ),
            };
            return (subject, "arrears_notice", arrears_values(notice, None));
        }
        MailKind::PolicyholderNotice(copy) => {
            let notice = &copy.notice;
            let subject = match notice.kind {
                NoticeKind::Late => format!(
                    "Aviso ao estipulante: segurado em atraso (proposta {})",
                    notice.identifier
                ),
                NoticeKind::EndWarning => format!(
                    "Aviso ao estipulante: seguro será cancelado em {} (proposta {})",
                    notice.ends_on, notice.identifier
                ),
                _ => format!(
                    "Aviso ao estipulante: seguro cancelado por falta de pagamento (proposta {})",
                    notice.identifier
                ),
            };
            return (
                subject,
                "policyholder_notice",
                arrears_values(notice, Some(&copy.policyholder)),
            );
        }
        MailKind::TermNotice(notice) => {
            let subject = match notice.kind {
                NoticeKind::Renewal => format!(
                    "Aviso de renovação: seu seguro será renovado em {} (proposta {})",
                    notice.term_end, notice.identifier
                ),
                _ => format!(
                    "Aviso de fim de vigência: seu seguro termina em {} (proposta {})",
                    notice.ends_on, notice.identifier
                ),
            };
            return (
                subject,
                "term_notice",
                context! {
                    kind => notice.kind.as_str(),
                    name => notice.customer_name,
                    identifier => notice.identifier,
                    certificate => notice.certificate,
                    product => notice.product,
                    term_end => notice.term_end,
                    ends_on => notice.ends_on,
                    renewed_until => notice.renewed_until,
                },
            );
        }
    };
    (subject.to_owned(), template, values)
}

/// The values of an arrears notice, the insured's or its policyholder's copy (`policyholder`).
fn arrears_values(notice: &domain::mail::ArrearsNotice, policyholder: Option<&str>) -> minijinja::Value {
    context! {
        kind => notice.kind.as_str(),
        policyholder => policyholder,
        name => notice.customer_name,
        identifier => notice.identifier,
        certificate => notice.certificate,
        product => notice.product,
        period => notice.period,
        due_date => notice.due_date,
        amount => notice.amount,
        notice_days => notice.notice_days,
        ends_on => notice.ends_on,
        refunds => notice.refunds,
    }
}

/// The values of a proposal's end notice.
fn notice_values(notice: &domain::mail::EndNotice) -> minijinja::Value {
    context! {
        name => notice.customer_name,
        identifier => notice.identifier,
        product => notice.product,
        reason => notice.reason,
        protocol => notice.protocol,
        refunds => notice.refunds,
        at => notice.at,
    }
}

/// A message rendered from its templates, before MIME encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
}

pub fn render(message: &MailMessage) -> Result<Rendered, ComposeError> {
    let env = environment();
    let (subject, template, values) = parts(message);
    let text = env.get_template(&format!("{template}.txt"))?.render(&values)?;
    let html = env.get_template(&format!("{template}.html"))?.render(&values)?;
    Ok(Rendered { subject, text, html })
}

/// A multipart (text and HTML) message from `from` to the message's recipient.
pub fn compose(from: &Mailbox, message: &MailMessage) -> Result<Message, ComposeError> {
    let Rendered { subject, text, html } = render(message)?;
    let to: Mailbox = message
        .to
        .as_str()
        .parse()
        .map_err(|e: lettre::address::AddressError| ComposeError::Message(e.to_string()))?;
    let body = MultiPart::alternative_plain_html(text, html);
    let body = match &message.kind {
        // The certificate travels with its message, as the PDF the service stored.
        MailKind::Certificate(notice) | MailKind::Terms { notice, .. } => {
            MultiPart::mixed().multipart(body).singlepart(
                Attachment::new(format!(
                    "{}-{}.pdf",
                    if matches!(message.kind, MailKind::Terms { .. }) {
                        "termos"
                    } else {
                        "certificado"
                    },
                    notice.identifier
                ))
                .body(
                    notice.pdf.clone(),
                    ContentType::parse("application/pdf").map_err(|e| ComposeError::Message(e.to_string()))?,
                ),
            )
        }
        // The person's data travels as the JSON file the answer records by its digest.
        MailKind::PersonalData(notice) => {
            MultiPart::mixed()
                .multipart(body)
                .singlepart(Attachment::new(notice.file_name.clone()).body(
                    notice.json.clone(),
                    ContentType::parse("application/json").map_err(|e| ComposeError::Message(e.to_string()))?,
                ))
        }
        _ => body,
    };
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(subject)
        .multipart(body)
        .map_err(|e| ComposeError::Message(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::values::Email;

    fn message(kind: MailKind) -> MailMessage {
        MailMessage {
            to: Email::parse("ana@exemplo.com.br").unwrap(),
            kind,
        }
    }

    #[test]
    fn the_recovery_message_carries_the_link_in_text_and_html() {
        let link = "https://vendas.exemplo.com.br/redefinir-senha?token=abc_-123";
        let rendered = render(&message(MailKind::PasswordRecovery {
            link: link.into(),
            valid_hours: 24,
        }))
        .unwrap();
        assert_eq!(rendered.subject, "Redefinição de senha");
        assert!(rendered.text.contains(link) && rendered.text.contains("24 horas"));
        // HTML escaping writes `/` as `&#x2f;` inside the attribute, which browsers read back as `/`.
        assert!(
            rendered
                .html
                .replace("&#x2f;", "/")
                .contains(&format!("href=\"{link}\""))
        );
        assert!(rendered.html.contains("ana@exemplo.com.br"));
    }

    #[test]
    fn the_refund_destination_says_where_what_and_by_when_or_that_nothing_is_owed() {
        let notice = |owed: &[&str], total: Option<&str>| {
            MailKind::RefundDestination(domain::mail::RefundDestinationNotice {
                customer_name: "Maria".into(),
                identifier: "P-1".into(),
                product: "Seguro Vida".into(),
                destination: "Pix para a chave e-mail m***@exemplo.com.br".into(),
                owed: owed.iter().map(|o| (*o).to_owned()).collect(),
                total: total.map(str::to_owned),
                at: "05/12/2026 13:05:09 UTC".into(),
            })
        };
        let owed = render(&message(notice(&["R$ 12,34 até 15/12/2026"], Some("R$ 12,34")))).unwrap();
        assert_eq!(owed.subject, "Seu reembolso: onde vamos pagar");
        // HTML escaping writes `/` as `&#x2f;`, which mail readers show as `/`.
        for part in [owed.text.clone(), owed.html.replace("&#x2f;", "/")] {
            assert!(part.contains("m***@exemplo.com.br"), "{part}");
            assert!(part.contains("R$ 12,34 até 15/12/2026"), "{part}");
            assert!(part.contains("corrigido de novo"), "{part}");
        }
        let nothing = render(&message(notice(&[], None))).unwrap();
        assert!(nothing.text.contains("não há valor a devolver"), "{}", nothing.text);
    }

    #[test]
    fn html_templates_escape_what_they_insert() {
        let rendered = render(&message(MailKind::PasswordRecovery {
            link: "https://x.example/?a=<b>".into(),
            valid_hours: 1,
        }))
        .unwrap();
        assert!(rendered.html.contains("&lt;b&gt;") && !rendered.html.contains("<b>"));
        assert!(rendered.text.contains("<b>"));
    }

    fn notice(protocol: Option<&str>, refunds: &[&str]) -> domain::mail::EndNotice {
        domain::mail::EndNotice {
            customer_name: "Maria <Silva>".into(),
            identifier: "abc-123".into(),
            product: "Seguro Vida".into(),
            reason: "Declaração de saúde incompatível".into(),
            protocol: protocol.map(str::to_owned),
            refunds: refunds.iter().map(|r| (*r).to_owned()).collect(),
            at: "27/11/2026 14:03".into(),
        }
    }

    #[test]
    fn a_refusal_tells_the_justification_and_each_refund() {
        let rendered = render(&message(MailKind::ProposalRefused(notice(
            None,
            &["R$ 39,90 devolvidos no cartão", "R$ 0,12 a pagar por transferência"],
        ))))
        .unwrap();
        assert_eq!(rendered.subject, "Sua proposta não foi aceita");
        for text in [&rendered.text, &rendered.html] {
            assert!(text.contains("Declaração de saúde incompatível"), "{text}");
            assert!(text.contains("R$ 39,90 devolvidos no cartão") && text.contains("R$ 0,12"));
            assert!(text.contains("consumidor.gov.br"));
        }
        assert!(rendered.html.contains("Maria &lt;Silva&gt;"));
        let nothing_paid = render(&message(MailKind::ProposalRefused(notice(None, &[])))).unwrap();
        assert!(nothing_paid.text.contains("Nenhum valor foi cobrado"));
    }

    #[test]
    fn a_cancellation_tells_its_protocol() {
        let rendered = render(&message(MailKind::ContractCancelled(notice(
            Some("2026112700000012"),
            &["R$ 13,35 devolvidos no cartão"],
        ))))
        .unwrap();
        assert!(rendered.text.contains("Protocolo: 2026112700000012"));
        assert!(rendered.html.contains("2026112700000012") && rendered.html.contains("R$ 13,35"));
    }

    #[test]
    fn a_withdrawal_tells_its_protocol_and_what_goes_back_corrected() {
        let rendered = render(&message(MailKind::WithdrawalConfirmed(notice(
            Some("2026120500000003"),
            &[
                "R$ 39,90 devolvidos no cartão usado no pagamento",
                "R$ 0,03 a pagar por transferência",
            ],
        ))))
        .unwrap();
        assert_eq!(
            rendered.subject,
            "Arrependimento registrado: sua contratação foi desfeita"
        );
        for text in [&rendered.text, &rendered.html] {
            assert!(text.contains("2026120500000003") && text.contains("art. 49"), "{text}");
            assert!(text.contains("R$ 39,90") && text.contains("R$ 0,03") && text.contains("IPCA"));
        }
        let nothing_paid = render(&message(MailKind::WithdrawalConfirmed(notice(Some("1"), &[])))).unwrap();
        assert!(nothing_paid.text.contains("nenhum pagamento foi recebido"));
    }

    #[test]
    fn the_certificate_travels_attached_with_its_hash_in_the_text() {
        let email = compose(
            &"Vendas <nao-responda@exemplo.com.br>".parse().unwrap(),
            &message(MailKind::Certificate(domain::mail::CertificateNotice {
                customer_name: "Maria".into(),
                identifier: "abc-123".into(),
                product: "Seguro Vida".into(),
                sha256: "ab".repeat(32),
                pdf: b"%PDF-1.7 certificado".to_vec(),
            })),
        )
        .unwrap();
        let raw = String::from_utf8(email.formatted()).unwrap();
        assert!(raw.contains("multipart/mixed"), "{raw}");
        assert!(
            raw.contains("application/pdf") && raw.contains("certificado-abc-123.pdf"),
            "{raw}"
        );
        let rendered = render(&message(MailKind::Certificate(domain::mail::CertificateNotice {
            customer_name: "Maria".into(),
            identifier: "abc-123".into(),
            product: "Seguro Vida".into(),
            sha256: "ab".repeat(32),
            pdf: Vec::new(),
        })))
        .unwrap();
        assert!(rendered.text.contains(&"ab".repeat(32)));
    }

    #[test]
    fn the_personal_data_travels_attached_as_json_with_its_hash_in_the_text() {
        let notice = domain::mail::PersonalDataNotice {
            protocol: "2026112800000001".into(),
            kind: "Acesso aos dados (art. 18, II)".into(),
            file_name: "dados-pessoais-2026112800000001.json".into(),
            sha256: "cd".repeat(32),
            json: br#"{"cpf": "52998224725"}"#.to_vec(),
        };
        let email = compose(
            &"Vendas <nao-responda@exemplo.com.br>".parse().unwrap(),
            &message(MailKind::PersonalData(notice.clone())),
        )
        .unwrap();
        let raw = String::from_utf8(email.formatted()).unwrap();
        assert!(
            raw.contains("application/json") && raw.contains("dados-pessoais-2026112800000001.json"),
            "{raw}"
        );
        let rendered = render(&message(MailKind::PersonalData(notice))).unwrap();
        assert!(rendered.text.contains(&"cd".repeat(32)) && rendered.text.contains("2026112800000001"));
    }

    #[test]
    fn a_composed_message_is_multipart_text_and_html() {
        let email = compose(
            &"Vendas <nao-responda@exemplo.com.br>".parse().unwrap(),
            &message(MailKind::PasswordChanged),
        )
        .unwrap();
        let raw = String::from_utf8(email.formatted()).unwrap();
        assert!(raw.contains("multipart/alternative") && raw.contains("text/plain") && raw.contains("text/html"));
        assert!(raw.contains("To: ana@exemplo.com.br"));
    }

    fn term(kind: NoticeKind) -> MailMessage {
        message(MailKind::TermNotice(domain::mail::TermNotice {
            kind,
            customer_name: "Maria".into(),
            identifier: "abc-123".into(),
            certificate: "101-2026-00000042".into(),
            product: "Seguro Vida".into(),
            term_end: "28/11/2027".into(),
            ends_on: "28/11/2027".into(),
            renewed_until: (kind == NoticeKind::Renewal).then(|| "28/11/2028".into()),
        }))
    }

    #[test]
    fn the_terms_notices_name_the_contract_and_the_day_it_renews_or_ends() {
        let renewal = render(&term(NoticeKind::Renewal)).unwrap();
        assert_eq!(
            renewal.subject,
            "Aviso de renovação: seu seguro será renovado em 28/11/2027 (proposta abc-123)"
        );
        for text in [
            renewal.text.clone(),
            renewal
                .html
                .replace("&#x2f;", "/")
                .replace("<strong>", "")
                .replace("</strong>", ""),
        ] {
            assert!(
                text.contains("renovado automaticamente por igual período, até 28/11/2028"),
                "{text}"
            );
            assert!(text.contains("certificado nº 101-2026-00000042"), "{text}");
        }
        let end = render(&term(NoticeKind::TermEnd)).unwrap();
        assert_eq!(
            end.subject,
            "Aviso de fim de vigência: seu seguro termina em 28/11/2027 (proposta abc-123)"
        );
        assert!(
            end.text.contains("não será renovada") && end.text.contains("Nada será cobrado depois dela"),
            "{}",
            end.text
        );
    }

    fn arrears(kind: NoticeKind, refunds: &[&str]) -> MailMessage {
        message(MailKind::ArrearsNotice(domain::mail::ArrearsNotice {
            kind,
            customer_name: "Maria <Silva>".into(),
            identifier: "abc-123".into(),
            certificate: "101-2026-00000042".into(),
            product: "Seguro Vida".into(),
            period: 2,
            due_date: "16/01/2027".into(),
            amount: "R$ 39,90".into(),
            notice_days: 15,
            ends_on: "17/03/2027".into(),
            refunds: refunds.iter().map(|r| (*r).to_owned()).collect(),
        }))
    }

    #[test]
    fn each_notice_of_an_unpaid_premium_names_the_contract_and_says_what_the_law_makes_of_it() {
        let late = render(&arrears(NoticeKind::Late, &[])).unwrap();
        assert_eq!(late.subject, "Aviso de atraso: proposta abc-123");
        // HTML escaping writes `/` as `&#x2f;`, which mail readers show as `/`.
        for text in [late.text.clone(), late.html.replace("&#x2f;", "/")] {
            assert!(text.contains("15 dias, contados do recebimento deste aviso"), "{text}");
            assert!(text.contains("a cobertura do seguro será suspensa"), "{text}");
            assert!(text.contains("sinistros ocorridos a partir de 16/01/2027"), "{text}");
            assert!(text.contains("R$ 39,90") && text.contains("abc-123"), "{text}");
            assert!(
                text.replace("<strong>", "")
                    .contains("certificado nº 101-2026-00000042"),
                "{text}"
            );
        }
        assert!(late.html.contains("Maria &lt;Silva&gt;"), "escaped: {}", late.html);

        let warning = render(&arrears(NoticeKind::EndWarning, &[])).unwrap();
        assert_eq!(
            warning.subject,
            "Aviso de atraso: seu seguro será cancelado em 17/03/2027 (proposta abc-123)"
        );
        assert!(
            warning.text.contains("o seguro será cancelado em 17/03/2027"),
            "{}",
            warning.text
        );

        let ended = render(&arrears(
            NoticeKind::Ended,
            &["R$ 12,00 devolvidos por Pix à conta que pagou"],
        ))
        .unwrap();
        assert!(
            ended
                .subject
                .starts_with("Seu seguro foi cancelado por falta de pagamento")
        );
        assert!(ended.text.contains("- R$ 12,00 devolvidos por Pix"), "{}", ended.text);
        let nothing = render(&arrears(NoticeKind::Ended, &[])).unwrap();
        assert!(!nothing.text.contains("devolvida"), "{}", nothing.text);
    }

    #[test]
    fn the_policyholders_copy_names_the_insured_the_contract_and_the_end_ninety_days_on() {
        let copy = |kind| {
            let MailKind::ArrearsNotice(notice) = arrears(kind, &[]).kind else {
                unreachable!("an arrears notice")
            };
            message(MailKind::PolicyholderNotice(domain::mail::PolicyholderNotice {
                policyholder: "Associação Nacional dos Segurados".into(),
                notice,
            }))
        };
        let late = render(&copy(NoticeKind::Late)).unwrap();
        assert_eq!(
            late.subject,
            "Aviso ao estipulante: segurado em atraso (proposta abc-123)"
        );
        assert!(
            late.text
                .starts_with("Prezados(as), Associação Nacional dos Segurados,"),
            "{}",
            late.text
        );
        assert!(late.text.contains("art. 21, § 2º"), "{}", late.text);
        assert!(late.text.contains("segurado(a) Maria <Silva>"), "{}", late.text);
        assert!(late.html.contains("Maria &lt;Silva&gt;"), "escaped: {}", late.html);
        let warning = render(&copy(NoticeKind::EndWarning)).unwrap();
        assert_eq!(
            warning.subject,
            "Aviso ao estipulante: seguro será cancelado em 17/03/2027 (proposta abc-123)"
        );
        assert!(
            warning
                .text
                .contains("será cancelado em 17/03/2027, não antes de 90 dias contados deste aviso"),
            "{}",
            warning.text
        );
        let ended = render(&copy(NoticeKind::Ended)).unwrap();
        assert!(
            ended.subject.starts_with("Aviso ao estipulante: seguro cancelado"),
            "{}",
            ended.subject
        );
    }
}
