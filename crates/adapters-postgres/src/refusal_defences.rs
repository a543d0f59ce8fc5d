//! A refused proposal's defence and the free text about the person (decision 290): before the
//! retention schedule or an anonymisation takes a refused proposal's health answers and free
//! text, what defends the refusal is copied to `refusal_defences` (the back office's, found by a
//! keyed digest of the CPF, kept `REFUSAL_DEFENCE_YEARS` from the refusal); at the health horizon
//! the free text written about the person in the analysis becomes the history's marker.

use crate::pool::{PgPool, connection, query_error};
use crate::sealing::SecretSealer;
use crate::statement::statement;
use chrono::{DateTime, Utc};
use diesel::QueryableByName;
use diesel::result::Error as DieselError;
use diesel::sql_types::{Array, BigInt, Bytea, Integer, Jsonb, Nullable, Text, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::privacy::retention::REFUSAL_DEFENCE_YEARS;
use domain::store::StoreError;
use domain::values::Cpf;

/// What the CPF's keyed digest is made for (a digest made for another purpose never matches).
const CPF_TAG_PURPOSE: &str = "defesa_recusa";

/// Whether a proposal (aliased `p`) still holds free text written about the person in its
/// analysis: a categorised decision's words, the customer's request's reason, a request for
/// documents not yet reduced to the marker.
macro_rules! holds_free_text {
    () => {
        "(EXISTS (SELECT 1 FROM proposal_events fe WHERE fe.proposal_id = p.id AND fe.reason_category IS NOT NULL \
             AND fe.reason <> history_reason_marker()) \
          OR EXISTS (SELECT 1 FROM proposal_pending_requests fr WHERE fr.id_proposta = p.id \
             AND fr.itens <> ARRAY[history_reason_marker()]) \
          OR EXISTS (SELECT 1 FROM customer_requests fq WHERE fq.proposal_id = p.id \
             AND fq.motivo <> history_reason_marker()))"
    };
}
pub(crate) use holds_free_text;

statement! {
    /// The defences of the refused proposals among `$1`, copied once (the first copy stands): the
    /// declaration, the refusal's words and category, the requests for documents; `$2` the CPF's
    /// digest, `$3` who, `$4` the years, `$5` now. A refusal older than the years keeps none.
    KEEP = "\
INSERT INTO refusal_defences (id_proposta, identificador, cpf_tag, recusada_em, motivo, categoria_motivo,
                              declaracao, pedidos, guardada_em, guardada_por, apagar_em)
SELECT p.id, p.identificador, $2, e.changed_at, e.reason, e.reason_category,
       jsonb_build_object('afastado', pc.afastado, 'medicamento', pc.medicamento,
                          'medicamento_descricao', pc.medicamento_descricao),
       coalesce((SELECT jsonb_agg(jsonb_build_object('itens', r.itens, 'nota', r.nota, 'resposta', r.resposta,
                                                     'respondidaPor', r.respondida_por, 'respondidaEm', r.respondida_em)
                                  ORDER BY r.id)
                 FROM proposal_pending_requests r WHERE r.id_proposta = p.id), '[]'::jsonb),
       $5, $3, e.changed_at + make_interval(years => $4)
FROM proposals p
JOIN proposal_customers pc ON pc.id_proposta = p.id
JOIN LATERAL (SELECT ev.changed_at, ev.reason, ev.reason_category FROM proposal_events ev
              WHERE ev.proposal_id = p.id AND ev.to_status = 'REPROVADO'
              ORDER BY ev.changed_at DESC LIMIT 1) e ON true
WHERE p.id = ANY($1) AND p.status = 'REPROVADO' AND e.changed_at + make_interval(years => $4) > $5
ON CONFLICT (id_proposta) DO NOTHING";
}

/// Keeps the defences of the refused proposals among `ids` of the person `cpf`, in the caller's
/// transaction, before their data goes.
pub(crate) async fn keep(
    conn: &mut AsyncPgConnection,
    sealer: &SecretSealer,
    cpf: &Cpf,
    ids: &[i64],
    by: &str,
    now: DateTime<Utc>,
) -> Result<usize, DieselError> {
    if ids.is_empty() {
        return Ok(0);
    }
    KEEP.query()
        .bind::<Array<BigInt>, _>(ids)
        .bind::<Bytea, _>(sealer.tag(CPF_TAG_PURPOSE, cpf.as_str().as_bytes()).to_vec())
        .bind::<Text, _>(by)
        .bind::<Integer, _>(REFUSAL_DEFENCE_YEARS)
        .bind::<Timestamptz, _>(now)
        .execute(conn)
        .await
}

