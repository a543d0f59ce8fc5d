//! Use-case tests of sending for signature, over mocked ports: provider failures leave the
//! proposal as it was, and a retry resumes where the last attempt stopped.

use super::model::*;
use super::ports::*;
use super::requests::*;
use super::signing::*;
use crate::auth::model::Principal;
use crate::contract::MockDocumentRenderer;
use crate::signature::*;
use crate::values::{Application, PartyStatus, ShippingType};
use PartyStatus::{Pending as PENDING, Signed as SIGNED};

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
    let mut detail = crate::testing::detail(status);
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
    requests: MockCustomerRequestStore,
    renderer: MockDocumentRenderer,
}

impl Mocks {
    fn new(status: &'static str, resends: i32) -> Self {
        let mut proposals = MockProposalStore::new();
        proposals
            .expect_detail()
            .returning(move |_, _| Ok(Some(detail(status, resends))));
        proposals
            .expect_product_terms()
            .returning(|_, _| Ok(Default::default()));
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
            requests: MockCustomerRequestStore::new(),
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
            requests: Arc::new(self.requests),
            renderer: Arc::new(self.renderer),
            claims: Arc::new(crate::proposals::operations::accepting_claims()),
            clock: Arc::new(crate::clock::SystemClock),
            max_resends: 3,
            signing_deadline: chrono::Duration::days(10),
            callback_max_age: chrono::Duration::days(15),
            after_signing: None,
            privacy_contacts: crate::privacy::notice::PrivacyContacts::development(),
        }
    }
}

