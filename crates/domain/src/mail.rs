//! Outgoing e-mail: what the use cases ask to be sent, and the port that sends it.

use crate::values::Email;

/// One message to one person; the adapter renders it from its templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailMessage {
    pub to: Email,
    pub kind: MailKind,
}

#[derive(Clone, PartialEq, Eq)]
pub enum MailKind {
    /// The link to choose a new password; it carries the recovery token.
    PasswordRecovery { link: String, valid_hours: i64 },
    /// Notice that the password was changed.
    PasswordChanged,
    /// The insurer refused the proposal (issue 45): the reason, and what goes back.
    ProposalRefused(EndNotice),
    /// The contract was cancelled at the customer's request after the sale: the protocol, and
    /// what goes back.
    ContractCancelled(EndNotice),
    /// The sale was undone within the right of regret (CDC art. 49): the protocol, and what goes
    /// back, corrected.
    WithdrawalConfirmed(EndNotice),
    /// The accepted contract's certificate, attached.
    Certificate(CertificateNotice),
    /// The answer to a data-subject request (LGPD art. 18, II and V): the person's data, attached
    /// as JSON.
    PersonalData(PersonalDataNotice),
    /// An online sale's terms, attached, with the regret notice and its last day (Decreto
    /// 7.962/2013 art. 4).
    Terms {
        notice: CertificateNotice,
        regret_until: String,
    },
    /// Where the contract's refunds to pay will be paid, as the seller or the back office
    /// recorded it, and what is owed (issue 65).
    RefundDestination(RefundDestinationNotice),
    /// A notice of an unpaid premium (Lei 15.040/2024 arts. 20–21, issue 67): late, the end
    /// ahead, or the contract ended.
    ArrearsNotice(ArrearsNotice),
    /// The term's end ahead: the renewal or the contract's end (issue 67, decision 270).
    TermNotice(TermNotice),
    /// A collective life contract's arrears told to its policyholder (the estipulante; Lei
    /// 15.040/2024 art. 21 §2, decision 272).
    PolicyholderNotice(PolicyholderNotice),
    /// The person's own link (decision 287): to file a request or to give or revoke consents.
    PersonLink(PersonLinkNotice),
    /// The person's own request filed: its protocol and deadline (decision 287).
    SubjectRequestFiled(SubjectRequestFiledNotice),
    /// The insurer asks the proponent for documents (decision 289): what, and the one-time link
    /// to the page that takes them.
    DocumentsRequested(DocumentsRequestedNotice),
}

/// A request for documents mailed to the proponent: the proposal, what is asked, the link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentsRequestedNotice {
    pub identifier: String,
    pub product: String,
    pub items: Vec<String>,
    pub note: Option<String>,
    pub link: String,
}

/// The link mailed to the person: what it is for, and for how long it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonLinkNotice {
    pub link: String,
    /// What was asked, as people read it.
    pub purpose: String,
    pub valid_minutes: i64,
}

/// A request the person filed through their link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubjectRequestFiledNotice {
    pub protocol: String,
    pub kind: String,
    /// The full answer's deadline, as people read it.
    pub deadline: String,
}

/// The policyholder's copy of an arrears notice: whom it goes to, and the insured's notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyholderNotice {
    /// The policyholder's name, as its product names it.
    pub policyholder: String,
    /// The notice the insured received (its `customer_name` is the insured's).
    pub notice: ArrearsNotice,
}

/// The values of a notice of the term's end, as people read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermNotice {
    /// [`crate::billing::notice_kind::NoticeKind::Renewal`] or `TermEnd`.
    pub kind: crate::billing::notice_kind::NoticeKind,
    pub customer_name: String,
    pub identifier: String,
    /// The certificate's number, of the term ending.
    pub certificate: String,
    pub product: String,
    /// The term's end (`08/12/2027`).
    pub term_end: String,
    /// The day the contract ends when it does not renew (the term's end, or later after a late
    /// notice).
    pub ends_on: String,
    /// The new term's end, for a renewal.
    pub renewed_until: Option<String>,
}

/// The values of a notice of an unpaid premium, as people read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrearsNotice {
    pub kind: crate::billing::notice_kind::NoticeKind,
    pub customer_name: String,
    pub identifier: String,
    /// The certificate's number.
    pub certificate: String,
    pub product: String,
    /// The unpaid charge's period, due date (`08/12/2026`) and amount (`R$ 39,90`).
    pub period: i32,
    pub due_date: String,
    pub amount: String,
    /// The days to pay from the receipt (art. 20 §1).
    pub notice_days: u32,
    /// The first day the contract may end (art. 21), for the notice of the end.
    pub ends_on: String,
    /// What goes back, for the notice of the end made.
    pub refunds: Vec<String>,
}

/// What the customer is told when their refund destination is recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundDestinationNotice {
    pub customer_name: String,
    pub identifier: String,
    pub product: String,
    /// Where, as people read it, the key or account shown in part (`Pix para a chave e-mail m***@…`).
    pub destination: String,
    /// Each refund still to pay (`R$ 12,34 até 15/12/2026`).
    pub owed: Vec<String>,
    /// Their sum, when there are any.
    pub total: Option<String>,
    /// When it was recorded, in Brasília.
    pub at: String,
}

/// The certificate's message: who, which proposal, and the PDF with its SHA-256.
#[derive(Clone, PartialEq, Eq)]
pub struct CertificateNotice {
    pub customer_name: String,
    pub identifier: String,
    pub product: String,
    pub sha256: String,
    pub pdf: Vec<u8>,
}