statement! {
    /// A categorised decision's words (the back office's, decision 283) in the events.
    EVENT_WORDS = "UPDATE proposal_events SET reason = history_reason_marker()
     WHERE proposal_id = ANY($1) AND reason_category IS NOT NULL AND reason <> history_reason_marker()";
}
statement! {
    /// The same words in the operations that carried them.
    OPERATION_WORDS = "UPDATE proposal_operations SET reason = history_reason_marker()
     WHERE proposal_id = ANY($1) AND reason_category IS NOT NULL AND reason <> history_reason_marker()";
}
statement! {
    /// The customer's request's reason (their own words: "vai operar o joelho").
    REQUEST_WORDS = "UPDATE customer_requests SET motivo = history_reason_marker()
     WHERE proposal_id = ANY($1) AND motivo <> history_reason_marker()";
}
statement! {
    /// What the requests for documents asked and were answered.
    PENDING_WORDS = "UPDATE proposal_pending_requests
     SET itens = ARRAY[history_reason_marker()],
         nota = CASE WHEN nota IS NULL THEN NULL ELSE history_reason_marker() END,
         resposta = CASE WHEN resposta IS NULL THEN NULL ELSE history_reason_marker() END
     WHERE id_proposta = ANY($1) AND itens <> ARRAY[history_reason_marker()]";
}
statement! {
    /// The files that answered them (the anonymisation's too).
    pub(crate) PENDING_FILES = "DELETE FROM proposal_pending_files f USING proposal_pending_requests r
     WHERE r.id = f.id_pendencia AND r.id_proposta = ANY($1)";
}
statement! {
    /// The same in the history (the update its append-only rule admits under `retencao`).
    HISTORY_WORDS = "UPDATE proposal_history SET changes = history_without_free_text(changes)
     WHERE proposal_id = ANY($1) AND (changes ? 'itens' OR (changes ? 'categoria_motivo' AND changes ? 'motivo'))
       AND changes IS DISTINCT FROM history_without_free_text(changes)";
}

/// The free text about the person in the proposals `ids` becomes the marker, their answers' files
/// go (the caller has set the history's action to `retencao`).
pub(crate) async fn drop_free_text(conn: &mut AsyncPgConnection, ids: &[i64]) -> Result<(), DieselError> {
    for statement in [
        EVENT_WORDS,
        OPERATION_WORDS,
        REQUEST_WORDS,
        PENDING_WORDS,
        PENDING_FILES,
        HISTORY_WORDS,
    ] {
        statement.query().bind::<Array<BigInt>, _>(ids).execute(conn).await?;
    }
    Ok(())
}

statement! {
    /// The defences of a person, by any of the CPF's digests (keys rotate), newest first.
    OF_PERSON => DefenceRow = "SELECT identificador, recusada_em, motivo, categoria_motivo, declaracao, pedidos,
         guardada_em, apagar_em
     FROM refusal_defences WHERE cpf_tag = ANY($1) ORDER BY recusada_em DESC";
}

#[derive(QueryableByName)]
struct DefenceRow {
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Timestamptz)]
    recusada_em: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    motivo: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    categoria_motivo: Option<String>,
    #[diesel(sql_type = Jsonb)]
    declaracao: serde_json::Value,
    #[diesel(sql_type = Jsonb)]
    pedidos: serde_json::Value,
    #[diesel(sql_type = Timestamptz)]
    guardada_em: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    apagar_em: DateTime<Utc>,
}

/// The refusals' defences kept for the person `cpf` (the back office's, `sales-api privacy
/// refusal-defences`), as JSON.
pub async fn defences_of(pool: &PgPool, sealer: &SecretSealer, cpf: &Cpf) -> Result<serde_json::Value, StoreError> {
    let mut conn = connection(pool).await?;
    let tags: Vec<Vec<u8>> = sealer
        .tags(CPF_TAG_PURPOSE, cpf.as_str().as_bytes())
        .into_iter()
        .map(|t| t.to_vec())
        .collect();
    let rows: Vec<DefenceRow> = OF_PERSON
        .query()
        .bind::<Array<Bytea>, _>(tags)
        .load(&mut conn)
        .await
        .map_err(query_error)?;
    Ok(serde_json::Value::Array(
        rows.into_iter()
            .map(|r| {
                serde_json::json!({
                    "identificador": r.identificador,
                    "recusadaEm": r.recusada_em,
                    "motivo": r.motivo,
                    "categoriaMotivo": r.categoria_motivo,
                    "declaracao": r.declaracao,
                    "pedidos": r.pedidos,
                    "guardadaEm": r.guardada_em,
                    "apagarEm": r.apagar_em,
                })
            })
            .collect(),
    ))
}
