//! The person's own channel (decisions 196, 287 and 288; LGPD art. 8, § 2, art. 18, § 3 and
//! art. 19): a public page takes a CPF, what the person wants and an e-mail, and always answers
//! the same, so that it tells no one whether a CPF is held. When the e-mail is one held for the
//! CPF, a link goes to it (256 random bits, kept only as their SHA-256, valid 30 minutes, bound to
//! the CPF and to what was asked). The page the link opens files the request (channel `email`,
//! its protocol and 15-day deadline, answered from the console as every other) or shows the
//! person's consents to give or revoke, each act recorded with its proof: which link, to which
//! masked address, from which client, on which version of the text. Control of the mailbox is the
//! proof of identity; a person whose e-mail is not held asks through the back office.

use crate::auth::model::ThrottleKey;
use crate::auth::ports::{Admission, SignInThrottle};
use crate::auth::throttle::Tier;
use crate::clock::Clock;
use crate::input::{Field, Reading};
use crate::mail::{MailKind, MailMessage, MailOutbox, PersonLinkNotice, SubjectRequestFiledNotice};
use crate::privacy::consents::{
    CONSENT_TEXT_VERSION, ConsentEvidence, ConsentOutcome, ConsentPurpose, ConsentRecord, LinkAct, NewConsent,
};
use crate::privacy::subject_requests::{ANSWER_DAYS, NewSubjectRequest, RequestChannel, RequestKind, SubjectRequest};
use crate::privacy::{PersonalDataStore, PrivacyError};
use crate::recovery::{SecretGenerator, token_hash};
use crate::store::StoreError;
use crate::validation::{Rejection, Violations, codes};
use crate::values::{Cpf, Email};
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use std::sync::Arc;

/// Who the records name as acting: the person, by the link.
pub const BY_THE_PERSON: &str = "titular (link por e-mail)";

/// What the person came for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkPurpose {
    /// To file a request (art. 18).
    Request(RequestKind),
    /// To give or revoke consents (art. 8, § 5).
    Consents,
}

impl LinkPurpose {
    /// Every purpose, in the order the page offers them.
    pub fn all() -> Vec<LinkPurpose> {
        let mut all: Vec<LinkPurpose> = RequestKind::ALL.iter().copied().map(LinkPurpose::Request).collect();
        all.push(LinkPurpose::Consents);
        all
    }

    pub fn code(self) -> &'static str {
        match self {
            LinkPurpose::Request(kind) => kind.code(),
            LinkPurpose::Consents => "consentimentos",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            LinkPurpose::Request(kind) => kind.label(),
            LinkPurpose::Consents => "Dar ou revogar consentimentos (art. 8º)",
        }
    }

    pub fn parse(text: &str) -> Result<Self, Rejection> {
        Self::all().into_iter().find(|p| p.code() == text).ok_or_else(|| {
            let known: Vec<&str> = Self::all().iter().map(|p| p.code()).collect();
            Rejection::new(
                codes::INVALID_VALUE,
                format!("pedido deve ser um destes: {}", known.join(", ")),
            )
        })
    }
}

/// What the public page took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkAsk {
    pub cpf: Cpf,
    pub purpose: LinkPurpose,
    pub email: Email,
}

impl LinkAsk {
    /// The page's three fields (`cpf`, `pedido`, `email`), every bad one named.
    pub fn read(cpf: Field<String>, purpose: Field<String>, email: Field<String>) -> Result<Self, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let cpf = r.parse("cpf", cpf, Cpf::parse);
        let purpose = r.parse("pedido", purpose, LinkPurpose::parse);
        let email = r.parse("email", email, Email::parse);
        match (cpf, purpose, email) {
            (Some(cpf), Some(purpose), Some(email)) if v.is_empty() => Ok(LinkAsk { cpf, purpose, email }),
            _ => Err(v),
        }
    }
}

/// A link to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPersonLink {
    pub cpf: Cpf,
    pub purpose: LinkPurpose,
    pub token_sha256: String,
    /// The address it goes to, masked.
    pub sent_to: String,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// A link as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonLink {
    pub id: i64,
    pub cpf: Cpf,
    pub purpose: LinkPurpose,
    pub sent_to: String,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// When its request was filed (a consents link is never spent: it serves its half hour).
    pub used_at: Option<DateTime<Utc>>,
}

impl PersonLink {
    /// Whether the page may act on it at `now`.
    pub fn usable(&self, now: DateTime<Utc>) -> bool {
        self.expires_at > now && self.used_at.is_none()
    }
}

/// The person's consents as the page shows them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PersonConsents {
    /// Whether the person's data is blocked (art. 18, IV): they may revoke, not consent.
    pub blocked: bool,
    /// Every record, oldest first.
    pub records: Vec<StoredConsentRecord>,
}

