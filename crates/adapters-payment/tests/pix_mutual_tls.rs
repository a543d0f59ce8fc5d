//! The Pix transport against a PSP that requires mutual TLS, as the Manual de Segurança do Pix
//! does: a local HTTPS server whose certificate is of an authority the client is told to trust
//! (`PIX_CA_FILE`), which accepts only clients with a certificate of that authority. The payee's
//! certificate reaches it on the token's call and on the API's; a certificate of another authority
//! is refused in the handshake, before any credential is read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_payment::pix::schema::Method;
use adapters_payment::pix::transport::{PixRequest, PixSettings};
use adapters_payment::pix::{HttpsTransport, PixTransport};
use base64::Engine;
use domain::billing::pix::PixError;
use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

struct Authority {
    params: CertificateParams,
    key: KeyPair,
    pem: String,
}

fn authority(name: &str) -> Authority {
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    let cert = params.self_signed(&key).unwrap();
    Authority {
        pem: cert.pem(),
        params,
        key,
    }
}

/// A certificate of `by` for `name`: (certificate PEM, key PEM).
fn issued(by: &Authority, name: &str, client: bool) -> (String, String) {
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(if client { vec![] } else { vec![name.to_owned()] }).unwrap();
    params.distinguished_name.push(DnType::CommonName, name);
    params.extended_key_usages = vec![if client {
        ExtendedKeyUsagePurpose::ClientAuth
    } else {
        ExtendedKeyUsagePurpose::ServerAuth
    }];
    let issuer = rcgen::Issuer::from_params(&by.params, &by.key);
    let cert = params.signed_by(&key, &issuer).unwrap();
    (cert.pem(), key.serialize_pem())
}

/// What the PSP saw: each request's first line and the client certificate's presence.
type Seen = Arc<Mutex<Vec<String>>>;

/// A PSP on 127.0.0.1 answering the token and one recurrence, over TLS with client certificates
/// of `trusted` required.
async fn psp(server: (String, String), trusted: &Authority) -> (u16, Seen) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(trusted.pem.as_bytes()).unwrap())
        .unwrap();
    let verifier = rustls::server::WebPkiClientVerifier::builder(Arc::new(roots))
        .build()
        .unwrap();
    let config = rustls::ServerConfig::builder()
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            vec![CertificateDer::from_pem_slice(server.0.as_bytes()).unwrap()],
            PrivateKeyDer::from_pem_slice(server.1.as_bytes()).unwrap(),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Seen = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            let log = log.clone();
            tokio::spawn(async move {
                // A client without a trusted certificate fails here.
                let Ok(mut tls) = acceptor.accept(socket).await else {
                    return;
                };
                let client_cert = tls.get_ref().1.peer_certificates().is_some_and(|c| !c.is_empty());
                let mut buffer = Vec::new();
                let mut chunk = [0u8; 4096];
                // The head, then the body its Content-Length announces.
                let body_start = loop {
                    let Ok(n) = tls.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    buffer.extend_from_slice(&chunk[..n]);
                    if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                        break at + 4;
                    }
                };
                let head = String::from_utf8_lossy(&buffer[..body_start]).to_string();
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap_or(0))
                    })
                    .unwrap_or(0);
                while buffer.len() < body_start + length {
                    let Ok(n) = tls.read(&mut chunk).await else { return };
                    if n == 0 {
                        break;
                    }
                    buffer.extend_from_slice(&chunk[..n]);
                }
                let first = head.lines().next().unwrap_or_default().to_owned();
                log.lock().unwrap().push(format!("{first} cert={client_cert}"));
                let authorization = head
                    .lines()
                    .find_map(|l| {
                        l.strip_prefix("authorization: ")
                            .or_else(|| l.strip_prefix("Authorization: "))
                    })
                    .unwrap_or_default()
                    .to_owned();
                let expected_basic = format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode("cliente-pix:segredo-pix")
                );
                let (status, body) = if first.starts_with("POST /oauth/token") && authorization == expected_basic {
                    (
                        "200 OK",
                        r#"{"access_token":"token-do-psp","token_type":"Bearer","expires_in":3600}"#.to_owned(),
                    )
                } else if first.starts_with("GET /api/v2/rec/") && authorization == "Bearer token-do-psp" {
                    (
                        "200 OK",
                        r#"{"idRec":"RR1234567820261129abcdefghijk","status":"CRIADA"}"#.to_owned(),
                    )
                } else {
                    ("403 Forbidden", r#"{"title":"Acesso Negado","status":403}"#.to_owned())
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.write_all(answer.as_bytes()).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (port, seen)
}

fn settings(port: u16, client: &(String, String), trusted: &Authority) -> PixSettings {
    PixSettings {
        base_url: format!("https://localhost:{port}/api/v2"),
        token_url: format!("https://localhost:{port}/oauth/token"),
        client_id: "cliente-pix".into(),
        client_secret: "segredo-pix".into(),
        certificate_pem: client.0.clone().into_bytes(),
        key_pem: client.1.clone().into_bytes(),
        ca_pem: Some(trusted.pem.clone().into_bytes()),
        connect_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(10),
    }
}

#[tokio::test]
async fn the_payees_certificate_opens_the_psp_and_any_other_is_refused_in_the_handshake() {
    let ca = authority("Autoridade do PSP");
    let (port, seen) = psp(issued(&ca, "localhost", false), &ca).await;

    let payee = issued(&ca, "Seguradora Exemplo", true);
    let transport = HttpsTransport::new(settings(port, &payee, &ca)).unwrap();
    let token = transport.token().await.unwrap();
    assert_eq!(token.value, "token-do-psp");
    assert_eq!(token.lasts, Duration::from_secs(3600));
    let answer = transport
        .send(
            &token.value,
            &PixRequest {
                method: Method::Get,
                path: "/rec/RR1234567820261129abcdefghijk".into(),
                query: Vec::new(),
                body: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body.unwrap()["status"], "CRIADA");
    let log = seen.lock().unwrap().clone();
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log.iter().all(|l| l.ends_with("cert=true")), "{log:?}");

    // A certificate of another authority: refused before anything is read.
    let other = authority("Outra autoridade");
    let stranger = issued(&other, "Intruso", true);
    let refused = HttpsTransport::new(settings(port, &stranger, &ca))
        .unwrap()
        .token()
        .await;
    assert!(matches!(refused, Err(PixError::Unavailable(_))), "{refused:?}");
    assert_eq!(seen.lock().unwrap().len(), 2, "the stranger's request never arrived");

    // Plain HTTP is never spoken to a PSP.
    let mut plain = settings(port, &payee, &ca);
    plain.token_url = format!("http://localhost:{port}/oauth/token");
    let refused = HttpsTransport::new(plain).unwrap().token().await;
    assert!(refused.is_err(), "{refused:?}");
}

#[test]
fn an_unreadable_certificate_or_authority_is_named_at_the_start() {
    let ca = authority("Autoridade do PSP");
    let payee = issued(&ca, "Seguradora Exemplo", true);
    let mut broken = settings(1, &payee, &ca);
    broken.key_pem = b"-----BEGIN PRIVATE KEY-----\nnada\n-----END PRIVATE KEY-----\n".to_vec();
    let answer = HttpsTransport::new(broken).err();
    assert!(matches!(answer, Some(PixError::Unauthorized(_))), "{answer:?}");
    let mut no_authority = settings(1, &payee, &ca);
    no_authority.ca_pem = Some(b"nenhum certificado aqui".to_vec());
    assert!(matches!(
        HttpsTransport::new(no_authority),
        Err(PixError::Unauthorized(_))
    ));
}
