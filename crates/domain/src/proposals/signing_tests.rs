//! Use-case tests of sending for signature, over mocked ports: provider failures leave the
//! proposal as it was, and a retry resumes where the last attempt stopped.

use super::model::*;
use super::ports::*;
use super::signing::*;
use crate::auth::model::Principal;
use crate::signature::*;
use crate::values::Application;

use std::sync::Arc;

fn principal() -> Principal {
    Principal {
        user_id: 7,
        email: "rep@demo.com.br".into(),
        application: Application::Partner,
        session_id: uuid::Uuid::nil(),
    }
}

fn detail(status: &str, resends: i32) -> ProposalDetail {
    let mut detail = super::signing_fixture::detail(status);
    detail.proposal.resends = resends;
    detail
}

fn keys() -> PartyKeys {
    PartyKeys {
        client: "c".into(),
        association: "a".into(),
        federation: "f".into(),
        enterprise: "e".into(),
    }
}

struct Mocks {
    proposals: MockProposalStore,
    signatures: MockSignatureStore,
    provider: MockSignatureProvider,
    renderer: MockDocumentRenderer,
}

impl Mocks {
    fn new(status: &'static str, resends: i32) -> Self {
        let mut proposals = MockProposalStore::new();
        proposals
            .expect_detail()
            .returning(move |_, _| Ok(Some(detail(status, resends))));
        let mut renderer = MockDocumentRenderer::new();
        renderer.expect_render().returning(|_| Ok(b"%PDF-".to_vec()));
        let mut provider = MockSignatureProvider::new();
        provider
            .expect_sign_url()
            .returning(|k| format!("https://x/sandbox/sign/{k}"));
        Self {
            proposals,
            signatures: MockSignatureStore::new(),
            provider,
            renderer,
        }
    }

    fn service(self) -> SigningService {
        let mut partners = MockPartnerDirectory::new();
        partners.expect_representation().returning(|_| {
            Ok(Some(Representation {
                representative_id: 5,
                partner: PartnerLink {
                    partner_id: 3,
                    partner_document: "11222333000181".into(),
                    representative_id: Some(5),
                    association_cnpj: None,
                    federation_cnpj: None,
                },
            }))
        });
        SigningService {
            proposals: Arc::new(self.proposals),
            partners: Arc::new(partners),
            signatures: Arc::new(self.signatures),
            provider: Arc::new(self.provider),
            renderer: Arc::new(self.renderer),
            clock: Arc::new(crate::clock::SystemClock),
            max_resends: 3,
            callback_max_age: chrono::Duration::days(15),
        }
    }
}

#[tokio::test]
async fn a_failed_notification_leaves_the_proposal_new_but_keeps_the_saved_steps() {
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_state().returning(|_| Ok(None));
    m.signatures.expect_sealed().returning(|_| Ok(None));
    m.signatures.expect_seal().times(1).returning(|_, d, _| Ok(d.clone()));
    m.provider
        .expect_upload_document()
        .times(1)
        .returning(|_, _| Ok("doc-1".into()));
    m.signatures.expect_save_document().times(1).returning(|_, _, _| Ok(()));
    m.provider
        .expect_add_signers()
        .withf(|_, signers| signers.len() == 4)
        .times(1)
        .returning(|_, _| Ok(keys()));
    m.signatures
        .expect_save_parties()
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    m.provider
        .expect_notify()
        .returning(|_, _| Err(ProviderError::Unavailable("timeout".into())));
    m.signatures.expect_change_status().never();
    let result = m.service().send(&principal(), 9, "id-1").await;
    assert_eq!(
        result,
        Err(SigningError::Provider(ProviderError::Unavailable("timeout".into())))
    );
}

#[tokio::test]
async fn a_retry_resumes_without_a_second_envelope() {
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_state().returning(|_| {
        Ok(Some(SignatureState {
            id: 1,
            document_key: Some("doc-1".into()),
            keys: Some(keys()),
            sign_url: Some("https://x/sandbox/sign/c".into()),
        }))
    });
    m.provider.expect_upload_document().never();
    m.provider.expect_add_signers().never();
    m.provider.expect_notify().times(1).returning(|_, _| Ok(()));
    m.signatures.expect_change_status().times(1).returning(|c| {
        Ok(crate::proposals::lifecycle::StatusEvent {
            id: 1,
            proposal_id: c.proposal_id,
            kind: "ALTERAÇÃO_STATUS".into(),
            from: c.from.to_string(),
            to: c.to.to_string(),
            changed_by: c.changed_by.clone(),
            changed_at: c.at,
            sequence: 1,
            reason: None,
        })
    });
    assert_eq!(
        m.service().send(&principal(), 9, "id-1").await,
        Ok("https://x/sandbox/sign/c".into())
    );
}