/// The person's data sent in answer to their request: the protocol, what was asked and the file
/// with its SHA-256.
#[derive(Clone, PartialEq, Eq)]
pub struct PersonalDataNotice {
    pub protocol: String,
    /// What was asked, as people read it.
    pub kind: String,
    pub file_name: String,
    pub sha256: String,
    pub json: Vec<u8>,
}

/// What the customer is told when a proposal ends with money returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndNotice {
    pub customer_name: String,
    pub identifier: String,
    pub product: String,
    /// The refusal's justification, or the cancellation's or withdrawal's reason as the customer
    /// gave it.
    pub reason: String,
    /// The cancellation's or withdrawal's protocol.
    pub protocol: Option<String>,
    /// Each refund as people read it (`R$ 40,02 no cartão`, `R$ 0,12 por transferência`).
    pub refunds: Vec<String>,
    /// When it took effect, in Brasília (`27/11/2026 14:03`).
    pub at: String,
}

impl std::fmt::Debug for MailKind {
    // The recovery link is a credential: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MailKind::PasswordRecovery { valid_hours, .. } => {
                write!(f, "PasswordRecovery {{ link: ***, valid_hours: {valid_hours} }}")
            }
            MailKind::PasswordChanged => f.write_str("PasswordChanged"),
            // The notices carry the customer's name: the kind and the proposal only.
            MailKind::ProposalRefused(n) => write!(f, "ProposalRefused {{ identifier: {} }}", n.identifier),
            MailKind::ContractCancelled(n) => write!(f, "ContractCancelled {{ identifier: {} }}", n.identifier),
            MailKind::WithdrawalConfirmed(n) => write!(f, "WithdrawalConfirmed {{ identifier: {} }}", n.identifier),
            MailKind::Certificate(n) => write!(
                f,
                "Certificate {{ identifier: {}, sha256: {} }}",
                n.identifier, n.sha256
            ),
            // The file is the person's data: the protocol and the digest only.
            MailKind::PersonalData(n) => write!(f, "PersonalData {{ protocol: {}, sha256: {} }}", n.protocol, n.sha256),
            MailKind::Terms { notice, .. } => write!(
                f,
                "Terms {{ identifier: {}, sha256: {} }}",
                notice.identifier, notice.sha256
            ),
            MailKind::RefundDestination(n) => write!(f, "RefundDestination {{ identifier: {} }}", n.identifier),
            MailKind::ArrearsNotice(n) => write!(
                f,
                "ArrearsNotice {{ kind: {}, identifier: {} }}",
                n.kind.as_str(),
                n.identifier
            ),
            MailKind::TermNotice(n) => write!(
                f,
                "TermNotice {{ kind: {}, identifier: {} }}",
                n.kind.as_str(),
                n.identifier
            ),
            MailKind::PolicyholderNotice(n) => write!(
                f,
                "PolicyholderNotice {{ kind: {}, identifier: {} }}",
                n.notice.kind.as_str(),
                n.notice.identifier
            ),
            // The link is a credential.
            MailKind::PersonLink(n) => write!(f, "PersonLink {{ link: ***, valid_minutes: {} }}", n.valid_minutes),
            MailKind::SubjectRequestFiled(n) => write!(f, "SubjectRequestFiled {{ protocol: {} }}", n.protocol),
            // The link is a credential, and what is asked may be health data.
            MailKind::DocumentsRequested(n) => write!(
                f,
                "DocumentsRequested {{ identifier: {}, items: {}, link: *** }}",
                n.identifier,
                n.items.len()
            ),
        }
    }
}

impl MailKind {
    pub fn name(&self) -> &'static str {
        match self {
            MailKind::PasswordRecovery { .. } => "recuperacao_senha",
            MailKind::PasswordChanged => "senha_alterada",
            MailKind::ProposalRefused(_) => "proposta_recusada",
            MailKind::ContractCancelled(_) => "contrato_cancelado",
            MailKind::WithdrawalConfirmed(_) => "arrependimento_confirmado",
            MailKind::Certificate(_) => "certificado",
            MailKind::Terms { .. } => "termos",
            MailKind::PersonalData(_) => "dados_pessoais",
            MailKind::RefundDestination(_) => "destino_reembolso",
            MailKind::ArrearsNotice(_) => "aviso_cobranca",
            MailKind::TermNotice(_) => "aviso_vigencia",
            MailKind::PolicyholderNotice(_) => "aviso_estipulante",
            MailKind::PersonLink(_) => "link_titular",
            MailKind::SubjectRequestFiled(_) => "pedido_titular_registrado",
            MailKind::DocumentsRequested(_) => "pedido_documentos",
        }
    }
}

/// Sends messages after the caller's work is done, without holding it: the adapter delivers in the
/// background and retries a few times; a failure is logged, never returned (an answer that changed
/// with the mail server's health would reveal who has an account).
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait MailOutbox: Send + Sync {
    fn enqueue(&self, message: MailMessage);
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("e-mail não enviado: {0}")]
pub struct MailError(pub String);

/// Sends one message now and answers once the mail server (or the mail folder) took it: for
/// messages whose delivery is recorded (the certificate), which a failure leaves to be sent again.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait::async_trait]
pub trait MailSender: Send + Sync {
    async fn send(&self, message: MailMessage) -> Result<(), MailError>;
}
