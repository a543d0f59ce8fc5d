//! Migration 67 lets a certificate be withheld (its contract ended before the delivery pass
//! reached it): the certificates waiting for a contract no longer in force are withheld on the
//! way up, the sent and the running ones untouched; going down makes them wait again; up again
//! withholds them once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

/// Three contracts: p-1 running, its certificate waiting; p-2 cancelled, its certificate
/// waiting; p-3 cancelled, its certificate sent before.
const CONTRACTS: &str = "
UPDATE proposals SET status = 'APROVADO';
INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto,
                       codigo_faturamento, status)
    SELECT v.id, p.id_cliente, p.cpf_cliente, 'x', 'sms', 'ECOMMERCE', p.id_produto, p.codigo_faturamento, 'CANCELADO'
    FROM proposals p, (VALUES ('p-2'), ('p-3')) AS v (id) WHERE p.identificador = 'p-1';
INSERT INTO proposal_certificates (id_proposta, tipo, aceita_em, pdf, sha256, emitido_em, enviado_para, enviado_em)
    SELECT id, 'certificado', now(), CASE WHEN identificador = 'p-3' THEN '\\x25'::bytea END,
           CASE WHEN identificador = 'p-3' THEN 'ab' END, CASE WHEN identificador = 'p-3' THEN now() END,
           CASE WHEN identificador = 'p-3' THEN 'maria@exemplo.com.br' END, CASE WHEN identificador = 'p-3' THEN now() END
    FROM proposals;
";

/// Each certificate: its proposal, whether it waits, and why it is withheld (`-` when not).
const ROWS: &str = "SELECT string_agg(p.identificador || ':' || (c.enviado_em IS NULL)::text || ':' || \
     coalesce(c.retido_motivo, '-'), ',' ORDER BY p.identificador) AS line \
     FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta";

#[tokio::test(flavor = "multi_thread")]
async fn a_waiting_certificate_of_an_ended_contract_is_withheld_and_waits_again_going_down() {
    let migration = MigrationRoundTrip::before("20261209000067").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(CONTRACTS).await.unwrap();

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, ROWS).await,
        "p-1:true:-,p-2:true:contrato CANCELADO antes do envio,p-3:false:-"
    );
    let refused = conn
        .batch_execute("UPDATE proposal_certificates SET retido_em = now() WHERE retido_em IS NULL")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("proposal_certificates_retido"),
        "when and why together: {refused}"
    );

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*) FILTER (WHERE enviado_em IS NULL) || ':' || (SELECT count(*) FROM information_schema.columns \
             WHERE table_name = 'proposal_certificates' AND column_name LIKE 'retido%') AS line FROM proposal_certificates"
        )
        .await,
        "2:0"
    );

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, ROWS).await,
        "p-1:true:-,p-2:true:contrato CANCELADO antes do envio,p-3:false:-"
    );
}
