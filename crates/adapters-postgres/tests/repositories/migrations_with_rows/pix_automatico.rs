//! Migration 54 takes `PIX AUTOMÁTICO` in: a proposal and its payment with the payer's account,
//! its contract's billing and charges, its recurrence and a charge paid by a Pix, a refund by
//! `devolucao`; the debit contracts already there keep every row. Going down is refused while a Pix
//! sale exists (its money is at the PSP) and, once there is none, leaves the older constraints;
//! up again takes Pix in as the first time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const DEBITS: &str = "SELECT string_agg(p.identificador || ':' || pp.tipo || ':' || b.metodo || ':' || c.status, ',' \
     ORDER BY p.identificador) AS line FROM proposals p JOIN proposal_payments pp ON pp.id_proposta = p.id \
     JOIN contract_billings b ON b.id_proposta = p.id JOIN charges c ON c.id_proposta = p.id";

const PIX_SALE: &str = "
    INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto,
                           codigo_faturamento, status, tipo_pagamento, valor, id_parceiro, id_representante)
    SELECT 'pix-1', id_cliente, cpf_cliente, 'x', 'sms', 'PARCEIRO', id_produto, codigo_faturamento, 'APROVADO',
           'PIX AUTOMÁTICO', 3990, id_parceiro, id_representante FROM proposals WHERE identificador = 'p-1';
    INSERT INTO proposal_payments (id_proposta, tipo, alterado_por, ispb, agencia, conta)
    SELECT id, 'PIX AUTOMÁTICO', 'x', '60701190', '0001', '123456' FROM proposals WHERE identificador = 'pix-1';
    INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
        retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
    SELECT id, 'PIX AUTOMÁTICO', 3990, now(), current_date + 10, current_date + 10, '{1,3,5}', 5, 30, now(), 'x'
    FROM proposals WHERE identificador = 'pix-1';
    INSERT INTO charges (id_proposta, periodo, vencimento, valor, metodo, status, tentativas, id_externo, pago_em,
        valor_pago, pix_e2e, criada_em, alterada_em, alterada_por)
    SELECT id, 1, current_date, 3990, 'PIX AUTOMÁTICO', 'paga', 1, 'vendas00000000000000000001cobr', now(), 3990,
        'E99999004202612011200abcdefghijk', now(), now(), 'sistema:pix'
    FROM proposals WHERE identificador = 'pix-1';
    INSERT INTO pix_recurrences (id_proposta, id_rec, status, criada_em, alterada_em, alterada_por)
    SELECT id, 'RR9999900420261201abcdefghijk', 'APROVADA', now(), now(), 'sistema:pix'
    FROM proposals WHERE identificador = 'pix-1';";

const PIX_REFUND: &str = "
    INSERT INTO refunds (id, proposal_id, invoice_id, motivo, meio, amount_cents, nominal_cents, status, created_at)
    SELECT 'D1N1', id, 'vendas00000000000000000001cobr', 'CANCELAMENTO', 'pix', 1000, 1000, 'DEVOLVIDO', now()
    FROM proposals WHERE identificador = 'pix-1';";

#[tokio::test(flavor = "multi_thread")]
async fn pix_sales_are_taken_in_and_the_debit_contracts_keep_every_row() {
    let migration = MigrationRoundTrip::before("20261129000054").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("DÉBITO EM CONTA"))
        .await
        .unwrap();
    conn.batch_execute(
        "INSERT INTO proposal_payments (id_proposta, tipo, alterado_por, banco, agencia, conta)
         SELECT id, 'DÉBITO EM CONTA', 'x', '001', '1234', '12345-6' FROM proposals;
         INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
         SELECT id, tipo_pagamento, valor, now(), current_date + 10, current_date + 10, '{1,3,5}', 5, 30, now(), 'x'
         FROM proposals;
         INSERT INTO charges (id_proposta, periodo, vencimento, valor, metodo, criada_em, alterada_em, alterada_por)
         SELECT id, 1, current_date + 10, 3990, 'DÉBITO EM CONTA', now(), now(), 'x' FROM proposals;",
    )
    .await
    .unwrap();
    let before = line(&mut conn, DEBITS).await;
    assert_eq!(before, "p-1:DÉBITO EM CONTA:DÉBITO EM CONTA:aberta");
    let refused = conn.batch_execute(PIX_SALE).await.unwrap_err().to_string();
    assert!(refused.contains("tipo_pagamento_check"), "{refused}");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, DEBITS).await, before);
    // Taken in (and rolled back: the history of a sale is never deleted, so a database holding
    // one cannot go down, as the last step shows).
    conn.batch_execute(&format!("BEGIN; {PIX_SALE} {PIX_REFUND}"))
        .await
        .unwrap();
    assert_eq!(
        line(&mut conn, "SELECT meio || ':' || invoice_id AS line FROM refunds").await,
        "pix:vendas00000000000000000001cobr"
    );
    // The Pix payer's account never names a bank by its COMPE code.
    let mixed = conn
        .batch_execute("UPDATE proposal_payments SET banco = '001' WHERE tipo = 'PIX AUTOMÁTICO'")
        .await
        .unwrap_err()
        .to_string();
    assert!(mixed.contains("proposal_payments_pix_fields"), "{mixed}");
    conn.batch_execute("ROLLBACK").await.unwrap();

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, DEBITS).await, before);
    let refused = conn.batch_execute(PIX_SALE).await.unwrap_err().to_string();
    assert!(refused.contains("tipo_pagamento_check"), "{refused}");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, DEBITS).await, before);
    conn.batch_execute(PIX_SALE).await.unwrap();
    // The migrations after 54 go down first; 54's own down is then refused.
    let kept = migration.try_down().await.unwrap_err().to_string();
    assert!(kept.contains("PIX AUTOMÁTICO"), "{kept}");
    assert_eq!(
        line(&mut conn, "SELECT string_agg(status, ',') AS line FROM pix_recurrences").await,
        "APROVADA",
        "refused whole: nothing went down"
    );
}
