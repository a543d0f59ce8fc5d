//! Migration 62 adds the contracts' terms (decision 270): up gives every accepted contract the
//! term its certificate printed (a year from the day the proposal was received, else from the
//! acceptance, renewing) and its certificate the first term; down forgets the terms, the renewals'
//! certificates and the term's notices, keeping the first certificates as they were; up again
//! gives the terms back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const CERTIFICATES: &str = "SELECT string_agg(tipo || ':' || aceita_em::date || ':' || coalesce(sha256, '-'), ',' \
     ORDER BY tipo) AS line FROM proposal_certificates";
const TERMS: &str = "SELECT coalesce(string_agg(sequencia || ':' || inicio || ':' || fim || ':' || renovacao, ',' \
     ORDER BY sequencia), 'none') AS line FROM contract_terms";
const NOTICES: &str = "SELECT coalesce(string_agg(tipo, ',' ORDER BY id), 'none') AS line FROM billing_notices";

#[tokio::test(flavor = "multi_thread")]
async fn an_accepted_contract_gets_the_term_its_certificate_printed_and_loses_it_back_both_ways() {
    let migration = MigrationRoundTrip::before("20261206000062").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("DÉBITO EM CONTA"))
        .await
        .unwrap();
    // Received on 28 November at 23:30 in Brasília (02:30 UTC the next day), accepted on 2
    // December; its certificate issued.
    conn.batch_execute(
        "INSERT INTO proposal_acceptances (id_proposta, recebida_em, prazo_em, tacito, suspensoes_permitidas, decidida_em)
         SELECT id, '2026-11-29T02:30:00Z', '2026-12-14T02:30:00Z', true, 1, '2026-12-02T15:00:00Z' FROM proposals;
         INSERT INTO proposal_certificates (id_proposta, tipo, aceita_em, pdf, sha256, emitido_em)
         SELECT id, 'certificado', '2026-12-02T15:00:00Z', '\\x25504446', 'abc', '2026-12-02T15:01:00Z' FROM proposals;
         INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao, situacao_desde, situacao_por)
         SELECT id, tipo_pagamento, valor, '2026-12-02T15:00:00Z', '2026-12-12', '2026-12-12', '{1,3,5}', 5, 30,
             'em_dia', now(), 'x' FROM proposals;
         INSERT INTO billing_notices (id_proposta, tipo, periodo, criado_em)
         SELECT id, 'atraso', 2, now() FROM proposals;",
    )
    .await
    .unwrap();
    let certificates = line(&mut conn, CERTIFICATES).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, CERTIFICATES).await, certificates);
    assert_eq!(line(&mut conn, TERMS).await, "1:2026-11-28:2027-11-28:automatica");
    // A renewal: its term, its certificate (numbered, as every certificate since migration 71),
    // its notice; a term without a period is refused.
    conn.batch_execute(
        "INSERT INTO contract_terms (id_proposta, sequencia, inicio, fim, meses, renovacao, renovada_em, criada_em)
         SELECT id, 2, '2027-11-28', '2028-11-28', 12, 'automatica', now(), now() FROM proposals;
         INSERT INTO proposal_certificates (id_proposta, tipo, vigencia, aceita_em, numero)
         SELECT id, 'certificado', 2, '2026-12-02T15:00:00Z', 'P1.00000001-2' FROM proposals;
         INSERT INTO billing_notices (id_proposta, tipo, vigencia, criado_em)
         SELECT id, 'renovacao', 1, now() FROM proposals;",
    )
    .await
    .unwrap();
    let refused = conn
        .batch_execute(
            "INSERT INTO contract_terms (id_proposta, sequencia, inicio, fim, meses, renovacao, renovada_em, criada_em)
             SELECT id, 3, '2028-11-28', '2028-11-28', 12, 'automatica', now(), now() FROM proposals",
        )
        .await;
    assert!(refused.is_err(), "a term must end after it starts");
    assert_eq!(line(&mut conn, NOTICES).await, "atraso,renovacao");

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, CERTIFICATES).await, certificates);
    assert_eq!(line(&mut conn, NOTICES).await, "atraso");
    let gone = line(
        &mut conn,
        "SELECT count(*)::text AS line FROM information_schema.tables WHERE table_name = 'contract_terms'",
    )
    .await;
    assert_eq!(gone, "0");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, CERTIFICATES).await, certificates);
    assert_eq!(line(&mut conn, TERMS).await, "1:2026-11-28:2027-11-28:automatica");
}