#[tokio::test]
async fn a_failed_notification_leaves_the_proposal_new_but_keeps_the_saved_steps() {
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_state().returning(|_| Ok(None));
    m.signatures.expect_sealed().returning(|_| Ok(None));
    m.signatures
        .expect_seal()
        .times(1)
        .returning(|_, d, _, _| Ok(d.clone()));
    m.provider
        .expect_upload_document()
        .times(1)
        .returning(|_, _, _| Ok("doc-1".into()));
    m.signatures
        .expect_save_document()
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    m.provider
        .expect_add_signers()
        .withf(|_, signers, channel| signers.len() == 4 && *channel == ShippingType::Whatsapp)
        .times(1)
        .returning(|_, _, _| Ok(keys()));
    m.signatures
        .expect_save_parties()
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    m.provider
        .expect_notify()
        .returning(|_, _, _| Err(ProviderError::Unavailable("timeout".into())));
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
    m.provider.expect_notify().times(1).returning(|_, _, _| Ok(()));
    m.signatures.expect_change_status().times(1).returning(|c| {
        Ok(crate::proposals::lifecycle::StatusEvent {
            id: 1,
            proposal_id: c.proposal_id,
            kind: crate::values::EventKind::StatusChange,
            from: c.from,
            to: c.to,
            changed_by: c.changed_by.clone(),
            changed_at: c.at,
            sequence: 1,
            reason: None,
            reason_category: None,
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
    m.signatures
        .expect_seal()
        .times(1)
        .returning(|_, d, _, _| Ok(d.clone()));
    m.provider
        .expect_upload_document()
        .returning(|_, _, _| Err(ProviderError::Rejected("422".into())));
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
        .returning(|_, _, _| Err(ProviderError::Unavailable("503".into())));
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
        ip: None,
        user_agent: None,
        authentication: None,
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
    m.signatures.expect_party_of_key().returning(|_| Ok(None));
    assert!(m.service().callback(&[], b"{}").await.is_ok());
}

fn party(role: PartyRole, status: PartyStatus) -> PartyRecord {
    PartyRecord {
        role,
        status,
        signed_at: (status == SIGNED).then(chrono::Utc::now),
        ip: Some("203.0.113.9".into()),
        user_agent: Some("Mozilla/5.0".into()),
        authentication: Some("whatsapp".into()),
        latitude: None,
        longitude: None,
    }
}

fn signed_event() -> ProviderEvent {
    ProviderEvent {
        event_id: "e4".into(),
        request_key: "c".into(),
        kind: ProviderEventKind::Signed,
        at: chrono::Utc::now(),
        latitude: None,
        longitude: None,
        ip: None,
        user_agent: None,
        authentication: None,
    }
}

/// Mocks for a repeated signature event on a sent proposal whose parties stand as `statuses` (a
/// repeat re-checks the completion, as the event that completed the set does).
fn completing(statuses: [PartyStatus; 4]) -> Mocks {
    let mut m = Mocks::new("EM ANÁLISE", 0);
    m.signatures
        .expect_record_party_event()
        .returning(|_, _| Ok(PartyEventOutcome::Duplicate));
    m.signatures
        .expect_party_of_key()
        .returning(|_| Ok(Some(("id-1".into(), PartyRole::Client, SIGNED))));
    m.signatures.expect_parties().returning(move |_| {
        Ok(PartyRole::ALL
            .iter()
            .zip(statuses)
            .map(|(role, status)| party(*role, status))
            .collect())
    });
    m.signatures
        .expect_sealed()
        .returning(|_| Ok(Some(SealedDocument::of(b"%PDF- sealed".to_vec()))));
    m.signatures.expect_state().returning(|_| {
        Ok(Some(SignatureState {
            id: 1,
            document_key: Some("env-1".into()),
            keys: Some(keys()),
            sign_url: Some("u".into()),
        }))
    });
    m.provider.expect_name().return_const("Sandbox");
    m.renderer.expect_page_count().returning(|_| Ok(2));
    m
}

/// [`completing`] with what the provider's envelope says of the signatures.
fn completing_with(
    statuses: [PartyStatus; 4],
    reported: Result<Vec<crate::signature::SignerEvidence>, ProviderError>,
) -> Mocks {
    let mut m = completing(statuses);
    m.provider
        .expect_signing_evidence()
        .withf(|envelope| envelope == "env-1")
        .times(1)
        .returning(move |_| reported.clone());
    m
}

#[tokio::test]
async fn what_the_envelope_recorded_fills_what_a_callback_lacked_and_is_kept_a_failure_only_logged() {
    let located = crate::signature::SignerEvidence {
        request_key: "c".into(),
        latitude: Some("-22.9".into()),
        longitude: Some("-43.1".into()),
        ip: Some("198.51.100.1".into()),
        ..Default::default()
    };
    let mut m = completing_with([SIGNED; 4], Ok(vec![located]));
    m.signatures.expect_signed().returning(|_| Ok(None));
    // The client's record gains its location; its address from the callback is kept.
    m.signatures
        .expect_fill_party_evidence()
        .withf(|id, p| {
            *id == 1
                && p.role == PartyRole::Client
                && p.latitude.as_deref() == Some("-22.9")
                && p.ip.as_deref() == Some("203.0.113.9")
        })
        .times(1)
        .returning(|_, _| Ok(()));
    m.renderer
        .expect_append()
        .withf(|_, page| page.texts().join("\n").contains("-22.9, -43.1 (latitude, longitude)"))
        .times(1)
        .returning(|_, _| Ok(b"%PDF- signed".to_vec()));
    m.signatures
        .expect_keep_signed()
        .times(1)
        .returning(|_, d| Ok(d.clone()));
    assert!(m.service().record(&signed_event()).await.is_ok());

    let mut m = completing_with([SIGNED; 4], Err(ProviderError::Unavailable("503".into())));
    m.signatures.expect_signed().returning(|_| Ok(None));
    m.signatures.expect_fill_party_evidence().never();
    m.renderer
        .expect_append()
        .times(1)
        .returning(|_, _| Ok(b"%PDF- signed".to_vec()));
    m.signatures
        .expect_keep_signed()
        .times(1)
        .returning(|_, d| Ok(d.clone()));
    assert!(
        m.service().record(&signed_event()).await.is_ok(),
        "the page says what is stored"
    );
}

#[tokio::test]
async fn the_last_signature_keeps_the_sealed_document_followed_by_its_evidence_page() {
    let mut m = completing_with([SIGNED; 4], Ok(Vec::new()));
    m.signatures.expect_signed().returning(|_| Ok(None));
    let sealed_hash = SealedDocument::of(b"%PDF- sealed".to_vec()).sha256;
    m.renderer
        .expect_append()
        .withf(move |pdf, page| {
            let text = page.texts().join("\n");
            pdf == b"%PDF- sealed"
                && text.contains(&sealed_hash)
                && text.contains("env-1")
                && text.contains("203.0.113.9")
                && text.contains("código enviado por WhatsApp")
                && PartyRole::ALL.iter().all(|r| text.contains(&format!("{}:", r.label())))
        })
        .times(1)
        .returning(|_, _| Ok(b"%PDF- signed".to_vec()));
    m.signatures
        .expect_keep_signed()
        .withf(|_, d| d == &SealedDocument::of(b"%PDF- signed".to_vec()))
        .times(1)
        .returning(|_, d| Ok(d.clone()));
    assert!(m.service().record(&signed_event()).await.is_ok());
}

#[tokio::test]
async fn no_signed_version_while_a_party_has_not_signed_nor_a_second_one_after_the_first() {
    let mut m = completing([SIGNED, SIGNED, PENDING, SIGNED]);
    m.signatures.expect_signed().returning(|_| Ok(None));
    m.renderer.expect_append().never();
    m.signatures.expect_keep_signed().never();
    assert!(m.service().record(&signed_event()).await.is_ok());

    let mut m = completing([SIGNED; 4]);
    m.signatures
        .expect_signed()
        .returning(|_| Ok(Some(SealedDocument::of(b"%PDF- signed".to_vec()))));
    m.renderer.expect_append().never();
    m.signatures.expect_keep_signed().never();
    assert!(m.service().record(&signed_event()).await.is_ok());
}

#[tokio::test]
async fn an_anonymised_proposal_that_never_became_a_contract_has_no_document() {
    for request in [
        DocumentRequest::Latest,
        DocumentRequest::Sealed,
        DocumentRequest::Provider,
    ] {
        let mut m = Mocks::new("CANCELADO", 0);
        m.signatures.expect_documents_removed().returning(|_| Ok(true));
        m.signatures.expect_sealed().never();
        m.signatures.expect_signed().never();
        m.renderer = MockDocumentRenderer::new();
        m.renderer.expect_render().never();
        assert!(matches!(
            m.service().document(&principal(), "id-1", request).await,
            Err(SigningError::DocumentRemoved)
        ));
    }
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
        .withf(|_, rendered, shown, _| {
            rendered == &SealedDocument::of(b"%PDF-".to_vec())
                && shown.notice_version == crate::privacy::notice::NOTICE_VERSION
                && shown.terms_sha256 == crate::privacy::notice::sha256_hex(crate::contract::terms::DEFAULT_TERMS)
        })
        .times(1)
        .returning(move |_, _, _, _| Ok(kept.clone()));
    let sent = first.pdf.clone();
    m.provider
        .expect_upload_document()
        .withf(move |_, pdf, _| pdf == sent.as_slice())
        .times(1)
        .returning(|_, _, _| Err(ProviderError::Unavailable("timeout".into())));
    assert!(m.service().send(&principal(), 9, "id-1").await.is_err());

    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    let stored = first.clone();
    m.signatures
        .expect_sealed()
        .returning(move |_| Ok(Some(stored.clone())));
    m.renderer = MockDocumentRenderer::new();
    m.renderer.expect_render().never();
    m.signatures.expect_signed().returning(|_| Ok(None));
    m.signatures.expect_documents_removed().returning(|_| Ok(false));
    let served = m
        .service()
        .document(&principal(), "id-1", DocumentRequest::Latest)
        .await
        .unwrap();
    assert_eq!(
        served,
        ProposalDocument {
            document: first,
            version: DocumentVersion::Sealed
        }
    );

    // Before any send: a rendering of the proposal as it stands, not sealed.
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_sealed().returning(|_| Ok(None));
    m.signatures.expect_documents_removed().returning(|_| Ok(false));
    m.signatures.expect_signed().returning(|_| Ok(None));
    let draft = m
        .service()
        .document(&principal(), "id-1", DocumentRequest::Latest)
        .await
        .unwrap();
    assert_eq!(
        draft,
        ProposalDocument {
            document: SealedDocument::of(b"%PDF-".to_vec()),
            version: DocumentVersion::Draft
        }
    );
    // The sealed version asked for before there is one: not sent yet.
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_sealed().returning(|_| Ok(None));
    m.signatures.expect_documents_removed().returning(|_| Ok(false));
    assert_eq!(
        m.service()
            .document(&principal(), "id-1", DocumentRequest::Sealed)
            .await
            .unwrap_err(),
        SigningError::NotSent
    );
}

#[test]
fn a_sealed_documents_digest_is_the_sha256_of_its_bytes() {
    assert_eq!(
        SealedDocument::of(b"abc".to_vec()).sha256,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[tokio::test]
async fn a_signature_before_the_last_looks_for_nothing_to_complete() {
    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    m.signatures
        .expect_record_party_event()
        .returning(|_, _| Ok(PartyEventOutcome::Recorded { moved_to: None }));
    m.signatures.expect_party_of_key().never();
    m.signatures.expect_parties().never();
    assert!(m.service().record(&signed_event()).await.is_ok());
}

#[tokio::test]
async fn a_closed_envelope_keeps_the_providers_signed_copy_beside_ours() {
    let closed = ProviderEvent {
        kind: ProviderEventKind::Closed,
        request_key: "env-1".into(),
        ..signed_event()
    };
    let mut m = Mocks::new("EM ANÁLISE", 0);
    m.signatures.expect_record_party_event().never();
    m.provider
        .expect_signed_copy()
        .withf(|envelope| envelope == "env-1")
        .returning(|_| Ok(Some(b"%PDF- provider".to_vec())));
    m.signatures
        .expect_keep_provider_copy()
        .withf(|envelope, copy| envelope == "env-1" && copy == &SealedDocument::of(b"%PDF- provider".to_vec()))
        .times(1)
        .returning(|_, _| Ok(true));
    assert_eq!(
        m.service().record(&closed).await,
        Ok(PartyEventOutcome::Recorded { moved_to: None })
    );

    // Not ready yet: nothing kept, the next closing event tries again.
    let mut m = Mocks::new("EM ANÁLISE", 0);
    m.provider.expect_signed_copy().returning(|_| Ok(None));
    m.signatures.expect_keep_provider_copy().never();
    assert!(m.service().record(&closed).await.is_ok());

    // An envelope we never sent is unknown.
    let mut m = Mocks::new("EM ANÁLISE", 0);
    m.provider
        .expect_signed_copy()
        .returning(|_| Ok(Some(b"%PDF-".to_vec())));
    m.signatures.expect_keep_provider_copy().returning(|_, _| Ok(false));
    assert_eq!(m.service().record(&closed).await, Err(SigningError::UnknownKey));
}

fn sent_state() -> Option<SignatureState> {
    Some(SignatureState {
        id: 1,
        document_key: Some("env-1".into()),
        keys: Some(keys()),
        sign_url: Some("https://x/sandbox/sign/c".into()),
    })
}

fn cancelled_event(change: &crate::proposals::lifecycle::StatusChange) -> crate::proposals::lifecycle::StatusEvent {
    crate::proposals::lifecycle::StatusEvent {
        id: 9,
        proposal_id: change.proposal_id,
        kind: crate::values::EventKind::StatusChange,
        from: change.from,
        to: change.to,
        changed_by: change.changed_by.clone(),
        changed_at: change.at,
        sequence: 2,
        reason: change.reason.clone(),
        reason_category: change.reason_category,
    }
}

#[tokio::test]
async fn a_cancellation_closes_the_envelope_before_it_records_the_request_under_a_protocol() {
    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    m.signatures.expect_state().returning(|_| Ok(sent_state()));
    let mut order = mockall::Sequence::new();
    m.provider
        .expect_cancel_envelope()
        .withf(|envelope| envelope == "env-1")
        .times(1)
        .in_sequence(&mut order)
        .returning(|_| Ok(()));
    m.requests
        .expect_record()
        .withf(|change, request| {
            change.to == crate::values::ProposalStatus::Cancelled
                && change.reason.as_deref() == Some("Cliente desistiu")
                && request.kind == RequestKind::Cancellation
                && request.requested_by == "rep@demo.com.br"
        })
        .times(1)
        .in_sequence(&mut order)
        .returning(|change, request| Ok((cancelled_event(change), Protocol::new(request.day, 1234))));
    let cancelled = m
        .service()
        .cancel(&principal(), "id-1", "Cliente desistiu".into())
        .await
        .unwrap();
    assert!(cancelled.protocol.as_str().ends_with("00001234"));
    assert_eq!(cancelled.event.to, crate::values::ProposalStatus::Cancelled);
}

#[tokio::test]
async fn a_provider_that_fails_to_close_the_envelope_leaves_the_proposal_as_it_was() {
    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    m.signatures.expect_state().returning(|_| Ok(sent_state()));
    m.provider
        .expect_cancel_envelope()
        .returning(|_| Err(ProviderError::Unavailable("timeout".into())));
    m.requests.expect_record().never();
    assert!(matches!(
        m.service()
            .cancel(&principal(), "id-1", "Cliente desistiu".into())
            .await,
        Err(SigningError::Provider(_))
    ));
}

#[tokio::test]
async fn a_new_proposal_never_sent_is_cancelled_without_calling_the_provider() {
    let mut m = Mocks::new("NOVO", 0);
    m.signatures.expect_state().returning(|_| Ok(None));
    m.provider.expect_cancel_envelope().never();
    m.requests
        .expect_record()
        .times(1)
        .returning(|change, request| Ok((cancelled_event(change), Protocol::new(request.day, 1))));
    assert!(
        m.service()
            .cancel(&principal(), "id-1", "Cliente desistiu".into())
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_signed_or_finished_proposal_or_one_that_moved_meanwhile_is_not_cancellable() {
    for status in ["EM ANÁLISE", "APROVADO", "REPROVADO", "CANCELADO"] {
        let mut m = Mocks::new(status, 0);
        m.provider.expect_cancel_envelope().never();
        m.requests.expect_record().never();
        let refused = m
            .service()
            .cancel(&principal(), "id-1", "Cliente desistiu".into())
            .await;
        assert!(
            matches!(refused, Err(SigningError::NotCancellable { status: s }) if s.as_str() == status),
            "{status}: {refused:?}"
        );
    }
    // The last signature arrived between the check and the write: judged from where it is now.
    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    m.signatures.expect_state().returning(|_| Ok(sent_state()));
    m.provider.expect_cancel_envelope().returning(|_| Ok(()));
    m.requests.expect_record().returning(|_, _| {
        Err(ChangeStatusError::Conflict {
            current: crate::values::ProposalStatus::InAnalysis,
        })
    });
    assert!(matches!(
        m.service()
            .cancel(&principal(), "id-1", "Cliente desistiu".into())
            .await,
        Err(SigningError::NotCancellable {
            status: crate::values::ProposalStatus::InAnalysis
        })
    ));
}

#[tokio::test]
async fn a_cancelled_proposal_has_no_signing_link() {
    let mut m = Mocks::new("CANCELADO", 0);
    m.signatures.expect_state().never();
    assert!(matches!(
        m.service().sign_link(&principal(), "id-1").await,
        Err(SigningError::Cancelled)
    ));
}

fn expired(identifier: &str, envelope: Option<&str>) -> ExpiredSignature {
    let change = crate::proposals::lifecycle::StatusChange {
        proposal_id: 1,
        from: crate::values::ProposalStatus::AwaitingSignature,
        to: crate::values::ProposalStatus::Expired,
        changed_by: DEADLINE_ACTOR.into(),
        reason: None,
        reason_category: None,
        at: chrono::Utc::now(),
        operation: None,
    };
    ExpiredSignature {
        identifier: identifier.into(),
        envelope: envelope.map(Into::into),
        event: cancelled_event(&change),
    }
}

#[tokio::test]
async fn the_expiry_closes_each_expired_envelope_and_a_provider_failure_does_not_stop_it() {
    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    m.signatures
        .expect_expire_overdue()
        .withf(|_, _, by| by == DEADLINE_ACTOR)
        .times(1)
        .returning(|_, _, _| {
            Ok(vec![
                expired("id-1", Some("env-1")),
                expired("id-2", Some("env-2")),
                expired("id-3", None),
            ])
        });
    m.provider
        .expect_cancel_envelope()
        .withf(|e| e == "env-1")
        .times(1)
        .returning(|_| Err(ProviderError::Unavailable("timeout".into())));
    m.provider
        .expect_cancel_envelope()
        .withf(|e| e == "env-2")
        .times(1)
        .returning(|_| Ok(()));
    assert_eq!(m.service().expire_overdue().await, Ok(3));
}

#[tokio::test]
async fn the_expiry_takes_batches_until_one_comes_short() {
    let mut m = Mocks::new("AGUARDANDO ASSINATURA", 0);
    let mut calls = 0;
    m.signatures
        .expect_expire_overdue()
        .times(2)
        .returning(move |_, limit, _| {
            calls += 1;
            let size = if calls == 1 { limit as usize } else { 0 };
            Ok((0..size).map(|i| expired(&format!("id-{i}"), None)).collect())
        });
    m.provider.expect_cancel_envelope().never();
    assert_eq!(m.service().expire_overdue().await, Ok(100));
}
