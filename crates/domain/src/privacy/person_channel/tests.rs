//! The person's own channel over mocked ports: who gets a link, what it can do, and what proof a
//! consent keeps.

use super::*;
use crate::auth::ports::MockSignInThrottle;
use crate::mail::MockMailOutbox;
use crate::privacy::MockPersonalDataStore;
use crate::proposals::requests::Protocol;
use crate::recovery::MockSecretGenerator;
use crate::testing::At;
use chrono::TimeZone;
use std::sync::Mutex;

const CPF: &str = "52998224725";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 14, 12, 0, 0).unwrap()
}

fn cpf() -> Cpf {
    Cpf::parse(CPF).unwrap()
}

fn ask(purpose: LinkPurpose, email: &str) -> LinkAsk {
    LinkAsk {
        cpf: cpf(),
        purpose,
        email: Email::parse(email).unwrap(),
    }
}

fn link(purpose: LinkPurpose, expires_in_minutes: i64, used: bool) -> PersonLink {
    PersonLink {
        id: 41,
        cpf: cpf(),
        purpose,
        sent_to: Email::parse("maria@exemplo.com.br").unwrap().masked(),
        issued_at: now() - Duration::minutes(1),
        expires_at: now() + Duration::minutes(expires_in_minutes),
        used_at: used.then(now),
    }
}

struct Mocks {
    links: MockPersonLinkStore,
    personal_data: MockPersonalDataStore,
    outbox: MockMailOutbox,
    throttle: MockSignInThrottle,
    sent: Arc<Mutex<Vec<MailMessage>>>,
}

impl Mocks {
    fn new() -> Self {
        let mut throttle = MockSignInThrottle::new();
        throttle.expect_admit().returning(|_, _| Ok(Admission::Admitted));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let mut outbox = MockMailOutbox::new();
        let into = sent.clone();
        outbox.expect_enqueue().returning(move |m| into.lock().unwrap().push(m));
        let mut links = MockPersonLinkStore::new();
        links
            .expect_emails_held()
            .returning(|_| Ok(vec!["Maria@Exemplo.com.br".into(), "outra@exemplo.com.br".into()]));
        Self {
            links,
            personal_data: MockPersonalDataStore::new(),
            outbox,
            throttle,
            sent,
        }
    }

    fn channel(self) -> (PersonChannel, Arc<Mutex<Vec<MailMessage>>>) {
        let mut secrets = MockSecretGenerator::new();
        secrets.expect_recovery_token().returning(|| "segredo".into());
        let channel = PersonChannel {
            links: Arc::new(self.links),
            personal_data: Arc::new(self.personal_data),
            secrets: Arc::new(secrets),
            outbox: Arc::new(self.outbox),
            throttle: Arc::new(self.throttle),
            clock: Arc::new(At(now())),
            policy: PersonLinkPolicy::default(),
        };
        (channel, self.sent)
    }
}

#[tokio::test]
async fn an_email_held_for_the_cpf_gets_a_link_bound_to_what_was_asked_kept_only_by_its_digest() {
    let mut mocks = Mocks::new();
    mocks.links.expect_issued_since().returning(|_, _| Ok(0));
    mocks
        .links
        .expect_issue()
        .withf(|l| {
            l.cpf.as_str() == CPF
                && l.purpose == LinkPurpose::Request(RequestKind::Access)
                && l.token_sha256 == token_hash("segredo")
                && l.sent_to == Email::parse("maria@exemplo.com.br").unwrap().masked()
                && l.expires_at == now() + Duration::minutes(30)
        })
        .times(1)
        .returning(|_| Ok(()));
    let (channel, sent) = mocks.channel();
    channel
        .ask(
            ask(LinkPurpose::Request(RequestKind::Access), "maria@exemplo.com.br"),
            Some("203.0.113.9".into()),
        )
        .await
        .unwrap();
    let sent = sent.lock().unwrap();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].to.as_str(), "maria@exemplo.com.br");
    let MailKind::PersonLink(notice) = &sent[0].kind else {
        panic!("{:?}", sent[0].kind)
    };
    assert_eq!(notice.link, "http://127.0.0.1:8080/privacidade/link?token=segredo");
    assert_eq!(notice.valid_minutes, 30);
    assert!(notice.purpose.contains("Acesso"));
}

