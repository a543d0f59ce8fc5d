//! Migration 71 stores each certificate's registrable number (decision 281): up keeps every
//! certificate and stores, for those issued before, the number decision 267 derived (the
//! product's code, the acceptance's Brasília year, the proposal; a renewal's with its term), the
//! shop's terms numberless; refuses a certificate without a number, a number twice, and a
//! product's sequence below one; the documents, written again, show the current certificate. Down forgets the
//! numbers and the sequences; up again stores the same numbers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

/// The contract accepted at 23:30 of 31/12/2026 in Brasília (already 2027 in UTC), renewed once,
/// with the shop's terms delivered.
const CONTRACT: &str = "
UPDATE proposals SET status = 'APROVADO';
INSERT INTO proposal_certificates (id_proposta, tipo, vigencia, aceita_em)
    SELECT p.id, v.tipo, v.vigencia, '2027-01-01T02:30:00Z'
    FROM proposals p, (VALUES ('certificado', 1), ('certificado', 2), ('termos', 1)) AS v (tipo, vigencia);
";

/// Every document kept, by kind and term.
const ROWS: &str = "SELECT string_agg(tipo || ':' || vigencia, ',' ORDER BY tipo, vigencia) AS line \
     FROM proposal_certificates";

/// Every document's number, the proposal's eight digits written `ID`.
const NUMBERS: &str = "SELECT string_agg(tipo || ':' || vigencia || ':' || \
     coalesce(replace(numero, lpad(id_proposta::text, 8, '0'), 'ID'), '-'), ',' ORDER BY tipo, vigencia) AS line \
     FROM proposal_certificates";

#[tokio::test(flavor = "multi_thread")]
async fn certificates_keep_their_derived_numbers_stored_and_new_ones_are_checked() {
    let migration = MigrationRoundTrip::before("20261212000071").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(CONTRACT).await.unwrap();
    let before = line(&mut conn, ROWS).await;
    assert_eq!(before, "certificado:1,certificado:2,termos:1");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    let numbered = "certificado:1:101-2026-ID,certificado:2:101-2026-ID-2,termos:1:-";
    assert_eq!(line(&mut conn, NUMBERS).await, numbered);
    assert_eq!(
        line(
            &mut conn,
            "SELECT replace(documento #>> '{certificate,numero}', lpad(id_proposta::text, 8, '0'), 'ID') AS line \
             FROM proposal_read_models"
        )
        .await,
        "101-2026-ID-2",
        "the proposal's document, written again, shows its current certificate"
    );
    for (refused, constraint) in [
        (
            "UPDATE proposal_certificates SET numero = NULL WHERE vigencia = 2",
            "proposal_certificates_numero",
        ),
        (
            "UPDATE proposal_certificates SET numero = '101.00000001' WHERE tipo = 'termos'",
            "proposal_certificates_numero",
        ),
        (
            "UPDATE proposal_certificates SET numero = '101.00000001' WHERE tipo = 'certificado'",
            "proposal_certificates_numero_unique",
        ),
        (
            "INSERT INTO product_certificate_sequences (id_produto, ultimo) SELECT id, 0 FROM products",
            "product_certificate_sequences_ultimo",
        ),
    ] {
        let error = conn.batch_execute(refused).await.unwrap_err().to_string();
        assert!(error.contains(constraint), "{refused}: {error}");
    }
    conn.batch_execute("INSERT INTO product_certificate_sequences (id_produto, ultimo) SELECT id, 1 FROM products")
        .await
        .unwrap();

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    assert_eq!(
        line(
            &mut conn,
            "SELECT (count(*) + (SELECT count(*) FROM information_schema.tables \
                 WHERE table_name = 'product_certificate_sequences'))::text AS line \
             FROM information_schema.columns WHERE table_name = 'proposal_certificates' AND column_name = 'numero'"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, NUMBERS).await, numbered);
}
