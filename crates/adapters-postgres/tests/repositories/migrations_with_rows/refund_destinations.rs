//! Migration 58 gives every refund to pay a due date (10 days after its day in Brasília for those
//! made before) and a place for the contract's refund destination: up keeps every refund and
//! dates the ones to pay; down is refused while a destination is kept for a refund still to pay,
//! and without one forgets only the dates and the destinations; up again dates them as the first
//! time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const REFUNDS: &str =
    "SELECT string_agg(id || ':' || status || ':' || amount_cents, ',' ORDER BY id) AS line FROM refunds";
const DUE: &str = "SELECT string_agg(id || ':' || coalesce(vence_em::text, '-'), ',' ORDER BY id) AS line FROM refunds";
const DESTINATION: &str =
    "INSERT INTO refund_destinations (id_proposta, tipo, tipo_chave, chave, registrado_por, registrado_em)
     SELECT id, 'pix', 'email', 'maria@exemplo.com.br', 'rep@x', now() FROM proposals";

#[tokio::test(flavor = "multi_thread")]
async fn refunds_to_pay_are_dated_and_a_destination_owed_is_never_forgotten() {
    let migration = MigrationRoundTrip::before("20261205000058").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(
        "UPDATE proposals SET status = 'CANCELADO';
         INSERT INTO refunds (id, proposal_id, amount_cents, nominal_cents, status, motivo, meio, created_at,
                              referencia, pago_em, pago_por, invoice_id)
         SELECT v.id, p.id, v.amount, v.amount, v.status, 'CANCELAMENTO', v.meio, v.at, v.reference, v.paid_at,
                v.paid_by, v.invoice
         FROM proposals p, (VALUES
             ('ap_1', 1200, 'a_pagar', 'a_pagar', timestamptz '2026-12-01 02:30:00+00', NULL, NULL::timestamptz, NULL, NULL),
             ('ap_2', 300, 'pago', 'a_pagar', timestamptz '2026-12-02 15:00:00+00', 'TED 1', now(), 'financeiro', NULL),
             ('re_1', 3990, 'succeeded', 'plataforma', timestamptz '2026-12-02 15:00:00+00', NULL, NULL, NULL, 'in_1')
         ) AS v (id, amount, status, meio, at, reference, paid_at, paid_by, invoice);",
    )
    .await
    .unwrap();
    let before = line(&mut conn, REFUNDS).await;

    // Up: every refund kept; those to pay due 10 days after their day in Brasília (ap_1 was made
    // on 30/11 there).
    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, REFUNDS).await, before);
    assert_eq!(line(&mut conn, DUE).await, "ap_1:2026-12-10,ap_2:2026-12-12,re_1:-");
    conn.batch_execute(DESTINATION).await.unwrap();

    // A destination kept for a refund still to pay: going down is refused whole.
    let kept = migration.try_down().await.unwrap_err().to_string();
    assert!(kept.contains("refunds still to pay"), "{kept}");
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM refund_destinations").await,
        "1"
    );

    // Paid: down forgets the dates and the destination only; up dates them again.
    conn.batch_execute(
        "UPDATE refunds SET status = 'pago', referencia = 'TED', pago_em = now(), pago_por = 'financeiro'
         WHERE id = 'ap_1'",
    )
    .await
    .unwrap();
    let paid = line(&mut conn, REFUNDS).await;
    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, REFUNDS).await, paid);
    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, REFUNDS).await, paid);
    assert_eq!(line(&mut conn, DUE).await, "ap_1:2026-12-10,ap_2:2026-12-12,re_1:-");
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM refund_destinations").await,
        "0"
    );
}