#[tokio::test]
async fn an_email_not_held_and_a_cpf_past_its_hourly_links_get_the_same_answer_and_nothing() {
    let mut mocks = Mocks::new();
    mocks.links.expect_issued_since().returning(|_, _| Ok(3));
    mocks.links.expect_issue().never();
    let (channel, sent) = mocks.channel();
    channel
        .ask(ask(LinkPurpose::Consents, "estranho@exemplo.com.br"), None)
        .await
        .unwrap();
    channel
        .ask(ask(LinkPurpose::Consents, "maria@exemplo.com.br"), None)
        .await
        .unwrap();
    assert!(sent.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_address_past_its_hourly_asks_is_refused_before_anything_is_looked_up() {
    let mut mocks = Mocks::new();
    let until = now() + Duration::minutes(20);
    mocks.throttle = MockSignInThrottle::new();
    mocks
        .throttle
        .expect_admit()
        .withf(|keys, _| keys[0].0.scope() == "privacy_link_ip" && keys[0].1.max_failures == 10)
        .returning(move |_, _| Ok(Admission::Refused { until }));
    mocks.links = MockPersonLinkStore::new();
    let (channel, _) = mocks.channel();
    let refused = channel
        .ask(
            ask(LinkPurpose::Consents, "maria@exemplo.com.br"),
            Some("203.0.113.9".into()),
        )
        .await
        .unwrap_err();
    assert_eq!(refused, PersonLinkError::Throttled { until });
}

#[tokio::test]
async fn a_request_link_files_once_and_mails_the_protocol_to_the_address_it_went_to() {
    let mut mocks = Mocks::new();
    mocks
        .links
        .expect_find()
        .withf(|h| h == token_hash("segredo"))
        .returning(|_| Ok(Some(link(LinkPurpose::Request(RequestKind::Portability), 10, false))));
    mocks
        .links
        .expect_file_request()
        .withf(|id, r, at, deadline| {
            *id == 41
                && r.kind == RequestKind::Portability
                && r.channel == RequestChannel::Email
                && *at == now()
                && *deadline == now() + Duration::days(15)
        })
        .returning(|_, r, at, deadline| {
            Ok(Some(SubjectRequest {
                protocol: Protocol::new(at.date_naive(), 7),
                cpf: r.cpf.as_str().into(),
                kind: r.kind,
                channel: r.channel,
                note: None,
                received_at: at,
                received_by: BY_THE_PERSON.into(),
                deadline,
                answer: None,
            }))
        });
    let (channel, sent) = mocks.channel();
    let filed = channel.file_request("segredo").await.unwrap();
    assert_eq!(filed.kind, RequestKind::Portability);
    let sent = sent.lock().unwrap();
    assert_eq!(sent[0].to.as_str(), "maria@exemplo.com.br", "the held address, as held");
    let MailKind::SubjectRequestFiled(notice) = &sent[0].kind else {
        panic!("{:?}", sent[0].kind)
    };
    assert_eq!(notice.protocol, filed.protocol.to_string());
    assert_eq!(notice.deadline, "29/12/2026");
}

#[tokio::test]
async fn a_link_expired_spent_unknown_or_for_something_else_does_nothing() {
    let mut mocks = Mocks::new();
    mocks.links.expect_find().returning(|h| {
        Ok(if h == token_hash("expirado") {
            Some(link(LinkPurpose::Request(RequestKind::Access), 0, false))
        } else if h == token_hash("usado") {
            Some(link(LinkPurpose::Request(RequestKind::Access), 10, true))
        } else if h == token_hash("consentimentos") {
            Some(link(LinkPurpose::Consents, 10, false))
        } else if h == token_hash("pedido") {
            Some(link(LinkPurpose::Request(RequestKind::Access), 10, false))
        } else {
            None
        })
    });
    mocks.links.expect_file_request().never();
    mocks.personal_data.expect_record_consent().never();
    let (channel, sent) = mocks.channel();
    assert_eq!(
        channel.file_request("expirado").await.unwrap_err(),
        PersonLinkError::Spent
    );
    assert_eq!(channel.file_request("usado").await.unwrap_err(), PersonLinkError::Spent);
    assert_eq!(
        channel.file_request("outro").await.unwrap_err(),
        PersonLinkError::Unknown
    );
    assert_eq!(
        channel.file_request("consentimentos").await.unwrap_err(),
        PersonLinkError::OtherPurpose
    );
    assert_eq!(
        channel
            .consent("pedido", ConsentPurpose::Offers, true, Client::default())
            .await
            .unwrap_err(),
        PersonLinkError::OtherPurpose
    );
    assert!(sent.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_consent_by_link_keeps_the_link_the_client_and_the_text_read_as_its_proof() {
    let mut mocks = Mocks::new();
    mocks
        .links
        .expect_find()
        .returning(|_| Ok(Some(link(LinkPurpose::Consents, 10, false))));
    mocks
        .personal_data
        .expect_record_consent()
        .withf(|cpf, consent, by| {
            let Some(ConsentEvidence::OwnLink(act)) = &consent.evidence else {
                return false;
            };
            cpf.as_str() == CPF
                && by == BY_THE_PERSON
                && consent.channel() == "link"
                && act.link_id == 41
                && act.client_address.as_deref() == Some("203.0.113.9")
                && act.user_agent.as_deref() == Some("Firefox")
                && act.text_version == CONSENT_TEXT_VERSION
                && act.text_sha256 == ConsentPurpose::PartnerOffers.text_sha256()
        })
        .returning(|_, consent, by| {
            Ok(ConsentOutcome::Recorded(ConsentRecord {
                purpose: consent.purpose,
                granted: consent.granted,
                at: now(),
                by: by.into(),
                channel: "link".into(),
                evidence: consent.evidence.as_ref().map(ConsentEvidence::document),
            }))
        });
    let (channel, _) = mocks.channel();
    let client = Client {
        address: Some("203.0.113.9".into()),
        user_agent: Some("Firefox".into()),
    };
    let record = channel
        .consent("segredo", ConsentPurpose::PartnerOffers, true, client)
        .await
        .unwrap();
    let evidence = record.evidence.unwrap();
    assert_eq!(evidence["textoVersao"], CONSENT_TEXT_VERSION);
    assert_eq!(evidence["link"], 41);
}

#[test]
fn the_page_names_every_bad_field() {
    let refused = LinkAsk::read(
        Field::Given("123".into()),
        Field::Given("apagar".into()),
        Field::Missing,
    )
    .unwrap_err();
    let fields: Vec<&str> = refused.errors().iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["cpf", "pedido", "email"]);
    assert!(refused.errors()[1].message.contains("consentimentos"));
    let read = LinkAsk::read(
        Field::Given("529.982.247-25".into()),
        Field::Given("consentimentos".into()),
        Field::Given("maria@exemplo.com.br".into()),
    )
    .unwrap();
    assert_eq!(read.purpose, LinkPurpose::Consents);
}

#[test]
fn the_standing_consent_is_the_latest_record() {
    let consents = PersonConsents {
        blocked: false,
        records: vec![
            StoredConsentRecord {
                purpose: ConsentPurpose::Offers,
                granted: true,
                at: now() - Duration::days(2),
            },
            StoredConsentRecord {
                purpose: ConsentPurpose::Offers,
                granted: false,
                at: now(),
            },
        ],
    };
    assert_eq!(consents.stands(ConsentPurpose::Offers).map(|r| r.granted), Some(false));
    assert_eq!(consents.stands(ConsentPurpose::PartnerOffers), None);
}
