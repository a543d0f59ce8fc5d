//! The sender against a real receiver on loopback: what it sends, how answers are read, and the
//! server-side request forgery defence at connection time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_webhooks::{AddressPolicy, HttpWebhookSender, SenderSettings};
use domain::hooks::ports::{EndpointGuard, EndpointRefusal, WebhookSender};
use domain::hooks::{Endpoint, OutgoingWebhook, SendOutcome};
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn sender(allowed: &[&str]) -> HttpWebhookSender {
    HttpWebhookSender::new(SenderSettings {
        connect_timeout: Duration::from_secs(2),
        request_timeout: Duration::from_secs(2),
        policy: AddressPolicy::new(allowed.iter().map(|c| c.parse().unwrap()).collect()),
    })
    .unwrap()
}

fn webhook(endpoint: String) -> OutgoingWebhook {
    OutgoingWebhook {
        endpoint,
        message_id: "msg_abc".into(),
        timestamp: 1_700_000_000,
        signature: "v1,assinatura".into(),
        body: r#"{"type":"TESTE"}"#.into(),
        contract_version: "2026-11-29".into(),
    }
}

#[tokio::test]
async fn posts_the_body_with_the_standard_webhooks_headers() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hooks"))
        .respond_with(ResponseTemplate::new(204))
        .expect(1)
        .mount(&receiver)
        .await;
    let outcome = sender(&["127.0.0.0/8"])
        .send(&webhook(format!("{}/hooks", receiver.uri())))
        .await;
    assert_eq!(
        outcome,
        SendOutcome::Answered {
            status: 204,
            retry_after: None
        }
    );
    let request = &receiver.received_requests().await.unwrap()[0];
    assert_eq!(request.headers["webhook-id"], "msg_abc");
    assert_eq!(request.headers["webhook-timestamp"], "1700000000");
    assert_eq!(request.headers["webhook-signature"], "v1,assinatura");
    assert_eq!(request.headers["content-type"], "application/json");
    assert_eq!(request.body, br#"{"type":"TESTE"}"#);
}

#[tokio::test]
async fn reads_retry_after_and_never_follows_redirects() {
    let receiver = MockServer::start().await;
    Mock::given(path("/cheio"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "120"))
        .mount(&receiver)
        .await;
    Mock::given(path("/desvio"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", format!("{}/alvo", receiver.uri())))
        .mount(&receiver)
        .await;
    Mock::given(path("/alvo"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&receiver)
        .await;
    let sender = sender(&["127.0.0.0/8"]);
    assert_eq!(
        sender.send(&webhook(format!("{}/cheio", receiver.uri()))).await,
        SendOutcome::Answered {
            status: 429,
            retry_after: Some(Duration::from_secs(120))
        }
    );
    assert_eq!(
        sender.send(&webhook(format!("{}/desvio", receiver.uri()))).await,
        SendOutcome::Answered {
            status: 302,
            retry_after: None
        }
    );
}

#[tokio::test]
async fn blocked_addresses_are_never_connected_to() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&receiver)
        .await;
    let port = receiver.address().port();
    let sender = sender(&[]);
    for endpoint in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
    ] {
        let SendOutcome::Failed { error } = sender.send(&webhook(endpoint.clone())).await else {
            panic!("{endpoint} was reached");
        };
        assert!(error.contains("bloqueado"), "{endpoint}: {error}");
    }
}

#[tokio::test]
async fn the_guard_judges_literals_and_every_resolved_address() {
    let closed = sender(&[]);
    let check = async |s: &HttpWebhookSender, url: &str| s.check(&Endpoint::parse(url).unwrap()).await;
    for url in [
        "http://127.0.0.1/",
        "http://[::1]/",
        "http://[fe80::1]/",
        "http://[fc00::1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/",
        "http://0x7f000001/",
        "http://localhost/",
    ] {
        assert!(
            matches!(check(&closed, url).await, Err(EndpointRefusal::Blocked(_))),
            "{url}"
        );
    }
    assert_eq!(
        check(&closed, "http://nao-existe.invalid/").await,
        Err(EndpointRefusal::Unresolvable)
    );
    assert_eq!(check(&closed, "http://8.8.8.8/").await, Ok(()));
    let open = sender(&["127.0.0.0/8", "::1/128"]);
    assert_eq!(check(&open, "http://localhost:9/").await, Ok(()));
    assert_eq!(check(&open, "http://[::1]/").await, Ok(()));
}

/// A closed port, a listener that accepts and hangs up, and one that never answers: the owner's
/// delivery log cannot tell them apart (it would otherwise map what the service can reach).
#[tokio::test]
async fn a_failure_without_an_answer_reads_the_same_whatever_the_port_did() {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let hangs_up = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hangs_up_port = hangs_up.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((socket, _)) = hangs_up.accept().await {
            drop(socket);
        }
    });
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let sender = sender(&["127.0.0.0/8"]);
    for port in [closed, hangs_up_port, silent_port] {
        let SendOutcome::Failed { error } = sender.send(&webhook(format!("http://127.0.0.1:{port}/"))).await else {
            panic!("port {port} answered");
        };
        assert_eq!(error, "o destino recusou ou não respondeu", "port {port}");
    }
}

#[tokio::test]
async fn a_name_that_resolves_to_a_blocked_address_is_refused_without_naming_the_address() {
    let SendOutcome::Failed { error } = sender(&[]).send(&webhook("http://localhost:9/".into())).await else {
        panic!("localhost was reached");
    };
    assert_eq!(error, "endereço não público bloqueado");
    assert!(!error.contains("127.") && !error.contains("::1"), "{error}");
}
