//! Migration 42 gives every refund its reason, its channel, what of it was paid and its IPCA
//! correction: a withdrawal's refund written before it reads as the regret's, paid by the
//! platform, uncorrected, and its proposal's document is marked, and `migrate` builds it with it.
//! A refusal's refund (no protocol) and a refund to pay fit only after it: going down while one
//! exists stops rather than forget money, and goes down once they are dealt with.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const REFUNDS: &str =
    "SELECT string_agg(id || ':' || amount_cents || ':' || status, ',' ORDER BY id) AS line FROM refunds";

const WITHDRAWAL: &str = "
INSERT INTO customer_requests SELECT '2026112800000001', id, 'arrependimento', 'ARREPENDIMENTO', 'loja@x', now() FROM proposals;
INSERT INTO refunds (id, protocolo, proposal_id, invoice_id, amount_cents, status)
    SELECT 're_1', '2026112800000001', id, 'in_1', 3990, 'succeeded' FROM proposals;
";

const REFUSAL_TO_PAY: &str = "
INSERT INTO refunds (id, proposal_id, amount_cents, nominal_cents, status, motivo, meio, correcao)
    SELECT 'ap_1', id, 4012, 3990, 'a_pagar', 'RECUSA', 'a_pagar', '{\"index\": \"IPCA\"}' FROM proposals;
";

#[tokio::test(flavor = "multi_thread")]
async fn a_withdrawals_refund_reads_as_the_regrets_and_refusals_refunds_hold_the_way_down() {
    let migration = MigrationRoundTrip::before("20261128000042").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(WITHDRAWAL).await.unwrap();
    conn.batch_execute("DELETE FROM proposal_read_model_stale")
        .await
        .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, REFUNDS).await, "re_1:3990:succeeded");
    // An instance still on the code before 42 writes a withdrawal's refund as it did.
    conn.batch_execute(
        "INSERT INTO refunds (id, protocolo, proposal_id, invoice_id, amount_cents, status)
         SELECT 're_0', '2026112800000001', id, 'in_0', 100, 'succeeded' FROM proposals",
    )
    .await
    .unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT motivo || '/' || meio || '/' || coalesce(nominal_cents::text, 'tudo') AS line FROM refunds WHERE id = 're_0'"
        )
        .await,
        "ARREPENDIMENTO/plataforma/tudo"
    );
    conn.batch_execute("DELETE FROM refunds WHERE id = 're_0'")
        .await
        .unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT motivo || '/' || meio || '/' || nominal_cents || '/' || coalesce(correcao::text, '-') AS line FROM refunds"
        )
        .await,
        "ARREPENDIMENTO/plataforma/3990/-"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT (documento->'refunds'->0->>'id') || '/' || (documento->'refunds'->0->>'motivo') AS line \
             FROM proposal_read_models"
        )
        .await,
        "re_1/ARREPENDIMENTO",
        "the proposal's document, marked, is built again by migrate with its refund"
    );
    conn.batch_execute(REFUSAL_TO_PAY).await.unwrap();
    for (broken, constraint) in [
        ("UPDATE refunds SET status = 'pago' WHERE id = 'ap_1'", "refunds_paid"),
        (
            "UPDATE refunds SET status = 'succeeded' WHERE id = 'ap_1'",
            "refunds_to_pay_status",
        ),
        (
            "UPDATE refunds SET nominal_cents = 5000 WHERE id = 'ap_1'",
            "refunds_nominal",
        ),
        (
            "UPDATE refunds SET motivo = 'OUTRO' WHERE id = 'ap_1'",
            "refunds_motivo",
        ),
        (
            "UPDATE refunds SET invoice_id = NULL WHERE id = 're_1'",
            "refunds_platform_invoice",
        ),
    ] {
        let refused = conn.batch_execute(broken).await.unwrap_err().to_string();
        assert!(refused.contains(constraint), "{broken}: {refused}");
    }
    conn.batch_execute("UPDATE refunds SET status = 'pago', referencia = 'TED 1', pago_em = now() WHERE id = 'ap_1'")
        .await
        .unwrap();

    // The migrations after 42 go down first.
    adapters_postgres::testing::revert_through(&migration.db.url, "20261128000043").await;
    let refused = adapters_postgres::migrations::revert_last(&migration.db.url)
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("migração 42"), "{refused}");
    assert_eq!(line(&mut conn, REFUNDS).await, "ap_1:4012:pago,re_1:3990:succeeded");

    // Dealt with (exported and paid), the refusal's refund is removed by the operator.
    conn.batch_execute("DELETE FROM refunds WHERE id = 'ap_1'")
        .await
        .unwrap();
    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, REFUNDS).await, "re_1:3990:succeeded");
    let refused = conn
        .batch_execute("INSERT INTO refunds (id, proposal_id, invoice_id, amount_cents, status) SELECT 're_2', id, 'in_2', 1, 'succeeded' FROM proposals")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("protocolo"),
        "the protocol is required again: {refused}"
    );

    let mut conn = migration.up().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT id || '/' || motivo || '/' || nominal_cents AS line FROM refunds"
        )
        .await,
        "re_1/ARREPENDIMENTO/3990"
    );
}