/// One consent record, as the page needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredConsentRecord {
    pub purpose: ConsentPurpose,
    pub granted: bool,
    pub at: DateTime<Utc>,
}

impl PersonConsents {
    /// Whether the consent to `purpose` stands (the latest record's answer).
    pub fn stands(&self, purpose: ConsentPurpose) -> Option<&StoredConsentRecord> {
        self.records.iter().rev().find(|r| r.purpose == purpose)
    }
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PersonLinkStore: Send + Sync {
    /// The e-mails held for the CPF (its registrations' and its proposals' copies').
    async fn emails_held(&self, cpf: &Cpf) -> Result<Vec<String>, StoreError>;
    /// Links issued for the CPF at or after `since`.
    async fn issued_since(&self, cpf: &Cpf, since: DateTime<Utc>) -> Result<u32, StoreError>;
    async fn issue(&self, link: &NewPersonLink) -> Result<(), StoreError>;
    async fn find(&self, token_sha256: &str) -> Result<Option<PersonLink>, StoreError>;
    /// In one transaction: spends the link (only if unspent and unexpired at `received_at`) and
    /// files the request under a new protocol, received by the person. `None`: the link was
    /// spent or expired meanwhile.
    async fn file_request(
        &self,
        link_id: i64,
        request: &NewSubjectRequest,
        received_at: DateTime<Utc>,
        deadline: DateTime<Utc>,
    ) -> Result<Option<SubjectRequest>, StoreError>;
    async fn consents(&self, cpf: &Cpf) -> Result<PersonConsents, StoreError>;
}

/// The limits and the link's page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonLinkPolicy {
    pub valid_minutes: i64,
    /// Links mailed per CPF per hour; beyond it the page answers the same and nothing is sent.
    pub max_links_per_cpf_per_hour: u32,
    /// Asks per client address per hour; beyond it, 429.
    pub max_asks_per_address_per_hour: u32,
    /// The page that receives `?token=`; built from the configured public URL, never from a request.
    pub link_base: String,
}