#[tokio::test]
async fn a_failed_upload_saves_nothing_but_the_sealed_document() {
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_state().returning(|_| Ok(None));
    m.signatures.expect_sealed().returning(|_| Ok(None));
    m.signatures.expect_seal().times(1).returning(|_, d, _| Ok(d.clone()));
    m.provider
        .expect_upload_document()
        .returning(|_, _| Err(ProviderError::Rejected("422".into())));
    m.signatures.expect_save_document().never();
    m.signatures.expect_change_status().never();
    assert!(matches!(
        m.service().send(&principal(), 9, "id-1").await,
        Err(SigningError::Provider(_))
    ));
}

#[tokio::test]
async fn a_failed_resend_is_not_counted() {
    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 1);
    m.signatures.expect_state().returning(|_| {
        Ok(Some(SignatureState {
            id: 1,
            document_key: Some("doc-1".into()),
            keys: Some(keys()),
            sign_url: Some("u".into()),
        }))
    });
    m.provider
        .expect_notify()
        .returning(|_, _| Err(ProviderError::Unavailable("503".into())));
    m.signatures.expect_count_resend().never();
    assert!(matches!(
        m.service().send(&principal(), 9, "id-1").await,
        Err(SigningError::Provider(_))
    ));
}

#[tokio::test]
async fn a_callback_older_than_the_window_is_refused_before_anything_is_recorded() {
    use crate::signature::{ProviderEvent, ProviderEventKind};
    let event_at = |age: chrono::Duration| ProviderEvent {
        event_id: "e1".into(),
        request_key: "k1".into(),
        kind: ProviderEventKind::Signed,
        at: chrono::Utc::now() - age,
        latitude: None,
        longitude: None,
    };
    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    let old = event_at(chrono::Duration::days(16));
    m.provider
        .expect_parse_callback()
        .returning(move |_, _| Ok(old.clone()));
    m.signatures.expect_record_party_event().never();
    assert_eq!(
        m.service().callback(&[], b"{}").await.unwrap_err(),
        SigningError::Callback(CallbackError::Stale)
    );

    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    let recent = event_at(chrono::Duration::days(14));
    m.provider
        .expect_parse_callback()
        .returning(move |_, _| Ok(recent.clone()));
    m.signatures
        .expect_record_party_event()
        .times(1)
        .returning(|_, _| Ok(PartyEventOutcome::Recorded { moved_to: None }));
    assert!(m.service().callback(&[], b"{}").await.is_ok());
}

#[tokio::test]
async fn the_bytes_sent_are_the_bytes_sealed_first_and_the_document_serves_them_ever_after() {
    let first = SealedDocument::of(b"%PDF- as first sealed".to_vec());
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_state().returning(|_| Ok(None));
    m.signatures.expect_sealed().returning(|_| Ok(None));
    // Another send sealed first: this one's rendering is not what is kept, nor what is sent.
    let kept = first.clone();
    m.signatures
        .expect_seal()
        .withf(|_, rendered, _| rendered == &SealedDocument::of(b"%PDF-".to_vec()))
        .times(1)
        .returning(move |_, _, _| Ok(kept.clone()));
    let sent = first.pdf.clone();
    m.provider
        .expect_upload_document()
        .withf(move |_, pdf| pdf == sent.as_slice())
        .times(1)
        .returning(|_, _| Err(ProviderError::Unavailable("timeout".into())));
    assert!(m.service().send(&principal(), 9, "id-1").await.is_err());

    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    let stored = first.clone();
    m.signatures
        .expect_sealed()
        .returning(move |_| Ok(Some(stored.clone())));
    m.renderer = MockDocumentRenderer::new();
    m.renderer.expect_render().never();
    let served = m.service().document(&principal(), "id-1").await.unwrap();
    assert_eq!(
        served,
        ProposalDocument {
            document: first,
            sealed: true
        }
    );

    // Before any send: a rendering of the proposal as it stands, not sealed.
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_sealed().returning(|_| Ok(None));
    let draft = m.service().document(&principal(), "id-1").await.unwrap();
    assert_eq!(
        draft,
        ProposalDocument {
            document: SealedDocument::of(b"%PDF-".to_vec()),
            sealed: false
        }
    );
}

#[test]
fn a_sealed_documents_digest_is_the_sha256_of_its_bytes() {
    assert_eq!(
        SealedDocument::of(b"abc".to_vec()).sha256,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}
