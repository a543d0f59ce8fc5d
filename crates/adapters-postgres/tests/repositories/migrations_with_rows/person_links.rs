//! Migration 74 adds the person's own links and the consents' proof: on a database with a sale,
//! a consent the back office recorded and a throttle row, up keeps the consent (channel
//! `retaguarda`, no proof) and records a link; down keeps the consents and sets their proof
//! aside; up again restores the proof as it was.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const CONSENT: &str = "INSERT INTO privacy_consents (cpf, finalidade, concedido, registrado_por) \
     VALUES ('52998224725', 'ofertas', true, 'bo@demo.com.br')";

const LINK: &str = "INSERT INTO privacy_person_links (token_sha256, cpf, finalidade, enviado_para, emitido_em, expira_em) \
     VALUES (repeat('a', 64), '52998224725', 'consentimentos', 'm***@exemplo.com.br', now(), now() + interval '30 minutes')";

const CONSENTS: &str = "SELECT string_agg(finalidade || ':' || concedido || ':' || canal || ':' || coalesce(evidencia ->> 'navegador', '-'), ',' ORDER BY id) AS line FROM privacy_consents";

#[tokio::test(flavor = "multi_thread")]
async fn links_come_and_go_and_the_consents_proof_survives_a_rollback() {
    let migration = MigrationRoundTrip::before("20261214000074").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(CONSENT).await.unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, CONSENTS).await, "ofertas:true:retaguarda:-");
    conn.batch_execute(LINK).await.unwrap();
    let refused = conn
        .batch_execute(
            &LINK
                .replace("'consentimentos'", "'marketing'")
                .replace("repeat('a'", "repeat('b'"),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("finalidade"), "{refused}");
    conn.batch_execute(
        "INSERT INTO privacy_consents (cpf, finalidade, concedido, registrado_por, canal, evidencia) \
         VALUES ('52998224725', 'ofertas', false, 'titular (link por e-mail)', 'link', '{\"navegador\": \"Firefox\"}')",
    )
    .await
    .unwrap();
    conn.batch_execute(
        "INSERT INTO signin_throttle (scope, key, failures, window_started_at) VALUES ('privacy_link_ip', '203.0.113.9', 1, now())",
    )
    .await
    .unwrap();

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text || ':' || (SELECT count(*) FROM signin_throttle WHERE scope = 'privacy_link_ip') AS line FROM privacy_consents"
        )
        .await,
        "2:0",
        "every consent kept"
    );
    assert!(conn.batch_execute("SELECT 1 FROM privacy_person_links").await.is_err());

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, CONSENTS).await,
        "ofertas:true:retaguarda:-,ofertas:false:link:Firefox",
        "the proof comes back as it was"
    );
    assert!(
        conn.batch_execute("SELECT 1 FROM __consent_evidence_before_rollback")
            .await
            .is_err()
    );
    conn.batch_execute(LINK).await.unwrap();
}