impl Default for PersonLinkPolicy {
    fn default() -> Self {
        Self {
            valid_minutes: 30,
            max_links_per_cpf_per_hour: 3,
            max_asks_per_address_per_hour: 10,
            link_base: "http://127.0.0.1:8080/privacidade/link".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PersonLinkError {
    #[error("muitas solicitações; tente novamente mais tarde")]
    Throttled { until: DateTime<Utc> },
    #[error("link não encontrado")]
    Unknown,
    #[error("link expirado ou já utilizado")]
    Spent,
    /// The link is for something else (a consents link used to file a request, say).
    #[error("este link não serve para isto")]
    OtherPurpose,
    #[error(transparent)]
    Privacy(#[from] PrivacyError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the link's page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenedLink {
    pub link: PersonLink,
    /// For a consents link, the person's consents.
    pub consents: Option<PersonConsents>,
}

/// Where the request came from, for the proof of a consent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Client {
    pub address: Option<String>,
    pub user_agent: Option<String>,
}

#[derive(Clone)]
pub struct PersonChannel {
    pub links: Arc<dyn PersonLinkStore>,
    /// Records the consents, under the same rules as the back office's.
    pub personal_data: Arc<dyn PersonalDataStore>,
    pub secrets: Arc<dyn SecretGenerator>,
    pub outbox: Arc<dyn MailOutbox>,
    pub throttle: Arc<dyn SignInThrottle>,
    pub clock: Arc<dyn Clock>,
    pub policy: PersonLinkPolicy,
}

impl PersonChannel {
    /// The public page's form. Answers the same whether or not the CPF is held and the e-mail is
    /// its; only the per-address limit (which says nothing about the CPF) refuses.
    #[tracing::instrument(skip_all, fields(cpf = %ask.cpf.masked(), purpose = ask.purpose.code()))]
    pub async fn ask(&self, ask: LinkAsk, client_address: Option<String>) -> Result<(), PersonLinkError> {
        let now = self.clock.now();
        if let Some(address) = client_address {
            let hourly = Tier {
                max_failures: self.policy.max_asks_per_address_per_hour,
                window_secs: 3600,
                base_block_secs: 3600,
                max_block_secs: 3600,
            };
            let counter = [(ThrottleKey::person_link(&address), hourly)];
            if let Admission::Refused { until } = self.throttle.admit(&counter, now).await? {
                return Err(PersonLinkError::Throttled { until });
            }
        }
        let held = self.links.emails_held(&ask.cpf).await?;
        if !held.iter().any(|e| e.eq_ignore_ascii_case(ask.email.as_str())) {
            tracing::info!("person's link asked with an e-mail not held for the CPF; nothing sent");
            return Ok(());
        }
        if self.links.issued_since(&ask.cpf, now - Duration::hours(1)).await? >= self.policy.max_links_per_cpf_per_hour
        {
            tracing::warn!("person's links per hour exhausted; nothing sent");
            return Ok(());
        }
        let token = self.secrets.recovery_token();
        let expires_at = now + Duration::minutes(self.policy.valid_minutes);
        self.links
            .issue(&NewPersonLink {
                cpf: ask.cpf.clone(),
                purpose: ask.purpose,
                token_sha256: token_hash(&token),
                sent_to: ask.email.masked(),
                issued_at: now,
                expires_at,
            })
            .await?;
        self.outbox.enqueue(MailMessage {
            to: ask.email,
            kind: MailKind::PersonLink(PersonLinkNotice {
                link: format!("{}?token={}", self.policy.link_base, token),
                purpose: ask.purpose.label().to_owned(),
                valid_minutes: self.policy.valid_minutes,
            }),
        });
        tracing::info!("person's link issued");
        Ok(())
    }

    /// The link's page: what it is for and, for consents, where they stand.
    pub async fn open(&self, token: &str) -> Result<OpenedLink, PersonLinkError> {
        let link = self.usable(token).await?;
        let consents = match link.purpose {
            LinkPurpose::Consents => Some(self.links.consents(&link.cpf).await?),
            LinkPurpose::Request(_) => None,
        };
        Ok(OpenedLink { link, consents })
    }

    /// Files the request the link was mailed for, once; the person is mailed its protocol.
    #[tracing::instrument(skip_all)]
    pub async fn file_request(&self, token: &str) -> Result<SubjectRequest, PersonLinkError> {
        let link = self.usable(token).await?;
        let LinkPurpose::Request(kind) = link.purpose else {
            return Err(PersonLinkError::OtherPurpose);
        };
        let received_at = self.clock.now();
        let deadline = received_at + Duration::days(ANSWER_DAYS);
        let request = NewSubjectRequest {
            cpf: link.cpf.clone(),
            kind,
            channel: RequestChannel::Email,
            note: None,
        };
        let filed = self
            .links
            .file_request(link.id, &request, received_at, deadline)
            .await?
            .ok_or(PersonLinkError::Spent)?;
        if let Some(to) = self.address_of(&link).await? {
            self.outbox.enqueue(MailMessage {
                to,
                kind: MailKind::SubjectRequestFiled(SubjectRequestFiledNotice {
                    protocol: filed.protocol.to_string(),
                    kind: kind.label().to_owned(),
                    deadline: crate::contract::formats::date(
                        filed
                            .deadline
                            .with_timezone(&crate::contract::formats::brasilia())
                            .date_naive(),
                    ),
                }),
            });
        }
        tracing::info!(protocol = %filed.protocol, "data subject request filed by the person");
        Ok(filed)
    }

    /// Records the person's own consent or revocation, with the link, the client and the text
    /// read as its proof.
    #[tracing::instrument(skip_all, fields(purpose = purpose.code(), granted))]
    pub async fn consent(
        &self,
        token: &str,
        purpose: ConsentPurpose,
        granted: bool,
        client: Client,
    ) -> Result<ConsentRecord, PersonLinkError> {
        let link = self.usable(token).await?;
        if link.purpose != LinkPurpose::Consents {
            return Err(PersonLinkError::OtherPurpose);
        }
        let consent = NewConsent {
            purpose,
            granted,
            evidence: Some(ConsentEvidence::OwnLink(LinkAct {
                link_id: link.id,
                sent_to: link.sent_to.clone(),
                client_address: client.address,
                user_agent: client.user_agent,
                text_version: CONSENT_TEXT_VERSION.to_owned(),
                text_sha256: purpose.text_sha256(),
            })),
        };
        match self
            .personal_data
            .record_consent(&link.cpf, consent, BY_THE_PERSON)
            .await?
        {
            ConsentOutcome::Recorded(record) => {
                tracing::info!("consent recorded by the person");
                Ok(record)
            }
            ConsentOutcome::NothingHeld => Err(PrivacyError::NothingHeld.into()),
            ConsentOutcome::Blocked => Err(PrivacyError::PersonBlocked.into()),
        }
    }

    async fn usable(&self, token: &str) -> Result<PersonLink, PersonLinkError> {
        let link = self
            .links
            .find(&token_hash(token))
            .await?
            .ok_or(PersonLinkError::Unknown)?;
        if !link.usable(self.clock.now()) {
            return Err(PersonLinkError::Spent);
        }
        Ok(link)
    }

    /// The held address the link went to (matched by its masked form), for the confirmation.
    async fn address_of(&self, link: &PersonLink) -> Result<Option<Email>, StoreError> {
        let held = self.links.emails_held(&link.cpf).await?;
        Ok(held
            .iter()
            .filter_map(|e| Email::parse(e).ok())
            .find(|e| e.masked() == link.sent_to))
    }
}

#[cfg(test)]
mod tests;
