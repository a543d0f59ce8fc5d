//! Migration 72 records the template each document was printed from (decision 282): up keeps
//! every sealed proposal's notices and every certificate as they were, with no template (they
//! were printed before templates were versioned); refuses a version without its digest, a
//! malformed digest, and a template on a certificate not yet issued; down forgets the templates
//! recorded since; up again keeps the rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

/// The proposal sealed with its notices; its certificate issued, its renewal's due.
const DOCUMENTS: &str = "
UPDATE proposals SET status = 'APROVADO';
INSERT INTO proposal_notices (id_proposta, aviso_versao, aviso_sha256, termos_sha256, canal, exibidos_em)
    SELECT id, '2026-11-28', repeat('a', 64), repeat('b', 64), 'sms', now() FROM proposals;
INSERT INTO proposal_certificates (id_proposta, tipo, vigencia, aceita_em, numero, pdf, sha256, emitido_em)
    SELECT id, 'certificado', 1, now(), '101.00000001', '\\x25'::bytea, repeat('c', 64), now() FROM proposals;
INSERT INTO proposal_certificates (id_proposta, tipo, vigencia, aceita_em, numero)
    SELECT id, 'certificado', 2, now(), '101.00000001-2' FROM proposals;
";

/// Every document kept: the notices' versions and digests, each certificate's number and digest.
const ROWS: &str = "SELECT (SELECT string_agg(aviso_versao || ':' || termos_sha256, ',') FROM proposal_notices) || '|' || \
     (SELECT string_agg(numero || ':' || coalesce(sha256, '-'), ',' ORDER BY vigencia) FROM proposal_certificates) AS line";

/// The templates recorded: `-` for none.
const TEMPLATES: &str = "SELECT (SELECT string_agg(coalesce(modelo_versao, '-'), ',') FROM proposal_notices) || '|' || \
     (SELECT string_agg(coalesce(modelo_versao, '-'), ',' ORDER BY vigencia) FROM proposal_certificates) AS line";

#[tokio::test(flavor = "multi_thread")]
async fn documents_keep_their_rows_and_record_a_checked_template_from_now_on() {
    let migration = MigrationRoundTrip::before("20261212000072").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(DOCUMENTS).await.unwrap();
    let before = line(&mut conn, ROWS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    assert_eq!(
        line(&mut conn, TEMPLATES).await,
        "-|-,-",
        "printed before templates were versioned"
    );
    for (refused, constraint) in [
        (
            "UPDATE proposal_notices SET modelo_versao = '2026-12-12'",
            "proposal_notices_modelo",
        ),
        (
            "UPDATE proposal_notices SET modelo_versao = '2026-12-12', modelo_sha256 = 'ABC'",
            "proposal_notices_modelo_sha256",
        ),
        (
            "UPDATE proposal_certificates SET modelo_versao = '2026-12-12', modelo_sha256 = repeat('d', 64) \
             WHERE vigencia = 2",
            "proposal_certificates_modelo",
        ),
    ] {
        let error = conn.batch_execute(refused).await.unwrap_err().to_string();
        assert!(error.contains(constraint), "{refused}: {error}");
    }
    conn.batch_execute(
        "UPDATE proposal_notices SET modelo_versao = '2026-12-12', modelo_sha256 = repeat('d', 64);
         UPDATE proposal_certificates SET modelo_versao = '2026-12-12', modelo_sha256 = repeat('e', 64) WHERE vigencia = 1;",
    )
    .await
    .unwrap();
    assert_eq!(line(&mut conn, TEMPLATES).await, "2026-12-12|2026-12-12,-");

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns \
             WHERE table_name IN ('proposal_notices', 'proposal_certificates') AND column_name LIKE 'modelo_%'"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    assert_eq!(line(&mut conn, TEMPLATES).await, "-|-,-");
}
